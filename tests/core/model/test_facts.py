"""`core/model/facts.py`: what a run looked up travels apart from the event; the actor and the
authors after Baton's last are weighed as looked up, and `Asks` says what is missing."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.events import LaterCommit, Lineage, tick
from baton.core.model.facts import Asks, Facts, FailingAsk
from baton.core.model.issue_facts import Actor
from baton.core.model.work import BranchFacts

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_an_actor_is_known_on_the_event_or_once_both_permission_and_teams_are_looked_up() -> None:
    facts = Facts(permissions={"maria": "maintain"})

    assert facts.knows(Actor(login="bob", permission="read"))
    assert not facts.knows(Actor(login="maria")), "the teams are not looked up yet"
    assert facts.merged(teams={"maria": ()}).knows(Actor(login="maria"))


def test_the_event_is_dressed_with_the_actor_as_looked_up_and_left_alone_otherwise() -> None:
    event = tick(1, NOW).model_copy(update={"actor": Actor(login="maria")})
    facts = Facts(permissions={"maria": "maintain"}, teams={"maria": ("acme/reviewers",)})

    dressed = facts.dressed(event)

    assert dressed.actor == Actor(login="maria", permission="maintain", teams=("acme/reviewers",))
    assert event.actor.permission is None, "the event as GitHub sent it is untouched"
    assert Facts().dressed(event) is event


def test_merged_people_add_to_those_known_and_other_facts_replace() -> None:
    facts = Facts(permissions={"a": "read"}, failing_issues=1)

    more = facts.merged(permissions={"b": "write"}, failing_issues=3)

    assert more.permissions == {"a": "read", "b": "write"}
    assert more.failing_issues == 3 and facts.failing_issues == 1


def test_the_lineage_is_read_against_batons_last_with_its_authors_as_looked_up() -> None:
    commits = (LaterCommit(oid="e" * 40, author=Actor(login="tom")), LaterCommit(oid="d" * 40))
    facts = Facts(
        lineage=Lineage(base="c" * 40, commits=commits, total=2), permissions={"tom": "write"}
    )

    found = facts.lineage_of("c" * 40)

    assert found is not None and found.commits[0].author == Actor(login="tom", permission="write")
    assert found.commits[1].author is None
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
