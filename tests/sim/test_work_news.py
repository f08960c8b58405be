"""What the runs did to the work, told from the in-memory GitHub's state (`sim/work_news.py`):
only what GitHub holds, each commit once, a pull request's merge as the pull request's."""

from __future__ import annotations

from baton.sim import work_news
from baton.sim.sim_github import SimGitHub


def _from_main(branch: str) -> str:
    """Where `news` is told each new branch starts: here, always the default branch."""
    return "main"


def test_nothing_changed_tells_nothing() -> None:
    gh = SimGitHub()
    before = work_news.seen(gh)

    assert work_news.news(gh, before, _from_main) == []


def test_a_new_branch_is_told_with_where_it_starts_then_its_commits_and_their_files() -> None:
    gh = SimGitHub()
    main = gh.git.head("main") or ""
    before = work_news.seen(gh)
    first = gh.human_push("feature", {"a.py": "one\n"}, "Add a", by="alice")
    second = gh.human_push("feature", {"a.py": "two\n", "README.md": None}, "Change a")

    told = work_news.news(gh, before, _from_main)

    assert told == [
        f"GitHub: branch feature created from main at {main[:7]}",
        f"GitHub: feature → {first[:7]} by alice: Add a",
        "  + a.py",
        f"GitHub: feature → {second[:7]} by maria: Change a",
        "  - README.md",
        "  ~ a.py",
    ]


def test_only_what_came_after_the_snapshot_is_told() -> None:
    gh = SimGitHub()
    gh.human_push("feature", {"a.py": "one\n"}, "Add a")
    before = work_news.seen(gh)
    later = gh.human_push("feature", {"b.py": "b\n"}, "Add b")

    assert work_news.news(gh, before, _from_main) == [
        f"GitHub: feature → {later[:7]} by maria: Add b",
        "  + b.py",
    ]


def test_a_branch_merged_into_another_is_told_as_a_merge_not_as_its_commits_again() -> None:
    gh = SimGitHub()
    gh.human_push("epic", {"e.py": "e\n"}, "Start the epic")
    gh.git.create_branch("task", gh.git.head("epic") or "")
    gh.human_push("task", {"t.py": "t\n"}, "The task")
    before = work_news.seen(gh)
    merge = gh.git.merge_branches("epic", "task", "Merge task", "github-actions[bot]", gh.now)

    assert merge is not None
    assert work_news.news(gh, before, _from_main) == [
        f"GitHub: task merged into epic as {merge.oid[:7]} by github-actions[bot]"
    ]


def test_a_pull_request_is_told_opened_then_merged_and_its_merge_commit_only_so() -> None:
    gh = SimGitHub()
    gh.human_push("feature", {"a.py": "one\n"}, "Add a")
    before = work_news.seen(gh)
    number = gh.human_open_pull_request("feature", "Feature", draft=True)

    assert work_news.news(gh, before, _from_main) == [
        f"GitHub: pull request #{number} opened as a draft from feature"
    ]

    opened = work_news.seen(gh)
    merge = gh.human_merge(number, by="maria")

    assert work_news.news(gh, opened, _from_main) == [
        f"GitHub: pull request #{number} merged into main as {merge[:7]}"
    ]


def test_the_work_line_counts_the_merged_heads_and_baton_s_commits() -> None:
    gh = SimGitHub()
    assert work_news.work_line(gh, "epic", None, []) is None
    gh.human_push("epic", {"e.py": "e\n"}, "Start", by=gh.bot_login)
    gh.git.create_branch("task", gh.git.head("epic") or "")
    task = gh.human_push("task", {"t.py": "t\n"}, "Task", by=gh.bot_login)
    gh.git.merge_branches("epic", "task", "Merge task", gh.bot_login, gh.now)
    head = gh.git.head("epic") or ""

    line = work_news.work_line(gh, "epic", None, [task, "0" * 40])

    assert line == (
        f"epic at {head[:7]}, 1 task branch(es) merged into it, 3 commit(s) by Baton, "
        "no pull request"
    )
