"""Pull requests, their reviews and the check runs on their commits, over the issues (a pull
request is an issue too) and the repository: GitHub's refusals of a pull request, word for
word, and how a check run reads. Stdlib only (but for Baton's one list of failed conclusions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from baton.core.rules import triage
from baton.sim.model import rules
from baton.sim.model.git import Git
from baton.sim.model.issues import Issues, User

ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS = (
    "GitHub Actions is not permitted to create or approve pull requests."
)


def pull_request_exists_message(owner: str, branch: str) -> str:
    return f"A pull request already exists for {owner}:{branch}."


def no_commits_message(base: str, head: str) -> str:
    return f"No commits between {base} and {head}"


# The conclusions of a check run that mean the change failed it; `neutral`, `skipped`,
# `cancelled` and `action_required` (a run awaiting a maintainer's approval) do not.
FAILED_CONCLUSIONS = triage.FAILED_CONCLUSIONS  # the one list Baton's triage and engine use
SUMMARY_LINES = 10


def check_summary(title: str, summary: str) -> str:
    """The first lines of what a check said: its output's title, then its summary."""
    lines = [line for line in [title, *summary.splitlines()] if line.strip()]
    return "\n".join(lines[:SUMMARY_LINES])


VERDICTS = ("approved", "changes_requested", "commented")


