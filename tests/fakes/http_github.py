"""A fake GitHub REST API served over real HTTP, for integration tests.

Why a real server rather than mocking ``requests``: PyGithub builds URLs from
``base_url``, follows ``Link`` headers, completes lazy objects on first access
and retries through urllib3. Only a real socket exercises all of that, so the
tests see the same request sequence Baton would send to api.github.com.

State lives in memory behind one lock; responses are GitHub-shaped JSON built
from it. Tests seed state with helpers (``add_issue``, ``label_by``...), run
Baton against ``fake.url``, then inspect state and the request log
(``calls``). The repository is a ``baton.sim.github.git.Git`` (``main`` at a commit of a
README, commits with git's ids); pull requests share the issues' numbers, and
what humans and CI do to them are helpers too (``push``, ``open_pull_request``,
``review``, ``merge``, ``close_pull_request``, ``add_check_run``). ``fail``
queues faults (5xx, secondary rate limit, 404, slow answers) to test error
handling. Stdlib only, but for ``POST /graphql``: GitHub's GraphQL API over the
same state, in ``fakes/github_graphql.py`` (graphql-core), imported on the first
GraphQL request.

What GitHub itself does (limits, label names that ignore case, how the permission API answers,
ids past 2**31) comes from ``baton.sim.github``, which the in-memory GitHub follows too;
the issue, comment, label, user and repository objects come from ``baton.sim.payloads``, which
builds the webhook payloads from either fake.
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
import threading
import time
import traceback
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, NotRequired, TypedDict, TypeVar

from baton.sim import payloads
from baton.sim.github import git, pulls, rules
from baton.sim.github.issues import Comment, Event, Issue, Label, Reaction, Refused, User
from baton.sim.github.pulls import CheckRun, PullRequest, PullRequestRefusal, Review, ReviewComment
from baton.sim.github.rules import DEFAULT_LABEL_COLOR, REACTIONS, ROLES
from baton.sim.github.state import GitHubState
from baton.sim.payloads import REPOSITORY_ID, DispatchRequest

__all__ = [
    "REACTIONS",
    "REPOSITORY_ID",
    "ROLES",
    "Call",
    "CommentState",
    "DispatchRequest",
    "EventState",
    "FakeGitHub",
    "Fault",
    "FieldFault",
    "IssueState",
    "LabelState",
    "PullState",
    "ReactionState",
    "UserRef",
]

DOCS_URL = "https://docs.github.com/rest"
API_VERSION = "2022-11-28"
DEFAULT_PER_PAGE = 30
MAX_CLIENT_PAYLOAD_KEYS = 10
MAX_EVENT_TYPE_CHARS = 100
STATE_REASONS = ("completed", "not_planned", "reopened", "duplicate")
GRAPHQL_PATH = "/graphql"
SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID FAKE."
)


# --------------------------------------------------------------------------- state types


class UserRef(TypedDict):
    login: str
    type: str  # "User" | "Bot" | "Organization"


class CommentAuthor(UserRef):
    id: int


class LabelState(TypedDict):
    id: int
    name: str
    color: str
    description: str | None
    default: bool


class ReactionState(TypedDict):
    id: int
    content: str
    user: UserRef
    created_at: str


class EventState(TypedDict):
    """An issue event (labeled, unlabeled, closed, reopened, renamed)."""

    id: int
    event: str
    actor: UserRef
    created_at: str
    label: NotRequired[dict[str, str]]  # {"name", "color"} for (un)labeled
    rename: NotRequired[dict[str, str]]  # {"from", "to"} for renamed


class CommentState(TypedDict):
    id: int
    issue_number: int
    body: str
    user: CommentAuthor
    author_association: str
    created_at: str
    updated_at: str
    # GitHub keeps who last edited the body and when (GraphQL `lastEditedAt`, `editor`);
    # null until the first edit. Reactions move neither, nor `updated_at`.
    last_edited_at: str | None
    editor: UserRef | None
    reactions: list[ReactionState]


class IssueState(TypedDict):
    number: int
    id: int
    title: str
    body: str
    state: str  # "open" | "closed"
    state_reason: str | None
    user: UserRef
    author_association: str
    labels: list[str]  # canonical repo label names
    comments: list[CommentState]  # same objects as the fake's global comment index
    events: list[EventState]
    reactions: list[ReactionState]
    is_pull_request: bool
    created_at: str
    updated_at: str
    closed_at: str | None


class PullState(TypedDict):
    """A pull request's own fields; its title, body and open/closed state are its issue's."""

    number: int
    id: int  # the pull request's database id (not its issue's)
    head: str
    base: str
    user: UserRef
    draft: bool
    merged: bool
    merged_at: str | None
    merged_by: UserRef | None
    merge_commit_sha: str | None
    head_sha: str  # frozen when it closes; while open, the head branch's


CREATE_PULL_DOCS = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"


class _WorkflowState(TypedDict):
    id: int
    file: str
    inputs: frozenset[str] | None  # None: accept any inputs


@dataclass(frozen=True)
class Call:
    """One logged request, recorded after it was answered (faults included)."""

    method: str
    path: str  # percent-decoded, without query string
    query: dict[str, str]
    body: Any  # parsed JSON, or None
    status: int
    operation: str | None = None  # POST /graphql: the document's operation name, e.g. BatonRead


@dataclass
class Fault:
    """A queued failure; ``status=None`` with a ``delay`` answers normally, late."""

    method: str
    pattern: re.Pattern[str]
    status: int | None
    times: int | None  # None: every matching request until clear_faults()
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hits: int = 0
    operation: str | None = None  # only GraphQL requests running this operation
    after: int = 0  # matching requests still let through before it strikes

    def matches(self, method: str, path: str, operation: str | None = None) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.operation is not None and self.operation != operation:
            return False
        return self.method in ("*", method) and self.pattern.search(path) is not None

    def take(self) -> bool:
        """A matching request: let through while `after` lasts, else hit."""
        if self.after > 0:
            self.after -= 1
            return False
        self.hits += 1
        return True


@dataclass
class FieldFault:
    """A queued GraphQL field failure: the root field answered as ``alias`` (its alias, or its
    name) fails GitHub-style, ``null`` in ``data`` and an error of type ``kind``, without
    running; the document's other fields still run."""

    alias: str
    kind: str  # GitHub's error type: NOT_FOUND, FORBIDDEN, UNPROCESSABLE...
    message: str | None
    times: int | None  # None: every time until clear_faults()
    operation: str | None = None  # only in documents running this operation
    hits: int = 0
    after: int = 0  # matching fields still let run before it strikes

    def matches(self, alias: str, operation: str | None) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.operation is not None and self.operation != operation:
            return False
        return self.alias == alias

    def take(self) -> bool:
        if self.after > 0:
            self.after -= 1
            return False
        self.hits += 1
        return True


# --------------------------------------------------------------------------- HTTP plumbing


@dataclass
class _Request:
    method: str
    raw_path: str  # as sent (percent-encoded); used to build Link headers
    path: str
    params: dict[str, str]  # decoded path parameters from the route
    query: dict[str, str]
    body: Any
    base: str  # scheme://host:port the client used


