"""What a pull request's event needs read before deciding (`issue/pull_request_facts.py`): each
read made only for the issue's own pull request and only when the rules ask, once."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baton.core.model.events import CheckNote, LaterCommit, Lineage, ReviewNote
from baton.issue.pull_request_facts import attach
from baton.workflow.model import load_preset


def _builders() -> Any:
    path = Path(__file__).resolve().parent.parent / "core" / "rules" / "conftest.py"
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RULES = _builders()
B = RULES.Build(load_preset("issue-lifecycle"))
GATE = "waiting_for_human_input"
NOTE = ReviewNote(path="src/a.py", line=3, body="rename this")
FAILING = CheckNote(name="tests", summary="1 failed")


@dataclass
class Calls:
    """The pull-request reads asked of GitHub, in order, with fixed answers."""

    made: list[tuple[str, Any]] = field(default_factory=list)

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        self.made.append(("review_notes", (pull_request, review_id)))
        return [NOTE]

    def failing_checks(self, head: str) -> list[CheckNote]:
        self.made.append(("failing_checks", head))
        return [FAILING]

    def lineage(self, base: str, commit: str) -> Lineage:
        self.made.append(("lineage", (base, commit)))
        return Lineage(base=base, commits=(LaterCommit(oid=commit),), total=1)


def _with_pr(state: str) -> Any:
    return B.record(state, work=RULES.work())


def test_a_request_for_changes_reads_the_reviews_inline_comments_once() -> None:
    calls = Calls()
    event = B.reviewed("changes_requested", "maria", "creating_pr", review_id=501)
    read = attach(event, _with_pr("creating_pr"), calls, B.workflow)  # type: ignore[arg-type]
    assert read.notes == [NOTE]
    assert calls.made == [("review_notes", (RULES.PR, 501))]
    again = attach(read, _with_pr("creating_pr"), calls, B.workflow)  # type: ignore[arg-type]
    assert again.notes == [NOTE] and len(calls.made) == 1, "a run deciding again reads nothing"


def test_failed_checks_on_batons_last_commit_read_the_failing_runs() -> None:
    calls = Calls()
    event = B.checks("creating_pr", "failure")
    read = attach(event, _with_pr("creating_pr"), calls, B.workflow)  # type: ignore[arg-type]
    assert read.failing == [FAILING] and read.failed_runs == 1
    assert calls.made == [("failing_checks", RULES.HEAD)]


def test_an_approval_of_a_later_commit_at_the_gate_reads_the_commits_between() -> None:
    calls = Calls()
    later = "d" * 40
    event = B.reviewed("approved", "maria", GATE, commit=later, review_id=502)
    read = attach(event, _with_pr(GATE), calls, B.workflow)  # type: ignore[arg-type]
    assert read.lineage is not None and read.lineage.base == RULES.HEAD
    assert calls.made == [("lineage", (RULES.HEAD, later))]


def test_nothing_is_read_for_what_the_rules_do_not_ask() -> None:
    calls = Calls()
    record = _with_pr("creating_pr")
    asks_nothing = [
        B.reviewed("approved", "maria", "creating_pr"),  # of Baton's last commit
        B.reviewed("commented", "maria", "creating_pr"),
        B.reviewed("changes_requested", "maria", "creating_pr", pull_request=99),
        B.checks("creating_pr", "success"),
        B.checks("creating_pr", "failure", head="e" * 40),  # an older head
        B.commented("hello", "maria", "creating_pr"),
    ]
    for event in asks_nothing:
        assert attach(event, record, calls, B.workflow) == event  # type: ignore[arg-type]
    no_work = B.record("creating_pr")
    asked = B.reviewed("changes_requested", "maria", "creating_pr")
    assert attach(asked, no_work, calls, B.workflow) == asked  # type: ignore[arg-type]
    assert attach(asked, None, calls, B.workflow) == asked  # type: ignore[arg-type]
    assert calls.made == []
