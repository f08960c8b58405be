"""An epic's own rules (the `feature-epic` preset, seed 002's phases): the discovery dialogue,
the plan turned into sub-issues, the conductor's passes, the breaker, the budget, completion.

`route` sends an epic's reports, comments, dispatches and ticks here; labels, reopening and
closing take the common rules. The conductor runs on whatever event finds the epic in
`implementing`, `blocked` or `completing` with its sub-issues read (`event.tasks`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome, PullRequestPlan
from baton.core.model.epic import (
    MAX_SPEC,
    Discovery,
    EpicState,
    NewTask,
    PlannedTask,
    Spend,
    TaskCreationPlan,
    TaskSpec,
)
from baton.core.model.events import AgentReported, Commented, Dispatched, Event, Tick
from baton.core.model.record import EXCERPT, HumanInput, Record, clip
from baton.core.model.work import Work, branch_name
from baton.core.rules import budget
from baton.core.rules.authority import is_member, may_answer
from baton.core.rules.comment_commands import Verb, parse_command
from baton.core.rules.context import BATON, Ctx, Draft, dispatch, move, retry, seen
from baton.core.rules.epic import conductor
from baton.core.rules.epic.breaker import half_open
from baton.core.rules.epic.commands import EpicVerb, parse_epic_command
from baton.core.rules.epic.plan import kept_keys, revise, validate_plan
from baton.core.rules.humans import on_comment as common_comment
from baton.core.rules.humans import refuse
from baton.core.rules.lifecycle import on_tick as common_tick
from baton.core.text import epic as texts
from baton.core.text import epic_plan as render
from baton.core.text import markdown, task_marker
from baton.core.text.work import first_line, pull_request_title

DISCOVERY, PLANNING, IMPLEMENTING, BLOCKED, COMPLETING, DONE = (
    "discovery",
    "planning",
    "implementing",
    "blocked",
    "completing",
    "done",
)
CONDUCTING = frozenset({IMPLEMENTING, BLOCKED, COMPLETING})
AGENT_PHASES = frozenset({"asking", "generating", "editing"})
TABLE_BUDGET = 20_000  # characters of the task table in a message
SUB_ISSUE_LIMIT = 100  # sub-issues GitHub links to one parent


def epic_of(record: Record) -> EpicState:
    return record.epic or EpicState()


def with_epic(record: Record, epic: EpicState, **changes: Any) -> Record:
    return record.model_copy(update={"epic": epic, **changes})


def tasks_spend(epic: EpicState) -> Spend:
    total = Spend()
    for task in epic.tasks:
        total = total.plus(task.spend)
    return total


def epic_spend(record: Record) -> Spend:
    """The epic's own agents' spend and its tasks' (as the conductor last read them)."""
    return record.spend.plus(tasks_spend(epic_of(record)))


# --- the entry point ------------------------------------------------------------------------
def on_epic(ctx: Ctx, event: Event) -> Draft | None:
    """The epic's rule for the event, or None to take the common rule."""
    if ctx.record.held and isinstance(event, Commented):
        return None  # held by the retry ladder: /retry, /skip as for any issue
    match event:
        case AgentReported():
            return _on_report(ctx, event)
        case Commented():
            return _on_comment(ctx, event)
        case Dispatched() | Tick():
            return _on_wake(ctx, event)
    return None


# --- reports ---------------------------------------------------------------------------------
def _stale(ctx: Ctx, event: AgentReported) -> str | None:
    record = ctx.record
    if event.state and event.state != ctx.state:
        return f"the report is for {event.state}, but the epic is in {ctx.state}"
    due = record.dispatch
    if due is None or due.state != ctx.state or record.held:
        return f"{ctx.state} is not waiting on an agent"
    if event.agent and event.agent != due.agent:
        return f"the report is from {event.agent}, but {ctx.state} waits on the {due.agent}"
    return None


