"""`core/model/facts.py`: what a run looked up travels apart from the event; the actor and the
authors after Baton's last are weighed by login as looked up, and `Asks` says what is missing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from baton.core.model.events import LaterCommit, Lineage
from baton.core.model.facts import Asks, Facts, FailingAsk
from baton.core.model.issue_facts import Actor
from baton.core.model.work import BranchFacts

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_a_login_is_known_once_both_its_permission_and_its_teams_are_looked_up() -> None:
    facts = Facts(permissions={"maria": "maintain"})

    assert not facts.knows("maria"), "the teams are not looked up yet"
    assert facts.merged(teams={"maria": ()}).knows("maria")
    assert not facts.knows("bob")


def test_what_an_actor_may_do_is_read_by_login_from_the_facts_never_from_the_event() -> None:
    facts = Facts(permissions={"maria": "maintain"}, teams={"maria": ("acme/reviewers",)})

    assert (facts.permission_of("maria"), facts.teams_of("maria")) == (
        "maintain",
        ("acme/reviewers",),
    )
    assert (facts.permission_of("bob"), facts.teams_of("bob")) == (None, ())
    with pytest.raises(ValidationError, match="permission"):
        Actor(login="maria", permission="maintain")  # type: ignore[call-arg]


def test_merged_people_add_to_those_known_and_other_facts_replace() -> None:
    facts = Facts(permissions={"a": "read"}, failing_issues=1)

    more = facts.merged(permissions={"b": "write"}, failing_issues=3)

    assert more.permissions == {"a": "read", "b": "write"}
    teamed = Facts(teams={"a": ()}).merged(teams={"b": ("acme/qa",)})
    assert teamed.teams == {"a": (), "b": ("acme/qa",)}
    assert more.failing_issues == 3 and facts.failing_issues == 1


def test_the_lineage_is_read_against_batons_last_and_its_authors_looked_up_apart() -> None:
    commits = (LaterCommit(oid="e" * 40, author=Actor(login="tom")), LaterCommit(oid="d" * 40))
    lineage = Lineage(base="c" * 40, commits=commits, total=2)
    facts = Facts(lineage=lineage, permissions={"tom": "write"})

    assert facts.lineage_of("c" * 40) is lineage, "read as it was read, not rebuilt"
    assert facts.permission_of("tom") == "write"
    assert facts.lineage_of("b" * 40) is None, "read against another head: not this one"


def test_a_branch_found_ahead_is_someone_elses_and_one_made_is_not() -> None:
    theirs = BranchFacts(name="baton/issue-1", head="f" * 40, ahead=2)
    ours = BranchFacts(name="baton/issue-1", head="a" * 40, ahead=0)

    assert Facts(branch=theirs).foreign_branch == theirs
    assert Facts(branch=ours).foreign_branch is None


def test_asks_say_what_they_want_in_words() -> None:
    asks = Asks(
        actor=Actor(login="bob"),
        tasks=True,
        failing_issues=FailingAsk(label="api:down", since=NOW, threshold=2),
    )

    assert str(asks) == "the permission of bob, the epic's tasks, the failing issues"
    assert str(Asks()) == "nothing"
    every = Asks(
        actor=Actor(login="bob"),
        authors=("tom", "una"),
        lineage=("c" * 40, "d" * 40),
        review_notes=(7, 501),
        failing_checks="d" * 40,
        tasks=True,
        order=True,
        failing_issues=FailingAsk(label="api:down", since=NOW, threshold=2),
    )
    assert str(every) == (
        "the permission of bob, the permission of tom, una, the commits after Baton's last, "
        "the review's inline notes, the failing checks, the epic's tasks, the task's order, "
        "the failing issues"
    )
