"""Measure what a repository pays for Baton: API calls per event, time and memory per run,
record size. Runs `baton` as the Action does (subprocesses with GitHub's environment) against
the fake GitHub of the tests over real HTTP, prints a table and writes benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/run.py            # full run (about a minute)
    .venv/bin/python benchmarks/run.py --quick    # fewer repetitions
    .venv/bin/python benchmarks/run.py --epics    # the epic figures alone (seconds)
    .venv/bin/python benchmarks/run.py --jobs     # job starts and billed minutes alone
"""

from __future__ import annotations

import argparse
import base64
import compileall
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from action_harness import BATON, ActionRunner, Step, _where, parse_outputs  # noqa: E402
from baton import webhooks  # noqa: E402
from baton.core.model import events  # noqa: E402
from baton.core.model.agent_result import AgentResult  # noqa: E402
from baton.core.model.changeset import Changeset, FileChange  # noqa: E402
from baton.core.model.epic import NewTask, TaskCreationPlan  # noqa: E402
from baton.core.model.record import Record  # noqa: E402
from baton.github.client import GitHubTracker  # noqa: E402
from baton.issue import record_comment  # noqa: E402
from baton.issue.apply import label_specs, tracker_labels  # noqa: E402
from baton.run import RunResult, handle  # noqa: E402
from baton.sim import payloads  # noqa: E402
from baton.sim.actions import CHAIN, Actions, Play  # noqa: E402
from baton.sim.sim_github import SimGitHub  # noqa: E402
from baton.workflow.config import Config, Settings, load_config, settings_from  # noqa: E402
from fakes.http_github import FakeGitHub  # noqa: E402

SETTINGS = load_config(None)
# Issue 20: CPU time of the process, as multiples of a bare interpreter's.
TARGET_IGNORED_RATIO = 5.0
TARGET_TRANSITION_RATIO = 20.0
TARGET_TRANSITION_CALLS = 4
TARGET_CHANGESET_CALLS = 5  # issue 10: an agent report carrying a changeset
TARGET_RECORD_BYTES = 16_000
HOURLY_BUDGET = 1_000


@dataclass
class Row:
    kind: str
    calls: int
    detail: str


# --- API calls per event kind ------------------------------------------------------------------
def _entered(fake: FakeGitHub, action: ActionRunner, title: str) -> int:
    number = fake.add_issue(title, "body", user="alice")
    fake.label_by(number, "baton", "maria")
    step = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert step.returncode == 0, step.stdout + step.stderr
    return number


def _walk_to(action: ActionRunner, number: int, results: list[dict[str, Any]]) -> None:
    for result in results:
        step = action.report(number, {"status": "success", "confidence": 0.9, **result})
        assert step.returncode == 0, step.stdout + step.stderr


def _listed(calls: list[tuple[str, str]]) -> str:
    return ", ".join(f"{m} {p.split('/repos/octo/demo', 1)[-1] or p}" for m, p in calls)


def _calls(step: Step) -> str:
    return _listed(step.calls)


def api_calls(workdir: Path) -> list[Row]:
    rows: list[Row] = []
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        action = ActionRunner(fake, workdir)

        def add(kind: str, step: Step) -> None:
            assert step.returncode == 0, step.stdout + step.stderr
            rows.append(Row(kind, len(step.calls), _calls(step) or "—"))

        add("ignored: an event Baton does not handle (push)", action.run("push", {"ref": "x"}))
        plain = fake.add_issue("Not for Baton", user="alice")
        add(
            "ignored: issue opened (entry is by label)",
            action.run("issues", payloads.opened(fake, plain)),
        )
        fake.label_by(plain, "bug", "maria")
        add(
            "ignored: a label that is not Baton's",
            action.run("issues", payloads.labeled(fake, plain, "bug")),
        )
        chat = fake.add_comment(plain, "me too", user="bob")
        add(
            "ignored: a comment outside the workflow",
            action.run("issue_comment", payloads.comment_created(fake, chat["id"])),
        )

        # Steady state: the status labels exist (their first use costs one more PATCH).
        for spec in label_specs(SETTINGS.workflow, SETTINGS.policy).values():
            fake.add_label(spec.name, spec.color, spec.description)
        number = fake.add_issue("Export CSV", "body", user="alice")
        fake.label_by(number, "baton", "maria")
        add(
            "entry: trigger label by a maintainer",
            action.run("issues", payloads.labeled(fake, number, "baton")),
        )
        fake.label_by(number, "status:received", fake.bot_login, actor_type="Bot")
        add(
            "ignored: the bot's own label change",
            action.run("issues", payloads.labeled(fake, number, "status:received")),
        )
        chat = fake.add_comment(number, "any news?", user="bob")
        add(
            "ignored: a comment while an agent works",
            action.run("issue_comment", payloads.comment_created(fake, chat["id"])),
        )
        report = action.report(number, {"status": "success", "confidence": 0.9})
        add("agent report with a transition (and dispatch)", report)
        name, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
        add("chained run naming the next agent", action.run(name, payload))
        _walk_to(action, number, [{"confidence": 0.5, "questions": ["CSV or TSV?"]}, {}])
        answer = fake.add_comment(number, "CSV.", user="alice")
        add(
            "human reply in a waiting state",
            action.run("issue_comment", payloads.comment_created(fake, answer["id"])),
        )
        _walk_to(action, number, [{}, {}, {"confidence": 0.95}, {"confidence": 0.95}, {}, {}])
        approval = fake.add_comment(number, "approved", user="maria")
        add(
            "approval by a maintainer",
            action.run("issue_comment", payloads.comment_created(fake, approval["id"])),
        )
        fake.label_by(number, "status:implementing", "maria")
        add(
            "forced relabel by a maintainer",
            action.run("issues", payloads.labeled(fake, number, "status:implementing")),
        )
        fake.label_by(number, "status:bogus", "maria")
        add(
            "unknown status label",
            action.run("issues", payloads.labeled(fake, number, "status:bogus")),
        )
    return rows


