"""GitHub's GraphQL API for the fake GitHub: what ``POST /graphql`` answers.

Documents are parsed, validated and run by graphql-core against ``github_schema.graphql``, a
trimmed copy of GitHub's public schema, so a document GitHub would refuse (a field it lacks, a
wrong argument type) is refused here too. The resolvers read and change the ``FakeGitHub``'s own
state through its helpers, with its lock held for the whole document: REST and GraphQL always see
the same issues, comments, labels, events and reactions, and bump ``updated_at`` alike.

What GitHub does, and this does too:

- a document that does not parse or validate: HTTP 200, ``errors`` (message, locations) and no
  ``data`` key; nothing ran;
- a field that fails: ``null`` in ``data`` and an error naming GitHub's ``type`` (NOT_FOUND,
  UNPROCESSABLE, FORBIDDEN...), the ``path`` by response keys (aliases), ``locations`` and a
  ``message``;
- mutation fields run one after another in document order, and those after a failed one still
  run (graphql-core executes mutations serially);
- node ids as the REST fake renders ``node_id`` (``I_fake{id}``, ``IC_fake{id}``,
  ``LA_fake{id}``, ``U_fake{id}``, ``PR_fake{id}``, ``REF_fake{id}``), so ids read over REST
  work in GraphQL and back;
- the repository's branches and commits (``ref``, ``defaultBranchRef``, ``createRef``,
  ``createCommitOnBranch`` with its compare-and-swap) and pull requests (``updatePullRequest``,
  ``markPullRequestReadyForReview``), refused with GitHub's words (``baton.sim.github``);
- a Bot's login without the ``[bot]`` suffix REST and webhooks give it;
- connections paged by opaque cursors, ``first`` required and at most 100;
- the writes are the bot's, as over REST;
- sub-issues (``subIssues``, ``parent``, ``subIssuesSummary``, ``addSubIssue``, ``createIssue``
  with ``parentIssueId``) and "blocked by" edges (``blockedBy``, ``blocking``, ``addBlockedBy``),
  refused as GitHub refuses them (``baton.sim.github.relations.Relations``);
  ``repository.issue(number:)`` finds issues only;
- validation as the spec has it, which is at least as strict as GitHub's.

The error ``type`` of a connection's paging errors (EXCESSIVE_PAGINATION...) and some messages
are as GitHub is seen to answer, not from a documented list: GitHub documents none.
"""

from __future__ import annotations

import base64
import binascii
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLResolveInfo,
    GraphQLSchema,
    OperationDefinitionNode,
    build_schema,
    execute_sync,
    parse,
    validate,
)

from baton.sim.github import git, relations, rules
from baton.sim.github.issues import Comment, Issue, Label, Reaction, User
from baton.sim.github.pulls import PullRequest
from fakes.http_github import REPOSITORY_ID, FakeGitHub
from fakes.http_wire import ApiError

__all__ = ["SCHEMA_PATH", "GitHubError", "answer", "operation_name", "schema", "validation_errors"]

SCHEMA_PATH = Path(__file__).with_name("github_schema.graphql")
PAGE_LIMIT = 100  # GitHub's most for `first` on any connection
CURSOR_PREFIX = "cursor:v2:"


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

# What a failed field says when a test injects the failure without a message.
DEFAULT_MESSAGES = {
    "NOT_FOUND": "Could not resolve to a node with the global id of 'injected'.",
    "FORBIDDEN": "Resource not accessible by integration",
    "UNPROCESSABLE": "The fake GitHub was told to refuse this field.",
}
INTERNAL_ERROR = (
    "Something went wrong while executing your query. This may be the result of a timeout, "
    "or it could be a GitHub bug. Please include `FAKE` when reporting this issue."
)

Node = dict[str, Any]
_Item = TypeVar("_Item")


