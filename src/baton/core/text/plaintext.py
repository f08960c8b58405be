"""Agent and issue text in git objects and titles Baton writes: data, never a live reference.

A commit message, a pull request's title (a squash merge makes it the commit's headline) and an
issue's title are plain text, not Markdown, yet GitHub reads them: `Fixes #3`, `GH-3`,
`owner/repo#3` or an issue's URL closes issue 3 once the commit reaches the default branch and
leaves a trace on it before; `@user` and `@org/team` link people; and a CI step that prints the
log obeys a `::workflow-command::`. Backslash escapes mean nothing in plain text, so a
zero-width space (U+200B) goes where it breaks each pattern while the text reads the same:
after `#` or `@` when a reference or a mention would follow, inside `GH-`, after the `:` of
`://` and between two colons, after `www` before its dot, after `issues/`, `pull/` or
`discussions/` before a number, between the `##` of `##[command]`. Control characters and the
bidirectional controls that make a line read otherwise in a terminal become U+FFFD, visibly.
One linear pass each.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
REPLACEMENT = "\ufffd"
ELLIPSIS = "…"

# What GitHub (or the runner, for `::`) acts on, each matched up to where ZWSP goes.
LIVE = re.compile(
    r"#(?=\d|#\[)"  # #12, owner/repo#12, ##[workflow-command]
    r"|@(?=[A-Za-z0-9_-])"  # @user, @org/team
    r"|(?<![A-Za-z0-9])GH(?=-\d)"  # GH-12
    r"|:(?=:|//)"  # ::workflow-command::, https://…/issues/12
    r"|www(?=\.)"  # www.github.com/…/issues/12
    r"|(?:issues|pulls?|discussions)/(?=\d)",  # …/issues/12 without a scheme
    re.IGNORECASE,
)
# C0 and C1 controls (line breaks are handled by the caller), DEL, and the bidirectional
# embeddings, overrides, isolates and marks ("Trojan Source").
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _break(match: re.Match[str]) -> str:
    return match.group(0) + ZWSP


def break_references(text: str) -> str:
    """Only the ZWSP breaks: for text already escaped for its context (`core.text.markdown`)."""
    return LIVE.sub(_break, text)


def defuse(text: str) -> str:
    """`text` with every reference, mention and workflow command broken, unseen controls
    shown as U+FFFD; line breaks kept. Idempotent."""
    return break_references(_UNSEEN.sub(REPLACEMENT, text.replace("\r\n", "\n")))


def line(text: str, limit: int) -> str:
    """One line of `text` as data: its whitespace runs made one space, cut to `limit`
    characters before defusing (so a cut never splits a break from what it breaks)."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return defuse(flat)
