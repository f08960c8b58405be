"""`baton verify` on the command line (`evidence/commands.py`): the evidence file written, one
line said, and a clear one-line error with nothing written when there is nothing to verify."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from baton.cli import cli
from support.scratch_repo import PYTEST, ScratchRepo, changeset_of

CALC_TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
MUL_TESTS = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
SUB_TESTS = "import calc\n\n\ndef test_sub():\n    assert calc.sub(3, 1) == 2\n"


def _config(tests: dict[str, object] | None) -> str:
    return yaml.safe_dump({"tests": tests} if tests else {"workflow": "issue-lifecycle"})


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScratchRepo:
    scratch = ScratchRepo(tmp_path / "repo")
    scratch.commit(
        "calc",
        {
            ".github/baton.yml": _config({"command": PYTEST, "timeout": "2m"}),
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": CALC_TESTS,
        },
    )
    scratch.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    monkeypatch.chdir(scratch.root)
    return scratch


def test_verify_writes_the_evidence_and_says_the_verdict(repo: ScratchRepo) -> None:
    result = CliRunner().invoke(cli, ["verify", "--base", "main~1"])
    assert result.exit_code == 0, result.output
    evidence = json.loads((repo.root / "baton-evidence.json").read_text())
    assert (evidence["verdict"], evidence["exit_status"], evidence["new"]) == (
        "red",
        1,
        ["tests.test_mul::test_mul"],
    )
    assert evidence["commit"] == repo.git("rev-parse", "HEAD")
    assert result.output.startswith("red: 1 new or changed failed, every other test passed (")


def test_verify_writes_where_it_is_told(repo: ScratchRepo, tmp_path: Path) -> None:
    out = tmp_path / "out" / "evidence.json"
    out.parent.mkdir()
    result = CliRunner().invoke(cli, ["verify", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["verdict"] == "failing"
    assert not (repo.root / "baton-evidence.json").exists()


@pytest.mark.parametrize(
    ("args", "config", "error"),
    [
        (
            [],
            None,
            "error: .github/baton.yml has no `tests:` section: there are no tests to verify",
        ),
        (["--base", "no-such-branch"], "keep", "error: not verified: "),
        (["--config", "missing.yml"], "keep", "error: config file missing.yml does not exist"),
        ([], {"command": " "}, "error: .github/baton.yml:"),
    ],
    ids=[
        "a config without tests: is nothing to verify",
        "a base that names no commit",
        "a config named that is not there",
        "a tests: section that does not validate",
    ],
)
def test_nothing_to_verify_is_one_line_and_writes_nothing(
    repo: ScratchRepo, args: list[str], config: object, error: str
) -> None:
    if config != "keep":
        (repo.root / ".github" / "baton.yml").write_text(_config(config))  # type: ignore[arg-type]
    result = CliRunner().invoke(cli, ["verify", *args])
    assert result.exit_code == 1
    assert result.output.startswith(error) and result.output.count("\n") == 1
    assert not (repo.root / "baton-evidence.json").exists()


def test_a_hung_test_command_is_killed_with_the_processes_that_left_its_group(
    repo: ScratchRepo,
) -> None:
    hung = "setsid sleep 300 & echo $! > escaped; sleep 300 & echo $! > child; wait"
    (repo.root / ".github" / "baton.yml").write_text(_config({"command": hung, "timeout": "1s"}))
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "baton", "verify"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 30
    evidence = json.loads((repo.root / "baton-evidence.json").read_text())
    assert (evidence["verdict"], evidence["reason"], evidence["exit_status"]) == (
        "broken",
        "the tests ran past their timeout of 1s",
        None,
    )
    for name in ["escaped", "child"]:
        pid = int((repo.root / name).read_text())
        assert not Path(f"/proc/{pid}").exists() or _zombie(pid), name


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in {"Z", "X"}
    except FileNotFoundError:
        return True


def test_verify_a_changeset_on_head_names_its_digest(repo: ScratchRepo, tmp_path: Path) -> None:
    head = repo.git("rev-parse", "HEAD")
    change = changeset_of(head, {"tests/test_sub.py": SUB_TESTS})
    path = tmp_path / "baton-changeset.json"
    path.write_text(change.model_dump_json(), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", "--changeset", str(path)])
    assert result.exit_code == 0, result.output
    evidence = json.loads((repo.root / "baton-evidence.json").read_text())
    assert (evidence["commit"], evidence["base"], evidence["changeset"]) == (
        head,
        head,
        change.digest(),
    )
    assert evidence["new"] == ["tests.test_sub::test_sub"]
    assert not (repo.root / "tests" / "test_sub.py").exists()


@pytest.mark.parametrize(
    ("args", "bound_to", "error"),
    [
        ([], "main~1", "error: the changeset is bound to "),
        (["--base", "main~1"], "HEAD", "error: --base is the changeset's own base (HEAD)"),
        ([], "not json", "error: not verified: the changeset "),
    ],
    ids=[
        "a changeset bound to another commit than HEAD",
        "a base beside a changeset",
        "a changeset file that is not one",
    ],
)
def test_a_changeset_that_cannot_be_verified_on_head_is_one_line_and_writes_nothing(
    repo: ScratchRepo, tmp_path: Path, args: list[str], bound_to: str, error: str
) -> None:
    path = tmp_path / "baton-changeset.json"
    if bound_to == "not json":
        path.write_text("{", encoding="utf-8")
    else:
        change = changeset_of(repo.git("rev-parse", bound_to), {"tests/test_sub.py": SUB_TESTS})
        path.write_text(change.model_dump_json(), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", "--changeset", str(path), *args])
    assert result.exit_code == 1
    assert result.output.startswith(error) and result.output.count("\n") == 1, result.output
    assert not (repo.root / "baton-evidence.json").exists()
