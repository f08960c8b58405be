"""Properties that must hold for any input: the record codec round-trips any record, and random
event sequences through the real engine never break the state invariants.

Two settings objects instead of registered Hypothesis profiles: `settings.load_profile` is
global and would change every other property test in the run. The long variants are marked
`slow`, which the default suite deselects (`-m "not slow"` in pyproject.toml), and run only with
BATON_LONG=1: `BATON_LONG=1 .venv/bin/python -m pytest -m slow tests/test_properties.py`.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton import webhooks
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.record import (
    KEEP_FEEDBACK,
    KEEP_PROCESSED,
    Approval,
    Compacted,
    Dispatch,
    HistoryEntry,
    HumanInput,
    LastReport,
    Record,
)
from baton.github.tracker import DispatchTarget
from baton.issue import record_comment
from baton.issue.record_comment import GITHUB_BODY_LIMIT, RECORD_OPEN
from baton.run import handle
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep
from baton.workflow.config import load_config
from baton.workflow.model import AgentStatus
from support.memory import messages_of

NORMAL = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LONG = settings(NORMAL, max_examples=2_000)
long_run = pytest.mark.skipif(
    os.environ.get("BATON_LONG") != "1", reason="long property run: set BATON_LONG=1"
)

# --- (a) the codec round-trips any record -------------------------------------------------------
# User text is anything but lone surrogates (which no JSON/UTF-8 body can carry); control
# characters are included. Repetition makes some texts long enough to force compaction.
ANY_CHAR = st.characters(exclude_categories=("Cs",))
TEXT = st.builds(
    lambda text, times: text * times, st.text(ANY_CHAR), st.sampled_from([1, 1, 1, 30, 700])
)
SHORT_TEXT = st.text(ANY_CHAR, max_size=60)  # logins, event ids: bounded by GitHub itself
# States, agents and the workflow name come from a checked workflow: identifiers, not user text.
NAME = st.from_regex(r"[a-z][a-z0-9_]{0,40}", fullmatch=True)
WHEN = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
COUNT = st.integers(min_value=0, max_value=10_000)
ID = st.integers(min_value=1, max_value=2**53)

ENTRIES = st.builds(
    HistoryEntry,
    at=WHEN,
    from_state=st.none() | NAME,
    to_state=NAME,
    reason=TEXT,
    actor=SHORT_TEXT,
    trigger=st.sampled_from(["entry", "report", "reply", "relabel", "escalation", "timeout"]),
    forced=st.booleans(),
    iteration=COUNT,
)
RECORDS = st.builds(
    Record,
    workflow=NAME,
    issue=ID,
    state=NAME,
    entered_at=WHEN,
    iteration=COUNT,
    attempt=COUNT,
    budget_from=COUNT,
    visits=st.dictionaries(NAME, COUNT, max_size=21),
    history=st.lists(ENTRIES, max_size=60),
    compacted=st.builds(Compacted, entries=COUNT, forced=COUNT, since=st.none() | WHEN),
    pending_input=st.lists(
        st.builds(
            HumanInput,
            author=SHORT_TEXT,
            excerpt=TEXT,
            comment_id=st.none() | ID,
            state=NAME,
            at=WHEN,
        ),
        max_size=KEEP_FEEDBACK,
    ),
    feedback=st.lists(TEXT, max_size=KEEP_FEEDBACK),
    open_questions=st.lists(TEXT, max_size=KEEP_FEEDBACK),
    approval=st.none()
    | st.builds(
        Approval, by=SHORT_TEXT, state=NAME, iteration=COUNT, comment_id=st.none() | ID, at=WHEN
    ),
    dispatch=st.none() | st.builds(Dispatch, agent=NAME, state=NAME, attempt=COUNT, at=WHEN),
    last_report=st.none()
    | st.builds(
        LastReport,
        agent=NAME,
        state=NAME,
        status=st.sampled_from([s.value for s in AgentStatus]),
        confidence=st.floats(min_value=0, max_value=1),
        summary=TEXT,
        at=WHEN,
    ),
    escalated_from=st.none() | NAME,
    held=st.booleans(),
    processed=st.lists(SHORT_TEXT, max_size=KEEP_PROCESSED),
    last_comment_id=ID,
    revision=COUNT,
)


def check_codec(record: Record, agent: str | None) -> None:
    body = record_comment.render(record, agent=agent)

    assert record_comment.parse(body) == record_comment.compact(record)
    assert len(body) <= GITHUB_BODY_LIMIT
    assert body.startswith(RECORD_OPEN + "\n")
    assert body.count(RECORD_OPEN) == 1


@NORMAL
@given(RECORDS, st.none() | NAME)
def test_the_codec_round_trips_any_record(record: Record, agent: str | None) -> None:
    check_codec(record, agent)


@pytest.mark.slow
@long_run
@LONG
@given(RECORDS, st.none() | NAME)
def test_the_codec_round_trips_any_record_long_run(record: Record, agent: str | None) -> None:
    check_codec(record, agent)


# --- (b) random event sequences through the real engine ------------------------------------------
SETTINGS = load_config(None)
WORKFLOW = SETTINGS.workflow
POLICY = SETTINGS.policy
PREFIX = POLICY.label_prefix
STATES = list(WORKFLOW.states)
CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

AUTHOR = "alice"  # opened the issue; read permission
PEOPLE = {"alice": "read", "ann": "write", "maria": "maintain", "mallory": "read"}
MAINTAINER, APPROVER, STRANGER = "maria", "ann", "mallory"

BODIES = [
    "Thanks, commas please and only the visible columns.",
    "Thanks, commas please and only the visible columns.",
    "approved",
    "approved",
    "Approved — tests look good",
    "not approved",
    "> approved",
    "/retry use the v2 API",
    "/skip",
    "/replan",
    "<!-- baton:record\n{}\n--> @octocat",
]
WHO = st.sampled_from(sorted(PEOPLE))
GARBAGE_STATE = st.text(string.ascii_letters + "_- :<>", max_size=20)

REPORTS = st.tuples(
    st.just("report"),
    st.sampled_from(["due", "due", "due", "whoever", "ghost"]),
    st.sampled_from([AgentStatus.success] * 3 + [AgentStatus.failure, AgentStatus.blocked]),
    st.floats(min_value=0, max_value=1),
    st.none() | st.none() | st.none() | st.sampled_from(STATES) | GARBAGE_STATE,
    st.lists(st.sampled_from(["Which columns?", "@octocat?", "<!-- x -->"]), max_size=3),
    st.lists(st.sampled_from(["test_csv failed", "a | b"]), max_size=2),
)
# Mostly the people whose comments count (the approver and the author), sometimes the others.
COMMENTS = st.tuples(
    st.just("comment"),
    st.sampled_from(BODIES),
    st.sampled_from([APPROVER, APPROVER, AUTHOR, AUTHOR, MAINTAINER, STRANGER]),
)
BRANCHES = {
    "report": REPORTS,
    "comment": COMMENTS,
    "trigger": st.tuples(st.just("trigger"), st.sampled_from([MAINTAINER, STRANGER])),
    "relabel": st.tuples(
        st.just("relabel"), st.sampled_from(STATES), st.sampled_from([MAINTAINER, STRANGER])
    ),
    "unknown label": st.tuples(
        st.just("unknown label"),
        st.sampled_from(["status:bogus", "STATUS:Nope", "status:", "status:a|b`c"]),
        WHO,
    ),
    "invalid report": st.tuples(st.just("invalid report")),
    "dispatch": st.tuples(st.just("dispatch")),
    "sweep": st.tuples(
        st.just("sweep"),
        st.sampled_from([timedelta(0), timedelta(hours=6), timedelta(days=8), timedelta(days=15)]),
    ),
    "close": st.tuples(st.just("close"), WHO),
    "reopen": st.tuples(st.just("reopen"), st.sampled_from([MAINTAINER, STRANGER])),
    "redeliver": st.tuples(st.just("redeliver")),
}
# Reports, comments and sweeps are drawn most often so that random walks get deep into the
# workflow (and its waits time out) instead of circling its entry; the rest are disturbances.
WEIGHTS = {"report": 8, "comment": 5, "sweep": 2}
KINDS = [kind for kind in BRANCHES for _ in range(WEIGHTS.get(kind, 1))]
STEPS = st.sampled_from(KINDS).flatmap(BRANCHES.__getitem__)
# How a walk starts: outside the workflow, or entered by a maintainer's trigger or status label.
ENTRIES_BY_A_MAINTAINER = (
    st.none()
    | st.just(("trigger", MAINTAINER))
    | st.tuples(st.just("relabel"), st.sampled_from(STATES), st.just(MAINTAINER))
)


class Issue:
    """One issue on an in-memory GitHub, driven the way GitHub and `baton report` drive Baton."""

    def __init__(self) -> None:
        self.gh = SimGitHub(bot_login=POLICY.bot_login, now=START)
        for login, permission in PEOPLE.items():
            self.gh.set_permission(login, permission)
        self.number = self.gh.open_issue("Export the report as CSV", author=AUTHOR)
        self.runs = 0
        self.again: Callable[[], None] | None = None  # delivers the last event once more

    def deliver(self, name: str, payload: dict[str, Any], run_id: str | None = None) -> None:
        if run_id is None:
            self.runs += 1
            run_id = str(self.runs)
        event = webhooks.parse(name, payload, POLICY, now=self.gh.now, run_id=run_id)
        if isinstance(event, events.Sweep):
            sweep(self.gh, SETTINGS, now=self.gh.now, chain=CHAIN)
            return
        self.again = lambda: self.deliver(name, payload, run_id)
        if not isinstance(event, events.Ignored):
            handle(event, self.gh, SETTINGS, chain=CHAIN)

    def label(self, label: str, who: str) -> None:
        self.gh.human_label(self.number, label, by=who)
        self.deliver("issues", payloads.labeled(self.gh, self.number, label, sender=who))

    def record(self) -> Record | None:
        bodies = [
            c.body
            for c in record_comment.find_records(
                self.gh.comments_of(self.number), self.gh.bot_login
            )
        ]
        if not bodies:
            return None
        assert len(bodies) == 1, f"{len(bodies)} bot comments carry the record marker"
        assert len(bodies[0]) <= GITHUB_BODY_LIMIT
        return record_comment.parse(bodies[0])

    def step(self, action: tuple[Any, ...]) -> None:
        self.gh.now += timedelta(minutes=5)
        kind, *args = action
        if kind == "trigger":
            self.label(POLICY.trigger_label or "baton", args[0])
        elif kind == "relabel":
            state, who = args
            self.label(WORKFLOW.label_for(state, PREFIX), who)
        elif kind == "unknown label":
            self.label(*args)
        elif kind == "comment":
            body, who = args
            comment = self.gh.human_comment(self.number, body, author=who)
            self.deliver("issue_comment", payloads.comment_created(self.gh, comment.id))
        elif kind in {"report", "invalid report"}:
            self.report(*args)
        elif kind == "dispatch":
            payload = payloads.workflow_dispatch(
                self.gh, {"issue": self.number}, sender=self.gh.bot_login
            )
            self.deliver("workflow_dispatch", payload)
        elif kind == "sweep":
            self.gh.now += args[0]
            self.deliver("schedule", payloads.schedule("17 * * * *"))
        elif kind == "redeliver":  # GitHub delivers the same webhook again, or a run is re-run
            if self.again is not None:
                self.again()
        elif kind in {"close", "reopen"}:
            if kind == "close":
                self.gh.human_close(self.number, by=args[0])
            else:
                self.gh.human_reopen(self.number, by=args[0])
            action_name = "closed" if kind == "close" else "reopened"
            payload = payloads.issues(self.gh, self.number, action_name, sender=args[0])
            self.deliver("issues", payload)
        else:  # pragma: no cover - the strategy names every kind
            raise AssertionError(kind)

    def report(self, *args: Any) -> None:
        self.runs += 1
        if not args:
            result, error, agent = None, "the agent result is not JSON", None
        else:
            who, status, confidence, next_state, questions, issues_found = args
            record = self.record()
            due = WORKFLOW.agent_of(record.state) if record else None
            agent = {"whoever": None, "due": due, "ghost": "ghost"}[who]
            result = AgentResult(
                status=status,
                confidence=confidence,
                summary="Did the work; see the branch.",
                issues_found=issues_found,
                questions=questions,
                next_state=next_state,
            )
            error = None
        event = events.report(
            self.number,
            agent=agent,
            result=result,
            error=error,
            now=self.gh.now,
            run_id=f"report-{self.runs}",
        )
        handle(event, self.gh, SETTINGS, chain=CHAIN)

        def again() -> None:
            handle(event.model_copy(update={"at": self.gh.now}), self.gh, SETTINGS, chain=CHAIN)

        self.again = again


def transitions(record: Record) -> int:
    return record.compacted.entries + len(record.history)


LIVE_MENTION = re.compile(r"(?<![\w`])@[A-Za-z0-9]")


@dataclass(frozen=True)
class Seen:
    """What the issue looked like before a step, for the invariants that compare."""

    record: Record | None
    messages: tuple[str, ...]
    dispatches: int

    @classmethod
    def of(cls, issue: Issue, record: Record | None) -> Seen:
        said = tuple(messages_of(issue.gh, issue.number))
        return cls(record=record, messages=said, dispatches=len(issue.gh.dispatches))


# Who may cause each kind of move under the default config (approvers: write, maintainers:
# triage, answerers: the author or approvers); agents and Baton itself cause the rest.
MAY = {
    "entry": {MAINTAINER},
    "relabel": {MAINTAINER},
    "reopen": {MAINTAINER},
    "approval": {APPROVER, MAINTAINER},
    "command": {APPROVER, MAINTAINER},
    "reply": {AUTHOR, APPROVER, MAINTAINER},
}


def check_history(record: Record) -> None:
    """Every move is a table edge, forced by a human, or an escalation; terminal states stay."""
    for entry in record.history:
        if entry.trigger in MAY:
            assert entry.actor in MAY[entry.trigger], f"{entry.actor} may not cause {entry}"
        else:
            assert entry.actor not in PEOPLE, f"{entry.actor} is not an agent: {entry}"
        if entry.from_state is None:
            continue
        move = f"{entry.from_state} → {entry.to_state} ({entry.trigger})"
        if entry.trigger == "timeout":
            assert WORKFLOW.allows(entry.from_state, entry.to_state), move
        escalation = entry.trigger == "escalation" and entry.to_state == WORKFLOW.escalation.state
        assert entry.forced or escalation or WORKFLOW.allows(entry.from_state, entry.to_state), move
        if WORKFLOW.is_terminal(entry.from_state):
            assert entry.forced, f"a terminal state was left unforced: {move}"
    last = record.history[-1]
    assert (record.state, record.iteration, record.entered_at) == (
        last.to_state,
        last.iteration,
        last.at,
    ), "the record disagrees with its newest history entry"
    assert record.visits.get(record.state, 0) >= 1, "the current state was never visited"
    if record.dispatch is not None:
        assert record.dispatch.state == record.state, record.dispatch
        assert record.dispatch.agent == WORKFLOW.agent_of(record.state), record.dispatch


def check_invariants(issue: Issue, seen: Seen, action: tuple[Any, ...]) -> Record | None:
    """Everything that must hold after any step; `seen` is the issue before `action`."""
    before = seen.record
    labels = issue.gh.labels_of(issue.number)
    trigger = (POLICY.trigger_label or "").casefold()
    assert all(x.casefold() != trigger for x in labels), f"the trigger label stayed: {action}"
    now = Seen.of(issue, None)
    said = now.messages[len(seen.messages) :]
    assert len(said) <= 1, f"more than one message for {action}"
    for message in said:
        assert RECORD_OPEN not in message, f"a message carries the record marker: {action}"
        assert LIVE_MENTION.search(message) is None, f"a message pings someone: {message}"
    record = issue.record()
    if record is None:
        assert before is None, f"the record vanished after {action}"
        assert now.dispatches == seen.dispatches, "an agent was started outside the workflow"
        return None
    status = [x for x in labels if x.casefold().startswith(PREFIX)]
    assert status == [WORKFLOW.label_for(record.state, PREFIX)], (action, record.state)
    if now.dispatches > seen.dispatches:
        assert issue.gh.issues[issue.number].state == "open", "a closed issue ran an agent"
        assert not record.held and WORKFLOW.agent_of(record.state), f"no agent is due: {action}"
    if before is None:
        kind, *_, who = action
        assert kind in {"trigger", "relabel"} and who == MAINTAINER, f"entered by {action}"
        assert record.history[0].trigger == "entry", record.history[0]
    assert all(e.trigger != "rebuild" for e in record.history), f"a record was lost: {action}"
    check_history(record)
    if before is not None:
        assert transitions(record) - transitions(before) <= 1, f"two transitions in {action}"
        if record != before:
            assert record.revision > before.revision, f"revision not raised by {action}"
        if action[0] == "redeliver":
            assert transitions(record) == transitions(before), "a redelivered event moved again"
            assert not said, f"a redelivered event made Baton speak again: {said}"
        if WORKFLOW.is_terminal(before.state) and record.state != before.state:
            last = record.history[-1]
            assert last.forced and last.from_state == before.state, action
    return record


def play(entry: tuple[Any, ...] | None, steps: list[tuple[Any, ...]]) -> Record | None:
    issue = Issue()
    record: Record | None = None
    for action in [entry, *steps] if entry else steps:
        seen = Seen.of(issue, record)
        issue.step(action)
        record = check_invariants(issue, seen, action)
    return record


@NORMAL
@given(ENTRIES_BY_A_MAINTAINER, st.lists(STEPS, min_size=10, max_size=40))
def test_random_event_sequences_keep_the_state_invariants(
    entry: tuple[Any, ...] | None, steps: list[tuple[Any, ...]]
) -> None:
    play(entry, steps)


@pytest.mark.slow
@long_run
@LONG
@given(ENTRIES_BY_A_MAINTAINER, st.lists(STEPS, min_size=10, max_size=80))
def test_random_event_sequences_keep_the_state_invariants_long_run(
    entry: tuple[Any, ...] | None, steps: list[tuple[Any, ...]]
) -> None:
    play(entry, steps)


def report(confidence: float, *questions: str) -> tuple[Any, ...]:
    return ("report", "due", AgentStatus.success, confidence, None, list(questions), [])


TRIGGER = ("trigger", MAINTAINER)
HOSTILE_LABEL = "status:<!-- baton:record"


@pytest.mark.parametrize(
    ("entry", "steps", "state"),
    [
        pytest.param(
            TRIGGER,
            [
                report(0.9),
                report(0.6, "Which columns?"),
                report(0.9),
                ("comment", "Commas, please.", AUTHOR),
                ("sweep", timedelta(hours=6)),
            ],
            "requirements_clarified",
            id="the start of the demo walk",
        ),
        pytest.param(
            TRIGGER,
            [("sweep", timedelta(days=15)), ("redeliver",), ("dispatch",), ("redeliver",)],
            "received",
            id="sweeps and redelivered dispatches move nothing",
        ),
        pytest.param(
            ("relabel", "implementing", MAINTAINER),
            [],
            "implementing",
            id="a maintainer's status label is an entry, not a repair of a lost record",
        ),
        pytest.param(
            None,
            [("relabel", "completed", STRANGER)],
            None,
            id="a stranger's status label on an issue outside the workflow enters nothing",
        ),
        pytest.param(
            TRIGGER,
            [("unknown label", "status:bogus", AUTHOR), ("redeliver",)],
            "received",
            id="a redelivered unknown label is not complained about twice",
        ),
        pytest.param(
            TRIGGER,
            [
                report(0.0),
                ("close", AUTHOR),
                ("report", "due", AgentStatus.success, 0.5, "received", [], []),
            ],
            "analyzing_requirements",
            id="a refused proposal on a closed issue starts no retry run",
        ),
        pytest.param(
            TRIGGER,
            [("unknown label", HOSTILE_LABEL, AUTHOR)],
            "received",
            id="an unknown label that looks like the record marker forges no second record",
        ),
        pytest.param(
            None,
            [("unknown label", HOSTILE_LABEL, AUTHOR), TRIGGER],
            "received",
            id="an unknown label that looks like the record marker is not read as the record",
        ),
    ],
)
def test_known_sequences_keep_the_state_invariants(
    entry: tuple[Any, ...] | None, steps: list[tuple[Any, ...]], state: str | None
) -> None:
    """Named walks, some found by the properties above; each runs every invariant at every step."""
    record = play(entry, steps)

    assert (record.state if record else None) == state
