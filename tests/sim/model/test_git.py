"""The repository as git and GitHub keep it (`sim/model/git.py`): git's ids, the names git
takes for a branch, the compare-and-swap of `createCommitOnBranch`, merges."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.sim.model.git import (
    Git,
    GitRefusal,
    blob_oid,
    branch_name_problem,
    diff,
)

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


def test_a_refused_branch_name_is_told_with_what_git_found_in_it() -> None:
    assert branch_name_problem("a..b") == "'a..b' is not a valid branch name: it has `..`"


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
    with pytest.raises(GitRefusal, match="Base does not exist"):
        repo.merge_branches("gone", "main", "Merge", "bot", WHEN)


def test_the_same_change_on_both_sides_is_no_conflict() -> None:
    repo = Git("octo/demo", when=WHEN)
    repo.push("side", {"README.md": b"same\n"}, "Side", "bob", WHEN)
    repo.push("main", {"README.md": b"same\n", "b.txt": b"b"}, "Main", "maria", WHEN)
    merged = repo.merge_branches("main", "side", "Merge", "bot", WHEN)
    assert merged is not None and merged.tree["README.md"] == b"same\n"


def test_a_commits_files_are_against_its_first_parent_and_an_exact_move_is_a_rename() -> None:
    before = {"old.txt": b"same", "gone.txt": b"x", "README.md": b"# demo\n"}
    after = {"new.txt": b"same", "README.md": b"# new\n", "added.txt": b"a"}
    assert [(f.path, f.status, f.previous) for f in diff(before, after)] == [
        ("README.md", "modified", ""),
        ("added.txt", "added", ""),
        ("gone.txt", "removed", ""),
        ("new.txt", "renamed", "old.txt"),
    ]
    assert diff(before, after)[2].blob == blob_oid(b"x")  # a removal names the blob removed


def test_ahead_counts_the_commits_one_side_has_since_the_newest_shared_one() -> None:
    repo = Git("octo/demo", when=WHEN)
    start = repo.refs["main"]
    repo.push("side", {"a.txt": b"a"}, "A", "bob", WHEN)
    repo.push("side", {"b.txt": b"b"}, "B", "bob", WHEN)
    repo.push("main", {"c.txt": b"c"}, "C", "maria", WHEN)
    assert (repo.ahead("main", "side"), repo.ahead("side", "main")) == (2, 1)
    assert repo.merge_base("main", "side") == start
    assert repo.ahead_of(start, start) == 0


def test_first_parents_walk_back_to_the_first_known_commit_or_past_the_root() -> None:
    repo = Git("octo/demo", when=WHEN)
    root = repo.refs["main"]
    repo.push("main", {"a.txt": b"a"}, "A", "bob", WHEN)
    a = repo.refs["main"]
    repo.push("side", {"s.txt": b"s"}, "S", "bob", WHEN)
    repo.push("main", {"b.txt": b"b"}, "B", "maria", WHEN)
    merged = repo.merge_branches("main", "side", "Merge", "bot", WHEN)
    assert merged is not None
    head = repo.refs["main"]
    b = repo.commits[head].parents[0]
    # Along first parents only: the side branch's commit is never on the walk.
    assert repo.first_parents(head, {a}) == ([head, b], a)
    assert repo.first_parents(head, {head}) == ([], head)
    assert repo.first_parents(head, set()) == ([head, b, a, root], None)


def test_compare_lists_what_head_holds_that_base_lacks_parents_first_and_the_merged_in() -> None:
    """Commits of one second (the fakes' clock) still come parents first; a merge of the
    default branch brings that branch's new commits into the comparison too."""
    repo = Git("octo/demo", when=WHEN)
    start = repo.push("topic", {"a.txt": b"a"}, "ours", "baton", WHEN).oid
    first = repo.push("topic", {"a.txt": b"b"}, "one", "wendy", WHEN).oid
    second = repo.push("topic", {"a.txt": b"c"}, "two", "wendy", WHEN).oid
    on_main = repo.push("main", {"m.txt": b"m"}, "main's", "dependabot[bot]", WHEN).oid
    merged = repo.merge("main", "topic", "Merge main", "wendy", WHEN).oid

    ahead, behind, base = repo.compare(start, merged)

    assert ahead.index(first) < ahead.index(second) < ahead.index(merged)
    assert sorted(ahead) == sorted([first, second, on_main, merged])
    assert (behind, base) == (0, start)
    assert repo.compare(second, start)[:2] == ([], 2)


def test_github_links_a_commit_to_an_account_by_its_address() -> None:
    repo = Git("octo/demo", when=WHEN)
    known = repo.push("topic", {"a.txt": b"a"}, "by hand", "wendy", WHEN)
    unknown = repo.push("topic", {"a.txt": b"b"}, "by hand", "wendy", WHEN, email="w@example.com")

    assert (known.account, unknown.account) == ("wendy", None)


# --- symbolic links ---------------------------------------------------------------------------
def test_a_pushed_link_is_an_entry_of_mode_120000_and_nothing_is_read_through_it() -> None:
    repo = Git("octo/demo", when=WHEN)
    files = {".claude": b"tools/claude", "tools/claude/settings.json": b"{}\n"}
    commit = repo.push("main", files, "links", "maria", WHEN, links=[".claude"])

    assert commit.entries("") == [
        (".claude", "120000"),
        ("README.md", "100644"),
        ("tools", "040000"),
    ]
    assert commit.entry(".claude") == ("120000", b"tools/claude")
    assert commit.entry("tools") == ("040000", None)
    assert commit.entry(".claude/settings.json") is None  # git stores the link, not its target
    assert commit.entries("README.md") is None


def test_a_commit_that_writes_where_a_link_was_leaves_a_regular_file() -> None:
    repo = Git("octo/demo", when=WHEN)
    head = repo.push(
        "main", {"CLAUDE.md": b"docs/guide.md"}, "link", "maria", WHEN, links=["CLAUDE.md"]
    )
    after = repo.commit(
        "main",
        expected_head=head.oid,
        additions={"CLAUDE.md": b"# rules\n"},
        deletions=[],
        message="m",
        author="bot",
        email="bot@x",
        when=WHEN,
    )
    assert after.entry("CLAUDE.md") == ("100644", b"# rules\n")
