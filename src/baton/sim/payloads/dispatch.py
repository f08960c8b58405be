"""The payloads of runs nobody's change on an issue starts: `workflow_dispatch`,
`repository_dispatch` (and a recorded dispatch replayed as its run), and `schedule`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton.sim.payloads.source import (
    DEFAULT_WORKFLOW,
    DispatchRequest,
    Json,
    Source,
    envelope,
    sender_json,
)


# --- dispatch and schedule ----------------------------------------------------------------------
def _input_string(value: Any) -> str:
    """`github.event.inputs` holds strings (booleans as "true"/"false")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def workflow_dispatch(
    source: Source,
    inputs: Mapping[str, Any],
    *,
    sender: str,
    ref: str = "refs/heads/main",
    workflow: str = DEFAULT_WORKFLOW,
) -> Json:
    return envelope(
        source,
        sender_json(source, sender, None),
        inputs={key: _input_string(value) for key, value in inputs.items()},
        ref=ref,
        workflow=workflow,
    )


def repository_dispatch(
    source: Source,
    event_type: str,
    client_payload: Mapping[str, Any] | None = None,
    *,
    sender: str,
    branch: str = "main",
) -> Json:
    """`action` is the `event_type`; `client_payload` keeps its JSON types."""
    return envelope(
        source,
        sender_json(source, sender, None),
        action=event_type,
        branch=branch,
        client_payload=dict(client_payload or {}),
        installation={"id": 1, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="},
    )


def from_dispatch(source: Source, dispatch: DispatchRequest) -> tuple[str, Json]:
    """The `(event name, payload)` of the run a recorded dispatch starts, sent by the token's
    identity (the bot): a test chains runs by replaying what Baton dispatched."""
    sender = source.bot_login
    if dispatch.kind == "workflow_dispatch":
        ref = dispatch.ref or "main"
        payload = workflow_dispatch(
            source,
            dispatch.inputs,
            ref=ref if ref.startswith("refs/") else f"refs/heads/{ref}",
            workflow=f".github/workflows/{dispatch.workflow}",
            sender=sender,
        )
        return "workflow_dispatch", payload
    payload = repository_dispatch(
        source, dispatch.event_type or "", dispatch.client_payload, sender=sender
    )
    return "repository_dispatch", payload


def schedule(cron: str, *, workflow: str = DEFAULT_WORKFLOW) -> Json:
    """A `schedule` run's event: GitHub sends no webhook payload, only the cron string
    (`github.event.schedule`) and the workflow path; no repository, no sender."""
    return {"schedule": cron, "workflow": workflow}
