"""What a human comment asks for: an approval, an escalation command, or just a reply.

A command counts only where GitHub shows it as the author's own words: it must open a line of a
top-level paragraph as the comment renders. "Approved — tests look good" counts; "not approved",
"unapproved" and "is this approved?" do not, nor anything quoted, in a list or a heading, in any
code block (fenced with backticks or tildes of any length, indented, `<pre>`), in an HTML block
or comment, or on a line that renders as part of another (a form feed or U+2028 is no line
break). A CommonMark parser (markdown-it-py) says what renders how; a comment that does not
even contain a command word is answered without it, so most comments cost one linear scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


class Verb(StrEnum):
    approve = "approve"
    retry = "retry"
    skip = "skip"
    replan = "replan"


ESCALATION_VERBS = frozenset({Verb.retry, Verb.skip, Verb.replan})


@dataclass(frozen=True)
class CommentCommand:
    verb: Verb
    argument: str = ""


ESCALATION_WORDS = ("/retry", "/skip", "/replan")
_SLASH = re.compile(r"^/(retry|skip|replan)\b[ \t]*(.*)$", re.I | re.S)
_BREAKS = frozenset({"softbreak", "hardbreak"})


@cache
def _parser() -> MarkdownIt:
    """CommonMark with GitHub's tables and raw HTML; links and emphasis are left as text."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    return parser.disable(["link", "image", "emphasis", "autolink"])


def _line_text(token: Token) -> str:
    if token.type == "code_inline":
        return token.markup + token.content + token.markup
    return token.content


def live_lines(body: str) -> list[str]:
    """The rendered lines of the author's own top-level paragraphs, in order."""
    lines: list[str] = []
    tokens = _parser().parse(body)
    for opening, block in pairwise(tokens):
        if opening.type != "paragraph_open" or opening.level != 0:
            continue  # only a top-level paragraph's text: not a heading, quote, list or table
        current: list[str] = []
        for child in block.children or []:
            if child.type in _BREAKS:
                lines.append("".join(current).strip(" \t"))
                current = []
            else:
                current.append(_line_text(child))
        lines.append("".join(current).strip(" \t"))
    return [line for line in lines if line]


_live_lines = live_lines  # the old private name, still used by callers


def _approves(line: str, words: tuple[str, ...]) -> bool:
    alternatives = "|".join(re.escape(w) for w in words)
    match = re.match(rf"^/?(?:{alternatives})(?![\w-])(.*)$", line, re.I | re.S)
    if match is None:
        return False
    rest = match.group(1).strip()
    return not rest.startswith("?")


def _may_hold_a_command(body: str, words: tuple[str, ...]) -> bool:
    folded = body.casefold()
    return any(w.casefold() in folded for w in (*words, *ESCALATION_WORDS))


def parse_command(body: str, approval_words: tuple[str, ...]) -> CommentCommand | None:
    """The first command in the comment, if any."""
    if not _may_hold_a_command(body, approval_words):
        return None
    for line in live_lines(body):
        slash = _SLASH.match(line)
        if slash:
            return CommentCommand(Verb(slash.group(1).lower()), slash.group(2).strip())
        if _approves(line, approval_words):
            return CommentCommand(Verb.approve)
    return None
