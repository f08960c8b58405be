"""The runner's file commands (GITHUB_ENV, GITHUB_PATH, ...) are put back as they were before
the agent ran, whatever it did to them: appended, rewritten, removed, created, or replaced by
a link or a directory (never written through)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from baton.agents.file_commands import FILE_COMMANDS, keep, paths_of, restore, write_fresh


def test_the_paths_are_those_of_the_five_variables_that_are_set() -> None:
    environ = {"GITHUB_ENV": "/e", "GITHUB_PATH": "", "GITHUB_STEP_SUMMARY": "/s", "HOME": "/h"}

    assert paths_of(environ) == {"GITHUB_ENV": "/e", "GITHUB_STEP_SUMMARY": "/s"}
    assert FILE_COMMANDS == (
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_OUTPUT",
        "GITHUB_STATE",
        "GITHUB_STEP_SUMMARY",
    )


def _append(path: Path) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write("NODE_OPTIONS=--require /tmp/x.js\n")


def _link(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "target")


def _directory(path: Path) -> None:
    path.unlink()
    (path / "inside").mkdir(parents=True)


TAMPERING: dict[str, Callable[[Path], None]] = {
    "appended": _append,
    "rewritten": lambda p: p.write_text("PATH=/tmp/evil\n", encoding="utf-8"),
    "removed": lambda p: p.unlink(),
    "replaced by a link": _link,
    "replaced by a directory": _directory,
}


@pytest.mark.parametrize("how", list(TAMPERING))
def test_a_file_command_the_agent_touched_is_put_back(tmp_path: Path, how: str) -> None:
    path = tmp_path / "set_env"
    path.write_text("KEEP=1\n", encoding="utf-8")
    path.chmod(0o600)
    target = tmp_path / "target"
    target.write_text("", encoding="utf-8")
    kept = keep({"GITHUB_ENV": str(path)})

    TAMPERING[how](path)

    assert restore(kept) == ["GITHUB_ENV"]
    assert not path.is_symlink()
    assert path.read_text(encoding="utf-8") == "KEEP=1\n"
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert target.read_text(encoding="utf-8") == "", "never written through a link"


def test_untouched_file_commands_are_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "add_path"
    path.write_text("/usr/bin\n", encoding="utf-8")
    kept = keep({"GITHUB_PATH": str(path)})
    inode = os.stat(path).st_ino

    assert restore(kept) == []
    assert os.stat(path).st_ino == inode


def test_a_file_command_that_was_not_there_is_removed_again(tmp_path: Path) -> None:
    path = tmp_path / "state"
    kept = keep({"GITHUB_STATE": str(path)})
    path.write_text("x=1\n", encoding="utf-8")

    assert restore(kept) == ["GITHUB_STATE"]
    assert not path.exists()


def test_a_fresh_write_replaces_a_link_instead_of_following_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched\n", encoding="utf-8")
    path = tmp_path / "result.json"
    path.symlink_to(victim)

    write_fresh(path, b"{}")

    assert not path.is_symlink() and path.read_bytes() == b"{}"
    assert os.stat(path).st_mode & 0o777 == 0o644 & ~_umask()
    assert victim.read_text(encoding="utf-8") == "untouched\n"


def test_a_fifo_in_place_of_a_file_command_is_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "set_output"
    path.write_text("a=1\n", encoding="utf-8")
    kept = keep({"GITHUB_OUTPUT": str(path)})
    path.unlink()
    os.mkfifo(path)

    assert restore(kept) == ["GITHUB_OUTPUT"]
    assert path.read_text(encoding="utf-8") == "a=1\n"


def test_a_large_file_command_is_put_back_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "step_summary"
    contents = bytes(range(256)) * (3 * 4096 + 1)  # three reads and a bit
    path.write_bytes(contents)
    kept = keep({"GITHUB_STEP_SUMMARY": str(path)})
    path.write_bytes(b"# merge it\n")

    assert restore(kept) == ["GITHUB_STEP_SUMMARY"]
    assert path.read_bytes() == contents


def test_every_file_command_is_put_back_after_one_that_was_not_there(tmp_path: Path) -> None:
    absent, present = tmp_path / "state", tmp_path / "env"
    present.write_text("A=1\n", encoding="utf-8")
    kept = keep({"GITHUB_STATE": str(absent), "GITHUB_ENV": str(present)})
    absent.write_text("x\n", encoding="utf-8")
    present.write_text("B=2\n", encoding="utf-8")

    assert restore(kept) == ["GITHUB_STATE", "GITHUB_ENV"]
    assert not absent.exists()
    assert present.read_text(encoding="utf-8") == "A=1\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_touched_file_command_after_an_untouched_one_is_put_back(tmp_path: Path) -> None:
    untouched, touched = tmp_path / "output", tmp_path / "env"
    untouched.write_text("o=1\n", encoding="utf-8")
    touched.write_text("A=1\n", encoding="utf-8")
    kept = keep({"GITHUB_OUTPUT": str(untouched), "GITHUB_ENV": str(touched)})
    touched.write_text("PATH=/tmp/evil\n", encoding="utf-8")

    assert restore(kept) == ["GITHUB_ENV"]
    assert touched.read_text(encoding="utf-8") == "A=1\n"
