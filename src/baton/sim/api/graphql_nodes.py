"""GitHub's GraphQL objects over the fake's state: issues and pull requests with their
connections (labels, comments, sub-issues, dependencies), comments, labels, commits, refs,
reactions, the repository; the lookups of a node id. Connections are paged by
`graphql_paging`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from baton.sim.api.base import FakeBase as FakeGitHub
from baton.sim.api.graphql_paging import GitHubError, _connection
from baton.sim.api.wire import ApiError
from baton.sim.model import git, rules
from baton.sim.model.issues import Comment, Issue, Label, Reaction, User
from baton.sim.model.pulls import PullRequest
from baton.sim.payloads import REPOSITORY_ID

# GraphQL's ReactionContent -> the REST reaction name the fake stores.
REACTION_CONTENT = {
    "THUMBS_UP": "+1",
    "THUMBS_DOWN": "-1",
    "LAUGH": "laugh",
    "CONFUSED": "confused",
    "HEART": "heart",
    "HOORAY": "hooray",
    "ROCKET": "rocket",
    "EYES": "eyes",
}


REST_REACTION = {rest: name for name, rest in REACTION_CONTENT.items()}


Node = dict[str, Any]


def _not_a_node(node_id: str) -> GitHubError:
    return GitHubError(
        "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'."
    )


def _from_rest(error: ApiError) -> GitHubError:
    """A REST helper's refusal (body too long, blank...) as the GraphQL error GitHub gives."""
    kinds = {403: "FORBIDDEN", 404: "NOT_FOUND", 422: "UNPROCESSABLE"}
    detail = (error.errors or [{}])[0]
    field_name = str(detail.get("field") or "input").capitalize()
    wording = {
        "missing_field": f"{field_name} can't be blank",
        "invalid": f"{field_name} is invalid",
        "already_exists": f"{field_name} has already been taken",
    }
    message = detail.get("message") or wording.get(str(detail.get("code")), error.message)
    return GitHubError(
        kinds.get(error.status, "UNPROCESSABLE"), str(message)[:1].upper() + str(message)[1:]
    )


def _actor(fake: FakeGitHub, user: User) -> Node:
    uid = fake._user_id(user.login)
    if user.type == "Bot":  # GraphQL names a bot without REST's `[bot]`
        return {
            "__typename": "Bot",
            "id": f"U_fake{uid}",
            "login": user.login.removesuffix("[bot]"),
        }
    return {"__typename": "User", "id": f"U_fake{uid}", "login": user.login}


def _label_node(label: Label) -> Node:
    return {
        "__typename": "Label",
        "id": f"LA_fake{label.id}",
        "name": label.name,
        "color": label.color,
        "description": label.description,
    }


def _stamp(moment: datetime | None) -> str | None:
    return rules.timestamp(moment) if moment is not None else None


def _comment_node(fake: FakeGitHub, comment: Comment) -> Node:
    return {
        "__typename": "IssueComment",
        "id": f"IC_fake{comment.id}",
        "databaseId": comment.id,  # past 2**31 graphql-core refuses it, as GitHub does
        "fullDatabaseId": str(comment.id),
        "body": comment.body,
        "createdAt": _stamp(comment.created_at),
        "updatedAt": _stamp(comment.updated_at),
        "lastEditedAt": _stamp(comment.edited_at),
        "authorAssociation": comment.association,
        "author": _actor(fake, comment.user),
        "editor": _actor(fake, comment.editor) if comment.editor else None,
    }


