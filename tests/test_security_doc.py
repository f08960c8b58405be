"""docs/security.md stays true: its forbidden table is the code's set, and every test it names
as proof exists (a renamed test would leave a threat with no proof behind it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baton.workflow.config import DEFAULT_FORBIDDEN, LOCKED_FORBIDDEN

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
# `tests/x.py`, `tests/x.py::test_name`, or a bare `::test_name` of the file named before it.
_PROOF = re.compile(r"`(tests/[\w/]+\.py)?(?:::(test_\w+))?`")


def _proofs() -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for line in DOC.splitlines():
        last = None
        for match in _PROOF.finditer(line):
            path, name = match.groups()
            last = path or last
            if last is None:
                raise AssertionError(f"a test named with no file before it: {line[:80]}")
            if path or name:
                found.append((last, name))
    return found


def test_the_forbidden_table_lists_every_pattern_of_the_code() -> None:
    table = DOC[DOC.index("## The forbidden set") :]
    for entry in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN):
        assert f"`{entry.pattern}`" in table, entry.pattern
    rows = table.split("\n| pattern | why |")[1].split("\n\n")[0].splitlines()[2:]
    shown = {p for row in rows for p in re.findall(r"`([^`]+)`", row.split(" | ")[0])}
    known = {e.pattern for e in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN)}
    assert shown <= known, f"the table names patterns the code does not have: {shown - known}"


@pytest.mark.parametrize(("path", "name"), _proofs(), ids=lambda x: str(x))
def test_every_proof_the_threat_model_names_exists(path: str, name: str | None) -> None:
    source = ROOT / path
    assert source.is_file(), f"{path} does not exist"
    if name is not None:
        assert re.search(rf"^def {name}\w*\(", source.read_text(encoding="utf-8"), re.M), (
            f"{path} has no test {name}"
        )
