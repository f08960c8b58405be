"""Diagrams generated from a workflow, never drawn by hand: Mermaid and a JSON graph.

The JSON form is `{"initial", "states": {name: {"agent", "kind"}}, "transitions": {name: [...]}}`
with the table's edges only; moves the engine makes outside the table (escalation, the
escalation commands, reopening) sit under `escapes`, the human gates under `humans`, and where
the issue's pull request sends it under `routes` (a route applies from any state, so it is no
edge of one). It is a drawing for tools, not a definition: `model.to_yaml` (`baton graph
--format workflow`) prints the definition that `baton validate` accepts back.

Mermaid's state diagrams have no dashed arrow, and a route starts from wherever the issue is,
so the diagram shows each route as a note on the state it leads to ("PR: merged"), and marks
the states whose agent changes code or converses with the humans. An edge from a state to
itself (an epic's discovery round, a task's move while implementing) is drawn as a loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from baton.workflow.model import StateKind, Workflow


class Step(Protocol):
    """One move of an issue's path, as the record's history holds it."""

    @property
    def from_state(self) -> str | None: ...
    @property
    def to_state(self) -> str: ...
    @property
    def trigger(self) -> str: ...
    @property
    def forced(self) -> bool: ...


# What moved the issue, in the path's words, where the history's trigger is not already plain.
CAUSES = {"pull_request": "pull request closed", "checks": "CI failed"}


def to_json(workflow: Workflow) -> dict[str, Any]:
    humans: dict[str, dict[str, str]] = {}
    for state, spec in workflow.states.items():
        moves = {}
        if spec.reply:
            moves["reply"] = spec.reply
        if spec.approval:
            moves["approval"] = spec.approval
        if spec.timeout and spec.timeout.to:
            moves["timeout"] = spec.timeout.to
        if moves:
            humans[state] = moves
    return {
        "name": workflow.name,
        "role": workflow.role,
        "initial": workflow.initial,
        "states": {
            state: {"agent": spec.agent, "kind": spec.kind.value}
            for state, spec in workflow.states.items()
        },
        "transitions": {state: workflow.targets(state) for state in workflow.states},
        "escapes": workflow.escapes(),
        "humans": humans,
        "routes": workflow.pull_request.targets(),
        "changes_code": [state for state, spec in workflow.states.items() if spec.changes_code],
        "converses": [state for state, spec in workflow.states.items() if spec.converses],
    }


ROUTE_NOTES = {
    "ready": "PR: ready for review",
    "changes_requested": "PR: changes requested",
    "checks_failed": "PR: checks failed",
    "merged": "PR: merged",
    "closed": "PR: closed",
}


def _route_notes(workflow: Workflow) -> list[str]:
    """One note per state a pull-request route leads to, naming every route that does."""
    by_target: dict[str, list[str]] = {}
    for route, target in workflow.pull_request.targets().items():
        if target in workflow.states:
            by_target.setdefault(target, []).append(ROUTE_NOTES[route].removeprefix("PR: "))
    return [
        f"    note right of {target}: PR: {', '.join(routes)}"
        for target, routes in by_target.items()
    ]


def _who(workflow: Workflow, state: str) -> str:
    """Who moves the issue on from `state`: its agent (and whether it commits, or talks with
    the humans), a human, the conductor (an epic's waiting states, a task's own without a human
    gate), or nobody (terminal)."""
    spec = workflow.states[state]
    if spec.agent:
        extras = [", commits"] if spec.changes_code else []
        extras += [", converses"] if spec.converses else []
        return spec.agent + "".join(extras)
    if spec.kind is not StateKind.waiting:
        return spec.kind.value
    gate = spec.reply or spec.approval or state == workflow.escalation.state
    return "human" if gate or workflow.role == "issue" else "conductor"


def to_mermaid(workflow: Workflow, *, current: str | None = None) -> str:
    """The whole machine; the current state, if given, is highlighted."""
    lines = ["stateDiagram-v2", f"    [*] --> {workflow.initial}"]
    for state in workflow.states:
        lines.append(f"    {state}: {state} ({_who(workflow, state)})")
    for source in workflow.states:
        for target in workflow.targets(source):
            lines.append(f"    {source} --> {target}")
    for state, spec in workflow.states.items():
        if spec.kind is StateKind.terminal:
            lines.append(f"    {state} --> [*]")
    lines += _route_notes(workflow)
    if current:
        lines.append("    classDef current fill:#fbca04,stroke:#333,stroke-width:3px")
        lines.append(f"    class {current} current")
    return "\n".join(lines)


def path_mermaid(history: Sequence[Step], workflow: Workflow) -> str:
    """The path one issue took, each step numbered and labelled with its cause (an agent's
    report, a reply, a review, the merge, CI, a maintainer's relabel...); forced moves are
    marked as such, and only they."""
    lines = ["stateDiagram-v2"]
    if not history:
        return "\n".join(lines)
    lines.append(f"    [*] --> {history[0].to_state}")
    step = 0
    for entry in history:
        if entry.from_state is None:
            continue
        step += 1
        note = f"{step} {CAUSES.get(entry.trigger, entry.trigger)}"
        if entry.forced:
            note += ", forced"
        lines.append(f"    {entry.from_state} --> {entry.to_state}: {note}")
    last = history[-1].to_state
    if last in workflow.states and workflow.is_terminal(last):
        lines.append(f"    {last} --> [*]")
    return "\n".join(lines)
