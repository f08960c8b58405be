"""`baton demo` (`sim/demo.py`) as a new user reads it: each notice told once, no agent named
without saying what comes first, and a diagram only when asked for. Exact lines, since the
output is what the README sends a newcomer to."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from importlib import resources

import pytest
import yaml
from click.testing import CliRunner, Result

from baton.cli import cli
from baton.core.model.evidence import (
    Evidence,
    Outcome,
    ProofCounts,
    RedProof,
    SignedOff,
    SignOff,
    TestCase,
    TestsRecord,
    Verdict,
)
from baton.core.model.record import Record
from baton.sim import demo
from baton.sim.scenario.format import demo_scenario


@pytest.fixture(scope="module")
def told() -> Result:
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    return result


def _step(output: str, number: int) -> list[str]:
    """The lines of one numbered step, up to the blank line that ends it."""
    start = re.search(rf"^{number:>2}\. .*$", output, re.M)
    assert start, number
    return output[start.start() :].split("\n\n", 1)[0].splitlines()


CI_NOTICE = "     | ### 🔐 CI on pull request #2 waits for a maintainer's approval"


def test_the_ci_approval_notice_is_shown_once_and_named_when_posted_again(told: Result) -> None:
    assert told.output.count("Approve and run") == 1
    assert _step(told.output, 8)[4:7] == [
        "   bot comments:",
        CI_NOTICE,
        "     | GitHub holds the CI runs of a pull request that GITHUB_TOKEN opened or updated "
        "until someone with write access clicks **Approve and run** on the pull request page. "
        "Approving runs the agent-written code of the pull request (its tests, a `conftest.py`, "
        "a Makefile, any script CI calls) with the repository's secrets: review the diff first, "
        "and approve only what you would run yourself. Each commit Baton adds waits for approval "
        "again; a run never approved sends nothing back.",
    ]
    assert _step(told.output, 11)[4:7] == [
        "   bot comments again, as at step 8:",
        CI_NOTICE,
        "   next agent: pm (workflow run dispatched)",
    ]


def test_an_agent_named_before_a_human_step_says_that_step_comes_first(told: Result) -> None:
    assert _step(told.output, 17) == [
        "17. maria reviews pull request #2: approves",
        "   transition: waiting_for_human_input → human_input_received",
        "   why: waiting_for_human_input → human_input_received: maria approved pull request #2",
        "   labels: status:human-input-received",
        "   next agent: pm (follow-up job); step 18 happens before it reports",
    ]
    assert "   next agent: developer (follow-up job)" in _step(told.output, 13)


def test_the_header_says_what_next_agent_means(told: Result) -> None:
    assert told.output.splitlines()[:3] == [
        "Baton demo: one issue through the issue-lifecycle workflow, on an in-memory GitHub.",
        "Every step is a GitHub event or an agent report, handled exactly as `baton run` and "
        "`baton report` handle them.",
        "“next agent” is the agent Baton starts next: in a job of the same workflow run "
        "(follow-up job) or in a run it dispatches.",
    ]


def test_the_demo_ends_with_where_the_diagram_is_not_with_raw_mermaid(told: Result) -> None:
    assert "```" not in told.output and "-->" not in told.output
    assert told.output.splitlines()[-7:] == [
        "   ✓ as expected",
        "",
        # Real round trips of GitHubTracker: 14 of them create the status labels on first use.
        "Final state: completed after 15 transitions (81 GitHub API requests, 8 workflow runs "
        "dispatched).",
        "The work: baton/issue-1 at 638a655, 4 commit(s) by Baton; pull request #2 merged into "
        "main as f0892a6.",
        "",
        "The path as a Mermaid diagram: `baton demo --diagram` (GitHub draws Mermaid in Markdown).",
        "The whole workflow: `baton graph`, drawn in the README.",
    ]


def test_diagram_ends_the_demo_with_the_path_as_mermaid(told: Result) -> None:
    drawn = CliRunner().invoke(cli, ["demo", "--diagram"])
    assert drawn.exit_code == 0, drawn.output
    head, _, diagram = drawn.output.partition("\nThe path the issue took:\n\n```mermaid\n")
    assert head == told.output.rsplit("\nThe path as a Mermaid diagram", 1)[0]
    assert diagram.startswith("stateDiagram-v2\n    [*] --> received\n")
    assert diagram.endswith("    completed --> [*]\n```\n")


# --- baton demo --test-first ------------------------------------------------------------------
SIGNED = "tests/test_export_csv.py"
IDS = tuple(
    f"{SIGNED}::{name}"
    for name in ("test_header_row", "test_commas", "test_hidden_columns_are_skipped")
)


def test_the_test_first_demo_ships_with_the_package_with_a_config_that_has_tests() -> None:
    scenario = demo_scenario("test_first.yml")
    config = (resources.files("baton.sim") / demo.TEST_FIRST_CONFIG).read_text(encoding="utf-8")

    assert yaml.safe_load(config)["workflow"] == "test-first"
    assert yaml.safe_load(config)["tests"]["command"]
    reports = [s.report for s in scenario.steps if s.report is not None]
    proofs = [(r.agent, r.evidence) for r in reports if r.evidence is not None]
    assert [(agent, tuple(t.outcome for t in e.tests)) for agent, e in proofs] == [
        ("tester", ("failed", "failed", "failed")),
        ("tester", ("passed", "passed", "passed")),
    ]
    weakened = [r for r in reports if r.agent == "developer" and SIGNED in (r.changes or {})]
    assert len(weakened) == 1


def test_epic_and_test_first_are_two_demos_refused_together_in_one_line() -> None:
    result = CliRunner().invoke(cli, ["demo", "--epic", "--test-first"])

    assert result.exit_code == 1
    assert result.output == "error: --epic and --test-first are two demos: choose one\n"


def _evidence(verdict: Verdict, commit: str, outcome: Outcome, reason: str) -> Evidence:
    tests = tuple(TestCase(id=i, file=SIGNED, outcome=outcome) for i in IDS)
    return Evidence(verdict=verdict, reason=reason, commit=commit, exit_status=0, tests=tests)


def test_the_ending_says_what_each_proof_showed_and_what_the_record_keeps() -> None:
    at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    red = _evidence("red", "a" * 40, "failed", "3 new or changed failed")
    green = _evidence("green", "b" * 40, "passed", "3 passed, 0 skipped")
    proof = RedProof(commit="c" * 40, sets=SignedOff(fail_to_pass=IDS), at=at)
    record = Record(
        workflow="test-first",
        issue=1,
        state="completed",
        entered_at=at,
        tests=TestsRecord(
            signed=SignOff(proof=proof, by="maria", at=at), counts=ProofCounts(red=1, green=1)
        ),
    )

    assert demo.evidence_lines([(6, red), (14, green)], record) == [
        "What the tests showed:",
        "  step 6: red on aaaaaaa, 3 test(s), 3 failing: 3 new or changed failed",
        "  step 14: green on bbbbbbb, 3 test(s), 0 failing: 3 passed, 0 skipped",
        "  signed off by maria: 3 test(s) that must pass (FAIL_TO_PASS), 0 that must keep "
        "passing (PASS_TO_PASS)",
        "  states settled by evidence: 1 red, 1 green, 0 failing, 0 broken",
    ]
    assert demo.evidence_lines([], None) == ["What the tests showed:"]


@pytest.fixture(scope="module")
def test_first() -> Result:
    return CliRunner().invoke(cli, ["demo", "--test-first"])


def test_the_test_first_demo_plays_red_sign_off_refusal_green_to_the_merge(
    test_first: Result,
) -> None:
    output = test_first.output

    assert test_first.exit_code == 0, output
    assert "✗" not in output
    assert output.splitlines()[:2] == demo.TEST_FIRST_HEADER.splitlines()
    # the red proof, and the waiting message that shows it
    assert re.search(r"evidence: red on [0-9a-f]{7} with changeset [0-9a-f]{12}: 3 new", output)
    waiting = output.split("tests_review", 1)[1].split("\n\n", 1)[0]
    assert "test_hidden_columns_are_skipped" in waiting
    assert "ModuleNotFoundError" in waiting
    # the developer's change to a signed-off test is refused, naming the file
    refused = output.split("the developer weakens a signed-off test", 1)[1].split("\n\n", 1)[0]
    assert SIGNED in refused
    assert re.search(r"evidence: green on [0-9a-f]{7}: 3 passed, 0 skipped", output)
    assert "Final state: completed" in output
    assert "  signed off by maria: 3 test(s) that must pass (FAIL_TO_PASS)" in output
    assert "  states settled by evidence: 1 red, 1 green, 0 failing, 0 broken" in output


# --- `baton demo --epic`: epic_demo.yml played by the one player --------------------------------
def test_the_epic_demo_tells_the_whole_story() -> None:
    result = CliRunner().invoke(cli, ["demo", "--epic"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "the circuit breaker opened" in out
    assert "The circuit breaker is open after 3 task failures in a row" in out
    assert "maria on #1: /resume" in out
    assert "maria on #3: /retry Validate" in out
    assert "maria merges pull request #8 (baton/issue-1 into main)" in out
    assert "Final state: done." in out
    assert "The work: baton/issue-1 at " in out
    assert "```mermaid" not in out
    assert out.endswith("\nThe plan as a Mermaid diagram: `baton demo --epic --diagram`.\n")
    assert "Figures: 6 tasks, 28 agent runs, 406 API calls, at most 2 tasks in progress" in out
    assert "✗" not in out and out.count("✓ as expected") == 6


def test_the_breaker_lists_each_rejection_once_numbered_per_task() -> None:
    """Three rejected reviews opened it, two of them the api task's: each is its own line."""
    out = CliRunner().invoke(cli, ["demo", "--epic"]).output
    start = out.index("The circuit breaker is open")
    assert out[start:].splitlines()[:5] == [
        "The circuit breaker is open after 3 task failures in a row (a rejected review or a "
        "failed implementation is one):",
        "  - task api (#3): failure 1",
        "  - task ui (#4): failure 1",
        "  - task api (#3): failure 2",
        "",
    ]