class GitHubError(Exception):
    """A field's failure as GitHub reports it: an error ``type`` and a message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@cache
def schema() -> GraphQLSchema:
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the endpoint


def operation_name(body: Any) -> str | None:
    """The name of the operation a ``POST /graphql`` body would run (``BatonRead``...), for
    the request log and faults; None when it has none or does not parse."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return None
    try:
        document = parse(body["query"])
    except GraphQLError:
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    wanted = body.get("operationName")
    for operation in operations:
        name = operation.name.value if operation.name else None
        if (wanted is None and len(operations) == 1) or (wanted is not None and name == wanted):
            return name
    return None


def validation_errors(query: str) -> list[str]:
    """What the endpoint would refuse ``query`` for before running anything: [] when the
    document parses and validates against the schema."""
    try:
        document = parse(query)
    except GraphQLError as error:
        return [error.message]
    return [error.message for error in _validate(document)]


def answer(fake: FakeGitHub, body: Any) -> tuple[int, dict[str, Any]]:
    """The HTTP status and JSON body GitHub would give a ``POST /graphql`` with ``body``.
    Runs with the fake's lock held, like every handler."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return 200, _refused("A query attribute must be specified and must be a string.")
    variables = body.get("variables")
    if variables is None:
        variables = {}
    if not isinstance(variables, dict):
        return 200, _refused("Variables are invalid JSON.")
    operation = body.get("operationName")
    if operation is not None and not isinstance(operation, str):
        return 200, _refused("Operation name must be a string.")
    try:
        document = parse(body["query"])
    except GraphQLError as error:
        return 200, {"errors": [_format(fake, error)]}
    invalid = _validate(document)
    if invalid:
        return 200, {"errors": [_format(fake, error) for error in invalid]}
    result = execute_sync(
        schema(),
        document,
        root_value=_root(fake),
        context_value=fake,
        variable_values=variables,
        operation_name=operation,
        field_resolver=_resolve,
        middleware=[_field_faults(fake)],
    )
    out: dict[str, Any] = {}
    if result.data is not None:  # None: the variables were refused, nothing ran
        out["data"] = result.data
    if result.errors:
        out["errors"] = [_format(fake, error) for error in result.errors]
    return 200, out


def _validate(document: DocumentNode) -> list[GraphQLError]:
    """The spec's validation, strictly: stricter than GitHub's graphql-ruby (which long let two
    fields of different types share a response key on exclusive types), so a document that
    passes here passes there."""
    return list(validate(schema(), document))


def _refused(message: str) -> dict[str, Any]:
    return {"errors": [{"message": message}]}


def _format(fake: FakeGitHub, error: GraphQLError) -> dict[str, Any]:
    """One error as GitHub writes it: ``type`` (for field errors), ``path``, ``locations``,
    ``message``."""
    out: dict[str, Any] = {}
    message = error.message
    original = error.original_error
    if isinstance(original, GitHubError):
        out["type"] = original.kind
    elif original is not None and not isinstance(original, GraphQLError):
        # A bug in the fake: keep serving, surface it.
        details = "".join(traceback.format_exception(original))
        fake.internal_errors.append(details)
        print(details, file=sys.stderr)
        message = INTERNAL_ERROR
    if error.path is not None:
        out["path"] = list(error.path)
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    out["message"] = message
    return out


def _resolve(source: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
    """Nodes are dicts; a callable entry is a field with arguments, computed when asked."""
    value = (
        source.get(info.field_name)
        if isinstance(source, Mapping)
        else getattr(source, info.field_name, None)
    )
    return value(**args) if callable(value) else value


def _field_faults(fake: FakeGitHub) -> Callable[..., Any]:
    """Middleware failing the root fields a test queued with ``fail_graphql_field``."""

    def middleware(
        next_: Callable[..., Any], root: Any, info: GraphQLResolveInfo[Any], **args: Any
    ) -> Any:
        if info.path.prev is None:
            operation = info.operation.name.value if info.operation.name else None
            fault = fake._take_field_fault(str(info.path.key), operation)
            if fault is not None:
                message = fault.message or DEFAULT_MESSAGES.get(
                    fault.kind, f"The fake GitHub was told to fail this field ({fault.kind})."
                )
                raise GitHubError(fault.kind, message)
        return next_(root, info, **args)

    return middleware


# --------------------------------------------------------------------------- errors


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


# --------------------------------------------------------------------------- nodes


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


def _commit_node(fake: FakeGitHub, oid: str) -> Node:
    commit = fake._git.commits[oid]
    html = f"https://github.com/{fake.owner}/{fake.repo}/commit/{oid}"
    return {
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

    return {
        "__typename": "Repository",
        "id": f"R_fake{REPOSITORY_ID}",
        "nameWithOwner": fake.repo_full_name,
        "issueOrPullRequest": issue_or_pull_request,
        "issue": issue,
        "label": label,
        "ref": ref,
        "defaultBranchRef": default_branch_ref,
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


def _issue_for(fake: FakeGitHub, node_id: str) -> Issue:
    """The issue (or pull request) a node id names: an `I_` or a `PR_` id."""
    parts = _split(node_id)
    issue = fake._issue_by_id(parts[1]) if parts is not None and parts[0] == "I" else None
    if parts is not None and parts[0] == "PR":
        issue = fake._issues[pull.number] if (pull := fake._pull_by_id(parts[1])) else None
    if issue is None:
        raise _not_a_node(node_id)
    return issue


def _plain_issue_for(fake: FakeGitHub, node_id: str) -> Issue:
    """An issue, not a pull request: what sub-issues and dependencies take."""
    parts = _split(node_id)
    issue = fake._issue_by_id(parts[1]) if parts is not None and parts[0] == "I" else None
    if issue is None or issue.is_pull_request:
        raise GitHubError(
            "NOT_FOUND", f"Could not resolve to Issue node with the global id of '{node_id}'."
        )
    return issue


def _pull_for(fake: FakeGitHub, node_id: str) -> PullRequest:
    parts = _split(node_id)
    pull = fake._pull_by_id(parts[1]) if parts is not None and parts[0] == "PR" else None
    if pull is None:
        raise _not_a_node(node_id)
    return pull


def _from_git(refusal: git.GitRefusal) -> GitHubError:
    """A refusal of the repository as GraphQL reports it. GitHub documents none of these
    types; STALE_DATA is what `createCommitOnBranch` is seen to answer on a moved head."""
    kinds = {"stale": "STALE_DATA", "no_branch": "NOT_FOUND", "workflow": "FORBIDDEN"}
    return GitHubError(kinds.get(refusal.kind, "UNPROCESSABLE"), refusal.message)


def _committable_branch(fake: FakeGitHub, branch: dict[str, Any]) -> str:
    """The branch a `CommittableBranch` names: by the ref's node id, or by the repository's
    name with owner and the branch's name (`refs/heads/` optional)."""
    if branch.get("id") is not None:
        parts = _split(branch["id"])
        found = fake._branch_by_ref_id(parts[1]) if parts and parts[0] == "REF" else None
        if found is None:
            raise _not_a_node(branch["id"])
        return found
    where, name = branch.get("repositoryNameWithOwner"), branch.get("branchName")
    if not where or not name:
        raise GitHubError(
            "UNPROCESSABLE",
            "A branch must be given by its id or by repositoryNameWithOwner and branchName.",
        )
    if where.casefold() != fake.repo_full_name.casefold():
        raise GitHubError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{where}'."
        )
    return str(name).removeprefix(git.HEADS)


