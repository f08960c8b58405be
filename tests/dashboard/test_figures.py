"""The dashboard's figures from records whose histories are known, compared number for number."""

from __future__ import annotations

import pytest

from baton.core.model.epic import Cost, RoleSpend, Spend
from baton.dashboard.figures import figures, rework_rounds, waiting_on
from baton.dashboard.model import Figures, Unreadable, Worked
from baton.sim.scenario.format import demo_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config
from baton.workflow.model import Workflow, load_preset
from support.records import at, record, spend, work

LIFECYCLE = load_preset("issue-lifecycle")
WORKFLOWS: dict[str, Workflow] = {LIFECYCLE.name: LIFECYCLE}
BOT = "github-actions[bot]"
NOW = at(60 * 24 * 10)  # ten days after the first move


def compute(*worked: Worked, unreadable: tuple[Unreadable, ...] = ()) -> Figures:
    return figures(worked, unreadable, WORKFLOWS, now=NOW, window_days=90, bot_login=BOT)


# --- the demo's lifecycle ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo() -> Figures:
    settings = load_config(None)
    player = Player(demo_scenario(), settings, lambda _: None)
    player.play()
    found = player.record()
    assert found is not None
    item = Worked(number=1, title="Export the report as CSV", open=True, record=found)
    return figures(
        [item],
        [],
        WORKFLOWS,
        now=player.gh.now,
        window_days=90,
        bot_login=settings.policy.bot_login,
    )


def test_the_demo_ends_completed_and_waits_on_no_one(demo: Figures) -> None:
    assert demo.by_state == {"completed": 1}
    assert demo.waiting == []


def test_the_demo_took_eighty_minutes_from_entry_to_merge(demo: Figures) -> None:
    assert (demo.lead_time.count, demo.lead_time.median, demo.lead_time.p90) == (1, 4800, 4800)
    assert demo.slowest is not None and demo.slowest.seconds == 4800
    assert len(demo.slowest.path) == 16


def test_the_demo_waited_twice_for_the_review(demo: Figures) -> None:
    times = {t.state: (t.count, t.median, t.p90) for t in demo.state_times}
    assert times["waiting_for_human_input"] == (2, 450, 600)
    assert times["creating_pr"] == (2, 300, 300)
    assert "completed" not in times  # the state it is still in has not ended


def test_the_demo_went_round_once_after_the_review(demo: Figures) -> None:
    assert (demo.rework.rounds, demo.rework.issues) == (1, 1)
    assert demo.rework.sent_back_by == {"addressing_feedback": 1}
    assert demo.rework.redone == {"creating_pr": 1, "waiting_for_human_input": 1}


def test_the_demo_had_five_human_touchpoints(demo: Figures) -> None:
    assert demo.humans.touchpoints == 5
    assert demo.humans.by_kind == {"review": 2, "entry": 1, "merge": 1, "reply": 1}


def test_the_demo_merged_its_one_pull_request(demo: Figures) -> None:
    out = demo.outcomes
    assert (out.opened, out.merged, out.closed_unmerged, out.open) == (1, 1, 0, 0)
    assert out.merge_rate == 1.0
    assert out.failed_attempts == {}


def test_the_demo_spent_eleven_runs_all_on_the_merged_pull_request(demo: Figures) -> None:
    assert demo.spend.total.runs == 11
    assert demo.spend.per_merged is not None and demo.spend.per_merged.runs == 11
    assert demo.spend.runs_per_role == {"pm": 5, "developer": 3, "tester": 2, "analyst": 1}
    kept = {role: spent.runs for role, spent in demo.spend.per_role.items()}
    assert kept == demo.spend.runs_per_role  # the record's own per-role spend, not the history
    assert demo.spend.roles_from_history == 0


# --- hand-made histories -------------------------------------------------------------------------
FIX_LOOP = [
    (0, "received", "maria", "entry"),
    (10, "analyzing_requirements", "pm", "report"),
    (20, "creating_tests", "pm", "report"),
    (30, "implementing", "tester", "report"),
    (60, "running_tests", "developer", "report"),
    (70, "fixing_issues", "tester", "report"),
    (100, "running_tests", "developer", "report"),
    (110, "fixing_issues", "tester", "report"),
    (130, "running_tests", "developer", "report"),
    (140, "creating_pr", "tester", "report"),
]


def test_each_return_of_a_fix_loop_is_a_round_sent_back_by_the_fixer() -> None:
    fixed = record(2, FIX_LOOP, work=work(7))
    assert [e.to_state for e in rework_rounds(fixed.history)] == ["running_tests", "running_tests"]
    found = compute(Worked(2, "Fix it", True, fixed))
    assert (found.rework.rounds, found.rework.sent_back_by) == (2, {"fixing_issues": 2})
    assert found.rework.redone == {"running_tests": 2, "fixing_issues": 1}
    times = {t.state: (t.count, t.median, t.p90) for t in found.state_times}
    assert times["running_tests"] == (3, 600, 600)
    assert times["fixing_issues"] == (2, 1500, 1800)


