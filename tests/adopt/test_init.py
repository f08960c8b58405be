"""`baton init`'s files: the caller is caller.yml with its `uses:` pinned (and, for another
agent, that agent's lines), the starter config is one Baton's loader accepts, and nothing is
overwritten unless asked."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from baton import __version__
from baton.adopt.agents import AGENTS
from baton.adopt.init import (
    BATON_REPOSITORY,
    caller_source,
    installed_commit,
    next_steps,
    plan,
    write,
)
from baton.errors import SetupRefused
from baton.workflow.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "0123456789abcdef0123456789abcdef01234567"
CALLER = ".github/workflows/baton.yml"


def test_the_example_users_read_is_the_source_init_writes_from() -> None:
    example = ROOT / "examples" / "workflows" / "baton.yml"
    assert example.read_text(encoding="utf-8") == caller_source()


def test_claudes_caller_is_the_source_with_only_its_uses_line_pinned() -> None:
    written = plan("claude", RELEASE).files[CALLER].splitlines()
    source = caller_source().splitlines()
    changed = [(a, b) for a, b in zip(source, written, strict=True) if a != b]
    assert changed == [
        (
            "    uses: OWNER/baton/.github/workflows/baton-issues.yml@v0.1.0 # zizmor: "
            "ignore[unpinned-uses] a placeholder: pin step 1's SHA",
            f"    uses: {BATON_REPOSITORY}/.github/workflows/baton-issues.yml@{RELEASE} "
            f"# v{__version__}",
        )
    ]


def test_a_tag_is_written_with_a_note_to_pin_its_sha() -> None:
    setup = plan("claude", None)
    assert (setup.ref, setup.pinned) == (f"v{__version__}", False)
    job = yaml.safe_load(setup.files[CALLER])["jobs"]["baton"]
    assert job["uses"].endswith(f"baton-issues.yml@v{__version__}")
    assert next_steps("claude", setup)[0] == (
        f"note: {CALLER} names the tag v{__version__}, which can move: pin the release's commit "
        "SHA (baton init --ref SHA --force, or edit its `uses:` line)."
    )


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_another_agent_gets_its_profiles_lines_and_its_keys_secret(agent: str) -> None:
    job = yaml.safe_load(plan(agent, RELEASE).files[CALLER])["jobs"]["baton"]
    setup = AGENTS[agent]
    assert job["with"] == {"agent-setup": setup.ready.setup, "agent-command": setup.ready.command}
    assert job["secrets"] == {
        setup.passed_as: f"${{{{ secrets.{setup.secret} }}}}",
        "BATON_RECORD_SECRET": "${{ secrets.BATON_RECORD_SECRET }}",
    }


def test_the_starter_config_is_one_batons_loader_accepts() -> None:
    text = plan("claude", RELEASE).files[".github/baton.yml"]
    settings = parse_config(text, source=".github/baton.yml")
    assert (settings.workflow.name, settings.policy.trigger_label) == ("issue-lifecycle", "baton")


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "baton.yml").write_text("mine\n", encoding="utf-8")
    with pytest.raises(SetupRefused, match=r"^\.github/baton\.yml exists; pass --force"):
        write(tmp_path, plan("claude", RELEASE), force=False)
    assert not (tmp_path / CALLER).exists()
    assert (tmp_path / ".github" / "baton.yml").read_text(encoding="utf-8") == "mine\n"
    assert write(tmp_path, plan("claude", RELEASE), force=True) == [CALLER, ".github/baton.yml"]
    assert "workflow: issue-lifecycle" in (tmp_path / ".github" / "baton.yml").read_text()


@pytest.mark.parametrize(
    ("agent", "ref", "message"),
    [
        ("copilot", None, "unknown agent 'copilot'; the agents are: claude, codex, gemini"),
        ("claude", "v1 && curl", "--ref 'v1 && curl' is neither a commit SHA nor a tag"),
        ("claude", "../main", "--ref '../main' is neither a commit SHA nor a tag"),
    ],
)
def test_bad_options_are_one_line_errors(agent: str, ref: str | None, message: str) -> None:
    with pytest.raises(SetupRefused) as raised:
        plan(agent, ref)
    assert str(raised.value) == message


def test_the_next_steps_name_the_secrets_and_the_setting() -> None:
    assert next_steps("codex", plan("codex", RELEASE)) == [
        "Next:",
        "  1. Add the secrets (GitHub shows their names, never their values):",
        "       openssl rand -hex 32 | gh secret set BATON_RECORD_SECRET",
        "       gh secret set OPENAI_API_KEY   # the codex agent's key",
        "  2. Turn on Settings → Actions → General → Workflow permissions → "
        '"Allow GitHub Actions to create and approve pull requests"',
        "     (Baton opens a draft pull request with the workflow's token).",
        "  3. Commit both files, then check the setup: baton doctor --repo OWNER/NAME",
    ]


def test_batons_repository_is_the_projects_homepage() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["urls"]["Homepage"] == f"https://github.com/{BATON_REPOSITORY}"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(
            '{"url": "https://github.com/issue-baton/baton.git", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            ("issue-baton/baton", RELEASE),
            id="installed from Baton's repository at a commit",
        ),
        pytest.param(
            '{"url": "git+https://github.com/a-fork/baton", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            ("a-fork/baton", RELEASE),
            id="installed from a fork: the fork's workflow at its commit",
        ),
        pytest.param(
            '{"url": "file:///home/me/baton", "dir_info": {"editable": true}}',
            None,
            id="an editable checkout: no commit recorded",
        ),
        pytest.param(
            '{"url": "https://example.org/baton.git", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            None,
            id="not from GitHub",
        ),
        pytest.param("not json", None, id="a broken record"),
        pytest.param(None, None, id="no record"),
    ],
)
def test_the_commit_pip_installed_baton_from(
    record: str | None, expected: tuple[str, str] | None
) -> None:
    assert installed_commit(record) == expected


def test_init_pins_the_installed_commit_unless_a_ref_is_given() -> None:
    record = (
        '{"url": "https://github.com/a-fork/baton", '
        f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}'
    )
    setup = plan("claude", None, direct_url=record)
    job = yaml.safe_load(setup.files[CALLER])["jobs"]["baton"]
    assert (job["uses"], setup.pinned) == (
        f"a-fork/baton/.github/workflows/baton-issues.yml@{RELEASE}",
        True,
    )
    other = "f" * 40
    job = yaml.safe_load(plan("claude", other, direct_url=record).files[CALLER])["jobs"]["baton"]
    assert job["uses"] == f"{BATON_REPOSITORY}/.github/workflows/baton-issues.yml@{other}"
