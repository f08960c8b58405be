"""`issue/load.py`: whose record a run trusts, and whether it is the current one (issue 11).

A record is Baton's only if GitHub's own stamps on its comment agree: written by the bot, last
edited by the bot, and set no later than `PUT_BACK_TOLERANCE` after the record says it was
written. With `record-secret` a forged record never wins over the signed one, and a signed one
put back later is refused. A status label alone, with no trace of Baton, is not a lost record.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton import webhooks
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision
from baton.core.model.events import Ignored, Sweep
from baton.core.model.issue_facts import Comment
from baton.core.model.record import SCHEMA_VERSION, HistoryEntry, Record
from baton.errors import RecordCorrupt
from baton.issue import record_comment
from baton.issue.load import PUT_BACK_TOLERANCE, Loaded, load, read_record, verified
from baton.run import handle
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Policy, Settings
from baton.workflow.model import load_preset
from support.memory import ISSUE, PEOPLE, configured

WORKFLOW = load_preset("issue-lifecycle")
POLICY = Policy()
BOT = POLICY.bot_login
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SECRET = "s3cret-for-tests"
LABELS = ("status:implementing",)


def record(revision: int, state: str = "implementing") -> Record:
    entry = HistoryEntry(
        at=T0, from_state=None, to_state=state, reason="entered", actor="maria", trigger="label"
    )
    return Record(
        workflow=WORKFLOW.name,
        issue=7,
        state=state,
        entered_at=T0,
        visits={state: 1},
        history=[entry],
        revision=revision,
    )


def body(revision: int, *, written: datetime = T0, secret: str | None = SECRET) -> str:
    return record_comment.render(
        record(revision), agent="developer", secret=secret, written_at=written
    )


def posted(
    comment_id: int,
    text: str,
    *,
    at: datetime = T0,
    edited: datetime | None = None,
    editor: str | None = None,
    author: str = BOT,
) -> Comment:
    """A comment as GitHub answers it over GraphQL: never edited, its body set at creation."""
    return Comment(
        id=comment_id,
        author=author,
        body=text,
        created_at=at,
        author_is_bot=author.endswith("[bot]"),
        updated_at=edited or at,
        edited_at=edited or at,
        editor=(editor or author) if edited else None,
    )


def loaded(comments: list[Comment], secret: str | None = SECRET) -> Loaded:
    return load(7, LABELS, comments, WORKFLOW, POLICY, now=T0 + timedelta(days=1), secret=secret)


# --- authenticity: a forged record never wins over the signed one ---------------------------
def test_with_the_secret_an_unsigned_higher_revision_neither_wins_nor_deletes_the_real() -> None:
    real = posted(2, body(3))
    forged = posted(5, body(99, secret=None), at=T0 + timedelta(minutes=1))

    result = loaded([real, forged])

    assert result.problem is None
    assert result.record is not None and result.record.revision == 3
    assert result.comment_id == 2, "the signed record is the one kept and rewritten"
    assert result.duplicates == (5,), "the forgery is the one removed"


def test_with_the_secret_a_wrongly_signed_higher_revision_never_wins() -> None:
    real = posted(9, body(3))  # the real one even posted later (rewritten after a 404)
    forged = posted(4, body(99, secret="another-workflow's-guess"))

    result = loaded([forged, real])

    assert result.comment_id == 9 and result.duplicates == (4,)
    assert result.record is not None and result.record.revision == 3


def test_a_record_put_back_over_a_forged_one_cannot_make_the_forgery_win() -> None:
    """The real record was put back (refused): the forgery, unsigned, is no better. The oldest
    record comment is kept, rebuilt from the label and rewritten; the other is removed."""
    late = T0 + timedelta(hours=2)
    real = posted(2, body(3), edited=late)
    forged = posted(5, body(99, secret=None))

    result = loaded([real, forged])

    assert result.comment_id == 2 and result.duplicates == (5,)
    assert result.record is not None and result.record.history[-1].trigger == "rebuild"


# --- freshness: a signed record put back later is refused -----------------------------------
def test_a_signed_record_edited_back_in_later_is_refused_and_rebuilt_from_the_label() -> None:
    old = body(2, written=T0)  # a record Baton wrote once, saved by someone
    replayed = posted(2, old, edited=T0 + timedelta(hours=3), editor=BOT)

    result = loaded([replayed])

    assert result.problem is not None and "put back" in result.problem
    assert result.record is not None
    assert result.record.state == "implementing"  # from the single status label
    last = result.record.history[-1]
    assert last.trigger == "rebuild" and "put back" in last.reason
    assert result.comment_id == 2, "the put-back comment is rewritten with the rebuilt record"


def test_a_signed_record_posted_again_later_is_refused() -> None:
    """The real record deleted and an old signed one posted anew as the bot."""
    reposted = posted(8, body(2, written=T0), at=T0 + timedelta(days=2))

    result = loaded([reposted])

    assert result.problem is not None and "put back" in result.problem
    assert result.record is not None and result.record.history[-1].trigger == "rebuild"


def test_a_record_set_within_the_tolerance_of_its_writing_is_baton_s_own() -> None:
    """Baton's own write lands seconds (a rate-limit wait: minutes) after it renders."""
    late = T0 + PUT_BACK_TOLERANCE - timedelta(seconds=1)
    result = loaded([posted(2, body(4, written=T0), edited=late)])

    assert result.problem is None
    assert result.record is not None and result.record.revision == 4


