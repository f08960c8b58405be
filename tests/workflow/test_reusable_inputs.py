"""The reusable workflow's `dry-run` and `runs-on` inputs reach every job, as GitHub's engine
evaluates them: the safe trial and self-hosted runners on the recommended path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.expressions import REUSABLE, jobs, render, require_engine, reusable_inputs

require_engine()
JOBS = jobs(REUSABLE)


def _value(expression: str, context: dict[str, Any]) -> Any:
    """What an expression evaluates to, JSON types kept (`toJSON` of it)."""
    inner = expression.strip().removeprefix("${{").removesuffix("}}")
    (rendered,) = render(["${{ toJSON(" + inner + ") }}"], context)
    return json.loads(rendered)


@pytest.mark.parametrize("job", sorted(JOBS))
@pytest.mark.parametrize(
    ("given", "runner"),
    [
        pytest.param(None, "ubuntu-latest", id="by default GitHub's runner"),
        pytest.param("self-hosted", "self-hosted", id="a label"),
        pytest.param('["self-hosted", "linux"]', ["self-hosted", "linux"], id="a JSON list"),
        pytest.param('{"group": "baton"}', {"group": "baton"}, id="a runner group"),
    ],
)
def test_every_job_runs_on_the_runner_the_caller_names(
    job: str, given: str | None, runner: Any
) -> None:
    inputs = reusable_inputs() if given is None else reusable_inputs(runs_on=given)
    assert _value(JOBS[job]["runs-on"], {"inputs": inputs}) == runner


def _baton_steps(job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = JOBS[job]["steps"]
    return [step for step in steps if step.get("uses") == "./.baton/action"]


@pytest.mark.parametrize("job", ["baton", "report"])
@pytest.mark.parametrize("dry_run", [False, True])
def test_the_dry_run_input_reaches_the_action_in_each_writing_job(job: str, dry_run: bool) -> None:
    steps = _baton_steps(job)  # the report job's second runs `baton run` for a refused dispatch
    assert steps
    context = {"inputs": reusable_inputs(dry_run=dry_run)}
    for step in steps:
        assert render([step["with"]["dry-run"]], context) == [str(dry_run).lower()]


@pytest.mark.parametrize(("dry_run", "agent"), [(False, "analyst"), (True, "")])
def test_a_dry_run_starts_no_agent(dry_run: bool, agent: str) -> None:
    """A dry run wrote no record for the agent to report against, so the agent job (and the
    report after it) does not start; the summary shows the agent that would have."""
    context = {
        "inputs": reusable_inputs(dry_run=dry_run),
        "steps": {"baton": {"outputs": {"agent": "analyst"}}},
    }
    assert render([JOBS["baton"]["outputs"]["agent"]], context) == [agent]