def test_the_epic_demo_draws_its_plan_only_with_diagram() -> None:
    drawn = CliRunner().invoke(cli, ["demo", "--epic", "--diagram"])
    assert drawn.exit_code == 0, drawn.output
    plan = drawn.output.split("\nThe plan:\n\n", 2)[-1]
    assert plan.startswith("```mermaid\ngraph TD\n") and plan.endswith("```\n")


def test_the_quiet_epic_demo_says_only_the_outcome() -> None:
    out = CliRunner().invoke(cli, ["demo", "--epic", "--quiet"]).output
    assert "maria on #1" not in out and "Final state: done." in out


def test_the_epic_demo_is_a_scenario_of_the_one_format_with_its_agents_scripted() -> None:
    scenario = demo_scenario("epic_demo.yml")
    assert scenario.agents is not None
    assert [t.key for t in scenario.agents.tasks] == [
        "model",
        "api",
        "ui",
        "audit",
        "integrate",
        "docs",
    ]
    player = demo.epic_player(lambda _: None)
    assert (player.settings.policy.epics.max_parallel, player.play()) == (2, 0)


def test_the_epics_doc_quotes_the_epic_demo_as_it_runs() -> None:
    """Every line of docs/epics.md's abbreviated run is printed by the demo, in that order."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "epics.md").read_text()
    section = doc[doc.index("### baton demo --epic") :]
    block = section[section.index("```\n") + 4 : section.index("\n```", section.index("```\n"))]
    quoted = [line for line in block.splitlines()[1:] if line not in ("…", "")]
    printed = CliRunner().invoke(cli, ["demo", "--epic"]).output.splitlines()
    at = 0
    for line in quoted:
        assert line in printed[at:], line
        at = printed.index(line, at) + 1
