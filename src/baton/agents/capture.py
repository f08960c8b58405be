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
`core.model.changeset.problems` checks everything again in the report job.

The agent can also write a `git` into a directory of its PATH (on hosted runners ~/.local/bin
comes before /usr/bin), so `start` resolves git's absolute path before the agent runs and records
its stat; every git here runs by that path with a PATH of its directory, /usr/bin and /bin, and a
capture whose git changed after the agent is refused. Likewise the base's symbolic links are read
in `start`: a forbidden path that is a link of the base (`.claude -> tools/claude`, `tools ->
vendor/tools`) is reached by changing what it leads to, so a change where it leads, or to a link
on the way, is refused (`core.model.links`, which the report job applies again).
Paths quoted in a reason have the job's secrets replaced first (a file may be named after a key).
The git that runs and the listings it reads back are `agents.isolated_git`'s; the judgement
(what changed, what is refused) is this module's.
"""

from __future__ import annotations

import base64
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from baton.agents import secrets
from baton.agents.isolated_git import (
    Git,
    GitProgram,
    blob_contents,
    blob_sizes,
    checkout_git,
    listed,
    own_repository,
    read_batch,
    resolve_git,
    staged,
)
from baton.core.model.changeset import GITLINK, SYMLINK, Changeset, FileChange, forbidden_problem
from baton.core.model.links import BaseLinks, check_links
from baton.errors import CaptureFailed
from baton.workflow.config import WorkSettings

SHOWN = 120  # characters of a path quoted in a reason


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
class _Entry:
    path: bytes
    mode: str
    oid: str
    deleted: bool


def start(workdir: Path, *, environ: Mapping[str, str] | None = None) -> Checkout:
    """The checkout around `workdir`, its HEAD and HEAD's listing, taken before the agent runs."""
    environ = os.environ if environ is None else environ
    program = resolve_git(environ)
    try:
        top = checkout_git(program, workdir, "rev-parse", "--show-toplevel", environ=environ)
        base = checkout_git(
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
    listing = checkout_git(
        program, root, "ls-tree", "-r", "-z", "--full-tree", commit, environ=environ
    )
    links = _link_targets(program, root, listing, environ)
    return Checkout(top=root, base=commit, listing=listing, git=program, links=links)


def _link_targets(
    program: GitProgram, top: Path, listing: bytes, environ: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """Each symbolic link of the base and what it points at, read from the checkout's objects
    before the agent runs (a link or target that is not UTF-8 cannot match a forbidden entry
    as text and is left out)."""
    links = [(path, oid) for path, (mode, oid) in listed(listing).items() if mode == SYMLINK]
    if not links:
        return ()
    targets = read_batch(
        lambda stdin: checkout_git(
            program, top, "cat-file", "--batch", environ=environ, stdin=stdin
        ),
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
    headers = checkout_git(
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
        git = own_repository(program, Path(scratch), checkout.top, checkout.base)
        git("update-index", "-z", "--index-info", stdin=checkout.listing)
        untracked = git("ls-files", "-z", "--others", "--exclude-standard")
        too_much = _untracked_over_limits(checkout.top, untracked, limits, shown)
        if too_much:
            return Changeset(base=checkout.base, refused=too_much)
        git("add", "--all", "--", ":/")
        entries = _compare(listed(checkout.listing), staged(git("ls-files", "-s", "-z")))
        return _changeset(checkout, entries, git, limits, shown)


@dataclass(frozen=True)
class _Shown:
    """How a path the agent chose is quoted in a reason: secrets replaced, then cut short (a
    cut first could leave part of a secret that no longer matches)."""

    held: list[secrets.Secret]

    def __call__(self, path: bytes | str) -> str:
        text = path if isinstance(path, str) else path.decode("utf-8", "backslashreplace")
        return secrets.redact(text, self.held)[:SHOWN]


def _changeset(
    checkout: Checkout, entries: list[_Entry], git: Git, limits: WorkSettings, shown: _Shown
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
    reached = check_links(
        BaseLinks(dict(checkout.links)),
        paths,
        lambda path: forbidden_problem(path, limits) is not None,
        show=shown,
    )
    if reached.problems:
        return Changeset(base=base, refused="; ".join(reached.problems[:3]))
    blobs = [e.oid for e in entries if not e.deleted and e.mode != GITLINK]
    sizes = blob_sizes(git, blobs)
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
    contents = blob_contents(git, blobs)
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


def _encoded(entry: _Entry, contents: dict[str, bytes]) -> str | None:
    if entry.deleted:
        return None
    if entry.mode == GITLINK:
        # The commit a nested repository points at; the report job refuses it by its mode.
        return base64.b64encode(entry.oid.encode("ascii")).decode("ascii")
    return base64.b64encode(contents[entry.oid]).decode("ascii")


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
