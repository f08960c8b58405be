"""Workflows as data: the states, the transition table, the PM rules and the human gates.

A workflow is a YAML document validated into these models. The built-in presets live in
`baton/workflow/presets/*.yml`; the default, `issue-lifecycle`, is the issue lifecycle of 21
states and 72 edges. The structural checks (unknown targets, dead ends ...) are `checks.py`'s.
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Iterable, Sequence
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from baton.errors import DuplicateKeyError, InvalidWorkflow, YamlRefused
from baton.workflow.durations import Duration
from baton.workflow.task_status import TaskStatus
from baton.workflow.yaml_source import YamlDocument, read_yaml

DEFAULT_WORKFLOW = "issue-lifecycle"
STATE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Rule targets that are not states: the engine's retry ladder and its escalation to a human.
RETRY, ESCALATE = "retry", "escalate"
SPECIAL_TARGETS = frozenset({RETRY, ESCALATE})


class AgentStatus(StrEnum):
    """An agent result's status: rule conditions name it, and the result JSON carries it."""

    success = "success"
    failure = "failure"
    blocked = "blocked"


class StateKind(StrEnum):
    work = "work"  # an agent holds the baton
    waiting = "waiting"  # a human must answer or approve
    terminal = "terminal"  # nothing moves it but a maintainer


class Timeout(BaseModel):
    """How long a state may last before the engine acts on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    after: Duration
    to: str | None = Field(
        default=None,
        description="Waiting states: the state to move to. Work states: leave empty to "
        "re-dispatch the agent (counted as a failed attempt).",
    )


class StateSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: StateKind
    agent: str | None = None
    description: str = ""
    expects: str = Field(default="", description="What the agent in this state must deliver.")
    label: str | None = Field(default=None, description="Label name; default status:<kebab-name>.")
    color: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{6}$")
    reply: str | None = Field(
        default=None, description="Waiting states: where a human reply moves the issue."
    )
    approval: str | None = Field(
        default=None, description="Waiting states: where an authorised approval moves the issue."
    )
    timeout: Timeout | None = None
    requires_approval: bool = Field(
        default=False,
        description="Agents can move the issue here only right after a human approval at a "
        "gate; a maintainer's relabel still can.",
    )
    relay: bool = Field(
        default=False,
        description="A routing state: its agent hands the feedback and human input it was "
        "given on to the next agent instead of consuming them.",
    )
    changes_code: bool = Field(
        default=False,
        description="Work states: the agent changes the repository. Entering one gives the "
        "issue its branch, and the agent's changeset is committed there.",
    )
    converses: bool = Field(
        default=False,
        description="Work states: a human's replies are read here although an agent holds the "
        "baton (a dialogue, such as an epic's discovery).",
    )
    entered_by: Literal["relabel"] | None = Field(
        default=None,
        description="relabel: no transition leads here by design, only a maintainer's relabel "
        "(`baton validate` then does not warn that the state is unreachable).",
    )
    proof: Literal["red", "green"] | None = Field(
        default=None,
        description="Work states, with `tests:` in the config: the state is settled by what "
        "`baton verify` shows, not by the agent's word. red: the agent's tests, run on its "
        "changeset, must fail for the right reason; green: the tests run on Baton's last commit "
        "(by the built-in `tests` profile, no model). The verdict picks the edge through the "
        "state's rules (`when: {verdict: ...}`). Without `tests:` it is ignored.",
    )
    signs_off: bool = Field(
        default=False,
        description="Waiting states, with `tests:`: an approval here signs off the last red "
        "proof's tests; from then on they are frozen.",
    )
    task_status: TaskStatus | None = Field(
        default=None,
        description="`role: task` workflows: what the state counts as for the epic's conductor "
        "(default: the status it is named after, e.g. `pending`).",
    )


class Condition(BaseModel):
    """All given fields must hold; an empty condition always holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: list[AgentStatus] | None = None
    confidence_below: float | None = Field(default=None, ge=0, le=1)
    confidence_at_least: float | None = Field(default=None, ge=0, le=1)
    confidence_above: float | None = Field(default=None, ge=0, le=1)
    issues_found: bool | None = Field(default=None, description="true: some issues reported")
    has_questions: bool | None = None
    approved: bool | None = Field(
        default=None, description="An authorised approval was given at the gate just left."
    )
    has_human_input: bool | None = None
    came_from: list[str] | None = Field(
        default=None, description="The state the issue was in before the current one."
    )
    visits_at_least: int | None = Field(
        default=None, ge=1, description="Times the issue has entered the current state."
    )
    verdict: list[Literal["red", "green", "failing", "broken"]] | None = Field(
        default=None,
        description="The verdict of the evidence that settles a `proof` state (with `tests:`).",
    )

    @field_validator("status", "came_from", "verdict", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Rule(BaseModel):
    """One PM rule: the first rule whose condition holds picks the next state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    when: Condition = Field(default_factory=Condition)
    to: str = Field(description="A state, `retry` (the retry ladder) or `escalate`.")
    why: str = ""


class Escalation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    state: str | None = Field(
        default=None,
        description="Where escalations go; empty: the issue is held in place until a human acts.",
    )
    retry: str | None = Field(
        default=None,
        description="Where `/retry <guidance>` sends the issue; default: the state that escalated.",
    )
    skip: str | None = Field(
        default=None,
        description="Where `/skip` sends the issue; default: where success in the state that "
        "escalated would have led.",
    )
    replan: str | None = Field(default=None, description="Where `/replan` sends the issue.")


class PullRequestRoutes(BaseModel):
    """Where the issue's pull request sends the issue. A route moves the issue even where the
    transition table has no edge, as a maintainer's relabel does, and the record says why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ready: str | None = Field(
        default=None, description="Entering this state marks the draft pull request ready."
    )
    changes_requested: str | None = Field(
        default=None, description="An approver's review requesting changes moves the issue here."
    )
    checks_failed: str | None = Field(
        default=None, description="Failing checks on the branch head move the issue here."
    )
    merged: str | None = Field(default=None, description="The pull request merged.")
    closed: str | None = Field(default=None, description="Closed without merging.")

    def targets(self) -> dict[str, str]:
        return {k: v for k, v in self.model_dump().items() if isinstance(v, str)}


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_iterations: int = Field(default=25, ge=1)
    loop_window: int = Field(default=6, ge=2)
    loop_distinct: int = Field(default=2, ge=1)
    max_attempts: int = Field(default=3, ge=1)
    fresh_context_from_attempt: int = Field(default=3, ge=1)


