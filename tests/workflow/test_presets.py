"""The built-in workflow presets, checked against the seeds they come from.

The issue-lifecycle preset must reproduce seed 000 exactly, so the seed's states, agent mapping
and transition table are copied below by hand, in the seed's order, as an independent literal:
a change to the preset that drifts from the seed fails here.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.core import events
from baton.core.agent_result import AgentResult
from baton.core.decision import Decision, Outcome
from baton.core.engine import decide
from baton.core.record import Record
from baton.workflow.checks import check
from baton.workflow.config import Policy
from baton.workflow.model import AgentStatus, StateKind, Workflow, load_preset, preset_names

# --- seed 000, copied by hand ----------------------------------------------------------------
# IssueState, in the enum's order (the navigator states stay frozen, as in the seed).
SEED_STATES = [
    "received",
    "analyzing_requirements",
    "requirements_unclear",
    "waiting_for_requirements_clarification",
    "requirements_clarified",
    "planning_approach",
    "creating_tests",
    "updating_tests",
    "running_tests",
    "implementing",
    "fixing_issues",
    "refactoring",
    "validating_solution",
    "addressing_feedback",
    "creating_pr",
    "completed",
    "waiting_for_human_input",
    "human_input_received",
    "failed",
    "blocked",
    "requires_human_intervention",
]

# StateTransitionRule.STATE_AGENT_MAPPING
SEED_AGENTS: dict[str, str | None] = {
    "received": "pm",
    "analyzing_requirements": "analyst",
    "requirements_unclear": "pm",
    "waiting_for_requirements_clarification": None,
    "requirements_clarified": "pm",
    "planning_approach": "pm",
    "creating_tests": "tester",
    "updating_tests": "tester",
    "running_tests": "tester",
    "implementing": "developer",
    "fixing_issues": "developer",
    "refactoring": "developer",
    "validating_solution": "tester",
    "addressing_feedback": "developer",
    "creating_pr": "pm",
    "completed": None,
    "failed": None,
    "waiting_for_human_input": None,
    "human_input_received": "pm",
    "blocked": "pm",
    "requires_human_intervention": None,
}

# StateTransitionRule.VALID_TRANSITIONS, in the seed's order.
SEED_TRANSITIONS: dict[str, list[str]] = {
    "received": ["analyzing_requirements", "creating_tests", "failed"],
    "analyzing_requirements": [
        "requirements_unclear",
        "creating_tests",
        "implementing",
        "failed",
    ],
    "requirements_unclear": [
        "waiting_for_requirements_clarification",
        "analyzing_requirements",
        "blocked",
        "requires_human_intervention",
    ],
    "waiting_for_requirements_clarification": ["requirements_clarified", "blocked", "failed"],
    "requirements_clarified": [
        "creating_tests",
        "analyzing_requirements",
        "implementing",
        "failed",
    ],
    "planning_approach": ["creating_tests", "implementing", "analyzing_requirements", "failed"],
    "creating_tests": ["implementing", "updating_tests", "analyzing_requirements", "failed"],
    "updating_tests": ["implementing", "creating_tests", "failed"],
    "running_tests": ["implementing", "fixing_issues", "updating_tests", "completed", "failed"],
    "implementing": [
        "running_tests",
        "creating_pr",
        "fixing_issues",
        "analyzing_requirements",
        "failed",
    ],
    "fixing_issues": ["running_tests", "creating_pr", "implementing", "refactoring", "failed"],
    "refactoring": ["running_tests", "creating_pr", "implementing", "failed"],
    "validating_solution": ["creating_pr", "fixing_issues", "updating_tests", "failed"],
    "addressing_feedback": ["running_tests", "creating_pr", "failed"],
    "creating_pr": ["completed", "waiting_for_human_input", "failed"],
    "waiting_for_human_input": ["human_input_received", "blocked", "failed"],
    "human_input_received": [
        "analyzing_requirements",
        "creating_tests",
        "implementing",
        "creating_pr",
        "completed",
        "failed",
    ],
    "completed": [],
    "failed": [],
    "blocked": [
        "analyzing_requirements",
        "implementing",
        "creating_tests",
        "waiting_for_human_input",
        "requires_human_intervention",
    ],
    "requires_human_intervention": [],
}

SEED_TERMINAL = {"completed", "failed", "requires_human_intervention"}
SEED_WAITING = {"waiting_for_requirements_clarification", "waiting_for_human_input"}
SEED_WORK = [s for s in SEED_STATES if s not in SEED_TERMINAL | SEED_WAITING]

SEED_EDGES = [
    (source, target) for source, targets in SEED_TRANSITIONS.items() for target in targets
]
SEED_EDGE_SET = set(SEED_EDGES)
SEED_NON_EDGES = [(s, t) for s in SEED_STATES for t in SEED_STATES if (s, t) not in SEED_EDGE_SET]

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def _arrow(pair: tuple[str, str]) -> str:
    return f"{pair[0]} -> {pair[1]}"


@pytest.fixture(scope="module")
def lifecycle() -> Workflow:
    return load_preset("issue-lifecycle")


def _record_in(state: str, **changes: object) -> Record:
    record = Record(
        workflow="issue-lifecycle",
        issue=7,
        state=state,
        entered_at=NOW - timedelta(hours=1),
    )
    return record.model_copy(update=changes)


def _report(state: str, result: AgentResult, workflow: Workflow) -> Decision:
    event = events.report(
        7, agent=SEED_AGENTS[state], result=result, error=None, now=NOW, run_id="run-1"
    )
    return decide(_record_in(state), event, workflow, Policy())


# --- the literal itself -------------------------------------------------------------------
def test_the_seed_literal_has_21_states_and_72_edges() -> None:
    assert len(SEED_STATES) == len(set(SEED_STATES)) == 21
    assert set(SEED_TRANSITIONS) == set(SEED_AGENTS) == set(SEED_STATES)
    assert len(SEED_EDGES) == len(SEED_EDGE_SET) == 72
    assert len(SEED_NON_EDGES) == 21 * 21 - 72


# --- issue-lifecycle: states, table, agents, kinds --------------------------------------------
def test_issue_lifecycle_has_the_seed_states_in_the_seed_order(lifecycle: Workflow) -> None:
    assert list(lifecycle.states) == SEED_STATES


def test_issue_lifecycle_starts_where_the_seed_starts(lifecycle: Workflow) -> None:
    assert lifecycle.initial == "received"


def test_issue_lifecycle_has_exactly_the_72_seed_edges(lifecycle: Workflow) -> None:
    edges = [(s, t) for s in lifecycle.states for t in lifecycle.targets(s)]
    assert len(edges) == 72
    assert set(edges) == SEED_EDGE_SET


@pytest.mark.parametrize("state", SEED_STATES)
def test_issue_lifecycle_lists_each_state_targets_in_the_seed_order(
    lifecycle: Workflow, state: str
) -> None:
    assert lifecycle.targets(state) == SEED_TRANSITIONS[state]


@pytest.mark.parametrize("edge", SEED_EDGES, ids=_arrow)
def test_every_seed_edge_is_allowed(lifecycle: Workflow, edge: tuple[str, str]) -> None:
    assert lifecycle.allows(*edge)


@pytest.mark.parametrize("pair", SEED_NON_EDGES, ids=_arrow)
def test_every_pair_the_seed_does_not_list_is_refused(
    lifecycle: Workflow, pair: tuple[str, str]
) -> None:
    assert not lifecycle.allows(*pair)


@pytest.mark.parametrize("state", SEED_STATES)
def test_each_state_is_handled_by_the_seed_agent(lifecycle: Workflow, state: str) -> None:
    assert lifecycle.agent_of(state) == SEED_AGENTS[state]


@pytest.mark.parametrize("state", SEED_STATES)
def test_each_state_has_the_kind_the_seed_implies(lifecycle: Workflow, state: str) -> None:
    if state in SEED_TERMINAL:
        expected = StateKind.terminal
    elif state in SEED_WAITING:
        expected = StateKind.waiting
    else:
        expected = StateKind.work
    assert lifecycle.spec(state).kind is expected


def test_the_agents_list_is_the_seed_agents(lifecycle: Workflow) -> None:
    assert set(lifecycle.agents) == {a for a in SEED_AGENTS.values() if a}


def test_issue_lifecycle_labels_are_the_kebab_case_state_names(lifecycle: Workflow) -> None:
    labels = [lifecycle.label_for(s, "status:") for s in SEED_STATES]
    assert labels[:3] == [
        "status:received",
        "status:analyzing-requirements",
        "status:requirements-unclear",
    ]
    assert all(
        label == "status:" + s.replace("_", "-")
        for label, s in zip(labels, SEED_STATES, strict=True)
    )


# --- the engine honours the table for agent proposals -----------------------------------------
ENGINE_PAIRS = [(s, t) for s in SEED_WORK for t in SEED_STATES]


@pytest.mark.parametrize("pair", ENGINE_PAIRS, ids=_arrow)
def test_an_agent_proposal_applies_only_along_a_seed_edge(
    lifecycle: Workflow, pair: tuple[str, str]
) -> None:
    source, target = pair
    result = AgentResult(status=AgentStatus.success, confidence=0.9, next_state=target)
    decision = _report(source, result, lifecycle)
    if pair in SEED_EDGE_SET and lifecycle.spec(target).requires_approval:
        # The gate: completed follows a human approval, never an agent's word alone.
        assert decision.outcome is Outcome.retry, decision.reason
        assert "approval" in decision.reason
    elif pair in SEED_EDGE_SET:
        assert decision.outcome is Outcome.transition, decision.reason
        assert decision.state == target
        assert decision.record is not None and decision.record.state == target
    else:
        assert decision.outcome is Outcome.retry, decision.reason
        assert decision.state == source
        assert decision.record is not None and decision.record.state == source
        assert re.search(rf"(?<![a-z_]){target}(?![a-z_])", decision.reason), decision.reason


@pytest.mark.parametrize(
    "proposed",
    ["reviewing_code", "Implementing", "implementing; failed", "status:implementing"],
    ids=[
        "a frozen navigator state is not a state",
        "a state name in the wrong case is not a state",
        "two states in one proposal are not a state",
        "a label is not a state name",
    ],
)
def test_a_proposal_that_names_no_state_is_refused(lifecycle: Workflow, proposed: str) -> None:
    result = AgentResult(status=AgentStatus.success, confidence=0.95, next_state=proposed)
    decision = _report("analyzing_requirements", result, lifecycle)
    assert decision.outcome is Outcome.retry
    assert decision.state == "analyzing_requirements"
    assert proposed in decision.reason


# --- seed 000's PM thresholds ---------------------------------------------------------------
PM_CASES = [
    pytest.param(
        "analyzing_requirements",
        "success",
        0.84,
        [],
        "requirements_unclear",
        id="analysis just below 0.85 finds the requirements unclear",
    ),
    pytest.param(
        "analyzing_requirements",
        "success",
        0.85,
        [],
        "creating_tests",
        id="analysis at exactly 0.85 goes on to the tests",
    ),
    pytest.param(
        "analyzing_requirements",
        "success",
        1.0,
        [],
        "creating_tests",
        id="analysis at full confidence goes on to the tests",
    ),
    pytest.param(
        "implementing",
        "success",
        0.95,
        [],
        "running_tests",
        id="a confident implementation with no issues is tested",
    ),
    pytest.param(
        "implementing",
        "success",
        0.95,
        ["the CSV header is missing"],
        "creating_pr",
        id="a confident implementation with issues goes to a PR",
    ),
    pytest.param(
        "implementing",
        "success",
        0.9,
        [],
        "creating_pr",
        id="an implementation at exactly 0.9 is not above 0.9 so it goes to a PR",
    ),
    pytest.param(
        "implementing",
        "success",
        0.85,
        [],
        "creating_pr",
        id="a good implementation at 0.85 goes straight to a PR",
    ),
    pytest.param(
        "implementing",
        "success",
        0.8,
        [],
        "fixing_issues",
        id="an implementation at exactly 0.8 is fixed first",
    ),
    pytest.param(
        "implementing",
        "success",
        0.5,
        [],
        "fixing_issues",
        id="a weak implementation is fixed first",
    ),
    pytest.param(
        "creating_tests",
        "success",
        0.9,
        [],
        "implementing",
        id="tests written successfully go to the developer",
    ),
    pytest.param(
        "creating_tests",
        "success",
        0.1,
        [],
        "implementing",
        id="tests written successfully go to the developer whatever the confidence",
    ),
    pytest.param(
        "creating_tests",
        "failure",
        0.9,
        [],
        "analyzing_requirements",
        id="a failure to write tests sends the issue back to analysis",
    ),
    pytest.param(
        "creating_tests",
        "blocked",
        0.9,
        [],
        "analyzing_requirements",
        id="blocked test writing sends the issue back to analysis",
    ),
]


@pytest.mark.parametrize(("state", "status", "confidence", "issues", "expected"), PM_CASES)
def test_the_seed_pm_rules_pick_the_next_state(
    lifecycle: Workflow,
    state: str,
    status: str,
    confidence: float,
    issues: list[str],
    expected: str,
) -> None:
    result = AgentResult(
        status=AgentStatus(status), confidence=confidence, issues_found=issues, summary="done"
    )
    decision = _report(state, result, lifecycle)
    assert decision.outcome is Outcome.transition, decision.reason
    assert decision.previous_state == state
    assert decision.state == expected
    assert decision.agent == SEED_AGENTS[expected]


# --- all presets --------------------------------------------------------------------------
def test_the_three_presets_are_shipped() -> None:
    assert preset_names() == ["approval-gate", "issue-lifecycle", "task-review"]


@pytest.mark.parametrize("name", ["approval-gate", "issue-lifecycle", "task-review"])
def test_each_preset_loads_without_errors(name: str) -> None:
    workflow = load_preset(name)
    assert workflow.name == name
    assert check(workflow).errors == []


# --- `baton graph --format json` -------------------------------------------------------------
@pytest.fixture(scope="module")
def lifecycle_graph(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The graph of the default workflow, run where there is no config file."""
    runner = CliRunner()
    empty = tmp_path_factory.mktemp("no-config")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(empty)
        result = runner.invoke(cli, ["graph", "--format", "json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.output)
    return data


def test_the_default_graph_is_the_issue_lifecycle(lifecycle_graph: dict[str, object]) -> None:
    assert lifecycle_graph["name"] == "issue-lifecycle"
    assert lifecycle_graph["initial"] == "received"


def test_the_json_graph_transitions_are_the_seed_table(
    lifecycle_graph: dict[str, object],
) -> None:
    assert lifecycle_graph["transitions"] == SEED_TRANSITIONS
    assert list(lifecycle_graph["transitions"]) == SEED_STATES  # type: ignore[call-overload]


@pytest.mark.parametrize("edge", SEED_EDGES, ids=_arrow)
def test_the_json_graph_holds_each_seed_edge(
    lifecycle_graph: dict[str, object], edge: tuple[str, str]
) -> None:
    transitions = lifecycle_graph["transitions"]
    assert isinstance(transitions, dict)
    assert edge[1] in transitions[edge[0]]


def test_the_json_graph_keeps_escapes_out_of_the_transitions(
    lifecycle_graph: dict[str, object],
) -> None:
    escapes = lifecycle_graph["escapes"]
    assert isinstance(escapes, dict) and escapes
    moves = {(s, t) for s, targets in escapes.items() for t in targets}
    assert moves.isdisjoint(SEED_EDGE_SET)
    assert ("implementing", "requires_human_intervention") in moves  # escalation
    assert ("completed", "received") in moves  # reopening


def test_the_json_graph_gives_each_state_its_seed_agent_and_kind(
    lifecycle_graph: dict[str, object],
) -> None:
    states = lifecycle_graph["states"]
    assert isinstance(states, dict)
    assert {s: v["agent"] for s, v in states.items()} == SEED_AGENTS
    assert {s for s, v in states.items() if v["kind"] == "terminal"} == SEED_TERMINAL
    assert {s for s, v in states.items() if v["kind"] == "waiting"} == SEED_WAITING


# --- approval-gate: seed 004 ---------------------------------------------------------------
def test_approval_gate_uses_the_seed_004_labels() -> None:
    workflow = load_preset("approval-gate")
    labels = [workflow.label_for(s, "status:") for s in workflow.states]
    assert labels == [
        "status:new",
        "status:phase-1",
        "status:phase-2",
        "status:awaiting-approval",
        "status:done",
    ]


def test_approval_gate_is_a_straight_line_of_four_edges() -> None:
    workflow = load_preset("approval-gate")
    edges = {(s, t) for s in workflow.states for t in workflow.targets(s)}
    assert edges == {
        ("new", "phase_1"),
        ("phase_1", "phase_2"),
        ("phase_2", "awaiting_approval"),
        ("awaiting_approval", "done"),
    }


def test_approval_gate_opens_only_on_an_approval() -> None:
    workflow = load_preset("approval-gate")
    gate = workflow.spec("awaiting_approval")
    assert gate.kind is StateKind.waiting
    assert gate.approval == "done"
    assert gate.reply is None
    assert workflow.is_terminal("done")


# --- task-review: seed 002's task status machine --------------------------------------------
SEED_002_TASK_EDGES = {
    ("pending", "in_progress"),
    ("pending", "blocked"),
    ("in_progress", "pending_review"),
    ("in_progress", "failed"),
    ("pending_review", "completed"),
    ("pending_review", "retry_queued"),
    ("pending_review", "failed"),
    ("retry_queued", "in_progress"),
    ("blocked", "pending"),
    ("blocked", "skipped"),
    ("failed", "in_progress"),
    ("failed", "skipped"),
    ("failed", "pending"),
}


def test_task_review_has_the_seed_002_task_status_edges() -> None:
    workflow = load_preset("task-review")
    edges = {(s, t) for s in workflow.states for t in workflow.targets(s)}
    assert edges == SEED_002_TASK_EDGES


def test_task_review_starts_at_pending_and_ends_in_completed_or_skipped() -> None:
    workflow = load_preset("task-review")
    assert workflow.initial == "pending"
    terminal = {s for s in workflow.states if workflow.is_terminal(s)}
    assert terminal == {"completed", "skipped"}


def test_only_completed_is_gated_behind_an_approval(lifecycle: Workflow) -> None:
    gated = [s for s, spec in lifecycle.states.items() if spec.requires_approval]
    assert gated == ["completed"]
