"""The fake GitHub's state and what its routes share: one `baton.sim.model.state.GitHubState`
(the one model of GitHub) behind the server's lock, lookups that answer 404, changes whose
refusals answer 422, the user, repository and label objects, and a snapshot of it all.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Self, TypedDict

from baton.names import BOT_LOGIN
from baton.sim import payloads
from baton.sim.api.faults import Call, Fault, FieldFault
from baton.sim.api.pipeline import Server
from baton.sim.api.views import (
    CommentState,
    IssueState,
    UserRef,
    _event_view,
    _reaction_view,
    _stamp_of,
    _user_ref,
)
from baton.sim.api.wire import _invalid, _invalid_custom, _not_found, _refused, _refusing
from baton.sim.model import rules
from baton.sim.model.issues import Comment, Issue, Label, Reaction, User
from baton.sim.model.pulls import PullRequest, PullRequestRefusal
from baton.sim.model.state import GitHubState
from baton.sim.payloads import DispatchRequest


class _WorkflowState(TypedDict):
    id: int
    file: str
    inputs: frozenset[str] | None  # None: accept any inputs


class FakeBase(Server):
    """The fake's state, a `GitHubState`, and what every resource's routes share: the lookups
    that answer 404, the changes made through the model with its refusals as 422s, the
    objects every answer embeds (users, the repository, labels)."""

    def __init__(
        self,
        owner: str = "octo",
        repo: str = "demo",
        token: str = "test-token",
        per_page_max: int = 100,
        *,
        bot_login: str = BOT_LOGIN,
        rate_limit: int = 5000,
        now: datetime | None = None,
    ) -> None:
        self.owner = owner
        self.repo = repo
        self.token = token
        self.per_page_max = per_page_max
        self.bot: UserRef = {"login": bot_login, "type": "Bot"}
        self.rate_limit = rate_limit
        self.rate_used = 0  # settable: tests may exhaust the primary rate limit
        self.graphql_used = 0  # GraphQL documents answered, against a budget of their own
        self.graphql_limit = rate_limit  # settable: tests may spend GraphQL's budget alone
        # GitHub's state (`now`: its clock's start, the repository's first commit's time);
        # labels by name, as GitHub lists them.
        self._state = GitHubState(
            f"{owner}/{repo}",
            bot_login=bot_login,
            now=now or datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC),
            sort_labels=True,
        )
        self._bot = User(bot_login, "Bot")
        self.internal_errors: list[str] = []  # handler crashes (bugs in the fake)

        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self.served_at: str | None = None

        self._ids = self._state.ids  # one counter: ids order creation (the timeline sorts by them)
        self._user_ids = self._state.user_ids
        self._store = self._state.issues
        self._labels = self._store.labels
        self._issues = self._store.issues
        self._comments = self._store.comments
        self._collaborators = self._state.collaborators
        self._teams = self._state.teams
        self._workflows: dict[str, _WorkflowState] = {}
        self._strict_workflows = False
        self._dispatches: list[DispatchRequest] = []
        self._faults: list[Fault] = []
        self._field_faults: list[FieldFault] = []
        self._requests: list[Call] = []
        # The repository and its work product.
        self._git = self._state.git
        self._ref_ids: dict[str, int] = {}  # a node id per branch, as GitHub gives each ref
        self._work = self._state.pulls  # pull requests, their reviews, the check runs
        self._pulls = self._work.pulls
        self._reviews = self._work.reviews
        self._check_runs = self._work.check_runs
        # Sub-issues and "blocked by" edges, by issue number, with GitHub's refusals.
        self._relations = self._state.relations
        # "Allow GitHub Actions to create and approve pull requests" is the model's setting
        # (`actions_may_open_pull_requests`). GITHUB_TOKEN never has the
        # `workflows` permission.
        self.workflows_permission = False

    # What a copy leaves behind: its own lock and stop signal, and none of the tests' faults
    # or hooks (a copy starts clean); the socket server serves the original only.
    _NOT_COPIED = frozenset(
        {"_lock", "_stopping", "_faults", "_field_faults", "on_request", "_in_request_hook"}
    )

    def snapshot(self) -> Self:
        """A copy of GitHub's side as it is now: its state (issues, comments, labels, people,
        the repository, pull requests, ids, the clock), the dispatches, workflows, ref ids and
        request log, with a lock of its own, no faults queued, no hook, not served. Writes to
        one do not show in the other: a test replays a run on the copy to compare."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        for name, value in vars(self).items():
            if name not in self._NOT_COPIED:
                setattr(clone, name, copy.deepcopy(value, memo))
        clone._lock = threading.RLock()
        clone._stopping = threading.Event()
        clone._faults = []
        clone._field_faults = []
        clone.served_at = None
        return clone

    @property
    def actions_may_open_pull_requests(self) -> bool:
        """Whether "Allow GitHub Actions to create and approve pull requests" is on."""
        return self._state.settings.can_approve_pull_request_reviews

    @actions_may_open_pull_requests.setter
    def actions_may_open_pull_requests(self, allowed: bool) -> None:
        self._state.settings.can_approve_pull_request_reviews = allowed

    @property
    def repo_full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def bot_login(self) -> str:
        return self.bot["login"]

    @property
    def now(self) -> datetime:
        return self._state.now

    @now.setter
    def now(self, moment: datetime) -> None:
        self._state.now = moment

    def advance(self, seconds: float = 1.0) -> datetime:
        """Move the fake clock forward (timestamps have one-second resolution)."""
        with self._lock:
            self.now += timedelta(seconds=seconds)
            return self.now

    def _stamp(self) -> str:
        return rules.timestamp(self.now)

    def _next_id(self) -> int:
        return self._ids.next()

    def _user_id(self, login: str) -> int:
        return self._user_ids.of(login)

    def _issue(self, number: int) -> Issue:
        """For helpers: an unknown issue is a test bug (KeyError)."""
        return self._issues[number]

    def _issue_or_404(self, number: int) -> Issue:
        issue = self._issues.get(number)
        if issue is None:
            raise _not_found()
        return issue

    def _comment_or_404(self, comment_id: int) -> Comment:
        comment = self._comments.get(comment_id)
        if comment is None:
            raise _not_found()
        return comment

    def _issue_by_id(self, issue_id: int) -> Issue | None:
        """An issue (or pull request) by its database id, as node ids carry it."""
        return self._store.by_id(issue_id)

    def _label_by_id(self, label_id: int) -> Label | None:
        return self._store.label_by_id(label_id)

    def _find_label(self, name: str) -> Label | None:
        return self._store.find_label(name)

    def _validate_label(
        self, name: Any, color: Any, description: Any
    ) -> tuple[str, str, str | None]:
        """Check a label like GitHub does; return the values typed."""
        refusal = rules.label_refusal(name, color, description)
        if refusal is not None:
            raise _refused(refusal)
        return name, color, description

    def _create_label(self, name: Any, color: Any, description: Any) -> Label:
        with _refusing():
            return self._store.create_label(name, color, description)

    def _add_labels(self, issue: Issue, names: Sequence[str], actor: User) -> None:
        with _refusing():
            for name in names:
                self._store.add_label(issue, name, actor)

    def _remove_label(self, issue: Issue, name: str, actor: User) -> None:
        self._store.remove_label(issue, name, actor)

    def _replace_labels(self, issue: Issue, names: Sequence[str], actor: User) -> None:
        with _refusing():
            wanted = [self._store.label_for(n) for n in names]
        keep = {label.name for label in wanted}
        for current in [name for name in issue.labels if name not in keep]:
            self._remove_label(issue, current, actor)
        self._add_labels(issue, [label.name for label in wanted], actor)

    def _create_comment(self, issue: Issue, body: str, author: User, association: str) -> Comment:
        self._user_id(author.login)  # GitHub knows the commenter from here on
        with _refusing():
            return self._store.comment(issue, body, author, association)

    def _set_comment_body(self, comment: Comment, text: str, editor: User | None = None) -> None:
        """A body edit, stamped as GitHub stamps it; through the API the editor is the token's
        user, the bot."""
        self._store.edit(comment, text, editor or self._bot)

    def _remove_comment(self, comment: Comment) -> None:
        del self._comments[comment.id]

    def _add_reaction(self, reactions: list[Reaction], content: str) -> tuple[Reaction, bool]:
        """The bot's ``content`` reaction, made once: (the reaction, whether it is new)."""
        with _refusing():
            return self._store.react(reactions, content, self._bot)

    def _ref_id(self, branch: str) -> int:
        if branch not in self._ref_ids:
            self._ref_ids[branch] = self._next_id()
        return self._ref_ids[branch]

    def _branch_by_ref_id(self, ref_id: int) -> str | None:
        return next(
            (b for b, known in self._ref_ids.items() if known == ref_id and b in self._git.refs),
            None,
        )

    def _pull_by_id(self, pull_id: int) -> PullRequest | None:
        return self._work.by_id(pull_id)

    def _pull_head(self, pull: PullRequest) -> str:
        return self._work.head_of(pull)

    def _open_pull(
        self, branch: str, title: str, body: Any, user: User, draft: bool
    ) -> PullRequest:
        """Open a pull request as ``POST /pulls`` does, or refuse it with GitHub's 422."""
        if not isinstance(body, str):
            self._body_text("PullRequest", body, required=False)
        try:
            return self._work.open(branch, title, body or "", user, draft=draft)
        except PullRequestRefusal as refused:
            if refused.refusal is not None:
                raise _refused(refused.refusal) from None
            if refused.kind == "no_head":
                raise _invalid("PullRequest", "head", "invalid") from None
            raise _invalid_custom("PullRequest", refused.message) from None

    def _api(self, base: str) -> str:
        return f"{base}/repos/{self.owner}/{self.repo}"

    def _html(self) -> str:
        return f"https://github.com/{self.owner}/{self.repo}"

    def _render_user(self, base: str, user: UserRef | User) -> dict[str, Any]:
        if isinstance(user, User):
            login, kind = user.login, user.type
        else:
            login, kind = user["login"], user["type"]
        return payloads.user_object(base, login, kind, self._user_id(login))

    def _render_repo(self, base: str) -> dict[str, Any]:
        owner = self._render_user(base, User(self.owner, "Organization"))
        open_issues = sum(1 for issue in self._issues.values() if issue.state == "open")
        return payloads.repository_object(
            base, self.repo_full_name, owner, open_issues=open_issues, now=self._stamp()
        )

    def _render_label(self, base: str, label: Label) -> dict[str, Any]:
        return payloads.label_object(
            base,
            self.repo_full_name,
            label_id=label.id,
            name=label.name,
            color=label.color,
            description=label.description,
            default=label.default,
        )

    def _issue_view(self, issue: Issue) -> IssueState:
        """The issue as the tests inspect it: a copy, GitHub's timestamps as text."""
        return {
            "number": issue.number,
            "id": issue.id,
            "title": issue.title,
            "body": issue.body,
            "state": issue.state,
            "state_reason": issue.state_reason,
            "user": _user_ref(issue.user),
            "author_association": issue.association,
            "labels": list(issue.labels),
            "comments": [self._comment_view(c) for c in self._store.comments_of(issue.number)],
            "events": [_event_view(event) for event in issue.events],
            "reactions": [_reaction_view(r) for r in issue.reactions],
            "is_pull_request": issue.is_pull_request,
            "created_at": rules.timestamp(issue.created_at),
            "updated_at": rules.timestamp(issue.updated_at),
            "closed_at": _stamp_of(issue.closed_at),
        }

    def _comment_view(self, comment: Comment) -> CommentState:
        return {
            "id": comment.id,
            "issue_number": comment.issue,
            "body": comment.body,
            "user": {
                "login": comment.author,
                "type": comment.author_type,
                "id": self._user_id(comment.author),
            },
            "author_association": comment.association,
            "created_at": rules.timestamp(comment.created_at),
            "updated_at": rules.timestamp(comment.updated_at),
            "last_edited_at": _stamp_of(comment.edited_at),
            "editor": _user_ref(comment.editor) if comment.editor else None,
            "reactions": [_reaction_view(r) for r in comment.reactions],
        }
