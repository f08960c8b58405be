"""`baton context`: the briefing of the agent due, read with a read-only token, and the agent
job's own check of a run Baton dispatched with the state it hands over.

A report that moves an issue to a state with an agent dispatches the next run with that state
and the hand-over (`<nonce>.<digest>`: the attempt, and the record it was decided on) as
inputs; that run has no decision job, its agent job starts at once. It holds no record secret,
so it trusts only what Baton handed over or derives (`trusted_record`): the one record comment
of the configured bot, whose content hashes to the digest; the branch named after the issue.
Then it checks the dispatch against that record (`refusal`): a state the record does not hold,
an agent it does not wait for, or an attempt it no longer waits on (a late run) runs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from baton.core.model.record import content_digest, split_handover
from baton.core.model.work import branch_name
from baton.errors import BatonError, RecordCorrupt
from baton.issue import record_comment

if TYPE_CHECKING:
    from baton.action.env import ActionEnv
    from baton.core.model.issue_facts import Comment, IssueInfo
    from baton.core.model.record import Dispatch, Record
    from baton.github.tracker import ActionTracker
    from baton.workflow.config import Settings
    from baton.workflow.model import Workflow


def refusal(
    record: Record,
    issue: IssueInfo,
    workflow: Workflow,
    *,
    state: str,
    run_id: str,
    nonce: str = "",
) -> str | None:
    """Why a run dispatched for `state` (and the attempt `nonce`) must start no agent, or None
    when the record waits for that run: what the skipped decision job would have found."""
    if issue.state == "closed":
        return f"#{issue.number} is closed; no agent runs on a closed issue"
    if record.state != state:
        return f"the dispatch named {state}, but #{issue.number} is in {record.state}"
    agent = workflow.agent_of(state)
    if agent is None or record.held:
        why = "is held for a human" if record.held else "has no agent"
        return f"{state} {why}"
    pending = record.dispatch
    if pending is None or pending.state != state or pending.agent != agent:
        return f"no run of the {agent} is due in {state}"
    if nonce and pending.nonce != nonce:
        return late(nonce, pending)
    if run_id and record.has_processed(f"report:{run_id}"):
        return "this run's agent already reported; a re-run starts nothing"
    return None


def late(nonce: str, pending: Dispatch) -> str:
    """Why the run of an attempt Baton no longer waits on starts nothing."""
    return (
        f"the dispatch is for run {nonce}, but Baton waits on attempt {pending.attempt} "
        f"of the {pending.agent} (run {pending.nonce}): a late run starts nothing"
    )


def trusted_record(
    comments: Sequence[Comment], bot_login: str, handed: str, number: int
) -> tuple[Record | None, str, list[str]]:
    """The record a hand-over names, or None and why not, with warnings: the only record
    comment of `bot_login` (never one of another login, never the newest of two), whose
    content hashes to the digest Baton handed over (`record.content_digest`)."""
    split = split_handover(handed)
    if split is None:
        return None, f"the hand-over {handed[:80]!r} is not Baton's (<nonce>.<digest>)", []
    nonce, digest = split
    bot = bot_login.casefold()
    marked = [c for c in comments if record_comment.has_marker(c.body)]
    ours = [c for c in marked if c.author.casefold() == bot]
    warnings = []
    if len(marked) > len(ours):
        others = sorted({c.author for c in marked if c.author.casefold() != bot})
        warnings.append(
            f"ignored {len(marked) - len(ours)} record-like comment(s) by {', '.join(others)}: "
            f"only {bot_login}'s is the record"
        )
    if len(ours) != 1:
        ids = ", ".join(str(c.id) for c in ours)
        found = f"{len(ours)} record comments by {bot_login} ({ids})" if ours else "none"
        why = f"#{number} must have exactly one record comment by {bot_login}, found {found}"
        return None, why, warnings
    try:
        record = record_comment.parse(ours[0].body)
    except RecordCorrupt as exc:
        return None, f"the record comment {ours[0].id} cannot be read: {exc}", warnings
    pending = record.dispatch
    if record.issue == number and content_digest(record) == digest:
        return record, "", warnings
    if pending is not None and pending.nonce != nonce:
        # Said as what it most likely is (the record moved on): not trusted all the same.
        return None, late(nonce, pending), warnings
    why = (
        f"the record comment {ours[0].id} is not the one Baton handed over (its content "
        "changed since, or it is not Baton's)"
    )
    return None, why, warnings


@dataclass
class Briefed:
    """The briefing (empty when refused) and the outputs the agent job steps by."""

    text: str
    outputs: dict[str, str]
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_briefing(
    env: ActionEnv,
    settings: Settings,
    tracker: ActionTracker,
    *,
    issue: int,
    fmt: str,
    state: str | None,
    now: datetime,
    handover: str = "",
) -> Briefed:
    """The briefing and the outputs the agent job steps by (`agent`, `state`, `branch`, and
    `accepted` once the checks passed); with `state` or `handover`, none unless the record
    waits for that run (then a warning says why)."""
    from baton.agents import briefing
    from baton.issue.load import load

    snapshot = tracker.read(issue, with_issue=True)
    info, comments = snapshot.issue, snapshot.comments
    if info is None:
        raise BatonError(f"issue #{issue} could not be read")
    settings = settings.for_labels(info.labels)
    warnings: list[str] = []
    trusted: Record | None = None
    if handover:
        trusted, why, warnings = trusted_record(comments, env.bot_login, handover, issue)
        if trusted is None:
            return _refused(why, state or "", warnings)
    loaded = load(
        issue,
        info.labels,
        comments,
        settings.workflow,
        settings.policy,
        now=now,
        secret=env.secret_value(),
    )
    # On a hand-over the briefing is of the record the digest vouches for, whatever else the
    # loader would choose or rebuild.
    record = trusted or loaded.record
    if record is None:
        raise BatonError(f"issue #{issue} is not in the workflow")
    if state is not None or handover:
        nonce = handover.partition(".")[0]
        run_id = env.run_id
        wanted = state if state is not None else record.state
        said = refusal(record, info, settings.workflow, state=wanted, run_id=run_id, nonce=nonce)
        if said is not None:
            return _refused(said, record.state, warnings)
    brief = briefing.build(env.repository, info, record, comments, settings)
    work = record.work
    branch = branch_name(settings.policy.work.branch_prefix, issue)
    outputs = {
        "agent": brief.agent or "",
        "state": brief.state,
        # Named after the issue, never read from the record: a record is no place to name
        # another branch (a fork's head) for the agent's checkout.
        "branch": branch if work is not None and work.created else "",
        "accepted": "true" if brief.agent else "false",
    }
    text = briefing.to_json(brief) if fmt == "json" else briefing.to_markdown(brief)
    log = [f"context for #{issue} in {brief.state} ({brief.agent})"]
    return Briefed(text, outputs, log=log, warnings=warnings)


def _refused(why: str, state: str, warnings: list[str]) -> Briefed:
    """No agent runs, said once; `accepted` false, so the report job reports nothing."""
    outputs = {"agent": "", "state": state, "branch": "", "accepted": "false"}
    return Briefed("", outputs, warnings=[*warnings, f"no agent runs: {why}"])
