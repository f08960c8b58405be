"""Capturing what an agent changed: everything the working tree differs in from the commit the
agent started from, committed or not, ignored files left out, modes kept, contents read as git
stores them (a symbolic link is never followed), limits applied before contents are read. Each
test works on a real temporary git repository."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.agents.capture import (
    SHOWN,
    Checkout,
    _Shown,
    capture,
    describe,
    start,
)
from baton.agents.secrets import secrets_of
from baton.core.model.changeset import EXECUTABLE, GITLINK, REGULAR, SYMLINK, Changeset, problems
from baton.errors import CaptureFailed
from baton.workflow.config import WorkSettings
from support.property_budget import budget

LIMITS = WorkSettings()


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout with a README, a script, a doomed file and a .gitignore, all committed."""
    root = tmp_path / "checkout"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# Demo\n", encoding="utf-8")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    (root / "run.sh").chmod(0o755)
    (root / "old.txt").write_text("to be deleted\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def captured(repo: Path, limits: WorkSettings = LIMITS) -> tuple[Checkout, Changeset]:
    checkout = start(repo)
    return checkout, capture(checkout, limits)


def files(changeset: Changeset) -> dict[str, tuple[str, bytes | None]]:
    return {
        f.path: (f.mode, None if f.contents is None else base64.b64decode(f.contents))
        for f in changeset.files
    }


def test_an_untouched_checkout_captures_an_empty_changeset_bound_to_head(repo: Path) -> None:
    checkout, changeset = captured(repo)

    assert checkout.base == git(repo, "rev-parse", "HEAD")
    assert changeset.base == checkout.base
    assert changeset.empty
    assert problems(changeset, LIMITS) == []


def test_added_changed_and_deleted_files_are_found_in_path_order(repo: Path) -> None:
    checkout = start(repo)
    (repo / "README.md").write_text("# Demo\n\nMore.\n", encoding="utf-8")
    (repo / "src").mkdir()
    (repo / "src" / "new.py").write_text("print('new')\n", encoding="utf-8")
    (repo / "old.txt").unlink()

    changeset = capture(checkout, LIMITS)

    assert files(changeset) == {
        "README.md": (REGULAR, b"# Demo\n\nMore.\n"),
        "old.txt": (REGULAR, None),
        "src/new.py": (REGULAR, b"print('new')\n"),
    }
    assert [f.path for f in changeset.files] == sorted(f.path for f in changeset.files)
    assert describe(changeset).startswith("changeset: 2 file(s) written, 1 deleted, 27 bytes")


def test_ignored_files_are_left_out(repo: Path) -> None:
    checkout = start(repo)
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_bytes(b"\0" * 100)
    (repo / "debug.log").write_text("noise\n", encoding="utf-8")
    (repo / "kept.txt").write_text("kept\n", encoding="utf-8")

    assert list(files(capture(checkout, LIMITS))) == ["kept.txt"]


def test_the_checkouts_own_index_is_left_alone(repo: Path) -> None:
    checkout = start(repo)
    (repo / "staged.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "staged.txt")
    (repo / "unstaged.txt").write_text("not staged\n", encoding="utf-8")
    before = git(repo, "status", "--porcelain")

    assert set(files(capture(checkout, LIMITS))) == {"staged.txt", "unstaged.txt"}
    assert git(repo, "status", "--porcelain") == before


def test_binary_contents_travel_byte_for_byte(repo: Path) -> None:
    checkout = start(repo)
    blob = bytes(range(256)) * 4 + b"\r\n\0\xff"
    (repo / "image.bin").write_bytes(blob)

    assert files(capture(checkout, LIMITS))["image.bin"] == (REGULAR, blob)


def test_the_executable_bit_is_kept_both_ways(repo: Path) -> None:
    checkout = start(repo)
    (repo / "run.sh").chmod(0o644)
    (repo / "tool.py").write_text("#!/usr/bin/env python3\n", encoding="utf-8")
    (repo / "tool.py").chmod(0o755)

    found = files(capture(checkout, LIMITS))
    assert found["run.sh"][0] == REGULAR
    assert found["tool.py"][0] == EXECUTABLE


def test_a_symbolic_link_travels_as_a_link_and_is_never_followed(repo: Path) -> None:
    checkout = start(repo)
    secret = repo.parent / "secret.txt"
    secret.write_text("the runner's secret\n", encoding="utf-8")
    (repo / "leak").symlink_to(secret)

    changeset = capture(checkout, LIMITS)

    assert files(changeset) == {"leak": (SYMLINK, os.fsencode(secret))}
    assert "leak is a symbolic link" in problems(changeset, LIMITS)


def test_a_nested_repository_travels_as_a_submodule_and_is_refused(repo: Path) -> None:
    checkout = start(repo)
    nested = repo / "vendor"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / "lib.txt").write_text("lib\n", encoding="utf-8")
    git(nested, "add", "-A")
    git(nested, "commit", "-q", "-m", "nested")

    changeset = capture(checkout, LIMITS)

    ((mode, contents),) = files(changeset).values()
    assert mode == GITLINK
    assert contents == git(nested, "rev-parse", "HEAD").encode("ascii")
    assert "vendor is a submodule" in problems(changeset, LIMITS)


def test_work_the_agent_committed_counts_against_the_commit_it_started_from(repo: Path) -> None:
    checkout = start(repo)
    (repo / "committed.txt").write_text("committed\n", encoding="utf-8")
    (repo / "old.txt").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the agent's own commit")
    (repo / "loose.txt").write_text("not committed\n", encoding="utf-8")

    changeset = capture(checkout, LIMITS)

    assert changeset.base == checkout.base != git(repo, "rev-parse", "HEAD")
    assert set(files(changeset)) == {"committed.txt", "loose.txt", "old.txt"}
    assert files(changeset)["old.txt"] == (REGULAR, None)


def test_a_change_the_agent_undid_is_no_change(repo: Path) -> None:
    checkout = start(repo)
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "change")
    (repo / "README.md").write_text("# Demo\n", encoding="utf-8")

    assert capture(checkout, LIMITS).empty


