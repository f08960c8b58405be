"""What every payload shares (`sim/payloads/source.py`): the envelope names the repository and
the sender, and a sender is typed by its login unless told."""

from __future__ import annotations

from baton.sim.payloads.source import envelope, sender_json
from support.payload_story import Both


def test_a_bot_login_is_a_bot_and_a_person_is_a_user_unless_told(both: Both) -> None:
    assert sender_json(both.sim, "github-actions[bot]", None)["type"] == "Bot"
    assert sender_json(both.sim, "alice", None)["type"] == "User"
    assert sender_json(both.sim, "alice", True)["type"] == "Bot"


def test_the_envelope_carries_the_repository_and_the_sender_beside_the_fields(
    both: Both,
) -> None:
    sender = sender_json(both.sim, "alice", None)

    payload = envelope(both.sim, sender, action="opened")

    assert payload["action"] == "opened"
    assert payload["sender"]["login"] == "alice"
    assert payload["repository"] == both.sim.repo_json()
