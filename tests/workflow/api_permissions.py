"""Every request Baton makes, mapped to the fine-grained permission GitHub asks of its token
(REST: method and route; GraphQL: the query by its operation name, a mutation by its fields).

The workflows' `permissions:` and the App token's `permission-*` inputs are checked against
this table (test_api_permissions.py), so a job grants what its commands need and nothing more.
`metadata: read` comes with every token and cannot be asked for in a workflow: it is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

READ, WRITE = "read", "write"
Grant = dict[str, str]  # permission -> read | write, as a workflow's `permissions:` spells it


@dataclass(frozen=True)
class Request:
    """One request as the fake logged it: its route or, for GraphQL, its operation and the
    mutation's fields."""

    method: str
    path: str
    operation: str | None = None
    fields: tuple[str, ...] = ()


_REPO = "/repos/{owner}/{repo}"
# (method, route, permission); None: no permission (metadata, or none at all).
REST: list[tuple[str, str, tuple[str, str] | None]] = [
    ("GET", "/rate_limit", None),
    ("GET", "/user", None),
    ("GET", _REPO, None),
    ("GET", _REPO + "/collaborators/{user}/permission", None),  # metadata
    ("GET", "/orgs/{org}/teams/{team}/memberships/{user}", ("members", READ)),
    ("GET", _REPO + "/issues", ("issues", READ)),
    ("GET", _REPO + "/issues/{number}", ("issues", READ)),
    ("PATCH", _REPO + "/issues/{number}", ("issues", WRITE)),
    ("GET", _REPO + "/issues/{number}/comments", ("issues", READ)),
    ("POST", _REPO + "/issues/{number}/comments", ("issues", WRITE)),
    ("GET", _REPO + "/issues/{number}/events", ("issues", READ)),
    ("GET", _REPO + "/issues/{number}/timeline", ("issues", READ)),
    ("POST", _REPO + "/issues/{number}/labels", ("issues", WRITE)),
    ("DELETE", _REPO + "/issues/{number}/labels/{name}", ("issues", WRITE)),
    ("GET", _REPO + "/issues/comments/{id}", ("issues", READ)),
    ("PATCH", _REPO + "/issues/comments/{id}", ("issues", WRITE)),
    ("DELETE", _REPO + "/issues/comments/{id}", ("issues", WRITE)),
    ("POST", _REPO + "/issues/comments/{id}/reactions", ("issues", WRITE)),
    ("GET", _REPO + "/labels/{name}", ("issues", READ)),
    ("POST", _REPO + "/labels", ("issues", WRITE)),
    ("PATCH", _REPO + "/labels/{name}", ("issues", WRITE)),
    ("GET", _REPO + "/pulls", ("pull-requests", READ)),
    ("POST", _REPO + "/pulls", ("pull-requests", WRITE)),
    ("GET", _REPO + "/pulls/{number}", ("pull-requests", READ)),
    ("PATCH", _REPO + "/pulls/{number}", ("pull-requests", WRITE)),
    ("GET", _REPO + "/pulls/{number}/reviews", ("pull-requests", READ)),
    ("GET", _REPO + "/pulls/{number}/reviews/{id}/comments", ("pull-requests", READ)),
    ("GET", _REPO + "/commits/{ref}/check-runs", ("checks", READ)),
    ("POST", _REPO + "/check-runs", ("checks", WRITE)),  # the evidence's check run
    ("GET", _REPO + "/branches/{branch}", ("contents", READ)),
    ("GET", _REPO + "/git/ref/{ref}", ("contents", READ)),
    ("POST", _REPO + "/merges", ("contents", WRITE)),
    ("POST", _REPO + "/dispatches", ("contents", WRITE)),
    ("POST", _REPO + "/actions/workflows/{workflow}/dispatches", ("actions", WRITE)),
    # `baton doctor`, with a maintainer's token (never a workflow's): reads only.
    ("GET", _REPO + "/contents/{name}", ("contents", READ)),
    ("GET", _REPO + "/labels", ("issues", READ)),
    ("GET", _REPO + "/actions/secrets", ("secrets", READ)),
    ("GET", _REPO + "/actions/permissions", ("administration", READ)),
    ("GET", _REPO + "/actions/permissions/workflow", ("administration", READ)),
]

