"""An issue's work product as the record keeps it (`core/model/work.py`): the branch's name, the
commits Baton made (each once, the newest kept), and the digest a re-run reads back from a
commit's trailer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.core.model.work import KEEP_COMMITS, CommitMark, Work, branch_name, digest_in

DIGEST = "sha256:" + "d" * 64
OTHER = "sha256:" + "f" * 64
AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


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


# --- the trailer a re-run reads back -----------------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        pytest.param(f"dev: x (#1)\n\nRefs: #1\nBaton-Changeset: {DIGEST}", DIGEST, id="one"),
        pytest.param(
            f"Baton-Changeset: {OTHER}\nBaton-Changeset: {DIGEST}", DIGEST, id="the last one"
        ),
        pytest.param("dev: x (#1)\n\nRefs: #1", None, id="no trailer"),
        pytest.param(f"see Baton-Changeset: {DIGEST}", None, id="not at a line's start"),
        pytest.param(f"Baton-Changeset: {DIGEST} and more", None, id="more after the digest"),
        pytest.param(f"Baton-Changeset: {DIGEST[:-1]}", None, id="a digest too short"),
        pytest.param(f"Baton-Changeset: {DIGEST.upper()}", None, id="upper-case hex"),
        pytest.param(f"baton-changeset: {DIGEST}", None, id="the trailer's name in lower case"),
    ],
)
def test_the_digest_is_read_from_the_last_trailer_on_a_line_of_its_own(
    message: str, expected: str | None
) -> None:
    assert digest_in(message) == expected


# --- the branch ----------------------------------------------------------------------------
def test_a_branch_name_is_the_prefix_and_the_issue_number() -> None:
    assert branch_name("baton/issue-", 42) == "baton/issue-42"
    assert branch_name("work/", 7) == "work/7"


# --- the commits the record keeps ----------------------------------------------------------
def test_a_commit_moves_the_head_marks_the_branch_made_and_ends_a_run_of_stale_reports() -> None:
    work = Work(branch="b", head="0" * 40, stale_runs=2, failing_checks=["x"])
    mark = _mark("1" * 40)

    assert work.with_commit(mark) == Work(
        branch="b", created=True, head="1" * 40, commits=[mark], failing_checks=["x"]
    )


def test_a_commit_already_kept_leaves_the_work_as_it_is() -> None:
    work = Work(branch="b").with_commit(_mark("1" * 40))
    later = work.model_copy(update={"stale_runs": 1})

    assert later.with_commit(_mark("2" * 40)) is later
    assert later.committed(DIGEST) == _mark("1" * 40)
    assert later.committed(OTHER) is None


def test_only_the_newest_commits_are_kept() -> None:
    marks = [_mark(f"{i:040x}", digest=f"sha256:{i:064x}") for i in range(KEEP_COMMITS + 2)]
    work = Work(branch="b")
    for mark in marks:
        work = work.with_commit(mark)

    assert KEEP_COMMITS == 20
    assert work.commits == marks[2:]
    assert work.head == marks[-1].oid
