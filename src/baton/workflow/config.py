"""`.github/baton.yml`: which workflow runs, who may steer it, and the limits.

`Config` is what a maintainer writes (its JSON Schema ships as `baton-config.schema.json`);
`Policy` is the plain data `decide` needs from it, and `load_config` turns one into the other,
checking the workflow on the way so the engine never runs on a broken one.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from baton.errors import DuplicateKeyError, InvalidConfig, InvalidWorkflow
from baton.workflow.checks import Problem, check
from baton.workflow.durations import Duration
from baton.workflow.model import (
    DEFAULT_WORKFLOW,
    Limits,
    Timeout,
    Workflow,
    describe_errors,
    did_you_mean,
    load_preset,
    located,
    workflow_from_data,
)
from baton.workflow.yaml_source import YamlDocument, read_yaml

DEFAULT_CONFIG_PATH = ".github/baton.yml"
DEFAULT_BOT_LOGIN = "github-actions[bot]"


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
                raise ValueError(f"team {team!r} must be written org/team-slug")
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


class ForbiddenPath(NamedTuple):
    """A glob no changeset may touch, and why: the refusal quotes the reason."""

    pattern: str
    why: str


# Refused whatever `.github/baton.yml` says: GITHUB_TOKEN cannot write workflows (it lacks the
# `workflows` permission), and an agent that rewrites Baton's config rewrites its own rules.
LOCKED_FORBIDDEN = (
    ForbiddenPath(
        ".github/workflows/**",
        "workflows run with the repository's secrets, and GITHUB_TOKEN cannot write them",
    ),
    ForbiddenPath(".github/baton.yml", "Baton's config: an agent would rewrite its own rules"),
    ForbiddenPath(".github/baton.yaml", "Baton's config: an agent would rewrite its own rules"),
)
# What a later job loads from the checkout and obeys: an agent CLI's settings (hooks and MCP
# servers run commands) and instructions (read as the next agent's prompt), a local action or a
# dev container (code a job runs), git's own files (what a later checkout fetches or filters).
# `**/` at the start: at any depth. Matched case-insensitively (see `core.changeset`); a
# maintainer lifts an entry for some paths with `work.allow`.
DEFAULT_FORBIDDEN = (
    ForbiddenPath("**/.claude/**", "Claude Code's settings: its hooks run shell commands"),
    ForbiddenPath("**/CLAUDE.md", "Claude Code's instructions, read into the next prompt"),
    ForbiddenPath("**/CLAUDE.local.md", "Claude Code's instructions, read into the next prompt"),
    ForbiddenPath("**/.mcp.json", "MCP servers an agent CLI starts (commands it runs)"),
    ForbiddenPath("**/AGENTS.md", "instructions Codex, Copilot, Cursor and others obey"),
    ForbiddenPath("**/AGENTS.override.md", "Codex's instructions, read before AGENTS.md"),
    ForbiddenPath("**/.codex/**", "Codex's config: MCP servers, commands, approval policy"),
    ForbiddenPath("**/GEMINI.md", "Gemini CLI's instructions, read into the next prompt"),
    ForbiddenPath("**/.gemini/**", "Gemini CLI's settings: MCP servers, hooks, commands"),
    ForbiddenPath(".github/copilot-instructions.md", "Copilot's instructions for the repository"),
    ForbiddenPath(".github/instructions/**", "Copilot's instructions per path"),
    ForbiddenPath(".github/prompts/**", "Copilot's prompt files"),
    ForbiddenPath(".github/agents/**", "Copilot's custom agents"),
    ForbiddenPath(".github/chatmodes/**", "Copilot's chat modes (instructions and tools)"),
    ForbiddenPath(".github/skills/**", "agent skills: instructions and scripts agents run"),
    ForbiddenPath(".github/hooks/**", "Copilot's agent hooks: commands it runs"),
    ForbiddenPath(".github/actions/**", "local actions: code a workflow runs with its secrets"),
    ForbiddenPath("**/action.yml", "a local action: code a workflow (`uses: ./…`) runs"),
    ForbiddenPath("**/action.yaml", "a local action: code a workflow (`uses: ./…`) runs"),
    ForbiddenPath("**/.devcontainer/**", "a dev container: commands Codespaces and CLIs run"),
    ForbiddenPath("**/.devcontainer.json", "a dev container: commands Codespaces and CLIs run"),
    ForbiddenPath("**/.vscode/**", "editor tasks that run on opening, MCP servers (mcp.json)"),
    ForbiddenPath("**/.cursor/**", "Cursor's rules, MCP servers and hooks"),
    ForbiddenPath("**/.cursorrules", "Cursor's instructions"),
    ForbiddenPath("**/.windsurf/**", "Windsurf's rules and workflows"),
    ForbiddenPath("**/.windsurfrules", "Windsurf's instructions"),
    ForbiddenPath("**/.clinerules", "Cline's instructions (a file or a folder)"),
    ForbiddenPath("**/.roo/**", "Roo Code's rules and MCP servers"),
    ForbiddenPath("**/.continue/**", "Continue's config: MCP servers and rules"),
    ForbiddenPath("**/.amazonq/**", "Amazon Q's rules and MCP servers"),
    ForbiddenPath("**/.aider*", "Aider's config, read from the checkout (.aider.conf.yml)"),
    ForbiddenPath("**/.openhands/**", "OpenHands' setup.sh (run at start) and microagents"),
    ForbiddenPath("**/.gitmodules", "submodule URLs a later checkout fetches"),
    ForbiddenPath("**/.gitattributes", "filters and line endings a later checkout applies"),
    ForbiddenPath("**/.lfsconfig", "the Git LFS server a later checkout fetches from"),
)

_BUILT_IN = tuple(rule.pattern for rule in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN))


class WorkSettings(BaseModel):
    """The work product: the branch, what an agent's changeset may carry, the pull request."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    branch_prefix: str = Field(
        default="baton/issue-",
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
        own = tuple(p for p in self.forbidden if p not in _BUILT_IN)
        return (*_BUILT_IN, *own)

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
            raise ValueError(f"{value!r} cannot start a git branch name")
        return value

    @field_validator("forbidden", "allow")
    @classmethod
    def _globs(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        for glob in globs:
            if not glob.strip("/ ") or len(glob) > 1024 or not glob.isprintable():
                raise ValueError(f"{glob[:80]!r} is not a path glob such as docs/**")
        return globs

    @field_validator("allow")
    @classmethod
    def _never_locked(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        for glob in globs:
            folded = glob.strip("/").casefold()
            for locked in LOCKED_FORBIDDEN:
                if folded == locked.pattern or _glob_within(folded, locked.pattern):
                    raise ValueError(
                        f"{glob!r} is always refused ({locked.why}); no setting allows it"
                    )
        return globs


def _glob_within(glob: str, pattern: str) -> bool:
    """`glob` names only paths inside a locked pattern: a literal path it matches, or the
    pattern's own directory with more after it (`.github/workflows/*.yml`)."""
    if pattern.endswith("/**"):
        return glob == pattern[:-3] or glob.startswith(pattern[:-2])
    return glob == pattern


class EpicSettings(BaseModel):
    """Epics (seed 002): an issue labelled `label` runs `workflow`; its tasks are sub-issues
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
    task_workflow: str = Field(default="epic-task", description="The tasks' preset.")
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


class Config(BaseModel):
    """The schema of `.github/baton.yml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workflow: str | dict[str, Any] = Field(
        default=DEFAULT_WORKFLOW,
        description="A preset name (issue-lifecycle, approval-gate, task-review) or an inline "
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

    @field_validator("approval_words")
    @classmethod
    def _words(cls, words: list[str]) -> list[str]:
        cleaned = [w.strip().lower() for w in words]
        for word in cleaned:
            if not word or any(ch.isspace() for ch in word):
                raise ValueError("approval words are single words such as 'approved' or 'lgtm'")
            if word in {"not", "no", "unapproved", "disapproved"}:
                raise ValueError(f"{word!r} cannot be an approval word")
        return cleaned


@dataclass(frozen=True)
class Policy:
    """The plain data `decide` and `webhooks.parse` need from the config."""

    approvers: Who = field(default_factory=lambda: Who(permission="write"))
    maintainers: Who = field(default_factory=lambda: Who(permission="triage"))
    answerers: str = "author-or-approvers"
    reopeners: str = "maintainers"
    approval_words: tuple[str, ...] = ("approved",)
    allow_edited_approvals: bool = False
    trigger_label: str | None = "baton"
    enter_on_open: bool = False
    enter_on_status_label: bool = True
    label_prefix: str = "status:"
    pull_requests: bool = False
    bot_login: str = DEFAULT_BOT_LOGIN
    agent_timeout: timedelta | None = None
    sweep_budget: int = 100
    work: WorkSettings = field(default_factory=lambda: WorkSettings())
    epics: EpicSettings = field(default_factory=lambda: EpicSettings())
    budgets: Budgets = field(default_factory=lambda: Budgets())
    breaker: RepoBreaker | None = None
    ci: CiSettings = field(default_factory=lambda: CiSettings())
    # The config file's path in the repository, locked like .github/baton.yml (the workflow's
    # `config` input may name any path); None when it was read from outside the repository.
    config_path: str | None = DEFAULT_CONFIG_PATH

    @property
    def held_ci(self) -> bool:
        """Whether CI on Baton's pull request waits for a writer's approval: GitHub holds the
        runs of a pull request GITHUB_TOKEN (github-actions[bot]) opened or updated, and no
        other identity's."""
        return self.bot_login == DEFAULT_BOT_LOGIN

    @property
    def markers(self) -> tuple[str, ...]:
        """The labels that choose an issue's workflow, the task's first (it wins); none when
        epics are off. Baton's labels, but never removed by it: they stay on the issue."""
        epics = self.epics
        return (epics.task_label, epics.label) if epics.enabled else ()


@dataclass(frozen=True)
class Settings:
    config: Config
    workflow: Workflow
    policy: Policy
    source: str
    document: YamlDocument | None = None
    # Every workflow in use, by name: the configured one (as `workflow`, with the config's
    # overrides) and, when epics are on, the epic's and the tasks' presets.
    workflows: dict[str, Workflow] = field(default_factory=dict)

    def for_labels(self, labels: Iterable[str]) -> Settings:
        """These settings with `workflow` the one an issue with `labels` runs: the tasks' if it
        carries the task label, else the epic's if it carries the epic label (compared
        case-insensitively); otherwise these settings unchanged."""
        epics = self.policy.epics
        if not epics.enabled:
            return self
        names = {label.casefold() for label in labels}
        if epics.task_label.casefold() in names:
            chosen = epics.task_workflow
        elif epics.label.casefold() in names:
            chosen = epics.workflow
        else:
            return self
        workflow = self.workflows.get(chosen)
        if workflow is None or workflow == self.workflow:
            return self
        return replace(self, workflow=workflow)


def _apply_overrides(
    workflow: Workflow, config: Config, document: YamlDocument | None = None
) -> Workflow:
    overrides = config.limits.model_dump(exclude_none=True)
    if not config.timeouts and not overrides:
        return workflow
    unknown = [state for state in config.timeouts if state not in workflow.states]
    if unknown:
        raise InvalidConfig(
            "\n".join(
                located(
                    document,
                    ("timeouts", state),
                    f"workflow {workflow.name} has no state {state!r}"
                    + did_you_mean(state, workflow.states),
                )
                for state in unknown
            )
        )
    states = dict(workflow.states)
    for state, after in config.timeouts.items():
        spec = states[state]
        to = spec.timeout.to if spec.timeout else None
        states[state] = spec.model_copy(update={"timeout": Timeout(after=after, to=to)})
    limits = Limits.model_validate({**workflow.limits.model_dump(), **overrides})
    return workflow.model_copy(update={"states": states, "limits": limits})


def inline_path(config: Config) -> tuple[str, ...]:
    """Where the workflow's own paths start inside the config document."""
    return ("workflow",) if isinstance(config.workflow, dict) else ()


def _in_config(problem: Problem, config: Config) -> Problem:
    """The problem placed in the config document: a state's timeout set by the config's
    `timeouts` points there; the rest of an inline workflow sits under `workflow:`; a preset's
    own paths are not in the config at all."""
    path = problem.path
    overridden = len(path) >= 3 and path[0] == "states" and path[2] == "timeout"
    if overridden and path[1] in config.timeouts:
        return Problem(problem.severity, problem.message, ("timeouts", path[1]))
    if isinstance(config.workflow, dict):
        return Problem(problem.severity, problem.message, ("workflow", *path))
    return Problem(problem.severity, problem.message, ())


def _resolve_workflow(config: Config, document: YamlDocument | None) -> Workflow:
    if isinstance(config.workflow, str):
        return load_preset(config.workflow)
    return workflow_from_data(config.workflow, document=document, path=("workflow",))


def _check_markers(config: Config, document: YamlDocument | None) -> None:
    """The epic and task labels: two labels of their own, neither the trigger nor a status."""
    epics, problems = config.epics, []
    trigger = config.entry.trigger_label
    for key in ("label", "task_label"):
        label: str = getattr(epics, key)
        if label.casefold().startswith(config.label_prefix.casefold()):
            problems.append(
                located(
                    document,
                    ("epics", key),
                    f"{label!r} starts with the label prefix {config.label_prefix!r}, so it "
                    f"would read as a status label; choose another epics.{key} (or set "
                    "epics.enabled: false)",
                )
            )
        elif trigger is not None and label.casefold() == trigger.casefold():
            problems.append(
                located(
                    document,
                    ("epics", key),
                    f"{label!r} is the trigger label (entry.trigger_label) too; "
                    f"choose another epics.{key}",
                )
            )
    if epics.label.casefold() == epics.task_label.casefold():
        problems.append(
            located(
                document,
                ("epics", "task_label"),
                f"{epics.task_label!r} is the epic label too: tasks need a label of their own",
            )
        )
    if problems:
        raise InvalidConfig("\n".join(problems))


def _epic_workflow(config: Config, document: YamlDocument | None, key: str, role: str) -> Workflow:
    """The epic's or the tasks' preset, loaded and checked like the configured workflow."""
    name: str = getattr(config.epics, key)
    try:
        workflow = load_preset(name)
    except InvalidWorkflow as exc:
        raise InvalidConfig(located(document, ("epics", key), str(exc))) from exc
    if workflow.role != role:
        raise InvalidConfig(
            located(
                document,
                ("epics", key),
                f"preset {name!r} is a workflow for the role {workflow.role!r}; "
                f"epics.{key} needs one for the role {role!r}",
            )
        )
    _refuse_errors(workflow, config, document, in_config=False)
    return workflow


def _refuse_errors(
    workflow: Workflow, config: Config, document: YamlDocument | None, *, in_config: bool = True
) -> None:
    report = check(workflow, prefix=config.label_prefix)
    if not report.ok:
        rendered = "\n".join(
            _in_config(p, config).render(document) if in_config else p.render()
            for p in report.errors
        )
        raise InvalidWorkflow(f"workflow {workflow.name!r} has errors:\n{rendered}")


def _refuse_unapproved_ci(policy: Policy, workflows: dict[str, Workflow], source: str) -> None:
    """Writing as anything but GITHUB_TOKEN starts CI on the agent's code with no approval:
    refused unless the config accepts it (`ci.unapproved_runs`), where Baton commits at all."""
    if policy.held_ci or policy.ci.unapproved_runs == "accept":
        return
    commits = any(wf.changes_code(state) for wf in workflows.values() for state in wf.states)
    if not commits:
        return
    raise InvalidConfig(
        f"{source or '(defaults)'}: Baton writes as {policy.bot_login}, not GITHUB_TOKEN, so CI "
        "starts on its commits and pull requests without a maintainer's approval and runs the "
        "agent's code with the repository's secrets; to accept that, add "
        "`ci: {unapproved_runs: accept}` to .github/baton.yml, or write with GITHUB_TOKEN "
        "(drop app-client-id) so that a writer approves each run (docs/tokens.md)"
    )


def settings_from(
    config: Config,
    *,
    document: YamlDocument | None = None,
    source: str = "",
    bot_login: str = DEFAULT_BOT_LOGIN,
) -> Settings:
    workflow = _apply_overrides(_resolve_workflow(config, document), config, document)
    _refuse_errors(workflow, config, document)
    workflows = {workflow.name: workflow}
    if config.epics.enabled:
        _check_markers(config, document)
        for key, role in (("workflow", "epic"), ("task_workflow", "task")):
            preset = _epic_workflow(config, document, key, role)
            workflows.setdefault(preset.name, preset)
    policy = Policy(
        approvers=config.approvers,
        maintainers=config.maintainers,
        answerers=config.answerers,
        reopeners=config.reopeners,
        approval_words=tuple(config.approval_words),
        allow_edited_approvals=config.allow_edited_approvals,
        trigger_label=config.entry.trigger_label,
        enter_on_open=config.entry.on_open,
        enter_on_status_label=config.entry.status_label,
        label_prefix=config.label_prefix,
        pull_requests=config.pull_requests,
        bot_login=bot_login,
        agent_timeout=config.agent_timeout,
        sweep_budget=config.sweep_budget,
        work=config.work,
        epics=config.epics,
        budgets=config.budgets,
        breaker=config.breaker,
        ci=config.ci,
    )
    _refuse_unapproved_ci(policy, workflows, source)
    return Settings(
        config=config,
        workflow=workflow,
        policy=policy,
        source=source,
        document=document,
        workflows=workflows,
    )


def parse_config(text: str, *, source: str, bot_login: str = DEFAULT_BOT_LOGIN) -> Settings:
    try:
        document = read_yaml(text, source=source)
    except DuplicateKeyError as exc:
        raise InvalidConfig(f"{source}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise InvalidConfig(f"{source}: not valid YAML: {exc}") from exc
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise InvalidConfig(f"{source}: the config must be a mapping of settings")
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise InvalidConfig("\n".join(describe_errors(exc, Config, document))) from exc
    return settings_from(config, document=document, source=source, bot_login=bot_login)


def load_config(
    path: Path | None, *, required: bool = False, bot_login: str = DEFAULT_BOT_LOGIN
) -> Settings:
    """Read the config file; a missing default file means the default preset."""
    if path is None or not path.exists():
        if required:
            raise InvalidConfig(f"config file {path} does not exist")
        return settings_from(Config(), source="(defaults)", bot_login=bot_login)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidConfig(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidConfig(f"{path} is not UTF-8 (byte {exc.start})") from exc
    settings = parse_config(text, source=str(path), bot_login=bot_login)
    policy = replace(settings.policy, config_path=repository_path(path))
    return replace(settings, policy=policy)


def repository_path(path: Path) -> str | None:
    """`path` as a changeset names it (`./ci/../ci/baton.yml` is `ci/baton.yml`), or None when
    it lies outside the working directory, the checkout's root where the action runs."""
    if path.is_absolute():
        return None
    normal = posixpath.normpath(path.as_posix())
    return None if normal == ".." or normal.startswith("../") else normal
