"""`tests:` in `.github/baton.yml`: how `baton verify` runs the repository's tests, which files
are tests and which test infrastructure is frozen with them.

Without the section Baton behaves as before and a state's move rests on its agent's report.
Globs are matched path segment by path segment (`*` within a name, `**` any depth), as
`work.forbidden` is; writing `paths` or `frozen` replaces the default list.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field, field_validator

from baton.errors import InvalidSetting
from baton.workflow.durations import Duration

# What counts as a test file in the common layouts: Python (pytest and unittest), JavaScript and
# TypeScript (jest, vitest, mocha), Go, and the JVM (Maven's and Gradle's source sets).
DEFAULT_TEST_PATHS = (
    "**/test_*.py",
    "**/*_test.py",
    "**/tests/**",
    "**/test/**",
    "**/__tests__/**",
    "**/*.test.*",
    "**/*.spec.*",
    "**/*_test.go",
    "**/src/test/**",
    "**/src/*Test/**",
    "**/*Test.java",
    "**/*Tests.java",
    "**/*Test.kt",
    "**/*Tests.kt",
)
# The test infrastructure frozen with the tests, whole files: a test section of a file that
# holds other settings too (pyproject.toml, setup.cfg, package.json's "jest") is frozen with the
# file, because a section can deselect tests (`addopts = -k "not test_x"`) and a rule that reads
# sections would have to parse every format the way each runner does. Whole files is the rule a
# reader can predict; a maintainer who wants developers to change one writes their own list.
DEFAULT_FROZEN = (
    "**/conftest.py",
    "**/pytest.ini",
    "**/tox.ini",
    "**/setup.cfg",
    "**/pyproject.toml",
    "**/package.json",
    "**/jest.config.*",
    "**/jest.setup.*",
    "**/vitest.config.*",
    "**/vitest.workspace.*",
    "**/vitest.setup.*",
)
# GitHub ends a job after 6 hours; a test run that needs longer never hands anything back.
MAX_TIMEOUT = timedelta(hours=6)


class SuiteSettings(BaseModel):
    """The repository's tests, as `baton verify` runs them (`tests:`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(
        min_length=1,
        max_length=4000,
        description="A shell command, run in the checkout, that runs the tests and writes JUnit "
        "XML to the path in $BATON_JUNIT (a file, or a directory it creates for several), e.g. "
        'python -m pytest -q --junitxml="$BATON_JUNIT".',
    )
    setup: str | None = Field(
        default=None,
        max_length=4000,
        description="A shell command run first that installs what the tests need.",
    )
    timeout: Duration = Field(
        default=timedelta(minutes=20),
        description="How long setup and command may take together before every process they "
        "started is killed and the evidence is broken (at most 6h).",
    )
    paths: tuple[str, ...] = Field(
        default=DEFAULT_TEST_PATHS,
        min_length=1,
        description="Which files are tests (globs: * within a name, ** any depth). The default "
        "covers Python, JavaScript/TypeScript, Go and JVM layouts.",
    )
    frozen: tuple[str, ...] = Field(
        default=DEFAULT_FROZEN,
        description="Test infrastructure frozen with the tests, whole files (globs): "
        "conftest.py, pytest.ini, tox.ini, setup.cfg, pyproject.toml, package.json and the jest "
        "and vitest configs by default.",
    )

    @field_validator("command", "setup")
    @classmethod
    def _command(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or "\0" in value):
            raise InvalidSetting("a tests command must be a shell command, not blank")
        return value

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: timedelta) -> timedelta:
        if value > MAX_TIMEOUT:
            raise InvalidSetting("at most 6h (GitHub ends a job after 6 hours)")
        return value

    @field_validator("paths", "frozen")
    @classmethod
    def _globs(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        for glob in globs:
            if not glob.strip("/ ") or len(glob) > 1024 or not glob.isprintable():
                raise InvalidSetting(f"{glob[:80]!r} is not a path glob such as tests/**")
        return globs
