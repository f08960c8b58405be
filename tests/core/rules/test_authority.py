"""Who may do what (`core.authority`), the rules the engine and the run's permission lookup
share: membership of a group, and whose reply answers a waiting state."""

from __future__ import annotations

import pytest

from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.issue_facts import Actor
from baton.core.rules.authority import (
    answers_whoever,
    is_member,
    may_answer,
    may_reopen,
    reopens_whoever,
)
from baton.workflow.config import Policy, Who


def looked_up(login: str, permission: str | None = None, teams: tuple[str, ...] = ()) -> Facts:
    """What a run would have looked up of `login` (nothing of a permission None)."""
    if permission is None:
        return Facts(teams={login: teams}) if teams else NO_FACTS
    return Facts(permissions={login: permission}, teams={login: teams})


MEMBERS = [
    pytest.param(
        Actor(login="ada"),
        looked_up("ada", "admin"),
        Who(permission="admin"),
        True,
        id="admin is admin enough",
    ),
    pytest.param(
        Actor(login="maria"),
        looked_up("maria", "maintain"),
        Who(permission="admin"),
        False,
        id="maintain is not admin",
    ),
    pytest.param(
        Actor(login="maria"),
        looked_up("maria", "maintain"),
        Who(permission="write"),
        True,
        id="maintain is more than write",
    ),
    pytest.param(
        Actor(login="bob"),
        looked_up("bob", None),
        Who(permission="read"),
        False,
        id="no known permission counts as none",
    ),
    pytest.param(
        Actor(login="bob"),
        looked_up("bob", "Write"),
        Who(permission="write"),
        True,
        id="the API's letter case does not matter",
    ),
    pytest.param(
        Actor(login="Bob"),
        NO_FACTS,
        Who(users=["bob"]),
        True,
        id="a named user, in any letter case",
    ),
    pytest.param(
        Actor(login="rita"),
        looked_up("rita", None, ("acme/qa",)),
        Who(teams=["acme/qa"]),
        True,
        id="a member of a named team",
    ),
    pytest.param(
        Actor(login="rita"),
        looked_up("rita", None, ("acme/qa",)),
        Who(teams=["acme/dev"]),
        False,
        id="a member of another team",
    ),
    pytest.param(
        Actor(login="ada"),
        looked_up("ada", "admin"),
        Who(users=["bob"]),
        False,
        id="permission counts only when the group names one",
    ),
    pytest.param(
        Actor(login="bot", is_bot=True),
        looked_up("bot", "admin"),
        Who(permission="read"),
        False,
        id="a bot never counts",
    ),
    pytest.param(
        Actor(login="bob", is_bot=True),
        looked_up("bob"),
        Who(users=["bob"]),
        False,
        id="a bot never counts, even when named",
    ),
]


@pytest.mark.parametrize(("actor", "facts", "group", "member"), MEMBERS)
def test_who_is_a_member_of_a_group(actor, facts, group, member):
    assert is_member(actor, group, facts) is member


def test_what_counts_is_what_was_looked_up_for_the_actors_login_not_anothers():
    facts = looked_up("maria", "maintain", ("acme/qa",))

    assert is_member(Actor(login="maria"), Who(permission="write"), facts)
    assert not is_member(Actor(login="bob"), Who(permission="write"), facts)
    assert not is_member(Actor(login="bob"), Who(teams=["acme/qa"]), facts)


ANSWERS = [
    pytest.param("anyone", "bob", True, id="anyone: anybody answers"),
    pytest.param("author-or-approvers", "alice", True, id="the author answers"),
    pytest.param(
        "author-or-approvers", "Alice", False, id="the author's login is compared exactly"
    ),
    pytest.param("author-or-approvers", "bob", False, id="anyone else needs to be an approver"),
    pytest.param("approvers", "alice", False, id="only approvers: even the author is looked up"),
]


@pytest.mark.parametrize(("answerers", "login", "whoever"), ANSWERS)
def test_whose_reply_counts_without_a_permission_lookup(answerers, login, whoever):
    policy = Policy(answerers=answerers)

    assert answers_whoever(login, "alice", policy) is whoever
    reader = looked_up(login, "read")
    assert may_answer(Actor(login=login), "alice", policy, reader) is whoever, "read, no team"
    if not whoever:
        writer = looked_up(login, "write")
        assert may_answer(Actor(login=login), "alice", policy, writer), "an approver answers"


def test_a_bot_never_answers_even_when_anyone_may():
    bot = Actor(login="alice", is_bot=True)

    assert not may_answer(bot, "alice", Policy(answerers="anyone"), looked_up("alice", "admin"))


REOPENS = [
    pytest.param("anyone", "bob", None, True, id="anyone: anybody reopens"),
    pytest.param("author-or-maintainers", "alice", None, True, id="the author reopens"),
    pytest.param("author-or-maintainers", "bob", None, False, id="anyone else: a maintainer"),
    pytest.param("maintainers", "alice", None, False, id="only maintainers: even the author"),
    pytest.param("maintainers", "alice", "triage", True, id="a maintainer, as looked up"),
    pytest.param("maintainers", "bob", "read", False, id="a reader, as looked up"),
]


@pytest.mark.parametrize(("reopeners", "login", "permission", "may"), REOPENS)
def test_who_may_reopen_follows_the_config_and_the_permission_looked_up(
    reopeners, login, permission, may
):
    policy = Policy(reopeners=reopeners)

    assert may_reopen(Actor(login=login), "alice", policy, looked_up(login, permission)) is may
    assert reopens_whoever(login, "alice", policy) is (may and permission is None)


def test_a_bot_never_reopens_even_when_anyone_may():
    bot = Actor(login="alice", is_bot=True)

    assert not may_reopen(bot, "alice", Policy(reopeners="anyone"), looked_up("alice", "admin"))
