"""A real git checkout of a fake GitHub's branch, as `actions/checkout` gives the agent's job.

The fakes keep commits with the ids git itself gives them (`sim.model.git.commit_oid`), so
writing the same commits with git here yields the same ids: the agent's checkout starts at the
branch head GitHub (the fake) holds, and `baton agent` binds its changeset to that commit.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from baton.sim.model.git import Git


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None, data: bytes = b"") -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.decode().strip()


def checkout(repository: Git, branch: str, where: Path) -> Path:
    """`where` as a clone of `repository` with `branch` checked out (its whole history)."""
    head = repository.head(branch)
    assert head is not None, f"no branch {branch}"
    where.mkdir(parents=True, exist_ok=True)
    _git(where, "init", "-q", "-b", branch)
    order: list[str] = []
    pending = [head]
    while pending:  # every ancestor, parents before children
        oid = pending.pop()
        if oid in order:
            continue
        parents = [p for p in repository.commits[oid].parents if p not in order]
        if parents:
            pending += [oid, *parents]
            continue
        order.append(oid)
    for oid in order:
        commit = repository.commits[oid]
        index = {"GIT_INDEX_FILE": str(where / ".git" / "fake-index")}
        _git(where, "read-tree", "--empty", env=index)
        for path, data in commit.tree.items():
            blob = _git(where, "hash-object", "-w", "--stdin", data=data)
            _git(where, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index)
        tree = _git(where, "write-tree", env=index)
        stamp = f"@{int(commit.when.timestamp())} +0000"
        who = {
            "GIT_AUTHOR_NAME": commit.author,
            "GIT_AUTHOR_EMAIL": commit.email,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": commit.author,
            "GIT_COMMITTER_EMAIL": commit.email,
            "GIT_COMMITTER_DATE": stamp,
        }
        parents = [arg for p in commit.parents for arg in ("-p", p)]
        message = commit.message.rstrip("\n") + "\n"
        made = _git(where, "commit-tree", tree, *parents, env=who, data=message.encode())
        assert made == oid, f"git gives {made} where the fake has {oid}"
    _git(where, "update-ref", f"refs/heads/{branch}", head)
    _git(where, "reset", "-q", "--hard", head)
    return where
