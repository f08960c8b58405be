"""`baton verify`'s evidence (`evidence/verify.py`) from the real pytest on scratch
repositories: red for the right reason, and each way a run is not red, green, failing or
broken, as a tester's and a developer's commits would make them."""

from __future__ import annotations

import hashlib
import json
import time
import unicodedata
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.changeset import Changeset
from baton.core.model.evidence import MAX_MESSAGE, Evidence, SignedOff
from baton.evidence.changes import GitError, files_digest, tree_of
from baton.evidence.verify import cleaner, summary, verify, verify_changeset, write
from support.scratch_repo import ScratchRepo, changeset_of, pytest_suite

CALC = "def add(a, b):\n    return a + b\n"
CALC_TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
MUL_TESTS = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


@pytest.fixture
def repo(tmp_path: Path) -> ScratchRepo:
    scratch = ScratchRepo(tmp_path / "repo")
    scratch.commit("calc", {"calc.py": CALC, "tests/test_calc.py": CALC_TESTS})
    return scratch


def _verify(repo: ScratchRepo, base: str | None = "main~1", **more: object) -> Evidence:
    return verify(repo.root, pytest_suite(), base=base, environ=ENV, **more)  # type: ignore[arg-type]


def _outcomes(evidence: Evidence) -> dict[str, str]:
    return {t.id: t.outcome for t in evidence.tests}


def test_red_for_the_right_reason_a_new_test_fails_in_its_body(repo: ScratchRepo) -> None:
    head = repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    evidence = _verify(repo)
    assert (evidence.verdict, evidence.exit_status, evidence.commit) == ("red", 1, head)
    assert evidence.new == ("tests.test_mul::test_mul",)
    assert _outcomes(evidence) == {
        "tests.test_calc::test_add": "passed",
        "tests.test_mul::test_mul": "failed",
    }
    failed = evidence.tests[1]
    assert (failed.file, failed.message) == (
        "tests/test_mul.py",
        "AttributeError: module 'calc' has no attribute 'mul'",
    )


def test_a_test_added_to_an_old_file_is_new_and_its_neighbours_are_not(repo: ScratchRepo) -> None:
    more = CALC_TESTS + "\n\ndef test_sub():\n    from calc import sub\n    assert sub(3, 1) == 2\n"
    repo.commit("a test for sub", {"tests/test_calc.py": more})
    evidence = _verify(repo)
    assert evidence.new == ("tests.test_calc::test_sub",)
    assert evidence.verdict == "red", evidence.reason


def test_an_import_error_in_the_new_tests_is_broken_not_red(repo: ScratchRepo) -> None:
    broken = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    repo.commit("tests for mul", {"tests/test_mul.py": broken})
    evidence = _verify(repo)
    assert (evidence.verdict, evidence.exit_status) == ("broken", 2)
    assert evidence.reason == "the test command exited 2 (interrupted or a collection error)"
    assert _outcomes(evidence)["tests.test_mul"] == "error"


def test_a_new_test_that_already_passes_is_not_red(repo: ScratchRepo) -> None:
    passing = "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
    repo.commit("a test that passes", {"tests/test_zero.py": passing})
    evidence = _verify(repo)
    assert evidence.new == ("tests.test_zero::test_add_zero",)
    assert (evidence.verdict, evidence.reason) == ("green", "2 passed, 0 skipped")


def test_an_old_test_broken_by_the_tests_only_commit_is_failing(repo: ScratchRepo) -> None:
    shared = "import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return (1, 2, 3)\n"
    uses = "from calc import add\n\n\ndef test_add(numbers):\n    a, b, total = numbers\n"
    uses += "    assert add(a, b) == total\n"
    repo.commit("a shared fixture", {"tests/conftest.py": shared, "tests/test_calc.py": uses})
    mul = "import calc\n\n\ndef test_mul(numbers):\n    a, b, _ = numbers\n"
    mul += "    assert calc.mul(a, b) == 2\n"
    changed = shared.replace("(1, 2, 3)", "(1, 2, 4)")  # the tester's fixture breaks test_add
    repo.commit("tests for mul", {"tests/test_mul.py": mul, "tests/conftest.py": changed})
    evidence = _verify(repo)
    assert evidence.new == ("tests.test_mul::test_mul",)
    assert (evidence.verdict, evidence.reason) == (
        "failing",
        "tests that are not new failed: tests.test_calc::test_add",
    )


