"""What an epic remembers and what travels between an epic and its tasks, as plain data.

The epic's record carries `EpicState` (the dialogue, the plan with each task's sub-issue, the
breaker); each task's record carries `TaskLink` (its epic, its key, what happened to it). The
conductor reads the tasks as `TaskObservation`s and gives them `TaskOrder`s through the epic's
record: a task's own run reads its order there and moves itself. One writer per record, always.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from baton.workflow.model import Workflow
from baton.workflow.task_status import TaskStatus as TaskStatus  # the workflow's own names
from baton.workflow.task_status import counts_as

KEY_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"
MAX_TITLE = 120
MAX_TASK_BODY = 8_000
MAX_SPEC = 12_000  # characters of the specification kept in the record
KEEP_BREAKER_REASONS = 10
CATEGORIES = ("purpose", "users", "scope", "constraints", "edge_cases")


ACTIVE = frozenset({TaskStatus.in_progress, TaskStatus.pending_review, TaskStatus.retry_queued})
DONE = frozenset({TaskStatus.completed, TaskStatus.skipped})  # a dependent may start
WAITING = frozenset({TaskStatus.pending, TaskStatus.blocked})  # a task waiting for its order


def status_of(workflow: Workflow, state: str) -> TaskStatus | None:
    """What a task workflow's `state` counts as for the conductor: its `task_status`, else the
    status it is named after; None for a state the workflow lacks or one that counts as none."""
    spec = workflow.states.get(state)
    return counts_as(state, spec.task_status) if spec is not None else None


class Cost(BaseModel):
    """What one agent attempt cost (every field optional): read by `baton agent` from what the
    CLI itself reported (`source: cli`), else the agent's own claim (`source: agent`); a
    result written before sources were kept has none."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tokens: int | None = Field(default=None, ge=0, le=10**12)
    money: float | None = Field(default=None, ge=0, le=10**9, description="US dollars")
    minutes: float | None = Field(default=None, ge=0, le=10**7)
    source: Literal["cli", "agent"] | None = None


MAX_ROLES = 20  # roles kept per spend: the workflow's agents are a handful


class RoleSpend(BaseModel):
    """What one agent role spent: its runs and their reported costs."""

    model_config = ConfigDict(frozen=True)

    runs: int = 0
    tokens: int = 0
    money: float = 0.0
    minutes: float = 0.0

    def plus(self, other: RoleSpend) -> RoleSpend:
        return RoleSpend(
            runs=self.runs + other.runs,
            tokens=self.tokens + other.tokens,
            money=round(self.money + other.money, 6),
            minutes=round(self.minutes + other.minutes, 6),
        )


def _roles_plus(mine: dict[str, RoleSpend], other: dict[str, RoleSpend]) -> dict[str, RoleSpend]:
    """Both roles' spends added; past `MAX_ROLES` roles a new role is not kept apart (the
    totals still count it), so the record's size stays bounded."""
    roles = dict(mine)
    for role, spend in sorted(other.items()):
        if role in roles:
            roles[role] = roles[role].plus(spend)
        elif len(roles) < MAX_ROLES:
            roles[role] = spend
    return dict(sorted(roles.items()))


