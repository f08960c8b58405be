"""The in-memory GitHub's state (a `GitHubState`) and its bookkeeping: calls counted per
operation and per round trip, as `GitHubTracker` counts them; faults injected by name; GitHub's
refusals as the `TrackerError` the client raises.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from baton.core.model.issue_facts import Comment, IssueInfo
from baton.errors import PullRequestRefused, TrackerError
from baton.names import BOT_LOGIN
from baton.sim.model import rules
from baton.sim.model.issues import Comment as StoredComment
from baton.sim.model.issues import Issue, Refused, User, check_body
from baton.sim.model.pulls import CheckRun, PullRequest, PullRequestRefusal, Review
from baton.sim.model.state import GitHubState
from baton.sim.payloads import DispatchRequest

PAGE_SIZE = 100
API = "https://api.github.com"  # where the objects it renders say they live


def info_of(issue: Issue) -> IssueInfo:
    """An issue as GitHub's reads and listings give it."""
    return IssueInfo(
        number=issue.number,
        title=issue.title,
        body=issue.body,
        state=issue.state,
        labels=tuple(issue.labels),
        author=issue.author,
        is_pull_request=issue.is_pull_request,
        updated_at=issue.updated_at,
    )


class MemoryBase:
    """One repository's GitHub state and the bookkeeping of the calls made on it: counted per
    operation and per round trip, faults injected by name, a hook before each call."""

    def __init__(
        self,
        repo: str = "octo/demo",
        *,
        bot_login: str = BOT_LOGIN,
        now: datetime | None = None,
    ) -> None:
        self.repo = repo
        self.bot_login = bot_login
        self.bot = User(bot_login, "Bot")
        # GitHub's state, the one model the HTTP fake of the tests keeps too.
        self.state = GitHubState(
            repo, bot_login=bot_login, now=now or datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        )
        self.store = self.state.issues
        self.issues = self.store.issues
        self.comment_store = self.store.comments
        self.collaborators = self.state.collaborators
        self.teams = self.state.teams
        self.dispatches: list[DispatchRequest] = []
        self.log: list[str] = []
        self.calls: Counter[str] = Counter()
        self._failures: dict[str, list[TrackerError | None]] = {}
        # Called with the operation name before each call, until cleared (a hook may clear
        # itself): tests interleave a second run here.
        self.on_call: Callable[[str], None] | None = None
        self._in_hook = False
        self._ids = self.state.ids
        self._user_ids = self.state.user_ids
        self._round_trips = 0
        self._batched = False
        # Issues whose last read brought their sub-issues (GitHubTracker's read of a dispatched
        # run): the next sub-issue call on one makes no query.
        self.sub_issues_read: dict[int, str] = {}  # the number -> the branch it also read
        # How a failed write inside a document behaves (see `run_batch`); tests set it.
        self.fields_fail_alone = False
        # The repository and its work product.
        self.git = self.state.git
        self.work = self.state.pulls  # pull requests, their reviews, the check runs
        self.pull_requests: dict[int, PullRequest] = self.work.pulls
        self.reviews: dict[int, Review] = self.work.reviews
        self.check_runs: list[CheckRun] = self.work.check_runs
        self.workflows_permission = False  # GITHUB_TOKEN never has it
        # Sub-issues and "blocked by" edges between issues, by number, with GitHub's rules.
        self.relations = self.state.relations

    @property
    def now(self) -> datetime:
        return self.state.now

    @now.setter
    def now(self, moment: datetime) -> None:
        self.state.now = moment

    def new_run(self) -> None:
        """A new run's process: the memory fake keeps no client state between runs."""

    @property
    def actions_may_open_pull_requests(self) -> bool:
        """Whether "Allow GitHub Actions to create and approve pull requests" is on: the
        model's setting (off by default on GitHub; on here, so a test turns it off)."""
        return self.state.settings.can_approve_pull_request_reviews

    @actions_may_open_pull_requests.setter
    def actions_may_open_pull_requests(self, allowed: bool) -> None:
        self.state.settings.can_approve_pull_request_reviews = allowed

    def clock(self) -> datetime:
        """The simulated time: what GitHub would stamp now."""
        return self.state.now

    def open_issue(
        self,
        title: str,
        body: str = "",
        *,
        author: str = "alice",
        labels: tuple[str, ...] = (),
        association: str = "NONE",
    ) -> int:
        user = User.named(author)
        with _refusing():  # labels given at opening are recorded as added by the author
            issue = self.store.open(title, body, user, association=association, labels=labels)
        self.log.append(f"#{issue.number} opened by {author}: {title}")
        return issue.number

    def node_id_of(self, number: int) -> str:
        """An issue's node id, as GraphQL would give it."""
        return f"I_mem{self._issue(number).id}"

    def labels_of(self, number: int) -> list[str]:
        return list(self._issue(number).labels)

    def comments_of(self, number: int) -> list[Comment]:
        return [self._public(c) for c in self.store.comments_of(number)]

    def reactions_of(self, comment_id: int) -> list[str]:
        return [reaction.content for reaction in self.comment_store[comment_id].reactions]

    @property
    def requests(self) -> int:
        """Round trips so far, as `GitHubTracker.requests` counts them: a `read` or a `write` is
        one, as one GraphQL document is, however many operations (in `calls`) it holds."""
        return self._round_trips

    def _touch(self, number: int) -> None:
        """GitHub bumps an issue's updated_at on every comment, label and state change."""
        if number in self.issues:
            self.issues[number].updated_at = self.now

    def _set_state(self, number: int, state: str, by: str | None) -> None:
        issue = self._issue(number)
        who = by or issue.author
        self.store.set_state(issue, state, User.named(who))
        self._touch(number)
        self.log.append(f"#{number} {'closed' if state == 'closed' else 'reopened'} by {who}")

    def _call(self, operation: str) -> None:
        self.calls[operation] += 1
        if not self._batched:
            self._round_trips += 1
        if self.on_call is not None and not self._in_hook:
            self._in_hook = True  # the hook's own calls do not re-enter it
            batched, self._batched = self._batched, False  # nor join this call's round trip
            try:
                self.on_call(operation)
            finally:
                self._in_hook = False
                self._batched = batched
        queued = self._failures.get(operation)
        if queued:
            failure = queued.pop(0)
            if failure is not None:
                raise failure

    def _issue(self, number: int) -> Issue:
        try:
            return self.issues[number]
        except KeyError:
            raise TrackerError(f"issue #{number} does not exist (404)", status=404) from None

    def _add_comment(
        self, number: int, body: str, *, author: str, bot: bool, association: str
    ) -> Comment:
        issue = self._issue(number)
        user = User(author, "Bot" if bot else "User")
        with _refusing("the comment's "):
            check_body("IssueComment", body)
        stored = self.store.comment(issue, body, user, association)
        return self._public(stored)

    @staticmethod
    def _public(comment: StoredComment) -> Comment:
        return Comment(
            id=comment.id,
            author=comment.author,
            body=comment.body,
            created_at=comment.created_at,
            author_is_bot=comment.author_type == "Bot",
            association=comment.association,
            updated_at=comment.updated_at,
            edited_at=comment.edited_at or comment.created_at,
            editor=comment.editor.login if comment.editor else None,
        )

    def _one_trip(self) -> bool:
        self._round_trips += 1
        batched, self._batched = self._batched, True
        return batched

    def _pull(self, number: int) -> PullRequest:
        try:
            return self.pull_requests[number]
        except KeyError:
            raise TrackerError(f"pull request #{number} does not exist (404)", status=404) from None

    def _open_pull(self, branch: str) -> PullRequest | None:
        return self.work.open_from(branch)

    def _head_of(self, pull: PullRequest) -> str:
        return self.work.head_of(pull)

    def _open(self, branch: str, title: str, body: str, *, author: str, draft: bool) -> PullRequest:
        """A pull request as GitHub opens one, or GitHub's refusal (422)."""
        try:
            pull = self.work.open(branch, title, body, User.named(author), draft=draft)
        except PullRequestRefusal as refused:
            message = {
                "no_head": f"{refused.message} (422)",
                "body": f"the pull request's {refused.message} (422)",
            }.get(refused.kind, refused.message)
            raise PullRequestRefused(message, status=422) from None
        kind = "draft pull request" if draft else "pull request"
        self.log.append(f"#{pull.number} {kind} opened from {branch} by {author}: {title}")
        return pull

    def _pull_request_by_node(self, node_id: str, branch: str) -> PullRequest:
        found = self.work.by_node(node_id)
        if found is None and not node_id:
            found = self._open_pull(branch)
        if found is None:
            raise TrackerError(f"no pull request {node_id or branch} (NOT_FOUND)", status=404)
        return found

    def _set_pull_request_body(self, node_id: str, branch: str, body: str) -> None:
        """`updatePullRequest`: the body Baton keeps up to date."""
        self._call("update_pull_request")
        found = self._pull_request_by_node(node_id, branch)
        refusal = rules.body_refusal("PullRequest", body)
        if refusal is not None:
            raise TrackerError(f"the pull request's {refusal} (422)", status=422)
        issue = self.issues[found.number]
        if issue.body != body:
            issue.body = body
            self._touch(found.number)
            self.log.append(f"#{found.number} pull request body updated")

    def _mark_ready(self, node_id: str, branch: str) -> None:
        """`markPullRequestReadyForReview`."""
        self._call("mark_ready_for_review")
        found = self._pull_request_by_node(node_id, branch)
        if found.draft:
            found.draft = False
            self._touch(found.number)
            self.log.append(f"#{found.number} ready for review")


@contextmanager
def _refusing(what: str = "") -> Iterator[None]:
    """GitHub's refusal of a change (its 422), as the `TrackerError` the client raises: a label
    by its name, a body by what it belongs to."""
    try:
        yield
    except Refused as refused:
        refusal = refused.refusal
        if not what and refusal.resource == "Label":
            what = f"label {refused.subject!r}: "
        raise TrackerError(f"{what}{refusal} (422)", status=422) from None
