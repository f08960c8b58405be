"""A Decision as writes, in the order that survives a crash: the lost message, the record, the
labels as a difference against what the issue may really carry, the marked message once, the
reaction, the duplicates, then the check run (its failure said, never raised); and the labels'
colours and descriptions as GitHub takes them."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.decision import CheckPlan, Decision, Outcome, Reaction
from baton.core.model.issue_facts import IssueInfo
from baton.core.model.record import HistoryEntry, Outbox, Record
from baton.errors import TrackerError
from baton.issue import record_comment
from baton.issue.apply import Applied, apply, label_specs, post_check, writes_for
from baton.issue.load import Loaded
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Policy
from baton.workflow.model import load_preset

AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
WORKFLOW = load_preset("issue-lifecycle")
POLICY = Policy()


def _record(state: str, revision: int, *, outbox: Outbox | None = None) -> Record:
    entry = HistoryEntry(
        at=AT, from_state=None, to_state=state, reason="entered", actor="baton", trigger="label"
    )
    return Record(
        workflow=WORKFLOW.name,
        issue=7,
        state=state,
        entered_at=AT,
        visits={state: 1},
        history=[entry],
        revision=revision,
        outbox=outbox,
    )


def _issue(*labels: str, number: int = 7) -> IssueInfo:
    return IssueInfo(number=number, title="t", author="ann", labels=labels)


def _moved(message: str | None = "Moving on.", **changes: object) -> Decision:
    after = _record("analyzing_requirements", 2, outbox=Outbox(revision=2, text=message or ""))
    fields: dict[str, object] = {
        "outcome": Outcome.transition,
        "issue": 7,
        "reason": "approved",
        "previous_state": "received",
        "state": "analyzing_requirements",
        "record": after,
        "labels": ("bug", "status:analyzing-requirements"),
        "message": message,
        "event_id": "c-42",
    }
    fields.update(changes)
    return Decision.model_validate(fields)


def test_label_specs_colour_each_state_by_its_kind_and_failures_red() -> None:
    specs = label_specs(WORKFLOW, POLICY)
    assert set(specs) == {WORKFLOW.label_for(s, POLICY.label_prefix) for s in WORKFLOW.states}
    colours = {name: spec.color for name, spec in specs.items()}
    assert colours["status:failed"] == "b60205"
    assert colours["status:requires-human-intervention"] == "b60205"
    assert colours["status:completed"] == "0e8a16"
    assert colours["status:implementing"] == "1d76db"
    assert all(spec.description.startswith("Baton: ") for spec in specs.values())


def test_a_long_description_is_cut_to_githubs_hundred_characters() -> None:
    state = WORKFLOW.states["implementing"].model_copy(update={"description": "x" * 200})
    workflow = WORKFLOW.model_copy(update={"states": {**WORKFLOW.states, "implementing": state}})
    spec = label_specs(workflow, POLICY)["status:implementing"]
    assert spec.description == "Baton: " + "x" * 92 + "…"
    assert len(spec.description) == 100


def test_a_move_writes_the_record_the_label_difference_and_the_marked_message() -> None:
    before = _record("received", 1)
    loaded = Loaded(record=before, comment_id=99, duplicates=(5, 6))
    writes = writes_for(
        _moved(reaction=Reaction(comment_id=42, content="+1")),
        loaded,
        _issue("bug", "status:analyzing-requirements"),
        WORKFLOW,
        POLICY,
        written_at=AT,
    )
    assert writes.number == 7 and writes.repost is None
    assert writes.record_comment == 99
    assert writes.record is not None and '"revision":2' in writes.record.replace(" ", "")
    assert writes.labels is not None
    # The snapshot's new status label is not trusted (another run may have removed it) and the
    # old state's label is removed although the snapshot lacks it.
    assert writes.labels.current == ("bug", "status:received")
    assert writes.labels.add == ["status:analyzing-requirements"]
    assert writes.labels.remove == ["status:received"]
    assert writes.message == f"{record_comment.message_mark(2, 'c-42')}\nMoving on."
    assert writes.reaction == (42, "+1")
    assert writes.delete == (5, 6)


def test_a_message_an_earlier_attempt_posted_is_not_posted_again() -> None:
    mark = record_comment.message_mark(2, "c-42")
    posted = frozenset({(2, "c-42", "Moving on.")})
    loaded = Loaded(record=_record("received", 1), comment_id=99, posted=posted)
    assert record_comment.mark_of(mark) == (2, "c-42")
    writes = writes_for(
        _moved(), loaded, _issue("status:received"), WORKFLOW, POLICY, written_at=AT
    )
    assert writes.message is None
    assert writes.record is not None


def test_a_lost_message_is_reposted_first_with_a_note() -> None:
    lost = Outbox(revision=1, text="What should the parser accept?")
    loaded = Loaded(
        record=_record("received", 1, outbox=lost), comment_id=99, lost_message=lost.text
    )
    writes = writes_for(
        _moved(), loaded, _issue("status:received"), WORKFLOW, POLICY, written_at=AT
    )
    assert writes.repost == (
        f"{record_comment.message_mark(1)}\nWhat should the parser accept?"
        "\n\n<sub>Re-posted: the run that wrote this could not post it.</sub>"
    )


def test_a_decision_without_record_or_labels_writes_neither() -> None:
    decision = Decision(outcome=Outcome.ignored, issue=7, reason="nothing to do")
    writes = writes_for(decision, Loaded(record=None), _issue(), WORKFLOW, POLICY)
    assert (writes.record, writes.record_comment, writes.labels, writes.message) == (
        None,
        None,
        None,
        None,
    )


def test_apply_writes_through_the_tracker_and_says_each_step() -> None:
    gh = SimGitHub()
    number = gh.open_issue("t", "", labels=("bug", "status:received"))
    decision = _moved().model_copy(update={"issue": number})
    applied = apply(
        decision,
        Loaded(record=None),
        _issue("bug", "status:received", number=number),
        gh,
        WORKFLOW,
        POLICY,
    )
    assert gh.labels_of(number) == ["bug", "status:analyzing-requirements"]
    assert applied.comment_id is not None
    assert applied.steps[0] == f"record created (comment {applied.comment_id})"
    assert applied.steps[1] == "labels: -status:received, +status:analyzing-requirements"
    assert applied.steps[2].startswith("message posted (comment ")
    bodies = [c.body for c in gh.comments_of(number)]
    assert any(body.endswith("\nMoving on.") for body in bodies)


# --- the check run, after the record ------------------------------------------------------------
def _checked(gh: SimGitHub) -> Decision:
    head = gh.git.head("main")
    assert head is not None
    check = CheckPlan(
        commit=head, conclusion="success", title="green", summary="all pass", external_id="n1"
    )
    return _moved(check=check)


def test_a_decision_s_check_run_is_posted_once_and_said() -> None:
    gh = SimGitHub()
    decision = _checked(gh)
    applied = Applied(steps=["record updated (revision 2)"])

    post_check(decision, applied, gh)

    assert decision.check is not None
    (run,) = [r for r in gh.check_runs if r.head_sha == decision.check.commit]
    assert (run.name, run.status, run.conclusion, run.external_id) == (
        "Baton / tests",
        "completed",
        "success",
        "n1",
    )
    assert (run.title, run.summary) == ("green", "all pass")
    assert gh.calls["create_check_run"] == 1
    said = f"posted the check run 'Baton / tests' on {run.head_sha[:7]} (success)"
    assert applied.steps[-1] == said
    assert applied.check_url.endswith(f"/runs/{run.id}") and applied.check_problem is None


def test_no_check_run_asked_for_is_no_call() -> None:
    gh = SimGitHub()
    applied = Applied()
    post_check(_moved(), applied, gh)
    assert gh.calls["create_check_run"] == 0 and applied.steps == []


def test_a_check_run_github_refuses_is_said_and_never_raised() -> None:
    """The record is written before: the transition stands, the run says what was lost."""
    gh = SimGitHub()
    refused = TrackerError("GitHub refused posting the check run: 403 Resource not accessible")
    gh.fail_next("create_check_run", refused)
    applied = Applied()
    decision = _checked(gh)
    assert decision.check is not None

    post_check(decision, applied, gh)

    assert gh.check_runs == []
    assert applied.check_problem == (
        f"could not post the check run 'Baton / tests' on {decision.check.commit[:7]}: "
        "GitHub refused posting the check run: 403 Resource not accessible"
    )
    assert applied.steps == [applied.check_problem]


def test_a_check_run_on_a_commit_github_lacks_is_its_422_said() -> None:
    gh = SimGitHub()
    check = CheckPlan(commit="0" * 40, conclusion="failure", title="t", summary="s")
    applied = Applied()
    post_check(_moved(check=check), applied, gh)
    assert applied.check_problem is not None
    assert applied.check_problem == (
        "could not post the check run 'Baton / tests' on 0000000: GitHub refused posting the "
        "check run 'Baton / tests' on 0000000 (POST /repos/octo/demo/check-runs): 422 No commit "
        f"found for SHA: {'0' * 40}"
    )
