"""`baton agent` runs the agent from a process whose environment block holds no credential.

A process's initial environment stays readable in `/proc/<pid>/environ` by every process of the
same user, whatever it later removes from `os.environ`; the agent could read the token and the
record secret from its parent's. So `baton agent`, once it has fetched the briefing with the
token, hands what the rest needs to a fresh image of itself: `execve` (same pid, new environment
block: the agent's environment) of `baton agent --handoff FD`, where FD is an unlinked temporary
file holding this `Handoff`. The new image reads it and closes it before the agent starts;
nothing of it is in its arguments.

The new image starts with `-P`: `python -m` would otherwise put the working directory (the
checkout, which the previous agent's changeset wrote) first on `sys.path`, and a `baton/` or
`click.py` there would run instead of Baton with the handoff in hand. `-I` would close that too
but also drop the user site-packages (`pip install --user`) and PYTHONPATH, where Baton may be
installed; `-P` removes only the unsafe path.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from typing import Literal, NoReturn

from pydantic import BaseModel, ConfigDict

from baton.agents.environment import agent_environment
from baton.errors import BatonError
from baton.workflow.config import WorkSettings
from baton.workflow.suite import SuiteSettings

HANDOFF_OPTION = "--handoff"


class Handoff(BaseModel):
    """Everything `baton agent` needs after the exec: the briefing, the agent and its limits,
    where to write, the secrets that must not leave (name -> value) and the file commands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str
    command: str
    timeout: float
    limits: WorkSettings
    result_file: str
    changeset_file: str
    secrets: dict[str, str]
    file_commands: dict[str, str]
    # The proof the state due asks for, with the config's `tests:` (`evidence/job.py`): green
    # runs `baton verify` instead of an agent, red runs it on the agent's changeset.
    proof: Literal["red", "green"] | None = None
    suite: SuiteSettings | None = None
    default_branch: str | None = None  # whose merge base with HEAD is a green run's base


def reexec(handoff: Handoff, environ: Mapping[str, str]) -> NoReturn:
    """Replace this process by `baton agent --handoff FD` with the agent's environment."""
    # Unlinked: reachable only through the descriptor, which the new image closes first.
    with tempfile.TemporaryFile() as carrier:
        carrier.write(handoff.model_dump_json().encode("utf-8"))
        carrier.flush()
        carrier.seek(0)
        fd = carrier.fileno()
        os.set_inheritable(fd, True)
        sys.stdout.flush()
        sys.stderr.flush()
        argv = [sys.executable, "-P", "-m", "baton", "agent", HANDOFF_OPTION, str(fd)]
        os.execve(sys.executable, argv, agent_environment(environ))


def receive(fd: int) -> Handoff:
    """The handoff behind `fd`, which is closed before this returns."""
    try:
        with os.fdopen(fd, "rb") as carrier:
            data = carrier.read()
    except OSError as exc:
        raise BatonError(f"no handoff at descriptor {fd}: {exc.strerror}") from exc
    return Handoff.model_validate_json(data)