def _comment_for(fake: FakeGitHub, node_id: str) -> Comment:
    parts = _split(node_id)
    comment = fake._comments.get(parts[1]) if parts is not None and parts[0] == "IC" else None
    if comment is None:
        raise _not_a_node(node_id)
    return comment


def _labels_for(fake: FakeGitHub, node_ids: Sequence[str]) -> list[Label]:
    """Every label named, or NOT_FOUND before anything is changed."""
    found = []
    for node_id in node_ids:
        parts = _split(node_id)
        label = fake._label_by_id(parts[1]) if parts is not None and parts[0] == "LA" else None
        if label is None:
            raise _not_a_node(node_id)
        found.append(label)
    return found


# --------------------------------------------------------------------------- connections


def _cursor(key: int) -> str:
    return base64.b64encode(f"{CURSOR_PREFIX}{key}".encode()).decode()


def _after_key(after: str) -> int:
    try:
        text = base64.b64decode(after, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        text = ""
    number = text.removeprefix(CURSOR_PREFIX)
    if not text.startswith(CURSOR_PREFIX) or not number.isdigit():
        raise GitHubError(
            "INVALID_CURSOR_ARGUMENTS", f"`{after}` does not appear to be a valid cursor."
        )
    return int(number)


def _connection(
    name: str,
    items: Sequence[_Item],
    first: int | None,
    after: str | None,
    key: Callable[[_Item], int],
    render: Callable[[_Item], Node],
) -> Node:
    """A page of ``items`` (ordered by ``key``) as GitHub's connection types shape it."""
    if first is None:
        raise GitHubError(
            "MISSING_PAGINATION_BOUNDARIES",
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
        )
    if first > PAGE_LIMIT:
        raise GitHubError(
            "EXCESSIVE_PAGINATION",
            f"Requesting {first} records on the `{name}` connection exceeds the `first` limit "
            f"of {PAGE_LIMIT} records.",
        )
    if first < 0:
        raise GitHubError(
            "INVALID_ARGUMENTS", f"`first` on the `{name}` connection cannot be less than zero."
        )
    start = 0
    if after is not None:
        after_key = _after_key(after)  # a cursor stays good when its own item is deleted
        start = next((i for i, item in enumerate(items) if key(item) > after_key), len(items))
    page = items[start : start + first]
    edges = [{"cursor": _cursor(key(item)), "node": render(item)} for item in page]
    return {
        "edges": edges,
        "nodes": [edge["node"] for edge in edges],
        "pageInfo": {
            "hasNextPage": start + len(page) < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
        "totalCount": len(items),
    }


# --------------------------------------------------------------------------- root fields


def _root(fake: FakeGitHub) -> Node:
    """Query and Mutation fields (their names do not clash, so one root serves both)."""

    def repository(owner: str, name: str, followRenames: bool = True) -> Node:
        if (owner.casefold(), name.casefold()) != (fake.owner.casefold(), fake.repo.casefold()):
            raise GitHubError(
                "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
            )
        return _repository_node(fake)

    def node(id: str) -> Node:
        found = _node(fake, id)
        if found is None:
            raise _not_a_node(id)
        return found

    def add_comment(input: dict[str, Any]) -> Node:
        issue = _issue_for(fake, input["subjectId"])
        try:
            text = fake._body_text("IssueComment", input["body"], required=True)
        except ApiError as error:
            raise _from_rest(error) from None
        comment = fake._create_comment(issue, text, fake._bot, "NONE")
        return {
            "clientMutationId": input.get("clientMutationId"),
            "commentEdge": {"cursor": _cursor(comment.id), "node": _comment_node(fake, comment)},
            "subject": _issue_node(fake, issue),
        }

    def update_issue_comment(input: dict[str, Any]) -> Node:
        comment = _comment_for(fake, input["id"])
        try:
            text = fake._body_text("IssueComment", input["body"], required=True)
        except ApiError as error:
            raise _from_rest(error) from None
        fake._set_comment_body(comment, text)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "issueComment": _comment_node(fake, comment),
        }

    def delete_issue_comment(input: dict[str, Any]) -> Node:
        fake._remove_comment(_comment_for(fake, input["id"]))
        return {"clientMutationId": input.get("clientMutationId")}

    def add_labels(input: dict[str, Any]) -> Node:
        issue = _issue_for(fake, input["labelableId"])
        if input.get("labelIds") is None:
            raise GitHubError("UNPROCESSABLE", "Either labelIds or labels must be provided.")
        labels = _labels_for(fake, input["labelIds"])
        # Already applied: nothing happens, as over REST; new ones are `labeled` by the bot.
        fake._add_labels(issue, [label.name for label in labels], fake._bot)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "labelable": _issue_node(fake, issue),
        }

    def remove_labels(input: dict[str, Any]) -> Node:
        issue = _issue_for(fake, input["labelableId"])
        for label in _labels_for(fake, input["labelIds"]):
            if label.name in issue.labels:  # not applied: nothing happens, no error
                fake._remove_label(issue, label.name, fake._bot)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "labelable": _issue_node(fake, issue),
        }

    def add_reaction(input: dict[str, Any]) -> Node:
        subject_id = input["subjectId"]
        parts = _split(subject_id)
        subject: Node
        if parts is not None and parts[0] == "I" and (issue := fake._issue_by_id(parts[1])):
            reactions, subject = issue.reactions, _issue_node(fake, issue)
        elif parts is not None and parts[0] == "IC" and (comment := fake._comments.get(parts[1])):
            reactions, subject = comment.reactions, _comment_node(fake, comment)
        else:
            raise _not_a_node(subject_id)
        reaction, _ = fake._add_reaction(reactions, REACTION_CONTENT[input["content"]])
        return {
            "clientMutationId": input.get("clientMutationId"),
            "reaction": _reaction_node(reaction, subject),
            "subject": subject,
        }

    def create_issue(input: dict[str, Any]) -> Node:
        """The bot opens an issue, with its labels, and as `parentIssueId`'s sub-issue in the
        same step: refused whole (nothing created) when the parent is full."""
        if input["repositoryId"] != f"R_fake{REPOSITORY_ID}":
            raise _not_a_node(input["repositoryId"])
        title = input["title"]
        if not title.strip():
            raise GitHubError("UNPROCESSABLE", "Title can't be blank")
        try:
            body = fake._body_text("Issue", input.get("body"), required=False)
        except ApiError as error:
            raise _from_rest(error) from None
        labels = _labels_for(fake, input.get("labelIds") or [])
        parent = None
        if input.get("parentIssueId") is not None:
            parent = _plain_issue_for(fake, input["parentIssueId"])
            try:
                fake._relations.check_sub_issue(parent.number)
            except relations.RelationRefusal as refused:
                raise GitHubError("UNPROCESSABLE", refused.message) from None
        number = fake.add_issue(
            title,
            body,
            user=fake.bot_login,
            user_type="Bot",
            labels=[label.name for label in labels],
        )
        if parent is not None:
            fake._relations.add_sub_issue(parent.number, number)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "issue": _issue_node(fake, fake._issues[number]),
        }

    def add_sub_issue(input: dict[str, Any]) -> Node:
        parent = _plain_issue_for(fake, input["issueId"])
        if input.get("subIssueId") is not None:
            child = _plain_issue_for(fake, input["subIssueId"])
        elif input.get("subIssueUrl") is not None:
            url = str(input["subIssueUrl"])
            prefix = f"https://github.com/{fake.repo_full_name}/issues/"
            number = url.removeprefix(prefix)
            found = fake._issues.get(int(number)) if number.isdigit() else None
            if not url.startswith(prefix) or found is None or found.is_pull_request:
                raise GitHubError("NOT_FOUND", f"Could not resolve to an issue at {url}.")
            child = found
        else:
            raise GitHubError("UNPROCESSABLE", "Either subIssueId or subIssueUrl must be given.")
        try:
            fake._relations.add_sub_issue(
                parent.number, child.number, replace_parent=bool(input.get("replaceParent"))
            )
        except relations.RelationRefusal as refused:
            raise GitHubError("UNPROCESSABLE", refused.message) from None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "issue": _issue_node(fake, parent),
            "subIssue": _issue_node(fake, child),
        }

    def add_blocked_by(input: dict[str, Any]) -> Node:
        issue = _plain_issue_for(fake, input["issueId"])
        blocking = _plain_issue_for(fake, input["blockingIssueId"])
        try:
            fake._relations.add_blocked_by(issue.number, blocking.number)
        except relations.RelationRefusal as refused:
            raise GitHubError("UNPROCESSABLE", refused.message) from None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "issue": _issue_node(fake, issue),
            "blockingIssue": _issue_node(fake, blocking),
        }

    def create_ref(input: dict[str, Any]) -> Node:
        if input["repositoryId"] != f"R_fake{REPOSITORY_ID}":
            raise _not_a_node(input["repositoryId"])
        name: str = input["name"]
        if not name.startswith(git.HEADS):
            # Tags and other refs exist on GitHub; the fake keeps branches only.
            raise GitHubError("UNPROCESSABLE", f"The fake GitHub creates branches only: {name}")
        branch = name.removeprefix(git.HEADS)
        try:
            fake._git.create_branch(branch, input["oid"])
        except git.GitRefusal as refused:
            raise _from_git(refused) from None
        return {"clientMutationId": input.get("clientMutationId"), "ref": _ref_node(fake, branch)}

    def create_commit_on_branch(input: dict[str, Any]) -> Node:
        branch = _committable_branch(fake, input["branch"])
        changes = input.get("fileChanges") or {}
        additions: dict[str, bytes] = {}
        for addition in changes.get("additions") or []:
            try:
                additions[addition["path"]] = base64.b64decode(addition["contents"], validate=True)
            except (binascii.Error, ValueError):
                raise GitHubError(
                    "UNPROCESSABLE", f"The contents of {addition['path']} are not base64."
                ) from None
        deletions = [deletion["path"] for deletion in changes.get("deletions") or []]
        message = input["message"]
        text = message["headline"] + (f"\n\n{message['body']}" if message.get("body") else "")
        bot = fake.bot_login
        try:
            made = fake._git.commit(
                branch,
                expected_head=input["expectedHeadOid"],
                additions=additions,
                deletions=deletions,
                message=text,
                author=bot,
                email=f"{rules.GITHUB_ACTIONS_BOT_ID}+{bot}@users.noreply.github.com",
                when=fake.now,
                workflows=fake.workflows_permission,
            )
        except git.GitRefusal as refused:
            raise _from_git(refused) from None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "commit": _commit_node(fake, made.oid),
            "ref": _ref_node(fake, branch),
        }

    def update_pull_request(input: dict[str, Any]) -> Node:
        pull = _pull_for(fake, input["pullRequestId"])
        issue = fake._issues[pull.number]
        try:
            text = fake._body_text("PullRequest", input.get("body"), required=False)
        except ApiError as error:
            raise _from_rest(error) from None
        title = input.get("title")
        if title is not None and not title.strip():
            raise GitHubError("UNPROCESSABLE", "Title can't be blank")
        base = input.get("baseRefName")
        if base is not None and base not in fake._git.refs:
            raise GitHubError("UNPROCESSABLE", f"Base ref {base} does not exist")
        if input.get("body") is not None:
            issue.body = text
        if title is not None:
            issue.title = title
        if base is not None:
            pull.base = base
        fake._store.touch(issue)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "actor": _actor(fake, fake._bot),
            "pullRequest": _issue_node(fake, issue),
        }

    def mark_ready(input: dict[str, Any]) -> Node:
        pull = _pull_for(fake, input["pullRequestId"])
        issue = fake._issues[pull.number]
        if pull.draft:  # one that is ready already stays so, no error
            pull.draft = False
            fake._store.touch(issue)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "pullRequest": _issue_node(fake, issue),
        }

    return {
        "repository": repository,
        "node": node,
        "addComment": add_comment,
        "updateIssueComment": update_issue_comment,
        "deleteIssueComment": delete_issue_comment,
        "addLabelsToLabelable": add_labels,
        "removeLabelsFromLabelable": remove_labels,
        "addReaction": add_reaction,
        "createRef": create_ref,
        "createIssue": create_issue,
        "addSubIssue": add_sub_issue,
        "addBlockedBy": add_blocked_by,
        "createCommitOnBranch": create_commit_on_branch,
        "updatePullRequest": update_pull_request,
        "markPullRequestReadyForReview": mark_ready,
    }
