"""The plain data the `Tracker` roles (`github.tracker`) take and give: what is read of an
issue and its branch, what is looked up for a decision, what is written back, and what a setup
read finds. Frozen, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field

from baton.core.model.decision import PullRequestPlan
from baton.core.model.events import CheckNote, Lineage, ReviewNote
from baton.core.model.facts import FailingAsk
from baton.core.model.issue_facts import Comment, IssueInfo
from baton.errors import CommitRefused, InvalidWorkflowRef, StaleHead


@dataclass(frozen=True)
class LabelSpec:
    """How a status label looks when Baton creates it."""

    name: str
    color: str
    description: str


@dataclass(frozen=True)
class DispatchTarget:
    """Where chained runs go: the running workflow file and its ref (from GITHUB_WORKFLOW_REF)."""

    workflow: str
    ref: str

    @classmethod
    def from_workflow_ref(cls, workflow_ref: str) -> DispatchTarget:
        """Parse `owner/repo/.github/workflows/baton.yml@refs/heads/main`."""
        path, _, ref = workflow_ref.partition("@")
        if not path or not ref:
            raise InvalidWorkflowRef(f"GITHUB_WORKFLOW_REF {workflow_ref!r} is not path@ref")
        return cls(workflow=path.rsplit("/", 1)[-1], ref=ref)


@dataclass(frozen=True)
class BranchHead:
    """A branch and the commit at its head (with that commit's message, whose trailer tells
    whether Baton made it from a given changeset)."""

    name: str
    oid: str
    message: str = ""
    # From `create_branch`: whether this call made the branch, and, for one it found, how many
    # commits it carries that its base lacks (0: nothing Baton did not write; safe to adopt).
    created: bool = False
    ahead: int = 0


@dataclass(frozen=True)
class ChangedFile:
    """One file a commit changed against its first parent, as REST "get a commit" lists it."""

    path: str
    status: str  # added, removed, modified, renamed, copied, changed, unchanged
    blob: str  # git's blob id of the file after the commit ("" when GitHub gives none)
    previous: str = ""  # a rename's old path


@dataclass(frozen=True)
class CommitFacts:
    """Who made a commit and what it changed: enough to tell whether it is provably Baton's
    (its parent, its files and their blobs, GitHub's own signature, the author's login, the
    message)."""

    oid: str
    parents: tuple[str, ...]
    files: tuple[ChangedFile, ...]
    verified: bool  # signed, and GitHub verified the signature
    author: str  # the login of the account the author email belongs to ("" none)
    more_files: bool = False  # GitHub listed only the first page of its files
    # The account that committed: `web-flow` for what GitHub made and signed itself
    # (createCommitOnBranch); the pusher's (its committer email's) otherwise.
    committer: str = ""
    reason: str = ""  # GitHub's verification reason: `valid` for a good signature
    message: str = ""  # the whole commit message


@dataclass(frozen=True)
class TreeAsk:
    """What to read of commit `base`'s tree: the entries of each of `folders` ("" the root)
    and the target of each symbolic link of `links` (`core.model.links` says which)."""

    base: str
    folders: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class TreeRead:
    """What a `TreeAsk` found: each folder's entries as (name, git mode: `100644`, `120000`,
    `040000`...), None for a path that is no folder there; each link's target, None when it
    is no link or no text."""

    folders: dict[str, tuple[tuple[str, str], ...] | None] = field(default_factory=dict)
    links: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Snapshot:
    """An issue as one run reads it: the issue itself (when asked for), all its comments, the
    issue's branch when the run asked for it (None: not asked, or no such branch), and what
    the run asked of a commit's tree (`tree`) when it did."""

    issue: IssueInfo | None
    comments: list[Comment]
    branch: BranchHead | None = None
    tree: TreeRead | None = None


@dataclass(frozen=True)
class CommitRequest:
    """One commit: file additions (path, base64 contents) and deletions, applied on `branch`
    only if its head is still `expected_head` (GraphQL `createCommitOnBranch`)."""

    branch: str
    expected_head: str
    headline: str
    body: str
    additions: tuple[tuple[str, str], ...] = ()
    deletions: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpenedPullRequest:
    number: int
    node_id: str


@dataclass(frozen=True)
class PostedCheck:
    """A check run GitHub created on a commit: its id and its page."""

    id: int
    url: str = ""


