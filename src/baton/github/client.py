"""The Tracker on the real GitHub API, through PyGithub. The only module importing it.

A run reads with one GraphQL query (the issue, its labels, its comments 100 a page, the node ids
of the status labels) and writes with one GraphQL mutation document (record, labels, message,
reaction, in that order, and the pull request's body); the concurrency check is one small
query. An agent's changeset is one `createCommitOnBranch` mutation, whose `expectedHeadOid` is the
compare-and-swap on the branch head; GitHub signs the commit, and no git credentials are needed.
An epic's sub-issues are one query; several tasks' comments one document of aliased issues; a
plan's tasks are created as sub-issues (`createIssue` with `parentIssueId`: created and linked
in one step) 20 to a document, then their "blocked by" edges (`addBlockedBy`) 20 to a document,
after one query that finds the tasks already made by the mark in their body (trusted on the
bot's own issues only) and the edges already there. A task branch merges back over REST.
REST serves what GraphQL cannot do or does not do better (opening the pull request, a review's
comments, check runs): permissions, team membership, creating a status label with its
colour the first time, the workflow dispatch, the sweep's listing. Should GraphQL answer that it
cannot take a document at all (nothing ran: a GitHub Enterprise Server without a field, an
exhausted GraphQL budget), the run goes on over REST, one call per step, and says so.

PyGithub's `GithubRetry` retries 5xx answers and secondary rate limits (honouring
`retry-after`) — but a mutation document only on a rate limit, since a 502 may come after GitHub
ran part of it. Whatever still fails becomes a `TrackerError` whose message names the call and
GitHub's answer, never the token.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

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
from baton.core.triage import FAILED_CONCLUSIONS
from baton.errors import (
    CommitRefused,
    GraphQLUnusable,
    PullRequestRefused,
    StaleHead,
    TrackerError,
)
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
from github import Auth, Github, GithubException, GithubRetry

PER_PAGE = 100
RETRIED_METHODS = frozenset({"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"})
DEFAULT_COLOUR = "ededed"  # what GitHub gives a label created implicitly by adding it
# A spent hourly budget is not waited out (up to an hour of a runner): the run fails, saying so,
# and the sweep or the next event picks the issue up.
MAX_RATE_LIMIT_WAIT = 120.0
CHECK_TEXT = 800  # characters of a failing check's output handed on
# Whose task marks are trusted: the bot's own issues. GITHUB_TOKEN writes as github-actions[bot]
# (`workflow.config.DEFAULT_BOT_LOGIN`); a GitHub App token needs its own login passed in.
BOT_LOGIN = "github-actions[bot]"


def _said(data: Any) -> str:
    """GitHub's message, with the details a 422 keeps in `errors` ("A pull request already
    exists for ...", "No commits between ...")."""
    if not isinstance(data, dict):
        return ""
    parts = [str(data.get("message") or "")]
    for error in data.get("errors") or []:
        detail = error.get("message") or error.get("code") if isinstance(error, dict) else error
        if detail:
            parts.append(str(detail))
    return ": ".join(p for p in parts if p)


def _info(data: dict[str, Any]) -> IssueInfo:
    return IssueInfo(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        state=str(data.get("state") or "open"),
        labels=tuple(str(label.get("name")) for label in data.get("labels") or []),
        author=str((data.get("user") or {}).get("login") or ""),
        is_pull_request=bool(data.get("pull_request")),
        updated_at=_when(data["updated_at"]) if data.get("updated_at") else None,
    )


