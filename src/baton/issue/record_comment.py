"""The one home of the record comment's format: markers, the hidden JSON and the readable part.

Body layout (the hidden record first, so text below it can never be taken for the marker):

    <!-- baton:record
    {...json...}
    -->
    ### Baton · `state`
    ...readable summary and recent history...

Inside the JSON every `<`, `>` and `&` is written as a \\u escape, so no user text can close the
HTML comment or forge a marker, and the JSON still parses to the same strings.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from baton.core.model.record import Compacted, Record, clip
from baton.core.rules import budget as budget_text
from baton.core.text import epic_plan as epic_render
from baton.core.text import markdown
from baton.errors import RecordCorrupt

RECORD_OPEN = "<!-- baton:record"
RECORD_CLOSE = "-->"
MESSAGE_MARK = "<!-- baton:message r={revision}{event} -->"
_MESSAGE = re.compile(r"<!-- baton:message r=(\d+)(?: e=([A-Za-z0-9:._/-]+))? -->")
_RECORD = re.compile(re.escape(RECORD_OPEN) + r"\s*\n(.*?)\n" + re.escape(RECORD_CLOSE), re.S)

GITHUB_BODY_LIMIT = 65_536
BODY_BUDGET = 60_000  # leave room under GitHub's limit
JSON_BUDGET = 8_000  # keeps the whole record comment small (a target of the performance work)
# An epic's record carries its plan (up to 100 tasks) and its specification: more room, still
# well under GitHub's limit with the task table and the graph beside it.
EPIC_JSON_BUDGET = 36_000
EPIC_VIEW_BUDGET = 18_000  # the task table and the mermaid graph in the readable part
MIN_HISTORY = 12  # never compact below this many recent entries (loop detection reads them)
SHOWN_HISTORY = 8

_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
# Signatures made with a repository's `record_key` say so; one without it was made by a Baton
# that signed with the bare secret (valid in every repository sharing it) and is not trusted.
SIGNATURE_SCHEME = "v2:"


@dataclass(frozen=True)
class Parsed:
    record: Record | None
    problem: str | None = None


def has_marker(body: str) -> bool:
    """A record comment opens with the marker; a message merely quoting it is not one."""
    return body.lstrip().startswith(RECORD_OPEN)


def _safe_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    for char, escaped in _UNSAFE.items():
        text = text.replace(char, escaped)
    return text


def record_key(secret: str, repository: str) -> str:
    """The key one repository's records are signed with, derived from `record-secret`: with one
    secret shared across an organisation, a record signed in one repository is no record in
    another. The issue is bound by the signed payload itself (its `issue`, which `issue.load`
    compares with the issue it reads)."""
    scope = f"baton-record\0{repository.casefold()}".encode()
    return hmac.new(secret.encode(), scope, hashlib.sha256).hexdigest()


def _signature(payload: dict[str, Any], secret: str) -> str:
    canonical = json.dumps(payload, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return (
        SIGNATURE_SCHEME + hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    )


def encode_json(record: Record, secret: str | None = None) -> str:
    payload = record.model_dump(mode="json", by_alias=True, exclude_defaults=False)
    if secret:
        payload = {**payload, "sig": _signature(payload, secret)}
    return _safe_json(payload)


def compact(record: Record, budget: int = JSON_BUDGET, secret: str | None = None) -> Record:
    """Drop the oldest history (counting it) and clip texts until the JSON fits the budget."""
    current = record
    while len(encode_json(current, secret)) > budget and len(current.history) > MIN_HISTORY:
        drop = max(1, len(current.history) - MIN_HISTORY)
        dropped, kept = current.history[:drop], current.history[drop:]
        compacted = Compacted(
            entries=current.compacted.entries + len(dropped),
            forced=current.compacted.forced + sum(1 for e in dropped if e.forced),
            since=current.compacted.since or dropped[0].at,
        )
        current = current.model_copy(update={"history": kept, "compacted": compacted})
    limit = 400
    while len(encode_json(current, secret)) > budget and limit >= 40:
        current = current.model_copy(
            update={
                "history": [
                    e.model_copy(update={"reason": clip(e.reason, limit)}) for e in current.history
                ],
                "feedback": [clip(f, limit) for f in current.feedback],
                "open_questions": [clip(q, limit) for q in current.open_questions],
                "pending_input": [
                    p.model_copy(update={"excerpt": clip(p.excerpt, limit)})
                    for p in current.pending_input
                ],
                "last_report": current.last_report.model_copy(
                    update={"summary": clip(current.last_report.summary, limit)}
                )
                if current.last_report
                else None,
                "outbox": current.outbox.model_copy(
                    update={"text": clip(current.outbox.text, limit * 4)}
                )
                if current.outbox
                else None,
            }
        )
        limit //= 2
    return current


def render(
    record: Record,
    *,
    agent: str | None,
    secret: str | None = None,
    written_at: datetime | None = None,
) -> str:
    """The whole comment body: hidden record first, then what a human reads. `written_at`: the
    time of this write, kept in the record (and signed with it), so a reader can tell a record
    put back later (`issue.load.verified`)."""
    if written_at is not None:
        record = record.model_copy(update={"written_at": written_at})
    budget = EPIC_JSON_BUDGET if record.epic is not None else JSON_BUDGET
    record = compact(record, budget, secret=secret)
    hidden = f"{RECORD_OPEN}\n{encode_json(record, secret)}\n{RECORD_CLOSE}"
    body = f"{hidden}\n{_readable(record, agent)}"
    if len(body) > BODY_BUDGET:  # the readable part is the one to give way
        body = f"{hidden}\n{_readable(record, agent, brief=True)}"
    return body


def _readable(record: Record, agent: str | None, brief: bool = False) -> str:
    state = markdown.code(record.state)
    holder = (
        f"agent **{markdown.cell(agent)}** holds the baton"
        if agent
        else "no agent is working on it"
    )
    if record.held:
        holder = "held for a human decision (see the latest comment for the options)"
    lines = [
        f"### 🤖 Baton · {state}",
        "",
        f"This issue is in {state}; {holder}. "
        f"Iteration {record.iteration}, attempt {record.attempt}.",
    ]
    report = record.last_report
    if report and not brief:
        lines += [
            "",
            f"**Last report** from {markdown.cell(report.agent)} in {markdown.code(report.state)}: "
            f"{report.status}, confidence {report.confidence:.2f}",
            "",
            markdown.quote(report.summary or "(no summary)", limit=1500),
        ]
    if record.epic is not None and record.epic.tasks:
        view = EPIC_VIEW_BUDGET // (4 if brief else 1)
        lines += ["", "**The plan**", "", epic_render.summary(record.epic, budget=view)]
    if record.epic is not None or record.spend.runs:
        lines += ["", f"**Spent** on this issue's agents: {budget_text.describe(record.spend)}."]
    shown = record.history[-SHOWN_HISTORY:]
    if shown:
        lines += ["", "| when (UTC) | from | to | why | by |", "|---|---|---|---|---|"]
        for entry in reversed(shown):
            moved_by = entry.actor + (" (forced)" if entry.forced else "")
            lines.append(
                f"| {entry.at:%Y-%m-%d %H:%M} | {markdown.cell(entry.from_state or '—')} "
                f"| {markdown.cell(entry.to_state)} | "
                f"{markdown.cell(entry.reason, 60 if brief else 160)} | {markdown.cell(moved_by)} |"
            )
    older = record.compacted.entries + max(0, len(record.history) - len(shown))
    if older:
        lines += ["", f"<sub>{older} earlier entries not shown.</sub>"]
    lines += ["", "<sub>Maintained by Baton; edits to this comment are overwritten.</sub>"]
    return "\n".join(lines)


def parse(body: str, secret: str | None = None) -> Record:
    """Read the record out of a comment body; RecordCorrupt says why it cannot."""
    match = _RECORD.search(body)
    if match is None:
        raise RecordCorrupt("the record marker is there but the record is not closed")
    try:
        data = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise RecordCorrupt(f"the record is not valid JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise RecordCorrupt("the record is not a JSON object")
    signature = data.pop("sig", None)
    expected = _signature(data, secret) if secret else None
    if (
        expected is not None
        and isinstance(signature, str)
        and not signature.startswith(SIGNATURE_SCHEME)
    ):
        raise RecordCorrupt(
            "the record was signed by an older Baton, with a signature not bound to this "
            "repository; it is rebuilt from its label once, and signed anew"
        )
    if expected is not None and not (
        isinstance(signature, str) and hmac.compare_digest(signature, expected)
    ):
        raise RecordCorrupt("the record's signature does not match (edited by hand?)")
    try:
        return Record.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RecordCorrupt(f"the record does not validate ({where}: {first['msg']})") from exc


@dataclass(frozen=True)
class CommentRef:
    id: int
    author: str
    body: str


def message_mark(revision: int, event: str | None = None) -> str:
    """The first line of a message a run posts with its record: the record's revision, and the
    event it answers, so a re-run of the same event can tell its own message is already out."""
    safe = re.sub(r"-{2,}", "-", re.sub(r"[^A-Za-z0-9:._/-]", "", event or ""))[:100]
    return MESSAGE_MARK.format(revision=revision, event=f" e={safe}" if safe else "")


def mark_of(body: str) -> tuple[int, str | None] | None:
    """(revision, event) of a message's mark, if the comment starts with one."""
    found = _MESSAGE.match(body)
    return (int(found.group(1)), found.group(2)) if found else None


class Authored(Protocol):
    """What telling a record comment apart needs of a comment: `CommentRef` and the tracker's
    `Comment` both have it."""

    @property
    def id(self) -> int: ...

    @property
    def author(self) -> str: ...

    @property
    def body(self) -> str: ...


AnyComment = TypeVar("AnyComment", bound=Authored)


def find_records(comments: Iterable[AnyComment], bot_login: str) -> list[AnyComment]:
    """Record comments written by the bot, oldest first; others' markers are never trusted."""
    bot = bot_login.casefold()
    return [c for c in comments if c.author.casefold() == bot and has_marker(c.body)]
