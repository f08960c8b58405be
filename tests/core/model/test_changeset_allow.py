"""Which default entries a `work.allow` glob lifts (`core.changeset.lifts`): only those it names
(the entry's very pattern, the path written out, or the entry's name spelled without a
wildcard), so `docs/**` lets no agent instruction through."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.changeset import forbidden_problem, lifts
from baton.workflow.config import DEFAULT_FORBIDDEN, WorkSettings
from baton.workflow.forbidden import ForbiddenPath, entry_name
from support.property_budget import budget


def _refused(path: str, *allow: str) -> bool:
    return forbidden_problem(path, WorkSettings(allow=allow)) is not None


@pytest.mark.parametrize(
    ("allow", "path", "refused"),
    [
        pytest.param("docs/**", "docs/CLAUDE.md", True, id="a folder glob lifts no CLAUDE.md"),
        pytest.param("docs/**", "docs/AGENTS.md", True, id="a folder glob lifts no AGENTS.md"),
        pytest.param("docs/**", "docs/.mcp.json", True, id="a folder glob lifts no .mcp.json"),
        pytest.param("docs/**", "docs/.claude/x.json", True, id="a folder glob lifts no .claude"),
        pytest.param("docs/**", "docs/guide.md", False, id="a folder glob leaves the rest"),
        pytest.param("**", "CLAUDE.md", True, id="everything names nothing"),
        pytest.param("docs/*.md", "docs/CLAUDE.md", True, id="a star names no file"),
        pytest.param("docs/CLAUDE.md", "docs/CLAUDE.md", False, id="the path written out"),
        pytest.param("docs/**/CLAUDE.md", "docs/a/CLAUDE.md", False, id="the name spelled"),
        pytest.param("docs/**/CLAUDE.md", "docs/a/AGENTS.md", True, id="another name"),
        pytest.param("**/claude.md", "x/CLAUDE.md", False, id="the name in another case"),
        pytest.param("tools/.claude/**", "tools/.claude/settings.json", False, id="folder named"),
        pytest.param("tools/.claude/**", "tools/.codex/config.toml", True, id="other folder"),
        pytest.param("**/.aider*", ".aider.conf.yml", False, id="the very pattern"),
        pytest.param("**/.aider.conf.yml", ".aider.conf.yml", False, id="a name the entry fits"),
        pytest.param(".github/**", ".github/prompts/a.prompt.md", True, id=".github/** lifts none"),
        pytest.param(
            ".github/prompts/*", ".github/prompts/a.prompt.md", False, id="the folder named"
        ),
        pytest.param("pkg/**/.npmrc", "pkg/a/.npmrc", False, id="a new entry named"),
        pytest.param("pkg/**", "pkg/a/.npmrc", True, id="a new entry not named"),
    ],
)
def test_an_allow_lifts_only_the_entries_it_names(allow: str, path: str, refused: bool) -> None:
    assert _refused(path, allow) is refused


def test_two_allows_lift_what_each_names_and_nothing_more() -> None:
    allow = ("docs/**", "docs/**/AGENTS.md")
    assert not _refused("docs/a/AGENTS.md", *allow)
    assert _refused("docs/a/CLAUDE.md", *allow)


# --- properties -----------------------------------------------------------------------------
_PLAIN = ["docs", "src", "a", "pkg", "notes.md", "x"]
_WILD = ["*", "**", "*.md", "?*", "[a-z]*", "*.json"]
_ENTRIES = [
    rule for rule in DEFAULT_FORBIDDEN if rule.pattern.startswith("**/") and rule.pattern[3] != "*"
]
_wild_globs = st.lists(st.sampled_from(_PLAIN + _WILD), min_size=1, max_size=4).map("/".join)


@budget(300)
@given(_wild_globs, st.sampled_from(_ENTRIES), st.sampled_from(_PLAIN))
def test_a_glob_that_never_spells_an_entry_s_name_never_lifts_it(
    glob: str, rule: ForbiddenPath, folder: str
) -> None:
    pattern = rule.pattern
    if not any(ch in glob for ch in "*?["):
        return  # a path written out names every entry of that path
    path = f"{folder}/{entry_name(pattern).rstrip('*')}"
    assert not lifts(glob, pattern)
    assert _refused(path, glob)


@budget(300)
@given(st.sampled_from(_ENTRIES), st.lists(st.sampled_from(_PLAIN), min_size=1, max_size=3))
def test_a_glob_that_spells_the_entry_s_name_lifts_it_where_it_matches(
    rule: ForbiddenPath, folders: list[str]
) -> None:
    pattern = rule.pattern
    name = entry_name(pattern).rstrip("*")
    glob = f"{folders[0]}/**/{name}" + ("/**" if pattern.endswith("/**") else "")
    inside = "/".join([*folders, name])
    assert lifts(glob, pattern)
    assert not _refused(inside + ("/f" if pattern.endswith("/**") else ""), glob)
    assert _refused(f"elsewhere/{name}", glob)
