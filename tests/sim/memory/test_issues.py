"""The in-memory GitHub's calls on an issue and its record (`sim/memory/issues.py`): GitHub's
refusals and rules as the `Tracker` meets them (the rules themselves are tested on the model,
in tests/sim/model/)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from baton.errors import TrackerError
from baton.github.tracker import LabelSpec
from baton.sim.memory_github import MemoryGitHub
from baton.sim.model import rules

SPEC = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")


@pytest.fixture
def gh() -> MemoryGitHub:
    hub = MemoryGitHub()
    hub.open_issue("Export as CSV", author="alice")
    return hub


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda gh, body: gh.create_comment(1, body), id="a new comment"),
        pytest.param(
            lambda gh, body: gh.edit_comment(gh.create_comment(1, "short"), body), id="an edit"
        ),
    ],
)
def test_a_body_over_githubs_limit_is_refused_and_one_at_the_limit_is_not(
    gh: MemoryGitHub, write: Callable[[MemoryGitHub, str], object]
) -> None:
    write(gh, "x" * rules.BODY_LIMIT)

    with pytest.raises(TrackerError) as refused:
        write(gh, "x" * (rules.BODY_LIMIT + 1))

    assert refused.value.status == 422
    assert "maximum is 65536 characters" in str(refused.value)


def test_a_label_baton_creates_in_another_case_is_the_one_already_there(gh: MemoryGitHub) -> None:
    gh.human_label(1, "Status:Received", by="maria")
    gh.human_label(1, "Status:Received", add=False, by="maria")

    gh.set_labels(1, (), (SPEC.name,), {SPEC.name: SPEC})

    assert gh.labels_of(1) == ["Status:Received"]
    # GitHub had the label: nothing was created, it keeps its grey
    assert [(x.name, x.color) for x in gh.store.labels.values()] == [("Status:Received", "ededed")]


def test_a_label_name_over_50_characters_is_refused(gh: MemoryGitHub) -> None:
    with pytest.raises(TrackerError) as refused:
        gh.set_labels(1, (), ("status:" + "x" * 44,), {})

    assert refused.value.status == 422
    assert gh.labels_of(1) == []


def test_a_role_is_read_from_githubs_answer_and_an_account_without_one_is_none(
    gh: MemoryGitHub,
) -> None:
    gh.set_permission("Maria", "maintain")
    gh.set_permission("ghost", "none")

    assert [gh.permission(login) for login in ("maria", "stranger", "ghost")] == [
        "maintain",
        "read",  # a public repository
        "none",  # GitHub answers 404
    ]


def test_a_team_is_named_org_slash_slug(gh: MemoryGitHub) -> None:
    gh.add_team_member("octo/QA", "Bob")

    assert gh.is_team_member("octo/qa", "bob")
    assert not gh.is_team_member("octo/docs", "bob")


def test_a_reaction_github_does_not_have_is_refused(gh: MemoryGitHub) -> None:
    comment = gh.human_comment(1, "approved", author="wendy").id

    gh.react(comment, "eyes")
    with pytest.raises(TrackerError):
        gh.react(comment, "thumbsup")

    assert gh.reactions_of(comment) == ["eyes"]


def test_closing_records_who_closed_and_bumps_updated_at(gh: MemoryGitHub) -> None:
    opened_at = gh.issue(1).updated_at
    gh.now = gh.now.replace(hour=10)

    gh.human_close(1, by="maria")

    assert gh.issue(1).state == "closed"
    assert gh.issue(1).updated_at != opened_at
    assert gh.last_actor(1, "closed") == ("maria", "User")
