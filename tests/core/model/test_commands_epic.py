"""The epic's comment commands: only where a command counts (opening a line of the author's
own top-level paragraph), whole words, never a question, quote or code."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.commands import EpicCommand, EpicVerb, parse_command


def epic(body: str) -> EpicCommand | None:
    """The comment's epic command (`Commands.epic`)."""
    return parse_command(body, ("approved",)).epic


V = EpicVerb


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("generate now", EpicCommand(V.generate), id="generate now"),
        pytest.param("Generate now!", EpicCommand(V.generate), id="a shouted generate now"),
        pytest.param("/generate", EpicCommand(V.generate), id="slash generate"),
        pytest.param("/generate now", EpicCommand(V.generate), id="slash generate now"),
        pytest.param(
            "Thanks.\ngenerate now please",
            EpicCommand(V.generate, "please"),
            id="generate now on a later line",
        ),
        pytest.param("generate", None, id="generate alone is a word, not a command"),
        pytest.param("generate the spec", None, id="generate in a sentence is not a command"),
        pytest.param("generate now?", None, id="a question about generating"),
        pytest.param("generated now", None, id="a longer word"),
        pytest.param("continue", EpicCommand(V.continue_), id="continue"),
        pytest.param("Continue.", EpicCommand(V.continue_), id="continue ending a sentence"),
        pytest.param(
            "continue: ask about exports",
            EpicCommand(V.continue_, "ask about exports"),
            id="continue with what to ask next",
        ),
        pytest.param(
            "/continue add an admin view",
            EpicCommand(V.continue_, "add an admin view"),
            id="slash continue with an extension",
        ),
        pytest.param("continue?", None, id="a question is not a command"),
        pytest.param("continue ?", None, id="a spaced question is not a command"),
        pytest.param("don't continue", None, id="a negation does not count"),
        pytest.param("please continue", None, id="not opening the line"),
        pytest.param("continued", None, id="continued is another word"),
        pytest.param("continue-ish", None, id="a hyphenated word"),
        pytest.param("> continue", None, id="a quoted command"),
        pytest.param("```\ncontinue\n```", None, id="a fenced command"),
        pytest.param("    continue", None, id="an indented code command"),
        pytest.param("- continue", None, id="a listed command"),
        pytest.param("# continue", None, id="a heading"),
        pytest.param("`continue`", None, id="inline code"),
        pytest.param("<!-- continue -->", None, id="an html comment"),
        pytest.param(
            "/edit call it Reports",
            EpicCommand(V.edit, "call it Reports"),
            id="edit with the change on its line",
        ),
        pytest.param(
            "/edit\nrename the export\nand drop the PDF part\n\nalso fix typos",
            EpicCommand(V.edit, "rename the export\nand drop the PDF part\nalso fix typos"),
            id="edit takes the lines after it when its own is empty",
        ),
        pytest.param("/edit", EpicCommand(V.edit), id="a bare edit"),
        pytest.param("edit the title", None, id="edit without a slash is no command"),
        pytest.param("/editor", None, id="a longer slash word"),
        pytest.param(
            "/revise the users are admins, not guests",
            EpicCommand(V.revise, "the users are admins, not guests"),
            id="revise",
        ),
        pytest.param("/REVISE\nStart over.", EpicCommand(V.revise, "Start over."), id="revise up"),
        pytest.param("/resume", EpicCommand(V.resume), id="resume"),
        pytest.param("/Resume now", EpicCommand(V.resume, "now"), id="resume with words"),
        pytest.param("resume", None, id="resume without a slash"),
        pytest.param("/resume?", None, id="resume asked"),
        pytest.param(
            "continue?\n\n/resume",
            EpicCommand(V.resume),
            id="the first command counts, questions skipped",
        ),
        pytest.param(
            "/resume\ncontinue", EpicCommand(V.resume), id="the first of two commands counts"
        ),
        pytest.param("/retry", None, id="the escalation commands are not the epic's"),
        pytest.param("", None, id="an empty comment"),
    ],
)
def test_parse_epic_command(body: str, expected: EpicCommand | None) -> None:
    assert epic(body) == expected


def test_the_verbs_read_as_their_words() -> None:
    assert [v.value for v in EpicVerb] == ["generate", "continue", "edit", "revise", "resume"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_text_without_a_command_word_is_never_a_command(text: str) -> None:
    folded = text.casefold()
    if not any(w in folded for w in ("generate", "continue", "/edit", "/revise", "/resume")):
        assert epic(text) is None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["generate now", "continue", "/edit x", "/revise y", "/resume"]),
    st.sampled_from(["> ", "- ", "* ", "    ", "# ", "1. ", "don't ", "`"]),
    st.text(alphabet="abc \n", max_size=30),
)
def test_a_command_behind_a_prefix_never_counts(command: str, prefix: str, tail: str) -> None:
    assert epic(prefix + command) is None
    body = f"{tail}\n\n```\n{command}\n```\n"
    assert epic(body) is None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["generate now", "continue", "/edit x", "/revise y", "/resume"]),
    st.text(alphabet="abc .,", max_size=30),
)
def test_a_command_opening_a_paragraph_always_counts(command: str, before: str) -> None:
    body = f"{before}\n\n{command}" if before.strip() else command
    found = epic(body)
    assert found is not None and command.lstrip("/").startswith(found.verb.value)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("continue" * 8192, id="one long word"),
        pytest.param("> continue\n" * 5958, id="quoted lines"),
        pytest.param("`" * 30000 + "continue" + "`" * 30000, id="backtick runs"),
        pytest.param("/edit\n" + "a " * 32000, id="a long edit"),
        pytest.param("[" * 32000 + "/resume" + "]" * 32000, id="brackets"),
    ],
)
def test_64_kb_adversarial_comments_are_read_fast(body: str) -> None:
    began = time.perf_counter()
    epic(body)
    assert time.perf_counter() - began < 2.0
