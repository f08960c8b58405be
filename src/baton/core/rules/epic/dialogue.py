"""The discovery dialogue: the agent's questions and specification, the turn limits and
their warning, approval, `/edit`, `/revise` and `generate now`."""

from __future__ import annotations

from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.commands import EpicVerb, Verb
from baton.core.model.decision import Outcome
from baton.core.model.epic import MAX_SPEC, Discovery, EpicState
from baton.core.model.events import Commented
from baton.core.model.record import Record, clip
from baton.core.rules.authority import is_member, may_answer
from baton.core.rules.context import Ctx, Draft, dispatch, move, retry, seen
from baton.core.rules.epic.phases import DISCOVERY, PLANNING, epic_of, input_of, refused, with_epic
from baton.core.text import epic as texts


def discovery_report(ctx: Ctx, result: AgentResult, agent: str) -> Draft:
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
        # The round is about the categories its questions cover (already counted in `done`),
        # or, when the agent named none it may ask about, the first one still open.
        covered = [c for c in dict.fromkeys(result.categories) if c in categories]
        still_open = [c for c in categories if c not in found.categories_done]
        named = covered or still_open[:1] or [(result.categories or ["questions"])[-1]]
        category = named[0]
        after = [c for c in categories if c not in done and c not in named]
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
        message = texts.discovery_questions(found.turns, named, result.questions, len(after))
        return Draft(
            Outcome.noted,
            f"the {agent} asked about {', '.join(named)} (turn {found.turns + 1})",
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


def discovery_comment(ctx: Ctx, event: Commented, common: Any, ours: Any) -> Draft:
    """A comment while the epic is in discovery: what it does depends on the dialogue's phase
    (the specification presented, a round's questions open, the turn warning given)."""
    found = epic_of(ctx.record).discovery
    who = event.actor.login
    answerer = may_answer(event.actor, event.issue.author, ctx.policy, ctx.facts)
    if common is None and ours is None and not answerer:
        return Draft(Outcome.ignored, f"{who} is not one whose replies are taken")
    if found.phase == "presenting":
        return _on_specification(ctx, event, common, ours)
    if found.phase == "warned" and ours is not None and ours.verb is EpicVerb.continue_:
        epic, base = epic_of(ctx.record), seen(ctx)
        asking = found.model_copy(update={"phase": "asking"})
        return _ask(ctx, base, epic, asking, f"{who} chose to continue")
    if found.phase in ("answering", "warned"):
        return _on_answer(ctx, event, common, ours)
    if common is not None or ours is not None:
        return refused(ctx, event, "the discovery agent is working; wait for its questions")
    kept = [*ctx.record.pending_input, input_of(ctx, event)][-5:]
    return Draft(
        Outcome.noted,
        f"kept the reply of {who} for the discovery agent",
        record=seen(ctx).model_copy(update={"pending_input": kept}),
    )


def _on_specification(ctx: Ctx, event: Commented, common: Any, ours: Any) -> Draft:
    """The specification is presented: an approval plans, `/edit` and `/revise` ask the agent
    again, an approver's plain reply is taken as minor edits, anyone else's waits as input."""
    epic = epic_of(ctx.record)
    found = epic.discovery
    base = seen(ctx)
    who = event.actor.login
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
    if (
        common is None
        and ours is None
        and not is_member(event.actor, ctx.policy.approvers, ctx.facts)
    ):
        # Only an approver's words revise the specification (each revision is an agent
        # run); anyone else's reply waits for the next agent, as input.
        kept = [*ctx.record.pending_input, input_of(ctx, event)][-5:]
        return Draft(
            Outcome.noted,
            f"kept the reply of {who} for the next revision",
            record=base.model_copy(update={"pending_input": kept}),
        )
    if common is None and ours is None:
        edited = found.model_copy(update={"phase": "editing", "request": clip(event.body, 2_000)})
        return _ask(
            ctx,
            base.model_copy(update={"pending_input": [input_of(ctx, event)]}),
            epic,
            edited,
            f"{who}'s reply is taken as minor edits",
        )
    return refused(ctx, event, "the specification waits for approval, `/edit` or `/revise`")


def _on_answer(ctx: Ctx, event: Commented, common: Any, ours: Any) -> Draft:
    """A round's questions are open (or the turn warning was given): `generate now`, or an
    answer counted against the turn limits."""
    epic = epic_of(ctx.record)
    found = epic.discovery
    settings = ctx.policy.epics
    base = seen(ctx)
    who = event.actor.login
    if ours is not None and ours.verb is EpicVerb.generate:
        return _generate(ctx, base, epic, found, f"{who} asked to generate now")
    if common is not None or ours is not None:
        return refused(ctx, event, "discovery waits for an answer (or `generate now`)")
    turns = found.turns + 1
    answered = base.model_copy(
        update={"pending_input": [*ctx.record.pending_input, input_of(ctx, event)][-5:]}
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
    asking = counted.model_copy(update={"phase": "asking"})
    return _ask(ctx, answered, epic, asking, f"answer {turns} from {who}")