def _on_report(ctx: Ctx, event: AgentReported) -> Draft:
    stale = _stale(ctx, event)
    if stale:
        return Draft(Outcome.refused, f"stale report: {stale}", record=seen(ctx))
    agent = ctx.record.dispatch.agent if ctx.record.dispatch else "agent"
    if event.result is None:
        why = event.error or "the agent returned no result"
        return retry(ctx, f"the {agent}'s result was invalid", [why], actor=agent)
    result = event.result
    if result.status.value == "failure":
        feedback = [*result.issues_found] or [result.summary or "it reported a failure"]
        return retry(ctx, f"the {agent} reported a failure", feedback, actor=agent)
    if ctx.state == DISCOVERY:
        return _discovery_report(ctx, result, agent)
    return _planning_report(ctx, event, result, agent)


def _discovery_report(ctx: Ctx, result: AgentResult, agent: str) -> Draft:
    epic = epic_of(ctx.record)
    found = epic.discovery
    categories = ctx.policy.epics.categories
    done = list(
        dict.fromkeys([*found.categories_done, *(c for c in result.categories if c in categories)])
    )
    base = seen(ctx)
    if result.spec and result.spec.strip():
        spec = clip(result.spec, MAX_SPEC)
        found = found.model_copy(
            update={
                "phase": "presenting",
                "spec": spec,
                "spec_version": found.spec_version + 1,
                "categories_done": done,
                "request": "",
            }
        )
        record = with_epic(base, epic.model_copy(update={"discovery": found}), dispatch=None)
        message = texts.specification(spec, found.spec_version, ctx.policy.approval_words)
        return Draft(
            Outcome.noted,
            f"the {agent} presented specification version {found.spec_version}",
            record=record,
            message=message,
        )
    if result.questions:
        remaining = [c for c in categories if c not in done]
        category = remaining[0] if remaining else (result.categories or ["questions"])[-1]
        found = found.model_copy(
            update={"phase": "answering", "category": category, "categories_done": done}
        )
        record = with_epic(
            base,
            epic.model_copy(update={"discovery": found}),
            dispatch=None,
            open_questions=[clip(q, 500) for q in result.questions][:20],
            pending_input=[],
        )
        message = texts.discovery_questions(
            found.turns, category, result.questions, max(len(remaining) - 1, 0)
        )
        return Draft(
            Outcome.noted,
            f"the {agent} asked about {category} (turn {found.turns + 1})",
            record=record,
            message=message,
        )
    if all(c in done for c in categories):
        return _generate(
            ctx,
            base,
            epic,
            found.model_copy(update={"categories_done": done}),
            "every category is answered",
        )
    why = f"the {agent} returned neither questions nor a specification"
    return retry(
        ctx,
        why,
        [f"{why}: ask about {', '.join(c for c in categories if c not in done)}"],
        actor=agent,
    )


def _generate(ctx: Ctx, base: Record, epic: EpicState, found: Discovery, why: str) -> Draft:
    """The discovery agent writes the specification now."""
    found = found.model_copy(update={"phase": "generating"})
    agent = ctx.workflow.agent_of(DISCOVERY) or "discovery"
    record = with_epic(
        base,
        epic.model_copy(update={"discovery": found}),
        attempt=1,
        dispatch=dispatch(ctx, agent, DISCOVERY, 1),
    )
    return Draft(
        Outcome.resume,
        f"the {agent} writes the specification: {why}",
        record=record,
        agent=agent,
        message=texts.generating(why),
    )


def _ask(ctx: Ctx, base: Record, epic: EpicState, found: Discovery, why: str) -> Draft:
    """The discovery agent asks its next round (or applies edits) now."""
    agent = ctx.workflow.agent_of(DISCOVERY) or "discovery"
    record = with_epic(
        base,
        epic.model_copy(update={"discovery": found}),
        attempt=1,
        dispatch=dispatch(ctx, agent, DISCOVERY, 1),
    )
    return Draft(Outcome.resume, f"the {agent} goes on: {why}", record=record, agent=agent)


def _mode(epic: EpicState) -> Literal["new", "extend", "replan"]:
    if not epic.tasks:
        return "new"
    return "extend" if epic.extension else "replan"


def _planning_report(ctx: Ctx, event: AgentReported, result: AgentResult, agent: str) -> Draft:
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


