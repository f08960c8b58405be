"""What a human comment asks for: an approval, an escalation command, or just a reply.

An approval word counts only when it opens a line ("Approved — tests look good" counts;
"not approved", "unapproved", "is this approved?" and quoted or fenced text do not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Verb(StrEnum):
    approve = "approve"
    retry = "retry"
    skip = "skip"
    replan = "replan"


ESCALATION_VERBS = frozenset({Verb.retry, Verb.skip, Verb.replan})


@dataclass(frozen=True)
class Command:
    verb: Verb
    argument: str = ""


_FENCE = re.compile(r"^\s*(```|~~~)")
_SLASH = re.compile(r"^/(retry|skip|replan)\b[ \t]*(.*)$", re.I)


def _live_lines(body: str) -> list[str]:
    """Lines that are the author's own words: not quoted, not inside a code fence."""
    lines, fenced = [], False
    for raw in body.splitlines():
        if _FENCE.match(raw):
            fenced = not fenced
            continue
        stripped = raw.strip()
        if fenced or stripped.startswith(">") or not stripped:
            continue
        lines.append(stripped)
    return lines


def _approves(line: str, words: tuple[str, ...]) -> bool:
    alternatives = "|".join(re.escape(w) for w in words)
    match = re.match(rf"^/?(?:{alternatives})(?![\w-])(.*)$", line, re.I)
    if match is None:
        return False
    rest = match.group(1).strip()
    return not rest.startswith("?")


def parse_command(body: str, approval_words: tuple[str, ...]) -> Command | None:
    """The first command in the comment, if any."""
    for line in _live_lines(body):
        slash = _SLASH.match(line)
        if slash:
            return Command(Verb(slash.group(1).lower()), slash.group(2).strip())
        if _approves(line, approval_words):
            return Command(Verb.approve)
    return None
