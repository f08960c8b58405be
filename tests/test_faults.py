"""A failure at every write step of a run is detected and repaired: nothing lost, nothing doubled.

For each representative transition, GitHub fails (500, 502, 403 secondary rate limit, 404) at each
write the run makes, in the order `apply` and `handle` make them: the record, the labels, a
re-posted lost message, the message, the reaction, the duplicate removal, the dispatch. The
writes are what GitHub sees: the fields of the write document by their names in GitHub's schema
(a 5xx or a rate limit there is the request dying at that field, the fields before it landed; a
404 is that field failing alone), a message re-posted alone and the dispatch as REST calls. Then
what comes next in reality happens: a failed job is re-run (the same event, the same run id), and
the next scheduled sweep comes. After that, the issue must be sound:

* exactly one record comment, and exactly one status label, the record's;
* the transition is in the history exactly once;
* the message for humans exists exactly once (the original or its re-post, never both);
* the next agent was named (or dispatched) exactly once over the job's runs;
* whatever had to be repaired was said on the issue.

A 404 on a comment Baton addresses (the record, a duplicate, the comment to react on) is played
as GitHub would answer it: someone deleted that comment while the run was going. Further down:
a label write that lands half, a fault that outlasts the first re-run, and a red job nobody
re-runs, left to the hourly sweep.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from baton.core.model.decision import Outcome
from baton.errors import TrackerError
from baton.sim.api.faults import Call
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings
from support.memory import (
    BRANCH,
    ISSUE,
    Job,
    changeset_job,
    changeset_on,
    comment_job,
    configured,
    digests_on,
    enter,
    enter_at,
    label_of,
    labels_agree,
    lineage,
    messages_of,
    record_comments,
    record_of,
    relabel_job,
    report_job,
    seen_as,
    status_labels,
    sweep_run,
    times_applied,
)

QUESTION = "Commas or semicolons?"
REPAIR_NOTE = "I repaired this issue's state"
REPOST_NOTE = "Re-posted: the run that wrote this could not post it."
STATUSES = {
    500: "500 server error",
    502: "502 bad gateway",
    403: "403 secondary rate limit",
    404: "404 not found",
}
# The writes, as GitHub sees them: the write document's fields, by their names in GitHub's
# schema, and two REST calls of their own.
EDIT, COMMENT, DELETE = "updateIssueComment", "addComment", "deleteIssueComment"
ADD, REMOVE, REACT = "addLabelsToLabelable", "removeLabelsFromLabelable", "addReaction"
REPOST, DISPATCH = "re-post", "dispatch"  # a lost message posted alone first; the dispatch
# A 404 on these is GitHub saying the comment is gone: Baton carries on without it.
COMMENT_OPS = frozenset({EDIT, DELETE, REACT})
REST = {  # the REST call of each write made alone: a re-post, the dispatch, a field redone
    REPOST: ("POST", r"^/repos/octo/demo/issues/1/comments$"),
    DISPATCH: ("POST", r"/dispatches$"),
    EDIT: ("PATCH", r"^/repos/octo/demo/issues/comments/\d+$"),
    COMMENT: ("POST", r"^/repos/octo/demo/issues/1/comments$"),
    DELETE: ("DELETE", r"^/repos/octo/demo/issues/comments/\d+$"),
    ADD: ("POST", r"^/repos/octo/demo/issues/1/labels$"),
    REMOVE: ("DELETE", r"^/repos/octo/demo/issues/1/labels/"),
    REACT: ("POST", r"^/repos/octo/demo/issues/comments/\d+/reactions$"),
}


def write_steps(call: Call) -> list[str]:
    """The writes a request makes, as the table names them; none for a read or the upkeep of
    the repository's labels."""
    if call.operation == "BatonWrite":
        return seen_as(call).split(": ", 1)[1].split()
    if call.method == "POST" and call.path.endswith("/dispatches"):
        return [DISPATCH]
    if call.method == "POST" and re.search(REST[REPOST][1], call.path):
        return [REPOST]
    return []


# --- the transitions under test -----------------------------------------------------------
@pytest.fixture(autouse=True)
def _every_fault_struck(gh: SimGitHub) -> Iterator[None]:
    """Each fault a test queued met its request: the test played the failure it names."""
    yield
    assert all(f.hits for f in [*gh.api._faults, *gh.api._field_faults]), "a fault never struck"


