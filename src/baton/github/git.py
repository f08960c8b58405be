"""The work product's git side over GitHub: branches, commits, merges.

An agent's changeset is one `createCommitOnBranch` mutation, whose `expectedHeadOid` is the
compare-and-swap on the branch head; GitHub signs the commit, and no git credentials are needed.
A branch is created at its base's head by `createRef`; a task branch merges back over REST.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import quote

from baton.core.model.epic import MergeFacts, MergePlan
from baton.errors import CommitRefused, GraphQLUnusable, StaleHead, TrackerError
from baton.github.graphql.answers import STATUS_OF, FieldError, field_errors
from baton.github.graphql.git import (
    BRANCH,
    BRANCH_AND_BASE,
    CREATE_COMMIT,
    CREATE_REF,
    commit_input,
    parse_ref,
    parse_tree,
    qualified,
    tree_document,
)
from baton.github.tracker import (
    BranchHead,
    ChangedFile,
    CommitFacts,
    CommitRequest,
    TreeAsk,
    TreeRead,
)
from baton.github.transport import Role, Transport


def rest_branch(transport: Transport, name: str) -> BranchHead | None:
    """A branch's head over REST (None: no such branch), for a read GraphQL could not take."""
    try:
        _, data = transport.call(
            "GET",
            f"{transport.base}/branches/{quote(name, safe='')}",
            f"reading branch {name}",
        )
    except TrackerError as exc:
        if exc.status == 404:
            return None
        raise
    commit = data.get("commit") or {}
    message = str((commit.get("commit") or {}).get("message") or "")
    return BranchHead(name=str(data.get("name") or name), oid=str(commit["sha"]), message=message)


def commit_facts_of(data: Any, headers: Any) -> CommitFacts | None:
    """A REST commit (`GET /repos/{o}/{r}/commits/{ref}`) as `CommitFacts`; None if it is not
    one. `author` is the GitHub account of the author email (null when none is linked), which
    anyone can write; `committer` is `web-flow` for a commit GitHub made and signed itself."""
    if not isinstance(data, dict) or not isinstance(data.get("sha"), str):
        return None
    files = tuple(
        ChangedFile(
            path=str(f.get("filename") or ""),
            status=str(f.get("status") or ""),
            blob=str(f.get("sha") or ""),
            previous=str(f.get("previous_filename") or ""),
        )
        for f in data.get("files") or []
        if isinstance(f, dict)
    )
    git_commit = data.get("commit") or {}
    verification = git_commit.get("verification") or {}
    author = data.get("author") or {}
    committer = data.get("committer") or {}
    links = {str(k).lower(): str(v) for k, v in (headers or {}).items()}.get("link", "")
    return CommitFacts(
        oid=str(data["sha"]),
        parents=tuple(str(p.get("sha")) for p in data.get("parents") or [] if isinstance(p, dict)),
        files=files,
        verified=verification.get("verified") is True,
        author=str(author.get("login") or "") if isinstance(author, dict) else "",
        more_files='rel="next"' in links,
        committer=str(committer.get("login") or "") if isinstance(committer, dict) else "",
        reason=str(verification.get("reason") or ""),
        message=str(git_commit.get("message") or ""),
    )


