"""GitHub webhook payloads turned into Baton's few typed events, without any API call.

Payloads come from `fakes.payloads`, built from a FakeGitHub held offline (never started), so
every case is a payload as GitHub itself shapes it; the malformed cases start from such a payload
and remove what they name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton import webhooks
from baton.core.model import events
from baton.core.model.events import (
    AgentReported,
    CheckNote,
    ChecksCompleted,
    Commented,
    Dispatched,
    Ignored,
    IssueChanged,
    Labeled,
    PullRequestClosed,
    Reviewed,
    Sweep,
)
from baton.core.model.issue_facts import Actor
from baton.core.rules import triage
from baton.errors import InvalidEvent
from baton.sim import payloads
from baton.workflow.config import Policy, WorkSettings
from fakes.http_github import FakeGitHub

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=5)
DEFAULTS = Policy()
BOT = "github-actions[bot]"

Build = Callable[[FakeGitHub, int], tuple[str, dict[str, Any]]]


def world() -> tuple[FakeGitHub, int]:
    """One repository with one open issue by alice; the fake is never started (no HTTP)."""
    fake = FakeGitHub()
    number = fake.add_issue(
        "Export the report as CSV", "Please add a CSV export.", user="alice", association="NONE"
    )
    return fake, number


def parse(build: Build, policy: Policy = DEFAULTS, *, now: datetime = NOW, run_id: str = "77"):
    fake, number = world()
    name, payload = build(fake, number)
    return webhooks.parse(name, payload, policy, now=now, run_id=run_id)


# --- builders: each makes the change on the fake, then the payload GitHub would send --------------
def issue_action(action: str, by: str = "maria") -> Build:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        if action == "opened":
            return "issues", payloads.opened(fake, number)
        if action == "edited":
            fake.advance(30)
            fake.update_issue(number, actor=by, title="Export the weekly report as CSV")
            return "issues", payloads.edited(
                fake, number, old_title="Export the report as CSV", sender=by
            )
        if action == "reopened":
            fake.update_issue(number, actor=by, state="closed")
            fake.advance(30)
            fake.update_issue(number, actor=by, state="open")
            return "issues", payloads.reopened(fake, number)
        if action == "closed":
            fake.update_issue(number, actor=by, state="closed")
            return "issues", payloads.closed(fake, number)
        return "issues", payloads.issues(fake, number, action, sender=by)

    return build


def labeled(label: str, by: str = "maria", by_type: str = "User") -> Build:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        fake.advance(1)
        fake.label_by(number, label, by, by_type)
        return "issues", payloads.labeled(fake, number, label)

    return build


def unlabeled(label: str, by: str = "maria") -> Build:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        fake.label_by(number, label, by)
        fake.advance(1)
        fake.unlabel_by(number, label, by)
        return "issues", payloads.unlabeled(fake, number, label)

    return build


def commented(
    body: str = "Commas, please.",
    *,
    by: str = "alice",
    by_type: str = "User",
    association: str = "NONE",
    action: str = "created",
    on_pull_request: bool = False,
) -> Build:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        if on_pull_request:
            number = fake.add_issue("Add CSV export", user="bob", is_pull_request=True)
        comment = fake.add_comment(
            number, body, user=by, user_type=by_type, association=association
        )
        if action == "edited":
            fake.advance(60)
            fake.edit_comment(comment["id"], body + " (edited)")
            return "issue_comment", payloads.comment_edited(fake, comment["id"], body)
        return "issue_comment", payloads.issue_comment(fake, comment["id"], action)

    return build


def workflow_dispatch(inputs: dict[str, Any] | None, *, sender: str = BOT) -> Build:
    """`inputs` is put in verbatim (not stringified) so odd JSON types can be tried."""

    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        payload = payloads.workflow_dispatch(fake, {}, sender=sender)
        if inputs is None:
            del payload["inputs"]
        else:
            payload["inputs"] = inputs
        return "workflow_dispatch", payload

    return build


def repository_dispatch(client_payload: dict[str, Any]) -> Build:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        return "repository_dispatch", payloads.repository_dispatch(
            fake, "baton-report", client_payload, sender=BOT
        )

    return build


VALID_RESULT = {
    "status": "success",
    "confidence": 0.92,
    "summary": "Implemented ReportExporter.to_csv.",
    "issues_found": [],
    "questions": [],
    "next_state": "running_tests",
}


# --- issues ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "action",
    [
        pytest.param("opened", id="an opened issue is an issue change"),
        pytest.param("reopened", id="a reopened issue is an issue change"),
        pytest.param("closed", id="a closed issue is an issue change"),
        pytest.param("edited", id="an edited issue is an issue change"),
    ],
)
def test_issue_lifecycle_actions_become_issue_changes(action: str) -> None:
    event = parse(issue_action(action))

    assert isinstance(event, IssueChanged)
    assert event.action == action
    assert event.issue.number == 1
    assert event.issue.author == "alice"
    assert event.issue.partial is False
    assert event.at == NOW


def test_an_issue_change_carries_the_issue_as_the_payload_shows_it() -> None:
    event = parse(issue_action("closed"))

    assert isinstance(event, IssueChanged)
    assert event.issue.state == "closed"
    assert event.issue.title == "Export the report as CSV"
    assert event.issue.body == "Please add a CSV export."
    assert event.actor.login == "maria"
    assert event.actor.is_bot is False


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        pytest.param("assigned", "issues.assigned", id="an assignment is ignored"),
        pytest.param("pinned", "issues.pinned", id="a pin is ignored"),
        pytest.param("transferred", "issues.transferred", id="a transfer is ignored"),
        pytest.param("milestoned", "issues.milestoned", id="a milestone is ignored"),
    ],
)
def test_other_issue_actions_are_ignored_with_the_action_named(action: str, fragment: str) -> None:
    event = parse(issue_action(action))

    assert isinstance(event, Ignored)
    assert fragment in event.reason
    assert event.issue == 1


def test_an_issue_opened_by_a_bot_is_ignored() -> None:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        return "issues", payloads.opened(fake, number, sender="renovate[bot]")

    event = parse(build)

    assert isinstance(event, Ignored)
    assert "renovate[bot]" in event.reason


# --- labels ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "policy", "label"),
    [
        pytest.param(
            labeled("status:implementing"), DEFAULTS, "status:implementing", id="a status label"
        ),
        pytest.param(
            labeled("status:no-such-state"),
            DEFAULTS,
            "status:no-such-state",
            id="an unknown status label still reaches the engine, which removes it",
        ),
        pytest.param(labeled("baton"), DEFAULTS, "baton", id="the trigger label"),
        pytest.param(labeled("Baton"), DEFAULTS, "Baton", id="the trigger label in other case"),
        pytest.param(
            labeled("Status:Implementing"),
            DEFAULTS,
            "Status:Implementing",
            id="a status label in other case",
        ),
        pytest.param(
            labeled("go-agents"),
            Policy(trigger_label="go-agents"),
            "go-agents",
            id="a configured trigger label",
        ),
        pytest.param(
            labeled("stage/implementing"),
            Policy(label_prefix="stage/"),
            "stage/implementing",
            id="a status label with a configured prefix",
        ),
    ],
)
def test_adding_one_of_batons_labels_is_a_label_event(
    build: Build, policy: Policy, label: str
) -> None:
    event = parse(build, policy)

    assert isinstance(event, Labeled)
    assert event.label == label
    assert event.added is True
    assert event.actor.login == "maria"
    assert event.issue.number == 1
    assert label in event.issue.labels


@pytest.mark.parametrize(
    ("build", "policy", "fragment"),
    [
        pytest.param(labeled("bug"), DEFAULTS, "'bug'", id="an unrelated label names the label"),
        pytest.param(
            labeled("status-report"),
            DEFAULTS,
            "'status-report'",
            id="a label that only resembles the prefix is unrelated",
        ),
        pytest.param(
            labeled("status:implementing"),
            Policy(label_prefix="stage/"),
            "'status:implementing'",
            id="the default prefix means nothing under a configured one",
        ),
        pytest.param(
            labeled("baton"),
            Policy(trigger_label=None),
            "'baton'",
            id="the trigger label means nothing when entry by label is off",
        ),
        pytest.param(
            unlabeled("baton"), DEFAULTS, "'baton' removed", id="removing the trigger label"
        ),
        pytest.param(unlabeled("bug"), DEFAULTS, "'bug'", id="removing an unrelated label"),
        pytest.param(
            labeled("status:implementing", by=BOT, by_type="Bot"),
            DEFAULTS,
            BOT,
            id="Baton's own relabel is recognised by the actions bot",
        ),
        pytest.param(
            labeled("status:implementing", by="renovate[bot]", by_type="Bot"),
            DEFAULTS,
            "renovate[bot]",
            id="any app bot's relabel is ignored",
        ),
        pytest.param(
            labeled("status:implementing", by="ci-robot", by_type="Bot"),
            DEFAULTS,
            "ci-robot",
            id="a bot account without the bot suffix is ignored by its type",
        ),
        pytest.param(
            labeled("status:implementing", by="baton-pat-user"),
            Policy(bot_login="baton-pat-user"),
            "baton-pat-user",
            id="the configured bot login is ignored even as a plain user",
        ),
        pytest.param(
            labeled("status:implementing", by="Baton-PAT-User"),
            Policy(bot_login="baton-pat-user"),
            "Baton-PAT-User",
            id="the configured bot login is matched without regard to case",
        ),
    ],
)
def test_label_changes_baton_does_not_act_on_are_ignored_with_a_reason(
    build: Build, policy: Policy, fragment: str
) -> None:
    event = parse(build, policy)

    assert isinstance(event, Ignored)
    assert fragment in event.reason
    assert event.issue == 1


# --- comments -------------------------------------------------------------------------------------
def test_a_human_comment_is_a_comment_event_with_its_author_and_body() -> None:
    event = parse(commented("Approved — tests look good", by="ann", association="MEMBER"))

    assert isinstance(event, Commented)
    assert event.body == "Approved — tests look good"
    assert event.actor.login == "ann"
    assert event.actor.association == "MEMBER"
    assert event.actor.is_bot is False
    assert "permission" not in event.actor.model_dump()  # a fact, looked up if a decision needs it
    assert event.edited is False
    assert event.id == f"comment:{event.comment_id}"
    assert event.issue.number == 1


def test_an_edited_comment_is_marked_edited_and_keyed_apart_from_the_original() -> None:
    event = parse(commented("approved", by="ann", action="edited"))

    assert isinstance(event, Commented)
    assert event.edited is True
    assert event.body == "approved (edited)"
    assert event.id.startswith(f"comment:{event.comment_id}:edited:")


def test_a_comment_on_a_pull_request_counts_when_the_config_allows_it() -> None:
    event = parse(commented(on_pull_request=True), Policy(pull_requests=True))

    assert isinstance(event, Commented)
    assert event.issue.is_pull_request is True


@pytest.mark.parametrize(
    ("build", "policy", "fragment"),
    [
        pytest.param(
            commented(action="deleted"), DEFAULTS, "deleted", id="a deleted comment is ignored"
        ),
        pytest.param(
            commented("approved", by=BOT, by_type="Bot"),
            DEFAULTS,
            BOT,
            id="a comment by the actions bot is ignored",
        ),
        pytest.param(
            commented("approved", by="dependabot[bot]", by_type="Bot"),
            DEFAULTS,
            "dependabot[bot]",
            id="a comment by any bot is ignored",
        ),
        pytest.param(
            commented("approved", by="baton-pat-user"),
            Policy(bot_login="baton-pat-user"),
            "baton-pat-user",
            id="a comment by the configured bot login is ignored",
        ),
        pytest.param(
            commented("approved", on_pull_request=True),
            DEFAULTS,
            "pull request",
            id="a comment on a pull request is ignored by default",
        ),
    ],
)
def test_comments_baton_does_not_act_on_are_ignored_with_a_reason(
    build: Build, policy: Policy, fragment: str
) -> None:
    event = parse(build, policy)

    assert isinstance(event, Ignored)
    assert fragment in event.reason
    assert event.issue is not None


# --- dispatches -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("inputs", "number"),
    [
        pytest.param({"issue": "12"}, 12, id="the issue as a string"),
        pytest.param({"issue": 12}, 12, id="the issue as a number"),
        pytest.param({"issue": "12", "reason": "chain"}, 12, id="extra inputs are ignored"),
    ],
)
def test_a_workflow_dispatch_names_the_issue_to_run_on(inputs: dict[str, Any], number: int) -> None:
    event = parse(workflow_dispatch(inputs), run_id="4242")

    assert isinstance(event, Dispatched)
    assert event.issue.number == number
    assert event.issue.partial is True  # the run fetches the rest
    assert event.source == "workflow_dispatch"
    assert event.id == "dispatch:4242"


# `#5`, `05` and ` 5` were issue 5 here but three concurrency groups to GitHub, which builds
# the group from the same text: only the digits of the number, as the workflow accepts them.
@pytest.mark.parametrize(
    "given", ["#12", "012", " 12", "12 ", " 12 ", "+12", "12.0", "1e3", "１２", "1" * 13]
)
def test_a_dispatch_names_its_issue_by_its_digits_alone(given: str) -> None:
    event = parse(workflow_dispatch({"issue": given}))

    assert isinstance(event, Ignored)
    assert event.reason == (
        f"workflow_dispatch: the `issue` input must be an issue number like 7, not {given!r}"
    )


def test_a_hand_over_names_its_attempt_and_anything_else_names_none() -> None:
    nonce, digest = "0123456789abcdef", "a" * 64
    handed = parse(workflow_dispatch({"issue": "3", "handover": f"{nonce}.{digest}"}))
    forged = parse(workflow_dispatch({"issue": "3", "handover": f"{nonce}.short"}))
    by_repository = parse(repository_dispatch({"issue": 3, "handover": f"{nonce}.{digest}"}))

    assert isinstance(handed, Dispatched) and handed.nonce == nonce
    assert isinstance(forged, Dispatched) and forged.nonce == ""
    assert isinstance(by_repository, Dispatched) and by_repository.nonce == ""


def test_a_dispatch_by_batons_own_bot_is_not_ignored_because_it_chains_runs() -> None:
    event = parse(workflow_dispatch({"issue": "3"}, sender=BOT))

    assert isinstance(event, Dispatched)
    assert event.actor.login == BOT
    assert event.actor.is_bot is True


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param({}, id="a missing issue input"),
        pytest.param(None, id="no inputs at all"),
        pytest.param({"issue": "abc"}, id="an issue input that is not a number"),
        pytest.param({"issue": "0"}, id="issue zero"),
        pytest.param({"issue": "-3"}, id="a negative issue"),
        pytest.param({"issue": ""}, id="an empty issue input"),
        pytest.param({"issue": True}, id="a boolean issue input"),
        pytest.param({"issue": 1.5}, id="a fractional issue input"),
        pytest.param({"issue": "12abc"}, id="an issue input with trailing junk"),
        pytest.param({"issue": "²"}, id="a superscript digit that int() cannot read"),
        pytest.param({"issue": None}, id="a null issue input"),
    ],
)
def test_a_workflow_dispatch_without_a_usable_issue_is_ignored(
    inputs: dict[str, Any] | None,
) -> None:
    event = parse(workflow_dispatch(inputs))

    assert isinstance(event, Ignored)
    assert "issue" in event.reason
    assert event.issue is None


def test_a_repository_dispatch_with_an_issue_is_a_dispatch() -> None:
    event = parse(repository_dispatch({"issue": 12}))

    assert isinstance(event, Dispatched)
    assert event.issue.number == 12
    assert event.source == "repository_dispatch"


def test_a_repository_dispatch_without_an_issue_is_ignored() -> None:
    event = parse(repository_dispatch({"result": VALID_RESULT}))

    assert isinstance(event, Ignored)
    assert "issue" in event.reason


@pytest.mark.parametrize(
    "result",
    [
        pytest.param(VALID_RESULT, id="a valid result as a JSON object"),
        pytest.param(json.dumps(VALID_RESULT), id="a valid result as a JSON string"),
        pytest.param({**VALID_RESULT, "confidence": 7}, id="an invalid result"),
        pytest.param(None, id="a null result"),
    ],
)
def test_a_repository_dispatch_carrying_a_result_is_refused_as_a_report(result: Any) -> None:
    """Any write user can send one: it must not move the issue as if its agent had reported."""
    event = parse(
        repository_dispatch({"issue": "12", "agent": "developer", "result": result}), run_id="9"
    )

    assert isinstance(event, Ignored)
    assert event.issue == 12
    assert event.reason == (
        "a repository_dispatch cannot report an agent's result: results reach Baton only "
        "through `baton report`, which checks them against the issue's record"
    )


def test_the_fast_path_refuses_a_dispatched_result_with_the_same_reason() -> None:
    fake, number = world()
    name, payload = repository_dispatch({"issue": number, "result": VALID_RESULT})(fake, number)
    full = webhooks.parse(name, payload, DEFAULTS, now=NOW)

    assert isinstance(full, Ignored)
    assert triage.quick_reason(name, payload, triage.View()) == full.reason
    name, payload = repository_dispatch({"issue": number})(fake, number)
    assert triage.quick_reason(name, payload, triage.View()) is None


# --- schedule and everything else ---------------------------------------------------------------
def test_a_scheduled_run_is_a_sweep_at_the_given_time() -> None:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        return "schedule", payloads.schedule("17 * * * *")

    event = parse(build)

    assert event == Sweep(at=NOW)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("push", id="a push is not handled"),
        pytest.param("pull_request_target", id="a pull_request_target event is not handled"),
        pytest.param("star", id="a star is not handled"),
        pytest.param("issues_labeled", id="a near-miss event name is not handled"),
        pytest.param("", id="an empty event name is not handled"),
    ],
)
def test_unknown_event_names_are_ignored_with_the_name_in_the_reason(name: str) -> None:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        return name, payloads.opened(fake, number)

    event = parse(build)

    assert isinstance(event, Ignored)
    assert repr(name) in event.reason


# --- malformed payloads ---------------------------------------------------------------------------
def without(build: Build, *path: str) -> Build:
    """The payload `build` makes, with the key at `path` removed."""

    def broken(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        name, payload = build(fake, number)
        holder = payload
        for key in path[:-1]:
            holder = holder[key]
        del holder[path[-1]]
        return name, payload

    return broken


def replaced(build: Build, value: Any, *path: str) -> Build:
    """The payload `build` makes, with the value at `path` replaced."""

    def broken(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        name, payload = build(fake, number)
        holder = payload
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
        return name, payload

    return broken


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        pytest.param(without(issue_action("opened"), "issue"), "issue", id="issues with no issue"),
        pytest.param(
            replaced(issue_action("opened"), None, "issue"), "issue", id="issues with a null issue"
        ),
        pytest.param(
            without(issue_action("opened"), "issue", "number"),
            "number",
            id="an issue without a number",
        ),
        pytest.param(
            replaced(issue_action("opened"), "1", "issue", "number"),
            "number",
            id="an issue whose number is a string",
        ),
        pytest.param(
            without(labeled("status:implementing"), "issue"), "issue", id="a label with no issue"
        ),
        pytest.param(
            without(labeled("status:implementing"), "label", "name"),
            "label",
            id="a label without a name",
        ),
        pytest.param(
            without(labeled("status:implementing"), "label"),
            "label",
            id="a labeled payload without its label",
        ),
        pytest.param(
            replaced(labeled("status:implementing"), "", "label", "name"),
            "label",
            id="a label with an empty name",
        ),
        pytest.param(without(commented(), "issue"), "issue", id="a comment with no issue"),
        pytest.param(
            without(commented(), "comment", "id"), "comment id", id="a comment without an id"
        ),
        pytest.param(
            replaced(commented(), "1004", "comment", "id"),
            "comment id",
            id="a comment whose id is a string",
        ),
        pytest.param(without(commented(), "comment"), "comment", id="a comment payload without it"),
        pytest.param(
            without(commented(action="deleted"), "comment", "id"),
            "comment id",
            id="a deleted comment without an id",
        ),
    ],
)
def test_malformed_payloads_raise_invalid_event_saying_what_is_missing(
    build: Build, fragment: str
) -> None:
    with pytest.raises(InvalidEvent, match=fragment):
        parse(build)


# --- event ids: the key that makes a re-delivered event harmless ---------------------------------
@pytest.mark.parametrize(
    "build",
    [
        pytest.param(issue_action("opened"), id="an opened issue"),
        pytest.param(issue_action("reopened"), id="a reopened issue"),
        pytest.param(labeled("status:implementing"), id="a status label"),
        pytest.param(labeled("baton"), id="the trigger label"),
        pytest.param(commented("approved"), id="a comment"),
        pytest.param(commented("approved", action="edited"), id="an edited comment"),
        pytest.param(workflow_dispatch({"issue": "12"}), id="a workflow dispatch"),
        pytest.param(repository_dispatch({"issue": 12}), id="a repository dispatch"),
    ],
)
def test_a_redelivered_payload_gets_the_same_event_id(build: Build) -> None:
    fake, number = world()
    name, payload = build(fake, number)

    first = webhooks.parse(name, json.loads(json.dumps(payload)), DEFAULTS, now=NOW, run_id="5")
    again = webhooks.parse(name, json.loads(json.dumps(payload)), DEFAULTS, now=LATER, run_id="5")

    assert not isinstance(first, Ignored | Sweep)
    assert not isinstance(again, Ignored | Sweep)
    assert first.id
    assert again.id == first.id


def test_two_comments_get_different_event_ids() -> None:
    fake, number = world()
    one = fake.add_comment(number, "first", user="alice")
    two = fake.add_comment(number, "second", user="alice")

    first = webhooks.parse(
        "issue_comment", payloads.comment_created(fake, one["id"]), DEFAULTS, now=NOW
    )
    second = webhooks.parse(
        "issue_comment", payloads.comment_created(fake, two["id"]), DEFAULTS, now=NOW
    )

    assert isinstance(first, Commented)
    assert isinstance(second, Commented)
    assert first.id != second.id


def test_a_label_added_again_later_gets_a_new_event_id() -> None:
    fake, number = world()
    fake.label_by(number, "baton", "maria")
    first = webhooks.parse("issues", payloads.labeled(fake, number, "baton"), DEFAULTS, now=NOW)
    fake.advance(60)
    fake.unlabel_by(number, "baton", "maria")
    fake.advance(60)
    fake.label_by(number, "baton", "maria")
    second = webhooks.parse("issues", payloads.labeled(fake, number, "baton"), DEFAULTS, now=NOW)

    assert isinstance(first, Labeled)
    assert isinstance(second, Labeled)
    assert first.id != second.id


def test_a_comment_edited_twice_gets_a_new_event_id_each_time() -> None:
    fake, number = world()
    comment = fake.add_comment(number, "looks fine", user="ann")
    fake.advance(60)
    fake.edit_comment(comment["id"], "approved")
    first = webhooks.parse(
        "issue_comment",
        payloads.comment_edited(fake, comment["id"], "looks fine"),
        DEFAULTS,
        now=NOW,
    )
    fake.advance(60)
    fake.edit_comment(comment["id"], "approved!")
    second = webhooks.parse(
        "issue_comment",
        payloads.comment_edited(fake, comment["id"], "approved"),
        DEFAULTS,
        now=NOW,
    )

    assert isinstance(first, Commented)
    assert isinstance(second, Commented)
    assert first.id != second.id


# --- events Baton makes itself ------------------------------------------------------------------
def test_a_tick_is_a_bot_event_on_a_bare_issue() -> None:
    event = events.tick(7, NOW)

    assert event.issue.number == 7
    assert event.issue.partial is True
    assert event.actor.is_bot is True
    assert event.at == NOW


def test_a_report_from_baton_report_is_keyed_by_its_run() -> None:
    event = events.report(7, agent="tester", result=None, error="no file", now=NOW, run_id="31")

    assert isinstance(event, AgentReported)
    assert event.id == "report:31"
    assert event.error == "no file"
    assert event.actor.is_bot is True


def test_removing_the_only_status_label_is_an_event_so_the_label_can_be_restored() -> None:
    event = parse(unlabeled("status:implementing"), DEFAULTS)

    assert isinstance(event, Labeled)
    assert event.added is False
    assert event.label == "status:implementing"


def test_removing_a_status_label_during_a_relabel_is_ignored() -> None:
    def build(fake: FakeGitHub, number: int) -> tuple[str, dict[str, Any]]:
        fake.label_by(number, "status:implementing", "maria")
        fake.label_by(number, "status:running-tests", "maria")
        fake.unlabel_by(number, "status:implementing", "maria")
        return "issues", payloads.unlabeled(fake, number, "status:implementing")

    event = parse(build, DEFAULTS)

    assert isinstance(event, Ignored)
    assert "relabel in progress" in event.reason


# --- the issue's branch and pull request ----------------------------------------------------------
BRANCH = "baton/issue-42"
SHA = "c" * 40


def work_event(name: str, payload: dict[str, Any], policy: Policy = DEFAULTS):
    return webhooks.parse(name, payload, policy, now=NOW, run_id="77")


def review(state: str = "changes_requested", **fields: Any) -> tuple[str, dict[str, Any]]:
    fake, _ = world()
    options: dict[str, Any] = {
        "number": 7,
        "branch": BRANCH,
        "head_sha": SHA,
        "review_id": 3101,
        "state": state,
        "reviewer": "maria",
        "body": "Quote the fields.",
    }
    options.update(fields)
    return "pull_request_review", payloads.pull_request_review(fake, **options)


def closed_pr(merged: bool = True, **fields: Any) -> tuple[str, dict[str, Any]]:
    fake, _ = world()
    options: dict[str, Any] = {
        "number": 7,
        "branch": BRANCH,
        "head_sha": SHA,
        "merged": merged,
        "sender": "maria",
    }
    options.update(fields)
    return "pull_request", payloads.pull_request_closed(fake, **options)


def suite(conclusion: str = "failure", **fields: Any) -> tuple[str, dict[str, Any]]:
    fake, _ = world()
    options: dict[str, Any] = {
        "branch": BRANCH,
        "head_sha": SHA,
        "conclusion": conclusion,
        "suite_id": 555,
        "pull_requests": [7],
    }
    options.update(fields)
    return "check_suite", payloads.check_suite_completed(fake, **options)


def workflow_run(conclusion: str = "failure", **fields: Any) -> tuple[str, dict[str, Any]]:
    fake, _ = world()
    options: dict[str, Any] = {
        "branch": BRANCH,
        "head_sha": SHA,
        "conclusion": conclusion,
        "run_id": 9001,
        "name": "CI",
        "pull_requests": [7],
    }
    options.update(fields)
    return "workflow_run", payloads.workflow_run_completed(fake, **options)


def test_a_review_on_batons_branch_is_a_review_of_the_issue_the_branch_names() -> None:
    event = work_event(*review())

    assert event == Reviewed(
        id="review:3101",
        issue=events.bare_issue(42),
        actor=Actor(login="maria", association="COLLABORATOR"),
        at=NOW,
        run_id="77",
        pull_request=7,
        review_id=3101,
        verdict="changes_requested",
        body="Quote the fields.",
        commit=SHA,
    )


def test_an_approving_review_is_approved() -> None:
    event = work_event(*review("approved", body=""))

    assert isinstance(event, Reviewed)
    assert (event.verdict, event.body) == ("approved", "")


def test_a_merge_is_closed_merged_by_the_merger() -> None:
    event = work_event(*closed_pr(merged=True, sender="tess", merged_by="maria"))

    assert event == PullRequestClosed(
        id="pr-closed:7:true",
        issue=events.bare_issue(42),
        actor=Actor(login="maria"),
        at=NOW,
        run_id="77",
        pull_request=7,
        merged=True,
    )


def test_a_close_without_merging_is_closed_by_the_sender() -> None:
    event = work_event(*closed_pr(merged=False, sender="tess"))

    assert event == PullRequestClosed(
        id="pr-closed:7:false",
        issue=events.bare_issue(42),
        actor=Actor(login="tess"),
        at=NOW,
        run_id="77",
        pull_request=7,
        merged=False,
    )


def test_a_merge_by_a_bot_still_counts_it_is_a_fact() -> None:
    event = work_event(*closed_pr(sender="mergify[bot]"))

    assert isinstance(event, PullRequestClosed)
    assert event.actor == Actor(login="mergify[bot]", is_bot=True)


def test_a_completed_check_suite_is_checks_on_the_branch_head() -> None:
    event = work_event(*suite())

    assert event == ChecksCompleted(
        id=f"checks:{SHA}:555",
        issue=events.bare_issue(42),
        actor=Actor(login="github-actions[bot]", is_bot=True),
        at=NOW,
        run_id="77",
        branch=BRANCH,
        head=SHA,
        conclusion="failure",
        pull_request=7,
        failing=[CheckNote(name="GitHub Actions", summary="failure")],
        source="check_suite",
    )


def test_a_completed_workflow_run_is_checks_named_after_the_workflow() -> None:
    event = work_event(*workflow_run("timed_out"))

    assert event == ChecksCompleted(
        id=f"checks:{SHA}:9001",
        issue=events.bare_issue(42),
        actor=Actor(login="github-actions[bot]", is_bot=True),
        at=NOW,
        run_id="77",
        branch=BRANCH,
        head=SHA,
        conclusion="timed_out",
        pull_request=7,
        failing=[CheckNote(name="CI", summary="timed_out")],
        source="workflow_run",
    )


@pytest.mark.parametrize(
    "conclusion", ["success", "neutral", "skipped", "cancelled", "action_required", "stale"]
)
def test_checks_that_did_not_fail_are_ignored_from_the_payload_alone(conclusion: str) -> None:
    event = work_event(*suite(conclusion, pull_requests=[]))

    assert event == Ignored(
        reason=f"check_suite concluded {conclusion} on {BRANCH}: only failing checks move an issue",
        issue=42,
    )


@pytest.mark.parametrize("conclusion", ["failure", "timed_out", "startup_failure"])
def test_a_failed_suite_in_which_no_check_ran_is_ignored_from_the_payload_alone(
    conclusion: str,
) -> None:
    # A run held for a writer's approval and never approved ends so: nothing ran, nothing to fix.
    event = work_event(*suite(conclusion, check_runs=0))

    assert event == Ignored(
        reason=f"check_suite concluded {conclusion} on {BRANCH} with no check run: no job ran, "
        "nothing to fix",
        issue=42,
    )


def test_a_held_pull_request_run_is_checks_the_run_then_reads() -> None:
    # The workflow_run payload of a held run looks like any other: the check runs tell.
    event = work_event(*workflow_run("failure", event="pull_request"))

    assert isinstance(event, ChecksCompleted)
    assert [n.name for n in event.failing] == ["CI"], "what the payload names, no more"
    assert "failed_runs" not in ChecksCompleted.model_fields, "the check runs are a fact read"


def test_failing_checks_carry_no_pull_request_when_none_is_listed() -> None:
    event = work_event(*suite("failure", pull_requests=[]))

    assert isinstance(event, ChecksCompleted)
    assert event.pull_request is None


def test_the_branch_prefix_comes_from_the_config() -> None:
    policy = replace(DEFAULTS, work=WorkSettings(branch_prefix="agents/"))

    event = work_event(*review(branch="agents/9"), policy=policy)
    ignored = work_event(*review(), policy=policy)

    assert isinstance(event, Reviewed) and event.issue.number == 9
    assert ignored == Ignored(reason=f"branch {BRANCH!r} is not one of Baton's")


IGNORED_WORK = [
    pytest.param(
        review(branch="feature/csv"),
        Ignored(reason="branch 'feature/csv' is not one of Baton's"),
        id="a review on someone else's branch",
    ),
    pytest.param(
        review(fork="mallory"),
        Ignored(reason="pull request #7 comes from a fork (mallory/demo)", issue=42),
        id="a review of a fork's pull request from a branch named like Baton's",
    ),
    pytest.param(
        review(action="dismissed"),
        Ignored(reason="pull_request_review.dismissed is not an event Baton acts on", issue=42),
        id="a dismissed review",
    ),
    pytest.param(
        review("commented"),
        Ignored(
            reason="a commented review moves nothing: only an approval or requested changes do",
            issue=42,
        ),
        id="a review that only comments",
    ),
    pytest.param(
        review("approved", reviewer="renovate[bot]"),
        Ignored(reason="review by bot renovate[bot]", issue=42),
        id="a bot's approval",
    ),
    pytest.param(
        closed_pr(branch="baton/issue-007"),
        Ignored(reason="branch 'baton/issue-007' is not one of Baton's"),
        id="a branch whose number is not one Baton writes",
    ),
    pytest.param(
        closed_pr(fork="mallory"),
        Ignored(reason="pull request #7 comes from a fork (mallory/demo)", issue=42),
        id="a fork's pull request closed",
    ),
    pytest.param(
        suite(from_fork=True),
        Ignored(reason="check_suite with no head branch (a fork's or a tag's): not Baton's"),
        id="a fork's check suite",
    ),
    pytest.param(
        suite(branch="main"),
        Ignored(reason="branch 'main' is not one of Baton's"),
        id="checks on the default branch",
    ),
    pytest.param(
        workflow_run(fork="mallory"),
        Ignored(reason="a workflow run from a fork (mallory/demo)", issue=42),
        id="a fork's workflow run on a branch named like Baton's",
    ),
]


@pytest.mark.parametrize(("built", "expected"), IGNORED_WORK)
def test_branch_and_pull_request_events_baton_does_not_act_on_are_ignored(
    built: tuple[str, dict[str, Any]], expected: Ignored
) -> None:
    assert work_event(*built) == expected


def test_other_actions_of_the_branch_events_are_ignored() -> None:
    name, payload = closed_pr()
    payload["action"] = "opened"
    name_run, run = workflow_run()
    run["action"] = "requested"

    assert work_event(name, payload) == Ignored(
        reason="pull_request.opened is not an event Baton acts on", issue=42
    )
    assert work_event(name_run, run) == Ignored(
        reason="workflow_run.requested is not an event Baton acts on", issue=42
    )


@pytest.mark.parametrize(
    "built",
    [review(), closed_pr(), closed_pr(merged=False), suite(), workflow_run()],
    ids=["review", "merge", "close", "check suite", "workflow run"],
)
def test_a_redelivered_branch_event_gets_the_same_id(built: tuple[str, dict[str, Any]]) -> None:
    first = webhooks.parse(*built, DEFAULTS, now=NOW, run_id="1")
    again = webhooks.parse(*built, DEFAULTS, now=LATER, run_id="2")

    assert not isinstance(first, Ignored | Sweep) and not isinstance(again, Ignored | Sweep)
    assert first.id == again.id


def test_a_review_without_an_id_is_malformed() -> None:
    name, payload = review()
    del payload["review"]["id"]

    with pytest.raises(InvalidEvent, match="without a review id"):
        work_event(name, payload)


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        pytest.param("review", "approved", "the payload's review is not an object", id="review"),
        pytest.param(
            "user", ["maria"], "the payload's review.user is not an object", id="its author"
        ),
    ],
)
def test_a_review_that_is_not_an_object_is_malformed_and_says_which(
    key: str, value: Any, error: str
) -> None:
    name, payload = review()
    (payload if key == "review" else payload["review"])[key] = value

    with pytest.raises(InvalidEvent) as raised:
        work_event(name, payload)
    assert str(raised.value) == error


def test_a_review_of_a_pull_request_without_a_number_is_malformed() -> None:
    name, payload = review()
    del payload["pull_request"]["number"]

    with pytest.raises(InvalidEvent) as raised:
        work_event(name, payload)
    assert str(raised.value) == "the payload's pull_request has no number"
