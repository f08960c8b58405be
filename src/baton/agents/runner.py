"""Run any command-line coding agent and turn what it prints into an agent result.

The prompt goes to the command on stdin and in the file named by `BATON_PROMPT_FILE`; the agent
may write its result JSON to `BATON_RESULT_FILE`, or end its output with the JSON object.
Anything else becomes a `failure` result whose summary says what went wrong, so the retry ladder
can act. The agent read untrusted issue text, so its output is hostile input too: finding the
result is linear in its length and never raises.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from baton.agents import capture
from baton.core.agent_result import AgentResult, parse_agent_result
from baton.core.changeset import Changeset
from baton.errors import CaptureFailed, InvalidAgentResult
from baton.workflow.config import WorkSettings
from baton.workflow.model import AgentStatus

TAIL = 2_000
PROBLEM = 1_000  # characters of a validation problem kept in the failure result
WINDOW = 256  # characters a candidate object is first decoded in
_OBJECT_START = re.compile(r'\{(?=[ \t\n\r]*["}])')  # only these can open a JSON object
# No GitHub credential reaches the agent, which reads untrusted issue text: what it changed
# travels as a changeset that the report job validates and commits. Patterns, upper-cased.
WITHHELD_PATTERNS = (
    "*GITHUB*TOKEN*",  # GITHUB_TOKEN, INPUT_GITHUB-TOKEN, INPUT_GITHUB_TOKEN, MY_GITHUB_TOKEN
    "GH_*TOKEN*",  # GH_TOKEN, GH_ENTERPRISE_TOKEN (the gh CLI's names)
    "GITHUB_PAT",
    "GH_PAT",
    "INPUT_RECORD-SECRET",
    "INPUT_RECORD_SECRET",
    # The runner's own credentials: artifacts, caches and OIDC tokens for the job.
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
)


def withheld(name: str) -> bool:
    """Whether the variable `name` is kept from the agent."""
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in WITHHELD_PATTERNS)


def agent_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the agent runs with: everything (its API keys, PATH, the runner's
    variables) except GitHub credentials and Baton's record secret."""
    return {k: v for k, v in environ.items() if not withheld(k)}


def _decode_from(text: str, start: int) -> tuple[object, int] | int:
    """The JSON value starting at `start` and where it ends, or where decoding failed.

    Decoding runs on a window of the text that grows only while the failure may be the
    window's cut: a JSONDecodeError counts the lines before its position, so decoding in the
    whole text at each of many candidates would be quadratic."""
    decoder = json.JSONDecoder()
    size = WINDOW
    while True:
        window = text[start : start + size]
        try:
            value, end = decoder.raw_decode(window)
        except json.JSONDecodeError as exc:
            whole = start + size >= len(text)
            cut = exc.pos >= len(window) - 16 or exc.msg.startswith("Unterminated string")
            if whole or not cut:
                return start + max(exc.pos, 1)
            size *= 4
            continue
        except RecursionError:  # nested too deep to be a result: skip what it filled
            return start + size
        except ValueError:  # a number too long to convert
            return start + 1
        return value, start + end


def _last_json_object(text: str) -> str | None:
    """The last top-level `{...}` in the text that parses as a JSON object.

    A candidate that fails to parse is skipped up to where it failed: a `{` inside what it
    read is nested in it (or in one of its strings), so not top-level."""
    found = None
    candidate = _OBJECT_START.search(text)
    while candidate is not None:
        index = candidate.start()
        decoded = _decode_from(text, index)
        if isinstance(decoded, int):
            candidate = _OBJECT_START.search(text, decoded)
            continue
        value, end = decoded
        if isinstance(value, dict):
            found = text[index:end]
        candidate = _OBJECT_START.search(text, end)
    return found


def result_from_output(output: str, returncode: int) -> AgentResult:
    """The result the output ends with, or a failure that says why there is none."""
    candidate = _last_json_object(output)
    if candidate is not None:
        try:
            return parse_agent_result(candidate)
        except InvalidAgentResult as exc:
            problem = str(exc)[:PROBLEM]
    else:
        problem = "the agent printed no JSON result"
    tail = output.strip()[-TAIL:]
    return AgentResult(
        status=AgentStatus.failure,
        confidence=0.0,
        summary=f"{problem} (exit status {returncode}). Last output:\n{tail}",
        issues_found=[problem],
    )


class CommandAgent:
    """An agent started as a shell command."""

    def __init__(self, command: str, *, timeout: float = 3600, workdir: Path | None = None):
        self.command = command
        self.timeout = timeout
        self.workdir = workdir

    def is_available(self) -> bool:
        try:
            program = shlex.split(self.command)[0]
        except (ValueError, IndexError):
            return False
        return shutil.which(program) is not None or Path(program).exists()

    def dispatch(self, prompt: str) -> AgentResult:
        with tempfile.TemporaryDirectory(prefix="baton-agent-") as scratch:
            prompt_file = Path(scratch) / "prompt.md"
            result_file = Path(scratch) / "result.json"
            prompt_file.write_text(prompt, encoding="utf-8")
            env = agent_environment(os.environ)
            env.update(BATON_PROMPT_FILE=str(prompt_file), BATON_RESULT_FILE=str(result_file))
            finished = _run(self.command, prompt, env=env, cwd=self.workdir, timeout=self.timeout)
            if finished is None:
                return AgentResult(
                    status=AgentStatus.failure,
                    confidence=0.0,
                    summary=f"the agent did not finish within {self.timeout:.0f} seconds",
                )
            stdout, returncode = finished
            written = (
                result_file.read_text(encoding="utf-8", errors="replace")
                if result_file.exists()
                else ""
            )
            return result_from_output(written if written.strip() else stdout, returncode)


def _run(
    command: str, prompt: str, *, env: dict[str, str], cwd: Path | None, timeout: float
) -> tuple[str, int] | None:
    """Run the command in a session of its own; its output and exit status, or None when it
    ran out of time. On a timeout the whole session is killed, so nothing the agent started
    keeps changing the checkout while Baton captures it, or holds the pipes open."""
    process = subprocess.Popen(
        command,
        shell=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",  # text mode; bytes that are not UTF-8 must not crash
        errors="replace",
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        stdout, _ = process.communicate(prompt, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_session(process)
        return None
    _kill_session(process)  # what the agent left running in the background
    return stdout, process.returncode


def _kill_session(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left of it
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError):  # reap; pipes closed
        process.communicate(timeout=10)


@dataclass(frozen=True)
class Outcome:
    """What one run of an agent hands to the report job."""

    result: AgentResult
    changeset: Changeset


def run_agent(agent: CommandAgent, prompt: str, *, limits: WorkSettings) -> Outcome:
    """Run the agent in its checkout and capture what it changed there.

    The base is taken before the agent runs (raises CaptureFailed when the directory is no git
    checkout: a setup error, before any attempt is spent). The capture runs whatever the agent
    did, a crash or a timeout included, so partial work is kept; a capture that fails becomes a
    refused changeset that says why."""
    checkout = capture.start(agent.workdir or Path.cwd(), environ=agent_environment(os.environ))
    result = agent.dispatch(prompt)
    try:
        changeset = capture.capture(checkout, limits, environ=agent_environment(os.environ))
    except CaptureFailed as exc:
        changeset = Changeset(
            base=checkout.base, refused=f"what the agent changed could not be read: {exc}"
        )
    return Outcome(result=result, changeset=changeset)
