"""Every figure of the dashboard, computed from the records alone: no I/O, no clock but `now`.

What each figure means is in docs/dashboard.md. The workflow model says who holds an issue
(a work state's agent, a waiting state's answer or approval, the pull request's review), so no
preset's state names appear here. A record keeps no attempt per history entry, so failed
attempts are read from what it does keep: the escalations out of a work state (their reason
names the attempt that failed last) and the retries of the current state (`attempt`).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from baton.core.model.epic import RoleSpend, Spend
from baton.core.model.record import HistoryEntry, Record
from baton.dashboard.model import (
    Figures,
    Humans,
    Outcomes,
    PerIssue,
    Rework,
    Slowest,
    Spending,
    SpendLine,
    Spread,
    StateTime,
    Stay,
    Unreadable,
    Waiting,
    Worked,
)
from baton.dashboard.proofs import proofs
from baton.workflow.model import StateKind, Workflow

BATON = "baton"  # the actor of Baton's own moves (a timeout, a rebuild, a breaker)
_FAILED_ATTEMPT = re.compile(r"attempt (\d{1,4}) of \d{1,4} failed")


# --- small pieces ------------------------------------------------------------------------------
def spread(seconds: Sequence[int]) -> Spread:
    if not seconds:
        return Spread()
    ordered = sorted(seconds)
    p90 = ordered[max(math.ceil(0.9 * len(ordered)) - 1, 0)]
    return Spread(count=len(ordered), median=int(statistics.median(ordered)), p90=p90)


def _seconds(delta: timedelta) -> int:
    return max(int(delta.total_seconds()), 0)


def _counted(counter: Counter[str]) -> dict[str, int]:
    """Most first, then by name: a stable order for tables and JSON."""
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def is_human(actor: str, workflow: Workflow, bot_login: str) -> bool:
    """A history entry's actor is a person: not one of the workflow's agents, not Baton."""
    name = actor.casefold()
    machines = {a.casefold() for a in workflow.agents} | {BATON, bot_login.casefold()}
    return name not in machines and not name.endswith("[bot]")


def stays(record: Record, now: datetime, workflow: Workflow) -> list[Stay]:
    """Each state the history entered and how long it stayed; the current one runs to `now`
    unless it is terminal (a finished issue waits on no one)."""
    history = record.history
    out = []
    for entry, after in zip(history, [*history[1:], None], strict=True):
        if after is not None:
            end = after.at
        elif entry.to_state in workflow.states and workflow.is_terminal(entry.to_state):
            end = entry.at
        else:
            end = now
        out.append(Stay(state=entry.to_state, start=entry.at, seconds=_seconds(end - entry.at)))
    return out


def rework_rounds(history: Sequence[HistoryEntry]) -> list[HistoryEntry]:
    """The entries that start a round of rework. Work goes back when it enters a state it was in
    before; the states after it are entered again too, as the work retraces its steps, and do
    not start rounds of their own until it comes back to the state that started the round (a
    fix loop's every return) or moves on to a state it never was in."""
    seen: set[str] = set()
    rounds = []
    anchor: str | None = None  # the state the current run of re-entries went back to
    for entry in history:
        if entry.to_state not in seen:
            anchor = None
        elif anchor is None or entry.to_state == anchor:
            rounds.append(entry)
            anchor = entry.to_state
        seen.add(entry.to_state)
    return rounds


def waiting_on(record: Record, workflow: Workflow) -> tuple[str, str]:
    """(for whom the issue waits, its kind), from the workflow's model of the state."""
    spec = workflow.spec(record.state)
    work = record.work
    if record.held:
        where = record.escalated_from or record.state
        return f"a human: held after {where}", "human"
    if spec.kind is StateKind.waiting:
        if work is not None and work.open_pull_request and work.ready:
            return f"a review of pull request {work.pull_request} (and its checks)", "pull_request"
        if record.task is not None and not (spec.reply or spec.approval):
            return f"a human's decision on a task of epic {record.task.epic}", "human"
        wants = [w for w, on in (("answer", spec.reply), ("approval", spec.approval)) if on]
        return f"a human's {' or '.join(wants) or 'decision'}", "human"
    if record.task is not None and record.dispatch is None:
        return f"its epic {record.task.epic}", "epic"
    if record.epic is not None and record.dispatch is None:
        return "its tasks", "tasks"
    return f"the {spec.agent or 'agent'}", "agent"


def failed_attempts(record: Record, workflow: Workflow) -> Counter[str]:
    """Failed attempts by role (agent), from what the record keeps: escalations out of a
    work state (the attempt their reason names, else one), a task's failures, and the current
    state's retries."""
    found: Counter[str] = Counter()
    for entry in record.history:
        if entry.trigger != "escalation" or entry.from_state not in workflow.states:
            continue
        agent = workflow.agent_of(entry.from_state)
        if agent is None:
            continue
        named = _FAILED_ATTEMPT.search(entry.reason)
        found[agent] += int(named.group(1)) if named else 1
    coder = next((s.agent for s in workflow.states.values() if s.changes_code and s.agent), None)
    if record.task is not None and record.task.failures and coder is not None:
        # A task counts its failures itself: implementations that failed, reviews that
        # rejected them. They are its coder's.
        found[coder] += record.task.failures
    agent = workflow.agent_of(record.state)
    if agent is not None and record.attempt > 1:
        # Held in place after its last attempt failed, every attempt so far failed.
        found[agent] += record.attempt - (0 if record.held else 1)
    return found


def lead_time(record: Record, workflow: Workflow) -> int | None:
    """Seconds from entering the workflow to the merge of the issue's pull request, or None."""
    work = record.work
    if work is None or work.closed != "merged" or not record.history:
        return None
    merged_state = workflow.pull_request.merged
    merges = [
        e
        for e in record.history
        if (merged_state is not None and e.to_state == merged_state) or e.trigger == "merge"
    ]
    if not merges:
        return None
    start = record.compacted.since or record.history[0].at
    return _seconds(merges[-1].at - start)


# --- the whole ---------------------------------------------------------------------------------
def figures(
    worked: Sequence[Worked],
    unreadable: Sequence[Unreadable],
    workflows: Mapping[str, Workflow],
    *,
    now: datetime,
    window_days: int,
    bot_login: str,
    tests: bool = False,
) -> Figures:
    """The dashboard's figures. `workflows` by name: each record is read with its own (an
    epic's, a task's); a record whose workflow or states are not known is unreadable. `tests`:
    the config has `tests:` (without it, no evidence is no surprise)."""
    known, unknown = _known(worked, workflows)
    items = sorted(known, key=lambda w: w.number)
    by_state = Counter(w.record.state for w in items)
    return Figures(
        generated_at=now,
        window_days=window_days,
        issues=len(items),
        open_issues=sum(1 for w in items if w.open),
        by_state=_counted(by_state),
        waiting=_waiting(items, workflows, now),
        state_times=_state_times(items, workflows, now),
        lead_time=spread(
            [
                t
                for w in items
                if (t := lead_time(w.record, workflows[w.record.workflow])) is not None
            ]
        ),
        slowest=_slowest(items, workflows, now),
        rework=_rework(items),
        humans=_humans(items, workflows, bot_login),
        outcomes=_outcomes(items, workflows),
        spend=_spending(items, workflows),
        evidence=proofs(items, configured=tests),
        unreadable=sorted([*unreadable, *unknown], key=lambda u: u.number),
    )


def _known(
    worked: Sequence[Worked], workflows: Mapping[str, Workflow]
) -> tuple[list[Worked], list[Unreadable]]:
    """The records whose workflow and every state are known; the others, named."""
    known, unknown = [], []
    for item in worked:
        record = item.record
        workflow = workflows.get(record.workflow)
        named = {record.state, *(e.to_state for e in record.history)}
        named |= {e.from_state for e in record.history if e.from_state is not None}
        if workflow is None:
            problem = f"the record belongs to workflow {record.workflow!r}, which is not in use"
        elif missing := sorted(named - set(workflow.states)):
            problem = f"the record names states {workflow.name} does not have: {missing[:3]}"
        else:
            known.append(item)
            continue
        unknown.append(Unreadable(number=item.number, title=item.title, problem=problem))
    return known, unknown


def _waiting(
    items: list[Worked], workflows: Mapping[str, Workflow], now: datetime
) -> list[Waiting]:
    out = []
    for item in items:
        record, workflow = item.record, workflows[item.record.workflow]
        if not item.open or workflow.is_terminal(record.state):
            continue
        on, kind = waiting_on(record, workflow)
        seconds = _seconds(now - record.entered_at)
        out.append(
            Waiting(
                number=item.number,
                title=item.title,
                state=record.state,
                since=record.entered_at,
                seconds=seconds,
                on=on,
                kind=kind,
            )
        )
    return sorted(out, key=lambda w: (-w.seconds, w.number))


def _state_times(
    items: list[Worked], workflows: Mapping[str, Workflow], now: datetime
) -> list[StateTime]:
    """Time per state over the stays that ended (a wait still going is in `waiting`)."""
    per_state: dict[str, list[int]] = {}
    for item in items:
        record, workflow = item.record, workflows[item.record.workflow]
        ended = stays(record, now, workflow)[:-1]
        for stay in ended:
            per_state.setdefault(stay.state, []).append(stay.seconds)
    return [
        StateTime(state=state, **spread(seconds).model_dump())
        for state, seconds in sorted(per_state.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    ]


def _slowest(
    items: list[Worked], workflows: Mapping[str, Workflow], now: datetime
) -> Slowest | None:
    best: Slowest | None = None
    for item in items:
        path = stays(item.record, now, workflows[item.record.workflow])
        if not path:
            continue
        seconds = _seconds(path[-1].start + timedelta(seconds=path[-1].seconds) - path[0].start)
        if best is None or seconds > best.seconds:
            best = Slowest(number=item.number, title=item.title, seconds=seconds, path=path)
    return best


def _rework(items: list[Worked]) -> Rework:
    sent_back: Counter[str] = Counter()
    redone: Counter[str] = Counter()
    per_issue = []
    for item in items:
        rounds = rework_rounds(item.record.history)
        seen: set[str] = set()
        for entry in item.record.history:
            if entry.to_state in seen:
                redone[entry.to_state] += 1
            seen.add(entry.to_state)
        sent_back.update(e.from_state or "" for e in rounds)
        if rounds:
            per_issue.append(PerIssue(number=item.number, title=item.title, count=len(rounds)))
    per_issue.sort(key=lambda p: (-p.count, p.number))
    return Rework(
        rounds=sum(p.count for p in per_issue),
        issues=len(per_issue),
        per_issue=per_issue,
        sent_back_by=_counted(sent_back),
        redone=_counted(redone),
    )


def _humans(items: list[Worked], workflows: Mapping[str, Workflow], bot_login: str) -> Humans:
    kinds: Counter[str] = Counter()
    counts = []
    per_issue = []
    for item in items:
        workflow = workflows[item.record.workflow]
        touches = [e for e in item.record.history if is_human(e.actor, workflow, bot_login)]
        kinds.update(
            "relabel" if e.forced and e.trigger == "relabel" else e.trigger for e in touches
        )
        counts.append(len(touches))
        if touches:
            per_issue.append(PerIssue(number=item.number, title=item.title, count=len(touches)))
    per_issue.sort(key=lambda p: (-p.count, p.number))
    return Humans(
        touchpoints=sum(counts),
        median_per_issue=float(statistics.median(counts)) if counts else 0.0,
        by_kind=_counted(kinds),
        per_issue=per_issue,
    )


def _outcomes(items: list[Worked], workflows: Mapping[str, Workflow]) -> Outcomes:
    works = [w.record.work for w in items if w.record.work and w.record.work.pull_request]
    merged = sum(1 for work in works if work.closed == "merged")
    closed = sum(1 for work in works if work.closed == "closed")
    failed: Counter[str] = Counter()
    for item in items:
        failed.update(failed_attempts(item.record, workflows[item.record.workflow]))
    return Outcomes(
        opened=len(works),
        merged=merged,
        closed_unmerged=closed,
        open=len(works) - merged - closed,
        merge_rate=round(merged / (merged + closed), 4) if merged + closed else None,
        failed_attempts=_counted(failed),
    )


def _add_roles(into: dict[str, RoleSpend], spends: Mapping[str, RoleSpend]) -> None:
    for role, spend in spends.items():
        into[role] = into[role].plus(spend) if role in into else spend


def _spending(items: list[Worked], workflows: Mapping[str, Workflow]) -> Spending:
    total = Spend()
    merged_spend = Spend()
    merged = 0
    runs: Counter[str] = Counter()
    roles: dict[str, RoleSpend] = {}
    from_history = 0
    lines = []
    for item in items:
        record = item.record
        agents = set(workflows[record.workflow].agents)
        reported = Counter(
            e.actor for e in record.history if e.trigger == "report" and e.actor in agents
        )
        runs.update(reported)
        if record.spend.roles:
            _add_roles(roles, record.spend.roles)
        elif reported:  # a record written before roles were kept: their runs, without costs
            from_history += 1
            _add_roles(roles, {role: RoleSpend(runs=n) for role, n in reported.items()})
        total = total.plus(record.spend)
        is_merged = record.work is not None and record.work.closed == "merged"
        if is_merged:
            merged += 1
            merged_spend = merged_spend.plus(record.spend)
        lines.append(
            SpendLine(number=item.number, title=item.title, spend=record.spend, merged=is_merged)
        )
    lines.sort(key=lambda s: (-s.spend.money, -s.spend.runs, s.number))
    per_merged = None
    if merged:
        per_merged = Spend(
            runs=round(total.runs / merged),
            tokens=round(total.tokens / merged),
            money=round(total.money / merged, 6),
            minutes=round(total.minutes / merged, 6),
        )
    return Spending(
        total=total,
        runs_per_role=_counted(runs),
        per_role=dict(sorted(roles.items(), key=lambda kv: (-kv[1].money, -kv[1].runs, kv[0]))),
        roles_from_history=from_history,
        per_merged=per_merged,
        merged_issues=merged_spend,
        per_issue=lines,
    )