def sweep_calls(workdir: Path, total: int, in_workflow: int, due: int) -> Row:
    with FakeGitHub() as fake:
        action = ActionRunner(fake, workdir)
        for n in range(total - in_workflow):
            fake.add_issue(f"quiet {n}", user="alice")
        for n in range(in_workflow):
            number = fake.add_issue(f"in flight {n}", user="alice")
            label = (
                "status:waiting-for-requirements-clarification"
                if n < due
                else "status:implementing"
            )
            fake.label_by(number, label, "maria")
        fake.advance(8 * 24 * 3600)  # the waiting ones are past their 7-day timeout
        step = action.invoke(["sweep"], "schedule", payloads.schedule("17 * * * *"))
        assert step.returncode == 0, step.stdout + step.stderr
        per_hour = len(step.calls)
        return Row(
            f"sweep over {total} open issues ({in_workflow} in the workflow, {due} due)",
            len(step.calls),
            f"{per_hour} per hourly sweep = {per_hour / HOURLY_BUDGET:.0%} of GITHUB_TOKEN's hour",
        )


# --- the work: commits, the pull request and its events ---------------------------------------
BRANCH = "baton/issue-1"


class WorkBench:
    """One repository (status labels in place) where agents' reports carry changesets, written
    as `baton agent` writes them, and the issue's pull request sends its events."""

    def __init__(self, fake: FakeGitHub, workdir: Path) -> None:
        self.fake, self.workdir = fake, workdir
        self.action = ActionRunner(fake, workdir)
        for spec in label_specs(SETTINGS.workflow, SETTINGS.policy).values():
            fake.add_label(spec.name, spec.color, spec.description)
        fake.set_permission("maria", "maintain")
        fake.set_permission("mallory", "read")
        self.suites = 0

    @staticmethod
    def ok(step: Step) -> Step:
        assert step.returncode == 0, step.stdout + step.stderr
        return step

    def changeset(self, branch: str, files: dict[str, bytes], base: str | None = None) -> Changeset:
        head = base or self.fake.branch_head(branch)
        assert head is not None, f"no branch {branch}"
        changes = [
            FileChange(path=path, contents=base64.b64encode(data).decode("ascii"))
            for path, data in files.items()
        ]
        return Changeset(base=head, files=changes)

    def report_args(
        self, number: int, result: dict[str, Any], changeset: Changeset | None
    ) -> list[str]:
        """`baton report`'s arguments, the result and changeset files written as `baton agent`
        writes them (`model_dump_json(indent=2)`); no changeset: the file is absent."""
        path = self.workdir / "baton-result.json"
        path.write_text(
            json.dumps({"status": "success", "confidence": 0.9, **result}), encoding="utf-8"
        )
        changes = self.workdir / "baton-changeset.json"
        changes.unlink(missing_ok=True)
        if changeset is not None:
            changes.write_text(changeset.model_dump_json(indent=2), encoding="utf-8")
        return [
            "report",
            "--issue",
            str(number),
            "--result",
            str(path),
            "--changeset",
            str(changes),
        ]

    def report(
        self, number: int, changeset: Changeset | None = None, *, chain: bool = True, **result: Any
    ) -> Step:
        """An agent's report; then, as the dispatch it made would, the chained run."""
        self.fake.advance(60)
        args = self.report_args(number, result, changeset)
        step = self.ok(self.action.invoke(args, "workflow_dispatch", {}))
        if chain and step.outputs.get("agent"):
            name, payload = payloads.from_dispatch(self.fake, self.fake.dispatches[-1])
            self.ok(self.action.run(name, payload))
        return step

    def racing_report(self, number: int, changeset: Changeset, **result: Any) -> Step:
        """A report whose commit reaches GitHub just after a human's push: the fake holds the
        BatonCommit request back until the push has landed."""
        fault = self.fake.fail("POST", "/graphql", None, delay=2.0, operation="BatonCommit")
        branch = f"baton/issue-{number}"

        def push() -> None:
            while fault.hits == 0 and not stop.is_set():
                stop.wait(0.01)
            self.fake.push(branch, {f"RACE{number}.md": "by hand\n"}, by="maria")

        stop = threading.Event()
        pusher = threading.Thread(target=push)
        pusher.start()
        try:
            return self.report(number, changeset, **result)
        finally:
            stop.set()
            pusher.join()
            self.fake.clear_faults()

    def event(self, name: str, payload: dict[str, Any]) -> Step:
        self.fake.advance(60)
        return self.ok(self.action.run(name, payload))

    def enter(self, title: str) -> int:
        number = self.fake.add_issue(title, "body", user="alice")
        self.fake.label_by(number, "baton", "maria")
        self.event("issues", payloads.labeled(self.fake, number, "baton"))
        return number

    def relabel(self, number: int, state: str) -> Step:
        label = "status:" + state.replace("_", "-")
        self.fake.advance(60)
        self.fake.label_by(number, label, "maria")
        return self.event("issues", payloads.labeled(self.fake, number, label))

    def review(
        self, pr: int, branch: str, who: str, verdict: str, body: str = "", notes: Any = ()
    ) -> Step:
        head = self.fake.branch_head(branch) or ""
        review = self.fake.review(pr, who, verdict, body, notes=notes)
        payload = payloads.pull_request_review(
            self.fake,
            number=pr,
            branch=branch,
            head_sha=head,
            review_id=review,
            state=verdict,
            reviewer=who,
            body=body,
        )
        return self.event("pull_request_review", payload)

    def checks(self, pr: int, branch: str, conclusion: str, *, via: str = "check_suite") -> Step:
        head = self.fake.branch_head(branch) or ""
        self.suites += 1
        name = f"check {self.suites}"
        self.fake.add_check_run(head, name, conclusion, f"{name} said {conclusion}")
        if via == "check_suite":
            payload = payloads.check_suite_completed(
                self.fake,
                branch=branch,
                head_sha=head,
                conclusion=conclusion,
                suite_id=self.suites,
                pull_requests=[pr],
            )
        else:
            payload = payloads.workflow_run_completed(
                self.fake,
                branch=branch,
                head_sha=head,
                conclusion=conclusion,
                run_id=self.suites,
                name=f"CI {self.suites}",
                pull_requests=[pr],
            )
        return self.event(via, payload)


