"""Every value Baton reads from the environment, read and checked with the standard library.

GitHub hands an Action its inputs as `INPUT_<NAME>` (keeping the hyphens, so `dry-run` arrives
as `INPUT_DRY-RUN`; the underscore spelling is read too) and its own facts as `GITHUB_*`; a few
knobs are `BATON_*` variables. `SOURCES` is the one table of them: where each value comes from,
what it accepts and how its text becomes a value. `action.env.ActionEnv` is built from `read`,
and the fast path of `baton run` asks `read` too before it ignores an event — so a bad value
(`dry-run: ture`) is never read as a default on one path and refused on the other: the fast
path steps aside and the full path reports it.

Standard library only: the fast path must not load pydantic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from baton.errors import InvalidInput
from baton.names import CONFIG_PATH

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_AGENT_TIMEOUT = 3600.0  # seconds `baton agent` gives the agent without --timeout or input

REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# A user login (alphanumerics and hyphens; managed users add `_shortcode`) or an App's
# `name[bot]`.
LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?(?:\[bot\])?$")


# --- how text becomes a value; each raises InvalidInput, whose text `read` ignores ---------
def flag(text: str) -> bool:
    """GitHub passes booleans as the strings `true` and `false`; nothing else is a boolean
    (`ture`, `yes` or `1` would otherwise pass for one value or the other)."""
    folded = text.casefold()
    if folded not in {"true", "false"}:
        raise InvalidInput(text)
    return folded == "true"


def whole(text: str, *, least: int) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < least:
        raise InvalidInput(text)
    return int(text)


def positive(text: str) -> int:
    return whole(text, least=1)


def run_number(text: str) -> str:
    return str(whole(text, least=0))


def http_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query or parts.fragment:
        raise InvalidInput(text)
    return text


def owner_name(text: str) -> str:
    if not REPOSITORY.match(text):
        raise InvalidInput(text)
    return text


def github_login(text: str) -> str:
    if not LOGIN.match(text):
        raise InvalidInput(text)
    return text


def as_path(text: str) -> Path:
    return Path(text)


def verbatim(text: str) -> str:
    return text


@dataclass(frozen=True)
class Source:
    """One value of `ActionEnv`: the variables it is read from (the first that is set and not
    blank wins; a blank one means "not given", as GitHub passes an unset input) and what it
    accepts, in the words of the error a maintainer sees."""

    field: str
    keys: tuple[str, ...]
    parse: Callable[[str], object] = verbatim
    accepts: str = ""
    secret: bool = False


def _input(name: str, *also: str) -> tuple[str, ...]:
    upper = name.upper()
    return (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}", *also)


SOURCES: tuple[Source, ...] = (
    Source("event_name", ("GITHUB_EVENT_NAME",)),
    Source("event_path", ("GITHUB_EVENT_PATH",), as_path),
    Source("repository", ("GITHUB_REPOSITORY",), owner_name, "owner/name, such as octo/repo"),
    Source(
        "api_url",
        ("GITHUB_API_URL",),
        http_url,
        f"an http(s) URL with its scheme, such as {DEFAULT_API_URL}",
    ),
    Source("token", _input("github-token", "GITHUB_TOKEN"), secret=True),
    Source("run_id", ("GITHUB_RUN_ID",), run_number, "a whole number"),
    Source("run_attempt", ("GITHUB_RUN_ATTEMPT",), positive, "a whole number, 1 or more"),
    Source("output", ("GITHUB_OUTPUT",), as_path),
    Source("summary", ("GITHUB_STEP_SUMMARY",), as_path),
    Source("workflow_ref", ("GITHUB_WORKFLOW_REF",)),
    Source("config", _input("config")),
    Source("dry_run", _input("dry-run"), flag, "true or false"),
    Source(
        "bot_login",
        _input("bot-login"),
        github_login,
        "a GitHub login, such as github-actions[bot]",
    ),
    Source("record_secret", _input("record-secret"), secret=True),
    Source(
        "http_timeout", ("BATON_HTTP_TIMEOUT",), positive, "a whole number of seconds, 1 or more"
    ),
    Source("agent_command", _input("agent-command", "BATON_AGENT_COMMAND")),
    Source(
        "agent_timeout",
        _input("agent-timeout", "BATON_AGENT_TIMEOUT"),
        positive,
        "a whole number of seconds, 1 or more",
    ),
)


def name_of(key: str) -> str:
    """How a maintainer knows the variable: `input dry-run`, or the variable itself."""
    if key.startswith("INPUT_"):
        return "input " + key.removeprefix("INPUT_").lower().replace("_", "-")
    return key


def _shown(text: str) -> str:
    clipped = text if len(text) <= 60 else text[:57] + "..."
    return json.dumps(clipped, ensure_ascii=False)


@dataclass
class Reading:
    """What the environment holds: the values given (parsed; absent ones are left to the
    defaults), the variable each came from, and one line per value that does not parse."""

    values: dict[str, object] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def text(self, name: str, default: str = "") -> str:
        value = self.values.get(name)
        return value if isinstance(value, str) else default

    @property
    def config(self) -> str:
        return self.text("config", CONFIG_PATH)

    @property
    def config_given(self) -> bool:
        """An explicit config path other than the default: then it must exist."""
        return self.config != CONFIG_PATH


def read(env: Mapping[str, str]) -> Reading:
    """Every value of `SOURCES` that `env` sets, checked; nothing here has a default."""
    reading = Reading()
    for source in SOURCES:
        found = next(((k, env[k].strip()) for k in source.keys if env.get(k, "").strip()), None)
        if found is None:
            continue
        key, text = found
        reading.keys[source.field] = key
        try:
            reading.values[source.field] = source.parse(text)
        except ValueError:
            shown = "" if source.secret else f" is {_shown(text)}"
            reading.problems.append(f"{name_of(key)}{shown}: expected {source.accepts}")
    return reading