@dataclass
class _Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class ApiError(Exception):
    """Raised by handlers; becomes a GitHub-style error body."""

    def __init__(
        self, status: int, message: str, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors

    def response(self) -> _Response:
        body: dict[str, Any] = {"message": self.message, "documentation_url": DOCS_URL}
        if self.errors is not None:
            body["errors"] = self.errors
        body["status"] = str(self.status)
        return _Response(self.status, body)


def _not_found() -> ApiError:
    return ApiError(404, "Not Found")


def _invalid(resource: str, field_name: str, code: str, message: str | None = None) -> ApiError:
    error: dict[str, Any] = {"resource": resource, "code": code, "field": field_name}
    if message is not None:
        error["message"] = message
    return ApiError(422, "Validation Failed", [error])


def _invalid_custom(resource: str, message: str) -> ApiError:
    """GitHub's 422 for a rule with no field: ``{"resource", "code": "custom", "message"}``."""
    return ApiError(
        422, "Validation Failed", [{"resource": resource, "code": "custom", "message": message}]
    )


def _refused(refusal: rules.Refusal) -> ApiError:
    return _invalid(refusal.resource, refusal.field, refusal.code, refusal.message)


def _parse_iso(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ApiError(422, f"Invalid time: {value!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _int_param(query: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(query.get(name, default))
    except ValueError:
        return default


_Item = TypeVar("_Item")


@dataclass(frozen=True)
class Route:
    """One row of the routing table: method, anchored path regex, handler."""

    method: str
    pattern: re.Pattern[str]
    handler: Callable[[FakeGitHub, _Request], _Response]


def _compile(template: str) -> re.Pattern[str]:
    """``/repos/{owner}/{n:int}/labels/{name:rest}`` -> anchored regex with named groups."""
    kinds = {"": "[^/]+", "int": "[0-9]+", "rest": ".+"}

    def group(match: re.Match[str]) -> str:
        name, _, kind = match.group(1).partition(":")
        return f"(?P<{name}>{kinds[kind]})"

    return re.compile("^" + re.sub(r"\{([^}]+)\}", group, template) + "$")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 stalls concurrent clients for ~1s

    def __init__(self, fake: FakeGitHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up before a delayed answer is expected.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in self.headers.items()}
        status, out_headers, payload = self.server.fake._handle(
            self.command, self.path, headers, raw
        )
        self.send_response(status)
        for key, value in out_headers.items():
            self.send_header(key, value)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload and status not in (204, 304):
            self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request stderr logging; the fake keeps its own log."""


# --------------------------------------------------------------------------- the fake


class FakeGitHub:
    """In-memory GitHub for one repository, reachable over HTTP at ``url``."""

    def __init__(
        self,
        owner: str = "octo",
        repo: str = "demo",
        token: str = "test-token",
        per_page_max: int = 100,
        *,
        bot_login: str = "github-actions[bot]",
        rate_limit: int = 5000,
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
        # GitHub's state, the one model the in-memory GitHub keeps too; labels by name, as
        # GitHub lists them.
        self._state = GitHubState(
            f"{owner}/{repo}",
            bot_login=bot_login,
            now=datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC),
            sort_labels=True,
        )
        self._bot = User(bot_login, "Bot")
        self.internal_errors: list[str] = []  # handler crashes (bugs in the fake)

        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

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
        # "Allow GitHub Actions to create and approve pull requests": on here, a test turns it
        # off to see GitHub's 403. GITHUB_TOKEN never has the `workflows` permission.
        self.actions_may_open_pull_requests = True
        self.workflows_permission = False

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> FakeGitHub:
        if self._server is not None:
            raise RuntimeError("FakeGitHub already started")
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},  # bounds shutdown() latency; default 0.5s
            name="FakeGitHub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes delayed handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeGitHub is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def repo_full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def bot_login(self) -> str:
        return self.bot["login"]

    # ----------------------------------------------------------------- clock

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

    @property
    def rest_used(self) -> int:
        """Requests counted against REST's hourly budget (`rate_used` less GraphQL's)."""
        return self.rate_used - self.graphql_used

    def _stamp(self) -> str:
        return rules.timestamp(self.now)

    # ----------------------------------------------------------------- seeding helpers

    def add_label(
        self, name: str, color: str = DEFAULT_LABEL_COLOR, description: str | None = None
    ) -> LabelState:
        with self._lock:
            if self._find_label(name) is not None:
                raise ValueError(f"label {name!r} already exists")
            return _label_view(self._create_label(name, color, description))

    def add_issue(
        self,
        title: str,
        body: str = "",
        user: str = "alice",
        user_type: str = "User",
        association: str = "NONE",
        labels: Iterable[str] = (),
        is_pull_request: bool = False,
    ) -> int:
        """Create an issue (or PR); initial labels are recorded as applied by the author."""
        with self._lock, _refusing():
            author = User(user, user_type)
            return self._store.open(
                title,
                body,
                author,
                association=association,
                labels=list(labels),
                is_pull_request=is_pull_request,
            ).number

    def add_comment(
        self,
        number: int,
        body: str,
        user: str = "alice",
        user_type: str = "User",
        association: str = "NONE",
    ) -> CommentState:
        with self._lock:
            issue = self._issue(number)
            comment = self._create_comment(issue, body, User(user, user_type), association)
            return self._comment_view(comment)

    def edit_comment(
        self, comment_id: int, body: str, *, by: str | None = None, by_type: str | None = None
    ) -> CommentState:
        """Simulate someone editing a comment: its author in the UI by default, or `by` (a
        maintainer; another workflow posting as the bot, `by_type="Bot"`)."""
        with self._lock:
            comment = self._comments[comment_id]
            editor = User(by, by_type or rules.user_type(by)) if by is not None else comment.user
            self._store.edit(comment, body, editor)
            return self._comment_view(comment)

    def update_issue(
        self,
        number: int,
        *,
        actor: str | None = None,
        title: str | None = None,
        body: str | None = None,
        state: str | None = None,
        state_reason: str | None = None,
    ) -> IssueState:
        """Simulate a human editing, closing or reopening an issue (events carry ``actor``)."""
        with self._lock, _refusing():
            issue = self._issue(number)
            who = User(actor, "User") if actor else issue.user
            if title is not None:
                self._store.rename(issue, title, who)
            if body is not None:
                issue.body = body
            if state is not None:
                self._store.set_state(issue, state, who, state_reason)
            self._store.touch(issue)
            return self._issue_view(issue)

    def label_by(self, number: int, name: str, actor: str, actor_type: str = "User") -> None:
        """Simulate ``actor`` adding a label in the UI (auto-creating it like GitHub)."""
        with self._lock, _refusing():
            self._store.add_label(self._issue(number), name, User(actor, actor_type))

    def unlabel_by(self, number: int, name: str, actor: str, actor_type: str = "User") -> None:
        with self._lock:
            issue = self._issue(number)
            label = self._find_label(name)
            if label is None or label.name not in issue.labels:
                raise KeyError(f"label {name!r} is not on issue #{number}")
            self._store.remove_label(issue, label.name, User(actor, actor_type))

    def set_permission(self, login: str, perm: str) -> None:
        with self._lock:
            self._collaborators.set(login, perm)

    def mark_nonexistent(self, login: str) -> None:
        """Make ``login`` an unknown account: its permission lookup answers 404."""
        with self._lock:
            self._collaborators.forget(login)

    def add_team_member(self, org: str, team: str, login: str, *, state: str = "active") -> None:
        with self._lock:
            self._teams.add(org, team, login, state=state)

    def add_workflow(self, file: str, *, inputs: Iterable[str] | None = None) -> int:
        """Declare a workflow. Once any is declared, unknown workflows answer 404 and
        undeclared ``inputs`` answer 422 like GitHub; until then any id is accepted."""
        with self._lock:
            self._strict_workflows = True
            workflow = self._register_workflow(file)
            workflow["inputs"] = frozenset(inputs) if inputs is not None else None
            return workflow["id"]

    # ----------------------------------------------------------------- the repository (helpers)

    def push(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str = "A change pushed by hand",
        *,
        by: str = "maria",
    ) -> str:
        """``by`` pushes one commit to ``branch`` (new branches start at the default one):
        each path's text, or None to delete it. Returns the new head."""
        with self._lock:
            data = {path: None if text is None else text.encode() for path, text in files.items()}
            return self._git.push(branch, data, message, by, self.now).oid

    def open_pull_request(
        self, branch: str, title: str, *, by: str = "bob", body: str = "", draft: bool = False
    ) -> int:
        """``by`` opens a pull request from ``branch`` to the default branch."""
        with self._lock:
            return self._open_pull(branch, title, body, User(by, "User"), draft).number

    def review(
        self,
        number: int,
        by: str,
        verdict: str,
        body: str = "",
        notes: Iterable[tuple[str, int | None, str]] = (),
    ) -> int:
        """``by`` submits a review (approved, changes_requested, commented) on the pull
        request's current head, with inline comments (path, line, body). Returns its id."""
        if verdict not in pulls.VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; expected one of {list(pulls.VERDICTS)}")
        with self._lock:
            pull = self._pulls[number]
            return self._work.review(pull, User(by, "User"), verdict, body, notes).id

    def merge(self, number: int, by: str = "maria") -> str:
        """``by`` merges the open pull request with a merge commit; returns the commit."""
        with self._lock:
            return self._work.merge(self._pulls[number], User(by, "User"))

    def close_pull_request(self, number: int, by: str = "maria") -> None:
        with self._lock:
            self._work.close(self._pulls[number], User(by, "User"))

    def add_check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str | None,
        summary: str = "",
        *,
        title: str = "",
        text: str = "",
    ) -> int:
        """CI reports a check run on a commit: its conclusion, or None while it runs."""
        with self._lock:
            return self._work.add_check_run(head_sha, name, conclusion, title, summary, text).id

    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        """Someone makes ``child`` a sub-issue of ``parent`` (raises ``RelationRefusal``)."""
        with self._lock:
            self._issue(parent)
            self._issue(child)
            self._relations.add_sub_issue(parent, child, replace_parent=replace_parent)

    def add_blocked_by(self, issue: int, blocking: int) -> None:
        """Someone marks ``issue`` as blocked by ``blocking`` (raises ``RelationRefusal``)."""
        with self._lock:
            self._issue(issue)
            self._issue(blocking)
            self._relations.add_blocked_by(issue, blocking)

    def sub_issues(self, number: int) -> list[int]:
        with self._lock:
            return self._relations.sub_issues(number)

    def parent_of(self, number: int) -> int | None:
        with self._lock:
            return self._relations.parent(number)

    def blocked_by(self, number: int) -> list[int]:
        """The issues blocking ``number``, in the order the edges were added."""
        with self._lock:
            return self._relations.blocked_by(number)

    def blocked_by_edges(self) -> set[tuple[int, int]]:
        """Every (blocked, blocking) pair in the repository."""
        with self._lock:
            return {(n, b) for n, known in self._relations.blockers.items() for b in known}

    def node_id(self, number: int) -> str:
        """The issue's node id (``I_fake{id}``), as GraphQL and REST's ``node_id`` give it."""
        with self._lock:
            return f"I_fake{self._issue(number).id}"

    def file_at(self, ref: str, path: str) -> str | None:
        """The text of ``path`` at a branch's head (or a commit); None if absent."""
        with self._lock:
            commit = self._git.resolve(ref)
            if commit is None:
                raise KeyError(ref)
            data = commit.tree.get(path)
            return data.decode() if data is not None else None

    def branch_head(self, branch: str) -> str | None:
        with self._lock:
            return self._git.head(branch)

    def commit_message(self, oid: str) -> str:
        with self._lock:
            return self._git.commits[oid].message

    def pull_request(self, number: int) -> PullState:
        with self._lock:
            pull = self._pulls[number]
            return {
                "number": pull.number,
                "id": pull.id,
                "head": pull.head,
                "base": pull.base,
                "user": _user_ref(pull.user),
                "draft": pull.draft,
                "merged": pull.merged,
                "merged_at": _stamp_of(pull.merged_at),
                "merged_by": _user_ref(pull.merged_by) if pull.merged_by else None,
                "merge_commit_sha": pull.merge_commit,
                "head_sha": self._pull_head(pull),
            }

    # ----------------------------------------------------------------- inspection

    def issue(self, number: int) -> IssueState:
        with self._lock:
            return self._issue_view(self._issue(number))

    def comments(self, number: int) -> list[CommentState]:
        with self._lock:
            self._issue(number)
            return [self._comment_view(c) for c in self._store.comments_of(number)]

    def comment(self, comment_id: int) -> CommentState:
        with self._lock:
            return self._comment_view(self._comments[comment_id])

    def labels_of(self, number: int) -> list[str]:
        with self._lock:
            return list(self._issue(number).labels)

    def labels(self) -> dict[str, LabelState]:
        with self._lock:
            return {name: _label_view(label) for name, label in self._labels.items()}

    def events(self, number: int) -> list[EventState]:
        with self._lock:
            return [_event_view(event) for event in self._issue(number).events]

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

    @property
    def dispatches(self) -> list[DispatchRequest]:
        with self._lock:
            return list(self._dispatches)

    @property
    def requests(self) -> list[Call]:
        with self._lock:
            return list(self._requests)

    def reset_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def calls(
        self,
        method: str | None = None,
        path_contains: str | None = None,
        *,
        operation: str | None = None,
    ) -> list[Call]:
        """Logged requests, filtered; ``path_contains`` matches the decoded path, ``operation``
        the operation name of a GraphQL document (``BatonRead``, ``BatonWrite``...)."""
        with self._lock:
            return [
                call
                for call in self._requests
                if (method is None or call.method == method.upper())
                and (path_contains is None or path_contains in call.path)
                and (operation is None or call.operation == operation)
            ]

    # ----------------------------------------------------------------- fault injection

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int | None,
        *,
        times: int | None = 1,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
        operation: str | None = None,
        after: int = 0,
    ) -> Fault:
        """Queue a failure for requests matching ``method`` and ``path_regex``
        (``re.search`` on the percent-decoded path, query excluded).

        ``method`` may be ``"*"``. Default bodies: 403/429 -> secondary rate limit
        (with ``retry-after: 1``), 404 -> Not Found, 5xx -> Server Error. ``delay``
        sleeps before answering (to trip client timeouts); with ``status=None`` the
        request is then served normally, as when GitHub applies a write the client
        gave up on. ``operation`` narrows it to GraphQL documents running that
        operation: ``fail("POST", "/graphql", 502, operation="BatonWrite")``. ``after``
        lets that many matching requests through first (the third document fails:
        ``after=2``).
        """
        if status is None and delay <= 0:
            raise ValueError("a fault needs a status, a delay, or both")
        if times is not None and times < 1:
            raise ValueError("times must be >= 1, or None for every matching request")
        fault = Fault(
            method=method.upper(),
            pattern=re.compile(path_regex),
            status=status,
            times=times,
            body=body,
            headers={key.lower(): value for key, value in (headers or {}).items()},
            delay=delay,
            operation=operation,
            after=after,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def fail_graphql_field(
        self,
        alias: str,
        kind: str = "NOT_FOUND",
        *,
        times: int | None = 1,
        message: str | None = None,
        operation: str | None = None,
        after: int = 0,
    ) -> FieldFault:
        """Make the GraphQL root field answered as ``alias`` fail GitHub-style: it does not
        run, ``data[alias]`` is null and an error ``{"type": kind, "path": [alias], ...}`` is
        added, while the document's other fields run as usual (a partial failure).
        ``fail_graphql_field("record", "NOT_FOUND")`` fails the next ``record:`` mutation
        field; ``operation`` narrows it to documents running that operation; ``after`` lets
        that many matching fields run first."""
        if times is not None and times < 1:
            raise ValueError("times must be >= 1, or None for every matching field")
        fault = FieldFault(alias, kind, message, times, operation, after=after)
        with self._lock:
            self._field_faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._field_faults.clear()

    # ----------------------------------------------------------------- public renderers
    # Webhook payloads reuse these so events and API answers agree.

    @property
    def api_base(self) -> str:
        """The fake's URL when started, else api.github.com (payloads built offline)."""
        return self.url if self._server is not None else "https://api.github.com"

    def issue_json(self, number: int) -> dict[str, Any]:
        with self._lock:
            return self._render_issue(self.api_base, self._issue(number))

    def comment_json(self, comment_id: int) -> dict[str, Any]:
        with self._lock:
            return self._render_comment(self.api_base, self._comments[comment_id])

    def label_json(self, name: str) -> dict[str, Any]:
        with self._lock:
            label = self._find_label(name)
            if label is None:
                raise KeyError(name)
            return self._render_label(self.api_base, label)

    def repo_json(self) -> dict[str, Any]:
        with self._lock:
            return self._render_repo(self.api_base)

    def user_json(self, login: str, user_type: str = "User") -> dict[str, Any]:
        with self._lock:
            return self._render_user(self.api_base, {"login": login, "type": user_type})

    def issue_of_comment(self, comment_id: int) -> int:
        with self._lock:
            return self._comments[comment_id].issue

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        """Who caused the issue's latest ``event`` (for ``label``): (login, user type)."""
        with self._lock:
            for item in reversed(self._issue(number).events):
                named = item.label[0] if item.label else ""
                if item.kind == event and (label is None or rules.find_label([named], label)):
                    return item.actor.login, item.actor.type
            return None

    # ----------------------------------------------------------------- request pipeline

    def _handle(
        self, method: str, target: str, headers: Mapping[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Entry point from the HTTP handler thread: route, log, encode."""
        split = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(split.path)
        query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
        host = headers.get("host")
        base = f"http://{host}" if host else self.url
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                bad_json = True
        request = _Request(method, split.path, path, {}, query, body, base)
        operation = (
            self._graphql_operation(body) if (method, path) == ("POST", GRAPHQL_PATH) else None
        )
        try:
            response = self._respond(request, headers, bad_json, operation)
        except Exception:  # a bug in the fake: answer 500, keep serving, surface it
            details = traceback.format_exc()
            with self._lock:
                self.internal_errors.append(details)
            print(details, file=sys.stderr)
            response = _Response(500, {"message": "FakeGitHub internal error"})
        with self._lock:
            self._requests.append(Call(method, path, query, body, response.status, operation))
            return self._encode(response)

    @staticmethod
    def _graphql_operation(body: Any) -> str | None:
        try:
            from fakes.github_graphql import operation_name
        except ImportError:  # graphql-core missing: /graphql answers 500, REST still works
            return None
        return operation_name(body)

    def _respond(
        self,
        req: _Request,
        headers: Mapping[str, str],
        bad_json: bool,
        operation: str | None = None,
    ) -> _Response:
        with self._lock:
            denied = self._authenticate(headers.get("authorization", ""))
            if denied is not None:
                return denied
            metered = req.path != "/rate_limit"  # like GitHub, /rate_limit is free
            # REST and GraphQL have an hourly budget each, as on GitHub.
            spent = (
                self.graphql_used >= self.graphql_limit
                if req.path == GRAPHQL_PATH
                else self.rest_used >= self.rate_limit
            )
            if metered and spent:
                if req.path == GRAPHQL_PATH:
                    # GraphQL says so in a 200 answer with no data, as GitHub does.
                    message = "API rate limit exceeded for installation ID 1."
                    return _Response(
                        200, {"errors": [{"type": "RATE_LIMITED", "message": message}]}
                    )
                return ApiError(403, "API rate limit exceeded for installation ID 1.").response()
            if metered:
                self.rate_used += 1
            fault = next(
                (
                    f
                    for f in self._faults
                    if f.matches(req.method, req.path, operation) and f.take()
                ),
                None,
            )
        if fault is not None:
            if fault.delay > 0:
                self._stopping.wait(fault.delay)
            if fault.status is not None:
                return self._fault_response(fault)
        if bad_json:
            return ApiError(400, "Problems parsing JSON").response()
        route, allowed = self._match(req)
        if route is None:
            if allowed:
                return ApiError(405, "Method Not Allowed").response()
            return _not_found().response()
        with self._lock:
            try:
                owner, repo = req.params.get("owner"), req.params.get("repo")
                if owner is not None and (owner.casefold(), (repo or "").casefold()) != (
                    self.owner.casefold(),
                    self.repo.casefold(),
                ):
                    raise _not_found()
                return route.handler(self, req)
            except ApiError as error:
                return error.response()

    def _authenticate(self, header: str) -> _Response | None:
        scheme, _, credential = header.partition(" ")
        if not header:
            return ApiError(401, "Requires authentication").response()
        if scheme.lower() not in ("token", "bearer") or credential.strip() != self.token:
            return ApiError(401, "Bad credentials").response()
        return None

    def _match(self, req: _Request) -> tuple[Route | None, bool]:
        allowed = False
        for route in ROUTES:
            match = route.pattern.match(req.raw_path)
            if match is None:
                continue
            if route.method != req.method:
                allowed = True
                continue
            req.params = {k: urllib.parse.unquote(v) for k, v in match.groupdict().items()}
            return route, True
        return None, allowed

    def _fault_response(self, fault: Fault) -> _Response:
        assert fault.status is not None
        status = fault.status
        headers: dict[str, str] = {}
        body = fault.body
        if body is None:
            if status in (403, 429):
                body = {
                    "message": SECONDARY_RATE_LIMIT_MESSAGE,
                    "documentation_url": DOCS_URL + "/overview/rate-limits-for-the-rest-api",
                }
                headers["retry-after"] = "1"
            elif status == 404:
                body = {"message": "Not Found", "documentation_url": DOCS_URL}
            elif status >= 500:
                body = {"message": "Server Error"}
            else:
                body = {"message": HTTPStatus(status).phrase}
        headers.update(fault.headers)
        return _Response(status, body, headers)

    def _encode(self, response: _Response) -> tuple[int, dict[str, str], bytes]:
        headers = {
            "content-type": "application/json; charset=utf-8",
            "x-github-api-version-selected": API_VERSION,
            "x-github-request-id": f"FAKE:{len(self._requests)}",
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(max(self.rate_limit - self.rest_used, 0)),
            # wall clock, not the fake clock: clients compute waits against real time
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-used": str(self.rest_used),
            "x-ratelimit-resource": "core",
        }
        body = response.body
        if body is None:
            payload = b""
        elif isinstance(body, bytes | str):
            payload = body.encode() if isinstance(body, str) else body
            headers["content-type"] = "text/plain; charset=utf-8"
        else:
            payload = json.dumps(body, separators=(",", ":")).encode()
        headers.update(response.headers)
        return response.status, headers, payload

    # ----------------------------------------------------------------- state helpers
    # All assume the lock is held.

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

    def _take_field_fault(self, alias: str, operation: str | None) -> FieldFault | None:
        """The queued field fault for a GraphQL root field about to run, counted as hit."""
        return next(
            (f for f in self._field_faults if f.matches(alias, operation) and f.take()), None
        )

    def _register_workflow(self, file: str) -> _WorkflowState:
        if file not in self._workflows:
            self._workflows[file] = {"id": self._next_id(), "file": file, "inputs": None}
        return self._workflows[file]

    def _workflow_or_404(self, workflow_id: str) -> _WorkflowState:
        for workflow in self._workflows.values():
            if workflow_id in (workflow["file"], str(workflow["id"])):
                return workflow
        if self._strict_workflows:
            raise _not_found()
        return self._register_workflow(workflow_id)

    # ----------------------------------------------------------------- the repository (state)

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

    # ----------------------------------------------------------------- request-body helpers

    @staticmethod
    def _object_body(req: _Request) -> dict[str, Any]:
        if req.body is None:
            return {}
        if not isinstance(req.body, dict):
            raise ApiError(400, "Problems parsing JSON")
        return req.body

    @staticmethod
    def _label_names(body: Any) -> list[str]:
        """Accept ``["a"]``, ``{"labels": ["a"]}`` and ``[{"name": "a"}]`` like GitHub."""
        items = body.get("labels") if isinstance(body, dict) else body
        if not isinstance(items, list):
            raise _invalid("Label", "labels", "invalid")
        names = []
        for item in items:
            name = item.get("name") if isinstance(item, dict) else item
            if not isinstance(name, str) or not name.strip():
                raise _invalid("Label", "name", "invalid")
            names.append(name)
        return names

    @staticmethod
    def _body_text(resource: str, text: Any, *, required: bool) -> str:
        """Validate a body like GitHub (required, max length); ``None`` -> ``""``."""
        if text is None and not required:
            return ""
        if not isinstance(text, str) or (required and not text.strip()):
            raise _invalid(resource, "body", "missing_field")
        refusal = rules.body_refusal(resource, text)
        if refusal is not None:
            raise _refused(refusal)
        return text

    def _paginate(
        self,
        req: _Request,
        items: Sequence[_Item],
        render: Callable[[_Item], Any],
        *,
        wrap: str | None = None,
    ) -> _Response:
        """A page of ``items`` with GitHub's ``Link`` header; ``wrap``: the page as GitHub
        gives some lists, ``{"total_count": n, wrap: [...]}`` (check runs)."""
        per_page = min(
            max(_int_param(req.query, "per_page", DEFAULT_PER_PAGE), 1), self.per_page_max
        )
        page = max(_int_param(req.query, "page", 1), 1)
        last = max(math.ceil(len(items) / per_page), 1)
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(target: int, rel: str) -> str:
            query = urllib.parse.urlencode({**req.query, "page": str(target)})
            return f'<{req.base}{req.raw_path}?{query}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links.append(link(1, "first"))
        headers = {"link": ", ".join(links)} if links else {}
        page_items = [render(item) for item in chunk]
        if wrap is not None:
            return _Response(200, {"total_count": len(items), wrap: page_items}, headers)
        return _Response(200, page_items, headers)

    # ----------------------------------------------------------------- renderers

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

    def _render_reaction(self, base: str, reaction: Reaction) -> dict[str, Any]:
        return {
            "id": reaction.id,
            "node_id": f"REA_fake{reaction.id}",
            "user": self._render_user(base, reaction.user),
            "content": reaction.content,
            "created_at": rules.timestamp(reaction.created_at),
        }

    def _render_issue(self, base: str, issue: Issue) -> dict[str, Any]:
        return payloads.issue_object(
            base,
            self.repo_full_name,
            issue_id=issue.id,
            number=issue.number,
            title=issue.title,
            body=issue.body,
            state=issue.state,
            state_reason=issue.state_reason,
            user=self._render_user(base, issue.user),
            labels=[self._render_label(base, self._labels[name]) for name in issue.labels],
            comments=len(self._store.comments_of(issue.number)),
            created_at=rules.timestamp(issue.created_at),
            updated_at=rules.timestamp(issue.updated_at),
            closed_at=_stamp_of(issue.closed_at),
            author_association=issue.association,
            reactions=[r.content for r in issue.reactions],
            is_pull_request=issue.is_pull_request,
        )

    def _render_comment(self, base: str, comment: Comment) -> dict[str, Any]:
        user = comment.user
        return payloads.comment_object(
            base,
            self.repo_full_name,
            comment_id=comment.id,
            number=comment.issue,
            user=self._render_user(base, user),
            body=comment.body,
            created_at=rules.timestamp(comment.created_at),
            updated_at=rules.timestamp(comment.updated_at),
            author_association=comment.association,
            reactions=[r.content for r in comment.reactions],
            by_actions=user.type == "Bot" and user.login == self.bot_login,
        )

    def _render_event(self, base: str, issue: Issue, event: Event) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": event.id,
            "node_id": f"LE_fake{event.id}",
            "url": f"{self._api(base)}/issues/events/{event.id}",
            "actor": self._render_user(base, event.actor),
            "event": event.kind,
            "commit_id": None,
            "commit_url": None,
            "created_at": rules.timestamp(event.created_at),
            "performed_via_github_app": None,
        }
        if event.label is not None:
            data["label"] = {"name": event.label[0], "color": event.label[1]}
        if event.rename is not None:
            data["rename"] = {"from": event.rename[0], "to": event.rename[1]}
        if event.kind == "closed":
            data["state_reason"] = issue.state_reason
        return data

    def _render_git_user(self, login: str, stamp: str) -> dict[str, Any]:
        return {"name": login, "email": f"{login}@users.noreply.github.com", "date": stamp}

    def _render_commit(self, base: str, oid: str) -> dict[str, Any]:
        """A commit as GitHub embeds it (in a branch, a compare, a merge's answer); `GET
        /repos/{owner}/{repo}/commits/{ref}` adds ``stats`` and ``files``. What GitHub made
        itself (createCommitOnBranch, a merge) it signs: verified, committed by `web-flow`."""
        commit = self._git.commits[oid]
        api, stamp = self._api(base), rules.timestamp(commit.when)
        author = self._render_user(
            base, {"login": commit.author, "type": rules.user_type(commit.author)}
        )
        committer, git_committer = author, self._render_git_user(commit.author, stamp)
        verification: dict[str, Any] = {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        }
        if commit.signed:
            committer = self._render_user(base, {"login": "web-flow", "type": "User"})
            git_committer = {"name": "GitHub", "email": "noreply@github.com", "date": stamp}
            verification = {
                "verified": True,
                "reason": "valid",
                "signature": "-----BEGIN PGP SIGNATURE-----\n\nfake\n-----END PGP SIGNATURE-----\n",
                "payload": f"tree {git.tree_oid(commit.tree)}\n",
                "verified_at": stamp,
            }
        return {
            "url": f"{api}/commits/{oid}",
            "sha": oid,
            "node_id": f"C_fake{oid}",
            "html_url": f"{self._html()}/commit/{oid}",
            "comments_url": f"{api}/commits/{oid}/comments",
            "commit": {
                "url": f"{api}/git/commits/{oid}",
                "author": self._render_git_user(commit.author, stamp),
                "committer": git_committer,
                "message": commit.message,
                "tree": {"sha": git.tree_oid(commit.tree), "url": f"{api}/git/trees/{oid}"},
                "comment_count": 0,
                "verification": verification,
            },
            "author": author,
            "committer": committer,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{self._html()}/commit/{p}"}
                for p in commit.parents
            ],
        }

    def _render_file(self, base: str, oid: str, change: git.FileDiff) -> dict[str, Any]:
        """One entry of a commit's ``files`` (no ``patch``: Baton never reads it)."""
        api, path = self._api(base), change.path
        entry: dict[str, Any] = {
            "sha": change.blob,
            "filename": path,
            "status": change.status,
            "additions": 0,
            "deletions": 0,
            "changes": 0,
            "blob_url": f"{self._html()}/blob/{oid}/{path}",
            "raw_url": f"{self._html()}/raw/{oid}/{path}",
            "contents_url": f"{api}/contents/{path}?ref={oid}",
        }
        if change.previous:
            entry["previous_filename"] = change.previous
        return entry

    def _render_ref(self, base: str, branch: str) -> dict[str, Any]:
        oid = self._git.refs[branch]
        api = self._api(base)
        return {
            "ref": git.HEADS + branch,
            "node_id": f"REF_fake{self._ref_id(branch)}",
            "url": f"{api}/git/refs/heads/{branch}",
            "object": {"sha": oid, "type": "commit", "url": f"{api}/git/commits/{oid}"},
        }

    def _render_pull(self, base: str, pull: PullRequest) -> dict[str, Any]:
        """A pull request as GET /repos/{owner}/{repo}/pulls/{n} gives it."""
        issue = self._issues[pull.number]
        api, number = self._api(base), pull.number
        url = f"{api}/pulls/{number}"
        html = f"{self._html()}/pull/{number}"
        repo = self._render_repo(base)
        owner = self._render_user(base, User(self.owner, "Organization"))

        def part(branch: str, sha: str) -> dict[str, Any]:
            return {
                "label": f"{self.owner}:{branch}",
                "ref": branch,
                "sha": sha,
                "user": owner,
                "repo": repo,
            }

        merged_by = pull.merged_by
        return {
            "url": url,
            "id": pull.id,
            "node_id": pull.node_id,
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{number}",
            "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{number}/comments",
            "statuses_url": f"{api}/statuses/{self._pull_head(pull)}",
            "number": number,
            "state": issue.state,
            "locked": False,
            "title": issue.title,
            "user": self._render_user(base, pull.user),
            "body": issue.body or None,
            "labels": [self._render_label(base, self._labels[n]) for n in issue.labels],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": rules.timestamp(issue.created_at),
            "updated_at": rules.timestamp(issue.updated_at),
            "closed_at": _stamp_of(issue.closed_at),
            "merged_at": _stamp_of(pull.merged_at),
            "merge_commit_sha": pull.merge_commit,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": part(pull.head, self._pull_head(pull)),
            "base": part(pull.base, self._git.refs.get(pull.base, "")),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": f"{api}/issues/{number}"},
                "comments": {"href": f"{api}/issues/{number}/comments"},
                "review_comments": {"href": f"{url}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{url}/commits"},
                "statuses": {"href": f"{api}/statuses/{self._pull_head(pull)}"},
            },
            "author_association": issue.association,
            "auto_merge": None,
            "draft": pull.draft,
            "merged": pull.merged,
            "mergeable": None,  # GitHub computes it in the background; null until it has
            "rebaseable": None,
            "mergeable_state": "unknown",
            "merged_by": self._render_user(base, merged_by) if merged_by else None,
            "comments": len(self._store.comments_of(number)),
            "review_comments": sum(
                len(r.comments) for r in self._reviews.values() if r.pull_request == number
            ),
            "maintainer_can_modify": False,
            "commits": self._git.ahead(pull.base, pull.head) if pull.head in self._git.refs else 0,
            "additions": 0,
            "deletions": 0,
            "changed_files": 0,
        }

    def _render_review_comment(
        self, base: str, review: Review, comment: ReviewComment
    ) -> dict[str, Any]:
        """One inline comment of a review, as the review's comments list gives it."""
        api, number = self._api(base), review.pull_request
        url = f"{api}/pulls/comments/{comment.id}"
        html = f"{self._html()}/pull/{number}#discussion_r{comment.id}"
        submitted = rules.timestamp(review.submitted_at)
        return {
            "url": url,
            "pull_request_review_id": review.id,
            "id": comment.id,
            "node_id": f"PRRC_fake{comment.id}",
            "diff_hunk": "",
            "path": comment.path,
            "position": comment.line,
            "original_position": comment.line,
            "commit_id": review.commit,
            "original_commit_id": review.commit,
            "in_reply_to_id": None,
            "user": self._render_user(base, review.author),
            "body": comment.body,
            "created_at": submitted,
            "updated_at": submitted,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": f"{api}/pulls/{number}"},
            },
            "line": comment.line,
            "original_line": comment.line,
            "side": "RIGHT",
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "subject_type": "line" if comment.line is not None else "file",
        }

    def _render_check_run(self, base: str, run: CheckRun) -> dict[str, Any]:
        api = self._api(base)
        return {
            "id": run.id,
            "head_sha": run.head_sha,
            "node_id": f"CR_fake{run.id}",
            "external_id": "",
            "url": f"{api}/check-runs/{run.id}",
            "html_url": f"{self._html()}/runs/{run.id}",
            "details_url": f"{self._html()}/actions/runs/{run.id}",
            "status": run.status,
            "conclusion": run.conclusion,
            "started_at": rules.timestamp(run.started_at),
            "completed_at": _stamp_of(run.completed_at),
            "output": {
                "title": run.title or None,
                "summary": run.summary or None,
                "text": run.text or None,
                "annotations_count": 0,
                "annotations_url": f"{api}/check-runs/{run.id}/annotations",
            },
            "name": run.name,
            "check_suite": {"id": run.id + 1},
            "app": {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"},
            "pull_requests": [],
        }

    # ----------------------------------------------------------------- handlers
    # Referenced by ROUTES below; each runs with the lock held.

    def _get_rate_limit(self, req: _Request) -> _Response:
        reset = int(time.time()) + 3600
        core = {
            "limit": self.rate_limit,
            "used": self.rate_used,
            "remaining": max(self.rate_limit - self.rate_used, 0),
            "reset": reset,
        }
        search = {"limit": 30, "used": 0, "remaining": 30, "reset": reset}
        graphql = {"limit": 5000, "used": 0, "remaining": 5000, "reset": reset}
        return _Response(
            200, {"resources": {"core": core, "search": search, "graphql": graphql}, "rate": core}
        )

    def _get_user(self, req: _Request) -> _Response:
        # GITHUB_TOKEN is an installation token: it has no user behind it.
        raise ApiError(403, "Resource not accessible by integration")

    def _org_known(self, org: str) -> bool:
        return org.casefold() == self.owner.casefold() or self._teams.has_org(org)

    def _get_org(self, req: _Request) -> _Response:
        org = req.params["org"]
        if not self._org_known(org):
            raise _not_found()
        data = self._render_user(req.base, User(org, "Organization"))
        data.update({"url": f"{req.base}/orgs/{org}", "description": None})
        return _Response(200, data)

    def _get_team(self, req: _Request) -> _Response:
        org, slug = req.params["org"], req.params["team"]
        if not self._teams.exists(org, slug):
            raise _not_found()
        team_id = self._user_id(f"team:{org.casefold()}/{slug.casefold()}")
        # Real team URLs are /organizations/{id}/team/{id}; the slug form keeps
        # Team.get_team_membership() on the documented route.
        url = f"{req.base}/orgs/{org}/teams/{slug}"
        return _Response(
            200,
            {
                "id": team_id,
                "node_id": f"T_fake{team_id}",
                "url": url,
                "html_url": f"https://github.com/orgs/{org}/teams/{slug}",
                "name": slug,
                "slug": slug,
                "description": None,
                "privacy": "closed",
                "notification_setting": "notifications_enabled",
                "permission": "pull",
                "members_url": f"{url}/members{{/member}}",
                "repositories_url": f"{url}/repos",
                "parent": None,
            },
        )

    def _get_team_membership(self, req: _Request) -> _Response:
        org, slug, login = req.params["org"], req.params["team"], req.params["username"]
        state = self._teams.state(org, slug, login)
        if state is None:
            raise _not_found()
        return _Response(
            200,
            {
                "url": f"{req.base}/orgs/{org}/teams/{slug}/memberships/{login}",
                "role": "member",
                "state": state,
            },
        )

    def _get_repo(self, req: _Request) -> _Response:
        return _Response(200, self._render_repo(req.base))

    def _list_issues(self, req: _Request) -> _Response:
        state = req.query.get("state", "open")
        sort = req.query.get("sort", "created")
        direction = req.query.get("direction", "desc")
        if state not in ("open", "closed", "all"):
            raise _invalid("Issue", "state", "invalid")
        if sort not in ("created", "updated", "comments") or direction not in ("asc", "desc"):
            raise _invalid("Issue", "sort", "invalid")
        wanted = {
            name.strip().casefold()
            for name in req.query.get("labels", "").split(",")
            if name.strip()
        }
        since = _parse_iso(req.query["since"]) if "since" in req.query else None
        issues = [
            issue
            for issue in self._issues.values()
            if state in ("all", issue.state)
            and wanted <= {name.casefold() for name in issue.labels}
            and (since is None or _parse_iso(rules.timestamp(issue.updated_at)) >= since)
        ]
        stamp = rules.timestamp  # GitHub sorts by its timestamps, to the second
        keys: dict[str, Callable[[Issue], tuple[Any, int]]] = {
            "created": lambda issue: (stamp(issue.created_at), issue.number),
            "updated": lambda issue: (stamp(issue.updated_at), issue.number),
            "comments": lambda issue: (len(self._store.comments_of(issue.number)), issue.number),
        }
        issues.sort(key=keys[sort], reverse=direction == "desc")
        return self._paginate(req, issues, lambda issue: self._render_issue(req.base, issue))

    def _get_issue(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return _Response(200, self._render_issue(req.base, issue))

    def _update_issue(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        body = self._object_body(req)
        # Validate everything first so a 422 leaves the issue untouched.
        if "title" in body and (not isinstance(body["title"], str) or not body["title"].strip()):
            raise _invalid("Issue", "title", "missing_field")
        text = self._body_text("Issue", body.get("body"), required=False)
        if "state" in body and body["state"] not in ("open", "closed"):
            raise _invalid("Issue", "state", "invalid")
        reason = body.get("state_reason")
        if reason is not None and reason not in STATE_REASONS:
            raise _invalid("Issue", "state_reason", "invalid")
        names = self._label_names(body["labels"]) if "labels" in body else None
        if names is not None:
            for name in names:
                if self._find_label(name) is None:
                    self._validate_label(name, DEFAULT_LABEL_COLOR, None)

        if "title" in body:
            self._store.rename(issue, body["title"], self._bot)
        if "body" in body:
            issue.body = text
        if "state" in body:
            with _refusing():
                self._store.set_state(issue, body["state"], self._bot, reason)
        if names is not None:
            self._replace_labels(issue, names, self._bot)
        self._store.touch(issue)
        return _Response(200, self._render_issue(req.base, issue))

    def _list_comments(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        since = _parse_iso(req.query["since"]) if "since" in req.query else None
        comments = [
            c
            for c in self._store.comments_of(issue.number)
            if since is None or _parse_iso(rules.timestamp(c.updated_at)) >= since
        ]
        return self._paginate(req, comments, lambda c: self._render_comment(req.base, c))

    def _create_comment_handler(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        text = self._body_text("IssueComment", self._object_body(req).get("body"), required=True)
        comment = self._create_comment(issue, text, self._bot, "NONE")
        return _Response(201, self._render_comment(req.base, comment))

    def _get_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return _Response(200, self._render_comment(req.base, comment))

    def _update_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        text = self._body_text("IssueComment", self._object_body(req).get("body"), required=True)
        self._set_comment_body(comment, text)
        return _Response(200, self._render_comment(req.base, comment))

    def _delete_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        self._remove_comment(comment)
        return _Response(204)

    def _react(self, req: _Request, reactions: list[Reaction]) -> _Response:
        content = self._object_body(req).get("content")
        if content not in REACTIONS:
            raise _invalid("Reaction", "content", "invalid")
        reaction, created = self._add_reaction(reactions, content)
        return _Response(201 if created else 200, self._render_reaction(req.base, reaction))

    def _create_comment_reaction(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return self._react(req, comment.reactions)

    def _list_comment_reactions(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return self._paginate(req, comment.reactions, lambda r: self._render_reaction(req.base, r))

    def _create_issue_reaction(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._react(req, issue.reactions)

    def _list_issue_reactions(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(req, issue.reactions, lambda r: self._render_reaction(req.base, r))

    def _issue_labels_response(self, req: _Request, issue: Issue) -> _Response:
        labels = [self._render_label(req.base, self._labels[n]) for n in issue.labels]
        return _Response(200, labels)

    def _list_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(
            req, issue.labels, lambda n: self._render_label(req.base, self._labels[n])
        )

    def _add_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        names = self._label_names(req.body)
        for name in names:  # validate all before applying any
            if self._find_label(name) is None:
                self._validate_label(name, DEFAULT_LABEL_COLOR, None)
        self._add_labels(issue, names, self._bot)
        return self._issue_labels_response(req, issue)

    def _set_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        names = self._label_names(req.body if req.body is not None else [])
        for name in names:
            if self._find_label(name) is None:
                self._validate_label(name, DEFAULT_LABEL_COLOR, None)
        self._replace_labels(issue, names, self._bot)
        return self._issue_labels_response(req, issue)

    def _clear_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        for name in list(issue.labels):
            self._remove_label(issue, name, self._bot)
        return _Response(204)

    def _remove_issue_label(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        label = self._find_label(req.params["name"])
        if label is None or label.name not in issue.labels:
            raise ApiError(404, "Label does not exist")
        self._remove_label(issue, label.name, self._bot)
        return self._issue_labels_response(req, issue)

    def _list_events(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(req, issue.events, lambda e: self._render_event(req.base, issue, e))

    def _list_timeline(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        items: list[dict[str, Any]] = [self._render_event(req.base, issue, e) for e in issue.events]
        for comment in self._store.comments_of(issue.number):
            item = self._render_comment(req.base, comment)
            item.update({"event": "commented", "actor": item["user"]})
            items.append(item)
        items.sort(key=lambda item: int(item["id"]))  # ids follow creation order
        return self._paginate(req, items, lambda item: item)

    def _list_labels(self, req: _Request) -> _Response:
        labels = sorted(self._labels.values(), key=lambda lab: lab.name.casefold())
        return self._paginate(req, labels, lambda lab: self._render_label(req.base, lab))

    def _create_label_handler(self, req: _Request) -> _Response:
        body = self._object_body(req)
        name, description = body.get("name"), body.get("description")
        color = body.get("color", DEFAULT_LABEL_COLOR)  # like the API: no leading "#"
        name, color, description = self._validate_label(name, color, description)
        if self._find_label(name) is not None:
            raise _invalid("Label", "name", "already_exists")
        label = self._create_label(name, color, description)
        return _Response(201, self._render_label(req.base, label))

    def _label_or_404(self, name: str) -> Label:
        label = self._find_label(name)
        if label is None:
            raise _not_found()
        return label

    def _get_label(self, req: _Request) -> _Response:
        return _Response(200, self._render_label(req.base, self._label_or_404(req.params["name"])))

    def _update_label(self, req: _Request) -> _Response:
        label = self._label_or_404(req.params["name"])
        body = self._object_body(req)
        new_name = body.get("new_name", label.name)
        color = body.get("color", label.color)
        description = body.get("description", label.description)
        clash = self._find_label(new_name) if isinstance(new_name, str) else None
        if clash is not None and clash is not label:
            raise _invalid("Label", "name", "already_exists")
        new_name, color, description = self._validate_label(new_name, color, description)
        old_name = label.name
        del self._labels[old_name]
        label.name, label.color, label.description = new_name, color.lower(), description
        self._labels[new_name] = label
        for issue in self._issues.values():
            issue.labels = sorted(
                (new_name if n == old_name else n for n in issue.labels), key=str.casefold
            )
        return _Response(200, self._render_label(req.base, label))

    def _delete_label(self, req: _Request) -> _Response:
        label = self._label_or_404(req.params["name"])
        del self._labels[label.name]
        for issue in self._issues.values():
            if label.name in issue.labels:
                issue.labels.remove(label.name)
        return _Response(204)

    def _get_permission(self, req: _Request) -> _Response:
        login = req.params["username"]
        role = self._collaborators.role(login)
        if role is None:
            raise _not_found()
        answer = rules.permission_answer(role)
        user = self._render_user(req.base, User(login, "User"))
        user["permissions"] = answer.pop("permissions")
        user["role_name"] = role
        return _Response(200, {**answer, "user": user})

    def _get_workflow(self, req: _Request) -> _Response:
        workflow = self._workflow_or_404(req.params["workflow_id"])
        url = f"{self._api(req.base)}/actions/workflows/{workflow['id']}"
        path = f".github/workflows/{workflow['file']}"
        return _Response(
            200,
            {
                "id": workflow["id"],
                "node_id": f"W_fake{workflow['id']}",
                "name": workflow["file"].rsplit(".", 1)[0],
                "path": path,
                "state": "active",
                "created_at": "2020-01-01T00:00:00Z",
                "updated_at": "2020-01-01T00:00:00Z",
                "url": url,
                "html_url": f"{self._html()}/blob/main/{path}",
                "badge_url": f"{self._html()}/workflows/{workflow['file']}/badge.svg",
            },
        )

    def _create_workflow_dispatch(self, req: _Request) -> _Response:
        workflow = self._workflow_or_404(req.params["workflow_id"])
        body = self._object_body(req)
        ref, inputs = body.get("ref"), body.get("inputs", {})
        if not isinstance(ref, str) or not ref:
            raise ApiError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
        if not isinstance(inputs, dict):
            raise ApiError(422, "Invalid request.\n\nFor 'properties/inputs', is not an object.")
        declared = workflow["inputs"]
        unexpected = sorted(set(inputs) - declared) if declared is not None else []
        if unexpected:
            raise ApiError(422, f"Unexpected inputs provided: {json.dumps(unexpected)}")
        self._dispatches.append(
            DispatchRequest(
                "workflow_dispatch",
                self._stamp(),
                workflow=workflow["file"],
                ref=ref,
                inputs=copy.deepcopy(inputs),
            )
        )
        if body.get("return_run_details"):
            run_id = self._next_id()
            return _Response(
                200,
                {
                    "workflow_run_id": run_id,
                    "run_url": f"{self._api(req.base)}/actions/runs/{run_id}",
                    "html_url": f"{self._html()}/actions/runs/{run_id}",
                },
            )
        return _Response(204)

    def _create_repository_dispatch(self, req: _Request) -> _Response:
        body = self._object_body(req)
        event_type, payload = body.get("event_type"), body.get("client_payload", {})
        if not isinstance(event_type, str) or not event_type:
            raise ApiError(422, 'Invalid request.\n\n"event_type" wasn\'t supplied.')
        if len(event_type) > MAX_EVENT_TYPE_CHARS:
            raise ApiError(
                422,
                "Invalid request.\n\nevent_type is too long "
                f"(maximum is {MAX_EVENT_TYPE_CHARS} characters).",
            )
        if not isinstance(payload, dict):
            raise ApiError(
                422, "Invalid request.\n\nFor 'properties/client_payload', is not an object."
            )
        if len(payload) > MAX_CLIENT_PAYLOAD_KEYS:
            raise ApiError(
                422,
                f"Invalid request.\n\nNo more than {MAX_CLIENT_PAYLOAD_KEYS} "
                f"properties are allowed; {len(payload)} were supplied.",
            )
        self._dispatches.append(
            DispatchRequest(
                "repository_dispatch",
                self._stamp(),
                event_type=event_type,
                client_payload=copy.deepcopy(payload),
            )
        )
        return _Response(204)

    # --- the repository and its pull requests

    def _get_commit(self, req: _Request) -> _Response:
        """``files`` against the first parent, 300 a page (``page``), with a ``Link`` header
        naming the next page while there is one, as GitHub pages a large commit's files."""
        commit = self._git.resolve(req.params["ref"])
        if commit is None:
            raise ApiError(422, f"No commit found for SHA: {req.params['ref']}")
        body = self._render_commit(req.base, commit.oid)
        changes = self._git.changes(commit.oid)
        page = max(_int_param(req.query, "page", 1), 1)
        size = git.COMMIT_FILES_PAGE
        shown = changes[(page - 1) * size : page * size]
        body["stats"] = {"total": 0, "additions": 0, "deletions": 0}
        body["files"] = [self._render_file(req.base, commit.oid, c) for c in shown]
        headers: dict[str, str] = {}
        if page * size < len(changes):
            url = f"{self._api(req.base)}/commits/{commit.oid}?page={page + 1}"
            headers["link"] = f'<{url}>; rel="next"'
        return _Response(200, body, headers)

    def _compare(self, req: _Request) -> _Response:
        """``GET /repos/{owner}/{repo}/compare/{base}...{head}`` by branch or commit id: how
        far `head` is ahead of and behind `base`, with the commits it is ahead by."""
        left, dots, right = req.params["basehead"].partition("...")
        base, head = self._git.resolve(left), self._git.resolve(right)
        if not dots or base is None or head is None:
            raise _not_found()
        mine, theirs = self._git.ancestors(head.oid), self._git.ancestors(base.oid)
        ahead = sorted(mine - theirs, key=lambda o: (self._git.commits[o].when, o))
        behind = len(theirs - mine)
        shared = mine & theirs
        tips = [o for o in shared if not any(o in self._git.commits[c].parents for c in shared)]
        merge_base = max(tips, key=lambda o: (self._git.commits[o].when, o))
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        api = self._api(req.base)
        return _Response(
            200,
            {
                "url": f"{api}/compare/{left}...{right}",
                "html_url": f"{self._html()}/compare/{left}...{right}",
                "base_commit": self._render_commit(req.base, base.oid),
                "merge_base_commit": self._render_commit(req.base, merge_base),
                "status": status,
                "ahead_by": len(ahead),
                "behind_by": behind,
                "total_commits": len(ahead),
                "commits": [self._render_commit(req.base, o) for o in ahead],
                "files": [],
            },
        )

    def _get_ref(self, req: _Request) -> _Response:
        branch = req.params["branch"]
        if branch not in self._git.refs:
            raise _not_found()
        return _Response(200, self._render_ref(req.base, branch))

    def _get_branch(self, req: _Request) -> _Response:
        branch = req.params["branch"]
        oid = self._git.refs.get(branch)
        if oid is None:
            raise ApiError(404, "Branch not found")
        api = self._api(req.base)
        return _Response(
            200,
            {
                "name": branch,
                "commit": self._render_commit(req.base, oid),
                "_links": {
                    "self": f"{api}/branches/{branch}",
                    "html": f"{self._html()}/tree/{branch}",
                },
                "protected": False,
                "protection": {
                    "enabled": False,
                    "required_status_checks": {
                        "enforcement_level": "off",
                        "contexts": [],
                        "checks": [],
                    },
                },
                "protection_url": f"{api}/branches/{branch}/protection",
            },
        )

    def _merge(self, req: _Request) -> _Response:
        """`POST /merges`: 201 with the merge commit, 204 when there is nothing to merge,
        404 for a missing branch, 409 on a conflict (see ``sim.github.git.Git.merge_branches``)."""
        body = self._object_body(req)
        for name in ("base", "head"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise _invalid("Merge", name, "missing_field")
        base, head = body["base"], body["head"]
        message = body.get("commit_message") or f"Merge {head} into {base}"
        if not isinstance(message, str):
            raise _invalid("Merge", "commit_message", "invalid")
        try:
            made = self._git.merge_branches(base, head, message, self.bot_login, self.now)
        except git.GitRefusal as refused:
            raise ApiError(409 if refused.kind == "conflict" else 404, refused.message) from None
        if made is None:
            return _Response(204)
        return _Response(201, self._render_commit(req.base, made.oid))

    def _create_pull(self, req: _Request) -> _Response:
        body = self._object_body(req)
        if not self.actions_may_open_pull_requests:
            error = ApiError(403, pulls.ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS)
            response = error.response()
            response.body["documentation_url"] = CREATE_PULL_DOCS
            return response
        for name in ("title", "head", "base"):
            if not isinstance(body.get(name), str) or not body[name].strip():
                raise _invalid("PullRequest", name, "missing_field")
        owner, colon, branch = body["head"].rpartition(":")
        if colon and owner.casefold() != self.owner.casefold():
            raise _invalid("PullRequest", "head", "invalid")
        if body["base"] not in self._git.refs:
            raise _invalid("PullRequest", "base", "invalid")
        if body["base"] != self._git.default_branch:
            raise ApiError(422, "The fake GitHub opens pull requests to the default branch only")
        draft = body.get("draft", False)
        if not isinstance(draft, bool):
            raise _invalid("PullRequest", "draft", "invalid")
        pull = self._open_pull(branch, body["title"], body.get("body") or "", self._bot, draft)
        return _Response(201, self._render_pull(req.base, pull))

    def _list_pulls(self, req: _Request) -> _Response:
        state = req.query.get("state", "open")
        if state not in ("open", "closed", "all"):
            raise _invalid("PullRequest", "state", "invalid")
        head = req.query.get("head")
        owner, _, branch = (head or "").rpartition(":")
        wanted_base = req.query.get("base")
        pulls = [
            pull
            for pull in self._pulls.values()
            if state in ("all", self._issues[pull.number].state)
            # `head` is `user:ref-name`; another owner's branch is no branch of this repository
            and (
                head is None or (owner.casefold() == self.owner.casefold() and pull.head == branch)
            )
            and (wanted_base is None or pull.base == wanted_base)
        ]
        pulls.sort(
            key=lambda pull: pull.number, reverse=req.query.get("direction", "desc") == "desc"
        )
        return self._paginate(req, pulls, lambda pull: self._render_pull(req.base, pull))

    def _pull_or_404(self, number: int) -> PullRequest:
        pull = self._pulls.get(number)
        if pull is None:
            raise _not_found()
        return pull

    def _get_pull(self, req: _Request) -> _Response:
        pull = self._pull_or_404(int(req.params["number"]))
        return _Response(200, self._render_pull(req.base, pull))

    def _update_pull(self, req: _Request) -> _Response:
        """`PATCH /pulls/{n}`: title, body, state, base (Baton sends only the body)."""
        pull = self._pull_or_404(int(req.params["number"]))
        body = self._object_body(req)
        issue = self._issues[pull.number]
        if "body" in body:
            issue.body = self._body_text("PullRequest", body.get("body"), required=False)
        if "title" in body:
            title = body.get("title")
            if not isinstance(title, str) or not title.strip():
                raise _invalid("PullRequest", "title", "missing_field")
            issue.title = title
        self._store.touch(issue)
        return _Response(200, self._render_pull(req.base, pull))

    def _list_review_comments(self, req: _Request) -> _Response:
        number = self._pull_or_404(int(req.params["number"])).number
        review = self._reviews.get(int(req.params["review_id"]))
        if review is None or review.pull_request != number:
            raise _not_found()
        return self._paginate(
            req, review.comments, lambda c: self._render_review_comment(req.base, review, c)
        )

    def _list_check_runs(self, req: _Request) -> _Response:
        commit = self._git.resolve(req.params["ref"])
        sha = commit.oid if commit is not None else req.params["ref"]
        which = req.query.get("filter", "latest")
        if which not in ("latest", "all"):
            raise _invalid("CheckRun", "filter", "invalid")
        runs = [run for run in self._check_runs if run.head_sha == sha]
        if which == "latest":  # the most recent run of each name
            latest = {run.name: run for run in runs}
            runs = [run for run in runs if latest[run.name] is run]
        if "check_name" in req.query:
            runs = [run for run in runs if run.name == req.query["check_name"]]
        if "status" in req.query:
            runs = [run for run in runs if run.status == req.query["status"]]
        runs.sort(key=lambda run: run.id, reverse=True)  # newest first
        return self._paginate(
            req, runs, lambda run: self._render_check_run(req.base, run), wrap="check_runs"
        )

    def _graphql(self, req: _Request) -> _Response:
        from fakes import github_graphql  # graphql-core: only the GraphQL route needs it

        status, body = github_graphql.answer(self, req.body)
        # GraphQL has an hourly budget of its own (a point per document here); `rate_used`
        # still counts every request, for the primary limit and the tests that drain it.
        self.graphql_used += 1
        return _Response(
            status,
            body,
            {
                "x-ratelimit-resource": "graphql",
                "x-ratelimit-limit": str(self.graphql_limit),
                "x-ratelimit-used": str(self.graphql_used),
                "x-ratelimit-remaining": str(max(self.graphql_limit - self.graphql_used, 0)),
            },
        )


# --------------------------------------------------------------------------- routing table

_REPO = "/repos/{owner}/{repo}"
_ISSUE = _REPO + "/issues/{number:int}"
_COMMENT = _REPO + "/issues/comments/{comment_id:int}"
_PULL = _REPO + "/pulls/{number:int}"

ROUTES: tuple[Route, ...] = tuple(
    Route(method, _compile(template), handler)
    for method, template, handler in [
        ("GET", "/rate_limit", FakeGitHub._get_rate_limit),
        ("GET", "/user", FakeGitHub._get_user),
        ("GET", "/orgs/{org}", FakeGitHub._get_org),
        ("GET", "/orgs/{org}/teams/{team}", FakeGitHub._get_team),
        ("GET", "/orgs/{org}/teams/{team}/memberships/{username}", FakeGitHub._get_team_membership),
        ("GET", _REPO, FakeGitHub._get_repo),
        ("GET", _REPO + "/issues", FakeGitHub._list_issues),
        ("GET", _ISSUE, FakeGitHub._get_issue),
        ("PATCH", _ISSUE, FakeGitHub._update_issue),
        ("GET", _ISSUE + "/comments", FakeGitHub._list_comments),
        ("POST", _ISSUE + "/comments", FakeGitHub._create_comment_handler),
        ("GET", _ISSUE + "/reactions", FakeGitHub._list_issue_reactions),
        ("POST", _ISSUE + "/reactions", FakeGitHub._create_issue_reaction),
        ("GET", _ISSUE + "/labels", FakeGitHub._list_issue_labels),
        ("POST", _ISSUE + "/labels", FakeGitHub._add_issue_labels),
        ("PUT", _ISSUE + "/labels", FakeGitHub._set_issue_labels),
        ("DELETE", _ISSUE + "/labels", FakeGitHub._clear_issue_labels),
        ("DELETE", _ISSUE + "/labels/{name:rest}", FakeGitHub._remove_issue_label),
        ("GET", _ISSUE + "/events", FakeGitHub._list_events),
        ("GET", _ISSUE + "/timeline", FakeGitHub._list_timeline),
        ("GET", _COMMENT, FakeGitHub._get_comment),
        ("PATCH", _COMMENT, FakeGitHub._update_comment),
        ("DELETE", _COMMENT, FakeGitHub._delete_comment),
        ("GET", _COMMENT + "/reactions", FakeGitHub._list_comment_reactions),
        ("POST", _COMMENT + "/reactions", FakeGitHub._create_comment_reaction),
        ("GET", _REPO + "/labels", FakeGitHub._list_labels),
        ("POST", _REPO + "/labels", FakeGitHub._create_label_handler),
        ("GET", _REPO + "/labels/{name:rest}", FakeGitHub._get_label),
        ("PATCH", _REPO + "/labels/{name:rest}", FakeGitHub._update_label),
        ("DELETE", _REPO + "/labels/{name:rest}", FakeGitHub._delete_label),
        ("GET", _REPO + "/collaborators/{username}/permission", FakeGitHub._get_permission),
        ("GET", _REPO + "/actions/workflows/{workflow_id}", FakeGitHub._get_workflow),
        (
            "POST",
            _REPO + "/actions/workflows/{workflow_id}/dispatches",
            FakeGitHub._create_workflow_dispatch,
        ),
        ("POST", _REPO + "/dispatches", FakeGitHub._create_repository_dispatch),
        ("GET", _REPO + "/git/ref/heads/{branch:rest}", FakeGitHub._get_ref),
        ("GET", _REPO + "/branches/{branch:rest}", FakeGitHub._get_branch),
        ("GET", _REPO + "/commits/{ref}/check-runs", FakeGitHub._list_check_runs),
        ("GET", _REPO + "/commits/{ref}", FakeGitHub._get_commit),
        ("GET", _REPO + "/compare/{basehead}", FakeGitHub._compare),
        ("POST", _REPO + "/merges", FakeGitHub._merge),
        ("GET", _REPO + "/pulls", FakeGitHub._list_pulls),
        ("POST", _REPO + "/pulls", FakeGitHub._create_pull),
        ("GET", _PULL, FakeGitHub._get_pull),
        ("PATCH", _PULL, FakeGitHub._update_pull),
        (
            "GET",
            _PULL + "/reviews/{review_id:int}/comments",
            FakeGitHub._list_review_comments,
        ),
        ("POST", GRAPHQL_PATH, FakeGitHub._graphql),
    ]
)


@contextmanager
def _refusing() -> Iterator[None]:
    """GitHub's refusal of a change in the model, as its 422 answer over REST."""
    try:
        yield
    except Refused as refused:
        raise _refused(refused.refusal) from None


def _stamp_of(moment: datetime | None) -> str | None:
    return rules.timestamp(moment) if moment is not None else None


def _user_ref(user: User) -> UserRef:
    return {"login": user.login, "type": user.type}


def _label_view(label: Label) -> LabelState:
    return {
        "id": label.id,
        "name": label.name,
        "color": label.color,
        "description": label.description,
        "default": label.default,
    }


def _reaction_view(reaction: Reaction) -> ReactionState:
    return {
        "id": reaction.id,
        "content": reaction.content,
        "user": _user_ref(reaction.user),
        "created_at": rules.timestamp(reaction.created_at),
    }


def _event_view(event: Event) -> EventState:
    view: EventState = {
        "id": event.id,
        "event": event.kind,
        "actor": _user_ref(event.actor),
        "created_at": rules.timestamp(event.created_at),
    }
    if event.label is not None:
        view["label"] = {"name": event.label[0], "color": event.label[1]}
    if event.rename is not None:
        view["rename"] = {"from": event.rename[0], "to": event.rename[1]}
    return view
