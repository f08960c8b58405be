"""`baton agent` after the exec: no credential in its environment block. It adopts and kills
whatever the agent leaves running, puts the runner's file commands back, and writes the
changeset and the result where the agent cannot have redirected them.

A setup error (no git, a checkout that cannot be read) leaves a marker beside the result
instead of a result, so the report job fails once with its message and spends no attempt.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from baton.agents import reaper
from baton.agents.capture import describe
from baton.agents.file_commands import write_fresh
from baton.agents.handoff import Handoff
from baton.agents.runner import CommandAgent, restored_text, run_agent
from baton.agents.secrets import secrets_of
from baton.agents.transcript import TRANSCRIPT_FILE
from baton.core.model.changeset import SETUP_ERROR_FILE, Changeset
from baton.core.rules.budget import describe_cost
from baton.errors import AgentSetupError, CaptureFailed, ResultUnwritable


def write_setup_error(result_file: Path, message: str) -> None:
    """The marker beside the result that tells the report job to fail once with `message`
    instead of spending an attempt (written as well as it can be: the error is said anyway)."""
    with contextlib.suppress(OSError):
        result_file.parent.mkdir(parents=True, exist_ok=True)
        result_file.with_name(SETUP_ERROR_FILE).write_text(message + "\n", encoding="utf-8")


def remove_planted_setup_error(result_file: Path) -> str | None:
    """Remove a setup-error marker beside the result, and say so: Baton writes one only before
    the agent runs, and then exits, so one there now is the agent's, and the report job would
    take its failed attempt for a setup error that spends nothing and says nothing on the
    issue. None when there is none."""
    marker = result_file.with_name(SETUP_ERROR_FILE)
    if not os.path.lexists(marker):
        return None
    try:
        if marker.is_dir() and not marker.is_symlink():
            shutil.rmtree(marker)
        else:
            marker.unlink(missing_ok=True)
    except OSError as exc:  # the result is written regardless, and outranks the marker
        return f"cannot remove {marker}: {exc.strerror}"
    return f"the agent wrote {marker}; Baton removed it"


def run_contained(
    handoff: Handoff,
    warn: Callable[[str], None],
    after: Callable[[Changeset], str] | None = None,
) -> str:
    """Run the agent the handoff names, write its changeset and then its result, and return
    the log line. `warn` says what the job should know on the way; `after` runs once both are
    written, on the changeset (a red proof's `baton verify`), and its line ends the log line.
    AgentSetupError when the agent could not start (the caller writes the marker);
    ResultUnwritable when a file cannot be written."""
    reaper.become_subreaper()
    reaper.become_undumpable()
    result_file, changeset_file = Path(handoff.result_file), Path(handoff.changeset_file)
    runner = CommandAgent(handoff.command, timeout=handoff.timeout)
    try:
        done = run_agent(
            runner,
            handoff.prompt,
            limits=handoff.limits,
            secrets_held=secrets_of(handoff.secrets),
            file_command_paths=handoff.file_commands,
        )
    except CaptureFailed as exc:  # before the agent ran: no attempt spent
        raise AgentSetupError(str(exc)) from exc
    removed = remove_planted_setup_error(result_file)
    if removed:
        warn(removed)
    if done.restored:
        warn(restored_text(done.restored))
    # The transcript and the changeset first: a result is never found without them.
    transcript_file = result_file.with_name(TRANSCRIPT_FILE)
    written = (
        (transcript_file, done.transcript.encode("utf-8", "replace")),
        (changeset_file, done.changeset.model_dump_json(indent=2).encode("utf-8")),
        (result_file, done.result.model_dump_json(indent=2).encode("utf-8")),
    )
    try:
        for path, data in written:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_fresh(path, data)
    except OSError as exc:
        raise ResultUnwritable(f"cannot write {exc.filename}: {exc.strerror}") from exc
    line = (
        f"agent result: {done.result.status.value}, confidence {done.result.confidence:.2f} "
        f"-> {result_file}; {describe(done.changeset)} -> {changeset_file}; "
        f"spent {describe_cost(done.result.cost)}; "
        f"transcript ({len(written[0][1]):,} bytes) -> {transcript_file}"
    )
    return f"{line}; {after(done.changeset)}" if after is not None else line
