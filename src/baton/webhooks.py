"""GitHub webhook payloads turned into the few typed events Baton acts on.

`parse` makes no API call: anything Baton does not handle, and anything sent by a bot (Baton
included), becomes `Ignored(reason)` here, so ignoring an event costs nothing. The exceptions
to "bots are ignored" are the `workflow_dispatch` Baton sends itself to chain runs, and the
facts of the issue's pull request (a merge, a close, CI's checks), whoever caused them.

The events of a branch or pull request name no issue: the issue is the one the head branch
belongs to by name (`baton/issue-<N>`), and the record then decides whether the pull request
is the issue's own. What is certainly not Baton's (another branch, a fork, another action) is
ignored by `core.rules.triage.work_event_reason`, the rule the fast path uses too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ValidationError

from baton.core.model.events import (
    CheckNote,
    ChecksCompleted,
    Dispatched,
    Event,
    Ignored,
    IssueChanged,
    Labeled,
    PullRequestClosed,
    Reviewed,
    Sweep,
    bare_issue,
    commented,
)
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import split_handover
from baton.core.rules.labels import is_bot, is_marker, is_ours, is_trigger, status_labels
from baton.core.rules.triage import DISPATCHED_RESULT, WORK_EVENTS, View, work_event_reason
from baton.errors import InvalidEvent
from baton.names import issue_of_branch
from baton.workflow.config import Policy

MAX_ISSUE_DIGITS = 12  # more is no issue GitHub has


def _object(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """`parent[key]` as an object: absent or null is empty; anything else is malformed."""
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidEvent(f"the payload's {where} is not an object")
    return value


def _text(parent: dict[str, Any], key: str, where: str) -> str:
    """`parent[key]` as text: absent or null is empty; a number or an object is malformed."""
    value = parent.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidEvent(f"the payload's {where} is not a string")
    return value


def _id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _actor(user: dict[str, Any], policy: Policy, where: str, association: Any = None) -> Actor:
    login = _text(user, "login", f"{where}.login")
    return Actor(
        login=login or "unknown",
        is_bot=is_bot(user, policy.bot_login),
        association=association if isinstance(association, str) and association else "NONE",
    )


def _label_name(label: Any) -> str:
    name = label.get("name") if isinstance(label, dict) else label
    if not isinstance(name, str):
        raise InvalidEvent("the payload's issue.labels holds a label without a name")
    return name


def _issue(payload: dict[str, Any]) -> IssueInfo:
    raw = payload.get("issue")
    if not isinstance(raw, dict) or not _id(raw.get("number")):
        raise InvalidEvent("the payload has no issue with a number")
    labels = raw.get("labels")
    if labels is not None and not isinstance(labels, list):
        raise InvalidEvent("the payload's issue.labels is not a list")
    return IssueInfo(
        number=raw["number"],
        title=_text(raw, "title", "issue.title"),
        body=_text(raw, "body", "issue.body"),
        state=_text(raw, "state", "issue.state") or "open",
        labels=tuple(_label_name(label) for label in labels or []),
        author=_text(_object(raw, "user", "issue.user"), "login", "issue.user.login"),
        is_pull_request=bool(raw.get("pull_request")),
    )


def _issue_number(value: Any) -> int | None:
    """An issue number as a dispatch names it: a positive JSON number, or its digits exactly
    (`^[1-9][0-9]*$`). `#5`, `05` or ` 5` would be issue 5 here but another concurrency group
    to GitHub (the workflow builds the group from the same text), so they are none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    text = value if isinstance(value, str) else ""
    if 0 < len(text) <= MAX_ISSUE_DIGITS and text[0] in "123456789" and text.isascii():
        return int(text) if text.isdecimal() else None
    return None