def test_an_old_tests_body_changed_to_fail_is_not_read_as_red(repo: ScratchRepo) -> None:
    changed = CALC_TESTS.replace("== 3", "== 4")  # the body changes, the name's line does not
    repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS, "tests/test_calc.py": changed})
    evidence = _verify(repo)
    assert evidence.new == ("tests.test_mul::test_mul",)
    assert evidence.verdict == "failing"


def test_green_once_the_code_passes_the_signed_off_tests(repo: ScratchRepo) -> None:
    repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    red = _verify(repo)
    signed = SignedOff(
        fail_to_pass=tuple(t.id for t in red.tests if t.outcome == "failed"),
        pass_to_pass=tuple(t.id for t in red.tests if t.outcome == "passed"),
    )
    repo.commit("mul", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return a * b\n"})
    evidence = _verify(repo, base="main~2", signed_off=signed)
    assert (evidence.verdict, evidence.reason, evidence.exit_status) == (
        "green",
        "2 passed, 0 skipped",
        0,
    )


def test_a_regression_is_not_green(repo: ScratchRepo) -> None:
    repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    wrong = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
    repo.commit("mul, and add broken", {"calc.py": wrong})
    signed = SignedOff(
        fail_to_pass=("tests.test_mul::test_mul",), pass_to_pass=("tests.test_calc::test_add",)
    )
    evidence = _verify(repo, base="main~2", signed_off=signed)
    assert (evidence.verdict, evidence.reason) == (
        "failing",
        "tests that are not new failed: tests.test_calc::test_add",
    )


def test_without_a_base_no_test_is_new(repo: ScratchRepo) -> None:
    repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    evidence = _verify(repo, base=None)
    assert (evidence.new, evidence.base, evidence.verdict) == ((), None, "failing")


def test_a_base_that_names_no_commit_runs_nothing(repo: ScratchRepo) -> None:
    with pytest.raises(GitError):
        _verify(repo, base="no-such-branch")
    assert sorted(p.name for p in repo.root.iterdir()) == [".git", "calc.py", "tests"]


def test_the_tests_see_no_credential_and_a_junit_path_outside_the_checkout(
    repo: ScratchRepo,
) -> None:
    probe = (
        "import os\n\n\ndef test_environment():\n"
        "    assert 'GITHUB_TOKEN' not in os.environ\n"
        "    assert 'INPUT_RECORD-SECRET' not in os.environ\n"
        "    junit = os.environ['BATON_JUNIT']\n"
        "    assert not os.path.exists(junit)\n"
        "    assert not os.path.abspath(junit).startswith(os.getcwd())\n"
        "    open('junit-path.txt', 'w').write(junit)\n"
    )
    repo.commit("a probe", {"tests/test_probe.py": probe})
    env = {**ENV, "GITHUB_TOKEN": "ghs_" + "x" * 36, "INPUT_RECORD-SECRET": "y" * 20}
    evidence = verify(repo.root, pytest_suite(), environ=env)
    assert evidence.verdict == "green", evidence.reason
    junit = Path((repo.root / "junit-path.txt").read_text())
    assert not junit.exists() and not junit.parent.exists()


def test_a_secret_in_a_failure_message_is_redacted(repo: ScratchRepo) -> None:
    leak = (
        "import os\n\n\ndef test_leak():\n"
        "    assert os.environ['OPENAI_API_KEY'] == 'x', os.environ['OPENAI_API_KEY']\n"
    )
    repo.commit("a leak", {"tests/test_leak.py": leak})
    env = {**ENV, "OPENAI_API_KEY": "sk-live-0123456789abcdef"}
    evidence = verify(repo.root, pytest_suite(), environ=env)
    (failed,) = [t for t in evidence.tests if t.outcome == "failed"]
    assert "sk-live" not in failed.message
    assert failed.message.startswith("AssertionError: [secret]")
    assert "sk-live" not in json.dumps(evidence.model_dump())


def test_tests_that_move_head_leave_no_evidence_to_trust(repo: ScratchRepo) -> None:
    mover = (
        "import subprocess\n\n\ndef test_move():\n"
        "    subprocess.run(['git', 'checkout', '-q', '--detach', 'HEAD~1'], check=True)\n"
    )
    head = repo.commit("a mover", {"tests/test_move.py": mover})
    evidence = _verify(repo)
    assert (evidence.verdict, evidence.commit, evidence.tests) == (
        "broken",
        head,
        (),
    )
    assert evidence.reason == "the tests moved HEAD away from the commit they ran on"


def test_the_evidence_file_round_trips_and_the_summary_is_one_line(
    repo: ScratchRepo, tmp_path: Path
) -> None:
    repo.commit("tests for mul", {"tests/test_mul.py": MUL_TESTS})
    evidence = _verify(repo)
    out = tmp_path / "baton-evidence.json"
    write(evidence, out)
    assert Evidence.model_validate_json(out.read_text()) == evidence
    assert summary(evidence) == (
        "red: 1 new or changed failed, every other test passed (1 failed, 1 passed; "
        f"1 new or changed) on {evidence.commit[:12]}"
    )


SECRET_ENV = {"DEPLOY_TOKEN": "tok-0123456789", "PATH": "/usr/bin"}


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ("assert 1 == 2", "assert 1 == 2"),
        ("token tok-0123456789 leaked", "token [secret] leaked"),
        ("zero\u200bwidth \u202eevil\u202c", "zerowidth evil"),
        ("\x1b[31mred\x1b[0m\r\n", "[31mred[0m"),
        ("  padded\n\n", "padded"),
        ("x" * 5000, "x" * MAX_MESSAGE),
        ("x" * (MAX_MESSAGE - 3) + "tok-0123456789", "x" * (MAX_MESSAGE - 3) + "[se"),
        ("\uff54\uff4f\uff4b-\uff10123456789", "[secret]"),
    ],
    ids=[
        "plain text is kept",
        "a secret of the environment is redacted",
        "invisible and bidirectional characters are removed",
        "terminal escapes and carriage returns lose their controls",
        "blank ends are trimmed",
        "a long message is clipped",
        "a secret cut by the clip was redacted before it",
        "a full-width secret, made plain by NFKC, is redacted too",
    ],
)
def test_a_failure_message_is_cleaned_exactly(text: str, cleaned: str) -> None:
    assert cleaner(SECRET_ENV)(text) == cleaned


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=3000), st.integers(min_value=0, max_value=3000))
def test_no_cleaned_message_holds_a_secret_or_an_unseen_character(text: str, at: int) -> None:
    text = text[:at] + "tok-0123456789" + text[at:]
    shown = cleaner(SECRET_ENV)(text)
    assert len(shown) <= MAX_MESSAGE
    assert "tok-0123456789" not in shown
    assert all(ch in "\n\t" or unicodedata.category(ch) not in {"Cc", "Cf"} for ch in shown)


