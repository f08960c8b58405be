"""The structural checks of a workflow: one broken workflow per invariant, written as YAML.

Each case starts from a small workflow that passes every check and breaks one thing in its
text. The problem must come from the named check, name the offending state, and point at the
line of the YAML that causes it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.errors import InvalidWorkflow
from baton.workflow import checks as workflow_checks
from baton.workflow.checks import CHECKS, Problem, Severity, check
from baton.workflow.model import Workflow, load_preset, parse_workflow
from baton.workflow.yaml_source import YamlDocument

VALID = """\
name: tiny
description: a small workflow that passes every check
initial: start
agents: [dev, reviewer]
states:
  start:
    kind: work
    agent: dev
    changes_code: true
  review:
    kind: work
    agent: reviewer
  gate:
    kind: waiting
    reply: start
    approval: done
    timeout: {after: 7d, to: gave_up}
  done:
    kind: terminal
  gave_up:
    kind: terminal
transitions:
  start: [review, gave_up]
  review: [gate, start]
  gate: [start, done, gave_up]
  done: []
  gave_up: []
rules:
  start:
    - {when: {status: success}, to: review, why: "ready for review"}
    - {to: retry}
  review:
    - {when: {status: success}, to: gate}
    - {when: {came_from: start}, to: start}
    - {to: escalate}
escalation:
  state: gave_up
  replan: start
reopen: start
pull_request:
  ready: gate
  changes_requested: start
  merged: done
