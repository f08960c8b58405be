"""Job starts and billed minutes: which jobs of the reusable workflow start for every run of one
issue on the default workflow's happy path (the issue `baton demo` plays) and for each ignored
event, read from the workflow's own `if:`s as GitHub's expression engine evaluates them
(tests/support/expressions.py), and what GitHub bills for them: each job rounded up to a whole
minute. `python benchmarks/run.py --jobs` writes this section of RESULTS.md alone.

"Before" is the run Baton's dispatch starts when the caller's `workflow_dispatch` has no
`state` input (the issue alone: a `baton` job names the agent, as every hand-off did before);
"after" is the same dispatch handing over the state, whose agent job starts at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baton import sim as baton_sim
from baton.core.model.decision import Decision
from baton.core.rules.proof import proof_of
from baton.run import RunResult
from baton.sim import payloads
from baton.sim.scenario.format import Scenario, demo_scenario, load_scenario
from baton.sim.scenario.player import Player
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, Settings, load_config, settings_from
from support.expressions import REUSABLE, job_starts

# Stated, not measured on GitHub (no runner here): the baton and report jobs are two checkouts,
# the action's image pulled by digest and one `baton` process; the agent job installs Baton and
# the agent's CLI and runs it. Any job under a minute bills one, so the baton and report jobs
# bill 1 each whatever they take below 60 s; the agent job's minutes are the agent's.
SECONDS = {"baton": 35, "agent": 300, "report": 40}
# The built-in `tests` profile's agent job in a `proof: green` state: setup and the test command,
# no model (stated, as above: a suite that installs and runs in about two minutes).
TESTS_SECONDS = 120
SECTION = "## Job starts and billed minutes"
EVIDENCE_SECTION = "## Job starts with evidence"
HERE = Path(__file__).resolve().parent
Payload = dict[str, Any]


@dataclass(frozen=True)
class Run:
    """One workflow run: the event that started it and the agent its decision names."""

    what: str
    event: str
    payload: Payload
    agent: str = ""
    tests: bool = False  # the agent job runs the built-in `tests` profile, no model


def billed(started: tuple[str, ...], seconds: dict[str, int] = SECONDS) -> int:
    """GitHub's bill for the jobs: each rounded up to a whole minute."""
    return sum(math.ceil(seconds[job] / 60) for job in started)


def starts(runs: list[Run], path: Path = REUSABLE) -> list[tuple[str, ...]]:
    """The jobs that start in each run, by GitHub's engine over the workflow's `if:`s."""
    events = [(run.event, run.payload) for run in runs]
    # The agent job accepts the run it names (its checks passed: the hand-over is Baton's).
    outputs = [{"agent": run.agent, "issue": "1", "accepted": "true"} for run in runs]
    return job_starts(path, events, outputs)


class _Recorder(Player):
    """`baton demo`'s player, keeping each run it plays: the webhook runs and the runs that
    Baton's dispatches start (a report's own jobs belong to the run that named its agent)."""

    def __init__(self, scenario: Scenario | None = None, settings: Settings | None = None) -> None:
        settings = settings or settings_from(
            Config(workflow="issue-lifecycle"), source="the default"
        )
        super().__init__(scenario or demo_scenario(), settings, _mute)
        self.runs: list[Run] = []
        self.handed: list[tuple[Run, Run]] = []  # a dispatched run: (before, after)
        self._pending: tuple[str, Payload] | None = None

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        self._pending = (name, payload)
        before = len(self.runs)
        super()._event(name, payload)
        if len(self.runs) == before:  # ignored before any decision
            self.runs.append(Run(f"{_kind(name, payload)}: ignored", name, payload))
        self._pending = None

    def _show(self, result: RunResult) -> None:
        super()._show(result)
        decision: Decision = result.decision
        if self._pending is not None:
            name, payload = self._pending
            what = f"{_kind(name, payload)}: {decision.outcome.value}"
            what += f", names the {decision.agent}" if decision.agent else ""
            tests = self._tests(decision)
            self.runs.append(Run(what, name, payload, decision.agent or "", tests))
        if result.dispatched:
            request = self.gh.dispatches[-1]
            name, after = payloads.from_dispatch(self.gh, request)
            issue_alone = {"issue": request.inputs["issue"]}
            before = payloads.workflow_dispatch(self.gh, issue_alone, sender=self.gh.bot_login)
            agent, tests = decision.agent or "", self._tests(decision)
            self.handed.append(
                (
                    Run("dispatch", name, before, agent, tests),
                    Run("dispatch", name, after, agent, tests),
                )
            )

    def _tests(self, decision: Decision) -> bool:
        """Whether the agent the decision names runs as the `tests` profile: a `proof: green`
        state with `tests:` in the config (as `baton agent` chooses it)."""
        if not decision.agent or decision.state is None:
            return False
        settings = self.settings
        return proof_of(settings.workflow, settings.policy, decision.state) == "green"


