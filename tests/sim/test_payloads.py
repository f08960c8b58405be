"""One payload builder for both fake GitHubs: the in-memory one and the HTTP one of the tests
give the same webhook payloads, in GitHub's shapes, and `webhooks.parse` reads the same event
out of either."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from baton import webhooks
from baton.core.events import Commented, IssueChanged, Labeled
from baton.sim import payloads
from baton.sim.memory_github import MemoryGitHub
from baton.sim.payloads import DispatchRequest
from baton.workflow.config import Policy
from fakes.http_github import FakeGitHub

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
Json = dict[str, Any]


def shape(value: Any) -> Any:
    """The keys and value types of a JSON document, without the values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


class Both:
    """The same story told to both fakes: alice opens an issue, maria labels it, bob
    comments, maria closes it."""

    def __init__(self) -> None:
        self.memory = MemoryGitHub(now=NOW)
        self.http = FakeGitHub()  # never started: payloads are built offline
        self.http.now = NOW
        self.memory.open_issue("Export as CSV", "Please.", author="alice")
        self.http.add_issue("Export as CSV", "Please.", user="alice")

    def label(self, name: str, by: str) -> None:
        self.memory.human_label(1, name, by=by)
        self.http.label_by(1, name, by)

    def unlabel(self, name: str, by: str) -> None:
        self.memory.human_label(1, name, add=False, by=by)
        self.http.unlabel_by(1, name, by)

    def comment(self, body: str, by: str) -> tuple[int, int]:
        posted = self.memory.human_comment(1, body, author=by, association="MEMBER")
        stored = self.http.add_comment(1, body, user=by, association="MEMBER")
        return posted.id, stored["id"]

    def close(self, by: str) -> None:
        self.memory.human_close(1, by=by)
        self.http.update_issue(1, state="closed", actor=by)


@pytest.fixture
def both() -> Both:
    return Both()


def test_an_issues_payload_has_the_same_shape_from_either_fake(both: Both) -> None:
    both.label("baton", "maria")

    memory = payloads.labeled(both.memory, 1, "baton")
    http = payloads.labeled(both.http, 1, "baton")

    assert shape(memory) == shape(http)
    assert memory["issue"]["labels"][0]["name"] == http["issue"]["labels"][0]["name"] == "baton"


def test_a_comment_payload_has_the_same_shape_from_either_fake(both: Both) -> None:
    in_memory, over_http = both.comment("Commas, please.", "bob")

    memory = payloads.comment_created(both.memory, in_memory)
    http = payloads.comment_created(both.http, over_http)

    assert shape(memory) == shape(http)
    assert memory["comment"]["body"] == http["comment"]["body"] == "Commas, please."


@pytest.mark.parametrize(
    ("name", "build"),
    [
        pytest.param("issues", lambda gh: payloads.labeled(gh, 1, "baton"), id="a label"),
        pytest.param("issues", lambda gh: payloads.closed(gh, 1), id="a close"),
        pytest.param(
            "issues",
            lambda gh: payloads.unlabeled(gh, 1, "status:received"),
            id="a label removed",
        ),
    ],
)
def test_either_fake_gives_the_same_event(both: Both, name: str, build: Any) -> None:
    both.label("status:received", "tess")
    both.label("baton", "maria")
    both.unlabel("status:received", "tess")
    both.close("maria")

    events = [webhooks.parse(name, build(gh), Policy(), now=NOW) for gh in (both.memory, both.http)]

    assert isinstance(events[0], Labeled | IssueChanged)
    assert events[0] == events[1]


def test_either_fake_gives_the_same_comment_event(both: Both) -> None:
    in_memory, over_http = both.comment("approved", "wendy")

    memory = webhooks.parse(
        "issue_comment", payloads.comment_created(both.memory, in_memory), Policy(), now=NOW
    )
    http = webhooks.parse(
        "issue_comment", payloads.comment_created(both.http, over_http), Policy(), now=NOW
    )

    assert isinstance(memory, Commented) and isinstance(http, Commented)
    assert memory.model_dump(exclude={"id", "comment_id"}) == http.model_dump(
        exclude={"id", "comment_id"}
    )


