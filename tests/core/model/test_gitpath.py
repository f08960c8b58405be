"""Baton refuses every changeset path git's own `verify_path` refuses (read-cache.c, with
core.protectHFS and core.protectNTFS on), so no name a file system folds onto `.git` reaches a
checkout. Each case names the rule of git's it mirrors; a property checks the folding itself."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.model import gitpath
from baton.core.model.changeset import SYMLINK, Changeset, FileChange, path_problem, problems
from baton.workflow.config import WorkSettings
from support.property_budget import budget


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        pytest.param(".gi\u200ct/hooks/x", "is inside .git", id="HFS ignores U+200C"),
        pytest.param("a/\u200d.git/x", "is inside .git", id="HFS ignores U+200D at the start"),
        pytest.param(".g\u202eit/x", "is inside .git", id="HFS ignores U+202E"),
        pytest.param(".git\u206f/x", "is inside .git", id="HFS ignores U+206F at the end"),
        pytest.param("\ufeff.GIT/x", "is inside .git", id="HFS ignores U+FEFF, any case"),
        pytest.param("GIT~1/config", "is inside .git", id="the NTFS short name of .git"),
        pytest.param("git~1. ./config", "is inside .git", id="a short name with blanks"),
        pytest.param(".git::$INDEX_ALLOCATION/x", "is inside .git", id="an NTFS stream"),
        pytest.param(".git:x", "is inside .git", id="any stream of .git"),
        pytest.param("a/.git. . ./b", "is inside .git", id="NTFS trims dots and spaces"),
        pytest.param("a./b", "has a name ending in a dot or a space", id="a trailing dot"),
        pytest.param("a/b ", "has a name ending in a dot or a space", id="a trailing space"),
        pytest.param("a:b", "has a character Windows cannot hold in a name", id="a colon"),
        pytest.param('a"b', "has a character Windows cannot hold in a name", id="a quote"),
        pytest.param("x/a|b", "has a character Windows cannot hold in a name", id="a pipe"),
        pytest.param("a?", "has a character Windows cannot hold in a name", id="a question"),
        pytest.param("con", "has a name Windows reserves for a device", id="CON"),
        pytest.param("d/NUL.txt", "has a name Windows reserves for a device", id="NUL.txt"),
        pytest.param("aux /x", "has a name ending in a dot or a space", id="AUX and a blank"),
        pytest.param("COM1", "has a name Windows reserves for a device", id="COM1"),
        pytest.param("lpt9.log", "has a name Windows reserves for a device", id="LPT9"),
        pytest.param("CONIN$", "has a name Windows reserves for a device", id="CONIN$"),
        pytest.param(
            "CLAUDE~1/settings.json",
            "has a name shaped like a Windows short name (NAME~1)",
            id="a short name that could stand for .claude",
        ),
        pytest.param(
            "GITHUB~1.YML",
            "has a name shaped like a Windows short name (NAME~1)",
            id="a short name with an extension",
        ),
        pytest.param("a/\ud800", "is not valid UTF-8", id="a lone surrogate"),
    ],
)
def test_a_path_git_refuses_on_some_platform_is_refused(path: str, problem: str) -> None:
    shown = path_problem(path)
    assert shown is not None and shown.endswith(" " + problem), shown


@pytest.mark.parametrize(
    "path",
    [
        ".gitx/y",
        "a/.git-keep",
        ".gi\u200bt/x",  # U+200B is not one HFS ignores (git accepts it)
        "git~1x/y",  # more after the short name than dots and spaces
        "console.log",  # a reserved name only whole, before a dot, blank or stream
        "com10",
        "auxiliary/x",
        "a~b",
        "backup~",
        "x/.gitignore",
        ".gitmodules-notes",
        ".gitX/y",  # only dots and spaces may follow .git
        "git~1X/y",
        ".gitmodules",  # as a regular file git takes it (Baton's forbidden set refuses it)
        "git/x",  # `git` with no dot, no `~1`
        "src/BOX",  # a name ending in a letter X is not one ending in a dot
    ],
)
def test_names_git_accepts_are_accepted(path: str) -> None:
    assert path_problem(path) is None


@pytest.mark.parametrize(
    "name",
    [
        ".gitmodules",
        ".GITMODULES",
        ".gitmodules.",
        ".gitmodules . ",
        ".gitmodules::$DATA",
        "gitmod~1",
        "GITMOD~4",
        "gi7eba~1",
        "gi7eba~9",
        "GI7EB~12",
        "~1234567",  # git's fall-back rule: the tilde may come first
        "g~123456",
        ".gitm\u200codules",
        "gitmod~1 ",
        "gi7eba~1 ",
        "gi7eba~1.",
        "gi7eba~1:x",
    ],
)
def test_a_symbolic_link_named_like_gitmodules_is_what_git_refuses(name: str) -> None:
    assert gitpath.is_ntfs_dotgitmodules(name) or gitpath.is_hfs_dotgitmodules(name)
    assert gitpath.verify_path(f"sub/{name}", symlink=True) in {
        "is a symbolic link named like .gitmodules",
        "has a name ending in a dot or a space",
        "has a character Windows cannot hold in a name",
    }


@pytest.mark.parametrize(
    "name",
    ["gitmod~5", ".gitmodulesx", "gi7eba~0", "gi7eb~1x", "gitmodules", "gi7eba~1a", "gitmod~1x"],
)
def test_names_git_does_not_take_for_gitmodules(name: str) -> None:
    assert not gitpath.is_ntfs_dotgitmodules(name)
    assert not gitpath.is_hfs_dotgitmodules(name)


def test_a_symbolic_link_named_like_gitmodules_is_refused_for_that() -> None:
    change = FileChange(path="x/GITMOD~1", contents="eA==", mode=SYMLINK)
    found = problems(Changeset(base="a" * 40, files=[change]), WorkSettings())
    assert found == ['"x/GITMOD~1" is a symbolic link named like .gitmodules']


def test_a_short_name_of_another_name_is_not_taken_for_git() -> None:
    assert path_problem("abc~1") == ('"abc~1" has a name shaped like a Windows short name (NAME~1)')
    assert gitpath.verify_path(".gitmodules") is None  # a regular file unless told otherwise


def test_the_ignored_code_points_are_git_s_list() -> None:
    """utf8.c `next_hfs_char`, code point by code point."""
    assert sorted(gitpath.HFS_IGNORED) == [
        0x200C, 0x200D, 0x200E, 0x200F,
        0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
        0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F,
        0xFEFF,
    ]  # fmt: skip


# --- properties -----------------------------------------------------------------------------
IGNORED = sorted(chr(c) for c in gitpath.HFS_IGNORED)
name_chars = st.sampled_from([*".gitGIT~1 :$/ab", *IGNORED, "\u200b", "İ", "K"])


def _what_a_file_system_opens(name: str) -> str:
    """The name after HFS drops its ignorables, NTFS cuts a stream and trims dots and
    spaces, and both fold ASCII case."""
    name = "".join(c for c in name if c not in IGNORED).split(":", 1)[0].rstrip(". ")
    return name.lower() if name.isascii() else name


@budget(400)
@given(st.text(name_chars, min_size=1, max_size=14))
def test_no_accepted_path_opens_as_git_on_any_file_system(path: str) -> None:
    if path_problem(path) is None:
        for name in path.split("/"):
            assert _what_a_file_system_opens(name) not in {".git", "git~1"}


def test_a_64_kb_path_and_names_are_checked_in_linear_time() -> None:
    hostile = ("\u200c" * 250 + "/") * 260
    assert path_problem(hostile) == "a path of 65260 characters (at most 1024)"
    assert gitpath.verify_path(hostile) is None
    assert gitpath.verify_path(("\u200c" * 60_000) + ".git") == "is inside .git"
    assert not gitpath.is_ntfs_dotgitmodules(".gitmodules" + " " * 60_000 + "x")
    assert gitpath.is_ntfs_dotgit(".git" + ". " * 30_000 + "::$DATA")
