"""Nothing the agent started outlives it: every process it left behind is killed before Baton
captures the checkout and writes the changeset.

Killing the agent's session is not enough: a child that calls `setsid` (or double-forks) leaves
both the session and the process tree, and an orphan is adopted by init, where Baton can no
longer tell it from anything else. On Linux `baton agent` therefore becomes a child subreaper
(`prctl(PR_SET_CHILD_SUBREAPER)`): orphans of the agent's tree are adopted by Baton's process,
stay its descendants, and `stop_descendants` finds them through `/proc` and kills them until
none is left. Elsewhere the agent's session is killed and what escaped it cannot be found.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
PR_SET_DUMPABLE = 4
PROC = Path("/proc")
STOP_WITHIN = 10.0  # seconds to kill and reap everything left; a process in D state may linger
PAUSE = 0.01


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Adopt the orphans of every descendant from now on; False where the system cannot."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def become_undumpable() -> bool:
    """Make this process's memory, environment and open files unreadable to other processes of
    the same user without CAP_SYS_PTRACE (they are owned by root in /proc from now on); the
    agent's own processes are dumpable again after their exec."""
    return _prctl(PR_SET_DUMPABLE, 0)


def _parent_of(stat: str) -> int | None:
    """The parent's pid in a `/proc/<pid>/stat` line; the name in parentheses may itself hold
    parentheses and spaces, so the fields are read after its last `)`."""
    _, paren, rest = stat.rpartition(")")
    fields = rest.split()
    if not paren or len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1])


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process visible now."""
    found = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            parent = _parent_of((entry / "stat").read_text(encoding="ascii", errors="replace"))
            if parent is not None:
                found[int(entry.name)] = parent
    return found


def descendants(pid: int) -> set[int]:
    """Every process below `pid` now (zombies included); empty where /proc is not there."""
    if not PROC.is_dir():
        return set()
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _reap(pids: Iterable[int]) -> None:
    """Collect those of `pids` that are children of ours and have ended (adopted orphans
    included); any other child is left to whoever waits for it."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def stop_descendants(*, spared: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """Kill every descendant of this process but `spared` (what was running before the agent),
    repeatedly, until none is left or STOP_WITHIN has passed; the pids still alive then."""
    me = os.getpid()
    deadline = time.monotonic() + STOP_WITHIN
    while True:
        left = descendants(me) - spared
        if not left:
            return set()
        _kill(left)
        _reap(left)
        if time.monotonic() > deadline:
            return left
        time.sleep(PAUSE)
