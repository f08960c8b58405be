"""Structural checks of a workflow, one small named check per invariant.

`check(workflow)` returns every problem at once so a maintainer fixes a file in one pass; each
problem names the states involved and the place in the YAML it comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from baton.workflow.model import SPECIAL_TARGETS, STATE_NAME, StateKind, Workflow, did_you_mean
from baton.workflow.problems import Problem, Report, Severity
from baton.workflow.problems import error as _error
from baton.workflow.problems import warning as _warning
from baton.workflow.proof_checks import check_proof, proof_notes
from baton.workflow.task_checks import check_task_states

__all__ = ["CHECKS", "Problem", "Report", "Severity", "check", "proof_notes"]

GITHUB_LABEL_LIMIT = 50


def check_state_names(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state in wf.states:
        if not STATE_NAME.match(state):
            yield _error(f"state {state!r} must be snake_case (a-z, 0-9, _)", "states", state)


def check_initial(wf: Workflow, prefix: str) -> Iterator[Problem]:
    if wf.initial not in wf.states:
        hint = did_you_mean(wf.initial, wf.states)
        yield _error(f"initial state {wf.initial!r} is not a state{hint}", "initial")
    elif wf.role == "task" and wf.states[wf.initial].kind is StateKind.waiting:
        return  # a task waits in its first state until its epic's conductor starts it
    elif wf.states[wf.initial].kind is not StateKind.work:
        must = "a work state" + (" (or, for a task, a waiting one)" if wf.role == "task" else "")
        yield _error(f"initial state {wf.initial!r} must be {must}", "initial")


def check_transition_targets(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for source, targets in wf.transitions.items():
        if source not in wf.states:
            hint = did_you_mean(source, wf.states)
            yield _error(f"transitions from unknown state {source!r}{hint}", "transitions", source)
        seen: set[str] = set()
        for index, target in enumerate(targets):
            if target not in wf.states:
                yield _error(
                    f"{source} -> {target}: unknown target state {target!r}"
                    + did_you_mean(target, wf.states),
                    "transitions",
                    source,
                    index,
                )
            if target in seen:
                yield _error(f"{source} -> {target} is listed twice", "transitions", source, index)
            seen.add(target)


def check_agents(wf: Workflow, prefix: str) -> Iterator[Problem]:
    if len(set(wf.agents)) != len(wf.agents):
        yield _error("an agent is listed twice in agents", "agents")
    for state, spec in wf.states.items():
        if spec.kind is StateKind.work:
            if spec.agent is None:
                yield _error(f"work state {state!r} has no agent", "states", state)
            elif spec.agent not in wf.agents:
                yield _error(
                    f"state {state!r} names unknown agent {spec.agent!r}"
                    f"{did_you_mean(spec.agent, wf.agents)}; "
                    f"the agents are: {', '.join(wf.agents)}",
                    "states",
                    state,
                    "agent",
                )
        elif spec.agent is not None:
            yield _error(
                f"{spec.kind.value} state {state!r} cannot have an agent", "states", state, "agent"
            )


def check_labels(wf: Workflow, prefix: str) -> Iterator[Problem]:
    seen: dict[str, str] = {}
    for state in wf.states:
        label = wf.label_for(state, prefix)
        if len(label) > GITHUB_LABEL_LIMIT:
            yield _error(
                f"label {label!r} of state {state!r} is {len(label)} characters long; "
                f"GitHub allows {GITHUB_LABEL_LIMIT}",
                "states",
                state,
            )
        key = label.casefold()
        if key in seen:
            yield _error(
                f"states {seen[key]!r} and {state!r} share the label {label!r}", "states", state
            )
        seen[key] = state


def check_human_moves(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, spec in wf.states.items():
        for field_name in ("reply", "approval"):
            target = getattr(spec, field_name)
            if target is None:
                continue
            if spec.kind is not StateKind.waiting:
                yield _error(
                    f"only waiting states take a {field_name}; {state!r} is {spec.kind.value}",
                    "states",
                    state,
                    field_name,
                )
            elif target not in wf.states:
                yield _error(
                    f"{state}.{field_name} -> unknown state {target!r}"
                    + did_you_mean(target, wf.states),
                    "states",
                    state,
                    field_name,
                )
            elif not wf.allows(state, target):
                yield _error(
                    f"{state}.{field_name} -> {target} is not in the transition table",
                    "states",
                    state,
                    field_name,
                )


def check_timeouts(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, spec in wf.states.items():
        if spec.timeout is None:
            continue
        target = spec.timeout.to
        if spec.kind is StateKind.waiting and target is None:
            yield _error(
                f"{state}.timeout needs `to`: the state a wait that runs out moves to",
                "states",
                state,
                "timeout",
            )
        elif spec.kind is StateKind.terminal:
            yield _error(f"terminal state {state!r} cannot time out", "states", state, "timeout")
        elif target is None:
            continue
        elif spec.kind is StateKind.work:
            yield _error(
                f"{state} is a work state: its timeout re-dispatches the agent and takes no `to`",
                "states",
                state,
                "timeout",
            )
        elif target not in wf.states:
            yield _error(
                f"{state}.timeout -> unknown state {target!r}" + did_you_mean(target, wf.states),
                "states",
                state,
                "timeout",
                "to",
            )
        elif not wf.allows(state, target):
            yield _error(
                f"{state}.timeout -> {target} is not in the transition table",
                "states",
                state,
                "timeout",
            )


def check_rules(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, rules in wf.rules.items():
        if state not in wf.states:
            hint = did_you_mean(state, wf.states)
            yield _error(f"rules for unknown state {state!r}{hint}", "rules", state)
            continue
        if wf.states[state].kind is not StateKind.work:
            yield _error(f"rules for {state!r}, which has no agent to report", "rules", state)
        for index, rule in enumerate(rules):
            if rule.to in SPECIAL_TARGETS:
                continue
            if rule.to not in wf.states:
                choices = [*wf.states, *SPECIAL_TARGETS]
                yield _error(
                    f"rule {index + 1} of {state} -> unknown state {rule.to!r}"
                    + did_you_mean(rule.to, choices),
                    "rules",
                    state,
                    index,
                    "to",
                )
            elif not wf.allows(state, rule.to):
                yield _error(
                    f"rule {index + 1} of {state} -> {rule.to} is not in the transition table",
                    "rules",
                    state,
                    index,
                )
            for origin in rule.when.came_from or []:
                if origin not in wf.states:
                    yield _error(
                        f"rule {index + 1} of {state}: came_from names unknown state {origin!r}"
                        + did_you_mean(origin, wf.states),
                        "rules",
                        state,
                        index,
                        "when",
                        "came_from",
                    )
    for state, spec in wf.states.items():
        if spec.kind is StateKind.work and not wf.rules.get(state):
            yield _warning(
                f"work state {state!r} has no PM rules: its agent must propose next_state",
                "states",
                state,
            )


def check_converses(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, spec in wf.states.items():
        if spec.converses and spec.kind is not StateKind.work:
            yield _error(
                f"{spec.kind.value} state {state!r} cannot converse: only a work state's agent "
                "holds a dialogue (a waiting state reads human replies anyway)",
                "states",
                state,
                "converses",
            )


def check_terminal(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, spec in wf.states.items():
        if spec.kind is StateKind.terminal and wf.targets(state):
            yield _error(
                f"terminal state {state!r} has transitions out: {', '.join(wf.targets(state))}",
                "transitions",
                state,
            )


def check_ways_out(wf: Workflow, prefix: str) -> Iterator[Problem]:
    escalation = wf.escalation.state
    for state, spec in wf.states.items():
        if spec.kind is StateKind.terminal or state == escalation:
            continue
        if not wf.targets(state):
            yield _error(f"non-terminal state {state!r} has no way out", "transitions", state)
        if spec.kind is StateKind.waiting and not (spec.reply or spec.approval):
            if wf.role != "issue":
                continue  # an epic's conductor, or a task's epic, moves it on
            yield _error(
                f"waiting state {state!r} has neither `reply` nor `approval`: "
                "no human event can leave it",
                "states",
                state,
            )


def check_escalation(wf: Workflow, prefix: str) -> Iterator[Problem]:
    fields = {
        "state": wf.escalation.state,
        "retry": wf.escalation.retry,
        "skip": wf.escalation.skip,
        "replan": wf.escalation.replan,
    }
    for name, target in fields.items():
        if target is not None and target not in wf.states:
            hint = did_you_mean(target, wf.states)
            yield _error(
                f"escalation.{name} names unknown state {target!r}{hint}", "escalation", name
            )
    if wf.reopen is not None and wf.reopen not in wf.states:
        hint = did_you_mean(wf.reopen, wf.states)
        yield _error(f"reopen names unknown state {wf.reopen!r}{hint}", "reopen")
    escalation = wf.states.get(wf.escalation.state or "")
    if escalation is not None and escalation.kind is StateKind.work:
        yield _error(
            f"the escalation state {wf.escalation.state!r} has an agent; it must be a waiting "
            "or terminal state",
            "escalation",
            "state",
        )


def check_pull_request(wf: Workflow, prefix: str) -> Iterator[Problem]:
    """Routes name states; only a work state's agent changes code; routes need a branch."""
    for route, target in wf.pull_request.targets().items():
        if target not in wf.states:
            yield _error(
                f"pull_request.{route} names unknown state {target!r}"
                + did_you_mean(target, wf.states),
                "pull_request",
                route,
            )
    for state, spec in wf.states.items():
        if spec.changes_code and spec.kind is not StateKind.work:
            yield _error(
                f"{spec.kind.value} state {state!r} cannot change code: only a work state's "
                "agent does",
                "states",
                state,
                "changes_code",
            )
    coded = [s for s, spec in wf.states.items() if spec.changes_code]
    # An epic has no coding state of its own: its branch gathers its tasks' merged work.
    if wf.pull_request.targets() and not coded and wf.role != "epic":
        yield _warning(
            "pull_request routes are set, but no state has `changes_code: true`: no issue gets "
            "a branch or a pull request, so they never apply",
            "pull_request",
        )