def _issue_node(fake: FakeGitHub, issue: Issue) -> Node:
    """An Issue or PullRequest; its connections read the issue's state when asked."""

    def labels(first: int | None = None, after: str | None = None) -> Node:
        # GitHub's default order: by the label's creation (CREATED_AT, ASC).
        applied = sorted((fake._labels[name] for name in issue.labels), key=lambda x: x.id)
        return _connection("labels", applied, first, after, lambda x: x.id, _label_node)

    def comments(first: int | None = None, after: str | None = None) -> Node:
        return _connection(
            "comments",
            fake._store.comments_of(issue.number),
            first,
            after,
            lambda c: c.id,
            lambda c: _comment_node(fake, c),
        )

    def related(name: str, numbers: list[int]) -> Callable[..., Node]:
        """A connection of issues in the order GitHub keeps them (cursors by position)."""

        def connection(first: int | None = None, after: str | None = None) -> Node:
            return _connection(
                name,
                list(enumerate(numbers, start=1)),
                first,
                after,
                lambda item: item[0],
                lambda item: _issue_node(fake, fake._issues[item[1]]),
            )

        return connection

    def sub_issues_summary() -> Node:
        children = [fake._issues[n] for n in fake._relations.sub_issues(issue.number)]
        done = sum(1 for child in children if child.state == "closed")
        total = len(children)
        return {
            "total": total,
            "completed": done,
            "percentCompleted": done * 100 // total if total else 0,
        }

    def parent() -> Node | None:
        number = fake._relations.parent(issue.number)
        return _issue_node(fake, fake._issues[number]) if number is not None else None

    relations = fake._relations
    node: Node = {
        "__typename": "PullRequest" if issue.is_pull_request else "Issue",
        "id": f"I_fake{issue.id}",
        "number": issue.number,
        "title": issue.title,
        "body": issue.body,  # "" when empty, where REST says null
        "state": issue.state.upper(),
        "createdAt": _stamp(issue.created_at),
        "updatedAt": _stamp(issue.updated_at),
        "author": _actor(fake, issue.user),
        "authorAssociation": issue.association,
        "labels": labels,
        "comments": comments,
        "parent": parent,
        "subIssues": related("subIssues", relations.sub_issues(issue.number)),
        "subIssuesSummary": sub_issues_summary,
        "blockedBy": related("blockedBy", relations.blocked_by(issue.number)),
        "blocking": related("blocking", relations.blocking(issue.number)),
    }
    if issue.is_pull_request:
        node.update(_pull_fields(fake, issue, fake._pulls.get(issue.number)))
    return node


def _pull_fields(fake: FakeGitHub, issue: Issue, pull: PullRequest | None) -> Node:
    """What a PullRequest has beyond an Issue. A pull request seeded with ``add_issue``
    (no branch behind it) reads as one from an unknown branch to the default one."""
    default = fake._git.default_branch
    if pull is None:
        head, head_oid = "", fake._git.refs[default]
        draft = merged = False
    else:
        head, head_oid = pull.head, fake._pull_head(pull)
        draft, merged = pull.draft, pull.merged
    fields: Node = {
        "baseRefName": pull.base if pull else default,
        "headRefName": head,
        "headRefOid": head_oid,
        "isDraft": draft,
        "merged": merged,
        "url": f"https://github.com/{fake.owner}/{fake.repo}/pull/{issue.number}",
    }
    if pull is not None:
        fields["id"] = pull.node_id
    if merged:
        fields["state"] = "MERGED"
    return fields


def _git_object(kind: str, oid: str, html: str, **fields: Any) -> Node:
    return {
        "__typename": kind,
        "id": f"{kind[0]}_fake{oid}",
        "oid": oid,
        "abbreviatedOid": oid[:7],
        "commitUrl": html,
        **fields,
    }


def _tree_node(fake: FakeGitHub, commit: git.GitCommit, folder: str, html: str) -> Node:
    """A folder of a commit's tree: its entries with git's modes as GitHub's Int (40960 for
    a link, 33188 a file, 16384 a folder), each object a Blob (its text) or a Tree."""

    def entry(name: str, mode: str) -> Node:
        found = _tree_entry(fake, commit, f"{folder}/{name}" if folder else name, html)
        assert found is not None  # a listed entry is there
        return found

    listed = commit.entries(folder) or []
    prefix = f"{folder}/" if folder else ""
    inside = {p[len(prefix) :]: d for p, d in commit.tree.items() if p.startswith(prefix)}
    links = {p[len(prefix) :] for p in commit.links if p.startswith(prefix)}
    oid = git.tree_oid(inside, links)
    return _git_object("Tree", oid, html, entries=[entry(n, m) for n, m in listed])


def _tree_entry(fake: FakeGitHub, commit: git.GitCommit, path: str, html: str) -> Node | None:
    """`Commit.file(path:)`: the entry at `path`, null when none (never through a link)."""
    found = commit.entry(path)
    if found is None:
        return None
    mode, data = found
    name = path.rpartition("/")[2]
    if data is None:
        return {
            "name": name,
            "path": path,
            "mode": int(mode, 8),
            "type": "tree",
            "oid": git.tree_oid({}),
            "object": lambda: _tree_node(fake, commit, path, html),
        }
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    blob = _git_object("Blob", git.blob_oid(data), html, text=text)
    return {
        "name": name,
        "path": path,
        "mode": int(mode, 8),
        "type": "blob",
        "oid": blob["oid"],
        "object": blob,
    }


