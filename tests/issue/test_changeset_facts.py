"""A changeset judged against the branch head: the one place that decides refused, stale,
already committed, or to commit."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from baton.core.changeset import Changeset, FileChange
from baton.core.record import Record
from baton.core.work import ChangesetFacts, CommitMark, Work
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
        ".github/workflows/x.yml is a forbidden path (.github/workflows/**): workflows run with "
        "the repository's secrets, and GITHUB_TOKEN cannot write them; no setting allows it",
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


# --- every field of the facts, per status ---------------------------------------------------
def test_the_facts_of_each_status_carry_every_field_decide_reads() -> None:
    changeset = _changeset("a", "b")
    digest = changeset.digest()
    common = {"base": BASE, "files": 2, "bytes": 4, "paths": ["a", "b"]}
    mark = CommitMark(
        digest=digest,
        oid=OTHER,
        agent="developer",
        state="implementing",
        attempt=1,
        files=2,
        at=NOW,
    )
    remembered = Work(branch="baton/issue-7", created=True).with_commit(mark)
    trailer = f"developer: done (#7)\n\nBaton-Changeset: {digest}"

    assert judge(changeset, SETTINGS, _head(), _record()) == ChangesetFacts(
        status="ok", digest=digest, head=BASE, **common
    )
    assert judge(changeset, SETTINGS, None, _record()) == ChangesetFacts(
        status="ok", digest=digest, head="", **common
    )
    assert judge(changeset, SETTINGS, _head(OTHER), _record()) == ChangesetFacts(
        status="stale", digest=digest, head=OTHER, **common
    )
    assert judge(changeset, SETTINGS, _head("c" * 40), _record(remembered)) == ChangesetFacts(
        status="committed", digest=digest, oid=OTHER, **common
    )
    assert judge(changeset, SETTINGS, _head(OTHER, trailer), _record()) == ChangesetFacts(
        status="committed", digest=digest, oid=OTHER, head=OTHER, **common
    )
    missing = Work(branch="baton/issue-7", created=True)
    assert judge(changeset, SETTINGS, None, _record(missing)) == ChangesetFacts(
        status="refused",
        digest=digest,
        problems=["baton/issue-7 does not exist (deleted?): nothing to commit onto"],
        **common,
    )


def test_an_empty_changeset_keeps_its_base() -> None:
    assert judge(Changeset(base=OTHER), SETTINGS, _head(), _record()) == ChangesetFacts(
        status="empty", base=OTHER
    )


def test_left_out_changes_keep_the_base_and_say_so_without_a_record() -> None:
    facts = judge(_changeset("a", "b"), SETTINGS, _head(), None, changes_code=False)
    assert facts == ChangesetFacts(
        status="empty",
        base=BASE,
        problems=["this state does not change code: the 2 changed file(s) were left out"],
    )


def test_without_a_record_a_changeset_is_judged_against_the_head_alone() -> None:
    changeset = _changeset("a")
    assert judge(changeset, SETTINGS, _head(), None).status == "ok"
    assert judge(changeset, SETTINGS, None, None).status == "ok"
    assert judge(changeset, SETTINGS, _head(OTHER), None).status == "stale"


def test_a_refused_changeset_counts_only_the_bytes_that_decode_and_names_20_problems() -> None:
    bad = FileChange(path="bad", contents="not base64!")
    changeset = Changeset(base=BASE, files=[*_changeset("ok").files, bad])
    assert judge(changeset, SETTINGS, _head(), _record()) == ChangesetFacts(
        status="refused",
        base=BASE,
        files=2,
        bytes=2,
        paths=["ok", "bad"],
        problems=["bad: the contents are not base64"],
    )
    many = _changeset(*(f"../f{i}" for i in range(25)))
    facts = judge(many, SETTINGS, _head(), _record())
    assert (facts.status, facts.files, len(facts.paths)) == ("refused", 25, 20)
    assert facts.problems == [f'"../f{i}" is not a normalised relative path' for i in range(20)]
