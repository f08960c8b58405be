"""The narrow interface Baton needs from GitHub, and nothing more, as roles.

A step asks for the roles it uses, so its signature says what it may touch: `Issues` (the issue
and its record, the clock), `Lookups` (the facts a decision asks for, in one call), `Git`
(branches, commits, merges), `PullRequests` (the pull request), `SubIssues` (an epic's tasks
created), `Checks` (the check runs Baton posts) and `Meter` (the calls made). `Tracker` is all
of them, for the places that truly need every one.

`github.client.GitHubTracker` implements them (the Action, composed of one module per role over
`github.transport`); `baton demo`, `baton simulate` and the tests run it in process over the
model of GitHub (`sim.sim_github.SimGitHub`), the one implementation. The core never imports
PyGithub; only `github/transport.py` does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from baton.core.model.decision import CheckPlan, PullRequestPlan
from baton.core.model.epic import MergeFacts, MergePlan, TaskCreationFacts, TaskCreationPlan
from baton.core.model.issue_facts import Comment, IssueInfo
from baton.github.role_data import (
    ActionsSettings,
    BranchHead,
    ChangedFile,
    CommitFacts,
    CommitRequest,
    DispatchTarget,
    FirstCommit,
    LabelChange,
    LabelSpec,
    LookedUp,
    Lookup,
    OpenedIssue,
    OpenedPullRequest,
    PostedCheck,
    Snapshot,
    SubIssue,
    TreeAsk,
    TreeRead,
    Writes,
    Written,
)


class Issues(Protocol):
    """The issue and its record: read, written, its runs, and the clock the record is stamped
    by. Errors raise `baton.errors.TrackerError`."""

    def clock(self) -> datetime:
        """The time a record is written at. GitHub stamps the comment by its own clock, and
        the record's `written_at` is checked against that stamp (`issue.load.verified`): the
        runner's clock (GitHub-hosted runners keep it synced) for the real GitHub, the
        simulated one in memory."""
        ...

    def read(
        self,
        number: int,
        *,
        with_issue: bool,
        branch: str | None = None,
        tree: TreeAsk | None = None,
    ) -> Snapshot:
        """The issue (when `with_issue`) and all its comments, oldest first, the head of
        `branch` and what `tree` asks of a commit's tree when given, in as few calls as the
        transport allows (one GraphQL query when they fit on a page)."""
        ...

    def comment(self, comment_id: int) -> Comment | None:
        """One comment, or None if it was deleted."""
        ...

    def write(self, writes: Writes) -> Written:
        """Carry out `writes` in their order, in as few calls as the transport allows. A record
        comment deleted meanwhile is written anew; a failed reaction is reported, not raised;
        anything else that fails raises, leaving what came before it written."""
        ...

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None: ...

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        """One page of open issues (oldest first) with their labels, and the next page number."""
        ...


class Lookups(Protocol):
    """What a decision asks to be looked up (`issue.fulfil`), in one call: people's permissions
    and team memberships, a pull request's review notes, failing checks and lineage, an epic's
    sub-issues, several issues' comments, the breaker's count. Each part costs the round trips
    of its own read (`github.lookups`), none when not asked. Errors raise `TrackerError`."""

    def look_up(self, lookup: Lookup) -> LookedUp:
        """The answers to `lookup`, part by part: a login GitHub does not know has permission
        `none`; a membership not active is left out of `members`; a commit GitHub does not know
        lacks `base` (`Lineage.behind`); an issue GitHub does not find (or a pull request) is
        left out of `snapshots`."""
        ...


class Pages(Protocol):
    """What the dashboard adds to `Issues`: the closed issues of its window, and its own pinned
    issue (`baton dashboard`). Errors raise `baton.errors.TrackerError`, with GitHub's status."""

    def closed_issues(self, since: datetime, page: int) -> tuple[list[IssueInfo], int | None]:
        """One page of the issues closed and last updated since `since`, with their labels,
        and the next page number."""
        ...

    def create_issue(self, title: str, body: str) -> OpenedIssue:
        """Open an issue as the bot (REST)."""
        ...

    def edit_issue(self, number: int, body: str) -> None:
        """Replace an issue's body (REST); a body GitHub refuses changes nothing (422)."""
        ...

    def pin_issue(self, node_id: str) -> None:
        """Pin the issue to the repository (GraphQL `pinIssue`)."""
        ...


class Git(Protocol):
    """The work product's git side: branches, commits, merges."""

    def branch(self, name: str) -> BranchHead | None:
        """The branch's head, or None if there is no such branch."""
        ...

    def create_branch(self, name: str, base: str | None = None) -> BranchHead:
        """Create `name` at the head of `base` (default: the default branch), `created`. A
        branch that already exists is returned as it is (a re-run creates nothing twice), with
        `ahead`: the commits it carries that `base` lacks (one more call, only when its head is
        not the head of `base`), so a branch someone else made is never adopted silently."""
        ...

    def commit_facts(self, oid: str) -> CommitFacts | None:
        """A commit's parents, changed files, signature and author (None: no such commit);
        asked only when a commit claims to be Baton's and the record does not know it."""
        ...

    def read_tree(self, ask: TreeAsk) -> TreeRead:
        """Folders' entries and links' targets of a commit's tree, in one call; asked only
        when a link of the base leads further than the read showed (`Issues.read`'s `tree`)."""
        ...

    def commit(self, request: CommitRequest) -> str:
        """Write one commit atomically and return its id. Raises `StaleHead` (nothing written)
        when the branch head is no longer `request.expected_head`, `CommitRefused` (nothing
        written) when GitHub refuses the commit itself (a deletion of a path the branch does
        not have, a path the token may not write), with GitHub's message."""
        ...

    def merge(self, plan: MergePlan) -> MergeFacts:
        """Merge `plan.head` into `plan.base` (REST merges API): merged, already up to date,
        a conflict (nothing written) or a missing branch."""
        ...


