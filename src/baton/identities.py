"""Who acts on an issue: the actor's permission and teams, looked up only when the decision
may turn on them, and once per login per run."""

from __future__ import annotations

from dataclasses import dataclass, field

from baton.core.model.events import Commented, Event, IssueChanged, Labeled
from baton.core.model.issue_facts import Actor
from baton.core.rules.authority import answers_whoever, needs_identity, reopens_whoever
from baton.core.rules.comment_commands import parse_command
from baton.core.rules.epic.commands import parse_epic_command
from baton.github.tracker import Issues
from baton.issue.load import Loaded
from baton.workflow.config import Settings


def needs_permission(event: Event, loaded: Loaded, settings: Settings) -> bool:
    """Look the actor up only when the decision may turn on who they are."""
    if event.actor.is_bot or event.actor.permission is not None:
        return False
    if isinstance(event, Labeled):
        return event.added
    if needs_identity(event):  # a review steers the issue only from an approver
        return True
    if isinstance(event, IssueChanged):
        # Only a reopen turns on who did it, and not when the config lets this human anyway.
        policy = settings.policy
        return event.action == "reopened" and not reopens_whoever(
            event.actor.login, event.issue.author, policy
        )
    if not isinstance(event, Commented):
        return False
    if parse_command(event.body, settings.policy.approval_words):
        return True
    if settings.workflow.role == "epic" and parse_epic_command(event.body) is not None:
        return True
    record = loaded.record
    if record is not None and settings.workflow.converses(record.state):
        return not answers_whoever(event.actor.login, event.issue.author, settings.policy)
    if record is None or not settings.workflow.is_waiting(record.state):
        return False
    return not answers_whoever(event.actor.login, event.issue.author, settings.policy)


@dataclass
class Identities:
    """The permissions and teams one run looked up, by login: a run may decide several times
    (a caught-up comment, then the event itself; again after a concurrent run), and each
    lookup is a round trip. Per run, never global: a permission can change between runs."""

    known: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def of(self, actor: Actor, tracker: Issues, settings: Settings) -> Actor:
        """`actor` with their permission and the config's teams they belong to."""
        login = actor.login
        if login not in self.known:
            # OWNER is the one association that cannot misreport; everything else asks the API.
            owner = actor.association == "OWNER"
            permission = "admin" if owner else tracker.permission(login)
            policy = settings.policy
            teams = sorted(set(policy.approvers.teams) | set(policy.maintainers.teams))
            member_of = tuple(t for t in teams if tracker.is_team_member(t, login))
            self.known[login] = (permission, member_of)
        permission, member_of = self.known[login]
        return Actor(
            login=login,
            is_bot=actor.is_bot,
            association=actor.association,
            permission=permission,
            teams=member_of,
        )


def with_identity(
    event: Event, loaded: Loaded, tracker: Issues, settings: Settings, identities: Identities
) -> Event:
    if not needs_permission(event, loaded, settings):
        return event
    return event.model_copy(update={"actor": identities.of(event.actor, tracker, settings)})