def test_a_stuck_issue_waits_on_a_humans_answer_for_as_long_as_it_has() -> None:
    stuck = record(
        3,
        [
            (0, "received", "maria", "entry"),
            (5, "analyzing_requirements", "pm", "report"),
            (15, "requirements_unclear", "analyst", "report"),
            (20, "waiting_for_requirements_clarification", "pm", "report"),
        ],
    )
    found = compute(Worked(3, "Unclear", True, stuck))
    [waiting] = found.waiting
    assert (waiting.number, waiting.state, waiting.on, waiting.kind) == (
        3,
        "waiting_for_requirements_clarification",
        "a human's answer",
        "human",
    )
    assert waiting.seconds == int((NOW - at(20)).total_seconds()) == 862_800


def test_a_ready_pull_request_waits_on_its_review_and_a_work_state_on_its_agent() -> None:
    review = record(
        4,
        [(0, "received", "maria", "entry"), (5, "waiting_for_human_input", "pm", "report")],
        work=work(9),
    )
    coding = record(5, [(0, "received", "maria", "entry"), (5, "implementing", "pm", "report")])
    assert waiting_on(review, LIFECYCLE) == (
        "a review of pull request 9 (and its checks)",
        "pull_request",
    )
    assert waiting_on(coding, LIFECYCLE) == ("the developer", "agent")
    held = coding.model_copy(update={"held": True, "escalated_from": "implementing"})
    assert waiting_on(held, LIFECYCLE) == ("a human: held after implementing", "human")
    bare = record(6, [(0, "waiting_for_human_input", "maria", "entry")])
    assert waiting_on(bare, LIFECYCLE) == ("a human's answer or approval", "human")


def test_waits_are_listed_oldest_first_and_closed_issues_are_not() -> None:
    young = record(7, [(0, "received", "maria", "entry"), (600, "implementing", "pm", "report")])
    old = record(8, [(0, "received", "maria", "entry"), (60, "implementing", "pm", "report")])
    gone = record(9, [(0, "received", "maria", "entry")])
    found = compute(
        Worked(7, "y", True, young), Worked(8, "o", True, old), Worked(9, "g", False, gone)
    )
    assert [w.number for w in found.waiting] == [8, 7]
    assert (found.issues, found.open_issues) == (3, 2)


def test_a_closed_unmerged_pull_request_halves_the_merge_rate() -> None:
    merged = record(10, FIX_LOOP[:4], work=work(11, "merged"))
    closed = record(12, FIX_LOOP[:4], work=work(13, "closed"))
    still = record(14, FIX_LOOP[:4], work=work(15))
    none = record(16, FIX_LOOP[:2])
    found = compute(*(Worked(r.issue, "t", True, r) for r in (merged, closed, still, none)))
    out = found.outcomes
    assert (out.opened, out.merged, out.closed_unmerged, out.open) == (3, 1, 1, 1)
    assert out.merge_rate == 0.5


def test_failed_attempts_count_escalations_and_the_current_retries_by_role() -> None:
    escalated = record(
        17,
        [
            (0, "received", "maria", "entry"),
            (5, "implementing", "pm", "report"),
            (50, "requires_human_intervention", "developer", "escalation"),
        ],
        reasons={2: "the developer failed; attempt 3 of 3 failed"},
    )
    retrying = record(18, FIX_LOOP[:4], attempt=2)
    held = record(19, FIX_LOOP[:2], attempt=3, held=True, escalated_from="analyzing_requirements")
    found = compute(*(Worked(r.issue, "t", True, r) for r in (escalated, retrying, held)))
    assert found.outcomes.failed_attempts == {"developer": 4, "analyst": 3}


def test_spend_is_summed_per_issue_and_shared_over_the_merged_pull_requests() -> None:
    merged = record(20, FIX_LOOP[:4], work=work(21, "merged"), spend=spend(4, 1000, 1.5, 6))
    closed = record(22, FIX_LOOP[:4], work=work(23, "closed"), spend=spend(2, 500, 0.5, 3))
    found = compute(Worked(20, "m", False, merged), Worked(22, "c", False, closed))
    total = found.spend.total
    assert (total.runs, total.tokens, total.money, total.minutes) == (6, 1500, 2.0, 9.0)
    per = found.spend.per_merged
    assert per is not None and (per.runs, per.tokens, per.money, per.minutes) == (6, 1500, 2.0, 9.0)
    assert found.spend.merged_issues.money == 1.5
    assert [line.number for line in found.spend.per_issue] == [20, 22]


