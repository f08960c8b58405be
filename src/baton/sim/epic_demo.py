"""A whole epic played on the in-memory GitHub with scripted agents and humans: `baton demo
--epic` (the built-in script) and `baton simulate --epic FILE` (a YAML script with expectations).

The script says what the discovery agent asks and the humans answer, the plan, each task's
review verdicts in order, what a maintainer says when the epic is blocked or a task failed, and
how the epic is finished (an approval, or merging its pull request). Everything else is Baton's
own run (`sim.actions`), on a fixed clock; what the runs did to branches and pull requests is
told from GitHub's state after each run (`sim.work_news`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.record import Record
from baton.core.text import epic_plan as render
from baton.errors import BatonError
from baton.names import issue_of_branch
from baton.sim import payloads, work_news
from baton.sim.actions import Actions, Play
from baton.sim.memory_github import MemoryGitHub
from baton.workflow.config import Config, settings_from

ACTIVE = ("in_progress", "pending_review", "retry_queued")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Round(_Strict):
    questions: list[str]
    answer: str


class TaskScript(_Strict):
    key: str
    title: str
    depends_on: list[str] = Field(default_factory=list)
    # The reviewer's verdicts in order (`pass` or `reject`); `pass` once they run out.
    reviews: list[Literal["pass", "reject"]] = Field(default_factory=list)


class People(_Strict):
    author: str = "alice"
    maintainer: str = "maria"
    approver: str = "maria"


class Expect(_Strict):
    state: str | None = None
    sub_issues: int | None = None
    tasks: dict[str, str] = Field(default_factory=dict)
    max_in_progress: int | None = None  # at most this many tasks active at once


class EpicScript(_Strict):
    name: str = "epic"
    title: str
    body: str = ""
    people: People = People()
    config: dict[str, Any] = Field(default_factory=dict)
    discovery: list[Round] = Field(default_factory=list)
    spec: str = "# Specification"
    tasks: list[TaskScript]
    on_blocked: str | None = "/resume"  # what the maintainer comments on a blocked epic
    on_failed: str | None = "/retry"  # what the maintainer comments on a failed task
    # How the approver finishes a completing epic: an `approved` comment, or merging its pull
    # request (the workflow's `pull_request.merged` route).
    finish: Literal["approve", "merge"] = "approve"
    expect: Expect = Expect()


def load_epic_script(path: Path) -> EpicScript:
    try:
        data = yaml.safe_load(path.read_text())
        return EpicScript.model_validate(data)
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise BatonError(f"{path}: not an epic scenario: {exc}") from exc


def demo_script() -> EpicScript:
    """The built-in epic of `baton demo --epic`."""
    return EpicScript(
        name="teams",
        title="Teams and roles",
        body="Let admins group users into teams, each with a role.",
        config={"epics": {"max_parallel": 2, "breaker_threshold": 3}},
        discovery=[
            Round(
                questions=["What problem do teams solve?", "Who asked for them?"],
                answer="Admins spend hours granting the same permissions one user at a time.",
            ),
            Round(
                questions=["Who manages teams: admins only, or team leads too?"],
                answer="Admins create teams; team leads add and remove members.",
            ),
            Round(
                questions=["Is there anything out of scope for the first version?"],
                answer="Nested teams are out of scope; one role per team is enough.",
            ),
        ],
        spec=(
            "# Teams and roles\n\nAdmins create teams and give each a role; team leads manage "
            "members. No nested teams."
        ),
        tasks=[
            TaskScript(key="model", title="Team and role data model"),
            TaskScript(key="api", title="Teams API", depends_on=["model"], reviews=["reject"] * 3),
            TaskScript(key="ui", title="Teams UI", depends_on=["model"], reviews=["reject"]),
            TaskScript(key="audit", title="Audit log of team changes", depends_on=["model"]),
            TaskScript(key="integrate", title="Wire the UI to the API", depends_on=["api", "ui"]),
            TaskScript(key="docs", title="Admin guide for teams", depends_on=["integrate"]),
        ],
        on_failed="/retry Validate the role names against the model's enum before saving.",
        finish="merge",
    )


class EpicPlayer:
    """Plays an `EpicScript` and keeps the figures."""

    def __init__(self, script: EpicScript, say: Callable[[str], None]):
        self.script = script
        self.say = say
        self.settings = settings_from(Config.model_validate(script.config))
        self.gh = MemoryGitHub()
        people = script.people
        self.gh.set_permission(people.maintainer, "maintain")
        self.gh.set_permission(people.approver, "maintain")
        self.by_key = {t.key: t for t in script.tasks}
        self.reviews: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()  # the developer's runs per task
        self.asked = 0
        self.max_in_progress = 0
        self.commands: list[str] = []
        self.actions = Actions(
            self.gh,
            self.settings,
            self._agent,
            say=self._narrate,
            interleave=True,
            watch=self._watch,
        )
        self.epic = 0
        self.seen_state = ""
        self.plan_shown = False
        self.work_seen = work_news.seen(self.gh)

    # --- narration and figures ------------------------------------------------------------------
    def _narrate(self, line: str) -> None:
        if " ignored: " not in line and not line.endswith("noted: the conductor's pass"):
            self.say(line)

    def _watch(self) -> None:
        if not self.epic:
            return
        for line in work_news.news(self.gh, self.work_seen, self._base_of):
            self.say(f"   {line}")
        self.work_seen = work_news.seen(self.gh)
        prefix = self.settings.policy.label_prefix
        active = sum(
            1
            for n in self.gh.sub_issues_of(self.epic)
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

    def record(self, number: int | None = None) -> Record | None:
        return self.actions.record(number or self.epic)

    def table(self) -> str:
        record = self.record()
        return render.task_table(record.epic) if record and record.epic else "(no plan)"

    def states(self) -> dict[str, str]:
        """Each task key's state, as its sub-issue's record says."""
        found: dict[str, str] = {}
        for number in self.gh.sub_issues_of(self.epic):
            record = self.record(number)
            if record and record.task:
                found[record.task.key] = record.state
        return found

    def starts(self) -> dict[str, int]:
        """Each task key's moves pending → in_progress, from its record's history."""
        found: dict[str, int] = {}
        for number in self.gh.sub_issues_of(self.epic):
            record = self.record(number)
            if record and record.task:
                found[record.task.key] = sum(
                    1
                    for h in record.history
                    if h.from_state == "pending" and h.to_state == "in_progress"
                )
        return found

    # --- the scripted agents --------------------------------------------------------------------
    def _agent(self, number: int, agent: str, record: Record | None) -> Play | None:
        script = self.script
        if agent == "discovery":
            phase = record.epic.discovery.phase if record and record.epic else ""
            if self.asked < len(script.discovery) and phase != "generating":
                self.asked += 1
                return Play({"questions": script.discovery[self.asked - 1].questions})
            categories = list(self.settings.policy.epics.categories)
            return Play({"spec": script.spec, "categories": categories})
        if agent == "planner":
            tasks = [
                {"key": t.key, "title": t.title, "depends_on": t.depends_on} for t in script.tasks
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

    # --- the humans -----------------------------------------------------------------------------
    def comment(self, number: int, body: str, author: str) -> None:
        self.say(f"\n{author} on #{number}: {body}")
        self.commands.append(body)
        made = self.gh.human_comment(number, body, author=author)
        self.actions.event("issue_comment", payloads.comment_created(self.gh, made.id))
        self.drain()

    def drain(self) -> None:
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

    def _state(self) -> str:
        record = self.record()
        return record.state if record else ""

    def play(self) -> None:
        script, people = self.script, self.script.people
        self.epic = self.gh.open_issue(script.title, script.body, author=people.author)
        self.say(
            f"{people.author} opens #{self.epic} “{script.title}”; "
            f"{people.maintainer} labels it {self.settings.policy.epics.label}"
        )
        self.gh.human_label(self.epic, self.settings.policy.epics.label, by=people.maintainer)
        self.actions.event(
            "issues",
            payloads.labeled(
                self.gh, self.epic, self.settings.policy.epics.label, sender=people.maintainer
            ),
        )
        self.drain()
        for turn in script.discovery:
            if self._state() != "discovery":
                break
            self.comment(self.epic, turn.answer, people.author)
        if self._state() == "discovery":
            self.comment(self.epic, "approved", people.approver)
        for _ in range(20):  # the humans' turns, until nothing is left for them
            state = self._state()
            failed = [n for n in self.gh.sub_issues_of(self.epic) if self._failed(n)]
            if state == "blocked" and script.on_blocked:
                self.comment(self.epic, script.on_blocked, people.maintainer)
            elif failed and script.on_failed and state == "implementing":
                self.comment(failed[0], script.on_failed, people.maintainer)
            elif state == "completing" and script.finish == "merge" and self._open_pull():
                self.merge(self._open_pull() or 0, people.approver)
            elif state == "completing":
                self.comment(self.epic, "approved", people.approver)
            else:
                break

    def _open_pull(self) -> int | None:
        """The epic's pull request, as its record names it, while it is open."""
        record = self.record()
        number = record.work.pull_request if record and record.work else None
        pull = self.gh.pull_requests.get(number) if number is not None else None
        return number if work_news.pull_state(self.gh, pull) in ("draft", "open") else None

    def merge(self, number: int, who: str) -> None:
        """`who` merges the pull request on GitHub; its `pull_request` event reaches Baton."""
        pull = self.gh.pull_requests[number]
        self.say(f"\n{who} merges pull request #{number} ({pull.head} into {pull.base})")
        self.gh.human_merge(number, by=who)
        payload = payloads.pull_request_closed(
            self.gh,
            number=number,
            branch=pull.head,
            head_sha=pull.head_sha,
            merged=True,
            sender=who,
        )
        self.actions.event("pull_request", payload)
        self.drain()

    def _failed(self, number: int) -> bool:
        record = self.record(number)
        return record is not None and record.state == "failed"

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

    # --- expectations ---------------------------------------------------------------------------
    def check(self, expect: Expect) -> list[str]:
        problems: list[str] = []
        state = self._state()
        if expect.state is not None and state != expect.state:
            problems.append(f"the epic is in {state}, expected {expect.state}")
        subs = len(self.gh.sub_issues_of(self.epic))
        if expect.sub_issues is not None and subs != expect.sub_issues:
            problems.append(f"{subs} sub-issues, expected {expect.sub_issues}")
        states = self.states()
        for key, want in expect.tasks.items():
            got = states.get(key, "missing")
            if got != want:
                problems.append(f"task {key} is {got}, expected {want}")
        if expect.max_in_progress is not None and self.max_in_progress > expect.max_in_progress:
            problems.append(
                f"{self.max_in_progress} tasks were active at once, at most "
                f"{expect.max_in_progress} expected"
            )
        return problems

    def figures(self) -> str:
        return (
            f"{len(self.gh.sub_issues_of(self.epic))} tasks, "
            f"{len(self.actions.agent_runs)} agent runs, {self.gh.requests} API calls, "
            f"at most {self.max_in_progress} tasks in progress at once"
        )

    def work(self) -> str | None:
        """What GitHub holds of the epic's work in one line, or None when it has no branch."""
        record = self.record()
        if record is None or record.work is None:
            return None
        tasks = [self.record(n) for n in self.gh.sub_issues_of(self.epic)]
        heads = [r.work.head for r in tasks if r and r.work and r.work.head]
        return work_news.work_line(self.gh, record.work.branch, record.work.pull_request, heads)

    def mermaid(self) -> str:
        record = self.record()
        return render.mermaid(record.epic) if record and record.epic else ""


