"""A changeset: the files an agent changed, handed from its read-only job to `baton report`.

The agent's job is untrusted (it read issue text), so what it hands over is hostile input: the
report job checks every path and every limit here before one byte reaches the branch, and a
refused changeset writes nothing. Checks are linear in the changeset's size.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from baton.core import handback
from baton.errors import InvalidChangeset
from baton.workflow.config import WorkSettings

CHANGESET_VERSION = 1
CHANGESET_FILE = "baton-changeset.json"  # beside the result file, unless told otherwise
# Beside the result instead of it when the agent's job could not run the agent at all (no
# command, not a checkout): the report job fails once with it and spends no attempt.
SETUP_ERROR_FILE = "baton-setup-error.txt"
OID = re.compile(r"^[0-9a-f]{40}$")
MAX_PATH = 1024  # characters of a path (git allows more; nobody needs it)
MAX_SEGMENT = 255
REGULAR = "100644"
EXECUTABLE = "100755"
SYMLINK = "120000"
GITLINK = "160000"  # a submodule
_CONTROL = re.compile(r"[\x00-\x1f\x7f\\]")


class FileChange(BaseModel):
    """One path: new contents (base64) or, with `contents` None, a deletion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    path: str
    contents: str | None = None
    mode: str = REGULAR

    @property
    def deleted(self) -> bool:
        return self.contents is None


class Changeset(BaseModel):
    """What an agent changed in its checkout, bound to the commit it started from (`base`).

    `refused` is set by the capture itself when it saw something it must not carry (a file too
    large to read, a symlink); the report job refuses such a changeset with that reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    version: Literal[1] = 1
    base: str
    files: list[FileChange] = Field(default_factory=list)
    refused: str | None = None

    @property
    def empty(self) -> bool:
        return not self.files and self.refused is None

    def digest(self) -> str:
        """`sha256:<hex>` of the base and the files, order-independent: the key by which a
        re-run finds its commit already on the branch."""
        files = sorted((f.path, f.mode, f.contents) for f in self.files)
        canonical = json.dumps([self.base, files], separators=(",", ":"), ensure_ascii=True)
        return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def path_problem(path: str) -> str | None:
    """Why `path` may not be written, or None: relative, normalised, inside the repository,
    never into `.git`. Linear in the path's length."""
    if not path:
        return "an empty path"
    if len(path) > MAX_PATH:
        return f"a path of {len(path)} characters (at most {MAX_PATH})"
    shown = json.dumps(path[:120])
    if _CONTROL.search(path):
        return f"{shown} has a control character or a backslash"
    if path.startswith("/"):
        return f"{shown} is absolute"
    for segment in path.split("/"):
        if segment in {"", ".", ".."}:
            return f"{shown} is not a normalised relative path"
        if len(segment) > MAX_SEGMENT:
            return f"{shown} has a name longer than {MAX_SEGMENT} characters"
        # `.git` in any case, and the names Windows and macOS fold onto it (`.git.`, `.git `).
        if segment.lower().rstrip(". ") == ".git":
            return f"{shown} is inside .git"
    return None


def matches(path: str, pattern: str) -> bool:
    """Glob match by path segment: `*` within one name, `**` any number of names (also none).
    Segment by segment, so a long path against a pattern with many stars stays cheap."""
    return _match(tuple(path.split("/")), tuple(pattern.strip("/").split("/")))


def _match(names: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    # Iterative over the positions after the last `**`: at most len(names) * len(parts) steps.
    reach = {0}
    for part in parts:
        if part == "**":
            start = min(reach, default=len(names) + 1)
            reach = set(range(start, len(names) + 1))
            continue
        reach = {i + 1 for i in reach if i < len(names) and fnmatchcase(names[i], part)}
        if not reach:
            return False
    return len(names) in reach


def problems(changeset: Changeset, limits: WorkSettings) -> list[str]:
    """Every reason to refuse the changeset, in a stable order; empty when it may be written."""
    found: list[str] = []
    if changeset.refused:
        found.append(changeset.refused)
    if not OID.match(changeset.base):
        found.append("the base commit is not a 40-character commit id")
    if len(changeset.files) > limits.max_files:
        found.append(f"{len(changeset.files)} files changed (at most {limits.max_files})")
        return found  # not worth decoding
    seen: set[str] = set()
    total = 0
    for change in changeset.files:
        problem = path_problem(change.path)
        if problem:
            found.append(problem)
            continue
        if change.path in seen:
            found.append(f"{change.path} appears twice")
        seen.add(change.path)
        if change.mode == SYMLINK:
            found.append(f"{change.path} is a symbolic link")
        elif change.mode == GITLINK:
            found.append(f"{change.path} is a submodule")
        elif change.mode not in {REGULAR, EXECUTABLE}:
            found.append(f"{change.path} has file mode {change.mode[:10]!r}")
        blocked = next((p for p in limits.forbidden if matches(change.path, p)), None)
        if blocked:
            found.append(f"{change.path} is a forbidden path ({blocked})")
        if change.contents is not None:
            size = decoded_size(change.contents)
            if size is None:
                found.append(f"{change.path}: the contents are not base64")
            else:
                total += size
    if total > limits.max_bytes:
        found.append(f"{total:,} bytes of file contents (at most {limits.max_bytes:,})")
    return found


def decoded_size(contents: str) -> int | None:
    """Bytes the base64 text decodes to, or None if it is not canonical base64."""
    try:
        return len(base64.b64decode(contents, validate=True))
    except (binascii.Error, ValueError):
        return None


def parse_changeset(text: str) -> Changeset:
    return handback.parse(text, Changeset, "the changeset", InvalidChangeset)


def read_changeset(path: Path) -> Changeset | None:
    """The changeset beside a result, or None when the agent's job wrote none."""
    if not path.exists():
        return None
    return parse_changeset(handback.read(path, "the changeset", InvalidChangeset))
