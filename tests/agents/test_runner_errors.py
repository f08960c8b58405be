"""A failing agent can be read: what it writes to standard error reaches the job log as it runs,
every line opening with `agent: ` so the runner takes none for a workflow command, and its end
(the job's secrets redacted) is quoted in the failure result that reaches the issue. Any command
line the shell accepts runs, `VAR=value` prefixes included."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.agents.runner import (
    ERR_TAIL,
    LOG_PREFIX,
    CommandAgent,
    ErrorStream,
    log_lines,
    program_of,
    run_agent,
)
from baton.agents.secrets import REDACTED, secrets_of
from baton.workflow.config import WorkSettings
from baton.workflow.model import AgentStatus
from support.property_budget import budget

KEY = "sk-ant-0123456789abcdef"


def make_repo(root: Path) -> Path:
    root.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root, check=True
        )
    return root


@pytest.mark.parametrize(
    ("text", "logged"),
    [
        pytest.param("plain\n", "agent: plain\n", id="a plain line"),
        pytest.param("no newline", "agent: no newline\n", id="an unfinished line ends one"),
        pytest.param("::error::x\n", "agent: ::error::x\n", id="a workflow command is data"),
        pytest.param(
            "  ::add-mask::v\n", "agent:   ::add-mask::v\n", id="blanks before the command"
        ),
        pytest.param(
            "ok\r::warning::w\n",
            "agent: ok\nagent: ::warning::w\n",
            id="a carriage return starts a line of its own, prefixed too",
        ),
        pytest.param(
            "a\u2028::stop-commands::t\n",
            "agent: a\nagent: ::stop-commands::t\n",
            id="a Unicode line separator too",
        ),
        pytest.param("x ##[error]y\n", "agent: x ## [error]y\n", id="the legacy form anywhere"),
        pytest.param("#\u200b#[group]\n", "agent: ## [group]\n", id="an invisible inside it"),
        pytest.param("\x1b[31mred\x1b[0m\n", "agent: [31mred[0m\n", id="escapes dropped"),
        pytest.param("a\tb\n\nc\n", "agent: a\tb\nagent: \nagent: c\n", id="tabs, blank lines"),
        pytest.param("", "", id="nothing"),
    ],
)
def test_a_line_of_standard_error_is_logged_so(text: str, logged: str) -> None:
    assert log_lines(text) == logged


@settings(budget(300), derandomize=True)
@given(st.text(alphabet=st.sampled_from(":#[\r\n\u2028\u0085\x0b\x1c\u200b\u202e\x00a ")))
def test_no_line_the_runner_splits_off_is_a_workflow_command(text: str) -> None:
    logged = log_lines(text)
    for line in logged.splitlines():  # every break the runner knows, and more
        assert line.startswith(LOG_PREFIX)
        assert "##[" not in line
        assert not line.lstrip().startswith("::")
    assert len(logged.splitlines()) == len(text.splitlines())


@pytest.mark.parametrize(
    ("command", "program"),
    [
        pytest.param("claude -p", "claude", id="a simple command"),
        pytest.param(
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p", "claude", id="an assignment"
        ),
        pytest.param("A=1 B='x y' codex exec", "codex", id="assignments, one quoted"),
        pytest.param("cd sub && claude", "cd", id="the first command of a list"),
        pytest.param("env A=1 claude", None, id="env decides"),
        pytest.param("(claude -p)", None, id="a subshell"),
        pytest.param("$AGENT -p", None, id="a variable"),
        pytest.param("'unbalanced", None, id="quoting shlex cannot read"),
    ],
)
def test_the_program_of_a_command_line(command: str, program: str | None) -> None:
    assert program_of(command) == program


@pytest.mark.parametrize(
    ("command", "available"),
    [
        pytest.param("X_Y=1 true", True, id="an assignment before a program on PATH"),
        pytest.param("X=1 no-such-agent-xyz -p", False, id="an assignment before a missing one"),
        pytest.param("(true)", True, id="a subshell the shell accepts"),
        pytest.param("if true; then true; fi", True, id="a compound command"),
        pytest.param("(true", False, id="one the shell refuses"),
    ],
)
def test_any_command_line_the_shell_accepts_is_available(command: str, available: bool) -> None:
    assert CommandAgent(command).is_available() is available


def script_agent(script: str, tmp_path: Path, logged: list[str]) -> CommandAgent:
    path = tmp_path / "agent.py"
    path.write_text(script, encoding="utf-8")
    return CommandAgent(f"{sys.executable} {path}", timeout=30, log=logged.append)


def test_an_assignment_prefix_reaches_the_agent_s_environment(tmp_path: Path) -> None:
    logged: list[str] = []
    path = tmp_path / "agent.py"
    path.write_text(
        "import json, os\n"
        "print(json.dumps({'status': 'success', 'confidence': 1.0,"
        " 'summary': os.environ['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']}))\n",
        encoding="utf-8",
    )
    agent = CommandAgent(
        f"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 {sys.executable} {path}", log=logged.append
    )

    assert agent.is_available()
    assert agent.dispatch("p").summary == "1"


def test_a_failing_agent_s_standard_error_reaches_the_log_and_the_result(tmp_path: Path) -> None:
    """Codex's 401, as it happened: nothing on standard output, the reason on standard error."""
    script = (
        "import sys\n"
        "sys.stderr.write('ERROR: unexpected status 401 Unauthorized\\n::error::forged\\n')\n"
        "sys.exit(1)\n"
    )
    logged: list[str] = []

    result = script_agent(script, tmp_path, logged).dispatch("p")

    assert result.status == AgentStatus.failure
    assert result.summary == (
        "the agent printed no JSON result (exit status 1). Last output:\n\n"
        "Last lines on standard error:\n"
        "ERROR: unexpected status 401 Unauthorized\n::error::forged"
    )
    assert "".join(logged) == (
        "agent: ERROR: unexpected status 401 Unauthorized\nagent: ::error::forged\n"
    )


