"""Two runs on one issue, interleaved at every point: nothing lost, nothing applied twice.

GitHub's concurrency group per issue serialises most runs, but not all of them: `baton report`
runs in the agent's own job, the sweep runs on a schedule, and a re-run or a re-delivered event
can land at any moment. So here a second run is played *inside* the first: the model's
`api.on_request` runs a complete `handle()` of another event just before the first run's k-th
request to GitHub, for every k the first run makes (its read, its re-check of the record, each
write, its dispatch), and once more after it has finished (the sequential baseline). The requests
are taken from a trace of the first run alone, so a new request in `src` is interleaved without
editing this file.

After both runs and one more — a workflow run for the issue, what Baton's own dispatch starts —
the issue must be sound: one record comment, one status label that is the record's, no transition
applied twice, and each event either applied or visibly considered (its id in the record's
processed list: a stale report or a refused command is remembered, and a refusal is said on the
issue). Where two events exclude each other (two approvals; an answer against the timeout),
exactly one of them applies.

What GitHub's API cannot guarantee: comments have no conditional write (no ETag/If-Match on
PATCH, no "create unless exists"). Between a run's re-check of the record and its write, another
run's write can land and be overwritten. The `..._is_bounded_by_...` tests document that window and
show how the next run bounds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from baton.issue.apply import tracker_labels
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from support.memory import (
    PEOPLE,
    comment_job,
    enter,
    enter_at,
    kick_job,
    label_of,
    labels_agree,
    messages_of,
    record_comments,
    record_of,
    relabel_job,
    report_job,
    seen_as,
    status_labels,
    sweep_run,
)

REPAIR_NOTE = "I repaired this issue's state"
Move = tuple[str, str, str]  # to, trigger, actor: the same whichever state the event finds
ANY = "*"


@dataclass
class Started:
    """An event that has happened (the label added, the comment posted), ready to be handled."""

    run: Callable[[], object]
    event_id: str | None  # None: a sweep, whose ticks carry no id


@dataclass(frozen=True)
class Side:
    start: Callable[[SimGitHub, Settings], Started]
    move: Move
    what: str
    can_apply: bool = True  # False: refused whenever it runs (its memory is all there is to keep)


def _job(factory: Callable[[SimGitHub, Settings], Any]) -> Callable[..., Started]:
    def start(gh: SimGitHub, settings: Settings) -> Started:
        job = factory(gh, settings)
        return Started(run=job.run, event_id=job.event_at(gh.now).id)

    return start


def _sweep(gh: SimGitHub, settings: Settings) -> Started:
    return Started(run=lambda: sweep_run(gh, settings, after=timedelta(0)), event_id=None)


REPORT = Side(
    _job(lambda gh, s: report_job(gh, s, "pm")),
    ("analyzing_requirements", "report", "pm"),
    "the pm's report",
)
TWIN_REPORT = Side(REPORT.start, REPORT.move, "a second report from another pm run")
RERUN = Side(REPORT.start, REPORT.move, "the re-run of the same job")  # see `play`
RELABEL = Side(
    _job(lambda gh, s: relabel_job(gh, s, "status:implementing", "maria")),
    ("implementing", "relabel", "maria"),
    "maria's relabel",
)
QUESTIONS = Side(
    _job(lambda gh, s: report_job(gh, s, "pm", confidence=0.6, questions=["Commas?"])),
    ("waiting_for_requirements_clarification", "report", "pm"),
    "the pm's questions",
)
RELABEL_BLOCKED = Side(
    _job(lambda gh, s: relabel_job(gh, s, "status:blocked", "maria")),
    ("blocked", "relabel", "maria"),
    "maria's relabel",
)
APPROVAL = Side(
    _job(lambda gh, s: comment_job(gh, s, "Approved.", "wendy")),
    ("human_input_received", "approval", "wendy"),
    "wendy's approval",
)
SECOND_APPROVAL = Side(
    _job(lambda gh, s: comment_job(gh, s, "approved — LGTM", "maria")),
    ("human_input_received", "approval", "maria"),
    "maria's approval",
)
ANSWER = Side(
    _job(lambda gh, s: comment_job(gh, s, "Commas, please.", "alice")),
    ("requirements_clarified", "reply", "alice"),
    "alice's answer",
)
TIMEOUT = Side(_sweep, ("blocked", "timeout", "baton"), "the timeout sweep")
ENTRY = Side(
    _job(lambda gh, s: relabel_job(gh, s, "baton", "maria")),
    (ANY, "entry", "maria"),  # brought in: at received, or where her status label said
    "maria's trigger label",
)
REFUSED_RELABEL = Side(
    _job(lambda gh, s: relabel_job(gh, s, "status:implementing", "bob")),
    ("implementing", "relabel", "bob"),
    "bob's relabel",
    can_apply=False,  # bob may not force states
)
LATE_REPORT = Side(
    _job(lambda gh, s: report_job(gh, s, "analyst")),
    ("creating_tests", "report", "analyst"),
    "a late report from the analyst",
    can_apply=False,  # nobody waits on the analyst
)


def _received(gh: SimGitHub, settings: Settings) -> None:
    enter(gh, settings)


def _unclear(gh: SimGitHub, settings: Settings) -> None:
    enter_at(gh, settings, "requirements_unclear")


def _awaiting_approval(gh: SimGitHub, settings: Settings) -> None:
    enter_at(gh, settings, "waiting_for_human_input")


def _questions_a_week_old(gh: SimGitHub, settings: Settings) -> None:
    enter_at(gh, settings, "waiting_for_requirements_clarification")
    gh.now += timedelta(days=8)


def _outside(gh: SimGitHub, settings: Settings) -> None:
    """Issue #1 is not in the workflow yet."""