def test_with_the_secret_a_signed_record_without_a_time_of_writing_is_refused() -> None:
    """Without `written_at` the signature binds no time: such a record could be replayed for
    ever. Records of schema version 1 are rebuilt once, with this note."""
    legacy = record_comment.render(record(2), agent="developer", secret=SECRET)

    result = loaded([posted(2, legacy)])

    assert result.problem is not None and "no time of writing" in result.problem


def test_without_the_secret_a_record_edited_by_someone_else_is_refused() -> None:
    edited = posted(2, body(2, secret=None), edited=T0 + timedelta(minutes=1), editor="mallory")

    result = loaded([edited], secret=None)

    assert result.problem is not None and "last edited by mallory" in result.problem


def test_without_the_secret_an_old_record_put_back_is_refused_too() -> None:
    replayed = posted(2, body(2, secret=None), edited=T0 + timedelta(hours=1), editor=BOT)

    assert loaded([replayed], secret=None).problem is not None


def test_read_record_sees_what_a_run_sees() -> None:
    replayed = posted(2, body(2), edited=T0 + timedelta(hours=1))
    try:
        read_record([replayed], BOT, SECRET)
    except Exception as exc:
        assert "put back" in str(exc)
    else:
        raise AssertionError("a put-back record was read as Baton's")


# --- a status label alone is not a lost record ----------------------------------------------
def test_a_status_label_with_no_trace_of_baton_is_not_in_the_workflow() -> None:
    others = [
        posted(1, "Thanks for the report!", author="some-app[bot]"),
        posted(2, "hi", author="alice"),
    ]

    result = loaded(others)

    assert result.record is None and result.problem is None


def test_a_message_baton_marked_is_evidence_enough_to_rebuild_a_deleted_record() -> None:
    message = posted(3, f"{record_comment.message_mark(1, 'label:1')}\nAn agent is on it.")

    result = loaded([message])

    assert result.record is not None and result.record.history[-1].trigger == "rebuild"


def test_an_unmarked_comment_of_the_bot_is_no_evidence() -> None:
    """Another workflow posting as the same bot says something: not Baton's trace."""
    assert loaded([posted(3, "Deployed to staging.")]).record is None


# --- through whole runs, in memory ----------------------------------------------------------
def _settings() -> Settings:
    return configured()


def _gh() -> SimGitHub:
    gh = SimGitHub()
    for login, role in PEOPLE.items():
        gh.set_permission(login, role)
    gh.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return gh


def _deliver(
    gh: SimGitHub, name: str, payload: dict[str, object], secret: str | None = SECRET
) -> Decision | Ignored:
    settings = _settings()
    parsed = webhooks.parse(name, payload, settings.policy, now=gh.now, run_id=str(gh.now))
    gh.now += timedelta(minutes=1)
    if isinstance(parsed, Ignored):
        return parsed
    assert not isinstance(parsed, Sweep)
    return handle(parsed, gh, settings, secret=secret).decision


def _label(gh: SimGitHub, label: str, by: str) -> Decision | Ignored:
    gh.human_label(ISSUE, label, by=by)
    return _deliver(gh, "issues", payloads.labeled(gh, ISSUE, label, sender=by))


def _comment(gh: SimGitHub, text: str, by: str) -> Decision | Ignored:
    found = gh.human_comment(ISSUE, text, author=by)
    return _deliver(gh, "issue_comment", payloads.comment_created(gh, found.id))


def _report(gh: SimGitHub, agent: str) -> Decision:
    """`agent` hands back a success: a run that reads the record (a plain comment while an
    agent works is ignored before any read)."""
    result = AgentResult(status="success", confidence=0.9, summary="done")
    event = events.report(
        ISSUE, agent=agent, result=result, error=None, now=gh.now, run_id=str(gh.now)
    )
    gh.now += timedelta(minutes=1)
    return handle(event, gh, _settings(), secret=SECRET).decision


def _records(gh: SimGitHub) -> list[Comment]:
    return record_comment.find_records(gh.comments_of(ISSUE), gh.bot_login)


def test_a_status_label_a_bot_adds_to_a_fresh_issue_starts_nothing_on_the_author_s_comment() -> (
    None
):
    gh = _gh()
    _label(gh, "status:analyzing-requirements", "some-app[bot]")

    decision = _comment(gh, "Any news?", "alice")

    assert not isinstance(decision, Decision) or decision.agent is None
    assert _records(gh) == [], "no record: the issue is not in the workflow"
    assert gh.dispatches == [] if hasattr(gh, "dispatches") else True


def test_a_maintainer_s_relabel_still_enters_the_issue() -> None:
    gh = _gh()
    decision = _label(gh, "status:analyzing-requirements", "maria")

    assert isinstance(decision, Decision) and decision.state == "analyzing_requirements"
    assert len(_records(gh)) == 1


