"""`python tests/support/baton_with_checks.py ...`: `baton` whose `decide` asks for the check run
issue 26's rules ask for, so the shell's side of it (posting `Decision.check` after the record,
once) runs through the real command against the fake GitHub before those rules are in place.

As CONTRACT26 has it: a report carrying evidence that the rules act on (a move or a retry) gets a
`CheckPlan` on the evidence's commit, green `success`, red `neutral`, else `failure`, named by the
attempt (`external_id`); a report they refuse (stale: another attempt, a re-run) or ignore gets
none. Everything else is Baton's own `decide`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Run as a script, its folder comes first on the path, where `support/http.py` would stand in
# for the standard library's `http`.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import baton.run  # noqa: E402
from baton.core.model.decision import CheckPlan, Decision, Outcome  # noqa: E402
from baton.core.model.events import AgentReported  # noqa: E402
from baton.core.rules.route import decide as rules_decide  # noqa: E402

CONCLUSIONS = {"green": "success", "red": "neutral"}


def check_of(event: AgentReported) -> CheckPlan | None:
    evidence = event.evidence
    if evidence is None:
        return None
    failing = [t for t in evidence.tests if t.outcome in ("failed", "error")]
    return CheckPlan(
        commit=evidence.commit,
        conclusion=CONCLUSIONS.get(evidence.verdict, "failure"),  # type: ignore[arg-type]
        title=f"{evidence.verdict}: {len(failing)} failing",
        summary=evidence.reason,
        external_id=event.nonce,
    )


def decide(record: Any, event: Any, workflow: Any, policy: Any) -> Decision:
    decision = rules_decide(record, event, workflow, policy)
    if not isinstance(event, AgentReported):
        return decision
    if decision.outcome not in (Outcome.transition, Outcome.retry):
        return decision
    return decision.model_copy(update={"check": check_of(event)})


if __name__ == "__main__":
    baton.run.decide = decide  # type: ignore[assignment]
    from baton.__main__ import main

    main()
