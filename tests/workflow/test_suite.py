"""`tests:` in `.github/baton.yml` (`workflow/suite.py`): its defaults cover the common layouts,
its values are checked one by one, and without it nothing is set."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.core.model.changeset import matches
from baton.errors import InvalidConfig
from baton.workflow.config import parse_config
from baton.workflow.suite import DEFAULT_FROZEN, DEFAULT_TEST_PATHS, SuiteSettings


def _tests(text: str) -> SuiteSettings | None:
    return parse_config(text, source="baton.yml").config.tests


def _any(path: str, globs: tuple[str, ...]) -> bool:
    return any(matches(path, glob) for glob in globs)


def test_without_tests_the_config_has_none() -> None:
    assert _tests("workflow: issue-lifecycle\n") is None


def test_a_command_alone_takes_every_default() -> None:
    suite = _tests('tests:\n  command: python -m pytest -q --junitxml="$BATON_JUNIT"\n')
    assert suite == SuiteSettings(
        command='python -m pytest -q --junitxml="$BATON_JUNIT"',
        setup=None,
        timeout=timedelta(minutes=20),
        paths=DEFAULT_TEST_PATHS,
        frozen=DEFAULT_FROZEN,
    )


def test_every_setting_is_read() -> None:
    suite = _tests(
        "tests:\n  command: npx jest\n  setup: npm ci\n  timeout: 1h30m\n"
        "  paths: [spec/**]\n  frozen: [spec/helper.js]\n"
    )
    assert suite is not None
    assert (suite.setup, suite.timeout) == ("npm ci", timedelta(minutes=90))
    assert (suite.paths, suite.frozen) == (("spec/**",), ("spec/helper.js",))


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_parser.py",
        "test_top.py",
        "pkg/parser_test.py",
        "pkg/tests/helpers.py",
        "test/fixtures/data.json",
        "src/__tests__/App.jsx",
        "src/app.test.ts",
        "web/components/button.spec.tsx",
        "internal/store/store_test.go",
        "core/src/test/java/org/acme/ParserTest.java",
        "app/src/androidTest/kotlin/org/acme/UiTest.kt",
        "src/integrationTest/resources/seed.sql",
        "lib/FooTests.kt",
    ],
    ids=lambda p: p,
)
def test_the_default_paths_cover_each_common_layout(path: str) -> None:
    assert _any(path, DEFAULT_TEST_PATHS)


@pytest.mark.parametrize(
    "path",
    [
        "src/parser.py",
        "README.md",
        "internal/store/store.go",
        "core/src/main/java/org/acme/Parser.java",
        "web/components/button.tsx",
        "contest.py",
    ],
    ids=lambda p: p,
)
def test_the_default_paths_leave_the_code_out(path: str) -> None:
    assert not _any(path, DEFAULT_TEST_PATHS)


@pytest.mark.parametrize(
    "path",
    [
        "conftest.py",
        "tests/unit/conftest.py",
        "pytest.ini",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        "package.json",
        "jest.config.js",
        "web/jest.config.ts",
        "vitest.config.mts",
        "vitest.workspace.ts",
    ],
    ids=lambda p: p,
)
def test_the_default_frozen_files_are_the_test_infrastructure(path: str) -> None:
    assert _any(path, DEFAULT_FROZEN)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("tests: {setup: pip install .}\n", ["tests.command", "Field required"]),
        ("tests: {command: '   '}\n", ["tests.command", "not blank"]),
        ("tests: {command: pytest, setup: ''}\n", ["tests.setup", "not blank"]),
        ("tests: {command: pytest, timeout: 7h}\n", ["tests.timeout", "at most 6h"]),
        ("tests: {command: pytest, timeout: soon}\n", ["tests.timeout", "not a duration"]),
        ("tests: {command: pytest, paths: []}\n", ["tests.paths", "at least 1"]),
        ("tests: {command: pytest, frozen: ['/']}\n", ["tests.frozen", "not a path glob"]),
        ("tests: {command: pytest, parallel: 4}\n", ["tests.parallel", "unknown key"]),
    ],
    ids=[
        "no command",
        "a blank command",
        "a blank setup",
        "a timeout longer than a job may run",
        "a timeout that is no duration",
        "no test path at all",
        "a frozen glob that names nothing",
        "a key the section does not have",
    ],
)
def test_a_bad_tests_section_is_one_line_naming_the_key(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _tests(text)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message
