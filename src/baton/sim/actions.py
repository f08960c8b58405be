"""GitHub Actions in memory, for epics: the runs Baton dispatches, the agent jobs they name, the
agents' reports. `baton demo --epic`, the epic tests and the reliability machine play epics
through it, with the same `run.handle` the Action uses.

An agent is a function of (issue, agent, record) returning what it reports (`Play`), or None
for an agent that never reports (its run died).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from baton import webhooks
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.record import Record
from baton.core.model.work import branch_name
from baton.github.tracker import DispatchTarget
from baton.issue.record_comment import find_records, parse
from baton.run import RunResult, handle
from baton.sim import payloads
from baton.sim.payloads import DispatchRequest
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep
from baton.workflow.config import Settings

CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")


@dataclass(frozen=True)
class Play:
    """What one agent run reports: its result fields and the files it changed."""

    result: dict[str, Any]
    changes: dict[str, str | None] = field(default_factory=dict)


Agent = Callable[[int, str, Record | None], Play | None]


@dataclass
class Actions:
    gh: SimGitHub
    settings: Settings
    agent: Agent
    say: Callable[[str], None] = lambda _: None
    runs: int = 0
    results: list[RunResult] = field(default_factory=list)
    agent_runs: list[tuple[int, str]] = field(default_factory=list)
    # Interleaved, an agent job waits in `jobs` behind the dispatched runs instead of running at
    # once, so tasks run side by side as on Actions (`drain` takes every dispatch, then a job).
    interleave: bool = False
    jobs: list[tuple[int, str]] = field(default_factory=list)
    # Called after every handled run (a webhook, a dispatch or a report): to watch invariants.
    watch: Callable[[], None] = lambda: None

    # --- events ------------------------------------------------------------------------------
    def event(self, name: str, payload: dict[str, Any]) -> RunResult | None:
        """One webhook through Baton's run, then the agent job it names, if any."""
        self.runs += 1
        parsed = webhooks.parse(
            name, payload, self.settings.policy, now=self.gh.now, run_id=f"run-{self.runs}"
        )
        if isinstance(parsed, events.Ignored):
            self.say(f"   ignored: {parsed.reason}")
            return None
        if isinstance(parsed, events.Sweep):
            self.gh.new_run()
            swept = sweep(self.gh, self.settings, now=self.gh.now, chain=CHAIN)
            for item in swept.results:
                self._after(item)
            return None
        self.gh.new_run()
        result = handle(parsed, self.gh, self.settings, chain=CHAIN)
        self._after(result, chained=True)
        return result

    def _after(self, result: RunResult, *, chained: bool = False) -> None:
        self.results.append(result)
        decision = result.decision
        self.say(f"   #{decision.issue} {decision.outcome.value}: {decision.reason}")
        self.watch()
        if decision.agent and chained and result.dispatched:
            # `handle` chained the agent's run by dispatch: that dispatch is this very job.
            self._drop_dispatch(decision.issue)
        if decision.agent:
            self._job(decision.issue, decision.agent)

    def _job(self, number: int, agent: str) -> None:
        if self.interleave:
            self.jobs.append((number, agent))
        else:
            self.run_agent(number, agent)

    def _drop_dispatch(self, number: int) -> None:
        for i, request in enumerate(self.gh.dispatches):
            if request.inputs.get("issue") == str(number):
                del self.gh.dispatches[i]
                return

    def record(self, number: int) -> Record | None:
        records = find_records(self.gh.comments_of(number), self.gh.bot_login)
        return parse(records[-1].body) if records else None

    def hand_over(self, request: DispatchRequest) -> None:
        """A run Baton dispatched with the hand-over starts no decision job: its agent job runs
        the attempt the record still waits on; a refused one is decided by the report job."""
        number = int(request.inputs["issue"])
        record = self.record(number)
        pending = record.dispatch if record is not None else None
        nonce = request.inputs["handover"].partition(".")[0]
        if record is not None and pending is not None and pending.nonce == nonce:
            self._job(number, pending.agent)
        else:
            self.event(*payloads.from_dispatch(self.gh, request))

    # --- agents --------------------------------------------------------------------------------
    def run_agent(self, number: int, agent: str) -> RunResult | None:
        """The agent job: the agent plays, and `baton report` hands its result back."""
        record = self.record(number)
        play = self.agent(number, agent, record)
        self.agent_runs.append((number, agent))
        if play is None:
            self.say(f"   #{number} the {agent} never reports")
            return None
        self.runs += 1
        result = AgentResult(**{"status": "success", "confidence": 0.9, **play.result})
        event = events.report(
            number,
            agent=agent,
            result=result,
            error=None,
            now=self.gh.now,
            run_id=f"run-{self.runs}",
            state=record.state if record else None,
            nonce=record.dispatch.nonce if record and record.dispatch else "",
        )
        changeset = self._changeset(number, record, play) if play.changes else None
        self.gh.new_run()
        outcome = handle(event, self.gh, self.settings, chain=CHAIN, changeset=changeset)
        self.results.append(outcome)
        decision = outcome.decision
        self.say(f"   #{number} {agent} reports: {decision.outcome.value}: {decision.reason}")
        self.watch()
        if decision.agent and outcome.dispatched:
            self._drop_dispatch(number)
            self._job(number, decision.agent)
        return outcome

    def _changeset(self, number: int, record: Record | None, play: Play) -> Changeset:
        git = self.gh.git
        work = record.work if record else None
        name = work.branch if work else branch_name(self.settings.policy.work.branch_prefix, number)
        base = git.head(name) or git.head(git.default_branch) or ""
        files = [
            FileChange(
                path=path,
                contents=None if text is None else base64.b64encode(text.encode()).decode(),
            )
            for path, text in play.changes.items()
        ]
        return Changeset(base=base, files=files)

    # --- the dispatch queue ------------------------------------------------------------------
    def drain(self, limit: int = 1_000) -> int:
        """Run every dispatched run, oldest first, until none is left; how many ran. Interleaved,
        every waiting dispatch runs, then the oldest agent job, and so on until both are empty."""
        ran = 0
        while (self.gh.dispatches or self.jobs) and ran < limit:
            if self.gh.dispatches:
                request = self.gh.dispatches.pop(0)
                if request.inputs.get("handover"):
                    self.hand_over(request)
                else:
                    self.event(*payloads.from_dispatch(self.gh, request))
            else:
                number, agent = self.jobs.pop(0)
                self.run_agent(number, agent)
            ran += 1
        return ran
