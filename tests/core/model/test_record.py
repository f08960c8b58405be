"""`core/model/record.py`: what the record remembers is bounded, so the comment never outgrows
GitHub's limit: texts clipped, processed event ids de-duplicated and the newest kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.core.model.record import KEEP_PROCESSED, Dispatch, HistoryEntry, Record, clip

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _record(**fields: object) -> Record:
    return Record.model_validate(
        {"workflow": "issue-lifecycle", "issue": 1, "state": "triage", "entered_at": AT, **fields}
    )


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("  short  ", 10, "short", id="stripped, within the limit"),
        pytest.param("exactly10!", 10, "exactly10!", id="at the limit exactly"),
        pytest.param(
            "eleven chars", 10, "eleven ch…", id="over: cut with an ellipsis in the limit"
        ),
        pytest.param("ab  cdefghijk", 5, "ab…", id="no blank left before the ellipsis"),
    ],
)
def test_clip_keeps_a_text_within_its_limit(text: str, limit: int, expected: str) -> None:
    assert clip(text, limit) == expected
    assert len(clip(text, limit)) <= limit


def test_an_event_is_remembered_once_and_an_empty_id_never() -> None:
    record = _record(processed=["a"])
    assert record.remember("a") == ["a"]
    assert record.remember("") == ["a"]
    assert record.remember("b") == ["a", "b"]
    assert record.has_processed("a")
    assert not record.has_processed("")


def test_only_the_newest_processed_ids_are_kept() -> None:
    ids = [f"e{i}" for i in range(KEEP_PROCESSED)]
    kept = _record(processed=ids).remember("new")
    assert len(kept) == KEEP_PROCESSED
    assert kept[0] == "e1" and kept[-1] == "new"


def test_the_previous_state_is_the_last_move_s_origin() -> None:
    assert _record().previous_state is None
    moved = _record(
        history=[
            HistoryEntry(
                from_state="triage", to_state="analysing", at=AT, reason="r", actor="b", trigger="x"
            )
        ]
    )
    assert moved.previous_state == "triage"


# --- a dispatch's identity and a record's content digest --------------------------------------
def _dispatch(**changes: object) -> Dispatch:
    at = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    base = Dispatch(agent="developer", state="implementing", attempt=1, at=at, by="e", run="9")
    return base.model_copy(update=changes)


def test_a_dispatch_is_named_by_its_attempt_alone() -> None:
    pending = _dispatch()
    at = pending.at

    assert len(pending.nonce) == 16 and set(pending.nonce) <= set("0123456789abcdef")
    assert _dispatch(by="tick:7", run="12").nonce == pending.nonce, "named again: one attempt"
    others = [
        _dispatch(attempt=2),
        _dispatch(state="fixing_issues"),
        _dispatch(agent="tester"),
        _dispatch(at=at.replace(second=1)),
    ]
    assert len({pending.nonce, *(o.nonce for o in others)}) == 5


def test_a_record_written_before_roles_were_kept_loads_and_writes_byte_for_byte_alike() -> None:
    written = _record(spend={"runs": 2, "tokens": 1000, "money": 0.25, "minutes": 1.5})
    text = written.model_dump_json()
    assert '"spend":{"runs":2,"tokens":1000,"money":0.25,"minutes":1.5}' in text
    again = Record.model_validate_json(text)
    assert again.spend.roles == {}
    assert again.model_dump_json() == text
    kept = written.model_copy(update={"spend": written.spend.add(None, role="developer")})
    assert '"roles":{"developer":{"runs":1' in kept.model_dump_json()
    assert Record.model_validate_json(kept.model_dump_json()) == kept
