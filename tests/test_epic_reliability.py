"""Epics under stress: a seeded random machine over whole epics on the simulated GitHub.

Each example plays one epic through `baton.sim.actions.Actions` (the real `webhooks.parse` and
`run.handle`): a random plan (a DAG of 3–8 tasks), random agent outcomes (approve, reject,
high-severity reject, no report), then a random walk over what GitHub and Actions do:

* the dispatch queue run in a shuffled order, dispatches re-delivered (run and kept queued);
* re-runs of the last run (same event, same run id);
* racing runs: a second run of the same event started (through the model's `api.on_request`)
  before a random request of the first, so both decide on the same read;
* faults at GitHub's requests, the k-th of a kind failing with a 502: the document creating the
  plan's tasks (or the request dying at its k-th `createIssue`), the sub-issues' read, the
  tasks' read, a merge, a dispatch, the record write (the write document dying at its
  `updateIssueComment`); the run that meets one fails, the dispatch it carried is lost until a
  sweep;
* clock jumps and sweeps.

After every step, from GitHub's state (labels, bodies, record comments):

* never more than `epics.max_parallel` tasks in `in_progress`, `pending_review`, `retry_queued`;
* no task in `in_progress` while a blocker is not `completed` or `skipped`;
* no task moved `pending → in_progress` more times than the epic ordered it started
  (`PlannedTask.starts` in the epic's record against the task record's history);
* one sub-issue per task key (the task marker in the body), and per sub-issue of the epic.

The default suite plays a few short examples; the long run is marked `slow` and needs
BATON_LONG=1 (`BATON_LONG=1 .venv/bin/python -m pytest -m slow -s
tests/test_epic_reliability.py`; `BATON_EPIC_EXAMPLES` sets how many epics).
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest

from baton import webhooks
from baton.core.model import events
from baton.core.model.record import Record
from baton.errors import TrackerError
from baton.issue.apply import tracker_labels
from baton.run import handle
from baton.sim import payloads
from baton.sim.actions import CHAIN, Actions, Play
from baton.sim.api.faults import Call
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep
from baton.workflow.config import Config, settings_from

ACTIVE = {"in_progress", "pending_review", "retry_queued"}
DONE = {"completed", "skipped"}
FAULT_OPS = ("create_tasks", "sub_issues", "read_many", "merge", "dispatch", "edit_comment")


def fail(gh: SimGitHub, op: str, after: int) -> None:
    """GitHub answers the (after+1)-th request of the kind `op` names with a 502."""
    api = gh.api
    if op == "create_issue":  # the plan's document dies at its (after+1)-th new issue
        api.fail_graphql_field("createIssue", status=502, after=after)
    elif op == "edit_comment":  # the write document dies at the record's edit
        api.fail_graphql_field("updateIssueComment", status=502, after=after)
    elif op in GRAPHQL:
        api.fail("POST", "^/graphql$", 502, operation=GRAPHQL[op], after=after)
    else:
        api.fail("POST", REST[op], 502, after=after)


GRAPHQL = {
    "create_tasks": "BatonCreateTasks",
    "sub_issues": "BatonSubIssues",
    "read_many": "BatonReadMany",
}
REST = {"merge": r"/merges$", "dispatch": r"/dispatches$"}
READS = ("BatonRead", "BatonReadMany", "BatonRecordCheck")  # requests that read a record
MARKER = re.compile(r"<!-- baton:task (\{.*?\}) -->")


def random_plan(rng: random.Random) -> list[dict[str, Any]]:
    """A DAG of 3–8 tasks: each task depends on a few of the ones before it."""
    n = rng.randint(3, 8)
    tasks = []
    for i in range(n):
        before = [f"t{j}" for j in range(i)]
        deps = rng.sample(before, k=min(len(before), rng.choice([0, 0, 1, 1, 2, 3])))
        tasks.append({"key": f"t{i}", "title": f"Task {i}", "depends_on": sorted(deps)})
    return tasks


@dataclass
class Figures:
    epics: int = 0
    tasks: int = 0
    steps: int = 0
    runs: int = 0
    faults: int = 0
    failed_runs: int = 0
    races: int = 0
    window: int = 0  # races in the write window (after the first run's revision check)
    # Races of two runs making the same plan's sub-issues at once: GitHub has no unique key for
    # an issue, so both make them. The Action's per-issue concurrency group never runs two
    # Baton runs of one epic at once; the machine's races are stronger than Actions allows.
    creation_races: int = 0
    reruns: int = 0
    redeliveries: int = 0
    sweeps: int = 0
    completed_epics: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)


class EpicMachine:
    def __init__(self, seed: int, figures: Figures) -> None:
        self.rng = random.Random(seed)
        self.figures = figures
        self.max_parallel = self.rng.randint(1, 3)
        self.settings = settings_from(
            Config.model_validate(
                {"agent_timeout": "6h", "epics": {"max_parallel": self.max_parallel}}
            )
        )
        self.gh = SimGitHub(labels=tracker_labels(self.settings))
        self.gh.set_permission("maria", "maintain")
        self.plan = random_plan(self.rng)
        self.actions = Actions(self.gh, self.settings, self.agent)
        self.last: tuple[str, dict[str, Any], str] | None = None
        self.run_ids = 0
        self.dirty: set[int | None] = set()  # raced in the write window; their next run repairs
        self.excused: set[str] = set()  # keys a creation race made twice (see Figures)
        self.epic = self.gh.open_issue("Teams", "Let admins create teams.", author="alice")
        figures.epics += 1
        figures.tasks += len(self.plan)

    # --- the agents --------------------------------------------------------------------------
    def agent(self, number: int, name: str, record: Record | None) -> Play | None:
        if name == "discovery":
            return Play({"spec": "# Spec\nTeams.", "categories": ["users", "scope"]})
        if name == "planner":
            return Play({"tasks": self.plan})
        roll = self.rng.random()
        if name == "developer":
            if roll < 0.1:
                self.figures.outcomes["developer silent"] += 1
                return None
            self.figures.outcomes["developer done"] += 1
            return Play({"summary": "done"}, {f"src/t{number}.py": f"print({roll})\n"})
        if name == "reviewer":
            if roll < 0.6:
                self.figures.outcomes["approve"] += 1
                return Play({"summary": "ok"})
            if roll < 0.8:
                self.figures.outcomes["reject"] += 1
                return Play({"status": "failure", "issues_found": ["missing tests"]})
            if roll < 0.9:
                self.figures.outcomes["high reject"] += 1
                return Play({"status": "blocked", "severity": "high", "issues_found": ["unsafe"]})
            self.figures.outcomes["reviewer silent"] += 1
            return None
        return Play({"summary": "ok"})

    # --- runs ----------------------------------------------------------------------------------
    def deliver(self, name: str, payload: dict[str, Any], run_id: str | None = None) -> None:
        """One run of a webhook (a fresh run id unless a re-run), the agent job it names."""
        if run_id is None:
            self.run_ids += 1
            run_id = f"m-{self.run_ids}"
        self.last = (name, payload, run_id)
        self.figures.runs += 1
        try:
            parsed = webhooks.parse(
                name, payload, self.settings.policy, now=self.gh.now, run_id=run_id
            )
            if isinstance(parsed, events.Ignored):
                return
            if isinstance(parsed, events.Sweep):
                swept = sweep(self.gh, self.settings, now=self.gh.now, chain=CHAIN)
                for item in swept.results:
                    self.actions._after(item)
                return
            result = handle(parsed, self.gh, self.settings, chain=CHAIN)
            self.actions._after(result, chained=True)
        except TrackerError:
            self.figures.failed_runs += 1
        else:
            if self.gh.api.on_request is None:
                self.dirty.discard(self.issue_of(payload))

    @staticmethod
    def issue_of(payload: dict[str, Any]) -> int | None:
        inputs = payload.get("inputs") or {}
        return int(inputs["issue"]) if "issue" in inputs else None

    def pop_dispatch(self, keep: bool = False) -> tuple[str, dict[str, Any]] | None:
        queue = self.gh.dispatches
        if not queue:
            return None
        i = self.rng.randrange(len(queue))
        request = queue[i] if keep else queue.pop(i)
        return payloads.from_dispatch(self.gh, request)

    def start(self) -> None:
        gh = self.gh
        gh.human_label(self.epic, "baton:epic", by="maria")
        self.deliver("issues", payloads.labeled(gh, self.epic, "baton:epic", sender="maria"))
        c = gh.human_comment(self.epic, "approved", author="maria")
        if self.rng.random() < 0.5:  # the plan's sub-issues: the batch dies part way
            self.figures.faults += 1
            fail(gh, self.rng.choice(("create_tasks", "create_issue")), self.rng.randint(0, 4))
        try:
            self.deliver("issue_comment", payloads.comment_created(gh, c.id))
        finally:
            gh.api.clear_faults()

    def step(self) -> None:
        self.figures.steps += 1
        gh, rng = self.gh, self.rng
        gh.now += timedelta(minutes=rng.randint(1, 20))
        roll = rng.random()
        if not gh.dispatches or roll < 0.08:
            self.figures.sweeps += 1
            if rng.random() < 0.3:
                gh.now += timedelta(hours=7)  # past the agent timeout: silent agents are chased
            self.deliver("schedule", payloads.schedule("*/15 * * * *"))
        elif roll < 0.5:
            self.deliver(*self.pop_dispatch())
        elif roll < 0.58:
            self.figures.redeliveries += 1
            self.deliver(*self.pop_dispatch(keep=True))
        elif roll < 0.68 and self.last is not None:
            self.figures.reruns += 1
            self.deliver(*self.last)
        elif roll < 0.8:
            self.race(*self.pop_dispatch())
        else:
            self.figures.faults += 1
            op = rng.choice(FAULT_OPS)
            fail(gh, op, rng.randint(0, 3))
            try:
                self.deliver(*self.pop_dispatch())
            finally:
                gh.api.clear_faults()  # a fault not met by this run is not carried to the next
        self.check()

    def race(self, name: str, payload: dict[str, Any]) -> None:
        """The same event twice at once: the second runs before a random request of the first."""
        self.figures.races += 1
        at = self.rng.randint(1, 8)
        calls: list[str] = []

        def hook(call: Call) -> None:
            calls.append(call.operation or f"{call.method} {call.path}")
            if len(calls) == at:
                self.deliver(name, payload)

        before = self.doubled()
        self.gh.api.on_request = hook
        try:
            self.deliver(name, payload)
        finally:
            self.gh.api.on_request = None
        made_twice = self.doubled() - before
        if made_twice:
            self.figures.creation_races += 1
            self.excused |= made_twice
        # As in test_races.py: a run re-reads its record (`BatonRecordCheck`) just before it
        # writes; a race after that check is in the write window GitHub offers no conditional
        # write for, which the machine counts and lets the next runs repair.
        read = any(c in READS for c in calls[: at - 1])
        if len(calls) >= at and read and "BatonRecordCheck" not in calls[at - 1 :]:
            self.figures.window += 1
            self.dirty.add(self.issue_of(payload))

    # --- invariants ----------------------------------------------------------------------------
    def status(self, number: int) -> str | None:
        found = [x for x in self.gh.labels_of(number) if x.startswith("status:")]
        assert len(found) <= 1, f"#{number} has {found}"
        return found[0].removeprefix("status:").replace("-", "_") if found else None

    def doubled(self) -> set[str]:
        """The task keys with more than one sub-issue."""
        keys: Counter[str] = Counter()
        for issue in self.gh.issues.values():
            for marker in MARKER.findall(issue.body or ""):
                data = json.loads(marker)
                if data.get("epic") == self.epic:
                    keys[data["key"]] += 1
        return {k for k, n in keys.items() if n > 1}

    def check(self) -> None:
        gh = self.gh
        doubled = self.doubled() - self.excused
        assert not doubled, f"two sub-issues for {sorted(doubled)}"
        subs = gh.sub_issues_of(self.epic)
        assert len(subs) == len(set(subs))
        assert len(subs) <= len(self.plan) + len(self.excused)
        record = self.actions.record(self.epic)
        if record is None or record.epic is None:
            return
        planned = {
            t.key: t
            for t in record.epic.tasks
            if t.number is not None and t.number not in self.dirty
        }
        statuses = {t.number: self.status(t.number) for t in planned.values()}
        active = [n for n, s in statuses.items() if s in ACTIVE]
        assert len(active) <= self.max_parallel, f"{len(active)} active: {active}"
        by_key = {t.key: statuses.get(t.number) for t in planned.values()}
        for task in planned.values():
            if statuses[task.number] == "in_progress":
                waiting = [d for d in task.depends_on if by_key.get(d) not in DONE]
                assert not waiting, f"{task.key} in progress before {waiting}"
            own = self.actions.record(task.number)
            if own is None:
                continue
            moves = sum(
                1 for h in own.history if h.from_state == "pending" and h.to_state == "in_progress"
            )
            assert moves <= task.starts, f"{task.key} started {moves}× for {task.starts} orders"

    def done(self) -> bool:
        labels = self.gh.labels_of(self.epic)
        return "status:done" in labels or "status:completing" in labels


def play(seeds: range, steps: int) -> Figures:
    figures = Figures()
    for seed in seeds:
        machine = EpicMachine(seed, figures)
        machine.start()
        machine.check()
        for _ in range(steps):
            machine.step()
            if machine.done():
                break
        figures.completed_epics += machine.done()
    return figures


def test_epics_hold_their_invariants() -> None:
    figures = play(range(4), steps=60)
    assert figures.tasks >= 12 and figures.steps >= 4


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("BATON_LONG") != "1", reason="long run: set BATON_LONG=1")
def test_epics_hold_their_invariants_long() -> None:
    started = time.monotonic()
    examples = int(os.environ.get("BATON_EPIC_EXAMPLES", "300"))
    figures = play(range(1000, 1000 + examples), steps=400)
    print(
        f"\nepics {figures.epics}, tasks {figures.tasks}, steps {figures.steps}, "
        f"runs {figures.runs}, faults {figures.faults} (failed runs {figures.failed_runs}), "
        f"races {figures.races} ({figures.window} in the write window, "
        f"{figures.creation_races} making a plan twice), "
        f"re-runs {figures.reruns}, re-deliveries {figures.redeliveries}, "
        f"sweeps {figures.sweeps}, epics reaching completing/done {figures.completed_epics}, "
        f"agent outcomes {dict(figures.outcomes)}, violations 0, "
        f"{time.monotonic() - started:.0f} s"
    )