@dataclass(frozen=True)
class Transition:
    setup: Callable[[SimGitHub, Settings], None]
    job: Callable[[SimGitHub, Settings], Job]
    moves: tuple[str | None, str, str, str]  # from, to, trigger, actor
    # The writes of the run, in order: a re-post alone, the write document's fields (adding
    # and removing labels are two), then the dispatch.
    writes: tuple[str, ...]
    agent: str | None = None
    message: str | None = None  # a fragment of the one message the run posts (or re-posts)
    reacts: bool = False
    alone: tuple[str, ...] = (DISPATCH,)  # writes made as calls of their own, not in the doc


def _at(state: str) -> Callable[[SimGitHub, Settings], None]:
    def setup(gh: SimGitHub, settings: Settings) -> None:
        enter_at(gh, settings, state)

    return setup


def _entered(gh: SimGitHub, settings: Settings) -> None:
    enter(gh, settings)


def _entered_with_a_duplicate_record(gh: SimGitHub, settings: Settings) -> None:
    enter(gh, settings)
    (original,) = record_comments(gh)
    gh.human_comment(ISSUE, original.body, author=gh.bot_login, bot=True)  # a racing run's copy


def _questions_posted_but_lost(gh: SimGitHub, settings: Settings) -> None:
    enter_at(gh, settings, "requirements_unclear")
    # The write document dies at the message: the record and labels landed, the 502 lost it.
    gh.api.fail_graphql_field("addComment", status=502, operation="BatonWrite")
    with pytest.raises(TrackerError):
        report_job(gh, settings, "pm", confidence=0.6, questions=[QUESTION]).run()
    assert not [m for m in messages_of(gh) if QUESTION in m]


def _nothing(gh: SimGitHub, settings: Settings) -> None:
    """Issue #1 is not in the workflow yet."""


TRANSITIONS = {
    "a report moves on to a work state and dispatches the next agent": Transition(
        setup=_entered,
        job=lambda gh, s: report_job(gh, s, "pm"),
        moves=("received", "analyzing_requirements", "report", "pm"),
        writes=(EDIT, ADD, REMOVE, DISPATCH),
        agent="analyst",
    ),
    "a report moves into a waiting state and posts questions": Transition(
        setup=_at("requirements_unclear"),
        job=lambda gh, s: report_job(gh, s, "pm", confidence=0.6, questions=[QUESTION]),
        moves=(
            "requirements_unclear",
            "waiting_for_requirements_clarification",
            "report",
            "pm",
        ),
        writes=(EDIT, ADD, REMOVE, COMMENT),
        message=QUESTION,
    ),
    "an approval opens the gate and reacts": Transition(
        setup=_at("waiting_for_human_input"),
        job=lambda gh, s: comment_job(gh, s, "Approved, ship it.", "wendy"),
        moves=("waiting_for_human_input", "human_input_received", "approval", "wendy"),
        writes=(EDIT, ADD, REMOVE, REACT),
        agent="pm",
        reacts=True,
    ),
    "a maintainer forces a state by relabelling": Transition(
        setup=_entered,
        job=lambda gh, s: relabel_job(gh, s, "status:implementing", "maria"),
        moves=("received", "implementing", "relabel", "maria"),
        writes=(EDIT, ADD, REMOVE),
        agent="developer",
    ),
    "the trigger label brings the issue in": Transition(
        setup=_nothing,
        job=lambda gh, s: relabel_job(gh, s, "baton", "maria"),
        moves=(None, "received", "entry", "maria"),
        writes=(COMMENT, ADD, REMOVE),
        agent="pm",
    ),
    "a report removes a duplicate record comment a race left": Transition(
        setup=_entered_with_a_duplicate_record,
        job=lambda gh, s: report_job(gh, s, "pm"),
        moves=("received", "analyzing_requirements", "report", "pm"),
        writes=(EDIT, ADD, REMOVE, DELETE, DISPATCH),
        agent="analyst",
    ),
    "a reply moves on and re-posts the questions a failed run lost": Transition(
        setup=_questions_posted_but_lost,
        job=lambda gh, s: comment_job(gh, s, "Commas, please.", "alice"),
        moves=(
            "waiting_for_requirements_clarification",
            "requirements_clarified",
            "reply",
            "alice",
        ),
        writes=(REPOST, EDIT, ADD, REMOVE, REACT),
        agent="pm",
        message=QUESTION,
        reacts=True,
        alone=(REPOST, DISPATCH),  # the lost questions go first, alone
    ),
}


# --- what a test reads back ---------------------------------------------------------------
def revision(gh: SimGitHub) -> int | None:
    record = record_of(gh)
    return record.revision if record else None


