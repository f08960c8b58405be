"""The files an agent's job hands back, read: its result, its changeset and its evidence. Reading
is I/O, so it lives here in the Action; what the text must be is the core's
(`core/model/handback.py`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from baton.core.model.agent_result import AgentResult, parse_agent_result
from baton.core.model.changeset import Changeset, parse_changeset
from baton.core.model.evidence import Evidence
from baton.core.model.handback import parse
from baton.errors import BatonError, InvalidAgentResult, InvalidChangeset, InvalidEvidence

MAX_EVIDENCE_BYTES = 32 * 1024 * 1024  # 100,000 tests with their messages fit well within


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


def result_beside(path: Path) -> tuple[AgentResult | None, str | None]:
    """The agent's result, or why it was refused: a result that does not validate is the
    agent's failure (it climbs the retry ladder, and the humans see why), never the run's."""
    try:
        return read_agent_result(path), None
    except InvalidAgentResult as exc:
        return None, str(exc)


def changeset_beside(path: Path | None) -> tuple[Changeset | None, str | None]:
    """The changeset, or why it cannot be read: then it is refused, so nothing reaches the
    branch."""
    try:
        return (read_changeset(path) if path else None), None
    except InvalidChangeset as exc:
        return None, str(exc)


def read_evidence(path: Path) -> Evidence | None:
    """`baton-evidence.json` beside a result, validated; None when the job wrote none.

    The agent's job ran agent-written code (the tests), so the file is hostile: a symbolic
    link or anything but a regular file is refused unopened (a FIFO would block the read), and
    no more than 32 MB is ever read. Anything wrong is `InvalidEvidence`, one line."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidEvidence(f"cannot read the evidence {path}: {exc.strerror}") from exc
    if stat.S_ISLNK(mode):
        raise InvalidEvidence(f"the evidence {path} is a symbolic link")
    if not stat.S_ISREG(mode):
        raise InvalidEvidence(f"the evidence {path} is not a regular file")
    data = _read_bounded(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEvidence(f"the evidence {path} is not UTF-8 (byte {exc.start})") from exc
    return parse(text, Evidence, "the evidence", InvalidEvidence)


def evidence_beside(path: Path | None) -> tuple[Evidence | None, str | None]:
    """The evidence a report carries, or why it could not be read (neither: none written)."""
    if path is None:
        return None, None
    try:
        return read_evidence(path), None
    except InvalidEvidence as exc:
        return None, str(exc)


def _read_bounded(path: Path) -> bytes:
    """The bytes of a regular file, opened without following a link or waiting on a FIFO
    (swapped in since the look), and refused past the cap without reading it all."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InvalidEvidence(f"cannot read the evidence {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise InvalidEvidence(f"the evidence {path} is not a regular file")
        if status.st_size > MAX_EVIDENCE_BYTES:
            raise InvalidEvidence(_too_big(path))
        data = handle.read(MAX_EVIDENCE_BYTES + 1)
    if len(data) > MAX_EVIDENCE_BYTES:  # grew since the look
        raise InvalidEvidence(_too_big(path))
    return data


def _too_big(path: Path) -> str:
    return f"the evidence {path} is over {MAX_EVIDENCE_BYTES // (1024 * 1024)} MB"