def work_calls(workdir: Path) -> list[Row]:
    """API calls of the work: the branch, commits, refusals, the pull request's events."""
    rows: list[Row] = []

    def add(kind: str, step: Step, state: str | None = None) -> None:
        """A row; `state`: where the issue must be after the step (the row's claim)."""
        if state is not None:
            assert step.outputs.get("state") == state, (kind, step.outputs, step.stdout)
        elif not kind.startswith("ignored"):
            assert step.decision.get("outcome") in {"ignored", "noted", "retry"}, (kind, step)
        rows.append(Row(kind, len(step.calls), _calls(step) or "—"))

    with FakeGitHub() as fake:
        bench = WorkBench(fake, workdir)
        number = bench.enter("Export CSV")
        bench.report(number, summary="Clear feature request.")  # pm -> analyzing_requirements
        add(
            "agent report entering the first code state (creates the branch)",
            bench.report(number, summary="Clear.", confidence=0.95),
            "creating_tests",
        )
        first = bench.changeset(BRANCH, {"tests/test_csv.py": b"def test_csv():\n    pass\n"})
        tested = bench.report(number, first, summary="Tests.")  # -> implementing
        add(
            "agent report with a changeset: the first commit (opens the pull request)",
            tested,
            "implementing",
        )
        pr = int(tested.outputs["pull-request"])
        forbidden = bench.changeset(
            BRANCH, {".github/workflows/ci.yml": b"on: push\n", "src/export.py": b"EVIL = 1\n"}
        )
        head = fake.branch_head(BRANCH)
        add(
            "agent report whose changeset is refused (a forbidden path)",
            bench.report(number, forbidden, summary="Sped up CI.", confidence=0.95),
        )
        assert fake.branch_head(BRANCH) == head, "a refused changeset writes nothing"
        stale = bench.changeset(BRANCH, {"src/export.py": b"def to_csv():\n    return ''\n"})
        fake.push(BRANCH, {"NOTES.md": "by hand\n"}, message="A note", by="maria")
        add(
            "agent report with a stale changeset (a human pushed meanwhile)",
            bench.report(number, stale, summary="Implemented.", confidence=0.95),
        )
        assert fake.file_at(BRANCH, "src/export.py") is None, "a stale changeset writes nothing"
        racing = bench.changeset(BRANCH, {"src/export.py": b"def to_csv():\n    return ''\n"})
        add(
            "agent report whose commit loses the race (a push between the read and the commit)",
            bench.racing_report(number, racing, summary="Implemented.", confidence=0.95),
        )
        assert fake.file_at(BRANCH, "src/export.py") is None, "the compare-and-swap held"
        later = bench.changeset(BRANCH, {"src/export.py": b"def to_csv():\n    return 'a'\n"})
        add(
            "agent report with a changeset: a later commit (→ creating_pr, marks the PR ready)",
            bench.report(
                number, later, summary="Implemented.", confidence=0.95, next_state="creating_pr"
            ),
            "creating_pr",
        )
        assert fake.pull_request(pr)["draft"] is False
        waiting = bench.report(number, summary="PR ready for review.")
        assert waiting.outputs["state"] == "waiting_for_human_input"

        # The pull request's events, the issue waiting at the gate.
        add(
            "ignored: a plain review comment (from the payload)",
            bench.review(pr, BRANCH, "maria", "commented", "Hm."),
        )
        add(
            "PR: a stranger's approving review (no weight)",
            bench.review(pr, BRANCH, "mallory", "approved", "LGTM"),
        )
        add(
            "PR: a stranger's review requesting changes (no weight)",
            bench.review(
                pr, BRANCH, "mallory", "changes_requested", "No.", [("src/export.py", 1, "x")]
            ),
        )
        add("PR: passing checks (check_suite)", bench.checks(pr, BRANCH, "success"))
        add(
            "PR: failing checks via check_suite (→ fixing_issues)",
            bench.checks(pr, BRANCH, "failure"),
            "fixing_issues",
        )
        bench.relabel(number, "waiting_for_human_input")
        add(
            "PR: failing checks via workflow_run (→ fixing_issues)",
            bench.checks(pr, BRANCH, "failure", via="workflow_run"),
            "fixing_issues",
        )
        bench.relabel(number, "waiting_for_human_input")
        add(
            "PR: an approver's review requesting changes (→ addressing_feedback)",
            bench.review(
                pr,
                BRANCH,
                "maria",
                "changes_requested",
                "Quote the fields.",
                [("src/export.py", 2, "use csv")],
            ),
            "addressing_feedback",
        )
        bench.relabel(number, "waiting_for_human_input")
        add(
            "PR: an approver's approving review at the gate (→ human_input_received)",
            bench.review(pr, BRANCH, "maria", "approved", "Ship it."),
            "human_input_received",
        )
        fake.merge(pr, by="maria")
        add(
            "PR: merged (→ completed)",
            bench.event(
                "pull_request",
                payloads.pull_request_closed(
                    fake,
                    number=pr,
                    branch=BRANCH,
                    head_sha=fake.branch_head(BRANCH) or "",
                    merged=True,
                    sender="maria",
                ),
            ),
            "completed",
        )

        # A second issue's pull request, closed without merging.
        other = bench.enter("Export TSV")
        add(
            "forced relabel into a code state (creates the branch)",
            bench.relabel(other, "creating_tests"),
            "creating_tests",
        )
        branch = f"baton/issue-{other}"
        tests = bench.changeset(branch, {"tests/test_tsv.py": b"def test_tsv():\n    pass\n"})
        opened = bench.report(other, tests, summary="Tests.")
        second = int(opened.outputs["pull-request"])
        fake.close_pull_request(second, by="maria")
        add(
            "PR: closed without merging (→ waiting_for_human_input)",
            bench.event(
                "pull_request",
                payloads.pull_request_closed(
                    fake,
                    number=second,
                    branch=branch,
                    head_sha=fake.branch_head(branch) or "",
                    merged=False,
                    sender="maria",
                ),
            ),
            "waiting_for_human_input",
        )

        # Events of a branch that is not Baton's: decided from the payload alone.
        head = fake.push("feature/x", {"x.txt": "x\n"}, by="bob")
        add(
            "ignored: a pull request merged from a non-Baton branch",
            bench.event(
                "pull_request",
                payloads.pull_request_closed(
                    fake, number=99, branch="feature/x", head_sha=head, merged=True, sender="maria"
                ),
            ),
        )
        add(
            "ignored: a review on a non-Baton branch",
            bench.event(
                "pull_request_review",
                payloads.pull_request_review(
                    fake,
                    number=99,
                    branch="feature/x",
                    head_sha=head,
                    review_id=1,
                    state="changes_requested",
                    reviewer="maria",
                ),
            ),
        )
        add(
            "ignored: failing checks on a non-Baton branch",
            bench.event(
                "check_suite",
                payloads.check_suite_completed(
                    fake, branch="feature/x", head_sha=head, conclusion="failure", suite_id=99
                ),
            ),
        )
    return rows


