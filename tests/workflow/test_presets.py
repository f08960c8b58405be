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
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.record import Record
from baton.core.rules.route import decide
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

SEED_EDGE_SET = {
    (source, target) for source, targets in SEED_TRANSITIONS.items() for target in targets
}

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


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


# --- issue-lifecycle: states, table, agents, kinds --------------------------------------------
def _table_diff(got: dict[str, list[str]], want: dict[str, list[str]]) -> str:
    """What differs from the seed's table, state by state, for a failure message."""
    lines = []
    if list(got) != SEED_STATES:
        lines.append(f"states in the order {list(got)}\n  the seed's is {SEED_STATES}")
    for state in dict.fromkeys([*want, *got]):
        have, seed = got.get(state), want.get(state)
        if have == seed:
            continue
        if have is None or seed is None:
            lines.append(
                f"{state}: {'missing from the preset' if have is None else 'not in seed 000'}"
            )
            continue
        missing, extra = [t for t in seed if t not in have], [t for t in have if t not in seed]
        if missing or extra:
            lines.append(f"{state}: missing {missing}, extra {extra}")
        else:
            lines.append(f"{state}: targets in the order {have}, the seed's is {seed}")
    return "\n".join(lines)


def test_issue_lifecycle_has_seed_000s_transition_table(lifecycle: Workflow) -> None:
    """The whole table at once: the 21 states in the seed's order, each one's targets in the
    seed's order, 72 edges in all (the count seeds/README.md gives)."""
    table = {state: lifecycle.targets(state) for state in lifecycle.states}

    assert table == SEED_TRANSITIONS and list(table) == SEED_STATES, "\n" + _table_diff(
        table, SEED_TRANSITIONS
    )
    assert sum(len(targets) for targets in table.values()) == 72


def test_issue_lifecycle_allows_the_seed_edges_and_refuses_every_other_pair(
    lifecycle: Workflow,
) -> None:
    """`allows` over all 21 × 21 pairs, compared as one set with the seed's 72 edges."""
    allowed = {(s, t) for s in SEED_STATES for t in SEED_STATES if lifecycle.allows(s, t)}

    assert allowed == SEED_EDGE_SET, (
        f"allowed though the seed has no such edge: {sorted(allowed - SEED_EDGE_SET)}; "
        f"refused though the seed lists it: {sorted(SEED_EDGE_SET - allowed)}"
    )


def test_issue_lifecycle_starts_where_the_seed_starts(lifecycle: Workflow) -> None:
    assert lifecycle.initial == "received"


def test_each_state_is_handled_by_the_seed_agent(lifecycle: Workflow) -> None:
    assert {state: lifecycle.agent_of(state) for state in SEED_STATES} == SEED_AGENTS


def test_each_state_has_the_kind_the_seed_implies(lifecycle: Workflow) -> None:
    def implied(state: str) -> StateKind:
        if state in SEED_TERMINAL:
            return StateKind.terminal
        return StateKind.waiting if state in SEED_WAITING else StateKind.work

    kinds = {state: lifecycle.spec(state).kind for state in SEED_STATES}
    assert kinds == {state: implied(state) for state in SEED_STATES}


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
def _proposal_outcome(lifecycle: Workflow, source: str, target: str) -> str:
    """What `decide` made of an agent in `source` proposing `target`, in a word."""
    result = AgentResult(status=AgentStatus.success, confidence=0.9, next_state=target)
    decision = _report(source, result, lifecycle)
    kept = decision.record is not None and decision.record.state == decision.state
    if decision.outcome is Outcome.transition and decision.state == target and kept:
        return "applied"
    if decision.outcome is Outcome.retry and decision.state == source and kept:
        if "approval" in decision.reason:
            return "held for a human approval"
        if re.search(rf"(?<![a-z_]){target}(?![a-z_])", decision.reason):
            return "refused, naming the proposal"
    return f"{decision.outcome.value} to {decision.state}: {decision.reason}"


def test_an_agent_proposal_applies_only_along_a_seed_edge(lifecycle: Workflow) -> None:
    """Every work state proposing every state: applied along a seed edge, except that the gate
    (completed follows a human approval, never an agent's word alone) holds it; refused
    elsewhere, with the refused state named in the reason."""

    def expected(source: str, target: str) -> str:
        if (source, target) not in SEED_EDGE_SET:
            return "refused, naming the proposal"
        if lifecycle.spec(target).requires_approval:
            return "held for a human approval"
        return "applied"

    wrong = {
        f"{source} -> {target}": (got, want)
        for source in SEED_WORK
        for target in SEED_STATES
        if (got := _proposal_outcome(lifecycle, source, target))
        != (want := expected(source, target))
    }

    assert not wrong, "\n".join(
        f"{pair}: {got} (expected {want})" for pair, (got, want) in wrong.items()
    )


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
def test_the_seven_presets_are_shipped() -> None:
    assert preset_names() == [
        "approval-gate",
        "epic-task",
        "epic-task-test-first",
        "feature-epic",
        "issue-lifecycle",
        "task-review",
        "test-first",
    ]


