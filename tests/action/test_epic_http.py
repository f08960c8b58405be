"""Epics end to end over real HTTP: the real CLI (`baton run`, `baton report`) against the fake
GitHub on 127.0.0.1, every GraphQL document checked against GitHub's schema by the fake. The
same flow `baton.sim.actions` plays in memory: discovery, the plan as sub-issues with GitHub's
"blocked by" edges, the conductor starting tasks within `max_parallel`, completion."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner
from baton.core.model.record import Record
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.epic_http import EpicPlayer, Play, ok, status_of

DIAMOND = [
    {"key": "a", "title": "Data model"},
    {"key": "b", "title": "API", "depends_on": ["a"]},
    {"key": "c", "title": "UI", "depends_on": ["a"]},
    {"key": "d", "title": "Docs", "depends_on": ["b", "c"]},
]


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.set_permission("alice", "read")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    config = tmp_path / "baton.yml"
    config.write_text("epics:\n  max_parallel: 2\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    return ActionRunner(fake, work, config=str(config))


class Script:
    """The agents of a small epic: one question, a spec, a plan, tasks that pass review."""

    def __init__(self, plan: list[dict[str, object]] = DIAMOND) -> None:
        self.plan = plan
        self.asked = False

    def __call__(self, number: int, agent: str, record: Record | None) -> Play | None:
        if agent == "discovery":
            if self.asked:
                return Play({"spec": "# Spec\nTeams.", "categories": ["users", "scope"]})
            self.asked = True
            return Play({"questions": ["Who uses it?"], "categories": ["purpose"]})
        if agent == "planner":
            return Play({"tasks": self.plan})
        if agent == "developer":
            return Play({"summary": "done"}, {f"src/t{number}.py": f"print({number})\n"})
        return Play({"summary": "ok"})


def to_planning(player: EpicPlayer, fake: FakeGitHub, *, create: bool = True) -> int:
    """A maintainer labels an epic; the discovery asks, a human answers, the spec is approved
    and the planner reports (when the script has it report). A valid plan is recorded first;
    with `create`, the epic's next run (dispatched by that report) makes its sub-issues."""
    epic = fake.add_issue("Teams and roles", "Let admins create teams.", user="alice")
    player.epics.append(epic)
    fake.label_by(epic, "baton:epic", "maria")
    player.event("issues", payloads.labeled(fake, epic, "baton:epic"))
    assert status_of(fake, epic) == "status:discovery"
    answer = fake.add_comment(epic, "Admins and team leads.", user="alice")
    player.event("issue_comment", payloads.comment_created(fake, answer["id"]))
    player.drain()
    approved = fake.add_comment(epic, "approved", user="maria")
    player.event("issue_comment", payloads.comment_created(fake, approved["id"]))
    if create:
        player.drain(limit=1)
    return epic


def no_dup_tasks(fake: FakeGitHub, epic: int) -> dict[str, int]:
    """The epic's tasks by key, each key once."""
    from baton.core.text import task_marker as marker

    keys = [marker.read(fake.issue(n)["body"]) for n in fake.sub_issues(epic)]
    assert len(keys) == len(set(keys)), keys
    return {key: n for (_, key), n in zip(keys, fake.sub_issues(epic), strict=True)}


def diamond_edges(numbers: dict[str, int]) -> set[tuple[int, int]]:
    pairs = [("b", "a"), ("c", "a"), ("d", "b"), ("d", "c")]
    return {(numbers[x], numbers[y]) for x, y in pairs}


# ~110 s: some 40 CLI runs at ~1.5 s each (a whole epic, every task's developer and reviewer).
@pytest.mark.slow
def test_a_small_epic_runs_from_its_label_to_done(fake: FakeGitHub, action: ActionRunner) -> None:
    started = time.monotonic()
    player = EpicPlayer(fake, action, Script())
    epic = to_planning(player, fake)
    assert status_of(fake, epic) == "status:implementing"
    numbers = no_dup_tasks(fake, epic)
    assert sorted(numbers) == ["a", "b", "c", "d"]
    assert fake.blocked_by_edges() == diamond_edges(numbers)
    assert all(fake.parent_of(n) == epic for n in numbers.values())

    player.settle()
    assert status_of(fake, epic) == "status:completing", player.steps[-1][1].stdout
    approved = fake.add_comment(epic, "approved", user="maria")
    player.event("issue_comment", payloads.comment_created(fake, approved["id"]))
    player.settle()
    assert status_of(fake, epic) == "status:done"

    assert player.problems == []
    assert 1 <= player.busy_seen <= 2
    assert player.started == {n: 1 for n in numbers.values()}, "each task started once"
    assert all(status_of(fake, n) == "status:completed" for n in numbers.values())
    for n in numbers.values():
        assert fake.file_at(f"baton/issue-{n}", f"src/t{n}.py") == f"print({n})\n"
    print(
        f"\n{len(player.steps)} runs, {player.calls()} API calls, {player.sweeps} sweeps,"
        f" {time.monotonic() - started:.0f} s"
    )


