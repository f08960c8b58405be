"""What an agent changed in its checkout, as a `Changeset` bound to the commit it started from.

`start` records the checkout's HEAD and its tree's listing (`ls-tree`: mode, object id, path)
before the agent runs, while the checkout is still what actions/checkout made. `capture`
compares the working tree with that listing afterwards, so work the agent committed counts as
much as work it left in the tree. Nothing of the checkout's `.git` is used for it: the agent
could have written filters, hooks, includes, alternates or `core.worktree` there, and git obeys
them. The comparison runs in a git directory Baton makes after the agent has ended, outside the
checkout, with the checkout as its work tree, no system, global or repository configuration
but Baton's, and `info/attributes` (which outranks every `.gitattributes`) turning off filters
and end-of-line, ident and encoding conversions, so contents are the files' real bytes. Its index
is seeded with the listing, `add --all` hashes the tree into Baton's own objects, and the index
is compared with the listing. That leaves out what `.gitignore` ignores, finds new, changed and
deleted files, and reports modes, so a symbolic link (120000) or a nested repository (160000)
travels with its mode and the report job refuses it with that reason. Contents are read from
Baton's objects, never by opening a path, so a symbolic link is never followed.

The agent read untrusted issue text, so its checkout is hostile too: limits are applied
before contents are read (untracked files by their size on disk, before git hashes them; every
blob by the size git reports), and a changeset over them carries `refused` and no files.
`core.changeset.problems` checks everything again in the report job.

The agent can also write a `git` into a directory of its PATH (on hosted runners ~/.local/bin
comes before /usr/bin), so `start` resolves git's absolute path before the agent runs and records
its stat; every git here runs by that path with a PATH of its directory, /usr/bin and /bin, and a
capture whose git changed after the agent is refused. Likewise the base's symbolic links are read
in `start`: a forbidden path that is a link of the base (`.claude -> tools/claude`) is reached by
changing what it points at, so a change at or under the target of such a link is refused.
Paths quoted in a reason have the job's secrets replaced first (a file may be named after a key).
"""

from __future__ import annotations

import base64
import os
import posixpath
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from baton.agents import secrets
from baton.core.changeset import GITLINK, SYMLINK, Changeset, FileChange, forbidden_problem
from baton.errors import CaptureFailed
from baton.workflow.config import WorkSettings

GIT_TIMEOUT = 600  # seconds for one git command; hashing a big checkout takes a while
SHOWN = 120  # characters of a path quoted in a reason
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


class _Git(Protocol):
    """`capture`'s git, bound to Baton's own git directory and the checkout as work tree."""

    def __call__(self, *args: str, stdin: bytes | None = None) -> bytes: ...


@dataclass(frozen=True)
class Checkout:
    """Where the agent works, the commit it started from and that commit's tree as
    `ls-tree -r -z --full-tree` lists it (recorded before the agent runs)."""

    top: Path
    base: str
    git: GitProgram
    listing: bytes = field(default=b"", repr=False)
    links: tuple[tuple[str, str], ...] = ()  # the base's symbolic links: (path, target)


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
            now = _identity(self.path)
        except OSError as exc:
            return f"the git Baton resolved before the agent ran ({self.path}) is gone: {exc}"
        if now != self.identity:
            return f"the git Baton resolved before the agent ran ({self.path}) changed since"
        return None


def _identity(path: str) -> tuple[int, int, int, int]:
    info = os.stat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def resolve_git(environ: Mapping[str, str]) -> GitProgram:
    """git on `environ`'s PATH as an absolute path with no link in it, and its identity."""
    found = shutil.which("git", path=environ.get("PATH", os.defpath))
    if found is None:
        raise CaptureFailed("git is not installed, so the agent's changes cannot be read")
    path = os.path.realpath(found)
    try:
        return GitProgram(path=path, identity=_identity(path))
    except OSError as exc:
        raise CaptureFailed(f"git at {path} cannot be read: {exc.strerror}") from exc


@dataclass(frozen=True)
class _Entry:
    path: bytes
    mode: str
    oid: str
    deleted: bool


