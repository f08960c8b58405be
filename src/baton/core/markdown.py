"""Escaping for user text that Baton echoes into comments and job summaries.

Issue bodies, replies and agent summaries are untrusted: they must not open or close HTML (a
forged record marker, a hidden comment), break a table, or mention people en masse.
"""

from __future__ import annotations

import re

_MENTION = re.compile(r"@(?=[A-Za-z0-9-])")
_HTML = str.maketrans({"<": "&lt;", ">": "&gt;", "&": "&amp;"})


def escape(text: str) -> str:
    """Neutral inline markdown: no HTML, no @mentions, no workflow commands at line start."""
    text = text.translate(_HTML)
    text = _MENTION.sub("@\u200b", text)
    return text.replace("::", ":\u200b:")


def cell(text: str, limit: int = 160) -> str:
    """One table cell: a single line, pipes escaped, clipped."""
    flat = " ".join(escape(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat.replace("\\", "\\\\").replace("|", "\\|") or " "


def quote(text: str, limit: int = 4000) -> str:
    """A blockquote of user text, clipped, so it reads as quoted data."""
    body = escape(text.strip())
    if len(body) > limit:
        body = body[: limit - 1].rstrip() + "…"
    return "\n".join("> " + line if line else ">" for line in body.splitlines() or [""])


def code(text: str) -> str:
    """Inline code for names (states, labels, logins); a hostile label named like an HTML
    comment is broken up with a zero-width space so it can never open one."""
    return "`" + text.replace("`", "'").replace("<", "<\u200b") + "`"
