"""The repository as git and GitHub keep it (`sim/github/git.py`): git's ids, the names git
takes for a branch, the compare-and-swap of `createCommitOnBranch`, merges."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.sim.github.git import Git, GitRefusal, blob_oid, branch_name_problem

WHEN = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def test_git_s_blob_id_is_sha1_of_its_header_and_bytes() -> None:
    """`git hash-object` of an empty file and of "hello\\n", as git prints them."""
    assert blob_oid(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert blob_oid(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


@pytest.mark.parametrize(
    "name",
    [
        "",
        "has space",
        "a..b",
        "a/.hidden",
        "x.lock",
        "a//b",
        "/a",
        "a/",
        "ends.",
        "-x",
        "a@{1}",
        "@",
        "HEAD",
        "tilde~1",
        "a:b",
        "star*",
        "back\\slash",
        "ctl\x07",
    ],
)
def test_a_branch_name_git_refuses_is_refused(name: str) -> None:
    assert branch_name_problem(name) is not None
    with pytest.raises(GitRefusal) as refused:
        Git("octo/demo", when=WHEN).create_branch(name, "0" * 40)
    assert refused.value.kind == "bad_name"


@pytest.mark.parametrize("name", ["baton/issue-1", "feature/x.y", "fix_2", "a-b/c_d/e"])
def test_a_branch_name_git_accepts_is_accepted(name: str) -> None:
    assert branch_name_problem(name) is None


def test_a_commit_on_a_moved_head_is_stale_and_writes_nothing() -> None:
    repo = Git("octo/demo", when=WHEN)
    start = repo.refs["main"]
    moved = repo.push("main", {"a.txt": b"a"}, "A push", "maria", WHEN).oid
    with pytest.raises(GitRefusal) as refused:
        repo.commit(
            "main",
            expected_head=start,
            additions={"b.txt": b"b"},
            deletions=(),
            message="Late",
            author="bot",
            email="bot@example.com",
            when=WHEN,
        )
    assert (refused.value.kind, refused.value.head, repo.refs["main"]) == ("stale", moved, moved)
    assert str(refused.value) == (
        f'Expected branch to point to "{start}" but it did not. Pull and try again.'
    )


def test_a_workflow_change_needs_the_workflows_permission() -> None:
    repo = Git("octo/demo", when=WHEN)
    with pytest.raises(GitRefusal, match="without `workflows` permission") as refused:
        repo.commit(
            "main",
            expected_head=repo.refs["main"],
            additions={".github/workflows/ci.yml": b"on: push"},
            deletions=(),
            message="CI",
            author="bot",
            email="bot@example.com",
            when=WHEN,
            workflows=False,
        )
    assert refused.value.kind == "workflow"


def test_merging_branches_is_up_to_date_merged_or_a_conflict() -> None:
    repo = Git("octo/demo", when=WHEN)
    repo.create_branch("same", repo.refs["main"])
    assert repo.merge_branches("main", "same", "Merge", "bot", WHEN) is None
    repo.push("side", {"README.md": b"side\n"}, "Side", "bob", WHEN)
    repo.push("main", {"README.md": b"main\n"}, "Main", "maria", WHEN)
    with pytest.raises(GitRefusal, match="Merge conflict"):
        repo.merge_branches("main", "side", "Merge", "bot", WHEN)
    repo.push("other", {"new.txt": b"x"}, "Other", "bob", WHEN)
    merged = repo.merge_branches("main", "other", "Merge", "bot", WHEN)
    assert merged is not None and merged.tree["new.txt"] == b"x" and len(merged.parents) == 2
    with pytest.raises(GitRefusal, match="Head does not exist"):
        repo.merge_branches("main", "gone", "Merge", "bot", WHEN)