@pytest.mark.parametrize("fake", ["memory", "http"])
def test_the_sender_is_who_caused_the_latest_such_event(both: Both, fake: str) -> None:
    gh = getattr(both, fake)
    both.label("bug", "tess")
    both.label("baton", "maria")
    both.unlabel("bug", "bob")
    both.close("maria")

    assert payloads.labeled(gh, 1, "bug")["sender"]["login"] == "tess"
    assert payloads.labeled(gh, 1, "baton")["sender"]["login"] == "maria"
    assert payloads.unlabeled(gh, 1, "bug")["sender"]["login"] == "bob"
    assert payloads.closed(gh, 1)["sender"]["login"] == "maria"
    assert payloads.opened(gh, 1)["sender"]["login"] == "alice"  # nobody else: the author


@pytest.mark.parametrize("fake", ["memory", "http"])
def test_a_named_sender_wins_and_a_bot_login_is_typed_as_a_bot(both: Both, fake: str) -> None:
    gh = getattr(both, fake)

    by_bot = payloads.opened(gh, 1, sender="renovate[bot]")["sender"]
    typed_as_user = payloads.labeled(gh, 1, "x", sender="github-actions[bot]", bot=False)

    assert (by_bot["login"], by_bot["type"]) == ("renovate[bot]", "Bot")
    assert typed_as_user["sender"]["type"] == "User"


def test_an_edit_carries_the_previous_text(both: Both) -> None:
    in_memory, _ = both.comment("looks fine", "wendy")
    both.memory.now = NOW.replace(minute=30)
    both.memory.human_edit(in_memory, "approved")

    edited = payloads.comment_edited(both.memory, in_memory, "looks fine")

    assert edited["changes"] == {"body": {"from": "looks fine"}}
    assert edited["comment"]["body"] == "approved"
    assert edited["comment"]["updated_at"] == "2026-01-05T09:30:00Z"
    assert edited["comment"]["created_at"] == "2026-01-05T09:00:00Z"


def test_a_removed_label_that_no_longer_exists_is_still_named(both: Both) -> None:
    payload = payloads.unlabeled(both.http, 1, "never-made")

    assert payload["label"]["name"] == "never-made"


def test_dispatch_inputs_are_strings_as_github_sends_them(both: Both) -> None:
    payload = payloads.workflow_dispatch(
        both.memory, {"issue": 5, "dry_run": True, "note": None}, sender="alice"
    )

    assert payload["inputs"] == {"issue": "5", "dry_run": "true", "note": ""}
    assert payload["ref"] == "refs/heads/main"
    assert payload["workflow"] == ".github/workflows/baton.yml"


@pytest.mark.parametrize(
    ("dispatch", "name", "expected"),
    [
        pytest.param(
            DispatchRequest("workflow_dispatch", "", workflow="baton.yml", ref="main", inputs={}),
            "workflow_dispatch",
            {"ref": "refs/heads/main", "workflow": ".github/workflows/baton.yml"},
            id="a workflow dispatch on a branch name runs on its full ref",
        ),
        pytest.param(
            DispatchRequest("repository_dispatch", "", event_type="baton", client_payload={"n": 1}),
            "repository_dispatch",
            {"action": "baton", "client_payload": {"n": 1}, "branch": "main"},
            id="a repository dispatch keeps its event type and payload",
        ),
    ],
)
def test_a_recorded_dispatch_replays_as_the_run_it_starts_sent_by_the_bot(
    both: Both, dispatch: DispatchRequest, name: str, expected: Json
) -> None:
    replayed, payload = payloads.from_dispatch(both.memory, dispatch)

    assert replayed == name
    assert {key: payload[key] for key in expected} == expected
    assert (payload["sender"]["login"], payload["sender"]["type"]) == (
        "github-actions[bot]",
        "Bot",
    )


def test_the_in_memory_github_records_its_dispatches_as_the_http_fake_does() -> None:
    from baton.github.tracker import DispatchTarget

    gh = MemoryGitHub(now=NOW)
    gh.dispatch(DispatchTarget(workflow="baton.yml", ref="refs/heads/main"), {"issue": "1"})

    name, payload = payloads.from_dispatch(gh, gh.dispatches[-1])

    assert name == "workflow_dispatch"
    assert payload["inputs"] == {"issue": "1"}