def _commit_node(fake: FakeGitHub, oid: str) -> Node:
    commit = fake._git.commits[oid]
    html = f"https://github.com/{fake.owner}/{fake.repo}/commit/{oid}"
    return {
        "tree": lambda: _tree_node(fake, commit, "", html),
        "file": lambda path: _tree_entry(fake, commit, path, html),
        "__typename": "Commit",
        "id": f"C_fake{oid}",
        "oid": oid,
        "abbreviatedOid": oid[:7],
        "commitUrl": html,
        "url": html,
        "committedDate": rules.timestamp(commit.when),
        "message": commit.message,
        "messageHeadline": commit.headline,
        "messageBody": commit.body,
    }


def _ref_node(fake: FakeGitHub, branch: str) -> Node:
    return {
        "__typename": "Ref",
        "id": f"REF_fake{fake._ref_id(branch)}",
        "name": branch,
        "prefix": git.HEADS,
        "target": _commit_node(fake, fake._git.refs[branch]),
    }


def _reaction_node(reaction: Reaction, subject: Node) -> Node:
    return {
        "__typename": "Reaction",
        "id": f"REA_fake{reaction.id}",
        "databaseId": reaction.id,
        "content": REST_REACTION[reaction.content],
        "createdAt": _stamp(reaction.created_at),
        "reactable": subject,
    }


def _repository_node(fake: FakeGitHub) -> Node:
    def issue_or_pull_request(number: int) -> Node:
        issue = fake._issues.get(number)
        if issue is None:
            raise GitHubError(
                "NOT_FOUND",
                f"Could not resolve to an issue or pull request with the number of {number}.",
            )
        return _issue_node(fake, issue)

    def issue(number: int) -> Node:
        found = fake._issues.get(number)
        if found is None or found.is_pull_request:
            raise GitHubError(
                "NOT_FOUND", f"Could not resolve to an Issue with the number of {number}."
            )
        return _issue_node(fake, found)

    def label(name: str) -> Node | None:
        found = fake._find_label(name)  # case-insensitive, like GitHub; missing: null, no error
        return _label_node(found) if found is not None else None

    def ref(qualifiedName: str) -> Node | None:
        # `refs/heads/x` first, then the short name; a branch that is not there: null, no error
        branch = qualifiedName.removeprefix(git.HEADS)
        return _ref_node(fake, branch) if branch in fake._git.refs else None

    def default_branch_ref() -> Node:
        return _ref_node(fake, fake._git.default_branch)

    def git_object(oid: str | None = None, expression: str | None = None) -> Node | None:
        # a commit by its id; what it does not know (or an expression): null, no error
        found = oid if oid in fake._git.commits else None
        return _commit_node(fake, found) if found is not None and expression is None else None

    return {
        "__typename": "Repository",
        "id": f"R_fake{REPOSITORY_ID}",
        "nameWithOwner": fake.repo_full_name,
        "issueOrPullRequest": issue_or_pull_request,
        "issue": issue,
        "label": label,
        "ref": ref,
        "defaultBranchRef": default_branch_ref,
        "object": git_object,
    }


def _split(node_id: str) -> tuple[str, int] | None:
    kind, marker, number = node_id.partition("_fake")
    if not marker or not number.isdigit():
        return None
    return kind, int(number)


def _node(fake: FakeGitHub, node_id: str) -> Node | None:
    """What ``node(id:)`` finds: issues, pull requests, comments, labels, users, the repo."""
    parts = _split(node_id)
    if parts is None:
        return None
    kind, number = parts
    if kind == "I":
        issue = fake._issue_by_id(number)
        return _issue_node(fake, issue) if issue is not None else None
    if kind == "PR":
        pull = fake._pull_by_id(number)
        return _issue_node(fake, fake._issues[pull.number]) if pull is not None else None
    if kind == "REF":
        branch = fake._branch_by_ref_id(number)
        return _ref_node(fake, branch) if branch is not None else None
    if kind == "IC":
        comment = fake._comments.get(number)
        return _comment_node(fake, comment) if comment is not None else None
    if kind == "LA":
        label = fake._label_by_id(number)
        return _label_node(label) if label is not None else None
    if kind == "U":
        login = fake._user_ids.login_of(number)
        if login is None or login.startswith("team:"):
            return None
        return _actor(fake, User.named(login))
    if kind == "R" and number == REPOSITORY_ID:
        return _repository_node(fake)
    return None
