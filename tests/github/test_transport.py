"""The transport: retries, the count and the budget, GraphQL's fall-back to REST, and errors
that carry GitHub's answer but never the token."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import responses

from action_harness import ActionRunner
from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import Writes, cost_note
from fakes.http_github import FakeGitHub
from github import GithubRetry
from support.github_answers import GRAPHQL, RECEIVED, REPO, issue_answer, node


def test_a_refusal_carries_github_s_status_and_message_with_a_422_s_details(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    answer = {"message": "Validation Failed", "errors": [{"message": "body is too long"}]}
    mocked.patch(f"{REPO}/issues/comments/9", status=422, json=answer)
    with pytest.raises(TrackerError) as raised:
        tracker.edit_comment(9, "body")
    assert (raised.value.status, raised.value.said) == (422, "Validation Failed: body is too long")


def test_failures_name_the_call_and_status_but_never_the_token(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.patch(f"{REPO}/issues/comments/9", status=500, json={"message": "Server Error"})
    with pytest.raises(TrackerError) as raised:
        tracker.edit_comment(9, "body")
    assert raised.value.status == 500
    assert "updating comment 9" in str(raised.value)
    assert "t0ken" not in str(raised.value)
    request = mocked.calls[0].request
    assert request.headers["Authorization"] in {"token t0ken", "Bearer t0ken"}


def test_server_errors_are_retried_before_giving_up(mocked: responses.RequestsMock) -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", retry=GithubRetry(total=2, backoff_factor=0))
    mocked.get(f"{REPO}/issues/4", status=502, json={"message": "Bad Gateway"})
    mocked.get(
        f"{REPO}/issues/4",
        json={"number": 4, "title": "t", "labels": [{"name": "status:received"}], "user": {}},
    )
    info = tracker.issue(4)
    assert info.labels == ("status:received",)


def test_a_repository_name_without_owner_is_refused() -> None:
    with pytest.raises(TrackerError, match="owner/name"):
        GitHubTracker("demo", "t0ken")


def test_api_url_is_honoured_for_enterprise_servers(mocked: responses.RequestsMock) -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", api_url="https://ghe.example.com/api/v3", retry=0)
    mocked.get(
        "https://ghe.example.com:443/api/v3/repos/octo/demo/issues/1",
        json={"number": 1, "labels": [], "user": {"login": "a"}},
    )
    assert tracker.issue(1).author == "a"


def test_a_document_graphql_will_not_run_sends_the_run_over_rest(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    mocked.post(
        GRAPHQL,
        json={"errors": [{"message": "Field 'issueOrPullRequest' doesn't exist on type 'Repo'"}]},
    )
    mocked.get(f"{REPO}/issues/7", json={"number": 7, "labels": [], "state": "open"})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    snapshot = labelled.read(7, with_issue=True)
    assert snapshot.issue is not None and snapshot.comments == []
    assert not labelled.graphql
    assert labelled.notes and "went on over REST" in labelled.notes[0]
    assert "doesn't exist" in labelled.notes[0]


def test_a_5xx_on_a_mutation_is_not_retried(mocked: responses.RequestsMock) -> None:
    # The default retry policy, not retry=0: reads are retried on 5xx, mutations are not.
    labelled = GitHubTracker("octo/demo", "t0ken", labels=(RECEIVED.name,))
    mocked.post(GRAPHQL, json=issue_answer([node(5, "github-actions", bot=True)]))
    write = mocked.post(GRAPHQL, status=502, json={"message": "Server Error"})
    labelled.read(7, with_issue=False)
    with pytest.raises(TrackerError) as failed:
        labelled.write(Writes(number=7, record="r", record_comment=5))
    assert failed.value.status == 502
    assert len(write.calls) == 1  # a retry would have answered 502 again
    assert labelled.requests == 2


def test_each_run_says_what_it_cost_and_what_is_left_of_each_budget(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    budget = {"x-ratelimit-limit": "1000", "x-ratelimit-remaining": "990"}
    mocked.post(
        GRAPHQL,
        json=issue_answer([]),
        headers={**budget, "x-ratelimit-resource": "graphql"},
    )
    mocked.get(
        f"{REPO}/collaborators/maria/permission",
        json={"permission": "write"},
        headers={**budget, "x-ratelimit-remaining": "977", "x-ratelimit-resource": "core"},
    )
    labelled.read(7, with_issue=True)
    labelled.permission("maria")
    assert cost_note(labelled) == (
        "2 (1 GraphQL, 1 REST); left this hour: 977 of 1,000 REST, 990 of 1,000 GraphQL"
    )
    assert cost_note(GitHubTracker("octo/demo", "t0ken")) == "0"  # no call made yet


def test_a_comment_is_not_posted_again_after_a_5xx(mocked: responses.RequestsMock) -> None:
    """GitHub may answer 502 after creating the comment; the outbox re-posts a message that
    truly never landed, so the POST is not retried (other calls are)."""
    labelled = GitHubTracker("octo/demo", "t0ken")
    posted = mocked.post(f"{REPO}/issues/7/comments", status=502, json={"message": "Bad"})
    with pytest.raises(TrackerError) as failed:
        labelled.create_comment(7, "Questions")
    assert failed.value.status == 502 and len(posted.calls) == 1


# What a transition must not load: PyGithub's ~300 classes (`github/__init__`, `MainClass`) and
# the JSON Web Token stack `github.Auth` imports for App keys Baton never holds.
NOT_LOADED = ("github.MainClass", "github.Auth", "github.Repository", "jwt", "cryptography")
# `baton run` as the console script runs it, writing the modules it loaded at exit.
RUN_RECORDING_MODULES = """
import atexit, json, sys
path = sys.argv[1]
atexit.register(lambda: open(path, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[1:] = ["run"]
from baton.__main__ import main
main()
"""


def test_a_transition_over_http_loads_pygithub_s_requester_alone(tmp_path: Path) -> None:
    """An issue entered over real HTTP (three calls): PyGithub's requester and retry did the
    calls, and neither its package's classes nor jwt and cryptography were imported."""
    with FakeGitHub() as fake:
        action = ActionRunner(fake, tmp_path)
        number, event = action.entered()
        record = tmp_path / "modules.json"
        done = subprocess.run(
            [sys.executable, "-c", RUN_RECORDING_MODULES, str(record)],
            env=action.env("issues", event),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert fake.labels_of(number) == ["status:received"]
    loaded = set(json.loads(record.read_text(encoding="utf-8")))
    assert {"github.Requester", "github.GithubRetry"} <= loaded
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_LOADED or m in NOT_LOADED) == []


def test_pygithub_is_whole_for_whoever_asks_for_it_after_the_transport() -> None:
    """The package left unexecuted runs its `__init__` on the first name asked of it: the same
    classes the transport uses, `Github` too, and PyGithub's one log handler."""
    script = (
        "import logging\n"
        "from baton.github import transport\n"
        "import github\n"
        "from github import Github, GithubException, GithubRetry\n"
        "assert GithubRetry is transport.GithubRetry, GithubRetry\n"
        "assert GithubException is transport.GithubException, GithubException\n"
        "assert github.Requester.Requester is transport.Requester\n"
        "print(Github.__name__, len(logging.getLogger('github').handlers))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Github", "1"]