def test_a_schedule_has_no_repository_and_no_sender() -> None:
    assert payloads.schedule("*/15 * * * *") == {
        "schedule": "*/15 * * * *",
        "workflow": ".github/workflows/baton.yml",
    }


# --- the issue's branch and pull request ----------------------------------------------------------
BRANCH = "baton/issue-1"
SHA = "c" * 40
WORK_PAYLOADS = [
    pytest.param(
        "pull_request_review",
        lambda gh: payloads.pull_request_review(
            gh,
            number=7,
            branch=BRANCH,
            head_sha=SHA,
            review_id=31,
            state="approved",
            reviewer="maria",
            body="Ship it.",
        ),
        id="a review",
    ),
    pytest.param(
        "pull_request",
        lambda gh: payloads.pull_request_closed(
            gh, number=7, branch=BRANCH, head_sha=SHA, merged=True, sender="maria"
        ),
        id="a merge",
    ),
    pytest.param(
        "check_suite",
        lambda gh: payloads.check_suite_completed(
            gh, branch=BRANCH, head_sha=SHA, conclusion="failure", suite_id=5, pull_requests=[7]
        ),
        id="a check suite",
    ),
    pytest.param(
        "workflow_run",
        lambda gh: payloads.workflow_run_completed(
            gh, branch=BRANCH, head_sha=SHA, conclusion="failure", run_id=9, pull_requests=[7]
        ),
        id="a workflow run",
    ),
]


@pytest.mark.parametrize(("name", "build"), WORK_PAYLOADS)
def test_either_fake_gives_the_same_branch_event_in_the_same_shape(
    both: Both, name: str, build: Any
) -> None:
    memory, http = build(both.memory), build(both.http)

    assert shape(memory) == shape(http)
    parsed = [webhooks.parse(name, p, Policy(), now=NOW) for p in (memory, http)]
    assert parsed[0] == parsed[1]
    assert parsed[0].issue.number == 1


def test_a_review_payload_has_githubs_fields(both: Both) -> None:
    payload = payloads.pull_request_review(
        both.http,
        number=7,
        branch=BRANCH,
        head_sha=SHA,
        review_id=31,
        state="approved",
        reviewer="maria",
    )

    assert payload["action"] == "submitted"
    assert set(payload) == {"action", "review", "pull_request", "repository", "sender"}
    review = payload["review"]
    assert (review["state"], review["commit_id"], review["user"]["login"]) == (
        "approved",
        SHA,
        "maria",
    )
    head = payload["pull_request"]["head"]
    assert (head["ref"], head["sha"], head["repo"]["full_name"]) == (BRANCH, SHA, "octo/demo")
    assert payload["pull_request"]["draft"] is True


def test_a_merge_payload_names_the_merger_and_a_close_names_none(both: Both) -> None:
    merged = payloads.pull_request_closed(
        both.http, number=7, branch=BRANCH, head_sha=SHA, merged=True, sender="maria"
    )
    closed = payloads.pull_request_closed(
        both.http, number=7, branch=BRANCH, head_sha=SHA, merged=False, sender="tess"
    )

    assert (merged["action"], merged["number"]) == ("closed", 7)
    assert merged["pull_request"]["merged_by"]["login"] == "maria"
    assert merged["pull_request"]["merged_at"] is not None
    assert (closed["pull_request"]["merged"], closed["pull_request"]["merged_by"]) == (False, None)
    assert closed["pull_request"]["state"] == "closed"


def test_a_forks_check_suite_has_no_branch_and_no_pull_requests(both: Both) -> None:
    payload = payloads.check_suite_completed(
        both.http,
        branch=BRANCH,
        head_sha=SHA,
        conclusion="failure",
        suite_id=5,
        pull_requests=[7],
        from_fork=True,
    )

    assert payload["check_suite"]["head_branch"] is None
    assert payload["check_suite"]["pull_requests"] == []


def test_a_forks_workflow_run_names_the_fork_as_its_head_repository(both: Both) -> None:
    payload = payloads.workflow_run_completed(
        both.http, branch=BRANCH, head_sha=SHA, conclusion="failure", run_id=9, fork="mallory"
    )

    run = payload["workflow_run"]
    assert run["head_repository"]["full_name"] == "mallory/demo"
    assert run["repository"]["full_name"] == "octo/demo"
    assert run["pull_requests"] == []
