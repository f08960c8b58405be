"""The secrets the agent's job held, kept out of what the agent hands back.

The agent's own API key is in its environment, and its shell can read it; a prompt injection
can ask it to write the key into a file or its summary. Baton knows the values: those of every
variable named like a secret and of every credential it withheld from the agent. A changeset
holding one (as it is, or base64-encoded at any of the three alignments, standard or URL-safe)
is refused with the variable's name, never the value, and the result's texts have the values
replaced before they are written. Any other encoding of a secret (split, reversed, hex,
encrypted) is not found: this catches accidents and plain injections, not a determined agent.
Each check is one pass per form of each secret over the text: linear in its length.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import Changeset

MIN_LENGTH = 8  # shorter values are too likely to occur by chance to refuse a changeset for
# A variable whose name holds one of these (in any case) holds a secret; AUTH only where it
# is not AUTHOR (GIT_AUTHOR_NAME is no secret, but AUTHORIZATION is).
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "COOKIE")
REDACTED = "[secret]"  # no longer than any secret, so a redacted text never grows


@dataclass(frozen=True)
class Secret:
    """A secret's variable name and every form of its value Baton looks for."""

    name: str
    forms: tuple[bytes, ...]


def secret_named(name: str) -> bool:
    upper = name.upper()
    if any(word in upper for word in SECRET_WORDS):
        return True
    return "AUTH" in upper.replace("AUTHORIZ", "AUTHZ").replace("AUTHOR", "")


def _base64_forms(value: bytes) -> list[bytes]:
    """The characters of `value`'s base64 encoding that depend on its bytes alone, for each of
    the three places it can start within a 3-byte group, in both alphabets."""
    forms = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + value)
        first = -(-8 * shift // 6)  # the first character made only of `value`'s bits
        last = 8 * (shift + len(value)) // 6  # one past the last such character
        core = encoded[first:last]
        forms += [core, core.replace(b"+", b"-").replace(b"/", b"_")]
    return forms


def forms_of(value: str) -> tuple[bytes, ...]:
    raw = value.encode("utf-8", "surrogateescape")
    return tuple(dict.fromkeys([raw, *_base64_forms(raw)]))


def held(environ: Mapping[str, str], *, withheld: Callable[[str], bool]) -> dict[str, str]:
    """The secrets in `environ` (name -> value): variables named like one, or `withheld` from
    the agent as a credential, with a value of MIN_LENGTH characters or more."""
    return {
        name: value
        for name, value in environ.items()
        if len(value.strip()) >= MIN_LENGTH and (secret_named(name) or withheld(name))
    }


def secrets_of(values: Mapping[str, str]) -> list[Secret]:
    """Each secret (name -> value) of MIN_LENGTH characters or more, blanks around it left
    out, with the forms of its value; the longest value first."""
    found = [
        Secret(name=name, forms=forms_of(value.strip()))
        for name, value in sorted(values.items())
        if len(value.strip()) >= MIN_LENGTH
    ]
    return sorted(found, key=lambda s: -len(s.forms[0]))


def leaked(changeset: Changeset, secrets: list[Secret]) -> str | None:
    """Why the changeset cannot travel because it holds a secret (naming the variable and the
    file, never the value), or None."""
    for change in changeset.files:
        where = change.path.encode("utf-8")  # capture carries UTF-8 paths only
        data = base64.b64decode(change.contents) if change.contents else b""
        for secret in secrets:
            if any(form in where for form in secret.forms):
                return f"a path the agent wrote holds the value of {secret.name}"
            if any(form in data for form in secret.forms):
                return f"{change.path} holds the value of {secret.name}"
    return None


def redact(text: str, secrets: list[Secret]) -> str:
    """`text` with every form of every secret replaced by REDACTED, the longest first (so that a
    secret holding another is replaced whole)."""
    forms = sorted({form for secret in secrets for form in secret.forms}, key=len, reverse=True)
    for form in forms:
        shown = form.decode("utf-8", "surrogateescape")
        if shown in text:
            text = text.replace(shown, REDACTED)
    return text


def _redacted(value: Any, secrets: list[Secret]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_redacted(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item, secrets) for key, item in value.items()}
    return value


def redact_result(result: AgentResult, secrets: list[Secret]) -> AgentResult:
    """The result with every secret replaced in each of its texts (summary, questions, issues,
    an epic's specification and tasks)."""
    if not secrets:
        return result
    dumped = result.model_dump(mode="json")
    cleaned = _redacted(dumped, secrets)
    if cleaned == dumped:
        return result
    return AgentResult.model_validate_json(json.dumps(cleaned))