@dataclass(frozen=True)
class Race:
    setup: Callable[[SimGitHub, Settings], None]
    first: Side
    second: Side
    settles_in: str  # the state the issue ends in, whatever the interleaving
    exclusive: bool = False  # the two moves exclude each other: exactly one of them applies


RACES = {
    "a report against a maintainer's relabel": Race(_received, REPORT, RELABEL, "implementing"),
    "a maintainer's relabel against a report": Race(_received, RELABEL, REPORT, "implementing"),
    "a report against its own re-run": Race(_received, REPORT, RERUN, "analyzing_requirements"),
    "a report against a twin report from another pm run": Race(
        _received, REPORT, TWIN_REPORT, "analyzing_requirements", exclusive=True
    ),
    "the pm's questions against a maintainer's relabel": Race(
        _unclear, QUESTIONS, RELABEL, "implementing"
    ),
    "an approval against a maintainer's relabel": Race(
        _awaiting_approval, APPROVAL, RELABEL_BLOCKED, "blocked"
    ),
    "two approvals": Race(
        _awaiting_approval, APPROVAL, SECOND_APPROVAL, "human_input_received", exclusive=True
    ),
    "an answer against the timeout sweep": Race(
        _questions_a_week_old, ANSWER, TIMEOUT, "", exclusive=True
    ),
    "the timeout sweep against an answer": Race(
        _questions_a_week_old, TIMEOUT, ANSWER, "", exclusive=True
    ),
    "the trigger label against a maintainer's status label": Race(
        _outside, ENTRY, RELABEL, "implementing"
    ),
    "an approval against an unauthorised relabel": Race(
        _awaiting_approval, APPROVAL, REFUSED_RELABEL, "human_input_received"
    ),
    "an unauthorised relabel against an approval": Race(
        _awaiting_approval, REFUSED_RELABEL, APPROVAL, "human_input_received"
    ),
    "an answer against a late report": Race(
        _questions_a_week_old, ANSWER, LATE_REPORT, "requirements_clarified"
    ),
}


# --- where the second run can land --------------------------------------------------------
def fresh() -> tuple[SimGitHub, Settings]:
    """What the `gh` and `settings` fixtures give, for tracing at collection time."""
    gh = SimGitHub(labels=tracker_labels(load_config(None)))
    for login, permission in PEOPLE.items():
        gh.set_permission(login, permission)
    gh.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return gh, load_config(None)


def trace(race: Race) -> list[str]:
    """The requests the first run sends when it runs alone, as `seen_as` tells them."""
    gh, settings = fresh()
    race.setup(gh, settings)
    started = race.first.start(gh, settings)
    calls: list[str] = []
    gh.api.on_request = lambda call: calls.append(seen_as(call))
    started.run()
    gh.api.on_request = None
    return calls