def _kind(name: str, payload: Payload) -> str:
    action = payload.get("action")
    return f"{name} {action}" if isinstance(action, str) else name


def _mute(_: str) -> None:
    return None


@dataclass
class Figures:
    """One issue's happy path and the ignored events, in job starts and billed minutes."""

    events: list[tuple[Run, tuple[str, ...]]] = field(default_factory=list)
    before: list[tuple[str, ...]] = field(default_factory=list)
    after: list[tuple[str, ...]] = field(default_factory=list)
    ignored: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def totals(self, handed: list[tuple[str, ...]]) -> tuple[int, int]:
        every = [started for _, started in self.events] + handed
        return sum(len(s) for s in every), sum(billed(s) for s in every)


def _ignored() -> list[tuple[str, Run]]:
    """The ignored events of RESULTS.md's call table that reach the workflow."""
    comment, labeled = payloads.comment_created, payloads.labeled
    gh = SimGitHub("octo/repo")
    plain = gh.open_issue("A question about the docs", author="alice")
    held = gh.open_issue("Export CSV", author="alice")
    gh.human_label(held, "status:implementing", by="maria")
    gh.human_label(plain, "bug", by="maria")
    note = gh.human_comment(plain, "Thanks!", author="alice")
    busy = gh.human_comment(held, "Any news?", author="alice")
    label = "status:implementing"
    bot = gh.bot_login
    cases: list[tuple[str, str, Callable[[], Payload]]] = [
        ("issue opened (entry is by label)", "issues", lambda: payloads.opened(gh, plain)),
        ("a label that is not Baton's", "issues", lambda: payloads.labeled(gh, plain, "bug")),
        ("a comment outside the workflow", "issue_comment", lambda: comment(gh, note.id)),
        ("the bot's own label change", "issues", lambda: labeled(gh, held, label, sender=bot)),
        ("a comment while an agent works", "issue_comment", lambda: comment(gh, busy.id)),
    ]
    return [(what, Run(what, name, build())) for what, name, build in cases]


def figures(path: Path = REUSABLE) -> Figures:
    player = _Recorder()
    player.play()
    ignored = _ignored()
    runs = player.runs + [b for b, _ in player.handed] + [a for _, a in player.handed]
    runs += [run for _, run in ignored]
    started = starts(runs, path)
    n, h = len(player.runs), len(player.handed)
    return Figures(
        events=list(zip(player.runs, started[:n], strict=True)),
        before=started[n : n + h],
        after=started[n + h : n + 2 * h],
        ignored=[(what, s) for (what, _), s in zip(ignored, started[n + 2 * h :], strict=True)],
    )


def render(figures: Figures) -> str:
    """The section of RESULTS.md."""
    hand_offs = len(figures.after)
    jobs_before, minutes_before = figures.totals(figures.before)
    jobs_after, minutes_after = figures.totals(figures.after)
    agents = sum("agent" in s for _, s in figures.events) + hand_offs
    per = {job: math.ceil(seconds / 60) for job, seconds in SECONDS.items()}
    lines = [
        SECTION,
        "",
        "Which jobs of the reusable workflow start, read from its own `if:`s by GitHub's",
        "expression engine (`benchmarks/jobs.py`), for every run of the issue `baton demo` plays",
        "(the default workflow's happy path, with a review and the merge) and for the ignored",
        "events of the call table. Billed minutes: each job rounded up to a whole minute, as",
        "GitHub bills private repositories, with stated (not measured) durations: the `baton`",
        f"job {SECONDS['baton']} s, the `report` job {SECONDS['report']} s ({per['baton']} and "
        f"{per['report']} billed minute), an agent job {SECONDS['agent'] // 60} min",
        f'({per["agent"]} billed). "Before": Baton\'s dispatch carrying the issue alone (a caller',
        'without the `state` input), so a `baton` job names the agent; "after": the dispatch',
        "hands over the state and the run starts with its agent job.",
        "",
        "| run | jobs that start | billed minutes |",
        "|---|---|---|",
    ]
    for run, started in figures.events:
        lines.append(f"| {run.what} | {_listed(started)} | {billed(started)} |")
    if hand_offs:
        before, after = figures.before[0], figures.after[0]
        lines.append(
            f"| Baton's dispatch of the next agent, before ({hand_offs}×) | {_listed(before)} "
            f"| {billed(before)} |"
        )
        lines.append(
            f"| Baton's dispatch of the next agent, after ({hand_offs}×) | {_listed(after)} "
            f"| {billed(after)} |"
        )
    lines += [
        "",
        "| one issue, happy path | job starts | billed minutes | of them Baton's jobs' |",
        "|---|---|---|---|",
        f"| before | {jobs_before} | {minutes_before} | {minutes_before - agents * per['agent']} |",
        f"| after | {jobs_after} | {minutes_after} | {minutes_after - agents * per['agent']} |",
        "",
        f"{agents} agent jobs, {hand_offs} of them started by Baton's dispatch: each hand-off",
        f"starts {len(figures.before[0]) if hand_offs else 0} jobs before and "
        f"{len(figures.after[0]) if hand_offs else 0} after.",
        "",
        "| ignored event | jobs that start | billed minutes |",
        "|---|---|---|",
    ]
    lines += [f"| {what} | {_listed(s)} | {billed(s)} |" for what, s in figures.ignored]
    return "\n".join(lines) + "\n"


