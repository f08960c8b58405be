"""The scenario format of `baton simulate`: a YAML list of what humans, agents and the clock
do, as pydantic models, and its reading (one-line `InvalidScenario` for anything else).

docs/scenarios.md documents it; a test keeps every step kind and key named there.
"""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from baton.core.model.evidence import MAX_TESTS, TestCase
from baton.errors import InvalidScenario, InvalidStep
from baton.sim.work_news import PullRequestState
from baton.workflow.durations import Duration
from baton.workflow.model import AgentStatus

Role = Literal["none", "read", "triage", "write", "maintain", "admin"]


class IssueSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = "An issue"
    body: str = ""
    author: str = "alice"
    labels: list[str] = Field(default_factory=list)


Files = dict[str, str | None]  # path: its new text, or None (YAML null) to delete it


class EvidenceSpec(BaseModel):
    """What the scripted test run showed: the player makes the `baton-evidence.json` of it,
    its verdict computed, bound to the commit (and the changeset) the report is bound to."""

    model_config = ConfigDict(extra="forbid")

    tests: list[TestCase] = Field(default_factory=list, max_length=MAX_TESTS)
    new: list[str] = Field(
        default_factory=list, description="The ids of the tests new or changed since the base."
    )
    exit_status: int | None = Field(
        default=None,
        description="The test command's exit status (null: it never finished); left out: 1 "
        "when a test failed or errored, else 0.",
    )
    problem: str | None = Field(
        default=None, min_length=1, description="Why the run left nothing to read: broken."
    )
    commit: Literal["head", "stale"] = Field(
        default="head",
        description="stale: the evidence names another commit than the one the report is "
        "bound to (the one before it, or one that does not exist).",
    )
    changeset: Literal["stale"] | None = Field(
        default=None,
        description="stale: the evidence names another changeset than the report's.",
    )

    @model_validator(mode="after")
    def _new_are_tests(self) -> EvidenceSpec:
        ids = {test.id for test in self.tests}
        unknown = [name for name in self.new if name not in ids]
        if unknown:
            raise InvalidStep(f"`new` names {unknown[0]!r}, which is not one of the `tests`")
        if self.problem is not None and "\n" in self.problem:
            raise InvalidStep("`problem` is one line")
        return self

    @property
    def status(self) -> int | None:
        """The exit status as given, else the one the outcomes mean (1 for a failure)."""
        if "exit_status" in self.model_fields_set:
            return self.exit_status
        return 1 if any(t.outcome in ("failed", "error") for t in self.tests) else 0


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str | None = None
    status: AgentStatus = AgentStatus.success
    confidence: float = Field(default=0.9, ge=0, le=1)
    summary: str = ""
    issues_found: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    next_state: str | None = None
    changes: Files | None = Field(
        default=None, description="The files the agent wrote (text) or deleted (null)."
    )
    base: Literal["head", "stale"] = Field(
        default="head",
        description="stale: someone pushes to the branch while the agent works, so its "
        "changeset starts from the head before that push.",
    )
    evidence: EvidenceSpec | None = Field(
        default=None, description="What the tests showed: `baton-evidence.json` beside it."
    )

    @model_validator(mode="after")
    def _stale_needs_changes(self) -> Report:
        if self.base == "stale" and self.changes is None:
            raise InvalidStep("`base: stale` needs `changes`: a changeset to be stale")
        return self

    def result_fields(self) -> dict[str, Any]:
        """The fields of the agent result JSON."""
        return self.model_dump(exclude={"agent", "changes", "base", "evidence"})


def _given(value: object) -> object:
    """`merge: true` is `merge: {}`: a human step whose every key has a default."""
    return {} if value is True else value


class Push(BaseModel):
    model_config = ConfigDict(extra="forbid")

    files: Files = Field(min_length=1)
    message: str = "A change pushed by hand"
    by: str | None = None


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    line: int | None = Field(default=None, ge=1)
    body: str


class Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["approved", "changes_requested", "commented"]
    by: str | None = None
    body: str = ""
    notes: list[Note] = Field(default_factory=list)