def _route_targets(wf: Workflow) -> set[str]:
    """States a pull request's review, checks, merge or close can move an issue to: reachable
    from anywhere once a state that changes code opened the pull request."""
    if not any(spec.changes_code for spec in wf.states.values()):
        return set()
    routes = wf.pull_request.model_copy(update={"ready": None}).targets()
    return {target for target in routes.values() if target in wf.states}


def check_reachable(wf: Workflow, prefix: str) -> Iterator[Problem]:
    if wf.initial not in wf.states:
        return
    seen = _closure({wf.initial, *_route_targets(wf)}, wf.transitions)
    for state, spec in wf.states.items():
        if state not in seen and spec.entered_by != "relabel":
            yield _warning(
                f"state {state!r} has no path from {wf.initial!r} and no pull-request route "
                "reaches it: only a maintainer's relabel does (if that is by design, say so "
                "with `entered_by: relabel`)",
                "states",
                state,
            )


def _closure(starts: set[str], moves: dict[str, list[str]]) -> set[str]:
    """`starts` and every state their `moves` reach, each visited once."""
    seen, frontier = set(starts), list(starts)
    while frontier:
        for target in moves.get(frontier.pop(), []):
            if target not in seen:
                seen.add(target)
                frontier.append(target)
    return seen


def _moves(wf: Workflow) -> dict[str, list[str]]:
    """Each state's edges, and its pull request's routes where one can be open (after a state
    that changes code)."""
    moves = {state: [t for t in wf.targets(state) if t in wf.states] for state in wf.states}
    coded = {state for state, spec in wf.states.items() if spec.changes_code}
    routes = sorted(_route_targets(wf))
    for state in _closure(coded, moves):
        moves[state] = [*moves[state], *routes]
    return moves


