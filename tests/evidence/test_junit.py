"""Reading JUnit XML (`evidence/junit.py`): each runner's shape read exactly, several files and
nested suites, and hostile XML a reason in linear time, never an exception or a file read."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.evidence import MAX_MESSAGE, TestCase
from baton.evidence.junit import MAX_BYTES, MAX_DEPTH, JunitRead, parse, read

# pytest alone: none of this repository's options or plugins.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
PYTEST += ["-p", "no:xdist", "-o", "addopts="]
PYTEST_TESTS = """\
import pytest

def test_passes():
    assert True

def test_asserts():
    assert 1 == 2, "one is not two"

def test_raises():
    raise ValueError("boom")

@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture broke")

def test_setup_error(broken_fixture):
    pass

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")

def test_teardown_error(broken_teardown):
    pass

@pytest.mark.skip(reason="later")
def test_skipped():
    pass

@pytest.mark.xfail
def test_expected_to_fail():
    assert False

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x == 1

class TestGroup:
    def test_method(self):
        pass
"""


def _pytest_junit(tmp_path: Path, files: dict[str, str]) -> tuple[int, bytes]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = tmp_path / "junit.xml"
    done = subprocess.run(
        [*PYTEST, f"--junitxml={out}", "tests"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    return done.returncode, out.read_bytes()


def _brief(read: JunitRead) -> list[tuple[str, str | None, str]]:
    return [(t.id, t.file, t.outcome) for t in read.tests]


def test_pytest_junit_is_read_exactly(tmp_path: Path) -> None:
    status, xml = _pytest_junit(tmp_path, {"tests/test_shapes.py": PYTEST_TESTS})
    assert status == 1
    done = parse(xml)
    assert done.problem is None
    module = "tests.test_shapes"
    assert _brief(done) == [
        (f"{module}::test_passes", None, "passed"),
        (f"{module}::test_asserts", None, "failed"),
        (f"{module}::test_raises", None, "failed"),
        (f"{module}::test_setup_error", None, "error"),
        (f"{module}::test_teardown_error", None, "error"),
        (f"{module}::test_skipped", None, "skipped"),
        (f"{module}::test_expected_to_fail", None, "skipped"),
        (f"{module}::test_param[1]", None, "passed"),
        (f"{module}::test_param[2]", None, "failed"),
        (f"{module}.TestGroup::test_method", None, "passed"),
    ]
    messages = {t.id.rpartition("::")[2]: t.message for t in done.tests}
    assert messages["test_asserts"] == "AssertionError: one is not two\nassert 1 == 2"
    assert messages["test_raises"] == "ValueError: boom"
    assert messages["test_setup_error"] == 'failed on setup with "RuntimeError: fixture broke"'
    assert messages["test_teardown_error"].startswith('failed on teardown with "RuntimeError')
    assert messages["test_skipped"] == "later"
    assert messages["test_passes"] == ""


def test_a_pytest_collection_error_is_an_error_named_after_the_module(tmp_path: Path) -> None:
    files = {"tests/test_broken.py": "import no_such_module\n\ndef test_x():\n    pass\n"}
    status, xml = _pytest_junit(tmp_path, files)
    assert status == 2
    (case,) = parse(xml).tests
    assert (case.id, case.outcome, case.message) == (
        "tests.test_broken",
        "error",
        "collection failure",
    )


# jest-junit 16's shape (jest 29), as tests/evidence/test_junit_jest.py has the real tool write
# it: a suite per describe, classname and name both "<describe> <title>", the message in the
# text, and with JEST_JUNIT_REPORT_TEST_SUITE_ERRORS a suite that failed to run as an error.
JEST_JUNIT = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="4" failures="2" errors="1" time="1.054">
  <testsuite name="calc" errors="0" failures="2" skipped="1" timestamp="2026-11-29T05:58:19" \
time="0.658" tests="4">
    <testcase classname="calc adds" name="calc adds" time="0.01" file="__tests__/calc.test.js">
    </testcase>
    <testcase classname="calc subtracts" name="calc subtracts" time="0.002" \
file="__tests__/calc.test.js">
      <failure>Error: expect(received).toBe(expected) // Object.is equality

Expected: 5
Received: 0
    at Object.toBe (/tmp/jj/__tests__/calc.test.js:3:43)</failure>
    </testcase>
    <testcase classname="calc later" name="calc later" time="0" file="__tests__/calc.test.js">
      <skipped/>
    </testcase>
  </testsuite>
  <testsuite name="__tests__/broken.test.js" errors="1" failures="0" skipped="0" \
timestamp="1970-01-01T00:00:00" time="0" tests="0">
    <testcase classname="Test suite failed to run" name="__tests__/broken.test.js" time="0" \
file="__tests__/broken.test.js">
      <error>  &#9679; Test suite failed to run

    Cannot find module &apos;./nope&apos; from &apos;__tests__/broken.test.js&apos;</error>
    </testcase>
  </testsuite>
</testsuites>
"""