@dataclass
class Limits:
    """A changeset at the default limits, committed by `baton report` against the fake."""

    max_files: int
    max_bytes: int
    changeset_file: int  # bytes on disk, as `baton agent` writes it
    request: int  # bytes of the first commit's request body (BatonCommitOpening), as sent
    seconds: float  # wall time of the `baton report` process
    rss: int  # its peak RSS (KB)
    cpu: float  # its CPU time
    calls: str
    over_calls: str  # one byte over the limit: refused


def _files_at(total: int, count: int, seed: int) -> dict[str, bytes]:
    """`count` files of random bytes (incompressible, as any base64 is) holding `total`."""
    rng = random.Random(seed)
    size, extra = divmod(total, count)
    return {
        f"data/part{index:03d}.bin": rng.randbytes(size + (1 if index < extra else 0))
        for index in range(count)
    }


def changeset_limits(workdir: Path) -> Limits:
    limits = SETTINGS.policy.work
    with FakeGitHub() as fake:
        bench = WorkBench(fake, workdir)
        number = bench.enter("Large change")
        bench.relabel(number, "implementing")
        branch = f"baton/issue-{number}"
        over = bench.changeset(branch, _files_at(limits.max_bytes + 1, limits.max_files, 1))
        refused = bench.report(number, over, summary="One byte too many.", confidence=0.95)
        assert refused.decision["outcome"] == "retry", refused.decision
        assert fake.branch_head(branch) == over.base, "refused: nothing written"
        files = _files_at(limits.max_bytes, limits.max_files, 2)
        assert sum(map(len, files.values())) == limits.max_bytes
        at_limit = bench.changeset(branch, files)
        args = bench.report_args(number, {"summary": "All of it.", "confidence": 0.95}, at_limit)
        size = (workdir / "baton-changeset.json").stat().st_size
        event = workdir / "event.json"
        event.write_text("{}", encoding="utf-8")
        (workdir / "output").write_text("", encoding="utf-8")
        fake.advance(60)
        fake.reset_requests()
        env = bench.action.env("workflow_dispatch", event)
        seconds, rss, cpu = _measure([*BATON, *args], env, workdir)
        outputs = parse_outputs((workdir / "output").read_text(encoding="utf-8"))
        assert outputs["state"] == "running_tests", outputs
        calls = [(c.method, _where(c)) for c in fake.requests]
        # the first commit: the commit and its draft pull request in one document
        (commit,) = fake.calls("POST", "/graphql", operation="BatonCommitOpening")
        committed = fake._git.resolve(branch)
        assert committed is not None and committed.oid != at_limit.base
        assert all(committed.tree[path] == data for path, data in files.items())
        return Limits(
            max_files=limits.max_files,
            max_bytes=limits.max_bytes,
            changeset_file=size,
            request=len(json.dumps(commit.body).encode("utf-8")),
            seconds=seconds,
            rss=rss,
            cpu=cpu,
            calls=_listed(calls),
            over_calls=_calls(refused),
        )


def report_timings(workdir: Path, repeat: int) -> list[tuple[str, float, float, int, float]]:
    """A transitioning `baton report` (implementing → running_tests, then the dispatch) with a
    small changeset and without one, alternately, the issue relabelled back in between."""
    with FakeGitHub() as fake:
        bench = WorkBench(fake, workdir)
        number = bench.enter("Timed")
        bench.relabel(number, "implementing")
        branch = f"baton/issue-{number}"
        samples: dict[str, list[tuple[float, int, float]]] = {"with": [], "without": []}
        for index in range(repeat):
            for kind in ("with", "without"):
                changeset = None
                if kind == "with":
                    text = f"def to_csv():\n    return {index!r}\n" * 40
                    changeset = bench.changeset(
                        branch,
                        {"src/export.py": text.encode(), f"tests/test_{index}.py": b"pass\n"},
                    )
                result = {"summary": "Done.", "next_state": "running_tests"}
                args = bench.report_args(number, result, changeset)
                path = workdir / "event.json"
                path.write_text("{}", encoding="utf-8")
                fake.advance(60)
                env = bench.action.env("workflow_dispatch", path)
                samples[kind].append(_measure([*BATON, *args], env, workdir))
                assert fake.labels_of(number) == ["status:running-tests"], fake.labels_of(number)
                bench.relabel(number, "implementing")
        rows = []
        for kind, found in samples.items():
            rows.append(
                (
                    f"baton report, transition {kind} a changeset",
                    statistics.median(s[0] for s in found),
                    max(s[1] for s in found),
                    statistics.median(s[2] for s in found),
                )
            )
        return rows