"""


def broken(*edits: tuple[str, str]) -> str:
    """VALID with each `old` text replaced by `new`; every `old` must occur exactly once."""
    text = VALID
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in VALID"
        text = text.replace(old, new)
    return text


def _parse(text: str, source: str = "tiny.yml") -> tuple[Workflow, YamlDocument]:
    return parse_workflow(text, source=source)


REVIEW_RULES = (
    "  review:\n"
    "    - {when: {status: success}, to: gate}\n"
    "    - {when: {came_from: start}, to: start}\n"
    "    - {to: escalate}\n"
)
LONG_LABEL = "status:" + "x" * 44  # 51 characters
TIDY = "  tidy:\n    kind: work\n    agent: dev\n"

# (id, edits, check, severity, words the message must hold, text on the line it points at)
CASES = [
    (
        "a state name that is not snake_case is refused",
        [("  done:\n", "  Bad-State:\n    kind: terminal\n  done:\n")],
        "check_state_names",
        Severity.error,
        ["'Bad-State'", "snake_case"],
        "Bad-State:",
    ),
    (
        "an initial state that is not a state is refused",
        [("initial: start", "initial: begin")],
        "check_initial",
        Severity.error,
        ["'begin'", "not a state"],
        "initial: begin",
    ),
    (
        "an initial state that is not a work state is refused",
        [("initial: start", "initial: gate")],
        "check_initial",
        Severity.error,
        ["'gate'", "work state"],
        "initial: gate",
    ),
    (
        "a transition to an unknown state is refused",
        [("start: [review, gave_up]", "start: [review, gave_up, nowhere]")],
        "check_transition_targets",
        Severity.error,
        ["start -> nowhere", "'nowhere'"],
        "nowhere",
    ),
    (
        "a target listed twice is refused",
        [("start: [review, gave_up]", "start: [review, gave_up, review]")],
        "check_transition_targets",
        Severity.error,
        ["start -> review", "twice"],
        "start: [review, gave_up, review]",
    ),
    (
        "transitions from an unknown state are refused",
        [("  done: []\n", "  done: []\n  ghost: [done]\n")],
        "check_transition_targets",
        Severity.error,
        ["'ghost'", "unknown state"],
        "ghost: [done]",
    ),
    (
        "a state handled by an unknown agent is refused",
        [("agent: reviewer", "agent: navigator")],
        "check_agents",
        Severity.error,
        ["'review'", "'navigator'", "dev, reviewer"],
        "agent: navigator",
    ),
    (
        "a work state without an agent is refused",
        [("    kind: work\n    agent: reviewer\n", "    kind: work\n")],
        "check_agents",
        Severity.error,
        ["'review'", "no agent"],
        "  review:\n    kind: work\n  gate:",
    ),
    (
        "a waiting state with an agent is refused",
        [("    kind: waiting\n", "    kind: waiting\n    agent: dev\n")],
        "check_agents",
        Severity.error,
        ["'gate'", "cannot have an agent"],
        "    agent: dev\n    reply: start",
    ),
    (
        "an agent listed twice is refused",
        [("agents: [dev, reviewer]", "agents: [dev, reviewer, dev]")],
        "check_agents",
        Severity.error,
        ["agent", "twice"],
        "agents: [dev, reviewer, dev]",
    ),
    (
        "a label longer than GitHub's 50 characters is refused",
        [("    agent: reviewer\n", f"    agent: reviewer\n    label: {LONG_LABEL!r}\n")],
        "check_labels",
        Severity.error,
        ["'review'", LONG_LABEL, "51", "50"],
        "  review:\n    kind: work\n    agent: reviewer\n    label",
    ),
    (
        "two states sharing one label are refused",
        [("    agent: reviewer\n", "    agent: reviewer\n    label: status:START\n")],
        "check_labels",
        Severity.error,
        ["'start'", "'review'", "share"],
        "  review:\n    kind: work\n    agent: reviewer\n    label",
    ),
    (
        "a reply that leads along no edge is refused",
        [("reply: start", "reply: review")],
        "check_human_moves",
        Severity.error,
        ["gate.reply -> review", "transition table"],
        "reply: review",
    ),
    (
        "an approval that leads to an unknown state is refused",
        [("approval: done", "approval: finished")],
        "check_human_moves",
        Severity.error,
        ["gate.approval", "'finished'"],
        "approval: finished",
    ),
    (
        "a reply on a work state is refused",
        [("    agent: dev\n", "    agent: dev\n    reply: review\n")],
        "check_human_moves",
        Severity.error,
        ["'start'", "only waiting states take a reply"],
        "reply: review",
    ),
    (
        "a timeout that leads along no edge is refused",
        [("to: gave_up}", "to: review}")],
        "check_timeouts",
        Severity.error,
        ["gate.timeout -> review", "transition table"],
        "timeout: {after: 7d, to: review}",
    ),
    (
        "a timeout that leads to an unknown state is refused",
        [("to: gave_up}", "to: nowhere}")],
        "check_timeouts",
        Severity.error,
        ["gate.timeout", "'nowhere'"],
        "timeout: {after: 7d, to: nowhere}",
    ),
    (
        "a waiting timeout that says nowhere to go is refused",
        [("timeout: {after: 7d, to: gave_up}", "timeout: {after: 7d}")],
        "check_timeouts",
        Severity.error,
        ["gate.timeout", "`to`"],
        "timeout: {after: 7d}",
    ),
    (
        "a terminal state that times out is refused",
        [
            (
                "  done:\n    kind: terminal\n",
                "  done:\n    kind: terminal\n    timeout: {after: 1d}\n",
            )
        ],
        "check_timeouts",
        Severity.error,
        ["'done'", "cannot time out"],
        "timeout: {after: 1d}",
    ),
    (
        "a work state timeout with a target is refused",
        [("    agent: dev\n", "    agent: dev\n    timeout: {after: 2h, to: gave_up}\n")],
        "check_timeouts",
        Severity.error,
        ["start", "takes no `to`"],
        "timeout: {after: 2h, to: gave_up}",
    ),
    (
        "a rule that leads along no edge is refused",
        [("to: review, why", "to: done, why")],
        "check_rules",
        Severity.error,
        ["rule 1 of start -> done", "transition table"],
        "to: done, why",
    ),
    (
        "a rule that leads to an unknown state is refused",
        [("to: gate}", "to: nowhere}")],
        "check_rules",
        Severity.error,
        ["rule 1 of review", "'nowhere'"],
        "to: nowhere}",
    ),
    (
        "rules for an unknown state are refused",
        [("escalation:\n", "  ghost:\n    - {to: done}\nescalation:\n")],
        "check_rules",
        Severity.error,
        ["'ghost'", "unknown state"],
        "  ghost:",
    ),
    (
        "rules for a waiting state are refused",
        [("escalation:\n", "  gate:\n    - {to: done}\nescalation:\n")],
        "check_rules",
        Severity.error,
        ["'gate'", "no agent"],
        "  gate:\n    - {to: done}",
    ),
    (
        "a rule that comes from an unknown state is refused",
        [("came_from: start", "came_from: beginning")],
        "check_rules",
        Severity.error,
        ["rule 2 of review", "'beginning'"],
        "came_from: beginning",
    ),
    (
        "a work state without PM rules is only a warning",
        [
            (
                REVIEW_RULES,
                "",
            )
        ],
        "check_rules",
        Severity.warning,
        ["'review'", "no PM rules"],
        "  review:\n    kind: work",
    ),
    (
        "a terminal state with edges out is refused",
        [("  done: []", "  done: [start]")],
        "check_terminal",
        Severity.error,
        ["'done'", "transitions out: start"],
        "  done: [start]",
    ),
    (
        "a non-terminal state with no way out is refused",
        [("  review: [gate, start]\n", "  review: []\n")],
        "check_ways_out",
        Severity.error,
        ["'review'", "no way out"],
        "  review: []",
    ),
    (
        "a waiting state no human event can leave is refused",
        [("    reply: start\n    approval: done\n", "")],
        "check_ways_out",
        Severity.error,
        ["'gate'", "no human event can leave it"],
        "  gate:\n    kind: waiting",
    ),
    (
        "a waiting state that converses is refused",
        [("    reply: start\n", "    reply: start\n    converses: true\n")],
        "check_converses",
        Severity.error,
        ["waiting state 'gate' cannot converse"],
        "    converses: true",
    ),
    (
        "an escalation to an unknown state is refused",
        [("  replan: start", "  replan: restart")],
        "check_escalation",
        Severity.error,
        ["escalation.replan", "'restart'"],
        "replan: restart",
    ),
    (
        "reopening into an unknown state is refused",
        [("reopen: start", "reopen: again")],
        "check_escalation",
        Severity.error,
        ["reopen", "'again'"],
        "reopen: again",
    ),
    (
        "an escalation state where an agent works is refused",
        [("  state: gave_up", "  state: review")],
        "check_escalation",
        Severity.error,
        ["'review'", "waiting or terminal"],
        "  state: review",
    ),
    (
        "a pull-request route to an unknown state is refused, with the closest name",
        [("  merged: done\n", "  merged: dome\n")],
        "check_pull_request",
        Severity.error,
        ["pull_request.merged", "'dome'", "did you mean 'done'?"],
        "merged: dome",
    ),
    (
        "a waiting state that changes code is refused",
        [("    reply: start\n", "    reply: start\n    changes_code: true\n")],
        "check_pull_request",
        Severity.error,
        ["waiting state 'gate' cannot change code"],
        "    changes_code: true\n    approval",
    ),
    (
        "routes with no state that changes code are only a warning",
        [("    agent: dev\n    changes_code: true\n", "    agent: dev\n")],
        "check_pull_request",
        Severity.warning,
        ["no state has `changes_code: true`", "never apply"],
        "pull_request:",
    ),
    (
        "a state no edge reaches is only a warning",
        [("  done:\n", "  limbo:\n    kind: terminal\n  done:\n")],
        "check_reachable",
        Severity.warning,
        ["'limbo'", "no path from 'start'", "relabel"],
        "  limbo:",
    ),
    (
        "a cycle no terminal state can be reached from is refused",
        [
            ("  done:\n", "  polish:\n    kind: work\n    agent: dev\n" + TIDY + "  done:\n"),
            ("  done: []\n", "  polish: [tidy]\n  tidy: [polish]\n  done: []\n"),
        ],
        "check_trap_states",
        Severity.error,
        ["no terminal state can be reached from polish, tidy", "done, gave_up"],
        "  polish: [tidy]",
    ),
    (
        "a state leading only into such a cycle is trapped with it",
        [
            ("    agent: dev\n    changes_code: true\n", "    agent: dev\n"),  # no pull request
            ("  done:\n", TIDY + "  done:\n"),
            ("  done: []\n", "  tidy: [tidy]\n  done: []\n"),
            ("review: [gate, start]", "review: [tidy]"),
            ("    - {when: {status: success}, to: gate}\n", "    - {to: tidy}\n"),
            ("    - {when: {came_from: start}, to: start}\n    - {to: escalate}\n", ""),
        ],
        "check_trap_states",
        Severity.error,
        ["no terminal state can be reached from review, tidy"],
        "  review: [tidy]",
    ),
    (
        "a proof on a waiting state is refused: no agent's job runs the tests there",
        [("    kind: waiting\n", "    kind: waiting\n    proof: green\n")],
        "check_proof",
        Severity.error,
        ["gate.proof", "only a work state with an agent"],
        "    proof: green",
    ),
    (
        "a sign-off on a work state is refused: only an approval signs off",
        [("    agent: reviewer\n", "    agent: reviewer\n    signs_off: true\n")],
        "check_proof",
        Severity.error,
        ["review.signs_off", "only a waiting state with an approval"],
        "    signs_off: true",
    ),
    (
        "a verdict rule in a state without a proof is refused: it never matches",
        [
            (
                "    - {when: {status: success}, to: gate}\n",
                "    - {when: {verdict: green}, to: gate}\n",
            )
        ],
        "check_proof",
        Severity.error,
        ["rule 1 of review", "never matches"],
        "    - {when: {verdict: green}, to: gate}",
    ),
    (
        "a proof state whose rules leave verdicts to the status rules is only a warning",
        [
            ("    agent: reviewer\n", "    agent: reviewer\n    proof: green\n"),
            (
                "    - {when: {status: success}, to: gate}\n",
                "    - {when: {verdict: green}, to: gate}\n",
            ),
        ],
        "check_proof",
        Severity.warning,
        ["review is settled by evidence", "red, failing, broken"],
        "  review:\n    - {when: {verdict",
    ),
    (
        "a task status outside a task workflow is only a warning: nothing reads it",
        [("    agent: reviewer\n", "    agent: reviewer\n    task_status: pending_review\n")],
        "check_task_states",
        Severity.warning,
        ["review.task_status", "only in a `role: task` workflow"],
        "    task_status: pending_review",
    ),
]
IDS = [case[0] for case in CASES]


def _the_problem(problems: list[Problem], severity: Severity, words: list[str]) -> Problem:
    found = [p for p in problems if p.severity is severity and all(w in p.message for w in words)]
    assert found, f"no {severity.value} holding {words} among {[p.message for p in problems]}"
    return found[0]


def test_the_valid_workflow_has_no_problem_at_all() -> None:
    workflow, _ = _parse(VALID)
    assert check(workflow).problems == []


def test_every_check_has_a_broken_workflow_below() -> None:
    assert {case[2] for case in CASES} == {c.__name__ for c in CHECKS}


@pytest.mark.parametrize(
    ("edits", "check_name", "severity", "words"), [c[1:5] for c in CASES], ids=IDS
)
def test_a_broken_workflow_is_reported_by_its_check(
    edits: list[tuple[str, str]], check_name: str, severity: Severity, words: list[str]
) -> None:
    workflow, _ = _parse(broken(*edits))
    report = check(workflow)
    _the_problem(report.problems, severity, words)
    one_check = getattr(workflow_checks, check_name)
    _the_problem(list(one_check(workflow, "status:")), severity, words)
    if severity is Severity.warning:
        assert report.ok, "a warning alone must not fail the workflow"
    else:
        assert not report.ok


@pytest.mark.parametrize(
    ("edits", "severity", "words", "marker"), [(c[1], *c[3:6]) for c in CASES], ids=IDS
)
def test_a_problem_points_at_the_line_that_causes_it(
    edits: list[tuple[str, str]], severity: Severity, words: list[str], marker: str
) -> None:
    text = broken(*edits)
    workflow, document = _parse(text)
    problem = _the_problem(check(workflow).problems, severity, words)
    line = _marker_line(text, marker)
    assert problem.render(document).startswith(f"tiny.yml:{line}: {severity.value}: ")


def _marker_line(text: str, marker: str) -> int:
    """The line where `marker` (possibly several lines) starts; it must be unique."""
    starts = [m.start() for m in re.finditer(re.escape(marker), text)]
    assert len(starts) == 1, f"{marker!r} occurs {len(starts)} times"
    return text[: starts[0]].count("\n") + 1


# --- duplicates are caught while reading, before pydantic keeps only the last ---------------
@pytest.mark.parametrize(
    ("edits", "state", "marker"),
    [
        (
            [
                (
                    "  done:\n    kind: terminal\n",
                    "  done:\n    kind: terminal\n  start:\n    kind: terminal\n",
                )
            ],
            "start",
            "  start:\n    kind: terminal",
        ),
        (
            [("  done: []\n", "  done: []\n  review: [start]\n")],
            "review",
            "  review: [start]",
        ),
    ],
    ids=["a state defined twice is refused", "a state given two rows of transitions is refused"],
)
def test_a_duplicated_state_is_refused_with_its_name_and_line(
    edits: list[tuple[str, str]], state: str, marker: str
) -> None:
    text = broken(*edits)
    with pytest.raises(InvalidWorkflow) as caught:
        _parse(text)
    message = str(caught.value)
    assert f"'{state}'" in message
    assert "duplicate" in message
    assert f"line {_marker_line(text, marker)}" in message
    assert message.startswith("tiny.yml")


# --- the seed's relabel-only states ---------------------------------------------------------
def test_issue_lifecycle_declares_its_two_relabel_only_states_and_is_not_warned() -> None:
    """Seed 000 draws no edge into planning_approach and validating_solution: the preset says
    so (`entered_by: relabel`), so the starter config validates without a warning."""
    workflow = load_preset("issue-lifecycle")
    declared = [s for s, spec in workflow.states.items() if spec.entered_by == "relabel"]
    assert declared == ["planning_approach", "validating_solution"]
    assert check(workflow).problems == []
    undeclared = workflow.model_copy(
        update={
            "states": {
                s: spec.model_copy(update={"entered_by": None})
                for s, spec in workflow.states.items()
            }
        }
    )
    warned = [w.message for w in check(undeclared).warnings]
    assert len(warned) == 2
    assert all("only a maintainer's relabel does" in message for message in warned)


def test_a_state_declared_relabel_only_is_not_warned_about() -> None:
    declared = "  limbo:\n    kind: terminal\n    entered_by: relabel\n  done:\n"
    workflow, _ = _parse(broken(("  done:\n", declared)))
    assert check(workflow).problems == []


def test_a_cycle_its_pull_requests_merge_leaves_is_no_trap() -> None:
    """Once a state that changes code opened the pull request, its merge moves the issue to
    `done` from anywhere, as a maintainer's relabel would: that is a way out."""
    edits = [
        ("  done:\n", TIDY + "  done:\n"),
        ("  done: []\n", "  tidy: [tidy]\n  done: []\n"),
        ("review: [gate, start]", "review: [tidy]"),
        ("    - {when: {status: success}, to: gate}\n", "    - {to: tidy}\n"),
        ("    - {when: {came_from: start}, to: start}\n    - {to: escalate}\n", ""),
    ]
    workflow, _ = _parse(broken(*edits))
    assert list(workflow_checks.check_trap_states(workflow, "status:")) == []