def check_trap_states(wf: Workflow, prefix: str) -> Iterator[Problem]:
    """From every state, some terminal state can be reached by the workflow's own moves. An
    error, not a warning: an issue in a trap (a cycle with no move out, or a state leading only
    into one) never finishes; its agents run round it, each run paid for, until the iteration
    limit escalates it. The escalation state is a way out (a human acts there), as in
    `check_ways_out`, whose error a state with no transition at all already is."""
    terminal = [s for s, spec in wf.states.items() if spec.kind is StateKind.terminal]
    exits = {*terminal, *(s for s in wf.states if s == wf.escalation.state or not wf.targets(s))}
    sources: dict[str, list[str]] = {}
    for source, targets in _moves(wf).items():
        for target in targets:
            sources.setdefault(target, []).append(source)
    finishing = _closure(exits, sources)
    trapped = [state for state in wf.states if state not in finishing]
    if trapped:
        ends = ", ".join(terminal) or "none: the workflow has no terminal state"
        yield _error(
            f"no terminal state can be reached from {', '.join(trapped)}: an issue there moves "
            f"among them until its limits escalate it; give one a transition towards a "
            f"terminal state ({ends})",
            "transitions",
            trapped[0],
        )


CHECKS: tuple[Callable[[Workflow, str], Iterator[Problem]], ...] = (
    check_state_names,
    check_initial,
    check_transition_targets,
    check_agents,
    check_labels,
    check_human_moves,
    check_timeouts,
    check_rules,
    check_converses,
    check_terminal,
    check_ways_out,
    check_escalation,
    check_pull_request,
    check_reachable,
    check_trap_states,
    check_proof,
    check_task_states,
)


def check(workflow: Workflow, *, prefix: str = "status:") -> Report:
    report = Report()
    for run_check in CHECKS:
        report.problems.extend(run_check(workflow, prefix))
    return report