def _create_plan(ctx: Ctx, event: Event) -> Draft:
    """The validated plan waiting in the record: its sub-issues created (GitHub first), then
    the plan with their numbers, and the conductor's first pass."""
    epic = epic_of(ctx.record)
    specs = list(epic.pending_plan)
    mode = _mode(epic)
    tasks, to_create = revise(epic, specs, mode=mode)
    created = event.created
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
    record = with_epic(base, epic, work=base.work or Work(branch=branch))
    return _conduct(
        replace(ctx, record=record),
        record,
        Outcome.transition if ctx.state != IMPLEMENTING else Outcome.noted,
        why,
        plan_message=True,
        observations=list(event.tasks or []),
        was=ctx.state,
    )


def _known(epic: EpicState, mode: str) -> list[str]:
    """The keys a plan may depend on and must not reuse."""
    if mode == "new":
        return []
    return [t.key for t in epic.tasks] if mode == "extend" else kept_keys(epic)


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
    return TaskCreationPlan(epic=epic_number, tasks=new, edges=edges)


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


# --- comments --------------------------------------------------------------------------------
def _on_comment(ctx: Ctx, event: Commented) -> Draft | None:
    record = ctx.record
    if record.has_processed(event.id) or (
        not event.edited and event.comment_id <= record.last_comment_id
    ):
        return Draft(Outcome.ignored, f"comment {event.comment_id} was already handled")
    if event.edited and not ctx.policy.allow_edited_approvals:
        return Draft(Outcome.ignored, "an edited comment does not count (allow_edited_approvals)")
    if event.comment_id and event.comment_id <= record.entered_after_comment:
        return Draft(Outcome.ignored, f"comment {event.comment_id} predates {ctx.state}")
    common = parse_command(event.body, ctx.policy.approval_words)
    ours = parse_epic_command(event.body)
    approver = is_member(event.actor, ctx.policy.approvers)
    if (
        (common is not None or ours is not None)
        and not approver
        and not (
            ours is not None
            and ours.verb in (EpicVerb.generate, EpicVerb.continue_)
            and ctx.state == DISCOVERY
            and may_answer(event.actor, event.issue.author, ctx.policy)
        )
    ):
        return (
            common_comment(ctx, event)
            if common is not None
            else _refused(ctx, event, "only approvers give the epic's commands")
        )
    if ctx.state == DISCOVERY:
        return _discovery_comment(ctx, event, common, ours)
    if ctx.state == BLOCKED and ctx.record.escalated_from in (DISCOVERY, PLANNING):
        return common_comment(ctx, event)  # the retry ladder escalated it: /retry, /replan
    if ctx.state == BLOCKED:
        if (ours is not None and ours.verb is EpicVerb.resume) or (
            common is not None and common.verb is Verb.retry
        ):
            return _resume(ctx, event)
        if common is not None and common.verb is Verb.replan:
            return _replan(ctx, event, common.argument)
    if ctx.state == COMPLETING:
        if common is not None and common.verb is Verb.approve:
            moved = move(
                ctx,
                DONE,
                reason=f"approved by {event.actor.login}",
                actor=event.actor.login,
                trigger="approval",
                human=True,
            )
            return Draft(
                Outcome.transition,
                f"{COMPLETING} → {DONE}: approved by {event.actor.login}",
                record=moved,
            )
        if ours is not None and ours.verb is EpicVerb.continue_:
            return _continue(ctx, event, ours.argument)
    if common is not None or ours is not None:
        what = ours.verb.value if ours else common.verb.value if common else ""
        return _refused(ctx, event, f"`{what}` does nothing while the epic is in {ctx.state}")
    if may_answer(event.actor, event.issue.author, ctx.policy):
        kept = [*record.pending_input, _input(ctx, event)][-5:]
        return Draft(
            Outcome.noted,
            f"kept the reply of {event.actor.login} for the next agent",
            record=seen(ctx).model_copy(update={"pending_input": kept}),
        )
    return Draft(Outcome.ignored, f"{event.actor.login} is not one whose replies are taken")


def _refused(ctx: Ctx, event: Commented, why: str) -> Draft:
    return refuse(ctx, event.actor, why, event.comment_id)


def _input(ctx: Ctx, event: Commented) -> HumanInput:
    return HumanInput(
        author=event.actor.login,
        excerpt=clip(event.body, EXCERPT),
        comment_id=event.comment_id,
        state=ctx.state,
        at=ctx.now,
    )


