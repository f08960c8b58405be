"""Triage: events that are certainly nothing to Baton are dropped from the payload alone, before
pydantic, click or PyGithub are imported, and the fast path agrees with the full one."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton import webhooks
from baton.action.fast_path import raw_view
from baton.core.model import events
from baton.core.rules.labels import is_ours
from baton.core.rules.triage import View, event_reason, quick_reason, view_of
from baton.errors import BatonError
from baton.workflow.config import load_config

SETTINGS = load_config(None)
VIEW = view_of(SETTINGS.workflow, SETTINGS.policy, SETTINGS.workflows)
NOW = datetime(2026, 1, 5, tzinfo=UTC)


def issue(labels: list[str], pull: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": 3,
        "title": "t",
        "labels": [{"name": x} for x in labels],
        "user": {"login": "alice", "type": "User"},
    }
    if pull:
        data["pull_request"] = {"url": "u"}
    return data


def comment(
    body: str,
    labels: list[str],
    *,
    user: str = "alice",
    action: str = "created",
    pull: bool = False,
) -> dict[str, Any]:
    kind = "Bot" if user.endswith("[bot]") else "User"
    return {
        "action": action,
        "issue": issue(labels, pull),
        "comment": {"id": 9, "body": body, "user": {"login": user, "type": kind}},
        "sender": {"login": user, "type": kind},
    }


def labeled(label: str, labels: list[str], *, sender: str = "maria") -> dict[str, Any]:
    return {
        "action": "labeled",
        "issue": issue(labels),
        "label": {"name": label},
        "sender": {"login": sender, "type": "User"},
    }


REPO = {"full_name": "octo/demo"}


def review(
    branch: str, state: str = "changes_requested", repo: str = "octo/demo"
) -> dict[str, Any]:
    return {
        "action": "submitted",
        "review": {"id": 1, "state": state, "user": {"login": "maria", "type": "User"}},
        "pull_request": {"number": 7, "head": {"ref": branch, "repo": {"full_name": repo}}},
        "repository": REPO,
    }


def run(branch: str | None, action: str = "completed") -> dict[str, Any]:
    return {
        "action": action,
        "workflow_run": {"id": 9, "head_branch": branch, "head_repository": REPO},
        "repository": REPO,
    }


IGNORED = [
    pytest.param("push", {"ref": "main"}, id="an event Baton does not handle"),
    pytest.param(
        "pull_request_review", review("feature/x"), id="a review on a branch that is not Baton's"
    ),
    pytest.param(
        "pull_request_review",
        review("baton/issue-3", repo="mallory/demo"),
        id="a review of a fork's pull request",
    ),
    pytest.param(
        "pull_request_review", review("baton/issue-3", "commented"), id="a review that comments"
    ),
    pytest.param("workflow_run", run("main"), id="CI on the default branch"),
    pytest.param("workflow_run", run(None), id="CI with no branch"),
    pytest.param("workflow_run", run("baton/issue-3", "requested"), id="CI that only started"),
    pytest.param("issues", labeled("bug", []), id="a label that is not Baton's"),
    pytest.param(
        "issues",
        {**labeled("status:received", []), "sender": {"login": "x[bot]", "type": "Bot"}},
        id="a label added by a bot",
    ),
    pytest.param(
        "issue_comment", comment("hello", []), id="a comment on an issue outside the workflow"
    ),
    pytest.param(
        "issue_comment",
        comment("looks good", ["status:implementing"]),
        id="a plain comment while the developer works",
    ),
    pytest.param(
        "issue_comment",
        comment("approved", ["status:waiting-for-human-input"], user="github-actions[bot]"),
        id="the bot's own comment",
    ),
    pytest.param(
        "issue_comment",
        comment("approved", ["status:waiting-for-human-input"], pull=True),
        id="a comment on a pull request",
    ),
    pytest.param(
        "issue_comment",
        comment("approved", ["status:waiting-for-human-input"], action="edited"),
        id="an edited comment",
    ),
    pytest.param(
        "issues", {"action": "opened", "issue": issue([]), "sender": {"login": "a"}}, id="opened"
    ),
    pytest.param("workflow_dispatch", {"inputs": {}}, id="a dispatch without an issue"),
    pytest.param(
        "issue_comment",
        comment("looks good", ["Baton:Task", "status:in-progress"]),
        id="a plain comment while a task's developer works",
    ),
    pytest.param(
        "issue_comment",
        comment("looks good", ["baton:epic", "baton:task", "status:pending-review"]),
        id="a plain comment while a task's reviewer works (the task label wins)",
    ),
    pytest.param(
        "issues",
        {**labeled("baton:epic", []), "sender": {"login": "x[bot]", "type": "Bot"}},
        id="the epic label added by a bot",
    ),
]

MATTERS = [
    pytest.param("issues", labeled("baton", []), id="the trigger label"),
    pytest.param("issues", labeled("status:bogus", []), id="an unknown status label"),
    pytest.param(
        "issue_comment",
        comment("Commas.", ["status:waiting-for-requirements-clarification"]),
        id="a reply while Baton waits",
    ),
    pytest.param(
        "issue_comment",
        comment("approved", ["status:implementing"]),
        id="a command in a work state (it gets a reply)",
    ),
    pytest.param(
        "issue_comment",
        comment("hi", ["status:implementing", "status:failed"]),
        id="a comment on an issue with two status labels (drift to repair)",
    ),
    pytest.param("workflow_dispatch", {"inputs": {"issue": "3"}}, id="a dispatch for an issue"),
    pytest.param("issues", labeled("baton:epic", []), id="the epic label"),
    pytest.param("issues", labeled("BATON:EPIC", ["bug"]), id="the epic label in another case"),
    pytest.param("issues", labeled("baton:task", []), id="the task label"),
    pytest.param(
        "issues",
        {**labeled("baton:epic", ["status:discovery"]), "action": "unlabeled"},
        id="the epic label removed",
    ),
    pytest.param(
        "issue_comment",
        comment("Mostly admins.", ["baton:epic", "status:discovery"]),
        id="an answer in an epic's discovery dialogue (the state converses)",
    ),
    pytest.param(
        "issue_comment",
        comment("hi", ["baton:epic", "status:implementing"]),
        id="a comment while an epic waits on its tasks",
    ),
    pytest.param(
        "issue_comment",
        comment("/resume", ["baton:epic", "status:blocked"]),
        id="a comment on a blocked epic",
    ),
    pytest.param(
        "issue_comment",
        comment("hi", ["baton:task", "status:failed"]),
        id="a comment on a failed task",
    ),
    pytest.param(
        "issue_comment",
        comment("hi", ["baton:epic", "status:received"]),
        id="an epic with a status label its workflow lacks (drift to repair)",
    ),
    pytest.param("schedule", {}, id="the sweep"),
    pytest.param("pull_request_review", review("baton/issue-3"), id="a review on Baton's branch"),
    pytest.param("workflow_run", run("baton/issue-3"), id="CI finished on Baton's branch"),
    pytest.param(
        "pull_request_review",
        {"action": "submitted", "pull_request": "odd"},
        id="a malformed review (the full path says what is wrong)",
    ),
]


@pytest.mark.parametrize(("name", "payload"), IGNORED)
def test_events_that_are_nothing_to_baton_are_dropped_from_the_payload(
    name: str, payload: dict[str, Any]
) -> None:
    assert quick_reason(name, payload, VIEW)


@pytest.mark.parametrize(("name", "payload"), MATTERS)
def test_events_that_may_matter_go_on_to_the_full_run(name: str, payload: dict[str, Any]) -> None:
    assert quick_reason(name, payload, VIEW) is None


LABELS = st.lists(
    st.sampled_from(
        [
            "status:received",
            "status:implementing",
            "status:waiting-for-human-input",
            "bug",
            "baton",
            "status:bogus",
        ]
    ),
    max_size=3,
    unique=True,
)


@settings(max_examples=200, deadline=None)
@given(
    body=st.sampled_from(["approved", "hi", "/retry x", "not approved", "> approved", ""]),
    labels=LABELS,
    user=st.sampled_from(["alice", "github-actions[bot]", "dependabot[bot]"]),
    action=st.sampled_from(["created", "edited", "deleted"]),
    pull=st.booleans(),
)
def test_the_fast_path_never_drops_what_the_full_path_would_act_on(
    body: str, labels: list[str], user: str, action: str, pull: bool
) -> None:
    payload = comment(body, labels, user=user, action=action, pull=pull)
    if quick_reason("issue_comment", payload, VIEW) is None:
        return
    parsed = webhooks.parse("issue_comment", payload, SETTINGS.policy, now=NOW)
    assert isinstance(parsed, events.Ignored) or event_reason(parsed, VIEW) is not None


def test_the_raw_view_read_from_files_equals_the_validated_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "baton.yml"
    config.write_text(
        "label_prefix: 'stage/'\n"
        "approval_words: [lgtm]\n"
        "entry: {trigger_label: go, on_open: true}\n",
        encoding="utf-8",
    )
    typed = load_config(config)
    raw = raw_view({"INPUT_CONFIG": str(config)})
    assert raw == view_of(typed.workflow, typed.policy, typed.workflows)


@pytest.mark.parametrize(
    "epics",
    [
        "",
        "epics: {enabled: false}\n",
        "epics: {label: saga, task_label: Chapter, max_parallel: 5}\n",
        "workflow: feature-epic\n",
        "workflow: epic-task\nepics: {label: big}\n",
    ],
    ids=["the defaults", "epics off", "other markers", "the epic preset", "the task preset"],
)
def test_the_raw_view_reads_the_epics_as_the_validated_settings_do(
    tmp_path: Path, epics: str
) -> None:
    config = tmp_path / "baton.yml"
    config.write_text("label_prefix: 'stage/'\n" + epics, encoding="utf-8")
    typed = load_config(config)
    raw = raw_view({"INPUT_CONFIG": str(config)})
    assert raw == view_of(typed.workflow, typed.policy, typed.workflows)
    assert raw is not None
    assert len(raw.machines) == (0 if "false" in epics else 2)


@pytest.mark.parametrize(
    "text",
    [
        "epics: {workflow: no-such}\n",
        "epics: {workflow: issue-lifecycle}\n",
        "epics: {task_workflow: feature-epic}\n",
        "epics: {label: x, task_label: X}\n",
        "epics: {label: baton}\n",
        "epics: {task_label: 'status:task'}\n",
        "epics: {enabled: maybe}\n",
        "epics: {lable: x}\n",
        "epics: [baton:epic]\n",
        "epics: {label: 7}\n",
    ],
    ids=[
        "an unknown preset",
        "an epic preset that is no epic's",
        "a task preset that is no task's",
        "one label for both",
        "the trigger label",
        "a status label",
        "a flag that is no boolean",
        "an unknown key",
        "no mapping",
        "a label that is no text",
    ],
)
def test_an_epics_setting_the_full_path_refuses_is_left_to_it(tmp_path: Path, text: str) -> None:
    config = tmp_path / "baton.yml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(BatonError):
        load_config(config)
    assert raw_view({"INPUT_CONFIG": str(config)}) is None


def test_without_the_workflows_a_marked_issue_is_never_ignored() -> None:
    """`view_of` given no workflows knows the markers but not their machines: a plain comment
    on an epic or a task goes on to the full run."""
    view = view_of(SETTINGS.workflow, SETTINGS.policy)
    for marker in ("baton:epic", "baton:task"):
        payload = comment("looks good", [marker, "status:implementing"])
        assert quick_reason("issue_comment", payload, view) is None
    plain = comment("looks good", ["status:implementing"])
    assert quick_reason("issue_comment", plain, view)
    assert quick_reason("issues", labeled("baton:epic", []), view) is None


def test_with_epics_off_the_markers_are_nobodys() -> None:
    typed = load_config(None)
    off = dataclasses.replace(
        typed.policy, epics=typed.policy.epics.model_copy(update={"enabled": False})
    )
    view = view_of(typed.workflow, off, typed.workflows)
    assert view.markers == () and view.machines == {}
    assert quick_reason("issues", labeled("baton:epic", []), view)
    payload = comment("looks good", ["baton:epic", "status:implementing"])
    assert quick_reason("issue_comment", payload, view)


@pytest.mark.parametrize(
    ("label", "markers", "ours"),
    [
        ("baton:epic", (), False),
        ("baton:epic", ("baton:task", "baton:epic"), True),
        ("Baton:Task", ("baton:task", "baton:epic"), True),
        ("baton:epics", ("baton:task", "baton:epic"), False),
        ("status:x", (), True),
        ("BATON", (), True),
    ],
)
def test_the_marker_labels_are_ours_when_given(
    label: str, markers: tuple[str, ...], ours: bool
) -> None:
    assert is_ours(label, "status:", "baton", markers) is ours


def test_an_unreadable_config_leaves_the_decision_to_the_full_path(tmp_path: Path) -> None:
    config = tmp_path / "baton.yml"
    config.write_text("workflow: [not, a, preset]\n: :\n", encoding="utf-8")
    assert raw_view({"INPUT_CONFIG": str(config)}) is None
    assert raw_view({"INPUT_CONFIG": str(tmp_path / "missing.yml")}) is None


def test_an_ignored_run_imports_neither_pydantic_nor_click_nor_pygithub(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps(labeled("bug", [])), encoding="utf-8")
    probe = (
        "import sys\n"
        "sys.argv = ['baton', 'run']\n"
        "from baton.__main__ import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "heavy = sorted(m for m in ('pydantic', 'click', 'github') if m in sys.modules)\n"
        "print('CODE', code, 'HEAVY', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={"GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": str(event), "PATH": ""},
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert "CODE 0 HEAVY []" in done.stdout, done.stdout + done.stderr
    assert "ignored: label 'bug' is not one of Baton's (0 API calls)" in done.stdout


def test_the_fast_path_writes_the_same_outputs_as_the_contract(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "main"}), encoding="utf-8")
    output = tmp_path / "output"
    done = subprocess.run(
        [sys.executable, "-m", "baton", "run"],
        env={
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_OUTPUT": str(output),
            "PATH": "",
        },
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert done.returncode == 0
    names = [line.split("<<")[0] for line in output.read_text().splitlines() if "<<" in line]
    assert names == [
        "issue",
        "state",
        "previous-state",
        "agent",
        "transitioned",
        "decision",
        "branch",
        "pull-request",
        "handover",
    ]
    assert isinstance(VIEW, View)


def test_an_answerer_s_reply_to_an_epic_in_planning_goes_on_to_the_full_run() -> None:
    """The engine keeps it for the planner (a plan revised on request): the fast path must not
    drop it as a comment 'while the planner works' (found by the agreement property)."""
    view = view_of(SETTINGS.workflow, SETTINGS.policy, SETTINGS.workflows)
    reply = comment(
        "thanks! please split the export task in two", ["baton:epic", "status:planning"]
    )

    assert quick_reason("issue_comment", reply, view) is None
    assert SETTINGS.workflows["feature-epic"].converses("planning")
    task = comment("thanks!", ["baton:task", "status:in-progress"])
    assert (
        quick_reason("issue_comment", task, view)
        == "a comment with no command while the developer works"
    )
