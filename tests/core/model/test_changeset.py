"""What a changeset may carry onto the branch: paths, modes, limits, forbidden paths, its digest.

The agent's job read untrusted issue text, so its changeset is hostile input: every refusal is
pinned by its exact reason, and properties cover what no example list can.
"""

from __future__ import annotations

import base64
import hashlib
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.changeset import (
    EXECUTABLE,
    GITLINK,
    SYMLINK,
    Changeset,
    FileChange,
    TestFiles,
    matches,
    parse_changeset,
    path_problem,
    problems,
    suite_problems,
)
from baton.errors import InvalidChangeset
from baton.workflow.config import WorkSettings
from baton.workflow.suite import SuiteSettings

BASE = "a" * 40
SETTINGS = WorkSettings()


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _set(*files: FileChange, base: str = BASE) -> Changeset:
    return Changeset(base=base, files=list(files))


def _add(path: str, text: str = "x", mode: str = "100644") -> FileChange:
    return FileChange(path=path, contents=_b64(text), mode=mode)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", "an empty path"),
        ("/etc/passwd", '"/etc/passwd" is absolute'),
        ("../outside", '"../outside" is not a normalised relative path'),
        ("a/../../b", '"a/../../b" is not a normalised relative path'),
        ("a//b", '"a//b" is not a normalised relative path'),
        ("./a", '"./a" is not a normalised relative path'),
        ("a/", '"a/" is not a normalised relative path'),
        (".git/config", '".git/config" is inside .git'),
        ("sub/.GIT/hooks/pre-commit", '"sub/.GIT/hooks/pre-commit" is inside .git'),
        (".git./config", '".git./config" is inside .git'),
        (".git /x", '".git /x" is inside .git'),
        ("a\\b", '"a\\\\b" has a control character or a backslash'),
        ("a\nb", '"a\\nb" has a control character or a backslash'),
        ("a\x00b", '"a\\u0000b" has a control character or a backslash'),
        ("x" * 1025, "a path of 1025 characters (at most 1024)"),
        ("d/" + "n" * 256, f'"{("d/" + "n" * 256)[:120]}" has a name longer than 255 characters'),
    ],
)
def test_a_path_outside_the_repository_or_into_git_is_refused(path: str, problem: str) -> None:
    assert path_problem(path) == problem