def test_a_trap_is_found_in_linear_time_among_thousands_of_states() -> None:
    """A chain of 3,000 work states, the last looping on itself: one error naming them all."""
    count = 3000
    names = [f"s{i}" for i in range(count)]
    states = {name: {"kind": "work", "agent": "dev"} for name in names}
    transitions = {name: [names[min(i + 1, count - 1)]] for i, name in enumerate(names)}
    workflow = Workflow.model_validate(
        {
            "name": "chain",
            "initial": "s0",
            "agents": ["dev"],
            "states": {**states, "done": {"kind": "terminal"}},
            "transitions": {**transitions, "done": []},
        }
    )
    trapped = list(workflow_checks.check_trap_states(workflow, "status:"))
    assert len(trapped) == 1
    assert trapped[0].message.startswith("no terminal state can be reached from s0, s1, s2, ")
    assert "s2999:" in trapped[0].message


def test_a_state_only_a_pull_request_route_reaches_is_not_warned_about() -> None:
    """addressing_feedback has no incoming edge in seed 000's table; a reviewer's requested
    changes reach it, so it is no longer relabel-only."""
    warned = " ".join(w.message for w in check(load_preset("issue-lifecycle")).warnings)
    assert "'addressing_feedback'" not in warned


def test_a_route_reaches_a_state_only_when_some_state_changes_code() -> None:
    limbo = "  done:\n    kind: terminal\n  limbo:\n    kind: terminal\n"
    text = broken(
        ("  done:\n    kind: terminal\n", limbo), ("  merged: done\n", "  merged: limbo\n")
    )
    workflow, _ = _parse(text)
    assert not [w for w in check(workflow).warnings if "'limbo'" in w.message]
    no_code = text.replace("    changes_code: true\n", "")
    workflow, _ = _parse(no_code)
    assert [w for w in check(workflow).warnings if "'limbo'" in w.message]


