"""GitHub event payloads turned into the few typed events Baton acts on.

`parse` makes no API call: anything Baton does not handle, and anything sent by a bot (Baton
included), becomes `Ignored(reason)` here, so ignoring an event costs nothing. The one
exception to "bots are ignored" is the `workflow_dispatch` Baton sends itself to chain runs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from baton.agent_result import AgentResult
from baton.config import Policy
from baton.errors import InvalidAgentResult, InvalidEvent
from baton.triage import is_bot


class Actor(BaseModel):
    """Who caused an event. `permission` is filled in by the run when a decision needs it."""

    model_config = ConfigDict(frozen=True)

    login: str
    is_bot: bool = False
    association: str = "NONE"
    permission: str | None = None  # the collaborator-permission API's answer
    teams: tuple[str, ...] = ()  # the policy's teams this actor is an active member of


class IssueInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str = ""
    body: str = ""
    state: str = "open"
    labels: tuple[str, ...] = ()
    author: str = ""
    is_pull_request: bool = False
    partial: bool = Field(default=False, description="Only the number is known: fetch the rest.")
    updated_at: datetime | None = None


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str = Field(description="A key that is the same when GitHub delivers the event again.")
    issue: IssueInfo
    actor: Actor
    at: datetime
    comments_upto: int = Field(
        default=0, description="The newest human comment id the run has read and considered."
    )
    comments_seen: int = Field(
        default=0, description="The newest human comment id on the issue when the run read it."
    )
    run_id: str = Field(default="", description="GITHUB_RUN_ID of the run handling it.")


class IssueChanged(_Event):
    kind: Literal["issue"] = "issue"
    action: Literal["opened", "reopened", "closed", "edited"]


class Labeled(_Event):
    kind: Literal["label"] = "label"
    label: str
    added: bool


class Commented(_Event):
    kind: Literal["comment"] = "comment"
    comment_id: int
    body: str
    edited: bool = False


class AgentReported(_Event):
    kind: Literal["report"] = "report"
    agent: str | None = None
    state: str | None = Field(default=None, description="The state the agent worked on.")
    result: AgentResult | None = None
    error: str | None = Field(default=None, description="Why the result could not be read.")


class Dispatched(_Event):
    kind: Literal["dispatch"] = "dispatch"
    source: str = "workflow_dispatch"


class Tick(_Event):
    kind: Literal["tick"] = "tick"


Event = Annotated[
    IssueChanged | Labeled | Commented | AgentReported | Dispatched | Tick,
    Field(discriminator="kind"),
]


class Ignored(BaseModel):
    model_config = ConfigDict(frozen=True)

    reason: str
    issue: int | None = None


class Sweep(BaseModel):
    """A scheduled run: it covers many issues, so it is not an event on one."""

    model_config = ConfigDict(frozen=True)

    at: datetime


def _is_bot(user: dict[str, Any], policy: Policy) -> bool:
    return is_bot(user, policy.bot_login)


def _actor(user: dict[str, Any] | None, association: str = "NONE") -> Actor:
    user = user or {}
    return Actor(
        login=str(user.get("login") or "unknown"),
        is_bot=user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]"),
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


def _bare_issue(number: int) -> IssueInfo:
    return IssueInfo(number=number, partial=True)


def _parse_issues(payload: dict[str, Any], policy: Policy, now: datetime) -> Event | Ignored:
    action = str(payload.get("action", ""))
    issue = _issue(payload)
    sender = payload.get("sender") or {}
    if _is_bot(sender, policy):
        return Ignored(reason=f"issue {action} by bot {sender.get('login')}", issue=issue.number)
    actor = _actor(sender, str((payload.get("issue") or {}).get("author_association", "NONE")))
    updated = str((payload.get("issue") or {}).get("updated_at") or now.isoformat())
    if action in {"labeled", "unlabeled"}:
        label = str((payload.get("label") or {}).get("name") or "")
        if not label:
            raise InvalidEvent(f"a {action} payload without a label name")
        ours = label.casefold().startswith(policy.label_prefix.casefold()) or (
            policy.trigger_label is not None and label.casefold() == policy.trigger_label.casefold()
        )
        if not ours:
            return Ignored(reason=f"label {label!r} is not one of Baton's", issue=issue.number)
        is_trigger = (
            policy.trigger_label is not None and label.casefold() == policy.trigger_label.casefold()
        )
        if action == "unlabeled" and is_trigger:
            return Ignored(
                reason=f"the trigger label {label!r} removed: nothing to do", issue=issue.number
            )
        if action == "unlabeled" and any(
            x.casefold().startswith(policy.label_prefix.casefold()) for x in issue.labels
        ):
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
    if _is_bot(user, policy):
        return Ignored(reason=f"comment by bot {user.get('login')}", issue=issue.number)
    edited = action == "edited"
    stamp = str(comment.get("updated_at") or "") if edited else ""
    return Commented(
        id=f"comment:{comment['id']}" + (f":edited:{stamp}" if edited else ""),
        issue=issue,
        actor=_actor(user, str(comment.get("author_association") or "NONE")),
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
    actor = _actor(payload.get("sender"))
    if name == "repository_dispatch" and "result" in inputs:
        from baton.agent_result import parse_agent_result

        result, error = None, None
        raw = inputs["result"]
        try:
            result = parse_agent_result(raw if isinstance(raw, str) else _json(raw))
        except InvalidAgentResult as exc:
            error = str(exc)
        return AgentReported(
            id=f"report:{run_id or now.isoformat()}",
            issue=_bare_issue(number),
            actor=actor,
            at=now,
            agent=str(inputs.get("agent") or "") or None,
            state=str(inputs.get("state") or "") or None,
            result=result,
            error=error,
        )
    return Dispatched(
        id=f"dispatch:{run_id}" if run_id else "",
        issue=_bare_issue(number),
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


def tick(number: int, now: datetime) -> Tick:
    return Tick(id="", issue=_bare_issue(number), actor=Actor(login="baton", is_bot=True), at=now)


def report(
    number: int,
    *,
    agent: str | None,
    result: AgentResult | None,
    error: str | None,
    now: datetime,
    run_id: str,
    actor: str = "baton",
    state: str | None = None,
) -> AgentReported:
    return AgentReported(
        run_id=run_id,
        state=state,
        id=f"report:{run_id}" if run_id else "",
        issue=_bare_issue(number),
        actor=Actor(login=actor, is_bot=True),
        at=now,
        agent=agent,
        result=result,
        error=error,
    )
