"""The issue's pull request over GitHub: opened (REST), updated, its reviews and checks."""

from __future__ import annotations

from urllib.parse import quote

from baton.core.model.decision import PullRequestPlan
from baton.core.model.events import CheckNote, LaterCommit, Lineage, ReviewNote
from baton.core.model.issue_facts import Actor
from baton.core.rules.triage import FAILED_CONCLUSIONS
from baton.errors import (
    CommitRefused,
    GraphQLUnusable,
    PullRequestRefused,
    StaleHead,
    TrackerError,
)
from baton.github.git import commit, commit_request_input, committed_oid
from baton.github.graphql.answers import field_errors
from baton.github.graphql.git import COMMIT_OPENING, pull_request_input
from baton.github.graphql.mutation import Mutation
from baton.github.tracker import CommitRequest, FirstCommit, OpenedPullRequest
from baton.github.transport import PER_PAGE, Role

CHECK_TEXT = 800  # characters of a failing check's output handed on


class GitHubPullRequests(Role):
    """`tracker.PullRequests` over the transport."""

    def _default(self) -> str:
        if self.known.default_branch is None:
            _, data = self.transport.call("GET", self.transport.base, "reading the repository")
            self.known.default_branch = str(data.get("default_branch") or "main")
        return self.known.default_branch

    def open_pull_request(self, plan: PullRequestPlan) -> OpenedPullRequest:
        base = self._default()
        body = {"title": plan.title, "head": plan.branch, "base": base, "body": plan.body}
        try:
            _, data = self.transport.call(
                "POST",
                f"{self.transport.base}/pulls",
                f"opening a pull request from {plan.branch}",
                once=True,
                input=body | {"draft": True},
            )
        except TrackerError as exc:
            text = str(exc)
            if exc.status == 422 and "already exists" in text:
                existing = self._open_pull_request_of(plan.branch)
                if existing is not None:
                    return existing
            if exc.status in (403, 422):
                raise PullRequestRefused(text, status=exc.status) from None
            raise
        return OpenedPullRequest(number=int(data["number"]), node_id=str(data["node_id"]))

    def commit_opening(self, request: CommitRequest, plan: PullRequestPlan) -> FirstCommit:
        """One mutation document: the commit, then `createPullRequest` from its branch. Without
        the repository's node id and default branch from this run's read, two requests."""
        repository, base = self.known.repository_node, self.known.default_branch
        if not self.transport.graphql or not repository or not base:
            oid = commit(self.transport, request)
            try:
                return FirstCommit(oid, self.open_pull_request(plan))
            except PullRequestRefused as exc:
                return FirstCommit(oid, None, str(exc))
        what = f"committing to {request.branch} and opening its pull request"
        variables = {
            "input": commit_request_input(self.transport, request),
            "pullRequest": pull_request_input(repository, base, plan.branch, plan.title, plan.body),
        }
        try:
            answer = self.transport.query(COMMIT_OPENING, variables, what, mutation=True)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
        made = ((answer["data"] or {}).get("createPullRequest") or {}).get("pullRequest") or {}
        opened = None
        if isinstance(made.get("number"), int):
            opened = OpenedPullRequest(int(made["number"]), str(made["id"]))
        try:
            oid = committed_oid(answer, request)
        except (StaleHead, CommitRefused) as failed:
            return FirstCommit("", opened, failed=failed)
        if opened is not None:
            return FirstCommit(oid, opened)
        error = field_errors(answer).get("createPullRequest")
        said = error.message if error is not None else "no pull request in the answer"
        if error is not None and error.kind in ("FORBIDDEN", "UNPROCESSABLE"):
            if "already exists" in said:
                existing = self._open_pull_request_of(plan.branch)
                if existing is not None:
                    return FirstCommit(oid, existing)
            refused = self.transport.refused("opening a pull request", error)
            return FirstCommit(oid, None, str(refused))
        # Anything else (GitHub failed the field): the step's own REST call, once.
        try:
            return FirstCommit(oid, self.open_pull_request(plan))
        except PullRequestRefused as exc:
            return FirstCommit(oid, None, str(exc))

    def _open_pull_request_of(self, branch: str) -> OpenedPullRequest | None:
        _, data = self.transport.call(
            "GET",
            f"{self.transport.base}/pulls",
            f"finding the pull request of {branch}",
            parameters={"head": f"{self.transport.owner}:{branch}", "state": "open"},
        )
        for item in data or []:
            return OpenedPullRequest(number=int(item["number"]), node_id=str(item["node_id"]))
        return None

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        if plan.number is not None:
            self.transport.call(
                "PATCH",
                f"{self.transport.base}/pulls/{plan.number}",
                f"updating pull request #{plan.number}",
                input={"body": plan.body},
            )
        if plan.ready and plan.node_id and self.transport.graphql:
            doc = Mutation()
            doc.mark_ready("ready", plan.node_id)
            answer = self.transport.query(
                doc.document(), doc.variables, "marking the pull request ready", mutation=True
            )
            error = field_errors(answer, doc.aliases).get("ready")
            if error is not None:
                raise self.transport.refused("marking the pull request ready", error)

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        _, data = self.transport.call(
            "GET",
            f"{self.transport.base}/pulls/{pull_request}/reviews/{review_id}/comments",
            f"reading review {review_id} of #{pull_request}",
            parameters={"per_page": PER_PAGE},
        )
        notes = []
        for item in data or []:
            line = item.get("line") or item.get("original_line")
            notes.append(
                ReviewNote(
                    path=str(item.get("path") or ""),
                    line=int(line) if isinstance(line, int) else None,
                    body=str(item.get("body") or ""),
                )
            )
        return notes

    def failing_checks(self, head: str) -> list[CheckNote]:
        _, data = self.transport.call(
            "GET",
            f"{self.transport.base}/commits/{quote(head, safe='')}/check-runs",
            f"reading the checks of {head[:7]}",
            parameters={"filter": "latest", "per_page": PER_PAGE},
        )
        failing = []
        for run in (data or {}).get("check_runs") or []:
            if run.get("conclusion") not in FAILED_CONCLUSIONS:
                continue
            output = run.get("output") or {}
            parts = [str(output.get(k) or "").strip() for k in ("title", "summary", "text")]
            summary = "\n".join(p for p in parts if p)
            failing.append(
                CheckNote(name=str(run.get("name") or "check"), summary=summary[:CHECK_TEXT])
            )
        return failing

    def lineage(self, base: str, commit: str) -> Lineage:
        """REST compare `base...commit`, one page of its commits (oldest first): each one's
        `author` is the account GitHub links the commit's author to, or null."""
        try:
            _, data = self.transport.call(
                "GET",
                f"{self.transport.base}/compare/{quote(base, safe='')}...{quote(commit, safe='')}",
                f"comparing {commit[:7]} with Baton's last commit {base[:7]}",
                parameters={"per_page": PER_PAGE},
            )
        except TrackerError as exc:
            if exc.status == 404:  # a commit GitHub does not know (or no common history)
                return Lineage(base=base, behind=1)
            raise
        data = data if isinstance(data, dict) else {}
        later = []
        for item in data.get("commits") or []:
            account = item.get("author")
            author = None
            if isinstance(account, dict) and account.get("login"):
                author = Actor(login=str(account["login"]), is_bot=account.get("type") == "Bot")
            later.append(LaterCommit(oid=str(item.get("sha") or ""), author=author))
        behind, total = data.get("behind_by"), data.get("total_commits")
        return Lineage(
            base=base,
            behind=behind if isinstance(behind, int) else 1,
            commits=tuple(later),
            total=total if isinstance(total, int) else len(later),
        )
