"""GitHub for `baton demo`, `baton simulate` and the tests: the production `GitHubTracker`,
wired in process to GitHub's API over the one model of GitHub (`sim.api`).

A `SimGitHub` IS the client that runs on GitHub (its transport, GraphQL documents, REST calls,
paging and error handling), PyGithub's requester opening an in-process connection
(`sim.api.connection`) instead of a socket: every figure it reports is a real round trip.
`api` is GitHub's side: the state a test seeds and reads back, the request log (`sent`), the
faults (`api.fail`, `api.fail_graphql_field`); `fork()` copies it all to replay a run on.

What humans and CI do (comment, label, close, push, review, merge, report a check run) are the
helpers of the tests and scenarios (`human_comment`, `human_push`, `add_check_run` ...), made on
the model as GitHub's UI makes them; `log` tells them (`#1 +label status:received (human)`).
`calls` counts the client's calls of the `Tracker` seam by name, `on_call` runs before each and
`fail_next` makes the next calls of one raise, as a failure of that call would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from baton.core.model.issue_facts import Comment
from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.lookups import Reads
from baton.github.tracker import ActionTracker, RepositorySetup
from baton.github.transport import Known
from baton.names import BOT_LOGIN
from baton.sim.api.connection import connection_to
from baton.sim.api.face import GitHubApi
from baton.sim.api.faults import Call
from baton.sim.model import rules
from baton.sim.model.git import Git
from baton.sim.model.issues import Comment as StoredComment
from baton.sim.model.issues import Issue, Refused, User, check_body
from baton.sim.model.pulls import CheckRun, PullRequest
from baton.sim.payloads import DispatchRequest

TOKEN = "sim-token"  # the token the client sends and the API checks; no secret
API_URL = "https://api.github.com"  # where the client believes it is (nothing leaves the process)
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# The client's calls of the seam the run loop, the sweep and `baton setup` use (an
# `ActionTracker`, a `RepositorySetup`), and the separate reads one `look_up` makes (`Reads`),
# counted and faulted by name; the clock is no call.
SEAM = tuple(
    sorted(
        {
            name
            for role in (ActionTracker, RepositorySetup, Reads)
            for name in dir(role)
            if not name.startswith("_") and name != "clock" and callable(getattr(role, name, None))
        }
    )
)


class SimGitHub(GitHubTracker):
    """`GitHubTracker` over GitHub's API over the model, in process; with the helpers of what
    humans and CI do on GitHub."""

    def __init__(
        self,
        repo: str = "octo/demo",
        *,
        bot_login: str = BOT_LOGIN,
        now: datetime | None = None,
        labels: Sequence[str] = (),
        graphql: bool = True,
        api: GitHubApi | None = None,
    ) -> None:
        """`labels`: the status labels a run may add (`GitHubTracker`'s: their node ids ride
        on the read); `graphql=False`: the client keeps to REST; `api`: GitHub's side to
        talk to (`fork`), else a new repository."""
        owner, _, name = repo.partition("/")
        start = _utc(now or START)
        self.api = api or GitHubApi(owner, name, token=TOKEN, bot_login=bot_login, now=start)
        super().__init__(
            repo,
            TOKEN,
            api_url=API_URL,
            retry=0,
            labels=labels,
            graphql=graphql,
            bot_login=bot_login,
            connection=connection_to(self.api),
        )
        self.repo = repo
        self._lookups = tuple(dict.fromkeys(labels))
        self._graphql = graphql
        self.log: list[str] = []
        self.calls: Counter[str] = Counter()
        # Called with the seam's name before each call, until cleared (a hook may clear
        # itself): tests interleave a second run here.
        self.on_call: Callable[[str], None] | None = None
        self._in_hook = False
        self._failures: dict[str, list[TrackerError | None]] = {}
        for seam in SEAM:
            method = getattr(self, seam, None)
            if method is not None:
                setattr(self, seam, self._watched(seam, method))

    def _watched(self, seam: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[seam] += 1
            if self.on_call is not None and not self._in_hook:
                self._in_hook = True  # the hook's own calls do not re-enter it
                try:
                    self.on_call(seam)
                finally:
                    self._in_hook = False
            queued = self._failures.get(seam)
            if queued:
                failure = queued.pop(0)
                if failure is not None:
                    raise failure
            return method(*args, **kwargs)

        return call

    def new_run(self) -> None:
        """A new `baton run` (or `report`, `sweep`) process: the client forgets what earlier
        runs' reads learned (node ids, labels looked up, a fall-back to REST), as a fresh
        `GitHubTracker` starts; GitHub's state and the counts stay."""
        self.known = Known(lookups=self._lookups)
        self.transport.graphql = self._graphql
        self.transport.notes.clear()

    def fork(self) -> SimGitHub:
        """A second GitHub as this one is now (`GitHubApi.snapshot`), with a client of the same
        settings, fresh: no faults or hooks; what happens on one does not show on the other."""
        fork = SimGitHub(
            self.repo,
            bot_login=self.bot_login,
            labels=self._lookups,
            graphql=self._graphql,
            api=self.api.snapshot(),
        )
        fork.calls.update(self.calls)
        fork.log.extend(self.log)
        return fork

    def fail_next(
        self, operation: str, error: TrackerError | None = None, times: int = 1, *, after: int = 0
    ) -> None:
        """Make the next `times` calls of the seam's `operation` (`dispatch`, `create_issue`)
        raise before anything is sent, once `after` more have passed."""
        if operation not in SEAM:
            raise ValueError(f"{operation!r} is not a call of the Tracker seam: {SEAM}")
        failure = error or TrackerError(f"injected failure in {operation}")
        self._failures.setdefault(operation, []).extend([None] * after + [failure] * times)

    # --- the model, as the tests and scenarios read it -----------------------------------
    @property
    def now(self) -> datetime:
        return self.api.now

    @now.setter
    def now(self, moment: datetime) -> None:
        self.api.now = _utc(moment)

    def clock(self) -> datetime:
        """The simulated time: what GitHub would stamp now."""
        return self.api.now

    @property
    def git(self) -> Git:
        return self.api._git

    @property
    def issues(self) -> dict[int, Issue]:
        return self.api._issues

    @property
    def comment_store(self) -> dict[int, StoredComment]:
        return self.api._comments

    @property
    def pull_requests(self) -> dict[int, PullRequest]:
        return self.api._pulls

    @property
    def check_runs(self) -> list[CheckRun]:
        return self.api._check_runs

    @property
    def dispatches(self) -> list[DispatchRequest]:
        """The workflow runs Baton dispatched, oldest first (the sim's Actions drain it)."""
        return self.api._dispatches

    @property
    def sent(self) -> list[Call]:
        """Every request the client sent, answered, in order."""
        return self.api.calls()

    def writes_sent(self) -> list[Call]:
        """The requests sent that change something: REST's other than GET, GraphQL mutations."""
        return [call for call in self.sent if call.changes]

    @property
    def actions_may_open_pull_requests(self) -> bool:
        return self.api.actions_may_open_pull_requests

    @actions_may_open_pull_requests.setter
    def actions_may_open_pull_requests(self, allowed: bool) -> None:
        self.api.actions_may_open_pull_requests = allowed

    def labels_of(self, number: int) -> list[str]:
        return list(self.issues[number].labels)

    def comments_of(self, number: int) -> list[Comment]:
        return [_public(c) for c in self.api._store.comments_of(number)]

    def reactions_of(self, comment_id: int) -> list[str]:
        return [reaction.content for reaction in self.comment_store[comment_id].reactions]

    def node_id_of(self, number: int) -> str:
        return self.api.node_id(number)

    def file_at(self, branch: str, path: str) -> str | None:
        return self.api.file_at(branch, path)

    def pull_request_of(self, branch: str) -> int | None:
        """The open pull request from `branch`, if any."""
        found = self.api._work.open_from(branch)
        return found.number if found is not None else None

    def sub_issues_of(self, number: int) -> list[int]:
        return self.api.sub_issues(number)

    def blocked_by_of(self, number: int) -> list[int]:
        return self.api.blocked_by(number)

    def parent_of(self, number: int) -> int | None:
        return self.api.parent_of(number)

    # --- GitHub's JSON of the model, for the webhook payloads (`payloads.Source`) ---------
    def user_json(self, login: str, user_type: str = "User") -> dict[str, Any]:
        return self.api.user_json(login, user_type)

    def repo_json(self) -> dict[str, Any]:
        return self.api.repo_json()

    def label_json(self, name: str) -> dict[str, Any]:
        return self.api.label_json(name)

    def issue_json(self, number: int) -> dict[str, Any]:
        return self.api.issue_json(number)

    def comment_json(self, comment_id: int) -> dict[str, Any]:
        return self.api.comment_json(comment_id)

    def issue_of_comment(self, comment_id: int) -> int:
        return self.api.issue_of_comment(comment_id)

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        return self.api.last_actor(number, event, label)

    # --- what people do on GitHub ---------------------------------------------------------
    def open_issue(
        self,
        title: str,
        body: str = "",
        *,
        author: str = "alice",
        labels: tuple[str, ...] = (),
        association: str = "NONE",
    ) -> int:
        with _refusing():  # labels given at opening are recorded as added by the author
            issue = self.api._store.open(
                title, body, User.named(author), association=association, labels=labels
            )
        number = issue.number
        self.log.append(f"#{number} opened by {author}: {title}")
        return number

    def human_comment(
        self, number: int, body: str, *, author: str, association: str = "NONE", bot: bool = False
    ) -> Comment:
        self._issue(number)
        with _refusing("the comment's "):
            check_body("IssueComment", body)
        kind = "Bot" if bot else "User"
        made = self.api.add_comment(
            number, body, user=author, user_type=kind, association=association
        )
        self.log.append(f"#{number} comment {made['id']} by {author}")
        return _public(self.comment_store[made["id"]])

    def human_edit(self, comment_id: int, body: str, *, by: str | None = None) -> None:
        """Someone edits the comment: its author in the UI by default, or `by`."""
        stored = self.comment_store[comment_id]
        self.api.edit_comment(comment_id, body, by=by or stored.author)
        self.log.append(f"#{stored.issue} comment {comment_id} edited by {by or stored.author}")

    def human_label(
        self, number: int, label: str, *, add: bool = True, by: str | None = None
    ) -> None:
        """`by` (the issue's author unless named) adds or removes `label`."""
        issue = self._issue(number)
        who = User.named(by or issue.author)
        with _refusing():
            if add:
                self.api._store.add_label(issue, label, who)
            else:
                self.api._store.remove_label(issue, label, who)
            self.api._store.touch(issue)
        self.log.append(f"#{number} {'+' if add else '-'}label {label} (human)")

    def human_close(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "closed", by)

    def human_reopen(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "open", by)

    def _set_state(self, number: int, state: str, by: str | None) -> None:
        who = by or self._issue(number).author
        self.api.update_issue(number, actor=who, state=state)
        self.log.append(f"#{number} {'closed' if state == 'closed' else 'reopened'} by {who}")

    def _issue(self, number: int) -> Issue:
        try:
            return self.issues[number]
        except KeyError:
            raise TrackerError(f"issue #{number} does not exist (404)", status=404) from None

    def add_label(
        self, name: str, color: str = rules.DEFAULT_LABEL_COLOR, description: str | None = None
    ) -> None:
        """The repository has the label `name` (made in the UI, say)."""
        if self.api._find_label(name) is not None:
            raise ValueError(f"label {name!r} already exists")
        with _refusing():
            self.api._store.create_label(name, color, description)

    def set_permission(self, login: str, permission: str) -> None:
        """Give `login` a repository role: admin, maintain, write, triage, read or none."""
        self.api.set_permission(login, permission)

    def add_team_member(self, team: str, login: str, *, state: str = "active") -> None:
        """Put `login` in `org/team-slug`."""
        org, _, slug = team.partition("/")
        self.api.add_team_member(org, slug, login, state=state)

    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        self.api.add_sub_issue(parent, child, replace_parent=replace_parent)
        self.log.append(f"#{child} sub-issue of #{parent}")

    def add_blocked_by(self, issue: int, blocking: int) -> None:
        self.api.add_blocked_by(issue, blocking)
        self.log.append(f"#{issue} blocked by #{blocking}")

    def human_push(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str = "A change pushed by hand",
        by: str = "maria",
    ) -> str:
        """`by` pushes one commit to `branch` (a new branch starts at the default branch):
        each path's new text, or None to delete it. Returns the new head."""
        oid = self.api.push(branch, files, message, by=by)
        headline = self.git.commits[oid].headline
        self.log.append(f"push {oid[:7]} to {branch} by {by}: {headline}")
        return oid

    def human_open_pull_request(
        self, branch: str, title: str, *, by: str = "bob", body: str = "", draft: bool = False
    ) -> int:
        """`by` opens a pull request from `branch` to the default branch."""
        return self.api.open_pull_request(branch, title, by=by, body=body, draft=draft)

    def human_review(
        self,
        pull_request: int,
        by: str,
        verdict: str,
        body: str = "",
        notes: Iterable[tuple[str, int | None, str]] = (),
    ) -> int:
        """`by` submits a review (approved, changes_requested or commented) on the pull
        request's current head, with inline notes (path, line, body). Returns its id."""
        review = self.api.review(pull_request, by, verdict, body, notes)
        self.log.append(f"#{pull_request} review {review} {verdict} by {by}")
        return review

    def human_merge(self, pull_request: int, by: str = "maria") -> str:
        """`by` merges the open pull request with a merge commit; returns the commit."""
        commit = self.api.merge(pull_request, by)
        self.log.append(f"#{pull_request} closed by {by}")
        self.log.append(f"#{pull_request} merged by {by}")
        return commit

    def human_close_pr(self, pull_request: int, by: str = "maria") -> None:
        self.api.close_pull_request(pull_request, by)
        self.log.append(f"#{pull_request} closed by {by}")

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
        """CI reports a check run on a commit: a conclusion, or None while it runs."""
        run = self.api.add_check_run(head_sha, name, conclusion, summary, title=title, text=text)
        self.log.append(f"check {name} {conclusion or 'in_progress'} on {head_sha[:7]}")
        return run


def _utc(moment: datetime) -> datetime:
    """GitHub's clock is in UTC, and what the client reads of it too: a time without a zone
    (a scenario's `start: 2000-01-01T00:00:00`) is taken as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


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


def _public(comment: StoredComment) -> Comment:
    """A comment as the client reads it back."""
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
