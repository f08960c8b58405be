"""The checks of a workflow's evidence (issue 26): which states a proof settles, which sign off.

A `proof` belongs to a work state with an agent (the agent's job runs the tests), `signs_off`
to a waiting state with an `approval` (only an approval signs off), and a rule's `verdict` to a
proof state (nowhere else is a verdict given, so such a rule would never match).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from baton.workflow.model import StateKind, Workflow
from baton.workflow.problems import Problem, error, warning

VERDICTS = ("red", "green", "failing", "broken")


def check_proof(wf: Workflow, prefix: str) -> Iterator[Problem]:
    for state, spec in wf.states.items():
        if spec.proof is not None and (spec.kind is not StateKind.work or spec.agent is None):
            yield error(
                f"{state}.proof: only a work state with an agent is settled by evidence "
                "(its agent's job runs the tests)",
                "states",
                state,
                "proof",
            )
        if spec.signs_off and (spec.kind is not StateKind.waiting or spec.approval is None):
            yield error(
                f"{state}.signs_off: only a waiting state with an approval signs off the tests "
                "(the approval is the sign-off)",
                "states",
                state,
                "signs_off",
            )
    for state, rules in wf.rules.items():
        if state not in wf.states:
            continue  # check_rules names the unknown state
        proof = wf.states[state].proof
        covered: set[str] = set()
        for index, rule in enumerate(rules):
            if rule.when.verdict is None:
                continue
            covered.update(rule.when.verdict)
            if proof is None:
                yield error(
                    f"rule {index + 1} of {state}: a verdict is given only in a state with a "
                    "proof, so this rule never matches",
                    "rules",
                    state,
                    index,
                    "when",
                    "verdict",
                )
        missing = [v for v in VERDICTS if v not in covered]
        if proof is not None and missing:
            yield warning(
                f"{state} is settled by evidence, but no rule of it names the verdict "
                f"{', '.join(missing)}: the status rules decide it from the agent's result",
                "rules",
                state,
            )


def proof_notes(wf: Workflow, tests: object | None, others: Iterable[Workflow] = ()) -> list[str]:
    """What `baton validate` says of evidence: whether the config's `tests:` and the workflow's
    proof states meet (each without the other is ignored, so it is a note, not a problem).
    `others`: the epics' workflows in use, whose proof states are named after their workflow."""
    proofs = [state for state, spec in wf.states.items() if spec.proof is not None]
    proofs += [
        f"{other.name}.{state}"
        for other in others
        if other.name != wf.name
        for state, spec in other.states.items()
        if spec.proof is not None
    ]
    if tests is None:
        notes = ["no `tests:` in the config: transitions rest on agents' reports"]
        if proofs:
            notes.append(
                f"{', '.join(proofs)}: their proof is ignored without `tests:` (with it, the "
                "tests' verdict settles them: docs/evidence.md)"
            )
        return notes
    if not proofs:
        return [
            f"`tests:` is set, but no state of {wf.name} has a proof: transitions rest on "
            "agents' reports (`baton verify` runs only where a step calls it)"
        ]
    return [f"settled by evidence (`tests:`): {', '.join(proofs)}"]
