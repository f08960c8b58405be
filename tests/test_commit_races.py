"""Two runs on one issue while a report's changeset travels: nothing committed twice, nothing lost.

As in `tests/test_races.py`, a second thing happens *inside* a report run, just before each of
its requests to GitHub in turn (`api.on_request`; and once after it, the sequential baseline):
the requests come from a trace of the report run alone, so a new request in `src` is raced
without editing this file. The report
is the developer's, at implementing, with a changeset on the branch head; what lands inside it:

* the same job re-run (same run id), or the same report handed in by another run (a new run
  id, bound by `--state` to implementing): the report delivered twice;
* a maintainer's relabel to running_tests (its own run);
* a human push to the issue's branch (no run: Baton handles no push).

Then one more run (what Baton's dispatch starts) and the branch and the record must say:

* no changeset digest in two commits on the branch, and each Baton commit on the head the
  agent started from (`createCommitOnBranch`'s compare-and-swap: a push is never overwritten);
* every human push still on the branch;
* a Baton commit on the branch is remembered in the record (even when the relabel made the
  report stale after it was committed);
* the report's move applied at most once, and applied or remembered as considered;
* at most one pull request from the branch, and the record's.

Outside the write window (a run's record re-check to its record write: GitHub has no
conditional write on comments), all of it holds; inside it, a racing record write may overwrite
the other's, and the next run bounds that as in `tests/test_races.py` (documented in
docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.issue import record_comment
from baton.issue.apply import tracker_labels
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from support.memory import (
    BRANCH,
    CHAIN,
    PEOPLE,
    ChangesetJob,
    changeset_job,
    changeset_on,
    digests_on,
    enter_at,
    kick_job,
    labels_agree,
    lineage,
    record_comments,
    record_of,
    relabel_job,
    seen_as,
)

CODE = {"src/export.py": "def export():\n    return 'csv'\n"}
MOVE = ("implementing", "creating_pr")  # the developer's report, confident: on to a pull request
RELABELLED = "running_tests"


@dataclass
class Scene:
    """The issue at implementing with its branch, and the developer's report about to run."""

    gh: SimGitHub
    settings: Settings
    base: str
    report: ChangesetJob
    digest: str
    pushes: list[str]


def scene(*, branch: bool = True) -> Scene:
    gh = SimGitHub(labels=tracker_labels(load_config(None)))
    for login, permission in PEOPLE.items():
        gh.set_permission(login, permission)
    gh.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    settings = load_config(None)
    enter_at(gh, settings, "implementing")
    if not branch:  # entered before Baton made branches: the report run makes it
        del gh.git.refs[BRANCH]
        (found,) = record_comments(gh)
        record = record_comment.parse(found.body)
        older = record.model_copy(update={"work": None})
        body = record_comment.render(older, agent=None, written_at=record.written_at)
        gh.comment_store[found.id].body = body
    base = gh.git.head(BRANCH) or gh.git.refs[gh.git.default_branch]
    changeset = changeset_on(base, CODE)
    job = changeset_job(gh, settings, "developer", changeset, summary="CSV export.")
    return Scene(gh, settings, base, job, changeset.digest(), [])


# --- what lands inside the report run -----------------------------------------------------------
def rerun(s: Scene) -> Callable[[], object]:
    """The same job re-run: the same event, the same run id, the same changeset."""
    return s.report.run


def handed_in_again(s: Scene) -> Callable[[], object]:
    """The same report and changeset from another run (a new run id), bound to implementing."""
    parsed = AgentResult(status="success", confidence=0.9, summary="CSV export.")

    def event_at(now: Any) -> events.Event:
        return events.report(
            1,
            agent="developer",
            result=parsed,
            error=None,
            now=now,
            run_id="run-again",
            state="implementing",
        )

    job = ChangesetJob(s.gh, s.settings, event_at, chain=CHAIN, changeset=s.report.changeset)
    return job.run


def relabel(s: Scene) -> Callable[[], object]:
    """Maria relabels the issue to running_tests; her run handles it."""
    job = relabel_job(s.gh, s.settings, "status:running-tests", "maria")
    return job.run


def push(s: Scene) -> Callable[[], object]:
    """Maria pushes to the issue's branch by hand: no run of Baton's."""
    s.pushes.append(s.gh.human_push(BRANCH, {"notes.md": "by hand\n"}, "By hand", by="maria"))
    return lambda: None


