"""`baton agent`: the result is the last top-level JSON object the agent printed (or wrote to
its result file); anything else is a failure result saying why. The agent read hostile issue
text, so its output is hostile too: extraction never raises and stays linear."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baton.agents import runner as runner_module
from baton.agents.runner import (
    CommandAgent,
    result_from_output,
    run_agent,
)
from baton.core.model.agent_result import AgentResult
from baton.workflow.config import WorkSettings
from baton.workflow.model import AgentStatus

RESULT = {"status": "success", "confidence": 0.9, "summary": "done"}
GOOD = json.dumps(RESULT)
SUCCESS = AgentResult(status=AgentStatus.success, confidence=0.9, summary="done")


def failure(problem: str, returncode: int, tail: str) -> AgentResult:
    return AgentResult(
        status=AgentStatus.failure,
        confidence=0.0,
        summary=f"{problem} (exit status {returncode}). Last output:\n{tail}",
        issues_found=[problem],
    )


NO_JSON = "the agent printed no JSON result"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        pytest.param(GOOD, SUCCESS, id="the output is the result"),
        pytest.param(f"Working...\nDone.\n{GOOD}\n", SUCCESS, id="the result ends the output"),
        pytest.param(f"```json\n{GOOD}\n```", SUCCESS, id="the result in a code fence"),
        pytest.param(f"{GOOD}\nBye.", SUCCESS, id="text after the result"),
        pytest.param(
            '{"status": "failure", "confidence": 0.1}\n' + GOOD, SUCCESS, id="the last one wins"
        ),
        pytest.param(
            GOOD + '\n{"note": "x"}',
            failure(
                "the agent result does not validate: status: Field required; "
                "confidence: Field required",
                0,
                GOOD + '\n{"note": "x"}',
            ),
            id="a later object that is no result",
        ),
        pytest.param(
            '{"status": "success", "confidence": 0.9, "summary": "done", "meta": {"a": 1}}',
            SUCCESS,
            id="a nested object is not a candidate of its own",
        ),
        pytest.param(
            'Use {"a": {"status": "success", "confidence": 0.9}',
            failure(NO_JSON, 0, 'Use {"a": {"status": "success", "confidence": 0.9}'),
            id="an object inside an unclosed one is not top-level",
        ),
        pytest.param(f"{{{{ {{ {{a}} {GOOD}", SUCCESS, id="stray braces before the result"),
        pytest.param('{"a" oops} ' + GOOD, SUCCESS, id="a broken object before the result"),
        pytest.param(
            "{'status': 'success'} " + GOOD, SUCCESS, id="a python dict before the result"
        ),
        pytest.param(
            '{"summary": "' + "x" * 5_000 + '", "status": "success", "confidence": 0.5}',
            AgentResult(status=AgentStatus.success, confidence=0.5, summary="x" * 5_000),
            id="a result longer than the first window",
        ),
        pytest.param(
            '{"summary": "{\\"status\\": 1}", "status": "success", "confidence": 0.5}',
            AgentResult(status=AgentStatus.success, confidence=0.5, summary='{"status": 1}'),
            id="an object written inside a string",
        ),
        pytest.param("", failure(NO_JSON, 0, ""), id="no output"),
        pytest.param("no json here", failure(NO_JSON, 0, "no json here"), id="plain text"),
        pytest.param("[1, 2]", failure(NO_JSON, 0, "[1, 2]"), id="an array is no result"),
        pytest.param(
            '{"a": ' * 20_000,
            failure(NO_JSON, 0, ('{"a": ' * 20_000).strip()[-2_000:]),
            id="nesting too deep to decode",
        ),
        pytest.param(
            '{"a": ' + "9" * 5_000 + "}",
            failure(NO_JSON, 0, ('{"a": ' + "9" * 5_000 + "}")[-2_000:]),
            id="a number too long to convert",
        ),
        pytest.param(
            '{"status": "maybe", "confidence": 2}',
            failure(
                "the agent result does not validate: status: Input should be 'success', "
                "'failure' or 'blocked'; confidence: Input should be less than or equal to 1",
                0,
                '{"status": "maybe", "confidence": 2}',
            ),
            id="a result that does not validate says why",
        ),
    ],
)
def test_the_result_is_the_last_top_level_object_the_agent_printed(
    output: str, expected: AgentResult
) -> None:
    assert result_from_output(output, 0) == expected


def test_a_failure_keeps_the_exit_status_and_only_the_tail_of_the_output() -> None:
    result = result_from_output("x" * 3_000 + "END", 7)

    assert result == failure(NO_JSON, 7, "x" * 1_997 + "END")


def test_a_long_validation_problem_is_clipped_so_the_failure_validates() -> None:
    items = ["q" * 20_001] * 50
    result = result_from_output(json.dumps({**RESULT, "questions": items}), 1)

    assert result.status is AgentStatus.failure
    assert len(result.issues_found[0]) <= 1_000


def agent(script: str, tmp_path: Path) -> CommandAgent:
    path = tmp_path / "agent.py"
    path.write_text(script, encoding="utf-8")
    return CommandAgent(f"{sys.executable} {path}", timeout=30)


def test_the_command_reads_the_prompt_and_prints_its_result(tmp_path: Path) -> None:
    script = (
        "import json, os, sys\n"
        "prompt = sys.stdin.read()\n"
        "assert open(os.environ['BATON_PROMPT_FILE']).read() == prompt\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': prompt}))\n"
    )

    result = agent(script, tmp_path).dispatch("the prompt")

    assert result == AgentResult(status=AgentStatus.success, confidence=1, summary="the prompt")


def test_the_prompt_and_result_files_have_names_an_agent_can_tell(tmp_path: Path) -> None:
    script = (
        "import json, os, pathlib\n"
        "names = ('BATON_PROMPT_FILE', 'BATON_RESULT_FILE')\n"
        "files = [pathlib.Path(os.environ[n]) for n in names]\n"
        "names = [f.parent.name[:12] + '/' + f.name for f in files]\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': ' '.join(names)}))\n"
    )

    summary = agent(script, tmp_path).dispatch("p").summary

    assert summary == "baton-agent-/prompt.md baton-agent-/result.json"


def test_the_prompt_file_is_utf8(tmp_path: Path) -> None:
    script = (
        "import json, os\n"
        "text = open(os.environ['BATON_PROMPT_FILE'], 'rb').read().decode('utf-8')\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': text}))\n"
    )

    assert agent(script, tmp_path).dispatch("é ✓ 😀").summary == "é ✓ 😀"


def test_a_result_file_wins_over_the_output(tmp_path: Path) -> None:
    script = (
        "import json, os\n"
        f"open(os.environ['BATON_RESULT_FILE'], 'w').write({GOOD!r})\n"
        'print(\'{"status": "failure", "confidence": 0}\')\n'
    )

    assert agent(script, tmp_path).dispatch("p") == SUCCESS


def test_the_agent_runs_in_its_working_directory(tmp_path: Path) -> None:
    script = (
        "import json, os\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': os.getcwd()}))\n"
    )
    (tmp_path / "work").mkdir()
    (tmp_path / "agent.py").write_text(script, encoding="utf-8")
    runner = CommandAgent(f"{sys.executable} {tmp_path / 'agent.py'}", workdir=tmp_path / "work")

    assert runner.dispatch("p").summary == str(tmp_path / "work")


def test_a_result_file_that_is_not_utf8_is_still_read(tmp_path: Path) -> None:
    write = f"write(b'\\xff' + {GOOD!r}.encode())"
    script = f"import os\nopen(os.environ['BATON_RESULT_FILE'], 'wb').{write}\n"

    assert agent(script, tmp_path).dispatch("p") == SUCCESS


def test_output_that_is_not_utf8_fails_only_the_agent(tmp_path: Path) -> None:
    script = "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe broken')\nsys.exit(3)\n"

    result = agent(script, tmp_path).dispatch("p")

    assert result == failure(NO_JSON, 3, "\ufffd\ufffd broken")


def test_baton_secrets_are_withheld_from_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INPUT_GITHUB-TOKEN", "tok-3141")
    monkeypatch.setenv("INPUT_RECORD_SECRET", "tok-3141")
    script = (
        "import json, os\n"
        "leaked = [k for k in os.environ if 'tok-3141' in os.environ[k]]\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': str(leaked)}))\n"
    )

    assert agent(script, tmp_path).dispatch("p").summary == "[]"


def test_an_agent_that_runs_too_long_fails(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("import time\ntime.sleep(5)\n", encoding="utf-8")
    slow = CommandAgent(f"{sys.executable} {tmp_path / 'agent.py'}", timeout=0.5)

    assert slow.dispatch("p") == AgentResult(
        status=AgentStatus.failure,
        confidence=0.0,
        summary="the agent did not finish within 0 seconds",
    )


@pytest.mark.parametrize(
    ("command", "available"),
    [
        pytest.param(f"{sys.executable} -c pass", True, id="a program on disk"),
        pytest.param("sh -c true", True, id="a program on the path"),
        pytest.param("no-such-agent --print", False, id="a program nowhere"),
        pytest.param("'unbalanced", False, id="a command that does not split"),
        pytest.param("", False, id="an empty command"),
    ],
)
def test_an_agent_is_available_when_its_program_exists(command: str, available: bool) -> None:
    assert CommandAgent(command).is_available() is available


def test_the_agent_has_ended_when_its_process_has_even_if_a_child_holds_its_output(
    tmp_path: Path,
) -> None:
    script = (
        "import json, subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(json.dumps({'status': 'success', 'confidence': 1, 'summary': 'left one'}))\n"
    )
    runner = agent(script, tmp_path)
    started = time.monotonic()

    result = runner.dispatch("p")

    assert result.summary == "left one"
    assert time.monotonic() - started < 20, "not held until the timeout by the child's pipe"
    assert runner.survivors == frozenset()


def _checkout(root: Path) -> Path:
    root.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root, check=True
        )
    return root


def test_a_changeset_is_refused_when_something_the_agent_started_could_not_be_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process the agent started as another user (say, through sudo) cannot be killed.
    monkeypatch.setattr(runner_module.reaper, "stop_descendants", lambda spared: {4242, 77})
    script = "import pathlib\npathlib.Path('new.txt').write_text('x')\nprint('{}')\n"
    (tmp_path / "agent.py").write_text(script, encoding="utf-8")
    work = _checkout(tmp_path / "work")
    command = CommandAgent(f"{sys.executable} {tmp_path / 'agent.py'}", workdir=work)

    done = run_agent(command, "p", limits=WorkSettings(), secrets_held=[], file_command_paths={})

    assert done.changeset.files == []
    assert (
        done.changeset.refused == "processes the agent started could not be stopped (pid 77, 4242)"
    )
