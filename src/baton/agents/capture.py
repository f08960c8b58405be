"""What an agent changed in its checkout, as a `Changeset` bound to the commit it started from.

`start` records the checkout's HEAD before the agent runs; `capture` compares the working tree
with that commit afterwards, so work the agent committed counts as much as work it left in the
tree. The comparison runs through a temporary index (`GIT_INDEX_FILE`): `read-tree <base>`,
`add --all`, `diff --cached --raw -z --no-renames <base>`. That leaves the checkout's own index
alone, leaves out what `.gitignore` ignores, finds new, changed and deleted files, and reports
modes, so a symbolic link (120000) or a nested repository (160000) travels with its mode and the
report job refuses it with that reason. Contents are read as git stores them (the blob the
temporary index holds), never by opening a path, so a symbolic link is never followed.

The agent read untrusted issue text, so its checkout is hostile too: limits are applied
before contents are read (untracked files by their size on disk, before git hashes them; every
blob by the size git reports), and a changeset over them carries `refused` and no files.
`core.changeset.problems` checks everything again in the report job.
"""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from baton.core.changeset import GITLINK, Changeset, FileChange
from baton.errors import CaptureFailed
from baton.workflow.config import WorkSettings

GIT_TIMEOUT = 600  # seconds for one git command; hashing a big checkout takes a while
SHOWN = 120  # characters of a path quoted in a reason
# Settings from the checkout's own .git/config (which the agent could write) that would make
# git start a program of the agent's choosing while Baton captures, or print noise.
SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "advice.addEmbeddedRepo=false",
    "-c",
    "core.quotePath=false",
)


class _Git(Protocol):
    """`capture`'s git, bound to the checkout."""

    def __call__(
        self, *args: str, index: Path | None = None, stdin: bytes | None = None
    ) -> bytes: ...


@dataclass(frozen=True)
class Checkout:
    """Where the agent works and the commit it started from."""

    top: Path
    base: str


@dataclass(frozen=True)
class _Entry:
    path: bytes
    mode: str
    oid: str
    deleted: bool