def _discovery_comment(ctx: Ctx, event: Commented, common: Any, ours: Any) -> Draft:
    epic = epic_of(ctx.record)
    found = epic.discovery
    settings = ctx.policy.epics
    base = seen(ctx)
    who = event.actor.login
    answerer = may_answer(event.actor, event.issue.author, ctx.policy)
    if common is None and ours is None and not answerer:
        return Draft(Outcome.ignored, f"{who} is not one whose replies are taken")
    if found.phase == "presenting":
        if common is not None and common.verb is Verb.approve:
            moved = move(
                ctx,
                PLANNING,
                reason=f"specification version {found.spec_version} approved by {who}",
                actor=who,
                trigger="approval",
                human=True,
            )
            return Draft(
                Outcome.transition,
                f"{DISCOVERY} → {PLANNING}: the specification is approved by {who}",
                record=moved,
                agent=moved.dispatch.agent if moved.dispatch else None,
            )
        if ours is not None and ours.verb is EpicVerb.edit:
            edited = found.model_copy(
                update={"phase": "editing", "request": clip(ours.argument, 2_000)}
            )
            return _ask(ctx, base, epic, edited, f"{who} asked for minor edits")
        if ours is not None and ours.verb is EpicVerb.revise:
            revised = found.model_copy(
                update={"phase": "asking", "request": clip(ours.argument, 2_000)}
            )
            return _ask(ctx, base, epic, revised, f"{who} asked for a major revision")
        if common is None and ours is None and not is_member(event.actor, ctx.policy.approvers):
            # Only an approver's words revise the specification (each revision is an agent
            # run); anyone else's reply waits for the next agent, as input.
            kept = [*ctx.record.pending_input, _input(ctx, event)][-5:]
            return Draft(
                Outcome.noted,
                f"kept the reply of {who} for the next revision",
                record=base.model_copy(update={"pending_input": kept}),
            )
        if common is None and ours is None:
            edited = found.model_copy(
                update={"phase": "editing", "request": clip(event.body, 2_000)}
            )
            return _ask(
                ctx,
                base.model_copy(update={"pending_input": [_input(ctx, event)]}),
                epic,
                edited,
                f"{who}'s reply is taken as minor edits",
            )
        return _refused(ctx, event, "the specification waits for approval, `/edit` or `/revise`")
    if found.phase == "warned":
        if ours is not None and ours.verb is EpicVerb.generate:
            return _generate(ctx, base, epic, found, f"{who} asked to generate now")
        if ours is not None and ours.verb is EpicVerb.continue_:
            return _ask(
                ctx,
                base,
                epic,
                found.model_copy(update={"phase": "asking"}),
                f"{who} chose to continue",
            )
    if found.phase in ("answering", "warned"):
        if ours is not None and ours.verb is EpicVerb.generate:
            return _generate(ctx, base, epic, found, f"{who} asked to generate now")
        if common is not None or ours is not None:
            return _refused(ctx, event, "discovery waits for an answer (or `generate now`)")
        turns = found.turns + 1
        answered = base.model_copy(
            update={"pending_input": [*ctx.record.pending_input, _input(ctx, event)][-5:]}
        )
        counted = found.model_copy(
            update={
                "turns": turns,
                "categories_done": list(dict.fromkeys([*found.categories_done, found.category]))
                if found.category
                else found.categories_done,
            }
        )
        if turns >= settings.max_turns:
            return _generate(ctx, answered, epic, counted, f"{turns} answers, the limit")
        if turns >= settings.warn_turns and not found.warned:
            warned = counted.model_copy(update={"phase": "warned", "warned": True})
            record = with_epic(answered, epic.model_copy(update={"discovery": warned}))
            return Draft(
                Outcome.noted,
                f"warned after {turns} answers: generate now or continue",
                record=record,
                message=texts.turn_warning(turns, settings.max_turns),
            )
        return _ask(
            ctx,
            answered,
            epic,
            counted.model_copy(update={"phase": "asking"}),
            f"answer {turns} from {who}",
        )
    if common is not None or ours is not None:
        return _refused(ctx, event, "the discovery agent is working; wait for its questions")
    kept = [*ctx.record.pending_input, _input(ctx, event)][-5:]
    return Draft(
        Outcome.noted,
        f"kept the reply of {who} for the discovery agent",
        record=base.model_copy(update={"pending_input": kept}),
    )


