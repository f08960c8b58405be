"""The agent job's proof (`evidence/job.py`), through `baton agent` as the workflow runs it, on
scratch repositories with the real pytest: a `proof: green` state runs the built-in `tests`
profile (no model, no briefing, no token, no install) and computes the result from the
evidence; a `proof: red` state runs the role's agent, then the tests on its changeset applied on
HEAD; an agent that changed nothing leaves no evidence; a verify that cannot run is a setup
error, never a crash without a result."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from baton.core.model.changeset import Changeset
from baton.core.model.evidence import Evidence, TestCase
from baton.evidence.job import SHOWN_FAILURES, result_of
from support.scratch_repo import PYTEST, ScratchRepo

CALC = "def add(a, b):\n    return a + b\n"
CALC_TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
MUL_TESTS = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
TOKEN = "ghs_" + "t0k3n" * 8
STATES = {
    "creating_tests": {
        "kind": "work",
        "agent": "tester",
        "changes_code": True,
        "proof": "red",
        "description": "Tests written",
        "expects": "Write failing tests.",
    },
    "running_tests": {
        "kind": "work",
        "agent": "tester",
        "proof": "green",
        "description": "The tests run",
        "expects": "Run the tests.",
    },
    "done": {"kind": "terminal", "description": "Done"},
}
WORKFLOW = {
    "name": "proof-demo",
    "initial": "creating_tests",
    "agents": ["tester"],
    "states": STATES,
    "transitions": {"creating_tests": ["running_tests"], "running_tests": ["done"], "done": []},
}
# The tests see no credential, in their environment or in any process above them.
PROBE = (
    "import os\n\n\ndef test_no_credential_above():\n"
    "    assert 'GITHUB_TOKEN' not in os.environ\n"
    "    pid = os.getpid()\n"
    "    while pid > 1:\n"
    "        with open(f'/proc/{pid}/environ', 'rb') as f:\n"
    f"            assert b{TOKEN!r} not in f.read()\n"
    "        with open(f'/proc/{pid}/stat') as f:\n"
    "            pid = int(f.read().rpartition(')')[2].split()[1])\n"
)


class Job:
    """The agent job: the config from the default branch outside the checkout, the checkout of
    the issue's branch, and the folder the result and the evidence are written to."""

    def __init__(self, root: Path) -> None:
        self.repo = ScratchRepo(root / "checkout")
        self.config = root / "config" / "baton.yml"
        self.out = root / "baton"
        self.config.parent.mkdir()
        self.out.mkdir()
        tests = {"command": PYTEST, "timeout": "2m"}
        self.config.write_text(yaml.safe_dump({"workflow": WORKFLOW, "tests": tests}))
        event = root / "event.json"
        event.write_text(json.dumps({"repository": {"default_branch": "main"}}))
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))},
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_EVENT_PATH": str(event),
            "INPUT_CONFIG": str(self.config),
            "PYTHONPATH": os.pathsep.join(sys.path),
        }

    def agent(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "baton", "agent", "--role", "tester", *args,
             "--output", str(self.out / "baton-result.json")],
            cwd=self.repo.root, env=self.env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    def read(self, name: str) -> dict[str, Any]:
        data = json.loads((self.out / name).read_text(encoding="utf-8"))
        assert isinstance(data, dict)
        return data


@pytest.fixture
def job(tmp_path: Path) -> Job:
    made = Job(tmp_path)
    made.repo.commit("calc", {"calc.py": CALC, "tests/test_calc.py": CALC_TESTS})
    made.repo.git("checkout", "-q", "-b", "baton/issue-1")
    return made