def test_a_deleted_record_on_an_issue_baton_worked_on_is_still_rebuilt() -> None:
    gh = _gh()
    entered = _label(gh, "baton", "maria")
    assert isinstance(entered, Decision) and entered.state is not None
    reverted = _label(gh, "status:implementing", "alice")  # reverted, with a marked note
    assert isinstance(reverted, Decision) and reverted.message
    (kept,) = _records(gh)
    gh.comment_store.pop(kept.id)  # someone deleted the record comment

    _report(gh, "pm")

    (rebuilt,) = _records(gh)
    state = read_record([rebuilt], gh.bot_login, SECRET)
    assert state is not None and any(e.trigger == "rebuild" for e in state.history)


def test_a_signed_record_put_back_by_another_workflow_is_refused_in_a_whole_run() -> None:
    gh = _gh()
    _label(gh, "baton", "maria")
    (first,) = _records(gh)
    saved = first.body
    moved = _label(gh, "status:implementing", "maria")
    assert isinstance(moved, Decision) and moved.state == "implementing"

    gh.now += timedelta(hours=2)
    gh.human_edit(first.id, saved, by=gh.bot_login)  # another workflow, as the same bot
    _report(gh, "developer")

    (current,) = _records(gh)
    state = read_record([current], gh.bot_login, SECRET)
    assert state is not None and state.state != "received", "not the replayed record's state"
    rebuilt = [e for e in state.history if e.trigger == "rebuild"]
    assert rebuilt and "put back" in rebuilt[-1].reason


# --- migration: records written before `written_at` (schema version 1) -------------------------
def legacy(found: Record, secret: str | None) -> str:
    """A record comment as Baton wrote it before schema version 2: no `written_at` key at all,
    signed over exactly the fields it had."""
    payload = found.model_dump(mode="json", by_alias=True)
    payload.pop("written_at")
    payload["schema_version"] = 1
    if secret:
        payload["sig"] = record_comment._signature(payload, secret)
    hidden = record_comment._safe_json(payload)
    return f"{record_comment.RECORD_OPEN}\n{hidden}\n{record_comment.RECORD_CLOSE}\nBaton's record"


def test_without_the_secret_a_schema_version_1_record_still_loads_as_it_was() -> None:
    result = loaded([posted(2, legacy(record(5), None))], secret=None)

    assert result.problem is None
    assert result.record is not None
    assert (result.record.revision, result.record.schema_version) == (5, 1)
    assert result.record.written_at is None
    assert result.comment_id == 2


def test_with_the_secret_a_schema_version_1_record_is_rebuilt_from_its_label_saying_why() -> None:
    result = loaded([posted(2, legacy(record(5), SECRET))])

    assert result.problem is not None
    assert "schema version 1" in result.problem and "record-secret" in result.problem
    assert result.record is not None and result.record.state == "implementing"
    assert result.record.history[-1].trigger == "rebuild"
    assert result.comment_id == 2, "rewritten in place, as a record of schema version 2"


def test_after_an_upgrade_with_the_secret_a_v1_record_is_rebuilt_once_and_said_on_the_issue() -> (
    None
):
    gh = _gh()
    _label(gh, "baton", "maria")
    (first,) = _records(gh)
    was = read_record([first], gh.bot_login, SECRET)
    assert was is not None
    gh.comment_store[first.id].body = legacy(was, SECRET)  # as the old Baton left it

    upgraded = _report(gh, "pm")

    assert upgraded.repairs or upgraded.message
    (current,) = _records(gh)
    assert current.id == first.id
    state = read_record([current], gh.bot_login, SECRET)
    assert (
        state is not None
        and state.schema_version == SCHEMA_VERSION
        and state.written_at is not None
    )
    [rebuild] = [e for e in state.history if e.trigger == "rebuild"]
    assert "schema version 1" in rebuild.reason
    notes = [c.body for c in gh.comments_of(ISSUE) if "schema version 1" in c.body]
    assert notes and not record_comment.has_marker(notes[-1]), "a note a maintainer reads"

    again = _report(gh, state.dispatch.agent if state.dispatch else "pm")

    (after,) = _records(gh)
    later = read_record([after], gh.bot_login, SECRET)
    assert later is not None
    assert [e for e in later.history if e.trigger == "rebuild"] == [rebuild], "only once"
    assert isinstance(again, Decision)


def test_a_record_comment_without_githubs_stamps_is_judged_on_its_body() -> None:
    """A comment known only by id, author and body (`CommentRef`) has no editor or times to
    check: its signed body decides, even for a record written before Baton stamped them."""
    legacy = record_comment.render(record(2), agent="developer", secret=SECRET)
    ref = record_comment.CommentRef(id=2, author=BOT, body=legacy)

    assert verified(ref, BOT, SECRET).revision == 2
    assert verified(record_comment.CommentRef(id=3, author=BOT, body=body(3)), BOT).revision == 3
    with pytest.raises(RecordCorrupt):
        verified(record_comment.CommentRef(id=4, author=BOT, body=body(4)), BOT, "not-the-secret")
