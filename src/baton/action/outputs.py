"""What a run hands back to the workflow: outputs, the job summary, log lines, annotations.

Standard library only, so the fast path of `baton run` can use it. Every output value goes in
a heredoc with a random delimiter (no user text can add an output). The runner executes a log
line as a command when it opens with `::` (after blanks) or holds the legacy `##[` anywhere,
so no user text reaches the log as it is: Baton's own log lines are prefixed and their `##[`
broken (`log_line`), and verbatim text is printed between `::stop-commands::` and a random
token (`quiet_block`), the runner's own way to echo untrusted text.
"""

from __future__ import annotations

import io
import json
import os
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import IO


def _token() -> str:
    """128 random bits in hex, as `secrets.token_hex(16)` makes them (`os.urandom`), without
    importing `secrets` (hashlib, hmac, random) on the fast path."""
    return os.urandom(16).hex()


OUTPUT_NAMES = ("issue", "state", "previous-state", "agent", "transitioned", "decision")


def format_outputs(values: Mapping[str, str]) -> str:
    """`name<<DELIM` blocks; the delimiter is random and checked against every value."""
    blocks = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{_token()}"
        while delimiter in value:  # pragma: no cover - 128 random bits
            delimiter = f"ghadelimiter_{_token()}"
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


# Code points that render as nothing; .NET's culture-aware search can look through them, so
# `#\u200b#[` could still read as `##[`.
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})


def _neutral(line: str) -> str:
    shown = "".join(ch for ch in line if ch == "\t" or unicodedata.category(ch) not in _INVISIBLE)
    return shown.replace("##[", "## [")


def log_line(text: str) -> str:
    """Log lines that cannot be read as workflow commands: every line (as the runner splits
    them, and more) opens with `baton: `, and a legacy `##[` gets a space."""
    return "\n".join(f"baton: {_neutral(line)}" for line in (text.splitlines() or [""]))


def quiet_block(text: str) -> str:
    """The text verbatim, between `::stop-commands::TOKEN` and `::TOKEN::`: the runner executes
    no command in between, and the random token cannot be guessed to resume early."""
    token = _token()
    while token in text:  # pragma: no cover - 128 random bits
        token = _token()
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


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
        "branch": "",
        "pull-request": "",
        "handover": "",
    }


def _path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name, "")
    return Path(value) if value else None


def ignored(env: Mapping[str, str], reason: str, issue: int | None) -> None:
    """Report an event ignored without any API call: outputs, summary and the log line."""
    from baton.core.text.markdown import escape

    write_outputs(_path(env, "GITHUB_OUTPUT"), ignored_outputs(reason, issue))
    append_summary(
        _path(env, "GITHUB_STEP_SUMMARY"),
        f"## Baton\n\nNothing to do — {escape(reason)} (0 API calls).",
    )
    print(log_line(f"ignored: {reason} (0 API calls)"))


def context_for_stdout(text: str, stdout: IO[str], environ: Mapping[str, str]) -> str:
    """The briefing as `baton context` prints it: verbatim into a file (`> prompt.md`,
    `>> $GITHUB_STEP_SUMMARY`) or outside Actions; in a workflow step whose standard output
    may be the runner's log, inside a `quiet_block`, so no line of the issue runs as a
    workflow command (`::stop-commands::`, `::error::`, `##[...]`). Use `--output` to hand the
    text to another program verbatim."""
    if environ.get("GITHUB_ACTIONS") != "true" or _is_file(stdout):
        return text
    return quiet_block(text)


def _is_file(stream: IO[str]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
