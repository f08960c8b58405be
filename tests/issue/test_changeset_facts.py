"""A changeset judged against the branch head: the one place that decides refused, stale,
already committed, or to commit."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from baton.core.changeset import Changeset, FileChange
from baton.core.record import Record
from baton.core.work import CommitMark, Work
from baton.github.tracker import BranchHead
from baton.issue.changeset_facts import judge
from baton.workflow.config import WorkSettings

BASE = "a" * 40
OTHER = "b" * 40
NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SETTINGS = WorkSettings()


def _changeset(*paths: str) -> Changeset:
    files = [FileChange(path=p, contents=base64.b64encode(b"hi").decode()) for p in paths]
    return Changeset(base=BASE, files=files)


def _record(work: Work | None = None, state: str = "implementing") -> Record:
    return Record(workflow="issue-lifecycle", issue=7, state=state, entered_at=NOW, work=work)


def _head(oid: str = BASE, message: str = "tester: tests (#7)") -> BranchHead:
    return BranchHead(name="baton/issue-7", oid=oid, message=message)


def test_a_changeset_on_the_current_head_is_ok_with_its_digest() -> None:
    changeset = _changeset("src/a.py", "tests/test_a.py")
    facts = judge(changeset, SETTINGS, _head(), _record())
    assert facts.status == "ok"
    assert facts.digest == changeset.digest()
    assert (facts.files, facts.bytes, facts.paths) == (2, 4, ["src/a.py", "tests/test_a.py"])
    assert facts.head == BASE and facts.base == BASE


def test_an_empty_changeset_is_empty() -> None:
    facts = judge(Changeset(base=BASE), SETTINGS, _head(), _record())
    assert facts.status == "empty" and facts.problems == []


def test_changes_from_a_state_that_does_not_change_code_are_left_out_and_said() -> None:
    facts = judge(
        _changeset("notes.md"),
        SETTINGS,
        _head(),
        _record(state="analyzing_requirements"),
        changes_code=False,
    )
    assert facts.status == "empty"
    assert facts.problems == [
        "analyzing_requirements does not change code: the 1 changed file(s) were left out"
    ]


def test_a_refused_changeset_names_every_problem_and_no_digest() -> None:
    facts = judge(_changeset(".github/workflows/x.yml", "../y"), SETTINGS, _head(), _record())
    assert facts.status == "refused"
    assert facts.problems == [
        ".github/workflows/x.yml is a forbidden path (.github/workflows/**)",
        '"../y" is not a normalised relative path',
    ]
    assert facts.digest == ""


def test_a_moved_branch_makes_it_stale_with_the_new_head() -> None:
    facts = judge(_changeset("a"), SETTINGS, _head(OTHER), _record())
    assert facts.status == "stale" and facts.head == OTHER and facts.base == BASE


def test_a_commit_the_record_remembers_is_not_committed_again() -> None:
    changeset = _changeset("a")
    mark = CommitMark(
        digest=changeset.digest(),
        oid=OTHER,
        agent="developer",
        state="implementing",
        attempt=1,
        files=1,
        at=NOW,
    )
    work = Work(branch="baton/issue-7", created=True).with_commit(mark)
    # The head moved on since (a human pushed after Baton's commit): still already committed.
    facts = judge(changeset, SETTINGS, _head("c" * 40), _record(work))
    assert facts.status == "committed" and facts.oid == OTHER


def test_a_commit_at_the_head_with_the_digest_in_its_trailer_is_adopted() -> None:
    """An earlier attempt committed, then died before writing the record: found, not redone."""
    changeset = _changeset("a")
    message = f"developer: done (#7)\n\nRefs: #7\nBaton-Changeset: {changeset.digest()}"
    facts = judge(changeset, SETTINGS, _head(OTHER, message), _record())
    assert facts.status == "committed" and facts.oid == OTHER


def test_another_digest_in_the_head_trailer_is_just_a_moved_branch() -> None:
    changeset = _changeset("a")
    message = "developer: done (#7)\n\nBaton-Changeset: sha256:" + "0" * 64
    facts = judge(changeset, SETTINGS, _head(OTHER, message), _record())
    assert facts.status == "stale"


def test_a_missing_branch_refuses_the_changeset() -> None:
    work = Work(branch="baton/issue-7", created=True)
    facts = judge(_changeset("a"), SETTINGS, None, _record(work))
    assert facts.status == "refused"
    assert facts.problems == ["baton/issue-7 does not exist (deleted?): nothing to commit onto"]


def test_no_branch_yet_for_an_issue_from_before_branches_commits_after_creating_it() -> None:
    facts = judge(_changeset("a"), SETTINGS, None, _record())
    assert facts.status == "ok" and facts.head == ""
