"""Which test file holds a test, and which tests are new or changed since the base
(`evidence/changes.py`), for each runner's way of naming a test, on real git history."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.core.model.evidence import TestCase
from baton.evidence.changes import (
    GitError,
    Layout,
    commit_of,
    files_digest,
    layout_of,
    new_ids,
    touched_tests,
    tree_of,
    with_files,
)
from baton.workflow.suite import DEFAULT_FROZEN, DEFAULT_TEST_PATHS
from support.scratch_repo import ScratchRepo

CHECKOUT = Path("/work/checkout")
JS_BASE = "describe('calc', () => {\n  test('adds', () => {});\n});\n"
LAYOUT = Layout.of(
    [
        "tests/test_calc.py",
        "tests/unit/test_calc.py",
        "core/src/test/java/org/acme/ParserTest.java",
        "internal/store/store_test.go",
        "internal/store/cache_test.go",
        "web/__tests__/calc.test.js",
    ]
)


def _case(ident: str, file: str | None = None) -> TestCase:
    return TestCase(id=ident, file=file, outcome="passed")


@pytest.mark.parametrize(
    ("test", "files"),
    [
        (_case("tests.test_calc::test_add"), ["tests/test_calc.py"]),
        (_case("tests.test_calc.TestGroup::test_add"), ["tests/test_calc.py"]),
        (_case("tests.unit.test_calc::test_add"), ["tests/unit/test_calc.py"]),
        (_case("tests.test_calc"), ["tests/test_calc.py"]),
        (
            _case("org.acme.ParserTest::parsesNumber"),
            ["core/src/test/java/org/acme/ParserTest.java"],
        ),
        (
            _case("example.com/m/internal/store::TestGet"),
            ["internal/store/cache_test.go", "internal/store/store_test.go"],
        ),
        (_case("calc adds", "web/__tests__/calc.test.js"), ["web/__tests__/calc.test.js"]),
        (
            _case("calc adds", "/work/checkout/web/__tests__/calc.test.js"),
            ["web/__tests__/calc.test.js"],
        ),
        (_case("calc adds", "./web/__tests__/calc.test.js"), ["web/__tests__/calc.test.js"]),
        (_case("test_calc::test_add"), []),
        (_case("calc adds"), []),
        (_case("x", "/elsewhere/x_test.py"), []),
    ],
    ids=[
        "pytest: a module path",
        "pytest: a class inside a module",
        "pytest: the longer module path wins",
        "pytest: a module that did not import",
        "Surefire: a class under src/test/java",
        "go-junit-report: the package's folder, every test file in it",
        "jest-junit: its file attribute",
        "an absolute file inside the checkout",
        "a file written ./like/this",
        "two files answer to the name: neither",
        "jest-junit without its file attribute: none",
        "an absolute file outside the checkout: none",
    ],
)
def test_a_test_is_placed_in_its_file(test: TestCase, files: list[str]) -> None:
    assert LAYOUT.files_of(test, CHECKOUT) == files


def test_a_test_gets_its_file_only_where_one_file_holds_it() -> None:
    tests = [_case("tests.test_calc::test_add"), _case("example.com/m/internal/store::TestGet")]
    placed = with_files(tests, LAYOUT, CHECKOUT)
    assert [t.file for t in placed] == ["tests/test_calc.py", None]


@pytest.fixture
def repo(tmp_path: Path) -> ScratchRepo:
    scratch = ScratchRepo(tmp_path / "repo")
    scratch.commit(
        "base",
        {
            "README.md": "calc\n",
            "internal/store/store_test.go": "package store\n\nfunc TestGet(t *testing.T) {}\n",
            "web/__tests__/calc.test.js": JS_BASE,
        },
    )
    return scratch


def test_added_lines_name_the_changed_tests_of_each_runner(repo: ScratchRepo) -> None:
    base = repo.git("rev-parse", "HEAD")
    repo.commit(
        "tests",
        {
            "README.md": "calc, tested\n",
            "internal/store/store_test.go": "package store\n\nfunc TestGet(t *testing.T) {}\n"
            "\nfunc TestPut(t *testing.T) {}\n\nfunc test_put() {}\n",
            "web/__tests__/calc.test.js": "describe('calc', () => {\n  test('adds', () => {});\n"
            '  test("subtracts two numbers", () => {});\n  test(`adds a/b`, () => {});\n});\n',
        },
    )
    touched = touched_tests(repo.root, base, DEFAULT_TEST_PATHS)
    assert sorted(touched) == ["internal/store/store_test.go", "web/__tests__/calc.test.js"]
    layout = layout_of(repo.root, "HEAD", DEFAULT_TEST_PATHS)
    tests = [
        _case("example.com/m/internal/store::TestGet"),
        _case("example.com/m/internal/store::TestPut"),
        _case("example.com/m/internal/store::TestPut/empty_key"),
        _case("calc adds", "web/__tests__/calc.test.js"),
        _case("calc subtracts two numbers", "web/__tests__/calc.test.js"),
        _case("tests.test_store::test_put[a/b]", "internal/store/store_test.go"),
        _case("calc adds a/b", "web/__tests__/calc.test.js"),
    ]
    assert new_ids(tests, touched, layout, repo.root) == [
        "example.com/m/internal/store::TestPut",
        "example.com/m/internal/store::TestPut/empty_key",
        "calc subtracts two numbers",
        "tests.test_store::test_put[a/b]",
        "calc adds a/b",
    ]


def test_every_test_of_a_new_file_is_new_and_a_deleted_file_is_not_touched(
    repo: ScratchRepo,
) -> None:
    base = repo.git("rev-parse", "HEAD")
    repo.commit(
        "tests",
        {
            "tests/test_new.py": "def helper():\n    return 1\n",
            "web/__tests__/calc.test.js": None,
        },
    )
    touched = touched_tests(repo.root, base, DEFAULT_TEST_PATHS)
    assert list(touched) == ["tests/test_new.py"] and touched["tests/test_new.py"].added_file
    layout = layout_of(repo.root, "HEAD", DEFAULT_TEST_PATHS)
    tests = [_case("tests.test_new::test_generated_name"), _case("calc adds")]
    assert new_ids(tests, touched, layout, repo.root) == ["tests.test_new::test_generated_name"]


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=x", "HEAD~5"])
def test_a_ref_that_names_no_commit_is_refused(repo: ScratchRepo, ref: str) -> None:
    with pytest.raises(GitError):
        commit_of(repo.root, ref)


def test_a_folder_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GitError):
        commit_of(tmp_path, "HEAD")


FILES_REPO = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "def test_add():\n    pass\n",
    "tests/conftest.py": "",
    "pyproject.toml": "[project]\nname = 'calc'\n",
    "docs/guide.md": "# Guide\n",
}


def _digest_by_git(repo: ScratchRepo, paths: list[str]) -> str:
    """The contract's digest computed apart from Baton: `git ls-tree` of the named paths,
    as `<mode> <blob-oid>\\t<path>` lines, sorted, sha256 (`sha256sum`)."""
    import subprocess

    listing = repo.git("ls-tree", "-r", "HEAD", "--", *paths).splitlines()
    lines = sorted(f"{m} {oid}\t{p}\n" for m, _kind, rest in (x.split(" ", 2) for x in listing)
                   for oid, p in [rest.split("\t")])  # fmt: skip
    done = subprocess.run(
        ["sha256sum"], input="".join(lines).encode(), capture_output=True, check=True
    )
    return "sha256:" + done.stdout.decode().split()[0]


def test_the_files_digest_is_the_one_git_gives_for_the_test_and_frozen_files(
    tmp_path: Path,
) -> None:
    repo = ScratchRepo(tmp_path / "repo")
    head = repo.commit("start", FILES_REPO)
    globs = (*DEFAULT_TEST_PATHS, *DEFAULT_FROZEN)
    digest = files_digest(tree_of(repo.root, head), globs)
    assert digest == _digest_by_git(
        repo, ["pyproject.toml", "tests/conftest.py", "tests/test_calc.py"]
    )
    # The code and the docs are no part of it; a frozen file's contents or a test's mode is.
    repo.commit("code", {"calc.py": "x = 1\n", "docs/guide.md": "# More\n"})
    assert files_digest(tree_of(repo.root, "HEAD"), globs) == digest
    repo.commit("frozen", {"pyproject.toml": "[project]\nname = 'calc2'\n"})
    changed = files_digest(tree_of(repo.root, "HEAD"), globs)
    assert changed != digest
    repo.git("update-index", "--chmod=+x", "tests/test_calc.py")
    repo.git("commit", "-q", "-m", "mode")
    assert files_digest(tree_of(repo.root, "HEAD"), globs) not in {digest, changed}


def test_a_tree_of_no_test_file_has_the_digest_of_nothing(tmp_path: Path) -> None:
    repo = ScratchRepo(tmp_path / "repo")
    head = repo.commit("start", {"calc.py": "x = 1\n"})
    empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert files_digest(tree_of(repo.root, head), DEFAULT_TEST_PATHS) == empty
