"""Git's object ids, as git computes them: blobs, trees (with symbolic links) and commits, and
the files two trees differ by. Stdlib only; `sim.model.git` keeps the repository built of them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

REGULAR_MODE, SYMLINK_MODE, FOLDER_MODE = "100644", "120000", "040000"


def _object(kind: str, data: bytes) -> tuple[str, bytes]:
    raw = f"{kind} {len(data)}\0".encode() + data
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest(), raw


def blob_oid(data: bytes) -> str:
    """The id git gives a file's contents: sha1 of `blob <length>\\0` and the bytes."""
    return _object("blob", data)[0]


@dataclass(frozen=True)
class FileDiff:
    """One entry of a commit's `files` in REST "get a commit": against its first parent."""

    path: str
    status: str  # added, removed, modified, renamed
    blob: str  # the blob at `path` after the commit; for a removal, the one removed
    previous: str = ""  # a rename's old path


def diff(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[FileDiff]:
    """What changed from `before` to `after`, as GitHub lists a commit's files: a removed
    path whose exact contents reappear at an added path is one rename (GitHub also finds
    renames of similar files; exact ones are the case the model keeps)."""
    added = [p for p in after if p not in before]
    removed = [p for p in before if p not in after]
    gone = {blob_oid(before[p]): p for p in removed}
    found: list[FileDiff] = []
    renamed: set[str] = set()
    for path in sorted(added):
        blob = blob_oid(after[path])
        old = gone.pop(blob, None)
        if old is not None:
            renamed.add(old)
            found.append(FileDiff(path, "renamed", blob, old))
        else:
            found.append(FileDiff(path, "added", blob))
    for path in sorted(removed):
        if path not in renamed:
            found.append(FileDiff(path, "removed", blob_oid(before[path])))
    for path in sorted(p for p in after if p in before and after[p] != before[p]):
        found.append(FileDiff(path, "modified", blob_oid(after[path])))
    return sorted(found, key=lambda f: f.path)


def tree_oid(files: Mapping[str, bytes], links: Container[str] = frozenset()) -> str:
    """The id git gives the tree of `files`: regular files (mode 100644) but the symbolic
    links among `links` (120000, the bytes their target)."""
    entries: dict[str, bytes] = {}
    folders: dict[str, dict[str, bytes]] = {}
    for path, data in files.items():
        head, slash, rest = path.partition("/")
        if slash:
            folders.setdefault(head, {})[rest] = data
        else:
            mode = b"120000 " if path in links else b"100644 "
            entries[head] = mode + head.encode() + b"\0" + bytes.fromhex(_object("blob", data)[0])
    for folder, inside in folders.items():
        inner = frozenset(p for p in inside if f"{folder}/{p}" in links)
        entries[folder + "/"] = (
            b"40000 " + folder.encode() + b"\0" + bytes.fromhex(tree_oid(inside, inner))
        )
    # git orders tree entries by name, a folder as if its name ended in `/`
    body = b"".join(entries[name] for name in sorted(entries, key=lambda n: n.encode()))
    return _object("tree", body)[0]


def commit_oid(
    files: Mapping[str, bytes],
    parents: Iterable[str],
    message: str,
    author: str,
    email: str,
    when: datetime,
    links: Container[str] = frozenset(),
) -> str:
    """The id `git commit-tree` gives this commit (author and committer alike; the message
    ends in one newline, as `-m` writes it)."""
    stamp = f"{author} <{email}> {int(when.timestamp())} +0000"
    lines = [f"tree {tree_oid(files, links)}", *(f"parent {p}" for p in parents)]
    lines += [f"author {stamp}", f"committer {stamp}", "", message.rstrip("\n") + "\n"]
    return _object("commit", "\n".join(lines).encode())[0]