def test_spend_per_role_adds_the_records_roles_costs_most_money_first() -> None:
    first = Spend().add(Cost(tokens=1_000, money=1.25, minutes=4.0), role="developer")
    first = first.add(Cost(tokens=300, money=0.25, minutes=1.0), role="tester")
    second = Spend().add(Cost(tokens=500, money=0.5, minutes=2.5), role="developer")
    second = second.add(Cost(tokens=50, money=2.0), role="pm").add(None, role="tester")
    found = compute(
        Worked(30, "a", False, record(30, FIX_LOOP[:4], work=work(31, "merged"), spend=first)),
        Worked(32, "b", True, record(32, FIX_LOOP[:4], spend=second)),
    )
    assert found.spend.per_role == {
        "pm": RoleSpend(runs=1, tokens=50, money=2.0),
        "developer": RoleSpend(runs=2, tokens=1_500, money=1.75, minutes=6.5),
        "tester": RoleSpend(runs=2, tokens=300, money=0.25, minutes=1.0),
    }
    assert found.spend.roles_from_history == 0
    assert found.spend.runs_per_role == {"pm": 4, "tester": 2}  # the history, as before
    assert (found.spend.total.runs, found.spend.total.money) == (5, 4.0)


def test_a_record_written_before_roles_were_kept_counts_its_roles_runs_from_its_history() -> None:
    old = record(40, FIX_LOOP, spend=spend(9, 900, 3.0, 12))
    new = record(41, FIX_LOOP[:2], spend=Spend().add(Cost(money=0.5), role="pm"))
    found = compute(Worked(40, "old", True, old), Worked(41, "new", True, new))
    assert found.spend.per_role == {
        "pm": RoleSpend(runs=3, money=0.5),
        "tester": RoleSpend(runs=4),
        "developer": RoleSpend(runs=3),
    }
    assert found.spend.roles_from_history == 1
    assert found.spend.total.money == 3.5


def test_humans_touchpoints_are_the_moves_people_made() -> None:
    touched = record(
        24,
        [
            (0, "received", "maria", "entry"),
            (5, "waiting_for_human_input", "pm", "report"),
            (9, "human_input_received", "alice", "approval"),
            (12, "implementing", "maria", "relabel"),
            (20, "blocked", "baton", "timeout"),
        ],
        forced=(3,),
    )
    found = compute(Worked(24, "t", True, touched))
    assert found.humans.by_kind == {"approval": 1, "entry": 1, "relabel": 1}
    assert found.humans.touchpoints == 3


def test_a_record_of_another_workflow_or_an_unknown_state_is_unreadable_and_named() -> None:
    other = record(25, [(0, "received", "maria", "entry")], workflow="elsewhere")
    forged = record(26, [(0, "received", "maria", "entry"), (1, "nowhere", "pm", "report")])
    given = Unreadable(number=27, title="broken", problem="the record does not parse")
    found = compute(
        Worked(25, "a", True, other), Worked(26, "b", True, forged), unreadable=(given,)
    )
    assert found.issues == 0
    assert [(u.number, u.problem) for u in found.unreadable] == [
        (25, "the record belongs to workflow 'elsewhere', which is not in use"),
        (26, "the record names states issue-lifecycle does not have: ['nowhere']"),
        (27, "the record does not parse"),
    ]


def test_a_thousand_issues_take_well_under_a_second() -> None:
    import time

    many = [
        Worked(n, f"issue {n}", n % 3 != 0, record(n, FIX_LOOP, work=work(n + 5000)))
        for n in range(1, 1001)
    ]
    start = time.process_time()
    found = compute(*many)
    assert found.issues == 1000 and found.rework.rounds == 2000
    assert time.process_time() - start < 2.0
    assert found.waiting[0].seconds == int((NOW - at(140)).total_seconds())
    assert found.lead_time.count == 0  # none merged


# --- the epic demo: an epic and its six tasks, three workflows ---------------------------------
@pytest.fixture(scope="module")
def epic() -> Figures:
    from datetime import timedelta

    from baton.dashboard.publish import build
    from baton.sim.demo import epic_player

    player = epic_player(lambda _: None)
    player.play()
    window = timedelta(days=90)
    return build(player.gh, player.settings, now=player.gh.now, window=window, secret=None).figures


def test_the_epic_demo_reads_the_epic_and_its_tasks_each_with_its_workflow(epic: Figures) -> None:
    assert (epic.issues, epic.by_state, epic.unreadable) == (7, {"completed": 6, "done": 1}, [])
    assert epic.waiting == []


def test_the_epic_demo_merged_its_one_pull_request_in_no_simulated_time(epic: Figures) -> None:
    out = epic.outcomes
    assert (out.opened, out.merged, out.merge_rate) == (1, 1, 1.0)
    assert (epic.lead_time.count, epic.lead_time.median) == (1, 0)


def test_the_epic_demo_counts_its_tasks_rework_failures_and_commands(epic: Figures) -> None:
    assert (epic.rework.rounds, epic.rework.issues) == (7, 5)
    assert epic.rework.sent_back_by == {"blocked": 3, "retry_queued": 3, "failed": 1}
    assert epic.outcomes.failed_attempts == {"developer": 4}
    assert epic.humans.by_kind == {"command": 2, "approval": 1, "entry": 1, "merge": 1}
    assert epic.spend.runs_per_role == {"developer": 10, "reviewer": 10, "pm": 3}
    assert (epic.spend.total.runs, epic.spend.merged_issues.runs) == (28, 5)
