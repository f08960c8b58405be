"""`baton agent` after the exec (`agents/contained.py`): the setup-error marker Baton writes,
and one the agent planted, which is removed and said."""

from __future__ import annotations

from pathlib import Path

from baton.agents.contained import remove_planted_setup_error, write_setup_error
from baton.core.model.changeset import SETUP_ERROR_FILE


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
