"""The dashboard's figures as plain data: what `figures` computes, what the page renders and
what `baton dashboard --format json` prints (its shape is in docs/dashboard.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.epic import RoleSpend, Spend
from baton.core.model.evidence import ProofCounts
from baton.core.model.record import Record

# The published anchor: 71.5% of 33,596 agent pull requests merged; humans' 76.8%.
PUBLISHED_RATE = 0.715
PUBLISHED_PULL_REQUESTS = 33_596
HUMANS_RATE = 0.768


@dataclass(frozen=True)
class Worked:
    """An issue Baton has worked, as the listing showed it, with its trusted record."""

    number: int
    title: str
    open: bool
    record: Record


class Unreadable(BaseModel):
    """An issue whose record could not be read or trusted: named, never a failed refresh."""

    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    problem: str


class Waiting(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    state: str
    since: datetime
    seconds: int
    on: str  # who or what: "the developer", "a human's answer", "a review of pull request 4"
    kind: str  # agent | human | pull_request | epic | tasks


class Spread(BaseModel):
    """Durations in seconds: how many, the median and the 90th percentile (nearest rank)."""

    model_config = ConfigDict(frozen=True)

    count: int = 0
    median: int = 0
    p90: int = 0


class StateTime(Spread):
    state: str


class Stay(BaseModel):
    model_config = ConfigDict(frozen=True)

    state: str
    start: datetime
    seconds: int


class Slowest(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    seconds: int
    path: list[Stay]


class PerIssue(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    count: int


class Rework(BaseModel):
    model_config = ConfigDict(frozen=True)

    rounds: int = 0
    issues: int = 0  # issues with at least one round
    per_issue: list[PerIssue] = Field(default_factory=list)  # most rounds first
    sent_back_by: dict[str, int] = Field(default_factory=dict)  # the state a round left
    redone: dict[str, int] = Field(default_factory=dict)  # states entered again


class Humans(BaseModel):
    model_config = ConfigDict(frozen=True)

    touchpoints: int = 0
    median_per_issue: float = 0.0
    by_kind: dict[str, int] = Field(default_factory=dict)  # trigger: reply, approval, review...
    per_issue: list[PerIssue] = Field(default_factory=list)


class Outcomes(BaseModel):
    model_config = ConfigDict(frozen=True)

    opened: int = 0
    merged: int = 0
    closed_unmerged: int = 0
    open: int = 0
    merge_rate: float | None = None  # merged of those decided (merged or closed)
    published_rate: float = PUBLISHED_RATE
    published_pull_requests: int = PUBLISHED_PULL_REQUESTS
    humans_rate: float = HUMANS_RATE
    failed_attempts: dict[str, int] = Field(default_factory=dict)  # by role (agent)


class SpendLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    spend: Spend
    merged: bool


class Spending(BaseModel):
    model_config = ConfigDict(frozen=True)

    total: Spend = Field(default_factory=Spend)
    runs_per_role: dict[str, int] = Field(default_factory=dict)  # agent reports in the history
    # What each role spent, from the records' own per-role spend; a record written before it was
    # kept adds its roles' runs from its history, without costs (`roles_from_history` counts them)
    per_role: dict[str, RoleSpend] = Field(default_factory=dict)  # most money, then runs, first
    roles_from_history: int = 0  # issues whose per-role figures are runs from the history alone
    per_merged: Spend | None = None  # all spend over the merged pull requests
    merged_issues: Spend = Field(default_factory=Spend)  # what the merged issues spent
    per_issue: list[SpendLine] = Field(default_factory=list)  # most money, then runs, first


class LastProof(BaseModel):
    """An issue's last red proof, as its record keeps it: the commit Baton made of the tests,
    how many ids each signed-off set holds (at most `KEEP_IDS` each), and whether it was
    signed off."""

    model_config = ConfigDict(frozen=True)

    commit: str
    at: datetime
    fail_to_pass: int
    pass_to_pass: int
    signed: bool


class ProofLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    counts: ProofCounts  # the verdicts that settled a state of this issue
    signed: bool  # the issue had a sign-off
    first_green_held: bool | None  # None: no green yet
    last_red: LastProof | None


class Proofs(BaseModel):
    """What the evidence showed (`Record.tests`): verdicts that settled a state, sign-offs, and
    how often the first green held. An issue whose record counts no verdict has no evidence: it
    moved on agents' reports alone."""

    model_config = ConfigDict(frozen=True)

    configured: bool = False  # the config has `tests:`
    issues: int = 0  # issues with evidence
    reports_alone: int = 0  # issues without
    counts: ProofCounts = Field(default_factory=ProofCounts)  # summed over the issues
    signed_off: int = 0  # issues with a sign-off
    green_issues: int = 0  # issues with a green verdict
    first_green_held: int = 0  # of those, the ones no failing verdict followed
    first_green_rate: float | None = None  # held ÷ green issues
    per_issue: list[ProofLine] = Field(default_factory=list)  # most verdicts first


class Figures(BaseModel):
    model_config = ConfigDict(frozen=True)

    generated_at: datetime
    window_days: int
    issues: int
    open_issues: int
    by_state: dict[str, int]
    waiting: list[Waiting]
    state_times: list[StateTime]
    lead_time: Spread
    slowest: Slowest | None
    rework: Rework
    humans: Humans
    outcomes: Outcomes
    spend: Spending
    evidence: Proofs
    unreadable: list[Unreadable]
