"""GitHub's rules for issues, comments, labels, events and reactions, tested once on the model
of GitHub (`sim/model/issues.py`); the API's tests pin only its translation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton.sim.model import rules
from baton.sim.model.issues import Issues, Refused, User, check_body

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ALICE, MARIA, BOT = User("alice"), User("maria"), User("github-actions[bot]", "Bot")


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> Issues:
    return Issues(rules.Ids(), clock)


def test_issues_and_pull_requests_share_one_sequence_of_numbers(store: Issues) -> None:
    first = store.open("One", "", ALICE)
    pull = store.open("Two", "", ALICE, is_pull_request=True)
    assert (first.number, pull.number, store.open("Three", "", ALICE).number) == (1, 2, 3)
    assert first.id > rules.FIRST_ID > 2**31


def test_labels_given_at_opening_are_recorded_as_added_by_the_author(store: Issues) -> None:
    issue = store.open("Bug", "", ALICE, labels=["bug"])
    assert issue.labels == ["bug"]
    assert [(e.kind, e.actor, e.label) for e in issue.events] == [
        ("labeled", ALICE, ("bug", rules.DEFAULT_LABEL_COLOR))
    ]


def test_label_names_ignore_case_when_added_and_removed(store: Issues) -> None:
    store.create_label("bug", "d73a4a")
    issue = store.open("Bug", "", ALICE)
    assert store.add_label(issue, "BUG", MARIA) == "bug"
    assert store.add_label(issue, "Bug", MARIA) is None  # already there: no second event
    assert store.remove_label(issue, "bUg", MARIA) == "bug"
    assert store.remove_label(issue, "bug", MARIA) is None
    assert [e.kind for e in issue.events] == ["labeled", "unlabeled"]
    assert list(store.labels) == ["bug"]


def test_a_label_added_to_an_issue_is_created_grey_and_a_colour_kept_in_lower_case(
    store: Issues,
) -> None:
    issue = store.open("Bug", "", ALICE)
    store.add_label(issue, "triage", MARIA)
    made = store.create_label("Urgent", "D73A4A", "Drop everything")
    assert (store.labels["triage"].color, made.color) == ("ededed", "d73a4a")
    assert store.find_label("URGENT") is made


@pytest.mark.parametrize(
    ("name", "color", "description", "reason"),
    [
        ("x" * 51, "ededed", None, "name is too long (maximum is 50 characters)"),
        ("  ", "ededed", None, "Label.name is missing field"),
        ("ok", "#ededed", None, "Label.color is invalid"),
        ("ok", "ededed", "d" * 101, "description is too long (maximum is 100 characters)"),
    ],
)
def test_a_label_github_refuses_is_refused_word_for_word(
    store: Issues, name: str, color: str, description: str | None, reason: str
) -> None:
    with pytest.raises(Refused) as refused:
        store.create_label(name, color, description)
    assert (str(refused.value.refusal), refused.value.subject) == (reason, name)
    assert store.labels == {}


def test_labels_are_kept_by_name_where_github_lists_them_so(clock: Clock) -> None:
    store = Issues(rules.Ids(), clock, sort_labels=True)
    issue = store.open("Bug", "", ALICE, labels=["zeta", "Alpha", "beta"])
    assert issue.labels == ["Alpha", "beta", "zeta"]


def test_a_body_over_githubs_limit_is_refused_and_one_at_the_limit_is_not() -> None:
    check_body("IssueComment", "x" * rules.BODY_LIMIT)
    with pytest.raises(Refused, match=r"body is too long \(maximum is 65536 characters\)"):
        check_body("IssueComment", "x" * (rules.BODY_LIMIT + 1))


def test_a_comment_bumps_its_issue_and_an_edit_is_stamped_with_its_editor(
    store: Issues, clock: Clock
) -> None:
    issue = store.open("Bug", "", ALICE)
    clock.now += timedelta(minutes=1)
    comment = store.comment(issue, "first", ALICE, "CONTRIBUTOR")
    assert issue.updated_at == comment.created_at == clock.now
    assert (comment.edited_at, comment.editor) == (None, None)
    clock.now += timedelta(minutes=1)
    store.edit(comment, "second", MARIA)
    assert (comment.body, comment.edited_at, comment.editor) == ("second", clock.now, MARIA)
    assert comment.created_at < comment.updated_at == clock.now


def test_closing_and_reopening_record_who_and_why(store: Issues, clock: Clock) -> None:
    issue = store.open("Bug", "", ALICE)
    assert store.set_state(issue, "closed", MARIA)
    assert (issue.state, issue.state_reason, issue.closed_at) == ("closed", "completed", START)
    assert not store.set_state(issue, "closed", MARIA, "not_planned")  # only the reason
    assert issue.state_reason == "not_planned"
    assert store.set_state(issue, "open", ALICE)
    assert (issue.state_reason, issue.closed_at) == ("reopened", None)
    assert [(e.kind, e.actor.login) for e in issue.events] == [
        ("closed", "maria"),
        ("reopened", "alice"),
    ]


@pytest.mark.parametrize(
    ("state", "reason", "field"), [("shut", None, "state"), ("closed", "bored", "state_reason")]
)
def test_a_state_github_does_not_have_is_refused(
    store: Issues, state: str, reason: str | None, field: str
) -> None:
    issue = store.open("Bug", "", ALICE)
    with pytest.raises(Refused) as refused:
        store.set_state(issue, state, MARIA, reason)
    assert (refused.value.refusal.field, issue.state) == (field, "open")


def test_a_rename_is_an_event_with_both_titles(store: Issues) -> None:
    issue = store.open("Bgu", "", ALICE)
    store.rename(issue, "Bgu", MARIA)  # the same title: nothing happens
    store.rename(issue, "Bug", MARIA)
    assert [(e.kind, e.rename) for e in issue.events] == [("renamed", ("Bgu", "Bug"))]


def test_a_reaction_is_made_once_per_user_and_one_github_lacks_is_refused(
    store: Issues,
) -> None:
    comment = store.comment(store.open("Bug", "", ALICE), "hi", ALICE)
    made, new = store.react(comment.reactions, "eyes", BOT)
    assert new and store.react(comment.reactions, "eyes", BOT) == (made, False)
    assert store.react(comment.reactions, "eyes", MARIA)[1]
    with pytest.raises(Refused):
        store.react(comment.reactions, "thumbsup", BOT)
    assert [r.user.login for r in comment.reactions] == [BOT.login, "maria"]
