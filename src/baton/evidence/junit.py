"""JUnit XML as the test runners write it, read into test cases, or a reason it cannot be.

The shapes read: pytest's (`<testsuites><testsuite><testcase classname name>`), jest-junit's
(a suite per file), go-junit-report's (a suite per package, `<properties>`), Surefire's (one
`<testsuite>` per class, `<system-out>`), nested suites, and a directory of such files. A
test's outcome: `<failure>` is a failed test (an assertion or an exception inside its body),
`<error>` an error in collection, setup or teardown, `<skipped>` a skip; none is a pass.

The XML is written by the tests, which are agent-written code, so it is hostile input: it is
parsed by the standard library's expat with any DOCTYPE refused (so no entity is ever declared,
expanded or fetched: no billion laughs, no external entity), within a size cap and a nesting
cap, and no symbolic link or other non-regular file is opened. Any failure of that is a reason,
never an exception; the work is linear in the bytes read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from baton.core.model.evidence import MAX_ID, MAX_MESSAGE, MAX_TESTS, Outcome, TestCase

MAX_BYTES = 32 * 1024 * 1024  # of JUnit XML in all; a 10,000-test file is about 2 MB
MAX_FILES = 1000
MAX_DEPTH = 32  # elements inside each other; suites nest a few deep
CHUNK = 1024 * 1024
# An outcome's rank: a test that had both a failure and an error in teardown is an error.
RANK: dict[Outcome, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
OUTCOME_OF: dict[str, Outcome] = {"failure": "failed", "error": "error", "skipped": "skipped"}
SUITES = frozenset({"testsuite", "testsuites"})


@dataclass(frozen=True)
class JunitRead:
    """What the JUnit said: the test cases, or why nothing in it can be believed."""

    tests: tuple[TestCase, ...] = ()
    problem: str | None = None


class _Refused(Exception):
    """Raised inside an expat handler to stop the parse at once."""


@dataclass
class _Case:
    id: str
    file: str | None
    outcome: Outcome = "passed"
    message: str = ""
    text: list[str] = field(default_factory=list)


def _keep(text: str) -> str:
    return text[:MAX_ID]


class _Reader:
    """The expat handlers: a stack of the suites' `file`, the test case being read."""

    def __init__(self, clean: Callable[[str], str]) -> None:
        self.clean = clean
        self.tests: list[TestCase] = []
        self.files: list[str | None] = []  # the `file` of each open element
        self.case: _Case | None = None
        self.outcome_depth: int | None = None  # depth of the <failure>/<error>/<skipped> read

    def start(self, name: str, attrs: dict[str, str]) -> None:
        depth = len(self.files)
        if depth >= MAX_DEPTH:
            raise _Refused(f"elements nested deeper than {MAX_DEPTH}")
        inherited = self.files[-1] if self.files else None
        self.files.append(attrs.get("file") or inherited)
        if name == "testcase" and self.case is None:
            self._start_case(attrs, self.files[-1])
        elif name in OUTCOME_OF and self.case is not None and self.outcome_depth is None:
            outcome = OUTCOME_OF[name]
            if RANK[outcome] > RANK[self.case.outcome]:
                self.case.outcome, self.case.message = outcome, attrs.get("message", "")
                self.case.text = []
                self.outcome_depth = depth

    def _start_case(self, attrs: dict[str, str], file: str | None) -> None:
        name = attrs.get("name", "").strip()
        classname = attrs.get("classname", "").strip()
        if classname and name and classname != name:
            ident = f"{classname}::{name}"
        else:
            ident = name or classname
        if not ident:
            raise _Refused("a <testcase> without a name")
        if len(self.tests) >= MAX_TESTS:
            raise _Refused(f"more than {MAX_TESTS} test cases")
        self.case = _Case(id=_keep(ident), file=_keep(file) if file else None)

    def end(self, name: str) -> None:
        self.files.pop()
        depth = len(self.files)
        if self.outcome_depth == depth:
            self.outcome_depth = None
        elif name == "testcase" and self.case is not None and self.outcome_depth is None:
            case, self.case = self.case, None
            message = case.message or "".join(case.text)
            shown = self.clean(message)[:MAX_MESSAGE] if case.outcome != "passed" else ""
            self.tests.append(
                TestCase(id=case.id, file=case.file, outcome=case.outcome, message=shown)
            )

    def data(self, text: str) -> None:
        if self.case is not None and self.outcome_depth is not None and not self.case.message:
            self.case.text.append(text)


def _refuse(what: str) -> Callable[..., Any]:
    def handler(*_: object) -> Any:
        raise _Refused(what)

    return handler


def parse(data: bytes, clean: Callable[[str], str] = str) -> JunitRead:
    """The test cases of one JUnit document, or why it is refused."""
    reader = _Reader(clean)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a DOCTYPE (JUnit XML has none)")
    parser.EntityDeclHandler = _refuse("an entity declaration")
    parser.ExternalEntityRefHandler = _refuse("an external entity")
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.data
    parser.buffer_text = True
    try:
        for start in range(0, len(data), CHUNK):
            parser.Parse(data[start : start + CHUNK], False)
        parser.Parse(b"", True)
    except _Refused as exc:
        return JunitRead(problem=f"the JUnit XML holds {exc}")
    except (expat.ExpatError, ValueError, LookupError) as exc:
        return JunitRead(problem=f"the JUnit XML is not well-formed: {str(exc)[:200]}")
    return JunitRead(tests=tuple(reader.tests))


def _read_regular(path: Path, budget: int) -> bytes | str:
    """The file's bytes, or why it is not read: not a regular file, or over the budget."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return f"{path.name} cannot be opened ({exc.strerror})"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return f"{path.name} is not a regular file"
        data = handle.read(budget + 1)
    if len(data) > budget:
        return f"the JUnit XML is over {MAX_BYTES // (1024 * 1024)} MB"
    return data


def _xml_files(root: Path) -> list[Path] | str:
    """The `.xml` files under a directory, in order; a link or too many is a reason."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in [*dirs, *files]:
            if os.path.islink(os.path.join(folder, name)):
                return f"{name} is a symbolic link"
        found += [Path(folder, n) for n in sorted(files) if n.lower().endswith(".xml")]
        if len(found) > MAX_FILES:
            return f"more than {MAX_FILES} JUnit files"
    return found


def read(path: Path, clean: Callable[[str], str] = str) -> JunitRead:
    """The JUnit at `path`: a file, or a directory of `.xml` files (every one read)."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return JunitRead(problem="the test command wrote no JUnit XML to $BATON_JUNIT")
    if stat.S_ISLNK(mode):
        return JunitRead(problem="$BATON_JUNIT is a symbolic link")
    files = _xml_files(path) if stat.S_ISDIR(mode) else [path]
    if isinstance(files, str):
        return JunitRead(problem=files)
    if not files:
        return JunitRead(problem="the test command wrote no JUnit XML to $BATON_JUNIT")
    tests: list[TestCase] = []
    budget = MAX_BYTES
    for file in files:
        data = _read_regular(file, budget)
        if isinstance(data, str):
            return JunitRead(problem=data)
        budget -= len(data)
        done = parse(data, clean)
        if done.problem:
            return JunitRead(problem=f"{file.name}: {done.problem}")
        tests += done.tests
        if len(tests) > MAX_TESTS:
            return JunitRead(problem=f"more than {MAX_TESTS} test cases")
    return JunitRead(tests=tuple(tests))
