"""Labels over REST: created with a status label's style, styled once when GitHub made them
grey, removed without minding one already gone, looked up again when their id went stale."""

from __future__ import annotations

import json

import responses

from baton.github.client import GitHubTracker
from baton.github.tracker import LabelChange, LabelSpec, Writes
from support.github_answers import GRAPHQL, REPO, SPECS, read_issue, sent

SPEC = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")


def test_adding_a_new_status_label_styles_it_once(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    added = mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "bug", "color": "d73a4a"}, {"name": "status:received", "color": "ededed"}],
    )
    styled = mocked.patch(f"{REPO}/labels/status%3Areceived", json={})
    removed = mocked.delete(f"{REPO}/issues/3/labels/baton", json=[])
    tracker.set_labels(3, ("bug", "baton"), ("bug", "status:received"), {SPEC.name: SPEC})
    assert json.loads(added.calls[0].request.body) == {"labels": ["status:received"]}
    assert json.loads(styled.calls[0].request.body) == {
        "color": "1d76db",
        "description": "Baton: Issue just arrived",
    }
    assert removed.call_count == 1


def test_an_existing_styled_label_is_not_patched(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "status:received", "color": "1d76db", "description": "Baton: x"}],
    )
    tracker.set_labels(3, (), ("status:received",), {SPEC.name: SPEC})
    assert tracker.requests == 1


def test_removing_a_label_that_is_already_gone_is_fine(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.delete(
        f"{REPO}/issues/3/labels/status%3Areceived",
        status=404,
        json={"message": "Label does not exist"},
    )
    tracker.set_labels(3, ("status:received",), (), {})


def test_a_status_label_used_for_the_first_time_is_created_with_its_colour(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(mocked, labelled)  # status:triage is not in the repository yet
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_new"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    labelled.write(Writes(number=7, labels=LabelChange(("bug",), ("bug", "status:triage"), SPECS)))
    assert sent(created.calls[0]) == {
        "name": "status:triage",
        "color": "fbca04",
        "description": "Baton: triage",
    }
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_new"]
    assert labelled.requests == 3


def test_a_label_id_github_no_longer_knows_is_looked_up_again(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """The label was deleted and made again since the read: its old id fails the document, the
    addition is redone by name over REST, and the next write creates no stale reference."""
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"labelsAdded": None},
            "errors": [{"type": "NOT_FOUND", "path": ["labelsAdded"], "message": "no node"}],
        },
    )
    redone = mocked.post(f"{REPO}/issues/7/labels", json=[{"name": "status:received"}])
    change = LabelChange(("bug",), ("bug", "status:received"), SPECS)
    labelled.write(Writes(number=7, labels=change))
    assert sent(redone.calls[0]) == {"labels": ["status:received"]}
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_again"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    labelled.write(Writes(number=7, labels=change))
    assert len(created.calls) == 1
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_again"]
