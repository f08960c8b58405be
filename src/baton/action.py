"""The Action's commands: `run`, `report`, `sweep` and `context`, from environment to exit status.

Each command ends in one place, `finish`: outputs to `$GITHUB_OUTPUT`, a job summary, a log
line with the reason (every no-op says why), and the exit status of the contract. PyGithub is
imported only once a run knows it must call GitHub, so ignoring an event costs no API call
and little time.
"""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from baton import markdown
from baton.action_io import ActionEnv
from baton.config import Settings, load_config
from baton.decision import Decision
from baton.errors import BatonError, InvalidEvent, TrackerError
from baton.events import Event, Ignored, Sweep, parse
from baton.tracker import cost_note
from baton.triage import quick_reason, view_of
from baton.workflow_commands import (
    annotation,
    append_summary,
    ignored_outputs,
    log_line,
    quiet_block,
    write_outputs,
)

if TYPE_CHECKING:
    from baton.run import RunResult
    from baton.sweep import SweepResult
    from baton.tracker import DispatchTarget, Tracker


@dataclass
class CommandResult:
    """What a command hands back to the workflow."""

    exit_code: int = 0
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    log: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


def now() -> datetime:
    return datetime.now(UTC)


def load_settings(env: ActionEnv) -> Settings:
    return load_config(Path(env.config), required=env.config_given, bot_login=env.bot_login)


def make_tracker(
    env: ActionEnv, settings: Settings, *, writes_per_minute: float | None = None
) -> Tracker:
    if env.token is None:
        raise TrackerError(
            "no GitHub token: set the `github-token` input (it defaults to ${{ github.token }})"
        )
    if not env.repository:
        raise TrackerError("GITHUB_REPOSITORY is not set")
    from baton.apply import label_specs
    from baton.github_tracker import GitHubTracker

    pause = 60.0 / writes_per_minute if writes_per_minute else 0.0
    return GitHubTracker(
        env.repository,
        env.token.get_secret_value(),
        api_url=env.api_url,
        seconds_between_writes=pause,
        timeout=env.http_timeout,
        labels=tuple(label_specs(settings.workflow, settings.policy)),
    )


def chain_target(env: ActionEnv) -> DispatchTarget | None:
    from baton.tracker import DispatchTarget

    if not env.workflow_ref:
        return None
    try:
        return DispatchTarget.from_workflow_ref(env.workflow_ref)
    except ValueError:
        return None


# --- what a decision looks like to the workflow ---------------------------------------------
def decision_outputs(decision: Decision) -> dict[str, str]:
    return {
        "issue": str(decision.issue),
        "state": decision.state or "",
        "previous-state": decision.previous_state or "",
        "agent": decision.agent or "",
        "transitioned": "true" if decision.transitioned else "false",
        "decision": decision.summary_json(),
    }


def decision_summary(result: RunResult, settings: Settings, calls: str | None) -> str:
    from baton.graph import to_mermaid

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
    if decision.state:
        lines += ["", "```mermaid", to_mermaid(settings.workflow, current=decision.state), "```"]
    return "\n".join(lines)


def _from_result(result: RunResult, settings: Settings, tracker: Tracker) -> CommandResult:
    decision = result.decision
    calls = cost_note(tracker)
    outcome = CommandResult(
        outputs=decision_outputs(decision),
        summary=decision_summary(result, settings, calls),
    )
    outcome.log.append(f"#{decision.issue}: {decision.outcome.value}: {decision.reason}")
    if decision.agent:
        outcome.log.append(f"next agent: {decision.agent}")
    if result.applied:
        outcome.log.extend(result.applied.steps)
    outcome.log.extend(result.notes)
    if calls is not None:
        outcome.log.append(f"GitHub API calls: {calls}")
    outcome.warnings.extend(transport_notes(tracker))
    return outcome


def transport_notes(tracker: Tracker) -> list[str]:
    """What the transport wants said (a fall-back from GraphQL to REST)."""
    notes = getattr(tracker, "notes", None)
    return [str(x) for x in notes] if isinstance(notes, list) else []


