"""Shared fixtures and builders for the engine tests: one issue on the in-memory GitHub.

Every builder takes the real path a GitHub event or an agent hand-back takes — a webhook payload
from `baton.payloads` through `events.parse`, or `events.report`, then `run.handle` over the
`MemoryGitHub` — so a test exercises exactly what `baton run` and `baton report` do. Each step
moves the fake clock on a few minutes, as real events are apart in time.

The cast: maria (maintain), tess (triage), wendy (write), alice (read, the issue's author) and
bob (read, a passer-by). Issue #1 is open and not yet in the workflow.
"""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest

from baton import events, payloads, record_comment
from baton.agent_result import AgentResult
from baton.config import Config, Settings, load_config, settings_from
from baton.decision import Decision
from baton.events import Ignored, Sweep
from baton.memory_tracker import MemoryGitHub
from baton.record import Record
from baton.run import handle
from baton.run import sweep as run_sweep

ISSUE = 1
PEOPLE = {"maria": "maintain", "tess": "triage", "wendy": "write", "alice": "read", "bob": "read"}
STEP = timedelta(minutes=5)
WRITES = ("create_comment", "edit_comment", "delete_comment", "set_labels", "react", "dispatch")

_run_ids = itertools.count(1)


@pytest.fixture
def gh() -> MemoryGitHub:
    """The in-memory repository with the cast's permissions and issue #1 by alice."""
    hub = MemoryGitHub()
    for login, permission in PEOPLE.items():
        hub.set_permission(login, permission)
    hub.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return hub


@pytest.fixture
def settings() -> Settings:
    """The defaults: no config file, so the issue-lifecycle preset."""
    return load_config(None)


def configured(**config: Any) -> Settings:
    """Settings from a config written in Python, e.g. `configured(agent_timeout="2h")`."""
    return settings_from(Config(**config))


# --- what humans and GitHub do ------------------------------------------------------------
def deliver(
    gh: MemoryGitHub, settings: Settings, name: str, payload: dict[str, Any]
) -> Decision | Ignored:
    """One webhook through `events.parse` and `run.handle`: the Decision, or why it was Ignored."""
    parsed = events.parse(name, payload, settings.policy, now=gh.now, run_id=str(next(_run_ids)))
    gh.now += STEP
    if isinstance(parsed, Ignored):
        return parsed
    assert not isinstance(parsed, Sweep), "use sweep() for scheduled runs"
    return handle(parsed, gh, settings).decision


def relabel(
    gh: MemoryGitHub, settings: Settings, label: str, by: str, *, bot: bool = False
) -> Decision | Ignored:
    """`by` adds `label` to issue #1."""
    gh.human_label(ISSUE, label)
    return deliver(gh, settings, "issues", payloads.labeled(gh, ISSUE, label, sender=by, bot=bot))


def enter(gh: MemoryGitHub, settings: Settings, by: str = "maria") -> Decision | Ignored:
    """Start Baton on issue #1 with the trigger label."""
    return relabel(gh, settings, "baton", by)


def enter_at(gh: MemoryGitHub, settings: Settings, state: str) -> Decision:
    """Put issue #1 straight into `state`: maria adds its status label (a forced entry)."""
    decision = relabel(gh, settings, label_of(settings, state), "maria")
    assert isinstance(decision, Decision) and decision.state == state, decision
    return decision


def comment(
    gh: MemoryGitHub, settings: Settings, body: str, by: str, *, bot: bool = False
) -> Decision | Ignored:
    """`by` posts `body` on issue #1."""
    posted = gh.human_comment(ISSUE, body, author=by, bot=bot)
    return deliver(gh, settings, "issue_comment", payloads.comment(gh, ISSUE, posted.id))


def edit(gh: MemoryGitHub, settings: Settings, comment_id: int, body: str) -> Decision | Ignored:
    """The author of `comment_id` edits it to say `body`."""
    gh.comment_store[comment_id].body = body
    payload = payloads.comment(gh, ISSUE, comment_id, action="edited")
    return deliver(gh, settings, "issue_comment", payload)


def close(gh: MemoryGitHub, settings: Settings, by: str) -> Decision | Ignored:
    gh.issues[ISSUE].state = "closed"
    return deliver(gh, settings, "issues", payloads.issues(gh, ISSUE, "closed", sender=by))


def reopen(gh: MemoryGitHub, settings: Settings, by: str) -> Decision | Ignored:
    gh.issues[ISSUE].state = "open"
    return deliver(gh, settings, "issues", payloads.issues(gh, ISSUE, "reopened", sender=by))


# --- what agents and the clock do ----------------------------------------------------------
def report(
    gh: MemoryGitHub,
    settings: Settings,
    agent: str | None,
    *,
    error: str | None = None,
    run_id: str | None = None,
    **result: Any,
) -> Decision:
    """`agent` hands back a result (success, confidence 0.9 unless told); `error`: none at all."""
    parsed = (
        None
        if error is not None
        else AgentResult(**{"status": "success", "confidence": 0.9, **result})
    )
    event = events.report(
        ISSUE,
        agent=agent,
        result=parsed,
        error=error,
        now=gh.now,
        run_id=run_id or f"run-{next(_run_ids)}",
    )
    gh.now += STEP
    return handle(event, gh, settings).decision


def sweep(gh: MemoryGitHub, settings: Settings, after: timedelta) -> Decision | None:
    """Let `after` pass, run the scheduled sweep, and return its decision on issue #1."""
    gh.now += after
    swept = run_sweep(gh, settings, now=gh.now, chain=None)
    return next((r.decision for r in swept.results if r.decision.issue == ISSUE), None)


# --- what a test reads back ---------------------------------------------------------------
def label_of(settings: Settings, state: str) -> str:
    return settings.workflow.label_for(state, settings.policy.label_prefix)


def record_of(gh: MemoryGitHub) -> Record | None:
    """The record in the bot's (oldest) record comment on issue #1."""
    for found in record_comment.find_records(
        [record_comment.CommentRef(c.id, c.author, c.body) for c in gh.comments_of(ISSUE)],
        gh.bot_login,
    ):
        return record_comment.parse(found.body)
    return None


def state_of(gh: MemoryGitHub) -> str | None:
    record = record_of(gh)
    return record.state if record else None


def messages_of(gh: MemoryGitHub) -> list[str]:
    """What the bot said to humans on issue #1, oldest first (the record comment left out)."""
    return [
        c.body
        for c in gh.comments_of(ISSUE)
        if c.author == gh.bot_login and not record_comment.has_marker(c.body)
    ]


def writes(gh: MemoryGitHub) -> int:
    """GitHub calls so far that change something."""
    return sum(gh.calls[op] for op in WRITES)
