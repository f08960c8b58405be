"""What a maintainer writes in `.github/baton.yml`: `Config` and its sections.

The model alone, with the rules a single value must follow; its JSON Schema ships as
`baton-config.schema.json`. Reading the file and checking the workflow it names is
`workflow.config`.
"""

from __future__ import annotations

from datetime import timedelta
from enum import IntEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from baton.errors import InvalidSetting
from baton.names import BRANCH_PREFIX
from baton.workflow.agent_profiles import Agents
from baton.workflow.durations import Duration
from baton.workflow.forbidden import BUILT_IN, LOCKED_FORBIDDEN, glob_within
from baton.workflow.model import DEFAULT_WORKFLOW
from baton.workflow.suite import SuiteSettings


class Permission(IntEnum):
    """GitHub repository roles, ordered so `>=` reads as 'at least'."""

    none = 0
    read = 1
    triage = 2
    write = 3
    maintain = 4
    admin = 5

    @classmethod
    def parse(cls, value: str | None) -> Permission:
        if not value:
            return cls.none
        return cls.__members__.get(value.strip().lower(), cls.none)


PermissionName = Literal["read", "triage", "write", "maintain", "admin"]


class Who(BaseModel):
    """A group of people: a minimum repository permission, plus named users and teams."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    permission: PermissionName | None = Field(
        default=None, description="Anyone with at least this repository permission."
    )
    users: list[str] = Field(default_factory=list, description="GitHub logins.")
    teams: list[str] = Field(default_factory=list, description="Teams as org/team-slug.")

    @field_validator("teams")
    @classmethod
    def _org_slash_team(cls, teams: list[str]) -> list[str]:
        for team in teams:
            if team.count("/") != 1 or not all(team.split("/")):
                raise InvalidSetting(f"team {team!r} must be written org/team-slug")
        return teams


class EntryRule(BaseModel):
    """How an issue enters the workflow; opt-in by default because agents cost money."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger_label: str | None = Field(
        default="baton",
        max_length=50,
        description="Adding this label starts the workflow; Baton removes it again.",
    )
    on_open: bool = Field(default=False, description="Every newly opened issue enters.")
    status_label: bool = Field(
        default=True, description="A maintainer adding any status label enters the issue there."
    )


