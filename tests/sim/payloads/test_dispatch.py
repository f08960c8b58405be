"""The dispatch and schedule payloads (`sim/payloads/dispatch.py`): inputs as GitHub sends them,
and a recorded dispatch replayed as the run it starts."""

from __future__ import annotations

import pytest

from baton.sim import payloads
from baton.sim.payloads import DispatchRequest
from baton.sim.sim_github import SimGitHub
from support.payload_story import NOW, Both, Json


def test_dispatch_inputs_are_strings_as_github_sends_them(both: Both) -> None:
    payload = payloads.workflow_dispatch(
        both.sim, {"issue": 5, "dry_run": True, "note": None}, sender="alice"
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
    replayed, payload = payloads.from_dispatch(both.sim, dispatch)

    assert replayed == name
    assert {key: payload[key] for key in expected} == expected
    assert (payload["sender"]["login"], payload["sender"]["type"]) == (
        "github-actions[bot]",
        "Bot",
    )


def test_the_simulated_github_records_its_dispatches_as_the_http_fake_does() -> None:
    from baton.github.tracker import DispatchTarget

    gh = SimGitHub(now=NOW)
    gh.dispatch(DispatchTarget(workflow="baton.yml", ref="refs/heads/main"), {"issue": "1"})

    name, payload = payloads.from_dispatch(gh, gh.dispatches[-1])

    assert name == "workflow_dispatch"
    assert payload["inputs"] == {"issue": "1"}


def test_a_schedule_has_no_repository_and_no_sender() -> None:
    assert payloads.schedule("*/15 * * * *") == {
        "schedule": "*/15 * * * *",
        "workflow": ".github/workflows/baton.yml",
    }
