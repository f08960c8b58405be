"""Escaping for user text that Baton echoes into comments and job summaries.

Issue bodies, replies and agent summaries are untrusted: in Baton's comment they must read as
plain text, never as Baton's own words. So they cannot open or close HTML (a forged record
marker, a hidden comment), start a heading, list, quote, code block or table, make a link or an
image, break a table row, mention people, or cross-reference other issues (`#12`, `GH-12`,
`owner/repo#12`): those would notify someone or leave a trace on another issue.

Markdown syntax is neutralised with backslash escapes (CommonMark lets any ASCII punctuation be
escaped, and the text still renders as typed); HTML with entities; mentions and references
with a zero-width space (`core.text.plaintext`: after `@` or `#`, in `GH-`, a URL's `://` and
`www.`, between two colons), since GitHub links them in the rendered text, after escapes are
gone: an issue's URL in a pull request's body closes it as `#12` does. Each function is one
linear pass.
"""

from __future__ import annotations

import re

from baton.core.text import plaintext

ZWSP = plaintext.ZWSP  # breaks a mention or a reference without changing what a reader sees
ELLIPSIS = "…"

# Inline syntax anywhere in a line: code, links and images, tables, strikethrough, math, `*`
# emphasis, and the backslash itself (so user text cannot combine with Baton's escapes). `_`
# is left alone: it is common in names (`creating_tests`) and only ever makes emphasis.
_INLINE = str.maketrans(
    {
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "~": "\\~",
        "$": "\\$",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
    }
)
# What starts a block only at the beginning of a line: a heading, a list item, a setext
# underline or a thematic break (`*`, `` ` `` and `~` are already escaped everywhere).
_BLOCK_START = re.compile(r"^(?:([-+=#_])|(\d{1,9})(?=[.)]))")


def _escape_block_start(match: re.Match[str]) -> str:
    marker, number = match.groups()
    return "\\" + marker if marker else number + "\\"


def escape(text: str) -> str:
    """One line of neutral text: no markup, no HTML, no mentions or references, no workflow
    command; line breaks become spaces (multi-line text belongs in `quote`)."""
    flat = " ".join(text.split()).translate(_INLINE)
    flat = _BLOCK_START.sub(_escape_block_start, flat)
    return plaintext.break_references(flat)


def _safe_cut(escaped: str) -> str:
    """Drop a partial escape at the end of a cut: a cut `&amp;` or a lone backslash would
    change what the next character means."""
    entity = escaped.rfind("&", max(len(escaped) - 4, 0))
    if entity != -1 and ";" not in escaped[entity:]:
        escaped = escaped[:entity]
    escaped = escaped.rstrip()
    if (len(escaped) - len(escaped.rstrip("\\"))) % 2:
        escaped = escaped[:-1]
    return escaped


def clip(escaped: str, limit: int) -> str:
    """Escaped text cut to at most `limit` characters, the cut marked with an ellipsis."""
    if len(escaped) <= limit:
        return escaped
    return _safe_cut(escaped[: max(limit - 1, 0)]) + ELLIPSIS


def cell(text: str, limit: int = 160) -> str:
    """One table cell: a single line with pipes escaped, clipped; never empty."""
    return clip(escape(text), limit) or " "


def quote(text: str, limit: int = 4000) -> str:
    """A blockquote of user text, each line escaped, at most `limit` characters in all, so it
    reads as quoted data and no line of it can pass for Baton's own."""
    lines = text.strip().splitlines() or [""]
    full = "\n".join("> " + escape(line) if line.strip() else ">" for line in lines)
    if len(full) <= limit:
        return full
    head = full[: max(limit - 1, 1)]
    start = head.rfind("\n") + 1
    last = _safe_cut(head[start:])
    if last.rstrip("> ") or not start:
        return head[:start] + (last or ">") + ELLIPSIS
    return head[: start - 1] + ELLIPSIS  # nothing of the last line fits: end the one before


def code(text: str) -> str:
    """Inline code for names (states, labels, logins); a hostile label named like an HTML
    comment is broken up with a zero-width space so it can never open one."""
    return "`" + text.replace("`", "'").replace("<", "<" + ZWSP) + "`"