class PullRequests(Protocol):
    """The issue's pull request: opened (with its first commit), updated."""

    def open_pull_request(self, plan: PullRequestPlan) -> OpenedPullRequest:
        """Open a draft pull request from `plan.branch` to the default branch; the open pull
        request that branch already has is returned instead of a second one. Raises
        `PullRequestRefused` with what a maintainer must change when GitHub refuses."""
        ...

    def commit_opening(self, request: CommitRequest, plan: PullRequestPlan) -> FirstCommit:
        """`Git.commit`, and the draft pull request of `open_pull_request` opened in the same
        request (the branch's first commit). The commit's `StaleHead` or `CommitRefused` is
        returned in `failed`, not raised, with the pull request if GitHub opened it anyway."""
        ...

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        """Bring the pull request's body up to date and, when `plan.ready`, mark it ready for
        review (what a batched write could not do in its document)."""
        ...


class SubIssues(Protocol):
    """An epic's sub-issues and the "blocked by" dependencies between them, created."""

    def create_tasks(self, plan: TaskCreationPlan) -> TaskCreationFacts:
        """Create the plan's sub-issues of `plan.epic` that do not exist yet (found by their
        marker) and the "blocked by" edges missing, batched in GraphQL documents. Idempotent: a
        re-run after a crash half-way creates only what is missing. Raises `TrackerError` when
        GitHub refuses; what was created before stays and is found again by the next run."""
        ...


class Checks(Protocol):
    """The check runs Baton posts on commits: what the evidence that settled a state showed
    (`Decision.check`), so the commit and its pull request show it too."""

    def create_check_run(self, plan: CheckPlan) -> PostedCheck:
        """Post `plan` on its commit, completed with its conclusion (REST `POST /check-runs`,
        one call, never repeated after a 5xx: GitHub may have created it). Raises
        `TrackerError` with GitHub's answer when it refuses (a token without `checks: write`,
        a commit it does not know)."""
        ...


class Meter(Protocol):
    """What a tracker counts of its own calls, for the job summary and the benchmarks."""

    @property
    def requests(self) -> int:
        """API calls made so far: one GraphQL document or one REST call each."""
        ...


class Board(Issues, Lookups, Pages, Meter, Protocol):
    """What `baton dashboard` uses: the issues and their records (read many at once), its
    page, the calls made."""


class RepositorySetup(Protocol):
    """What `baton doctor` reads of a repository's setup, with a maintainer's token (not the
    workflow's). Each read raises `TrackerError` with GitHub's status when refused, so a read
    that needs admin can be reported as unchecked."""

    def file(self, path: str) -> str | None:
        """A text file on the default branch; None when there is none."""
        ...

    def directory(self, path: str) -> list[str] | None:
        """The paths of the files in a folder of the default branch; None when there is none."""
        ...

    def secret_names(self) -> list[str]:
        """The repository's Actions secrets, by name (GitHub never gives a value)."""
        ...

    def actions_settings(self) -> ActionsSettings: ...

    def label_names(self) -> list[str]: ...


class Tracker(Issues, Lookups, Git, PullRequests, SubIssues, Checks, Meter, Protocol):
    """Every GitHub operation Baton makes: what one run on one issue may need, and what the
    sweep hands on to it."""


class Transported(Meter, Protocol):
    """What the real GitHub's transport adds to the count, for the Action's summary: the
    GraphQL share, the budget GitHub says is left, and what it must tell (a fall-back to
    REST)."""

    @property
    def graphql_requests(self) -> int: ...

    @property
    def budget(self) -> dict[str, tuple[int, int]]:
        """resource -> (remaining, limit) this hour, from GitHub's last answer of each."""
        ...

    @property
    def notes(self) -> list[str]: ...


class ActionTracker(Tracker, Pages, Transported, Protocol):
    """The Action's tracker: every role (the dashboard's too), and a transport that reports
    what it cost."""


def request_count(tracker: Meter) -> int:
    """API calls a tracker has made so far."""
    return tracker.requests


def cost_note(tracker: Transported) -> str:
    """`4 (3 GraphQL, 1 REST); left this hour: 996 of 1,000 REST, 997 of 1,000 GraphQL`, from
    what the transport counted and GitHub's rate-limit headers said."""
    count = tracker.requests
    text = str(count)
    if count:
        text += f" ({tracker.graphql_requests} GraphQL, {count - tracker.graphql_requests} REST)"
    if tracker.budget:
        names = {"core": "REST", "graphql": "GraphQL"}
        left = [
            f"{remaining:,} of {limit:,} {names.get(resource, resource)}"
            for resource, (remaining, limit) in sorted(tracker.budget.items())
        ]
        text += "; left this hour: " + ", ".join(left)
    return text


__all__ = [
    "ActionTracker",
    "ActionsSettings",
    "Board",
    "BranchHead",
    "ChangedFile",
    "Checks",
    "CommitFacts",
    "CommitRequest",
    "DispatchTarget",
    "FirstCommit",
    "Git",
    "Issues",
    "LabelChange",
    "LabelSpec",
    "LookedUp",
    "Lookup",
    "Lookups",
    "Meter",
    "OpenedIssue",
    "OpenedPullRequest",
    "Pages",
    "PostedCheck",
    "PullRequests",
    "RepositorySetup",
    "Snapshot",
    "SubIssue",
    "SubIssues",
    "Tracker",
    "Transported",
    "TreeAsk",
    "TreeRead",
    "Writes",
    "Written",
    "cost_note",
    "request_count",
]
