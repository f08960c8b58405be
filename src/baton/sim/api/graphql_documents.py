"""GraphQL documents as GitHub's endpoint reads them: parsed and validated against the schema
(`schema.graphql`, a trimmed copy of GitHub's public schema), once per document text.

A run sends the same few documents again and again; graphql-core's parse and validation of one
costs milliseconds, so both are cached by the document's text (a parsed document is only read
by the execution, never changed). The operation a body names is read here too, for the
request log and the faults queued by operation.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    build_schema,
    parse,
    validate,
)

SCHEMA_PATH = Path(__file__).with_name("schema.graphql")
DOCUMENTS_KEPT = 512  # distinct documents a process keeps parsed (Baton sends a few dozen)


@cache
def schema() -> GraphQLSchema:
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=DOCUMENTS_KEPT)
def parsed(query: str) -> DocumentNode | GraphQLError:
    """The document, or the error it does not parse for."""
    try:
        return parse(query)
    except GraphQLError as error:
        return error


@lru_cache(maxsize=DOCUMENTS_KEPT)
def invalid(query: str) -> tuple[GraphQLError, ...]:
    """What the schema refuses in the (parsed) document: the spec's validation, strictly —
    stricter than GitHub's graphql-ruby (which long let two fields of different types share a
    response key on exclusive types), so a document that passes here passes there."""
    document = parsed(query)
    if isinstance(document, GraphQLError):
        return (document,)
    return tuple(validate(schema(), document))


def operation_name(body: Any) -> str | None:
    """The name of the operation a ``POST /graphql`` body would run (``BatonRead``...), for
    the request log and faults; None when it has none or does not parse."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return None
    document = parsed(body["query"])
    if isinstance(document, GraphQLError):
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    wanted = body.get("operationName")
    for operation in operations:
        name = operation.name.value if operation.name else None
        if (wanted is None and len(operations) == 1) or (wanted is not None and name == wanted):
            return name
    return None