def _failure(exc: BatonError) -> CommandResult:
    return CommandResult(
        exit_code=1, error=str(exc), summary=f"## Baton\n\n❌ {markdown.escape(str(exc))}"
    )


def _number(payload: dict[str, Any]) -> int | None:
    issue = payload.get("issue")
    number = issue.get("number") if isinstance(issue, dict) else None
    return number if isinstance(number, int) else None


# --- commands -----------------------------------------------------------------------------
def run_event(env: ActionEnv) -> CommandResult:
    """`baton run`: act on the event GitHub handed this job."""
    try:
        settings = load_settings(env)
        if env.event_path is None or not env.event_name:
            raise InvalidEvent("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH must be set")
        try:
            payload = json.loads(env.event_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidEvent(f"cannot read the event payload {env.event_path}: {exc}") from exc
        if not isinstance(payload, dict):
            raise InvalidEvent("the event payload is not a JSON object")
        early = quick_reason(env.event_name, payload, view_of(settings.workflow, settings.policy))
        parsed = (
            Ignored(reason=early, issue=_number(payload))
            if early
            else parse(env.event_name, payload, settings.policy, now=now(), run_id=env.run_id)
        )
    except BatonError as exc:
        return _failure(exc)
    if isinstance(parsed, Ignored):
        reason = f"ignored: {parsed.reason}"
        return CommandResult(
            outputs=ignored_outputs(parsed.reason, parsed.issue),
            summary=f"## Baton\n\nNothing to do — {markdown.escape(parsed.reason)} (0 API calls).",
            log=[reason + " (0 API calls)"],
        )
    try:
        tracker = make_tracker(
            env, settings, writes_per_minute=60 if isinstance(parsed, Sweep) else None
        )
        if isinstance(parsed, Sweep):
            return _from_sweep(env, settings, tracker, parsed.at)
        return handle_event(env, settings, tracker, parsed, chain=None)
    except BatonError as exc:
        return _failure(exc)


def handle_event(
    env: ActionEnv,
    settings: Settings,
    tracker: Tracker,
    event: Event,
    *,
    chain: DispatchTarget | None,
) -> CommandResult:
    from baton.run import handle

    result = handle(
        event, tracker, settings, chain=chain, dry_run=env.dry_run, secret=env.secret_value()
    )
    return _from_result(result, settings, tracker)


def _from_sweep(
    env: ActionEnv, settings: Settings, tracker: Tracker, at: datetime
) -> CommandResult:
    from baton.sweep import sweep

    result: SweepResult = sweep(
        tracker,
        settings,
        now=at,
        chain=chain_target(env),
        dry_run=env.dry_run,
        secret=env.secret_value(),
    )
    acted = [r for r in result.results if r.decision.outcome.value != "ignored"]
    lines = [
        "## Baton sweep",
        "",
        f"Issues in the workflow checked: {result.scanned}; acted on: {len(acted)}; "
        f"API calls: {cost_note(tracker) or result.calls}, "
        f"of a budget of {settings.policy.sweep_budget} a sweep.",
    ]
    if result.next_page:
        lines.append(f"The budget ran out; the next sweep resumes at page {result.next_page}.")
    for item in acted:
        d = item.decision
        lines.append(f"- #{d.issue}: {d.outcome.value} — {markdown.escape(d.reason)}")
    log = [f"sweep: {result.scanned} issue(s) checked, {len(acted)} acted on"]
    log += [f"#{r.decision.issue}: {r.decision.outcome.value}: {r.decision.reason}" for r in acted]
    outputs = {
        "issue": "",
        "state": "",
        "previous-state": "",
        "agent": "",
        "transitioned": "true" if any(r.decision.transitioned for r in acted) else "false",
        "decision": json.dumps(
            {"outcome": "sweep", "checked": result.scanned, "acted": len(acted)},
            separators=(",", ":"),
        ),
    }
    return CommandResult(
        outputs=outputs, summary="\n".join(lines), log=log, warnings=transport_notes(tracker)
    )


def sweep_command(env: ActionEnv) -> CommandResult:
    try:
        settings = load_settings(env)
        tracker = make_tracker(env, settings, writes_per_minute=60)
        return _from_sweep(env, settings, tracker, now())
    except BatonError as exc:
        return _failure(exc)


def report_command(
    env: ActionEnv, *, issue: int, result_path: Path, state: str | None, agent: str | None
) -> CommandResult:
    """`baton report`: apply an agent's result and chain the next agent's run."""
    from baton.agent_result import read_agent_result
    from baton.events import report

    try:
        settings = load_settings(env)
        result = read_agent_result(result_path)  # invalid: a clear error, nothing written
        if result.next_state and result.next_state not in settings.workflow.states:
            known = ", ".join(settings.workflow.states)
            raise BatonError(
                f"the agent proposed next_state {result.next_state!r}, which is not a state "
                f"of workflow {settings.workflow.name} ({known})"
            )
        tracker = make_tracker(env, settings)
        event = report(
            issue,
            agent=agent,
            result=result,
            error=None,
            now=now(),
            run_id=env.run_id,
            state=state,
        )
        chain = chain_target(env)
        outcome = handle_event(env, settings, tracker, event, chain=chain)
        if chain is None and outcome.outputs.get("agent"):
            outcome.log.append("GITHUB_WORKFLOW_REF is not set: the next agent was not dispatched")
        return outcome
    except BatonError as exc:
        return _failure(exc)


def context_command(env: ActionEnv, *, issue: int, fmt: str) -> tuple[CommandResult, str]:
    from baton import briefing
    from baton.record_load import load

    try:
        settings = load_settings(env)
        tracker = make_tracker(env, settings)
        snapshot = tracker.read(issue, with_issue=True)
        info, comments = snapshot.issue, snapshot.comments
        if info is None:
            raise BatonError(f"issue #{issue} could not be read")
        loaded = load(
            issue,
            info.labels,
            comments,
            settings.workflow,
            settings.policy,
            now=now(),
            secret=env.secret_value(),
        )
        if loaded.record is None:
            raise BatonError(f"issue #{issue} is not in the workflow")
        brief = briefing.build(env.repository, info, loaded.record, comments, settings)
    except BatonError as exc:
        return _failure(exc), ""
    text = briefing.to_json(brief) if fmt == "json" else briefing.to_markdown(brief)
    outcome = CommandResult(log=[f"context for #{issue} in {brief.state} ({brief.agent})"])
    return outcome, text


def context_for_stdout(text: str, stdout: IO[str], environ: Mapping[str, str]) -> str:
    """The briefing as `baton context` prints it: verbatim into a file (`> prompt.md`,
    `>> $GITHUB_STEP_SUMMARY`) or outside Actions; in a workflow step whose standard output
    may be the runner's log, inside a `quiet_block`, so no line of the issue runs as a
    workflow command (`::stop-commands::`, `::error::`, `##[...]`). Use `--output` to hand the
    text to another program verbatim."""
    if environ.get("GITHUB_ACTIONS") != "true" or _is_file(stdout):
        return text
    return quiet_block(text)


def _is_file(stream: IO[str]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def finish(env: ActionEnv, outcome: CommandResult, echo: Any) -> int:
    """The one exit path: outputs, job summary, log and annotation."""
    try:
        if outcome.outputs:
            write_outputs(env.output, outcome.outputs)
        if outcome.summary:
            append_summary(env.summary, outcome.summary)
    except OSError as exc:
        echo(annotation("warning", f"could not write outputs or summary: {exc}"))
    for line in outcome.log:
        echo(log_line(line))
    for warning in outcome.warnings:
        echo(annotation("warning", warning))
    if outcome.error:
        echo(annotation("error", outcome.error))
    return outcome.exit_code