def test_jest_junit_is_read_with_its_file_attribute() -> None:
    done = parse(JEST_JUNIT)
    assert _brief(done) == [
        ("calc adds", "__tests__/calc.test.js", "passed"),
        ("calc subtracts", "__tests__/calc.test.js", "failed"),
        ("calc later", "__tests__/calc.test.js", "skipped"),
        (
            "Test suite failed to run::__tests__/broken.test.js",
            "__tests__/broken.test.js",
            "error",
        ),
    ]
    assert done.tests[1].message == (
        "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 5\n"
        "Received: 0\n    at Object.toBe (/tmp/jj/__tests__/calc.test.js:3:43)"
    )
    assert "Cannot find module './nope'" in done.tests[3].message


# go-junit-report's published sample (its testdata/006-report.xml): a suite per package, the
# package as classname, <properties>, the log of a failure in CDATA.
GO_JUNIT_REPORT = b"""<testsuites tests="4" failures="1">
\t<testsuite name="package/name1" tests="2" failures="0" errors="0" hostname="hostname" \
time="0.160" timestamp="2022-01-01T00:00:00Z">
\t\t<properties>
\t\t\t<property name="go.version" value="1.0"></property>
\t\t</properties>
\t\t<testcase name="TestOne" classname="package/name1" time="0.060"></testcase>
\t\t<testcase name="TestTwo" classname="package/name1" time="0.100"></testcase>
\t</testsuite>
\t<testsuite name="package/name2" tests="2" failures="1" errors="0" hostname="hostname" \
time="0.151" timestamp="2022-01-01T00:00:00Z">
\t\t<properties>
\t\t\t<property name="go.version" value="1.0"></property>
\t\t</properties>
\t\t<testcase name="TestOne" classname="package/name2" time="0.020">
\t\t\t<failure message="Failed"><![CDATA[file_test.go:11: Error message
file_test.go:11: Longer
\terror
\tmessage.]]></failure>
\t\t</testcase>
\t\t<testcase name="TestTwo" classname="package/name2" time="0.130"></testcase>
\t\t<system-out><![CDATA[exit status 1]]></system-out>
\t</testsuite>
</testsuites>
"""


def test_go_junit_report_is_read_package_by_package() -> None:
    done = parse(GO_JUNIT_REPORT)
    assert _brief(done) == [
        ("package/name1::TestOne", None, "passed"),
        ("package/name1::TestTwo", None, "passed"),
        ("package/name2::TestOne", None, "failed"),
        ("package/name2::TestTwo", None, "passed"),
    ]
    assert done.tests[2].message == "Failed"


# Surefire's report shape (its XSD 3.0): one <testsuite> per class, no <testsuites>, the
# exception's type, <system-out> inside a case, and a rerun's flaky failure of a test that passed.
SUREFIRE = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/\
surefire-test-report-3.0.xsd" version="3.0" name="org.acme.ParserTest" time="0.051" tests="4" \
errors="1" skipped="1" failures="1">
  <properties>
    <property name="java.version" value="17.0.9"/>
  </properties>
  <testcase name="parsesEmpty" classname="org.acme.ParserTest" time="0.011"/>
  <testcase name="parsesNumber" classname="org.acme.ParserTest" time="0.004">
    <failure message="expected: &lt;3&gt; but was: &lt;2&gt;" \
