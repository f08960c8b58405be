"""The repository-wide breaker: failing issues carry its label, and while enough of them were
updated within the window, no agent starts anywhere; a maintainer's /retry lets one through."""

from __future__ import annotations

from datetime import timedelta

from baton.sim import payloads
from baton.sim.actions import Actions, Play
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, settings_from

BREAKER = {"breaker": {"threshold": 2, "window": "1h"}}


def _world(config: dict[str, object], failing: dict[str, bool]) -> tuple[SimGitHub, Actions]:
    settings = settings_from(Config.model_validate(config))
    gh = SimGitHub()
    gh.set_permission("maria", "maintain")

    def agent(number: int, name: str, record: object) -> Play:
        if failing["on"]:
            return Play({"status": "failure", "summary": "the API key is exhausted"})
        return Play({"summary": "fine"})

    return gh, Actions(gh, settings, agent)


def _enter(gh: SimGitHub, actions: Actions, title: str) -> int:
    number = gh.open_issue(title, "x", author="alice")
    gh.human_label(number, "baton", by="maria")
    actions.event("issues", payloads.labeled(gh, number, "baton", sender="maria"))
    return number


def test_an_issue_whose_agent_failed_carries_the_breakers_label() -> None:
    gh, actions = _world(BREAKER, {"on": True})
    first = _enter(gh, actions, "one")
    assert "baton:failing" in gh.labels_of(first)


def test_at_the_threshold_no_agent_starts_and_the_issue_says_why() -> None:
    gh, actions = _world(BREAKER, {"on": True})
    _enter(gh, actions, "one")
    _enter(gh, actions, "two")
    third = _enter(gh, actions, "three")
    record = actions.record(third)
    assert record is not None and record.held and record.dispatch is None
    assert all(number != third for number, _ in actions.agent_runs)
    said = gh.comments_of(third)[-1].body
    assert "repository-wide circuit breaker is open" in said and "`/retry`" in said


def test_a_maintainers_retry_lets_one_agent_through_and_its_success_goes_on() -> None:
    failing = {"on": True}
    gh, actions = _world(BREAKER, failing)
    _enter(gh, actions, "one")
    _enter(gh, actions, "two")
    third = _enter(gh, actions, "three")
    failing["on"] = False
    comment = gh.human_comment(third, "/retry the key is renewed", author="maria")
    actions.event("issue_comment", payloads.comment_created(gh, comment.id))
    record = actions.record(third)
    assert record is not None and not record.held
    assert record.state not in ("received",)
    assert "baton:failing" not in gh.labels_of(third)


def test_failures_older_than_the_window_do_not_count() -> None:
    gh, actions = _world(BREAKER, {"on": True})
    _enter(gh, actions, "one")
    _enter(gh, actions, "two")
    gh.now += timedelta(hours=2)
    third = _enter(gh, actions, "three")
    record = actions.record(third)
    assert record is not None
    assert not (record.held and record.escalated_from == "received" and record.iteration == 0)
    assert any(number == third for number, _ in actions.agent_runs)


def test_without_the_config_nothing_is_counted_or_labelled() -> None:
    gh, actions = _world({}, {"on": True})
    first = _enter(gh, actions, "one")
    before = gh.requests
    assert "baton:failing" not in gh.labels_of(first)
    second = _enter(gh, actions, "two")
    assert "baton:failing" not in gh.labels_of(second)
    assert gh.requests > before