class Spend(BaseModel):
    """What agents spent on an issue (or an epic and its tasks): runs and reported costs, in
    all and per agent role (`roles`, kept since the dashboard's per-role spend; a record
    written before has none)."""

    model_config = ConfigDict(frozen=True)

    runs: int = 0
    tokens: int = 0
    money: float = 0.0
    minutes: float = 0.0
    claimed: int = 0  # runs whose figures are the agent's own claim (no CLI reported them)
    roles: dict[str, RoleSpend] = Field(default_factory=dict, max_length=MAX_ROLES)

    @model_serializer(mode="wrap")
    def _claimed_only_when_some(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A record without claimed runs or roles is written as before they were kept."""
        data = handler(self)
        if isinstance(data, dict):
            if not self.claimed:
                data.pop("claimed", None)
            if not self.roles:
                data.pop("roles", None)
        return data

    def add(self, cost: Cost | None, runs: int = 1, role: str | None = None) -> Spend:
        """The run(s) and their cost added, and to `role`'s own spend when one is named."""
        cost = cost or Cost()
        added = RoleSpend(
            runs=runs,
            tokens=cost.tokens or 0,
            money=round(cost.money or 0.0, 6),
            minutes=round(cost.minutes or 0.0, 6),
        )
        roles = _roles_plus(self.roles, {role: added}) if role else self.roles
        return Spend(
            runs=self.runs + runs,
            tokens=self.tokens + added.tokens,
            money=round(self.money + added.money, 6),
            minutes=round(self.minutes + added.minutes, 6),
            claimed=self.claimed + (runs if cost.source == "agent" else 0),
            roles=roles,
        )

    def plus(self, other: Spend) -> Spend:
        return Spend(
            runs=self.runs + other.runs,
            tokens=self.tokens + other.tokens,
            money=round(self.money + other.money, 6),
            minutes=round(self.minutes + other.minutes, 6),
            claimed=self.claimed + other.claimed,
            roles=_roles_plus(self.roles, other.roles),
        )


# --- the planning agent's output -------------------------------------------------------------
class TaskSpec(BaseModel):
    """One task as a planning agent returns it (untrusted until `plan.validate_plan`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    key: str = Field(pattern=KEY_PATTERN)
    title: str = Field(min_length=1, max_length=MAX_TITLE)
    body: str = Field(default="", max_length=MAX_TASK_BODY)
    depends_on: list[Annotated[str, Field(pattern=KEY_PATTERN)]] = Field(
        default_factory=list, max_length=100
    )
    agent: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_-]{0,39}$")


# --- the dialogue ---------------------------------------------------------------------------
DiscoveryPhase = Literal[
    "asking",  # the discovery agent is asking its next round of questions
    "answering",  # questions posted: waiting for a human's answer
    "warned",  # the turn warning posted: waiting for "generate now" or "continue"
    "generating",  # the agent writes the specification
    "presenting",  # the specification posted: waiting for approve / minor edits / major revision
    "editing",  # the agent applies minor edits
]


class Discovery(BaseModel):
    model_config = ConfigDict(frozen=True)

    phase: DiscoveryPhase = "asking"
    turns: int = 0  # human answers taken
    categories_done: list[str] = Field(default_factory=list)
    category: str = ""  # the category of the questions being answered
    warned: bool = False
    spec: str = ""  # the specification as last presented (clipped to MAX_SPEC)
    spec_version: int = 0
    request: str = ""  # the edits or revision asked for, for the agent


# --- the plan --------------------------------------------------------------------------------
class PlannedTask(BaseModel):
    """One task of the plan, the sub-issue it became, and the conductor's view of it."""

    model_config = ConfigDict(frozen=True)

    key: str
    title: str
    depends_on: list[str] = Field(default_factory=list)
    agent: str | None = None
    number: int | None = None  # the sub-issue; None until created
    node_id: str = ""
    status: TaskStatus = TaskStatus.pending  # as the conductor last saw it
    starts: int = 0  # start orders issued: the task's run moves pending -> in_progress once each
    block: bool = False  # order: a dependency failed, the task waits blocked
    attempts: int = 0
    failures_seen: int = 0  # the task's failure count the breaker has already counted
    high_seen: int = 0
    successes_seen: int = 0
    spend: Spend = Field(default_factory=Spend)
    replaced_by: str | None = None  # a replanned task: the key that replaces it
    replaces: int | None = None  # the sub-issue this task replaces


BreakerState = Literal["closed", "open", "half_open"]


class Breaker(BaseModel):
    """The circuit breaker over an epic's tasks: closed counts failures, open starts nothing,
    half-open lets one task through whose outcome closes or reopens it."""

    model_config = ConfigDict(frozen=True)

    state: BreakerState = "closed"
    failures: int = 0
    opened_at: datetime | None = None
    reasons: list[str] = Field(default_factory=list)  # the failures that opened it, newest last
    probe: str | None = None  # half-open: the task whose outcome decides


class EpicState(BaseModel):
    """The epic's memory (`Record.epic`)."""

    model_config = ConfigDict(frozen=True)

    discovery: Discovery = Field(default_factory=Discovery)
    tasks: list[PlannedTask] = Field(default_factory=list)
    plan_version: int = 0
    plan_problem: str | None = None  # why the last plan was refused (a cycle, a limit)
    pending_plan: list[TaskSpec] = Field(
        default_factory=list, description="A validated plan whose sub-issues are being created."
    )
    extension: str = ""  # a maintainer's /continue request, for the planning agent
    breaker: Breaker = Field(default_factory=Breaker)
    branch: str = ""  # the epic's branch: task branches start here and merge back
    budget_stop: str | None = None  # why a budget stopped new tasks

    def task(self, key: str) -> PlannedTask | None:
        return next((t for t in self.tasks if t.key == key), None)

    def by_number(self, number: int) -> PlannedTask | None:
        return next((t for t in self.tasks if t.number == number), None)


# --- a task's side ----------------------------------------------------------------------------
class TaskLink(BaseModel):
    """A sub-issue's tie to its epic (`Record.task`) and the counts the conductor reads."""

    model_config = ConfigDict(frozen=True)

    epic: int
    key: str
    starts_taken: int = 0  # start orders this task has acted on
    failures: int = 0  # rejected reviews and failed implementations, ever
    high: int = 0  # rejections marked high severity, ever
    successes: int = 0  # approved reviews, ever


class TaskOrder(BaseModel):
    """What the epic's record says to one task, read by the task's own run."""

    model_config = ConfigDict(frozen=True)

    epic: int
    key: str = ""
    epic_state: str
    known: bool  # the epic's plan lists this task (a replaced task is not)
    starts: int = 0
    block: bool = False
    base_branch: str = ""  # the epic's branch, where the task's branch starts


class TaskObservation(BaseModel):
    """One sub-issue as the conductor reads it."""

    model_config = ConfigDict(frozen=True)

    number: int
    open: bool = True
    status: TaskStatus | None = None  # from its status label; None: no single known label
    link: TaskLink | None = None  # from its record, when the conductor read it
    spend: Spend | None = None
    attempt: int = 0


# --- GitHub work the epic asks for ---------------------------------------------------------------
class NewTask(BaseModel):
    """One sub-issue to create: its marker in the body makes creation idempotent."""

    model_config = ConfigDict(frozen=True)

    key: str
    title: str
    body: str
    labels: tuple[str, ...] = ()


class TaskCreationPlan(BaseModel):
    """Create the missing sub-issues of `epic` and the missing "blocked by" edges
    (`(blocked key, blocking key)`); existing ones are found by their marker and kept."""

    model_config = ConfigDict(frozen=True)

    epic: int
    tasks: list[NewTask]
    edges: list[tuple[str, str]] = Field(default_factory=list)
    # The epic's branch, made at the default branch's head with the tasks when it is missing
    # (in one of their documents); "": none to make.
    branch: str = ""


class CreatedTask(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    number: int
    node_id: str = ""


class TaskCreationFacts(BaseModel):
    """What creating the plan did: every task's sub-issue, or why it stopped."""

    model_config = ConfigDict(frozen=True)

    created: list[CreatedTask] = Field(default_factory=list)
    problem: str | None = None
    branch_created: bool = False  # the plan's branch was made by this creation


class MergePlan(BaseModel):
    """Merge a task's branch into its epic's branch (REST `POST /repos/{o}/{r}/merges`)."""

    model_config = ConfigDict(frozen=True)

    base: str
    head: str
    message: str


class MergeFacts(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: Literal["merged", "up_to_date", "conflict", "missing"]
    oid: str = ""
    detail: str = ""
