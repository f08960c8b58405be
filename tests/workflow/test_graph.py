"""`baton graph` draws the epic presets: self-loops as loops, who moves each state on (an agent,
a human, or the epic's conductor), the dialogue state, and the role in the JSON graph."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.workflow.graph import to_json, to_mermaid
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
