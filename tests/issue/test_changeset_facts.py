"""A changeset judged against the branch head: the one place that decides refused, stale,
already committed, or to commit."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.changeset import Changeset, FileChange, TestFiles
from baton.core.model.record import Record
from baton.core.model.work import ChangesetFacts, CommitMark, Work
from baton.github.tracker import BranchHead, ChangedFile, CommitFacts, TreeAsk, TreeRead
from baton.issue.changeset_facts import (
    MAX_FOLDERS,
    MAX_TREE_READS,
    base_links,
    baton_message,
    blob_oid,
    claims,
    judge,
    not_baton_s,
    tree_ask,
)
from baton.workflow.config import WorkSettings
from baton.workflow.suite import SuiteSettings
from support.property_budget import budget

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


def _blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _baton_s(changeset: Changeset, oid: str = OTHER) -> CommitFacts:
    """The facts GitHub gives of Baton's own commit of `changeset`: on its base, signed by
    GitHub, by the bot, changing exactly its files."""
    files = tuple(
        ChangedFile(f.path, "removed", "d" * 40)
        if f.contents is None
        else ChangedFile(f.path, "modified", _blob(base64.b64decode(f.contents)))
        for f in changeset.files
    )
    return CommitFacts(
        oid=oid,
        parents=(changeset.base,),
        files=files,
        verified=True,
        author="github-actions[bot]",
        committer="web-flow",
        reason="valid",
    )


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


def test_a_developer_s_changeset_touching_a_signed_off_test_is_refused_naming_it() -> None:
    rule = TestFiles(suite=SuiteSettings(command="pytest"), frozen=True)
    changeset = _changeset("src/csv.py", "tests/test_csv.py")
    facts = judge(changeset, SETTINGS, _head(), _record(), tests=rule)
    assert facts.status == "refused"
    assert facts.problems == [
        "tests/test_csv.py is a signed-off test file: only the tester changes it, through a new "
        "red proof and a new sign-off"
    ]
    assert judge(changeset, SETTINGS, _head(), _record()).status == "ok"


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


def test_baton_s_login_comes_from_the_config_a_github_app_s_for_one() -> None:
    changeset = _changeset("a")
    head = _head(OTHER, f"x\n\nBaton-Changeset: {changeset.digest()}")
    apps = replace(_baton_s(changeset), author="baton-app[bot]")
    assert judge(changeset, SETTINGS, head, None, head_commit=apps).status == "stale"
    facts = judge(changeset, SETTINGS, head, None, head_commit=apps, bot="baton-app[bot]")
    assert facts.status == "committed"


def test_a_commit_at_the_head_with_the_digest_in_its_trailer_is_adopted() -> None:
    """An earlier attempt committed, then died before writing the record: found, not redone."""
    changeset = _changeset("a")
    message = f"developer: done (#7)\n\nRefs: #7\nBaton-Changeset: {changeset.digest()}"
    head = _head(OTHER, message)
    assert claims(changeset, head, _record())
    facts = judge(changeset, SETTINGS, head, _record(), head_commit=_baton_s(changeset))
    assert facts.status == "committed" and facts.oid == OTHER


def test_a_commit_at_the_head_is_adopted_only_with_the_very_message_baton_writes() -> None:
    """GitHub signs what any createCommitOnBranch makes, another workflow's token's too: the
    message must be byte for byte the one this record's attempt and this result give."""
    changeset = _changeset("a")
    record = _record(state="creating_tests")
    message = baton_message(changeset, record, "tester", "Tests for the export.")
    assert message == (
        "tester: Tests for the export. (#7)\n\nAgent tester in creating_tests, attempt 1.\n\n"
        f"Refs: #7\nBaton-Changeset: {changeset.digest()}"
    )
    head = _head(OTHER, message)
    ours = replace(_baton_s(changeset), message=message)
    facts = judge(changeset, SETTINGS, head, record, head_commit=ours, message=message)
    assert facts.status == "committed" and facts.oid == OTHER
    for other in (message + "\n", message.replace("attempt 1", "attempt 2"), ""):
        copied = replace(ours, message=other)
        facts = judge(changeset, SETTINGS, head, record, head_commit=copied, message=message)
        assert facts.status == "stale"
        assert facts.problems == [
            f"commit {OTHER[:7]} claims these changes but is not Baton's: its message is not "
            "the one Baton writes for this changeset"
        ]
    assert baton_message(changeset, None, "tester", "x") == ""  # no record: nothing matches


