"""GitHub's rules for people, ids and times (`sim/model/rules.py`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from baton.sim.model import rules


@pytest.mark.parametrize(
    ("role", "permission", "push"),
    [("admin", "admin", True), ("maintain", "write", True), ("triage", "read", False)],
)
def test_the_permission_api_shows_maintain_as_write_and_triage_as_read(
    role: str, permission: str, push: bool
) -> None:
    answer = rules.permission_answer(role)
    assert (answer["permission"], answer["role_name"]) == (permission, role)
    assert isinstance(answer["permissions"], dict) and answer["permissions"]["push"] is push


def test_logins_ignore_case_strangers_read_and_unknown_accounts_have_no_role() -> None:
    people = rules.Collaborators()
    people.set("Maria", "maintain")
    people.forget("ghost")
    assert (people.role("MARIA"), people.role("bob"), people.role("Ghost")) == (
        "maintain",
        "read",
        None,
    )
    with pytest.raises(ValueError, match="unknown role"):
        people.set("bob", "owner")


def test_only_an_active_team_membership_counts() -> None:
    teams = rules.Teams()
    teams.add("Octo", "Core", "maria")
    teams.add("octo", "core", "bob", state="pending")
    assert teams.is_active_member("octo/CORE", "Maria")
    assert not teams.is_active_member("octo/core", "bob")
    assert (teams.exists("OCTO", "core"), teams.has_org("octo"), teams.has_org("x")) == (
        True,
        True,
        False,
    )


def test_ids_start_past_two_to_the_31_and_order_creation() -> None:
    ids = rules.Ids()
    assert 2**31 < ids.next() < ids.next()
    users = rules.UserIds("github-actions[bot]")
    assert users.of("github-actions[bot]") == rules.GITHUB_ACTIONS_BOT_ID
    assert users.login_of(users.of("alice")) == "alice"


def test_timestamps_are_utc_whole_seconds_with_a_z() -> None:
    moment = datetime(2026, 1, 5, 10, 0, 0, 999, tzinfo=timezone(timedelta(hours=1)))
    assert rules.timestamp(moment) == "2026-01-05T09:00:00Z"
    assert rules.timestamp(datetime(2026, 1, 5, 9, 0)) == "2026-01-05T09:00:00Z"
    assert rules.timestamp(datetime(2026, 1, 5, 9, 0, tzinfo=UTC)) == "2026-01-05T09:00:00Z"


def test_a_timestamp_writes_its_year_in_four_digits_as_a_client_parses_it() -> None:
    early = rules.timestamp(datetime(1, 1, 1, tzinfo=UTC))
    assert early == "0001-01-01T00:00:00Z"
    assert datetime.fromisoformat(early) == datetime(1, 1, 1, tzinfo=UTC)


def test_label_names_match_whatever_their_case() -> None:
    assert rules.find_label(["bug", "Docs"], "DOCS") == "Docs"
    assert rules.find_label(["bug"], "bugs") is None
