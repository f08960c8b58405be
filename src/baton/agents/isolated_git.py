"""The git Baton runs to read an agent's checkout, and the listings it reads back.

The agent could have planted a `git` on its PATH, or filters, hooks, includes and alternates
in the checkout's `.git`: `resolve_git` pins git's absolute path and identity before the agent
runs, every git here runs by that path with a fixed PATH and `SAFE_CONFIG`, and
`own_repository` makes a git directory of Baton's, outside the checkout, whose environment
(`isolated_environment`) reads no system, global or repository configuration and whose
`info/attributes` turns off every conversion, so contents are the files' real bytes. The
judgement of what the agent changed is `agents.capture`'s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from baton.errors import CaptureFailed

GIT_TIMEOUT = 600  # seconds for one git command; hashing a big checkout takes a while
# Settings that would make git start a program or print noise, pinned for every git Baton runs
# here (in `start`, the checkout's own configuration is still what actions/checkout wrote).
SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "advice.addEmbeddedRepo=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
)
# `$GIT_DIR/info/attributes` outranks every `.gitattributes` in the tree: no filter driver, no
# end-of-line, ident or encoding conversion, for every path.
ATTRIBUTES = b"* -filter -text -eol -ident -working-tree-encoding\n"
SYSTEM_PATH = ("/usr/bin", "/bin")  # after git's own directory, for the programs git starts


class Git(Protocol):
    """`capture`'s git, bound to Baton's own git directory and the checkout as work tree."""

    def __call__(self, *args: str, stdin: bytes | None = None) -> bytes: ...


@dataclass(frozen=True)
class GitProgram:
    """The git `start` resolved before the agent ran, and what it was then: the agent may
    replace it later, and capture must notice (device, inode, size, modification time)."""

    path: str
    identity: tuple[int, int, int, int]

    @property
    def search_path(self) -> str:
        return os.pathsep.join(dict.fromkeys((os.path.dirname(self.path), *SYSTEM_PATH)))

    def changed(self) -> str | None:
        """Why this git may not be run now, or None."""
        try:
            now = identity(self.path)
        except OSError as exc:
            return f"the git Baton resolved before the agent ran ({self.path}) is gone: {exc}"
        if now != self.identity:
            return f"the git Baton resolved before the agent ran ({self.path}) changed since"
        return None


def identity(path: str) -> tuple[int, int, int, int]:
    info = os.stat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def resolve_git(environ: Mapping[str, str]) -> GitProgram:
    """git on `environ`'s PATH as an absolute path with no link in it, and its identity."""
    found = shutil.which("git", path=environ.get("PATH", os.defpath))
    if found is None:
        raise CaptureFailed("git is not installed, so the agent's changes cannot be read")
    path = os.path.realpath(found)
    try:
        return GitProgram(path=path, identity=identity(path))
    except OSError as exc:
        raise CaptureFailed(f"git at {path} cannot be read: {exc.strerror}") from exc