def test_a_commit_at_the_head_with_the_trailer_that_is_not_baton_s_is_a_moved_branch() -> None:
    """A write user copied the trailer of a changeset whose commit was lost: not adopted, and
    the facts say why (the issue is told)."""
    changeset = _changeset("a")
    message = f"mallory: sneaky\n\nBaton-Changeset: {changeset.digest()}"
    forged = replace(_baton_s(changeset), verified=False, author="mallory")
    facts = judge(changeset, SETTINGS, _head(OTHER, message), _record(), head_commit=forged)
    assert facts == ChangesetFacts(
        status="stale",
        digest=changeset.digest(),
        base=BASE,
        head=OTHER,
        files=1,
        bytes=2,
        paths=["a"],
        problems=facts.problems,
    )
    assert facts.problems == [
        f"commit {OTHER[:7]} claims these changes but is not Baton's: GitHub did not verify its "
        "signature (Baton's commits are signed by GitHub)"
    ]
    unread = judge(changeset, SETTINGS, _head(OTHER, message), _record())
    assert unread.status == "stale"
    assert unread.problems == [
        f"commit {OTHER[:7]} claims these changes but is not Baton's: GitHub knows no such commit"
    ]


def test_only_a_head_naming_this_changeset_unknown_to_the_record_is_read() -> None:
    changeset = _changeset("a")
    digest = changeset.digest()
    trailer = f"x\n\nBaton-Changeset: {digest}"
    mark = CommitMark(
        digest=digest,
        oid=OTHER,
        agent="developer",
        state="implementing",
        attempt=1,
        files=1,
        at=NOW,
    )
    known = Work(branch="baton/issue-7", created=True).with_commit(mark)
    assert claims(changeset, _head(OTHER, trailer), None)
    assert not claims(changeset, _head(OTHER, trailer), _record(known))
    assert not claims(changeset, _head(OTHER, "x\n\nBaton-Changeset: sha256:" + "0" * 64), None)
    assert not claims(changeset, _head(OTHER), None)
    assert not claims(changeset, None, None)
    assert not claims(Changeset(base=BASE), _head(OTHER, trailer), None)


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
    assert judge(
        changeset, SETTINGS, _head(OTHER, trailer), _record(), head_commit=_baton_s(changeset)
    ) == ChangesetFacts(status="committed", digest=digest, oid=OTHER, head=OTHER, **common)
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


# --- whose commit it is -------------------------------------------------------------------------
def _mixed() -> Changeset:
    """A changeset writing src/a.py and src/b.py and deleting old.py."""
    files = [
        FileChange(path="src/a.py", contents=base64.b64encode(b"A").decode()),
        FileChange(path="src/b.py", contents=base64.b64encode(b"B").decode()),
        FileChange(path="old.py"),
    ]
    return Changeset(base=BASE, files=files)


def _with_files(*files: ChangedFile) -> CommitFacts:
    return replace(_baton_s(_mixed()), files=files)


