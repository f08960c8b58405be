"""Closing and reopening, end to end over the in-memory GitHub: a reopen never buys a second run
of an agent already due or running, and the config's `reopeners` says who may restart work.

maria maintains, alice (the issue's author) and bob only read.
"""

from __future__ import annotations

from baton.core.model.decision import Outcome
from support.memory import (
    close,
    configured,
    enter_at,
    messages_of,
    record_of,
    reopen,
    report,
    state_of,
)


def test_the_author_closing_and_reopening_again_and_again_starts_no_run(gh):
    settings = configured(reopeners="author-or-maintainers")
    enter_at(gh, settings, "implementing")
    dispatches = len(gh.dispatches)

    reopened = []
    for _ in range(5):
        close(gh, settings, "alice")
        reopened.append(reopen(gh, settings, "alice"))

    assert [d.agent for d in reopened] == [None] * 5
    assert len(gh.dispatches) == dispatches
    record = record_of(gh)
    assert (record.state, record.attempt) == ("implementing", 1), "no retry was spent"


def closed_while_the_developer_reports(gh, settings) -> str:
    """The developer finishes while the issue is closed: the issue moves on, and the next
    agent is not started; its state is returned."""
    enter_at(gh, settings, "implementing")
    close(gh, settings, "alice")
    moved = report(gh, settings, "developer")
    assert moved.outcome is Outcome.transition and moved.agent is None
    assert settings.workflow.agent_of(moved.state) is not None
    assert record_of(gh).dispatch is None
    return moved.state


def test_a_maintainers_reopen_starts_the_agent_a_closed_issue_held_back_once(gh, settings):
    state = closed_while_the_developer_reports(gh, settings)
    agent = settings.workflow.agent_of(state)

    first = reopen(gh, settings, "maria")
    close(gh, settings, "maria")
    second = reopen(gh, settings, "maria")

    assert (first.outcome, first.agent) == (Outcome.resume, agent)
    assert record_of(gh).dispatch.agent == agent
    assert (second.outcome, second.agent) == (Outcome.ignored, None)
    assert state_of(gh) == state


def test_the_authors_reopen_is_refused_by_default_with_a_note_on_the_issue(gh, settings):
    state = closed_while_the_developer_reports(gh, settings)

    decision = reopen(gh, settings, "alice")

    assert (decision.outcome, decision.agent) == (Outcome.refused, None)
    assert "`alice`" in messages_of(gh)[-1]
    assert "only maintainers can restart work by reopening" in messages_of(gh)[-1]
    assert state_of(gh) == state
    assert record_of(gh).dispatch is None, "a maintainer's reopen can still start it"


def test_the_authors_reopen_starts_the_agent_when_the_config_lets_the_author(gh):
    settings = configured(reopeners="author-or-maintainers")
    state = closed_while_the_developer_reports(gh, settings)

    decision = reopen(gh, settings, "alice")
    stranger = reopen(gh, settings, "bob")

    assert (decision.outcome, decision.agent) == (Outcome.resume, settings.workflow.agent_of(state))
    assert (stranger.outcome, stranger.agent) == (Outcome.ignored, None)