LOOKS = ("BatonRead", "BatonRecordCheck")  # the requests that read the record


def in_window(race: Race, calls: list[str], index: int) -> bool:
    """Whether the second run lands between the first's last look at the record and its write:
    after that read, up to the write document that edits the record (or, for the entry, creates
    the first record: nothing to check)."""
    if index >= len(calls):
        return False

    def writes_record(call: str) -> bool:
        return call.startswith("BatonWrite") and (
            "updateIssueComment" in call or (race.first is ENTRY and "addComment" in call)
        )

    write = next((i for i in range(index, len(calls)) if writes_record(calls[i])), None)
    if write is None:
        return False
    looks = [i for i in range(write) if calls[i] in LOOKS]
    return bool(looks) and index > looks[-1]


def interleavings(*, window: bool) -> Iterator[Any]:
    for name, race in RACES.items():
        calls = trace(race)
        for index in range(len(calls) + 1):
            if in_window(race, calls, index) != window:
                continue
            where = (
                f"before its {calls[index]} (request {index + 1})"
                if index < len(calls)
                else "after it has finished"
            )
            yield pytest.param(name, index, id=f"{name}: the second lands {where}")


def play(gh: SimGitHub, settings: Settings, race: Race, index: int) -> list[Started]:
    """Run the first event with the second run inside it, before its `index`-th call."""
    race.setup(gh, settings)
    first = race.first.start(gh, settings)
    played: list[Started] = [first]
    calls = 0

    def second() -> None:
        # A re-run handles the very same event (same run id); anything else happens now.
        started = first if race.second is RERUN else race.second.start(gh, settings)
        played.append(started)
        started.run()

    def land(call: object) -> None:
        nonlocal calls
        calls += 1
        if calls == index + 1:
            second()

    gh.api.on_request = land
    first.run()
    gh.api.on_request = None
    if len(played) == 1:  # the baseline: the second comes after the first has finished
        second()
    return played


def applied(gh: SimGitHub, move: Move) -> int:
    record = record_of(gh)
    assert record is not None
    to, trigger, actor = move
    return sum(
        1
        for e in record.history
        if (e.trigger, e.actor) == (trigger, actor) and to in (ANY, e.to_state)
    )


def considered(gh: SimGitHub, started: Started) -> bool:
    record = record_of(gh)
    return bool(record and started.event_id and started.event_id in record.processed)


def kick(gh: SimGitHub, settings: Settings) -> None:
    """The one more run: a workflow run started for the issue (what Baton's dispatch starts, or
    a maintainer by hand). Unlike the sweep, which reads an issue only when its listing looks
    due, it always reads the issue, so it repairs what a stale write left."""
    kick_job(gh, settings).run()


def assert_settled(gh: SimGitHub, settings: Settings) -> None:
    record = record_of(gh)
    assert record is not None
    assert len(record_comments(gh)) == 1, "never two record comments after the next run"
    assert labels_agree(gh, settings), (status_labels(gh), record.state, gh.log)
    assert len(record.processed) == len(set(record.processed))


# --- the races ----------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "index"), list(interleavings(window=False)))
def test_two_runs_interleaved_lose_nothing_and_apply_nothing_twice(gh, settings, name, index):
    race = RACES[name]
    first, second = play(gh, settings, race, index)

    kick(gh, settings)

    assert_settled(gh, settings)
    sides = [(race.first, first), (race.second, second)]
    for side, _ in sides:
        assert applied(gh, side.move) <= 1, f"{side.what} was applied twice"
    if race.exclusive:
        assert sum(applied(gh, move) for move in {s.move for s, _ in sides}) == 1, gh.log
    else:
        for side, started in sides:
            assert applied(gh, side.move) == 1 or considered(gh, started), (
                f"{side.what} was lost",
                record_of(gh).history,
            )
    if race.settles_in:
        assert record_of(gh).state == race.settles_in