class PullRequestRefusal(Exception):
    """GitHub refused to open a pull request (422); `kind` says which rule: `exists`,
    `no_head`, `no_commits`, or `body` (then `refusal` has the field's reason)."""

    def __init__(self, kind: str, message: str, refusal: rules.Refusal | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.refusal = refusal


@dataclass
class PullRequest:
    """A pull request; its title, body and open/closed state are its issue's (same number)."""

    number: int
    id: int  # the pull request's database id (not its issue's)
    head: str  # the branch it merges
    base: str
    author: str  # a login; `user` has its account type
    author_type: str
    draft: bool
    merged: bool = False
    head_sha: str = ""  # the head when it was closed or merged; while open, the branch's
    merge_commit: str | None = None
    merged_at: datetime | None = None
    merged_by: User | None = None

    @property
    def node_id(self) -> str:
        return f"PR_fake{self.id}"

    @property
    def user(self) -> User:
        return User(self.author, self.author_type)


@dataclass(frozen=True)
class ReviewComment:
    """An inline comment of a review: a path, a line (None: on the file), a body."""

    id: int
    path: str
    line: int | None
    body: str


@dataclass(frozen=True)
class Review:
    id: int
    pull_request: int
    author: User
    verdict: str  # approved, changes_requested, commented
    body: str
    commit: str  # the head it was given on
    submitted_at: datetime
    comments: tuple[ReviewComment, ...]


@dataclass(frozen=True)
class CheckRun:
    id: int
    head_sha: str
    name: str
    status: str  # queued, in_progress, completed
    conclusion: str | None
    started_at: datetime
    completed_at: datetime | None
    title: str
    summary: str
    text: str
    external_id: str = ""  # the poster's own reference for the run (Baton: the attempt)
    app: str = "github-actions"  # the App whose token created it (GITHUB_TOKEN: Actions')


CHECK_STATUSES = ("queued", "in_progress", "completed")
CHECK_CONCLUSIONS = (
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "stale",
    "timed_out",
)
CHECK_OUTPUT_LIMIT = 65_535  # characters of a check run's output summary (and text)


def no_commit_message(sha: str) -> str:
    return f"No commit found for SHA: {sha}"


def check_run_refusal(
    name: object, status: object, conclusion: object, title: object, summary: object
) -> rules.Refusal | None:
    """GitHub's checks on a new check run (`POST /check-runs`): a name; a known status and
    conclusion, a conclusion when completed; an output's title and summary, the summary at
    most 65,535 characters. The head commit is the repository's to know (`no_commit_message`)."""
    if not isinstance(name, str) or not name.strip():
        return rules.Refusal("CheckRun", "name", "missing_field")
    if status not in CHECK_STATUSES:
        return rules.Refusal("CheckRun", "status", "invalid")
    if conclusion is not None and conclusion not in CHECK_CONCLUSIONS:
        return rules.Refusal("CheckRun", "conclusion", "invalid")
    if status == "completed" and conclusion is None:
        message = "conclusion is required when status is completed"
        return rules.Refusal("CheckRun", "conclusion", "missing_field", message)
    if not isinstance(title, str) or not isinstance(summary, str):
        return rules.Refusal("CheckRun", "output", "missing_field")
    if len(summary) > CHECK_OUTPUT_LIMIT:
        message = f"summary is too long (maximum is {CHECK_OUTPUT_LIMIT} characters)"
        return rules.Refusal("CheckRun", "summary", "custom", message)
    return None


class CheckRunRefusal(Exception):
    """GitHub refused to create a check run (422): `refusal` for a field, else the head
    commit it does not know (`message` says so, as GitHub does)."""

    def __init__(self, message: str, refusal: rules.Refusal | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.refusal = refusal


class PullRequests:
    """One repository's pull requests, reviews and check runs over its issues and its git."""

    def __init__(
        self,
        owner: str,
        issues: Issues,
        git: Git,
        ids: rules.Ids,
        clock: Callable[[], datetime],
    ) -> None:
        self._owner = owner
        self._issues = issues
        self._git = git
        self._ids = ids
        self._clock = clock
        self.pulls: dict[int, PullRequest] = {}
        self.reviews: dict[int, Review] = {}
        self.check_runs: list[CheckRun] = []

    def is_open(self, pull: PullRequest) -> bool:
        return self._issues.issues[pull.number].state == "open"

    def head_of(self, pull: PullRequest) -> str:
        """The branch's head while open; the head it had when it closed or merged."""
        if self.is_open(pull):
            return self._git.head(pull.head) or pull.head_sha
        return pull.head_sha

    def open_from(self, branch: str) -> PullRequest | None:
        """The open pull request from `branch`, if any."""
        return next((p for p in self.pulls.values() if p.head == branch and self.is_open(p)), None)

    def by_id(self, pull_id: int) -> PullRequest | None:
        return next((pull for pull in self.pulls.values() if pull.id == pull_id), None)

    def by_node(self, node_id: str) -> PullRequest | None:
        return next((pull for pull in self.pulls.values() if pull.node_id == node_id), None)

    def open(self, branch: str, title: str, body: str, author: User, *, draft: bool) -> PullRequest:
        """A pull request to the default branch as `POST /pulls` opens one, or GitHub's
        refusal: one open from the branch already, no such branch, no commits the base lacks,
        a body over the limit."""
        base = self._git.default_branch
        if self.open_from(branch) is not None:
            message = pull_request_exists_message(self._owner, branch)
            raise PullRequestRefusal("exists", message)
        if self._git.head(branch) is None:
            raise PullRequestRefusal("no_head", f"head {branch!r} is not a branch")
        if not self._git.ahead(base, branch):
            raise PullRequestRefusal("no_commits", no_commits_message(base, branch))
        refusal = rules.body_refusal("PullRequest", body)
        if refusal is not None:
            raise PullRequestRefusal("body", str(refusal), refusal)
        issue = self._issues.open(title, body, author, is_pull_request=True)
        pull = PullRequest(
            issue.number,
            self._ids.next(),
            branch,
            base,
            author.login,
            author.type,
            draft,
            head_sha=self._git.head(branch) or "",
        )
        self.pulls[pull.number] = pull
        return pull

    def review(
        self,
        pull: PullRequest,
        author: User,
        verdict: str,
        body: str,
        notes: Iterable[tuple[str, int | None, str]],
    ) -> Review:
        """A review on the pull request's current head, with its inline comments."""
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; expected one of {VERDICTS}")
        review_id = self._ids.next()
        comments = tuple(
            ReviewComment(self._ids.next(), path, line, text) for path, line, text in notes
        )
        made = Review(
            review_id,
            pull.number,
            author,
            verdict,
            body,
            self.head_of(pull),
            self._clock(),
            comments,
        )
        self.reviews[made.id] = made
        self._issues.touch(self._issues.issues[pull.number])
        return made

    def merge(self, pull: PullRequest, by: User) -> str:
        """Merge the open pull request with a merge commit; the commit."""
        issue = self._issues.issues[pull.number]
        if issue.state != "open":
            raise ValueError(f"pull request #{pull.number} is not open")
        pull.head_sha = self.head_of(pull)
        message = f"Merge pull request #{pull.number} from {pull.head}"
        made = self._git.merge(pull.head, pull.base, message, by.login, self._clock())
        pull.merged, pull.merged_at, pull.merged_by = True, self._clock(), by
        pull.merge_commit = made.oid
        self._issues.set_state(issue, "closed", by)
        self._issues.touch(issue)
        return made.oid

    def close(self, pull: PullRequest, by: User) -> None:
        """Close the pull request without merging it; its head stays where it was."""
        issue = self._issues.issues[pull.number]
        pull.head_sha = self.head_of(pull)
        self._issues.set_state(issue, "closed", by)
        self._issues.touch(issue)

    def add_check_run(
        self, head_sha: str, name: str, conclusion: str | None, title: str, summary: str, text: str
    ) -> CheckRun:
        """CI reports a run on a commit: a conclusion, or None while it runs."""
        now = self._clock()
        run = CheckRun(
            self._ids.next(),
            head_sha,
            name,
            "in_progress" if conclusion is None else "completed",
            conclusion,
            now,
            None if conclusion is None else now,
            title,
            summary,
            text,
        )
        self.check_runs.append(run)
        return run

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        *,
        conclusion: str | None,
        title: str,
        summary: str,
        external_id: str = "",
        app: str = "github-actions",
    ) -> CheckRun:
        """A check run an App posts on a commit (`POST /check-runs`): completed with its
        conclusion, or in progress without one; GitHub's refusal (`CheckRunRefusal`) of a
        field, or of a commit the repository lacks."""
        status = "in_progress" if conclusion is None else "completed"
        refusal = check_run_refusal(name, status, conclusion, title, summary)
        if refusal is not None:
            raise CheckRunRefusal(str(refusal), refusal)
        if head_sha not in self._git.commits:
            raise CheckRunRefusal(no_commit_message(head_sha))
        run = self.add_check_run(head_sha, name, conclusion, title, summary, "")
        made = replace(run, external_id=external_id, app=app)
        self.check_runs[-1] = made
        return made

    def runs_on(self, head_sha: str) -> list[CheckRun]:
        """Every check run on a commit, newest first (GitHub's `filter=all`)."""
        return sorted(
            (run for run in self.check_runs if run.head_sha == head_sha),
            key=lambda run: run.id,
            reverse=True,
        )

    def latest_runs(self, head_sha: str) -> list[CheckRun]:
        """The most recent run of each check on a commit (GitHub's `filter=latest`)."""
        runs = [run for run in self.check_runs if run.head_sha == head_sha]
        latest = {run.name: run for run in runs}
        return [run for run in runs if latest[run.name] is run]
