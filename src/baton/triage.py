"""Which events can matter, decided from the payload alone — before any API call.

Most events a repository sends Baton are nothing to it: a push, a bot's comment, a label that
is not a status label, a comment on an issue outside the workflow, or a plain comment while an
agent holds the baton. This module says so from the payload and the config, with the standard
library and PyYAML only: `baton run` calls it before importing pydantic, click or PyGithub, so
an ignored event costs no API call and little more than an interpreter start. The typed path
(`events.parse`, then `run.handle`) uses the same predicates, so the rules live here once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baton.commands import parse_command

if TYPE_CHECKING:
    from baton.config import Policy
    from baton.events import Event
    from baton.workflow import Workflow

HANDLED_EVENTS = frozenset(
    {"issues", "issue_comment", "workflow_dispatch", "repository_dispatch", "schedule"}
)
DEFAULT_BOT = "github-actions[bot]"
DEFAULT_CONFIG = ".github/baton.yml"


@dataclass(frozen=True)
class View:
    """The few settings triage needs; built from the typed settings or read raw from files."""

    bot_login: str = DEFAULT_BOT
    label_prefix: str = "status:"
    trigger_label: str | None = "baton"
    pull_requests: bool = False
    enter_on_open: bool = False
    allow_edited_approvals: bool = False
    approval_words: tuple[str, ...] = ("approved",)
    kinds: Mapping[str, str] = field(default_factory=dict)  # casefolded label -> state kind
    agents: Mapping[str, str] = field(default_factory=dict)  # casefolded label -> agent


def view_of(workflow: Workflow, policy: Policy) -> View:
    """The view from validated settings (the typed path)."""
    labels = {
        state: workflow.label_for(state, policy.label_prefix).casefold()
        for state in workflow.states
    }
    return View(
        bot_login=policy.bot_login,
        label_prefix=policy.label_prefix,
        trigger_label=policy.trigger_label,
        pull_requests=policy.pull_requests,
        enter_on_open=policy.enter_on_open,
        allow_edited_approvals=policy.allow_edited_approvals,
        approval_words=policy.approval_words,
        kinds={labels[s]: spec.kind.value for s, spec in workflow.states.items()},
        agents={labels[s]: spec.agent or "agent" for s, spec in workflow.states.items()},
    )


def event_reason(event: Event, view: View) -> str | None:
    """`quick_reason` for an already typed event (the demo, simulate and the report path)."""
    from baton.events import Commented, IssueChanged

    if event.issue.partial:
        return None
    if isinstance(event, IssueChanged):
        return issue_reason(event.action, event.issue.labels, view)
    if isinstance(event, Commented):
        return comment_reason(event.issue.labels, event.body, event.edited, view)
    return None


# --- the predicates ------------------------------------------------------------------------
def is_bot(user: Mapping[str, Any], bot_login: str) -> bool:
    login = str(user.get("login", ""))
    return (
        user.get("type") == "Bot"
        or login.casefold() == bot_login.casefold()
        or login.endswith("[bot]")
    )


def is_status(label: str, view: View) -> bool:
    return label.casefold().startswith(view.label_prefix.casefold())


def is_trigger(label: str, view: View) -> bool:
    return view.trigger_label is not None and label.casefold() == view.trigger_label.casefold()


def status_labels(labels: Iterable[str], view: View) -> list[str]:
    return [label for label in labels if is_status(label, view)]


def issue_reason(action: str, labels: Iterable[str], view: View) -> str | None:
    """Issue opened/reopened/closed/edited: worth reading the issue only in these cases."""
    if action == "opened":
        return None if view.enter_on_open else "opened: entry is by label (config entry)"
    if action == "reopened":
        return None if status_labels(labels, view) else "reopened outside the workflow"
    return f"issue {action}: nothing to act on"


def comment_reason(labels: Iterable[str], body: str, edited: bool, view: View) -> str | None:
    """A comment matters only on an issue in the workflow, and then only when its state can
    take a human's words (a waiting or escalated state) or it carries a command."""
    found = status_labels(labels, view)
    if not found:
        return "a comment on an issue that is not in the workflow"
    if len(found) > 1 or found[0].casefold() not in view.kinds:
        return None  # drift: let the full run read the record and repair it
    if edited and not view.allow_edited_approvals:
        return "an edited comment does not count (config allow_edited_approvals)"
    kind = view.kinds[found[0].casefold()]
    if kind == "work" and parse_command(body, view.approval_words) is None:
        agent = view.agents.get(found[0].casefold(), "agent")
        return f"a comment with no command while the {agent} works"
    return None


# --- a whole payload -----------------------------------------------------------------------
def _labels(issue: Mapping[str, Any]) -> list[str]:
    return [
        str(x.get("name")) if isinstance(x, Mapping) else str(x) for x in issue.get("labels") or []
    ]


