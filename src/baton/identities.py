"""Who acts on an issue: the actor's permission and teams, looked up only when the decision
may turn on them, and once per login per run; and, for an approval of a commit built on
Baton's last, the permission of the authors of the commits after it."""

from __future__ import annotations

from dataclasses import dataclass, field

from baton.core.model.events import Event, Lineage, Reviewed
from baton.core.model.issue_facts import Actor
from baton.core.rules import needs
from baton.core.rules.approved_commit import by_a_writer
from baton.core.rules.authority import is_member
from baton.github.tracker import Issues
from baton.issue.load import Loaded
from baton.workflow.config import Settings


def needs_permission(event: Event, loaded: Loaded, settings: Settings) -> bool:
    """Look the actor up only when the decision may turn on who they are (the rule's
    `needs.needs_permission`, over the record this run loaded)."""
    return needs.needs_permission(event, loaded.record, settings.workflow, settings.policy)


@dataclass
class Identities:
    """The permissions and teams one run looked up, by login: a run may decide several times
    (a caught-up comment, then the event itself; again after a concurrent run), and each
    lookup is a round trip. Per run, never global: a permission can change between runs."""

    known: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)

    def permission(self, login: str, tracker: Issues) -> str:
        """`login`'s permission on the repository, asked once per run."""
        if login not in self.permissions:
            self.permissions[login] = tracker.permission(login)
        return self.permissions[login]

    def of(self, actor: Actor, tracker: Issues, settings: Settings) -> Actor:
        """`actor` with their permission and the config's teams they belong to."""
        login = actor.login
        if login not in self.known:
            # OWNER is the one association that cannot misreport; everything else asks the API.
            if actor.association == "OWNER":
                self.permissions.setdefault(login, "admin")
            permission = self.permission(login, tracker)
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
    if needs_permission(event, loaded, settings):
        event = event.model_copy(update={"actor": identities.of(event.actor, tracker, settings)})
    if isinstance(event, Reviewed) and event.lineage is not None:
        event = _with_authors(event, event.lineage, tracker, settings, identities)
    return event


def _with_authors(
    event: Reviewed, lineage: Lineage, tracker: Issues, settings: Settings, identities: Identities
) -> Reviewed:
    """An approver's approval of a commit built on Baton's last, with the permission of each
    author after Baton's last looked up in order, up to the first commit that is not a write
    user's: the rule stops there, and so do the lookups."""
    if not is_member(event.actor, settings.policy.approvers) or not lineage.complete:
        return event
    commits = list(lineage.commits)
    for i, commit in enumerate(commits):
        author = commit.author
        if author is None or author.is_bot:
            break
        if author.permission is None:
            known = author.model_copy(
                update={"permission": identities.permission(author.login, tracker)}
            )
            commits[i] = commit.model_copy(update={"author": known})
        if not by_a_writer(commits[i]):
            break
    found = lineage.model_copy(update={"commits": tuple(commits)})
    return event.model_copy(update={"lineage": found})