# What a workflow runs on: an ordinary issue, an epic, or an epic's task (a sub-issue).
Role = Literal["issue", "epic", "task"]


class Workflow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    role: Role = Field(
        default="issue",
        description="issue: an ordinary issue; epic: an issue with the epic label, whose tasks "
        "the conductor runs; task: an epic's sub-issue, started by its epic.",
    )
    initial: str
    agents: list[str]
    states: dict[str, StateSpec]
    transitions: dict[str, list[str]]
    rules: dict[str, list[Rule]] = Field(default_factory=dict)
    escalation: Escalation = Field(default_factory=Escalation)
    limits: Limits = Field(default_factory=Limits)
    reopen: str | None = Field(
        default=None, description="Where reopening an issue in a terminal state sends it."
    )
    pull_request: PullRequestRoutes = Field(default_factory=PullRequestRoutes)

    def changes_code(self, state: str) -> bool:
        spec = self.states.get(state)
        return spec is not None and spec.changes_code

    def converses(self, state: str) -> bool:
        """A work state whose human replies are read (a dialogue with its agent)."""
        spec = self.states.get(state)
        return spec is not None and spec.converses

    # --- lookups the engine uses -------------------------------------------------------------
    def spec(self, state: str) -> StateSpec:
        return self.states[state]

    def agent_of(self, state: str) -> str | None:
        return self.states[state].agent if state in self.states else None

    def allows(self, source: str, target: str) -> bool:
        return target in self.transitions.get(source, [])

    def targets(self, source: str) -> list[str]:
        return list(self.transitions.get(source, []))

    def is_terminal(self, state: str) -> bool:
        return self.states[state].kind is StateKind.terminal

    def is_waiting(self, state: str) -> bool:
        return self.states[state].kind is StateKind.waiting

    def label_for(self, state: str, prefix: str) -> str:
        custom = self.states[state].label
        return custom if custom else prefix + state.replace("_", "-")

    def state_for_label(self, label: str, prefix: str) -> str | None:
        for state in self.states:
            if self.label_for(state, prefix).casefold() == label.casefold():
                return state
        return None

    def escapes(self) -> dict[str, list[str]]:
        """Moves the engine may make outside the table, by state (for graphs and checks)."""
        moves: dict[str, set[str]] = {}
        escalation = self.escalation.state
        work = [s for s, spec in self.states.items() if spec.kind is StateKind.work]
        if escalation:
            for state in work:
                if state != escalation and not self.allows(state, escalation):
                    moves.setdefault(state, set()).add(escalation)
            # `/retry`, `/skip` and `/replan` leave the escalation state for work states.
            retry = {self.escalation.retry} if self.escalation.retry else set(work)
            skip = (
                {self.escalation.skip}
                if self.escalation.skip
                else {r.to for rules in self.rules.values() for r in rules} - SPECIAL_TARGETS
            )
            replan = {self.escalation.replan} if self.escalation.replan else set()
            targets = (retry | skip | replan) - {escalation}
            for target in targets:
                if not self.allows(escalation, target):
                    moves.setdefault(escalation, set()).add(target)
        if self.reopen:
            for state, spec in self.states.items():
                if spec.kind is StateKind.terminal and state != self.reopen:
                    moves.setdefault(state, set()).add(self.reopen)
        return {s: sorted(t) for s, t in moves.items() if t}