def _parse_issues(payload: dict[str, Any], policy: Policy, now: datetime) -> Event | Ignored:
    action = _text(payload, "action", "action")
    issue = _issue(payload)
    sender = _object(payload, "sender", "sender")
    if is_bot(sender, policy.bot_login):
        return Ignored(reason=f"issue {action} by bot {sender.get('login')}", issue=issue.number)
    # The payload's `issue.author_association` is the issue author's, not the sender's: the
    # sender's own rights are looked up when a decision turns on them.
    actor = _actor(sender, policy, "sender")
    updated = str((payload.get("issue") or {}).get("updated_at") or now.isoformat())
    if action in {"labeled", "unlabeled"}:
        label = _text(_object(payload, "label", "label"), "name", "label.name")
        if not label:
            raise InvalidEvent(f"a {action} payload without a label name")
        prefix, trigger = policy.label_prefix, policy.trigger_label
        if not is_ours(label, prefix, trigger, policy.markers):
            return Ignored(reason=f"label {label!r} is not one of Baton's", issue=issue.number)
        if action == "unlabeled" and is_marker(label, policy.markers):
            return Ignored(
                reason=f"the marker label {label!r} removed: nothing to do", issue=issue.number
            )
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
    action = _text(payload, "action", "action")
    issue = _issue(payload)
    comment = payload.get("comment")
    if not isinstance(comment, dict) or not _id(comment.get("id")):
        raise InvalidEvent("an issue_comment payload without a comment id")
    if action not in {"created", "edited"}:
        return Ignored(reason=f"comment {action or '?'}: nothing to act on", issue=issue.number)
    if issue.is_pull_request and not policy.pull_requests:
        return Ignored(
            reason="a comment on a pull request (config: pull_requests is off)", issue=issue.number
        )
    user = _object(comment, "user", "comment.user")
    if is_bot(user, policy.bot_login):
        return Ignored(reason=f"comment by bot {user.get('login')}", issue=issue.number)
    edited = action == "edited"
    stamp = _text(comment, "updated_at", "comment.updated_at") if edited else ""
    return commented(
        id=f"comment:{comment['id']}" + (f":edited:{stamp}" if edited else ""),
        issue=issue,
        actor=_actor(user, policy, "comment.user", comment.get("author_association")),
        at=now,
        comment_id=comment["id"],
        body=_text(comment, "body", "comment.body"),
        edited=edited,
        approval_words=policy.approval_words,
    )


def _parse_dispatch(
    name: str, payload: dict[str, Any], policy: Policy, now: datetime, run_id: str
) -> Event | Ignored:
    inputs = payload.get("inputs") if name == "workflow_dispatch" else payload.get("client_payload")
    inputs = inputs if isinstance(inputs, dict) else {}
    given = inputs.get("issue")
    number = _issue_number(given)
    if number is None:
        if given in (None, ""):
            return Ignored(reason=f"{name} without an `issue` input: nothing to act on")
        shown = repr(given)[:40]
        return Ignored(
            reason=f"{name}: the `issue` input must be an issue number like 7, not {shown}"
        )
    actor = _actor(_object(payload, "sender", "sender"), policy, "sender")
    if name == "repository_dispatch" and "result" in inputs:
        # Any write user can send a repository_dispatch: a result in it would skip every check
        # `baton report` makes (the record's agent, state and attempt, the changeset). Results
        # reach Baton only through `baton report` (docs/security.md).
        return Ignored(reason=DISPATCHED_RESULT, issue=number)
    handed = inputs.get("handover") if name == "workflow_dispatch" else None
    split = split_handover(handed) if isinstance(handed, str) else None
    return Dispatched(
        id=f"dispatch:{run_id}" if run_id else "",
        issue=bare_issue(number),
        actor=actor,
        at=now,
        source=name,
        nonce=split[0] if split else "",
    )


# --- the issue's branch and pull request -------------------------------------------------------
def _pull_request(payload: dict[str, Any]) -> tuple[int, str]:
    """The pull request's number and head branch (the reason check let only well-formed ones
    through to here, but a number may still be missing)."""
    pull = _object(payload, "pull_request", "pull_request")
    if not _id(pull.get("number")):
        raise InvalidEvent("the payload's pull_request has no number")
    head = _object(pull, "head", "pull_request.head")
    return pull["number"], _text(head, "ref", "pull_request.head.ref")


def _branch_issue(branch: str, policy: Policy) -> int:
    number = issue_of_branch(policy.work.branch_prefix, branch)
    if number is None:  # work_event_reason ignores these first
        raise InvalidEvent(f"branch {branch!r} is not one of Baton's")
    return number


def _parse_review(payload: dict[str, Any], policy: Policy, now: datetime) -> Event:
    number, branch = _pull_request(payload)
    review = _object(payload, "review", "review")
    if not _id(review.get("id")):
        raise InvalidEvent("a pull_request_review payload without a review id")
    verdict = _text(review, "state", "review.state").lower()
    user = _object(review, "user", "review.user")
    return Reviewed(
        id=f"review:{review['id']}",
        issue=bare_issue(_branch_issue(branch, policy)),
        actor=_actor(user, policy, "review.user", review.get("author_association")),
        at=now,
        pull_request=number,
        review_id=review["id"],
        verdict=verdict,
        body=_text(review, "body", "review.body"),
        commit=_text(review, "commit_id", "review.commit_id"),
    )


