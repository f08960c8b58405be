"""What a run hands back to the workflow: outputs, the job summary, log lines, annotations.

Standard library only, so the fast path of `baton run` can use it. Every output value goes in
a heredoc with a random delimiter (no user text can add an output); log lines are prefixed so
no user text can start a workflow command (`::set-output`, `::add-mask`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from pathlib import Path

OUTPUT_NAMES = ("issue", "state", "previous-state", "agent", "transitioned", "decision")


def format_outputs(values: Mapping[str, str]) -> str:
    """`name<<DELIM` blocks; the delimiter is random and checked against every value."""
    blocks = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value:  # pragma: no cover - 128 random bits
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        blocks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(blocks)


def write_outputs(path: Path | None, values: Mapping[str, str]) -> None:
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(values))


def append_summary(path: Path | None, markdown_text: str) -> None:
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown_text.rstrip() + "\n")


def log_line(text: str) -> str:
    """A log line that cannot be read as a workflow command (`::set-output`, `::add-mask`)."""
    return "\n".join(f"baton: {line}" for line in (text.splitlines() or [""]))


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, title: str = "Baton") -> str:
    """`::error title=...::message`, escaped the way the runner expects."""
    return f"::{level} title={_escape_property(title)}::{_escape_data(message)}"


def ignored_outputs(reason: str, issue: int | None) -> dict[str, str]:
    decision = json.dumps(
        {"outcome": "ignored", "issue": issue, "reason": reason}, separators=(",", ":")
    )
    return {
        "issue": str(issue or ""),
        "state": "",
        "previous-state": "",
        "agent": "",
        "transitioned": "false",
        "decision": decision,
    }


def _path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name, "")
    return Path(value) if value else None


def ignored(env: Mapping[str, str], reason: str, issue: int | None) -> None:
    """Report an event ignored without any API call: outputs, summary and the log line."""
    from baton.core.markdown import escape

    write_outputs(_path(env, "GITHUB_OUTPUT"), ignored_outputs(reason, issue))
    append_summary(
        _path(env, "GITHUB_STEP_SUMMARY"),
        f"## Baton\n\nNothing to do — {escape(reason)} (0 API calls).",
    )
    print(log_line(f"ignored: {reason} (0 API calls)"))
