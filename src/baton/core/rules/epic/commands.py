"""The epic's comment commands: `generate now`, `continue`, `/edit …`, `/revise …`, `/resume`.

A command counts only where `comment_commands` counts one: opening a line of a top-level
paragraph as the comment renders, so quoted, listed or code text never does, nor "don't
continue" or "continue?" (a question). `/retry`, `/skip` and `/replan` stay
`comment_commands`'s. A comment without a command word costs one linear scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from baton.core.rules.comment_commands import live_lines


class EpicVerb(StrEnum):
    generate = "generate"
    continue_ = "continue"
    edit = "edit"
    revise = "revise"
    resume = "resume"


@dataclass(frozen=True)
class EpicCommand:
    verb: EpicVerb
    argument: str = ""


WORDS = ("generate", "continue", "/edit", "/revise", "/resume")
# The word, not followed by more of a word; the rest of the line follows.
_COMMAND = re.compile(
    r"^(?:(?P<generate>/generate(?:[ \t]+now)?|generate[ \t]+now)|(?P<continue>/?continue)"
    r"|/(?P<slash>edit|revise|resume))(?![\w-])(?P<rest>.*)$",
    re.I | re.S,
)
_LEAD = " \t:,;.!—–-"  # what may separate a command from its argument


def parse_epic_command(body: str) -> EpicCommand | None:
    """The first epic command in the comment, if any. `/edit` and `/revise` without text on
    their line take the comment's own lines that follow (its top-level paragraphs)."""
    folded = body.casefold()
    if not any(word in folded for word in WORDS):
        return None
    lines = live_lines(body)
    for i, line in enumerate(lines):
        match = _COMMAND.match(line)
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