def _resume(ctx: Ctx, event: Commented) -> Draft:
    record = ctx.record
    epic = epic_of(record)
    stop = budget.spent(epic_spend(record), ctx.policy.budgets.epic, what="this epic")
    if stop:
        return _refused(ctx, event, f"{stop}; raise `budgets.epic` in the config first")
    breaker = half_open(epic.breaker)
    epic = epic.model_copy(update={"breaker": breaker, "budget_stop": None})
    who = event.actor.login
    moved = with_epic(
        move(
            ctx, IMPLEMENTING, reason=f"resumed by {who}", actor=who, trigger="command", human=True
        ),
        epic,
    )
    probe = breaker.state == "half_open"
    return _conduct(
        replace(ctx, record=moved),
        moved,
        Outcome.transition,
        f"{BLOCKED} → {IMPLEMENTING}: resumed by {who}",
        observations=event.tasks,
        extra_message=texts.resumed(probe),
        was=BLOCKED,
    )


def _replan(ctx: Ctx, event: Commented, why: str) -> Draft:
    who = event.actor.login
    moved = move(
        ctx, PLANNING, reason=f"replan asked by {who}", actor=who, trigger="command", human=True
    )
    moved = moved.model_copy(update={"pending_input": [_input(ctx, event)]})
    return Draft(
        Outcome.transition,
        f"{BLOCKED} → {PLANNING}: replan asked by {who}",
        record=moved,
        agent=moved.dispatch.agent if moved.dispatch else None,
    )


def _continue(ctx: Ctx, event: Commented, request: str) -> Draft:
    who = event.actor.login
    if not request.strip():
        return _refused(ctx, event, "say what to add: `/continue <what else>`")
    epic = epic_of(ctx.record).model_copy(update={"extension": clip(request, 2_000)})
    planner = ctx.workflow.agent_of(PLANNING) or "planner"
    moved = move(
        ctx, IMPLEMENTING, reason=f"continued by {who}", actor=who, trigger="command", human=True
    )
    moved = with_epic(
        moved,
        epic,
        dispatch=dispatch(ctx, planner, IMPLEMENTING, 1),
        pending_input=[_input(ctx, event)],
    )
    return Draft(
        Outcome.transition,
        f"{COMPLETING} → {IMPLEMENTING}: continued by {who}; the {planner} plans more tasks",
        record=moved,
        agent=planner,
    )


# --- dispatches and ticks: the conductor -------------------------------------------------------
def _on_wake(ctx: Ctx, event: Dispatched | Tick) -> Draft:
    record = ctx.record
    if epic_of(record).pending_plan and ctx.state in (PLANNING, IMPLEMENTING):
        return _create_plan(ctx, event)
    if ctx.state in CONDUCTING and event.tasks is not None:
        return _conduct(
            ctx,
            record,
            Outcome.noted,
            "the conductor's pass",
            observations=event.tasks,
            was=ctx.state,
        )
    due = record.dispatch
    if isinstance(event, Dispatched):
        run = event.id.removeprefix("dispatch:")
        if run and record.has_processed(f"report:{run}"):
            return Draft(
                Outcome.ignored, "this run's agent already reported; a re-run starts nothing"
            )
        if (
            due is not None
            and due.state == ctx.state
            and not record.held
            and event.issue.state != "closed"
        ):
            return Draft(
                Outcome.resume, f"{ctx.state} is due: run the {due.agent}", agent=due.agent
            )
        return Draft(Outcome.ignored, f"nothing to run in {ctx.state}")
    return common_tick(ctx, event)


