"""`baton run` without click: the same bytes as the click command, and none of its imports."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from action_harness import ActionRunner, parse_outputs
from baton.action import entry
from baton.cli import cli
from baton.core.model.record import split_handover
from fakes.http_github import FakeGitHub

HOSTILE_LINES = [
    "baton: plain",
    "::error title=Baton::\x1b[31mred\x1b[0m and \x1b[1;4mbold\x1b[m",
    "\x1b[2J\x1b[H\x1b[?25l cleared \x1b[38;2;255;0;0m",
    "an OSC link \x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\ and a lone \x1b",
    "\x1b[" * 1000 + "unfinished",
    "",
]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("line", HOSTILE_LINES)
@pytest.mark.parametrize("stream", [io.StringIO, Terminal], ids=["log", "terminal"])
def test_echo_writes_what_click_echo_writes(
    line: str, stream: type[io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, clicks = stream(), stream()
    monkeypatch.setattr(sys, "stdout", ours)
    entry.echo(line)
    monkeypatch.setattr(sys, "stdout", clicks)
    click.echo(line)
    assert ours.getvalue() == clicks.getvalue()


def test_a_log_loses_escape_sequences_and_a_terminal_keeps_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for stream, expected in ((io.StringIO(), "red\n"), (Terminal(), "\x1b[31mred\n")):
        monkeypatch.setattr(sys, "stdout", stream)
        entry.echo("\x1b[31mred")
        assert stream.getvalue() == expected


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, EOFError])
def test_an_interrupted_run_ends_as_the_click_command_ends(
    interrupt: type[BaseException],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted(say: object = None, *, triaged: bool = False) -> int:
        raise interrupt

    monkeypatch.setattr(entry, "run", interrupted)
    endings = []
    for start in (entry.main, lambda: cli(["run"])):
        with pytest.raises(SystemExit) as ended:
            start()
        endings.append((ended.value.code, *capsys.readouterr()))
    assert endings == [(1, "", "\nAborted!\n")] * 2


# The console script's `baton run`, and the click group's, each writing its loaded modules.
CONSOLE = "import sys\nsys.argv[1:] = ['run']\nfrom baton.__main__ import main\nmain()\n"
CLICK = "from baton.cli import cli\ncli(['run'])\n"
RECORDING = "import atexit, json, sys\natexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"  # noqa: E501


def _transition(tmp_path: Path, script: str) -> tuple[str, dict[str, str], list[str], list[str]]:
    """An issue entered over HTTP: stdout, the outputs file, the calls, the loaded modules."""
    tmp_path.mkdir()
    with FakeGitHub() as fake:
        action = ActionRunner(fake, tmp_path)
        number, event = action.entered("Export \x1b[31mas\x1b[0m CSV")
        done = subprocess.run(
            [sys.executable, "-c", RECORDING + script],
            env=action.env("issues", event),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert fake.labels_of(number) == ["status:received"]
        calls = [f"{c.method} {c.path} {c.operation} {c.status}" for c in fake.calls()]
    outputs = parse_outputs((tmp_path / "output").read_text(encoding="utf-8"))
    return done.stdout, outputs, calls, json.loads(done.stderr.splitlines()[-1])


def test_a_transition_writes_the_same_bytes_and_calls_through_either_entry(
    tmp_path: Path,
) -> None:
    console = _transition(tmp_path / "console", CONSOLE)
    clicked = _transition(tmp_path / "click", CLICK)
    # The hand-over binds the record each run wrote at its own time: its shape is the same.
    handed = [run[1].pop("handover") for run in (console, clicked)]
    assert console[:3] == clicked[:3]
    assert "transition: entered at received" in console[0]
    assert all(split_handover(value) for value in handed)


def test_a_transition_loads_neither_click_nor_the_other_commands(tmp_path: Path) -> None:
    loaded = _transition(tmp_path / "run", CONSOLE)[3]
    skipped = ("click", "baton.cli", "baton.adopt", "baton.sim")
    assert [m for m in loaded if m.startswith(skipped)] == []
    assert "baton.action.entry" in loaded


def _closed_pipe(tmp_path: Path, script: str) -> tuple[int, str]:
    """An issue entered with the log's reader gone before the run prints: status, stderr."""
    tmp_path.mkdir()
    with FakeGitHub() as fake:
        action = ActionRunner(fake, tmp_path)
        number, event = action.entered()
        process = subprocess.Popen(
            [sys.executable, "-c", script],
            env=action.env("issues", event),
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        errors = process.stderr.read()
        status = process.wait(timeout=60)
        assert fake.labels_of(number) == ["status:received"]
    return status, errors


def test_a_closed_pipe_ends_the_run_as_the_click_command_ends_it(tmp_path: Path) -> None:
    console = _closed_pipe(tmp_path / "console", CONSOLE)
    clicked = _closed_pipe(tmp_path / "click", CLICK)
    assert console == clicked == (1, "")