def owed(gh: SimGitHub, fragment: str) -> bool:
    """Whether the record holds `fragment` in its outbox: written, so owed to the humans."""
    record = record_of(gh)
    return bool(record and record.outbox and fragment in record.outbox.text)


def copies_of(gh: SimGitHub, fragment: str) -> int:
    return sum(1 for body in messages_of(gh) if fragment in body)


def assert_sound(gh: SimGitHub, settings: Settings, case: Transition) -> None:
    """The invariants every recovery must reach."""
    record = record_of(gh)
    assert record is not None, gh.log
    assert len(record_comments(gh)) == 1, "exactly one record comment"
    assert status_labels(gh) == [label_of(settings, record.state)], gh.log
    assert "baton" not in gh.labels_of(ISSUE), "the trigger label is consumed"
    assert record.state == case.moves[1]
    assert times_applied(gh, case.moves) == 1, [e.to_state for e in record.history]
    assert len(record.processed) == len(set(record.processed))
    if case.message:
        assert copies_of(gh, case.message) == 1, messages_of(gh)


def fail_at(gh: SimGitHub, op: str, status: int, *, times: int = 1) -> None:
    """GitHub fails the next `op` with `status`: a write made alone is its REST call failing; a
    field of the write document makes the request die there (the fields before it landed),
    but a 404 is GitHub's answer for that field alone, the others run."""
    if op in (REPOST, DISPATCH):
        method, path = REST[op]
        gh.api.fail(method, path, status, times=times)
    elif status == 404:
        gh.api.fail_graphql_field(op, "NOT_FOUND", times=times, operation="BatonWrite")
    else:
        gh.api.fail_graphql_field(op, status=status, times=times, operation="BatonWrite")


def label_writes_fail(gh: SimGitHub, *, times: int) -> None:
    """The next `times` write documents that change labels die at their first label field
    (GitHub's 502), whichever it is: a re-run may only need to remove one."""
    left = times

    def hook(call: Call) -> None:
        nonlocal left
        label = next((x for x in write_steps(call) if x in (ADD, REMOVE)), None)
        if label is not None and left > 0:
            left -= 1
            fail_at(gh, label, 502)

    gh.api.on_request = hook


def fail_alone(gh: SimGitHub, op: str, *, times: int) -> None:
    """GitHub refuses the field `op` of the write document alone (the others run); with
    `times=2` the run's redo of it alone, by REST, fails too (502)."""
    gh.api.fail_graphql_field(op, "INTERNAL", operation="BatonWrite")
    if times > 1:
        method, path = REST[op]
        gh.api.fail(method, path, 502, times=times - 1)


def inject(gh: SimGitHub, op: str, status: int, *, comment_id: int | None = None) -> None:
    """Fail the next `op`; a 404 on a comment Baton addresses is that comment being deleted
    just before the write document reaches GitHub, which then answers that field NOT_FOUND."""
    if status == 404 and op in COMMENT_OPS:
        assert comment_id is not None

        def delete_first(call: Call) -> None:
            if op in write_steps(call):
                gh.api.on_request = None
                gh.comment_store.pop(comment_id, None)
                gh.log.append(f"#{ISSUE} comment {comment_id} deleted by a human")

        gh.api.on_request = delete_first
        return
    fail_at(gh, op, status)


def target_of(gh: SimGitHub, op: str) -> int | None:
    """The comment a 404 on `op` is about: the record, the duplicate, or the human's comment."""
    records = record_comments(gh)
    if op == EDIT:
        return records[0].id if records else None
    if op == DELETE:
        return records[-1].id if len(records) > 1 else None
    humans = [c for c in gh.comments_of(ISSUE) if c.author != gh.bot_login]
    return humans[-1].id if humans else None


def fault_cases() -> Iterator[Any]:
    for name, case in TRANSITIONS.items():
        for op in dict.fromkeys(case.writes):  # a repeated op is faulted at its first
            for status, what in STATUSES.items():
                if op == DISPATCH and status >= 500:
                    # Not fatal and not retried: the run may have started (a late run of it is
                    # refused by its nonce), and the sweep covers one that never came
                    # (tests/test_run.py::test_a_dispatch_whose_answer_was_lost_is_said_...).
                    continue
                yield pytest.param(name, op, status, id=f"{name}: {what} on {op}")


