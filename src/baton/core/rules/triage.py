"""Which events can matter, decided from the payload alone — before any API call.

Most events a repository sends Baton are nothing to it: a push, a bot's comment, a label that
is not a status label, a comment on an issue outside the workflow, or a plain comment while an
agent holds the baton. This module says so from the payload and the settings, with the
standard library only: `baton run` asks it (through `action.fast_path`) before importing
pydantic, click or PyGithub, so an ignored event costs no API call and little more than an
interpreter start. The typed path (`run.handle`) asks the same questions through
`event_reason`, and both read the label and bot predicates from `core.rules.labels`, their one home.

A comment's command is read once per event, where the event is made
(`core.model.events.commented`); the typed path reads it there (`Commented.command`). The
payload path runs before pydantic is imported, so it cannot make the event: it calls the same one
function, `core.model.commands.parse_command`, itself (the only other caller the architecture
test allows), and only when the answer matters (a plain comment while an agent works); that
function keeps its last answer, so the event made next from the same comment is not parsed again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from baton.core.model.commands import parse_command
from baton.core.rules.labels import is_bot, is_ours, status_labels
from baton.names import BOT_LOGIN, BRANCH_PREFIX, issue_of_branch

if TYPE_CHECKING:
    from baton.core.model.events import Event
    from baton.workflow.config import Policy
    from baton.workflow.model import Workflow

# The events of the issue's branch and pull request, and the one action of each Baton reads.
WORK_EVENTS = {
    "pull_request_review": "submitted",
    "pull_request": "closed",
    "check_suite": "completed",
    "workflow_run": "completed",
}
# A repository_dispatch can be sent by any write user: it may ask for a run on an issue, never
# stand in for an agent's report (which only `baton report` applies, after its checks).
DISPATCHED_RESULT = (
    "a repository_dispatch cannot report an agent's result: results reach Baton only through "
    "`baton report`, which checks them against the issue's record"
)
HANDLED_EVENTS = frozenset(
    {"issues", "issue_comment", "workflow_dispatch", "repository_dispatch", "schedule"}
    | WORK_EVENTS.keys()
)
WEIGHTY_REVIEWS = frozenset({"approved", "changes_requested"})


# Named tuples, not dataclasses: `dataclasses` imports `inspect`, a tenth of an ignored run's
# imports. Immutable like a frozen dataclass; the empty mappings are read-only.
NOTHING: Mapping[str, Any] = MappingProxyType({})


class Machine(NamedTuple):
    """One workflow's status labels as triage reads them, each casefolded."""

    kinds: Mapping[str, str] = NOTHING  # label -> state kind
    agents: Mapping[str, str] = NOTHING  # label -> agent
    converses: frozenset[str] = frozenset()  # work states whose agent talks with the humans


class View(NamedTuple):
    """The few settings triage needs; built from the typed settings or read raw from files.

    `machine` is the configured workflow's; an issue carrying a marker label (the task's first,
    then the epic's, as `Settings.for_labels` chooses) runs the workflow `machines` holds for
    that marker, and one with a marker but no machine known is never ignored."""

    bot_login: str = BOT_LOGIN
    label_prefix: str = "status:"
    trigger_label: str | None = "baton"
    pull_requests: bool = False
    enter_on_open: bool = False
    allow_edited_approvals: bool = False
    approval_words: tuple[str, ...] = ("approved",)
    branch_prefix: str = BRANCH_PREFIX
    machine: Machine = Machine()
    markers: tuple[str, ...] = ()  # casefolded: the task label, the epic label (epics on)
    machines: Mapping[str, Machine] = NOTHING  # marker -> its workflow's

    def machine_for(self, labels: Iterable[str]) -> Machine | None:
        """The machine of the workflow an issue with `labels` runs; None: not known here."""
        names = {label.casefold() for label in labels}
        for marker in self.markers:
            if marker in names:
                return self.machines.get(marker)
        return self.machine


# The conclusions of CI on Baton's branch that send the work back (`action_required` is a run
# awaiting a maintainer's approval, `cancelled` one stopped: neither is the change's fault). A
# held run never approved ends `failure` with no job run: the check runs tell it apart.
FAILED_CONCLUSIONS = frozenset({"failure", "timed_out", "startup_failure"})