def _listed(started: tuple[str, ...]) -> str:
    return ", ".join(f"`{job}`" for job in started) or "none"


def with_section(text: str, section: str) -> str:
    """`text` (RESULTS.md) with the section `section` heads replaced by it, or added at the end."""
    heading = section.split("\n", 1)[0]
    head, found, tail = text.partition(heading + "\n")
    if not found:
        return text.rstrip("\n") + "\n\n" + section
    after = tail.split("\n## ", 1)
    rest = "\n## " + after[1] if len(after) > 1 else ""
    return head + section + rest


@dataclass(frozen=True)
class IssuePath:
    """One issue's whole path: its runs (webhook runs and Baton's hand-offs, after), in job
    starts and billed minutes, with the agent jobs that ran the `tests` profile apart."""

    name: str
    runs: list[tuple[Run, tuple[str, ...]]]

    @property
    def jobs(self) -> int:
        return sum(len(started) for _, started in self.runs)

    def minutes(self, *, evidence: bool = True) -> int:
        """Billed minutes; with `evidence` False, as if every agent job ran a model."""
        tests = {**SECONDS, "agent": TESTS_SECONDS}
        return sum(
            billed(started, tests if run.tests and evidence else SECONDS)
            for run, started in self.runs
        )

    @property
    def test_runs(self) -> int:
        return sum(run.tests and "agent" in started for run, started in self.runs)

    @property
    def agent_jobs(self) -> int:
        return sum("agent" in started for _, started in self.runs)


def _played(
    name: str, scenario: Scenario | None, settings: Settings | None, path: Path
) -> IssuePath:
    player = _Recorder(scenario, settings)
    status = player.play()
    assert status == 0, f"{name}: the scenario's own checks failed"
    runs = player.runs + [after for _, after in player.handed]
    return IssuePath(name, list(zip(runs, starts(runs, path), strict=True)))


def evidence_figures(path: Path = REUSABLE) -> list[IssuePath]:
    """The same issue on issue-lifecycle without and with `tests:`, and on test-first."""
    sim = Path(baton_sim.__file__).resolve().parent
    tests = Config.model_validate(
        {"tests": {"command": 'python -m pytest -q --junitxml="$BATON_JUNIT"'}}
    )
    lifecycle = settings_from(tests, source="benchmarks")
    first = load_config(sim / "test_first_config.yml")
    return [
        _played("issue-lifecycle, no `tests:`", None, None, path),
        _played(
            "issue-lifecycle with `tests:`",
            load_scenario(HERE / "scenarios" / "lifecycle_evidence.yml"),
            lifecycle,
            path,
        ),
        _played("test-first", load_scenario(sim / "test_first.yml"), first, path),
    ]


def render_evidence(paths: list[IssuePath]) -> str:
    """The section of RESULTS.md on evidence: job starts and billed minutes per issue."""
    lines = [
        EVIDENCE_SECTION,
        "",
        "The issue `baton demo` plays, on `issue-lifecycle` without `tests:` and with it (the",
        "tester's reports carrying their evidence: `benchmarks/scenarios/lifecycle_evidence.yml`,",
        "creating_tests settled by a red proof, running_tests by a failing run), and the issue",
        "`baton demo --test-first` plays. Every run counted, webhook runs and Baton's hand-offs",
        "(with the `state` input). A test run is one hand-off, as an agent's run is: the",
        "`tests` profile's agent job replaces the model's, so job starts do not change; its",
        f"billed minutes are the suite's (stated: {TESTS_SECONDS} s, "
        f"{math.ceil(TESTS_SECONDS / 60)} billed) instead of an agent's "
        f"({SECONDS['agent']} s, {math.ceil(SECONDS['agent'] / 60)} billed).",
        "",
        "| one issue | job starts | agent jobs | of them the `tests` profile | billed minutes "
        "| as if every agent job ran a model |",
        "|---|---|---|---|---|---|",
    ]
    for found in paths:
        lines.append(
            f"| {found.name} | {found.jobs} | {found.agent_jobs} | {found.test_runs} "
            f"| {found.minutes()} | {found.minutes(evidence=False)} |"
        )
    return "\n".join(lines) + "\n"