@pytest.mark.parametrize("name", ["approval-gate", "task-review", "feature-epic", "epic-task"])
def test_the_other_presets_pass_without_a_warning(name: str) -> None:
    assert check(load_preset(name)).problems == []


# --- roles: an epic's and a task's waiting states are moved by the conductor -------------------
CONDUCTED = broken(("    reply: start\n    approval: done\n", ""))


def test_a_waiting_state_without_a_human_move_is_legal_in_an_epic_or_a_task() -> None:
    workflow, _ = _parse("role: epic\n" + CONDUCTED)
    assert check(workflow).problems == []
    task, _ = _parse("role: task\n" + CONDUCTED)
    assert [p.message for p in check(task).problems if "'gate'" in p.message] == [
        "state 'gate' of a task workflow counts as no task status: name it after one, or say "
        "which it counts as with `task_status:` (pending, in_progress, pending_review, "
        "retry_queued, completed, failed, blocked, skipped)"
    ], "a task's states must count as task statuses (test_task_checks.py), nothing else"
    assert check(load_preset("epic-task")).problems == [], "its `blocked` waits for the epic"


def test_a_waiting_state_without_a_human_move_is_refused_in_an_issue_workflow() -> None:
    workflow, _ = _parse("role: issue\n" + CONDUCTED)
    _the_problem(check(workflow).errors, Severity.error, ["'gate'", "no human event"])


