"""The `Tracker` calls on the work product: branches, commits (`createCommitOnBranch`), pull
requests, their reviews, failing checks and the check runs Baton posts.
"""

from __future__ import annotations

import base64
import binascii

from baton.core.model.decision import CheckPlan, PullRequestPlan
from baton.core.model.events import CheckNote, LaterCommit, Lineage, ReviewNote
from baton.core.model.issue_facts import Actor
from baton.errors import CommitRefused, PullRequestRefused, StaleHead, TrackerError
from baton.github.tracker import (
    BranchHead,
    ChangedFile,
    CommitFacts,
    CommitRequest,
    FirstCommit,
    OpenedPullRequest,
    PostedCheck,
    TreeAsk,
    TreeRead,
)
from baton.sim.memory.base import MemoryBase
from baton.sim.model import git, pulls, rules
from baton.sim.model.pulls import CheckRun

COMPARE_PAGE = 100  # the commits of a compare the client asks for (`per_page`)


class WorkCalls(MemoryBase):
    """Branches, commits and pull requests, as the `Tracker` asks."""

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

    def read_tree(self, ask: TreeAsk) -> TreeRead:
        """GraphQL's `Commit.tree` and `Commit.file(path:)`: one round trip (`read_tree`);
        nothing known when the commit is not there."""
        self._call("read_tree")
        commit = self.git.commits.get(ask.base)
        if commit is None:
            return TreeRead()
        folders = {f: _tuple(commit.entries(f)) for f in ask.folders}
        return TreeRead(folders, {path: _target(commit.entry(path)) for path in ask.links})

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

    def commit_opening(self, request: CommitRequest, plan: PullRequestPlan) -> FirstCommit:
        """One round trip, as one GraphQL document: `commit`, then `createPullRequest`
        (`create_pull_request`), which GitHub runs even when the commit failed."""
        batched = self._one_trip()
        try:
            try:
                oid = self.commit(request)
            except (StaleHead, CommitRefused) as failed:
                return FirstCommit("", self._try_open(plan)[0], failed=failed)
            return FirstCommit(oid, *self._try_open(plan))
        finally:
            self._batched = batched

    def _try_open(self, plan: PullRequestPlan) -> tuple[OpenedPullRequest | None, str]:
        self._call("create_pull_request")
        if not self.actions_may_open_pull_requests:
            return None, pulls.ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS
        found = self._open_pull(plan.branch)
        if found is not None:  # GitHub: "already exists"; the run looks it up (REST)
            batched, self._batched = self._batched, False
            self._call("open_pull_request")  # a round trip of its own
            self._batched = batched
            return OpenedPullRequest(number=found.number, node_id=found.node_id), ""
        try:
            made = self._open(plan.branch, plan.title, plan.body, author=self.bot_login, draft=True)
        except PullRequestRefused as refused:
            return None, str(refused)
        return OpenedPullRequest(number=made.number, node_id=made.node_id), ""

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        """The step-by-step fall-back of the document's pull-request fields."""
        batched = self._one_trip()
        try:
            self._set_pull_request_body(plan.node_id, plan.branch, plan.body)
            if plan.ready:
                self._mark_ready(plan.node_id, plan.branch)
        finally:
            self._batched = batched

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

    def create_check_run(self, plan: CheckPlan) -> PostedCheck:
        """REST `POST /check-runs` (`create_check_run` in `calls`): completed with the plan's
        conclusion, or GitHub's 422 for a field or a commit the repository lacks."""
        self._call("create_check_run")
        try:
            run = self.work.create_check_run(
                plan.commit,
                plan.name,
                conclusion=plan.conclusion,
                title=plan.title,
                summary=plan.summary,
                external_id=plan.external_id,
            )
        except pulls.CheckRunRefusal as refused:
            raise TrackerError(refused.message, status=422, said=refused.message) from None
        self.log.append(f"check {plan.name} {plan.conclusion} on {plan.commit[:7]} posted")
        return PostedCheck(id=run.id, url=f"https://github.com/{self.state.repo}/runs/{run.id}")

    def check_runs_on(self, head_sha: str) -> list[CheckRun]:
        """Every check run on a commit, newest first, as a test or a scenario reads them."""
        return self.work.runs_on(head_sha)

    def lineage(self, base: str, commit: str) -> Lineage:
        """REST compare `base...commit`, its first page of 100 commits (`lineage` in `calls`):
        a commit the repository lacks is GitHub's 404, which lacks `base` too."""
        self._call("lineage")
        if base not in self.git.commits or commit not in self.git.commits:
            return Lineage(base=base, behind=1)
        ahead, behind, _ = self.git.compare(base, commit)
        later = []
        for oid in ahead[:COMPARE_PAGE]:
            account = self.git.commits[oid].account
            author = None
            if account is not None:
                author = Actor(login=account, is_bot=rules.user_type(account) == "Bot")
            later.append(LaterCommit(oid=oid, author=author))
        return Lineage(base=base, behind=behind, commits=tuple(later), total=len(ahead))


def _tuple(entries: list[tuple[str, str]] | None) -> tuple[tuple[str, str], ...] | None:
    return tuple(entries) if entries is not None else None


def _target(entry: tuple[str, bytes | None] | None) -> str | None:
    """A link's target as GitHub's `Blob.text` gives it: None when no link or no UTF-8."""
    if entry is None or entry[0] != git.SYMLINK_MODE or entry[1] is None:
        return None
    try:
        return entry[1].decode("utf-8")
    except UnicodeDecodeError:
        return None