def run_git(
    program: GitProgram,
    args: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | None = None,
    found_nothing_ok: bool = False,
) -> bytes:
    try:
        done = subprocess.run(
            [program.path, *SAFE_CONFIG, *args],
            cwd=cwd,
            env={**env, "PATH": program.search_path},
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError as exc:
        raise CaptureFailed("git is not installed, so the agent's changes cannot be read") from exc
    except subprocess.TimeoutExpired as exc:
        raise CaptureFailed(f"`git {args[0]}` did not finish within {GIT_TIMEOUT} seconds") from exc
    if done.returncode == 1 and found_nothing_ok:
        return b""
    if done.returncode:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = lines[-1][:300] if lines else f"exit status {done.returncode}"
        raise CaptureFailed(f"`git {args[0]}` failed: {said}")
    return done.stdout


def checkout_git(
    program: GitProgram,
    where: Path,
    *args: str,
    environ: Mapping[str, str],
    found_nothing_ok: bool = False,
    stdin: bytes | None = None,
) -> bytes:
    """git in the checkout as actions/checkout left it (only before the agent runs)."""
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return run_git(
        program, list(args), cwd=where, env=env, stdin=stdin, found_nothing_ok=found_nothing_ok
    )


def isolated_environment(scratch: Path, top: Path) -> dict[str, str]:
    """The whole environment of capture's git: Baton's git directory and index in `scratch`,
    the checkout as work tree, and no configuration from the system, the user or the agent."""
    return {
        "PATH": os.pathsep.join(SYSTEM_PATH),  # `run_git` puts git's own directory first
        "LC_ALL": "C",
        "HOME": str(scratch / "home"),
        "XDG_CONFIG_HOME": str(scratch / "xdg"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_DIR": str(scratch / "git"),
        "GIT_WORK_TREE": str(top),
        "GIT_INDEX_FILE": str(scratch / "index"),
    }


def own_repository(program: GitProgram, scratch: Path, top: Path, base: str) -> Git:
    """A bare git directory of Baton's in `scratch`, made now (after the agent has ended, so
    nothing the agent ran can have written into it), bound to the checkout as work tree."""
    git_dir = scratch / "git"
    for directory in ("home", "xdg"):
        (scratch / directory).mkdir()
    init_env = isolated_environment(scratch, top)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        del init_env[name]
    object_format = "sha256" if len(base) == 64 else "sha1"
    run_git(
        program,
        ["init", "-q", "--bare", "--template=", f"--object-format={object_format}", str(git_dir)],
        cwd=scratch,
        env=init_env,
    )
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_bytes(ATTRIBUTES)
    env = isolated_environment(scratch, top)

    def git(*args: str, stdin: bytes | None = None) -> bytes:
        return run_git(program, list(args), cwd=top, env=env, stdin=stdin)

    return git


def listed(listing: bytes) -> dict[bytes, tuple[str, str]]:
    """`ls-tree -r -z` (`mode SP type SP oid TAB path`) as path -> (mode, oid)."""
    return _entries(listing, oid_field=2)


def staged(listing: bytes) -> dict[bytes, tuple[str, str]]:
    """`ls-files -s -z` (`mode SP oid SP stage TAB path`) as path -> (mode, oid)."""
    return _entries(listing, oid_field=1)


def _entries(listing: bytes, *, oid_field: int) -> dict[bytes, tuple[str, str]]:
    """NUL-separated `meta TAB path` records whose space-separated meta starts with the mode
    and holds the object id at `oid_field`."""
    found = {}
    for record in listing.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            fields = meta.decode("ascii").split(" ")
            found[path] = (fields[0], fields[oid_field])
    return found


def blob_sizes(git: Git, oids: list[str]) -> dict[str, int]:
    if not oids:
        return {}
    answer = git("cat-file", "--batch-check=%(objectname) %(objectsize)", stdin=lines(oids))
    sizes = {}
    for line in answer.decode("ascii", "replace").splitlines():
        oid, _, size = line.partition(" ")
        if not size.isdigit():
            raise CaptureFailed(f"git could not find the object {oid[:40]} it just wrote")
        sizes[oid] = int(size)
    return sizes


def blob_contents(git: Git, oids: list[str]) -> dict[str, bytes]:
    return read_batch(lambda stdin: git("cat-file", "--batch", stdin=stdin), oids)


def read_batch(batch: Callable[[bytes], bytes], oids: list[str]) -> dict[str, bytes]:
    """Each object's contents by `cat-file --batch`, given as `batch` (stdin -> stdout)."""
    if not oids:
        return {}
    stream = batch(lines(oids))
    found: dict[str, bytes] = {}
    at = 0
    while at < len(stream):
        header_end = stream.index(b"\n", at)
        oid, _kind, size = stream[at:header_end].decode("ascii").split(" ")
        start = header_end + 1
        found[oid] = stream[start : start + int(size)]
        at = start + int(size) + 1  # the newline after the contents
    return found


def lines(oids: list[str]) -> bytes:
    return "".join(f"{oid}\n" for oid in oids).encode("ascii")
