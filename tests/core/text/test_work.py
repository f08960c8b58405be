"""The texts Baton writes for an issue's work (`core/text/work.py`): commit messages and their
trailer, the pull request's title and description.

Pure functions, so every case pins the exact text: a re-run finds its commit by the trailer,
and GitHub shows the rest to people.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.core.model.evidence import ProofCounts, TestsRecord
from baton.core.model.work import CommitMark, Work, digest_in
from baton.core.text.plaintext import REPLACEMENT as F
from baton.core.text.plaintext import ZWSP as Z
from baton.core.text.work import commit_message, first_line, pull_request_body, pull_request_title

DIGEST = "sha256:" + "d" * 64
OTHER = "sha256:" + "f" * 64
AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
BODY_HEAD = (
    "Closes #3\n"
    "\n"
    "Baton's agents work on issue #3 here: each commit is one agent's changeset, checked and "
    "committed by Baton. The issue shows where the work stands and how to steer it.\n"
    "\n"
    "### The work so far\n"
    "\n"
)
BODY_FOOT = (
    "\n"
    "\n"
    "<sub>Baton maintains this description from the issue's record; an edit here is replaced "
    "at the next commit. Steer the work on the issue.</sub>"
)


def _mark(oid: str = "1" * 40, digest: str = DIGEST, summary: str = "done") -> CommitMark:
    return CommitMark(
        digest=digest,
        oid=oid,
        agent="developer",
        state="implementing",
        attempt=1,
        files=1,
        at=AT,
        summary=summary,
    )


# --- commit messages -----------------------------------------------------------------------
def test_a_commit_message_names_the_agent_and_carries_the_trailers() -> None:
    message = commit_message(
        issue=12,
        agent="developer",
        state="implementing",
        attempt=2,
        summary="\n  \nAdd the CSV export  \nwith a header row",
        digest=DIGEST,
    )
    assert message == (
        "developer: Add the CSV export (#12)",
        f"Agent developer in implementing, attempt 2.\n\nRefs: #12\nBaton-Changeset: {DIGEST}",
    )
    assert digest_in(message[1]) == DIGEST


def test_a_commit_message_refers_to_the_issue_by_its_url_when_given() -> None:
    _, body = commit_message(
        issue=12,
        agent="tester",
        state="creating_tests",
        attempt=1,
        summary="tests",
        digest=DIGEST,
        issue_url="https://github.com/o/r/issues/12",
    )
    assert body == (
        "Agent tester in creating_tests, attempt 1.\n\n"
        f"Refs: https://github.com/o/r/issues/12\nBaton-Changeset: {DIGEST}"
    )


@pytest.mark.parametrize(
    ("summary", "headline"),
    [
        pytest.param("", "dev: no summary (#1)", id="empty"),
        pytest.param(" \n\t\n", "dev: no summary (#1)", id="only blank lines"),
        pytest.param("x" * 50, f"dev: {'x' * 50} (#1)", id="exactly 50 characters"),
        pytest.param("x" * 51, f"dev: {'x' * 49}… (#1)", id="51 characters"),
        pytest.param("a" * 48 + " " + "b" * 10, f"dev: {'a' * 48}… (#1)", id="cut at a blank"),
    ],
)
def test_a_commit_headline_holds_the_summary_s_first_line_in_50_characters(
    summary: str, headline: str
) -> None:
    message = commit_message(
        issue=1, agent="dev", state="s", attempt=1, summary=summary, digest=DIGEST
    )
    assert message[0] == headline


@pytest.mark.parametrize(
    ("summary", "headline"),
    [
        pytest.param(
            "Fixes #1, closes #1 @octo-org/security",
            f"dev: Fixes #{Z}1, closes #{Z}1 @{Z}octo-org/security (#7)",
            id="the issue's own example",
        ),
        pytest.param(
            "Resolves https://github.com/o/r/issues/2",
            f"dev: Resolves https:{Z}//github.com/o/r/issues/{Z}2 (#7)",
            id="an issue's URL",
        ),
        pytest.param("fix GH-3", f"dev: fix GH{Z}-3 (#7)", id="a GH- reference"),
        pytest.param("::error::boom", f"dev: :{Z}:error:{Z}:boom (#7)", id="a workflow command"),
        pytest.param("red\x1b[31m", f"dev: red{F}[31m (#7)", id="a terminal escape"),
    ],
)
def test_the_agent_s_summary_lands_in_the_headline_as_data(summary: str, headline: str) -> None:
    """A squash or merge onto the default branch makes GitHub act on the message."""
    message = commit_message(
        issue=7, agent="dev", state="s", attempt=1, summary=summary, digest=DIGEST
    )
    assert message[0] == headline


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("", 10, ""),
        ("\n \n", 10, ""),
        ("  first  \nsecond", 10, "first"),
        ("abcdefghij", 10, "abcdefghij"),
        ("abcdefghijk", 10, "abcdefghi…"),
        ("abcdefgh jk", 10, "abcdefgh…"),
    ],
)
def test_first_line_is_the_first_non_blank_line_clipped(
    text: str, limit: int, expected: str
) -> None:
    assert first_line(text, limit) == expected


# --- the pull request's title --------------------------------------------------------------
@pytest.mark.parametrize(
    ("title", "expected"),
    [
        pytest.param("Export  as\nCSV ", "Export as CSV (#4)", id="white space collapsed"),
        pytest.param("", "Issue #4 (#4)", id="no title"),
        pytest.param(" \n ", "Issue #4 (#4)", id="a blank title"),
        pytest.param("x" * 200, "x" * 200 + " (#4)", id="exactly 200 characters"),
        pytest.param("x" * 201, "x" * 199 + "… (#4)", id="201 characters"),
        pytest.param("x" * 198 + " yy", "x" * 198 + "… (#4)", id="cut at a blank"),
        pytest.param("Fixes #3", f"Fixes #{Z}3 (#4)", id="a closing keyword: data"),
        pytest.param("cc @org/team", f"cc @{Z}org/team (#4)", id="a team mention: data"),
        pytest.param(
            "Closes http://github.com/o/r/issues/5",
            f"Closes http:{Z}//github.com/o/r/issues/{Z}5 (#4)",
            id="an issue's URL: data",
        ),
        pytest.param("a\u202eb", f"a{F}b (#4)", id="a bidi override shown"),
    ],
)
def test_a_pull_request_title_is_the_issue_s_title_in_200_characters(
    title: str, expected: str
) -> None:
    assert pull_request_title(4, title) == expected


# --- the pull request's description --------------------------------------------------------
def test_the_description_of_work_without_commits_says_nothing_yet() -> None:
    assert pull_request_body(3, Work(branch="baton/issue-3")) == (
        BODY_HEAD + "- nothing yet" + BODY_FOOT
    )


def test_the_description_carries_the_evidence_before_its_footer() -> None:
    tests = TestsRecord(counts=ProofCounts(red=1, failing=2))
    assert pull_request_body(3, Work(branch="baton/issue-3"), tests) == (
        BODY_HEAD
        + "- nothing yet\n\n### The tests\n\n"
        + "Evidence so far: 1 red, 0 green, 2 failing, 0 broken."
        + BODY_FOOT
    )


def test_a_commit_without_a_summary_says_so_and_a_long_one_is_clipped_to_120() -> None:
    work = Work(
        branch="baton/issue-3",
        commits=[
            _mark("1" * 40, summary=" \n "),
            _mark("2" * 40, digest=OTHER, summary="y" * 121),
            _mark("3" * 40, digest="sha256:" + "3" * 64, summary="z" * 120),
        ],
    )
    assert pull_request_body(3, work) == (
        BODY_HEAD
        + "- `developer` in `implementing`: no summary (`1111111`)\n"
        + f"- `developer` in `implementing`: {'y' * 119}… (`2222222`)\n"
        + f"- `developer` in `implementing`: {'z' * 120} (`3333333`)"
        + BODY_FOOT
    )


def test_an_agent_s_summary_in_the_description_closes_nothing_and_links_nobody() -> None:
    summary = "Fixes https://github.com/o/r/issues/2 and #3, cc @org/team"
    body = pull_request_body(3, Work(branch="baton/issue-3", commits=[_mark(summary=summary)]))
    line = body.splitlines()[6]
    assert line == (
        f"- `developer` in `implementing`: Fixes https:{Z}//github.com/o/r/issues/{Z}2 and "
        f"#{Z}3, cc @{Z}org/team (`1111111`)"
    )
