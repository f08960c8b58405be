"""The files an agent's job hands back, read: its result and its changeset. Reading is I/O, so
it lives here in the Action; what the text must be is the core's (`core/model/handback.py`)."""

from __future__ import annotations

from pathlib import Path

from baton.core.model.agent_result import AgentResult, parse_agent_result
from baton.core.model.changeset import Changeset, parse_changeset
from baton.errors import BatonError, InvalidAgentResult, InvalidChangeset


def read(path: Path, what: str, error: type[BatonError]) -> str:
    """The file's text; unreadable or not UTF-8 is `error`."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 (byte {exc.start})") from exc


def read_agent_result(path: Path) -> AgentResult:
    return parse_agent_result(read(path, "the agent result", InvalidAgentResult))


def read_changeset(path: Path) -> Changeset | None:
    """The changeset beside a result, or None when the agent's job wrote none."""
    if not path.exists():
        return None
    return parse_changeset(read(path, "the changeset", InvalidChangeset))
