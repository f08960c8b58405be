"""Who the actor is, looked up only when the decision may turn on it (`rules/needs.py`): each
kind of event, and a reply where replies are read, from someone the config does not already
let answer."""

from __future__ import annotations

from baton.core.model.events import IssueChanged
from baton.core.model.facts import Facts
from baton.core.model.issue_facts import Actor
from baton.core.rules.needs import needs_permission

WAITING = "waiting_for_human_input"
STRANGER = Actor(login="mallory")  # permission not known yet


def _asks(build, record, event) -> bool:
    return needs_permission(event, record, build.workflow, build.policy)


def test_a_known_or_bot_actor_is_never_looked_up(lifecycle):
    record = lifecycle.record(WAITING)
    known = lifecycle.commented("approved", "maria", WAITING)
    assert _asks(lifecycle, record, known), "nothing looked up yet"
    looked_up = Facts(permissions={"maria": "maintain"}, teams={"maria": ()})
    assert not needs_permission(known, record, lifecycle.workflow, lifecycle.policy, looked_up)
    bot = known.model_copy(update={"actor": Actor(login="x[bot]", is_bot=True)})
    assert not _asks(lifecycle, record, bot)


def test_a_label_added_turns_on_who_added_it_and_a_label_removed_does_not(lifecycle):
    added = lifecycle.labeled("baton", "maria", None).model_copy(update={"actor": STRANGER})
    removed = lifecycle.labeled("baton", "maria", None, added=False).model_copy(
        update={"actor": STRANGER}
    )
    assert _asks(lifecycle, None, added)
    assert not _asks(lifecycle, None, removed)


def test_a_command_turns_on_who_wrote_it_in_any_state(lifecycle):
    record = lifecycle.record("implementing")
    command = lifecycle.commented("/retry", "maria", "implementing").model_copy(
        update={"actor": STRANGER}
    )
    plain = lifecycle.commented("thanks, looks good so far", "maria", "implementing").model_copy(
        update={"actor": STRANGER}
    )
    assert _asks(lifecycle, record, command)
    assert not _asks(lifecycle, record, plain), "a reply while an agent works is not read"


def test_a_reply_at_a_waiting_state_turns_on_who_replied_unless_anyone_may_answer(lifecycle):
    record = lifecycle.record(WAITING)
    reply = lifecycle.commented("use commas", "maria", WAITING).model_copy(
        update={"actor": STRANGER}
    )
    assert _asks(lifecycle, record, reply)
    assert not _asks(lifecycle, None, reply), "no record: nothing waits for a reply"
    anyone = lifecycle.with_policy(answerers="anyone")
    assert not _asks(anyone, record, reply)
    author = reply.model_copy(update={"actor": Actor(login=reply.issue.author)})
    assert not _asks(lifecycle, record, author), "the author answers by default"


def test_only_a_reopen_the_config_does_not_let_anyone_make_turns_on_who_made_it(lifecycle):
    base = lifecycle.changed("reopened", "maria", "completed")
    reopened = base.model_copy(update={"actor": STRANGER})
    assert isinstance(reopened, IssueChanged)
    assert _asks(lifecycle, None, reopened)
    assert not _asks(lifecycle.with_policy(reopeners="anyone"), None, reopened)
    closed = lifecycle.changed("closed", "maria", "completed").model_copy(
        update={"actor": STRANGER}
    )
    assert not _asks(lifecycle, None, closed)


def test_an_approving_review_turns_on_who_reviewed(lifecycle):
    review = lifecycle.reviewed("approved", "maria", WAITING).model_copy(update={"actor": STRANGER})
    assert _asks(lifecycle, None, review)
    commented = review.model_copy(update={"verdict": "commented"})
    assert not _asks(lifecycle, None, commented)


def test_an_epics_command_and_a_reply_in_its_dialogue_turn_on_who_wrote_them():
    from support.epic_rules import B, in_discovery

    record = in_discovery("answering")
    reply = B.commented("small screens first", "maria", "discovery").model_copy(
        update={"actor": STRANGER}
    )
    assert _asks(B, record, reply), "discovery converses: replies are read while it works"
    edit = B.commented("/edit shorter please", "maria", "discovery").model_copy(
        update={"actor": STRANGER}
    )
    planning = B.record("planning")
    assert _asks(B, planning, edit), "an epic's command, in any phase"
    assert _asks(B, planning, reply), "planning converses too"
    done = B.record("done")
    assert _asks(B, done, edit)
    assert not _asks(B, done, reply), "a plain reply on a finished epic is not read"
