"""The discovery dialogue through `decide` (`rules/epic/dialogue.py`): questions and answers,
the turn warning and limit, the specification presented, approved, edited or revised."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.record import HumanInput
from support.epic_rules import B, epic, in_discovery, result, say


def test_the_agents_questions_wait_for_an_answer() -> None:
    record = in_discovery("asking")
    decision = B.decide(record, B.reported("discovery", result(questions=["Who uses it?"])))
    assert decision.outcome is Outcome.noted
    assert epic(decision).discovery.phase == "answering"
    assert epic(decision).discovery.category == "purpose"
    assert decision.message and "Who uses it?" in decision.message
    assert decision.record.dispatch is None  # type: ignore[union-attr]


def test_an_answer_sends_the_discovery_agent_to_ask_again() -> None:
    decision = say(in_discovery("answering", category="purpose"), "Admins.", "alice")
    assert decision.outcome is Outcome.resume
    assert decision.agent == "discovery"
    found = epic(decision).discovery
    assert (found.phase, found.turns, found.categories_done) == ("asking", 1, ["purpose"])


@pytest.mark.parametrize(
    ("turns", "warned", "phase", "warns"),
    [
        pytest.param(0, False, "asking", False, id="an answer below warn_turns only asks again"),
        pytest.param(1, False, "warned", True, id="the answer reaching warn_turns warns"),
        pytest.param(1, True, "asking", False, id="a warning already given is not given twice"),
    ],
)
def test_the_turn_warning_is_given_exactly_once_at_warn_turns(
    turns: int, warned: bool, phase: str, warns: bool
) -> None:
    record = in_discovery("answering", turns=turns, warned=warned, category="scope")
    decision = say(record, "More detail.", "alice")
    assert epic(decision).discovery.phase == phase
    assert (decision.message is not None and "generate now" in decision.message) is warns
    assert (decision.agent is None) is warns


@pytest.mark.parametrize(
    ("body", "phase", "agent"),
    [
        pytest.param("generate now", "generating", "discovery", id="generate now writes the spec"),
        pytest.param("continue", "asking", "discovery", id="continue asks more questions"),
    ],
)
def test_after_the_warning_the_humans_choose(body: str, phase: str, agent: str) -> None:
    decision = say(in_discovery("warned", turns=2, warned=True), body, "alice")
    assert decision.outcome is Outcome.resume
    assert (epic(decision).discovery.phase, decision.agent) == (phase, agent)


def test_the_answer_reaching_max_turns_forces_generation() -> None:
    record = in_discovery("answering", turns=2, warned=True, category="scope")
    decision = say(record, "Last answer.", "alice")
    assert epic(decision).discovery.phase == "generating"
    assert decision.agent == "discovery"
    assert decision.message and "3 answers, the limit" in decision.message


def test_a_specification_is_presented_for_approval() -> None:
    decision = B.decide(in_discovery("generating"), B.reported("discovery", result(spec="# Spec")))
    found = epic(decision).discovery
    assert (found.phase, found.spec, found.spec_version) == ("presenting", "# Spec", 1)
    assert decision.message and "Specification, version 1" in decision.message


@pytest.mark.parametrize(
    ("body", "by", "outcome", "state", "phase"),
    [
        pytest.param(
            "approved",
            "maria",
            Outcome.transition,
            "planning",
            "presenting",
            id="an approver's approval moves to planning",
        ),
        pytest.param(
            "approved",
            "alice",
            Outcome.refused,
            "discovery",
            "presenting",
            id="the author's approval is refused",
        ),
        pytest.param(
            "/edit rename the page",
            "maria",
            Outcome.resume,
            "discovery",
            "editing",
            id="edit sends the agent to apply minor edits",
        ),
        pytest.param(
            "/revise wrong users",
            "maria",
            Outcome.resume,
            "discovery",
            "asking",
            id="revise sends the agent back to asking",
        ),
        pytest.param(
            "/edit anything",
            "bob",
            Outcome.refused,
            "discovery",
            "presenting",
            id="a strangers command is refused",
        ),
    ],
)
def test_the_presented_specification_takes_only_an_approvers_commands(
    body: str, by: str, outcome: Outcome, state: str, phase: str
) -> None:
    record = in_discovery("presenting", spec="# Spec", spec_version=1)
    decision = say(record, body, by)
    assert decision.outcome is outcome
    assert decision.state == state
    if decision.record is not None and decision.record.epic is not None:
        assert decision.record.epic.discovery.phase == phase
    if outcome is Outcome.transition:
        assert decision.agent == "planner"


@pytest.mark.parametrize(
    "reported",
    [
        pytest.param(result(questions=["Who uses it?"]), id="questions wait for an answer"),
        pytest.param(result(spec="# Spec"), id="a specification waits for approval"),
    ],
)
def test_a_discovery_report_that_leaves_the_epic_waiting_starts_no_run(reported) -> None:  # type: ignore[no-untyped-def]
    """The report job runs in the workflow run whose `baton` job named the agent (the record's
    dispatch carries that run): waiting for a human, nothing is dispatched for it to find."""
    record = in_discovery("asking")
    event = B.reported("discovery", reported)
    assert record.dispatch is not None
    record = record.model_copy(
        update={"dispatch": record.dispatch.model_copy(update={"run": event.run_id})}
    )
    decision = B.decide(record, event)
    assert decision.outcome is Outcome.noted
    assert decision.record is not None and decision.record.dispatch is None
    assert decision.agent is None


@pytest.mark.parametrize(
    ("done", "covered", "heading", "after"),
    [
        pytest.param([], ["purpose"], "`purpose`", 4, id="the first round names the category"),
        pytest.param(["purpose"], ["users"], "`users`", 3, id="a later round names its own"),
        pytest.param([], ["purpose", "users"], "`purpose`, `users`", 3, id="two categories"),
        pytest.param(["purpose"], [], "`users`", 3, id="none reported: the next open one"),
        pytest.param([], ["pricing", "scope"], "`scope`", 4, id="an unknown category is not named"),
    ],
)
def test_a_rounds_heading_names_the_categories_its_questions_cover(
    done: list[str], covered: list[str], heading: str, after: int
) -> None:
    record = in_discovery("asking", categories_done=done, turns=len(done))
    asked = result(questions=["What problem does it solve?"], categories=covered)

    decision = B.decide(record, B.reported("discovery", asked))

    assert decision.message == (
        f"### ❓ Discovery, round {len(done) + 1}: {heading}\n"
        "\n"
        "Please answer in a comment:\n"
        "\n"
        "1. > What problem does it solve?\n"
        "\n"
        f"Categories still open after this one: {after}. Reply `generate now` at any time to "
        "have the specification written from what is known.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )
    assert epic(decision).discovery.category == heading.split("`")[1]


def test_generate_now_while_answering_writes_the_specification_from_attempt_one() -> None:
    record = in_discovery("answering", turns=1, category="scope").model_copy(update={"attempt": 2})
    decision = say(record, "generate now", "alice")
    assert decision.outcome is Outcome.resume
    assert decision.reason == "the discovery writes the specification: alice asked to generate now"
    assert epic(decision).discovery.phase == "generating"
    assert decision.record is not None and decision.record.dispatch is not None
    dispatch = decision.record.dispatch
    assert (dispatch.agent, dispatch.state, dispatch.attempt) == ("discovery", "discovery", 1)
    assert decision.record.attempt == 1


def _discovery_named(agent: str):  # type: ignore[no-untyped-def]
    states = dict(B.workflow.states)
    states["discovery"] = states["discovery"].model_copy(update={"agent": agent})
    return B.with_workflow(states=states)


@pytest.mark.parametrize(
    ("body", "phase", "reason"),
    [
        pytest.param(
            "Admins.", "asking", "the analyst goes on: answer 1 from alice", id="it asks again"
        ),
        pytest.param(
            "generate now",
            "generating",
            "the analyst writes the specification: alice asked to generate now",
            id="it writes the specification",
        ),
    ],
)
def test_a_discovery_agent_of_another_name_is_the_one_sent(
    body: str, phase: str, reason: str
) -> None:
    build = _discovery_named("analyst")
    record = in_discovery("answering", category="purpose")
    decision = build.decide(record, build.commented(body, "alice", "discovery"))
    assert (decision.outcome, decision.agent, decision.reason) == (
        Outcome.resume,
        "analyst",
        reason,
    )
    assert epic(decision).discovery.phase == phase
    assert decision.record is not None and decision.record.dispatch is not None
    assert (decision.record.dispatch.agent, decision.record.dispatch.attempt) == ("analyst", 1)


def test_the_specifications_approval_is_recorded_as_an_approval() -> None:
    record = in_discovery("presenting", spec_version=2, spec="# Spec")
    decision = say(record, "approved", "maria")
    assert (decision.outcome, decision.state) == (Outcome.transition, "planning")
    assert decision.record is not None
    last = decision.record.history[-1]
    assert (last.trigger, last.actor) == ("approval", "maria")
    assert last.reason == "specification version 2 approved by maria"


def _five_notes() -> list[HumanInput]:
    at = B.record("discovery").entered_at
    return [
        HumanInput(author="alice", excerpt=f"note {n}", at=at, state="discovery") for n in range(5)
    ]


@pytest.mark.parametrize(
    ("phase", "body", "by", "reason", "outcome"),
    [
        pytest.param(
            "asking",
            "Also CSV.",
            "alice",
            "kept the reply of alice for the discovery agent",
            Outcome.noted,
            id="while the agent works",
        ),
        pytest.param(
            "answering",
            "Also CSV.",
            "alice",
            "the discovery goes on: answer 1 from alice",
            Outcome.resume,
            id="an answer",
        ),
        pytest.param(
            "presenting",
            "Also CSV.",
            "alice",
            "kept the reply of alice for the next revision",
            Outcome.noted,
            id="the author's remark on the specification",
        ),
    ],
)
def test_a_reply_in_discovery_is_kept_with_the_four_before_it(
    phase: str, body: str, by: str, reason: str, outcome: Outcome
) -> None:
    found = {"category": "scope"} if phase == "answering" else {}
    if phase == "presenting":
        found = {"spec": "# Spec", "spec_version": 1}
    record = in_discovery(phase, **found).model_copy(update={"pending_input": _five_notes()})
    decision = say(record, body, by)
    assert (decision.outcome, decision.reason) == (outcome, reason)
    assert decision.record is not None
    assert [x.excerpt for x in decision.record.pending_input] == [
        "note 1",
        "note 2",
        "note 3",
        "note 4",
        "Also CSV.",
    ]


def test_an_approvers_reply_to_the_specification_is_taken_as_minor_edits_alone() -> None:
    record = in_discovery("presenting", spec="# Spec", spec_version=1).model_copy(
        update={"pending_input": _five_notes()}
    )
    decision = say(record, "Rename it.", "maria")
    assert (decision.outcome, decision.agent) == (Outcome.resume, "discovery")
    assert decision.reason == "the discovery goes on: maria's reply is taken as minor edits"
    assert (epic(decision).discovery.phase, epic(decision).discovery.request) == (
        "editing",
        "Rename it.",
    )
    assert decision.record is not None
    assert [x.excerpt for x in decision.record.pending_input] == ["Rename it."]


@pytest.mark.parametrize(
    ("phase", "reason"),
    [
        pytest.param(
            "asking",
            "refused maria: the discovery agent is working; wait for its questions",
            id="while the agent works",
        ),
        pytest.param(
            "answering",
            "refused maria: discovery waits for an answer (or `generate now`)",
            id="while it waits for an answer",
        ),
    ],
)
def test_a_command_the_dialogue_does_not_take_is_refused(phase: str, reason: str) -> None:
    decision = say(in_discovery(phase), "approved", "maria")
    assert (decision.outcome, decision.reason) == (Outcome.refused, reason)


def test_the_warning_is_remembered_once_given() -> None:
    record = in_discovery("answering", turns=1, category="scope")
    found = epic(say(record, "More.", "alice")).discovery
    assert (found.phase, found.warned) == ("warned", True)