class Who(BaseModel):
    """A human step on the pull request that needs nothing but who does it."""

    model_config = ConfigDict(extra="forbid")

    by: str | None = None


Conclusion = Literal[
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
    "startup_failure",
]


class Checks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="ci", min_length=1)
    conclusion: Conclusion = "failure"
    summary: str = ""
    held: bool = Field(
        default=False,
        description="A pull_request run GitHub held for a writer's approval (GITHUB_TOKEN made "
        "the pull request) that ended with no job run: no check run, a `workflow_run` event.",
    )


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: str | None = None
    agent: str | None = Field(default=None, description="The agent named by the last step.")
    labels: list[str] | None = None
    transitioned: bool | None = None
    branch_files: Files | None = Field(
        default=None,
        description="Each file's text at the head of the issue's branch (null: absent).",
    )
    pull_request: PullRequestState | None = None
    commits: int | None = Field(default=None, ge=0, description="Baton's commits on the branch.")
    check: Literal["success", "failure", "neutral", "none"] | None = Field(
        default=None,
        description="The conclusion of the check run (`Baton / tests`) the last step's decision "
        "posts; none: it posts none.",
    )
    signed_off: bool | None = Field(
        default=None, description="The record holds a sign-off of the tests (`tests.signed`)."
    )
    sub_issues: int | None = Field(default=None, ge=0, description="The epic's sub-issues.")
    tasks: dict[str, str] | None = Field(
        default=None, description="Each task key's state, as its sub-issue's record says."
    )
    max_in_progress: int | None = Field(
        default=None, ge=0, description="At most this many tasks were active at once so far."
    )

    @property
    def of_epic(self) -> list[str]:
        """The keys given that only an epic played with `agents:` has."""
        keys = ("sub_issues", "tasks", "max_in_progress")
        return [key for key in keys if getattr(self, key) is not None]


ACTIONS = (
    "open",
    "label",
    "unlabel",
    "comment",
    "report",
    "wait",
    "sweep",
    "close",
    "reopen",
    "dispatch",
    "push",
    "review",
    "merge",
    "close_pr",
    "checks",
    "expect",
)


class Step(BaseModel):
    """Exactly one action per step; `by` says who does it (a human login)."""

    model_config = ConfigDict(extra="forbid")

    open: bool | None = None
    label: str | None = None
    unlabel: str | None = None
    comment: str | None = None
    report: Report | None = None
    wait: Duration | None = None
    sweep: bool | None = None
    close: bool | None = None
    reopen: bool | None = None
    dispatch: bool | None = None
    push: Push | None = None
    review: Review | None = None
    merge: Who | None = None
    close_pr: Who | None = None
    checks: Checks | None = None
    expect: Expect | None = None
    by: str | None = None
    task: str | None = Field(
        default=None, description="A `comment` on this task's sub-issue, not on the issue."
    )
    association: str = "NONE"
    note: str = ""

    _true_is_empty = field_validator("merge", "close_pr", "checks", mode="before")(_given)

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        given = [name for name in ACTIONS if getattr(self, name) not in (None, False)]
        if len(given) != 1:
            raise InvalidStep(
                f"a step needs exactly one of {', '.join(ACTIONS)}; got {given or 'none'}"
            )
        inner = getattr(getattr(self, given[0]), "by", None)
        if inner is not None and self.by is not None and inner != self.by:
            raise InvalidStep(f"`by` is given twice ({self.by} and {inner}); give it once")
        return self

    @property
    def actor(self) -> str | None:
        """Who does the step: `by` beside the action or inside it (`merge: {by: maria}`)."""
        inner = getattr(getattr(self, self.action), "by", None)
        return inner if inner is not None else self.by

    @property
    def action(self) -> str:
        return next(name for name in ACTIONS if getattr(self, name) not in (None, False))


class Round(BaseModel):
    """One round of the discovery agent: its questions (a human answers with a `comment`)."""

    model_config = ConfigDict(extra="forbid")

    questions: list[str] = Field(min_length=1)


