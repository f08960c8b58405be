"""Git's object ids as the fakes compute them, against real git: a fake whose ids differ from
git's would let a test pass that GitHub fails (the commit ids Baton binds changesets to)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from baton.sim.model.objects import FileDiff, blob_oid, diff, tree_oid


@pytest.mark.parametrize("data", [b"", b"hello\n", b"\x00\xff binary", "é ✓\n".encode()])
def test_a_blobs_id_is_the_one_git_hash_object_gives(tmp_path: Path, data: bytes) -> None:
    file = tmp_path / "blob"
    file.write_bytes(data)
    real = subprocess.run(
        ["git", "hash-object", str(file)], check=True, capture_output=True, text=True
    )
    assert blob_oid(data) == real.stdout.strip()


def test_a_removed_file_whose_bytes_reappear_is_one_rename_beside_the_other_changes() -> None:
    before = {"a.txt": b"same", "b.txt": b"old", "gone.txt": b"x"}
    after = {"moved/a.txt": b"same", "b.txt": b"new", "new.txt": b"y"}
    assert diff(before, after) == [
        FileDiff("b.txt", "modified", blob_oid(b"new")),
        FileDiff("gone.txt", "removed", blob_oid(b"x")),
        FileDiff("moved/a.txt", "renamed", blob_oid(b"same"), "a.txt"),
        FileDiff("new.txt", "added", blob_oid(b"y")),
    ]


def _git_tree(tmp_path: Path, files: dict[str, bytes], links: set[str]) -> str:
    """The tree id real git gives the same files and links (`git write-tree`)."""
    root = tmp_path / "real"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        if path in links:
            (root / path).symlink_to(data.decode())
        else:
            (root / path).write_bytes(data)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    done = subprocess.run(
        ["git", "-C", str(root), "write-tree"], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def test_a_tree_with_links_has_the_id_git_gives_it(tmp_path: Path) -> None:
    files = {
        ".claude": b"tools/claude",
        "tools": b"vendor/tools",
        "vendor/tools/claude/settings.json": b"{}\n",
        "vendor/link.md": b"../README.md",
        "README.md": b"# demo\n",
    }
    links = {".claude", "tools", "vendor/link.md"}

    assert tree_oid(files, links) == _git_tree(tmp_path, files, links)
    assert tree_oid(files) != tree_oid(files, links)
