"""The paths Baton refuses by default (`workflow/forbidden.py`): each with a reason, the locked
ones first, and which `allow` globs reach inside a locked one."""

from __future__ import annotations

import pytest

from baton.workflow.forbidden import (
    BUILT_IN,
    DEFAULT_FORBIDDEN,
    LOCKED_FORBIDDEN,
    entry_name,
    glob_within,
)


def test_every_built_in_entry_gives_a_reason() -> None:
    assert all(rule.why.strip() for rule in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN))


def test_the_locked_entries_come_first_and_no_entry_twice() -> None:
    assert BUILT_IN[: len(LOCKED_FORBIDDEN)] == tuple(r.pattern for r in LOCKED_FORBIDDEN)
    assert len(set(BUILT_IN)) == len(BUILT_IN)


@pytest.mark.parametrize(
    ("glob", "pattern", "within"),
    [
        (".github/workflows", ".github/workflows/**", True),
        (".github/workflows/ci.yml", ".github/workflows/**", True),
        (".github/workflows/*.yml", ".github/workflows/**", True),
        (".github/workflows-old/x", ".github/workflows/**", False),
        (".github/baton.yml", ".github/baton.yml", True),
        (".github/baton.yml.bak", ".github/baton.yml", False),
        (".github/*", ".github/baton.yml", False),
    ],
    ids=[
        "the locked folder itself",
        "a file in the locked folder",
        "a glob inside the locked folder",
        "a sibling folder whose name starts the same",
        "the locked file itself",
        "a longer name beside the locked file",
        "a glob that reaches wider than the locked file",
    ],
)
def test_a_glob_is_within_a_locked_pattern_only_when_it_names_paths_inside_it(
    glob: str, pattern: str, within: bool
) -> None:
    assert glob_within(glob, pattern) is within


@pytest.mark.parametrize(
    ("pattern", "reader"),
    [
        ("**/.env", "Gemini CLI"),
        ("**/.envrc", "direnv"),
        ("**/.npmrc", "npm"),
        ("**/.yarnrc.yml", "yarn"),
        ("**/.yarnrc", "yarn"),
    ],
)
def test_the_environment_and_package_manager_files_are_refused_at_any_depth_with_their_reader(
    pattern: str, reader: str
) -> None:
    why = {rule.pattern: rule.why for rule in DEFAULT_FORBIDDEN}
    assert reader in why[pattern]


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        ("**/CLAUDE.md", "CLAUDE.md"),
        ("**/.claude/**", ".claude"),
        (".github/instructions/**", "instructions"),
        ("**/.aider*", ".aider*"),
        (".github/copilot-instructions.md", "copilot-instructions.md"),
    ],
)
def test_an_entry_s_name_is_its_last_part_that_is_not_a_double_star(
    pattern: str, name: str
) -> None:
    assert entry_name(pattern) == name
