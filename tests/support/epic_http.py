"""Epics played over real HTTP: the real CLI (`baton run` for webhooks and Baton's own
dispatches, `baton report` for the agents' results) against the fake GitHub, with the agents
scripted as functions of (issue, agent, record), like `baton.sim.actions` plays them in memory.

After every run the fake's labels are checked against the epic invariants: never more than
`max_parallel` tasks busy, no task started before its blockers completed. A play may carry its
changeset and the evidence beside it (a task's tests first: `baton-evidence.json`)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from action_harness import ActionRunner, Step
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.evidence import EVIDENCE_FILE, Evidence
from baton.core.model.record import Record
from baton.issue import record_comment
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.http import comments_of

BUSY = (
    "status:in-progress",
    "status:pending-review",
    "status:retry-queued",
    # epic-task-test-first's states that count as in progress
    "status:writing-tests",
    "status:tests-review",
    "status:proving",
)
TASK_LABEL = "baton:task"


@dataclass(frozen=True)
class Play:
    """What one agent run reports: its result fields and the files it changed (or the
    changeset itself, bound to a base the agent chose), and the evidence beside them."""

    result: dict[str, Any]
    changes: dict[str, str | None] = field(default_factory=dict)
    changeset: Changeset | None = None
    evidence: Evidence | None = None


Agent = Callable[[int, str, "Record | None"], "Play | None"]


def ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    return step


def latest_record(fake: FakeGitHub, number: int) -> Record | None:
    found = record_comment.find_records(comments_of(fake, number), fake.bot_login)
    return record_comment.parse(found[-1].body) if found else None


def status_of(fake: FakeGitHub, number: int) -> str | None:
    found = [x for x in fake.labels_of(number) if x.startswith("status:")]
    return found[0] if found else None


@dataclass
class EpicPlayer:
    fake: FakeGitHub
    action: ActionRunner
    agent: Agent
    max_parallel: int = 2
    epics: list[int] = field(default_factory=list)
    played: int = 0  # dispatches already run
    steps: list[tuple[str, Step]] = field(default_factory=list)
    agent_runs: list[tuple[int, str]] = field(default_factory=list)
    busy_seen: int = 0
    started: dict[int, int] = field(default_factory=dict)  # task -> times seen entering busy
    completed: set[int] = field(default_factory=set)
    last_status: dict[int, str | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    sweeps: int = 0

    # --- runs ----------------------------------------------------------------------------------
    def event(self, name: str, payload: dict[str, Any]) -> Step:
        """A webhook or dispatched run; the agent job it names plays after it."""
        step = ok(self.action.run(name, payload))
        self.steps.append((f"run {name}", step))
        self.check()
        if step.outputs.get("agent"):
            handed = {"INPUT_HANDOVER": step.outputs.get("handover", "")}
            self.play(int(step.outputs["issue"]), step.outputs["agent"], **handed)
        return step

    def handed_over(self, name: str, payload: dict[str, Any]) -> Step:
        """A run Baton's dispatch started with the state and the hand-over: no baton job. The
        agent job checks it and plays the agent, its report naming that hand-over; a refused
        one is decided by the report job instead (the workflow's REFUSED)."""
        inputs = payload["inputs"]
        number, prompt = int(inputs["issue"]), str(self.action.workdir / "prompt.md")
        args = ["context", "--issue", str(number), "--state", inputs["state"], "--output", prompt]
        brief = ok(self.action.invoke([*args, "--handover", inputs["handover"]], name, payload))
        self.steps.append((f"brief #{number}", brief))
        if brief.outputs.get("accepted") == "true":
            handed = {"INPUT_HANDOVER": inputs["handover"], "INPUT_STATE": inputs["state"]}
            self.play(number, brief.outputs["agent"], **handed)
        elif brief.outputs.get("accepted") == "false":
            self.event(name, payload)
        return brief

    def play(self, number: int, agent: str, **extra: str) -> Step | None:
        record = latest_record(self.fake, number)
        play = self.agent(number, agent, record)
        self.agent_runs.append((number, agent))
        if play is None:
            return None
        return self.report(number, play, **extra)

    def report(self, number: int, play: Play, **extra: str) -> Step:
        step = self.raw_report(number, play, **extra)
        ok(step)
        return step

    def raw_report(self, number: int, play: Play, **extra: str) -> Step:
        workdir = self.action.workdir
        result = workdir / "result.json"
        changes = workdir / "changes.json"
        evidence = result.with_name(EVIDENCE_FILE)  # read beside the result
        evidence.unlink(missing_ok=True)
        if play.evidence is not None:
            evidence.write_text(play.evidence.model_dump_json(), encoding="utf-8")
        result.write_text(
            json.dumps({"status": "success", "confidence": 0.9, **play.result}), encoding="utf-8"
        )
        args = ["report", "--issue", str(number), "--result", str(result)]
        if play.changeset is not None:
            changes.write_text(play.changeset.model_dump_json(), encoding="utf-8")
            args += ["--changeset", str(changes)]
        elif play.changes:
            record = latest_record(self.fake, number)
            branch = record.work.branch if record and record.work else f"baton/issue-{number}"
            base = self.fake.branch_head(branch) or self.fake.branch_head("main") or ""
            files = [
                FileChange(
                    path=p, contents=None if t is None else base64.b64encode(t.encode()).decode()
                )
                for p, t in play.changes.items()
            ]
            changes.write_text(
                Changeset(base=base, files=files).model_dump_json(), encoding="utf-8"
            )
            args += ["--changeset", str(changes)]
        else:
            args += ["--changeset", str(workdir / "no-changeset.json")]
        step = self.action.invoke(args, "workflow_dispatch", {}, **extra)
        self.steps.append((f"report #{number}", step))
        self.check()
        return step

    def sweep(self) -> Step:
        """The scheduled sweep: it dispatches the runs of the issues that wait on one."""
        self.sweeps += 1
        step = ok(self.action.run("schedule", payloads.schedule("*/15 * * * *")))
        self.steps.append(("sweep", step))
        self.check()
        return step

    def settle(self, limit: int = 200) -> int:
        """Drain the dispatches; when none is left, sweep, until a sweep dispatches nothing."""
        ran = 0
        while ran < limit:
            ran += self.drain(limit - ran)
            before = len(self.fake.dispatches)
            self.sweep()
            if len(self.fake.dispatches) == before:
                return ran
        return ran

    def drain(self, limit: int = 200) -> int:
        """Run Baton's dispatches, oldest first, until none is left; how many ran."""
        ran = 0
        while self.played < len(self.fake.dispatches) and ran < limit:
            request = self.fake.dispatches[self.played]
            self.played += 1
            name, payload = payloads.from_dispatch(self.fake, request)
            if payload.get("inputs", {}).get("handover"):
                self.handed_over(name, payload)
            else:
                self.event(name, payload)
            ran += 1
        return ran

    # --- invariants ----------------------------------------------------------------------------
    def tasks(self, epic: int) -> list[int]:
        return [n for n in self.fake.sub_issues(epic) if TASK_LABEL in self.fake.labels_of(n)]

    def check(self) -> None:
        for epic in self.epics:
            tasks = self.tasks(epic)
            busy = [t for t in tasks if status_of(self.fake, t) in BUSY]
            self.busy_seen = max(self.busy_seen, len(busy))
            if len(busy) > self.max_parallel:
                self.problems.append(f"{len(busy)} tasks busy: {busy}")
            for task in tasks:
                now = status_of(self.fake, task)
                before = self.last_status.get(task)
                if now == "status:completed":
                    self.completed.add(task)
                if now in BUSY and before not in BUSY:
                    self.started[task] = self.started.get(task, 0) + 1
                    waiting = [b for b in self.fake.blocked_by(task) if b not in self.completed]
                    if waiting:
                        self.problems.append(f"#{task} started before {waiting} completed")
                self.last_status[task] = now

    def calls(self) -> int:
        return sum(len(step.calls) for _, step in self.steps)
