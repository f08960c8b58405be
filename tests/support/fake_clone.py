"""A local git checkout of a commit the fake GitHub holds, with the very ids GitHub gave its
commits: what `actions/checkout` leaves the agent job, so the real `baton verify` can run there
and name the commit Baton knows (`Evidence.commit`), the blobs of its `files` digest alike."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from baton.sim.model.git import GitCommit
from fakes.http_github import FakeGitHub

REGULAR, LINK = "100644", "120000"


def _git(root: Path, *args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.decode().strip()


def _ancestry(fake: FakeGitHub, oid: str) -> list[GitCommit]:
    """`oid` and every commit it descends from, parents before children."""
    with fake._lock:
        commits = fake._git.commits
        order: list[GitCommit] = []
        seen: set[str] = set()
        stack: list[tuple[str, bool]] = [(oid, False)]
        while stack:
            at, done = stack.pop()
            if done:
                order.append(commits[at])
                continue
            if at in seen:
                continue
            seen.add(at)
            stack.append((at, True))
            stack.extend((parent, False) for parent in commits[at].parents)
        return order


def _rebuild(root: Path, commit: GitCommit) -> str:
    """`commit` made again with `git commit-tree`: its tree, parents, message, author, time."""
    _git(root, "read-tree", "--empty")
    for path, data in sorted(commit.tree.items()):
        blob = _git(root, "hash-object", "-w", "--stdin", stdin=data)
        mode = LINK if path in commit.links else REGULAR
        _git(root, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
    tree = _git(root, "write-tree")
    stamp = f"{int(commit.when.timestamp())} +0000"
    who = {"NAME": commit.author, "EMAIL": commit.email, "DATE": stamp}
    env = {
        f"GIT_{role}_{key}": value for role in ("AUTHOR", "COMMITTER") for key, value in who.items()
    }
    parents = [arg for parent in commit.parents for arg in ("-p", parent)]
    message = commit.message.rstrip("\n") + "\n"
    return _git(root, "commit-tree", tree, *parents, "-F", "-", stdin=message.encode(), env=env)


def checkout(fake: FakeGitHub, oid: str, root: Path) -> Path:
    """A checkout of `oid` at `root` (detached, as the agent job's is), its history the fake's
    with the same commit ids (asserted), `main` at the fake's default branch when it is in it."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "work")
    for commit in _ancestry(fake, oid):
        made = _rebuild(root, commit)
        assert made == commit.oid, f"git made {made} of the fake's commit {commit.oid}"
    _git(root, "checkout", "-q", "--detach", oid)
    _git(root, "reset", "-q", "--hard", oid)
    main = fake.branch_head("main")
    if main is not None and main in {c.oid for c in _ancestry(fake, oid)}:
        _git(root, "branch", "-f", "main", main)
    return root
