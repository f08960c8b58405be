"""Faults on the commit path over real HTTP: `baton report` with a changeset, as the Action runs
it, against the fake GitHub failing each call of the run in turn — creating the branch when the
issue has none, the first commit's mutation (`createCommitOnBranch`, then `createPullRequest`),
the record's mutation document, the dispatch — with a 500, a 502, a secondary rate limit (403)
that does not lift, or an answer that comes too late; and a commit GitHub applied whose answer
was lost.

Then what comes next in reality: the failed job is re-run (same `GITHUB_RUN_ID`, next attempt),
or the same report is handed in again by a later run (a new run id). Afterwards:

* exactly one commit on the branch carries the changeset's digest (none lost, none doubled),
  and it sits on the head the agent started from (the compare-and-swap held);
* the record remembers it (a `CommitMark` with that digest and oid);
* the report's transition is in the history exactly once, and the labels agree;
* at most one pull request exists from the branch, and it is the record's.

The same faults in memory, at every write and with the next event instead of a re-run, are in
`tests/test_faults.py`; the commit path's order is argued in docs/reliability.md.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from action_harness import ActionRunner, Step
from baton.action.commands import run_event
from baton.action.env import ActionEnv
from baton.core.model.changeset import CHANGESET_FILE
from baton.core.model.work import digest_in
from baton.issue import record_comment
from baton.sim import payloads
from baton.sim.api.wire import _Request, _Response
from fakes.http_github import FakeGitHub
from support.http import record_comments, record_of, status_labels
from support.memory import changeset_on

ISSUE = 1
BRANCH = "baton/issue-1"
CODE = {"src/export.py": "def export():\n    return 'csv'\n", "README.md": None}
RESULT = {"status": "success", "confidence": 0.9, "summary": "CSV export, with its test."}
MOVE = ("implementing", "creating_pr")  # a confident developer goes straight to a pull request
# The report run's calls (GraphQL operations by name, REST by path), in the order it makes them.
READ, CHECK, WRITE = "BatonRead", "BatonRecordCheck", "BatonWrite"
# The first commit: one document that commits and opens the draft pull request.
BRANCH_QUERY, CREATE_REF, COMMIT = "BatonBranch", "BatonCreateBranch", "BatonCommitOpening"
DISPATCH = r"/dispatches$"
OPERATIONS = (READ, CHECK, WRITE, BRANCH_QUERY, CREATE_REF, COMMIT)
TIMEOUT = {"BATON_HTTP_TIMEOUT": "1"}
LATE = 1.25  # seconds the fake takes to answer: past the timeout, so the client gives up


class LossyGitHub(FakeGitHub):
    """The fake GitHub, able to apply a request and then lose its answer: a 502 from a proxy
    after GitHub made the commit (or opened the pull request)."""

    def __init__(self) -> None:
        super().__init__()
        self.lose: list[tuple[str, str | None]] = []  # (REST path end or "", operation)

    def lose_answer(self, path: str, operation: str | None = None) -> None:
        self.lose.append((path, operation))

    def _respond(
        self, req: _Request, headers: Any, bad_json: bool, operation: str | None = None
    ) -> _Response:
        response = super()._respond(req, headers, bad_json, operation)
        for index, (path, wanted) in enumerate(self.lose):
            if req.method == "POST" and req.path.endswith(path) and wanted == operation:
                del self.lose[index]
                return _Response(502, {"message": "Server Error"})
        return response


@pytest.fixture
def fake() -> Iterator[LossyGitHub]:
    with LossyGitHub() as server:
        server.set_permission("maria", "maintain")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


# --- the issue, the agent's changeset, the runs ---------------------------------------------
def relabel(action: ActionRunner, fake: FakeGitHub, label: str) -> None:
    """Maria adds `label`; its run is set-up, not under test, so it runs in this process."""
    fake.label_by(ISSUE, label, "maria")
    event = action.workdir / "setup-event.json"
    event.write_text(json.dumps(payloads.labeled(fake, ISSUE, label)), encoding="utf-8")
    env = ActionEnv.from_environ(
        action.env("issues", event, GITHUB_OUTPUT="", GITHUB_STEP_SUMMARY="")
    )
    outcome = run_event(env)
    assert outcome.exit_code == 0, outcome.error


def at_implementing(action: ActionRunner, fake: FakeGitHub) -> str:
    """Maria puts the issue at implementing, which makes its branch: the developer's base."""
    relabel(action, fake, "status:implementing")
    head = fake.branch_head(BRANCH)
    assert head is not None
    return head