SECONDS = {
    "the same job re-run": rerun,
    "the same report handed in by another run": handed_in_again,
    "a maintainer's relabel": relabel,
    "a human push to the branch": push,
}
SETUPS = {"its branch": True, "no branch yet": False}


def trace(branch: bool) -> list[str]:
    s = scene(branch=branch)
    calls: list[str] = []
    s.gh.api.on_request = lambda call: calls.append(seen_as(call))
    s.report.run()
    s.gh.api.on_request = None
    return calls


def in_window(calls: list[str], index: int) -> bool:
    """Whether the second lands between the report run's record re-check and its write: after
    a `BatonRecordCheck`, before or at the write document that edits the record."""
    checked = [i for i, call in enumerate(calls) if call == "BatonRecordCheck" and i < index]
    if not checked:
        return False
    after = calls[checked[-1] + 1 : index + 1]
    return index < len(calls) and not any(RECORD_WRITE in call for call in after[:-1])


RECORD_WRITE = "BatonWrite: updateIssueComment"


def points() -> Iterator[Any]:
    for setup, branch in SETUPS.items():
        calls = trace(branch)
        for second in SECONDS:
            for index in range(len(calls) + 1):
                where = f"before its {calls[index]}" if index < len(calls) else "after it"
                yield pytest.param(
                    branch, second, index, in_window(calls, index), id=f"{setup}: {second} {where}"
                )


def play(s: Scene, second: str, index: int) -> None:
    calls = 0
    landed: list[Callable[[], object]] = []

    def land(call: object) -> None:
        nonlocal calls
        calls += 1
        if calls == index + 1 and not landed:
            landed.append(SECONDS[second](s))
            landed[0]()

    s.gh.api.on_request = land
    s.report.run()
    s.gh.api.on_request = None
    if not landed:
        SECONDS[second](s)()
    kick_job(s.gh, s.settings).run()


# --- the races ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("branch", "second", "index", "window"), list(points()))
def test_a_report_raced_at_every_call_commits_once_and_loses_nothing(branch, second, index, window):
    s = scene(branch=branch)

    play(s, second, index)

    gh = s.gh
    record = record_of(gh)
    assert record is not None and len(record_comments(gh)) == 1
    assert labels_agree(gh, s.settings), gh.log
    on_branch = digests_on(gh)
    assert on_branch.count(s.digest) <= 1, "the changeset was committed twice"
    chain = lineage(gh)
    kept = gh.git.ancestors(chain[0]) if chain else set()
    assert all(p in kept for p in s.pushes), "a human push was lost"
    baton = [o for o in chain if gh.git.commits[o].author == gh.bot_login]
    for oid in baton:
        assert gh.git.commits[oid].parents == (s.base,), "a commit not on the agent's base"
    moves = [(e.from_state, e.to_state) for e in record.history]
    assert moves.count(MOVE) <= 1, moves
    marks = {m.digest: m.oid for m in record.work.commits} if record.work else {}
    pulls = [n for n, p in gh.pull_requests.items() if p.head == BRANCH]
    assert len(pulls) <= 1, pulls
    if window:
        return  # bounded by the next run (labels, one record); a mark may be overwritten
    considered = s.report.event_at(gh.now).id in record.processed
    if baton:
        assert marks == {s.digest: baton[0]}, "the record does not know the commit"
    else:  # the branch moved under the agent, or the issue left implementing before the read
        assert not marks and (s.pushes or (second == "a maintainer's relabel" and considered))
    assert moves.count(MOVE) == 1 or considered, "the report was lost"
    if second == "a maintainer's relabel":
        assert record.state == RELABELLED or moves[-1][1] == RELABELLED or MOVE in moves
    if pulls:
        assert record.work is not None
        assert record.work.pull_request == pulls[0], "the record does not know the pull request"


def test_every_call_of_the_report_run_is_raced():
    """The matrix is built from traces; this keeps it from shrinking to nothing unnoticed."""
    calls = trace(True)
    assert calls[:3] == [
        "BatonRead",  # the issue, its comments and its branch
        "BatonCommitOpening: createCommitOnBranch createPullRequest",
        "BatonRecordCheck",
    ]
    assert any(call.startswith(RECORD_WRITE) for call in calls)
    assert {"BatonBranch", "BatonCreateBranch: createRef"} <= set(trace(False))