def _git(
    where: Path,
    *args: str,
    environ: Mapping[str, str],
    index: Path | None = None,
    stdin: bytes | None = None,
) -> bytes:
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    try:
        done = subprocess.run(
            ["git", *SAFE_CONFIG, *args],
            cwd=where,
            env=env,
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError as exc:
        raise CaptureFailed("git is not installed, so the agent's changes cannot be read") from exc
    except subprocess.TimeoutExpired as exc:
        raise CaptureFailed(f"`git {args[0]}` did not finish within {GIT_TIMEOUT} seconds") from exc
    if done.returncode:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = lines[-1][:300] if lines else f"exit status {done.returncode}"
        raise CaptureFailed(f"`git {args[0]}` failed: {said}")
    return done.stdout


def start(workdir: Path, *, environ: Mapping[str, str] | None = None) -> Checkout:
    """The checkout around `workdir` and its HEAD, taken before the agent runs."""
    environ = os.environ if environ is None else environ
    try:
        top = _git(workdir, "rev-parse", "--show-toplevel", environ=environ)
        base = _git(workdir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", environ=environ)
    except CaptureFailed as exc:
        raise CaptureFailed(
            f"{workdir} is not a git checkout with a commit, so what the agent changes cannot be "
            f"captured: check the repository out (actions/checkout) before `baton agent` ({exc})"
        ) from exc
    return Checkout(top=Path(os.fsdecode(top.rstrip(b"\n"))), base=base.decode("ascii").strip())


def capture(
    checkout: Checkout, limits: WorkSettings, *, environ: Mapping[str, str] | None = None
) -> Changeset:
    """Everything the working tree changed relative to `checkout.base`, in path order."""
    environ = os.environ if environ is None else environ

    def git(*args: str, index: Path | None = None, stdin: bytes | None = None) -> bytes:
        return _git(checkout.top, *args, environ=environ, index=index, stdin=stdin)

    with tempfile.TemporaryDirectory(prefix="baton-capture-") as scratch:
        index = Path(scratch) / "index"
        git("read-tree", checkout.base, index=index)
        untracked = git("ls-files", "-z", "--others", "--exclude-standard", index=index)
        too_much = _untracked_over_limits(checkout.top, untracked, limits)
        if too_much:
            return Changeset(base=checkout.base, refused=too_much)
        git("add", "--all", "--", ":/", index=index)
        raw = git(
            "diff",
            "--cached",
            "--raw",
            "-z",
            "--no-renames",
            "--no-abbrev",
            "--no-relative",
            "--no-ext-diff",
            "--ignore-submodules=none",
            checkout.base,
            "--",
            index=index,
        )
    entries = sorted(_parse_raw(raw), key=lambda e: e.path)
    if len(entries) > limits.max_files:
        return Changeset(
            base=checkout.base,
            refused=f"the agent changed {len(entries):,} files (at most {limits.max_files:,})",
        )
    paths: list[str] = []
    for entry in entries:
        try:
            paths.append(entry.path.decode("utf-8"))
        except UnicodeDecodeError:
            shown = entry.path[:SHOWN].decode("utf-8", "backslashreplace")
            return Changeset(base=checkout.base, refused=f"the path {shown!r} is not UTF-8")
    blobs = [e.oid for e in entries if not e.deleted and e.mode != GITLINK]
    sizes = _sizes(git, blobs)
    total = sum(sizes[e.oid] for e in entries if not e.deleted and e.oid in sizes)
    if total > limits.max_bytes:
        largest = sorted(
            ((sizes[e.oid], p) for e, p in zip(entries, paths, strict=True) if e.oid in sizes),
            reverse=True,
        )[:3]
        named = ", ".join(f"{p[:SHOWN]} ({size:,} bytes)" for size, p in largest)
        return Changeset(
            base=checkout.base,
            refused=f"the agent's changes hold {total:,} bytes (at most "
            f"{limits.max_bytes:,}); the largest: {named}",
        )
    contents = _contents(git, blobs)
    files = [
        FileChange(path=path, mode=entry.mode, contents=_encoded(entry, contents))
        for entry, path in zip(entries, paths, strict=True)
    ]
    return Changeset(base=checkout.base, files=files)


def _untracked_over_limits(top: Path, listing: bytes, limits: WorkSettings) -> str | None:
    """Why the new files alone are over the limits, judged by their size on disk before git
    reads a byte of them; None when they are within. Tracked files git hashes regardless (their
    size is bounded by the repository they came from)."""
    names = [name for name in listing.split(b"\0") if name]
    if len(names) > limits.max_files:
        return f"the agent created {len(names):,} new files (at most {limits.max_files:,})"
    total = 0
    root = os.fsencode(top)
    for name in names:
        try:
            info = os.lstat(os.path.join(root, name))
        except OSError:
            continue  # gone, or a path the system cannot reach: git decides about it
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
            if total > limits.max_bytes:
                shown = name[:SHOWN].decode("utf-8", "backslashreplace")
                return (
                    f"the agent's new files hold more than {limits.max_bytes:,} bytes "
                    f"(reached at {shown}, {info.st_size:,} bytes)"
                )
    return None


def _parse_raw(raw: bytes) -> list[_Entry]:
    """`git diff --raw -z --no-renames`: `:old new oldoid newoid status NUL path NUL` ..."""
    entries = []
    fields = raw.split(b"\0")
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=False):
        old_mode, new_mode, old_oid, new_oid, status = meta.decode("ascii").lstrip(":").split(" ")
        deleted = status == "D"
        entries.append(
            _Entry(
                path=path,
                # A deletion keeps the mode of what it deletes, so that deleting a link or a
                # submodule is judged as such.
                mode=old_mode if deleted else new_mode,
                oid=old_oid if deleted else new_oid,
                deleted=deleted,
            )
        )
    return entries


def _sizes(git: _Git, oids: list[str]) -> dict[str, int]:
    if not oids:
        return {}
    answer = git("cat-file", "--batch-check=%(objectname) %(objectsize)", stdin=_lines(oids))
    sizes = {}
    for line in answer.decode("ascii", "replace").splitlines():
        oid, _, size = line.partition(" ")
        if not size.isdigit():
            raise CaptureFailed(f"git could not find the object {oid[:40]} it just wrote")
        sizes[oid] = int(size)
    return sizes


def _contents(git: _Git, oids: list[str]) -> dict[str, bytes]:
    if not oids:
        return {}
    stream = git("cat-file", "--batch", stdin=_lines(oids))
    found: dict[str, bytes] = {}
    at = 0
    while at < len(stream):
        header_end = stream.index(b"\n", at)
        oid, _kind, size = stream[at:header_end].decode("ascii").split(" ")
        start = header_end + 1
        found[oid] = stream[start : start + int(size)]
        at = start + int(size) + 1  # the newline after the contents
    return found


def _encoded(entry: _Entry, contents: dict[str, bytes]) -> str | None:
    if entry.deleted:
        return None
    if entry.mode == GITLINK:
        # The commit a nested repository points at; the report job refuses it by its mode.
        return base64.b64encode(entry.oid.encode("ascii")).decode("ascii")
    return base64.b64encode(contents[entry.oid]).decode("ascii")


def _lines(oids: list[str]) -> bytes:
    return "".join(f"{oid}\n" for oid in oids).encode("ascii")


def size_of(changeset: Changeset) -> int:
    """Bytes of file contents the changeset carries (decoded)."""
    return sum(len(base64.b64decode(f.contents)) for f in changeset.files if f.contents)


def describe(changeset: Changeset) -> str:
    """One line for the log: how much the agent changed, or why it cannot travel."""
    if changeset.refused:
        return f"changeset refused: {changeset.refused}"
    deleted = sum(1 for f in changeset.files if f.deleted)
    written = len(changeset.files) - deleted
    return (
        f"changeset: {written} file(s) written, {deleted} deleted, "
        f"{size_of(changeset):,} bytes, base {changeset.base[:12]}"
    )
