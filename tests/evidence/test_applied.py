"""A changeset applied on its base in a detached temporary worktree (`evidence/applied.py`):
its files, modes and deletions exactly, committed with a fixed identity on the base, and the
worktree gone afterwards, on an error too; a changeset that could write outside its tree is
never applied."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from baton.core.model.changeset import EXECUTABLE
from baton.evidence.applied import ChangesetNotApplied, commit_changeset, problem_of, worktree
from support.scratch_repo import ScratchRepo, changeset_of


@pytest.fixture
def repo(tmp_path: Path) -> ScratchRepo:
    scratch = ScratchRepo(tmp_path / "repo")
    scratch.commit("start", {"calc.py": "x = 1\n", "old.txt": "old\n", ".gitignore": "*.txt\n"})
    return scratch


def _worktrees(repo: ScratchRepo) -> list[str]:
    listing = repo.git("worktree", "list", "--porcelain")
    return [line for line in listing.splitlines() if line.startswith("worktree ")]


def test_the_changeset_is_written_exactly_and_committed_on_its_base(repo: ScratchRepo) -> None:
    head = repo.git("rev-parse", "HEAD")
    # A CRLF and a file .gitignore ignores: bytes as they are, ignored or not.
    change = changeset_of(head, {"calc.py": "x = 2\r\n", "new.txt": "new\n", "old.txt": None})
    with worktree(repo.root, change) as tree:
        assert (tree / "calc.py").read_bytes() == b"x = 2\r\n"
        assert (tree / "new.txt").read_text() == "new\n"
        assert not (tree / "old.txt").exists()
        done = ScratchRepo.__new__(ScratchRepo)
        done.root = tree
        assert done.git("rev-parse", "HEAD~1") == head
        assert done.git("status", "--porcelain") == ""
        assert done.git("log", "-1", "--format=%an <%ae> %ad", "--date=iso-strict") == (
            "Baton <baton@localhost> 2000-01-01T00:00:00+00:00"
        )
        assert sorted(done.git("ls-tree", "-r", "--name-only", "HEAD").split()) == [
            ".gitignore",
            "calc.py",
            "new.txt",
        ]
    assert not tree.exists() and len(_worktrees(repo)) == 1
    assert repo.git("rev-parse", "HEAD") == head and repo.git("status", "--porcelain") == ""


def test_a_mode_is_kept_and_one_changeset_on_one_base_is_one_commit(
    repo: ScratchRepo, tmp_path: Path
) -> None:
    head = repo.git("rev-parse", "HEAD")
    change = changeset_of(head, {"run.sh": "#!/bin/sh\n"}, mode=EXECUTABLE)
    with worktree(repo.root, change) as tree:
        assert os.stat(tree / "run.sh").st_mode & stat.S_IXUSR
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = commit_changeset(repo.root, change, tmp_path / "a")
    assert commit_changeset(repo.root, change, tmp_path / "b") == first
    assert repo.git("ls-tree", first, "run.sh").startswith("100755 blob ")


def test_an_error_leaves_no_worktree_behind(repo: ScratchRepo) -> None:
    head = repo.git("rev-parse", "HEAD")
    with pytest.raises(RuntimeError), worktree(repo.root, changeset_of(head, {"a": "b"})) as tree:
        raise RuntimeError("the tests' runner crashed")
    assert not tree.exists() and len(_worktrees(repo)) == 1


def test_a_base_the_repository_lacks_is_not_applied(repo: ScratchRepo) -> None:
    change = changeset_of("f" * 40, {"a.py": "x\n"})
    with pytest.raises(ChangesetNotApplied), worktree(repo.root, change):
        pytest.fail("no worktree for a base that is not there")
    assert len(_worktrees(repo)) == 1


@pytest.mark.parametrize(
    ("files", "mode", "refused", "problem"),
    [
        ({"../outside.py": "x"}, "100644", None, '"../outside.py" is not a normalised'),
        ({".git/hooks/post-checkout": "x"}, "100644", None, '".git/hooks/post-checkout"'),
        ({"link": "/etc/passwd"}, "120000", None, "link has file mode '120000'"),
        ({"a.py": "x"}, "100644", "a file too large", "the changeset was refused: a file too"),
    ],
    ids=[
        "a path out of the tree",
        "a path into .git",
        "a symbolic link",
        "a changeset capture refused",
    ],
)
def test_a_changeset_the_report_would_refuse_is_never_applied(
    repo: ScratchRepo, files: dict[str, str | None], mode: str, refused: str | None, problem: str
) -> None:
    head = repo.git("rev-parse", "HEAD")
    change = changeset_of(head, files, mode=mode).model_copy(update={"refused": refused})
    found = problem_of(change)
    assert found is not None and found.startswith(problem), found
    with pytest.raises(ChangesetNotApplied), worktree(repo.root, change):
        pytest.fail("not applied")
    assert not (repo.root.parent / "outside.py").exists() and len(_worktrees(repo)) == 1
