"""The record: everything Baton remembers about one issue, kept in the bot's record comment.

Labels are a projection of `Record.state`; the record is the memory. Texts are kept short and
lists bounded so the record stays small however long the issue lives (the codec in
`issue/record_comment.py` compacts old history if it must).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from baton.core.model.epic import EpicState, Spend, TaskLink
from baton.core.model.evidence import TestsRecord
from baton.core.model.work import Work

# 2: `written_at`, the time Baton wrote the record (signed with it), checked against the time
# GitHub says the comment was last set. Version 1 records (no `written_at`) still parse.
# 3: `work`, the issue's branch, Baton's commits there and its pull request. Older records
# (no `work`) still parse: their issue has no branch yet.
# 4: `epic` (an epic's dialogue, plan and breaker), `task` (a sub-issue's tie to its epic) and
# `spend` (what agents cost). Older records still parse: none of them is an epic.
SCHEMA_VERSION = 4
KEEP_PROCESSED = 40  # event ids remembered for de-duplication
KEEP_FEEDBACK = 10
EXCERPT = 600  # characters of a human reply kept in the record; the agent reads the comment itself
OUTBOX_LIMIT = 3_000  # characters of a message kept in the outbox for re-posting
NONCE_LENGTH = 16  # hex digits of a dispatch's identity
DIGEST_LENGTH = 64  # hex digits of a record's content digest (sha256)
HEX = frozenset("0123456789abcdef")
# What a run rewrites when it only takes note of an event (`seen`), writes the record again or
# signs it: left out of a record's content digest (`content_digest`), so a comment Baton
# notes while an agent's run is on its way does not refuse that run.
# (The signature is no field of the model: it is never in the digest.)
BOOKKEEPING = frozenset({"processed", "last_comment_id", "revision", "written_at", "outbox"})


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class HistoryEntry(BaseModel):
    """One applied transition (or a note such as a rebuild), newest last."""

    at: datetime
    from_state: str | None = Field(default=None, alias="from")
    to_state: str = Field(alias="to")
    reason: str
    actor: str
    trigger: str
    forced: bool = False
    iteration: int = 0

    model_config = ConfigDict(frozen=True, populate_by_name=True)


class HumanInput(BaseModel):
    """A human reply carried to the next agent; the full text stays in the comment it came from."""

    model_config = ConfigDict(frozen=True)

    author: str
    excerpt: str
    comment_id: int | None = None
    state: str
    at: datetime


class Approval(BaseModel):
    """An authorised approval, bound to the state and iteration it was given in."""

    model_config = ConfigDict(frozen=True)

    by: str
    state: str
    iteration: int
    comment_id: int | None = None
    at: datetime


class Dispatch(BaseModel):
    """The agent run Baton is waiting on; a report for anything else is stale."""

    model_config = ConfigDict(frozen=True)

    agent: str
    state: str
    attempt: int
    at: datetime
    by: str = ""  # the event that caused it
    run: str = ""  # the workflow run that decided it: a re-run of that run may send it again

    @property
    def nonce(self) -> str:
        """This attempt's identity, carried by its dispatch and required by its agent job and
        its report. Derived, so deciding stays pure and the record needs no new field: the
        agent, the state, the attempt and when it was made due. Not `by` and `run`, which a
        run naming the same attempt again rewrites (`conclude`): that is still this attempt.
        A new attempt, a new state or a new visit is made due at another time, so it differs.
        Not a secret (anyone reading the record can compute it): it tells attempts apart,
        it authorises nothing; 64 bits, so two attempts of one issue never share one."""
        at = self.at.isoformat()
        text = f"{self.agent}\0{self.state}\0{self.attempt}\0{at}"
        return hashlib.sha256(text.encode()).hexdigest()[:NONCE_LENGTH]


class LastReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    agent: str
    state: str
    status: str
    confidence: float
    summary: str
    at: datetime


class Outbox(BaseModel):
    """The last message for humans, kept until it is seen posted: a run that wrote the record
    but died before posting leaves it here, and the next run posts it."""

    model_config = ConfigDict(frozen=True)

    revision: int
    text: str


class Compacted(BaseModel):
    """What was dropped from the history to keep the record small: counts, never the state."""

    model_config = ConfigDict(frozen=True)

    entries: int = 0
    forced: int = 0
    since: datetime | None = None


class Record(BaseModel):
    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    workflow: str
    issue: int
    state: str
    entered_at: datetime
    iteration: int = 0
    attempt: int = 1
    budget_from: int = 0  # iteration at which a human last stepped in: limits count from here
    visits: dict[str, int] = Field(default_factory=dict)
    history: list[HistoryEntry] = Field(default_factory=list)
    compacted: Compacted = Field(default_factory=Compacted)
    pending_input: list[HumanInput] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    approval: Approval | None = None
    dispatch: Dispatch | None = None
    last_report: LastReport | None = None
    escalated_from: str | None = None
    held: bool = False
    processed: list[str] = Field(default_factory=list)
    last_comment_id: int = 0
    entered_after_comment: int = 0  # comments up to this id predate the current state
    outbox: Outbox | None = None
    revision: int = 0
    # When the run rendered this record for writing (`record_comment.render`), by the runner's
    # clock. With `record-secret` it is signed, and a record whose comment GitHub last set long
    # after it was written was put back by someone (`issue.load`).
    written_at: datetime | None = None
    work: Work | None = None
    epic: EpicState | None = None
    task: TaskLink | None = None
    spend: Spend = Field(default_factory=Spend)
    # When the issue's agents started failing (the last attempt failed); None once one succeeds.
    # It puts the repository-wide breaker's label on the issue (config `breaker`).
    failing_since: datetime | None = None
    # What the evidence showed (`tests:`): the red proof, the sign-off, the counts by verdict.
    tests: TestsRecord | None = None

    @model_serializer(mode="wrap")
    def _tests_only_when_some(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A record without evidence is written as before `tests` was kept."""
        data = handler(self)
        if isinstance(data, dict) and self.tests is None:
            data.pop("tests", None)
        return data

    @property
    def previous_state(self) -> str | None:
        return self.history[-1].from_state if self.history else None

    def has_processed(self, event_id: str) -> bool:
        return bool(event_id) and event_id in self.processed

    def remember(self, event_id: str) -> list[str]:
        if not event_id or event_id in self.processed:
            return list(self.processed)
        return [*self.processed, event_id][-KEEP_PROCESSED:]


def content_digest(record: Record) -> str:
    """sha256 of the record's content as Baton wrote it, less its bookkeeping (`BOOKKEEPING`):
    the hand-over's binding of the briefing to the record the report or baton job verified.
    Canonical JSON of the validated model, so the writer and the reader of one record comment
    compute the same digest whatever the spacing or order of its JSON."""
    data = record.model_dump(mode="json", by_alias=True, exclude=set(BOOKKEEPING))
    canonical = json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def handover(record: Record) -> str:
    """The value a dispatch hands over (`<nonce>.<digest>`): which attempt it starts, and the
    record it was decided on. Empty when no agent run is pending."""
    if record.dispatch is None:
        return ""
    return f"{record.dispatch.nonce}.{content_digest(record)}"


def split_handover(text: str) -> tuple[str, str] | None:
    """(nonce, digest) of a hand-over value, or None unless it is exactly `handover`'s shape:
    16 and 64 lowercase hex digits around one dot."""
    nonce, dot, digest = text.partition(".")
    if not dot or len(nonce) != NONCE_LENGTH or len(digest) != DIGEST_LENGTH:
        return None
    if not all(c in HEX for c in nonce + digest):
        return None
    return nonce, digest
