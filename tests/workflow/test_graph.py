"""`baton graph` draws the epic presets: self-loops as loops, who moves each state on (an agent,
a human, or the epic's conductor), the dialogue state, and the role in the JSON graph."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.core.model.record import HistoryEntry
from baton.workflow.graph import path_mermaid, to_json, to_mermaid
from baton.workflow.model import load_preset


def _graph(name: str, fmt: str) -> str:
    result = CliRunner().invoke(cli, ["graph", "--workflow", name, "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.output


def _edges(mermaid: str) -> set[tuple[str, str]]:
    return {
        (source, target)
        for source, target in (
            line.strip().split(" --> ") for line in mermaid.splitlines() if " --> " in line
        )
        if "[*]" not in (source, target)
    }


@pytest.mark.parametrize("name", ["feature-epic", "epic-task"])
def test_the_mermaid_graph_is_the_table_self_loops_included(name: str) -> None:
    workflow = load_preset(name)
    drawn = _graph(name, "mermaid")
    assert drawn.rstrip("\n") == to_mermaid(workflow)
    assert _edges(drawn) == {(s, t) for s in workflow.states for t in workflow.targets(s)}


def test_the_epic_graph_draws_its_self_loops() -> None:
    lines = _graph("feature-epic", "mermaid").splitlines()
    for state in ("discovery", "planning", "implementing"):
        assert f"    {state} --> {state}" in lines
    assert "    [*] --> discovery" in lines
    assert "    done --> [*]" in lines


@pytest.mark.parametrize(
    ("name", "who"),
    [
        (
            "feature-epic",
            {
                "discovery": "discovery, converses",
                "planning": "planner, converses",
                "implementing": "conductor",
                "blocked": "human",
                "completing": "human",
                "done": "terminal",
            },
        ),
        (
            "epic-task",
            {
                "pending": "conductor",
                "in_progress": "developer, commits",
                "pending_review": "reviewer",
                "retry_queued": "pm",
                "blocked": "conductor",
                "failed": "human",
                "completed": "terminal",
                "skipped": "terminal",
            },
        ),
        ("task-review", {"pending": "pm", "blocked": "human", "failed": "human"}),
    ],
)
def test_each_state_names_who_moves_it_on(name: str, who: dict[str, str]) -> None:
    lines = _graph(name, "mermaid").splitlines()
    for state, text in who.items():
        assert f"    {state}: {state} ({text})" in lines


@pytest.mark.parametrize(
    ("name", "role", "converses"),
    [
        ("feature-epic", "epic", ["discovery", "planning"]),
        ("epic-task", "task", []),
        ("issue-lifecycle", "issue", []),
    ],
)
def test_the_json_graph_gives_the_role_and_the_dialogue_states(
    name: str, role: str, converses: list[str]
) -> None:
    graph = json.loads(_graph(name, "json"))
    assert graph == to_json(load_preset(name))
    assert graph["role"] == role
    assert graph["converses"] == converses
    edges = {(s, t) for s, targets in graph["transitions"].items() for t in targets}
    assert all(graph["transitions"][s] == load_preset(name).targets(s) for s in graph["states"])
    assert edges == {(s, t) for s in graph["states"] for t in load_preset(name).targets(s)}


@pytest.mark.parametrize("name", ["feature-epic", "epic-task"])
def test_the_printed_definition_keeps_the_role_and_the_dialogue(name: str) -> None:
    printed = _graph(name, "workflow")
    assert f"role: {load_preset(name).role}\n" in printed
    assert ("converses: true" in printed) is (name == "feature-epic")


# --- the path one issue took ---------------------------------------------------------------
def _entry(source: str | None, target: str, trigger: str, *, forced: bool = False) -> HistoryEntry:
    return HistoryEntry(
        at=datetime(2026, 1, 5, 9, tzinfo=UTC),
        from_state=source,
        to_state=target,
        reason="",
        actor="maria",
        trigger=trigger,
        forced=forced,
    )


PATH_STEPS = [
    pytest.param(("report", False), "1 report", id="an agent's report"),
    pytest.param(("reply", False), "1 reply", id="a human's reply"),
    pytest.param(("review", False), "1 review", id="a review on the pull request"),
    pytest.param(("merge", False), "1 merge", id="the merge"),
    pytest.param(("pull_request", False), "1 pull request closed", id="closed unmerged"),
    pytest.param(("checks", False), "1 CI failed", id="failing checks"),
    pytest.param(("relabel", True), "1 relabel, forced", id="a maintainer's forced relabel"),
    pytest.param(("command", True), "1 command, forced", id="an approver's /retry"),
]


@pytest.mark.parametrize(("step", "label"), PATH_STEPS)
def test_each_step_of_the_path_is_labelled_by_its_cause(step: tuple[str, bool], label: str) -> None:
    trigger, forced = step
    history = [
        _entry(None, "creating_pr", "entry"),
        _entry("creating_pr", "waiting_for_human_input", trigger, forced=forced),
    ]

    drawn = path_mermaid(history, load_preset("issue-lifecycle")).splitlines()

    assert drawn == [
        "stateDiagram-v2",
        "    [*] --> creating_pr",
        f"    creating_pr --> waiting_for_human_input: {label}",
    ]


def test_the_path_numbers_its_steps_and_ends_at_a_terminal_state() -> None:
    history = [
        _entry(None, "waiting_for_human_input", "entry", forced=True),
        _entry("waiting_for_human_input", "addressing_feedback", "review"),
        _entry("addressing_feedback", "creating_pr", "report"),
        _entry("creating_pr", "completed", "merge"),
    ]

    drawn = path_mermaid(history, load_preset("issue-lifecycle")).splitlines()

    assert drawn[2:] == [
        "    waiting_for_human_input --> addressing_feedback: 1 review",
        "    addressing_feedback --> creating_pr: 2 report",
        "    creating_pr --> completed: 3 merge",
        "    completed --> [*]",
    ]
