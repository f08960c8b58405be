"""The Action's commands: `run`, `report`, `sweep` and `context`, from environment to exit status,
and what `baton agent` prepares before it hands the agent over (`agent_handoff`).

Each command ends in one place, `wrap_up`: outputs to `$GITHUB_OUTPUT`, a job summary, a log
line with the reason (every no-op says why), and the exit status of the contract. PyGithub is
imported only once a run knows it must call GitHub, so ignoring an event costs no API call
and little time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baton.action.env import ActionEnv
from baton.action.inputs import DEFAULT_AGENT_TIMEOUT
from baton.action.outputs import (
    annotation,
    append_summary,
    ignored_outputs,
    log_line,
    write_outputs,
)
from baton.action.summary import (
    decision_outputs,
    decision_summary,
    failure_summary,
    ignored_summary,
    sweep_outputs,
    sweep_summary,
)
from baton.core.model.changeset import CHANGESET_FILE
from baton.core.model.events import Event, Ignored, Sweep
from baton.core.rules.triage import quick_reason, view_of
from baton.errors import (
    AgentSetupError,
    BatonError,
    InvalidEvent,
    InvalidWorkflowRef,
    TrackerError,
)
from baton.github.tracker import cost_note
from baton.names import CONFIG_PATH
from baton.webhooks import parse
from baton.workflow.config import Settings, load_config

if TYPE_CHECKING:
    from baton.action.agent_choice import Proof
    from baton.agents.handoff import Handoff
    from baton.core.model.changeset import Changeset
    from baton.github.tracker import ActionTracker, DispatchTarget, Transported
    from baton.run import RunResult
    from baton.sweep import SweepResult


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
) -> ActionTracker:
    if env.token is None:
        raise TrackerError(
            "no GitHub token: set the `github-token` input (it defaults to ${{ github.token }})"
        )
    if not env.repository:
        raise TrackerError("GITHUB_REPOSITORY is not set")
    from baton.github.client import GitHubTracker
    from baton.issue.apply import tracker_labels

    pause = 60.0 / writes_per_minute if writes_per_minute else 0.0
    return GitHubTracker(
        env.repository,
        env.token.get_secret_value(),
        api_url=env.api_url,
        seconds_between_writes=pause,
        timeout=env.http_timeout,
        # Every workflow's status labels (looked up, not created again) and the tasks' label.
        labels=tracker_labels(settings),
        bot_login=settings.policy.bot_login,
    )


def chain_target(env: ActionEnv) -> DispatchTarget | None:
    from baton.github.tracker import DispatchTarget

    if not env.workflow_ref:
        return None
    try:
        return DispatchTarget.from_workflow_ref(env.workflow_ref)
    except InvalidWorkflowRef:
        return None


def _from_result(result: RunResult, settings: Settings, tracker: ActionTracker) -> CommandResult:
    decision = result.decision
    calls = cost_note(tracker)
    outputs = decision_outputs(decision, result.record)
    if decision.agent:
        # What the agent's run is handed (`RunResult.handover`): its attempt and the record.
        outputs["handover"] = result.handover
    outcome = CommandResult(outputs=outputs, summary=decision_summary(result, settings, calls))
    outcome.log.append(f"#{decision.issue}: {decision.outcome.value}: {decision.reason}")
    if decision.agent:
        outcome.log.append(f"next agent: {decision.agent}")
    if result.applied:
        outcome.log.extend(result.applied.steps)
    outcome.log.extend(result.notes)
    if calls is not None:
        outcome.log.append(f"GitHub API calls: {calls}")
    if result.applied and result.applied.check_problem:
        outcome.warnings.append(result.applied.check_problem)
    outcome.warnings.extend(transport_notes(tracker))
    return outcome


def transport_notes(tracker: Transported) -> list[str]:
    """What the transport wants said (a fall-back from GraphQL to REST)."""
    return list(tracker.notes)


def _failure(exc: BatonError) -> CommandResult:
    return CommandResult(exit_code=1, error=str(exc), summary=failure_summary(str(exc)))


def _number(payload: dict[str, Any]) -> int | None:
    issue = payload.get("issue")
    number = issue.get("number") if isinstance(issue, dict) else None
    return number if isinstance(number, int) else None


# --- commands -----------------------------------------------------------------------------
def run_event(env: ActionEnv, *, triaged: bool = False) -> CommandResult:
    """`baton run`: act on the event GitHub handed this job. Its payload is triaged once: here,
    unless the fast path did (`triaged`); `run.handle` is told, and does not again."""
    try:
        settings = load_settings(env)
        if env.event_path is None or not env.event_name:
            raise InvalidEvent("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH must be set")
        try:
            payload = json.loads(env.event_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
            raise InvalidEvent(f"cannot read the event payload {env.event_path}: {exc}") from exc
        if not isinstance(payload, dict):
            raise InvalidEvent("the event payload is not a JSON object")
        view = None if triaged else view_of(settings.workflow, settings.policy, settings.workflows)
        early = quick_reason(env.event_name, payload, view) if view is not None else None
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
            summary=ignored_summary(parsed.reason),
            log=[reason + " (0 API calls)"],
        )
    try:
        tracker = make_tracker(
            env, settings, writes_per_minute=60 if isinstance(parsed, Sweep) else None
        )
        if isinstance(parsed, Sweep):
            return _from_sweep(env, settings, tracker, parsed.at)
        # The agent this run names runs as its follow-up job; other issues it concerns (an
        # epic's tasks, a task's epic) get their own runs by dispatch.
        return handle_event(
            env, settings, tracker, parsed, chain=None, notify=chain_target(env), triaged=True
        )
    except BatonError as exc:
        return _failure(exc)


def handle_event(
    env: ActionEnv,
    settings: Settings,
    tracker: ActionTracker,
    event: Event,
    *,
    chain: DispatchTarget | None,
    changeset: Changeset | None = None,
    notify: DispatchTarget | None = None,
    triaged: bool = False,
) -> CommandResult:
    from baton.run import handle

    result = handle(
        event,
        tracker,
        settings,
        chain=chain,
        notify=notify,
        dry_run=env.dry_run,
        secret=env.secret_value(),
        changeset=changeset,
        triaged=triaged,
    )
    return _from_result(result, settings, tracker)


def _from_sweep(
    env: ActionEnv, settings: Settings, tracker: ActionTracker, at: datetime
) -> CommandResult:
    from baton.sweep import refresh_dashboard, sweep

    result: SweepResult = sweep(
        tracker,
        settings,
        now=at,
        chain=chain_target(env),
        dry_run=env.dry_run,
        secret=env.secret_value(),
    )
    acted = [r for r in result.results if r.decision.outcome.value != "ignored"]
    log = [f"sweep: {result.scanned} issue(s) checked, {len(acted)} acted on"]
    log += [f"#{r.decision.issue}: {r.decision.outcome.value}: {r.decision.reason}" for r in acted]
    board = refresh_dashboard(
        tracker, settings, now=at, secret=env.secret_value(), dry_run=env.dry_run
    )
    summary = sweep_summary(result, settings, cost_note(tracker))
    if board is not None:  # the config's `dashboard.pinned`: the page, in the summary too
        log += board.published.log or [board.published.problem or ""]
        summary = f"{summary}\n\n{board.page}" if board.page else summary
    return CommandResult(
        outputs=sweep_outputs(result),
        summary=summary,
        log=log,
        warnings=transport_notes(tracker),
    )


def sweep_command(env: ActionEnv) -> CommandResult:
    try:
        settings = load_settings(env)
        tracker = make_tracker(env, settings, writes_per_minute=60)
        return _from_sweep(env, settings, tracker, now())
    except BatonError as exc:
        return _failure(exc)


def report_command(
    env: ActionEnv,
    *,
    issue: int,
    result_path: Path,
    state: str | None,
    agent: str | None,
    changeset_path: Path | None = None,
    evidence_path: Path | None = None,
    handover: str = "",
) -> CommandResult:
    """`baton report`: apply an agent's result, commit its changeset, chain the next run.
    `handover`: the attempt the agent's run was dispatched for (`<nonce>[.<digest>]`), from
    the dispatch or the baton job, never from the agent's job: a report for another is stale.
    `evidence_path`: what `baton verify` saw, carried to the rules (unreadable: the reason)."""
    from baton.action.handback import changeset_beside, evidence_beside, result_beside
    from baton.core.model.events import report
    from baton.core.model.work import ChangesetFacts

    try:
        settings = load_settings(env)
        result, error = result_beside(result_path)
        changeset, unreadable = changeset_beside(changeset_path)
        # Evidence that cannot be read is the rules' to judge, with the reason (in a proof
        # state a failed attempt; elsewhere nothing): never the run's error.
        evidence, evidence_problem = evidence_beside(evidence_path)
        tracker = make_tracker(env, settings)
        event = report(
            issue,
            agent=agent,
            result=result,
            error=error,
            now=now(),
            run_id=env.run_id,
            state=state,
            nonce=handover.partition(".")[0].strip(),
            evidence=evidence,
            evidence_problem=evidence_problem,
        )
        if unreadable is not None:
            refused = ChangesetFacts(status="refused", problems=[unreadable])
            event = event.model_copy(update={"changeset": refused})
        chain = chain_target(env)
        outcome = handle_event(env, settings, tracker, event, chain=chain, changeset=changeset)
        if error is not None:
            outcome.warnings.append(f"the agent's result was refused: {error}")
        if evidence_problem is not None:
            outcome.warnings.append(f"the evidence was not read: {evidence_problem}")
        if chain is None and outcome.outputs.get("agent"):
            outcome.log.append("GITHUB_WORKFLOW_REF is not set: the next agent was not dispatched")
        return outcome
    except BatonError as exc:
        return _failure(exc)


def context_command(
    env: ActionEnv, *, issue: int, fmt: str, state: str | None = None, handover: str = ""
) -> tuple[CommandResult, str]:
    """`baton context`: the briefing (action/handover.py), with `state` and `handover`
    checked first."""
    from baton.action.handover import read_briefing

    try:
        settings = load_settings(env)
        tracker = make_tracker(env, settings)
        got = read_briefing(
            env,
            settings,
            tracker,
            issue=issue,
            fmt=fmt,
            state=state,
            now=now(),
            handover=handover,
        )
    except BatonError as exc:
        return _failure(exc), ""
    return CommandResult(outputs=got.outputs, log=got.log, warnings=got.warnings), got.text


def agent_command_line(env: ActionEnv, given: str | None) -> str:
    """The agent's command line: `--command`, else the `agent-command` input. A blank one is
    "not given": the example passes an unset repository variable as ""."""
    command = given if given and given.strip() else env.agent_command
    if not command:
        raise AgentSetupError(
            "no agent command: set the action's `agent-command` input (or the "
            "BATON_AGENT_COMMAND variable), or pass --command, to the coding agent's "
            "command line"
        )
    return command


def agent_handoff(
    env: ActionEnv,
    *,
    command: str,
    issue: int | None,
    prompt_path: str | None,
    result_file: Path,
    changeset_path: str | None,
    timeout: float | None,
    proof: Proof | None = None,
) -> Handoff | CommandResult:
    """What `baton agent` hands across the exec to its contained self: the briefing (a file,
    else fetched with the token), the command, its time and the changeset's limits, and the
    proof the state asks for. The briefing's fetch failing is its CommandResult; anything else
    missing is AgentSetupError. The `tests` profile (green) needs no command and no briefing."""
    from baton.action.agent_choice import default_branch
    from baton.agents import file_commands
    from baton.agents.environment import credential
    from baton.agents.handoff import Handoff
    from baton.agents.runner import CommandAgent
    from baton.agents.secrets import held

    if timeout is None:
        timeout = float(env.agent_timeout or DEFAULT_AGENT_TIMEOUT)
    green = proof is not None and proof.kind == "green"
    if not green and not CommandAgent(command).is_available():
        raise AgentSetupError(f"the agent command {command.split()[0]!r} was not found on PATH")
    config = env.config if env.config_given else None
    path = Path(config) if config else Path(CONFIG_PATH)
    try:
        limits = load_config(path, required=config is not None).config.work
    except BatonError as exc:
        raise AgentSetupError(str(exc)) from exc
    if green:
        prompt = ""
    elif prompt_path is not None:
        try:
            prompt = Path(prompt_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise AgentSetupError(f"cannot read the briefing {prompt_path}: {exc}") from exc
    else:
        assert issue is not None
        outcome, prompt = context_command(env, issue=issue, fmt="markdown")
        if outcome.exit_code:
            return outcome
    changeset_file = (
        Path(changeset_path) if changeset_path else result_file.with_name(CHANGESET_FILE)
    )
    return Handoff(
        prompt=prompt,
        command=command,
        timeout=timeout,
        limits=limits,
        result_file=str(result_file),  # the exec keeps the working directory
        changeset_file=str(changeset_file),
        secrets=held(os.environ, withheld=credential),
        file_commands=file_commands.paths_of(os.environ),
        proof=proof.kind if proof else None,
        suite=proof.suite if proof else None,
        default_branch=default_branch(env) if green else None,
    )


def wrap_up(env: ActionEnv, outcome: CommandResult, echo: Any) -> int:
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
