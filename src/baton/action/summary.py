"""What a run shows the workflow: its outputs and the Markdown of its job summary.

Pure rendering, kept apart from the commands that decide what to show: everything user-written
that reaches the summary goes through `core.text.markdown`'s escaping here.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from baton.core.model.decision import Decision
from baton.core.model.events import AgentReported, Event
from baton.core.model.record import Record
from baton.core.rules import budget
from baton.core.text import epic_plan as render
from baton.core.text import markdown
from baton.workflow.config import Settings
from baton.workflow.graph import to_mermaid

if TYPE_CHECKING:
    from baton.run import RunResult
    from baton.sweep import SweepResult


def decision_outputs(decision: Decision, record: Record | None = None) -> dict[str, str]:
    """The outputs of a run on one issue; `record`: the issue's record after the run."""
    work = record.work if record is not None else None
    pull_request = work.pull_request if work is not None else None
    return {
        "issue": str(decision.issue),
        "state": decision.state or "",
        "previous-state": decision.previous_state or "",
        "agent": decision.agent or "",
        "transitioned": "true" if decision.transitioned else "false",
        "decision": decision.summary_json(),
        "branch": work.branch if work is not None and work.created else "",
        "pull-request": str(pull_request) if pull_request is not None else "",
        "handover": "",  # the attempt of the agent named: set by the run that wrote the record
    }


def decision_summary(result: RunResult, settings: Settings, calls: str | None) -> str:
    decision = result.decision
    lines = [f"## Baton · issue #{decision.issue}", ""]
    if decision.transitioned:
        lines.append(
            f"**{decision.previous_state or '(entry)'} → {decision.state}**"
            + (" (forced)" if decision.forced else "")
        )
    else:
        lines.append(f"**{decision.outcome.value}** in `{decision.state or '(not in workflow)'}`")
    lines += ["", f"Why: {markdown.escape(decision.reason)}", ""]
    if decision.agent:
        how = "dispatched a new workflow run" if result.dispatched else "runs as a follow-up job"
        lines.append(f"Next agent: **{decision.agent}** ({how})")
    for repair in decision.repairs:
        lines.append(f"- repaired: {markdown.escape(repair)}")
    if result.applied and result.applied.steps:
        lines += ["", "Written: " + "; ".join(markdown.escape(s) for s in result.applied.steps)]
    chosen = result.settings or settings
    lines += work_lines(result.record, chosen)
    lines += run_cost_lines(result.event)
    lines += evidence_lines(result.event)
    lines += epic_lines(result.record)
    if calls is not None:
        lines += ["", f"GitHub API calls this run: {calls}"]
    record = decision.record or result.loaded.record
    if record and record.history:
        lines += ["", "| when (UTC) | from | to | why | by |", "|---|---|---|---|---|"]
        for entry in reversed(record.history[-10:]):
            lines.append(
                f"| {entry.at:%Y-%m-%d %H:%M} | {entry.from_state or '—'} | {entry.to_state} "
                f"| {markdown.cell(entry.reason)} | {markdown.cell(entry.actor)} |"
            )
    if decision.state and decision.state in chosen.workflow.states:
        lines += ["", "```mermaid", to_mermaid(chosen.workflow, current=decision.state), "```"]
    return "\n".join(lines)


def run_cost_lines(event: Event | None) -> list[str]:
    """What the agent run this report is about spent (tokens and cost), and who counted it."""
    if not isinstance(event, AgentReported) or event.result is None:
        return []
    return ["", f"This agent run: {markdown.escape(budget.describe_cost(event.result.cost))}"]


FAILING_SHOWN = 10  # failing tests the summary lists; the evidence file has them all