# Queries, by operation name: what they read.
QUERIES: dict[str, Grant] = {
    "BatonRead": {"issues": READ, "contents": READ},  # the issue; with $ref its branch's head
    "BatonReadMany": {"issues": READ},
    "BatonSubIssues": {"issues": READ},
    "BatonTasks": {"issues": READ},
    "BatonComments": {"issues": READ},
    "BatonRecordCheck": {"issues": READ},
    "BatonBranch": {"contents": READ},
    "BatonBranchFrom": {"contents": READ},
}

# Mutation fields: what each writes.
MUTATIONS: dict[str, Grant] = {
    "addComment": {"issues": WRITE},
    "updateIssueComment": {"issues": WRITE},
    "deleteIssueComment": {"issues": WRITE},
    "addLabelsToLabelable": {"issues": WRITE},
    "removeLabelsFromLabelable": {"issues": WRITE},
    "addReaction": {"issues": WRITE},
    "createIssue": {"issues": WRITE},
    "addSubIssue": {"issues": WRITE},
    "addBlockedBy": {"issues": WRITE},
    "updatePullRequest": {"pull-requests": WRITE},
    "createPullRequest": {"pull-requests": WRITE},
    "markPullRequestReadyForReview": {"pull-requests": WRITE},
    "createRef": {"contents": WRITE},
    "createCommitOnBranch": {"contents": WRITE},
}


def _pattern(route: str) -> re.Pattern[str]:
    """`/repos/{owner}/{repo}/labels/{name}` -> an anchored regex; `{name}` and `{ref}` may
    hold slashes (a label `area/ui`, a ref `heads/baton/issue-7`)."""
    parts = re.split(r"(\{[a-z_]+\})", route)
    regex = "".join(
        (".+" if part in ("{name}", "{ref}", "{branch}") else "[^/]+")
        if part.startswith("{")
        else re.escape(part)
        for part in parts
    )
    return re.compile(f"^{regex}$")


_ROUTES = [(method, _pattern(route), route, grant) for method, route, grant in REST]


def route_of(request: Request) -> str:
    """The route template a REST request matches; KeyError when the table has no row."""
    for method, pattern, route, _ in _ROUTES:
        if method == request.method and pattern.match(request.path):
            return route
    raise KeyError(f"{request.method} {request.path}")


def needs(request: Request) -> Grant:
    """The permissions one request needs; KeyError when the table has no row for it."""
    if request.path == "/graphql":
        if request.operation in QUERIES:
            return dict(QUERIES[request.operation])
        if not request.fields:
            raise KeyError(f"GraphQL {request.operation}")
        return union(MUTATIONS[field] for field in request.fields)
    route = route_of(request)
    grant = next(g for m, _, r, g in _ROUTES if m == request.method and r == route)
    return {} if grant is None else {grant[0]: grant[1]}


def union(grants: Iterable[Mapping[str, str]]) -> Grant:
    """The least grant covering all of `grants`: write covers read."""
    total: Grant = {}
    for grant in grants:
        for scope, level in grant.items():
            if total.get(scope) != WRITE:
                total[scope] = level
    return total


_FIELD = re.compile(r"^\s*(?:\w+\s*:\s*)?(\w+)\s*\(input:", re.MULTILINE)


def mutation_fields(document: str) -> tuple[str, ...]:
    """The mutation fields of a GraphQL document (`alias: field(input: ...)`), in order; none
    for a query."""
    if not document.lstrip().startswith("mutation"):
        return ()
    return tuple(dict.fromkeys(_FIELD.findall(document)))