@pytest.mark.parametrize("name", preset_names())
def test_each_preset_loads_without_errors(name: str) -> None:
    workflow = load_preset(name)
    assert workflow.name == name
    assert check(workflow).errors == []


PRESET_DESCRIPTIONS = {
    "approval-gate": "Five states in a row, each to the next - triage, plan, implement, then a "
    "human approves.",
    "epic-task": "A task of an epic, as its sub-issue - started by the epic's conductor, "
    "implemented, reviewed.",
    "epic-task-test-first": "A task of an epic, tests first - a red proof signed off by a "
    "human, the code, green, a review.",
    "feature-epic": "A whole feature as one epic issue - discovery, planning, parallel tasks, "
    "completion.",
    "issue-lifecycle": "The default issue lifecycle - analyse, write tests, implement, run tests, "
    "open a PR, approve.",
    "task-review": "One task - implement, review, retry with feedback, escalate.",
    "test-first": "Tests first - a red proof signed off by a human, then the code, then green, "
    "then a PR.",
}


@pytest.mark.parametrize("name", preset_names())
def test_the_printed_definition_says_its_rule_in_user_words(name: str) -> None:
    """`baton graph --format workflow` prints the description: the design seeds it was drawn
    from are not shipped, so it names none of them."""
    printed = CliRunner().invoke(cli, ["graph", "--workflow", name, "--format", "workflow"])
    assert printed.exit_code == 0, printed.output
    assert f"description: {PRESET_DESCRIPTIONS[name]}\n" in printed.output
    assert "seed" not in printed.output.lower()


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


# --- feature-epic and epic-task: seed 002's phase and task machines, edge by edge ------------
# The Workflow Phase State Machine, copied by hand, self-loops included: (source, target, the
# seed's label).
SEED_002_PHASE_EDGES = [
    ("discovery", "planning", "DISCOVERY_COMPLETE"),
    ("discovery", "discovery", "User answers question"),
    ("discovery", "discovery", "Validation failed"),
    ("planning", "implementing", "PLANNING_COMPLETE"),
    ("planning", "planning", "DAG cycle detected"),
    ("planning", "discovery", "Major revision needed"),
    ("implementing", "implementing", "Task completed"),
    ("implementing", "implementing", "Task failed (low/med)"),
    ("implementing", "blocked", "Task failed (high)"),
    ("implementing", "completing", "All tasks done"),
    ("blocked", "implementing", "User: retry/skip"),
    ("blocked", "planning", "User: replan"),
    ("completing", "done", "Merge/PR created"),
    ("completing", "implementing", "User: continue"),
]
# The Task Status State Machine, and the Retry State Machine's `escalation --> success_state:
# mark_fixed`: a human's approval at `failed` marks the task fixed.
SEED_002_TASK_STATUS_EDGES = [
    ("pending", "in_progress", "Selected by conductor"),
    ("pending", "blocked", "Dependency failed"),
    ("in_progress", "pending_review", "Implementation complete"),
    ("in_progress", "failed", "Implementation blocked"),
    ("pending_review", "completed", "APPROVED"),
    ("pending_review", "retry_queued", "REJECTED (low/med)"),
    ("pending_review", "failed", "REJECTED (high, max attempts)"),
    ("retry_queued", "in_progress", "Slot available"),
    ("blocked", "pending", "Blocker resolved"),
    ("blocked", "skipped", "User skips"),
    ("failed", "in_progress", "User: retry with guidance"),
    ("failed", "skipped", "User: skip task"),
    ("failed", "pending", "User: replan (new task)"),
    ("failed", "completed", "mark_fixed (the retry machine's escalation)"),
]
SEED_002_MACHINES = {
    "feature-epic": ("epic", "discovery", SEED_002_PHASE_EDGES, {"done"}),
    "epic-task": ("task", "pending", SEED_002_TASK_STATUS_EDGES, {"completed", "skipped"}),
}


