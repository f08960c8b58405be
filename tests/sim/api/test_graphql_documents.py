"""A document is parsed and validated once per text: a run sends the same few again and again."""

from __future__ import annotations

from unittest import mock

from graphql import GraphQLError

from baton.github.graphql.issues import COMMENTS_PAGE as READ_ISSUE
from baton.sim.api import graphql_documents


def test_the_same_document_is_parsed_and_validated_once() -> None:
    graphql_documents.parsed.cache_clear()
    graphql_documents.invalid.cache_clear()
    with (
        mock.patch.object(graphql_documents, "parse", wraps=graphql_documents.parse) as parse,
        mock.patch.object(
            graphql_documents, "validate", wraps=graphql_documents.validate
        ) as validate,
    ):
        for _ in range(3):
            assert graphql_documents.invalid(READ_ISSUE) == ()
            assert graphql_documents.operation_name({"query": READ_ISSUE}) is not None
    assert (parse.call_count, validate.call_count) == (1, 1)


def test_a_document_that_does_not_parse_is_refused_for_it_and_names_no_operation() -> None:
    refused = graphql_documents.invalid("query {")
    assert len(refused) == 1 and isinstance(refused[0], GraphQLError)
    assert "Syntax Error" in refused[0].message
    assert graphql_documents.operation_name({"query": "query {"}) is None


def test_the_operation_run_is_the_one_named_or_the_only_one() -> None:
    two = "query A { viewer { login } } query B { viewer { login } }"
    assert graphql_documents.operation_name({"query": two, "operationName": "B"}) == "B"
    assert graphql_documents.operation_name({"query": two}) is None
    assert graphql_documents.operation_name({"query": "query A { viewer { login } }"}) == "A"
    assert graphql_documents.operation_name({"query": 3}) is None
