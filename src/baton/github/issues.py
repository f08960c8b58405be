"""The issue and its record over GitHub: one read, comments, who may act, the issue listings.

A run reads with one GraphQL query (the issue, its labels, its comments 100 a page, the node ids
of the status labels, and the issue's branch when asked); several tasks' comments are one
document of aliased issues. REST serves the rest: permissions, team membership, the workflow
dispatch, the sweep's listings, and every read again when GraphQL cannot take a document.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from baton.core.model.issue_facts import Comment, IssueInfo
from baton.errors import GraphQLUnusable, TrackerError
from baton.github.git import rest_branch
from baton.github.graphql.answers import FieldError, field_errors, nested_errors
from baton.github.graphql.git import parse_tree, qualified, tree_selection
from baton.github.graphql.issues import (
    COMMENT_BODY,
    COMMENTS_PAGE,
    parse_comment,
    parse_comments,
    parse_read,
    read_document,
    read_many_document,
)
from baton.github.graphql.sub_issues import SUB_ISSUES, SubIssuesRead, parse_sub_issues
from baton.github.permission import role_of
from baton.github.tracker import BranchHead, DispatchTarget, Snapshot, TreeAsk, TreeRead
from baton.github.transport import PER_PAGE, Role


def info_of(data: dict[str, Any]) -> IssueInfo:
    """A REST issue (or pull request: the issues API lists both) as `IssueInfo`."""
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


def comment_of(item: dict[str, Any]) -> Comment:
    """A REST issue comment as `Comment`."""
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


class GitHubIssues(Role):
    """`tracker.Issues` (but the write, see `issue_writes`) over the transport."""

    def clock(self) -> datetime:
        """The runner's clock, which GitHub-hosted runners keep synced with GitHub's."""
        return datetime.now(UTC)

    def read(
        self,
        number: int,
        *,
        with_issue: bool,
        branch: str | None = None,
        tree: TreeAsk | None = None,
    ) -> Snapshot:
        if self.transport.graphql:
            try:
                return self._read_graphql(number, branch, with_issue=with_issue, tree=tree)
            except GraphQLUnusable as why:
                self.transport.fall_back(why)
                # What an earlier read cached for this issue is stale now: its writes go over
                # REST, which needs no node ids and filters nothing by what was seen.
                self.known.issue_nodes.pop(number, None)
                self.known.issue_labels.pop(number, None)
        return Snapshot(
            issue=self.issue(number) if with_issue else None,
            comments=self.comments(number),
            branch=rest_branch(self.transport, branch) if branch else None,
        )

    def _read_graphql(
        self,
        number: int,
        branch: str | None,
        *,
        with_issue: bool = False,
        tree: TreeAsk | None = None,
    ) -> Snapshot:
        what = f"reading #{number}"
        where = {
            "owner": self.transport.owner,
            "name": self.transport.name,
            "number": number,
            "after": None,
        }
        looked_up = frozenset(name.casefold() for name in self.known.lookups)
        lookups = {f"l{i}": name for i, name in enumerate(self.known.lookups)}
        if branch:
            lookups["ref"] = qualified(branch)
        # A run that reads the issue itself (a dispatch, a tick) may be an epic's: its
        # sub-issues ride in the read, sparing create_tasks' or the conductor's query.
        extra = f"\n      {SUB_ISSUES}" if with_issue else ""
        # The base's tree, as far as a changeset's paths need it, rides in the same query.
        tree_fields = tree_selection(tree.folders, tree.links) if tree is not None else None
        if tree is not None and tree_fields is not None:
            lookups |= {"base": tree.base, **tree_fields[2]}
        document = read_document(
            len(self.known.lookups),
            branch=bool(branch),
            issue_fields=extra,
            tree=tree_fields[:2] if tree_fields is not None else None,
        )
        answer = self.transport.query(document, where | lookups, what)
        errors = field_errors(answer)
        found = parse_read(answer["data"], self.known.lookups)
        if found is None:
            error = errors.get("repository") or FieldError("repository", "NOT_FOUND", "null")
            raise self.transport.refused(what, error)
        if errors:
            raise self.transport.refused(what, next(iter(errors.values())))
        self.known.issue_nodes[number] = found.issue_node
        self.known.comment_nodes.update(found.comment_nodes)
        self.known.label_nodes.update(found.label_nodes)
        self.known.label_styles.update(found.styles)
        self.known.issue_labels[number] = {x.casefold() for x in found.issue.labels}
        self.known.lookups = ()  # once per process: a sweep's later reads skip the lookups
        comments = self._rest_of_comments(number, found.comments, found.next_page, what)
        if found.default_branch:
            self.known.default_branch = found.default_branch
        self.known.repository_node = found.repository_node or self.known.repository_node
        self.known.sub_issues_read.pop(number, None)
        if with_issue and found.repository_node and not found.issue.is_pull_request:
            self.known.sub_issues_read[number] = SubIssuesRead(
                repository=found.repository_node,
                issue=found.issue_node,
                found=parse_sub_issues(found.raw),
                looked_up=looked_up,
                branch=branch or "",
                branch_found=found.branch is not None,
                default_head=found.default_head,
            )
        head = BranchHead(*found.branch) if found.branch else None
        read_tree = None
        if tree is not None:
            node = (answer["data"].get("repository") or {}).get("baseTree")
            read_tree = TreeRead(*parse_tree(node, tree.folders, tree.links))
        return Snapshot(issue=found.issue, comments=comments, branch=head, tree=read_tree)

    def _rest_of_comments(
        self, number: int, comments: list[Comment], after: str | None, what: str
    ) -> list[Comment]:
        """The pages of comments after the first, 100 at a time, by cursor."""
        where = {"owner": self.transport.owner, "name": self.transport.name, "number": number}
        while after is not None:
            page = self.transport.query(COMMENTS_PAGE, where | {"after": after}, what)
            issue = (page["data"].get("repository") or {}).get("issueOrPullRequest")
            failed = field_errors(page)
            if failed or not issue:
                # A missing page would read like a lost record or an approval never given.
                error = next(iter(failed.values()), FieldError("", "NOT_FOUND", "no issue"))
                raise self.transport.refused(f"{what} (comments after {len(comments)})", error)
            more, nodes, after = parse_comments(issue.get("comments") or {})
            comments.extend(more)
            self.known.comment_nodes.update(nodes)
        return comments

    def issue(self, number: int) -> IssueInfo:
        _, data = self.transport.call(
            "GET", f"{self.transport.base}/issues/{number}", f"reading issue #{number}"
        )
        return info_of(data)

    def comments(self, number: int) -> list[Comment]:
        found: list[Comment] = []
        page = 1
        while True:
            headers, data = self.transport.call(
                "GET",
                f"{self.transport.base}/issues/{number}/comments",
                f"listing the comments of #{number}",
                parameters={"per_page": PER_PAGE, "page": page},
            )
            found.extend(comment_of(item) for item in data or [])
            if 'rel="next"' not in str(headers.get("link", "")):
                return found
            page += 1

    def comment(self, comment_id: int) -> Comment | None:
        node = self.known.comment_nodes.get(comment_id)
        if self.transport.graphql and node is not None:
            # Read back through the API that read it first, so the bodies compare equal.
            try:
                return self._comment_graphql(comment_id, node)
            except GraphQLUnusable as why:
                self.transport.fall_back(why)
        try:
            _, item = self.transport.call(
                "GET",
                f"{self.transport.base}/issues/comments/{comment_id}",
                f"reading comment {comment_id}",
            )
        except TrackerError as exc:
            if exc.status == 404:
                return None
            raise
        return comment_of(item)

    def _comment_graphql(self, comment_id: int, node: str) -> Comment | None:
        what = f"reading comment {comment_id}"
        answer = self.transport.query(COMMENT_BODY, {"id": node}, what)
        found = parse_comment(answer["data"].get("node"))
        if found is None:
            error = field_errors(answer).get("node")
            if error is None or error.kind == "NOT_FOUND":
                return None
            raise self.transport.refused(what, error)
        return found

    def permission(self, login: str) -> str:
        try:
            _, data = self.transport.call(
                "GET",
                f"{self.transport.base}/collaborators/{quote(login, safe='')}/permission",
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
            _, data = self.transport.call(
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
        _, data = self.transport.call(
            "GET",
            f"{self.transport.base}/issues",
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
        headers, data = self.transport.call(
            "GET",
            f"{self.transport.base}/issues",
            "listing open issues",
            parameters={
                "state": "open",
                "sort": "updated",  # least recently updated first: what waited longest
                "direction": "asc",
                "per_page": PER_PAGE,
                "page": page,
            },
        )
        issues = [info_of(item) for item in data or []]
        more = 'rel="next"' in str(headers.get("link", ""))
        return issues, (page + 1 if more else None)

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None:
        """Sent once: a 5xx may come after GitHub created the run, and a second POST would
        start the agent twice (`run.dispatch_next` says so; the sweep covers a lost one)."""
        self.transport.call(
            "POST",
            f"{self.transport.base}/actions/workflows/{quote(target.workflow, safe='')}/dispatches",
            f"starting workflow {target.workflow}",
            once=True,
            input={"ref": target.ref, "inputs": inputs},
        )

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        wanted = list(dict.fromkeys(numbers))
        if not wanted:
            return {}
        if self.transport.graphql:
            try:
                return self._read_many_graphql(wanted)
            except GraphQLUnusable as why:
                self.transport.fall_back(why)
        return {n: Snapshot(issue=None, comments=self.comments(n)) for n in wanted}

    def _read_many_graphql(self, numbers: list[int]) -> dict[int, Snapshot]:
        """One document for every issue's first 100 comments; an issue with more is paged on
        from its cursor. An issue GitHub does not find (deleted, moved) is left out."""
        what = f"reading the comments of {len(numbers)} issues"
        variables: dict[str, Any] = {"owner": self.transport.owner, "name": self.transport.name}
        variables |= {f"n{n}": n for n in numbers}
        answer = self.transport.query(read_many_document(numbers), variables, what)
        repository = answer["data"].get("repository")
        errors = nested_errors(answer, "repository")
        if not repository:
            error = field_errors(answer).get("repository")
            raise self.transport.refused(
                what, error or FieldError("repository", "NOT_FOUND", "null")
            )
        read: dict[int, Snapshot] = {}
        for number in numbers:
            node = repository.get(f"i{number}")
            error = errors.get(f"i{number}")
            if node is None:
                if error is None or error.kind == "NOT_FOUND":
                    continue
                raise self.transport.refused(f"reading #{number}", error)
            if error is not None:
                raise self.transport.refused(f"reading #{number}", error)
            comments, nodes, after = parse_comments(node.get("comments") or {})
            self.known.comment_nodes.update(nodes)
            comments = self._rest_of_comments(number, comments, after, f"reading #{number}")
            read[number] = Snapshot(issue=None, comments=comments)
        return read