def machine_of(workflow: Workflow, prefix: str) -> Machine:
    labels = {state: workflow.label_for(state, prefix).casefold() for state in workflow.states}
    return Machine(
        kinds={labels[s]: spec.kind.value for s, spec in workflow.states.items()},
        agents={labels[s]: spec.agent or "agent" for s, spec in workflow.states.items()},
        converses=frozenset(labels[s] for s, spec in workflow.states.items() if spec.converses),
    )


def view_of(
    workflow: Workflow, policy: Policy, workflows: Mapping[str, Workflow] | None = None
) -> View:
    """The view from validated settings (the typed path): pass `Settings.workflows` so that
    an epic's and a task's comments are judged by their own workflow (without them, an issue
    carrying a marker label is never ignored)."""
    epics, prefix = policy.epics, policy.label_prefix
    machines = {}
    if epics.enabled and workflows is not None:
        for marker, name in (
            (epics.task_label, epics.task_workflow),
            (epics.label, epics.workflow),
        ):
            if name in workflows:
                machines[marker.casefold()] = machine_of(workflows[name], prefix)
    return View(
        bot_login=policy.bot_login,
        label_prefix=policy.label_prefix,
        trigger_label=policy.trigger_label,
        pull_requests=policy.pull_requests,
        enter_on_open=policy.enter_on_open,
        allow_edited_approvals=policy.allow_edited_approvals,
        approval_words=policy.approval_words,
        branch_prefix=policy.work.branch_prefix,
        machine=machine_of(workflow, prefix),
        markers=tuple(marker.casefold() for marker in policy.markers),
        machines=machines,
    )


def event_reason(event: Event, view: View) -> str | None:
    """`quick_reason` for an already typed event (the demo, simulate and the report path)."""
    if event.issue.partial:
        return None
    if event.kind == "issue":
        return issue_reason(event.action, event.issue.labels, view)
    if event.kind == "comment":
        command = event.command
        return comment_reason(event.issue.labels, lambda: command is not None, event.edited, view)
    return None


def issue_reason(action: str, labels: Iterable[str], view: View) -> str | None:
    """Issue opened/reopened/closed/edited: worth reading the issue only in these cases."""
    if action == "opened":
        return None if view.enter_on_open else "opened: entry is by label (config entry)"
    if action == "reopened":
        return None if status_labels(labels, view.label_prefix) else "reopened outside the workflow"
    return f"issue {action}: nothing to act on"


def comment_reason(
    labels: Iterable[str], has_command: Callable[[], bool], edited: bool, view: View
) -> str | None:
    """A comment matters only on an issue in the workflow, and then only when its state can
    take a human's words (a waiting or escalated state, or a dialogue: a state that
    `converses`) or it carries a command (`has_command`, asked only then)."""
    labels = list(labels)
    found = status_labels(labels, view.label_prefix)
    if not found:
        return "a comment on an issue that is not in the workflow"
    machine = view.machine_for(labels)
    if machine is None:
        return None  # an epic's or a task's workflow this view does not know: read it
    label = found[0].casefold()
    if len(found) > 1 or label not in machine.kinds:
        return None  # drift: let the full run read the record and repair it
    if edited and not view.allow_edited_approvals:
        return "an edited comment does not count (config allow_edited_approvals)"
    kind = machine.kinds[label]
    talks = label in machine.converses
    if kind == "work" and not talks and not has_command():
        agent = machine.agents.get(label, "agent")
        return f"a comment with no command while the {agent} works"
    return None


# --- the issue's branch and pull request ----------------------------------------------------
def _full_name(repository: Any) -> str | None:
    name = repository.get("full_name") if isinstance(repository, Mapping) else None
    return name if isinstance(name, str) else None


