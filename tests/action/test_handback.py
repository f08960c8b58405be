"""`action/handback.py`: the files an agent's job hands back are read the same way, each failure
one line naming the file and what is wrong; a changeset or evidence the job did not write is
none. The evidence comes from where agent-written tests ran: no link, no FIFO, at most 32 MB."""

from __future__ import annotations

import base64
import json
import locale
import os
import sys
from pathlib import Path

import pytest

from baton.action import handback
from baton.action.handback import evidence_beside, read_changeset, read_evidence
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.evidence import EVIDENCE_FILE, Evidence, TestCase
from baton.errors import InvalidChangeset, InvalidEvidence

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


# --- the evidence beside a result (`baton-evidence.json`) -------------------------------------
COMMIT = "c" * 40


def _evidence(**changes: object) -> Evidence:
    test = TestCase(id="tests/test_csv.py::test_export", outcome="failed", message="assert 1 == 2")
    base = Evidence(verdict="red", reason="1 new test fails", commit=COMMIT, exit_status=1)
    return base.model_copy(update={"tests": (test,), "new": (test.id,), **changes})


def test_evidence_the_job_wrote_is_read_and_validated(tmp_path: Path) -> None:
    path = tmp_path / EVIDENCE_FILE
    path.write_text(_evidence().model_dump_json(), encoding="utf-8")
    assert read_evidence(path) == _evidence()
    assert evidence_beside(path) == (_evidence(), None)


def test_no_evidence_file_is_no_evidence_and_no_problem(tmp_path: Path) -> None:
    assert read_evidence(tmp_path / EVIDENCE_FILE) is None
    assert evidence_beside(tmp_path / EVIDENCE_FILE) == (None, None)
    assert evidence_beside(None) == (None, None)


def _problem(path: Path) -> str:
    evidence, problem = evidence_beside(path)
    assert evidence is None
    assert problem is not None and "\n" not in problem
    return problem


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            b"{not json",
            "the evidence is not JSON (Expecting property name enclosed in double quotes at "
            "line 1 column 2)",
            id="not JSON",
        ),
        pytest.param(b"[]", "the evidence must be a JSON object", id="not an object"),
        pytest.param(
            b'{"verdict": "red", "reason": "\xff"}',
            "the evidence {path} is not UTF-8 (byte 30)",
            id="not UTF-8",
        ),
        pytest.param(
            json.dumps(
                {"verdict": "green", "reason": "ok", "commit": "HEAD", "exit_status": 0}
            ).encode(),
            "the evidence does not validate: commit: String should match pattern '^[0-9a-f]{40}$'",
            id="a commit that is no commit id",
        ),
        pytest.param(
            json.dumps(
                {"verdict": "passed", "reason": "ok", "commit": COMMIT, "exit_status": 0}
            ).encode(),
            "the evidence does not validate: verdict: Input should be 'red', 'green', "
            "'failing' or 'broken'",
            id="a verdict Baton does not know",
        ),
    ],
)
def test_evidence_that_does_not_read_is_one_line_naming_what_is_wrong(
    tmp_path: Path, raw: bytes, expected: str
) -> None:
    path = tmp_path / EVIDENCE_FILE
    path.write_bytes(raw)
    assert _problem(path) == expected.replace("{path}", str(path))
    with pytest.raises(InvalidEvidence):
        read_evidence(path)


def test_evidence_over_32_mb_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / EVIDENCE_FILE
    with path.open("wb") as handle:  # sparse: 33 MB that take no disk
        handle.truncate(33 * 1024 * 1024)
    reads: list[int] = []
    real_fdopen = handback.os.fdopen

    def counting(fd: int, mode: str) -> object:
        handle = real_fdopen(fd, mode)
        real_read = handle.read

        def read(size: int = -1) -> bytes:
            reads.append(size)
            return real_read(size)

        handle.read = read  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(handback.os, "fdopen", counting)
    assert _problem(path) == f"the evidence {path} is over 32 MB"
    assert reads == [], "the size said enough: nothing was read"


def test_evidence_that_grows_past_the_cap_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size looked at first is not trusted: at most 32 MB and a byte are ever read."""
    path = tmp_path / EVIDENCE_FILE
    path.write_bytes(b"{}")
    monkeypatch.setattr(handback, "MAX_EVIDENCE_BYTES", 1)
    assert _problem(path) == f"the evidence {path} is over 0 MB"


def test_a_symbolic_link_is_refused_even_to_good_evidence(tmp_path: Path) -> None:
    """The job ran the agent's tests: a link could point the report at any file of the runner."""
    real = tmp_path / "elsewhere.json"
    real.write_text(_evidence().model_dump_json(), encoding="utf-8")
    path = tmp_path / EVIDENCE_FILE
    path.symlink_to(real)
    assert _problem(path) == f"the evidence {path} is a symbolic link"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nothing")
    assert _problem(dangling) == f"the evidence {dangling} is a symbolic link"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_on_it(tmp_path: Path) -> None:
    path = tmp_path / EVIDENCE_FILE
    os.mkfifo(path)
    assert _problem(path) == f"the evidence {path} is not a regular file"


def test_a_folder_where_the_evidence_should_be_is_refused(tmp_path: Path) -> None:
    path = tmp_path / EVIDENCE_FILE
    path.mkdir()
    assert _problem(path) == f"the evidence {path} is not a regular file"


def test_a_result_or_changeset_that_cannot_be_read_is_its_reason_not_the_runs_error(
    tmp_path: Path,
) -> None:
    from baton.action.handback import changeset_beside, result_beside

    good = tmp_path / "baton-result.json"
    good.write_text('{"status": "success", "confidence": 0.9}', encoding="utf-8")
    result, error = result_beside(good)
    assert result is not None and result.confidence == 0.9 and error is None
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff")
    assert result_beside(bad) == (None, f"the agent result {bad} is not UTF-8 (byte 0)")
    assert changeset_beside(None) == (None, None)
    assert changeset_beside(tmp_path / "absent.json") == (None, None)
    assert changeset_beside(bad) == (None, f"the changeset {bad} is not UTF-8 (byte 0)")