@dataclass(frozen=True)
class FirstCommit:
    """A commit and the draft pull request asked for in the same request: `opened`, or the
    `problem` GitHub gave for not opening it. GitHub runs the second field whatever became of
    the first: `failed` is the commit's refusal (`oid` empty), and a branch someone else
    pushed to may have its pull request opened all the same (`opened`), for the record."""

    oid: str
    opened: OpenedPullRequest | None
    problem: str = ""
    failed: StaleHead | CommitRefused | None = None


@dataclass(frozen=True)
class SubIssue:
    """One sub-issue of an epic as GitHub lists it: enough for the conductor, and for
    creating a plan idempotently (`marker` is the task key in the body's Baton mark, read only
    from issues the bot opened)."""

    number: int
    node_id: str
    open: bool
    labels: tuple[str, ...]
    author: str = ""
    marker: str | None = None
    blocked_by: tuple[int, ...] = ()


@dataclass(frozen=True)
class Lookup:
    """What a run looks up for a decision (`Lookups.look_up`), each part empty or None when not
    wanted: the logins whose repository permission is read, the (`org/team`, login) memberships
    checked, Baton's last commit and the reviewed one compared, a pull request's review whose
    inline notes are read, the head whose failing checks are read, the epic whose sub-issues
    are read, the issues whose comments are read together, the repository breaker's count."""

    permissions: tuple[str, ...] = ()
    memberships: tuple[tuple[str, str], ...] = ()
    lineage: tuple[str, str] | None = None
    review_notes: tuple[int, int] | None = None
    failing_checks: str | None = None
    sub_issues: int | None = None
    snapshots: tuple[int, ...] = ()
    failing_issues: FailingAsk | None = None


@dataclass(frozen=True)
class LookedUp:
    """The answers to a `Lookup`, part by part (None or empty: not asked). `members` holds the
    asked memberships that are active; `snapshots` the issues found (one GitHub does not find
    is left out), their comments only."""

    permissions: dict[str, str] = field(default_factory=dict)
    members: frozenset[tuple[str, str]] = frozenset()
    lineage: Lineage | None = None
    review_notes: list[ReviewNote] | None = None
    failing_checks: list[CheckNote] | None = None
    sub_issues: list[SubIssue] | None = None
    snapshots: dict[int, Snapshot] = field(default_factory=dict)
    failing_issues: int | None = None


@dataclass(frozen=True)
class LabelChange:
    """Labels to change from `current` to `wanted`; only the difference is touched."""

    current: tuple[str, ...]
    wanted: tuple[str, ...]
    specs: dict[str, LabelSpec]  # how a status label looks when it must be created

    @property
    def add(self) -> list[str]:
        return [label for label in self.wanted if label not in self.current]

    @property
    def remove(self) -> list[str]:
        return [label for label in self.current if label not in self.wanted]


@dataclass(frozen=True)
class Writes:
    """Everything one run writes to one issue, in the order it must land (see `apply.py`)."""

    number: int
    repost: str | None = None  # a message a failed run could not post, posted first
    record: str | None = None  # the record comment's new body
    record_comment: int | None = None  # the comment to edit; None: create one
    labels: LabelChange | None = None
    message: str | None = None
    reaction: tuple[int, str] | None = None  # (comment id, REST reaction name)
    delete: tuple[int, ...] = ()  # duplicate record comments
    # The issue's pull request: its body brought up to date (and marked ready for review),
    # after the record; a failure is reported, never raised (the next run updates it again).
    pull_request: PullRequestPlan | None = None


@dataclass
class Written:
    """What a `Tracker.write` did, for `apply.py`'s account of the run."""

    reposted: bool = False
    record_comment: int | None = None  # the record comment written (created or edited)
    record_gone: int | None = None  # the comment to edit had been deleted; a new one was made
    labels: bool = False
    message_comment: int | None = None
    reacted: bool = False
    reaction_problem: str | None = None  # a courtesy that failed; never fails the run
    deleted: list[int] = field(default_factory=list)
    pull_request_updated: bool = False
    pull_request_problem: str | None = None


@dataclass(frozen=True)
class OpenedIssue:
    number: int
    node_id: str


@dataclass(frozen=True)
class ActionsSettings:
    """Settings → Actions → General, as far as Baton depends on them."""

    enabled: bool
    allowed_actions: str  # all | local_only | selected ("" when Actions are off)
    default_workflow_permissions: str | None = None  # read | write; None: not read
    can_approve_pull_request_reviews: bool | None = None  # None: not read