def _parse_closed(payload: dict[str, Any], policy: Policy, now: datetime) -> Event:
    number, branch = _pull_request(payload)
    pull = _object(payload, "pull_request", "pull_request")
    merged = pull.get("merged") is True
    merger = _object(pull, "merged_by", "pull_request.merged_by")
    who = merger if merged and merger else _object(payload, "sender", "sender")
    return PullRequestClosed(
        id=f"pr-closed:{number}:{'true' if merged else 'false'}",
        issue=bare_issue(_branch_issue(branch, policy)),
        actor=_actor(who, policy, "pull_request.merged_by" if merged else "sender"),
        at=now,
        pull_request=number,
        merged=merged,
    )


def _matching_pull_request(run: dict[str, Any], branch: str, where: str) -> int | None:
    """The number of the run's pull request from the branch itself, if it lists one."""
    pulls = run.get("pull_requests")
    if pulls is None:
        return None
    if not isinstance(pulls, list):
        raise InvalidEvent(f"the payload's {where}.pull_requests is not a list")
    for pull in pulls:
        head = pull.get("head") if isinstance(pull, dict) else None
        if isinstance(head, dict) and head.get("ref") == branch and _id(pull.get("number")):
            number: int = pull["number"]
            return number
    return None


FAILING = frozenset({"failure", "timed_out", "action_required", "startup_failure"})


def _parse_checks(name: str, payload: dict[str, Any], policy: Policy, now: datetime) -> Event:
    run = _object(payload, name, name)
    if not _id(run.get("id")):
        raise InvalidEvent(f"a {name} payload without an id")
    branch = _text(run, "head_branch", f"{name}.head_branch")
    head = _text(run, "head_sha", f"{name}.head_sha")
    if not head:
        raise InvalidEvent(f"a {name} payload without a head_sha")
    conclusion = _text(run, "conclusion", f"{name}.conclusion")
    if name == "workflow_run":
        title = _text(run, "name", "workflow_run.name") or "workflow"
    else:
        app = _object(run, "app", "check_suite.app")
        title = _text(app, "name", "check_suite.app.name") or "check suite"
    # The run's detail (which check, what it said) is the run's to read; the payload names
    # only the suite or workflow, which is what failed when nothing more is known.
    failing = [CheckNote(name=title, summary=conclusion)] if conclusion in FAILING else []
    return ChecksCompleted(
        id=f"checks:{head}:{run['id']}",
        issue=bare_issue(_branch_issue(branch, policy)),
        actor=_actor(_object(payload, "sender", "sender"), policy, "sender"),
        at=now,
        branch=branch,
        head=head,
        conclusion=conclusion,
        pull_request=_matching_pull_request(run, branch, name),
        failing=failing,
        source=name,
    )


def _parse_work(
    name: str, payload: dict[str, Any], policy: Policy, now: datetime
) -> Event | Ignored:
    view = View(bot_login=policy.bot_login, branch_prefix=policy.work.branch_prefix)
    reason = work_event_reason(name, payload, view)
    if reason is not None:
        branch = _work_branch(name, payload)
        number = issue_of_branch(policy.work.branch_prefix, branch) if branch else None
        return Ignored(reason=reason, issue=number)
    if name == "pull_request_review":
        return _parse_review(payload, policy, now)
    if name == "pull_request":
        return _parse_closed(payload, policy, now)
    return _parse_checks(name, payload, policy, now)


def _work_branch(name: str, payload: dict[str, Any]) -> str | None:
    if name in {"pull_request_review", "pull_request"}:
        pull = payload.get("pull_request")
        head = pull.get("head") if isinstance(pull, dict) else None
        ref = head.get("ref") if isinstance(head, dict) else None
    else:
        run = payload.get(name)
        ref = run.get("head_branch") if isinstance(run, dict) else None
    return ref if isinstance(ref, str) else None


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
        elif name in WORK_EVENTS:
            parsed = _parse_work(name, payload, policy, now)
        elif name == "schedule":
            return Sweep(at=now)
        else:
            return Ignored(reason=f"event {name!r} is not one Baton handles")
    except ValidationError as exc:
        raise InvalidEvent(f"the {name} payload is malformed: {exc.errors()[0]['msg']}") from exc
    if isinstance(parsed, Ignored | Sweep):
        return parsed
    return parsed.model_copy(update={"run_id": run_id})