class GitHubGit(Role):
    """`tracker.Git` over the transport."""

    def branch(self, name: str) -> BranchHead | None:
        if self.transport.graphql:
            try:
                return self._repository_and_branch(name)[3]
            except GraphQLUnusable as why:
                self.transport.fall_back(why)
        return rest_branch(self.transport, name)

    def _repository_and_branch(self, name: str) -> tuple[str, str, str, BranchHead | None]:
        """(repository node id, default branch, its head, the branch's head or None)."""
        what = f"reading branch {name}"
        variables = {
            "owner": self.transport.owner,
            "name": self.transport.name,
            "ref": qualified(name),
        }
        answer = self.transport.query(BRANCH, variables, what)
        repository = answer["data"].get("repository")
        if not repository:
            error = field_errors(answer).get("repository")
            raise self.transport.refused(
                what, error or FieldError("repository", "NOT_FOUND", "null")
            )
        default = repository.get("defaultBranchRef") or {}
        self.known.default_branch = str(default.get("name") or "") or self.known.default_branch
        found = parse_ref(repository.get("ref"))
        return (
            str(repository["id"]),
            str(default.get("name") or ""),
            str((default.get("target") or {}).get("oid") or ""),
            BranchHead(*found) if found else None,
        )

    def _repository_and_base(self, name: str, base: str) -> tuple[str, str, BranchHead | None]:
        """(repository node id, the head of `base`, the branch's head or None)."""
        what = f"reading branches {name} and {base}"
        variables = {
            "owner": self.transport.owner,
            "name": self.transport.name,
            "ref": qualified(name),
            "base": qualified(base),
        }
        answer = self.transport.query(BRANCH_AND_BASE, variables, what)
        repository = answer["data"].get("repository")
        if not repository:
            error = field_errors(answer).get("repository")
            raise self.transport.refused(
                what, error or FieldError("repository", "NOT_FOUND", "null")
            )
        found, start = parse_ref(repository.get("ref")), parse_ref(repository.get("base"))
        if found is None and start is None:
            raise TrackerError(f"creating branch {name}: there is no branch {base}", status=404)
        return (
            str(repository["id"]),
            start[1] if start else "",
            BranchHead(*found) if found else None,
        )

    def create_branch(self, name: str, base: str | None = None) -> BranchHead:
        if not self.transport.graphql:
            raise TrackerError(f"creating branch {name} needs GitHub's GraphQL API")
        if base is None:
            repository, base, head, found = self._repository_and_branch(name)
        else:
            repository, head, found = self._repository_and_base(name, base)
        if found is not None:
            return self._found_branch(found, head)
        if not head:
            raise TrackerError(f"creating branch {name}: the repository has no default branch")
        what = f"creating branch {name} from {base}"
        variables = {"repository": repository, "ref": qualified(name), "oid": head}
        answer = self.transport.query(CREATE_REF, variables, what, mutation=True)
        created = parse_ref(((answer["data"] or {}).get("createRef") or {}).get("ref"))
        if created is not None:
            return BranchHead(*created, created=True)
        error = field_errors(answer).get("createRef")
        if error is not None and "already exists" in error.message:
            again = self.branch(name)  # created meanwhile (a racing run): use it
            if again is not None:
                return self._found_branch(again, head)
        raise self.transport.refused(what, error or FieldError("createRef", "ERROR", "no ref"))

    def _found_branch(self, found: BranchHead, start: str) -> BranchHead:
        """An existing branch with the commits it carries that `start` (its base's head) lacks:
        REST compare's `ahead_by`, by commit ids (a branch name may hold a `/`)."""
        if not start or found.oid == start:
            return found
        _, data = self.transport.call(
            "GET",
            f"{self.transport.base}/compare/{start}...{found.oid}",
            f"comparing branch {found.name} with its base",
        )
        ahead = data.get("ahead_by") if isinstance(data, dict) else None
        return replace(found, ahead=ahead if isinstance(ahead, int) else 1)

    def commit_facts(self, oid: str) -> CommitFacts | None:
        """REST "get a commit": one call for its parents, files (300 on the first page, the
        `Link` header naming more), GitHub's verification of its signature and its author."""
        try:
            headers, data = self.transport.call(
                "GET",
                f"{self.transport.base}/commits/{quote(oid, safe='')}",
                f"reading commit {oid[:7]}",
            )
        except TrackerError as exc:
            if exc.status in (404, 422):
                return None
            raise
        return commit_facts_of(data, headers)

    def read_tree(self, ask: TreeAsk) -> TreeRead:
        """`BatonTree`: folders' entries and links' targets of commit `ask.base` (GraphQL only:
        REST needs a call per folder and per link, and a commit needs GraphQL anyway)."""
        what = f"reading the tree of {ask.base[:7]}"
        if not self.transport.graphql:
            raise TrackerError(f"{what} needs GitHub's GraphQL API")
        document, variables = tree_document(ask.folders, ask.links)
        where = {"owner": self.transport.owner, "name": self.transport.name, "base": ask.base}
        try:
            answer = self.transport.query(document, where | variables, what)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
        repository = answer["data"].get("repository")
        if not repository:
            error = field_errors(answer).get("repository")
            raise self.transport.refused(
                what, error or FieldError("repository", "NOT_FOUND", "null")
            )
        return TreeRead(*parse_tree(repository.get("baseTree"), ask.folders, ask.links))

    def commit(self, request: CommitRequest) -> str:
        return commit(self.transport, request)

    def merge(self, plan: MergePlan) -> MergeFacts:
        """REST `POST /merges`: 201 with the merge commit, 204 when `head` is in `base`
        already, 409 on a conflict (nothing written), 404 when a branch is missing."""
        what = f"merging {plan.head} into {plan.base}"
        body = {"base": plan.base, "head": plan.head, "commit_message": plan.message}
        try:
            _, data = self.transport.call("POST", f"{self.transport.base}/merges", what, input=body)
        except TrackerError as exc:
            if exc.status == 409:
                return MergeFacts(status="conflict", detail=exc.said or "Merge conflict")
            if exc.status == 404:
                return MergeFacts(status="missing", detail=exc.said or "Not Found")
            raise
        sha = data.get("sha") if isinstance(data, dict) else None
        if isinstance(sha, str) and sha:
            return MergeFacts(status="merged", oid=sha)
        return MergeFacts(status="up_to_date")


