"""GitHub's GraphQL API for the fake GitHub: what ``POST /graphql`` answers.

Documents are parsed, validated and run by graphql-core against ``schema.graphql``, a
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
  ``markPullRequestReadyForReview``), refused with GitHub's words (``baton.sim.model``);
- a Bot's login without the ``[bot]`` suffix REST and webhooks give it;
- connections paged by opaque cursors, ``first`` required and at most 100;
- the writes are the bot's, as over REST;
- sub-issues (``subIssues``, ``parent``, ``subIssuesSummary``, ``addSubIssue``, ``createIssue``
  with ``parentIssueId``) and "blocked by" edges (``blockedBy``, ``blocking``, ``addBlockedBy``),
  refused as GitHub refuses them (``baton.sim.model.relations.Relations``);
  ``repository.issue(number:)`` finds issues only;
- validation as the spec has it, which is at least as strict as GitHub's.

The error ``type`` of a connection's paging errors (EXCESSIVE_PAGINATION...) and some messages
are as GitHub is seen to answer, not from a documented list: GitHub documents none.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from graphql import GraphQLError, GraphQLResolveInfo, execute_sync

from baton.sim.api.base import FakeBase as FakeGitHub
from baton.sim.api.faults import error_response
from baton.sim.api.graphql_documents import (
    SCHEMA_PATH,
    invalid,
    operation_name,
    parsed,
    schema,
)
from baton.sim.api.graphql_mutations import _root
from baton.sim.api.graphql_paging import GitHubError

__all__ = ["SCHEMA_PATH", "GitHubError", "answer", "operation_name", "schema", "validation_errors"]


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


def validation_errors(query: str) -> list[str]:
    """What the endpoint would refuse ``query`` for before running anything: [] when the
    document parses and validates against the schema."""
    return [error.message for error in invalid(query)]


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
    document = parsed(body["query"])
    refused = invalid(body["query"])
    if refused or isinstance(document, GraphQLError):
        return 200, {"errors": [_format(fake, error) for error in refused]}
    died: list[int] = []  # the status of a request that died at a field
    result = execute_sync(
        schema(),
        document,
        root_value=_root(fake),
        context_value=fake,
        variable_values=variables,
        operation_name=operation,
        field_resolver=_resolve,
        middleware=[_field_faults(fake, died)],
    )
    if died:  # the fields before the fault ran; the client sees only the error status
        return died[0], error_response(died[0]).body
    out: dict[str, Any] = {}
    if result.data is not None:  # None: the variables were refused, nothing ran
        out["data"] = result.data
    if result.errors:
        out["errors"] = [_format(fake, error) for error in result.errors]
    return 200, out


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


def _field_faults(fake: FakeGitHub, died: list[int]) -> Callable[..., Any]:
    """Middleware failing the root fields a test queued with ``fail_graphql_field``; a fault
    with a status kills the request there (`died`): no later root field runs."""

    def middleware(
        next_: Callable[..., Any], root: Any, info: GraphQLResolveInfo[Any], **args: Any
    ) -> Any:
        if info.path.prev is None:
            if died:
                raise GitHubError("INTERNAL", "The request died before this field ran.")
            operation = info.operation.name.value if info.operation.name else None
            fault = fake._take_field_fault(str(info.path.key), info.field_name, operation)
            if fault is not None and fault.status is not None:
                died.append(fault.status)
                raise GitHubError("INTERNAL", "The request died at this field.")
            if fault is not None:
                message = fault.message or DEFAULT_MESSAGES.get(
                    fault.kind, f"The fake GitHub was told to fail this field ({fault.kind})."
                )
                raise GitHubError(fault.kind, message)
        return next_(root, info, **args)

    return middleware
