"""A mutation document runs its fields in the order they were added, each with its own
variables, and names a reaction as GraphQL spells it."""

from __future__ import annotations

from baton.github.graphql.mutation import Mutation


def test_fields_keep_their_order_and_their_own_variables() -> None:
    doc = Mutation()
    doc.update_comment("record", "IC_1", "the record")
    doc.add_comment("message", "I_7", "hello")
    text = doc.document()
    assert doc.aliases == ["record", "message"]
    assert text.index("record: updateIssueComment") < text.index("message: addComment")
    assert doc.variables == {
        "recordId": "IC_1",
        "recordBody": "the record",
        "messageSubject": "I_7",
        "messageBody": "hello",
    }
    assert text.startswith("mutation BatonWrite(")


def test_a_rest_reaction_name_is_sent_as_graphql_s_content() -> None:
    doc = Mutation()
    doc.add_reaction("reaction", "IC_1", "+1")
    assert "THUMBS_UP" in doc.variables.values() or "THUMBS_UP" in doc.document()
