"""What `baton agent` prepares before the exec (`action/commands.py`: `agent_command_line`,
`agent_handoff`): every missing piece is a setup error with its fix, and a briefing on disk
needs neither a token nor a call."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from baton.action.agent_choice import Proof
from baton.action.commands import CommandResult, agent_command_line, agent_handoff
from baton.action.env import ActionEnv
from baton.action.inputs import DEFAULT_AGENT_TIMEOUT
from baton.agents.handoff import Handoff
from baton.core.model.events import AgentReported
from baton.core.model.evidence import EVIDENCE_FILE, Evidence
from baton.errors import AgentSetupError
from baton.workflow.suite import SuiteSettings

PYTHON = f"{sys.executable} -c pass"


@pytest.mark.parametrize(
    ("given", "configured", "expected"),
    [
        ("claude -p", "codex exec", "claude -p"),
        ("   ", "codex exec", "codex exec"),
        (None, "codex exec", "codex exec"),
    ],
    ids=[
        "--command wins over the input",
        "a blank --command is not given",
        "no --command means the input",
    ],
)
def test_the_agents_command_line_is_the_option_else_the_input(
    given: str | None, configured: str, expected: str
) -> None:
    assert agent_command_line(ActionEnv(agent_command=configured), given) == expected


def test_no_command_anywhere_is_a_setup_error_naming_the_input() -> None:
    with pytest.raises(AgentSetupError, match="set the action's `agent-command` input"):
        agent_command_line(ActionEnv(), "")


def _handoff(tmp_path: Path, env: ActionEnv, **given: object) -> Handoff | CommandResult:
    options: dict[str, object] = {
        "command": PYTHON,
        "issue": None,
        "prompt_path": None,
        "result_file": tmp_path / "out" / "baton-result.json",
        "changeset_path": None,
        "timeout": None,
    }
    return agent_handoff(env, **{**options, **given})  # type: ignore[arg-type]


def test_a_briefing_on_disk_is_handed_over_with_the_default_time_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompt.md").write_text("Do the thing.", encoding="utf-8")

    handoff = _handoff(tmp_path, ActionEnv(), prompt_path="prompt.md")

    assert isinstance(handoff, Handoff)
    assert handoff.prompt == "Do the thing."
    assert handoff.timeout == DEFAULT_AGENT_TIMEOUT
    assert handoff.changeset_file == str(tmp_path / "out" / "baton-changeset.json")


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"command": "no-such-agent-xyz --go"}, "'no-such-agent-xyz' was not found on PATH"),
        ({"prompt_path": "missing.md"}, "cannot read the briefing missing.md"),
    ],
    ids=["an agent that is not installed", "a briefing that cannot be read"],
)
def test_what_the_job_lacks_is_a_setup_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, object], words: str
) -> None:
    monkeypatch.chdir(tmp_path)

    with pytest.raises(AgentSetupError, match=words):
        _handoff(tmp_path, ActionEnv(), **given)


def test_a_named_config_that_does_not_exist_is_a_setup_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = ActionEnv(config="ci/baton.yml", config_given=True)

    with pytest.raises(AgentSetupError, match=r"config file ci/baton\.yml does not exist"):
        _handoff(tmp_path, env, prompt_path="prompt.md")


def test_the_tracker_looks_up_every_workflows_status_labels() -> None:
    """A task's first run adds a status label of the task's workflow: looked up by the read, it
    costs no create (a 422 when another task made it) and no read after it."""
    from baton.action.commands import make_tracker
    from baton.issue.apply import label_specs
    from baton.workflow.config import parse_config

    settings = parse_config("", source="test")
    env = ActionEnv.from_environ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "octo/repo"})
    looked_up = make_tracker(env, settings).known.lookups
    for workflow in settings.workflows.values():
        assert set(label_specs(workflow, settings.policy)) <= set(looked_up), workflow.name
    assert {"status:pending", "status:discovery", "status:implementing"} <= set(looked_up)
    assert len(looked_up) == len(set(looked_up))


def test_the_sweep_keeps_the_pinned_dashboard_and_shows_it_in_the_summary(
    tmp_path: Path,
) -> None:
    from action_harness import ActionRunner
    from baton.sim import payloads
    from fakes.http_github import FakeGitHub

    config = tmp_path / "baton.yml"
    config.write_text("dashboard:\n  pinned: true\n", encoding="utf-8")
    with FakeGitHub() as fake:
        action = ActionRunner(fake, tmp_path, config=str(config))
        number, _ = action.entered()
        assert action.run("issues", payloads.labeled(fake, number, "baton")).returncode == 0
        swept = action.run("schedule", payloads.schedule("0 * * * *"))
        assert swept.returncode == 0, swept.stderr
        pages = [i for i in fake._issues.values() if i.title == "Baton dashboard"]
        assert len(pages) == 1 and pages[0].pinned
        assert "# Baton dashboard" in swept.summary and "| `received` | 1 |" in swept.summary
        again = action.run("schedule", payloads.schedule("0 * * * *"))
        assert len([i for i in fake._issues.values() if i.title == "Baton dashboard"]) == 1
        assert ("POST", "/issues") in [(m, w[-7:]) for m, w in swept.calls]
        assert ("POST", "/issues") not in [(m, w[-7:]) for m, w in again.calls]
        assert f"the dashboard in #{pages[0].number}" in again.stdout + again.stderr


def test_the_tests_profile_needs_no_command_no_briefing_and_names_the_default_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    event = tmp_path / "event.json"
    event.write_text('{"repository": {"default_branch": "trunk"}}', encoding="utf-8")
    suite = SuiteSettings(command="pytest")
    env = ActionEnv(event_path=event)  # type: ignore[call-arg]
    handoff = _handoff(tmp_path, env, command="", proof=Proof("green", suite))
    assert isinstance(handoff, Handoff)
    assert (handoff.prompt, handoff.proof, handoff.suite, handoff.default_branch) == (
        "",
        "green",
        suite,
        "trunk",
    )
    # A red proof runs the agent, with its briefing; verify follows it on its changeset.
    (tmp_path / "prompt.md").write_text("Write the tests.", encoding="utf-8")
    red = _handoff(tmp_path, env, prompt_path="prompt.md", proof=Proof("red", suite))
    assert isinstance(red, Handoff)
    assert (red.prompt, red.proof, red.default_branch) == ("Write the tests.", "red", None)


# --- `baton report` carries the evidence beside the result -------------------------------------
def _reported(
    folder: Path, monkeypatch: pytest.MonkeyPatch, evidence: bytes | None
) -> tuple[AgentReported, CommandResult]:
    """`report_command` up to the run, in `folder`: the event it hands on, and what it says."""
    from baton.action import commands

    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    seen: list[AgentReported] = []

    def handing(*args: object, **kwargs: object) -> CommandResult:
        event = args[3]
        assert isinstance(event, AgentReported)
        seen.append(event)
        return CommandResult()

    monkeypatch.setattr(commands, "handle_event", handing)
    monkeypatch.setattr(commands, "now", lambda: NOW)
    result = folder / "baton-result.json"
    result.write_text('{"status": "success", "confidence": 0.9}', encoding="utf-8")
    if evidence is not None:
        (folder / EVIDENCE_FILE).write_bytes(evidence)
    env = ActionEnv.from_environ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "octo/repo"})
    outcome = commands.report_command(
        env,
        issue=7,
        result_path=result,
        state="running_tests",
        agent=None,
        evidence_path=folder / EVIDENCE_FILE,
        handover="n0nce.digest",
    )
    (event,) = seen
    return event, outcome


NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
EVIDENCE = Evidence(verdict="green", reason="3 tests pass", commit="c" * 40, exit_status=0)
NOT_JSON = (
    "the evidence is not JSON (Expecting property name enclosed in double quotes at line 1 "
    "column 2)"
)


def test_a_report_hands_the_evidence_beside_its_result_to_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    event, outcome = _reported(tmp_path, monkeypatch, EVIDENCE.model_dump_json().encode())
    assert event.evidence == EVIDENCE and event.evidence_problem is None
    assert (event.nonce, event.state) == ("n0nce", "running_tests")
    assert outcome.warnings == []


def test_evidence_that_cannot_be_read_is_its_reason_and_changes_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without, _ = _reported(tmp_path / "none", monkeypatch, None)
    event, outcome = _reported(tmp_path / "broken", monkeypatch, b"{broken")

    assert without.evidence is None and without.evidence_problem is None
    assert event.evidence is None and event.evidence_problem == NOT_JSON
    assert event.model_copy(update={"evidence_problem": None}) == without
    assert outcome.warnings == [f"the evidence was not read: {NOT_JSON}"]


@pytest.mark.parametrize(
    ("triaged", "asked"),
    [
        pytest.param(False, ["quick_reason"], id="triaged here, not again by the run"),
        pytest.param(True, [], id="triaged by the fast path: not again at all"),
    ],
)
def test_a_runs_payload_is_triaged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, triaged: bool, asked: list[str]
) -> None:
    import json

    from action_harness import ActionRunner
    from baton import run
    from baton.action import commands
    from baton.sim import payloads
    from fakes.http_github import FakeGitHub

    calls: list[str] = []
    quick, typed = commands.quick_reason, run.event_reason

    def counted_quick(*args: object) -> object:
        calls.append("quick_reason")
        return quick(*args)  # type: ignore[arg-type]

    def counted_typed(*args: object) -> object:
        calls.append("event_reason")
        return typed(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(commands, "quick_reason", counted_quick)
    monkeypatch.setattr(run, "event_reason", counted_typed)
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        fake.label_by(1, "baton", "maria")
        action = ActionRunner(fake, tmp_path)
        event = tmp_path / "event.json"
        event.write_text(json.dumps(payloads.labeled(fake, 1, "baton")), encoding="utf-8")
        env = ActionEnv.from_environ(
            action.env("issues", event, GITHUB_OUTPUT="", GITHUB_STEP_SUMMARY="")
        )
        outcome = commands.run_event(env, triaged=triaged)

    assert outcome.exit_code == 0, outcome.error
    assert outcome.outputs["state"] == "received"
    assert calls == asked
