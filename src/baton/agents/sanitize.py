"""Strip what a human cannot see from text an agent will read.

Issue text is a prompt-injection channel: HTML comments (Baton's own record among them),
elements that are hidden or never shown, image alt text, link reference definitions and
titles, code-block info strings, and invisible code points all reach an agent that reads the
source, while a maintainer reading the issue sees none of them. So the text is rendered as
GitHub renders it (markdown-it-py: CommonMark with raw HTML, line breaks kept) and the HTML is
read back with a real HTML parser (`html.parser`), keeping what a reader sees: the words, code,
link targets, and the shape of headings, lists, quotes and tables. Every pass is linear.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# Elements whose content is never shown, and the attributes that hide an element.
NEVER_SHOWN = frozenset({"script", "style", "template", "noscript"})
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
BLOCKS = frozenset(
    {"p", "div", "pre", "blockquote", "table", "details", "summary", "dl", "dt", "dd"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "figure", "figcaption"}
)
LINES = frozenset({"li", "tr"})  # each starts a line, but not a block of its own
LISTS = frozenset({"ul", "ol"})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BACKTICKS = re.compile(r"`+")
_BLANK_LINES = re.compile(r"\n{3,}")
_SPACES = re.compile(r"[ \t\n\r\f]+")
# Invisible without being format characters: variation selectors (emoji "steganography"),
# the combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian selectors.
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0000-\U000e0fff\U0001bca0-\U0001bca3\U0001d173-\U0001d17a]"
)
# Line and paragraph separators and the C0/C1 spaces show as a space, never a line break.
_AS_SPACE = str.maketrans(dict.fromkeys("\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x1f\x85", " "))


def longest_run(text: str) -> int:
    """The longest run of backticks in the text (0 if none)."""
    return max((len(m) for m in _BACKTICKS.findall(text)), default=0)


def _visible_char(char: str) -> bool:
    if char in "\n\t":
        return True
    # Cf: format (zero-width, bidi controls, tags); Cc: control; Co/Cn/Cs: private use,
    # unassigned, surrogates.
    return unicodedata.category(char) not in {"Cf", "Cc", "Co", "Cn", "Cs"}


def visible_characters(text: str) -> str:
    """The text less the code points that render as nothing."""
    text = unicodedata.normalize("NFKC", text.translate(_AS_SPACE))
    return "".join(ch for ch in _INVISIBLE.sub("", text) if _visible_char(ch))


@cache
def _renderer() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # GitHub shows a comment's line breaks. Emphasis is left as the `*` and `_` typed (it
    # hides nothing, and parsing it is slow); a table reads as well as its source lines.
    options = {"html": True, "breaks": True}
    return MarkdownIt("commonmark", options).disable("emphasis")


class _Reader(HTMLParser):
    """Rendered HTML back to text, keeping only what a browser shows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.open: list[tuple[str, bool, bool]] = []  # (tag, hides, shown when opened)
        self.counts: dict[str, int] = {}  # open elements by tag, so no lookup walks the stack
        self.hiding = 0  # open elements that hide what they hold
        self.captures: list[list[str]] = []  # pre, code and links collect their text first
        self.links: list[str] = []
        self.lists: list[int] = []  # the next number of each open list (0: bullets)
        self.quotes = 0
        self.item = False  # the line holds only a fresh list marker

    # --- where text goes ---------------------------------------------------------------
    @property
    def hidden(self) -> bool:
        return self.hiding > 0

    def _in(self, tag: str) -> bool:
        return self.counts.get(tag, 0) > 0

    def _prefix(self) -> str:
        return "> " * self.quotes + "  " * len(self.lists)

    def write(self, text: str, *, verbatim: bool = False) -> None:
        if self.captures:
            self.captures[-1].append(text)
            return
        if not verbatim and (not self.line or self.line[-1].endswith(" ")):
            text = text.lstrip(" ")  # HTML shows one space where the source has several
        if not text:
            return
        if not self.line:
            self.line.append(self._prefix())
        self.line.append(text)
        self.item = False

    def newline(self) -> None:
        if self.captures:
            self.captures[-1].append("\n")
            return
        self.lines.append("".join(self.line).rstrip())
        self.line = []

    def block(self) -> None:
        """End the current block with a blank line (once); a fresh list item stays open."""
        if self.item:
            return
        if self.line:
            self.newline()
        if self.lines and self.lines[-1]:
            self.lines.append("")

    # --- the parser's events -------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        hides = (
            tag in NEVER_SHOWN
            or "hidden" in values
            or (values.get("aria-hidden") or "").strip().lower() == "true"
        )
        shown = not self.hidden and not hides
        if tag not in VOID:
            self.open.append((tag, hides, shown))
            self.counts[tag] = self.counts.get(tag, 0) + 1
            self.hiding += hides
        if shown:
            self._start(tag, values)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # A browser ignores the slash of `<div/>`: the element stays open.
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if not self._in(tag):
            return  # a stray end tag closes nothing
        while True:  # and closes every element opened inside the one it ends
            name, hides, shown = self.open.pop()
            self.counts[name] -= 1
            self.hiding -= hides
            if shown:
                self._end(name)
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        self.write(data if self._in("pre") else _SPACES.sub(" ", data))  # a pre is captured

    # Comments, declarations and processing instructions show nothing.

    # --- what each element looks like as text ---------------------------------------------
    def _start(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag in BLOCKS or (tag in LISTS and not self.lists):
            self.block()
        elif tag in LINES:
            self._end_line()
        if tag in HEADINGS:
            self.write("#" * int(tag[1]) + " ")
        elif tag == "br":
            self.newline()
        elif tag == "hr":
            self.write("---")
            self.block()
        elif tag == "img":
            source = attrs.get("src") or ""
            self.write(f"[image]({source})" if source else "[image]")
        elif tag == "blockquote":
            self.quotes += 1
        elif tag in LISTS:
            self.lists.append(1 if tag == "ol" else 0)
        elif tag == "li":
            self._item()
        elif tag in {"th", "td"}:
            self.write(" | ")  # at the start of a line, its blank is dropped
        elif tag == "a":
            self.links.append(attrs.get("href") or "")
            self.captures.append([])
        elif tag == "pre" or (tag == "code" and self.counts.get("pre", 0) == 0):
            self.captures.append([])

    def _end_line(self) -> None:
        if self.line and not self.item:
            self.newline()

    def _item(self) -> None:
        number = self.lists[-1] if self.lists else 0
        marker = f"{number}. " if number else "- "
        if self.lists and number:
            self.lists[-1] += 1
        depth = max(len(self.lists) - 1, 0)
        self.line = ["> " * self.quotes + "  " * depth + marker]
        self.item = True

    def _end(self, tag: str) -> None:
        if tag == "pre":
            self._code_block("".join(self.captures.pop()))
        elif tag == "code" and self.captures and not self._in("pre"):
            self.write(_inline_code("".join(self.captures.pop())))
        elif tag == "a" and self.links:
            text, href = "".join(self.captures.pop()).strip(), self.links.pop()
            self.write(f"[{text}]({href})" if text and href and text != href else text or href)
        elif tag == "blockquote":
            self.block()
            self.quotes -= 1
        elif tag in LISTS and self.lists:
            self.lists.pop()
            self.block() if not self.lists else self._end_line()
        elif tag == "tr":
            self.write(" |")
            self.newline()
        elif tag in BLOCKS:
            self.block()

    def _code_block(self, content: str) -> None:
        ticks = "`" * max(3, longest_run(content) + 1)
        self.block()
        for line in [ticks, *content.rstrip("\n").split("\n"), ticks]:
            self.write(line, verbatim=True)
            self.newline()
        self.block()

    def text(self) -> str:
        if self.line:
            self.newline()
        return "\n".join(self.lines)


def _inline_code(content: str) -> str:
    ticks = "`" * (longest_run(content) + 1)
    pad = " " if content.startswith("`") or content.endswith("`") else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"


def visible_text(text: str) -> str:
    """The text as a reader of the rendered issue sees it, with hidden content removed."""
    reader = _Reader()
    reader.feed(_renderer().render(text))
    # Left unparsed at the end: either text held back for a character reference, or an
    # unclosed tag or comment, which shows nothing. Python 3.11's close() would rescan the
    # latter at every later `<` (quadratic time), so it is dropped instead.
    if not reader.rawdata.startswith("<"):
        reader.close()
    while reader.open:
        reader.handle_endtag(reader.open[-1][0])
    lines = [line.rstrip() for line in visible_characters(reader.text()).split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def fence(text: str) -> str:
    """Quote untrusted text as data inside a fence it cannot close: longer than any run of
    backticks inside it (a closing fence must be at least as long as the opening one)."""
    ticks = "`" * max(3, longest_run(text) + 1)
    return f"{ticks}text\n{text}\n{ticks}"
