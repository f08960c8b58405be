"""Whether an approving review approves what Baton would hand on: a review approves the commit it
names, and it counts for Baton's last commit, or for a commit that holds it with only commits
of users with write access after it. GitHub's own rule is the same: an approval goes stale
when commits come after it, not before.

"After it" is every commit the approved one holds that Baton's last does not (REST compare
`last...approved`), not only those on the first-parent line: a merge of the default branch
into the pull request's branch brings the default branch's new commits in, and each of them
must be a write user's too (the merge commit itself is its author's). A commit whose author
GitHub links to no account, a bot's (Baton's own included: a commit of Baton's that its
record does not hold is one no run has checked yet) and a read user's do not count; the
agent holds no identity, so its work reaches the branch only as Baton's commits.

`decide` asks for the commits (`needs_lineage` says when) and the permission of their authors
(`core/rules/asking.py`); the shell reads them, the permissions as facts apart from the commits
(`Facts.permission_of`), and the decision here is pure.
"""

from __future__ import annotations

from baton.core.model.events import LaterCommit, Lineage, Reviewed
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import Record
from baton.core.text import messages
from baton.workflow.config import Permission
from baton.workflow.model import StateKind, Workflow


def needs_lineage(
    record: Record | None, event: Reviewed, workflow: Workflow, facts: Facts = NO_FACTS
) -> bool:
    """Whether the decision turns on the commits between Baton's last and the approved one: a
    human's approval, new, of the issue's open pull request at a gate, of another commit."""
    work = record.work if record is not None else None
    if record is None or work is None:
        return False
    if facts.lineage is not None and facts.lineage.base == work.head:
        return False  # read already (a run that decides again)
    if event.verdict != "approved" or event.actor.is_bot or event.issue.state == "closed":
        return False
    if not work.head or event.commit == work.head or not messages.is_sha(event.commit):
        return False
    if event.pull_request != work.pull_request or work.closed:
        return False
    if event.review_id <= work.last_review or record.state not in workflow.states:
        return False
    spec = workflow.spec(record.state)
    return spec.kind is StateKind.waiting and bool(spec.approval) and not record.held


def by_a_writer(commit: LaterCommit, facts: Facts) -> bool:
    """A commit of a human GitHub knows, with at least write access as looked up."""
    author = commit.author
    return (
        author is not None
        and not author.is_bot
        and Permission.parse(facts.permission_of(author.login)) >= Permission.write
    )


def blocker(lineage: Lineage, facts: Facts) -> LaterCommit | None:
    """The first commit after Baton's last that is not a write user's, if any."""
    return next((c for c in lineage.commits if not by_a_writer(c, facts)), None)


def _whose(commit: LaterCommit, facts: Facts) -> str:
    author = commit.author
    if author is None:
        return "has no GitHub account as its author"
    if author.is_bot:
        return f"is by {author.login}, a bot"
    return f"is by {author.login}, who has {facts.permission_of(author.login) or 'no'} access"


def refusal(event: Reviewed, head: str, facts: Facts = NO_FACTS) -> tuple[str, str] | None:
    """Why the approval does not count, as the decision's reason and the message to humans;
    None when it does (of `head`, Baton's last commit, or built on it by write users only)."""
    if head and event.commit == head:
        return None
    lineage = facts.lineage_of(head)
    found = blocker(lineage, facts) if lineage is not None else None
    if (
        head
        and lineage is not None
        and lineage.descends
        and lineage.complete
        and lineage.commits
        and found is None
    ):
        return None
    login, number = event.actor.login, event.pull_request
    sha = messages.is_sha(event.commit)
    reviewed = event.commit[:7] if sha else "no commit it can name"
    last = head[:7] or "none"
    why = f"Baton's last commit is {last}"
    if lineage is not None and sha and lineage.commits and not lineage.descends:
        why = f"it does not hold Baton's last commit {last}"
    elif lineage is not None and sha and not lineage.complete:
        why = f"Baton reads {len(lineage.commits)} of the {lineage.total} commits on top of {last}"
    elif lineage is not None and sha and found is not None:
        later = found.oid[:7] if messages.is_sha(found.oid) else "a commit"
        why = f"{later} on top of Baton's last commit {last} {_whose(found, facts)}"
    reason = (
        f"{login} approved pull request #{number} at {reviewed}, but {why}: an approval counts "
        "only for Baton's last commit, or a commit built on it by users with write access"
    )
    author = found.author if found is not None else None
    message = messages.stale_approval(
        login,
        number,
        event.commit,
        head,
        lineage=lineage if sha else None,
        blocker=found,
        access=facts.permission_of(author.login) if author is not None else None,
    )
    return reason, message