A, B = (
    ChangedFile("src/a.py", "modified", _blob(b"A")),
    ChangedFile("src/b.py", "added", _blob(b"B")),
)
OLD = ChangedFile("old.py", "removed", "e" * 40)
NOT_BATON_S = {
    "no such commit": (None, "GitHub knows no such commit"),
    "a parent that is not the base": (
        replace(_baton_s(_mixed()), parents=(OTHER,)),
        f"its parent is {OTHER[:7]}, not the changeset's base {BASE[:7]}",
    ),
    "a merge commit": (
        replace(_baton_s(_mixed()), parents=(BASE, OTHER)),
        f"its parent is {BASE[:7]}, {OTHER[:7]}, not the changeset's base {BASE[:7]}",
    ),
    "no parent at all": (
        replace(_baton_s(_mixed()), parents=()),
        f"its parent is none, not the changeset's base {BASE[:7]}",
    ),
    "not signed by GitHub": (
        replace(_baton_s(_mixed()), verified=False),
        "GitHub did not verify its signature (Baton's commits are signed by GitHub)",
    ),
    "signed with a write user's own key": (
        # `verified` holds for any key GitHub knows; GitHub signs only as web-flow.
        replace(_baton_s(_mixed()), committer="mallory"),
        "its committer is mallory, not web-flow (GitHub itself signs Baton's commits)",
    ),
    "committed by no account": (
        replace(_baton_s(_mixed()), committer=""),
        "its committer is no GitHub account, not web-flow (GitHub itself signs Baton's commits)",
    ),
    "a signature GitHub does not call valid": (
        replace(_baton_s(_mixed()), reason="unknown_signature_type"),
        "GitHub did not verify its signature (Baton's commits are signed by GitHub)",
    ),
    "signed, by a person": (
        replace(_baton_s(_mixed()), author="mallory"),
        "its author is mallory, not github-actions[bot]",
    ),
    "an author email of no account": (
        replace(_baton_s(_mixed()), author=""),
        "its author is no GitHub account, not github-actions[bot]",
    ),
    "more files than a page": (
        replace(_baton_s(_mixed()), more_files=True),
        "it changes more files than the changeset's 3",
    ),
    "one more file": (
        _with_files(A, B, OLD, ChangedFile(".github/baton.yml", "added", "f" * 40)),
        "it writes .github/baton.yml, which the changeset does not",
    ),
    "another blob at a path": (
        _with_files(replace(A, blob=_blob(b"A2")), B, OLD),
        "its src/a.py is not the changeset's",
    ),
    "a deletion left out": (_with_files(A, B), "it leaves out old.py, which the changeset changes"),
    "a write left out": (
        _with_files(A, OLD),
        "it leaves out src/b.py, which the changeset changes",
    ),
    "a deletion of its own": (
        _with_files(A, B, OLD, ChangedFile("keep.py", "removed", "f" * 40)),
        "it deletes keep.py, which the changeset does not",
    ),
    "a rename from a kept path": (
        _with_files(A, OLD, ChangedFile("src/b.py", "renamed", _blob(b"B"), "keep.py")),
        "it deletes keep.py, which the changeset does not",
    ),
    "a mode change": (
        _with_files(A, B, OLD, ChangedFile("run.sh", "changed", "f" * 40)),
        "it changes run.sh (changed), which the changeset does not",
    ),
    "a path written where the changeset deletes": (
        _with_files(A, B, ChangedFile("old.py", "modified", "f" * 40)),
        "it writes old.py, which the changeset does not",
    ),
}


@pytest.mark.parametrize("case", list(NOT_BATON_S))
def test_a_commit_that_is_not_provably_baton_s_is_named_why(case: str) -> None:
    commit, why = NOT_BATON_S[case]
    assert not_baton_s(_mixed(), commit) == why


def test_baton_s_own_commit_is_adopted_even_when_git_saw_a_rename() -> None:
    """Deleting old.py and writing its exact bytes at src/b.py is one rename to GitHub."""
    assert not_baton_s(_mixed(), _with_files(A, B, OLD)) is None
    renamed = _with_files(A, ChangedFile("src/b.py", "renamed", _blob(b"B"), "old.py"))
    assert not_baton_s(_mixed(), renamed) is None
    assert not_baton_s(_mixed(), replace(renamed, author="robot[bot]"), "robot[bot]") is None