# --- time and memory of one process ------------------------------------------------------------
# Linux keeps a process's peak RSS across fork and exec: a child started by this (large) process
# would report this process's RSS as its own peak. A small helper starts the measured process
# and reads its rusage, so the peak is the process's own (with the helper's ~10 MB as a floor).
_HELPER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
elapsed = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
print(json.dumps([elapsed, code, usage.ru_maxrss, usage.ru_utime + usage.ru_stime]))
"""


def _measure(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, float]:
    """Wall time, peak RSS (KB) and CPU time of one process. Against the fake GitHub the wall
    time includes the fake's own work on each request (graphql-core parses and validates every
    document); the CPU time is Baton's alone."""
    done = subprocess.run(
        [sys.executable, "-c", _HELPER, *command],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed, code, rss, cpu = json.loads(done.stdout)
    if code != 0:
        raise RuntimeError(f"{command} exited {code}: {done.stderr[-2000:]}")
    return elapsed, rss, cpu


def _medians(samples: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    """Median wall time, the highest peak RSS, median CPU time."""
    return (
        statistics.median(s[0] for s in samples),
        max(s[1] for s in samples),
        statistics.median(s[2] for s in samples),
    )


def timings(workdir: Path, repeat: int) -> list[tuple[str, float, float, int, float]]:
    # Baton's modules compiled, as `pip install` leaves them in the image: a run never writes
    # them (PYTHONDONTWRITEBYTECODE there and in CI), so an editable checkout would compile
    # all of Baton on every run, which no real run pays.
    compileall.compile_dir(ROOT / "src" / "baton", quiet=1)
    bare_env = {"PATH": os.environ.get("PATH", "")}
    event = workdir / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    # The console script, as the image's ENTRYPOINT runs it (`python -m` would add runpy's
    # imports, which no real run pays).
    baton = [str(Path(sys.executable).parent / "baton"), "run"]
    ignored_env = {**bare_env, "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}

    def series(run: Callable[[], tuple[float, int, float]]) -> tuple[float, int, float]:
        return _medians([run() for _ in range(repeat)])

    # Bare and ignored runs alternate, so a busy spell of the machine weighs on both alike.
    pairs = [
        (
            _measure([sys.executable, "-c", "pass"], bare_env, workdir),
            _measure(baton, ignored_env, workdir),
        )
        for _ in range(repeat)
    ]
    bare, ignored = (_medians([pair[side] for pair in pairs]) for side in (0, 1))
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        action = ActionRunner(fake, workdir)
        _entered(fake, action, "warm-up")

        def transition() -> tuple[float, int, float]:
            number = fake.add_issue("t", user="alice")
            fake.label_by(number, "baton", "maria")
            payload = payloads.labeled(fake, number, "baton")
            path = workdir / "event.json"
            path.write_text(json.dumps(payload), encoding="utf-8")
            return _measure(baton, action.env("issues", path), workdir)

        moved = series(transition)
    rows = [("python -c pass", bare[0], 1.0, bare[1], bare[2])]
    rows.append(
        ("baton run, ignored event", ignored[0], ignored[0] / bare[0], ignored[1], ignored[2])
    )
    rows.append(("baton run, transition (entry)", moved[0], moved[0] / bare[0], moved[1], moved[2]))
    return rows


# --- record size ---------------------------------------------------------------------------
def record_sizes(counts: list[int]) -> list[tuple[int, int]]:
    settings = SETTINGS
    sizes = []
    for count in counts:
        gh = SimGitHub()
        gh.set_permission("maria", "maintain")
        number = gh.open_issue("long-lived", author="alice")
        states = ["implementing", "running-tests"]
        for index in range(count + 1):  # the entry plus `count` forced transitions
            label = "baton" if index == 0 else f"status:{states[index % 2]}"
            gh.human_label(number, label, by="maria")
            payload = payloads.labeled(gh, number, label, sender="maria")
            event = webhooks.parse("issues", payload, settings.policy, now=gh.now)
            assert not isinstance(event, events.Ignored | events.Sweep)
            gh.new_run()
            handle(event, gh, settings)
            gh.now += timedelta(minutes=1)
        (found,) = record_comment.find_records(gh.comments_of(number), gh.bot_login)
        record = record_comment.parse(found.body)
        assert record.iteration == count, (record.iteration, count)
        sizes.append((count, len(found.body.encode("utf-8"))))
    return sizes


# --- epics: a plan's sub-issues, the conductor, the epic's record --------------------------------
EPIC_TASKS = 10
EPIC_DONE = ("t0", "t1", "t2")  # the tasks whose agents finish; the others' never report
EPIC_SPEC = 6_000


def epic_plan(count: int) -> list[dict[str, Any]]:
    """`count` tasks: t0..t3 free, each later one blocked by the one four before it."""
    return [
        {
            "key": f"t{i}",
            "title": f"Task {i}",
            "body": f"Do part {i} of the feature.",
            "depends_on": [f"t{i - 4}"] if i >= 4 else [],
        }
        for i in range(count)
    ]


def _epic_settings(max_tasks: int = 20) -> Settings:
    return settings_from(Config.model_validate({"epics": {"max_tasks": max_tasks}}))


@dataclass
class SimCalls:
    """A stretch of runs on the model in process: its round trips (GitHubTracker's, counted by
    the API) and each one named: a GraphQL document by its operation, a REST call by its
    method and path."""

    trips: int
    detail: str


def _watched(gh: SimGitHub, run: Callable[[], Any]) -> SimCalls:
    before = len(gh.sent)
    gh.new_run()  # each run a process of its own, as on GitHub
    run()
    sent = gh.sent[before:]
    named = [c.operation or _listed([(c.method, _where(c))]) for c in sent]
    return SimCalls(len(sent), ", ".join(named) or "—")


class EpicWorld:
    """An epic played in memory (`baton.sim.actions`) up to its plan: status labels in place,
    the discovery answered, the specification approved, the planner's report not yet made."""

    def __init__(
        self,
        *,
        task_label: bool,
        settings: Settings | None = None,
        spec: str = "The spec.",
        done: tuple[str, ...] = EPIC_DONE,
    ) -> None:
        self.settings = settings or _epic_settings()
        self.gh = gh = SimGitHub(labels=tracker_labels(self.settings))
        gh.set_permission("maria", "maintain")
        for workflow in self.settings.workflows.values():
            for label, style in label_specs(workflow, self.settings.policy).items():
                if gh.api._find_label(label) is None:
                    gh.add_label(label, style.color, style.description)
        if task_label:
            gh.add_label(self.settings.policy.epics.task_label)
        self.plan: list[dict[str, Any]] = []
        self.spec, self.done = spec, done
        self.actions = Actions(gh, self.settings, self._agent)
        self.epic = gh.open_issue("Teams", "Teams please.", author="alice")
        gh.human_label(self.epic, "baton:epic", by="maria")
        self.actions.event("issues", payloads.labeled(gh, self.epic, "baton:epic", sender="maria"))
        self.say("To save time.", "alice")
        self.say("approved", "maria")
        self.actions.drain()

    def _agent(self, number: int, agent: str, record: Any) -> Play | None:
        if agent == "discovery":
            found = record.epic.discovery if record and record.epic else None
            if found is not None and found.turns >= 1:
                return Play({"spec": self.spec, "categories": ["purpose", "users"]})
            return Play({"questions": ["Why?"], "categories": ["purpose"]})
        if agent == "planner":
            return None  # the plan is reported by the benchmark itself
        if record is not None and record.task is not None and record.task.key in self.done:
            return Play({"summary": "Done."})
        return None  # still working

    def say(self, body: str, who: str) -> None:
        comment = self.gh.human_comment(self.epic, body, author=who)
        self.actions.event("issue_comment", payloads.comment_created(self.gh, comment.id))

    def record(self) -> Record:
        found = self.actions.record(self.epic)
        assert found is not None
        return found

    def planned(self, plan: list[dict[str, Any]]) -> events.AgentReported:
        """The planner's report of `plan`, as `baton report` hands it to the run."""
        record = self.record()
        assert record.state == "planning", record.state
        result = AgentResult(status="success", confidence=0.9, tasks=plan)
        return events.report(
            self.epic,
            agent="planner",
            result=result,
            error=None,
            now=self.gh.now,
            run_id="run-plan",
            state=record.state,
        )

    def report_plan(self, plan: list[dict[str, Any]]) -> tuple[SimCalls, SimCalls, SimCalls]:
        """The planner's report handled (the plan recorded, the epic's run dispatched), the
        epic's run that makes the sub-issues and their edges, and the report handled again (a
        re-run of that job)."""
        event = self.planned(plan)
        first = _watched(self.gh, lambda: handle(event, self.gh, self.settings, chain=CHAIN))
        assert self.record().state == "planning", self.record().state
        assert self.record().epic is not None and self.record().epic.pending_plan
        made = _watched(self.gh, self.conduct())
        assert self.record().state == "implementing", self.record().state
        assert len(self.gh.sub_issues_of(self.epic)) == len(plan)
        again = _watched(self.gh, lambda: handle(event, self.gh, self.settings, chain=CHAIN))
        assert len(self.gh.sub_issues_of(self.epic)) == len(plan)
        return first, made, again

    def statuses(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for task in self.gh.sub_issues_of(self.epic):
            for label in self.gh.labels_of(task):
                if label.startswith("status:"):
                    status = label.removeprefix("status:")
                    found[status] = found.get(status, 0) + 1
        return dict(sorted(found.items()))

    def conduct(self) -> Callable[[], RunResult]:
        """One conductor run: Baton's own workflow_dispatch on the epic."""
        payload = payloads.workflow_dispatch(
            self.gh, {"issue": str(self.epic)}, sender=self.gh.bot_login
        )

        def run() -> RunResult:
            event = webhooks.parse(
                "workflow_dispatch", payload, self.settings.policy, now=self.gh.now
            )
            assert not isinstance(event, events.Ignored | events.Sweep), event
            self.gh.new_run()
            return handle(event, self.gh, self.settings, chain=CHAIN)

        return run


@dataclass
class EpicFigures:
    plan: list[Row]  # the planner's report, in memory
    tracker: list[Row]  # create_tasks alone, over HTTP
    conductor: list[Row]
    statuses: dict[str, int]
    records: list[tuple[int, int, int, int]]  # tasks, spec characters, body, JSON
    seconds: float
    repeat: int


def epic_plan_calls() -> list[Row]:
    """The planner's report of 10 tasks through `run.handle`, in memory: with and without the
    task label in the repository, then the same report handled again."""
    rows = []
    for present in (False, True):
        world = EpicWorld(task_label=present)
        first, made, again = world.report_plan(epic_plan(EPIC_TASKS))
        label = "present" if present else "missing"
        if present:
            rows.append(
                Row("planner's report of 10 tasks (the plan recorded)", first.trips, first.detail)
            )
        rows.append(
            Row(
                f"the epic's next run: 10 sub-issues, their edges, the first starts; "
                f"the task label {label}",
                made.trips,
                made.detail,
            )
        )
        if present:
            rows.append(
                Row("the same report again (a re-run after success)", again.trips, again.detail)
            )
    return rows


def _creation_plan(epic: int, plan: list[dict[str, Any]], label: str) -> TaskCreationPlan:
    tasks = [NewTask(key=t["key"], title=t["title"], body=t["body"], labels=(label,)) for t in plan]
    edges = [(t["key"], dep) for t in plan for dep in t["depends_on"]]
    return TaskCreationPlan(epic=epic, tasks=tasks, edges=edges)


def epic_tracker_calls() -> list[Row]:
    """`GitHubTracker.create_tasks` alone over real HTTP against the fake GitHub: the plan's 10
    sub-issues and their edges, the label missing or present, and again once done."""
    rows = []
    label = SETTINGS.policy.epics.task_label
    for present in (False, True):
        with FakeGitHub() as fake:
            if present:
                fake.add_label(label, "1d76db", "A task of an epic")
            epic = fake.add_issue("Epic", labels=["baton:epic"])
            plan = _creation_plan(epic, epic_plan(EPIC_TASKS), label)
            runs = [("first", None)] if not present else [("first", None), ("again", None)]
            for when, _ in runs:
                tracker = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
                fake.reset_requests()
                tracker.create_tasks(plan)
                assert len(fake.sub_issues(epic)) == EPIC_TASKS
                graphql = tracker.graphql_requests
                rest = tracker.requests - graphql
                state = "present" if present else "missing"
                kind = (
                    f"create_tasks of 10 tasks, the task label {state}"
                    if when == "first"
                    else "create_tasks again after success"
                )
                rows.append(
                    Row(
                        kind,
                        tracker.requests,
                        f"{graphql} GraphQL + {rest} REST: "
                        + _listed([(c.method, _where(c)) for c in fake.requests]),
                    )
                )
    return rows


def epic_conductor(repeat: int) -> tuple[list[Row], dict[str, int], float]:
    """A workflow_dispatch on an epic in implementing whose 10 tasks are some completed, some
    in progress, the rest pending: its calls, and the median time of that run in-process."""
    world = EpicWorld(task_label=True)
    world.report_plan(epic_plan(EPIC_TASKS))
    world.actions.drain()
    statuses = world.statuses()
    assert world.record().state == "implementing"
    run = world.conduct()
    calls = _watched(world.gh, run)
    rows = [Row("conductor run (workflow_dispatch on the epic)", calls.trips, calls.detail)]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    assert world.statuses() == statuses, "the timed runs change nothing"
    return rows, statuses, statistics.median(samples)


def _record_json(body: str) -> str:
    inside = body.split(record_comment.RECORD_OPEN, 1)[1]
    return inside.split(record_comment.RECORD_CLOSE, 1)[0].strip()


def epic_record_sizes(counts: list[int]) -> list[tuple[int, int, int, int]]:
    """The epic's record comment once its plan of `count` tasks is created, with a 6,000-
    character specification: characters of the whole comment body and of its JSON."""
    sizes = []
    spec = ("The feature, specified at length. " * 200)[:EPIC_SPEC]
    for count in counts:
        world = EpicWorld(
            task_label=True, settings=_epic_settings(max(count, 20)), spec=spec, done=()
        )
        world.report_plan(epic_plan(count))
        (found,) = record_comment.find_records(world.gh.comments_of(world.epic), world.gh.bot_login)
        sizes.append((count, len(spec), len(found.body), len(_record_json(found.body))))
    return sizes


def epic_figures(repeat: int) -> EpicFigures:
    conductor, statuses, seconds = epic_conductor(repeat)
    return EpicFigures(
        plan=epic_plan_calls(),
        tracker=epic_tracker_calls(),
        conductor=conductor,
        statuses=statuses,
        records=epic_record_sizes([10, 50]),
        seconds=seconds,
        repeat=repeat,
    )


# --- report ------------------------------------------------------------------------------------
def render(
    rows: list[Row],
    sweep: Row,
    times: list[tuple[str, float, float, int, float]],
    sizes: list[tuple[int, int]],
    work: list[Row] | None = None,
    limits: Limits | None = None,
) -> str:
    lines = [
        "# Baton benchmarks",
        "",
        "Measured by `python benchmarks/run.py` against the fake "
        "GitHub of the tests over real HTTP (PyGithub, real subprocesses).",
        "",
    ]
    lines += ["## GitHub API calls per event", "", "| event | calls | the calls |", "|---|---|---|"]
    for row in [*rows, sweep]:
        lines.append(f"| {row.kind} | {row.calls} | {row.detail} |")
    if work is not None:
        lines += [
            "",
            "## The work: the branch, commits, the pull request's events",
            "",
            "Agents' reports carry changesets (written as `baton agent` writes them); the issue's",
            "pull request sends reviews, its merge or close, and CI's checks "
            "(`tests/action/test_work_http.py` runs the same with real git checkouts).",
            "",
            "| event | calls | the calls |",
            "|---|---|---|",
        ]
        lines += [f"| {row.kind} | {row.calls} | {row.detail} |" for row in work]
    if limits is not None:
        grown = limits.request / limits.max_bytes
        lines += [
            "",
            "## What a changeset may carry",
            "",
            f"Default limits (`work.max_files`, `work.max_bytes`): {limits.max_files:,} files, "
            f"{limits.max_bytes:,} bytes of contents (decoded). At the limit — "
            f"{limits.max_files:,} files of random bytes holding {limits.max_bytes:,} bytes, "
            "committed by `baton report` as the first commit of a branch:",
            "",
            "| measure | value |",
            "|---|---|",
            f"| the changeset file on disk (`baton agent`'s JSON, base64 contents) "
            f"| {limits.changeset_file:,} bytes |",
            f"| the `BatonCommitOpening` request body (one GraphQL mutation, as PyGithub sends "
            f"it: the commit and its draft pull request) "
            f"| {limits.request:,} bytes ({grown:.2f}× the contents) |",
            f"| wall time of that `baton report` (the fake's work included) "
            f"| {limits.seconds * 1000:.0f} ms |",
            f"| its CPU time / peak RSS "
            f"| {limits.cpu * 1000:.0f} ms / {limits.rss / 1024:.0f} MB |",
            f"| its calls | {limits.calls} |",
            f"| one byte over the limit: refused, nothing written | {limits.over_calls} |",
        ]
    lines += [
        "",
        "## One `baton` process",
        "",
        "| run | median wall time | × `python -c pass` | peak RSS | CPU time of the process "
        "| its CPU × `python -c pass`'s |",
        "|---|---|---|---|---|---|",
    ]
    bare_cpu = times[0][4]
    for name, seconds, ratio, rss, cpu in times:
        lines.append(
            f"| {name} | {seconds * 1000:.0f} ms | {ratio:.1f}× | {rss / 1024:.0f} MB "
            f"| {cpu * 1000:.0f} ms | {cpu / bare_cpu:.1f}× |"
        )
    lines += [
        "",
        "A transition's wall time includes the fake GitHub's own work on its requests (it parses",
        "and validates every GraphQL document with graphql-core); its CPU time is Baton's alone:",
        "the process's user and system time from its rusage, the median of the repetitions,",
        "beside the same interpreter's `python -c pass`. Baton's modules are compiled first, as",
        "the image's install leaves them.",
    ]
    if any(name.startswith("baton report") for name, *_ in times):
        lines += [
            "The `baton report` rows: a developer's report moving implementing → running_tests and",
            "dispatching the next run, with a two-file changeset (read, commit, check, write,",
            "dispatch) and without one (read, check, write, dispatch), alternately.",
        ]
    lines += ["", "## Record comment size", "", "| transitions | bytes |", "|---|---|"]
    lines += [f"| {count} | {size:,} |" for count, size in sizes]
    ignored_ok = all(r.calls == 0 for r in rows if r.kind.startswith("ignored"))
    ratio = next(t[4] for t in times if "ignored" in t[0]) / bare_cpu
    moved = [t for t in times[1:] if "ignored" not in t[0]]
    moves = [r for r in rows if not r.kind.startswith(("ignored", "chained"))]
    worst = max(moves, key=lambda r: r.calls)
    largest = max(size for _, size in sizes)
    lines += [
        "",
        "## Targets",
        "",
        f"- ignored events make 0 API calls: {'met' if ignored_ok else 'NOT met'}",
        f"- an ignored run within {TARGET_IGNORED_RATIO:.0f}× a bare interpreter's CPU: "
        f"{ratio:.1f}× — {'met' if ratio < TARGET_IGNORED_RATIO else 'NOT met'}",
        f"- a transition in at most {TARGET_TRANSITION_CALLS} API calls: at most "
        f"{worst.calls} ({worst.kind}) — "
        f"{'met' if worst.calls <= TARGET_TRANSITION_CALLS else 'NOT met'} "
        "(benchmarks/README.md says where each call goes)",
    ]
    if moved:
        costliest = max(moved, key=lambda t: t[4])
        times_bare = costliest[4] / bare_cpu
        lines.append(
            f"- a transition within {TARGET_TRANSITION_RATIO:.0f}× a bare interpreter's CPU: "
            f"{times_bare:.1f}× ({costliest[0]}) — "
            f"{'met' if times_bare < TARGET_TRANSITION_RATIO else 'NOT met'}"
        )
    if work is not None:
        carrying = [r for r in work if r.kind.startswith("agent report") and "changeset" in r.kind]
        most = max(carrying, key=lambda r: r.calls)
        lines.append(
            f"- an agent report carrying a changeset in at most {TARGET_CHANGESET_CALLS} API "
            f"calls: at most {most.calls} ({most.kind}) — "
            f"{'met' if most.calls <= TARGET_CHANGESET_CALLS else 'NOT met'}"
        )
    lines += [
        f"- the record under {TARGET_RECORD_BYTES:,} bytes after 1,000 transitions: "
        f"{largest:,} — {'met' if largest < TARGET_RECORD_BYTES else 'NOT met'}",
        f"- a sweep over 1,000 open issues within the hourly budget: {sweep.calls} calls "
        f"— {'met' if sweep.calls < HOURLY_BUDGET / 4 else 'NOT met'}",
    ]
    return "\n".join(lines) + "\n"


def render_epics(figures: EpicFigures) -> str:
    """The "Epics" section of RESULTS.md."""
    statuses = ", ".join(f"{n} {s}" for s, n in figures.statuses.items())
    lines = [
        "## Epics",
        "",
        "In memory (`baton.sim.actions`, the real `run.handle`; round trips as GitHubTracker",
        "makes them, one GraphQL document however many fields — `create_issue×10` is one",
        "document) and, for `create_tasks` alone, `GitHubTracker` over real HTTP against the fake",
        "GitHub. The plan: 10 tasks, t0–t3 free, each later one blocked by the one four before it",
        "(6 edges); the status labels exist.",
        "",
        "| run | calls | the calls |",
        "|---|---|---|",
    ]
    lines += [f"| {row.kind} | {row.calls} | {row.detail} |" for row in figures.plan]
    lines += [f"| {row.kind} (HTTP) | {row.calls} | {row.detail} |" for row in figures.tracker]
    lines += [
        f"| {row.kind}: 10 tasks ({statuses}) | {row.calls} | {row.detail} |"
        for row in figures.conductor
    ]
    lines += [
        "",
        "| epic record comment | characters of the body | of its JSON |",
        "|---|---|---|",
    ]
    lines += [
        f"| {tasks} tasks, a {spec:,}-character specification | {body:,} | {data:,} |"
        for tasks, spec, body, data in figures.records
    ]
    lines += [
        "",
        f"One conductor run in-process (the production client over the model of GitHub, its "
        f"GraphQL parsed and answered in process, no network): "
        f"{figures.seconds * 1000:.1f} ms, median of {figures.repeat} — quoted, not asserted.",
    ]
    return "\n".join(lines) + "\n"


def _with_epics(text: str, epics: str) -> str:
    """`text` (RESULTS.md) with its "Epics" section replaced by `epics`, or added at its end."""
    head, found, tail = text.partition("## Epics\n")
    if not found:
        return text.rstrip("\n") + "\n\n" + epics
    after = tail.split("\n## ", 1)
    rest = "\n## " + after[1] if len(after) > 1 else ""
    return head + epics + rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer timing repetitions")
    parser.add_argument("--epics", action="store_true", help="the epic figures alone")
    parser.add_argument("--jobs", action="store_true", help="job starts and billed minutes alone")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "RESULTS.md"))
    args = parser.parse_args()
    output = Path(args.output)
    if args.jobs:
        import jobs  # benchmarks/jobs.py, beside this script

        before = output.read_text(encoding="utf-8") if output.exists() else ""
        section = jobs.render(jobs.figures())
        evidence = jobs.render_evidence(jobs.evidence_figures())
        text = jobs.with_section(jobs.with_section(before, section), evidence)
        output.write_text(text, encoding="utf-8")
        print(section + "\n" + evidence)
        return
    epics = render_epics(epic_figures(repeat=21 if args.quick else 101))
    if args.epics:
        before = output.read_text(encoding="utf-8") if output.exists() else ""
        output.write_text(_with_epics(before, epics), encoding="utf-8")
        print(epics)
        return
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        rows = api_calls(workdir)
        sweep = sweep_calls(workdir, total=1000, in_workflow=50, due=5)
        times = timings(workdir, repeat=3 if args.quick else 21)
        work = work_calls(workdir)
        limits = changeset_limits(workdir)
        bare = times[0][1]
        for name, seconds, rss, cpu in report_timings(workdir, repeat=3 if args.quick else 7):
            times.append((name, seconds, seconds / bare, rss, cpu))
    sizes = record_sizes([10, 100, 1000])
    import jobs

    text = _with_epics(render(rows, sweep, times, sizes, work, limits), epics)
    text = jobs.with_section(text, jobs.render(jobs.figures()))
    text = jobs.with_section(text, jobs.render_evidence(jobs.evidence_figures()))
    output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