def test_standard_error_is_logged_while_the_agent_runs(tmp_path: Path) -> None:
    """The first line is in the log before the agent ends (it waits for the log to show it)."""
    marker = tmp_path / "seen"
    script = (
        "import pathlib, sys, time\n"
        "sys.stderr.write('working\\n'); sys.stderr.flush()\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "for _ in range(200):\n"
        "    if marker.exists(): break\n"
        "    time.sleep(0.05)\n"
        "import json\n"
        "print(json.dumps({'status': 'success', 'confidence': 1.0,"
        " 'summary': str(marker.exists())}))\n"
    )
    logged: list[str] = []

    def log(text: str) -> None:
        logged.append(text)
        marker.touch()

    path = tmp_path / "agent.py"
    path.write_text(script, encoding="utf-8")
    result = CommandAgent(f"{sys.executable} {path}", timeout=30, log=log).dispatch("p")

    assert logged == ["agent: working\n"]
    assert result.summary == "True"


def test_a_timeout_quotes_the_end_of_standard_error(tmp_path: Path) -> None:
    path = tmp_path / "agent.py"
    path.write_text(
        "import sys, time\nsys.stderr.write('stuck on the network\\n')\nsys.stderr.flush()\n"
        "time.sleep(30)\n",
        encoding="utf-8",
    )
    logged: list[str] = []

    result = CommandAgent(f"{sys.executable} {path}", timeout=1, log=logged.append).dispatch("p")

    assert result.summary == (
        "the agent did not finish within 1 seconds\n"
        "Last lines on standard error:\nstuck on the network"
    )


def test_the_job_s_secrets_are_redacted_from_the_log_and_the_result(tmp_path: Path) -> None:
    work = tmp_path / "work"
    make_repo(work)
    script = f"import sys\nsys.stderr.write('bad key {KEY}\\n')\nsys.exit(1)\n"
    logged: list[str] = []
    agent = script_agent(script, tmp_path, logged)
    agent.workdir = work

    held = secrets_of({"ANTHROPIC_API_KEY": KEY})
    outcome = run_agent(agent, "p", limits=WorkSettings(), secrets_held=held, file_command_paths={})

    assert KEY not in outcome.result.summary
    assert outcome.result.summary.endswith(f"Last lines on standard error:\nbad key {REDACTED}")
    assert "".join(logged) == f"agent: bad key {REDACTED}\n"


HOSTILE = [
    b"::error::" * 700,  # one long line, no break
    b"\r::warning::x" * 600,
    b"##[error]" * 700 + b"\n",
    b"\xff\xfe\xc3" * 500 + b"\n",
    ("#\u200b#[group]" * 400 + "\u2028").encode(),
]


def test_64_kb_of_hostile_standard_error_is_logged_safely_in_linear_time() -> None:
    data = b"".join(HOSTILE) * 8
    data = data[: 64 * 1024]
    logged: list[str] = []
    errors = ErrorStream(logged.append, secrets_of({"MY_TOKEN": "::error::#"}))
    started = time.process_time()

    for start in range(0, len(data), 7):  # a writer that dribbles
        errors.feed(data[start : start + 7])
    errors.close()

    assert time.process_time() - started < 2.0
    text = "".join(logged)
    for line in text.splitlines():
        assert line.startswith(LOG_PREFIX)
        assert "##[" not in line
    assert len(errors.tail.encode()) <= ERR_TAIL
    assert errors.tail == errors.tail.strip("\x00") and "::error::#" not in errors.tail


def test_a_huge_stderr_from_a_real_process_keeps_only_the_tail(tmp_path: Path) -> None:
    script = "import sys\nsys.stderr.write('x' * 200_000 + '\\nthe real reason\\n')\nsys.exit(3)\n"
    logged: list[str] = []

    result = script_agent(script, tmp_path, logged).dispatch("p")

    assert result.summary.endswith("x" * 100 + "\nthe real reason")
    said = result.summary.split("Last lines on standard error:\n", 1)[1]
    assert len(said) <= ERR_TAIL
    assert json.dumps(result.summary)  # no lone surrogate from a cut character