def test_a_task_may_start_waiting_for_its_conductor() -> None:
    text = broken(("initial: start", "initial: gate"))
    workflow, _ = _parse("role: task\n" + text)
    assert list(workflow_checks.check_initial(workflow, "status:")) == []


@pytest.mark.parametrize("role", ["issue", "epic"])
def test_only_a_task_may_start_waiting(role: str) -> None:
    workflow, _ = _parse(f"role: {role}\n" + broken(("initial: start", "initial: gate")))
    _the_problem(check(workflow).errors, Severity.error, ["'gate'", "must be a work state"])


def test_a_task_may_not_start_in_a_terminal_state() -> None:
    workflow, _ = _parse("role: task\n" + broken(("initial: start", "initial: done")))
    _the_problem(check(workflow).errors, Severity.error, ["'done'", "or, for a task, a waiting"])


def test_an_edge_from_a_state_to_itself_is_legal_data() -> None:
    text = broken(("  review: [gate, start]", "  review: [gate, start, review]"))
    workflow, _ = _parse(text)
    assert workflow.allows("review", "review")
    assert check(workflow).problems == []


def test_an_unknown_role_is_refused_with_the_roles_there_are() -> None:
    with pytest.raises(InvalidWorkflow, match=r"role.*'issue', 'epic' or 'task'"):
        _parse("role: saga\n" + VALID)


