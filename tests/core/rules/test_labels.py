"""`core/rules/labels.py`: which labels and users are Baton's business, case aside."""

from __future__ import annotations

import pytest

from baton.core.rules.labels import is_bot, is_marker, is_ours, is_status, is_trigger, status_labels

BOT = "github-actions[bot]"


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        pytest.param({"login": "alice", "type": "User"}, False, id="a person"),
        pytest.param({"login": "renovate", "type": "Bot"}, True, id="a bot by account type"),
        pytest.param({"login": "GitHub-Actions[BOT]"}, True, id="Baton's own login, in any case"),
        pytest.param({"login": "dependabot[bot]"}, True, id="any login ending in [bot]"),
        pytest.param({"login": "robot"}, False, id="a login that only sounds like one"),
        pytest.param({}, False, id="a user without a login"),
    ],
)
def test_a_bot_is_known_by_its_type_its_login_or_its_suffix(
    user: dict[str, str], expected: bool
) -> None:
    assert is_bot(user, BOT) is expected


@pytest.mark.parametrize(
    ("label", "ours", "status"),
    [
        pytest.param("status:triage", True, True, id="a status label"),
        pytest.param("STATUS:Triage", True, True, id="a status label in another case"),
        pytest.param("baton", True, False, id="the trigger label"),
        pytest.param("Baton", True, False, id="the trigger label in another case"),
        pytest.param("baton:epic", True, False, id="a marker (the epic's label)"),
        pytest.param("bug", False, False, id="anyone else's label"),
        pytest.param("my-status:x", False, False, id="the prefix inside another label"),
    ],
)
def test_baton_s_labels_are_status_trigger_and_marker_labels(
    label: str, ours: bool, status: bool
) -> None:
    assert is_ours(label, "status:", "baton", ["baton:epic"]) is ours
    assert is_status(label, "status:") is status


def test_without_a_trigger_no_label_triggers() -> None:
    assert not is_trigger("baton", None)
    assert is_trigger("BATON", "baton")


def test_a_marker_is_one_of_the_given_labels_in_any_case() -> None:
    assert is_marker("Baton:Task", ["baton:epic", "baton:task"])
    assert not is_marker("baton:task", [])


def test_the_status_labels_of_an_issue_keep_their_order_and_spelling() -> None:
    labels = ["bug", "status:Review", "baton", "STATUS:done"]
    assert status_labels(labels, "status:") == ["status:Review", "STATUS:done"]