def without_branch(action: ActionRunner, fake: FakeGitHub) -> str:
    """The issue entered implementing before Baton made branches: its record names no branch
    and there is none, so the report run creates it (at the default branch's head, where the
    agent started) before committing."""
    at_implementing(action, fake)
    (found,) = record_comments(fake, ISSUE)
    record = record_comment.parse(found.body)
    older = record.model_copy(update={"work": None})
    body = record_comment.render(older, agent=None, written_at=record.written_at)
    fake.edit_comment(found.id, body, by=fake.bot_login, by_type="Bot")
    with fake._lock:  # no API deletes a ref here; the branch was never made
        del fake._git.refs[BRANCH]
    head = fake.branch_head("main")
    assert head is not None
    return head


def hand_in(action: ActionRunner, base: str) -> str:
    """The agent job's changeset beside its result, as `baton agent` writes it; its digest."""
    changeset = changeset_on(base, CODE)
    path = action.workdir / CHANGESET_FILE
    path.write_text(changeset.model_dump_json(), encoding="utf-8")
    return changeset.digest()


def report(action: ActionRunner, **extra: str) -> Step:
    """`baton report` as the reusable workflow runs it: bound to the state and the agent."""
    path = action.workdir / "result.json"
    path.write_text(json.dumps(RESULT), encoding="utf-8")
    args = ["report", "--issue", str(ISSUE), "--result", str(path)]
    args += ["--state", "implementing", "--agent", "developer"]
    return action.invoke(args, "workflow_dispatch", {}, **extra)


def rerun(action: ActionRunner, **extra: str) -> Step:
    """Re-run the failed job: the same GITHUB_RUN_ID as the last run, the next attempt."""
    return report(action, GITHUB_RUN_ID=str(action.run_id), GITHUB_RUN_ATTEMPT="2", **extra)


def drained(fake: FakeGitHub, received_before: int) -> None:
    """Wait (bounded) until the fake has answered every request it received: an answer that
    comes too late lands after the client gave up on it."""
    for _ in range(200):
        if len(fake.requests) >= fake.rate_used - received_before:
            return
        time.sleep(0.05)
    raise AssertionError("the fake never answered every request")


def where_of(fake: FakeGitHub, index: int) -> str:
    """The index-th call of the last run, as `inject` names it."""
    call = fake.requests[index]
    if call.operation:
        return call.operation
    return call.method + " " + call.path


def inject(fake: FakeGitHub, where: str, status: int | None) -> None:
    """A lasting fault on a call: a GraphQL operation or `METHOD /path`; None: too late."""
    delay = LATE if status is None else 0.0
    if where in OPERATIONS:
        fake.fail("POST", "/graphql", status, times=None, operation=where, delay=delay)
    else:
        method, path = where.split(" ", 1)
        fake.fail(method, "^" + path + "$", status, times=None, delay=delay)


# --- what must hold after the repair ----------------------------------------------------------
def api(fake: FakeGitHub, path: str) -> Any:
    """A GET on the fake's REST API, as any client reads it."""
    request = urllib.request.Request(
        f"{fake.url}/repos/{fake.repo_full_name}/{path}",
        headers={"Authorization": f"token {fake.token}"},
    )
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def lineage(fake: FakeGitHub) -> list[str]:
    """The branch's commits along first parents, head first (`git log --first-parent`)."""
    oid = fake.branch_head(BRANCH)
    chain: list[str] = []
    while oid is not None:
        chain.append(oid)
        parents = api(fake, f"commits/{oid}")["parents"]
        oid = parents[0]["sha"] if parents else None
    return chain