def evidence_lines(event: Event | None) -> list[str]:
    """What `baton verify` saw, as the report carried it: its verdict, the counts, the first
    failing tests with their messages (the tests' own text: escaped); or why it was not read."""
    if not isinstance(event, AgentReported):
        return []
    if event.evidence_problem:
        return ["", f"Evidence: not read: {markdown.escape(event.evidence_problem)}"]
    evidence = event.evidence
    if evidence is None:
        return []
    counts = Counter(test.outcome for test in evidence.tests)
    lines = [
        "",
        f"Evidence of the tests on `{evidence.commit[:7]}` (Baton's rules judge it again from "
        f"its tests): {markdown.escape(evidence.reason)}",
        "",
        "| verdict | passed | failed | error | skipped |",
        "|---|---|---|---|---|",
        f"| {evidence.verdict} | {counts['passed']} | {counts['failed']} | {counts['error']} "
        f"| {counts['skipped']} |",
    ]
    failing = [test for test in evidence.tests if test.outcome in ("failed", "error")]
    if failing:
        lines += ["", "| failing test | outcome | message |", "|---|---|---|"]
        lines += [
            f"| {markdown.cell(test.id)} | {test.outcome} | {markdown.cell(test.message, 300)} |"
            for test in failing[:FAILING_SHOWN]
        ]
    if len(failing) > FAILING_SHOWN:
        lines += ["", f"… and {len(failing) - FAILING_SHOWN} more failing (baton-evidence.json)"]
    return lines


def epic_lines(record: Record | None) -> list[str]:
    """What agents spent on the issue, and an epic's task table."""
    if record is None:
        return []
    lines = []
    if record.spend.runs:
        lines += ["", f"Spent on this issue: {markdown.escape(budget.describe(record.spend))}"]
    if record.epic is not None and record.epic.tasks:
        lines += ["", render.task_table(record.epic, limit=30)]
    return lines


def work_lines(record: Record | None, settings: Settings) -> list[str]:
    """The issue's branch, its pull request and Baton's last commits; and what CI does with
    them: held for a writer's approval (GITHUB_TOKEN), or run at once (any other identity)."""
    work = record.work if record is not None else None
    if work is None or not work.created:
        return []
    lines = ["", f"Branch: {markdown.code(work.branch)}"]
    if work.pull_request is not None:
        how = "ready for review" if work.ready else "draft"
        lines[-1] += f" · pull request #{work.pull_request} ({how})"
    if work.problem:
        lines.append(
            f"Pull request: not opened: {markdown.escape(work.problem)} (at the pull-request "
            "state the issue goes to a human until it is)"
        )
    for mark in work.commits[-3:]:
        lines.append(
            f"- commit `{mark.oid[:7]}` by {markdown.escape(mark.agent)} in {mark.state} "
            f"(attempt {mark.attempt}, {mark.files} file(s))"
        )
    if work.commits:
        lines.append(CI_HELD if settings.policy.held_ci else CI_UNHELD)
    return lines


CI_HELD = (
    "CI on the pull request waits for approval: GitHub holds the pull_request runs of a pull "
    "request GITHUB_TOKEN opened or updated until someone with write access clicks "
    '"Approve and run" on its page. Approving runs the agent-written code with the '
    "repository's secrets: review the diff first. Pushes made with GITHUB_TOKEN start no "
    "other run (docs/tokens.md)."
)
CI_UNHELD = (
    "CI runs on these commits without approval (`ci: {unapproved_runs: accept}`): the "
    "agent-written code runs with the repository's secrets before anyone has reviewed it "
    "(docs/tokens.md)."
)


def sweep_outputs(result: SweepResult) -> dict[str, str]:
    acted = [r for r in result.results if r.decision.outcome.value != "ignored"]
    return {
        "issue": "",
        "state": "",
        "previous-state": "",
        "agent": "",
        "transitioned": "true" if any(r.decision.transitioned for r in acted) else "false",
        "decision": json.dumps(
            {"outcome": "sweep", "checked": result.scanned, "acted": len(acted)},
            separators=(",", ":"),
        ),
        "branch": "",
        "pull-request": "",
        "handover": "",
    }


def sweep_summary(result: SweepResult, settings: Settings, calls: str | None) -> str:
    acted = [r for r in result.results if r.decision.outcome.value != "ignored"]
    lines = [
        "## Baton sweep",
        "",
        f"Issues in the workflow checked: {result.scanned}; acted on: {len(acted)}; "
        f"API calls: {calls or result.calls}, "
        f"of a budget of {settings.policy.sweep_budget} a sweep.",
    ]
    if result.next_page:
        lines.append(f"The budget ran out; the next sweep resumes at page {result.next_page}.")
    for item in acted:
        d = item.decision
        lines.append(f"- #{d.issue}: {d.outcome.value} — {markdown.escape(d.reason)}")
    return "\n".join(lines)


def ignored_summary(reason: str) -> str:
    return f"## Baton\n\nNothing to do — {markdown.escape(reason)} (0 API calls)."


def failure_summary(error: str) -> str:
    return f"## Baton\n\n❌ {markdown.escape(error)}"
