"""GitHub in memory: issues, labels, comments with authors, reactions, permissions, dispatches,
and the repository's branches, commits, pull requests, reviews and check runs.

It powers `baton demo` and `baton simulate` and is the one shared fake of the test suite. Every
change is logged in a compact readable form (`#1 +label status:received`), every call is
counted per operation, and `fail_next` makes a named operation raise, for fault tests.

The repository is a `github.git.Git`: `main` starts at a commit of a README, commits carry
their whole tree and the ids git would give them, and a commit whose expected head is stale is
refused as `createCommitOnBranch` refuses it. Pull requests take their numbers from the issues'
sequence, as on GitHub. Sub-issues and "blocked by" edges follow GitHub's rules
(`github.relations.Relations`); a plan's tasks are created in the round trips `GitHubTracker` makes,
and a task branch merges back as the merges API does (`github.git.Git.merge_branches`, with
its conflicts). What humans and CI do to them (`human_push`, `human_review`,
`human_merge`, `human_close_pr`, `add_check_run`) are helpers for tests and scenarios.

What GitHub itself does it takes from `sim/github/`, as the HTTP fake of the tests does: body
and label limits, label names that ignore case, roles by login, ids past 2**31. It renders its
issues, comments and labels as GitHub's JSON (`payloads`), so `payloads` builds a webhook
payload from it exactly as from the HTTP fake.
"""

from __future__ import annotations

import base64
import binascii
import copy
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from baton.core.decision import PullRequestPlan
from baton.core.epic import marker
from baton.core.epic.model import (
    CreatedTask,
    MergeFacts,
    MergePlan,
    NewTask,
    TaskCreationFacts,
    TaskCreationPlan,
)
from baton.core.events import CheckNote, ReviewNote
from baton.core.issue_facts import Comment, IssueInfo
from baton.errors import CommitRefused, PullRequestRefused, StaleHead, TrackerError
from baton.github import graphql as gql
from baton.github.batch_write import FieldResult, Op, write_batched
from baton.github.permission import role_of
from baton.github.tracker import (
    BranchHead,
    ChangedFile,
    CommitFacts,
    CommitRequest,
    DispatchTarget,
    LabelSpec,
    OpenedPullRequest,
    Snapshot,
    SubIssue,
    Writes,
    Written,
)
from baton.sim import payloads
from baton.sim.github import git, pulls, relations, rules
from baton.sim.github.issues import Comment as StoredComment
from baton.sim.github.issues import Issue, Refused, User, check_body
from baton.sim.github.pulls import VERDICTS, CheckRun, PullRequestRefusal, Review
from baton.sim.github.pulls import PullRequest as PullRequest  # scenario.py reads it here
from baton.sim.github.state import GitHubState
from baton.sim.payloads import DispatchRequest

PAGE_SIZE = 100
API = "https://api.github.com"  # where the objects it renders say they live