WorkflowName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


def preset_names() -> list[str]:
    folder = resources.files("baton.workflow") / "presets"
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".yml"))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest of `choices`, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _inside(annotation: Any, step: str | int) -> Any:
    """The type found one step (a field, a mapping key, a list index) inside `annotation`."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _inside(get_args(annotation)[0], step)
    if origin in (Union, types.UnionType):
        for option in get_args(annotation):
            found = _inside(option, step)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(str(step))
        return field.annotation if field else None
    if origin is dict and isinstance(step, str):
        return get_args(annotation)[1]
    if origin is list and isinstance(step, int):
        return get_args(annotation)[0]
    return None


def keys_at(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """The keys the model allows in the mapping at `path` (empty if that is no model)."""
    annotation: Any = model
    for step in path:
        annotation = _inside(annotation, step)
    options = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else ()
    for candidate in (annotation, *options):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return list(candidate.model_fields)
    return []


def located(document: YamlDocument | None, path: Sequence[str | int], message: str) -> str:
    """`file:line: dotted.path: message`, with as much of the place as is known."""
    line = document.line_of(path) if document else None
    where = ".".join(str(step) for step in path)
    source = f"{document.source}:{line}: " if document and line else ""
    if document and not line:
        source = f"{document.source}: "
    return f"{source}{where or 'top level'}: {message}"


def describe_errors(
    error: ValidationError,
    model: type[BaseModel],
    document: YamlDocument | None,
    prefix: tuple[str, ...] = (),
) -> list[str]:
    """One line per problem, each with its file:line; an unknown key gets the model's closest
    key at that level (`timout` -> `timeout`), or the list of keys allowed there."""
    lines = []
    for item in error.errors():
        loc = tuple(item["loc"])
        message = item["msg"]
        if item["type"] == "value_error":  # a validator's own sentence, without pydantic's prefix
            message = str(item.get("ctx", {}).get("error", message))
        if item["type"] == "extra_forbidden" and loc:
            key = str(loc[-1])
            allowed = keys_at(model, loc[:-1])
            hint = did_you_mean(key, allowed)
            if not hint and allowed:
                hint = f"; the keys here are: {', '.join(allowed)}"
            message = f"unknown key {key!r}{hint}"
        lines.append(located(document, (*prefix, *loc), message))
    return lines


def workflow_from_data(
    data: Any, *, document: YamlDocument | None = None, path: tuple[str, ...] = ()
) -> Workflow:
    """Validate already-parsed data; errors name the field and, where known, the line."""
    source = f"{document.source}: " if document else ""
    if not isinstance(data, dict):
        raise InvalidWorkflow(f"{source}a workflow must be a mapping with states and transitions")
    if {"escapes", "humans"} <= data.keys():
        raise InvalidWorkflow(
            f"{source}this is the graph `baton graph --format json` draws, not a definition; "
            "`baton graph --format workflow` prints one that validates"
        )
    try:
        return Workflow.model_validate(data)
    except ValidationError as exc:
        problems = describe_errors(exc, Workflow, document, path)
        header = "" if document else "the workflow does not validate:\n"
        raise InvalidWorkflow(header + "\n".join(problems)) from exc


def parse_workflow(text: str, *, source: str = "<workflow>") -> tuple[Workflow, YamlDocument]:
    try:
        document = read_yaml(text, source=source)
    except DuplicateKeyError as exc:
        what = "state" if exc.path and exc.path[0] in {"states", "transitions"} else "key"
        raise InvalidWorkflow(f"{source}: duplicate {what} {exc.key!r} (line {exc.line})") from exc
    except YamlRefused as exc:
        raise InvalidWorkflow(f"{source}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise InvalidWorkflow(f"{source}: not valid YAML: {exc}") from exc
    return workflow_from_data(document.data, document=document), document


@cache
def _preset_text(name: str) -> str:
    folder = resources.files("baton.workflow") / "presets"
    return (folder / f"{name}.yml").read_text(encoding="utf-8")


def load_preset(name: str) -> Workflow:
    if name not in preset_names():
        known = ", ".join(preset_names())
        hint = did_you_mean(name, preset_names())
        raise InvalidWorkflow(f"unknown workflow preset {name!r}{hint}; the presets are: {known}")
    return _load_preset_cached(name)[0]


@cache
def _load_preset_cached(name: str) -> tuple[Workflow, YamlDocument]:
    return parse_workflow(_preset_text(name), source=f"preset {name}")


def preset_document(name: str) -> YamlDocument:
    return _load_preset_cached(name)[1]


def to_yaml(workflow: Workflow) -> str:
    """The workflow as a definition in the presets' own shape: what `baton graph --format
    workflow` prints, and what `baton validate --workflow` and an inline `workflow:` accept back
    as the same workflow."""
    data = workflow.model_dump(mode="json", exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
