"""Running `tests.setup` then `tests.command` in the checkout, within `tests.timeout`, and
leaving nothing of them running.

Each command is `bash -c` (`sh -c` where bash is missing), in a session of its own, with the
agent's environment (no GitHub credential, none of Baton's inputs or settings: the tests are
agent-written code) and `BATON_JUNIT` set to a path outside the checkout. Its output goes to
standard error, so the job's log shows it. When the command exits, and at the timeout, its whole
process group is killed, then every other descendant left (on Linux `baton verify` is a child
subreaper, so a process that left the group with `setsid` is still found).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from baton.agents import reaper
from baton.agents.environment import agent_environment
from baton.workflow.durations import format_duration
from baton.workflow.suite import SuiteSettings

JUNIT_VARIABLE = "BATON_JUNIT"


@dataclass(frozen=True)
class Ran:
    """How the tests ended: the command's exit status (None if it never ran or was killed),
    or why there is no result (a timeout, a setup that failed, a shell that could not start)."""

    exit_status: int | None
    problem: str | None = None


def _shell() -> list[str]:
    return ["bash", "-c"] if shutil.which("bash") else ["/bin/sh", "-c"]


def _stop_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _run(command: str, cwd: Path, env: dict[str, str], seconds: float) -> int | None:
    """The command's exit status, or None when it ran past `seconds` (and was killed)."""
    spared = reaper.descendants(os.getpid())
    process = subprocess.Popen(
        [*_shell(), command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=2,  # the job's log, through Baton's standard error
        start_new_session=True,
    )
    try:
        status: int | None = process.wait(timeout=max(seconds, 0.0))
    except subprocess.TimeoutExpired:
        status = None
    finally:
        _stop_group(process.pid)
        process.wait()
        reaper.stop_descendants(spared=spared)
    return status


def run_suite(suite: SuiteSettings, checkout: Path, junit: Path, environ: Mapping[str, str]) -> Ran:
    """Run `setup` (if any) then `command` in `checkout`, both within `suite.timeout`."""
    env = {**agent_environment(environ), JUNIT_VARIABLE: str(junit)}
    deadline = time.monotonic() + suite.timeout.total_seconds()
    late = f"the tests ran past their timeout of {format_duration(suite.timeout)}"
    try:
        if suite.setup:
            status = _run(suite.setup, checkout, env, deadline - time.monotonic())
            if status is None:
                return Ran(None, late)
            if status != 0:
                return Ran(None, f"the setup command exited {status}")
        status = _run(suite.command, checkout, env, deadline - time.monotonic())
    except OSError as exc:
        return Ran(None, f"the test command could not start ({exc.strerror})")
    return Ran(status, None if status is not None else late)
