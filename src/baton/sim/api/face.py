"""GitHub's API over the model of GitHub: the REST routes and ``POST /graphql`` that Baton's
production client (`GitHubTracker`, PyGithub's requester) talks to, in process for `baton demo`,
`baton simulate` and most tests (`sim.api.connection`, `sim.sim_github`), over a real socket for
the integration tests (tests/fakes/http_server.py serves the same `handle`).

State lives in memory behind one lock (`baton.sim.model.state.GitHubState`); answers are
GitHub-shaped JSON built from it. Tests and scenarios seed state with helpers (``add_issue``,
``label_by``...), run Baton against it, then inspect state and the request log (``calls``). The
repository is a ``baton.sim.model.git.Git`` (``main`` at a commit of a README, commits with
git's ids); pull requests share the issues' numbers, and what humans and CI do to them are
helpers too (``push``, ``open_pull_request``, ``review``, ``merge``, ``close_pull_request``,
``add_check_run``). ``fail`` queues faults (5xx, secondary rate limit, 404, slow answers) to
test error handling. ``POST /graphql`` is GitHub's GraphQL API over the same state
(``graphql_api``, graphql-core, against GitHub's published schema).

What GitHub itself does (limits, label names that ignore case, how the permission API answers,
ids past 2**31) comes from ``baton.sim.model``; the issue, comment, label, user and repository
objects come from ``baton.sim.payloads``, which builds the webhook payloads from it too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from baton.sim.api import graphql_api
from baton.sim.api.faults import Call, Fault, FieldFault, error_response
from baton.sim.api.rest_git import GitRoutes
from baton.sim.api.rest_issues import IssueRoutes
from baton.sim.api.rest_labels import LabelRoutes
from baton.sim.api.rest_pulls import PullRoutes
from baton.sim.api.rest_repository import RepositoryRoutes
from baton.sim.api.rest_settings import SettingsRoutes
from baton.sim.api.routes import ROUTES
from baton.sim.api.views import (
    CommentState,
    EventState,
    IssueState,
    LabelState,
    PullState,
    ReactionState,
    UserRef,
    _event_view,
    _label_view,
    _stamp_of,
    _user_ref,
)
from baton.sim.api.wire import _refusing, _Request, _Response
from baton.sim.model import pulls, rules
from baton.sim.model.issues import User
from baton.sim.model.rules import DEFAULT_LABEL_COLOR, REACTIONS, ROLES
from baton.sim.payloads import REPOSITORY_ID, DispatchRequest

__all__ = [
    "REACTIONS",
    "REPOSITORY_ID",
    "ROLES",
    "Call",
    "CommentState",
    "DispatchRequest",
    "EventState",
    "Fault",
    "FieldFault",
    "GitHubApi",
    "IssueState",
    "LabelState",
    "PullState",
    "ReactionState",
    "UserRef",
]


class GitHubApi(IssueRoutes, LabelRoutes, PullRoutes, GitRoutes, RepositoryRoutes, SettingsRoutes):
    """GitHub for one repository, held in memory, answered as its REST and GraphQL API."""

    routes = ROUTES

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

    def push(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str = "A change pushed by hand",
        *,
        by: str = "maria",
        email: str = "",
        links: Iterable[str] = (),
    ) -> str:
        """``by`` pushes one commit to ``branch`` (new branches start at the default one):
        each path's text, or None to delete it; authored at ``email`` when given (an address
        GitHub links to no account); the paths of ``links`` are symbolic links (mode 120000),
        their text the target. Returns the new head."""
        with self._lock:
            data = {path: None if text is None else text.encode() for path, text in files.items()}
            return self._git.push(branch, data, message, by, self.now, email=email, links=links).oid

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

    def check_runs_on(self, head_sha: str) -> list[dict[str, Any]]:
        """Every check run on a commit, newest first, as `GET /commits/{sha}/check-runs?
        filter=all` gives them."""
        with self._lock:
            runs = self._work.runs_on(head_sha)
            return [self._render_check_run(self.api_base, run) for run in runs]

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

    @property
    def dispatches(self) -> list[DispatchRequest]:
        with self._lock:
            return list(self._dispatches)

    @property
    def api_base(self) -> str:
        """The fake's URL when started, else api.github.com (payloads built offline)."""
        return self.url

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

    def _graphql(self, req: _Request) -> _Response:
        status, body = graphql_api.answer(self, req.body)
        # GraphQL has an hourly budget of its own (a point per document here); `rate_used`
        # still counts every request, for the primary limit and the tests that drain it.
        self.graphql_used += 1
        died = error_response(status).headers if status != 200 else {}  # retry-after on a 403
        return _Response(
            status,
            body,
            {
                **died,
                "x-ratelimit-resource": "graphql",
                "x-ratelimit-limit": str(self.graphql_limit),
                "x-ratelimit-used": str(self.graphql_used),
                "x-ratelimit-remaining": str(max(self.graphql_limit - self.graphql_used, 0)),
            },
        )