def work_event_reason(name: str, payload: Mapping[str, Any], view: View) -> str | None:
    """A reason to ignore an event of a branch or pull request from its payload alone: another
    action, a branch that is not Baton's, a fork, a review that carries no weight by its kind
    or author. None when it may matter, or when the payload is malformed (the full path then
    refuses it with a clear error). `webhooks.parse` asks this first, so both paths agree."""
    action = payload.get("action")
    if action != WORK_EVENTS[name]:
        return f"{name}.{action or '?'} is not an event Baton acts on"
    repository = _full_name(payload.get("repository"))
    if name in {"pull_request_review", "pull_request"}:
        pull = payload.get("pull_request")
        head = pull.get("head") if isinstance(pull, Mapping) else None
        ref = head.get("ref") if isinstance(head, Mapping) else None
        if not isinstance(pull, Mapping) or not isinstance(head, Mapping):
            return None
        if not isinstance(ref, str):
            return None
        if issue_of_branch(view.branch_prefix, ref) is None:
            return f"branch {ref!r} is not one of Baton's"
        source = _full_name(head.get("repo"))
        if source != repository:
            return f"pull request #{pull.get('number')} comes from a fork ({source or 'deleted'})"
        if name == "pull_request_review":
            review = payload.get("review")
            if not isinstance(review, Mapping):
                return None
            verdict = str(review.get("state") or "").lower()
            if verdict not in WEIGHTY_REVIEWS:
                return (
                    f"a {verdict or '?'} review moves nothing: only an approval or requested "
                    "changes do"
                )
            user = review.get("user")
            if isinstance(user, Mapping) and is_bot(user, view.bot_login):
                return f"review by bot {user.get('login')}"
        return None
    key = "check_suite" if name == "check_suite" else "workflow_run"
    run = payload.get(key)
    if not isinstance(run, Mapping):
        return None
    branch = run.get("head_branch")
    if branch is None:
        return f"{name} with no head branch (a fork's or a tag's): not Baton's"
    if not isinstance(branch, str):
        return None
    if issue_of_branch(view.branch_prefix, branch) is None:
        return f"branch {branch!r} is not one of Baton's"
    conclusion = run.get("conclusion")
    if isinstance(conclusion, str) and conclusion.lower() not in FAILED_CONCLUSIONS:
        # Passing, neutral, skipped, cancelled, awaiting approval: nothing for Baton to do.
        return f"{name} concluded {conclusion} on {branch}: only failing checks move an issue"
    if name == "check_suite" and run.get("latest_check_runs_count") == 0:
        # A suite no check ran in: a run held for approval that ended unapproved ends so.
        return (
            f"check_suite concluded {conclusion} on {branch} with no check run: no job ran, "
            "nothing to fix"
        )
    if name == "workflow_run":
        source = _full_name(run.get("head_repository"))
        if source != repository:
            return f"a workflow run from a fork ({source or 'deleted'})"
    return None


# --- a whole payload -----------------------------------------------------------------------
def _labels(issue: Mapping[str, Any]) -> list[str] | None:
    """The label names, or None when the payload's labels are not a list (the full path then
    refuses the payload with a clear error)."""
    raw = issue.get("labels")
    if raw is None:
        return []
    if not isinstance(raw, list):
        return None
    return [str(x.get("name")) if isinstance(x, Mapping) else str(x) for x in raw]


def quick_reason(name: str, payload: Mapping[str, Any], view: View) -> str | None:
    """A reason to ignore the event without any API call, or None when it may matter.

    Conservative: anything unusual (a malformed payload included) returns None, so the full
    path decides and reports it."""
    if name not in HANDLED_EVENTS:
        return f"event {name!r} is not one Baton handles"
    if name == "schedule":
        return None
    if name == "repository_dispatch":
        sent = payload.get("client_payload")
        return DISPATCHED_RESULT if isinstance(sent, Mapping) and "result" in sent else None
    if name in WORK_EVENTS:
        return work_event_reason(name, payload, view)
    if name == "workflow_dispatch":
        inputs = payload.get("inputs")
        issue = inputs.get("issue") if isinstance(inputs, Mapping) else None
        return None if issue not in (None, "") else "workflow_dispatch without an `issue` input"
    issue = payload.get("issue")
    if not isinstance(issue, Mapping):
        return None
    labels = _labels(issue)
    if labels is None:
        return None
    action = str(payload.get("action", ""))
    if name == "issues":
        sender = payload.get("sender")
        if isinstance(sender, Mapping) and is_bot(sender, view.bot_login):
            return f"issue {action} by bot {sender.get('login')}"
        if action in {"labeled", "unlabeled"}:
            label = payload.get("label")
            label_name = str(label.get("name", "")) if isinstance(label, Mapping) else ""
            ours = is_ours(label_name, view.label_prefix, view.trigger_label, view.markers)
            if label_name and not ours:
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
    body = str(comment.get("body") or "")

    def has_command() -> bool:
        return parse_command(body, view.approval_words).common is not None

    return comment_reason(labels, has_command, action == "edited", view)
