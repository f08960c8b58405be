"""The reusable workflow's inputs that repeat the config. Its job filter reads them to start a
runner only for Baton's issues, so an input that disagrees with `.github/baton.yml` (a renamed
trigger label passed on to nobody) leaves Baton deaf to what the config says starts it. And the
agent the inputs name: a ready profile (`agent`) or a command line (`agent-command`), one of
the two unless the config's `agents.default` covers every role."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baton.adopt.checks.caller import Caller
from baton.adopt.findings import Finding, error, warning
from baton.workflow.agent_profiles import READY
from baton.workflow.config_model import Config

# input -> (the config's key, its value there); an absent input is the reusable workflow's
# default, which is the config's (a test holds the two equal).
MIRRORED: dict[str, tuple[str, Callable[[Config], Any]]] = {
    "trigger-label": ("entry.trigger_label", lambda c: c.entry.trigger_label),
    "enter-on-open": ("entry.on_open", lambda c: c.entry.on_open),
    "label-prefix": ("label_prefix", lambda c: c.label_prefix),
    "pull-requests": ("pull_requests", lambda c: c.pull_requests),
    "branch-prefix": ("work.branch_prefix", lambda c: c.work.branch_prefix),
    "epic-label": ("epics.label", lambda c: c.epics.label),
    "task-label": ("epics.task_label", lambda c: c.epics.task_label),
}
_EPICS = {"epic-label", "task-label"}


def _spelt(value: Any) -> str:
    """A value as YAML spells it under `with:` (booleans in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def check_inputs(caller: Caller, config: Config, config_path: str) -> list[Finding]:
    found = []
    defaults = Config()
    for name, (key, value_of) in MIRRORED.items():
        want = value_of(config)
        if want is None or (name in _EPICS and not config.epics.enabled):
            continue  # nothing for the filter to let through
        given = caller.inputs.get(name, value_of(defaults))
        if "${{" in str(given) or _spelt(given) == _spelt(want):
            continue  # an expression is the caller's to get right
        found.append(
            error(
                f"{caller.path}: the input `{name}` is {_spelt(given)!r}, but {config_path} "
                f"sets {key}: {_spelt(want)!r}; the job filter goes by the input",
                f"pass `{name}: {_spelt(want)}` under the job's `with:`",
            )
        )
    return found


def check_agent(caller: Caller, config: Config) -> list[Finding]:
    """The job's `with:` names one agent: a ready profile or a command line of its own."""
    ready, command = caller.inputs.get("agent"), caller.inputs.get("agent-command")
    ready = None if ready in (None, "") else str(ready)
    command = None if command in (None, "") else str(command)
    names = ", ".join(READY)
    if ready is not None and "${{" not in ready and ready not in READY:
        return [
            error(
                f"{caller.path}: the input `agent` is {ready!r}, which is no ready profile "
                f"({names})",
                "name one, e.g. `agent: claude-code`, or give your own `agent-command` instead",
            )
        ]
    if ready is not None and command is not None:
        return [
            error(
                f"{caller.path}: the job gives both `agent` ({ready}) and `agent-command`; "
                "the agent job stops on that",
                "keep one: the ready profile, or your own command line with its `agent-setup`",
            )
        ]
    if ready is not None and caller.inputs.get("agent-setup") not in (None, ""):
        return [
            warning(
                f"{caller.path}: `agent-setup` is not run with `agent` ({ready}): the ready "
                "profile installs its own CLI",
                "drop `agent-setup`, or give your own `agent-command` in place of `agent`",
            )
        ]
    if ready is None and command is None and config.agents.default is None:
        return [
            error(
                f"{caller.path}: the job names no agent (neither `agent` nor `agent-command`), "
                "and the config's agents.default does not name one for every role",
                f"pass a ready profile under the job's `with:`: `agent: claude-code` ({names})",
            )
        ]
    return []