def quick_reason(name: str, payload: Mapping[str, Any], view: View) -> str | None:
    """A reason to ignore the event without any API call, or None when it may matter.

    Conservative: anything unusual (a malformed payload included) returns None, so the full
    path decides and reports it."""
    if name not in HANDLED_EVENTS:
        return f"event {name!r} is not one Baton handles"
    if name == "schedule" or name == "repository_dispatch":
        return None
    if name == "workflow_dispatch":
        inputs = payload.get("inputs")
        issue = inputs.get("issue") if isinstance(inputs, Mapping) else None
        return None if issue not in (None, "") else "workflow_dispatch without an `issue` input"
    issue = payload.get("issue")
    if not isinstance(issue, Mapping):
        return None
    labels = _labels(issue)
    action = str(payload.get("action", ""))
    if name == "issues":
        sender = payload.get("sender")
        if isinstance(sender, Mapping) and is_bot(sender, view.bot_login):
            return f"issue {action} by bot {sender.get('login')}"
        if action in {"labeled", "unlabeled"}:
            label = payload.get("label")
            label_name = str(label.get("name", "")) if isinstance(label, Mapping) else ""
            if label_name and not (is_status(label_name, view) or is_trigger(label_name, view)):
                return f"label {label_name!r} is not one of Baton's"
            return None
        if action in {"opened", "reopened", "closed", "edited"}:
            return issue_reason(action, labels, view)
        return f"issues.{action or '?'} is not an event Baton acts on"
    comment = payload.get("comment")
    if not isinstance(comment, Mapping):
        return None
    if action not in {"created", "edited"}:
        return f"comment {action or '?'}: nothing to act on"
    if issue.get("pull_request") and not view.pull_requests:
        return "a comment on a pull request (config: pull_requests is off)"
    user = comment.get("user")
    if isinstance(user, Mapping) and is_bot(user, view.bot_login):
        return f"comment by bot {user.get('login')}"
    return comment_reason(labels, str(comment.get("body") or ""), action == "edited", view)


# --- the raw view, for `baton run` before any heavy import -------------------------------------
def _yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=loader)


def _preset(name: str) -> Any:
    from importlib import resources

    folder = resources.files("baton") / "workflows"
    target = folder / f"{name}.yml"
    if not target.is_file():
        return None
    return _yaml(Path(str(target)))


def raw_view(env: Mapping[str, str]) -> View | None:
    """The view from the config file as written, or None if anything is out of the ordinary
    (the full path then validates the config and reports problems properly)."""

    def read(key: str, default: str = "") -> str:
        for variant in (f"INPUT_{key.upper()}", f"INPUT_{key.upper().replace('-', '_')}"):
            if env.get(variant, "").strip():
                return env[variant].strip()
        return default

    config_path = Path(read("config", DEFAULT_CONFIG))
    try:
        config = _yaml(config_path) if config_path.is_file() else None
    except Exception:
        return None
    if config is None:
        if read("config") and read("config") != DEFAULT_CONFIG:
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
    states = definition.get("states")
    words = config.get("approval_words", ["approved"])
    if not (isinstance(prefix, str) and isinstance(states, dict) and isinstance(words, list)):
        return None
    kinds: dict[str, str] = {}
    agents: dict[str, str] = {}
    for state, spec in states.items():
        if not isinstance(spec, dict):
            return None
        label = str(spec.get("label") or prefix + str(state).replace("_", "-")).casefold()
        kinds[label] = str(spec.get("kind"))
        agents[label] = str(spec.get("agent") or "agent")
    trigger = entry.get("trigger_label", "baton")
    return View(
        bot_login=read("bot-login", DEFAULT_BOT),
        label_prefix=prefix,
        trigger_label=str(trigger) if trigger else None,
        pull_requests=bool(config.get("pull_requests", False)),
        enter_on_open=bool(entry.get("on_open", False)),
        allow_edited_approvals=bool(config.get("allow_edited_approvals", False)),
        approval_words=tuple(str(w).strip().lower() for w in words),
        kinds=kinds,
        agents=agents,
    )


def quick_run(env: Mapping[str, str] | None = None) -> int | None:
    """`baton run` for an event that is certainly ignored: outputs, summary, exit 0.
    None means the event may matter and the full path must run."""
    env = os.environ if env is None else env
    name, path = env.get("GITHUB_EVENT_NAME", ""), env.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        return None
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    view = raw_view(env) if isinstance(payload, dict) else None
    if view is None:
        return None
    reason = quick_reason(name, payload, view)
    if reason is None:
        return None
    from baton.workflow_commands import ignored

    issue = payload.get("issue")
    number = issue.get("number") if isinstance(issue, Mapping) else None
    ignored(env, reason, number if isinstance(number, int) else None)
    return 0
