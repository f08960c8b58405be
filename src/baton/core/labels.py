"""Which labels and users are Baton's business: the one home of these predicates.

The fast path (`core.triage`, before any heavy import), the webhook parser, the engine and the
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


def is_ours(label: str, prefix: str, trigger: str | None) -> bool:
    """A status label or the trigger label: the labels Baton manages."""
    return is_status(label, prefix) or is_trigger(label, trigger)


def status_labels(labels: Iterable[str], prefix: str) -> list[str]:
    return [label for label in labels if is_status(label, prefix)]