def _when(value: str | None) -> datetime:
    return datetime.fromisoformat((value or "1970-01-01T00:00:00Z").replace("Z", "+00:00"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _commit_facts(data: Any, headers: Any) -> CommitFacts | None:
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


def _comment(item: dict[str, Any]) -> Comment:
    user = item.get("user") or {}
    return Comment(
        id=int(item["id"]),
        author=str(user.get("login") or ""),
        body=str(item.get("body") or ""),
        created_at=_when(item.get("created_at")),
        author_is_bot=user.get("type") == "Bot",
        association=str(item.get("author_association") or "NONE"),
        updated_at=_when(item["updated_at"]) if item.get("updated_at") else None,
    )


class GitHubTracker:
    """`baton.github.tracker.Tracker` over PyGithub's requester (retries, pagination, errors)."""

    def __init__(
        self,
        repository: str,
        token: str,
        *,
        api_url: str = "https://api.github.com",
        seconds_between_writes: float = 0.0,
        timeout: int = 15,
        retry: GithubRetry | int | None = None,
        secondary_rate_wait: float = 30.0,
        labels: Sequence[str] = (),
        graphql: bool = True,
        bot_login: str = BOT_LOGIN,
    ) -> None:
        """`labels`: the status labels a run may add, whose node ids the read looks up so that
        adding one costs nothing more; `graphql=False` keeps to REST; `bot_login`: the account
        the token writes as, whose sub-issues' task marks are trusted."""
        if repository.count("/") != 1:
            raise TrackerError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        self.repository = repository
        self._base = f"/repos/{repository}"

        # Two requesters write (REST calls, mutation documents), each paced on its own: each
        # waits twice the pause, so together they keep to the rate asked for.
        paced = 2 * seconds_between_writes

        def requester(retrying: GithubRetry, pause: float) -> Any:
            return Github(
                auth=Auth.Token(token),
                base_url=api_url.rstrip("/"),
                timeout=timeout,
                per_page=PER_PAGE,
                retry=retry if retry is not None else retrying,
                seconds_between_requests=0,
                seconds_between_writes=pause,
                lazy=True,
            ).requester

        # REST: 5xx and rate limits retried, never after a read timeout (GitHub may have applied
        # the write, and a second POST would post the comment twice; a lost message is re-posted
        # by the outbox); PATCH too, as Baton's PATCHes (record, a label's style) are idempotent.
        self._requester = requester(
            GithubRetry(
                total=3,
                read=0,
                secondary_rate_wait=secondary_rate_wait,
                max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
                allowed_methods=RETRIED_METHODS,
            ),
            paced,
        )
        # GraphQL queries: retried like REST reads, and not paced (POSTs PyGithub would take
        # for writes). Mutation documents: retried on a rate limit only (GitHub ran nothing),
        # never on a 5xx, after which GitHub may have run part of the document.
        self._reader = requester(
            GithubRetry(
                total=3,
                read=0,
                secondary_rate_wait=secondary_rate_wait,
                max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
            ),
            0.0,
        )
        self._writer = requester(
            GithubRetry(
                total=3,
                read=0,
                status_forcelist=[],
                secondary_rate_wait=secondary_rate_wait,
                max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
            ),
            paced,
        )
        self.requests = 0  # API calls made (REST and GraphQL), for the summary and benchmarks
        self.graphql_requests = 0
        self.budget: dict[str, tuple[int, int]] = {}  # what is left of the hour: resource ->
        # (remaining, limit), from the last answer of each
        self.graphql = graphql
        self.notes: list[str] = []  # what a run should tell its reader (a fall-back to REST)
        self._owner, self._name = repository.split("/")
        self._lookups = tuple(dict.fromkeys(labels))  # looked up by the read, for the writes
        self._issue_nodes: dict[int, str] = {}
        self._comment_nodes: dict[int, str] = {}
        self._label_nodes: dict[str, str] = {}
        self._label_styles: dict[str, gql.LabelFound] = {}
        self._issue_labels: dict[int, set[str]] = {}  # casefolded, as the last read saw them
        self._removing: dict[str, tuple[str, ...]] = {}  # a document's removals -> their labels
        self._default_branch: str | None = None
        self.bot_login = bot_login

    # --- plumbing -------------------------------------------------------------------------
    def _call(
        self, verb: str, path: str, what: str, *, once: bool = False, **kwargs: Any
    ) -> tuple[dict[str, Any], Any]:
        """One REST call. `once`: not retried after a 5xx, which GitHub may answer after it
        created the comment (a second POST would post it twice; the outbox re-posts a message
        that truly never landed)."""
        self.requests += 1
        requester = self._writer if once else self._requester
        try:
            headers, data = requester.requestJsonAndCheck(verb, path, **kwargs)
        except GithubException as exc:
            said = _said(exc.data)
            raise TrackerError(
                f"GitHub refused {what} ({verb} {path}): {exc.status} {said}".rstrip(),
                status=exc.status,
                said=said,
            ) from None
        except OSError as exc:  # connection refused, timeouts (requests wraps them in OSError)
            raise TrackerError(f"GitHub unreachable for {what} ({verb} {path}): {exc}") from None
        self._note_budget(headers, "core")
        return headers, data

    def _note_budget(self, headers: Any, default: str) -> None:
        """GitHub says on every answer what is left of the hour, per budget (REST's `core`,
        `graphql`): the run reports it, so a maintainer sees what Baton costs."""
        if not isinstance(headers, dict):
            return
        lower = {str(k).lower(): str(v) for k, v in headers.items()}
        remaining, limit = lower.get("x-ratelimit-remaining"), lower.get("x-ratelimit-limit")
        if remaining and limit and remaining.isdigit() and limit.isdigit():
            resource = lower.get("x-ratelimit-resource") or default
            self.budget[resource] = (int(remaining), int(limit))

    def _query(
        self, document: str, variables: dict[str, Any], what: str, *, mutation: bool = False
    ) -> dict[str, Any]:
        """One GraphQL document; the answer's `data` and per-field `errors` are the caller's."""
        requester = self._writer if mutation else self._reader
        self.requests += 1
        self.graphql_requests += 1
        try:
            headers, answer = requester.requestJsonAndCheck(
                "POST",
                self._requester.graphql_url,
                input={"query": document, "variables": variables},
            )
        except GithubException as exc:
            if exc.status in (404, 410):  # no GraphQL endpoint here
                raise GraphQLUnusable(f"{exc.status} from the GraphQL endpoint") from None
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            raise TrackerError(
                f"GitHub refused {what} (GraphQL): {exc.status} {message or ''}".rstrip(),
                status=exc.status,
                said=str(message or ""),
            ) from None
        except OSError as exc:
            raise TrackerError(f"GitHub unreachable for {what} (GraphQL): {exc}") from None
        self._note_budget(headers, "graphql")
        if not isinstance(answer, dict):
            raise TrackerError(f"GitHub answered {what} (GraphQL) with no JSON object")
        if answer.get("data") is not None:
            return answer
        errors = [e for e in answer.get("errors") or [] if isinstance(e, dict)]
        first = str(errors[0].get("message")) if errors else "no data in the answer"
        refused = "data" not in answer  # refused before running: the spec leaves `data` out
        limited = any(str(e.get("type")) in ("RATE_LIMITED", "RATE_LIMIT") for e in errors)
        if refused or limited or not mutation:
            # Nothing ran (a document this server does not know, a spent GraphQL budget), or
            # it was only a read (an error while reading: REST reads this one again).
            raise GraphQLUnusable(first, lasting=refused or limited)
        # `data: null` from a mutation is an error during execution (GitHub's "Something went
        # wrong while executing your query"): part of the document may have run, so it is not
        # sent again over REST; the run fails and the next one repairs, as after a 502.
        raise TrackerError(f"GitHub could not finish {what} (GraphQL): {first}")

    def _fall_back(self, why: GraphQLUnusable) -> None:
        if why.lasting:
            self.graphql = False
            self.notes.append(f"GraphQL could not be used ({why}); this run went on over REST")
        else:
            self.notes.append(f"a GraphQL read failed ({why}); it was read over REST instead")

    @staticmethod
    def _refused(what: str, error: gql.FieldError) -> TrackerError:
        return TrackerError(
            f"GitHub refused {what} (GraphQL): {error.kind} {error.message}",
            status=gql.STATUS_OF.get(error.kind),
            kind=error.kind,
            said=error.message,
        )

    def clock(self) -> datetime:
        """The runner's clock, which GitHub-hosted runners keep synced with GitHub's."""
        return datetime.now(UTC)

    # --- reads ---------------------------------------------------------------------------
    def read(self, number: int, *, with_issue: bool, branch: str | None = None) -> Snapshot:
        if self.graphql:
            try:
                return self._read_graphql(number, branch)
            except GraphQLUnusable as why:
                self._fall_back(why)
                # What an earlier read cached for this issue is stale now: its writes go over
                # REST, which needs no node ids and filters nothing by what was seen.
                self._issue_nodes.pop(number, None)
                self._issue_labels.pop(number, None)
        return Snapshot(
            issue=self.issue(number) if with_issue else None,
            comments=self.comments(number),
            branch=self._branch_rest(branch) if branch else None,
        )

    def _read_graphql(self, number: int, branch: str | None) -> Snapshot:
        what = f"reading #{number}"
        where = {"owner": self._owner, "name": self._name, "number": number, "after": None}
        lookups = {f"l{i}": name for i, name in enumerate(self._lookups)}
        if branch:
            lookups["ref"] = gql.qualified(branch)
        document = gql.read_document(len(self._lookups), branch=bool(branch))
        answer = self._query(document, where | lookups, what)
        errors = gql.field_errors(answer)
        found = gql.parse_read(answer["data"], self._lookups)
        if found is None:
            error = errors.get("repository") or gql.FieldError("repository", "NOT_FOUND", "null")
            raise self._refused(what, error)
        if errors:
            raise self._refused(what, next(iter(errors.values())))
        self._issue_nodes[number] = found.issue_node
        self._comment_nodes.update(found.comment_nodes)
        self._label_nodes.update(found.label_nodes)
        self._label_styles.update(found.styles)
        self._issue_labels[number] = {x.casefold() for x in found.issue.labels}
        self._lookups = ()  # once per process: a sweep's later reads skip the lookups
        comments = self._rest_of_comments(number, found.comments, found.next_page, what)
        if found.default_branch:
            self._default_branch = found.default_branch
        head = BranchHead(*found.branch) if found.branch else None
        return Snapshot(issue=found.issue, comments=comments, branch=head)

    def _rest_of_comments(
        self, number: int, comments: list[Comment], after: str | None, what: str
    ) -> list[Comment]:
        """The pages of comments after the first, 100 at a time, by cursor."""
        where = {"owner": self._owner, "name": self._name, "number": number}
        while after is not None:
            page = self._query(gql.COMMENTS_PAGE, where | {"after": after}, what)
            issue = (page["data"].get("repository") or {}).get("issueOrPullRequest")
            failed = gql.field_errors(page)
            if failed or not issue:
                # A missing page would read like a lost record or an approval never given.
                error = next(iter(failed.values()), gql.FieldError("", "NOT_FOUND", "no issue"))
                raise self._refused(f"{what} (comments after {len(comments)})", error)
            more, nodes, after = gql.parse_comments(issue.get("comments") or {})
            comments.extend(more)
            self._comment_nodes.update(nodes)
        return comments

    # --- reads ---------------------------------------------------------------------------
    def issue(self, number: int) -> IssueInfo:
        _, data = self._call("GET", f"{self._base}/issues/{number}", f"reading issue #{number}")
        return _info(data)

    def comments(self, number: int) -> list[Comment]:
        found: list[Comment] = []
        page = 1
        while True:
            headers, data = self._call(
                "GET",
                f"{self._base}/issues/{number}/comments",
                f"listing the comments of #{number}",
                parameters={"per_page": PER_PAGE, "page": page},
            )
            found.extend(_comment(item) for item in data or [])
            if 'rel="next"' not in str(headers.get("link", "")):
                return found
            page += 1

    def comment(self, comment_id: int) -> Comment | None:
        node = self._comment_nodes.get(comment_id)
        if self.graphql and node is not None:
            # Read back through the API that read it first, so the bodies compare equal.
            try:
                return self._comment_graphql(comment_id, node)
            except GraphQLUnusable as why:
                self._fall_back(why)
        try:
            _, item = self._call(
                "GET", f"{self._base}/issues/comments/{comment_id}", f"reading comment {comment_id}"
            )
        except TrackerError as exc:
            if exc.status == 404:
                return None
            raise
        return _comment(item)

    def _comment_graphql(self, comment_id: int, node: str) -> Comment | None:
        what = f"reading comment {comment_id}"
        answer = self._query(gql.COMMENT_BODY, {"id": node}, what)
        found = gql.parse_comment(answer["data"].get("node"))
        if found is None:
            error = gql.field_errors(answer).get("node")
            if error is None or error.kind == "NOT_FOUND":
                return None
            raise self._refused(what, error)
        return found

    def permission(self, login: str) -> str:
        try:
            _, data = self._call(
                "GET",
                f"{self._base}/collaborators/{quote(login, safe='')}/permission",
                f"looking up {login}'s permission",
            )
        except TrackerError as exc:
            if exc.status == 404:  # not a user GitHub knows: no permission at all
                return "none"
            raise
        return role_of(data)

    def is_team_member(self, team: str, login: str) -> bool:
        org, _, slug = team.partition("/")
        try:
            _, data = self._call(
                "GET",
                f"/orgs/{quote(org)}/teams/{quote(slug)}/memberships/{quote(login, safe='')}",
                f"checking {login} in team {team}",
            )
        except TrackerError as exc:
            if exc.status == 404:
                return False
            raise
        return bool(data.get("state") == "active")

    def failing_issues(self, label: str, since: datetime, limit: int) -> int:
        _, data = self._call(
            "GET",
            f"{self._base}/issues",
            "counting the issues whose agents are failing",
            parameters={
                "state": "open",
                "labels": label,
                "since": since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "per_page": max(1, min(limit, 100)),
            },
        )
        return len(data or [])

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        headers, data = self._call(
            "GET",
            f"{self._base}/issues",
            "listing open issues",
            parameters={
                "state": "open",
                "sort": "updated",  # least recently updated first: what waited longest
                "direction": "asc",
                "per_page": PER_PAGE,
                "page": page,
            },
        )
        issues = [_info(item) for item in data or []]
        more = 'rel="next"' in str(headers.get("link", ""))
        return issues, (page + 1 if more else None)

    # --- writes --------------------------------------------------------------------------
    def write(self, writes: Writes) -> Written:
        return write_batched(self, writes)

    def run_batch(self, ops: list[Op], specs: dict[str, LabelSpec]) -> dict[str, FieldResult]:
        """The ops as one mutation document, by node ids from the read. An op it cannot address
        (a comment or a label the read did not see) is left out, and `write_batched` does it
        over REST; so is everything when GraphQL is off or will not take the document."""
        answers: dict[str, FieldResult] = {}
        number = ops[0].number
        issue = self._issue_nodes.get(number)
        if not self.graphql or issue is None:
            return answers
        doc = gql.Mutation()
        self._removing = {}
        for op in ops:
            self._add_op(doc, op, issue, specs, answers)
        if not doc.fields:
            return answers
        try:
            answer = self._query(
                doc.document(), doc.variables, f"writing to #{number}", mutation=True
            )
        except GraphQLUnusable as why:
            self._fall_back(why)  # nothing ran: every op goes over REST
            return answers
        data, errors = answer["data"], gql.field_errors(answer, doc.aliases)
        for alias in doc.aliases:
            error = errors.get(alias)
            if error is not None:
                answers[alias] = FieldResult(error=error.kind, message=error.message)
                continue
            created = gql.created_id(data, alias)
            if created is not None:
                self._comment_nodes[created[0]] = created[1]
            answers[alias] = FieldResult(
                created=created[0] if created else None, labels=self._removing.get(alias, ())
            )
        for op in ops:
            if op.kind in ("add_labels", "remove_labels") and not answers[op.alias].ok:
                for label in op.labels:  # a stale id: look the label up again next time
                    self._label_nodes.pop(label.casefold(), None)
        return answers

    def _add_op(
        self,
        doc: gql.Mutation,
        op: Op,
        issue: str,
        specs: dict[str, LabelSpec],
        answers: dict[str, FieldResult],
    ) -> None:
        comment = self._comment_nodes.get(op.comment_id) if op.comment_id is not None else None
        if op.kind == "comment":
            doc.add_comment(op.alias, issue, op.body)
        elif op.kind == "edit" and comment is not None:
            doc.update_comment(op.alias, comment, op.body)
        elif op.kind == "react" and comment is not None:
            doc.add_reaction(op.alias, comment, op.content)
        elif op.kind == "delete" and comment is not None:
            doc.delete_comment(op.alias, comment)
        elif op.kind == "pr_body" and op.node_id:
            doc.update_pull_request(op.alias, op.node_id, op.body)
        elif op.kind == "pr_ready" and op.node_id:
            doc.mark_ready(op.alias, op.node_id)
        elif op.kind == "add_labels":
            doc.add_labels(op.alias, issue, [self._label_node(x, specs.get(x)) for x in op.labels])
        elif op.kind == "remove_labels":
            # Only labels the read saw on the issue: GitHub may refuse to remove an absent one.
            on_issue = self._issue_labels.get(op.number, set())
            sent = tuple(
                x
                for x in op.labels
                if x.casefold() in on_issue and x.casefold() in self._label_nodes
            )
            if sent:
                doc.remove_labels(op.alias, issue, [self._label_nodes[x.casefold()] for x in sent])
                self._removing[op.alias] = sent
            elif all(x.casefold() not in on_issue for x in op.labels):
                answers[op.alias] = FieldResult()  # none of them is on the issue: nothing to do

    def _label_node(self, name: str, spec: LabelSpec | None) -> str:
        """The node id of a label to add: looked up by the read, else created (with its colour
        and description when it is a status label), once per repository."""
        key = name.casefold()
        known = self._label_nodes.get(key)
        style = self._label_styles.pop(key, None)
        if known is not None:
            if spec and style and style.color.lower() == DEFAULT_COLOUR and not style.description:
                # Made grey by hand or by an older run: style it. A courtesy, never a failure.
                with contextlib.suppress(TrackerError):
                    self._style_label(spec)
            return known
        color = spec.color if spec else DEFAULT_COLOUR
        body = {"name": name, "color": color, "description": spec.description if spec else ""}
        try:
            _, data = self._call(
                "POST", f"{self._base}/labels", f"creating label {name}", input=body
            )
        except TrackerError as exc:
            if exc.status != 422:  # 422: it exists after all (created meanwhile); read it
                raise
            _, data = self._call(
                "GET", f"{self._base}/labels/{quote(name, safe='')}", f"reading label {name}"
            )
        self._label_nodes[key] = str(data["node_id"])
        return self._label_nodes[key]

    def _remove_label(self, number: int, label: str) -> None:
        try:
            self._call(
                "DELETE",
                f"{self._base}/issues/{number}/labels/{quote(label, safe='')}",
                f"removing {label} from #{number}",
            )
        except TrackerError as exc:
            if exc.status != 404:  # already gone: the difference is applied
                raise

    def create_comment(self, number: int, body: str) -> int:
        _, data = self._call(
            "POST",
            f"{self._base}/issues/{number}/comments",
            f"commenting on #{number}",
            once=True,
            input={"body": body},
        )
        return int(data["id"])

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call(
            "PATCH",
            f"{self._base}/issues/comments/{comment_id}",
            f"updating comment {comment_id}",
            input={"body": body},
        )

    def delete_comment(self, comment_id: int) -> None:
        self._call(
            "DELETE", f"{self._base}/issues/comments/{comment_id}", f"deleting comment {comment_id}"
        )

    def react(self, comment_id: int, content: str) -> None:
        self._call(
            "POST",
            f"{self._base}/issues/comments/{comment_id}/reactions",
            f"reacting to comment {comment_id}",
            input={"content": content},
        )

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        add = [label for label in wanted if label not in current]
        remove = [label for label in current if label not in wanted]
        # Add first: an issue briefly carrying two status labels is repaired by the next run,
        # one carrying none would look like it left the workflow.
        if add:
            _, data = self._call(
                "POST",
                f"{self._base}/issues/{number}/labels",
                f"labelling #{number}",
                input={"labels": add},
            )
            for label in data or []:
                name = str(label.get("name"))
                spec = specs.get(name)
                if (
                    spec
                    and str(label.get("color")).lower() == DEFAULT_COLOUR
                    and not label.get("description")
                ):
                    self._style_label(spec)
        for label in remove:
            self._remove_label(number, label)

    def _style_label(self, spec: LabelSpec) -> None:
        """First use of a status label: GitHub created it grey; give it its colour and text."""
        self._call(
            "PATCH",
            f"{self._base}/labels/{quote(spec.name, safe='')}",
            f"styling label {spec.name}",
            input={"color": spec.color, "description": spec.description},
        )

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None:
        self._call(
            "POST",
            f"{self._base}/actions/workflows/{quote(target.workflow, safe='')}/dispatches",
            f"starting workflow {target.workflow}",
            input={"ref": target.ref, "inputs": inputs},
        )

    # --- epics: sub-issues, several issues at once, creating tasks, merging -----------------
    def _graphql_only(self, what: str) -> None:
        if not self.graphql:
            raise TrackerError(f"{what} needs GitHub's GraphQL API")

    def _trusted_mark(self, epic: int, author: str, body: str) -> str | None:
        """The task key of the body's mark, only on the bot's own issue and for this epic."""
        if author.casefold() != self.bot_login.casefold():
            return None
        mark = marker.read(body)
        return mark[1] if mark is not None and mark[0] == epic else None

    def _sub_issues_state(
        self, number: int, labels: Sequence[str], what: str, operation: str
    ) -> tuple[str, str, list[SubIssue], dict[str, str]]:
        """One query: (repository node id, the issue's node id, its sub-issues, the node ids of
        `labels` the repository has, by casefolded name)."""
        self._graphql_only(what)
        variables: dict[str, Any] = {"owner": self._owner, "name": self._name, "number": number}
        variables |= {f"l{i}": name for i, name in enumerate(labels)}
        document = gql.sub_issues_document(len(labels), operation=operation)
        try:
            answer = self._query(document, variables, what)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
        repository = answer["data"].get("repository") or {}
        errors = gql.field_errors(answer)
        issue = repository.get("issue")
        if not issue or errors:
            error = next(iter(errors.values()), gql.FieldError("issue", "NOT_FOUND", "null"))
            raise self._refused(what, error)
        found = [
            SubIssue(
                number=sub.number,
                node_id=sub.node_id,
                open=sub.open,
                labels=sub.labels,
                author=sub.author,
                marker=self._trusted_mark(number, sub.author, sub.body),
                blocked_by=sub.blocked_by,
            )
            for sub in gql.parse_sub_issues(issue)
        ]
        nodes = {
            str(x["name"]).casefold(): str(x["id"])
            for i in range(len(labels))
            if (x := repository.get(f"l{i}"))
        }
        self._label_nodes.update(nodes)
        return str(repository["id"]), str(issue["id"]), found, nodes

    def sub_issues(self, number: int) -> list[SubIssue]:
        what = f"reading the sub-issues of #{number}"
        return self._sub_issues_state(number, (), what, "BatonSubIssues")[2]

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        wanted = list(dict.fromkeys(numbers))
        if not wanted:
            return {}
        if self.graphql:
            try:
                return self._read_many_graphql(wanted)
            except GraphQLUnusable as why:
                self._fall_back(why)
        return {n: Snapshot(issue=None, comments=self.comments(n)) for n in wanted}

    def _read_many_graphql(self, numbers: list[int]) -> dict[int, Snapshot]:
        """One document for every issue's first 100 comments; an issue with more is paged on
        from its cursor. An issue GitHub does not find (deleted, moved) is left out."""
        what = f"reading the comments of {len(numbers)} issues"
        variables: dict[str, Any] = {"owner": self._owner, "name": self._name}
        variables |= {f"n{n}": n for n in numbers}
        answer = self._query(gql.read_many_document(numbers), variables, what)
        repository = answer["data"].get("repository")
        errors = gql.nested_errors(answer, "repository")
        if not repository:
            error = gql.field_errors(answer).get("repository")
            raise self._refused(what, error or gql.FieldError("repository", "NOT_FOUND", "null"))
        read: dict[int, Snapshot] = {}
        for number in numbers:
            node = repository.get(f"i{number}")
            error = errors.get(f"i{number}")
            if node is None:
                if error is None or error.kind == "NOT_FOUND":
                    continue
                raise self._refused(f"reading #{number}", error)
            if error is not None:
                raise self._refused(f"reading #{number}", error)
            comments, nodes, after = gql.parse_comments(node.get("comments") or {})
            self._comment_nodes.update(nodes)
            comments = self._rest_of_comments(number, comments, after, f"reading #{number}")
            read[number] = Snapshot(issue=None, comments=comments)
        return read

    def _mutate(self, doc: gql.Mutation, what: str) -> dict[str, Any]:
        try:
            return self._query(doc.document(), doc.variables, what, mutation=True)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None

    def create_tasks(self, plan: TaskCreationPlan) -> TaskCreationFacts:
        """(1) one query: the repository's and the epic's node ids, the epic's sub-issues with
        their marks and blockers, the labels' node ids; (2) a label the repository lacks is
        created (REST, grey: a status label is styled when first set); (3) one document of
        `createIssue` fields per 20 missing tasks, each created as the epic's sub-issue
        (`parentIssueId`), its mark in its body; (4) one document of `addBlockedBy` fields per
        20 missing edges. A task found by its mark is not created again, an edge present is
        not added again: a re-run after a crash does only what is missing."""
        epic = plan.epic
        what = f"creating the tasks of #{epic}"
        keys = {task.key for task in plan.tasks}
        unknown = sorted({k for edge in plan.edges for k in edge} - keys)
        if unknown:
            raise TrackerError(f"{what}: the edges name tasks the plan lacks: {unknown}")
        names = list(dict.fromkeys(label for task in plan.tasks for label in task.labels))
        repository, parent, found, label_nodes = self._sub_issues_state(
            epic, names, what, "BatonTasks"
        )
        tasks: dict[str, SubIssue] = {}
        for sub in found:
            if sub.marker is not None and sub.marker not in tasks:  # the oldest one is kept
                tasks[sub.marker] = sub
        missing = [task for task in plan.tasks if task.key not in tasks]
        if missing:
            ids = {
                name: label_nodes.get(name.casefold()) or self._label_node(name, None)
                for name in dict.fromkeys(x for task in missing for x in task.labels)
            }
            for start in range(0, len(missing), gql.TASKS_PER_DOCUMENT):
                chunk = missing[start : start + gql.TASKS_PER_DOCUMENT]
                tasks |= self._create_chunk(epic, repository, parent, chunk, ids, what)
        edges = [
            (blocked, blocking)
            for blocked, blocking in dict.fromkeys(plan.edges)
            if tasks[blocking].number not in tasks[blocked].blocked_by
        ]
        for start in range(0, len(edges), gql.TASKS_PER_DOCUMENT):
            self._add_edges(epic, edges[start : start + gql.TASKS_PER_DOCUMENT], tasks, what)
        return TaskCreationFacts(
            created=[
                CreatedTask(
                    key=task.key, number=tasks[task.key].number, node_id=tasks[task.key].node_id
                )
                for task in plan.tasks
            ]
        )

    def _create_chunk(
        self,
        epic: int,
        repository: str,
        parent: str,
        chunk: list[NewTask],
        labels: dict[str, str],
        what: str,
    ) -> dict[str, SubIssue]:
        doc = gql.Mutation(operation="BatonCreateTasks")
        for i, task in enumerate(chunk):
            ids = [labels[x] for x in dict.fromkeys(task.labels)]
            doc.create_issue(
                f"t{i}",
                repository,
                task.title,
                gql.task_body(epic, task.key, task.body),
                ids,
                parent,
            )
        answer = self._mutate(doc, what)
        errors = gql.field_errors(answer, doc.aliases)
        made: dict[str, SubIssue] = {}
        for i, task in enumerate(chunk):
            created = gql.created_issue(answer["data"], f"t{i}")
            if created is not None:
                made[task.key] = SubIssue(
                    number=created[0],
                    node_id=created[1],
                    open=True,
                    labels=task.labels,
                    author=self.bot_login,
                    marker=task.key,
                )
        if errors:
            alias, error = next(iter(errors.items()))
            key = chunk[int(alias[1:])].key if alias[1:].isdigit() else alias
            raise TrackerError(
                _one_line(
                    f"GitHub refused creating {len(errors)} of {len(chunk)} tasks of #{epic} "
                    f"(GraphQL), {key} first: {error.kind} {error.message}"
                ),
                status=gql.STATUS_OF.get(error.kind),
                kind=error.kind,
                said=error.message,
            )
        return made

    def _add_edges(
        self, epic: int, edges: list[tuple[str, str]], tasks: dict[str, SubIssue], what: str
    ) -> None:
        doc = gql.Mutation(operation="BatonBlockedBy")
        for i, (blocked, blocking) in enumerate(edges):
            doc.add_blocked_by(f"e{i}", tasks[blocked].node_id, tasks[blocking].node_id)
        answer = self._mutate(doc, what)
        refused = {
            alias: error
            for alias, error in gql.field_errors(answer, doc.aliases).items()
            # added meanwhile (a racing run): what was wanted is there
            if "already blocked" not in error.message.casefold()
        }
        if refused:
            alias, error = next(iter(refused.items()))
            blocked, blocking = edges[int(alias[1:])] if alias[1:].isdigit() else (alias, "?")
            raise TrackerError(
                _one_line(
                    f"GitHub refused {len(refused)} of {len(edges)} dependencies of the tasks "
                    f"of #{epic} (GraphQL), {blocked} blocked by {blocking} first: "
                    f"{error.kind} {error.message}"
                ),
                status=gql.STATUS_OF.get(error.kind),
                kind=error.kind,
                said=error.message,
            )

    def merge(self, plan: MergePlan) -> MergeFacts:
        """REST `POST /merges`: 201 with the merge commit, 204 when `head` is in `base`
        already, 409 on a conflict (nothing written), 404 when a branch is missing."""
        what = f"merging {plan.head} into {plan.base}"
        body = {"base": plan.base, "head": plan.head, "commit_message": plan.message}
        try:
            _, data = self._call("POST", f"{self._base}/merges", what, input=body)
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

    # --- the work product: branches, commits, pull requests ---------------------------------
    def _branch_rest(self, name: str) -> BranchHead | None:
        try:
            _, data = self._call(
                "GET",
                f"{self._base}/branches/{quote(name, safe='')}",
                f"reading branch {name}",
            )
        except TrackerError as exc:
            if exc.status == 404:
                return None
            raise
        commit = data.get("commit") or {}
        message = str((commit.get("commit") or {}).get("message") or "")
        return BranchHead(
            name=str(data.get("name") or name), oid=str(commit["sha"]), message=message
        )

    def _repository_and_branch(self, name: str) -> tuple[str, str, str, BranchHead | None]:
        """(repository node id, default branch, its head, the branch's head or None)."""
        what = f"reading branch {name}"
        variables = {"owner": self._owner, "name": self._name, "ref": gql.qualified(name)}
        answer = self._query(gql.BRANCH, variables, what)
        repository = answer["data"].get("repository")
        if not repository:
            error = gql.field_errors(answer).get("repository")
            raise self._refused(what, error or gql.FieldError("repository", "NOT_FOUND", "null"))
        default = repository.get("defaultBranchRef") or {}
        self._default_branch = str(default.get("name") or "") or self._default_branch
        found = gql.parse_ref(repository.get("ref"))
        return (
            str(repository["id"]),
            str(default.get("name") or ""),
            str((default.get("target") or {}).get("oid") or ""),
            BranchHead(*found) if found else None,
        )

    def branch(self, name: str) -> BranchHead | None:
        if self.graphql:
            try:
                return self._repository_and_branch(name)[3]
            except GraphQLUnusable as why:
                self._fall_back(why)
        return self._branch_rest(name)

    def _repository_and_base(self, name: str, base: str) -> tuple[str, str, BranchHead | None]:
        """(repository node id, the head of `base`, the branch's head or None)."""
        what = f"reading branches {name} and {base}"
        variables = {
            "owner": self._owner,
            "name": self._name,
            "ref": gql.qualified(name),
            "base": gql.qualified(base),
        }
        answer = self._query(gql.BRANCH_AND_BASE, variables, what)
        repository = answer["data"].get("repository")
        if not repository:
            error = gql.field_errors(answer).get("repository")
            raise self._refused(what, error or gql.FieldError("repository", "NOT_FOUND", "null"))
        found, start = gql.parse_ref(repository.get("ref")), gql.parse_ref(repository.get("base"))
        if found is None and start is None:
            raise TrackerError(f"creating branch {name}: there is no branch {base}", status=404)
        return (
            str(repository["id"]),
            start[1] if start else "",
            BranchHead(*found) if found else None,
        )

    def create_branch(self, name: str, base: str | None = None) -> BranchHead:
        if not self.graphql:
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
        variables = {"repository": repository, "ref": gql.qualified(name), "oid": head}
        answer = self._query(gql.CREATE_REF, variables, what, mutation=True)
        created = gql.parse_ref(((answer["data"] or {}).get("createRef") or {}).get("ref"))
        if created is not None:
            return BranchHead(*created, created=True)
        error = gql.field_errors(answer).get("createRef")
        if error is not None and "already exists" in error.message:
            again = self.branch(name)  # created meanwhile (a racing run): use it
            if again is not None:
                return self._found_branch(again, head)
        raise self._refused(what, error or gql.FieldError("createRef", "ERROR", "no ref"))

    def _found_branch(self, found: BranchHead, start: str) -> BranchHead:
        """An existing branch with the commits it carries that `start` (its base's head) lacks:
        REST compare's `ahead_by`, by commit ids (a branch name may hold a `/`)."""
        if not start or found.oid == start:
            return found
        _, data = self._call(
            "GET",
            f"{self._base}/compare/{start}...{found.oid}",
            f"comparing branch {found.name} with its base",
        )
        ahead = data.get("ahead_by") if isinstance(data, dict) else None
        return replace(found, ahead=ahead if isinstance(ahead, int) else 1)

    def commit_facts(self, oid: str) -> CommitFacts | None:
        """REST "get a commit": one call for its parents, files (300 on the first page, the
        `Link` header naming more), GitHub's verification of its signature and its author."""
        try:
            headers, data = self._call(
                "GET", f"{self._base}/commits/{quote(oid, safe='')}", f"reading commit {oid[:7]}"
            )
        except TrackerError as exc:
            if exc.status in (404, 422):
                return None
            raise
        return _commit_facts(data, headers)

    def commit(self, request: CommitRequest) -> str:
        if not self.graphql:
            raise TrackerError("a commit needs GitHub's GraphQL API (createCommitOnBranch)")
        what = f"committing to {request.branch}"
        document_input = gql.commit_input(
            self.repository,
            request.branch,
            request.expected_head,
            request.headline,
            request.body,
            request.additions,
            request.deletions,
        )
        try:
            answer = self._query(gql.CREATE_COMMIT, {"input": document_input}, what, mutation=True)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
        commit = ((answer["data"] or {}).get("createCommitOnBranch") or {}).get("commit") or {}
        if isinstance(commit.get("oid"), str):
            return str(commit["oid"])
        error = gql.field_errors(answer).get("createCommitOnBranch") or gql.FieldError(
            "createCommitOnBranch", "ERROR", "no commit in the answer"
        )
        if error.kind == "STALE_DATA" or "Expected branch to point to" in error.message:
            raise StaleHead(
                f"{request.branch} moved since {request.expected_head[:7]}: {error.message}",
                kind=error.kind,
                said=error.message,
            )
        # GitHub ran the mutation and refused this commit (nothing written): the changeset is
        # refused, as a changeset failing Baton's own checks is.
        raise CommitRefused(
            f"GitHub refused the commit: {error.kind} {error.message}",
            status=gql.STATUS_OF.get(error.kind, 422),
            kind=error.kind,
            said=error.message,
        )

    def _default(self) -> str:
        if self._default_branch is None:
            _, data = self._call("GET", self._base, "reading the repository")
            self._default_branch = str(data.get("default_branch") or "main")
        return self._default_branch

    def open_pull_request(self, plan: PullRequestPlan) -> OpenedPullRequest:
        base = self._default()
        body = {"title": plan.title, "head": plan.branch, "base": base, "body": plan.body}
        try:
            _, data = self._call(
                "POST",
                f"{self._base}/pulls",
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

    def _open_pull_request_of(self, branch: str) -> OpenedPullRequest | None:
        _, data = self._call(
            "GET",
            f"{self._base}/pulls",
            f"finding the pull request of {branch}",
            parameters={"head": f"{self._owner}:{branch}", "state": "open"},
        )
        for item in data or []:
            return OpenedPullRequest(number=int(item["number"]), node_id=str(item["node_id"]))
        return None

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        if plan.number is not None:
            self._call(
                "PATCH",
                f"{self._base}/pulls/{plan.number}",
                f"updating pull request #{plan.number}",
                input={"body": plan.body},
            )
        if plan.ready and plan.node_id and self.graphql:
            doc = gql.Mutation()
            doc.mark_ready("ready", plan.node_id)
            answer = self._query(
                doc.document(), doc.variables, "marking the pull request ready", mutation=True
            )
            error = gql.field_errors(answer, doc.aliases).get("ready")
            if error is not None:
                raise self._refused("marking the pull request ready", error)

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        _, data = self._call(
            "GET",
            f"{self._base}/pulls/{pull_request}/reviews/{review_id}/comments",
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
        _, data = self._call(
            "GET",
            f"{self._base}/commits/{quote(head, safe='')}/check-runs",
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