def pulls_from_branch(fake: FakeGitHub) -> list[int]:
    """Every pull request from the issue's branch, open or closed."""
    found = api(fake, f"pulls?state=all&head={fake.owner}:{BRANCH}")
    return [int(p["number"]) for p in found]


def assert_sound(fake: FakeGitHub, base: str, digest: str) -> None:
    chain = lineage(fake)
    carrying = [oid for oid in chain if digest_in(fake.commit_message(oid)) == digest]
    assert len(carrying) == 1, f"{len(carrying)} commits carry the changeset's digest"
    (oid,) = carrying
    assert chain[chain.index(oid) + 1] == base, "the commit sits on the agent's base"
    assert fake.file_at(BRANCH, "src/export.py") == CODE["src/export.py"]
    assert fake.file_at(BRANCH, "README.md") is None
    record = record_of(fake, ISSUE)
    assert record.work is not None
    assert [(m.digest, m.oid) for m in record.work.commits] == [(digest, oid)]
    moves = [(e.from_state, e.to_state) for e in record.history]
    assert moves.count(MOVE) == 1, moves
    assert record.state == MOVE[1]
    assert status_labels(fake, ISSUE) == ["status:creating-pr"]
    pulls = pulls_from_branch(fake)
    assert len(pulls) <= 1, f"pull requests {pulls} from one branch"
    assert record.work.pull_request == (pulls[0] if pulls else None)
    if pulls:
        assert fake.pull_request(pulls[0])["head_sha"] == chain[0]


def failed_clearly(step: Step) -> None:
    assert step.returncode == 1, step.stdout + step.stderr
    assert "::error" in step.stdout, step.stdout
    assert "Traceback" not in step.stderr, step.stderr


# --- the calls, traced from a clean run --------------------------------------------------------
SETUPS = {"its branch": at_implementing, "no branch yet": without_branch}
DISPATCHES = "POST /repos/octo/demo/actions/workflows/baton.yml/dispatches"
# What a clean report run calls, in order: the writes the fault table injects into are among
# them (the record check and a label's first creation are reads or set-up, faulted elsewhere).
CALLS = {
    "its branch": [READ, COMMIT, CHECK, "POST /repos/octo/demo/labels", WRITE],
    "no branch yet": [
        READ,
        BRANCH_QUERY,
        CREATE_REF,
        COMMIT,
        CHECK,
        "POST /repos/octo/demo/labels",
        WRITE,
    ],
}
# Not the dispatch: a 5xx or a timeout there is said and not fatal (the run may have started;
# it is not sent twice: tests/action/test_handover.py), so it fails no job to re-run.
WRITES = {
    setup: [c for c in calls if c in (CREATE_REF, COMMIT, WRITE)] for setup, calls in CALLS.items()
}
STATUSES = {500: "a 500", 502: "a 502", 403: "a secondary rate limit", None: "a timeout"}


@pytest.mark.parametrize("setup", list(SETUPS))
def test_a_clean_report_run_makes_the_branch_commits_opens_the_pull_request_then_writes(
    fake, action, setup
):
    base = SETUPS[setup](action, fake)
    digest = hand_in(action, base)

    step = report(action)

    assert step.returncode == 0, step.stdout + step.stderr
    calls = [where_of(fake, i) for i in range(len(fake.requests))]
    assert calls == [*CALLS[setup], DISPATCHES]
    assert_sound(fake, base, digest)


def named(where: str) -> str:
    return where.rsplit("/", 1)[-1] if " " in where else where