class LimitOverrides(BaseModel):
    """Any of the workflow's limits, to override for this repository."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_iterations: int | None = Field(default=None, ge=1)
    loop_window: int | None = Field(default=None, ge=2)
    loop_distinct: int | None = Field(default=None, ge=1)
    max_attempts: int | None = Field(default=None, ge=1)
    fresh_context_from_attempt: int | None = Field(default=None, ge=1)


class WorkSettings(BaseModel):
    """The work product: the branch, what an agent's changeset may carry, the pull request."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    branch_prefix: str = Field(
        default=BRANCH_PREFIX,
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9._/-]+$",
        description="An issue's branch is this prefix and its number: baton/issue-42.",
    )
    max_files: int = Field(
        default=300, ge=1, le=10_000, description="Files one changeset may change."
    )
    max_bytes: int = Field(
        default=4_000_000,
        ge=1,
        le=50_000_000,
        description="Bytes of file contents one changeset may carry (decoded).",
    )
    forbidden: tuple[str, ...] = Field(
        default=(),
        description="More paths no changeset may touch, on top of Baton's own list (globs: * "
        "within a name, ** any depth; compared case-insensitively).",
    )
    allow: tuple[str, ...] = Field(
        default=(),
        description="Paths agents may write although Baton's own list refuses them (globs), "
        "e.g. .vscode/settings.json. .github/workflows/** and .github/baton.yml stay refused.",
    )
    pull_request: bool = Field(
        default=True, description="Open a draft pull request at the first commit."
    )

    @property
    def refused(self) -> tuple[str, ...]:
        """Every glob a changeset may not touch: Baton's locked and default entries, then the
        repository's own; `allow` lifts the default ones for the paths it matches."""
        own = tuple(p for p in self.forbidden if p not in BUILT_IN)
        return (*BUILT_IN, *own)

    @field_validator("branch_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        # git's check-ref-format for `<prefix><number>`: no `..`, no empty folder, no name
        # starting with a dot, no folder ending in `.lock` (the pattern keeps out the rest).
        folders, _, last = value.rpartition("/")
        names = folders.split("/") if folders else []
        if (
            ".." in value
            or value.startswith(("/", "-"))
            or value.endswith(".lock")
            or any(not name or name.endswith(".lock") for name in names)
            or any(name.startswith(".") for name in (*names, last))
        ):
            raise InvalidSetting(f"{value!r} cannot start a git branch name")
        return value

    @field_validator("forbidden", "allow")
    @classmethod
    def _globs(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        for glob in globs:
            if not glob.strip("/ ") or len(glob) > 1024 or not glob.isprintable():
                raise InvalidSetting(f"{glob[:80]!r} is not a path glob such as docs/**")
        return globs

    @field_validator("allow")
    @classmethod
    def _never_locked(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        for glob in globs:
            folded = glob.strip("/").casefold()
            for locked in LOCKED_FORBIDDEN:
                if folded == locked.pattern or glob_within(folded, locked.pattern):
                    raise InvalidSetting(
                        f"{glob!r} is always refused ({locked.why}); no setting allows it"
                    )
        return globs


class EpicSettings(BaseModel):
    """Epics: an issue labelled `label` runs `workflow`; its tasks are sub-issues
    labelled `task_label` running `task_workflow`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(default=True, description="Act on the epic label.")
    label: str = Field(
        default="baton:epic",
        min_length=1,
        max_length=50,
        description="A maintainer adding it makes the issue an epic; it stays on the issue.",
    )
    task_label: str = Field(
        default="baton:task", min_length=1, max_length=50, description="Marks an epic's tasks."
    )
    workflow: str = Field(default="feature-epic", description="The epic's preset.")
    task_workflow: str = Field(
        default="epic-task",
        description="The tasks' preset; `epic-task-test-first` with `tests:`: tests first.",
    )
    max_parallel: int = Field(default=3, ge=1, le=20, description="Tasks in progress at once.")
    max_tasks: int = Field(
        default=20, ge=1, le=100, description="Tasks one plan may hold (GitHub: 100 per parent)."
    )
    breaker_threshold: int = Field(
        default=3, ge=1, le=100, description="Task failures in a row that open the breaker."
    )
    warn_turns: int = Field(
        default=15, ge=1, le=200, description="Discovery answers before Baton offers to generate."
    )
    max_turns: int = Field(
        default=20, ge=1, le=200, description="Discovery answers after which it generates anyway."
    )
    categories: tuple[str, ...] = Field(
        default=("purpose", "users", "scope", "constraints", "edge_cases"),
        min_length=1,
        max_length=10,
        description="What the discovery agent asks about, in order.",
    )


class Budget(BaseModel):
    """Limits on what agents may spend; an empty field is no limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent_runs: int | None = Field(default=None, ge=1)
    money: float | None = Field(default=None, gt=0, description="US dollars, as agents report.")
    minutes: float | None = Field(default=None, gt=0)
    tokens: int | None = Field(default=None, ge=1)


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    issue: Budget = Field(default_factory=lambda: Budget(), description="Per issue (a task too).")
    epic: Budget = Field(
        default_factory=lambda: Budget(), description="Per epic, its tasks summed."
    )


class RepoBreaker(BaseModel):
    """A repository-wide circuit breaker, for the day an agent's API key runs out: an issue
    whose last agent attempt failed carries `label`; while `threshold` open issues carrying it
    were updated within `window`, no new agent starts on any issue (the issue is held; a
    maintainer's `/retry` lets its agent through as a probe)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: int = Field(default=3, ge=1, le=100)
    window: Duration = Field(default=timedelta(hours=1))
    label: str = Field(
        default="baton:failing",
        min_length=1,
        max_length=50,
        description="Marks an issue whose last agent attempt failed.",
    )


class CiSettings(BaseModel):
    """What CI may do with the agent's code before a human has looked at it (docs/tokens.md).

    With GITHUB_TOKEN, GitHub holds the pull_request runs of Baton's pull request until a
    writer approves them; with any other identity (a GitHub App's `<slug>[bot]`, a person's
    token) they start at once, with the repository's secrets. Baton refuses to run as such an
    identity until the config accepts that in so many words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unapproved_runs: Literal["refuse", "accept"] = Field(
        default="refuse",
        description="`accept`: Baton may write with a token whose commits and pull requests "
        "start CI without a maintainer's approval (a GitHub App's), so CI runs agent-written "
        "code with the repository's secrets before anyone has reviewed it. `refuse` (the "
        "default): Baton stops with an error when it writes as anything but "
        "github-actions[bot].",
    )


class DashboardSettings(BaseModel):
    """The lifecycle dashboard (docs/dashboard.md) kept in a pinned issue by the hourly sweep."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pinned: bool = Field(
        default=False,
        description="Keep the dashboard in a pinned issue, refreshed by every sweep: one API "
        "call per 25 issues Baton has worked, and one per 100 issues listed, on top of the "
        "sweep's budget.",
    )
    window: Duration = Field(
        default=timedelta(days=90), description="A closed issue counts if closed this recently."
    )


class Config(BaseModel):
    """The schema of `.github/baton.yml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workflow: str | dict[str, Any] = Field(
        default=DEFAULT_WORKFLOW,
        description="A preset name (issue-lifecycle, approval-gate, task-review, test-first), a "
        "workflow file's path beside this file (a name with a dot or a slash, e.g. "
        "baton-workflow.yml; locked against agents' changesets like this file), or an inline "
        "workflow definition: the workflow of issues that are no epic or task.",
    )
    approvers: Who = Field(
        default_factory=lambda: Who(permission="write"),
        description="Who may approve at a gate and use /retry, /skip, /replan.",
    )
    maintainers: Who = Field(
        default_factory=lambda: Who(permission="triage"),
        description="Who may force a state by relabelling.",
    )
    answerers: Literal["anyone", "author-or-approvers", "approvers"] = Field(
        default="author-or-approvers",
        description="Whose replies answer a waiting state's questions.",
    )
    reopeners: Literal["anyone", "author-or-maintainers", "maintainers"] = Field(
        default="maintainers",
        description="Who may restart work by reopening an issue: start an agent that is not "
        "running, or restart a finished issue. An agent already running is never started twice.",
    )
    approval_words: list[str] = Field(
        default_factory=lambda: ["approved"],
        min_length=1,
        description="Words that approve when they open a line of a comment.",
    )
    allow_edited_approvals: bool = Field(
        default=False, description="Count an approval added by editing an older comment."
    )
    entry: EntryRule = Field(default_factory=EntryRule)
    label_prefix: str = Field(default="status:", min_length=1, max_length=20)
    pull_requests: bool = Field(default=False, description="Act on comments on pull requests.")
    timeouts: dict[str, Duration] = Field(
        default_factory=dict,
        description="Per state: override how long a waiting state waits, or how long an agent "
        "may take before it is dispatched again.",
    )
    agent_timeout: Duration | None = Field(
        default=None,
        description="How long any agent may take before `baton sweep` dispatches it again.",
    )
    limits: LimitOverrides = Field(
        default_factory=lambda: LimitOverrides(),
        description="Overrides of the workflow's limits.",
    )
    sweep_budget: int = Field(
        default=100, ge=5, le=900, description="API calls one `baton sweep` run may spend."
    )
    work: WorkSettings = Field(
        default_factory=lambda: WorkSettings(),
        description="The issue's branch, what agents' changesets may carry, the pull request.",
    )
    epics: EpicSettings = Field(
        default_factory=lambda: EpicSettings(),
        description="Epics: a discovery dialogue, a plan of sub-issues, parallel tasks.",
    )
    budgets: Budgets = Field(
        default_factory=lambda: Budgets(),
        description="What agents may spend per issue and per epic before a human decides.",
    )
    breaker: RepoBreaker | None = Field(
        default=None,
        description="A repository-wide circuit breaker over failed agent runs (off when empty).",
    )
    ci: CiSettings = Field(
        default_factory=lambda: CiSettings(),
        description="Whether CI may run agent-written code before a maintainer approves it.",
    )
    agents: Agents = Field(
        default_factory=lambda: Agents(),
        description="Agent profiles and the one each role runs (none: the agent-command input).",
    )
    tests: SuiteSettings | None = Field(
        default=None,
        description="How `baton verify` runs the tests (command, setup, timeout, paths, frozen) "
        "to produce evidence; without it transitions rest on agents' reports.",
    )
    dashboard: DashboardSettings = Field(
        default_factory=lambda: DashboardSettings(),
        description="The lifecycle dashboard in a pinned issue (off by default).",
    )

    @field_validator("approval_words")
    @classmethod
    def _words(cls, words: list[str]) -> list[str]:
        cleaned = [w.strip().lower() for w in words]
        for word in cleaned:
            if not word or any(ch.isspace() for ch in word):
                raise InvalidSetting("approval words are single words such as 'approved' or 'lgtm'")
            if word in {"not", "no", "unapproved", "disapproved"}:
                raise InvalidSetting(f"{word!r} cannot be an approval word")
        return cleaned
