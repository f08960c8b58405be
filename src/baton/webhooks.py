"""GitHub webhook payloads turned into the few typed events Baton acts on.

`parse` makes no API call: anything Baton does not handle, and anything sent by a bot (Baton
included), becomes `Ignored(reason)` here, so ignoring an event costs nothing. The one
exception to "bots are ignored" is the `workflow_dispatch` Baton sends itself to chain runs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ValidationError

from baton.core.events import (
    AgentReported,
    Commented,
    Dispatched,
    Event,
    Ignored,
    IssueChanged,
    Labeled,
    Sweep,
    bare_issue,
)
from baton.core.issue_facts import Actor, IssueInfo
from baton.core.labels import is_bot, is_ours, is_trigger, status_labels
from baton.errors import InvalidAgentResult, InvalidEvent
from baton.workflow.config import Policy


def _actor(user: dict[str, Any] | None, policy: Policy, association: str = "NONE") -> Actor:
    user = user or {}
    return Actor(
        login=str(user.get("login") or "unknown"),
        is_bot=is_bot(user, policy.bot_login),
        association=association or "NONE",
    )


def _issue(payload: dict[str, Any]) -> IssueInfo:
    raw = payload.get("issue")
    if not isinstance(raw, dict) or not isinstance(raw.get("number"), int):
        raise InvalidEvent("the payload has no issue with a number")
    labels = tuple(
        str(label.get("name")) if isinstance(label, dict) else str(label)
        for label in raw.get("labels") or []
    )
    return IssueInfo(
        number=raw["number"],
        title=str(raw.get("title") or ""),
        body=str(raw.get("body") or ""),
        state=str(raw.get("state") or "open"),
        labels=labels,
        author=str((raw.get("user") or {}).get("login") or ""),
        is_pull_request=bool(raw.get("pull_request")),
    )


def _issue_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    text = value.strip().lstrip("#") if isinstance(value, str) else ""
    if text.isascii() and text.isdecimal():
        number = int(text)
        return number if number > 0 else None
    return None


def _parse_issues(payload: dict[str, Any], policy: Policy, now: datetime) -> Event | Ignored:
    action = str(payload.get("action", ""))
    issue = _issue(payload)
    sender = payload.get("sender") or {}
    if is_bot(sender, policy.bot_login):
        return Ignored(reason=f"issue {action} by bot {sender.get('login')}", issue=issue.number)
    # The payload's `issue.author_association` is the issue author's, not the sender's: the
    # sender's own rights are looked up when a decision turns on them.
    actor = _actor(sender, policy)
    updated = str((payload.get("issue") or {}).get("updated_at") or now.isoformat())
    if action in {"labeled", "unlabeled"}:
        label = str((payload.get("label") or {}).get("name") or "")
        if not label:
            raise InvalidEvent(f"a {action} payload without a label name")
        prefix, trigger = policy.label_prefix, policy.trigger_label
        if not is_ours(label, prefix, trigger):
            return Ignored(reason=f"label {label!r} is not one of Baton's", issue=issue.number)
        if action == "unlabeled" and is_trigger(label, trigger):
            return Ignored(
                reason=f"the trigger label {label!r} removed: nothing to do", issue=issue.number
            )
        if action == "unlabeled" and status_labels(issue.labels, prefix):
            return Ignored(
                reason=f"label {label!r} removed while another status label is on the issue "
                "(a relabel in progress)",
                issue=issue.number,
            )
        return Labeled(
            id=f"{action}:{issue.number}:{label}:{updated}",
            issue=issue,
            actor=actor,
            at=now,
            label=label,
            added=action == "labeled",
        )
    if action in {"opened", "reopened", "closed", "edited"}:
        return IssueChanged(
            id=f"issue:{issue.number}:{action}:{updated}",
            issue=issue,
            actor=actor,
            at=now,
            action=action,
        )
    return Ignored(
        reason=f"issues.{action or '?'} is not an event Baton acts on", issue=issue.number
    )


def _parse_comment(payload: dict[str, Any], policy: Policy, now: datetime) -> Event | Ignored:
    action = str(payload.get("action", ""))
    issue = _issue(payload)
    comment = payload.get("comment")
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        raise InvalidEvent("an issue_comment payload without a comment id")
    if action not in {"created", "edited"}:
        return Ignored(reason=f"comment {action or '?'}: nothing to act on", issue=issue.number)
    if issue.is_pull_request and not policy.pull_requests:
        return Ignored(
            reason="a comment on a pull request (config: pull_requests is off)", issue=issue.number
        )
    user = comment.get("user") or {}
    if is_bot(user, policy.bot_login):
        return Ignored(reason=f"comment by bot {user.get('login')}", issue=issue.number)
    edited = action == "edited"
    stamp = str(comment.get("updated_at") or "") if edited else ""
    return Commented(
        id=f"comment:{comment['id']}" + (f":edited:{stamp}" if edited else ""),
        issue=issue,
        actor=_actor(user, policy, str(comment.get("author_association") or "NONE")),
        at=now,
        comment_id=comment["id"],
        body=str(comment.get("body") or ""),
        edited=edited,
    )


def _parse_dispatch(
    name: str, payload: dict[str, Any], policy: Policy, now: datetime, run_id: str
) -> Event | Ignored:
    inputs = payload.get("inputs") if name == "workflow_dispatch" else payload.get("client_payload")
    inputs = inputs if isinstance(inputs, dict) else {}
    number = _issue_number(inputs.get("issue"))
    if number is None:
        return Ignored(reason=f"{name} without an `issue` input: nothing to act on")
    actor = _actor(payload.get("sender"), policy)
    if name == "repository_dispatch" and "result" in inputs:
        from baton.core.agent_result import parse_agent_result

        result, error = None, None
        raw = inputs["result"]
        try:
            result = parse_agent_result(raw if isinstance(raw, str) else _json(raw))
        except InvalidAgentResult as exc:
            error = str(exc)
        return AgentReported(
            id=f"report:{run_id or now.isoformat()}",
            issue=bare_issue(number),
            actor=actor,
            at=now,
            agent=str(inputs.get("agent") or "") or None,
            state=str(inputs.get("state") or "") or None,
            result=result,
            error=error,
        )
    return Dispatched(
        id=f"dispatch:{run_id}" if run_id else "",
        issue=bare_issue(number),
        actor=actor,
        at=now,
        source=name,
    )


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def parse(
    name: str, payload: dict[str, Any], policy: Policy, *, now: datetime, run_id: str = ""
) -> Event | Ignored | Sweep:
    """Turn one GitHub event into an Event, an Ignored(reason) or a Sweep, without I/O."""
    parsed: Event | Ignored | Sweep
    try:
        if name == "issues":
            parsed = _parse_issues(payload, policy, now)
        elif name == "issue_comment":
            parsed = _parse_comment(payload, policy, now)
        elif name in {"workflow_dispatch", "repository_dispatch"}:
            parsed = _parse_dispatch(name, payload, policy, now, run_id)
        elif name == "schedule":
            return Sweep(at=now)
        else:
            return Ignored(reason=f"event {name!r} is not one Baton handles")
    except ValidationError as exc:
        raise InvalidEvent(f"the {name} payload is malformed: {exc.errors()[0]['msg']}") from exc
    if isinstance(parsed, Ignored | Sweep):
        return parsed
    return parsed.model_copy(update={"run_id": run_id})
