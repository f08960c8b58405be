"""What GitHub itself does to issues, comments, labels and people, written once.

Body and label limits, label names that ignore case, how the collaborator-permission API
answers, teams, issue numbers, database ids past 2**31 and the timestamps GitHub writes: GitHub's
API over the model (`sim.api`, in process and on the tests' socket) follows these.
The repository's rules are in `git`, pull requests and check runs in `pulls`, sub-issues and
dependencies in `relations`. Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

# --- limits -------------------------------------------------------------------------------------
BODY_LIMIT = 65_536  # characters in an issue or comment body
LABEL_NAME_LIMIT = 50
LABEL_DESCRIPTION_LIMIT = 100
DEFAULT_LABEL_COLOR = "ededed"  # the grey of a label created by adding it to an issue
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@dataclass(frozen=True)
class Refusal:
    """Why GitHub answers 422 Validation Failed: the field and GitHub's error code for it."""

    resource: str
    field: str
    code: str  # missing_field, invalid, custom, already_exists
    message: str | None = None

    def __str__(self) -> str:
        return self.message or f"{self.resource}.{self.field} is {self.code.replace('_', ' ')}"


def body_refusal(resource: str, text: str) -> Refusal | None:
    """GitHub refuses an issue or comment body over 65,536 characters."""
    if len(text) > BODY_LIMIT:
        message = f"body is too long (maximum is {BODY_LIMIT} characters)"
        return Refusal(resource, "body", "custom", message)
    return None


def label_refusal(name: object, color: object, description: object) -> Refusal | None:
    """GitHub's checks on a label: a name of at most 50 characters, a six-digit hex colour
    (no `#`), a description of at most 100 characters."""
    if not isinstance(name, str) or not name.strip():
        return Refusal("Label", "name", "missing_field")
    if len(name) > LABEL_NAME_LIMIT:
        message = f"name is too long (maximum is {LABEL_NAME_LIMIT} characters)"
        return Refusal("Label", "name", "custom", message)
    if not isinstance(color, str) or re.fullmatch(r"[0-9a-fA-F]{6}", color) is None:
        return Refusal("Label", "color", "invalid")
    if description is not None and (
        not isinstance(description, str) or len(description) > LABEL_DESCRIPTION_LIMIT
    ):
        message = f"description is too long (maximum is {LABEL_DESCRIPTION_LIMIT} characters)"
        return Refusal("Label", "description", "custom", message)
    return None


# --- labels -------------------------------------------------------------------------------------
def find_label(names: Iterable[str], name: str) -> str | None:
    """The label GitHub means by `name` among `names`: label names ignore case, so adding
    `Bug` where `bug` exists applies `bug`, and removing `BUG` removes it."""
    wanted = name.casefold()
    return next((known for known in names if known.casefold() == wanted), None)


# --- who may do what ----------------------------------------------------------------------------
# Repository role -> the legacy `permission` field of the collaborator-permission API: GitHub
# shows maintain as `write` and triage as `read` there; the real role is only in `role_name`.
ROLES: Mapping[str, str] = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
_RANKS = ("none", "read", "triage", "write", "maintain", "admin")


def permission_answer(role: str) -> dict[str, object]:
    """GET /repos/{owner}/{repo}/collaborators/{username}/permission for a user with `role`,
    less the user object: the legacy `permission`, the real `role_name`, and the `permissions`
    flags that go on the user object."""
    rank = _RANKS.index(role)
    flags = {
        "admin": rank >= _RANKS.index("admin"),
        "maintain": rank >= _RANKS.index("maintain"),
        "push": rank >= _RANKS.index("write"),
        "triage": rank >= _RANKS.index("triage"),
        "pull": rank >= _RANKS.index("read"),
    }
    return {"permission": ROLES[role], "role_name": role, "permissions": flags}


class Collaborators:
    """Repository roles by login. Logins ignore case; a login given no role can read (the
    repository is public); an account GitHub does not know has no permission at all (the API
    answers 404)."""

    def __init__(self) -> None:
        self._roles: dict[str, str] = {}
        self._unknown: set[str] = set()

    def set(self, login: str, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; expected one of {sorted(ROLES)}")
        self._roles[login.casefold()] = role

    def forget(self, login: str) -> None:
        """Make `login` an account GitHub does not know."""
        self._unknown.add(login.casefold())

    def role(self, login: str) -> str | None:
        """The login's role, or None for an account GitHub does not know."""
        if login.casefold() in self._unknown:
            return None
        return self._roles.get(login.casefold(), "read")


class Teams:
    """Team memberships by `org/slug`. Org, slug and login ignore case; only an `active`
    membership counts (an invitation not yet accepted is `pending`)."""

    def __init__(self) -> None:
        self._members: dict[tuple[str, str], dict[str, str]] = {}

    def add(self, org: str, team: str, login: str, *, state: str = "active") -> None:
        self._members.setdefault((org.casefold(), team.casefold()), {})[login.casefold()] = state

    def exists(self, org: str, team: str) -> bool:
        return (org.casefold(), team.casefold()) in self._members

    def has_org(self, org: str) -> bool:
        return any(known == org.casefold() for known, _ in self._members)

    def state(self, org: str, team: str, login: str) -> str | None:
        """The membership's state, or None when the login is not in the team."""
        return self._members.get((org.casefold(), team.casefold()), {}).get(login.casefold())

    def is_active_member(self, team: str, login: str) -> bool:
        org, _, slug = team.partition("/")
        return self.state(org, slug, login) == "active"


# --- numbers, ids and times ---------------------------------------------------------------------
GITHUB_ACTIONS_BOT_ID = 41898282  # github-actions[bot]'s user id on github.com
FIRST_ID = 2_250_077_000


def next_number(numbers: Iterable[int]) -> int:
    """Issues and pull requests share one sequence of numbers in a repository."""
    return max(numbers, default=0) + 1


class Ids:
    """Database ids from one increasing counter, so they order creation (a timeline sorts by
    them). They start past 2**31, as GitHub's comment ids do today: a client that keeps an id in
    32 bits fails against the fakes as it would on GitHub."""

    def __init__(self, last: int = FIRST_ID) -> None:
        self.last = last

    def next(self) -> int:
        self.last += 1
        return self.last


class UserIds:
    """A stable id per login: the bot's is github-actions[bot]'s, the others are made up."""

    def __init__(self, bot_login: str) -> None:
        self._ids: dict[str, int] = {bot_login: GITHUB_ACTIONS_BOT_ID}

    def of(self, login: str) -> int:
        return self._ids.setdefault(login, 5000 + len(self._ids))

    def login_of(self, user_id: int) -> str | None:
        return next((login for login, known in self._ids.items() if known == user_id), None)


def user_type(login: str) -> str:
    """GitHub Apps act as `name[bot]` accounts of type Bot; everyone else here is a User."""
    return "Bot" if login.endswith("[bot]") else "User"


def timestamp(moment: datetime) -> str:
    """GitHub's JSON timestamps: UTC, whole seconds, a `Z`; the year in four digits, as ISO
    8601 has it (a scenario may start in year 1; `strftime` would write `1-01-01`)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    plain = moment.astimezone(UTC).replace(microsecond=0, tzinfo=None)
    return f"{plain.isoformat()}Z"
