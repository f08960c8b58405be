"""The JUnit XML jest-junit really writes (jest 29, jest-junit 16, installed test-only in
tests/evidence/jest by `.ci/run`), read by `evidence/junit.py`: a pass, a failed assertion, an
exception in a test, a skip, and a test file that cannot load, each as it should be."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from baton.evidence.junit import read

TOOLS = Path(__file__).resolve().parent / "jest" / "node_modules"

CALC_TEST = """\
describe('calc', () => {
  test('adds', () => { expect(1 + 1).toBe(2); });
  test('subtracts', () => { expect(1 - 1).toBe(5); });
  test.skip('later', () => {});
  test('throws', () => { throw new Error('boom'); });
});
"""
BROKEN_TEST = "require('./nope');\ntest('never', () => {});\n"


def _require_jest() -> None:
    if (
        shutil.which("node")
        and (TOOLS / "jest-junit").is_dir()
        and (TOOLS / ".bin" / "jest").exists()
    ):
        return
    if os.environ.get("BATON_REQUIRE_JEST"):
        pytest.fail("jest is not installed (npm ci --prefix tests/evidence/jest)")
    pytest.skip("jest is not installed: run `npm ci --prefix tests/evidence/jest`")


def test_jest_junit_output_is_read_test_by_test(tmp_path: Path) -> None:
    _require_jest()
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "__tests__").mkdir()
    (tmp_path / "__tests__" / "calc.test.js").write_text(CALC_TEST)
    (tmp_path / "__tests__" / "broken.test.js").write_text(BROKEN_TEST)
    out = tmp_path.parent / f"{tmp_path.name}-junit.xml"
    env = {
        **os.environ,
        "JEST_JUNIT_OUTPUT_FILE": str(out),
        "JEST_JUNIT_ADD_FILE_ATTRIBUTE": "true",
        "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS": "true",
    }
    done = subprocess.run(
        [
            str(TOOLS / ".bin" / "jest"),
            "--ci",
            "--runInBand",
            f"--reporters={TOOLS / 'jest-junit'}",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    tests = read(out).tests
    found = sorted((t.id, t.file, t.outcome) for t in tests)
    calc = "__tests__/calc.test.js"
    broken = "__tests__/broken.test.js"
    assert found == sorted(
        [
            ("calc adds", calc, "passed"),
            ("calc subtracts", calc, "failed"),
            ("calc later", calc, "skipped"),
            ("calc throws", calc, "failed"),
            # jest-junit writes the suite that failed to run twice: as an error, and as a
            # failure holding the error's JSON.
            (f"Test suite failed to run::{broken}", broken, "error"),
            (f"Test suite failed to run::{broken}", broken, "failed"),
        ]
    )
    messages = {(t.id, t.outcome): t.message for t in tests}
    assert messages[("calc throws", "failed")].startswith("Error: boom\n")
    assert (
        "Cannot find module './nope'" in messages[(f"Test suite failed to run::{broken}", "error")]
    )
