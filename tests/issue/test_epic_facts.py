"""What an epic's or a task's run reads of the other side (`issue.epic_facts`), over an epic
played in memory: the conductor's observations (one sub-issue query, one read of the unfinished
tasks' records), a waiting task's order from its epic's record, the mark trusted only on the
bot's issues, and nothing read twice or for a label event."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from baton.core.model.epic import TaskLink, TaskObservation, TaskOrder, TaskStatus
from baton.core.model.events import Dispatched, Event, Labeled, Tick
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import Record
from baton.core.rules.route import decide
from baton.core.text import task_marker as marker
from baton.github.tracker import Tracker
from baton.issue import epic_facts
from baton.issue.fulfil import Asked, fulfil
from baton.issue.record_comment import render
from baton.sim import payloads
from baton.sim.actions import Actions, Play
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, Settings, settings_from

PLAN = [
    {"key": "base", "title": "The base"},
    {"key": "top", "title": "On top", "depends_on": ["base"]},
    {"key": "side", "title": "Beside"},
]
BOT = Actor(login="github-actions[bot]", is_bot=True)


@dataclass
class World:
    gh: SimGitHub
    actions: Actions
    settings: Settings
    epic: int

    def record(self, number: int) -> Record:
        found = self.actions.record(number)
        assert found is not None
        return found

    def settings_of(self, number: int) -> Settings:
        return self.settings.for_labels(self.gh.labels_of(number))

    def task(self, key: str) -> int:
        epic = self.record(self.epic).epic
        assert epic is not None
        number = next(t.number for t in epic.tasks if t.key == key)
        assert number is not None
        return number

    def calls(self) -> Counter[str]:
        self.gh.calls.clear()
        return self.gh.calls


def looked(
    event: Event,
    record: Record | None,
    issue: IssueInfo,
    tracker: Tracker,
    settings: Settings,
    facts: Facts = NO_FACTS,
) -> Facts:
    """What the run holds after `decide` asked on `event` and the fulfilment answered."""
    decision = decide(record, event, settings.workflow, settings.policy, facts)
    if decision.asks is None:
        return facts
    return fulfil(decision.asks, facts, Asked(record, issue, event.at), tracker, settings, [])


def _set_labels(w: World, number: int, names: list[str]) -> None:
    """The issue carries exactly `names` (labels the repository has), set behind Baton's back."""
    for name in names:
        if w.gh.api._find_label(name) is None:
            w.gh.add_label(name)
    w.gh.issues[number].labels = names


def _world() -> World:
    """An epic in implementing: `base` and `side` started (in_progress, records of their own),
    `top` pending on `base` (never ran: no record)."""
    settings = settings_from(Config.model_validate({}))
    gh = SimGitHub()
    gh.set_permission("maria", "maintain")

    def agent(number: int, name: str, record: Record | None) -> Play | None:
        if name == "discovery":
            return Play({"spec": "The spec.", "categories": ["purpose", "users"]})
        if name == "planner":
            return Play({"tasks": PLAN})
        return None  # the developers never report: their tasks stay in progress

    actions = Actions(gh, settings, agent)
    epic = gh.open_issue("Teams", "Teams please.", author="alice")
    gh.human_label(epic, "baton:epic", by="maria")
    actions.event("issues", payloads.labeled(gh, epic, "baton:epic", sender="maria"))
    comment = gh.human_comment(epic, "approved", author="maria")
    actions.event("issue_comment", payloads.comment_created(gh, comment.id))
    actions.drain()
    world = World(gh, actions, settings, epic)
    assert world.record(epic).state == "implementing"
    return world


def _dispatched(w: World, number: int) -> Dispatched:
    return Dispatched(id=f"d{number}", issue=w.gh.issue(number), actor=BOT, at=w.gh.now, run_id="r")


# --- the epic's observations ---------------------------------------------------------------
def test_observe_reads_sub_issues_once_and_the_unfinished_records_once() -> None:
    w = _world()
    base, top, side = w.task("base"), w.task("top"), w.task("side")
    calls = w.calls()
    seen = epic_facts.observe(w.record(w.epic), w.gh, w.settings_of(w.epic), now=w.gh.now)
    assert calls["sub_issues"] == 1 and calls["read_many"] == 1
    assert calls["comments"] == 0 and calls["issue"] == 0
    by = {o.number: o for o in seen}
    assert [o.number for o in seen] == [base, top, side]
    assert by[base] == TaskObservation(
        number=base,
        open=True,
        status=TaskStatus.in_progress,
        link=w.record(base).task,
        spend=w.record(base).spend,
        attempt=1,
    )
    assert by[base].link == TaskLink(epic=w.epic, key="base", starts_taken=1)
    assert by[top] == TaskObservation(number=top, status=TaskStatus.pending)
    assert by[side].status is TaskStatus.in_progress and by[side].attempt == 1


