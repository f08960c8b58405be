"""`baton dashboard` over GitHub's API (the HTTP fake), and `baton demo --dashboard`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from fakes.http_github import FakeGitHub
from support.records import record, record_body

from .proof_records import HISTORIES
from .proof_records import MOVES as PROOF_MOVES

MOVES = [(0, "received", "maria", "entry"), (5, "implementing", "pm", "report")]


def test_the_demo_ends_with_its_repositorys_page() -> None:
    done = CliRunner().invoke(cli, ["demo", "--quiet", "--dashboard"])
    assert done.exit_code == 0, done.output
    page = done.output.split("The demo repository's dashboard:\n\n", 1)[1]
    assert page.startswith("<!-- baton:dashboard -->\n# Baton dashboard\n")
    assert "| 1 | 1 | 0 | 0 | 100.0% | 71.5% of 33,596 agent pull requests" in page
    assert "| `addressing_feedback` | 1 |" in page


@pytest.fixture
def fake() -> FakeGitHub:
    with FakeGitHub() as server:
        for _ in range(3):
            number = server.add_issue("Some work", labels=["status:implementing"])
            body = record_body(record(number, MOVES), server.now)
            server.add_comment(number, body, user=server.bot_login, user_type="Bot")
        yield server


def invoke(fake: FakeGitHub, tmp_path: Path, *more: str) -> tuple[str, str]:
    summary = tmp_path / "summary.md"
    env = {"GITHUB_TOKEN": fake.token, "GITHUB_STEP_SUMMARY": str(summary)}
    arguments = ["dashboard", "--repo", fake.repo_full_name, "--api-url", fake.url]
    arguments += ["--bot-login", fake.bot_login, "--config", str(tmp_path / "none.yml"), *more]
    done = CliRunner().invoke(cli, arguments, env=env)
    assert done.exit_code == 0, done.output + done.stderr
    return done.stdout, done.stderr


def test_the_json_carries_every_figure(fake: FakeGitHub, tmp_path: Path) -> None:
    out, err = invoke(fake, tmp_path, "--format", "json")
    data = json.loads(out)
    assert data["issues"] == 3 and data["by_state"] == {"implementing": 3}
    assert [w["on"] for w in data["waiting"]] == ["the developer"] * 3
    assert err.strip().endswith("GitHub API calls: 3")


def test_the_json_carries_the_evidence_figures_beside_the_others(tmp_path: Path) -> None:
    config = tmp_path / "baton.yml"
    config.write_text('tests:\n  command: python -m pytest -q --junitxml="$BATON_JUNIT"\n')
    with FakeGitHub() as server:
        for kept in HISTORIES.values():
            number = server.add_issue("Tested", labels=["status:running-tests"])
            body = record_body(record(number, PROOF_MOVES, tests=kept), server.now)
            server.add_comment(number, body, user=server.bot_login, user_type="Bot")
        out, _ = invoke(server, tmp_path, "--format", "json", "--config", str(config))
    data = json.loads(out)
    assert list(data) == [
        "generated_at",
        "window_days",
        "issues",
        "open_issues",
        "by_state",
        "waiting",
        "state_times",
        "lead_time",
        "slowest",
        "rework",
        "humans",
        "outcomes",
        "spend",
        "evidence",
        "unreadable",
    ]
    found = data["evidence"]
    per_issue = found.pop("per_issue")
    assert found == {
        "configured": True,
        "issues": 3,
        "reports_alone": 3,
        "counts": {"red": 4, "green": 3, "failing": 1, "broken": 1},
        "signed_off": 2,
        "green_issues": 2,
        "first_green_held": 1,
        "first_green_rate": 0.5,
    }
    assert [(line["number"], line["first_green_held"]) for line in per_issue] == [
        (2, False),
        (1, True),
        (3, None),
    ]
    assert per_issue[0]["last_red"] == {
        "commit": "3" * 40,
        "at": "2026-03-02T10:00:00Z",
        "fail_to_pass": 3,
        "pass_to_pass": 1,
        "signed": False,
    }


def test_publish_keeps_one_pinned_issue_and_the_job_summary(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    invoke(fake, tmp_path, "--publish")
    _, err = invoke(fake, tmp_path, "--publish")
    pages = [i for i in fake._issues.values() if i.title == "Baton dashboard"]
    assert len(pages) == 1 and pages[0].pinned
    # Current, or updated when the clock turned a minute between the two runs: in place either way.
    assert "the dashboard in #4 is current" in err or "the dashboard in #4 is updated" in err
    assert (tmp_path / "summary.md").read_text().count("# Baton dashboard") == 2


def test_the_docs_show_the_demos_page_as_it_is() -> None:
    done = CliRunner().invoke(cli, ["demo", "--quiet", "--dashboard"])
    page = done.output.split("The demo repository's dashboard:\n\n", 1)[1]
    docs = (Path(__file__).parents[2] / "docs" / "dashboard.md").read_text(encoding="utf-8")
    stale = "regenerate the end of docs/dashboard.md with baton demo --dashboard"
    assert docs.endswith(page.rstrip() + "\n"), stale