def commit(transport: Transport, request: CommitRequest) -> str:
    """One `createCommitOnBranch` (`BatonCommit`)."""
    if not transport.graphql:
        raise TrackerError("a commit needs GitHub's GraphQL API (createCommitOnBranch)")
    what = f"committing to {request.branch}"
    variables = {"input": commit_request_input(transport, request)}
    try:
        answer = transport.query(CREATE_COMMIT, variables, what, mutation=True)
    except GraphQLUnusable as why:
        raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
    return committed_oid(answer, request)


def commit_request_input(transport: Transport, request: CommitRequest) -> dict[str, Any]:
    return commit_input(
        transport.repository,
        request.branch,
        request.expected_head,
        request.headline,
        request.body,
        request.additions,
        request.deletions,
    )


# Field errors that say nothing about the commit itself: a server error or timeout, a rate
# limit, a branch GitHub cannot see yet, a field that did not run. Only a refusal (a path
# missing, a path the token may not write) refuses the changeset.
TRANSIENT_KINDS = frozenset(
    {
        "INTERNAL",
        "SERVICE_UNAVAILABLE",
        "TIMEOUT",
        "RATE_LIMITED",
        "RATE_LIMIT",
        "NOT_FOUND",
        "NOT_RUN",
    }
)
SOMETHING_WENT_WRONG = "Something went wrong while executing your query"


def committed_oid(answer: dict[str, Any], request: CommitRequest) -> str:
    """The commit `createCommitOnBranch` made, or why not: `StaleHead` when the branch moved
    (its compare-and-swap), a plain `TrackerError` when the field failed for a reason of
    GitHub's own (the run fails, its re-run commits), `CommitRefused` when GitHub refused the
    commit itself."""
    commit = ((answer["data"] or {}).get("createCommitOnBranch") or {}).get("commit") or {}
    if isinstance(commit.get("oid"), str):
        return str(commit["oid"])
    error = field_errors(answer).get("createCommitOnBranch") or FieldError(
        "createCommitOnBranch", "ERROR", "no commit in the answer"
    )
    if error.kind == "STALE_DATA" or "Expected branch to point to" in error.message:
        raise StaleHead(
            f"{request.branch} moved since {request.expected_head[:7]}: {error.message}",
            kind=error.kind,
            said=error.message,
        )
    if error.kind in TRANSIENT_KINDS or error.message.startswith(SOMETHING_WENT_WRONG):
        # Nothing said about the commit: the run fails and its re-run commits the changeset.
        raise TrackerError(
            f"GitHub could not make the commit now: {error.kind} {error.message}",
            status=STATUS_OF.get(error.kind, 502),
        )
    # GitHub ran the mutation and refused this commit (nothing written): the changeset is
    # refused, as a changeset failing Baton's own checks is.
    raise CommitRefused(
        f"GitHub refused the commit: {error.kind} {error.message}",
        status=STATUS_OF.get(error.kind, 422),
        kind=error.kind,
        said=error.message,
    )