def test_a_sub_issue_not_in_the_plan_is_ignored_and_not_read() -> None:
    w = _world()
    stray = w.gh.open_issue("Stray", "Someone's own sub-issue.", author="bob")
    w.gh.add_sub_issue(w.epic, stray)
    read: list[list[int]] = []
    original = w.gh.read_many

    def spy(numbers: list[int]) -> dict[int, object]:
        read.append(list(numbers))
        return original(numbers)  # type: ignore[return-value]

    w.gh.read_many = spy  # type: ignore[method-assign]
    seen = epic_facts.observe(w.record(w.epic), w.gh, w.settings_of(w.epic), now=w.gh.now)
    assert stray not in {o.number for o in seen} and len(seen) == 3
    assert read == [[w.task("base"), w.task("top"), w.task("side")]]


def test_a_finished_task_is_not_read_again() -> None:
    w = _world()
    base = w.task("base")
    record = w.record(w.epic)
    assert record.epic is not None
    done = [
        t.model_copy(update={"status": TaskStatus.completed}) if t.number == base else t
        for t in record.epic.tasks
    ]
    record = record.model_copy(update={"epic": record.epic.model_copy(update={"tasks": done})})
    _set_labels(w, base, ["baton:task", "status:completed"])
    read: list[list[int]] = []
    original = w.gh.read_many
    w.gh.read_many = lambda numbers: read.append(list(numbers)) or original(numbers)  # type: ignore[method-assign]
    seen = epic_facts.observe(record, w.gh, w.settings_of(w.epic), now=w.gh.now)
    assert base not in read[0]
    by = {o.number: o for o in seen}
    assert by[base].status is TaskStatus.completed and by[base].link is None


def test_labels_that_disagree_defer_to_the_tasks_record() -> None:
    """Two status labels, or one lagging the record: the record is the memory."""
    w = _world()
    side = w.task("side")
    _set_labels(w, side, ["baton:task", "status:pending", "status:in-progress"])
    seen = epic_facts.observe(w.record(w.epic), w.gh, w.settings_of(w.epic), now=w.gh.now)
    task = w.record(side)
    assert task is not None
    assert {o.number: o for o in seen}[side].status == TaskStatus(task.state)


def test_an_epics_pass_asks_for_its_tasks_and_they_are_observed_once() -> None:
    w = _world()
    event = _dispatched(w, w.epic)
    record, issue, settings = w.record(w.epic), w.gh.issue(w.epic), w.settings_of(w.epic)
    calls = w.calls()
    out = looked(event, record, issue, w.gh, settings)
    assert out.tasks is not None and len(out.tasks) == 3
    assert calls["sub_issues"] == 1 and calls["read_many"] == 1
    calls = w.calls()
    again = looked(event, record, issue, w.gh, settings, out)
    assert again is out and sum(calls.values()) == 0  # nothing read twice


def test_a_label_event_reads_nothing() -> None:
    w = _world()
    event = Labeled(
        id="l1",
        issue=w.gh.issue(w.epic),
        actor=Actor(login="maria"),
        at=w.gh.now,
        label="bug",
        added=True,
        run_id="r",
    )
    record, issue, settings = w.record(w.epic), w.gh.issue(w.epic), w.settings_of(w.epic)
    known = Facts(permissions={"maria": "maintain"}, teams={"maria": ()})  # looked up already
    calls = w.calls()
    out = looked(event, record, issue, w.gh, settings, known)
    assert out is known and sum(calls.values()) == 0


# --- a task's order ------------------------------------------------------------------------
def test_a_waiting_task_reads_its_order_from_the_epic_record() -> None:
    w = _world()
    top = w.task("top")
    issue = w.gh.issue(top)
    assert issue.author == w.gh.bot_login
    calls = w.calls()
    order = epic_facts.order_for(None, issue, w.gh, w.settings_of(top), now=w.gh.now)
    assert order == TaskOrder(
        epic=w.epic,
        key="top",
        epic_state="implementing",
        known=True,
        starts=0,
        block=False,
        base_branch="baton/issue-1",
    )
    assert sum(calls.values()) == 1  # the epic's comments, one read


def test_a_started_task_reads_its_starts_through_its_record() -> None:
    w = _world()
    base = w.task("base")
    record = w.record(base)
    order = epic_facts.order_for(record, w.gh.issue(base), w.gh, w.settings_of(base), now=w.gh.now)
    assert order is not None and order.starts == 1 and order.known and order.key == "base"


