"""`baton agent` as the Action's `command: agent` runs it: the agent's command line comes from
`--command`, else the `agent-command` input (or BATON_AGENT_COMMAND); with neither, the job stops
once with a clear error before any API call and leaves no result to count as an attempt."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from action_harness import ActionRunner, Step
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
ISSUE = 1
SUCCESS = {"status": "success", "confidence": 0.9, "summary": "done by {who}"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    """Issue #1 entered, so the pm is due and `baton agent` has something to brief."""
    runner = ActionRunner(fake, tmp_path)
    fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(ISSUE, "baton", "maria")
    entered = runner.run("issues", P.labeled(fake, ISSUE, "baton"))
    assert entered.outputs["agent"] == "pm", entered.stdout + entered.stderr
    return runner


def agent_script(workdir: Path, who: str, *, sleep: float = 0) -> str:
    """A command line that runs a tiny agent printing its result JSON."""
    script = workdir / f"{who}.py"
    result = json.dumps({**SUCCESS, "summary": f"done by {who}"})
    script.write_text(f"import time\ntime.sleep({sleep})\nprint({result!r})\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def agent(action: ActionRunner, *args: str, **env: str) -> Step:
    return action.invoke(["agent", "--issue", str(ISSUE), *args], "workflow_dispatch", {}, **env)


def result_of(action: ActionRunner) -> dict[str, Any]:
    data = json.loads((action.workdir / "baton-result.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    "variable", ["INPUT_AGENT-COMMAND", "INPUT_AGENT_COMMAND", "BATON_AGENT_COMMAND"]
)
def test_the_agent_command_input_runs_the_agent_without_a_command_option(
    action: ActionRunner, variable: str
) -> None:
    step = agent(action, **{variable: agent_script(action.workdir, "input")})

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by input"


def test_a_command_option_wins_over_the_input(action: ActionRunner) -> None:
    option = agent_script(action.workdir, "option")
    step = agent(
        action, "--command", option, **{"INPUT_AGENT-COMMAND": agent_script(action.workdir, "in")}
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by option"


def test_a_blank_command_option_falls_back_to_the_input(action: ActionRunner) -> None:
    # The example workflow passes an unset repository variable as --command "".
    step = agent(
        action, "--command", "", **{"INPUT_AGENT-COMMAND": agent_script(action.workdir, "input")}
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by input"


@pytest.mark.parametrize("args", [[], ["--command", ""], ["--command", "  "]], ids=repr)
def test_without_any_agent_command_the_job_stops_once_before_any_call(
    action: ActionRunner, args: list[str]
) -> None:
    step = agent(action, *args, **{"INPUT_AGENT-COMMAND": ""})

    assert step.returncode == 1
    assert step.calls == [], "a setup error costs no API call"
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "agent-command" in errors[0], step.stdout + step.stderr
    assert not (action.workdir / "baton-result.json").exists(), "no result: no attempt is spent"


def test_the_agent_timeout_input_stops_a_slow_agent(action: ActionRunner) -> None:
    slow = agent_script(action.workdir, "slow", sleep=30)
    step = agent(action, BATON_AGENT_COMMAND=slow, BATON_AGENT_TIMEOUT="1")

    assert step.returncode == 0, step.stdout + step.stderr
    result = result_of(action)
    assert result["status"] == "failure"
    assert "did not finish within 1 seconds" in result["summary"]


def test_action_yml_declares_the_agent_command_input() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    spec = action["inputs"]["agent-command"]
    assert spec.get("required", False) is False and "default" not in spec
    assert "BATON_AGENT_COMMAND" in spec["description"]
