"""`baton run` as the Action starts it, without building the click group.

A transition's run needs none of click's parsing (the command takes no option), and importing
click and the other commands' modules cost about a tenth of its CPU. `baton.cli`'s `run`
calls the same `run` with `click.echo`; `echo` here prints what `click.echo` prints for our
lines, and `main` ends as click's standalone mode does, so both entries write the same bytes
and exit with the same status (tests/action/test_entry.py compares them).
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn

from baton.action.env import ActionEnv
from baton.action.outputs import annotation
from baton.errors import InvalidConfig

# click.echo strips ANSI escape sequences when its stream is not a terminal (a job's log
# never is); the pattern is click 8.5's (`click._compat._ansi_re`).
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


def echo(line: str) -> None:
    """`click.echo(line)` to stdout, as it behaves for a str on a POSIX system."""
    out = sys.stdout
    try:
        plain = not out.isatty()
    except Exception:  # click's `isatty` treats any failure as no terminal
        plain = True
    out.write((_ANSI.sub("", line) if plain else line) + "\n")
    out.flush()


def action_env(say: Callable[[str], None]) -> ActionEnv:
    """The Action's environment. A value that does not parse stops the command before anything
    is read or written: one `::error::` line per bad value, naming it and what it accepts."""
    try:
        return ActionEnv.from_environ()
    except InvalidConfig as exc:
        for line in str(exc).splitlines():
            say(annotation("error", line))
        sys.exit(1)


def run(say: Callable[[str], None] = echo, *, triaged: bool = False) -> int:
    """Act on the GitHub event of this job; the exit status of the contract. `triaged`: the
    fast path already triaged the payload and found it may matter."""
    from baton.action.commands import run_event, wrap_up

    env = action_env(say)
    return wrap_up(env, run_event(env, triaged=triaged), say)


def main(*, triaged: bool = False) -> NoReturn:
    """`run`, ending as click's standalone mode ends it: an interrupt (a cancelled job) prints
    `Aborted!` and exits 1, a reader that closed the pipe exits 1 quietly."""
    try:
        code = run(triaged=triaged)
    except (EOFError, KeyboardInterrupt):
        print("\nAborted!", file=sys.stderr)
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # Nothing more can reach the reader; the interpreter's last flush must not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(code)
