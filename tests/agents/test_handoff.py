"""The handoff across `execve`: what the agent's process needs reaches it through an unlinked
file behind an inherited descriptor, never through its arguments or its environment block.

The whole `baton agent` run through the re-exec is tests/action/test_agent_command.py's."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any, NoReturn

import pytest
from pydantic import ValidationError

from baton.agents import handoff
from baton.errors import BatonError
from baton.workflow.config import WorkSettings

HANDOFF = handoff.Handoff(
    prompt="Implement issue #7",
    command="claude -p",
    timeout=60.0,
    limits=WorkSettings(),
    result_file="/tmp/r.json",
    changeset_file="/tmp/c.json",
    secrets={"GITHUB_TOKEN": "ghs_secret"},
    file_commands={"GITHUB_OUTPUT": "/tmp/out"},
)


class Execed(Exception):
    def __init__(self, path: str, argv: list[str], env: dict[str, str], carried: bytes) -> None:
        super().__init__(path)
        self.path, self.argv, self.env, self.carried = path, argv, env, carried


def _fake_execve(path: str, argv: list[str], env: dict[str, str]) -> NoReturn:
    fd = int(argv[-1])
    assert os.get_inheritable(fd)
    raise Execed(path, argv, env, os.pread(fd, 1 << 20, 0))


def test_reexec_runs_baton_agent_with_the_handoff_behind_a_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "execve", _fake_execve)
    environ = {"PATH": "/usr/bin", "GITHUB_TOKEN": "ghs_secret", "ANTHROPIC_API_KEY": "k"}
    with pytest.raises(Execed) as caught:
        handoff.reexec(HANDOFF, environ)
    done = caught.value
    assert done.path == sys.executable
    assert done.argv[:-1] == [sys.executable, "-P", "-m", "baton", "agent", "--handoff"]
    assert handoff.Handoff.model_validate_json(done.carried) == HANDOFF
    # The new environment block is the agent's: no GitHub token in it.
    assert "GITHUB_TOKEN" not in done.env
    assert done.env["ANTHROPIC_API_KEY"] == "k"
    assert "ghs_secret" not in " ".join(done.argv) + "".join(done.env.values())


def test_the_carrier_has_no_name_on_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def execve(path: str, argv: list[str], env: dict[str, str]) -> NoReturn:
        seen.append(os.readlink(f"/proc/self/fd/{argv[-1]}"))
        raise Execed(path, argv, env, b"")

    monkeypatch.setattr(os, "execve", execve)
    with pytest.raises(Execed):
        handoff.reexec(HANDOFF, {})
    assert len(seen) == 1 and seen[0].endswith(" (deleted)")


def _carrier(data: bytes) -> int:
    with tempfile.TemporaryFile() as carrier:
        carrier.write(data)
        carrier.flush()
        carrier.seek(0)
        return os.dup(carrier.fileno())


def test_receive_reads_the_handoff_and_closes_the_descriptor() -> None:
    fd = _carrier(HANDOFF.model_dump_json().encode())
    assert handoff.receive(fd) == HANDOFF
    with pytest.raises(OSError):
        os.fstat(fd)


def test_a_missing_descriptor_is_one_clear_error() -> None:
    fd = _carrier(b"")
    os.close(fd)
    with pytest.raises(BatonError) as caught:
        handoff.receive(fd)
    assert str(caught.value) == f"no handoff at descriptor {fd}: Bad file descriptor"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{}",
        HANDOFF.model_dump_json().replace('"prompt"', '"extra":1,"prompt"').encode(),
    ],
)
def test_a_handoff_that_is_not_exactly_the_model_is_refused(data: bytes) -> None:
    with pytest.raises(ValidationError):
        handoff.receive(_carrier(data))


def test_the_handoff_is_frozen() -> None:
    values: dict[str, Any] = HANDOFF.model_dump()
    assert handoff.Handoff(**values) == HANDOFF
    with pytest.raises(ValidationError):
        HANDOFF.prompt = "other"  # type: ignore[misc]