# --- `baton validate` ----------------------------------------------------------------------
def _config_with(workflow_text: str) -> str:
    inline = "".join(f"  {line}\n" for line in workflow_text.splitlines())
    return "approval_words: [approved, lgtm]\nworkflow:\n" + inline


UNKNOWN_TARGET = broken(("start: [review, gave_up]", "start: [review, gave_up, nowhere]"))
UNREACHABLE = broken(("  done:\n", "  limbo:\n    kind: terminal\n  done:\n"))


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def test_validate_a_workflow_file_with_errors_fails_and_names_file_and_line(
    runner: CliRunner,
) -> None:
    Path("wf.yml").write_text(UNKNOWN_TARGET, encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--workflow", "wf.yml"])
    assert result.exit_code == 1
    line = _marker_line(UNKNOWN_TARGET, "nowhere")
    assert f"wf.yml:{line}: error: start -> nowhere" in result.output
    assert "1 error(s)" in result.output


def test_validate_a_config_whose_inline_workflow_has_errors_fails_with_file_and_line(
    runner: CliRunner,
) -> None:
    text = _config_with(UNKNOWN_TARGET)
    Path("baton.yml").write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--config", "baton.yml"])
    assert result.exit_code == 1
    assert "start -> nowhere" in result.output
    assert f"baton.yml:{_marker_line(text, 'nowhere')}:" in result.output


def test_validate_a_workflow_file_with_only_warnings_passes(runner: CliRunner) -> None:
    Path("wf.yml").write_text(UNREACHABLE, encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--workflow", "wf.yml"])
    assert result.exit_code == 0, result.output
    assert f"wf.yml:{_marker_line(UNREACHABLE, '  limbo:')}: warning: " in result.output
    assert "'limbo'" in result.output
    assert "0 error(s), 1 warning(s)" in result.output


def test_validate_a_config_with_only_warnings_passes(runner: CliRunner) -> None:
    Path("baton.yml").write_text(_config_with(UNREACHABLE), encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--config", "baton.yml"])
    assert result.exit_code == 0, result.output
    assert "'limbo'" in result.output
    assert "0 error(s), 1 warning(s)" in result.output


def test_validate_the_default_preset_passes_without_a_warning(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--workflow", "issue-lifecycle"])
    assert (result.exit_code, result.output) == (0, "issue-lifecycle: 0 error(s), 0 warning(s)\n")


@pytest.mark.parametrize("which", ["baton init's starter", "examples/baton.yml"])
def test_validate_the_starter_config_prints_no_warning(runner: CliRunner, which: str) -> None:
    from baton.adopt.init import starter_config

    examples = Path(__file__).resolve().parents[2] / "examples" / "baton.yml"
    text = starter_config() if which.startswith("baton") else examples.read_text("utf-8")
    Path("baton.yml").write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--config", "baton.yml"])
    # No warning; the note says what a config without `tests:` means (docs/evidence.md).
    assert (result.exit_code, result.output) == (
        0,
        "issue-lifecycle: 0 error(s), 0 warning(s)\n"
        "note: no `tests:` in the config: transitions rest on agents' reports\n"
        "note: creating_tests, running_tests: their proof is ignored without `tests:` (with it, "
        "the tests' verdict settles them: docs/evidence.md)\n",
    )


def test_validate_a_workflow_file_with_a_duplicate_state_fails(runner: CliRunner) -> None:
    text = broken(
        ("  done:\n    kind: terminal\n", "  done:\n    kind: terminal\n  done: {kind: terminal}\n")
    )
    Path("wf.yml").write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["validate", "--workflow", "wf.yml"])
    assert result.exit_code == 1
    assert "duplicate state 'done'" in result.output
    assert f"line {_marker_line(text, 'done: {kind')}" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--workflow", "no-such-preset"], ["no-such-preset", "issue-lifecycle", "task-review"]),
        (["--config", "missing.yml"], ["missing.yml", "does not exist"]),
    ],
    ids=["an unknown workflow lists the presets", "a missing config file is an error"],
)
def test_validate_fails_on_what_it_cannot_read(
    runner: CliRunner, args: list[str], words: list[str]
) -> None:
    result = runner.invoke(cli, ["validate", *args])
    assert result.exit_code == 1
    for word in words:
        assert word in result.output
