"""The runner's file commands, kept as they were before the agent ran.

After a step, the runner reads the files named by `GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_OUTPUT`,
`GITHUB_STATE` and `GITHUB_STEP_SUMMARY`: a line the agent wrote there would set a variable or
the PATH of the later steps (the upload step holds `ACTIONS_RUNTIME_TOKEN`), an output, or the
job summary. The variables are withheld from the agent, but the files lie in
`$RUNNER_TEMP/_runner_file_commands`, where the agent can find them; so their contents are read
before the agent runs and put back after everything it started has ended.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_COMMANDS = (
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
)
MAX_SNAPSHOT = 16 * 1024 * 1024  # the runner caps a step summary at 1 MiB; far above any


@dataclass(frozen=True)
class Kept:
    """One file command's path and what it held (None: there was no such file)."""

    name: str
    path: Path
    contents: bytes | None
    mode: int


def paths_of(environ: Mapping[str, str]) -> dict[str, str]:
    """The file commands `environ` names: variable -> path."""
    return {name: environ[name] for name in FILE_COMMANDS if environ.get(name)}


def _read(path: Path) -> tuple[bytes | None, int]:
    """What a regular file at `path` holds, and its permissions; None for anything else (a
    link is not followed, a FIFO is not waited on, a directory is not read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None, 0o644
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, 0o644
        chunks, size = [], 0
        while size <= MAX_SNAPSHOT and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), info.st_mode & 0o777
    finally:
        os.close(fd)


def keep(paths: Mapping[str, str]) -> list[Kept]:
    """What each file command holds now, before the agent runs."""
    kept = []
    for name, path in paths.items():
        contents, mode = _read(Path(path))
        kept.append(Kept(name=name, path=Path(path), contents=contents, mode=mode))
    return kept


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def restore(kept: list[Kept]) -> list[str]:
    """Put back every file command the agent changed, replaced or removed (a link in its place
    is removed, never followed); the names of those it had touched."""
    touched = []
    for entry in kept:
        now, _ = _read(entry.path)
        if now == entry.contents and not entry.path.is_symlink():
            continue
        touched.append(entry.name)
        if entry.contents is None:
            _remove(entry.path)
        else:
            write_fresh(entry.path, entry.contents, entry.mode)
    return touched


def write_fresh(path: Path, contents: bytes, mode: int = 0o644) -> None:
    """Write `contents` to a new file at `path`: whatever is there (a link the agent put in
    its place, which `open` would follow) is removed first, never written through."""
    _remove(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with os.fdopen(os.open(path, flags, mode), "wb") as file:
        file.write(contents)
