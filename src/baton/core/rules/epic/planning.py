"""The plan: a planning agent's tasks validated (`task_graph`, GitHub's sub-issue limit), kept in
the record, then created as sub-issues (GitHub first) and handed to the conductor."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.epic import EpicState, NewTask, PlannedTask, TaskCreationPlan, TaskSpec
from baton.core.model.events import AgentReported, Event
from baton.core.model.record import clip
from baton.core.model.work import Work, branch_name
from baton.core.rules.context import Ctx, Draft, move, retry, seen
from baton.core.rules.epic.passes import conductor_pass
from baton.core.rules.epic.phases import (
    DISCOVERY,
    IMPLEMENTING,
    PLANNING,
    SUB_ISSUE_LIMIT,
    epic_of,
    with_epic,
)
from baton.core.rules.epic.task_graph import kept_keys, revise, validate_plan
from baton.core.text import epic as texts
from baton.core.text import markdown, task_marker
from baton.core.text.work import first_line


def _mode(epic: EpicState) -> Literal["new", "extend", "replan"]:
    if not epic.tasks:
        return "new"
    return "extend" if epic.extension else "replan"


def _known(epic: EpicState, mode: str) -> list[str]:
    """The keys a plan may depend on and must not reuse."""
    if mode == "new":
        return []
    return [t.key for t in epic.tasks] if mode == "extend" else kept_keys(epic)


def planning_report(ctx: Ctx, event: AgentReported, result: AgentResult, agent: str) -> Draft:
    """The plan: validated, then its sub-issues created (GitHub first), then the conductor."""
    epic = epic_of(ctx.record)
    if result.next_state == DISCOVERY or (
        ctx.state == PLANNING and result.status.value == "blocked"
    ):
        if ctx.state != PLANNING:
            return retry(ctx, "the plan cannot go back to discovery from here", [], actor=agent)
        why = (
            first_line(result.summary, 300)
            or "the planner needs a major revision of the specification"
        )
        found = epic.discovery.model_copy(update={"phase": "asking", "request": clip(why, 2_000)})
        moved = move(
            ctx, DISCOVERY, reason=f"major revision needed: {why}", actor=agent, trigger="report"
        )
        moved = with_epic(moved, epic.model_copy(update={"discovery": found}))
        return Draft(
            Outcome.transition,
            f"{PLANNING} → {DISCOVERY}: major revision needed",
            record=moved,
            agent=moved.dispatch.agent if moved.dispatch else None,
        )
    specs = list(result.tasks or [])
    mode = _mode(epic)
    kept = _known(epic, mode)
    problem = validate_plan(specs, max_tasks=ctx.policy.epics.max_tasks, known=kept)
    problem_text = problem.message if problem is not None else None
    if problem_text is None:
        # GitHub counts every sub-issue linked to the epic, a replaced task's included (it
        # stays linked, for the record), and those the plan would create.
        _, to_create = revise(epic, specs, mode=mode)
        linked = sum(1 for t in epic.tasks if t.number is not None)
        if linked + len(to_create) > SUB_ISSUE_LIMIT:
            problem_text = (
                f"the epic would have more than {SUB_ISSUE_LIMIT} sub-issues (GitHub's limit)"
            )
    if problem_text is not None:
        return _plan_refused(ctx, problem_text, agent)
    # First the plan itself, in the record: a run that dies while the sub-issues are created
    # leaves it there, and the epic's next run (dispatched now, or the sweep's) creates what is
    # missing and adopts what exists (creation is idempotent by the tasks' marks).
    pending = epic.model_copy(update={"pending_plan": specs, "plan_problem": None})
    record = with_epic(seen(ctx), pending, dispatch=None)
    return Draft(
        Outcome.noted,
        f"the plan of {len(specs)} tasks is valid; its sub-issues are created next",
        record=record,
        notify=(ctx.record.issue,),
    )


def create_plan(ctx: Ctx, event: Event) -> Draft:
    """The validated plan waiting in the record: its sub-issues created (GitHub first), then
    the plan with their numbers, and the conductor's first pass."""
    epic = epic_of(ctx.record)
    specs = list(epic.pending_plan)
    mode = _mode(epic)
    tasks, to_create = revise(epic, specs, mode=mode)
    created = ctx.facts.created
    if created is None:
        return Draft(
            Outcome.noted,
            f"creating the sub-issues of the plan of {len(specs)} tasks",
            record=seen(ctx),
            create_tasks=_creation(ctx, tasks, to_create),
        )
    numbers = {c.key: c for c in created.created}
    filled = [
        t.model_copy(update={"number": numbers[t.key].number, "node_id": numbers[t.key].node_id})
        if t.number is None and t.replaced_by is None and t.key in numbers
        else t
        for t in tasks
    ]
    planner = ctx.workflow.agent_of(PLANNING) or "planner"
    missing = [t.key for t in filled if t.number is None and t.replaced_by is None]
    if missing:
        cleared = epic.model_copy(update={"pending_plan": []})
        ctx = replace(ctx, record=with_epic(ctx.record, cleared))
        return _plan_refused(
            ctx, f"GitHub did not create the sub-issues of {', '.join(missing)}", planner
        )
    branch = epic.branch or branch_name(ctx.policy.work.branch_prefix, ctx.record.issue)
    epic = epic.model_copy(
        update={
            "tasks": filled,
            "plan_version": epic.plan_version + 1,
            "plan_problem": None,
            "pending_plan": [],
            "extension": "",
            "branch": branch,
        }
    )
    why = f"the plan of {len(specs)} tasks is created as sub-issues"
    if ctx.state == IMPLEMENTING:  # an extension after /continue: the conductor goes on
        base = seen(ctx).model_copy(update={"dispatch": None})
    else:
        base = move(ctx, IMPLEMENTING, reason=why, actor=planner, trigger="plan")
    work = base.work or Work(branch=branch)
    if created.branch_created and work.branch == branch:  # made with the tasks: no more calls
        work = work.model_copy(update={"created": True})
    record = with_epic(base, epic, work=work)
    return conductor_pass(
        replace(ctx, record=record),
        record,
        Outcome.transition if ctx.state != IMPLEMENTING else Outcome.noted,
        why,
        plan_message=True,
        observations=list(ctx.facts.tasks or []),
        was=ctx.state,
    )


