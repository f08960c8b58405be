"""`baton run` for an event that is certainly ignored, before pydantic, click or PyGithub load.

The inputs are read by `action.inputs`, the same reader the full path's `ActionEnv` uses, and
the config raw (PyYAML only); a bad input or anything out of the ordinary in the config returns
None, and the full path validates it and reports problems properly. The rules themselves are
`core.rules.triage`'s. A payload triaged here and found to matter is not triaged again: the
full path is told so (`Triage.passed`), so each run triages its payload once.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from baton.action import inputs
from baton.core.rules.triage import Machine, View, quick_reason
from baton.names import BOT_LOGIN, BRANCH_PREFIX

# `epics:` as `EpicSettings` defaults it: the marker labels and the presets they choose.
EPIC_DEFAULTS = {
    "enabled": True,
    "label": "baton:epic",
    "task_label": "baton:task",
    "workflow": "feature-epic",
    "task_workflow": "epic-task",
}
# The other `epics:` settings: the full path validates them; triage does not read them.
EPIC_NUMBERS = frozenset(
    {"max_parallel", "max_tasks", "breaker_threshold", "warn_turns", "max_turns", "categories"}
)


# What the full path caps and refuses in Baton's own files (`workflow.yaml_source`): a config
# past the cap, or one with an anchor or alias (`&a`, `*a` where a node starts), steps aside,
# since an alias repeated inside an alias is read once here but walked exponentially below.
MAX_CONFIG = 256 * 1024
ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,])[&*][^\s,\[\]{}]")


def _yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open("rb") as handle:
        raw = handle.read(MAX_CONFIG + 1)
    text = raw.decode("utf-8")
    if len(raw) > MAX_CONFIG or ANCHOR_OR_ALIAS.search(text):
        raise ValueError(f"{path}: for the full path to judge")
    return yaml.load(text, Loader=loader)


# The presets beside `baton.workflow`'s modules, found without `importlib.resources` (a tenth
# of the fast path's imports); `workflow.model` reads the same files through it.
PRESETS = Path(__file__).resolve().parent.parent / "workflow" / "presets"


def _preset(name: str) -> Any:
    target = PRESETS / f"{name}.yml"
    if not target.is_file():
        return None
    return _yaml(target)


def _machine(definition: Any, prefix: str) -> Machine | None:
    """A workflow's status labels as written, or None if they are out of the ordinary."""
    states = definition.get("states") if isinstance(definition, dict) else None
    if not isinstance(states, dict):
        return None
    kinds: dict[str, str] = {}
    agents: dict[str, str] = {}
    converses: set[str] = set()
    for state, spec in states.items():
        if not isinstance(spec, dict):
            return None
        label = str(spec.get("label") or prefix + str(state).replace("_", "-")).casefold()
        kinds[label] = str(spec.get("kind"))
        agents[label] = str(spec.get("agent") or "agent")
        if spec.get("converses") is True:
            converses.add(label)
    return Machine(kinds=kinds, agents=agents, converses=frozenset(converses))


def _epics(
    config: dict[str, Any], prefix: str, trigger: str | None, main: dict[str, Any]
) -> tuple[tuple[str, ...], dict[str, Machine]] | None:
    """The marker labels (the task's first) and the machines of the workflows they choose, as
    `Settings.for_labels` reads `epics:`; None wherever the full path would refuse it."""
    raw = config.get("epics") or {}
    if not isinstance(raw, dict) or not set(raw) <= EPIC_DEFAULTS.keys() | EPIC_NUMBERS:
        return None
    epics = {**EPIC_DEFAULTS, **raw}
    if not isinstance(epics["enabled"], bool):
        return None
    if not epics["enabled"]:
        return (), {}
    names = [epics[key] for key in ("label", "task_label", "workflow", "task_workflow")]
    if not all(isinstance(name, str) and name for name in names):
        return None
    label, task_label = epics["label"].casefold(), epics["task_label"].casefold()
    if label == task_label or any(m.startswith(prefix.casefold()) for m in (label, task_label)):
        return None
    if trigger is not None and trigger.casefold() in {label, task_label}:
        return None
    machines: dict[str, Machine] = {}
    for marker, key, role in ((task_label, "task_workflow", "task"), (label, "workflow", "epic")):
        name = epics[key]
        preset = _preset(name)
        if not isinstance(preset, dict) or preset.get("role", "issue") != role:
            return None  # unknown, or a preset for another role: the full path refuses it
        machine = _machine(main if main.get("name") == name else preset, prefix)
        if machine is None:
            return None
        machines[marker] = machine
    return (task_label, label), machines


