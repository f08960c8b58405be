"""The `issues` and `issue_comment` payloads (`sim/payloads/issues.py`): both fake GitHubs give
the same payloads, in GitHub's shapes, and `webhooks.parse` reads the same event out of either."""

from __future__ import annotations

from typing import Any

import pytest

from baton import webhooks
from baton.core.model.events import Commented, IssueChanged, Labeled
from baton.sim import payloads
from baton.workflow.config import Policy
from support.payload_story import NOW, Both, shape


def test_an_issues_payload_has_the_same_shape_from_either_fake(both: Both) -> None:
    both.label("baton", "maria")

    sim = payloads.labeled(both.sim, 1, "baton")
    http = payloads.labeled(both.http, 1, "baton")

    assert shape(sim) == shape(http)
    assert sim["issue"]["labels"][0]["name"] == http["issue"]["labels"][0]["name"] == "baton"


def test_a_comment_payload_has_the_same_shape_from_either_fake(both: Both) -> None:
    in_sim, over_http = both.comment("Commas, please.", "bob")

    sim = payloads.comment_created(both.sim, in_sim)
    http = payloads.comment_created(both.http, over_http)

    assert shape(sim) == shape(http)
    assert sim["comment"]["body"] == http["comment"]["body"] == "Commas, please."


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

    events = [webhooks.parse(name, build(gh), Policy(), now=NOW) for gh in (both.sim, both.http)]

    assert isinstance(events[0], Labeled | IssueChanged)
    assert events[0] == events[1]


def test_either_fake_gives_the_same_comment_event(both: Both) -> None:
    in_sim, over_http = both.comment("approved", "wendy")

    sim = webhooks.parse(
        "issue_comment", payloads.comment_created(both.sim, in_sim), Policy(), now=NOW
    )
    http = webhooks.parse(
        "issue_comment", payloads.comment_created(both.http, over_http), Policy(), now=NOW
    )

    assert isinstance(sim, Commented) and isinstance(http, Commented)
    assert sim.model_dump(exclude={"id", "comment_id"}) == http.model_dump(
        exclude={"id", "comment_id"}
    )


@pytest.mark.parametrize("fake", ["sim", "http"])
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


@pytest.mark.parametrize("fake", ["sim", "http"])
def test_a_named_sender_wins_and_a_bot_login_is_typed_as_a_bot(both: Both, fake: str) -> None:
    gh = getattr(both, fake)

    by_bot = payloads.opened(gh, 1, sender="renovate[bot]")["sender"]
    typed_as_user = payloads.labeled(gh, 1, "x", sender="github-actions[bot]", bot=False)

    assert (by_bot["login"], by_bot["type"]) == ("renovate[bot]", "Bot")
    assert typed_as_user["sender"]["type"] == "User"


def test_an_edit_carries_the_previous_text(both: Both) -> None:
    in_sim, _ = both.comment("looks fine", "wendy")
    both.sim.now = NOW.replace(minute=30)
    both.sim.human_edit(in_sim, "approved")

    edited = payloads.comment_edited(both.sim, in_sim, "looks fine")

    assert edited["changes"] == {"body": {"from": "looks fine"}}
    assert edited["comment"]["body"] == "approved"
    assert edited["comment"]["updated_at"] == "2026-01-05T09:30:00Z"
    assert edited["comment"]["created_at"] == "2026-01-05T09:00:00Z"


def test_a_removed_label_that_no_longer_exists_is_still_named(both: Both) -> None:
    payload = payloads.unlabeled(both.http, 1, "never-made")

    assert payload["label"]["name"] == "never-made"