def _conduct(
    ctx: Ctx,
    record: Record,
    outcome: Outcome,
    why: str,
    *,
    observations: list[Any] | None = None,
    plan_message: bool = False,
    extra_message: str | None = None,
    was: str,
) -> Draft:
    """One conductor pass over `record` (already moved, if the rule moved it)."""
    epic = epic_of(record)
    settings = ctx.policy.epics
    state = record.state
    # The budget as the tasks stand now: their spend is read by this very pass.
    spend_now = record.spend.plus(conductor.observed_spend(epic, observations or []))
    stop = budget.spent(spend_now, ctx.policy.budgets.epic, what="this epic")
    done = conductor.conduct(
        epic,
        observations or [],
        settings,
        now=ctx.now,
        may_start=state == IMPLEMENTING and not record.held,
        budget_stop=stop,
    )
    epic = done.epic
    record = with_epic(record, epic)
    if record.state == IMPLEMENTING:
        record = record.model_copy(update={"dispatch": record.dispatch if epic.extension else None})
    messages_: list[str] = []
    if extra_message:
        messages_.append(extra_message)
    table = render.task_table(epic)
    if plan_message:
        messages_.append(
            texts.plan_created(
                len([t for t in epic.tasks if t.replaced_by is None]), table, done.started
            )
        )
    notify = list(done.notify)
    moved_to: str | None = None
    if state == IMPLEMENTING and done.breaker_opened:
        moved_to = BLOCKED
        refs = [t.number for t in epic.tasks if t.status.value == "failed" and t.number]
        messages_.append(texts.breaker_open(epic.breaker.reasons, table, refs))
        why = f"{why}; the circuit breaker opened"
    elif state == IMPLEMENTING and stop and epic.budget_stop is None and not done.all_done:
        moved_to = BLOCKED
        epic = epic.model_copy(update={"budget_stop": stop})
        record = with_epic(record, epic)
        messages_.append(texts.budget_stop(stop, budget.describe(epic_spend(record))))
        why = f"{why}; {stop}"
    elif state == IMPLEMENTING and done.all_done and not epic.extension:
        moved_to = COMPLETING
        why = f"{why}; every task is done"
    draft_open: PullRequestPlan | None = None
    if moved_to is not None:
        moving_ctx = replace(ctx, record=record)
        record = with_epic(
            move(moving_ctx, moved_to, reason=why, actor=BATON, trigger="conductor"), epic
        )
        outcome = Outcome.transition
        if moved_to == COMPLETING:
            draft_open, record, message = _completion(ctx, record, epic)
            if message:
                messages_.append(message)
    if was != ctx.record.state or record.state != ctx.record.state:
        outcome = Outcome.transition
    if notify and outcome is Outcome.noted:
        why = f"{why}: started {', '.join(done.started) or 'none'}"
    changed = done.changed or moved_to is not None or record != ctx.record
    if outcome is Outcome.noted and not changed and not notify:
        return Draft(Outcome.ignored, f"{why}: nothing changed")
    agent = (
        record.dispatch.agent if record.dispatch and record.dispatch.state == record.state else None
    )
    return Draft(
        outcome,
        why,
        record=record,
        message="\n\n".join(messages_) or None,
        agent=agent,
        notify=tuple(notify),
        open_pull_request=draft_open,
    )


def _completion(
    ctx: Ctx, record: Record, epic: EpicState
) -> tuple[PullRequestPlan | None, Record, str | None]:
    """Completing: the epic's pull request (opened first, then decided again with its number)."""
    event = ctx.event
    count = len([t for t in epic.tasks if t.replaced_by is None])
    work = record.work or Work(
        branch=epic.branch or branch_name(ctx.policy.work.branch_prefix, record.issue)
    )
    if work.pull_request is not None or not ctx.policy.work.pull_request:
        return None, record, texts.completed(count, work.pull_request, None)
    opened = event.opened
    if opened is None:
        plan = PullRequestPlan(
            branch=work.branch,
            title=pull_request_title(record.issue, event.issue.title),
            body=f"Closes #{record.issue}.\n\n{render.summary(epic, budget=30_000)}",
            ready=True,
        )
        return plan, record, None
    if opened.number is None:
        return None, record, texts.completed(count, None, opened.problem)
    work = work.model_copy(
        update={"pull_request": opened.number, "pull_request_id": opened.node_id}
    )
    return (
        None,
        record.model_copy(update={"work": work}),
        texts.completed(count, opened.number, None),
    )
