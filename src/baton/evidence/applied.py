"""A changeset applied on its base, where the tests can run on it: a detached temporary worktree.

A red proof is the tester's tests failing on the tester's changeset before Baton commits it,
so `baton verify --changeset` (and the agent job after a `proof: red` agent) needs the tree
Baton's commit will have. The commit is made here with git's plumbing from the changeset alone:
the base's tree read into an index of Baton's (never the checkout's), each file's bytes hashed
as they are (`hash-object --no-filters`: no clean filter, no end-of-line conversion), its mode
as the changeset says, each deletion removed, committed with a fixed identity and date on the
base. That tree is the one the report job's commit of the same changeset has, so its test and
frozen files (`changes.files_digest`) are the ones a sign-off will hold. The commit is then
checked out as a detached worktree in a fresh temporary folder (no hook, no fsmonitor runs),
so `--base <base>` finds the changeset's tests new; the worktree is removed when the tests are
done, whatever became of them.

A changeset is checked first as the report job would (paths, modes, contents): one that could
write outside its tree, or that capture refused, is not applied.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from baton.core.model.changeset import (
    EXECUTABLE,
    REGULAR,
    Changeset,
    decoded_size,
    path_problem,
)
from baton.evidence.changes import GitError, commit_of

IDENTITY = {
    "GIT_AUTHOR_NAME": "Baton",
    "GIT_AUTHOR_EMAIL": "baton@localhost",
    "GIT_COMMITTER_NAME": "Baton",
    "GIT_COMMITTER_EMAIL": "baton@localhost",
    # Fixed, so one changeset on one base is one commit, whenever it is verified.
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
}
SAFE = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.quotePath=off"]
NO_OID = "0" * 40
GIT_TIMEOUT = 300  # seconds for one git command


class ChangesetNotApplied(GitError):
    """The changeset cannot be applied on its base (refused, a bad path, or git failed)."""


def problem_of(changeset: Changeset) -> str | None:
    """Why the changeset is not applied, or None: capture refused it, or a path, a mode or
    contents the report job would refuse before writing anything."""
    if changeset.refused:
        return f"the changeset was refused: {changeset.refused}"
    for change in changeset.files:
        problem = path_problem(change.path)
        if problem:
            return problem
        if change.contents is not None and change.mode not in {REGULAR, EXECUTABLE}:
            return f"{change.path} has file mode {change.mode[:10]!r}"
        if change.contents is not None and decoded_size(change.contents) is None:
            return f"{change.path}: the contents are not base64"
    return None


def _environment(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment less git's own variables (a GIT_DIR would point elsewhere)."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**kept, **IDENTITY, **extra}


def _git(cwd: Path, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> str:
    try:
        done = subprocess.run(
            ["git", *SAFE, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=_environment(env or {}),
            timeout=GIT_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangesetNotApplied(f"git {args[0]} could not run: {exc}") from exc
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ChangesetNotApplied(why[-1] if why else f"git {args[0]} failed")
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def commit_changeset(checkout: Path, changeset: Changeset, scratch: Path) -> str:
    """The commit of `changeset` on its base, made in the checkout's repository with an index
    in `scratch`; the base must be a commit there."""
    problem = problem_of(changeset)
    if problem:
        raise ChangesetNotApplied(problem)
    try:
        base = commit_of(checkout, changeset.base)
    except GitError as exc:
        shown = changeset.base[:40]
        raise ChangesetNotApplied(f"its base {shown!r} is no commit of this checkout") from exc
    index = {"GIT_INDEX_FILE": str(scratch / "index")}
    _git(checkout, "read-tree", base, env=index)
    written = [f for f in changeset.files if f.contents is not None]
    blobs = scratch / "blobs"
    blobs.mkdir()
    for i, change in enumerate(written):
        (blobs / str(i)).write_bytes(base64.b64decode(change.contents or ""))
    names = "".join(f"{blobs / str(i)}\n" for i in range(len(written))).encode()
    oids = _git(checkout, "hash-object", "-w", "--no-filters", "--stdin-paths", stdin=names)
    info = [f"0 {NO_OID}\t{f.path}" for f in changeset.files if f.contents is None]
    info += [f"{f.mode} {oid}\t{f.path}" for f, oid in zip(written, oids.split(), strict=True)]
    entries = "".join(f"{line}\0" for line in info).encode("utf-8")
    _git(checkout, "update-index", "-z", "--index-info", stdin=entries, env=index)
    tree = _git(checkout, "write-tree", env=index)
    message = f"baton verify: the changeset {changeset.digest()} on {base}"
    return _git(checkout, "commit-tree", tree, "-p", base, "-m", message)


@contextlib.contextmanager
def worktree(checkout: Path, changeset: Changeset) -> Iterator[Path]:
    """A detached temporary worktree of the changeset's commit on its base; removed (and
    pruned from the repository's list) on the way out, on an error too."""
    scratch = Path(tempfile.mkdtemp(prefix="baton-verify-"))
    tree = scratch / "tree"
    added = False
    try:
        commit = commit_changeset(checkout, changeset, scratch)
        _git(checkout, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        added = True
        yield tree
    finally:
        if added:
            with contextlib.suppress(GitError):
                _git(checkout, "worktree", "remove", "--force", "--force", str(tree))
        shutil.rmtree(scratch, ignore_errors=True)
        if added:
            with contextlib.suppress(GitError):
                _git(checkout, "worktree", "prune")
