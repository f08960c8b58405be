"""Run any command-line coding agent and turn what it prints into an agent result.

The prompt goes to the command on stdin and in the file named by `BATON_PROMPT_FILE`; the agent
may write its result JSON to `BATON_RESULT_FILE`, or end its output with the JSON object.
Anything else becomes a `failure` result whose summary says what went wrong, so the retry ladder
can act. The agent read untrusted issue text, so its output is hostile input too: finding the
result is linear in its length and never raises.

What the agent writes to standard error reaches the job log as it runs, each line opening with
`agent: ` (`log_lines`): the runner executes a line as a workflow command when it opens with
`::` or holds `##[`, and it splits lines at `\r` too. The end of it (ERR_TAIL bytes, the job's
secrets redacted) is quoted in a failure result, so a CLI's own error (a 401, a bad flag)
reaches the issue.
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
import sys
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from baton.agents import capture, file_commands, reaper, secrets, transcript
from baton.agents.cli_report import read_report, with_cost
from baton.agents.environment import agent_environment, secrets_of
from baton.core.model.agent_result import MAX_ITEMS, AgentResult, parse_agent_result
from baton.core.model.changeset import Changeset
from baton.errors import CaptureFailed, InvalidAgentResult
from baton.workflow.config import WorkSettings
from baton.workflow.model import AgentStatus

TAIL = 2_000
ERR_TAIL = 2_048  # bytes of the agent's standard error kept for a failure result
LOG_LINE = 4_096  # characters of one line of standard error logged before it is broken
LOG_PREFIX = "agent: "
PROBLEM = 1_000  # characters of a validation problem kept in the failure result
WINDOW = 256  # characters a candidate object is first decoded in
_OBJECT_START = re.compile(r'\{(?=[ \t\n\r]*["}])')  # only these can open a JSON object
# Code points that render as nothing: .NET's culture-aware search can look through them, so
# `#\u200b#[` could still read as `##[`; `\r` would start a line of the runner's own.
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Words after which the shell, not PATH, decides what runs.
_SHELL_WORDS = frozenset(
    {"!", "{", "(", "if", "for", "while", "until", "case", "exec", "command", "env", "time"}
)


def log_lines(text: str) -> str:
    """The agent's text as job log lines that cannot be read as workflow commands: every line
    (as `str.splitlines` splits, which includes every break the runner knows) opens with
    `agent: `, unseen characters are dropped and a legacy `##[` gets a space. Linear."""
    lines = []
    for line in text.splitlines():
        shown = "".join(
            ch for ch in line if ch == "\t" or unicodedata.category(ch) not in _INVISIBLE
        )
        lines.append(LOG_PREFIX + shown.replace("##[", "## ["))
    return "".join(f"{line}\n" for line in lines)


def program_of(command: str) -> str | None:
    """The program a simple command line starts, after its `NAME=value` assignments; None where
    the shell decides (a compound command, a builtin that runs another, quoting shlex cannot
    read)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words or words[0] in _SHELL_WORDS or any(ch in words[0] for ch in "$`;&|<>()"):
        return None
    return words[0]


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


def result_from_output(output: str, returncode: int, errors: str = "") -> AgentResult:
    """The result the output ends with, or a failure that says why there is none, quoting the
    end of the output and of what the agent wrote to standard error (`errors`)."""
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
        summary=f"{problem} (exit status {returncode}). Last output:\n{tail}" + errors_said(errors),
        issues_found=[problem],
    )


def errors_said(errors: str) -> str:
    """How a failure result quotes the end of the agent's standard error (nothing when empty)."""
    shown = errors.strip()
    return f"\nLast lines on standard error:\n{shown}" if shown else ""