def test_hostile_path_names_travel_verbatim_for_the_report_job_to_judge(repo: Path) -> None:
    checkout = start(repo)
    names = ["new\nline.txt", 'quote"and space .txt', "ünïcødé.md", "-rf", "tab\there"]
    for name in names:
        (repo / name).write_text(name, encoding="utf-8")

    found = files(capture(checkout, LIMITS))

    assert set(found) == set(names)
    assert all(found[name] == (REGULAR, name.encode()) for name in names)


def test_a_path_that_is_not_utf8_is_refused_at_capture(repo: Path) -> None:
    checkout = start(repo)
    with open(os.path.join(os.fsencode(repo), b"latin-\xe9.txt"), "wb") as latin:
        latin.write(b"x")

    changeset = capture(checkout, LIMITS)

    assert changeset.files == []
    assert changeset.refused and "is not UTF-8" in changeset.refused


def _deep(root: Path, depth: int, leaf: str = "leaf.txt") -> None:
    """Directories of 250-character names, `depth` deep, reached one by one (a whole path
    over the system's 4 KB limit cannot be opened in one call)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d" * 250, dir_fd=fd)
            child = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        handle = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(handle, b"deep\n")
        os.close(handle)
    finally:
        os.close(fd)


def test_a_path_of_3_kb_is_carried_and_refused_by_the_report_job(repo: Path) -> None:
    checkout = start(repo)
    _deep(repo, 12)

    changeset = capture(checkout, LIMITS)

    ((path, (_, contents)),) = files(changeset).items()
    assert len(path) == 12 * 251 + len("leaf.txt") and contents == b"deep\n"
    assert any("characters (at most 1024)" in p for p in problems(changeset, LIMITS))


def test_a_64_kb_path_the_system_cannot_reach_neither_crashes_nor_hangs_the_capture(
    repo: Path,
) -> None:
    checkout = start(repo)
    _deep(repo, 256)  # 64,256 characters of directories
    (repo / "kept.txt").write_text("kept\n", encoding="utf-8")

    changeset = capture(checkout, LIMITS)

    # git cannot open what lies past the 4 KB limit, so it can never be committed either.
    assert [p for p in files(changeset) if not p.startswith("d" * 250)] == ["kept.txt"]
    assert all(len(p) < 4096 for p in files(changeset))


def test_new_files_over_the_byte_limit_are_refused_before_git_reads_them(repo: Path) -> None:
    checkout = start(repo)
    with (repo / "huge.bin").open("wb") as sparse:  # 3 GB on disk in name only
        sparse.truncate(3 * 1024**3)

    changeset = capture(checkout, WorkSettings(max_bytes=1000))

    assert changeset.files == []
    assert changeset.refused and "more than 1,000 bytes" in changeset.refused
    assert "huge.bin" in changeset.refused
    assert problems(changeset, LIMITS) == [changeset.refused]


def test_changed_files_over_the_byte_limit_are_refused_without_their_contents(
    repo: Path,
) -> None:
    checkout = start(repo)
    (repo / "README.md").write_bytes(b"x" * 600)
    (repo / "run.sh").write_bytes(b"y" * 600)

    changeset = capture(checkout, WorkSettings(max_bytes=1000))

    assert changeset.files == []
    assert changeset.refused == (
        "the agent's changes hold 1,200 bytes (at most 1,000); the largest: "
        "run.sh (600 bytes), README.md (600 bytes)"
    )


def test_too_many_files_are_refused_without_reading_them(repo: Path) -> None:
    checkout = start(repo)
    for index in range(5):
        (repo / f"f{index}.txt").write_text(str(index), encoding="utf-8")

    changeset = capture(checkout, WorkSettings(max_files=4))

    assert changeset.files == []
    assert changeset.refused == "the agent created 5 new files (at most 4)"


def test_a_directory_that_is_no_checkout_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CaptureFailed) as caught:
        start(tmp_path)

    message = str(caught.value)
    assert "is not a git checkout" in message and "actions/checkout" in message
    assert "\n" not in message


def test_a_checkout_without_a_commit_is_the_same_clear_error(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")

    with pytest.raises(CaptureFailed, match="is not a git checkout with a commit"):
        start(tmp_path)


def test_a_subdirectory_captures_the_whole_checkout(repo: Path) -> None:
    (repo / "sub").mkdir()
    checkout = start(repo / "sub")
    (repo / "top.txt").write_text("top\n", encoding="utf-8")

    assert checkout.top == repo
    assert list(files(capture(checkout, LIMITS))) == ["top.txt"]


def test_a_monitor_hook_the_agent_planted_in_git_config_is_not_run(repo: Path) -> None:
    # An fsmonitor hook would run a program of the agent's choosing inside Baton's process.
    checkout = start(repo)
    marker = repo.parent / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}")
    (repo / "new.txt").write_text("new\n", encoding="utf-8")

    assert list(files(capture(checkout, LIMITS))) == ["new.txt"]
    assert not marker.exists()


def test_an_unpopulated_submodule_of_the_base_is_no_change(repo: Path) -> None:
    # actions/checkout leaves a submodule's directory empty unless asked to fetch it.
    commit = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"{GITLINK},{commit},vendor/lib")
    git(repo, "commit", "-q", "-m", "a submodule")
    (repo / "vendor" / "lib").mkdir(parents=True)
    checkout = start(repo)

    assert capture(checkout, LIMITS).empty


# ----------------------------------------------------------- git configuration the agent wrote

PLANTED_FILES = {
    "clean.txt": b"the real bytes\r\nwith CRLF and $Id$\r\n",
    "utf16.txt": "caf\u00e9\n".encode("utf-16-le"),
}
ATTRIBUTES = b"* filter=x text eol=lf ident\nutf16.txt working-tree-encoding=UTF-16LE\n"


def _program(where: Path) -> Path:
    """A program that leaves a mark when git runs it (and passes its input through)."""
    program = where / "ran.sh"
    program.write_text(f'#!/bin/sh\necho "$*" >> {where / "ran"}\ncat\n', encoding="utf-8")
    program.chmod(0o755)
    return program


def _plant(repo: Path, where: Path, kind: str) -> None:
    """One way an agent can make git run its program, or read another tree, through its
    checkout's git directory or its .gitattributes."""
    program = _program(where)
    git_dir = repo / ".git"
    if kind == "clean filter":
        git(repo, "config", "filter.x.clean", f"{program} clean")
        git(repo, "config", "filter.x.required", "true")
    elif kind == "include":
        included = where / "included.gitconfig"
        included.write_text(f'[filter "x"]\n\tclean = {program} included\n', encoding="utf-8")
        git(repo, "config", "include.path", str(included))
    elif kind == "hook":
        hook = git_dir / "hooks" / "post-index-change"
        hook.parent.mkdir(exist_ok=True)
        hook.write_text(f"#!/bin/sh\n{program} hook\n", encoding="utf-8")
        hook.chmod(0o755)
        git(repo, "config", "core.hooksPath", str(hook.parent))
    elif kind == "alternates":
        decoy = where / "decoy"
        decoy.mkdir()
        git(decoy, "init", "-q")
        alternates = git_dir / "objects" / "info" / "alternates"
        alternates.write_text(f"{decoy / '.git' / 'objects'}\n", encoding="utf-8")
    elif kind == "another work tree":
        decoy = where / "decoy"
        decoy.mkdir()
        for name in PLANTED_FILES:
            (decoy / name).write_text("decoy\n", encoding="utf-8")
        git(repo, "config", "core.worktree", str(decoy))
    elif kind == "conversions":
        git(repo, "config", "core.autocrlf", "true")
    (repo / ".gitattributes").write_bytes(ATTRIBUTES)
    for name, data in PLANTED_FILES.items():
        (repo / name).write_bytes(data)


