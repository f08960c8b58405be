"""A scenario with `agents:` played as an epic: `baton demo --epic` and `baton simulate`.

The humans' steps are the scenario's, as for any issue; Baton's dispatched runs (the
conductor's passes, each task's run) and the agents' jobs they start are played after every
step by `sim.actions`, one at a time, until none is left, the agents answering as `agents:`
scripts them. What the runs did to branches and pull requests is told from GitHub's state
after each run (`sim.work_news`); the plan is shown once made, the breaker when it opens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from baton.core.model.record import Record
from baton.core.text import epic_plan as render
from baton.names import issue_of_branch
from baton.sim import payloads, work_news
from baton.sim.actions import Actions, Play
from baton.sim.scenario import narration
from baton.sim.scenario.format import Agents, Expect, Scenario, Step, one_line
from baton.sim.scenario.holding import open_pull_number
from baton.sim.scenario.player import Impossible, Player
from baton.workflow.config import Settings

ACTIVE = ("in_progress", "pending_review", "retry_queued")  # a task's states that take a slot


def player_for(scenario: Scenario, settings: Settings, say: Callable[[str], None]) -> Player:
    """The player of `scenario`: an epic's when it scripts `agents:`, else an issue's."""
    if scenario.agents is not None:
        return EpicPlayer(scenario, scenario.agents, settings, say)
    return Player(scenario, settings, say)


class EpicPlayer(Player):
    """Plays a scenario with scripted agents, draining Baton's runs after each step, and keeps
    the epic's figures."""

    def __init__(
        self, scenario: Scenario, agents: Agents, settings: Settings, say: Callable[[str], None]
    ):
        super().__init__(scenario, settings, say)
        self.agents = agents
        self.by_key = {task.key: task for task in agents.tasks}
        self.reviews: Counter[str] = Counter()  # the reviewer's runs per task
        self.attempts: Counter[str] = Counter()  # the developer's runs per task
        self.asked = 0  # the discovery rounds asked
        self.max_in_progress = 0
        self.actions = Actions(
            self.gh, settings, self._agent, say=self._told, interleave=True, watch=self._watch
        )
        self.seen_state = ""
        self.plan_shown = False
        self.announced = False
        self.work_seen = work_news.seen(self.gh)

    # --- reading the epic and its tasks ---------------------------------------------------
    def record(self, number: int | None = None) -> Record | None:
        """The record of issue `number` (the epic's by default) as the next run reads it."""
        return self.actions.record(number or self.number)

    def _state(self) -> str:
        record = self.record()
        return record.state if record else ""

    def _tasks(self) -> dict[str, Record]:
        """Each task key's record, as the epic's sub-issues hold them."""
        found: dict[str, Record] = {}
        for number in self.gh.sub_issues_of(self.number):
            record = self.record(number)
            if record and record.task:
                found[record.task.key] = record
        return found

    def states(self) -> dict[str, str]:
        """Each task key's state."""
        return {key: record.state for key, record in self._tasks().items()}

    def starts(self) -> dict[str, int]:
        """Each task key's moves pending → in_progress, from its record's history."""
        return {
            key: sum(
                1
                for h in record.history
                if (h.from_state, h.to_state) == ("pending", "in_progress")
            )
            for key, record in self._tasks().items()
        }

    def table(self) -> str:
        record = self.record()
        return render.task_table(record.epic) if record and record.epic else "(no plan)"

    def mermaid(self) -> str:
        record = self.record()
        return render.mermaid(record.epic) if record and record.epic else ""

    # --- Baton's runs and the agents' jobs --------------------------------------------------
    def _event(self, name: str, payload: dict[str, Any]) -> None:
        """The step's event through Baton's run, then every run and job it leads to."""
        result = self.actions.event(name, payload)
        self.last = result.decision if result else None
        self._drain()

    def _drain(self) -> None:
        """Every run and job, one at a time, showing the plan once made and the breaker opened."""
        while self.actions.drain(1):
            state = self._state()
            if state != self.seen_state:
                if state == "implementing" and not self.plan_shown:
                    self.plan_shown = True
                    self.say("\nThe plan:\n\n" + self.table() + "\n")
                if state == "blocked":
                    self._breaker()
                self.seen_state = state

    def _told(self, line: str) -> None:
        if " ignored: " not in line and not line.endswith("noted: the conductor's pass"):
            self.say(line)

    def _watch(self) -> None:
        """After every run: what it did to branches and pull requests, and the tasks active."""
        for line in work_news.news(self.gh, self.work_seen, self._base_of):
            self.say(f"   {line}")
        self.work_seen = work_news.seen(self.gh)
        prefix = self.settings.policy.label_prefix
        active = sum(
            1
            for n in self.gh.sub_issues_of(self.number)
            if any(
                label.startswith(prefix) and label[len(prefix) :].replace("-", "_") in ACTIVE
                for label in self.gh.labels_of(n)
            )
        )
        self.max_in_progress = max(self.max_in_progress, active)

    def _base_of(self, branch: str) -> str:
        """The branch `branch` was made from, as its issue's record says (a task's: its
        epic's); the default branch for any other."""
        number = issue_of_branch(self.settings.policy.work.branch_prefix, branch)
        record = self.record(number) if number else None
        work = record.work if record else None
        return work.base if work is not None and work.base else self.gh.git.default_branch

    def _breaker(self) -> None:
        record = self.record()
        if record is None or record.epic is None:
            return
        breaker = record.epic.breaker
        self.say(
            f"\nThe circuit breaker is {breaker.state} after {breaker.failures} task failures in "
            "a row (a rejected review or a failed implementation is one):"
        )
        for reason in breaker.reasons:
            self.say(f"  - {reason}")
        self.say("\n" + self.table() + "\n")

    # --- the scripted agents ----------------------------------------------------------------
    def _agent(self, number: int, agent: str, record: Record | None) -> Play | None:
        """What `agent` reports on issue `number`, as `agents:` scripts it."""
        scripted = self.agents
        if agent == "discovery":
            phase = record.epic.discovery.phase if record and record.epic else ""
            if self.asked < len(scripted.discovery) and phase != "generating":
                self.asked += 1
                return Play({"questions": scripted.discovery[self.asked - 1].questions})
            categories = list(self.settings.policy.epics.categories)
            return Play({"spec": scripted.spec, "categories": categories})
        if agent == "planner":
            tasks = [
                {"key": t.key, "title": t.title, "depends_on": t.depends_on} for t in scripted.tasks
            ]
            return Play({"tasks": tasks, "summary": f"{len(tasks)} tasks"})
        key = record.task.key if record and record.task else str(number)
        if agent == "developer":
            self.attempts[key] += 1
            code = f"# {key}, attempt {self.attempts[key]}\n"
            return Play({"summary": f"implemented {key}"}, {f"src/{key}.py": code})
        if agent == "reviewer":
            verdicts = self.by_key[key].reviews if key in self.by_key else []
            i = self.reviews[key]
            self.reviews[key] += 1
            if i < len(verdicts) and verdicts[i] == "reject":
                return Play({"status": "failure", "issues_found": [f"{key}: tests are missing"]})
            return Play({"summary": f"{key} looks good"})
        return Play({"summary": "requeued"})

    # --- the humans' steps, told as the epic's story ----------------------------------------
    def _heading(self, index: int, step: Step) -> str:
        who = step.actor or self.scenario.issue.author
        issue = self.scenario.issue
        pull = open_pull_number(self)
        if step.comment is not None:
            target = self._task(step.task) if step.task else self.number
            on = f"#{target}" if target else f"task {step.task}"
            return f"\n{who} on {on}: {one_line(step.comment, 200)}"
        if step.merge is not None and pull is not None:
            found = self.gh.pull_requests[pull]
            return f"\n{who} merges pull request #{pull} ({found.head} into {found.base})"
        if step.label is not None and not self.announced:
            self.announced = True
            return (
                f"{issue.author} opens #{self.number} “{issue.title}”; {who} labels it {step.label}"
            )
        return f"\n{narration.describe(self, step, issue.author)}"

    def _task(self, key: str) -> int | None:
        """The sub-issue of the epic that is task `key`, if the plan made it yet."""
        for number in self.gh.sub_issues_of(self.number):
            record = self.record(number)
            if record and record.task and record.task.key == key:
                return number
        return None

    def _target(self, step: Step) -> int:
        """The issue a step acts on: the epic, or the sub-issue of the task it names."""
        if step.task is None:
            return self.number
        found = self._task(step.task)
        if found is None:
            raise Impossible(f"task {step.task} has no sub-issue of #{self.number} yet")
        return found

    def _do_comment(self, step: Step) -> None:
        assert step.comment is not None
        who, body, target = step.by or self.scenario.issue.author, step.comment, self._target(step)
        posted: list[int] = []

        def post() -> None:
            made = self.gh.human_comment(target, body, author=who, association=step.association)
            posted.append(made.id)

        if self._human(post):
            self._event("issue_comment", payloads.comment_created(self.gh, posted[0]))

    def _narrate(self, before: object) -> None:
        """Nothing more: each run's changes were told as it ran (`_watch`)."""

    # --- expectations and figures -----------------------------------------------------------
    def _problems(self, want: Expect) -> list[str]:
        found = super()._problems(want)
        subs = len(self.gh.sub_issues_of(self.number))
        if want.sub_issues is not None and subs != want.sub_issues:
            found.append(f"{subs} sub-issues, expected {want.sub_issues}")
        states = self.states()
        for key, state in (want.tasks or {}).items():
            if states.get(key, "missing") != state:
                found.append(f"task {key} is {states.get(key, 'missing')}, expected {state}")
        most = want.max_in_progress
        if most is not None and self.max_in_progress > most:
            found.append(
                f"{self.max_in_progress} tasks were active at once, at most {most} expected"
            )
        return found

    def tally(self) -> str:
        return (
            f"{len(self.gh.sub_issues_of(self.number))} tasks, "
            f"{len(self.actions.agent_runs)} agent runs, {self.gh.requests} API calls, "
            f"at most {self.max_in_progress} tasks in progress at once"
        )

    def work(self) -> str | None:
        """What GitHub holds of the epic's work in one line, or None when it has no branch."""
        record = self.record()
        if record is None or record.work is None:
            return None
        heads = [r.work.head for r in self._tasks().values() if r.work and r.work.head]
        return work_news.work_line(self.gh, record.work.branch, record.work.pull_request, heads)