def test_a_green_state_runs_the_tests_profile_end_to_end_with_no_model(job: Job) -> None:
    base = job.repo.git("rev-parse", "main")
    job.repo.commit("mul", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return a * b\n"})
    job.repo.commit("mul's test, and a probe", {"tests/test_mul.py": MUL_TESTS.replace(
        "import calc", "import calc  # now passing"), "tests/test_probe.py": PROBE})  # fmt: skip
    head = job.repo.git("rev-parse", "HEAD")
    done = job.agent("--state", "running_tests", "--command", "no-such-agent", "--agent", "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent profile tests for tester" in done.stderr
    evidence = Evidence.model_validate(job.read("baton-evidence.json"))
    assert (evidence.verdict, evidence.commit, evidence.base, evidence.changeset) == (
        "green",
        head,
        base,
        None,
    )
    assert evidence.files is not None and len(evidence.tests) == 3
    assert evidence.new == (
        "tests.test_mul::test_mul",
        "tests.test_probe::test_no_credential_above",
    )
    assert job.read("baton-result.json") == {
        **job.read("baton-result.json"),
        "status": "success",
        "confidence": 1.0,
        "summary": "green: 3 passed, 0 skipped",
        "issues_found": [],
    }
    assert not (job.out / "baton-changeset.json").exists()
    assert "tests profile: green: " in done.stdout


def test_a_failing_run_of_the_tests_profile_is_a_failure_naming_the_failing_tests(
    job: Job,
) -> None:
    job.repo.commit("mul's test", {"tests/test_mul.py": MUL_TESTS})
    done = job.agent("--state", "running_tests")
    assert done.returncode == 0, done.stdout + done.stderr
    result = job.read("baton-result.json")
    assert (result["status"], result["confidence"], result["summary"]) == (
        "failure",
        1.0,
        "red: 1 new or changed failed, every other test passed",
    )
    assert result["issues_found"] == [
        "tests.test_mul::test_mul: AttributeError: module 'calc' has no attribute 'mul'"
    ]


def test_the_tests_profile_installs_nothing(job: Job) -> None:
    done = job.agent("--state", "running_tests", "--agent", "codex", "--print-setup")
    assert (done.returncode, done.stdout) == (0, ": the tests profile installs nothing\n")
    other = job.agent("--state", "creating_tests", "--agent", "codex", "--print-setup")
    assert other.stdout.startswith("npm install -g @openai/codex@")


def _agent_writing(job: Job, files: dict[str, str]) -> str:
    script = job.out.parent / "tester.py"
    writes = "".join(
        f"p = pathlib.Path({path!r}); p.parent.mkdir(parents=True, exist_ok=True); "
        f"p.write_text({text!r})\n"
        for path, text in files.items()
    )
    result = {"status": "success", "confidence": 0.9, "summary": "tests written"}
    script.write_text(f"import pathlib\n{writes}print({json.dumps(result)!r})\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_a_red_state_runs_the_agent_then_the_tests_on_its_changeset(job: Job) -> None:
    head = job.repo.git("rev-parse", "HEAD")
    (job.out / "prompt.md").write_text("Write a failing test for mul.\n")
    command = _agent_writing(job, {"tests/test_mul.py": MUL_TESTS})
    done = job.agent(
        "--state", "creating_tests", "--command", command, "--prompt", str(job.out / "prompt.md")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    changeset = Changeset.model_validate_json((job.out / "baton-changeset.json").read_text())
    evidence = Evidence.model_validate(job.read("baton-evidence.json"))
    assert (evidence.verdict, evidence.commit, evidence.base) == ("red", head, head)
    assert evidence.changeset == changeset.digest()
    assert evidence.new == ("tests.test_mul::test_mul",)
    assert job.read("baton-result.json")["summary"] == "tests written"  # the agent's own
    assert "; evidence: red: " in done.stdout


def test_an_agent_that_changed_nothing_leaves_no_evidence_and_says_so(job: Job) -> None:
    (job.out / "prompt.md").write_text("Write a failing test for mul.\n")
    (job.out / "baton-evidence.json").write_text("{}")  # as if planted: not Baton's
    command = _agent_writing(job, {})
    done = job.agent(
        "--state", "creating_tests", "--command", command, "--prompt", str(job.out / "prompt.md")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (job.out / "baton-evidence.json").exists()
    assert "no evidence: the agent's tests were not run, it changed nothing" in done.stdout
    assert job.read("baton-changeset.json")["files"] == []


def test_a_verify_that_cannot_run_is_a_setup_error_with_no_result(job: Job) -> None:
    (job.repo.root / ".git").rename(job.repo.root / "not-git")  # no checkout to verify
    done = job.agent("--state", "running_tests")
    assert done.returncode == 1
    marker = (job.out / "baton-setup-error.txt").read_text()
    assert marker.startswith("baton verify could not run the tests: ")
    assert "::error title=Baton::baton verify could not run the tests: " in done.stdout
    assert not (job.out / "baton-result.json").exists()
    assert not (job.out / "baton-evidence.json").exists()


def test_without_tests_in_the_config_a_green_state_runs_its_agent(job: Job) -> None:
    job.config.write_text(yaml.safe_dump({"workflow": WORKFLOW}))
    (job.out / "prompt.md").write_text("Run the tests.\n")
    prompt = str(job.out / "prompt.md")
    done = job.agent(
        "--state", "running_tests", "--command", "no-such-agent-here", "--prompt", prompt
    )
    assert done.returncode == 1
    assert "no-such-agent-here" in (job.out / "baton-setup-error.txt").read_text()


# --- an epic's task: its branch is made from the epic's, which other tasks merged into ----------
DIV_TESTS = "import calc\n\n\ndef test_div():\n    assert calc.div(6, 3) == 2\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"


def test_a_task_s_red_proof_counts_only_its_tester_s_tests_as_new_not_its_epic_s(
    job: Job,
) -> None:
    """The red proof's `--base` is the changeset's base, the head of the task's branch: a test
    another task merged into the epic's branch (new since main, passing) is not the tester's,
    and does not spoil the red proof as a new test that does not fail would."""
    job.config.write_text(
        yaml.safe_dump(
            {
                "epics": {"task_workflow": "epic-task-test-first"},
                "tests": {"command": PYTEST, "timeout": "2m"},
            }
        )
    )
    job.repo.git("checkout", "-q", "-b", "baton/issue-9", "main")  # the epic's branch
    job.repo.commit("Merge task #10", {"calc.py": CALC + MUL, "tests/test_mul.py": MUL_TESTS})
    job.repo.git("checkout", "-q", "-b", "baton/issue-11")  # the task's, from the epic's
    head = job.repo.git("rev-parse", "HEAD")
    (job.out / "prompt.md").write_text("Write a failing test for div.\n")
    command = _agent_writing(job, {"tests/test_div.py": DIV_TESTS})
    done = job.agent(
        "--state", "writing_tests", "--command", command, "--prompt", str(job.out / "prompt.md")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    evidence = Evidence.model_validate(job.read("baton-evidence.json"))
    assert (evidence.verdict, evidence.commit, evidence.base) == ("red", head, head)
    assert evidence.new == ("tests.test_div::test_div",)
    assert {t.id: t.outcome for t in evidence.tests} == {
        "tests.test_calc::test_add": "passed",
        "tests.test_div::test_div": "failed",
        "tests.test_mul::test_mul": "passed",
    }


def _case(n: int, outcome: str = "failed") -> TestCase:
    return TestCase(id=f"tests.test_x::test_{n}", outcome=outcome, message=f"boom {n}")  # type: ignore[arg-type]


def test_the_computed_result_lists_the_first_failures_then_how_many_more() -> None:
    tests = (_case(0, "passed"), _case(1, "error"), *(_case(n) for n in range(2, 20)))
    evidence = Evidence(
        verdict="failing", reason="tests that are not new failed", commit="a" * 40,
        exit_status=1, tests=tests,
    )  # fmt: skip
    result = result_of(evidence)
    assert (result.status.value, result.confidence) == ("failure", 1.0)
    assert result.summary == "failing: tests that are not new failed"
    assert result.issues_found[:2] == [
        "tests.test_x::test_1: boom 1",
        "tests.test_x::test_2: boom 2",
    ]
    assert len(result.issues_found) == SHOWN_FAILURES + 1
    assert result.issues_found[-1] == "and 9 more failing"