@pytest.mark.parametrize(
    "kind",
    ["clean filter", "include", "hook", "alternates", "another work tree", "conversions"],
)
def test_git_configuration_the_agent_wrote_runs_nothing_and_converts_nothing(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    checkout = start(repo)
    _plant(repo, tmp_path, kind)

    changeset = capture(checkout, LIMITS)

    assert not (tmp_path / "ran").exists(), "no program of the agent's ran during the capture"
    found = {path: contents for path, (_, contents) in files(changeset).items()}
    assert found == {".gitattributes": ATTRIBUTES, **PLANTED_FILES}, "the files' real bytes"


def test_the_capture_reads_nothing_from_the_checkouts_git_directory(repo: Path) -> None:
    checkout = start(repo)
    (repo / "new.txt").write_text("new\n", encoding="utf-8")
    git_dir = repo / ".git"
    git_dir.rename(repo.parent / "moved-away")
    (repo / ".git").write_text("not a git directory\n", encoding="utf-8")

    assert files(capture(checkout, LIMITS)) == {"new.txt": (REGULAR, b"new\n")}


@pytest.mark.parametrize("how", ["in the config", "behind an include"])
def test_a_checkout_keeping_the_jobs_token_in_its_config_is_a_clear_error(
    repo: Path, tmp_path: Path, how: str
) -> None:
    # What actions/checkout writes unless `persist-credentials: false`.
    header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3NlY3JldA=="
    if how == "in the config":
        git(repo, "config", "http.https://github.com/.extraheader", header)
    else:
        included = tmp_path / "credentials.gitconfig"
        included.write_text(f'[http "https://github.com/"]\n\textraheader = {header}\n')
        git(repo, "config", "include.path", str(included))

    with pytest.raises(CaptureFailed) as caught:
        start(repo)

    message = str(caught.value)
    assert message == (
        "the checkout's git configuration holds a credential "
        "(http.https://github.com/.extraheader), where the agent could read it, so the agent "
        "does not run: add `persist-credentials: false` to the actions/checkout step before "
        "`baton agent`"
    )
    assert "eC1h" not in message


def test_exactly_the_limits_pass_and_one_more_changed_file_is_refused(repo: Path) -> None:
    checkout = start(repo)
    (repo / "README.md").write_bytes(b"x" * 10)
    (repo / "run.sh").write_bytes(b"y" * 10)

    at_limits = capture(checkout, WorkSettings(max_files=2, max_bytes=20))
    assert at_limits.refused is None and len(at_limits.files) == 2

    (repo / "old.txt").write_bytes(b"")
    over = capture(checkout, WorkSettings(max_files=2, max_bytes=20))
    assert over.files == []
    assert over.refused == "the agent changed 3 files (at most 2)"


def test_ignored_files_count_against_no_limit(repo: Path) -> None:
    checkout = start(repo)
    (repo / "build").mkdir()
    with (repo / "build" / "huge.bin").open("wb") as sparse:
        sparse.truncate(3 * 1024**3)
    (repo / "kept.txt").write_text("kept\n", encoding="utf-8")

    changeset = capture(checkout, WorkSettings(max_files=1, max_bytes=1000))

    assert changeset.refused is None
    assert list(files(changeset)) == ["kept.txt"]


def test_a_path_of_the_base_holding_a_tab_is_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "tabs"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a\tb.txt").write_text("one\n", encoding="utf-8")
    (root / "c\td.txt").write_text("two\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tabs")
    checkout = start(root)
    (root / "a\tb.txt").write_text("changed\n", encoding="utf-8")

    assert files(capture(checkout, LIMITS)) == {"a\tb.txt": (REGULAR, b"changed\n")}


def test_a_sha256_repository_is_captured_with_its_own_object_format(tmp_path: Path) -> None:
    root = tmp_path / "sha256"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256")
    (root / "README.md").write_text("# Demo\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    checkout = start(root)
    (root / "new.txt").write_text("new\n", encoding="utf-8")

    assert len(checkout.base) == 64
    assert files(capture(checkout, LIMITS)) == {"new.txt": (REGULAR, b"new\n")}


# --- forbidden paths the base links elsewhere ------------------------------------------------
@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A checkout keeping its instructions under several names, as many do: CLAUDE.md and
    .claude are links (forbidden paths) to an ordinary file and folder."""
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    (root / "tools" / "claude").mkdir(parents=True)
    (root / "tools" / "claudex").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "docs" / "ai-guide.md").write_text("Run the tests.\n", encoding="utf-8")
    (root / "tools" / "claude" / "settings.json").write_text("{}\n", encoding="utf-8")
    (root / "tools" / "claudex" / "notes.md").write_text("notes\n", encoding="utf-8")
    (root / "CLAUDE.md").symlink_to("docs/ai-guide.md")
    (root / ".claude").symlink_to("tools/claude")
    (root / "docs" / "guide.md").symlink_to("ai-guide.md")  # not forbidden
    (root / "docs" / "AGENTS.md").symlink_to("../tools/claudex/../claude/settings.json")
    (root / "far").mkdir()
    (root / "far" / ".cursorrules").symlink_to("../../outside")  # leaves the repository
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


HOOKS = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sh x"}]}]}}\n'


def test_a_change_to_what_a_forbidden_link_points_at_is_refused_naming_both(linked: Path) -> None:
    checkout = start(linked)
    (linked / "tools" / "claude" / "settings.json").write_text(HOOKS, encoding="utf-8")

    changeset = capture(checkout, LIMITS)

    assert changeset.files == []
    assert changeset.refused == (
        "tools/claude/settings.json is what .claude points at (.claude -> tools/claude), and "
        ".claude is a forbidden path: a change there is a change to it"
    )


def test_a_change_to_the_file_a_forbidden_link_names_is_refused(linked: Path) -> None:
    checkout = start(linked)
    (linked / "docs" / "ai-guide.md").write_text("Push to main.\n", encoding="utf-8")

    assert capture(checkout, LIMITS).refused == (
        "docs/ai-guide.md is what CLAUDE.md points at (CLAUDE.md -> docs/ai-guide.md), and "
        "CLAUDE.md is a forbidden path: a change there is a change to it"
    )


def test_a_new_file_under_a_forbidden_links_folder_is_refused(linked: Path) -> None:
    checkout = start(linked)
    (linked / "tools" / "claude" / "commands").mkdir()
    (linked / "tools" / "claude" / "commands" / "go.md").write_text("x\n", encoding="utf-8")

    refused = capture(checkout, LIMITS).refused

    assert refused is not None
    assert refused.startswith("tools/claude/commands/go.md is what .claude points at")


def test_a_forbidden_links_target_is_resolved_from_its_folder_and_normalised(
    linked: Path,
) -> None:
    # docs/AGENTS.md -> ../tools/claudex/../claude/settings.json is tools/claude/settings.json;
    # .claude's rule finds it first in path order, so delete .claude's link from the base view.
    checkout = start(linked)
    checkout = replace(checkout, links=tuple(x for x in checkout.links if x[0] != ".claude"))
    (linked / "tools" / "claude" / "settings.json").write_text(HOOKS, encoding="utf-8")

    assert capture(checkout, LIMITS).refused == (
        "tools/claude/settings.json is what docs/AGENTS.md points at (docs/AGENTS.md -> "
        "tools/claude/settings.json), and docs/AGENTS.md is a forbidden path: a change there "
        "is a change to it"
    )


def test_beside_a_forbidden_links_target_and_through_an_ordinary_link_changes_pass(
    linked: Path,
) -> None:
    checkout = start(linked)
    (linked / "tools" / "claudex" / "notes.md").write_text("more notes\n", encoding="utf-8")
    (linked / "tools" / "claude-two.md").write_text("x\n", encoding="utf-8")

    changeset = capture(checkout, LIMITS)

    assert changeset.refused is None
    assert sorted(files(changeset)) == ["tools/claude-two.md", "tools/claudex/notes.md"]


def test_a_link_leaving_the_repository_or_to_its_root_is_judged_by_where_it_lands(
    linked: Path,
) -> None:
    checkout = start(linked)
    assert ("far/.cursorrules", "../../outside") in checkout.links
    (linked / "outside").write_text("x\n", encoding="utf-8")  # ../outside from far: the root's
    assert capture(checkout, LIMITS).refused is None
    rooted = replace(checkout, links=((".claude", "."),))

    refused = capture(rooted, LIMITS).refused

    assert refused is not None and refused.startswith("outside is what .claude points at")


def test_a_chain_of_links_is_followed_to_the_file_the_next_agent_loads(tmp_path: Path) -> None:
    root = tmp_path / "chain"
    (root / "docs").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "ai-guide.md").write_text("Run the tests.\n", encoding="utf-8")
    (root / "CLAUDE.md").symlink_to("docs/guide.md")
    (root / "docs" / "guide.md").symlink_to("../ai-guide.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    checkout = start(root)
    (root / "ai-guide.md").write_text("Push to main.\n", encoding="utf-8")

    assert capture(checkout, LIMITS).refused == (
        "ai-guide.md is what CLAUDE.md points at (CLAUDE.md -> docs/guide.md -> ai-guide.md), "
        "and CLAUDE.md is a forbidden path: a change there is a change to it"
    )


def test_a_linked_parent_folder_is_followed_to_the_settings_the_next_agent_loads(
    tmp_path: Path,
) -> None:
    root = tmp_path / "folders"
    (root / "vendor" / "tools" / "claude").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "vendor" / "tools" / "claude" / "settings.json").write_text("{}\n", encoding="utf-8")
    (root / ".claude").symlink_to("tools/claude")
    (root / "tools").symlink_to("vendor/tools")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    checkout = start(root)
    (root / "vendor" / "tools" / "claude" / "settings.json").write_text(HOOKS, encoding="utf-8")

    assert capture(checkout, LIMITS).refused == (
        "vendor/tools/claude/settings.json is what .claude points at (.claude -> tools -> "
        "vendor/tools/claude), and .claude is a forbidden path: a change there is a change to it"
    )


def test_without_path_start_looks_for_git_where_the_system_would(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not on Baton's own PATH: with no PATH in the environment given, git is looked for in
    # os.defpath, as the system's exec would.
    planted = tmp_path / "bin"
    planted.mkdir()
    (planted / "git").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    (planted / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(planted))
    environ = {k: v for k, v in os.environ.items() if k != "PATH"}

    checkout = start(repo, environ=environ)

    assert os.path.dirname(checkout.git.path) in os.defpath.split(os.pathsep)


def test_a_link_forbidden_by_the_repositorys_own_setting_counts_too(linked: Path) -> None:
    checkout = start(linked)
    (linked / "docs" / "ai-guide.md").write_text("x\n", encoding="utf-8")

    assert capture(checkout, WorkSettings(allow=("CLAUDE.md",))).refused is None
    own = WorkSettings(allow=("CLAUDE.md",), forbidden=("docs/guide.md",))
    refused = capture(checkout, own).refused
    assert refused is not None and refused.startswith("docs/ai-guide.md is what docs/guide.md")


# --- the git capture runs --------------------------------------------------------------------
def test_start_resolves_git_to_an_absolute_path_before_the_agent_runs(
    repo: Path, tmp_path: Path
) -> None:
    checkout = start(repo)

    assert os.path.isabs(checkout.git.path) and os.path.realpath(checkout.git.path) == (
        checkout.git.path
    )
    assert checkout.git.search_path.split(os.pathsep) == [
        os.path.dirname(checkout.git.path),
        *[d for d in ("/usr/bin", "/bin") if d != os.path.dirname(checkout.git.path)],
    ]


def test_a_git_that_changed_after_start_is_not_run(repo: Path, tmp_path: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shutil.copy2(real, bin_dir / "git")
    checkout = start(repo, environ={**os.environ, "PATH": str(bin_dir)})
    assert checkout.git.path == str(bin_dir / "git")
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    with (bin_dir / "git").open("ab") as program:
        program.write(b"\0")

    changeset = capture(checkout, LIMITS)

    assert changeset.files == []
    assert changeset.refused == (
        f"the git Baton resolved before the agent ran ({bin_dir / 'git'}) changed since"
    )
    (bin_dir / "git").unlink()
    assert capture(checkout, LIMITS).refused == (
        f"the git Baton resolved before the agent ran ({bin_dir / 'git'}) is gone: "
        f"[Errno 2] No such file or directory: '{bin_dir / 'git'}'"
    )


def test_without_git_on_path_start_is_one_clear_error(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(CaptureFailed, match=r"^git is not installed, so the agent's changes"):
        start(repo, environ={**os.environ, "PATH": str(tmp_path)})


# --- paths quoted in a reason hold no secret -------------------------------------------------
KEY = "sk-ant-api03-" + "Q7f" * 20


def test_a_path_named_after_a_secret_is_redacted_before_it_is_cut(repo: Path) -> None:
    checkout = start(repo)
    (repo / ("a" * 100)).mkdir()
    (repo / ("a" * 100) / KEY).write_bytes(b"x" * 30)
    tight = WorkSettings(max_bytes=20)

    refused = capture(checkout, tight, held=secrets_of({"ANTHROPIC_API_KEY": KEY})).refused

    assert refused == (
        f"the agent's new files hold more than 20 bytes (reached at {'a' * 100}/[secret], 30 bytes)"
    )
    assert KEY[:8] in capture(checkout, tight).refused  # type: ignore[operator]


def test_the_largest_changed_paths_are_named_redacted(repo: Path) -> None:
    (repo / KEY).write_text("small\n", encoding="utf-8")  # tracked: git judges its size
    git(repo, "add", KEY)
    git(repo, "commit", "-q", "-m", "a file named like a key")
    checkout = start(repo)
    (repo / KEY).write_text("y" * 30, encoding="utf-8")

    refused = capture(
        checkout, WorkSettings(max_bytes=20), held=secrets_of({"X_TOKEN": KEY})
    ).refused

    assert refused is not None and "the largest: [secret] (30 bytes)" in refused
    assert KEY[:8] not in refused


secret_values = st.text(st.sampled_from("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), min_size=8)
plain = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz/._-"), max_size=300)


@settings(budget(200), derandomize=True)
@given(secret_values, plain, plain)
def test_a_quoted_path_never_holds_a_piece_of_a_secret_and_stays_short(
    value: str, before: str, after: str
) -> None:
    shown = _Shown(secrets_of({"MY_TOKEN": value}))(before + value + after + value)

    assert len(shown) <= SHOWN
    assert not any(ch in shown for ch in value)


def test_quoting_a_64_kb_path_full_of_near_misses_is_linear() -> None:
    value = "ab" * 20 + "c"
    path = ("ab" * 20 + "/") * (64 * 1024 // 41)
    started = time.process_time()

    shown = _Shown(secrets_of({"MY_TOKEN": value}))(path.encode())

    assert time.process_time() - started < 2.0
    assert shown == path[:SHOWN]
