"""An epic in the one scenario format (`sim/scenario/epic.py`): its agents scripted under
`agents:`, Baton's dispatched runs and the agents' jobs drained after every human step, the
epic's expectations, and the one-line errors for steps an epic cannot play."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.errors import InvalidScenario
from baton.sim import demo
from baton.sim.scenario.epic import EpicPlayer, player_for
from baton.sim.scenario.format import Expect, parse_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config

EXAMPLES = Path(__file__).parents[3] / "examples"
EXAMPLE, CONFIG = EXAMPLES / "epic-scenario.yml", EXAMPLES / "epic-config.yml"

SMALL = (
    "people: {maria: maintain}\n"
    "step_minutes: 0\n"
    "agents:\n"
    "  tasks:\n"
    "    - {key: one, title: One}\n"
    "    - {key: two, title: Two, depends_on: [one], reviews: [reject]}\n"
    "steps:\n"
    "  - label: baton:epic\n"
    "    by: maria\n"
)


@pytest.fixture(scope="module")
def played() -> tuple[EpicPlayer, list[str]]:
    said: list[str] = []
    player = demo.epic_player(said.append)
    assert player.play() == 0, player.failures
    return player, "\n".join(said).splitlines()


def test_a_scenario_with_agents_is_played_as_an_epic_and_one_without_as_an_issue() -> None:
    settings = load_config(None)
    epic = player_for(parse_scenario(SMALL, "inline"), settings, lambda _: None)
    issue = player_for(parse_scenario("steps: [{label: x}]", "inline"), settings, print)
    assert type(epic) is EpicPlayer and type(issue) is Player


def test_the_epic_keeps_its_invariants(played: tuple[EpicPlayer, list[str]]) -> None:
    player, _ = played
    assert player._problems(Expect(state="done", sub_issues=6, max_in_progress=2)) == []
    assert 0 < player.max_in_progress <= 2
    assert set(player.states().values()) == {"completed"}
    retries = {"api": 1}  # the one /retry; every other task starts once
    keys = [t.key for t in player.agents.tasks]
    assert player.starts() == {key: 1 + retries.get(key, 0) for key in keys}


def test_the_epic_tells_each_branch_commit_and_merge_as_github_holds_it(
    played: tuple[EpicPlayer, list[str]],
) -> None:
    player, lines = played
    gh, git = player.gh, player.gh.git
    told = [line.strip() for line in lines if line.strip().startswith("GitHub: ")]
    created = [re.fullmatch(r"GitHub: branch (\S+) created from (\S+) at (\w+)", t) for t in told]
    branches = {m[1]: (m[2], m[3]) for m in created if m}
    first = next(oid for oid, c in git.commits.items() if not c.parents)
    assert branches["baton/issue-1"] == ("main", first[:7])
    tasks = {n: player.record(n) for n in gh.sub_issues_of(player.number)}
    for number, record in tasks.items():
        assert record is not None and record.work is not None
        assert branches[record.work.branch][0] == "baton/issue-1", number
    # Every commit Baton made is told once, by its own id, and nothing else is.
    ours = {oid for oid, c in git.commits.items() if c.author == gh.bot_login}
    pull = gh.pull_requests[8]
    named = [re.search(r" (?:→|as) (\w{7})\b", t) for t in told]
    ids = [m[1] for m in named if m]
    assert sorted(ids) == sorted(oid[:7] for oid in {*ours, pull.merge_commit or ""})
    merges = [
        re.fullmatch(r"GitHub: (\S+) merged into baton/issue-1 as (\w+) by (\S+)", t) for t in told
    ]
    merged = {m[1]: m[2] for m in merges if m}
    assert set(merged) == {r.work.branch for r in tasks.values() if r and r.work}
    for record in tasks.values():
        assert record is not None and record.work is not None
        commit = next(
            c for oid, c in git.commits.items() if oid.startswith(merged[record.work.branch])
        )
        assert commit.parents[1] == record.work.head
    assert told[-2:] == [
        "GitHub: pull request #8 opened as a draft from baton/issue-1 and marked ready for review",
        f"GitHub: pull request #8 merged into main as {(pull.merge_commit or '')[:7]}",
    ]
    assert pull.merged and git.head("main") == pull.merge_commit


def test_the_merge_of_the_epic_s_pull_request_finishes_it_along_its_route_not_by_force(
    played: tuple[EpicPlayer, list[str]],
) -> None:
    player, _ = played
    record = player.record()
    assert record is not None and record.state == "done"
    last = record.history[-1]
    assert (last.from_state, last.trigger, last.actor, last.forced) == (
        "completing",
        "merge",
        "maria",
        False,
    )


def test_an_epic_finished_by_an_approval_keeps_its_pull_request_open(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace(
        "  - merge: {by: maria}\n", "  - comment: approved\n    by: maria\n"
    )
    said: list[str] = []
    player = player_for(parse_scenario(text, "inline"), load_config(CONFIG), said.append)
    assert player.play() == 1
    assert player.failures == ["the pull request is open, expected merged"]
    assert player.gh.pull_requests[6].merged is False
    assert "\n".join(said).count("maria on #1: approved") == 2  # the specification, the epic
    assert (player.work() or "").endswith("; pull request #6 open")


def test_a_comment_step_may_name_a_task_whose_sub_issue_it_goes_to(
    played: tuple[EpicPlayer, list[str]],
) -> None:
    player, lines = played
    assert (
        "maria on #3: /retry Validate the role names against the model's enum before saving."
        in lines
    )
    retried = player.record(3)
    assert retried is not None and retried.task is not None and retried.task.key == "api"


def test_a_step_naming_a_task_not_yet_planned_is_refused_in_one_line() -> None:
    text = SMALL + "  - comment: /retry\n    task: two\n"
    player = player_for(parse_scenario(text, "inline"), load_config(None), lambda _: None)
    with pytest.raises(InvalidScenario) as caught:
        player.play()
    assert str(caught.value) == "step 2: task two has no sub-issue of #1 yet"


@pytest.mark.parametrize(
    ("steps", "error"),
    [
        (
            "  - comment: /retry\n    task: three\n",
            "inline: Value error, step 2: no task 'three' in `agents.tasks`",
        ),
        (
            "  - close: true\n    task: one\n",
            "inline: Value error, step 2: `task` goes with `comment`, not `close`",
        ),
        (
            "  - report: {summary: done}\n",
            "inline: Value error, step 2: with `agents:` the agents report by themselves: no "
            "`report` step",
        ),
    ],
)
def test_a_step_an_epic_cannot_play_is_refused_in_one_line(steps: str, error: str) -> None:
    with pytest.raises(InvalidScenario) as caught:
        parse_scenario(SMALL + steps, "inline")
    assert str(caught.value) == error


@pytest.mark.parametrize(
    ("steps", "error"),
    [
        (
            "steps:\n  - comment: /retry\n    task: one\n",
            "inline: Value error, step 1: `task: one` needs `agents:` with a plan",
        ),
        (
            "steps:\n  - expect: {sub_issues: 2}\n",
            "inline: Value error, step 1: `expect.sub_issues` needs `agents:` (an epic)",
        ),
        (
            "agents: {tasks: [{key: a, title: A}, {key: a, title: B}]}\nsteps: []\n",
            "inline: agents: Value error, task 'a' is planned twice",
        ),
        (
            "agents: {tasks: []}\nsteps: []\n",
            "inline: agents.tasks: List should have at least 1 item after validation, not 0",
        ),
    ],
)
def test_epic_keys_without_an_epic_or_a_plan_are_refused_in_one_line(
    steps: str, error: str
) -> None:
    with pytest.raises(InvalidScenario) as caught:
        parse_scenario(steps, "inline")
    assert str(caught.value) == error


def test_simulate_plays_an_epic_scenario_with_its_expectations_met() -> None:
    result = CliRunner().invoke(cli, ["simulate", str(EXAMPLE), "--config", str(CONFIG)])
    assert result.exit_code == 0, result.output
    assert "4 tasks, 15 agent runs, 200 API calls, at most 2 tasks in progress at once." in (
        result.output
    )


def test_simulate_fails_a_wrong_epic_expectation(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.yml"
    wrong.write_text(
        EXAMPLE.read_text()
        .replace("api: completed", "api: failed")
        .replace("sub_issues: 4", "sub_issues: 5")
        .replace("max_in_progress: 2", "max_in_progress: 1")
    )
    result = CliRunner().invoke(cli, ["simulate", str(wrong), "--config", str(CONFIG)])
    assert result.exit_code == 1
    assert "✗ task api is completed, expected failed" in result.output
    assert "✗ 4 sub-issues, expected 5" in result.output
    assert "✗ 2 tasks were active at once, at most 1 expected" in result.output