def must_raise(case: Transition, op: str, status: int) -> bool:
    """Whether the failure fails the job. Any failure but a 404 kills the write document where
    it happens (a 5xx, a rate limit that does not lift); a 404 is GitHub's answer for that one
    field (a deleted comment), so the rest of the document runs and the field is redone or,
    for a comment that is gone, done without."""
    return status != 404 or op in case.alone


# --- the table itself ---------------------------------------------------------------------
@pytest.mark.parametrize("name", list(TRANSITIONS))
def test_each_transition_writes_exactly_the_steps_the_fault_table_injects_into(gh, settings, name):
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    seen: list[str] = []
    gh.api.on_request = lambda call: seen.extend(write_steps(call))

    job.run()

    assert tuple(seen) == case.writes
    assert_sound(gh, settings, case)


# --- a fault at each write, then the re-run and the next event ----------------------------
@pytest.mark.parametrize(("name", "op", "status"), list(fault_cases()))
def test_a_failure_at_any_write_is_repaired_by_the_rerun_and_nothing_is_lost_or_doubled(
    gh, settings, name, op, status
):
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    inject(gh, op, status, comment_id=target_of(gh, op))
    before = revision(gh)

    if must_raise(case, op, status):
        with pytest.raises(TrackerError) as failed:
            job.run()
        assert failed.value.status == status
    else:
        job.run()
    gh.api.on_request = None
    drifted = revision(gh) != before and not labels_agree(gh, settings)
    lost = case.message is not None and copies_of(gh, case.message) == 0 and owed(gh, case.message)

    if must_raise(case, op, status):
        job.run()  # the failed job is re-run: the same event, the same run id
    after = sweep_run(gh, settings)

    assert_sound(gh, settings, case)
    if case.agent and job.chain:
        assert [d.inputs["issue"] for d in gh.dispatches] == [str(ISSUE)], gh.log
    elif case.agent:
        assert job.named(case.agent) == 1, [r.decision.reason for r in job.results]
    else:
        assert not gh.dispatches and job.named(case.agent or "") == 0
    assert after is None or after.decision.agent is None, "the sweep names nobody twice"
    if drifted:
        assert any(REPAIR_NOTE in m for m in messages_of(gh)), "humans are told of the repair"
    if lost:
        assert any(REPOST_NOTE in m for m in messages_of(gh)), "the message is re-posted"
    if case.reacts and op != REACT:
        (acted_on,) = [c for c in gh.comments_of(ISSUE) if c.author == case.moves[3]]
        assert gh.reactions_of(acted_on.id) == ["eyes"]


# --- GitHub's failed field: the rest of the document runs ---------------------------------
def field_cases() -> Iterator[Any]:
    for name, case in TRANSITIONS.items():
        for op in dict.fromkeys(case.writes):
            if op not in case.alone:
                for times in (1, 2):
                    yield pytest.param(name, op, times, id=f"{name}: {op} fails {times}x")


@pytest.mark.parametrize(("name", "op", "times"), list(field_cases()))
def test_a_field_github_refuses_alone_is_redone_and_a_second_failure_is_repaired(
    gh, settings, name, op, times
):
    """GitHub runs a document's other fields after a failed one. The run redoes the failed one
    alone at once; if that fails too, the run fails (a reaction excepted) and its re-run
    repairs. Either way the issue never has zero status labels and nothing is doubled."""
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    fail_alone(gh, op, times=times)

    try:
        job.run()
    except TrackerError:
        # Both tries failed: the field in the document, then its redo alone.
        assert times == 2 and op != REACT
        assert status_labels(gh) or "baton" in gh.labels_of(ISSUE), gh.log
        job.run()
    sweep_run(gh, settings)

    assert_sound(gh, settings, case)
    if case.agent and job.chain:
        assert [d.inputs["issue"] for d in gh.dispatches] == [str(ISSUE)], gh.log


@pytest.mark.parametrize("name", [n for n, c in TRANSITIONS.items() if REMOVE in c.writes])
def test_a_label_write_that_added_the_new_label_but_failed_to_remove_the_old_is_repaired(
    gh, settings, name
):
    """A label change is two fields of the write document: the addition can land and the
    request die at the removal (GitHub's 502)."""
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    fail_at(gh, REMOVE, 502)

    with pytest.raises(TrackerError):
        job.run()
    two = len(status_labels(gh)) == 2
    assert two or "baton" in gh.labels_of(ISSUE), gh.log
    job.run()
    sweep_run(gh, settings)

    assert_sound(gh, settings, case)
    if two:
        assert any(REPAIR_NOTE in m for m in messages_of(gh))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("a report moves into a waiting state and posts questions"),
        pytest.param("a maintainer forces a state by relabelling"),
        pytest.param("the trigger label brings the issue in"),
    ],
)
def test_a_fault_that_lasts_through_the_first_rerun_is_repaired_by_the_second(gh, settings, name):
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    label_writes_fail(gh, times=2)

    for _ in range(2):
        with pytest.raises(TrackerError):
            job.run()
    job.run()

    assert_sound(gh, settings, case)
    if case.agent:
        assert job.named(case.agent) == 1


