"""The git Baton runs on an agent's checkout (`agents/isolated_git.py`): pinned before the agent
runs, refused once replaced, reading no configuration but Baton's, and its listings read back
whatever column the object id stands in."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from baton.agents.isolated_git import (
    GitProgram,
    isolated_environment,
    listed,
    read_batch,
    resolve_git,
    staged,
)
from baton.errors import CaptureFailed

OID = "a" * 40


def test_two_listings_that_differ_only_in_where_the_object_id_stands_read_the_same() -> None:
    tree = f"100644 blob {OID}\tdocs/a b.md\x00120000 blob {'b' * 40}\tlink\x00".encode()
    index = f"100644 {OID} 0\tdocs/a b.md\x00120000 {'b' * 40} 0\tlink\x00".encode()

    assert (
        listed(tree)
        == staged(index)
        == {
            b"docs/a b.md": ("100644", OID),
            b"link": ("120000", "b" * 40),
        }
    )


def test_a_batch_of_objects_is_cut_by_the_sizes_git_reports_even_across_newlines() -> None:
    stream = f"{OID} blob 4\na\nb\n\n{'c' * 40} blob 0\n\n".encode()

    found = read_batch(lambda stdin: stream, [OID, "c" * 40])

    assert found == {OID: b"a\nb\n", "c" * 40: b""}
    assert read_batch(lambda stdin: b"unused", []) == {}


def test_the_isolated_environment_reads_no_configuration_of_the_system_user_or_checkout(
    tmp_path: Path,
) -> None:
    env = isolated_environment(tmp_path / "scratch", tmp_path / "checkout")

    assert env["GIT_CONFIG_NOSYSTEM"] == env["GIT_ATTR_NOSYSTEM"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull
    assert env["GIT_DIR"] == str(tmp_path / "scratch" / "git")
    assert env["GIT_WORK_TREE"] == str(tmp_path / "checkout")
    assert env["HOME"].startswith(str(tmp_path / "scratch"))


def test_no_git_on_the_path_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(CaptureFailed, match="git is not installed"):
        resolve_git({"PATH": str(tmp_path)})


def test_a_git_replaced_after_it_was_resolved_is_refused(tmp_path: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    shutil.copy(os.path.realpath(real), tmp_path / "git")
    program = resolve_git({"PATH": str(tmp_path)})
    assert isinstance(program, GitProgram)
    assert program.changed() is None
    assert program.search_path.split(os.pathsep)[0] == str(tmp_path)

    (tmp_path / "git").write_bytes(b"#!/bin/sh\nexit 0\n")

    assert "changed since" in (program.changed() or "")
    (tmp_path / "git").unlink()
    assert "is gone" in (program.changed() or "")
