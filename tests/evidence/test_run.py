"""Running `tests.setup` and `tests.command` (`evidence/run.py`): setup first, its failure a
reason, and nothing they started left running, at the timeout or after a normal exit."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from baton.evidence.run import Ran, run_suite
from baton.workflow.suite import SuiteSettings

ENV = {"PATH": "/usr/bin:/bin"}


def _suite(command: str, setup: str | None = None, seconds: int = 60) -> SuiteSettings:
    return SuiteSettings(command=command, setup=setup, timeout=timedelta(seconds=seconds))


def _gone(pid: int, within: float = 5.0) -> bool:
    """The process ended (a zombie not yet reaped by init counts as ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in {"Z", "X"}:
            return True
        time.sleep(0.05)
    return False


def test_setup_runs_first_then_the_command_with_the_junit_path(tmp_path: Path) -> None:
    suite = _suite('test -f ready && printf %s "$BATON_JUNIT" > seen', setup="touch ready")
    ran = run_suite(suite, tmp_path, tmp_path.parent / "junit.xml", ENV)
    assert ran == Ran(0, None)
    assert (tmp_path / "seen").read_text() == str(tmp_path.parent / "junit.xml")


def test_the_commands_exit_status_is_kept(tmp_path: Path) -> None:
    assert run_suite(_suite("exit 1"), tmp_path, tmp_path / "j.xml", ENV) == Ran(1, None)
    assert run_suite(_suite("exit 4"), tmp_path, tmp_path / "j.xml", ENV) == Ran(4, None)


def test_a_setup_that_fails_is_a_reason_and_the_command_never_runs(tmp_path: Path) -> None:
    ran = run_suite(_suite("touch ran", setup="exit 3"), tmp_path, tmp_path / "j.xml", ENV)
    assert ran == Ran(None, "the setup command exited 3")
    assert not (tmp_path / "ran").exists()


def test_a_hung_command_is_killed_at_the_timeout_with_its_children(tmp_path: Path) -> None:
    command = "sleep 300 & echo $! > child; sleep 300"
    start = time.monotonic()
    ran = run_suite(_suite(command, seconds=1), tmp_path, tmp_path / "j.xml", ENV)
    assert ran == Ran(None, "the tests ran past their timeout of 1s")
    assert time.monotonic() - start < 10
    assert _gone(int((tmp_path / "child").read_text()))


def test_the_timeout_covers_setup_and_command_together(tmp_path: Path) -> None:
    ran = run_suite(_suite("touch ran", setup="sleep 300", seconds=1), tmp_path, tmp_path, ENV)
    assert ran == Ran(None, "the tests ran past their timeout of 1s")
    assert not (tmp_path / "ran").exists()


def test_what_the_command_left_running_is_killed_when_it_exits(tmp_path: Path) -> None:
    ran = run_suite(_suite("sleep 300 & echo $! > child; exit 0"), tmp_path, tmp_path, ENV)
    assert ran == Ran(0, None)
    assert _gone(int((tmp_path / "child").read_text()))


def test_a_checkout_that_is_not_there_is_a_reason(tmp_path: Path) -> None:
    ran = run_suite(_suite("true"), tmp_path / "missing", tmp_path / "j.xml", ENV)
    assert ran.exit_status is None
    assert ran.problem is not None and ran.problem.startswith("the test command could not start")