# ~20 s: the epic to implementing, then its first task through developer and reviewer.
@pytest.mark.slow
def test_the_conductor_pass_in_a_dispatched_run_dispatches_the_tasks_it_starts(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    player = EpicPlayer(fake, action, Script())
    epic = to_planning(player, fake)
    numbers = no_dup_tasks(fake, epic)
    player.drain()
    assert status_of(fake, numbers["a"]) == "status:completed"
    asked = {d.inputs.get("issue") for d in fake.dispatches}
    assert {str(numbers["b"]), str(numbers["c"])} <= asked


# ~20 s: six CLI runs to reach the planner (discovery dialogue, approval) at ~1.5-3 s each.
@pytest.mark.slow
def test_a_plan_with_a_cycle_creates_nothing_and_asks_the_planner_again(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    cycle = [
        {"key": "a", "title": "A", "depends_on": ["b"]},
        {"key": "b", "title": "B", "depends_on": ["a"]},
    ]
    player = EpicPlayer(fake, action, Script(cycle))
    epic = to_planning(player, fake, create=False)
    assert fake.sub_issues(epic) == []
    assert fake.blocked_by_edges() == set()
    assert status_of(fake, epic) == "status:planning"
    said = "\n".join(c["body"] for c in fake.comments(epic))
    assert "DAG cycle detected" in said
    refused = player.steps[-1][1]
    assert refused.outputs["agent"] == "planner" or any(
        d.inputs.get("issue") == str(epic) for d in fake.dispatches
    ), refused.stdout


# ~24 s: the planner reached as above, then the failed report and its re-run.
@pytest.mark.slow
def test_a_crash_while_creating_the_tasks_is_mended_by_the_rerun(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    script = Script()
    player = EpicPlayer(fake, action, lambda n, a, r: None if a == "planner" else script(n, a, r))
    epic = to_planning(player, fake, create=False)
    assert status_of(fake, epic) == "status:planning"
    plan = Play({"tasks": DIAMOND})
    player.report(epic, plan)  # the plan is recorded; the epic's next run makes its sub-issues
    assert fake.sub_issues(epic) == []
    # the third of four createIssue fields is refused: the run that makes them fails
    fake.fail_graphql_field("t2", "FORBIDDEN", operation="BatonCreateTasks")
    request = fake.dispatches[-1]
    assert request.inputs.get("issue") == str(epic)
    name, payload = payloads.from_dispatch(fake, request)
    crashed = action.run(name, payload)
    assert crashed.returncode != 0
    assert len(fake.sub_issues(epic)) == 3
    assert status_of(fake, epic) == "status:planning"

    rerun = ok(action.run(name, payload, GITHUB_RUN_ID=str(action.run_id - 1)))  # a re-run
    numbers = no_dup_tasks(fake, epic)
    assert sorted(numbers) == ["a", "b", "c", "d"]
    assert fake.blocked_by_edges() == diamond_edges(numbers)
    assert status_of(fake, epic) == "status:implementing", rerun.stdout
    print(f"\ncrashed run: {len(crashed.calls)} calls, re-run: {len(rerun.calls)} calls")


# ~20 s: the epic to implementing first; then two conductor runs at once in threads.
@pytest.mark.slow
def test_two_racing_conductor_runs_order_each_start_once(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    import dataclasses
    import threading

    player = EpicPlayer(fake, action, Script())
    epic = to_planning(player, fake)
    request = dataclasses.replace(fake.dispatches[0], inputs={"issue": str(epic)})
    name, payload = payloads.from_dispatch(fake, request)
    runners = []
    for i in range(2):
        (tmp_path / f"race{i}").mkdir()
        runners.append(ActionRunner(fake, tmp_path / f"race{i}", config=action.config))
        runners[-1].run_id = 500 + 10 * i
    steps = [None, None]

    def go(i: int) -> None:
        steps[i] = runners[i].run(name, payload)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for step in steps:
        assert step is not None
        ok(step)
    player.settle()
    assert player.problems == []
    assert all(times == 1 for times in player.started.values()), player.started
    assert player.busy_seen <= 2
