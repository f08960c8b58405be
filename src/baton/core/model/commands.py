"""What a human comment asks for, read once: an approval, an escalation command, an epic's
command, or just a reply. The one place a comment's body becomes its command.

A command counts only where GitHub shows it as the author's own words: it must open a line of a
top-level paragraph as the comment renders. "Approved — tests look good" counts; "not approved",
"unapproved" and "is this approved?" do not, nor anything quoted, in a list or a heading, in any
code block (fenced with backticks or tildes of any length, indented, `<pre>`), in an HTML block
or comment, or on a line that renders as part of another (a form feed or U+2028 is no line
break). A CommonMark parser (markdown-it-py) says what renders how; a comment that does not
even contain a command word is answered without it, so most comments cost one linear scan.

The approval words are the policy's (`approval_words`); `/retry`, `/skip` and `/replan` are
every workflow's. An epic's own commands (`generate now`, `continue`, `/edit …`, `/revise …`,
`/resume`) follow the same rule, and "don't continue" or "continue?" (a question) is none.

`parse_command` is called where an event is made from what GitHub sent
(`core.model.events.commented`), and by the fast path's triage, which runs before pydantic is
imported (`tests/test_architecture.py` holds that); it keeps its last answer, so a comment the
fast path parsed is not parsed again when its event is made. The rules read the event's
fields. Standard library only, no `dataclasses` either (markdown-it-py is imported when a
comment holds a command word).
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache, lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


class Verb(StrEnum):
    approve = "approve"
    retry = "retry"
    skip = "skip"
    replan = "replan"


ESCALATION_VERBS = frozenset({Verb.retry, Verb.skip, Verb.replan})


class CommentCommand(NamedTuple):
    verb: Verb
    argument: str = ""


class EpicVerb(StrEnum):
    generate = "generate"
    continue_ = "continue"
    edit = "edit"
    revise = "revise"
    resume = "resume"


class EpicCommand(NamedTuple):
    verb: EpicVerb
    argument: str = ""


class Commands(NamedTuple):
    """A comment's commands: the first common one and the first epic one, each if any."""

    common: CommentCommand | None = None
    epic: EpicCommand | None = None


ESCALATION_WORDS = ("/retry", "/skip", "/replan")
EPIC_WORDS = ("generate", "continue", "/edit", "/revise", "/resume")
_SLASH = re.compile(r"^/(retry|skip|replan)\b[ \t]*(.*)$", re.I | re.S)
# The word, not followed by more of a word; the rest of the line follows.
_EPIC = re.compile(
    r"^(?:(?P<generate>/generate(?:[ \t]+now)?|generate[ \t]+now)|(?P<continue>/?continue)"
    r"|/(?P<slash>edit|revise|resume))(?![\w-])(?P<rest>.*)$",
    re.I | re.S,
)
_LEAD = " \t:,;.!—–-"  # what may separate an epic's command from its argument
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


def _approves(line: str, words: tuple[str, ...]) -> bool:
    alternatives = "|".join(re.escape(w) for w in words)
    match = re.match(rf"^/?(?:{alternatives})(?![\w-])(.*)$", line, re.I | re.S)
    if match is None:
        return False
    rest = match.group(1).strip()
    return not rest.startswith("?")


def _common(lines: list[str], approval_words: tuple[str, ...]) -> CommentCommand | None:
    for line in lines:
        slash = _SLASH.match(line)
        if slash:
            return CommentCommand(Verb(slash.group(1).lower()), slash.group(2).strip())
        if _approves(line, approval_words):
            return CommentCommand(Verb.approve)
    return None


def _epic(lines: list[str]) -> EpicCommand | None:
    """`/edit` and `/revise` without text on their line take the comment's own lines that
    follow (its top-level paragraphs)."""
    for i, line in enumerate(lines):
        match = _EPIC.match(line)
        if match is None:
            continue
        rest = match.group("rest").strip()
        if rest.startswith("?"):
            continue  # "continue?" asks; it does not say
        argument = rest.lstrip(_LEAD).strip()
        if match.group("generate"):
            return EpicCommand(EpicVerb.generate, argument)
        if match.group("continue"):
            return EpicCommand(EpicVerb.continue_, argument)
        verb = EpicVerb(match.group("slash").lower())
        if verb in (EpicVerb.edit, EpicVerb.revise) and not argument:
            argument = "\n".join(lines[i + 1 :])
        return EpicCommand(verb, argument)
    return None


@lru_cache(maxsize=1)
def parse_command(body: str, approval_words: tuple[str, ...]) -> Commands:
    """The comment's first common command and first epic command, each if any; the body is
    rendered at most once, and not at all without a command word. The last answer is kept: a
    run's triage and the maker of its event ask of the same comment, which is parsed once."""
    folded = body.casefold()
    common = any(w.casefold() in folded for w in (*approval_words, *ESCALATION_WORDS))
    epic = any(word in folded for word in EPIC_WORDS)
    if not (common or epic):
        return Commands()
    lines = live_lines(body)
    return Commands(
        _common(lines, approval_words) if common else None, _epic(lines) if epic else None
    )
