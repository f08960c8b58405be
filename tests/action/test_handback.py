"""`action/handback.py`: the files an agent's job hands back are read the same way, each failure
one line naming the file and what is wrong; a changeset the job did not write is none."""

from __future__ import annotations

import base64
import locale
import sys
from pathlib import Path

import pytest

from baton.action import handback
from baton.action.handback import read_changeset
from baton.core.model.changeset import Changeset, FileChange
from baton.errors import InvalidChangeset

BASE = "a" * 40


def _set(*files: FileChange, base: str = BASE) -> Changeset:
    return Changeset(base=base, files=list(files))


def _add(path: str, text: str = "x", mode: str = "100644") -> FileChange:
    return FileChange(path=path, contents=base64.b64encode(text.encode()).decode(), mode=mode)


def test_reading_names_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text("{}", encoding="utf-8")
    assert handback.read(good, "the thing", InvalidChangeset) == "{}"
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\xff}")
    with pytest.raises(InvalidChangeset) as caught:
        handback.read(bad, "the thing", InvalidChangeset)
    assert str(caught.value) == f"the thing {bad} is not UTF-8 (byte 1)"
    missing = tmp_path / "missing.json"
    with pytest.raises(InvalidChangeset) as absent:
        handback.read(missing, "the thing", InvalidChangeset)
    assert str(absent.value) == f"cannot read the thing {missing}: No such file or directory"


def test_reading_a_changeset_file(tmp_path: Path) -> None:
    folder = tmp_path
    assert read_changeset(folder / "none.json") is None
    path = folder / "c.json"
    path.write_text(_set(_add("a")).model_dump_json(), encoding="utf-8")
    loaded = read_changeset(path)
    assert loaded is not None and loaded.files[0].path == "a"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(InvalidChangeset, match="is not UTF-8"):
        read_changeset(path)


def test_a_changeset_that_cannot_be_read_names_the_file_and_why(tmp_path: Path) -> None:
    folder = tmp_path / "baton-changeset.json"
    folder.mkdir()  # a directory where the file should be
    with pytest.raises(InvalidChangeset) as caught:
        read_changeset(folder)
    assert str(caught.value) == f"cannot read the changeset {folder}: Is a directory"


@pytest.mark.skipif(sys.flags.utf8_mode == 1, reason="UTF-8 mode ignores the locale")
def test_a_changeset_file_is_utf_8_whatever_the_runner_s_locale(tmp_path: Path) -> None:
    """A self-hosted runner may run with LANG=C: the changeset is still read as UTF-8."""
    path = tmp_path / "c.json"
    path.write_bytes(_set(_add("é")).model_dump_json().encode("utf-8"))
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        loaded = read_changeset(path)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert loaded is not None and [f.path for f in loaded.files] == ["é"]