def raw_view(env: Mapping[str, str]) -> View | None:
    """The view from the inputs and the config file as written, or None if anything is out of
    the ordinary (the full path then validates both and reports problems properly)."""
    given = inputs.read(env)
    if given.problems:
        return None  # a bad input: the full path refuses it with its one-line error
    config_path = Path(given.config)
    try:
        config = _yaml(config_path) if config_path.is_file() else None
    except Exception:
        return None
    if config is None:
        if given.config_given:
            return None  # an explicit config that is missing: the full path reports it
        config = {}
    if not isinstance(config, dict):
        return None
    entry = config.get("entry") or {}
    workflow = config.get("workflow", "issue-lifecycle")
    try:
        definition = _preset(workflow) if isinstance(workflow, str) else workflow
    except Exception:
        return None
    if not isinstance(definition, dict) or not isinstance(entry, dict):
        return None
    prefix = config.get("label_prefix", "status:")
    words = config.get("approval_words", ["approved"])
    if not (isinstance(prefix, str) and isinstance(words, list)):
        return None
    machine = _machine(definition, prefix)
    trigger = entry.get("trigger_label", "baton")
    if machine is None or not (trigger is None or isinstance(trigger, str)):
        return None
    try:
        epics = _epics(config, prefix, trigger or None, definition)
    except Exception:
        return None
    if epics is None:
        return None
    work = config.get("work") or {}
    branch_prefix = work.get("branch_prefix", BRANCH_PREFIX) if isinstance(work, dict) else None
    if not isinstance(branch_prefix, str):
        return None
    return View(
        bot_login=given.text("bot_login", BOT_LOGIN),
        label_prefix=prefix,
        trigger_label=str(trigger) if trigger else None,
        pull_requests=bool(config.get("pull_requests", False)),
        enter_on_open=bool(entry.get("on_open", False)),
        allow_edited_approvals=bool(config.get("allow_edited_approvals", False)),
        approval_words=tuple(str(w).strip().lower() for w in words),
        branch_prefix=branch_prefix,
        machine=machine,
        markers=epics[0],
        machines=epics[1],
    )


class Triage(NamedTuple):
    """What the fast path made of the payload: `exit_code` when it is certainly ignored (the
    run ends with it), else whether triage ran and found it may matter (`passed`: the full
    path does not triage it again), or could not run (the full path triages it)."""

    exit_code: int | None = None
    passed: bool = False


def triage(env: Mapping[str, str] | None = None) -> Triage:
    """`baton run`'s one triage of its payload, before anything heavy is imported: an event
    certainly ignored gets its outputs and summary here (exit 0)."""
    env = os.environ if env is None else env
    given = inputs.read(env)
    name, path = given.text("event_name"), given.values.get("event_path")
    if given.problems or not name or not isinstance(path, Path):
        return Triage()
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Triage()
    view = raw_view(env) if isinstance(payload, dict) else None
    if view is None:
        return Triage()
    reason = quick_reason(name, payload, view)
    if reason is None:
        return Triage(passed=True)
    from baton.action.outputs import ignored

    issue = payload.get("issue")
    number = issue.get("number") if isinstance(issue, Mapping) else None
    ignored(env, reason, number if isinstance(number, int) else None)
    return Triage(exit_code=0)


def quick_run(env: Mapping[str, str] | None = None) -> int | None:
    """`baton run` for an event that is certainly ignored: outputs, summary, exit 0.
    None means the event may matter and the full path must run."""
    return triage(env).exit_code
