"""`baton doctor`: read a repository's setup through the API and say what is missing or wrong,
each with its fix. Reads only; a read the token may not make is reported, never a crash."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from baton.adopt.checks.caller import check_caller, missing, unparsed
from baton.adopt.checks.inputs import check_agent, check_inputs
from baton.adopt.checks.repository import (
    check_actions,
    check_config,
    check_labels,
    check_secrets,
    evidence_notes,
)
from baton.adopt.findings import Finding, Level, unchecked
from baton.adopt.needs import WORKFLOWS_DIR
from baton.errors import TrackerError
from baton.github.tracker import RepositorySetup
from baton.names import CONFIG_PATH
from baton.workflow.config import settings_from
from baton.workflow.config_model import Config
from baton.workflow.sources import from_repository

T = TypeVar("T")
_ADMIN = "admin on the repository (fine-grained: Administration read)"
_SECRETS = "admin on the repository (fine-grained: Secrets read)"
_CONTENTS = "read access to the repository's contents"


class _Reader:
    """The reads of one doctor run, each refused read turned into an unchecked finding."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def read(self, what: str, needs: str, call: Callable[[], T]) -> T | None:
        try:
            return call()
        except TrackerError as exc:
            if exc.status == 401 or (exc.status or 0) >= 500 or "unreachable" in str(exc):
                raise  # a bad token, GitHub failing or out of reach: nothing can be checked
            said = f"GitHub answered {exc.status}" if exc.status else str(exc)
            self.findings.append(unchecked(f"{what}: {said}", needs))
            return None


def _workflows(setup: RepositorySetup) -> dict[str, str]:
    paths = setup.directory(WORKFLOWS_DIR) or []
    found = {}
    for path in paths:
        if path.endswith((".yml", ".yaml")):
            text = setup.file(path)
            if text is not None:
                found[path] = text
    return found


def diagnose(setup: RepositorySetup) -> list[Finding]:
    """Every finding about the repository behind `setup`, errors first."""
    reader = _Reader()
    findings: list[Finding] = []
    workflows = reader.read("the workflows", _CONTENTS, lambda: _workflows(setup))
    caller = check_caller(workflows) if workflows is not None else None
    if workflows is not None:
        findings += unparsed(workflows)
        findings += caller.findings if caller else [missing(workflows)]
    config_path = caller.config if caller else CONFIG_PATH
    text = reader.read(config_path, _CONTENTS, lambda: setup.file(config_path))
    config_findings, settings = check_config(
        config_path, text, from_repository(config_path, setup.file)
    )
    findings += config_findings
    if settings is None and not config_findings:
        settings = settings_from(Config(), source="(defaults)")
    if caller is not None and settings is not None:
        findings += check_inputs(caller, settings.config, config_path)
        findings += check_agent(caller, settings.config)
    if caller is not None:
        names = reader.read("the Actions secrets", _SECRETS, setup.secret_names)
        if names is not None:
            findings += check_secrets(names, caller.secrets, inherit=caller.inherit)
    actions = reader.read("the Actions settings", _ADMIN, setup.actions_settings)
    if actions is not None:
        opens = settings.policy.work.pull_request if settings else True
        findings += check_actions(actions, pull_requests=opens)
    if settings is not None:
        findings += evidence_notes(settings)
        labels = reader.read("the labels", _CONTENTS, setup.label_names)
        if labels is not None:
            findings += check_labels(labels, settings)
    return _ordered(findings + reader.findings)


def _ordered(findings: list[Finding]) -> list[Finding]:
    rank = {Level.error: 0, Level.warning: 1, Level.unchecked: 2, Level.note: 3}
    return sorted(findings, key=lambda f: rank[f.level])


def healthy(findings: list[Finding]) -> bool:
    return not any(f.level is Level.error for f in findings)
