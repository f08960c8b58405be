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

from baton.agents import capture, file_commands, reaper, secrets
from baton.core.agent_result import MAX_ITEMS, AgentResult, parse_agent_result
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
CREDENTIAL_PATTERNS = (
    "*GITHUB*TOKEN*",  # GITHUB_TOKEN, INPUT_GITHUB-TOKEN, INPUT_GITHUB_TOKEN, MY_GITHUB_TOKEN
    "GH_*TOKEN*",  # GH_TOKEN, GH_ENTERPRISE_TOKEN (the gh CLI's names)
    "GITHUB_PAT",
    "GH_PAT",
    "INPUT_RECORD-SECRET",
    "INPUT_RECORD_SECRET",
    "BATON_RECORD_SECRET",
    "BATON_APP_PRIVATE_KEY",
    # The runner's own credentials: artifacts, caches and OIDC tokens for the job.
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
)
# Not credentials, but Baton's alone: the action's inputs and Baton's settings, and the runner's
# file commands, through which a line would set variables or PATH for the job's later steps.
WITHHELD_PATTERNS = (*CREDENTIAL_PATTERNS, "INPUT_*", "BATON_*", *file_commands.FILE_COMMANDS)


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in patterns)


def credential(name: str) -> bool:
    """Whether the variable `name` holds one of the job's credentials."""
    return _matches(name, CREDENTIAL_PATTERNS)


def withheld(name: str) -> bool:
    """Whether the variable `name` is kept from the agent."""
    return _matches(name, WITHHELD_PATTERNS)


def agent_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the agent runs with: everything (its API keys, PATH, the runner's
    variables) except GitHub credentials, Baton's inputs and settings and the file commands."""
    return {k: v for k, v in environ.items() if not withheld(k)}


def secrets_of(environ: Mapping[str, str]) -> list[secrets.Secret]:
    """The secrets in `environ` that must not leave in a changeset or a result."""
    return secrets.secrets_of(secrets.held(environ, withheld=credential))


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
        self.survivors: frozenset[int] = frozenset()  # what the last run left and no kill stopped

    def is_available(self) -> bool:
        try:
            program = shlex.split(self.command)[0]
        except (ValueError, IndexError):
            return False
        return shutil.which(program) is not None or Path(program).exists()

    def dispatch(self, prompt: str) -> AgentResult:
        """Run the agent to its end; nothing it started is left running when this returns."""
        with tempfile.TemporaryDirectory(prefix="baton-agent-") as scratch:
            prompt_file = Path(scratch) / "prompt.md"
            result_file = Path(scratch) / "result.json"
            prompt_file.write_text(prompt, encoding="utf-8")
            env = agent_environment(os.environ)
            env.update(BATON_PROMPT_FILE=str(prompt_file), BATON_RESULT_FILE=str(result_file))
            finished, self.survivors = _run(
                self.command, prompt_file, env=env, cwd=self.workdir, timeout=self.timeout
            )
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
    command: str, prompt_file: Path, *, env: dict[str, str], cwd: Path | None, timeout: float
) -> tuple[tuple[str, int] | None, frozenset[int]]:
    """Run the command in a session of its own, the prompt on its standard input; its output and
    exit status (None when it ran out of time) and the processes it left that could not be
    killed. The agent has ended when its own process has (not when the last holder of its
    output lets go); then its session and every process it left behind, in the session or out of
    it, is killed, so nothing keeps changing the checkout or the files Baton writes next."""
    spared = reaper.descendants(os.getpid())  # whatever ran before the agent is not its
    with prompt_file.open("rb") as stdin, tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            command,
            shell=True,
            stdin=stdin,
            stdout=output,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, _stop(process, spared)
        survivors = _stop(process, spared)
        output.seek(0)
        # Bytes that are not UTF-8 must not crash.
        return (output.read().decode("utf-8", "replace"), process.returncode), survivors


def _stop(process: subprocess.Popen[bytes], spared: set[int]) -> frozenset[int]:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left of it
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    return frozenset(reaper.stop_descendants(spared=spared))


@dataclass(frozen=True)
class Outcome:
    """What one run of an agent hands to the report job, and the file commands (by variable)
    that the agent had changed and Baton put back."""

    result: AgentResult
    changeset: Changeset
    restored: tuple[str, ...] = ()


def run_agent(
    agent: CommandAgent,
    prompt: str,
    *,
    limits: WorkSettings,
    secrets_held: list[secrets.Secret] | None = None,
    file_command_paths: Mapping[str, str] | None = None,
) -> Outcome:
    """Run the agent in its checkout and capture what it changed there.

    The base is taken before the agent runs (raises CaptureFailed when the directory is no git
    checkout: a setup error, before any attempt is spent). The capture runs whatever the agent
    did, a crash or a timeout included, so partial work is kept; a capture that fails becomes a
    refused changeset that says why. `secrets_held` (default: those of this environment) must
    not leave: a changeset holding one is refused, and the result's texts are redacted.
    `file_command_paths` (default: this environment's) are put back as they were."""
    held = secrets_of(os.environ) if secrets_held is None else secrets_held
    paths = file_commands.paths_of(os.environ) if file_command_paths is None else file_command_paths
    kept = file_commands.keep(paths)
    checkout = capture.start(agent.workdir or Path.cwd(), environ=agent_environment(os.environ))
    result = agent.dispatch(prompt)
    restored = tuple(file_commands.restore(kept))
    try:
        changeset = capture.capture(checkout, limits, held=held)
    except CaptureFailed as exc:
        changeset = Changeset(
            base=checkout.base, refused=f"what the agent changed could not be read: {exc}"
        )
    refused = secrets.leaked(changeset, held)
    if agent.survivors:
        # Whatever they are still doing to the checkout would not be in the changeset.
        pids = ", ".join(str(pid) for pid in sorted(agent.survivors)[:5])
        refused = f"processes the agent started could not be stopped (pid {pids})"
    if refused:
        changeset = Changeset(base=checkout.base, refused=refused)
    if changeset.refused:  # it may quote what the agent chose (a path, git's complaint)
        changeset = Changeset(base=checkout.base, refused=secrets.redact(changeset.refused, held))
    result = secrets.redact_result(result, held)
    if restored and len(result.issues_found) < MAX_ITEMS:
        said = restored_text(restored)
        result = result.model_copy(update={"issues_found": [*result.issues_found, said]})
    return Outcome(result=result, changeset=changeset, restored=restored)


def restored_text(restored: tuple[str, ...]) -> str:
    named = ", ".join(f"${name}" for name in restored)
    return f"the agent changed the runner's file commands ({named}); Baton put them back"
