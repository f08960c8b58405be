"""The repository role a collaborator-permission answer really gives.

GitHub's `permission` field is the legacy one: maintain reads as `write` and triage as `read`.
The real role is `role_name`; for a custom role that name is the organisation's own, and the
`user.permissions` flags say which base role it extends. The client reads every answer
through here, the model of GitHub (`baton.sim`) answering as GitHub does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ROLES = ("admin", "maintain", "write", "triage", "read")
# The `user.permissions` flags from the strongest role down; `push` is write, `pull` is read.
_FLAGS = (("admin", "admin"), ("maintain", "maintain"), ("push", "write"), ("triage", "triage"))
_LEGACY = {"admin": "admin", "write": "write", "read": "read", "push": "write", "pull": "read"}


def role_of(answer: Mapping[str, Any]) -> str:
    """admin, maintain, write, triage, read or none."""
    role = str(answer.get("role_name") or "").strip().lower()
    if role in ROLES:
        return role
    user = answer.get("user")
    flags = user.get("permissions") if isinstance(user, Mapping) else None
    if isinstance(flags, Mapping) and any(isinstance(v, bool) for v in flags.values()):
        for flag, name in _FLAGS:
            if flags.get(flag) is True:
                return name
        return "read" if flags.get("pull") is True else "none"
    return _LEGACY.get(str(answer.get("permission") or "").strip().lower(), "none")