def _creation(ctx: Ctx, tasks: list[PlannedTask], specs: list[TaskSpec]) -> TaskCreationPlan:
    epic_number = ctx.record.issue
    policy = ctx.policy
    pending_label = policy.label_prefix + "pending"
    labels = (policy.epics.task_label, pending_label)
    by_key = {t.key: t for t in tasks}
    new = [
        NewTask(
            key=s.key,
            title=texts.task_title(s.title, 120),
            body=_task_body(epic_number, s, by_key),
            labels=labels,
        )
        for s in specs
    ]
    creating = {s.key for s in specs}
    edges = [
        (t.key, dep)
        for t in tasks
        if t.key in creating
        for dep in t.depends_on
        if dep in by_key and by_key[dep].replaced_by is None
    ]
    # The epic's branch, where its tasks merge, made with them unless the record has it.
    work, branch = ctx.record.work, epic_of(ctx.record).branch
    if work is None or not work.created:
        branch = branch or branch_name(policy.work.branch_prefix, epic_number)
    else:
        branch = ""
    return TaskCreationPlan(epic=epic_number, tasks=new, edges=edges, branch=branch)


def _task_body(epic: int, spec: TaskSpec, by_key: dict[str, PlannedTask]) -> str:
    deps = [
        f"#{by_key[d].number}" if by_key.get(d) and by_key[d].number else markdown.code(d)
        for d in spec.depends_on
    ]
    lines = [
        f"Task {markdown.code(spec.key)} of epic #{epic}.",
        "",
        markdown.quote(spec.body, 7_000) if spec.body.strip() else "*(no description)*",
        "",
        "Depends on: " + (", ".join(deps) if deps else "nothing"),
        "",
        task_marker.render(epic, spec.key),
    ]
    return "\n".join(lines)


def _plan_refused(ctx: Ctx, problem: str, agent: str) -> Draft:
    epic = epic_of(ctx.record).model_copy(update={"plan_problem": problem, "pending_plan": []})
    ctx = replace(ctx, record=with_epic(ctx.record, epic))
    draft = retry(ctx, f"the plan was refused: {problem}", [problem], actor=agent)
    limits = ctx.workflow.limits
    if draft.outcome is Outcome.retry and draft.record is not None:
        message = texts.plan_refused(problem, draft.record.attempt, limits.max_attempts)
        return replace(draft, message=message)
    return draft
