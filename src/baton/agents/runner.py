"""Run any command-line coding agent and turn what it prints into an agent result.

Seed 004's `AgentRunner` (dispatch / is_available / get_capabilities) is the model. The prompt
goes to the command on stdin and in the file named by `BATON_PROMPT_FILE`; the agent may write
its result JSON to `BATON_RESULT_FILE`, or end its output with the JSON object. Anything else
becomes a `failure` result whose summary says what went wrong, so the retry ladder can act.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Protocol

from baton.core.agent_result import AgentResult, parse_agent_result
from baton.errors import InvalidAgentResult
from baton.workflow.model import AgentStatus

TAIL = 2_000
# Baton's own secrets never reach the agent, which reads untrusted issue text.
WITHHELD = frozenset(
    {"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "INPUT_RECORD-SECRET", "INPUT_RECORD_SECRET"}
)


class AgentRunner(Protocol):
    def dispatch(self, prompt: str) -> AgentResult: ...

    def is_available(self) -> bool: ...

    def get_capabilities(self) -> list[str]: ...


def _last_json_object(text: str) -> str | None:
    """The last top-level `{...}` in the text that parses as JSON."""
    decoder = json.JSONDecoder()
    found = None
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            found = text[index:end]
        index = text.find("{", end)
    return found


def result_from_output(output: str, returncode: int) -> AgentResult:
    candidate = _last_json_object(output)
    if candidate is not None:
        try:
            return parse_agent_result(candidate)
        except InvalidAgentResult as exc:
            problem = str(exc)
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

    def get_capabilities(self) -> list[str]:
        return ["prompt-on-stdin", "prompt-file", "result-file", "json-on-stdout"]

    def dispatch(self, prompt: str) -> AgentResult:
        with tempfile.TemporaryDirectory(prefix="baton-agent-") as scratch:
            prompt_file = Path(scratch) / "prompt.md"
            result_file = Path(scratch) / "result.json"
            prompt_file.write_text(prompt, encoding="utf-8")
            env = {k: v for k, v in os.environ.items() if k.upper() not in WITHHELD}
            env.update(BATON_PROMPT_FILE=str(prompt_file), BATON_RESULT_FILE=str(result_file))
            try:
                done = subprocess.run(
                    self.command,
                    shell=True,
                    input=prompt,
                    capture_output=True,
                    text=True,
                    timeout=self.timeout,
                    env=env,
                    cwd=self.workdir,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return AgentResult(
                    status=AgentStatus.failure,
                    confidence=0.0,
                    summary=f"the agent did not finish within {self.timeout:.0f} seconds",
                )
            if result_file.exists() and result_file.read_text(encoding="utf-8").strip():
                return result_from_output(result_file.read_text(encoding="utf-8"), done.returncode)
            return result_from_output(done.stdout, done.returncode)
