"""`baton agent` after the exec (`agents/contained.py`): the setup-error marker Baton writes,
and one the agent planted, which is removed and said."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from baton.agents import reaper
from baton.agents.contained import remove_planted_setup_error, run_contained, write_setup_error
from baton.agents.handoff import Handoff
from baton.core.model.changeset import SETUP_ERROR_FILE, Changeset
from baton.workflow.config import WorkSettings


def test_a_setup_error_is_a_marker_beside_the_result_even_in_a_new_folder(tmp_path: Path) -> None:
    result = tmp_path / "new" / "baton-result.json"

    write_setup_error(result, "no git")

    assert (tmp_path / "new" / SETUP_ERROR_FILE).read_text(encoding="utf-8") == "no git\n"
    assert not result.exists()


def test_a_marker_that_cannot_be_written_is_no_crash(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")

    write_setup_error(tmp_path / "file" / "baton-result.json", "no git")


def test_no_marker_is_nothing_to_say(tmp_path: Path) -> None:
    assert remove_planted_setup_error(tmp_path / "baton-result.json") is None


def test_a_planted_marker_file_link_or_folder_is_removed_and_said(tmp_path: Path) -> None:
    result = tmp_path / "baton-result.json"
    marker = tmp_path / SETUP_ERROR_FILE
    for plant in (
        lambda: marker.write_text("fake", encoding="utf-8"),
        lambda: marker.symlink_to(tmp_path / "elsewhere"),
        lambda: (marker.mkdir(), (marker / "x").write_text("", encoding="utf-8")),
    ):
        plant()

        said = remove_planted_setup_error(result)

        assert said == f"the agent wrote {marker}; Baton removed it"
        assert not marker.exists() and not marker.is_symlink()


def test_what_runs_after_the_agent_sees_its_changeset_once_the_files_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=checkout,
                       check=True)  # fmt: skip
    monkeypatch.chdir(checkout)
    # This test's own process is no agent job's: it stays dumpable and no reaper.
    monkeypatch.setattr(reaper, "become_subreaper", lambda: None)
    monkeypatch.setattr(reaper, "become_undumpable", lambda: None)
    out = tmp_path / "out"
    script = (
        "open('new.txt', 'w').write('x'); print('{\"status\": \"success\", \"confidence\": 1}')"
    )
    handoff = Handoff(
        prompt="go", command=f"{sys.executable} -c {shlex.quote(script)}", timeout=60,
        limits=WorkSettings(), result_file=str(out / "baton-result.json"),
        changeset_file=str(out / "baton-changeset.json"), secrets={}, file_commands={},
    )  # fmt: skip
    seen: list[tuple[list[str], bool]] = []

    def after(changeset: Changeset) -> str:
        seen.append(([f.path for f in changeset.files], (out / "baton-result.json").exists()))
        return "evidence: checked"

    line = run_contained(handoff, lambda _: None, after)
    assert seen == [(["new.txt"], True)]
    assert line.endswith("; evidence: checked")