@pytest.mark.parametrize(("name", "index"), list(interleavings(window=True)))
def test_a_write_between_the_recheck_and_the_patch_is_bounded_by_the_next_run(
    gh, settings, name, index
):
    """GitHub has no conditional write on comments (no If-Match on PATCH, no create-unless-
    exists), so the record cannot be compare-and-swapped: a run that re-checked the record and
    then PATCHes it overwrites whatever another run wrote in between, and two runs that find no
    record both create one. The window is one HTTP round trip wide. The next run bounds it: the
    oldest record comment is kept and the other deleted; the labels the overwritten run left
    disagree with the record, so they are put back with a note that names them (the maintainer
    sees their relabel was undone); a human comment the overwritten run had handled is caught up
    again while the issue still waits; a refused event's refusal is already on the issue. So
    nothing is applied twice, exclusive events still apply exactly once, and whatever is lost is
    said on the issue."""
    race = RACES[name]
    first, second = play(gh, settings, race, index)

    kick(gh, settings)

    assert_settled(gh, settings)
    said = "\n".join(messages_of(gh))
    sides = [(race.first, first), (race.second, second)]
    if race.exclusive:
        assert sum(applied(gh, move) for move in {s.move for s, _ in sides}) == 1, gh.log
    for side, started in sides:
        to, _, actor = side.move
        assert applied(gh, side.move) <= 1, f"{side.what} was applied twice"
        kept = applied(gh, side.move) == 1 or considered(gh, started)
        reverted = REPAIR_NOTE in said and to != ANY and label_of(settings, to) in said
        answered = f"`{actor}`" in said  # a refusal names whom it answers
        harmless = race.exclusive or not side.can_apply
        assert kept or reverted or answered or harmless, (f"{side.what} was lost", gh.log)


def test_every_race_is_interleaved_at_every_call_of_the_first_run():
    """The matrix is built from traces; this keeps it from shrinking to nothing unnoticed."""
    points = list(interleavings(window=False)) + list(interleavings(window=True))
    assert len(points) == sum(len(trace(race)) + 1 for race in RACES.values())
    for race in RACES.values():
        calls = trace(race)
        # the read, the record re-checked, and a write that edits the record and its labels
        edits = [c for c in calls if c.startswith("BatonWrite: updateIssueComment")]
        first_edit = edits[0] if edits else ""
        labelled = "LabelsToLabelable" in first_edit or "LabelsFromLabelable" in first_edit
        assert ({"BatonRead", "BatonRecordCheck"} <= set(calls) and labelled) or (
            race.first is ENTRY or race.first is TIMEOUT
        )


# --- runs out of order: the named cases behind the matrix ---------------------------------
OTHERS = {
    "an unauthorised relabel": lambda gh, s: relabel_job(gh, s, "status:implementing", "bob"),
    "an unknown status label": lambda gh, s: relabel_job(gh, s, "status:wontfix", "bob"),
    "a late report": lambda gh, s: report_job(gh, s, "analyst"),
}


@pytest.mark.parametrize("other", list(OTHERS))
def test_an_approval_whose_run_comes_after_another_events_run_still_counts(gh, settings, other):
    """Runs do not start in the order their events happened. The record's comment floor
    (`last_comment_id`) says which human comments have been considered; a run for a label or a
    report does not consider comments (catch-up skips them), so it must not lift the floor past
    an approval whose own run is still to come, or that run finds it "already handled"."""
    enter_at(gh, settings, "waiting_for_human_input")
    approval = comment_job(gh, settings, "Approved.", "wendy")
    OTHERS[other](gh, settings).run()

    result = approval.run()

    assert record_of(gh).state == "human_input_received", result.decision.reason
    assert applied(gh, APPROVAL.move) == 1
    assert result.decision.agent == "pm"
    assert labels_agree(gh, settings)


def test_a_relabel_whose_payload_labels_went_stale_still_leaves_its_label_on(gh, settings):
    """A payload carries the labels as they were when the event fired. Here a report's run goes
    first, takes maria's new label for drift and removes it; her run then writes the record and
    diffs the labels against its stale snapshot, which still shows the label, so it never puts it
    back. The run that writes the record last must leave the labels agreeing with it."""
    enter(gh, settings)
    relabel = relabel_job(gh, settings, "status:implementing", "maria")
    report_job(gh, settings, "pm").run()

    relabel.run()

    assert record_of(gh).state == "implementing"
    assert status_labels(gh) == ["status:implementing"]