@pytest.mark.parametrize(
    "path",
    ["README.md", "src/a.py", ".github/dependabot.yml", "a/.gitignore", "x/.git-keep", "é/ü"],
)
def test_an_ordinary_path_is_fine(path: str) -> None:
    assert path_problem(path) is None


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        (".github/workflows/ci.yml", ".github/workflows/**", True),
        (".github/workflows/deep/x.yml", ".github/workflows/**", True),
        (".github/workflows", ".github/workflows/**", True),  # ** also matches no name
        (".github/workflowsx/ci.yml", ".github/workflows/**", False),
        (".github/baton.yml", ".github/baton.yml", True),
        ("docs/.github/baton.yml", ".github/baton.yml", False),
        ("a/b/secret.pem", "**/*.pem", True),
        ("secret.pem", "**/*.pem", True),
        ("a/b/c", "a/*/c", True),
        ("a/b/x/c", "a/*/c", False),
        ("a/b/x/c", "a/**/c", True),
        ("A/B", "a/b", False),  # case-sensitive, as git paths are
    ],
)
def test_forbidden_globs_match_by_path_segment(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


def test_every_problem_of_a_changeset_is_named_in_order() -> None:
    changeset = _set(
        _add(".github/workflows/ci.yml"),
        _add("link", "target", mode=SYMLINK),
        _add("vendor/lib", "", mode=GITLINK),
        _add("tool.sh", "#!/bin/sh", mode=EXECUTABLE),
        _add("odd", "x", mode="040000"),
        FileChange(path="bad64", contents="not base64!"),
        _add("../escape"),
        _add("tool.sh"),
        base="main",
    )
    assert problems(changeset, SETTINGS) == [
        "the base commit is not a 40-character commit id",
        ".github/workflows/ci.yml is a forbidden path (.github/workflows/**): workflows run with "
        "the repository's secrets, and GITHUB_TOKEN cannot write them; no setting allows it",
        "link is a symbolic link",
        "vendor/lib is a submodule",
        "odd has file mode '040000'",
        "bad64: the contents are not base64",
        '"../escape" is not a normalised relative path',
        "tool.sh appears twice",
    ]


def test_a_valid_changeset_has_no_problem_and_deletions_count_no_bytes() -> None:
    changeset = _set(_add("src/a.py", "print(1)\n"), FileChange(path="old.txt"))
    assert problems(changeset, SETTINGS) == []


def test_limits_on_files_and_bytes() -> None:
    settings = WorkSettings(max_files=2, max_bytes=10)
    three = _set(_add("a"), _add("b"), _add("c"))
    assert problems(three, settings) == ["3 files changed (at most 2)"]
    big = _set(_add("a", "123456"), _add("b", "789012"))
    assert problems(big, settings) == ["12 bytes of file contents (at most 10)"]


def test_the_configured_forbidden_list_adds_to_baton_s_own() -> None:
    """An old config that set `work.forbidden` to the old default plus its own globs keeps
    them all, and gains the new default entries."""
    settings = WorkSettings(forbidden=(".github/workflows/**", "secrets/**"))
    assert problems(_set(_add("secrets/key")), settings) == [
        "secrets/key is a forbidden path (secrets/**, in work.forbidden)"
    ]
    assert problems(_set(_add(".github/baton.yml")), settings) == [
        ".github/baton.yml is a forbidden path (.github/baton.yml): Baton's config: an agent "
        "would rewrite its own rules; no setting allows it"
    ]
    assert problems(_set(_add("CLAUDE.md")), settings) != []
    assert settings.refused.count(".github/workflows/**") == 1


def test_the_capture_s_own_refusal_comes_first() -> None:
    changeset = Changeset(base=BASE, refused="a file of 9 GB was not read")
    assert problems(changeset, SETTINGS) == ["a file of 9 GB was not read"]
    assert not changeset.empty


def test_the_digest_ignores_file_order_and_changes_with_any_byte() -> None:
    one = _set(_add("a", "1"), _add("b", "2"))
    two = _set(_add("b", "2"), _add("a", "1"))
    assert one.digest() == two.digest()
    assert one.digest().startswith("sha256:") and len(one.digest()) == 7 + 64
    assert _set(_add("a", "1"), _add("b", "3")).digest() != one.digest()
    assert _set(_add("a", "1"), _add("b", "2"), base="b" * 40).digest() != one.digest()
    assert _set(_add("a", "1"), FileChange(path="b")).digest() != one.digest()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "the changeset is not JSON (Expecting property name enclosed in double quotes"),
        ("[]", "the changeset must be a JSON object"),
        ('{"base": 5}', "the changeset does not validate: base: Input should be a valid string"),
        (
            f'{{"base": "{BASE}", "files": [], "extra": 1}}',
            "the changeset does not validate: extra: Extra inputs are not permitted",
        ),
        (
            f'{{"base": "{BASE}", "version": 2}}',
            "the changeset does not validate: version: Input should be 1",
        ),
    ],
)
def test_a_malformed_changeset_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(InvalidChangeset) as caught:
        parse_changeset(text)
    assert str(caught.value).startswith(message)


# --- properties -----------------------------------------------------------------------------
segment = st.text(alphabet=st.sampled_from("ab.-_/\\\x00 G IT"), min_size=0, max_size=12)


@given(st.lists(segment, min_size=1, max_size=6).map("/".join))
def test_no_accepted_path_escapes_or_enters_git(path: str) -> None:
    if path_problem(path) is None:
        names = path.split("/")
        assert not path.startswith("/")
        assert all(n not in {"", ".", ".."} for n in names)
        assert all(n.lower().rstrip(". ") != ".git" for n in names)
        assert "\\" not in path and "\x00" not in path


@given(st.lists(st.sampled_from(["a", "b", "*", "**", "?"]), min_size=1, max_size=6))
def test_a_double_star_pattern_matches_whatever_its_prefix_matches(parts: list[str]) -> None:
    pattern = "/".join(parts)
    for path in ("a", "a/b", "b/a/b", "a/a/a/a"):
        if matches(path, pattern):
            assert matches(path, pattern + "/**")