type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: \
expected: <3> but was: <2>
\tat org.acme.ParserTest.parsesNumber(ParserTest.java:21)]]></failure>
    <system-out><![CDATA[parsing 3]]></system-out>
  </testcase>
  <testcase name="opensFile" classname="org.acme.ParserTest" time="0.002">
    <error message="fixture.txt (No such file or directory)" type="java.io.FileNotFoundException"/>
  </testcase>
  <testcase name="laterFeature" classname="org.acme.ParserTest" time="0">
    <skipped message="not yet"/>
  </testcase>
  <testcase name="flaky" classname="org.acme.ParserTest" time="0.003">
    <flakyFailure message="first try" type="java.lang.AssertionError"/>
  </testcase>
</testsuite>
"""


def test_surefire_is_read_class_by_class() -> None:
    done = parse(SUREFIRE)
    assert _brief(done) == [
        ("org.acme.ParserTest::parsesEmpty", None, "passed"),
        ("org.acme.ParserTest::parsesNumber", None, "failed"),
        ("org.acme.ParserTest::opensFile", None, "error"),
        ("org.acme.ParserTest::laterFeature", None, "skipped"),
        ("org.acme.ParserTest::flaky", None, "passed"),
    ]
    assert done.tests[1].message == "expected: <3> but was: <2>"


def test_nested_suites_pass_their_file_down_to_their_cases() -> None:
    xml = b"""<testsuites>
      <testsuite name="outer" file="spec/outer.spec.ts">
        <testsuite name="inner">
          <testcase classname="outer inner" name="works"/>
          <testcase classname="outer inner" name="own" file="spec/own.spec.ts"/>
        </testsuite>
      </testsuite>
      <testcase name="alone"/>
    </testsuites>"""
    assert _brief(parse(xml)) == [
        ("outer inner::works", "spec/outer.spec.ts", "passed"),
        ("outer inner::own", "spec/own.spec.ts", "passed"),
        ("alone", None, "passed"),
    ]


def test_a_directory_of_files_is_read_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "TEST-b.xml").write_bytes(b'<testsuite><testcase name="two"/></testsuite>')
    (tmp_path / "a.xml").write_bytes(b'<testsuite><testcase name="one"/></testsuite>')
    (tmp_path / "notes.txt").write_text("not XML")
    assert [t.id for t in read(tmp_path).tests] == ["one", "two"]


def test_the_worst_outcome_of_a_case_is_its_outcome() -> None:
    xml = b"""<testsuite><testcase name="t">
      <skipped/><failure message="f"/><error message="teardown"/><failure message="again"/>
    </testcase></testsuite>"""
    (case,) = parse(xml).tests
    assert (case.outcome, case.message) == ("error", "teardown")


def test_messages_are_cleaned_and_clipped() -> None:
    xml = (
        b'<testsuite><testcase name="t"><failure>'
        + b"x" * 5000
        + b"</failure></testcase></testsuite>"
    )
    (case,) = parse(xml, clean=lambda text: text.replace("x", "y")).tests
    assert case.message == "y" * MAX_MESSAGE


@pytest.mark.parametrize(
    ("xml", "words"),
    [
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
            b'<testsuite><testcase name="&lol2;"/></testsuite>',
            "a DOCTYPE",
        ),
        (
            b'<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<testsuite><testcase name="t"><failure>&x;</failure></testcase></testsuite>',
            "a DOCTYPE",
        ),
        (b'<!DOCTYPE testsuite SYSTEM "http://example.invalid/junit.dtd"><testsuite/>', "DOCTYPE"),
        (b'<testsuite><testcase name="&undefined;"/></testsuite>', "not well-formed"),
        (b"<a>" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH}"),
        (b'<testsuite><testcase name="caf\xc3"/></testsuite>', "not well-formed"),
        (b'<testsuite><testcase name="t"></testsuite>', "not well-formed"),
        (b"", "not well-formed"),
        (b'<testsuite><testcase name=""/></testsuite>', "without a name"),
        (b'<?xml version="1.0" encoding="x-unknown"?><testsuite/>', "not well-formed"),
    ],
    ids=[
        "entity expansion (billion laughs)",
        "an external entity naming a local file",
        "an external DTD",
        "an entity never declared",
        "nesting deeper than the cap",
        "invalid UTF-8",
        "an element never closed",
        "nothing at all",
        "a test case without a name",
        "an encoding expat does not know",
    ],
)
def test_hostile_or_broken_xml_is_a_reason_and_no_test(xml: bytes, words: str) -> None:
    done = parse(xml)
    assert done.tests == ()
    assert done.problem is not None and words in done.problem


def test_no_junit_at_all_is_a_reason(tmp_path: Path) -> None:
    assert read(tmp_path / "junit.xml").problem == (
        "the test command wrote no JUnit XML to $BATON_JUNIT"
    )
    (tmp_path / "empty").mkdir()
    assert read(tmp_path / "empty").problem == "the test command wrote no JUnit XML to $BATON_JUNIT"


def test_a_file_over_the_cap_is_refused_without_reading_past_it(tmp_path: Path) -> None:
    big = tmp_path / "junit.xml"
    with big.open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # 100 MB, sparse
    assert read(big).problem == f"the JUnit XML is over {MAX_BYTES // (1024 * 1024)} MB"


@pytest.mark.parametrize("where", ["the path", "a file in the directory"])
def test_a_symbolic_link_is_never_followed(tmp_path: Path, where: str) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(
        b'<testsuite><testcase name="t"><failure>TOKEN</failure></testcase></testsuite>'
    )
    if where == "the path":
        link = tmp_path / "junit.xml"
        link.symlink_to(secret)
    else:
        (tmp_path / "out").mkdir()
        link = tmp_path / "out" / "a.xml"
        link.symlink_to(secret)
        link = link.parent
    done = read(link)
    assert done.tests == () and done.problem is not None and "symbolic link" in done.problem


def test_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "junit.xml"
    os.mkfifo(fifo)
    assert read(fifo).problem == "junit.xml is not a regular file"


ADVERSARIAL = {
    "many attributes": b'<testsuite><testcase name="t" ' + b'a="1" ' * 4000 + b"/></testsuite>",
    "deep but allowed nesting, repeated": b"<s>" + b"<a><b><c></c></b></a>" * 20000 + b"</s>",
    "many failures in one case": b'<testsuite><testcase name="t">'
    + b"<failure>x</failure>" * 20000
    + b"</testcase></testsuite>",
    "text in pieces": b'<testsuite><testcase name="t"><failure>'
    + b"&amp;x" * 60000
    + b"</failure></testcase></testsuite>",
}


@pytest.mark.parametrize("xml", list(ADVERSARIAL.values()), ids=list(ADVERSARIAL))
def test_adversarial_xml_is_read_in_bounded_time(xml: bytes) -> None:
    start = time.process_time()
    parse(xml)
    assert time.process_time() - start < 2.0


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_no_bytes_make_the_reader_raise(data: bytes) -> None:
    done = parse(data)
    assert (done.problem is None) or done.tests == ()
    assert all(isinstance(t, TestCase) for t in done.tests)


XML_PIECES = st.sampled_from(
    [
        "<testsuites>",
        "</testsuites>",
        "<testsuite>",
        "</testsuite>",
        '<testcase name="t">',
        "</testcase>",
        '<testcase classname="c" name="n"/>',
        "<failure>",
        "</failure>",
        '<error message="e"/>',
        "<skipped/>",
        "<![CDATA[x]]>",
        "&amp;",
        "&lol;",
        "<!DOCTYPE a>",
        '<?xml version="1.0"?>',
        "\x00",
        "\udcff",
        "é",
        "<",
        ">",
        '"',
        "<!-- c -->",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(XML_PIECES, max_size=40))
def test_no_junit_like_text_makes_the_reader_raise(pieces: list[str]) -> None:
    done = parse("".join(pieces).encode("utf-8", "surrogatepass"))
    assert done.problem is None or done.tests == ()
