"""`.github/baton.yml`: which workflow runs, who may steer it, and the limits.

`Config` (in `workflow.config_model`) is what a maintainer writes; `Policy` is the plain data
`decide` needs from it, and `load_config` turns one into the other, checking the workflow on the
way so the engine never runs on a broken one. The model's and the forbidden list's names that
the rest of Baton imports from here are re-exported (`__all__`), so their importers stay as
they are while `core` moves.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import yaml
from pydantic import ValidationError

from baton.errors import DuplicateKeyError, InvalidConfig, InvalidWorkflow, YamlRefused
from baton.names import BOT_LOGIN, CONFIG_PATH
from baton.workflow.checks import Problem, check
from baton.workflow.config_model import (
    Budget,
    Budgets,
    CiSettings,
    Config,
    EpicSettings,
    Permission,
    RepoBreaker,
    Who,
    WorkSettings,
)
from baton.workflow.forbidden import DEFAULT_FORBIDDEN, LOCKED_FORBIDDEN
from baton.workflow.model import (
    Limits,
    Timeout,
    Workflow,
    describe_errors,
    did_you_mean,
    load_preset,
    located,
    workflow_from_data,
)
from baton.workflow.sources import WorkflowFileReader, beside, is_workflow_file, load_workflow
from baton.workflow.suite import SuiteSettings
from baton.workflow.yaml_source import YamlDocument, file_text, read_yaml

__all__ = [
    "DEFAULT_FORBIDDEN",
    "LOCKED_FORBIDDEN",
    "Budget",
    "Budgets",
    "CiSettings",
    "Config",
    "EpicSettings",
    "Permission",
    "Policy",
    "RepoBreaker",
    "Settings",
    "Who",
    "WorkSettings",
    "inline_path",
    "load_config",
    "parse_config",
    "repository_path",
    "settings_from",
]


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
    bot_login: str = BOT_LOGIN
    agent_timeout: timedelta | None = None
    sweep_budget: int = 100
    work: WorkSettings = field(default_factory=lambda: WorkSettings())
    epics: EpicSettings = field(default_factory=lambda: EpicSettings())
    budgets: Budgets = field(default_factory=lambda: Budgets())
    breaker: RepoBreaker | None = None
    ci: CiSettings = field(default_factory=lambda: CiSettings())
    # `tests:`: how the tests run and which files they are; None: states move on agents'
    # reports alone (a state's `proof` is ignored).
    tests: SuiteSettings | None = None
    # The config file's path in the repository, locked like .github/baton.yml (the workflow's
    # `config` input may name any path); None when it was read from outside the repository.
    config_path: str | None = CONFIG_PATH

    @property
    def held_ci(self) -> bool:
        """Whether CI on Baton's pull request waits for a writer's approval: GitHub holds the
        runs of a pull request GITHUB_TOKEN (github-actions[bot]) opened or updated, and no
        other identity's."""
        return self.bot_login == BOT_LOGIN

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
    # The document the workflow's own paths point into: its preset's, its file's, or the
    # config's (inline, under `workflow:`).
    workflow_document: YamlDocument | None = None
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


def placed(problem: Problem, settings: Settings) -> str:
    """The problem rendered where it is written (`file:line: severity: message`)."""
    return _placed(problem, settings.config, settings.document, settings.workflow_document)


def _placed(
    problem: Problem, config: Config, document: YamlDocument | None, own: YamlDocument | None
) -> str:
    """A state's timeout set by the config's `timeouts` points there; an inline workflow's
    paths sit under `workflow:` in the config; a preset's or a workflow file's in `own`."""
    path = problem.path
    overridden = len(path) >= 3 and path[0] == "states" and path[2] == "timeout"
    if overridden and path[1] in config.timeouts:
        moved = Problem(problem.severity, problem.message, ("timeouts", path[1]))
        return moved.render(document)
    return problem.render(own, inline_path(config))


def _resolve_workflow(
    config: Config, document: YamlDocument | None, read_file: WorkflowFileReader | None
) -> tuple[Workflow, YamlDocument | None]:
    if isinstance(config.workflow, str):
        return load_workflow(config.workflow, read_file)
    workflow = workflow_from_data(config.workflow, document=document, path=("workflow",))
    return workflow, document


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
    _refuse_errors(workflow, config.label_prefix, lambda problem: problem.render())
    return workflow