def test_64_kb_of_hostile_paths_and_patterns_are_checked_in_linear_time() -> None:
    hostile = "a/" * 32_000 + "b"
    assert path_problem(hostile) == "a path of 64001 characters (at most 1024)"
    assert matches("/".join(["a"] * 500), "/".join(["**"] * 200 + ["b"])) is False
    assert matches("/".join(["a"] * 500), "/".join(["**", "a"] * 100)) is True
    many = _set(*(_add(f"f{i}", "x") for i in range(300)))
    assert problems(many, SETTINGS) == []


def test_a_changeset_nested_past_the_parser_s_depth_is_one_clear_error() -> None:
    with pytest.raises(InvalidChangeset) as caught:
        parse_changeset("[" * 100_000 + "]" * 100_000)
    assert str(caught.value) == "the changeset is nested too deeply to be read"


def test_many_problems_are_counted_not_all_listed() -> None:
    files = ",".join(f'{{"path": {i}}}' for i in range(9))
    with pytest.raises(InvalidChangeset) as caught:
        parse_changeset(f'{{"base": "{BASE}", "files": [{files}]}}')
    message = str(caught.value)
    assert message.startswith("the changeset does not validate: files.0.path: Input should be")
    assert message.endswith("; and 4 more")


# --- edges the mutation run found unpinned --------------------------------------------------
def test_the_digest_is_the_sha256_of_a_compact_ascii_json_of_base_and_sorted_files() -> None:
    """The digest sits in commit trailers on branches: a re-run after an upgrade must compute
    the same one, so its canonical form is pinned byte for byte (non-ASCII escaped)."""
    changeset = _set(_add("é/b", "1"), FileChange(path="a"))
    canonical = b'["' + BASE.encode() + b'",[["a","100644",null],["\\u00e9/b","100644","MQ=="]]]'
    assert changeset.digest() == "sha256:" + hashlib.sha256(canonical).hexdigest()
    assert changeset.digest() == (
        "sha256:d95a81aca5d689a88c7b1a6c73f323b817e12bc9ec923aeb6b2732dda71cb76f"
    )


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("a/" * 511 + "ab", None),  # 1024 characters
        ("d/" + "n" * 255, None),
        ("d/" + "n" * 255 + "/e", None),
        (".gitx/y", None),
        ("a/.git. ./b", '"a/.git. ./b" is inside .git'),
    ],
)
def test_a_path_at_the_limits_is_fine_and_only_git_itself_is_refused(
    path: str, problem: str | None
) -> None:
    assert path_problem(path) == problem


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        pytest.param("secrets/key", "/secrets/**", True, id="a leading slash is ignored"),
        pytest.param("secrets/key", "secrets/key/", True, id="a trailing slash is ignored"),
        pytest.param("secrets/key", " secrets/key", False, id="a blank is part of the name"),
        pytest.param("Xfile", "Xfile", True, id="a name starting with X"),
        pytest.param("b", "b/**/b", False, id="names before ** are not matched again"),
        pytest.param("b/b", "b/**/b", True, id="** matching no name"),
        pytest.param("a", "a/**/**", True, id="two ** in a row matching nothing"),
    ],
)
def test_forbidden_glob_edges(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


def test_an_unknown_mode_is_named_in_its_first_ten_characters() -> None:
    changeset = _set(_add("odd", mode="1006440000000"))
    assert problems(changeset, SETTINGS) == ["odd has file mode '1006440000'"]


def test_contents_of_exactly_the_byte_limit_are_fine() -> None:
    settings = WorkSettings(max_bytes=12)
    assert problems(_set(_add("a", "123456"), _add("b", "789012")), settings) == []
    assert problems(_set(_add("a", "123456"), _add("b", "7890123")), settings) == [
        "13 bytes of file contents (at most 12)"
    ]


def test_a_field_deep_in_the_changeset_is_named_by_its_dotted_path() -> None:
    text = f'{{"base": "{BASE}", "files": [{{"path": "a"}}, {{"path": 5}}]}}'
    with pytest.raises(InvalidChangeset) as caught:
        parse_changeset(text)
    assert str(caught.value) == (
        "the changeset does not validate: files.1.path: Input should be a valid string"
    )


# --- the test files: tests only in a red proof's state, frozen after a sign-off ----------------
SUITE = SuiteSettings(command="pytest")
TESTS_ONLY = TestFiles(suite=SUITE, tests_only=True)
FROZEN = TestFiles(suite=SUITE, frozen=True)
RED_AFTER_SIGN_OFF = TestFiles(suite=SUITE, tests_only=True, frozen=True)
NOT_A_TEST = (
    " is not a test file (tests.paths) nor test infrastructure (tests.frozen): this state "
    "writes tests only"
)
SIGNED = ": only the tester changes it, through a new red proof and a new sign-off"
SIGNED_TEST = " is a signed-off test file" + SIGNED
SIGNED_INFRA = " is a signed-off frozen test infrastructure file" + SIGNED


@pytest.mark.parametrize(
    ("rule", "path", "problem"),
    [
        pytest.param(TESTS_ONLY, "tests/test_csv.py", None, id="red: a test file"),
        pytest.param(TESTS_ONLY, "pkg/sub/test_x.py", None, id="red: a test file by its name"),
        pytest.param(TESTS_ONLY, "web/src/__tests__/a.js", None, id="red: jest's folder"),
        pytest.param(
            TESTS_ONLY, "conftest.py", None, id="red: frozen infrastructure is the tester's"
        ),
        pytest.param(TESTS_ONLY, "src/csv.py", "src/csv.py" + NOT_A_TEST, id="red: code"),
        pytest.param(
            TESTS_ONLY, "latest.py", "latest.py" + NOT_A_TEST, id="red: a name like a test's"
        ),
        pytest.param(FROZEN, "src/csv.py", None, id="signed: code is the developer's"),
        pytest.param(
            FROZEN, "tests/test_csv.py", "tests/test_csv.py" + SIGNED_TEST, id="signed: a test"
        ),
        pytest.param(
            FROZEN,
            "tests/data/in.csv",
            "tests/data/in.csv" + SIGNED_TEST,
            id="signed: a file under tests/",
        ),
        pytest.param(
            FROZEN, "pyproject.toml", "pyproject.toml" + SIGNED_INFRA, id="signed: frozen infra"
        ),
        pytest.param(
            FROZEN, "Conftest.py", None, id="signed: another name, as git and pytest see it"
        ),
        pytest.param(
            RED_AFTER_SIGN_OFF, "tests/test_csv.py", None, id="a new red proof may change them"
        ),
    ],
)
def test_what_a_state_may_do_to_the_test_files(
    rule: TestFiles, path: str, problem: str | None
) -> None:
    found = suite_problems([path], rule)
    assert found == ([problem] if problem else [])
    if problem:
        assert found[0].startswith(path)  # the file is named first


def test_a_refused_test_file_is_among_the_changeset_s_problems() -> None:
    changeset = _set(_add("src/csv.py"), _add("tests/test_csv.py"))
    assert problems(changeset, SETTINGS, tests=FROZEN) == ["tests/test_csv.py" + SIGNED_TEST]
    assert problems(changeset, SETTINGS) == []


def test_the_configured_test_paths_replace_the_defaults() -> None:
    suite = SuiteSettings(command="pytest", paths=("spec/**",), frozen=())
    rule = TestFiles(suite=suite, tests_only=True)
    assert suite_problems(["spec/a_spec.rb", "tests/test_a.py"], rule) == [
        "tests/test_a.py" + NOT_A_TEST
    ]


def test_64_kb_of_paths_against_the_test_globs_is_checked_in_bounded_time() -> None:
    paths = ["/".join(["a*b"] * 60) + f"/f{i}.py" for i in range(300)]
    assert sum(map(len, paths)) > 64 * 1024
    started = time.process_time()
    found = suite_problems(paths, TESTS_ONLY)
    assert time.process_time() - started < 2.0
    assert len(found) == len(paths)