# --- no re-run: only the next event comes -------------------------------------------------
@pytest.mark.parametrize(
    ("name", "op"),
    [
        pytest.param(
            "an approval opens the gate and reacts",
            EDIT,
            id="an approval whose run wrote nothing still counts (catch-up)",
        ),
        pytest.param(
            "a reply moves on and re-posts the questions a failed run lost",
            EDIT,
            id="a reply whose run wrote nothing still counts (catch-up)",
        ),
        pytest.param(
            "an approval opens the gate and reacts",
            ADD,
            id="an approval whose labels were not written",
        ),
        pytest.param(
            "a report moves into a waiting state and posts questions",
            ADD,
            id="a report whose labels were not written",
        ),
        pytest.param(
            "a report moves into a waiting state and posts questions",
            COMMENT,
            id="a report whose questions were not posted",
        ),
        pytest.param(
            "a maintainer forces a state by relabelling",
            REMOVE,
            id="a relabel whose old label was not removed",
        ),
        pytest.param(
            "the trigger label brings the issue in",
            ADD,
            id="an entry whose status label was not written",
        ),
    ],
)
def test_without_a_rerun_the_hourly_sweep_repairs_what_the_failed_run_left(gh, name, op):
    """Nobody re-runs the red job. The sweep reads an issue only when its listing says something
    may be due there (a wait, recent activity, an overdue agent, odd labels), so it is given an
    agent timeout, as a repository that wants silent agents sent again sets one."""
    settings = configured(agent_timeout="2h")
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    fail_at(gh, op, 502)
    with pytest.raises(TrackerError):
        job.run()
    written = times_applied(gh, case.moves) == 1

    for _ in range(3):  # three hourly sweeps, until one sends the agent due
        swept = sweep_run(gh, settings, after=timedelta(hours=1))
        if swept and swept.dispatched:
            break

    assert_sound(gh, settings, case)
    if written:
        assert any(REPAIR_NOTE in m or REPOST_NOTE in m for m in messages_of(gh))
    if case.agent:
        assert [d.inputs["issue"] for d in gh.dispatches] == [str(ISSUE)]
        assert swept and swept.decision.agent == case.agent


def test_a_report_whose_run_wrote_nothing_is_not_lost_the_agent_is_sent_again(gh):
    """The report itself is gone with its job; the record still waits on the agent, and the
    sweep sends it again once it is overdue (`agent_timeout`)."""
    settings = configured(agent_timeout="2h")
    enter(gh, settings)
    job = report_job(gh, settings, "pm")
    fail_at(gh, EDIT, 502)
    with pytest.raises(TrackerError):
        job.run()

    swept = sweep_run(gh, settings, after=timedelta(hours=3))

    assert swept is not None and swept.decision.agent == "pm"
    assert [d.inputs["issue"] for d in gh.dispatches] == [str(ISSUE)]
    assert record_of(gh).state == "received" and record_of(gh).attempt == 2
    assert labels_agree(gh, settings)


def test_a_relabel_whose_run_failed_and_was_never_rerun_is_bounded_by_the_revert_note(gh, settings):
    """Labels are not a durable log the way comments are: a maintainer's relabel whose run
    died before writing the record, and was never re-run, is taken for drift by the next run.
    It is reverted, and the note names the label, so the maintainer sees it and relabels."""
    enter(gh, settings)
    job = relabel_job(gh, settings, "status:implementing", "maria")
    fail_at(gh, EDIT, 502)
    with pytest.raises(TrackerError):
        job.run()

    sweep_run(gh, settings)

    assert record_of(gh).state == "received"
    assert labels_agree(gh, settings)
    note = messages_of(gh)[-1]
    assert REPAIR_NOTE in note and "status:implementing" in note


