"""The repository around the workflow: the secrets it passes, the Actions settings Baton
depends on, the config file (read with Baton's own loader) and the labels Baton uses."""

from __future__ import annotations

from baton.adopt.findings import Finding, Level, error, warning
from baton.adopt.needs import APPROVE_SETTING, RECORD_SECRET
from baton.errors import BatonError
from baton.github.tracker import ActionsSettings
from baton.workflow.checks import proof_notes
from baton.workflow.config import Settings, parse_config
from baton.workflow.sources import WorkflowFileReader

_SETTINGS = "Settings → Actions → General"


def check_secrets(names: list[str], passed: tuple[str, ...], *, inherit: bool) -> list[Finding]:
    """Each secret the workflow passes exists; the record's secret is passed at all."""
    have = {name.upper() for name in names}
    wanted = list(passed) if not inherit else [RECORD_SECRET]
    found = [
        error(
            f"the workflow passes the secret {name}, which the repository does not have",
            ("openssl rand -hex 32 | " if name == RECORD_SECRET else "") + f"gh secret set {name}",
        )
        for name in wanted
        if name.upper() not in have
    ]
    if not inherit and RECORD_SECRET not in passed:
        found.append(
            warning(
                f"the workflow does not pass {RECORD_SECRET}, so Baton's record is not signed",
                f"add `{RECORD_SECRET}: ${{{{ secrets.{RECORD_SECRET} }}}}` under the job's "
                "`secrets:`",
            )
        )
    return found


def check_actions(settings: ActionsSettings, *, pull_requests: bool) -> list[Finding]:
    """Actions run here, may call a workflow of another repository, and (when Baton opens
    pull requests) may create them."""
    if not settings.enabled:
        return [
            error("GitHub Actions are disabled for this repository", f"enable them: {_SETTINGS}")
        ]
    found = []
    if settings.allowed_actions == "local_only":
        found.append(
            error(
                "this repository allows only its own actions and workflows, so it cannot call "
                "Baton's reusable workflow",
                f"allow Baton's repository: {_SETTINGS} → Actions permissions",
            )
        )
    elif settings.allowed_actions == "selected":
        found.append(
            warning(
                "this repository allows only selected actions and workflows",
                f"make sure Baton's repository is among them: {_SETTINGS} → Actions permissions",
            )
        )
    if pull_requests and settings.can_approve_pull_request_reviews is False:
        found.append(
            error(
                f'"{APPROVE_SETTING}" is off, so GitHub refuses Baton\'s pull request (403)',
                f'turn it on: {_SETTINGS} → Workflow permissions → "{APPROVE_SETTING}"',
            )
        )
    return found


def check_config(
    path: str, text: str | None, read_file: WorkflowFileReader | None = None
) -> tuple[list[Finding], Settings | None]:
    """The config read as Baton reads it (a workflow file it names by `read_file`); absent
    means the defaults."""
    if text is None:
        return [], None
    try:
        settings = parse_config(text, source=path, read_file=read_file)
    except BatonError as exc:
        first, *rest = str(exc).splitlines() or [""]
        more = f" (and {len(rest)} more)" if rest else ""
        where = "" if first.startswith(path) else f"{path}: "
        fix = f"baton validate --config {path} lists every problem"
        return [error(f"{where}{first}{more}", fix)], None
    return [], settings


def evidence_notes(settings: Settings) -> list[Finding]:
    """What moves the issue's states, as `baton validate` says it: with `tests:` and proof
    states, the tests' evidence; otherwise the agents' reports (docs/evidence.md). One note."""
    notes = proof_notes(settings.workflow, settings.config.tests, settings.workflows.values())
    fix = "add `tests:` to the config (docs/evidence.md)" if settings.config.tests is None else ""
    return [Finding(level=Level.note, what="; ".join(notes), fix=fix)] if notes else []


def _status_labels(settings: Settings) -> list[str]:
    """Every status label of the workflows in use, which Baton creates when it first uses one."""
    prefix = settings.policy.label_prefix
    labels = [
        workflow.label_for(state, prefix)
        for workflow in settings.workflows.values()
        for state in workflow.states
    ]
    return list(dict.fromkeys(labels))


def _listed(labels: list[str]) -> str:
    return ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")


def check_labels(names: list[str], settings: Settings) -> list[Finding]:
    """The labels a human adds (the trigger label; the epic's) exist, so they can be picked;
    a missing status label is only news, as Baton creates it."""
    have = {name.casefold() for name in names}
    policy = settings.policy
    found = []
    human = [policy.trigger_label] if policy.trigger_label else []
    human += [policy.epics.label] if policy.epics.enabled else []
    for label in human:
        if label.casefold() not in have:
            found.append(
                warning(
                    f"the label {label} does not exist, so nobody can pick it from the list",
                    f"gh label create {label}",
                )
            )
    lacking = [label for label in _status_labels(settings) if label.casefold() not in have]
    if lacking:
        found.append(
            warning(
                f"{len(lacking)} status labels do not exist yet: {_listed(lacking)}",
                "nothing to do: Baton creates each one, with its colour, the first time it is used",
            )
        )
    return found
