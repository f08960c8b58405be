"""A repository's settings that Baton depends on but never changes: whether Actions run here,
what a workflow's token may do, and the names of the Actions secrets (GitHub never shows a
secret's value, so neither does the model). `baton doctor` reads them; the model keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Secret:
    """An Actions secret as GitHub lists it: a name and when it was set, never its value."""

    name: str
    created_at: datetime
    updated_at: datetime


@dataclass
class RepositorySettings:
    """Settings → Actions → General, and Settings → Secrets and variables → Actions."""

    actions_enabled: bool = True
    allowed_actions: str = "all"  # all | local_only | selected
    sha_pinning_required: bool = False
    default_workflow_permissions: str = "read"  # read | write
    # "Allow GitHub Actions to create and approve pull requests": off by default on GitHub; on
    # in the fakes, so a test turns it off to see GitHub's refusal.
    can_approve_pull_request_reviews: bool = True
    secrets: dict[str, Secret] = field(default_factory=dict)  # by name, upper case as GitHub keeps

    def set_secret(self, name: str, when: datetime) -> None:
        """GitHub stores secret names in upper case; setting one again keeps its creation."""
        key = name.upper()
        known = self.secrets.get(key)
        self.secrets[key] = Secret(key, known.created_at if known else when, when)
