"""Which labels and users are Baton's business: the one home of these predicates.

The fast path (`core.rules.triage`, before any heavy import), the webhook parser, the engine and the
sweep all ask these, so they import only the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def is_bot(user: Mapping[str, Any], bot_login: str) -> bool:
    """A bot by GitHub's account type, by Baton's own login, or by the `[bot]` suffix."""
    login = str(user.get("login", ""))
    return (
        user.get("type") == "Bot"
        or login.casefold() == bot_login.casefold()
        or login.endswith("[bot]")
    )


def is_status(label: str, prefix: str) -> bool:
    return label.casefold().startswith(prefix.casefold())


def is_trigger(label: str, trigger: str | None) -> bool:
    return trigger is not None and label.casefold() == trigger.casefold()


def is_marker(label: str, markers: Iterable[str]) -> bool:
    """One of the labels that choose an issue's workflow (the epic and the task label)."""
    return label.casefold() in {marker.casefold() for marker in markers}


def is_ours(label: str, prefix: str, trigger: str | None, markers: Iterable[str] = ()) -> bool:
    """A status label, the trigger label or, given `markers` (`Policy.markers`), the epic or
    the task label: the labels whose coming and going Baton acts on. Only status and trigger
    labels are Baton's to remove: the markers stay on the issue, so the labels' projection
    leaves `markers` out."""
    return is_status(label, prefix) or is_trigger(label, trigger) or is_marker(label, markers)


def status_labels(labels: Iterable[str], prefix: str) -> list[str]:
    return [label for label in labels if is_status(label, prefix)]


# A state's label colour by its kind (GitHub's palette); the terminal states that mean the work
# failed or waits for a human to take it over are red.
KIND_COLOURS = {"work": "1d76db", "waiting": "fbca04", "terminal": "0e8a16"}
FAILURE_COLOUR = "b60205"
FAILURE_STATES = frozenset({"failed", "requires_human_intervention"})


def colour_of(state: str, kind: str, given: str | None = None) -> str:
    """The colour of a state's label: the workflow's own, else by kind (red for failure)."""
    if given:
        return given
    if kind == "terminal" and state in FAILURE_STATES:
        return FAILURE_COLOUR
    return KIND_COLOURS[kind]
