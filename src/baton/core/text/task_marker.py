"""The mark Baton puts in a task sub-issue's body: which epic and which task key it is.

Creating a plan is idempotent because of it: a re-run finds the sub-issues it already made by
their mark. It is trusted only on an issue the bot opened (the caller checks the author); the
planner's own text is cleaned of anything that could pass for it (`core.text.markdown`).
"""

from __future__ import annotations

import json
import re

OPEN = "<!-- baton:task "
CLOSE = " -->"
_MARK = re.compile(r"<!-- baton:task (\{[^{}<>\n]{1,200}\}) -->")
_KEY = re.compile(r"^[a-z0-9][a-z0-9_#-]{0,49}$")


def render(epic: int, key: str) -> str:
    data = json.dumps({"epic": epic, "key": key}, separators=(",", ":"), sort_keys=True)
    return f"{OPEN}{data}{CLOSE}"


def read(body: str) -> tuple[int, str] | None:
    """(epic, key) from the last mark in `body`, or None. One linear scan."""
    found = None
    for match in _MARK.finditer(body):
        found = match.group(1)
    if found is None:
        return None
    try:
        data = json.loads(found)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    epic, key = data.get("epic"), data.get("key")
    if not isinstance(epic, int) or isinstance(epic, bool) or epic <= 0:
        return None
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        return None
    return epic, key
