"""Who may do what: the one home of the membership, answering and reopening rules.

The engine asks these to decide; `needs.py` asks `answers_whoever`, `reopens_whoever` and
`needs_identity` to know whether a decision can turn on the actor's permission, and so whether
`decide` asks for it (an API call to look it up). The actor is who GitHub says acted; what they
may do (their permission, their teams) is read from the `Facts` the run looked up.
"""

from __future__ import annotations

from baton.core.model.events import Event, Reviewed
from baton.core.model.facts import Facts
from baton.core.model.issue_facts import Actor
from baton.workflow.config import Permission, Policy, Who


def is_member(actor: Actor, group: Who, facts: Facts) -> bool:
    """Bots never count; otherwise a named user, a named team, or enough permission (the
    teams and the permission as `facts` hold them for the actor's login)."""
    if actor.is_bot:
        return False
    if actor.login.casefold() in {u.casefold() for u in group.users}:
        return True
    if set(facts.teams_of(actor.login)) & set(group.teams):
        return True
    if group.permission is None:
        return False
    permission = facts.permission_of(actor.login)
    return Permission.parse(permission) >= Permission.parse(group.permission)


def answers_whoever(login: str, issue_author: str, policy: Policy) -> bool:
    """The config lets this human answer whatever their permission: no lookup can change it."""
    if policy.answerers == "anyone":
        return True
    return policy.answerers == "author-or-approvers" and login == issue_author


def may_answer(actor: Actor, issue_author: str, policy: Policy, facts: Facts) -> bool:
    """Whether a reply in a waiting state counts: by the config, or as an approver."""
    if actor.is_bot:
        return False
    return answers_whoever(actor.login, issue_author, policy) or is_member(
        actor, policy.approvers, facts
    )


def reopens_whoever(login: str, issue_author: str, policy: Policy) -> bool:
    """The config lets this human restart work by reopening whatever their permission."""
    if policy.reopeners == "anyone":
        return True
    return policy.reopeners == "author-or-maintainers" and login == issue_author


def may_reopen(actor: Actor, issue_author: str, policy: Policy, facts: Facts) -> bool:
    """Whether reopening the issue may start its agent again or restart a finished issue."""
    if actor.is_bot:
        return False
    return reopens_whoever(actor.login, issue_author, policy) or is_member(
        actor, policy.maintainers, facts
    )


def needs_identity(event: Event, facts: Facts) -> bool:
    """Whether a pull-request event's decision turns on who its actor is: a review that approves
    or requests changes, by a human whose permission is not known yet. Merges, closes and checks
    never do (GitHub already let only a writer merge), nor does a plain review comment."""
    return (
        isinstance(event, Reviewed)
        and event.verdict != "commented"
        and not event.actor.is_bot
        and facts.permission_of(event.actor.login) is None
    )