# --- the named cases of the issue ---------------------------------------------------------
def test_a_record_comment_deleted_before_the_edit_is_written_anew_and_not_twice(gh, settings):
    enter(gh, settings)
    (old,) = record_comments(gh)
    job = report_job(gh, settings, "pm")
    inject(gh, EDIT, 404, comment_id=old.id)

    result = job.run()

    (new,) = record_comments(gh)
    assert new.id != old.id and old.id not in gh.comment_store
    assert result.applied.comment_id == new.id
    assert f"record comment {old.id} was deleted" in result.applied.steps
    assert record_of(gh).state == "analyzing_requirements"
    assert record_of(gh).revision == 2, "the new comment carries the whole record on"
    sweep_run(gh, settings)
    assert [c.id for c in record_comments(gh)] == [new.id]
    assert len(gh.dispatches) == 1


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("an approval opens the gate and reacts"),
        pytest.param("a reply moves on and re-posts the questions a failed run lost"),
    ],
)
def test_a_comment_deleted_before_the_reaction_does_not_fail_the_run(gh, settings, name):
    case = TRANSITIONS[name]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    acted_on = target_of(gh, REACT)
    inject(gh, REACT, 404, comment_id=acted_on)

    result = job.run()

    assert acted_on not in gh.comment_store
    assert any(step.startswith(f"could not react on {acted_on}") for step in result.applied.steps)
    assert result.decision.agent == case.agent
    assert_sound(gh, settings, case)


@pytest.mark.parametrize("status", [pytest.param(s, id=w) for s, w in STATUSES.items() if s != 404])
def test_a_reaction_github_refuses_is_a_courtesy_and_the_run_succeeds(gh, settings, status):
    """GitHub refuses the reaction field of the document, and the reaction tried again alone."""
    case = TRANSITIONS["an approval opens the gate and reacts"]
    case.setup(gh, settings)
    job = case.job(gh, settings)
    # the field refused in the document, and the reaction tried again alone refused too
    gh.api.fail_graphql_field(REACT, "FORBIDDEN", operation="BatonWrite")
    method, path = REST[REACT]
    gh.api.fail(method, path, status)

    result = job.run()

    assert result.decision.agent == "pm"
    assert any(step.startswith("could not react") for step in result.applied.steps)
    assert_sound(gh, settings, case)


def test_a_rerun_of_a_successful_report_job_is_bounded_by_the_stale_report_check(gh, settings):
    """Baton cannot tell the re-run of a report job that died just before its dispatch from the
    re-run of one that succeeded: both find the report applied and its agent still pending, and
    both dispatch that agent again (the first must). The cost is a second analyst run; the
    transition is never applied twice, because whichever analyst reports second is refused as
    stale once the first has moved the issue on."""
    enter(gh, settings)
    job = report_job(gh, settings, "pm")
    job.run()
    job.run()  # someone re-runs the green job
    assert len(gh.dispatches) == 2

    report_job(gh, settings, "analyst", confidence=0.9).run()
    late = report_job(gh, settings, "analyst", confidence=0.9).run()

    assert late.decision.outcome is Outcome.refused
    assert "stale report" in late.decision.reason
    assert times_applied(gh, ("received", "analyzing_requirements", "report", "pm")) == 1
    analysed = ("analyzing_requirements", "creating_tests", "report", "analyst")
    assert times_applied(gh, analysed) == 1
    assert labels_agree(gh, settings)


# --- the commit path: the branch, the commit, the pull request, then the record ------------
CODE = {"src/export.py": "def export():\n    return 'csv'\n"}


def _implementing(gh: SimGitHub, settings: Settings) -> str:
    """Issue #1 at implementing (maria put it there; the branch was made on entry): the head
    the developer starts from."""
    enter_at(gh, settings, "implementing")
    head = gh.git.head(BRANCH)
    assert head is not None
    return head


def test_a_report_with_a_valid_changeset_commits_it_once_and_opens_the_draft_pull_request(
    gh, settings
):
    """The whole commit path in one clean run: commit, pull request, record, labels, dispatch."""
    base = _implementing(gh, settings)
    job = changeset_job(gh, settings, "developer", changeset_on(base, CODE))

    result = job.run()

    record = record_of(gh)
    assert record is not None and record.state == "creating_pr", result.decision.reason
    assert record.work is not None
    (mark,) = record.work.commits
    assert lineage(gh)[:2] == [mark.oid, base], "one commit, on the head the agent started from"
    assert digests_on(gh) == [mark.digest]
    assert gh.file_at(BRANCH, "src/export.py") == CODE["src/export.py"]
    assert record.work.pull_request == gh.pull_request_of(BRANCH)
    assert labels_agree(gh, settings)
    assert [d.inputs["issue"] for d in gh.dispatches] == [str(ISSUE)]
