"""Measure what a repository pays for Baton: API calls per event, time and memory per run,
record size. Runs `baton` as the Action does (subprocesses with GitHub's environment) against
the fake GitHub of the tests over real HTTP, prints a table and writes benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/run.py            # full run (about a minute)
    .venv/bin/python benchmarks/run.py --quick    # fewer repetitions
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from action_harness import ActionRunner, Step  # noqa: E402
from baton import webhooks  # noqa: E402
from baton.core import events  # noqa: E402
from baton.issue import record_comment  # noqa: E402
from baton.issue.apply import label_specs  # noqa: E402
from baton.run import handle  # noqa: E402
from baton.sim import payloads  # noqa: E402
from baton.sim.memory_github import MemoryGitHub  # noqa: E402
from baton.workflow.config import load_config  # noqa: E402
from fakes.http_github import FakeGitHub  # noqa: E402

SETTINGS = load_config(None)
TARGET_IGNORED_RATIO = 10.0
TARGET_TRANSITION_CALLS = 4
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


def _calls(step: Step) -> str:
    return ", ".join(f"{m} {p.split('/repos/octo/demo', 1)[-1] or p}" for m, p in step.calls)


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


# --- time and memory of one process ------------------------------------------------------------
def _measure(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, float]:
    """Wall time, peak RSS and CPU time of one process. Against the fake GitHub the wall time
    includes the fake's own work on each request (graphql-core parses and validates every
    document); the CPU time is Baton's alone."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command} exited {process.returncode}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def timings(workdir: Path, repeat: int) -> list[tuple[str, float, float, int, float]]:
    bare_env = {"PATH": os.environ.get("PATH", "")}
    event = workdir / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    baton = [sys.executable, "-m", "baton", "run"]
    ignored_env = {**bare_env, "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}

    def series(run: Callable[[], tuple[float, int, float]]) -> tuple[float, int, float]:
        samples = [run() for _ in range(repeat)]
        return (
            statistics.median(s[0] for s in samples),
            max(s[1] for s in samples),
            statistics.median(s[2] for s in samples),
        )

    bare = series(lambda: _measure([sys.executable, "-c", "pass"], bare_env, workdir))
    ignored = series(lambda: _measure(baton, ignored_env, workdir))
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
        gh = MemoryGitHub()
        gh.set_permission("maria", "maintain")
        number = gh.open_issue("long-lived", author="alice")
        states = ["implementing", "running-tests"]
        for index in range(count + 1):  # the entry plus `count` forced transitions
            label = "baton" if index == 0 else f"status:{states[index % 2]}"
            gh.human_label(number, label, by="maria")
            payload = payloads.labeled(gh, number, label, sender="maria")
            event = webhooks.parse("issues", payload, settings.policy, now=gh.now)
            assert not isinstance(event, events.Ignored | events.Sweep)
            handle(event, gh, settings)
            gh.now += timedelta(minutes=1)
        (found,) = record_comment.find_records(gh.comments_of(number), gh.bot_login)
        record = record_comment.parse(found.body)
        assert record.iteration == count, (record.iteration, count)
        sizes.append((count, len(found.body.encode("utf-8"))))
    return sizes


# --- report ------------------------------------------------------------------------------------
def render(
    rows: list[Row],
    sweep: Row,
    times: list[tuple[str, float, float, int, float]],
    sizes: list[tuple[int, int]],
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
    lines += [
        "",
        "## One `baton run` process",
        "",
        "| run | median wall time | × `python -c pass` | peak RSS | CPU time of the process |",
        "|---|---|---|---|---|",
    ]
    for name, seconds, ratio, rss, cpu in times:
        lines.append(
            f"| {name} | {seconds * 1000:.0f} ms | {ratio:.1f}× | {rss / 1024:.0f} MB "
            f"| {cpu * 1000:.0f} ms |"
        )
    lines += [
        "",
        "A transition's wall time includes the fake GitHub's own work on its requests (it parses",
        "and validates every GraphQL document with graphql-core); its CPU time is Baton's alone.",
    ]
    lines += ["", "## Record comment size", "", "| transitions | bytes |", "|---|---|"]
    lines += [f"| {count} | {size:,} |" for count, size in sizes]
    ignored_ok = all(r.calls == 0 for r in rows if r.kind.startswith("ignored"))
    ratio = next(t[2] for t in times if "ignored" in t[0])
    moves = [r for r in rows if not r.kind.startswith(("ignored", "chained"))]
    worst = max(moves, key=lambda r: r.calls)
    largest = max(size for _, size in sizes)
    lines += [
        "",
        "## Targets",
        "",
        f"- ignored events make 0 API calls: {'met' if ignored_ok else 'NOT met'}",
        f"- an ignored run within {TARGET_IGNORED_RATIO:.0f}× a bare interpreter: "
        f"{ratio:.1f}× — {'met' if ratio <= TARGET_IGNORED_RATIO else 'NOT met'}",
        f"- a transition in at most {TARGET_TRANSITION_CALLS} API calls: at most "
        f"{worst.calls} ({worst.kind}) — "
        f"{'met' if worst.calls <= TARGET_TRANSITION_CALLS else 'NOT met'} "
        "(benchmarks/README.md says where each call goes)",
        f"- the record under {TARGET_RECORD_BYTES:,} bytes after 1,000 transitions: "
        f"{largest:,} — {'met' if largest < TARGET_RECORD_BYTES else 'NOT met'}",
        f"- a sweep over 1,000 open issues within the hourly budget: {sweep.calls} calls "
        f"— {'met' if sweep.calls < HOURLY_BUDGET / 4 else 'NOT met'}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer timing repetitions")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "RESULTS.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        rows = api_calls(workdir)
        sweep = sweep_calls(workdir, total=1000, in_workflow=50, due=5)
        times = timings(workdir, repeat=3 if args.quick else 11)
    sizes = record_sizes([10, 100, 1000])
    text = render(rows, sweep, times, sizes)
    Path(args.output).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
