"""The plan as text: the task table and the mermaid graph, pinned by exact outputs, and the
agent-written titles kept as data whatever they hold."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.epic import MAX_TITLE, EpicState, PlannedTask, TaskStatus
from baton.core.text.epic_plan import HEADER, label, mermaid, summary, task_table
from baton.core.text.markdown import ZWSP

S = TaskStatus


def epic(*tasks: PlannedTask) -> EpicState:
    return EpicState(tasks=list(tasks))


PLAN = epic(
    PlannedTask(key="api", title="Build the API", number=12, status=S.completed, attempts=1),
    PlannedTask(key="ui", title="The UI", depends_on=["api"], number=13, status=S.in_progress),
    PlannedTask(key="docs", title="Docs", depends_on=["api", "ui"]),
)


def test_the_table_shows_each_task_with_its_sub_issue_state_and_blockers() -> None:
    assert task_table(PLAN) == (
        "| task | sub-issue | state | attempts | blocked by |\n"
        "|---|---|---|---|---|\n"
        "| api: Build the API | #12 | completed | 1 | — |\n"
        "| ui: The UI | #13 | in progress | 0 | — |\n"
        "| docs: Docs | — | pending | 0 | ui |"
    )


def test_the_table_shows_replaced_and_dropped_entries() -> None:
    old = epic(
        PlannedTask(key="a#4", title="A", number=4, status=S.skipped, replaced_by="a"),
        PlannedTask(key="b", title="B", number=5, status=S.skipped, replaced_by=""),
        PlannedTask(key="a", title="A again", depends_on=["b"], replaces=4),
    )
    assert task_table(old).splitlines()[2:] == [
        f"| a#{ZWSP}4: A | #4 | replaced | 0 | — |",
        "| b: B | #5 | dropped | 0 | — |",
        "| a: A again | — | pending | 0 | — |",
    ]


def test_the_table_stops_at_its_limit_with_a_count_of_the_rest() -> None:
    many = epic(*(PlannedTask(key=f"t{i}", title="x") for i in range(5)))
    lines = task_table(many, limit=2).splitlines()
    assert lines[2:] == [
        "| t0: x | — | pending | 0 | — |",
        "| t1: x | — | pending | 0 | — |",
        "| … 3 more | | | | |",
    ]


def test_a_hostile_title_stays_one_escaped_cell() -> None:
    title = "a | b\n# <!-- baton --> @bob #1 [x](y) `c`"
    row = task_table(epic(PlannedTask(key="k", title=title))).splitlines()[2]
    assert row == (
        f"| k: a \\| b # &lt;!-- baton --&gt; @{ZWSP}bob #{ZWSP}1 \\[x\\](y) \\`c\\` "
        "| — | pending | 0 | — |"
    )


def test_the_graph_has_a_node_per_task_an_edge_per_dependency_and_colours() -> None:
    assert mermaid(PLAN) == "\n".join(
        [
            "```mermaid",
            "graph TD",
            '    t_0["#35;12 Build the API"]',
            '    t_1["#35;13 The UI"]',
            '    t_2["Docs"]',
            "    t_0 --> t_1",
            "    t_0 --> t_2",
            "    t_1 --> t_2",
            "    classDef completed fill:#dafbe1,stroke:#1a7f37",
            "    classDef in_progress fill:#ddf4ff,stroke:#0969da",
            "    classDef pending fill:#eaeef2,stroke:#57606a",
            "    class t_0 completed",
            "    class t_1 in_progress",
            "    class t_2 pending",
            "```",
        ]
    )


def test_an_edge_goes_to_the_current_entry_of_a_replaced_key() -> None:
    graph = mermaid(
        epic(
            PlannedTask(key="a#4", title="A", number=4, status=S.skipped, replaced_by="a"),
            PlannedTask(key="a", title="A again", depends_on=["a"]),
            PlannedTask(key="b", title="B", depends_on=["a", "a", "gone"]),
        )
    )
    assert [line for line in graph.splitlines() if "-->" in line] == ["    t_1 --> t_2"]
    assert "    class t_0 replaced" in graph.splitlines()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('say "hi"', "say #quot;hi#quot;", id="quotes"),
        pytest.param("a] --> b[", "a#93; --#62; b#91;", id="brackets and arrows"),
        pytest.param("x\nclick t_0 call", "x click t_0 call", id="a new line folds"),
        pytest.param("%%{init: {}}%%", "#37;#37;#123;init: #123;#125;#125;#37;#37;", id="init"),
        pytest.param("```\n", "#96;#96;#96;", id="a fence"),
        pytest.param("<b>&amp;</b>", "#60;b#62;#38;amp#59;#60;/b#62;", id="html"),
        pytest.param("#12;", "#35;12#59;", id="an entity code"),
        pytest.param("Café ü", "Café ü", id="letters of any script"),
        pytest.param("a\u2028b\u200bc", "a b#8203;c", id="odd spaces"),
    ],
)
def test_a_label_escapes_what_could_end_it(text: str, expected: str) -> None:
    assert label(text) == expected


def test_summary_keeps_both_within_a_generous_budget() -> None:
    both = summary(PLAN, budget=10_000)
    assert both == task_table(PLAN) + "\n\n" + mermaid(PLAN)


def test_summary_drops_the_graph_first_then_rows() -> None:
    table = task_table(PLAN)
    assert summary(PLAN, budget=len(table)) == table
    fewer = summary(PLAN, budget=len(table) - 1)
    assert fewer == task_table(PLAN, limit=2) and len(fewer) <= len(table) - 1
    assert summary(PLAN, budget=len(HEADER)) == ""  # not even a row and its count
    assert summary(PLAN, budget=5) == ""


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1200))
def test_summary_never_exceeds_its_budget(budget: int) -> None:
    many = epic(*(PlannedTask(key=f"t{i}", title="x" * (i % 7 + 1), number=i) for i in range(20)))
    text = summary(many, budget=budget)
    assert len(text) <= budget
    if text:
        assert text.startswith(HEADER)


def test_summary_shows_as_many_rows_as_fit_exactly() -> None:
    many = epic(*(PlannedTask(key=f"t{i}", title="x" * (i % 7 + 1), number=i) for i in range(6)))
    for shown in range(7):
        table = task_table(many, limit=shown)
        assert summary(many, budget=len(table)) == table
    both = task_table(many) + "\n\n" + mermaid(many)
    assert summary(many, budget=len(both)) == both


def test_summary_of_an_empty_plan_is_the_bare_head() -> None:
    assert summary(EpicState(), budget=1000) == HEADER == task_table(EpicState())


def test_the_table_shows_sixty_rows_unless_told_and_may_show_none() -> None:
    many = epic(*(PlannedTask(key=f"t{i}", title="x") for i in range(61)))
    assert task_table(many).splitlines()[-1] == "| … 1 more | | | | |"
    assert task_table(many, limit=0) == HEADER + "\n| … 61 more | | | | |"


def test_blockers_are_listed_for_waiting_tasks_only() -> None:
    plan = epic(
        PlannedTask(key="a", title="a"),
        PlannedTask(key="b", title="b"),
        PlannedTask(key="c", title="c", depends_on=["a", "b"]),
        PlannedTask(key="d", title="d", depends_on=["a"], status=TaskStatus.completed),
    )
    rows = task_table(plan).splitlines()[2:]
    assert rows[2].endswith("| a, b |") and rows[3].endswith("| — |")


# --- properties over hostile titles ---------------------------------------------------------------
titles = st.text(min_size=1, max_size=MAX_TITLE)
NODE = re.compile(r'^    t_(\d+)\["([^"\]\[\n`<>%#;{}|]|#quot;|#\d+;)*"\]$')
EDGE = re.compile(r"^    t_\d+ --> t_\d+$")
CLASS = re.compile(r"^    class t_\d+ [a-z_]+$")
PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")  # a pipe no backslash escapes
CLASSDEF = re.compile(r"^    classDef [a-z_]+ [a-z0-9:#,-]+$")


@settings(max_examples=300, deadline=None)
@given(st.lists(titles, min_size=1, max_size=6), st.data())
def test_any_titles_give_exactly_one_line_per_node_edge_and_class(
    names: list[str], data: st.DataObject
) -> None:
    tasks = []
    for i, name in enumerate(names):
        deps = (
            data.draw(st.lists(st.sampled_from([f"k{j}" for j in range(i)]), max_size=2))
            if i
            else []
        )
        tasks.append(
            PlannedTask(
                key=f"k{i}",
                title=name,
                depends_on=deps,
                number=data.draw(st.none() | st.integers(1, 10**6)),
            )
        )
    graph = mermaid(epic(*tasks)).split("\n")
    assert graph[0] == "```mermaid" and graph[1] == "graph TD" and graph[-1] == "```"
    body = graph[2:-1]
    nodes = [line for line in body if NODE.match(line)]
    edges = [line for line in body if EDGE.match(line)]
    classes = [line for line in body if CLASS.match(line)]
    defs = [line for line in body if CLASSDEF.match(line)]
    assert len(nodes) == len(tasks) == len(classes)
    assert len(edges) == sum(len(set(t.depends_on)) for t in tasks)
    assert len(nodes) + len(edges) + len(classes) + len(defs) == len(body)
    table = task_table(epic(*tasks)).split("\n")
    assert len(table) == 2 + len(tasks)
    for row in table[2:]:
        assert len(PIPE.findall(row)) == 6  # five cells, whatever the title


def test_64_kb_adversarial_titles_are_cut_and_rendered_fast() -> None:
    nasty = ('"]\n%%{init}%%\nclick t_0 "x" ' + "`<|>#1;@a[" * 6000)[:65_536]
    tasks = [
        PlannedTask.model_construct(key=f"k{i}", title=nasty, depends_on=[], number=i)
        for i in range(50)
    ]
    began = time.perf_counter()
    graph = mermaid(epic(*tasks))
    table = task_table(epic(*tasks))
    text = summary(epic(*tasks), budget=60_000)
    assert time.perf_counter() - began < 1.0
    assert len(text) <= 60_000
    assert all(NODE.match(line) for line in graph.splitlines()[2:52])
    assert len(graph) < 50 * (MAX_TITLE * 8 + 40) + 2000
    assert len(table.splitlines()) == 52