class ErrorStream:
    """The agent's standard error, read as it comes: logged line by line (`log_lines`, the
    job's secrets redacted; an unfinished line is held back for at most LOG_LINE bytes) and its
    last ERR_TAIL bytes kept. Each byte is handled a bounded number of times: linear in what
    the agent writes."""

    def __init__(
        self,
        log: Callable[[str], None],
        held: list[secrets.Secret],
        whole: transcript.Kept | None = None,
    ) -> None:
        self.log = log
        self.held = held
        self.whole = whole or transcript.Kept()  # its head and tail, for the transcript
        self.kept = bytearray()
        self.pending = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.whole.feed(chunk)
        self.kept += chunk
        if len(self.kept) > 2 * ERR_TAIL:
            del self.kept[: len(self.kept) - ERR_TAIL]
        end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if end >= 0:  # each held-back byte is copied once, when its line is written
            self._write(bytes(self.pending) + chunk[: end + 1])
            self.pending = bytearray(chunk[end + 1 :])
        else:
            self.pending += chunk
        if len(self.pending) > LOG_LINE:
            self._write(bytes(self.pending))
            self.pending = bytearray()

    def close(self) -> None:
        if self.pending:
            self._write(bytes(self.pending))
            self.pending = bytearray()

    def _write(self, data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        self.log(log_lines(secrets.redact(text, self.held) if self.held else text))

    @property
    def tail(self) -> str:
        """The last ERR_TAIL bytes, from the first whole character, secrets redacted."""
        text = bytes(self.kept[-ERR_TAIL:]).decode("utf-8", "replace").lstrip("\ufffd")
        return secrets.redact(text, self.held) if self.held else text


def _to_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


class CommandAgent:
    """An agent started as a shell command."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 3600,
        workdir: Path | None = None,
        log: Callable[[str], None] = _to_stderr,
    ):
        self.command = command
        self.timeout = timeout
        self.workdir = workdir
        self.log = log  # where the agent's standard error goes as it runs: the job log
        self.survivors: frozenset[int] = frozenset()  # what the last run left and no kill stopped
        self.transcript = ""  # the last run's, bounded and redacted (agents/transcript.py)

    def is_available(self) -> bool:
        """False only for a simple command whose program is on no folder of PATH: the shell
        decides about anything else (`VAR=value claude`, `cd x && claude`, a function)."""
        if not self.command.strip():
            return False
        program = program_of(self.command)
        if program is None:  # the shell's own syntax check (`sh -n` reads, runs nothing)
            checked = subprocess.run(
                ["/bin/sh", "-n", "-c", self.command], capture_output=True, check=False
            )
            return checked.returncode == 0
        return shutil.which(program) is not None or Path(program).exists()

    def dispatch(self, prompt: str, *, held: list[secrets.Secret] | None = None) -> AgentResult:
        """Run the agent to its end; nothing it started is left running when this returns.
        `held` are redacted from the standard error logged and quoted."""
        with tempfile.TemporaryDirectory(prefix="baton-agent-") as scratch:
            prompt_file = Path(scratch) / "prompt.md"
            result_file = Path(scratch) / "result.json"
            prompt_file.write_text(prompt, encoding="utf-8")
            env = agent_environment(os.environ)
            env.update(BATON_PROMPT_FILE=str(prompt_file), BATON_RESULT_FILE=str(result_file))
            shown = transcript.with_json_forms(held or [])
            margin = transcript.margin_of(shown)
            errors = ErrorStream(self.log, held or [], transcript.Kept(margin=margin))
            out = transcript.Kept(margin=margin)
            finished, self.survivors = _run(
                self.command,
                prompt_file,
                env=env,
                cwd=self.workdir,
                timeout=self.timeout,
                errors=errors,
            )
            if finished is not None:
                out.feed(finished[0].encode("utf-8", "surrogateescape"))
            self.transcript = transcript.render(
                command=self.command,
                exit_status=None if finished is None else finished[1],
                stdout=out,
                stderr=errors.whole,
                held=shown,
            )
            if finished is None:
                return AgentResult(
                    status=AgentStatus.failure,
                    confidence=0.0,
                    summary=f"the agent did not finish within {self.timeout:.0f} seconds"
                    + errors_said(errors.tail),
                )
            stdout, returncode = finished
            written = (
                result_file.read_text(encoding="utf-8", errors="replace")
                if result_file.exists()
                else ""
            )
            report = read_report(stdout)  # a CLI's envelope: the reply in it, and the spend
            if report.error:  # said on standard output, where the job log would miss it
                errors.feed(f"{report.error}\n".encode("utf-8", "replace"))
                errors.close()
            reply = stdout if report.reply is None else report.reply
            output = written if written.strip() else reply
            return with_cost(result_from_output(output, returncode, errors.tail), report.cost)


def _pump(stream: int, errors: ErrorStream) -> None:
    """Feed what comes down the pipe to `errors` until every writer has let go of it."""
    try:
        while chunk := os.read(stream, 65_536):
            errors.feed(chunk)
    except OSError:  # pragma: no cover - the pipe's read end is ours until closed
        pass
    finally:
        errors.close()


def _run(
    command: str,
    prompt_file: Path,
    *,
    env: dict[str, str],
    cwd: Path | None,
    timeout: float,
    errors: ErrorStream,
) -> tuple[tuple[str, int] | None, frozenset[int]]:
    """Run the command in a session of its own, the prompt on its standard input; its output and
    exit status (None when it ran out of time) and the processes it left that could not be
    killed. The agent has ended when its own process has (not when the last holder of its
    output lets go); then its session and every process it left behind, in the session or out of
    it, is killed, so nothing keeps changing the checkout or the files Baton writes next. Its
    standard error goes to `errors` as it comes, read by a thread until the last writer is gone
    (waited for a bounded time after the kills: a survivor may hold it)."""
    spared = reaper.descendants(os.getpid())  # whatever ran before the agent is not its
    read_end, write_end = os.pipe()
    pump = threading.Thread(target=_pump, args=(read_end, errors), daemon=True)
    with prompt_file.open("rb") as stdin, tempfile.TemporaryFile() as output:
        try:
            process = subprocess.Popen(
                command,
                shell=True,
                stdin=stdin,
                stdout=output,
                stderr=write_end,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        pump.start()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            survivors = _stop(process, spared)
            _drain(pump, read_end)
            return None, survivors
        survivors = _stop(process, spared)
        _drain(pump, read_end)
        output.seek(0)
        # Bytes that are not UTF-8 must not crash.
        return (output.read().decode("utf-8", "replace"), process.returncode), survivors


def _drain(pump: threading.Thread, read_end: int) -> None:
    """Let the pump read what is left; a survivor holding the pipe open is not waited for."""
    pump.join(timeout=5)
    if not pump.is_alive():
        os.close(read_end)


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
    transcript: str = ""


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
    result = agent.dispatch(prompt, held=held)
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
    return Outcome(
        result=result, changeset=changeset, restored=restored, transcript=agent.transcript
    )


def restored_text(restored: tuple[str, ...]) -> str:
    named = ", ".join(f"${name}" for name in restored)
    return f"the agent changed the runner's file commands ({named}); Baton put them back"
