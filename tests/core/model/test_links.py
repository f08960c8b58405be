"""What a forbidden name reaches through the base's links (`core.model.links`): every link on
the way followed, loops and chains past the limit refused, the folders still to read named."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.changeset import forbidden_problem
from baton.core.model.links import MAX_HOPS, BaseLinks, check_links, folders_of, resolve
from baton.workflow.config import WorkSettings
from support.property_budget import budget

WORK = WorkSettings()


def _forbidden(path: str) -> bool:
    return forbidden_problem(path, WORK) is not None


def _reached(links: dict[str, str], *paths: str) -> list[str]:
    return check_links(BaseLinks(links), paths, _forbidden).problems


@pytest.mark.parametrize(
    ("link", "target", "path", "reached"),
    [
        (".claude", "tools/claude", "tools/claude", True),
        (".claude", "tools/claude", "tools/claude/a/b", True),
        (".claude", "tools/claude/", "tools/claude/a", True),
        (".claude", "tools/claude", "tools/claudex", False),
        (".claude", "tools/claude", "tools", True),  # a file where the folder is
        ("a/.claude", "../b", "b/x", True),
        ("a/.claude", "./b", "a/b/x", True),
        ("a/.claude", "../../b", "b/x", False),
        (".claude", "/etc", "etc/x", False),
        (".claude", "..", "x", False),
        ("a/.claude", "..", "x", True),
        ("docs/guide.md", "ai-guide.md", "docs/ai-guide.md", False),  # not a forbidden path
    ],
)
def test_which_changes_a_forbidden_link_reaches(
    link: str, target: str, path: str, reached: bool
) -> None:
    assert bool(_reached({link: target}, path)) is reached


def test_a_chain_of_links_is_followed_to_its_end_and_named_whole() -> None:
    links = {"CLAUDE.md": "docs/guide.md", "docs/guide.md": "../ai-guide.md"}

    assert _reached(links, "ai-guide.md") == [
        "ai-guide.md is what CLAUDE.md points at (CLAUDE.md -> docs/guide.md -> ai-guide.md), "
        "and CLAUDE.md is a forbidden path: a change there is a change to it"
    ]


def test_a_linked_parent_folder_on_the_way_is_followed() -> None:
    links = {".claude": "tools/claude", "tools": "vendor/tools"}

    assert _reached(links, "vendor/tools/claude/settings.json", "vendor/tools/README") == [
        "vendor/tools/claude/settings.json is what .claude points at (.claude -> tools -> "
        "vendor/tools/claude), and .claude is a forbidden path: a change there is a change to it"
    ]


def test_replacing_or_deleting_a_link_on_the_way_is_a_change_to_the_forbidden_path() -> None:
    links = {".claude": "tools/claude", "tools": "vendor/tools"}

    assert _reached(links, "tools") == [
        "tools is a link on the way to what .claude points at (.claude -> tools -> "
        "vendor/tools/claude), and .claude is a forbidden path: a change there is a change to it"
    ]
    assert _reached(links, "tools/claude/settings.json") != []


def test_a_link_inside_where_a_forbidden_link_leads_is_guarded_too() -> None:
    links = {".claude": "tools", "tools/settings.json": "../conf/s.json"}

    assert _reached(links, "conf/s.json") == [
        "conf/s.json is what tools/settings.json points at (tools/settings.json -> "
        "conf/s.json), and tools/settings.json is a forbidden path: a change there is a change "
        "to it"
    ]


@pytest.mark.parametrize(
    ("links", "named"),
    [
        pytest.param({"CLAUDE.md": "a", "a": "b", "b": "a"}, "CLAUDE.md", id="two links in a loop"),
        pytest.param({".claude": ".claude"}, ".claude", id="a link to itself"),
        pytest.param(
            {"AGENTS.md": "l0", **{f"l{i}": f"l{i + 1}" for i in range(50)}},
            "AGENTS.md",
            id="a chain past the limit",
        ),
    ],
)
def test_a_loop_or_a_chain_past_the_limit_refuses_whatever_changed(
    links: dict[str, str], named: str
) -> None:
    found = _reached(links, "README.md")

    assert len(found) == 1
    assert found[0].startswith(f"{named} is a forbidden path whose link passes more than 40 links")
    assert found[0].endswith("what the next agent loads there cannot be told")


def test_a_chain_of_forty_links_is_within_the_limit() -> None:
    links = {"AGENTS.md": "l1", **{f"l{i}": f"l{i + 1}" for i in range(1, MAX_HOPS)}}
    assert resolve("AGENTS.md", BaseLinks(links)).real == f"l{MAX_HOPS}"
    assert _reached(links, f"l{MAX_HOPS}") != []
    assert _reached(links, "other") == []


def test_a_link_leaving_the_repository_reaches_only_the_links_it_passed() -> None:
    links = {"CLAUDE.md": "shared/CLAUDE.md", "shared": "../../elsewhere"}

    assert _reached(links, "README.md") == []
    assert _reached(links, "shared")[0].startswith(
        "shared is a link on the way to what CLAUDE.md points at (CLAUDE.md -> shared -> (outside))"
    )


def test_the_folders_still_to_read_are_the_root_those_of_the_changes_and_those_on_the_way() -> None:
    nothing = BaseLinks({}, listed=frozenset())
    assert check_links(nothing, ["a/b/c.txt"], _forbidden).wanted == {"", "a", "a/b"}

    root_only = BaseLinks({".claude": "tools/claude"}, listed=frozenset({""}))
    # .claude leads through tools, whose entries are not known yet: it and the rest, at once
    assert check_links(root_only, ["x.txt"], _forbidden).wanted == {"tools", "tools/claude"}

    known = BaseLinks({".claude": "tools/claude"}, listed=frozenset({"", "tools"}))
    assert check_links(known, ["x.txt"], _forbidden).wanted == {"tools/claude"}
    whole = BaseLinks({".claude": "tools/claude"}, listed=frozenset({"", "tools", "tools/claude"}))
    assert check_links(whole, ["x.txt"], _forbidden).wanted == frozenset()


def test_the_whole_tree_known_wants_nothing() -> None:
    assert check_links(BaseLinks({}), ["a/b/c"], _forbidden).wanted == frozenset()


def test_folders_of_a_path_start_at_the_root() -> None:
    assert folders_of("a/b/c") == ["", "a", "a/b"]
    assert folders_of("c") == [""]


# --- hostile trees ----------------------------------------------------------------------------
def test_64_kb_targets_and_deep_chains_are_resolved_in_bounded_time() -> None:
    deep = "/".join(["a"] * 32_768)  # 64 KB of names
    links = {
        "CLAUDE.md": deep,
        "AGENTS.md": "x/" * 2000 + "y",
        "GEMINI.md": "../" * 20_000,
        **{f"a{i}": f"a{i + 1}/" + "b/.." * 500 for i in range(MAX_HOPS + 5)},
        ".mcp.json": "a0",
    }
    started = time.perf_counter()
    found = _reached(links, *(f"f{i}/" + "c/" * 400 for i in range(300)))
    assert time.perf_counter() - started < 2.0
    assert any(
        p.startswith("CLAUDE.md is a forbidden path whose link leads past 4096") for p in found
    )
    assert any(
        p.startswith(".mcp.json is a forbidden path whose link passes more than") for p in found
    )


_NAMES = ["a", "b", "CLAUDE.md", ".claude", "docs", "x.md"]
_paths = st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3).map("/".join)
_targets = st.lists(st.sampled_from([*_NAMES, "..", "."]), min_size=1, max_size=3).map("/".join)


@budget(300)
@given(st.dictionaries(_paths, _targets, max_size=6), st.lists(_paths, max_size=4))
def test_a_change_is_refused_exactly_when_a_forbidden_name_resolves_to_it_or_through_it(
    links: dict[str, str], changed: list[str]
) -> None:
    """Against the kernel's own walk: a link refused or a reached change, never a silent pass
    of a change where a forbidden link lands."""
    base = BaseLinks(links)
    found = check_links(base, changed, _forbidden).problems
    for link in (x for x in links if _forbidden(x)):
        landed = resolve(link, base)
        if landed.problem is not None:
            assert any(p.startswith(f"{link} is a forbidden path") for p in found)
            continue
        for path in changed:
            if landed.real is not None and (
                path == landed.real or path.startswith(landed.real + "/") or not landed.real
            ):
                assert any(p.startswith(f"{path} ") for p in found)
