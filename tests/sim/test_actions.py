"""Actions in memory (`sim/actions.py`): a webhook's run, the agent job it names, the report,
and the runs Baton dispatches, played oldest first."""

from __future__ import annotations

from baton.core.model.record import Record
from baton.sim import payloads
from baton.sim.actions import Actions, Play
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, settings_from


def _actions(agent: object, *, interleave: bool = False) -> tuple[SimGitHub, Actions, int]:
    settings = settings_from(Config())
    gh = SimGitHub()
    gh.set_permission("maria", "maintain")
    actions = Actions(gh, settings, agent, interleave=interleave)  # type: ignore[arg-type]
    number = gh.open_issue("Export", "CSV please.", author="alice")
    gh.human_label(number, "baton", by="maria")
    return gh, actions, number


def test_the_agent_a_run_names_plays_and_its_report_is_handled() -> None:
    seen: list[tuple[int, str, str | None]] = []

    def agent(number: int, name: str, record: Record | None) -> Play | None:
        seen.append((number, name, record.state if record else None))
        return None  # the pm never reports

    gh, actions, number = _actions(agent)
    actions.event("issues", payloads.labeled(gh, number, "baton", sender="maria"))
    assert seen == [(number, "pm", "received")]
    assert actions.agent_runs == [(number, "pm")]
    assert gh.dispatches == []  # the agent's own run is this job, not a second one


def test_a_report_moves_the_issue_and_the_next_agent_plays_at_once() -> None:
    def agent(number: int, name: str, record: Record | None) -> Play | None:
        return Play({"summary": "triaged"}) if name == "pm" else None

    gh, actions, number = _actions(agent)
    actions.event("issues", payloads.labeled(gh, number, "baton", sender="maria"))
    record = actions.record(number)
    assert record is not None and record.state == "analyzing_requirements"
    assert [name for _, name in actions.agent_runs] == ["pm", "analyst"]


def test_interleaved_jobs_wait_behind_the_dispatched_runs() -> None:
    def agent(number: int, name: str, record: Record | None) -> Play | None:
        return None

    gh, actions, number = _actions(agent, interleave=True)
    actions.event("issues", payloads.labeled(gh, number, "baton", sender="maria"))
    assert actions.jobs == [(number, "pm")] and actions.agent_runs == []
    actions.drain()
    assert actions.jobs == [] and actions.agent_runs == [(number, "pm")]


def test_drain_runs_dispatches_oldest_first_and_stops_at_its_limit() -> None:
    gh, actions, number = _actions(lambda n, a, r: None)
    other = gh.open_issue("Other", "x", author="alice")
    from baton.sim.actions import CHAIN

    gh.dispatch(CHAIN, {"issue": str(number)})
    gh.dispatch(CHAIN, {"issue": str(other)})
    assert actions.drain(limit=1) == 1
    assert [d.inputs["issue"] for d in gh.dispatches] == [str(other)]
    assert actions.drain() == 1 and gh.dispatches == []
