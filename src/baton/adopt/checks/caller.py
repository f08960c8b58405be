"""The workflow that calls Baton's reusable one: found, pinned, started by the events Baton
acts on, dispatchable with the `issue` input, granting what Baton's jobs need."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from baton.adopt.findings import Finding, error, warning
from baton.adopt.needs import (
    CALLER_PATH,
    DISPATCH_INPUT,
    HANDOVER_INPUTS,
    PERMISSIONS,
    REUSABLE_WORKFLOW,
    TRIGGERS,
    WORKFLOWS_DIR,
)
from baton.errors import YamlRefused
from baton.names import CONFIG_PATH
from baton.workflow.yaml_source import load_bounded

_SHA = re.compile(r"[0-9a-f]{40}")
_SECRET = re.compile(r"\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@dataclass(frozen=True)
class Caller:
    """The calling workflow as far as the other checks need it."""

    path: str
    secrets: tuple[str, ...] = ()  # repository secrets it passes to Baton
    inherit: bool = False  # `secrets: inherit`
    config: str = CONFIG_PATH  # the `config` input
    findings: list[Finding] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)  # the job's `with:`


def _calls_baton(job: Any) -> bool:
    uses = job.get("uses") if isinstance(job, dict) else None
    return isinstance(uses, str) and f"/.github/workflows/{REUSABLE_WORKFLOW}@" in uses


def _load(text: str) -> dict[Any, Any] | None:
    """A workflow's document; None when it is not a YAML mapping (GitHub cannot run it), or
    too large or its aliases expand too far to read (`_refusal` says which)."""
    try:
        data = load_bounded(text)
    except (yaml.YAMLError, YamlRefused):
        return None
    return data if isinstance(data, dict) else None


def _refusal(text: str) -> str | None:
    """Why a workflow is not read at all, beyond not being a mapping: its size, its aliases."""
    try:
        load_bounded(text)
    except YamlRefused as exc:
        return str(exc)
    except yaml.YAMLError:
        return None
    return None


def find(workflows: Mapping[str, str]) -> tuple[str, dict[Any, Any], str, dict[str, Any]] | None:
    """The first workflow (by path) with a job calling Baton's reusable workflow: its path,
    its document, the job's id and the job."""
    for path in sorted(workflows):
        data = _load(workflows[path]) or {}
        jobs = data.get("jobs")
        for job_id, job in jobs.items() if isinstance(jobs, dict) else ():
            if _calls_baton(job):
                return path, data, str(job_id), job
    return None


def _triggers(data: dict[Any, Any]) -> dict[str, set[str] | None]:
    """`on:` as event -> its types (None: every type). PyYAML reads the key `on` as True."""
    on = data.get("on", data.get(True))
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {str(event): None for event in on}
    found: dict[str, set[str] | None] = {}
    for event, spec in (on or {}).items() if isinstance(on, dict) else ():
        types = spec.get("types") if isinstance(spec, dict) else None
        if isinstance(types, str):
            types = [types]
        found[str(event)] = set(map(str, types)) if isinstance(types, list) else None
    return found


def _trigger_findings(path: str, data: dict[Any, Any]) -> list[Finding]:
    found, triggers = [], _triggers(data)
    for event, (types, why) in TRIGGERS.items():
        listed = ", ".join(sorted(types)) if types else ""
        paste = f"{event}: {{types: [{listed}]}}" if types else f"{event}:"
        if event not in triggers:
            found.append(
                error(f"{path} is not started by `{event}` ({why})", f"add `{paste}` under `on:`")
            )
            continue
        has = triggers[event]
        missing = sorted(types - has) if types and has is not None else []
        if missing:
            found.append(
                error(
                    f"{path}: `{event}` lacks the types {', '.join(missing)} ({why})",
                    f"list them: `{paste}`",
                )
            )
    on = data.get("on", data.get(True))
    dispatch = on.get("workflow_dispatch") if isinstance(on, dict) else None
    inputs = dispatch.get("inputs") if isinstance(dispatch, dict) else None
    if "workflow_dispatch" in triggers and not (
        isinstance(inputs, dict) and DISPATCH_INPUT in inputs
    ):
        found.append(
            error(
                f"{path}: `workflow_dispatch` has no `{DISPATCH_INPUT}` input, which Baton "
                "dispatches the next agent's run with",
                f"add `inputs: {{{DISPATCH_INPUT}: {{required: true, type: string}}}}` under "
                "`workflow_dispatch:`",
            )
        )
    elif "workflow_dispatch" in triggers:
        found.extend(_handover_inputs(path, inputs or {}))
    return found


