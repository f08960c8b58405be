"""What `baton simulate` says of each step: the step itself, the decision the run took, the
feedback the next agent will read, and what the step changed on GitHub. Text only; the
player says it."""

from __future__ import annotations

from baton.agents import briefing
from baton.core.model.issue_facts import IssueInfo
from baton.run import RunResult
from baton.sim import work_news
from baton.sim.scenario.format import Step, one_line
from baton.sim.scenario.holding import (
    Holding,
    Stage,
    baton_commits,
    commits_between,
    due_agent,
    files_of,
    holding,
    open_pull_number,
    record_of,
)

COMMENT_LINES = 6  # lines of a bot comment said, unless the player is told otherwise

VERDICT_WORDS = {
    "approved": "approves",
    "changes_requested": "requests changes",
    "commented": "comments",
}


def describe(stage: Stage, step: Step, author: str) -> str:
    """The step in one line; `author` (the issue's) does it when it names nobody."""
    who = step.actor or author
    if step.report is not None:
        r = step.report
        agent = r.agent or (due_agent(stage) or "agent")
        extra = [f"{len(r.questions)} question(s)"] if r.questions else []
        extra += [f"{len(r.issues_found)} issue(s) found"] if r.issues_found else []
        extra += [f"proposes {r.next_state}"] if r.next_state else []
        if r.changes is not None:
            stale = " from a stale base" if r.base == "stale" else ""
            extra += [f"changed {len(r.changes)} file(s){stale}"]
        tail = f", {', '.join(extra)}" if extra else ""
        return f"{agent} reports {r.status.value}, confidence {r.confidence:.2f}{tail}"
    if step.comment is not None:
        text = " ".join(step.comment.split())
        return f"{who} comments: {text[:70]!r}"
    if step.label is not None:
        return f"{who} adds label {step.label}"
    if step.unlabel is not None:
        return f"{who} removes label {step.unlabel}"
    if step.wait is not None:
        return f"time passes: {step.wait}"
    if step.push is not None:
        return f"{who} pushes {len(step.push.files)} file(s) to {stage.branch}"
    pull = open_pull_number(stage)
    named = f"pull request #{pull}" if pull else "the pull request"
    if step.review is not None:
        notes = len(step.review.notes)
        inline = f", {notes} inline note(s)" if notes else ""
        return f"{who} reviews {named}: {VERDICT_WORDS[step.review.verdict]}{inline}"
    if step.checks is not None:
        head = stage.gh.git.head(stage.branch) or ""
        on = f" on {head[:7]}" if head else ""
        return f"CI: check {step.checks.name} {step.checks.conclusion}{on}"
    return {
        "open": f"{who} opens the issue",
        "sweep": "the scheduled sweep runs",
        "close": f"{who} closes the issue",
        "reopen": f"{who} reopens the issue",
        "dispatch": "a workflow_dispatch run starts",
        "merge": f"{who} merges {named}",
        "close_pr": f"{who} closes {named} without merging",
        "expect": "check",
    }[step.action]


def decision_lines(
    stage: Stage,
    result: RunResult,
    *,
    told: dict[str, int] | None = None,
    step: int = 0,
    following: tuple[int, Step] | None = None,
    comment: int = COMMENT_LINES,
) -> list[str]:
    """The run's decision: the move, why, the check run, the labels, the bot's comment (its
    first `comment` lines), the next agent.

    `told` maps each bot comment already shown to its step (a comment posted again is named,
    not shown again; this step's are added); `following` is the next step and its number, said
    when it comes before the named agent reports."""
    decision = result.decision
    moved = (
        f"{decision.previous_state or '(not in workflow)'} → {decision.state}"
        if decision.transitioned
        else (decision.state or "(not in workflow)")
    )
    lines = [f"   {decision.outcome.value}: {moved}", f"   why: {decision.reason}"]
    if decision.check is not None:
        check = decision.check
        lines.append(
            f"   check run: {check.name} {check.conclusion} on {check.commit[:7]}: "
            f"{one_line(check.title, 200)}"
        )
    if decision.labels is not None or decision.transitioned:
        status = [x for x in stage.gh.labels_of(stage.number)]
        lines.append(f"   labels: {', '.join(status) or '(none)'}")
    if decision.message:
        lines += comment_lines(decision.message, {} if told is None else told, step, comment)
    if decision.agent:
        how = "workflow run dispatched" if result.dispatched else "follow-up job"
        first = ""
        if following is not None and following[1].report is None:
            first = f"; step {following[0]} happens before it reports"
        lines.append(f"   next agent: {decision.agent} ({how}){first}")
    return lines