class Task(BaseModel):
    """A task of the planner's plan, and its reviewer's verdicts in order (`pass` once they
    run out)."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(min_length=1)
    title: str = Field(min_length=1)
    depends_on: list[str] = Field(default_factory=list)
    reviews: list[Literal["pass", "reject"]] = Field(default_factory=list)


class Agents(BaseModel):
    """The agents of Baton's dispatched runs, scripted: they report by themselves, each in its
    job after the run that started it (an epic: discovery, planner, developers, reviewers)."""

    model_config = ConfigDict(extra="forbid")

    discovery: list[Round] = Field(default_factory=list)
    spec: str = "# Specification"
    tasks: list[Task] = Field(min_length=1)

    @model_validator(mode="after")
    def _keys_once(self) -> Agents:
        keys = [task.key for task in self.tasks]
        twice = next((key for key in keys if keys.count(key) > 1), None)
        if twice is not None:
            raise InvalidStep(f"task {twice!r} is planned twice")
        return self


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "scenario"
    start: datetime = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    issue: IssueSpec = Field(default_factory=IssueSpec)
    people: dict[str, Role] = Field(
        default_factory=dict, description="login: repository permission"
    )
    step_minutes: int = Field(default=5, ge=0, description="Clock advance between steps.")
    agents: Agents | None = Field(
        default=None, description="Scripted agents for the runs Baton dispatches (an epic)."
    )
    steps: list[Step]

    @model_validator(mode="after")
    def _epic_steps(self) -> Scenario:
        for number, step in enumerate(self.steps, 1):
            problem = _epic_problem(step, self.agents)
            if problem:
                raise InvalidStep(f"step {number}: {problem}")
        return self


def _epic_problem(step: Step, agents: Agents | None) -> str | None:
    """Why `step` cannot be played with `agents` (None: no agents), or None."""
    keys = {task.key for task in agents.tasks} if agents else set()
    epic_keys = step.expect.of_epic if step.expect is not None else []
    if agents is None and step.task is not None:
        return f"`task: {step.task}` needs `agents:` with a plan"
    if agents is None and epic_keys:
        return f"`expect.{epic_keys[0]}` needs `agents:` (an epic)"
    if agents is not None and step.report is not None:
        return "with `agents:` the agents report by themselves: no `report` step"
    if step.task is not None and step.action != "comment":
        return f"`task` goes with `comment`, not `{step.action}`"
    if step.task is not None and step.task not in keys:
        return f"no task {step.task!r} in `agents.tasks`"
    return None


def one_line(text: str, limit: int = 300) -> str:
    """An error as one short line: a scenario's values can be huge or span lines."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_scenario(text: str, source: str) -> Scenario:
    """The scenario in `text`; InvalidScenario (one line) for anything that is not one."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidScenario(one_line(f"{source}: not valid YAML: {exc}")) from exc
    except RecursionError as exc:  # PyYAML recurses once per level of nesting
        raise InvalidScenario(f"{source}: nested too deeply to be a scenario") from exc
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [_placed(e["loc"], e["msg"]) for e in exc.errors()]
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InvalidScenario(one_line(f"{source}: {'; '.join(problems[:3])}{more}")) from exc
    except (OverflowError, ValueError) as exc:  # a duration beyond what a datetime holds
        raise InvalidScenario(one_line(f"{source}: {exc}")) from exc


def _placed(loc: tuple[int | str, ...], message: str) -> str:
    """A validation problem and where it is (the whole scenario's: no place)."""
    place = ".".join(one_line(str(part), 40) for part in loc)
    return f"{place}: {message}" if place else message


def load_scenario(path: Path) -> Scenario:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidScenario(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidScenario(f"{path} is not UTF-8 (byte {exc.start})") from exc
    return parse_scenario(text, str(path))


def demo_scenario(name: str = "demo.yml") -> Scenario:
    """A scenario shipped with Baton: `demo.yml` (`baton demo`), `test_first.yml` (with
    `--test-first`)."""
    text = (resources.files("baton.sim") / name).read_text(encoding="utf-8")
    return parse_scenario(text, name)
