"""The fast path never ignores real work: for every preset and every setting triage reads,
whatever `quick_reason` ignores from the payload alone, the full path (parse, read, decide)
also leaves alone, writing nothing. And the view read raw from the config file is the view of
the validated settings, so both paths start from the same rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from baton import webhooks
from baton.action.fast_path import raw_view
from baton.core.model.events import Ignored, Sweep
from baton.core.rules.triage import quick_reason, view_of
from baton.run import handle
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from baton.workflow.model import preset_names

PRESETS = sorted(preset_names())
PEOPLE = {"maria": "maintain", "alice": "read", "bob": "read"}
BODIES = [
    "thanks!",
    "approved",
    "Approved — tests look good",
    "lgtm",
    "shipit",
    "not approved",
    "/retry please use commas",
    "/skip",
    "`approved`",
    "> approved",
]
SETTINGS = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {"workflow": draw(st.sampled_from(PRESETS))}
    if draw(st.booleans()):
        config["label_prefix"] = "stage/"
    if draw(st.booleans()):
        config["pull_requests"] = True
    if draw(st.booleans()):
        config["allow_edited_approvals"] = True
    if draw(st.booleans()):
        config["approval_words"] = ["lgtm", "shipit"]
    if draw(st.booleans()):
        config["work"] = {"branch_prefix": "agents/"}
    epics = draw(
        st.sampled_from(
            [None, None, {"enabled": False}, {"label": "Saga", "task_label": "chapter"}]
        )
    )
    if epics is not None:
        config["epics"] = epics
    entry: dict[str, Any] = {}
    if draw(st.booleans()):
        entry["on_open"] = True
    if draw(st.booleans()):
        entry["trigger_label"] = "go"
    if entry:
        config["entry"] = entry
    return config


def _settings(tmp: Path, config: dict[str, Any]) -> tuple[Settings, Any]:
    path = tmp / "baton.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return load_config(path), raw_view({"INPUT_CONFIG": str(path)})


def _user(login: str, bot: bool) -> dict[str, Any]:
    return {"login": login, "type": "Bot" if bot else "User"}


def _issue(gh: SimGitHub, number: int, pull_request: bool) -> dict[str, Any]:
    info = gh.issue(number)
    issue: dict[str, Any] = {
        "number": number,
        "title": info.title,
        "body": info.body,
        "state": info.state,
        "user": _user(info.author, False),
        "labels": [{"name": label} for label in info.labels],
        "author_association": "NONE",
    }
    if pull_request:
        issue["pull_request"] = {"url": "https://example.invalid/pulls/1"}
    return issue


@SETTINGS
@given(config=configs(), data=st.data())
def test_what_the_fast_path_ignores_the_full_path_leaves_alone(
    tmp_path_factory: Any, config: dict[str, Any], data: st.DataObject
) -> None:
    loaded, raw = _settings(tmp_path_factory.mktemp("cfg"), config)
    assert raw == view_of(loaded.workflow, loaded.policy, loaded.workflows)
    policy = loaded.policy
    gh = SimGitHub()
    for login, role in PEOPLE.items():
        gh.set_permission(login, role)
    number = gh.open_issue("A bug", "It breaks.", author="alice")
    # An epic or a task carries its marker label from the start; the run reads the workflow
    # its labels choose (`Settings.for_labels`), as `run.handle` does.
    marker = data.draw(st.sampled_from([None, None, *policy.markers]), label="marker")
    if marker is not None:
        gh.human_label(number, marker)
    typed = loaded.for_labels([marker] if marker else [])
    workflow = typed.workflow
    labels = [workflow.label_for(s, policy.label_prefix) for s in workflow.states]
    others = {
        w.label_for(s, policy.label_prefix) for w in loaded.workflows.values() for s in w.states
    }
    if data.draw(st.sampled_from([True, True, True, False]), label="in the workflow"):
        state_label = data.draw(st.sampled_from(labels), label="state")
        gh.human_label(number, state_label)
        entered = webhooks.parse(
            "issues",
            {
                "action": "labeled",
                "issue": _issue(gh, number, False),
                "label": {"name": state_label},
                "sender": _user("maria", False),
            },
            policy,
            now=gh.now,
        )
        assert not isinstance(entered, Ignored | Sweep)
        handle(entered, gh, typed)

    rarely = st.sampled_from([False, False, False, True])
    pull_request = data.draw(rarely, label="on a pull request")
    bot = data.draw(rarely, label="sent by a bot")
    who = data.draw(st.sampled_from(sorted(PEOPLE)), label="who")
    name = data.draw(st.sampled_from(["issues", "issue_comment"]), label="event")
    payload: dict[str, Any]
    if name == "issues":
        action = data.draw(
            st.sampled_from(["opened", "reopened", "closed", "edited", "labeled", "unlabeled"])
        )
        payload = {"action": action, "sender": _user(who, bot)}
        if action in {"labeled", "unlabeled"}:
            label = data.draw(
                st.sampled_from(
                    [
                        *labels,
                        *sorted(others),
                        *policy.markers,
                        "baton:epic",
                        "bug",
                        "baton",
                        "go",
                        f"{policy.label_prefix}nope",
                    ]
                ),
                label="label",
            )
            gh.human_label(number, label, add=action == "labeled")
            payload["label"] = {"name": label}
        payload["issue"] = _issue(gh, number, pull_request)
    else:
        body = data.draw(st.sampled_from(BODIES), label="body")
        comment = gh.human_comment(number, body, author=who, bot=bot)
        action = data.draw(
            st.sampled_from(["created", "created", "created", "edited", "deleted"]), label="action"
        )
        payload = {
            "action": action,
            "issue": _issue(gh, number, pull_request),
            "comment": {
                "id": comment.id,
                "body": body,
                "user": _user(who, bot),
                "author_association": "NONE",
                "updated_at": "2026-01-01T00:00:00Z",
            },
            "sender": _user(who, bot),
        }

    reason = quick_reason(name, payload, raw)
    if reason is None:
        event("the fast path let it through")
        return
    parsed = webhooks.parse(name, payload, policy, now=gh.now, run_id="9")
    if isinstance(parsed, Ignored | Sweep):
        event("both ignore it from the payload")
        return
    event("the fast path ignores it, the full path reads and decides")
    # `run.handle` itself asks triage first; the rules proper are read, caught up and decided
    # here without that shortcut (`triaged`), so the two are compared, not one with itself.
    result = handle(parsed, gh, typed, dry_run=True, triaged=True)
    decision = result.decision
    assert decision.outcome.value == "ignored", (reason, decision.outcome, decision.reason)
    assert decision.record is None and decision.message is None and decision.agent is None


@st.composite
def work_payloads(draw: st.DrawFn, gh: SimGitHub, prefix: str) -> tuple[str, dict[str, Any]]:
    """A branch or pull-request event: Baton's branch or not, a fork or not, any action."""
    branch = draw(
        st.sampled_from([f"{prefix}1", f"{prefix}01", "baton/issue-1", "agents/1", "main"]),
        label="branch",
    )
    fork = draw(st.sampled_from([None, None, "mallory"]), label="fork")
    sha = "c" * 40
    name = draw(
        st.sampled_from(["pull_request_review", "pull_request", "check_suite", "workflow_run"])
    )
    who = draw(st.sampled_from(["maria", "bob", "renovate[bot]"]), label="who")
    if name == "pull_request_review":
        payload = payloads.pull_request_review(
            gh,
            number=7,
            branch=branch,
            head_sha=sha,
            review_id=31,
            state=draw(
                st.sampled_from(["approved", "changes_requested", "commented", "dismissed"])
            ),
            reviewer=who,
            action=draw(st.sampled_from(["submitted", "submitted", "edited", "dismissed"])),
            fork=fork,
        )
    elif name == "pull_request":
        payload = payloads.pull_request_closed(
            gh,
            number=7,
            branch=branch,
            head_sha=sha,
            merged=draw(st.booleans()),
            sender=who,
            fork=fork,
        )
        payload["action"] = draw(st.sampled_from(["closed", "closed", "opened", "synchronize"]))
    elif name == "check_suite":
        payload = payloads.check_suite_completed(
            gh,
            branch=branch,
            head_sha=sha,
            suite_id=5,
            pull_requests=[7],
            conclusion=draw(st.sampled_from(["success", "failure", "cancelled"])),
            from_fork=fork is not None,
        )
        payload["action"] = draw(st.sampled_from(["completed", "completed", "requested"]))
    else:
        payload = payloads.workflow_run_completed(
            gh,
            branch=branch,
            head_sha=sha,
            run_id=9,
            pull_requests=[7],
            fork=fork,
            conclusion=draw(st.sampled_from(["success", "failure", "startup_failure"])),
        )
        payload["action"] = draw(st.sampled_from(["completed", "completed", "in_progress"]))
    return name, payload


@SETTINGS
@given(config=configs(), data=st.data())
def test_the_fast_path_and_the_parser_agree_on_branch_and_pull_request_events(
    tmp_path_factory: Any, config: dict[str, Any], data: st.DataObject
) -> None:
    """Whatever the fast path ignores of a branch's events the parser ignores too, and the
    other way round: both ask `work_event_reason`, so neither reads an issue it need not."""
    typed, raw = _settings(tmp_path_factory.mktemp("cfg"), config)
    gh = SimGitHub()
    name, payload = data.draw(work_payloads(gh, typed.policy.work.branch_prefix))

    reason = quick_reason(name, payload, raw)
    parsed = webhooks.parse(name, payload, typed.policy, now=gh.now, run_id="9")

    if reason is None:
        event("both let it through")
        assert not isinstance(parsed, Ignored | Sweep)
    else:
        event("both ignore it")
        assert parsed == Ignored(reason=reason, issue=parsed.issue)