class MemoryGitHub:
    """One repository's issues and work, held in memory; implements
    `baton.github.tracker.Tracker`."""

    def __init__(
        self,
        repo: str = "octo/demo",
        *,
        bot_login: str = "github-actions[bot]",
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
        # How a failed write inside a document behaves (see `run_batch`); tests set it.
        self.fields_fail_alone = False
        # The repository and its work product.
        self.git = self.state.git
        self.work = self.state.pulls  # pull requests, their reviews, the check runs
        self.pull_requests: dict[int, PullRequest] = self.work.pulls
        self.reviews: dict[int, Review] = self.work.reviews
        self.check_runs: list[CheckRun] = self.work.check_runs
        # "Allow GitHub Actions to create and approve pull requests" (off by default on GitHub;
        # on here, so a test turns it off to see the refusal).
        self.actions_may_open_pull_requests = True
        self.workflows_permission = False  # GITHUB_TOKEN never has it
        # Sub-issues and "blocked by" edges between issues, by number, with GitHub's rules.
        self.relations = self.state.relations

    @property
    def now(self) -> datetime:
        return self.state.now

    @now.setter
    def now(self, moment: datetime) -> None:
        self.state.now = moment

    def clock(self) -> datetime:
        """The simulated time: what GitHub would stamp now."""
        return self.state.now

    # --- set-up helpers (what a human or GitHub itself does) ------------------------------
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

    def human_comment(
        self, number: int, body: str, *, author: str, association: str = "NONE", bot: bool = False
    ) -> Comment:
        comment = self._add_comment(number, body, author=author, bot=bot, association=association)
        self.log.append(f"#{number} comment {comment.id} by {author}")
        return comment

    def human_edit(self, comment_id: int, body: str, *, by: str | None = None) -> None:
        """Someone edits the comment: its author in the UI by default, or `by` (a maintainer,
        another workflow posting as the bot)."""
        stored = self.comment_store[comment_id]
        self.store.edit(stored, body, User.named(by or stored.author))
        self.log.append(f"#{stored.issue} comment {comment_id} edited by {by or stored.author}")

    def human_label(
        self, number: int, label: str, *, add: bool = True, by: str | None = None
    ) -> None:
        """`by` (the issue's author unless named) adds or removes `label`."""
        issue = self._issue(number)
        who = User.named(by or issue.author)
        with _refusing():
            if add:
                self.store.add_label(issue, label, who)
            else:
                self.store.remove_label(issue, label, who)
        self._touch(number)
        self.log.append(f"#{number} {'+' if add else '-'}label {label} (human)")

    def human_close(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "closed", by)

    def human_reopen(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "open", by)

    def add_label(
        self, name: str, color: str = rules.DEFAULT_LABEL_COLOR, description: str | None = None
    ) -> None:
        """The repository has the label `name` (made in the UI, say): Baton need not create it."""
        if self.store.find_label(name) is not None:
            raise ValueError(f"label {name!r} already exists")
        with _refusing():
            self.store.create_label(name, color, description)

    def set_permission(self, login: str, permission: str) -> None:
        """Give `login` a repository role: admin, maintain, write, triage, read or none."""
        self.collaborators.set(login, permission)

    def add_team_member(self, team: str, login: str, *, state: str = "active") -> None:
        """Put `login` in `org/team-slug`."""
        org, _, slug = team.partition("/")
        self.teams.add(org, slug, login, state=state)

    def fail_next(
        self,
        operation: str,
        error: TrackerError | None = None,
        times: int = 1,
        *,
        after: int = 0,
    ) -> None:
        """Make the next `times` calls of `operation` (a method name, or a field of a
        document: `create_issue`, `add_blocked_by`) raise, once `after` more have passed
        (`fail_next("create_issue", after=3)`: the request dies at the fourth task)."""
        failure = error or TrackerError(f"injected failure in {operation}")
        self._failures.setdefault(operation, []).extend([None] * after + [failure] * times)

    # --- sub-issues and dependencies, as a human makes them -----------------------------
    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        """Someone makes `child` a sub-issue of `parent` (GitHub's rules: one parent, at most
        100 sub-issues, not itself); raises `RelationRefusal` as GitHub refuses."""
        self._issue(parent)
        self._issue(child)
        self.relations.add_sub_issue(parent, child, replace_parent=replace_parent)
        self.log.append(f"#{child} sub-issue of #{parent}")

    def add_blocked_by(self, issue: int, blocking: int) -> None:
        """Someone marks `issue` as blocked by `blocking`."""
        self._issue(issue)
        self._issue(blocking)
        self.relations.add_blocked_by(issue, blocking)
        self.log.append(f"#{issue} blocked by #{blocking}")

    def sub_issues_of(self, number: int) -> list[int]:
        return self.relations.sub_issues(number)

    def blocked_by_of(self, number: int) -> list[int]:
        return self.relations.blocked_by(number)

    def parent_of(self, number: int) -> int | None:
        return self.relations.parent(number)

    def node_id_of(self, number: int) -> str:
        """An issue's node id, as GraphQL would give it."""
        return f"I_mem{self._issue(number).id}"

    # --- the repository, as humans and CI change it ----------------------------------------
    def human_push(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str = "A change pushed by hand",
        by: str = "maria",
    ) -> str:
        """`by` pushes one commit to `branch` (a new branch starts at the default branch):
        each path's new text, or None to delete it. Returns the new head; a Baton commit that
        still expects the old one is refused as stale."""
        data = {path: None if text is None else text.encode() for path, text in files.items()}
        commit = self.git.push(branch, data, message, by, self.now)
        self.log.append(f"push {commit.oid[:7]} to {branch} by {by}: {commit.headline}")
        return commit.oid

    def human_open_pull_request(
        self, branch: str, title: str, *, by: str = "bob", body: str = "", draft: bool = False
    ) -> int:
        """`by` opens a pull request from `branch` to the default branch (a stranger's, say)."""
        return self._open(branch, title, body, author=by, draft=draft).number

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
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; expected one of {VERDICTS}")
        found = self._pull(pull_request)
        review = self.work.review(found, User.named(by), verdict, body, notes)
        self.log.append(f"#{found.number} review {review.id} {verdict} by {by}")
        return review.id

    def human_merge(self, pull_request: int, by: str = "maria") -> str:
        """`by` merges the open pull request with a merge commit; returns the commit."""
        found = self._pull(pull_request)
        commit = self.work.merge(found, User.named(by))
        self.log.append(f"#{found.number} closed by {by}")
        self.log.append(f"#{found.number} merged by {by}")
        return commit

    def human_close_pr(self, pull_request: int, by: str = "maria") -> None:
        """`by` closes the pull request without merging it."""
        found = self._pull(pull_request)
        self.work.close(found, User.named(by))
        self.log.append(f"#{found.number} closed by {by}")

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
        """CI reports a check run on a commit: a conclusion (success, failure, timed_out...)
        or None while it runs. A later run of the same name supersedes it."""
        run = self.work.add_check_run(head_sha, name, conclusion, title, summary, text)
        self.log.append(f"check {name} {conclusion or run.status} on {head_sha[:7]}")
        return run.id

    def file_at(self, branch: str, path: str) -> str | None:
        """The text of `path` at the head of `branch` (or at a commit id); None if absent."""
        commit = self.git.resolve(branch)
        if commit is None:
            raise KeyError(branch)
        data = commit.tree.get(path)
        return data.decode() if data is not None else None

    def pull_request_of(self, branch: str) -> int | None:
        """The open pull request from `branch`, if any."""
        found = self._open_pull(branch)
        return found.number if found is not None else None

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

    # --- internals ----------------------------------------------------------------------
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

    # --- the Tracker protocol -----------------------------------------------------------
    def read(self, number: int, *, with_issue: bool, branch: str | None = None) -> Snapshot:
        """Like GitHub's GraphQL query: one round trip, the branch's head included. Its parts
        still pass `on_call` and `fail_next` by their own names (`issue`, `comments`,
        `branch`), so tests can fault or interleave at each."""
        batched = self._one_trip()
        try:
            issue = self.issue(number) if with_issue else None
            comments = self.comments(number)
            head = self.branch(branch) if branch is not None else None
            return Snapshot(issue=issue, comments=comments, branch=head)
        finally:
            self._batched = batched

    def write(self, writes: Writes) -> Written:
        return write_batched(self, writes)

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

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        """The step-by-step fall-back of the document's pull-request fields."""
        batched = self._one_trip()
        try:
            self._set_pull_request_body(plan.node_id, plan.branch, plan.body)
            if plan.ready:
                self._mark_ready(plan.node_id, plan.branch)
        finally:
            self._batched = batched

    def run_batch(self, ops: list[Op], specs: dict[str, LabelSpec]) -> dict[str, FieldResult]:
        """Like a GraphQL mutation document: one round trip whose fields run in order, each
        still passing `on_call` and `fail_next` under its operation's name. A field that fails
        with a 404, or any failure when `fields_fail_alone` is set, is GitHub's failed field:
        the others run and the run redoes it. Otherwise the request dies at that field, as with
        a 5xx or a timeout: nothing after it runs."""
        batched = self._one_trip()
        answers: dict[str, FieldResult] = {}
        try:
            for op in ops:
                try:
                    answers[op.alias] = self._run_op(op, specs)
                except TrackerError as exc:
                    # The pull request's fields come after the record's: GitHub reports their
                    # failure in the answer, and the write redoes them (or says why not).
                    alone = self.fields_fail_alone or op.kind in ("pr_body", "pr_ready")
                    if exc.status != 404 and not alone:
                        raise
                    kind = "NOT_FOUND" if exc.status == 404 else "FAILED"
                    answers[op.alias] = FieldResult(error=kind, message=str(exc))
            return answers
        finally:
            self._batched = batched

    def _run_op(self, op: Op, specs: dict[str, LabelSpec]) -> FieldResult:
        if op.kind == "comment":
            return FieldResult(created=self.create_comment(op.number, op.body))
        if op.kind == "edit" and op.comment_id is not None:
            self.edit_comment(op.comment_id, op.body)
        elif op.kind == "add_labels":
            self.set_labels(op.number, (), op.labels, specs)
        elif op.kind == "remove_labels":
            present = tuple(x for x in op.labels if x in self._issue(op.number).labels)
            self.set_labels(op.number, op.labels, (), specs)
            return FieldResult(labels=present)
        elif op.kind == "react" and op.comment_id is not None:
            self.react(op.comment_id, op.content)
        elif op.kind == "delete" and op.comment_id is not None:
            self.delete_comment(op.comment_id)
        elif op.kind == "pr_body":
            self._set_pull_request_body(op.node_id, "", op.body)
        elif op.kind == "pr_ready":
            self._mark_ready(op.node_id, "")
        return FieldResult()

    def issue(self, number: int) -> IssueInfo:
        self._call("issue")
        found = self._issue(number)
        return IssueInfo(
            number=found.number,
            title=found.title,
            body=found.body,
            state=found.state,
            labels=tuple(found.labels),
            author=found.author,
            is_pull_request=found.is_pull_request,
            updated_at=found.updated_at,
        )

    def comments(self, number: int) -> list[Comment]:
        self._call("comments")
        self._issue(number)
        return self.comments_of(number)

    def comment(self, comment_id: int) -> Comment | None:
        self._call("comment")
        stored = self.comment_store.get(comment_id)
        return self._public(stored) if stored else None

    def permission(self, login: str) -> str:
        self._call("permission")
        role = self.collaborators.role(login)
        if role is None:
            return "none"  # GitHub answers 404: no permission
        # Read through the same reader as the client, from the answer GitHub would give.
        return role_of(rules.permission_answer(role))

    def is_team_member(self, team: str, login: str) -> bool:
        self._call("is_team_member")
        return self.teams.is_active_member(team, login)

    def create_comment(self, number: int, body: str) -> int:
        self._call("create_comment")
        comment = self._add_comment(
            number, body, author=self.bot_login, bot=True, association="NONE"
        )
        self.log.append(f"#{number} comment {comment.id} by {self.bot_login}")
        return comment.id

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call("edit_comment")
        if comment_id not in self.comment_store:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        with _refusing("the comment's "):
            check_body("IssueComment", body)
        stored = self.comment_store[comment_id]
        self.store.edit(stored, body, self.bot)
        self._touch(stored.issue)
        self.log.append(f"#{stored.issue} comment {comment_id} edited")

    def delete_comment(self, comment_id: int) -> None:
        self._call("delete_comment")
        stored = self.comment_store.pop(comment_id, None)
        if stored is None:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        self.log.append(f"#{stored.issue} comment {comment_id} deleted")

    def react(self, comment_id: int, content: str) -> None:
        self._call("react")
        stored = self.comment_store.get(comment_id)
        if stored is None:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        if content not in rules.REACTIONS:
            raise TrackerError(f"{content!r} is not a reaction GitHub knows (422)", status=422)
        if self.store.react(stored.reactions, content, self.bot)[1]:
            self.log.append(f"#{stored.issue} comment {comment_id} reaction {content}")

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        self._call("set_labels")
        issue = self._issue(number)
        self._touch(number)
        for name in [x for x in current if x not in wanted]:
            removed = self.store.remove_label(issue, name, self.bot)
            if removed is not None:
                self.log.append(f"#{number} -label {removed}")
        for name in [x for x in wanted if x not in current]:
            spec = specs.get(name)
            if spec is not None and self.store.find_label(name) is None:
                with _refusing(f"label {name!r}: "):
                    self.store.create_label(name, spec.color, spec.description)
                self.log.append(f"label {name} created ({spec.color})")
            if rules.find_label(issue.labels, name) is None:
                with _refusing():
                    added = self.store.add_label(issue, name, self.bot)
                self.log.append(f"#{number} +label {added}")

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None:
        self._call("dispatch")
        self.dispatches.append(
            DispatchRequest(
                "workflow_dispatch",
                rules.timestamp(self.now),
                workflow=target.workflow,
                ref=target.ref,
                inputs=copy.deepcopy(inputs),
            )
        )
        self.log.append(f"dispatch {target.workflow}@{target.ref} {inputs}")

    def failing_issues(self, label: str, since: datetime, limit: int) -> int:
        self._call("failing_issues")
        wanted = label.casefold()
        found = [
            n
            for n, issue in self.issues.items()
            if issue.state == "open"
            and any(x.casefold() == wanted for x in issue.labels)
            and (issue.updated_at is None or issue.updated_at >= since)
        ]
        return min(len(found), max(1, min(limit, 100)))

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        self._call("open_issues")
        epoch = datetime.min.replace(tzinfo=UTC)
        numbers = sorted(
            (n for n, i in self.issues.items() if i.state == "open"),
            key=lambda n: (self.issues[n].updated_at or epoch, n),
        )
        start = (page - 1) * PAGE_SIZE
        chunk = numbers[start : start + PAGE_SIZE]
        infos = [
            IssueInfo(
                number=n,
                title=self.issues[n].title,
                state="open",
                labels=tuple(self.issues[n].labels),
                author=self.issues[n].author,
                is_pull_request=self.issues[n].is_pull_request,
                updated_at=self.issues[n].updated_at,
            )
            for n in chunk
        ]
        more = start + PAGE_SIZE < len(numbers)
        return infos, (page + 1 if more else None)

    # --- the work product: branches, commits, pull requests ---------------------------------
    def branch(self, name: str) -> BranchHead | None:
        """Like GraphQL `repository.ref`: the head and its message, or None (no error)."""
        self._call("branch")
        oid = self.git.head(name)
        if oid is None:
            return None
        return BranchHead(name=name, oid=oid, message=self.git.commits[oid].message)

    def create_branch(self, name: str, base: str | None = None) -> BranchHead:
        """Two round trips as over GraphQL: the head of `base` (the default branch unless
        named) and whether `name` exists (`create_branch` in `calls`), then `createRef`
        (`create_ref`); when the branch is there already, none or REST's compare of its head
        with the head of `base` (`compare`) for the commits it carries that `base` lacks."""
        self._call("create_branch")
        start_at = self.git.head(base or self.git.default_branch)
        head = self.git.head(name)
        if head is not None:
            return self._found_branch(name, head, start_at)
        if start_at is None:
            raise TrackerError(f"creating branch {name}: there is no branch {base}", status=404)
        self._call("create_ref")  # the second round trip: a test may race it here
        try:
            self.git.create_branch(name, start_at)
        except git.GitRefusal as refused:
            now = self.git.head(name)
            if refused.kind != "exists" or now is None:
                raise TrackerError(refused.message, status=422) from None
            # created meanwhile (a racing run): used, as the client does
            return self._found_branch(name, now, start_at)
        self.log.append(f"branch {name} created at {start_at[:7]}")
        message = self.git.commits[start_at].message
        return BranchHead(name=name, oid=start_at, message=message, created=True)

    def _found_branch(self, name: str, head: str, start_at: str | None) -> BranchHead:
        ahead = 0
        if start_at is not None and head != start_at:
            self._call("compare")
            ahead = self.git.ahead_of(start_at, head)
        message = self.git.commits[head].message
        return BranchHead(name=name, oid=head, message=message, ahead=ahead)

    def commit_facts(self, oid: str) -> CommitFacts | None:
        """REST "get a commit": one round trip (`commit_facts`); what GitHub made itself is
        verified and committed by `web-flow`, a pushed commit is neither (its committer is its
        pusher); the author is the login that made it."""
        self._call("commit_facts")
        commit = self.git.commits.get(oid)
        if commit is None:
            return None
        files = tuple(
            ChangedFile(f.path, f.status, f.blob, f.previous) for f in self.git.changes(oid)
        )
        return CommitFacts(
            oid=oid,
            parents=commit.parents,
            files=files[: git.COMMIT_FILES_PAGE],
            verified=commit.signed,
            author=commit.author,
            more_files=len(files) > git.COMMIT_FILES_PAGE,
            committer="web-flow" if commit.signed else commit.author,
            reason="valid" if commit.signed else "unsigned",
            message=commit.message,
        )

    def commit(self, request: CommitRequest) -> str:
        """`createCommitOnBranch`: one round trip, all or nothing, as the bot."""
        self._call("commit")
        additions: dict[str, bytes] = {}
        for path, contents in request.additions:
            try:
                additions[path] = base64.b64decode(contents, validate=True)
            except (binascii.Error, ValueError):
                raise CommitRefused(
                    f"the contents of {path} are not base64 (UNPROCESSABLE)", status=422
                ) from None
        message = request.headline + (f"\n\n{request.body}" if request.body else "")
        try:
            made = self.git.commit(
                request.branch,
                expected_head=request.expected_head,
                additions=additions,
                deletions=request.deletions,
                message=message,
                author=self.bot_login,
                email=f"{rules.GITHUB_ACTIONS_BOT_ID}+{self.bot_login}@users.noreply.github.com",
                when=self.now,
                workflows=self.workflows_permission,
            )
        except git.GitRefusal as refused:
            if refused.kind == "stale":
                raise StaleHead(refused.message, head=refused.head) from None
            status = {"no_branch": 404, "workflow": 403}.get(refused.kind, 422)
            raise CommitRefused(refused.message, status=status) from None
        files = len(additions) + len(request.deletions)
        self.log.append(
            f"commit {made.oid[:7]} on {request.branch} ({files} files): {made.headline}"
        )
        return made.oid

    def open_pull_request(self, plan: PullRequestPlan) -> OpenedPullRequest:
        """The open pull request from the branch (one round trip, `open_pull_request` in
        `calls`), else a new draft (a second, `create_pull_request`):
        as GitHub answers `POST /pulls`, refused with its message when Actions may not open
        pull requests, when the branch has no commits the base lacks, or when a body is too
        long."""
        self._call("open_pull_request")
        found = self._open_pull(plan.branch)
        if found is None:
            self._call("create_pull_request")  # `POST /pulls`, after the lookup
            if not self.actions_may_open_pull_requests:
                raise PullRequestRefused(pulls.ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS, status=403)
            found = self._open(
                plan.branch, plan.title, plan.body, author=self.bot_login, draft=True
            )
        return OpenedPullRequest(number=found.number, node_id=found.node_id)

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        self._call("review_notes")
        review = self.reviews.get(review_id)
        if review is None or review.pull_request != pull_request:
            raise TrackerError(
                f"review {review_id} on #{pull_request} does not exist (404)", status=404
            )
        return [ReviewNote(path=c.path, line=c.line, body=c.body) for c in review.comments]

    def failing_checks(self, head: str) -> list[CheckNote]:
        """The latest run of each check on `head` (GitHub's `filter=latest`) that failed."""
        self._call("failing_checks")
        latest: dict[str, CheckRun] = {}
        for run in self.check_runs:
            if run.head_sha == head:
                latest[run.name] = run
        return [
            CheckNote(name=run.name, summary=pulls.check_summary(run.title, run.summary))
            for run in latest.values()
            if run.conclusion in pulls.FAILED_CONCLUSIONS
        ]

    # --- epics: sub-issues, several issues at once, creating tasks, merging -----------------
    def _sub_issue(self, epic: int, number: int) -> SubIssue:
        issue = self.issues[number]
        mark = marker.read(issue.body) if issue.author == self.bot_login else None
        return SubIssue(
            number=number,
            node_id=self.node_id_of(number),
            open=issue.state == "open",
            labels=tuple(issue.labels[: gql.SUB_ISSUE_LABELS]),
            author=issue.author,
            marker=mark[1] if mark is not None and mark[0] == epic else None,
            blocked_by=tuple(self.relations.blocked_by(number)[: gql.BLOCKERS]),
        )

    def sub_issues(self, number: int) -> list[SubIssue]:
        """One round trip, as GitHubTracker's one query (`sub_issues` in `calls`)."""
        self._call("sub_issues")
        self._issue(number)
        return [self._sub_issue(number, n) for n in self.relations.sub_issues(number)]

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        """One round trip for every issue's first 100 comments (`read_many` in `calls`), one
        more per further page of an issue with more; an issue that is not there (or is a pull
        request: GraphQL's `issue(number:)` finds none) is left out."""
        wanted = list(dict.fromkeys(numbers))
        if not wanted:
            return {}
        self._call("read_many")
        read: dict[int, Snapshot] = {}
        for number in wanted:
            issue = self.issues.get(number)
            if issue is None or issue.is_pull_request:
                continue
            comments = self.comments_of(number)
            for _ in range(PAGE_SIZE, len(comments), PAGE_SIZE):
                self._call("comments")  # the next page, by cursor
            read[number] = Snapshot(issue=None, comments=comments)
        return read

    def create_tasks(self, plan: TaskCreationPlan) -> TaskCreationFacts:
        """The round trips GitHubTracker makes: one query (`create_tasks` in `calls`), one per
        label the repository lacks (`create_label`), one document per 20 missing tasks (its
        fields `create_issue`), one per 20 missing edges (`add_blocked_by`). A field failed by
        `fail_next` kills its request there, as a 5xx would (what ran stays); GitHub's own
        refusals fail their field only, and the run stops after that document."""
        epic = plan.epic
        keys = {task.key for task in plan.tasks}
        unknown = sorted({k for edge in plan.edges for k in edge} - keys)
        if unknown:
            raise TrackerError(
                f"creating the tasks of #{epic}: the edges name tasks the plan lacks: {unknown}"
            )
        self._call("create_tasks")
        if self._issue(epic).is_pull_request:
            raise TrackerError(f"#{epic} is not an issue (NOT_FOUND)", status=404)
        tasks: dict[str, SubIssue] = {}
        for number in self.relations.sub_issues(epic):
            sub = self._sub_issue(epic, number)
            if sub.marker is not None and sub.marker not in tasks:
                tasks[sub.marker] = sub
        missing = [task for task in plan.tasks if task.key not in tasks]
        for name in dict.fromkeys(x for task in missing for x in task.labels):
            if self.store.find_label(name) is None:
                self._call("create_label")
                with _refusing():
                    self.store.label_for(name)
                self.log.append(f"label {name} created")
        size = gql.TASKS_PER_DOCUMENT
        for start in range(0, len(missing), size):
            tasks |= self._create_chunk(epic, missing[start : start + size])
        edges = [
            (blocked, blocking)
            for blocked, blocking in dict.fromkeys(plan.edges)
            if tasks[blocking].number not in tasks[blocked].blocked_by
        ]
        for start in range(0, len(edges), size):
            self._add_edges(epic, edges[start : start + size], tasks)
        return TaskCreationFacts(
            created=[
                CreatedTask(
                    key=task.key, number=tasks[task.key].number, node_id=tasks[task.key].node_id
                )
                for task in plan.tasks
            ]
        )

    def _create_chunk(self, epic: int, chunk: list[NewTask]) -> dict[str, SubIssue]:
        batched = self._one_trip()
        made: dict[str, SubIssue] = {}
        refused: list[str] = []
        try:
            for task in chunk:
                self._call("create_issue")
                try:
                    self.relations.check_sub_issue(epic)
                except relations.RelationRefusal as refusal:
                    refused.append(f"{task.key}: UNPROCESSABLE {refusal.message}")
                    continue
                body = gql.task_body(epic, task.key, task.body)
                number = self.open_issue(
                    task.title, body, author=self.bot_login, labels=task.labels
                )
                self.relations.add_sub_issue(epic, number)
                self.log.append(f"#{number} sub-issue of #{epic}")
                made[task.key] = self._sub_issue(epic, number)
        finally:
            self._batched = batched
        if refused:
            raise TrackerError(
                f"GitHub refused creating {len(refused)} of {len(chunk)} tasks of #{epic} "
                f"(GraphQL), {refused[0].replace(':', ' first:', 1)}",
                status=422,
            )
        return made

    def _add_edges(
        self, epic: int, edges: list[tuple[str, str]], tasks: dict[str, SubIssue]
    ) -> None:
        batched = self._one_trip()
        refused: list[str] = []
        try:
            for blocked, blocking in edges:
                self._call("add_blocked_by")
                issue, by = tasks[blocked].number, tasks[blocking].number
                try:
                    self.relations.add_blocked_by(issue, by)
                except relations.RelationRefusal as refusal:
                    if refusal.message != relations.ALREADY_BLOCKED_MESSAGE:  # added meanwhile
                        refused.append(f"{blocked} blocked by {blocking}: {refusal.message}")
                    continue
                self.log.append(f"#{issue} blocked by #{by}")
        finally:
            self._batched = batched
        if refused:
            raise TrackerError(
                f"GitHub refused {len(refused)} of {len(edges)} dependencies of the tasks of "
                f"#{epic} (GraphQL), {refused[0].replace(':', ' first: UNPROCESSABLE', 1)}",
                status=422,
            )

    def merge(self, plan: MergePlan) -> MergeFacts:
        """REST `POST /merges`: one round trip (`merge` in `calls`), as the bot."""
        self._call("merge")
        try:
            made = self.git.merge_branches(
                plan.base, plan.head, plan.message, self.bot_login, self.now
            )
        except git.GitRefusal as refused:
            status = "conflict" if refused.kind == "conflict" else "missing"
            return MergeFacts(status=status, detail=refused.message)
        if made is None:
            return MergeFacts(status="up_to_date")
        self.log.append(f"merge {made.oid[:7]} of {plan.head} into {plan.base}")
        return MergeFacts(status="merged", oid=made.oid)

    # --- GitHub's JSON, for `payloads` (the `payloads.Source` protocol) --------------------
    def user_json(self, login: str, user_type: str = "User") -> dict[str, Any]:
        return payloads.user_object(API, login, user_type, self._user_ids.of(login))

    def repo_json(self) -> dict[str, Any]:
        owner = self.user_json(self.repo.split("/", 1)[0], "Organization")
        open_issues = sum(1 for issue in self.issues.values() if issue.state == "open")
        return payloads.repository_object(
            API, self.repo, owner, open_issues=open_issues, now=rules.timestamp(self.now)
        )

    def label_json(self, name: str) -> dict[str, Any]:
        label = self.store.find_label(name)
        if label is None:
            raise KeyError(name)
        return payloads.label_object(
            API,
            self.repo,
            label_id=label.id,
            name=label.name,
            color=label.color,
            description=label.description,
        )

    def issue_json(self, number: int) -> dict[str, Any]:
        issue = self._issue(number)
        stamp = rules.timestamp
        created = issue.created_at or self.now
        return payloads.issue_object(
            API,
            self.repo,
            issue_id=issue.id,
            number=number,
            title=issue.title,
            body=issue.body,
            state=issue.state,
            state_reason=issue.state_reason,
            user=self.user_json(issue.author, rules.user_type(issue.author)),
            labels=[self.label_json(name) for name in issue.labels],
            comments=len(self.store.comments_of(number)),
            created_at=stamp(created),
            updated_at=stamp(issue.updated_at or created),
            closed_at=stamp(issue.closed_at) if issue.closed_at else None,
            author_association=issue.association,
            reactions=(),
            is_pull_request=issue.is_pull_request,
        )

    def comment_json(self, comment_id: int) -> dict[str, Any]:
        stored = self.comment_store[comment_id]
        kind = stored.author_type
        return payloads.comment_object(
            API,
            self.repo,
            comment_id=comment_id,
            number=stored.issue,
            user=self.user_json(stored.author, kind),
            body=stored.body,
            created_at=rules.timestamp(stored.created_at),
            updated_at=rules.timestamp(stored.updated_at or stored.created_at),
            author_association=stored.association,
            reactions=[reaction.content for reaction in stored.reactions],
            by_actions=kind == "Bot" and stored.author == self.bot_login,
        )

    def issue_of_comment(self, comment_id: int) -> int:
        return self.comment_store[comment_id].issue

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        for item in reversed(self._issue(number).events):
            named = [item.label[0]] if item.label else []
            if item.kind == event and (label is None or rules.find_label(named, label)):
                return item.actor.login, item.actor.type
        return None


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
