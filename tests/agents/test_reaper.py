"""Nothing the agent started outlives it: every descendant left when the agent has ended is
found through /proc and killed, whatever its session, and what ran before the agent is spared.
(`tests/action/test_agent_command.py` runs a double-forked, setsid'd child under `baton agent`,
the child subreaper.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baton.agents import reaper

LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def alive(pid: int) -> bool:
    """Running, stopped or sleeping: neither gone nor a zombie waiting for its parent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.parametrize(
    ("stat", "parent"),
    [
        pytest.param("42 (python3) S 7 42 42 0", 7, id="a plain name"),
        pytest.param("42 (a) b) S 9 42 42 0", 9, id="a name holding a parenthesis"),
        pytest.param("42 (x) S 1 7) R 3 42", 3, id="a name that looks like fields"),
        pytest.param("42 (sh) Z 0 0", 0, id="a parent of zero"),
        pytest.param("garbage", None, id="no name"),
        pytest.param("42 (sh) S", None, id="no parent field"),
        pytest.param("42 (sh) S x", None, id="a parent that is no number"),
    ],
)
def test_the_parent_is_read_after_the_last_parenthesis(stat: str, parent: int | None) -> None:
    assert reaper._parent_of(stat) == parent


@LINUX
def test_descendants_are_found_through_the_whole_tree() -> None:
    tree = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
            "time.sleep(30)",
        ]
    )
    try:
        deadline = time.monotonic() + 10
        while len(reaper.descendants(tree.pid)) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        (grandchild,) = reaper.descendants(tree.pid)
        assert {tree.pid, grandchild} <= reaper.descendants(os.getpid())
    finally:
        tree.kill()
        tree.wait()
        reaper.stop_descendants(spared=reaper.descendants(os.getpid()) - {grandchild})


@LINUX
def test_everything_started_after_the_spared_set_is_killed_and_the_rest_spared() -> None:
    before = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        spared = reaper.descendants(os.getpid())
        after = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import os, time\nif os.fork(): time.sleep(30)\n"
                "else:\n    os.setsid()\n    time.sleep(30)",
            ]
        )
        deadline = time.monotonic() + 10
        while not reaper.descendants(after.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (forked,) = reaper.descendants(after.pid)

        assert reaper.stop_descendants(spared=spared) == set()

        after.wait(timeout=5)
        assert not alive(after.pid)
        assert not alive(forked), "killed, though it left the session (init reaps it here)"
        assert before.poll() is None, "what ran before the agent is not the agent's"
    finally:
        before.kill()
        before.wait()


def test_without_proc_nothing_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(reaper, "PROC", tmp_path / "no-proc")

    assert reaper.descendants(os.getpid()) == set()
    assert reaper.stop_descendants() == set()


def test_prctl_is_refused_quietly_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")

    assert reaper.become_subreaper() is False
    assert reaper.become_undumpable() is False