def test_the_order_carries_a_block() -> None:
    w = _world()
    top = w.task("top")
    record = w.record(w.epic)
    assert record.epic is not None
    tasks = [
        t.model_copy(update={"block": True}) if t.key == "top" else t for t in record.epic.tasks
    ]
    _write_epic(
        w, record.model_copy(update={"epic": record.epic.model_copy(update={"tasks": tasks})})
    )
    order = epic_facts.order_for(None, w.gh.issue(top), w.gh, w.settings_of(top), now=w.gh.now)
    assert order is not None and order.block and order.known


def _write_epic(w: World, record: Record) -> None:
    """The epic's next record, as its own run would write it."""
    record = record.model_copy(update={"revision": record.revision + 1})
    w.gh.create_comment(w.epic, render(record, agent=None, written_at=w.gh.now))


def test_a_replaced_task_is_not_known() -> None:
    w = _world()
    side = w.task("side")
    record = w.record(w.epic)
    assert record.epic is not None
    tasks = [
        t.model_copy(update={"replaced_by": "side"}) if t.key == "side" else t
        for t in record.epic.tasks
    ]
    _write_epic(
        w, record.model_copy(update={"epic": record.epic.model_copy(update={"tasks": tasks})})
    )
    assert w.record(w.epic).epic.tasks[2].replaced_by == "side"  # type: ignore[union-attr]
    order = epic_facts.order_for(
        w.record(side), w.gh.issue(side), w.gh, w.settings_of(side), now=w.gh.now
    )
    assert order is not None and not order.known and order.starts == 1


def test_a_task_whose_key_differs_is_not_known() -> None:
    w = _world()
    side = w.task("side")
    record = w.record(side)
    assert record.task is not None
    other = record.model_copy(update={"task": record.task.model_copy(update={"key": "base"})})
    order = epic_facts.order_for(other, w.gh.issue(side), w.gh, w.settings_of(side), now=w.gh.now)
    assert order is not None and not order.known and order.key == "base"


def test_a_human_opened_issue_with_a_copied_mark_gets_no_order() -> None:
    w = _world()
    copy = w.gh.open_issue("Me too", "Pick me.\n" + marker.render(w.epic, "top"), author="mallory")
    w.gh.human_label(copy, "baton:task", by="maria")
    calls = w.calls()
    issue = w.gh.issue(copy)
    calls.clear()
    order = epic_facts.order_for(None, issue, w.gh, w.settings_of(copy), now=w.gh.now)
    assert order is None and sum(calls.values()) == 0
    tick = Tick(id="t", issue=issue, actor=BOT, at=w.gh.now, run_id="r")
    out = looked(tick, None, issue, w.gh, w.settings_of(copy))
    assert out.order is None and out.orderless, "asked once: no epic's"


def test_the_bots_issue_not_in_the_plan_is_not_known() -> None:
    w = _world()
    extra = w.gh.open_issue("Extra", marker.render(w.epic, "top"), author=w.gh.bot_login)
    order = epic_facts.order_for(None, w.gh.issue(extra), w.gh, w.settings_of(extra), now=w.gh.now)
    assert order is not None and not order.known and order.starts == 0


def test_a_mark_for_an_issue_that_is_no_epic_gives_no_order() -> None:
    w = _world()
    plain = w.gh.open_issue("Plain", "x", author="alice")
    extra = w.gh.open_issue("Extra", marker.render(plain, "top"), author=w.gh.bot_login)
    assert epic_facts.order_for(None, w.gh.issue(extra), w.gh, w.settings, now=w.gh.now) is None


def test_a_waiting_tasks_dispatch_asks_for_its_order_once() -> None:
    w = _world()
    top = w.task("top")
    event = _dispatched(w, top)
    out = looked(event, None, w.gh.issue(top), w.gh, w.settings_of(top))
    assert out.order is not None and out.order.key == "top"
    issue, settings = w.gh.issue(top), w.settings_of(top)
    calls = w.calls()
    again = looked(event, None, issue, w.gh, settings, out)
    assert again is out and sum(calls.values()) == 0


def test_a_running_task_reads_no_order() -> None:
    w = _world()
    base = w.task("base")
    event = _dispatched(w, base)
    record, issue, settings = w.record(base), w.gh.issue(base), w.settings_of(base)
    known = Facts(permissions={"maria": "maintain"}, teams={"maria": ()})  # looked up already
    calls = w.calls()
    out = looked(event, record, issue, w.gh, settings, known)
    assert out is known and sum(calls.values()) == 0