def test_cleaning_64_kb_of_adversarial_text_is_bounded() -> None:
    hostile = ("tok-012345678\u200b" * 5000)[: 64 * 1024]
    start = time.process_time()
    cleaner(SECRET_ENV)(hostile)
    assert time.process_time() - start < 2.0


def test_git_configuration_the_tests_planted_runs_nothing_afterwards(
    repo: ScratchRepo, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    planter = (
        "import subprocess\n\n\ndef test_plant():\n"
        f"    subprocess.run(['git', 'config', 'core.fsmonitor', 'touch {marker}; true'], "
        "check=True)\n"
        f"    subprocess.run(['git', 'config', 'diff.external', 'touch {marker}; true'], "
        "check=True)\n"
    )
    repo.commit("a planter", {"tests/test_plant.py": planter})
    evidence = _verify(repo)
    assert evidence.verdict == "green", evidence.reason
    assert evidence.new == ("tests.test_plant::test_plant",)
    assert not marker.exists()


def _changeset(repo: ScratchRepo, files: dict[str, str | None]) -> Changeset:
    """What a tester's capture hands over: its files on HEAD, None a deletion."""
    return changeset_of(repo.git("rev-parse", "HEAD"), files)


def _worktrees(repo: ScratchRepo) -> int:
    listing = repo.git("worktree", "list", "--porcelain")
    return sum(line.startswith("worktree ") for line in listing.splitlines())


def _files_of(repo: ScratchRepo, commit: str) -> str:
    suite = pytest_suite()
    return files_digest(tree_of(repo.root, commit), (*suite.paths, *suite.frozen))


def test_a_red_proof_runs_on_head_with_the_changeset_and_names_both(repo: ScratchRepo) -> None:
    head = repo.git("rev-parse", "HEAD")
    change = _changeset(repo, {"tests/test_mul.py": MUL_TESTS})
    evidence = verify_changeset(repo.root, change, pytest_suite(), environ=ENV)
    assert (evidence.verdict, evidence.commit, evidence.base) == ("red", head, head)
    assert evidence.changeset == change.digest()
    assert evidence.new == ("tests.test_mul::test_mul",)
    assert _outcomes(evidence) == {
        "tests.test_calc::test_add": "passed",
        "tests.test_mul::test_mul": "failed",
    }
    assert evidence.tests[1].file == "tests/test_mul.py"
    # The checkout is as it was: no file, no commit, no worktree left.
    assert repo.git("rev-parse", "HEAD") == head and repo.git("status", "--porcelain") == ""
    assert _worktrees(repo) == 1
    # `files` is of the tree the tests ran on: the one Baton's commit of the changeset has.
    committed = repo.commit("the tester's commit", {"tests/test_mul.py": MUL_TESTS})
    assert evidence.files == _files_of(repo, committed) != _files_of(repo, head)


def test_a_changeset_whose_new_test_already_passes_is_not_red(repo: ScratchRepo) -> None:
    passing = "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
    change = _changeset(repo, {"tests/test_zero.py": passing})
    evidence = verify_changeset(repo.root, change, pytest_suite(), environ=ENV)
    assert evidence.new == ("tests.test_zero::test_add_zero",)
    assert (evidence.verdict, evidence.reason) == ("green", "2 passed, 0 skipped")


def test_a_changeset_that_deletes_a_file_runs_without_it(repo: ScratchRepo) -> None:
    change = _changeset(repo, {"tests/test_calc.py": None, "tests/test_mul.py": MUL_TESTS})
    evidence = verify_changeset(repo.root, change, pytest_suite(), environ=ENV)
    assert _outcomes(evidence) == {"tests.test_mul::test_mul": "failed"}
    assert evidence.verdict == "red", evidence.reason
    assert (repo.root / "tests" / "test_calc.py").exists()


def test_the_worktree_is_removed_after_a_hung_command_is_killed(
    repo: ScratchRepo, tmp_path: Path
) -> None:
    where = tmp_path / "where"
    hung = pytest_suite(timeout=timedelta(seconds=1)).model_copy(
        update={"command": f"pwd > {where}; sleep 300"}
    )
    change = _changeset(repo, {"tests/test_mul.py": MUL_TESTS})
    start = time.monotonic()
    evidence = verify_changeset(repo.root, change, hung, environ=ENV)
    assert time.monotonic() - start < 30
    assert (evidence.verdict, evidence.reason) == (
        "broken",
        "the tests ran past their timeout of 1s",
    )
    ran_in = Path(where.read_text().strip())
    assert ran_in != repo.root and not ran_in.exists()
    assert _worktrees(repo) == 1


def test_evidence_on_head_carries_the_digest_git_gives_of_its_test_files(
    repo: ScratchRepo,
) -> None:
    head = repo.commit("frozen", {"tests/conftest.py": "", "pyproject.toml": "[tool.x]\n"})
    evidence = _verify(repo)
    assert (evidence.changeset, evidence.commit) == (None, head)
    listing = repo.git("ls-tree", "-r", head, "--", "pyproject.toml", "tests").splitlines()
    lines = sorted(
        f"{mode} {rest.split(chr(9))[0]}\t{rest.split(chr(9))[1]}\n"
        for mode, _kind, rest in (line.split(" ", 2) for line in listing)
    )
    digest = hashlib.sha256("".join(lines).encode()).hexdigest()
    assert evidence.files == f"sha256:{digest}"


def test_a_red_proof_in_a_one_commit_deep_checkout_as_the_agent_job_has(
    repo: ScratchRepo, tmp_path: Path
) -> None:
    repo.commit("more", {"README.md": "# calc\n"})
    shallow = ScratchRepo.__new__(ScratchRepo)
    shallow.root = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.root}", str(shallow.root))
    assert shallow.git("rev-parse", "--is-shallow-repository") == "true"
    change = _changeset(shallow, {"tests/test_mul.py": MUL_TESTS})
    evidence = verify_changeset(shallow.root, change, pytest_suite(), environ=ENV)
    assert (evidence.verdict, evidence.new) == ("red", ("tests.test_mul::test_mul",))
    assert _worktrees(shallow) == 1