def _handover_inputs(path: str, inputs: dict[Any, Any]) -> list[Finding]:
    """A warning for the hand-over's inputs the caller lacks: Baton's dispatch then falls
    back to the issue alone (GitHub refuses unexpected inputs), and a `baton` job first."""
    missing = [name for name in HANDOVER_INPUTS if name not in inputs]
    if not missing:
        return []
    names = " and ".join(f"`{name}`" for name in missing)
    paste = ", ".join(f"{name}: {{description: {HANDOVER_INPUTS[name]}}}" for name in missing)
    return [
        warning(
            f"{path}: `workflow_dispatch` has no {names} input, so each hand-off starts a "
            "`baton` job to name the agent (three jobs instead of two)",
            f"add `{paste}` beside `{DISPATCH_INPUT}`",
        )
    ]


def _granted(value: Any) -> dict[str, str] | None:
    """A `permissions:` value as scope -> level; None when it is not set."""
    if value is None:
        return None
    if value == "write-all":
        return dict.fromkeys(PERMISSIONS, "write")
    if value == "read-all":
        return dict.fromkeys(PERMISSIONS, "read")
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _permission_findings(path: str, data: dict[Any, Any], job_id: str, job: Any) -> list[Finding]:
    granted = _granted(job.get("permissions"))
    if granted is None:
        granted = _granted(data.get("permissions"))
    wanted = ", ".join(f"{scope}: {level}" for scope, level in PERMISSIONS.items())
    if granted is None:
        return [
            error(
                f"{path}: job `{job_id}` sets no `permissions:`, so Baton's token gets the "
                "repository's default",
                f"give the job `permissions: {{{wanted}}}`",
            )
        ]
    short = [
        f"{scope}: {level}"
        for scope, level in PERMISSIONS.items()
        if granted.get(scope) not in ({"write"} if level == "write" else {"read", "write"})
    ]
    if not short:
        return []
    return [
        error(
            f"{path}: job `{job_id}` does not grant {', '.join(short)}, which Baton's jobs need",
            f"give the job `permissions: {{{wanted}}}`",
        )
    ]


def check_caller(workflows: Mapping[str, str] | None) -> Caller | None:
    """The caller and its findings; None when no workflow calls Baton (`missing` says so)."""
    found = find(workflows or {})
    if found is None:
        return None
    path, data, job_id, job = found
    findings = []
    uses = str(job["uses"])
    ref = uses.rpartition("@")[2]
    if not _SHA.fullmatch(ref):
        findings.append(
            error(
                f"{path}: `uses: {uses}` is not pinned to a commit (a tag or branch can move)",
                f"pin the release's commit: `uses: {uses.rpartition('@')[0]}@<40 hex digits> "
                f"# {ref}`",
            )
        )
    findings += _trigger_findings(path, data)
    findings += _permission_findings(path, data, job_id, job)
    secrets = job.get("secrets")
    passed = (
        tuple(dict.fromkeys(_SECRET.findall(" ".join(map(str, secrets.values())))))
        if isinstance(secrets, dict)
        else ()
    )
    given = job.get("with")
    inputs = {str(k): v for k, v in given.items()} if isinstance(given, dict) else {}
    config = str(inputs.get("config") or CONFIG_PATH)
    return Caller(path, passed, secrets == "inherit", config, findings, inputs)


def missing(workflows: Mapping[str, str] | None) -> Finding:
    """The finding when no workflow calls Baton's reusable workflow."""
    read = f" ({len(workflows)} read)" if workflows else ""
    return error(
        f"no workflow in {WORKFLOWS_DIR} calls Baton's reusable workflow "
        f"({REUSABLE_WORKFLOW}){read}",
        f"run `baton init` and commit {CALLER_PATH}",
    )


def unparsed(workflows: Mapping[str, str]) -> list[Finding]:
    """A workflow file that is not a YAML mapping (GitHub shows it as failing too), or that
    Baton does not read: over WORKFLOW_FILE_LIMIT bytes, or aliases expanding past a bound."""
    found = []
    for path in sorted(workflows):
        if _load(workflows[path]) is not None:
            continue
        refused = _refusal(workflows[path])
        if refused:
            found.append(warning(f"{path}: not read: {refused}"))
        else:
            found.append(warning(f"{path} is not a YAML mapping, so GitHub cannot run it"))
    return found