def comment_lines(
    message: str, told: dict[str, int], step: int, limit: int = COMMENT_LINES
) -> list[str]:
    """The bot's comment, its first `limit` lines; only its heading when an earlier step
    showed the same comment."""
    first = [line for line in message.splitlines() if line.strip()][:limit]
    shown = [f"     | {line}" for line in first if not line.startswith("<sub>")]
    if message in told:
        return [f"   bot comments again, as at step {told[message]}:", *shown[:1]]
    told[message] = step
    return ["   bot comments:", *shown]


def feedback_lines(stage: Stage, agent: str) -> list[str]:
    """The feedback the next agent's briefing carries, as `baton context` builds it from
    what GitHub now holds (read here without a call: the agent's job makes that read)."""
    record = record_of(stage)
    if record is None or not record.feedback:
        return []
    found = stage.gh.issues[stage.number]
    issue = IssueInfo(
        number=stage.number,
        title=found.title,
        body=found.body,
        state=found.state,
        labels=tuple(found.labels),
        author=found.author,
    )
    comments = stage.gh.comments_of(stage.number)
    brief = briefing.build(stage.gh.repo, issue, record, comments, stage.settings)
    if brief.agent != agent:
        return []
    lines = [f"   the {agent}'s briefing, feedback:"]
    for item in brief.feedback:
        lines += [f"     | {one_line(line, 200)}" for line in item.splitlines()]
    return lines


def change_lines(stage: Stage, before: Holding) -> list[str]:
    """What the step changed of the branch and the pull request."""
    now = holding(stage)
    git = stage.gh.git
    lines = []
    if now.head is not None and now.head != before.head:
        start = before.head or git.head(git.default_branch) or ""
        new = commits_between(stage, start, now.head)
        if before.head is None:
            lines.append(f"   GitHub: branch {stage.branch} created at {start[:7]}")
        for oid in new:
            commit = git.commits[oid]
            lines.append(
                f"   GitHub: {stage.branch} → {oid[:7]} by {commit.author}: {commit.headline}"
            )
            lines += [f"     {line}" for line in files_of(stage, oid)]
    if now.pull_request is not None and (
        now.pull_request != before.pull_request
        or now.pull_request_state != before.pull_request_state
    ):
        number, state = now.pull_request, now.pull_request_state
        fresh = now.pull_request != before.pull_request
        said = work_news.pull_request_said(stage.gh.pull_requests[number], state, fresh=fresh)
        lines.append(f"   GitHub: pull request #{number} {said}")
    return lines


def work_line(stage: Stage) -> str | None:
    """What GitHub holds of the issue's work in one line, or None when it has nothing."""
    now = holding(stage)
    if now.head is None:
        return None
    line = f"{stage.branch} at {now.head[:7]}, {baton_commits(stage)} commit(s) by Baton"
    if now.pull_request is None:
        return f"{line}, no pull request"
    pull = stage.gh.pull_requests[now.pull_request]
    said: str = now.pull_request_state
    if said == "merged":
        said = f"merged into {pull.base} as {(pull.merge_commit or '')[:7]}"
    return f"{line}; pull request #{pull.number} {said}"