@pytest.mark.parametrize(
    ("preset", "source", "target", "why"),
    [
        pytest.param(name, s, t, why, id=f"{name}: {s} -> {t} ({why})")
        for name, (_, _, edges, _) in SEED_002_MACHINES.items()
        for s, t, why in edges
    ],
)
def test_the_epic_presets_carry_each_seed_edge(
    preset: str, source: str, target: str, why: str
) -> None:
    assert load_preset(preset).allows(source, target), why


@pytest.mark.parametrize("preset", sorted(SEED_002_MACHINES))
def test_the_epic_presets_carry_no_edge_the_seed_lacks(preset: str) -> None:
    workflow = load_preset(preset)
    role, initial, edges, terminal = SEED_002_MACHINES[preset]
    table = {(s, t) for s in workflow.states for t in workflow.targets(s)}
    assert table == {(s, t) for s, t, _ in edges}
    assert workflow.role == role
    assert workflow.initial == initial
    assert {s for s in workflow.states if workflow.is_terminal(s)} == terminal
    if preset == "epic-task":  # the escalation's moves are all in the table but one
        assert workflow.escapes() == {"retry_queued": ["failed"]}


FEATURE_EPIC_STATES = {
    # state: (kind, agent, converses, approval)
    "discovery": ("work", "discovery", True, None),
    "planning": ("work", "planner", True, None),
    "implementing": ("waiting", None, False, None),
    "blocked": ("waiting", None, False, None),
    "completing": ("waiting", None, False, "done"),
    "done": ("terminal", None, False, None),
}
EPIC_TASK_STATES = {
    # state: (kind, agent, changes_code, approval)
    "pending": ("waiting", None, False, None),
    "in_progress": ("work", "developer", True, None),
    "pending_review": ("work", "reviewer", False, None),
    "retry_queued": ("work", "pm", False, None),
    "blocked": ("waiting", None, False, None),
    "failed": ("waiting", None, False, "completed"),
    "completed": ("terminal", None, False, None),
    "skipped": ("terminal", None, False, None),
}


def test_feature_epic_states_are_the_seed_phases() -> None:
    workflow = load_preset("feature-epic")
    got = {
        s: (spec.kind.value, spec.agent, spec.converses, spec.approval)
        for s, spec in workflow.states.items()
    }
    assert got == FEATURE_EPIC_STATES
    assert all(spec.description for spec in workflow.states.values())
    assert all(spec.expects for spec in workflow.states.values() if spec.agent)
    assert [workflow.label_for(s, "status:") for s in workflow.states] == [
        "status:discovery",
        "status:planning",
        "status:implementing",
        "status:blocked",
        "status:completing",
        "status:done",
    ]
    assert all(not spec.reply for spec in workflow.states.values())
    assert workflow.converses("discovery") and workflow.converses("planning")
    assert not workflow.converses("implementing"), "a waiting state takes replies anyway"


def test_epic_task_states_are_the_seed_task_statuses() -> None:
    workflow = load_preset("epic-task")
    got = {
        s: (spec.kind.value, spec.agent, spec.changes_code, spec.approval)
        for s, spec in workflow.states.items()
    }
    assert got == EPIC_TASK_STATES
    assert workflow.spec("retry_queued").relay
    assert all(not spec.reply for spec in workflow.states.values())
    assert all(not spec.converses for spec in workflow.states.values())


def test_epic_task_escalates_to_failed_and_a_retry_requeues_it_for_the_conductor() -> None:
    workflow = load_preset("epic-task")
    assert workflow.escalation.model_dump() == {
        "state": "failed",
        "retry": "pending",
        "skip": "skipped",
        "replan": None,
    }
    # No pull request of its own: the task's branch merges into the epic's.
    assert workflow.pull_request.targets() == {}


def test_epic_task_reviews_like_task_review() -> None:
    task, review = load_preset("epic-task"), load_preset("task-review")
    for state in ("in_progress", "pending_review", "retry_queued"):
        assert task.rules[state] == review.rules[state]
    assert set(task.rules) == {"in_progress", "pending_review", "retry_queued"}
    assert task.limits == review.limits


def test_feature_epic_rules_follow_the_phase_edges() -> None:
    workflow = load_preset("feature-epic")
    assert set(workflow.rules) == {"discovery", "planning"}
    assert workflow.escalation.state == "blocked"
    assert workflow.escalation.replan == "planning"
    # Outside the table: an agent's state escalated to `blocked`, and `/retry` there back to
    # the discovery round that escalated (planning is in the table already).
    assert workflow.escapes() == {
        "discovery": ["blocked"],
        "planning": ["blocked"],
        "blocked": ["discovery"],
    }