def _run_git(
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


def _git(
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
    return _run_git(
        program, list(args), cwd=where, env=env, stdin=stdin, found_nothing_ok=found_nothing_ok
    )


def isolated_environment(scratch: Path, top: Path) -> dict[str, str]:
    """The whole environment of capture's git: Baton's git directory and index in `scratch`,
    the checkout as work tree, and no configuration from the system, the user or the agent."""
    return {
        "PATH": os.pathsep.join(SYSTEM_PATH),  # `_run_git` puts git's own directory first
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


def _own_repository(program: GitProgram, scratch: Path, top: Path, base: str) -> _Git:
    """A bare git directory of Baton's in `scratch`, made now (after the agent has ended, so
    nothing the agent ran can have written into it), bound to the checkout as work tree."""
    git_dir = scratch / "git"
    for directory in ("home", "xdg"):
        (scratch / directory).mkdir()
    init_env = isolated_environment(scratch, top)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        del init_env[name]
    object_format = "sha256" if len(base) == 64 else "sha1"
    _run_git(
        program,
        ["init", "-q", "--bare", "--template=", f"--object-format={object_format}", str(git_dir)],
        cwd=scratch,
        env=init_env,
    )
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_bytes(ATTRIBUTES)
    env = isolated_environment(scratch, top)

    def git(*args: str, stdin: bytes | None = None) -> bytes:
        return _run_git(program, list(args), cwd=top, env=env, stdin=stdin)

    return git


def start(workdir: Path, *, environ: Mapping[str, str] | None = None) -> Checkout:
    """The checkout around `workdir`, its HEAD and HEAD's listing, taken before the agent runs."""
    environ = os.environ if environ is None else environ
    program = resolve_git(environ)
    try:
        top = _git(program, workdir, "rev-parse", "--show-toplevel", environ=environ)
        base = _git(
            program, workdir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", environ=environ
        )
    except CaptureFailed as exc:
        raise CaptureFailed(
            f"{workdir} is not a git checkout with a commit, so what the agent changes cannot be "
            f"captured: check the repository out (actions/checkout) before `baton agent` ({exc})"
        ) from exc
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    _refuse_persisted_credentials(program, root, environ)
    commit = base.decode("ascii").strip()
    listing = _git(program, root, "ls-tree", "-r", "-z", "--full-tree", commit, environ=environ)
    links = _link_targets(program, root, listing, environ)
    return Checkout(top=root, base=commit, listing=listing, git=program, links=links)


def _link_targets(
    program: GitProgram, top: Path, listing: bytes, environ: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """Each symbolic link of the base and what it points at, read from the checkout's objects
    before the agent runs (a link or target that is not UTF-8 cannot match a forbidden entry
    as text and is left out)."""
    links = [(path, oid) for path, (mode, oid) in _listed(listing).items() if mode == SYMLINK]
    if not links:
        return ()
    targets = _read_batch(
        lambda stdin: _git(program, top, "cat-file", "--batch", environ=environ, stdin=stdin),
        [oid for _path, oid in links],
    )
    found = []
    for path, oid in links:
        try:
            found.append((path.decode("utf-8"), targets[oid].decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(found)


def _refuse_persisted_credentials(
    program: GitProgram, top: Path, environ: Mapping[str, str]
) -> None:
    """Raises CaptureFailed when the checkout's git configuration (includes followed) holds an
    HTTP header, which is where actions/checkout keeps the job's token unless told
    `persist-credentials: false`: the agent could read it there."""
    headers = _git(
        program,
        top,
        "config",
        "--includes",
        "--name-only",
        "--get-regexp",
        r"^http\..*\.extraheader$",
        environ=environ,
        found_nothing_ok=True,
    )
    if headers.strip():
        name = headers.decode("utf-8", "replace").splitlines()[0][:SHOWN]
        raise CaptureFailed(
            f"the checkout's git configuration holds a credential ({name}), where the agent "
            "could read it, so the agent does not run: add `persist-credentials: false` to "
            "the actions/checkout step before `baton agent`"
        )


def capture(
    checkout: Checkout, limits: WorkSettings, *, held: list[secrets.Secret] | None = None
) -> Changeset:
    """Everything the working tree changed relative to `checkout.base`, in path order; git
    runs by the path `start` resolved, with an environment of Baton's alone
    (`isolated_environment`). `held` secrets are replaced in every path a reason quotes."""
    program = checkout.git
    tampered = program.changed()
    if tampered:
        return Changeset(base=checkout.base, refused=tampered)
    shown = _Shown(held or [])
    with tempfile.TemporaryDirectory(prefix="baton-capture-") as scratch:
        git = _own_repository(program, Path(scratch), checkout.top, checkout.base)
        git("update-index", "-z", "--index-info", stdin=checkout.listing)
        untracked = git("ls-files", "-z", "--others", "--exclude-standard")
        too_much = _untracked_over_limits(checkout.top, untracked, limits, shown)
        if too_much:
            return Changeset(base=checkout.base, refused=too_much)
        git("add", "--all", "--", ":/")
        entries = _compare(_listed(checkout.listing), _staged(git("ls-files", "-s", "-z")))
        return _changeset(checkout, entries, git, limits, shown)


@dataclass(frozen=True)
class _Shown:
    """How a path the agent chose is quoted in a reason: secrets replaced, then cut short (a
    cut first could leave part of a secret that no longer matches)."""

    held: list[secrets.Secret]

    def __call__(self, path: bytes | str) -> str:
        text = path if isinstance(path, str) else path.decode("utf-8", "backslashreplace")
        return secrets.redact(text, self.held)[:SHOWN]


def reached_through_links(
    links: tuple[tuple[str, str], ...], paths: list[str], limits: WorkSettings
) -> tuple[str, str] | None:
    """The first (changed path, link) where a base link at a forbidden path points at the
    changed path or a folder above it, or None. A target is read relative to the link's folder
    and normalised; one that leaves the repository (absolute, or `../` above its root) is
    never a prefix of a changed path, which is relative and inside it."""
    targets = []
    for link, target in links:
        if forbidden_problem(link, limits) is None:
            continue
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
        targets.append((link, "" if resolved == "." else resolved))
    if not targets:
        return None
    for path in paths:
        for link, resolved in targets:
            if not resolved or path == resolved or path.startswith(resolved + "/"):
                return path, link
    return None


def _changeset(
    checkout: Checkout, entries: list[_Entry], git: _Git, limits: WorkSettings, shown: _Shown
) -> Changeset:
    base = checkout.base
    if len(entries) > limits.max_files:
        return Changeset(
            base=base,
            refused=f"the agent changed {len(entries):,} files (at most {limits.max_files:,})",
        )
    paths: list[str] = []
    for entry in entries:
        try:
            paths.append(entry.path.decode("utf-8"))
        except UnicodeDecodeError:
            return Changeset(base=base, refused=f"the path {shown(entry.path)!r} is not UTF-8")
    reached = reached_through_links(checkout.links, paths, limits)
    if reached:
        path, link = reached
        return Changeset(
            base=base,
            refused=f"{shown(path)} is what {shown(link)} points at, and {shown(link)} is a "
            "forbidden path: a change there is a change to it",
        )
    blobs = [e.oid for e in entries if not e.deleted and e.mode != GITLINK]
    sizes = _sizes(git, blobs)
    total = sum(sizes[e.oid] for e in entries if not e.deleted and e.oid in sizes)
    if total > limits.max_bytes:
        largest = sorted(
            ((sizes[e.oid], p) for e, p in zip(entries, paths, strict=True) if e.oid in sizes),
            reverse=True,
        )[:3]
        named = ", ".join(f"{shown(p)} ({size:,} bytes)" for size, p in largest)
        return Changeset(
            base=base,
            refused=f"the agent's changes hold {total:,} bytes (at most "
            f"{limits.max_bytes:,}); the largest: {named}",
        )
    contents = _contents(git, blobs)
    files = [
        FileChange(path=path, mode=entry.mode, contents=_encoded(entry, contents))
        for entry, path in zip(entries, paths, strict=True)
    ]
    return Changeset(base=base, files=files)


def _untracked_over_limits(
    top: Path, listing: bytes, limits: WorkSettings, shown: _Shown
) -> str | None:
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
                return (
                    f"the agent's new files hold more than {limits.max_bytes:,} bytes "
                    f"(reached at {shown(name)}, {info.st_size:,} bytes)"
                )
    return None


def _listed(listing: bytes) -> dict[bytes, tuple[str, str]]:
    """`ls-tree -r -z` (`mode SP type SP oid TAB path`) as path -> (mode, oid)."""
    return _entries(listing, oid_field=2)


def _staged(listing: bytes) -> dict[bytes, tuple[str, str]]:
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


def _compare(base: dict[bytes, tuple[str, str]], now: dict[bytes, tuple[str, str]]) -> list[_Entry]:
    """What differs between the two listings, in path order. A deletion keeps the mode of what
    it deletes, so that deleting a link or a submodule is judged as such."""
    entries = [
        _Entry(path=path, mode=mode, oid=oid, deleted=False)
        for path, (mode, oid) in now.items()
        if base.get(path) != (mode, oid)
    ]
    entries += [
        _Entry(path=path, mode=mode, oid=oid, deleted=True)
        for path, (mode, oid) in base.items()
        if path not in now
    ]
    return sorted(entries, key=lambda e: e.path)


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
    return _read_batch(lambda stdin: git("cat-file", "--batch", stdin=stdin), oids)


def _read_batch(batch: Callable[[bytes], bytes], oids: list[str]) -> dict[str, bytes]:
    """Each object's contents by `cat-file --batch`, given as `batch` (stdin -> stdout)."""
    if not oids:
        return {}
    stream = batch(_lines(oids))
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