def in_suite(setup: str, where: str, status: int | None) -> bool:
    """The suite runs a 502 at every call of an issue with its branch, at the branch's creation,
    and a 500 and a timeout on the commit mutation; the rest of the matrix (a subprocess pair
    each, seconds apiece; the rate limit waits) runs with `-m slow`."""
    if status == 502:
        return setup == "its branch" or where == CREATE_REF
    return where == COMMIT and setup == "its branch" and status in (500, None)


def fault_cases() -> Iterator[Any]:
    for setup, writes in WRITES.items():
        for where in writes:
            for status, what in STATUSES.items():
                marks = () if in_suite(setup, where, status) else (pytest.mark.slow,)
                yield pytest.param(
                    setup, where, status, id=f"{setup}: {what} on {named(where)}", marks=marks
                )


@pytest.mark.parametrize(("setup", "where", "status"), list(fault_cases()))
def test_a_lasting_fault_on_the_commit_path_fails_the_job_and_its_rerun_commits_nothing_twice(
    fake, action, setup, where, status
):
    """The job fails at that call, saying so; what it wrote before stays (a commit, a pull
    request, a record). The re-run finds the commit at the branch head by its digest (or in the
    record), commits nothing, finds the pull request, and finishes the rest."""
    base = SETUPS[setup](action, fake)
    digest = hand_in(action, base)
    inject(fake, where, status)
    extra = TIMEOUT if status is None else {}

    received = fake.rate_used
    failed = report(action, **extra)
    drained(fake, received)
    fake.clear_faults()
    repaired = rerun(action, **extra)

    failed_clearly(failed)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert_sound(fake, base, digest)


@pytest.mark.parametrize(
    ("setup", "where"),
    [
        pytest.param(
            s,
            w,
            id=f"{s}: {named(w)}",
            marks=() if s == "its branch" or w == CREATE_REF else (pytest.mark.slow,),
        )
        for s in SETUPS
        for w in WRITES[s]
    ],
)
def test_after_a_failed_report_job_the_same_report_handed_in_by_a_later_run_is_applied_once(
    fake, action, setup, where
):
    """Nobody re-runs the job; a later run hands in the same report (the agent sent again, with
    the same changeset on the same base): a new run id, bound by --state to implementing. If the
    failed run wrote its record, the report is stale and changes nothing; if not, it is applied,
    with the commit the failed run left adopted by its digest."""
    base = SETUPS[setup](action, fake)
    digest = hand_in(action, base)
    inject(fake, where, 502)

    failed = report(action)
    fake.clear_faults()
    later = report(action)

    failed_clearly(failed)
    assert later.returncode == 0, later.stdout + later.stderr
    assert_sound(fake, base, digest)


# --- the answer lost after GitHub applied the write ------------------------------------------
LOST = {
    "the commit": ("/graphql", COMMIT),
    "the branch": ("/graphql", CREATE_REF),
}


@pytest.mark.parametrize(
    ("lost", "again"),
    [
        pytest.param(
            lost,
            again,
            id=f"{lost}, then {again}",
            marks=() if again == "re-run" or lost == "the commit" else (pytest.mark.slow,),
        )
        for lost in LOST
        for again in ("re-run", "handed in by a later run")
    ],
)
def test_a_write_that_landed_but_whose_answer_was_lost_is_found_not_repeated(
    fake, action, lost, again
):
    """GitHub made the commit (opened the pull request, created the branch) and the answer was
    a 502: the job fails. The next run finds the commit at the branch head by the digest in its
    trailer and the pull request by its branch, and makes neither again."""
    base = without_branch(action, fake) if lost == "the branch" else at_implementing(action, fake)
    digest = hand_in(action, base)
    fake.lose_answer(*LOST[lost])

    failed = report(action)
    repaired = rerun(action) if again == "re-run" else report(action)

    failed_clearly(failed)
    assert "502" in failed.stdout
    assert not fake.lose, "the answer was lost"
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert_sound(fake, base, digest)
