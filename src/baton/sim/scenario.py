"""Replay a scripted issue against the in-memory GitHub: `baton simulate` and `baton demo`.

A scenario is a YAML list of what humans, agents and the clock do. Each step becomes the
webhook payload GitHub would send (or the agent report `baton report` would read) and goes
through the same `webhooks.parse` → `run.handle` path as a real run, so a maintainer can test a
workflow file before deploying it. `expect` steps turn a scenario into a check.

The format is documented in docs/scenarios.md; a test keeps every step kind and key named there.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from baton import webhooks
from baton.core import events
from baton.core.agent_result import AgentResult
from baton.core.decision import Decision
from baton.core.record import Record
from baton.errors import InvalidScenario, TrackerError
from baton.github.tracker import DispatchTarget
from baton.issue.load import read_record
from baton.run import RunResult, handle
from baton.sim import payloads
from baton.sim.memory_github import MemoryGitHub
from baton.sweep import sweep
from baton.workflow.config import Settings
from baton.workflow.durations import Duration
from baton.workflow.graph import path_mermaid
from baton.workflow.model import AgentStatus

Role = Literal["none", "read", "triage", "write", "maintain", "admin"]
CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")


class IssueSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = "An issue"
    body: str = ""
    author: str = "alice"
    labels: list[str] = Field(default_factory=list)


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str | None = None
    status: AgentStatus = AgentStatus.success
    confidence: float = Field(default=0.9, ge=0, le=1)
    summary: str = ""
    issues_found: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    next_state: str | None = None


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: str | None = None
    agent: str | None = Field(default=None, description="The agent named by the last step.")
    labels: list[str] | None = None
    transitioned: bool | None = None


ACTIONS = (
    "open",
    "label",
    "unlabel",
    "comment",
    "report",
    "wait",
    "sweep",
    "close",
    "reopen",
    "dispatch",
    "expect",
)


class Step(BaseModel):
    """Exactly one action per step; `by` says who does it (a human login)."""

    model_config = ConfigDict(extra="forbid")

    open: bool | None = None
    label: str | None = None
    unlabel: str | None = None
    comment: str | None = None
    report: Report | None = None
    wait: Duration | None = None
    sweep: bool | None = None
    close: bool | None = None
    reopen: bool | None = None
    dispatch: bool | None = None
    expect: Expect | None = None
    by: str | None = None
    association: str = "NONE"
    note: str = ""

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        given = [name for name in ACTIONS if getattr(self, name) not in (None, False)]
        if len(given) != 1:
            raise ValueError(
                f"a step needs exactly one of {', '.join(ACTIONS)}; got {given or 'none'}"
            )
        return self

    @property
    def action(self) -> str:
        return next(name for name in ACTIONS if getattr(self, name) not in (None, False))


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "scenario"
    start: datetime = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    issue: IssueSpec = Field(default_factory=IssueSpec)
    people: dict[str, Role] = Field(
        default_factory=dict, description="login: repository permission"
    )
    step_minutes: int = Field(default=5, ge=0, description="Clock advance between steps.")
    steps: list[Step]


def one_line(text: str, limit: int = 300) -> str:
    """An error as one short line: a scenario's values can be huge or span lines."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_scenario(text: str, source: str) -> Scenario:
    """The scenario in `text`; InvalidScenario (one line) for anything that is not one."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidScenario(one_line(f"{source}: not valid YAML: {exc}")) from exc
    except RecursionError as exc:  # PyYAML recurses once per level of nesting
        raise InvalidScenario(f"{source}: nested too deeply to be a scenario") from exc
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(one_line(str(p), 40) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        ]
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InvalidScenario(one_line(f"{source}: {'; '.join(problems[:3])}{more}")) from exc
    except (OverflowError, ValueError) as exc:  # a duration beyond what a datetime holds
        raise InvalidScenario(one_line(f"{source}: {exc}")) from exc


def load_scenario(path: Path) -> Scenario:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidScenario(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidScenario(f"{path} is not UTF-8 (byte {exc.start})") from exc
    return parse_scenario(text, str(path))


def demo_scenario() -> Scenario:
    text = (resources.files("baton.sim") / "demo.yml").read_text(encoding="utf-8")
    return parse_scenario(text, "demo.yml")


class Player:
    """Plays a scenario step by step and reports each decision through `say`."""

    def __init__(self, scenario: Scenario, settings: Settings, say: Callable[[str], None]):
        self.scenario = scenario
        self.settings = settings
        self.say = say
        self.gh = MemoryGitHub(bot_login=settings.policy.bot_login, now=scenario.start)
        for login, permission in scenario.people.items():
            self.gh.set_permission(login, permission)
        self.number = 0
        self.last: Decision | None = None
        self.failures: list[str] = []
        self.run_counter = 0

    # --- helpers -----------------------------------------------------------------------
    def record(self) -> Record | None:
        """The record as the next run would read it."""
        return read_record(self.gh.comments_of(self.number), self.gh.bot_login)

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        self.run_counter += 1
        parsed = webhooks.parse(
            name, payload, self.settings.policy, now=self.gh.now, run_id=str(self.run_counter)
        )
        if isinstance(parsed, events.Ignored):
            self.say(f"   ignored (no API call): {parsed.reason}")
            self.last = None
            return
        if isinstance(parsed, events.Sweep):
            self._sweep()
            return
        self._show(handle(parsed, self.gh, self.settings))

    def _sweep(self) -> None:
        result = sweep(self.gh, self.settings, now=self.gh.now, chain=CHAIN)
        if not result.results:
            self.last = None
            self.say(f"   sweep: nothing is due ({result.listed} open issue(s) listed)")
        for item in result.results:
            self._show(item)

    def _show(self, result: RunResult) -> None:
        decision = result.decision
        self.last = decision
        moved = (
            f"{decision.previous_state or '(not in workflow)'} → {decision.state}"
            if decision.transitioned
            else (decision.state or "(not in workflow)")
        )
        self.say(f"   {decision.outcome.value}: {moved}")
        self.say(f"   why: {decision.reason}")
        if decision.labels is not None or decision.transitioned:
            status = [x for x in self.gh.labels_of(self.number)]
            self.say(f"   labels: {', '.join(status) or '(none)'}")
        if decision.message:
            first = [line for line in decision.message.splitlines() if line.strip()][:6]
            self.say("   bot comments:")
            for line in first:
                if not line.startswith("<sub>"):
                    self.say(f"     | {line}")
        if decision.agent:
            how = "workflow run dispatched" if result.dispatched else "follow-up job"
            self.say(f"   next agent: {decision.agent} ({how})")

    # --- steps -----------------------------------------------------------------------------
    def play(self) -> int:
        """Play every step; 1 if an expectation failed. InvalidScenario (one line) when a
        step cannot happen at all: the issue cannot be opened, or the clock runs off the
        calendar."""
        issue = self.scenario.issue
        for index, step in enumerate(self.scenario.steps, 1):
            if step.action not in {"open", "expect"} and self.number == 0:
                self.number = self._open(issue.author)
            note = f" — {one_line(step.note, 200)}" if step.note else ""
            self.say(f"\n{index:>2}. {self._describe(step)}{note}")
            try:
                getattr(self, f"_do_{step.action}")(step)
                if step.action not in {"wait", "expect"}:
                    self.gh.now += timedelta(minutes=self.scenario.step_minutes)
            except OverflowError as exc:
                raise InvalidScenario(f"step {index}: the clock ran past year 9999") from exc
        return 1 if self.failures else 0

    def _open(self, author: str) -> int:
        issue = self.scenario.issue
        try:
            return self.gh.open_issue(
                issue.title, issue.body, author=author, labels=tuple(issue.labels)
            )
        except TrackerError as exc:
            raise InvalidScenario(
                one_line(f"GitHub would not open the scenario's issue: {exc}")
            ) from exc

    def _human(self, action: Callable[[], object]) -> bool:
        """A person's action on GitHub; False (and said) when GitHub would refuse it, as it
        refuses an empty label or one too long: then no event follows."""
        try:
            action()
        except TrackerError as exc:
            self.say(f"   GitHub refused it, so no event: {one_line(str(exc))}")
            self.last = None
            return False
        return True

    def _describe(self, step: Step) -> str:
        who = step.by or self.scenario.issue.author
        if step.report is not None:
            r = step.report
            agent = r.agent or (self._due_agent() or "agent")
            extra = [f"{len(r.questions)} question(s)"] if r.questions else []
            extra += [f"{len(r.issues_found)} issue(s) found"] if r.issues_found else []
            extra += [f"proposes {r.next_state}"] if r.next_state else []
            tail = f", {', '.join(extra)}" if extra else ""
            return f"{agent} reports {r.status.value}, confidence {r.confidence:.2f}{tail}"
        if step.comment is not None:
            text = " ".join(step.comment.split())
            return f"{who} comments: {text[:70]!r}"
        if step.label is not None:
            return f"{who} adds label {step.label}"
        if step.unlabel is not None:
            return f"{who} removes label {step.unlabel}"
        if step.wait is not None:
            return f"time passes: {step.wait}"
        return {
            "open": f"{who} opens the issue",
            "sweep": "the scheduled sweep runs",
            "close": f"{who} closes the issue",
            "reopen": f"{who} reopens the issue",
            "dispatch": "a workflow_dispatch run starts",
            "expect": "check",
        }[step.action]

    def _due_agent(self) -> str | None:
        record = self.record()
        return self.settings.workflow.agent_of(record.state) if record else None

    def _do_open(self, step: Step) -> None:
        opener = step.by or self.scenario.issue.author
        self.number = self._open(opener)
        self._event("issues", payloads.opened(self.gh, self.number, sender=opener))

    def _do_label(self, step: Step) -> None:
        assert step.label is not None
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_label(self.number, step.label or "", by=who)):
            self._event("issues", payloads.labeled(self.gh, self.number, step.label, sender=who))

    def _do_unlabel(self, step: Step) -> None:
        assert step.unlabel is not None
        who = step.by or self.scenario.issue.author
        label = step.unlabel
        if self._human(lambda: self.gh.human_label(self.number, label, add=False, by=who)):
            self._event(
                "issues", payloads.unlabeled(self.gh, self.number, step.unlabel, sender=who)
            )

    def _do_comment(self, step: Step) -> None:
        assert step.comment is not None
        who = step.by or self.scenario.issue.author
        body = step.comment
        posted: list[int] = []

        def post() -> None:
            comment = self.gh.human_comment(
                self.number, body, author=who, association=step.association
            )
            posted.append(comment.id)

        if self._human(post):
            self._event("issue_comment", payloads.comment_created(self.gh, posted[0]))

    def _do_report(self, step: Step) -> None:
        assert step.report is not None
        spec = step.report
        result: AgentResult | None = None
        error = None
        try:
            result = AgentResult(**spec.model_dump(exclude={"agent"}))  # the result JSON's fields
        except ValidationError as exc:
            # As `baton report` hands on a result that fails validation: an invalid result.
            error = one_line(f"the agent result does not validate: {exc.errors()[0]['msg']}")
            self.say(f"   {error}")
        self.run_counter += 1
        event = events.report(
            self.number,
            agent=spec.agent,
            result=result,
            error=error,
            now=self.gh.now,
            run_id=f"sim-{self.run_counter}",
        )
        self._show(handle(event, self.gh, self.settings, chain=CHAIN))

    def _do_wait(self, step: Step) -> None:
        assert step.wait is not None
        self.gh.now += step.wait
        self.say(f"   clock: {self.gh.now:%Y-%m-%d %H:%M} UTC")

    def _do_sweep(self, step: Step) -> None:
        self._event("schedule", payloads.schedule("17 * * * *"))

    def _do_close(self, step: Step) -> None:
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_close(self.number, by=who)):
            self._event("issues", payloads.closed(self.gh, self.number, sender=who))

    def _do_reopen(self, step: Step) -> None:
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_reopen(self.number, by=who)):
            self._event("issues", payloads.reopened(self.gh, self.number, sender=who))

    def _do_dispatch(self, step: Step) -> None:
        sender = step.by or self.gh.bot_login
        payload = payloads.workflow_dispatch(self.gh, {"issue": self.number}, sender=sender)
        self._event("workflow_dispatch", payload)

    def _do_expect(self, step: Step) -> None:
        assert step.expect is not None
        want = step.expect
        record = self.record()
        state = record.state if record else None
        problems = []
        if want.state is not None and state != want.state:
            problems.append(f"state is {state}, expected {want.state}")
        if want.labels is not None:
            labels = sorted(self.gh.labels_of(self.number))
            if labels != sorted(want.labels):
                problems.append(f"labels are {labels}, expected {sorted(want.labels)}")
        agent = self.last.agent if self.last else None
        if want.agent is not None and agent != want.agent:
            problems.append(f"agent is {agent}, expected {want.agent}")
        transitioned = bool(self.last and self.last.transitioned)
        if want.transitioned is not None and transitioned != want.transitioned:
            problems.append(f"transitioned is {transitioned}, expected {want.transitioned}")
        for problem in problems:
            self.say(f"   ✗ {problem}")
        if not problems:
            self.say("   ✓ as expected")
        self.failures.extend(problems)

    def tally(self) -> str:
        """What the run cost, counted as GitHub counts it: a batched read or write is one
        request (one round trip), however many operations it holds."""
        return (
            f"{self.gh.requests} GitHub API requests, "
            f"{len(self.gh.dispatches)} workflow runs dispatched"
        )

    def path(self) -> str:
        record = self.record()
        history = record.history if record else []
        return path_mermaid(history, self.settings.workflow)