def show_demo(echo: Callable[[str], None], *, quiet: bool, diagram: bool = False) -> None:
    """`baton demo --epic`: the built-in epic played, then its final state and table; its plan
    as a Mermaid graph with `diagram`."""
    echo(
        "Baton demo: one epic through discovery, planning, six tasks on their own branches and "
        "its pull request, on an in-memory GitHub.\nEvery step is a GitHub event, a dispatched "
        "run or an agent report, handled exactly as `baton run` and `baton report` handle them."
    )
    player = EpicPlayer(demo_script(), (lambda _: None) if quiet else echo)
    player.play()
    record = player.record()
    echo("")
    echo(f"Final state: {record.state if record else '?'}.")
    work = player.work()
    if work:
        echo(f"The work: {work}.")
    echo("\n" + player.table())
    echo(f"\nFigures: {player.figures()}.")
    if diagram:
        echo("\nThe plan:\n")
        echo(player.mermaid())
    else:
        echo("\nThe plan as a Mermaid diagram: `baton demo --epic --diagram`.")


def simulate_script(path: Path, echo: Callable[[str], None]) -> list[str]:
    """`baton simulate --epic PATH`: the script played and told; the expectations it failed
    (InvalidScenario for a script that does not load)."""
    script = load_epic_script(path)
    echo(f"Simulating epic {script.name}")
    player = EpicPlayer(script, echo)
    player.play()
    work = player.work()
    if work:
        echo(f"\nThe work: {work}.")
    echo("\n" + player.table())
    echo(f"\n{player.figures()}.")
    return player.check(script.expect)
