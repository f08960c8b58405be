"""Strip what a human cannot see from text an agent will read.

Issue text is a prompt-injection channel: hidden HTML comments (Baton's own record among
them), zero-width and bidirectional-control characters, Unicode tag characters, and markup
that hides text. What a maintainer sees on the issue is what the agent gets.
"""

from __future__ import annotations

import re
import unicodedata

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_HIDDEN_TAGS = re.compile(
    r"<(script|style|template|noscript)\b[^>]*>.*?(?:</\1\s*>|$)", re.S | re.I
)
_HIDDEN_ATTR = re.compile(
    r"<(\w+)\b[^>]*\b(hidden|aria-hidden\s*=\s*\"?true)[^>]*>.*?(?:</\1\s*>|$)", re.S | re.I
)
_IMAGE_ALT = re.compile(r"!\[[^\]]*\]\(([^)]*)\)")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")


def _visible_char(char: str) -> bool:
    if char in "\n\t":
        return True
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F:  # Unicode tags: invisible ASCII look-alikes
        return False
    category = unicodedata.category(char)
    # Cf: format (zero-width, bidi controls); Cc: control; Co/Cn: private use, unassigned.
    return category not in {"Cf", "Cc", "Co", "Cn", "Cs"}


def visible_text(text: str) -> str:
    """The text as a reader of the rendered issue sees it, with hidden content removed."""
    text = _HTML_COMMENT.sub("", text)
    text = _HIDDEN_TAGS.sub("", text)
    text = _HIDDEN_ATTR.sub("", text)
    text = _IMAGE_ALT.sub(r"[image](\1)", text)
    text = _TAG.sub("", text)
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if _visible_char(ch))
    lines = [line.rstrip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def fence(text: str) -> str:
    """Quote untrusted text as data inside a fence it cannot close."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * (longest + 1)
    return f"{ticks}text\n{text}\n{ticks}"