def _refuse_errors(workflow: Workflow, prefix: str, render: Callable[[Problem], str]) -> None:
    report = check(workflow, prefix=prefix)
    if not report.ok:
        rendered = "\n".join(render(problem) for problem in report.errors)
        raise InvalidWorkflow(f"workflow {workflow.name!r} has errors:\n{rendered}")


def _refuse_unknown_roles(config: Config, workflows: dict[str, Workflow], source: str) -> None:
    """A role in `agents.roles` that no workflow in use has would silently run the default
    agent (a misspelt `developr`): refused, naming the roles there are."""
    roles = {spec.agent for wf in workflows.values() for spec in wf.states.values() if spec.agent}
    unknown = sorted(set(config.agents.roles) - roles)
    if unknown:
        raise InvalidConfig(
            f"{source or '(defaults)'}: agents.roles names "
            + ", ".join(repr(role) for role in unknown)
            + ", not an agent of the workflows in use; their agents are: "
            + ", ".join(sorted(roles))
        )


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
    bot_login: str = BOT_LOGIN,
    read_file: WorkflowFileReader | None = None,
    checked: bool = True,
) -> Settings:
    """The settings `config` makes. `read_file` reads a workflow file `workflow:` names;
    `checked=False` leaves the workflow's structural errors to the caller (`baton validate`
    lists them all, warnings too, instead of refusing at the first)."""
    resolved, workflow_document = _resolve_workflow(config, document, read_file)
    workflow = _apply_overrides(resolved, config, document)
    if checked:
        _refuse_errors(
            workflow,
            config.label_prefix,
            lambda problem: _placed(problem, config, document, workflow_document),
        )
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
        tests=config.tests,
    )
    _refuse_unapproved_ci(policy, workflows, source)
    _refuse_unknown_roles(config, workflows, source)
    return Settings(
        config=config,
        workflow=workflow,
        policy=policy,
        source=source,
        document=document,
        workflow_document=workflow_document,
        workflows=workflows,
    )


def parse_config(
    text: str,
    *,
    source: str,
    bot_login: str = BOT_LOGIN,
    read_file: WorkflowFileReader | None = None,
    checked: bool = True,
) -> Settings:
    try:
        document = read_yaml(text, source=source)
    except (DuplicateKeyError, YamlRefused) as exc:
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
    return settings_from(
        config,
        document=document,
        source=source,
        bot_login=bot_login,
        read_file=read_file,
        checked=checked,
    )


def load_config(
    path: Path | None, *, required: bool = False, bot_login: str = BOT_LOGIN, checked: bool = True
) -> Settings:
    """Read the config file; a missing default file means the default preset. A workflow file
    it names is read from beside it, and locked like the config (`lock_workflow_file`)."""
    if path is None or not path.exists():
        if required:
            raise InvalidConfig(f"config file {path} does not exist")
        return settings_from(Config(), source="(defaults)", bot_login=bot_login, checked=checked)
    try:
        text = file_text(path)
    except OSError as exc:
        raise InvalidConfig(f"cannot read {path}: {exc.strerror}") from exc
    except YamlRefused as exc:
        raise InvalidConfig(str(exc)) from exc
    settings = parse_config(
        text, source=str(path), bot_login=bot_login, read_file=beside(path), checked=checked
    )
    policy = replace(settings.policy, config_path=repository_path(path))
    return lock_workflow_file(replace(settings, policy=policy), path)


def lock_workflow_file(settings: Settings, config: Path) -> Settings:
    """A workflow file the config names is what the next run obeys, as the config is: no
    agent's changeset may touch it (it joins `work.forbidden`); outside the repository, it
    cannot be changed by one."""
    name = settings.config.workflow
    if not isinstance(name, str) or not is_workflow_file(name):
        return settings
    locked = repository_path(config.parent / name)
    work = settings.policy.work
    if locked is None or locked in work.forbidden:
        return settings
    work = work.model_copy(update={"forbidden": (*work.forbidden, locked)})
    written = settings.config.model_copy(update={"work": work})
    return replace(settings, config=written, policy=replace(settings.policy, work=work))


def repository_path(path: Path) -> str | None:
    """`path` as a changeset names it (`./ci/../ci/baton.yml` is `ci/baton.yml`), or None when
    it lies outside the working directory, the checkout's root where the action runs."""
    if path.is_absolute():
        return None
    normal = posixpath.normpath(path.as_posix())
    return None if normal == ".." or normal.startswith("../") else normal
