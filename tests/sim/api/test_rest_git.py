"""`baton.sim.api.rest_git`: REST, served over HTTP by the tests' fake, for
the repository's git: the first commit, pushes, commits with their files, compares."""

from __future__ import annotations

from typing import Any

from fakes.http_github import FakeGitHub
from fakes.http_probe import raw

BRANCH = "baton/issue-1"


def test_the_repository_starts_with_main_at_a_readme(repo: Any, fake: FakeGitHub) -> None:
    head = fake.branch_head("main")
    assert head is not None and len(head) == 40
    assert fake.file_at("main", "README.md") == "# demo\n"

    ref = raw(fake, "GET", "/repos/octo/demo/git/ref/heads/main").json()
    assert ref["ref"] == "refs/heads/main"
    assert ref["object"] == {
        "sha": head,
        "type": "commit",
        "url": f"{fake.url}/repos/octo/demo/git/commits/{head}",
    }
    assert raw(fake, "GET", f"/repos/octo/demo/git/ref/heads/{BRANCH}").status_code == 404

    branch = repo.get_branch("main")
    assert branch.commit.sha == head
    assert branch.commit.commit.message == "Initial commit"
    missing = raw(fake, "GET", "/repos/octo/demo/branches/nope")
    assert (missing.status_code, missing.json()["message"]) == (404, "Branch not found")


def test_a_push_moves_the_branch_and_reads_back_through_pygithub(
    repo: Any, fake: FakeGitHub
) -> None:
    first = fake.push(BRANCH, {"a.txt": "a", "dir/b.txt": "b"}, "Add a and b", by="maria")
    second = fake.push(BRANCH, {"a.txt": None}, "Drop a")

    assert fake.branch_head(BRANCH) == second
    assert fake.file_at(BRANCH, "a.txt") is None and fake.file_at(first, "a.txt") == "a"
    assert fake.file_at(BRANCH, "dir/b.txt") == "b"
    commit = repo.get_commit(BRANCH)
    assert commit.sha == second
    assert [p.sha for p in commit.parents] == [first]
    assert commit.commit.message == "Drop a"
    assert repo.get_git_ref(f"heads/{BRANCH}").object.sha == second


def test_a_commit_reads_through_pygithub_with_its_files_signature_and_pages(
    repo: Any, fake: FakeGitHub
) -> None:
    """GET /commits/{sha}: a push is unsigned and its author's; its files 300 a page, the
    `Link` header naming the next while there is one (PyGithub follows it)."""
    files = {f"f{i:03d}.txt": str(i) for i in range(301)}
    oid = fake.push("baton/issue-1", files, "Many", by="bob")

    commit = repo.get_commit(oid)

    assert commit.author.login == "bob"
    assert commit.raw_data["commit"]["verification"]["verified"] is False
    assert commit.parents[0].sha == fake.branch_head("main")
    listed = list(commit.files)
    assert len(listed) == 301
    assert {f.status for f in listed} == {"added"}
    first = raw(fake, "GET", f"/repos/octo/demo/commits/{oid}")
    assert len(first.json()["files"]) == 300
    assert 'rel="next"' in first.headers["link"]
    second = raw(fake, "GET", f"/repos/octo/demo/commits/{oid}?page=2")
    assert [f["filename"] for f in second.json()["files"]] == ["f300.txt"]
    assert "link" not in second.headers


def test_compare_counts_commits_ahead_and_behind_by_ids_or_names(
    repo: Any, fake: FakeGitHub
) -> None:
    main = fake.branch_head("main")
    theirs = fake.push("baton/issue-1", {"a.txt": "a"}, by="bob")
    later = fake.push("main", {"b.txt": "b"}, by="maria")

    comparison = repo.compare(main, theirs)
    diverged = raw(fake, "GET", f"/repos/octo/demo/compare/{later}...{theirs}").json()
    behind = raw(fake, "GET", f"/repos/octo/demo/compare/main...{main}").json()

    assert (comparison.status, comparison.ahead_by, comparison.behind_by) == ("ahead", 1, 0)
    assert [c.sha for c in comparison.commits] == [theirs]
    assert (diverged["status"], diverged["ahead_by"], diverged["behind_by"]) == ("diverged", 1, 1)
    assert diverged["merge_base_commit"]["sha"] == main
    assert (behind["status"], behind["ahead_by"], behind["behind_by"]) == ("behind", 0, 1)
    assert raw(fake, "GET", f"/repos/octo/demo/compare/{main}..{theirs}").status_code == 404


def test_compare_pages_its_commits_and_names_no_account_for_an_unknown_address(
    fake: FakeGitHub,
) -> None:
    main = fake.branch_head("main")
    pushed = [fake.push("baton/issue-1", {"a.txt": str(i)}, by="bob") for i in range(3)]
    stranger = fake.push("baton/issue-1", {"a.txt": "x"}, by="eve", email="eve@example.com")
    path = f"/repos/octo/demo/compare/{main}...{stranger}"

    whole = raw(fake, "GET", path).json()
    second = raw(fake, "GET", f"{path}?per_page=2&page=2").json()

    assert [c["sha"] for c in whole["commits"]] == [*pushed, stranger]
    assert whole["total_commits"] == 4
    assert [c["sha"] for c in second["commits"]] == [pushed[2], stranger]
    assert second["total_commits"] == 4 and second["ahead_by"] == 4
    unknown = second["commits"][1]
    assert (unknown["author"], unknown["committer"]) == (None, None)
    assert unknown["commit"]["author"]["email"] == "eve@example.com"
    assert second["commits"][0]["author"]["login"] == "bob"
