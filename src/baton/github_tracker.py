"""The Tracker on the real GitHub API, through PyGithub. The only module importing it.

A run reads with one GraphQL query (the issue, its labels, its comments 100 a page, the node ids
of the status labels) and writes with one GraphQL mutation document (record, labels, message,
reaction, in that order); the concurrency check is one small query. REST serves what GraphQL
cannot do or does not do better: permissions, team membership, creating a status label with its
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
from datetime import datetime
from typing import Any
from urllib.parse import quote

from github import Auth, Github, GithubException, GithubRetry

from baton import github_graphql as gql
from baton.errors import TrackerError
from baton.events import IssueInfo
from baton.tracker import Comment, DispatchTarget, LabelSpec, Snapshot, Writes, Written
from baton.write_steps import write_in_steps

PER_PAGE = 100
RETRIED_METHODS = frozenset({"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"})
DEFAULT_COLOUR = "ededed"  # what GitHub gives a label created implicitly by adding it


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


class _Unusable(Exception):
    """GraphQL would not take a document at all: nothing ran, REST can do the same."""


def _comment(item: dict[str, Any]) -> Comment:
    user = item.get("user") or {}
    return Comment(
        id=int(item["id"]),
        author=str(user.get("login") or ""),
        body=str(item.get("body") or ""),
        created_at=_when(item.get("created_at")),
        author_is_bot=user.get("type") == "Bot",
        association=str(item.get("author_association") or "NONE"),
    )


class GitHubTracker:
    """`baton.tracker.Tracker` over PyGithub's requester (retries, pagination, errors)."""

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
    ) -> None:
        """`labels`: the status labels a run may add, whose node ids the read looks up so that
        adding one costs nothing more; `graphql=False` keeps to REST."""
        if repository.count("/") != 1:
            raise TrackerError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        self.repository = repository
        self._base = f"/repos/{repository}"
        self._gh = Github(
            auth=Auth.Token(token),
            base_url=api_url.rstrip("/"),
            timeout=timeout,
            per_page=PER_PAGE,
            retry=retry
            if retry is not None
            else GithubRetry(
                total=3,
                # Never after a read timeout: GitHub may have applied the write, and a second
                # POST would post the comment twice (a lost message is re-posted by the outbox).
                read=0,
                secondary_rate_wait=secondary_rate_wait,
                # PATCH too: Baton's PATCHes (the record, a label's style) are idempotent.
                allowed_methods=RETRIED_METHODS,
            ),
            seconds_between_requests=0,
            seconds_between_writes=seconds_between_writes,
            lazy=True,
        )
        self._requester = self._gh.requester
        # Mutation documents: retried on a secondary rate limit (GitHub ran nothing) but never
        # on a 5xx, after which GitHub may have run part of the document.
        self._writer = Github(
            auth=Auth.Token(token),
            base_url=api_url.rstrip("/"),
            timeout=timeout,
            retry=retry
            if retry is not None
            else GithubRetry(
                total=3, read=0, status_forcelist=[], secondary_rate_wait=secondary_rate_wait
            ),
            seconds_between_requests=0,
            seconds_between_writes=seconds_between_writes,
            lazy=True,
        ).requester
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
        self._missing_labels: set[str] = set()

    # --- plumbing -------------------------------------------------------------------------
    def _call(self, verb: str, path: str, what: str, **kwargs: Any) -> tuple[dict[str, Any], Any]:
        self.requests += 1
        try:
            headers, data = self._requester.requestJsonAndCheck(verb, path, **kwargs)
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            raise TrackerError(
                f"GitHub refused {what} ({verb} {path}): {exc.status} {message or ''}".rstrip(),
                status=exc.status,
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
        requester = self._writer if mutation else self._requester
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
                raise _Unusable(f"{exc.status} from the GraphQL endpoint") from None
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            raise TrackerError(
                f"GitHub refused {what} (GraphQL): {exc.status} {message or ''}".rstrip(),
                status=exc.status,
            ) from None
        except OSError as exc:
            raise TrackerError(f"GitHub unreachable for {what} (GraphQL): {exc}") from None
        self._note_budget(headers, "graphql")
        if not isinstance(answer, dict) or answer.get("data") is None:
            # A document GitHub would not run at all (invalid for this server, or the GraphQL
            # budget is spent): nothing happened, so REST may do the same work.
            errors = answer.get("errors") if isinstance(answer, dict) else None
            first = errors[0].get("message") if errors and isinstance(errors[0], dict) else None
            raise _Unusable(str(first or "no data in the answer"))
        return answer

    def _fall_back(self, why: _Unusable) -> None:
        self.graphql = False
        self.notes.append(f"GraphQL could not be used ({why}); this run went on over REST")

    @staticmethod
    def _refused(what: str, error: gql.FieldError) -> TrackerError:
        return TrackerError(
            f"GitHub refused {what} (GraphQL): {error.kind} {error.message}",
            status=gql.STATUS_OF.get(error.kind),
        )

    # --- reads ---------------------------------------------------------------------------
    def read(self, number: int, *, with_issue: bool) -> Snapshot:
        if self.graphql:
            try:
                return self._read_graphql(number)
            except _Unusable as why:
                self._fall_back(why)
        return Snapshot(
            issue=self.issue(number) if with_issue else None, comments=self.comments(number)
        )

    def _read_graphql(self, number: int) -> Snapshot:
        what = f"reading #{number}"
        where = {"owner": self._owner, "name": self._name, "number": number, "after": None}
        lookups = {f"l{i}": name for i, name in enumerate(self._lookups)}
        answer = self._query(gql.read_document(len(lookups)), where | lookups, what)
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
        self._missing_labels |= found.missing_labels
        self._lookups = ()  # once per process: a sweep's later reads skip the lookups
        comments, after = found.comments, found.next_page
        while after is not None:
            page = self._query(gql.COMMENTS_PAGE, where | {"after": after}, what)
            issue = (page["data"].get("repository") or {}).get("issueOrPullRequest") or {}
            more, nodes, after = gql.parse_comments(issue.get("comments") or {})
            comments.extend(more)
            self._comment_nodes.update(nodes)
        return Snapshot(issue=found.issue, comments=comments)

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
            except _Unusable as why:
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
        return str(data.get("permission") or "none")

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
        issue = self._issue_nodes.get(writes.number)
        needed = [writes.record_comment] if writes.record is not None else []
        known = all(c is None or c in self._comment_nodes for c in needed)
        if self.graphql and issue is not None and known:
            try:
                return self._write_graphql(writes, issue)
            except _Unusable as why:
                self._fall_back(why)
        return write_in_steps(self, writes)

    def _write_graphql(self, writes: Writes, issue: str) -> Written:
        """Every write of the run in one mutation document, then its answer read field by field
        in the same order, with `write_steps`' policy. What GraphQL cannot address by node id
        (a label never seen, a comment not read) is done over REST around the document."""
        number, what = writes.number, f"writing to #{writes.number}"
        doc = gql.Mutation()
        if writes.repost is not None:
            doc.add_comment("repost", issue, writes.repost)
        if writes.record is not None:
            if writes.record_comment is not None:
                doc.update_comment(
                    "record", self._comment_nodes[writes.record_comment], writes.record
                )
            else:
                doc.add_comment("record", issue, writes.record)
        leftover_removals: list[str] = []
        removed: list[str] = []
        if writes.labels is not None:
            change = writes.labels
            added = [self._label_node(name, change.specs.get(name)) for name in change.add]
            if added:
                doc.add_labels("labelsAdded", issue, added)
            removed = [self._label_nodes[x] for x in change.remove if x in self._label_nodes]
            leftover_removals = [x for x in change.remove if x not in self._label_nodes]
            if removed:
                doc.remove_labels("labelsRemoved", issue, removed)
        if writes.message is not None:
            doc.add_comment("message", issue, writes.message)
        reacted_node = None
        if writes.reaction is not None:
            reacted_node = self._comment_nodes.get(writes.reaction[0])
            if reacted_node is not None:
                doc.add_reaction("reaction", reacted_node, writes.reaction[1])
        duplicates = {f"duplicate{i}": c for i, c in enumerate(writes.delete)}
        for alias, duplicate in duplicates.items():
            if duplicate in self._comment_nodes:
                doc.delete_comment(alias, self._comment_nodes[duplicate])
        done = Written()
        data: dict[str, Any] = {}
        errors: dict[str, gql.FieldError] = {}
        if doc.fields:
            answer = self._query(doc.document(), doc.variables, what, mutation=True)
            data, errors = answer["data"], gql.field_errors(answer, doc.aliases)
        if "repost" in errors:
            raise self._refused(f"re-posting a message on #{number}", errors["repost"])
        done.reposted = writes.repost is not None
        if writes.record is not None:
            self._account_record(writes, data, errors.get("record"), done)
        if "labelsAdded" in errors:
            if removed and "labelsRemoved" not in errors:
                # GitHub ran the removal after the failed addition: put the old status label
                # back, as REST's add-then-remove would never have taken it off.
                self._restore_labels(number, [x for x in change.remove if x in self._label_nodes])
            raise self._refused(f"labelling #{number}", errors["labelsAdded"])
        if "labelsRemoved" in errors and errors["labelsRemoved"].kind != "NOT_FOUND":
            raise self._refused(f"labelling #{number}", errors["labelsRemoved"])
        for label in leftover_removals:
            self._remove_label(number, label)
        done.labels = writes.labels is not None
        if writes.message is not None:
            if "message" in errors:
                raise self._refused(f"commenting on #{number}", errors["message"])
            created = gql.created_id(data, "message")
            done.message_comment = created[0] if created else None
        if writes.reaction is not None:
            self._account_reaction(writes.reaction, reacted_node, errors.get("reaction"), done)
        for alias, duplicate in duplicates.items():
            if duplicate not in self._comment_nodes:
                try:
                    self.delete_comment(duplicate)
                except TrackerError as exc:
                    if exc.status != 404:
                        raise
            elif alias in errors and errors[alias].kind != "NOT_FOUND":
                raise self._refused(f"deleting comment {duplicate}", errors[alias])
            done.deleted.append(duplicate)
        return done

    def _account_record(
        self, writes: Writes, data: dict[str, Any], error: gql.FieldError | None, done: Written
    ) -> None:
        if error is None:
            if writes.record_comment is not None:
                done.record_comment = writes.record_comment
                return
            created = gql.created_id(data, "record")
            if created is None:
                raise TrackerError(
                    f"GitHub did not say which comment holds #{writes.number}'s record"
                )
            done.record_comment = created[0]
            self._comment_nodes[created[0]] = created[1]
            return
        if error.kind != "NOT_FOUND" or writes.record_comment is None:
            raise self._refused(f"writing #{writes.number}'s record", error)
        # Deleted under us: the rest of the document ran; the record is written anew, and its
        # newer revision makes it the one the next run keeps.
        done.record_gone = writes.record_comment
        assert writes.record is not None
        done.record_comment = self.create_comment(writes.number, writes.record)

    def _account_reaction(
        self,
        reaction: tuple[int, str],
        node: str | None,
        error: gql.FieldError | None,
        done: Written,
    ) -> None:
        # A courtesy: a comment deleted meanwhile must not fail a run whose work is written.
        if node is None:
            try:
                self.react(*reaction)
                done.reacted = True
            except TrackerError as exc:
                done.reaction_problem = str(exc)
        elif error is not None:
            done.reaction_problem = f"{error.kind} {error.message}"
        else:
            done.reacted = True

    def _label_node(self, name: str, spec: LabelSpec | None) -> str:
        """The node id of a label to add: looked up by the read, else created (with its colour
        and description when it is a status label), once per repository."""
        known = self._label_nodes.get(name)
        style = self._label_styles.get(name)
        if known is not None:
            if spec and style and style.color.lower() == DEFAULT_COLOUR and not style.description:
                self._style_label(spec)  # made grey by hand or by an older run: style it once
                self._label_styles.pop(name, None)
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
        self._label_nodes[name] = str(data["node_id"])
        return self._label_nodes[name]

    def _restore_labels(self, number: int, labels: list[str]) -> None:
        # Best effort: the run fails anyway, naming the first failure; the next run repairs.
        with contextlib.suppress(TrackerError):
            self._call(
                "POST",
                f"{self._base}/issues/{number}/labels",
                f"putting {', '.join(labels)} back on #{number}",
                input={"labels": labels},
            )

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