def test_git_s_blob_id_is_sha1_of_its_header_and_bytes() -> None:
    """As `git hash-object` prints them for an empty file and for "hello\\n"."""
    assert blob_oid(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert blob_oid(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


paths = st.lists(
    st.text(alphabet="ab/._-\u200c~1", min_size=1, max_size=12), min_size=1, max_size=8, unique=True
)


@settings(budget(200), derandomize=True)
@given(paths, st.data())
def test_any_commit_of_exactly_the_changeset_is_adopted_and_any_one_change_refused(
    names: list[str], data: st.DataObject
) -> None:
    """Exactly base + changeset passes; one file more, one less, or one other blob never does."""
    files = [
        FileChange(path=n, contents=None if i % 3 == 2 else base64.b64encode(n.encode()).decode())
        for i, n in enumerate(names)
    ]
    changeset = Changeset(base=BASE, files=files)
    exact = _baton_s(changeset)
    assert not_baton_s(changeset, exact) is None
    index = data.draw(st.integers(0, len(exact.files) - 1))
    fewer = replace(exact, files=exact.files[:index] + exact.files[index + 1 :])
    assert not_baton_s(changeset, fewer) is not None
    extra = ChangedFile("\u0000extra", "added", "0" * 40)
    assert not_baton_s(changeset, replace(exact, files=(*exact.files, extra))) is not None
    target = exact.files[index]
    if target.status != "removed":
        other = replace(target, blob=_blob(b"other " + target.path.encode()))
        changed = (*exact.files[:index], other, *exact.files[index + 1 :])
        assert not_baton_s(changeset, replace(exact, files=changed)) is not None


def test_a_64_kb_forged_commit_is_judged_in_linear_time() -> None:
    """Thousands of paths with hostile names: one pass each, and the first difference named."""
    hostile = "\u202e" * 4
    names = [f"{'a/' * 8}{i:05d}{hostile}" for i in range(3000)]
    changeset = Changeset(
        base=BASE,
        files=[FileChange(path=n, contents=base64.b64encode(b"x").decode()) for n in names],
    )
    exact = _baton_s(changeset)
    assert sum(len(n) for n in names) > 64_000
    assert not_baton_s(changeset, exact) is None
    forged = replace(exact, files=(*exact.files[:-1], replace(exact.files[-1], blob="0" * 40)))
    assert not_baton_s(changeset, forged) == f"its {names[-1]} is not the changeset's"


# --- the base's links, read by the report job itself ------------------------------------------
class Reader:
    """`Git.read_tree` answering from a fixed base tree, recording what each read asked."""

    def __init__(self, folders: dict[str, list[tuple[str, str]]], targets: dict[str, str]) -> None:
        self.folders, self.targets = folders, targets
        self.asked: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    def __call__(self, ask: TreeAsk) -> TreeRead:
        self.asked.append((ask.folders, ask.links))
        listed = {f: tuple(self.folders[f]) if f in self.folders else None for f in ask.folders}
        return TreeRead(listed, {p: self.targets.get(p) for p in ask.links})


LINKED = {
    "": [(".claude", "120000"), ("tools", "120000"), ("vendor", "040000")],
    "vendor": [("tools", "040000")],
    "vendor/tools": [("claude", "040000")],
    "vendor/tools/claude": [("settings.json", "100644")],
    "src": [("app.py", "100644")],
}
TARGETS = {".claude": "tools/claude", "tools": "vendor/tools"}


def test_the_first_read_asks_the_root_and_every_folder_of_a_changed_path() -> None:
    ask = tree_ask(_changeset("src/app.py", "src/lib/x.py", "README.md"))

    assert ask == TreeAsk(BASE, ("", "src", "src/lib"))
    assert tree_ask(Changeset(base=BASE)) is None
    assert tree_ask(None) is None
    assert tree_ask(Changeset(base="nope", files=_changeset("a").files)) is None


def test_a_changeset_spread_over_too_many_folders_is_asked_nothing_and_refused() -> None:
    wide = _changeset(*(f"d{i}/a/b/c/f.txt" for i in range(MAX_FOLDERS // 4 + 1)))
    assert tree_ask(wide) is None
    links = base_links(wide, SETTINGS, None, Reader({}, {}))
    found = judge(wide, SETTINGS, _head(), _record(), links=links)
    assert found.status == "refused"
    assert any("the base's links could not all be read" in p for p in found.problems)


def test_without_a_link_in_the_folders_read_no_further_read_is_made() -> None:
    changeset = _changeset("src/app.py")
    reader = Reader(LINKED | {"": [("src", "040000")]}, {})
    first = reader(tree_ask(changeset))  # type: ignore[arg-type]

    links = base_links(changeset, SETTINGS, first, reader)

    assert reader.asked == [(("", "src"), ())]
    assert judge(changeset, SETTINGS, _head(), _record(), links=links).status == "ok"


def test_a_link_s_target_and_the_folders_it_leads_through_are_read_then_judged() -> None:
    changeset = _changeset("vendor/tools/claude/settings.json")
    reader = Reader(LINKED, TARGETS)
    first = reader(tree_ask(changeset))  # type: ignore[arg-type]

    links = base_links(changeset, SETTINGS, first, reader)
    found = judge(changeset, SETTINGS, _head(), _record(), links=links)

    assert reader.asked[1:] == [((), (".claude", "tools"))]  # the targets: one read more
    assert found.status == "refused"
    assert found.problems == [
        "vendor/tools/claude/settings.json is what .claude points at (.claude -> tools -> "
        "vendor/tools/claude), and .claude is a forbidden path: a change there is a change to it"
    ]


def test_a_tree_the_reads_never_finish_is_refused_as_unreadable() -> None:
    # every folder answers with one more link, deeper each time
    class Endless(Reader):
        def __call__(self, ask: TreeAsk) -> TreeRead:
            self.asked.append((ask.folders, ask.links))
            listed = {f: (("next", "120000"),) for f in ask.folders}
            return TreeRead(listed, {p: f"{p.rsplit('/', 1)[-1]}x/next" for p in ask.links})

    changeset = _changeset("a.txt")
    reader = Endless({}, {})
    links = base_links(
        changeset, WorkSettings(forbidden=("next",)), reader(tree_ask(changeset)), reader
    )

    assert len(reader.asked) <= MAX_TREE_READS + 2
    found = judge(changeset, WorkSettings(forbidden=("next",)), _head(), _record(), links=links)
    assert found.status == "refused"
