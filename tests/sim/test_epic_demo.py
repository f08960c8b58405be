"""`baton demo --epic` and `baton simulate --epic`: a whole epic in memory."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from baton.cli import cli
from baton.sim.epic_demo import EpicPlayer, Expect, demo_script

EXAMPLE = Path(__file__).parents[2] / "examples" / "epic-scenario.yml"


def test_the_epic_demo_tells_the_whole_story() -> None:
    result = CliRunner().invoke(cli, ["demo", "--epic"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "the circuit breaker opened" in out
    assert "The circuit breaker is open after 3 task failures in a row" in out
    assert "maria on #1: /resume" in out
    assert "/retry Validate" in out
    assert "maria merges pull request #8 (baton/issue-1 into main)" in out
    assert "Final state: done." in out
    assert "The work: baton/issue-1 at " in out
    assert "```mermaid" not in out
    assert out.endswith("\nThe plan as a Mermaid diagram: `baton demo --epic --diagram`.\n")
    assert "at most 2 tasks in progress at once" in out


def test_the_breaker_lists_each_rejection_once_numbered_per_task() -> None:
    """Three rejected reviews opened it, two of them the api task's: each is its own line."""
    out = CliRunner().invoke(cli, ["demo", "--epic"]).output
    start = out.index("The circuit breaker is open")
    assert out[start:].splitlines()[:5] == [
        "The circuit breaker is open after 3 task failures in a row (a rejected review or a "
        "failed implementation is one):",
        "  - task api (#3): failure 1",
        "  - task ui (#4): failure 1",
        "  - task api (#3): failure 2",
        "",
    ]


def test_the_epic_demo_draws_its_plan_only_with_diagram() -> None:
    drawn = CliRunner().invoke(cli, ["demo", "--epic", "--diagram"])
    assert drawn.exit_code == 0, drawn.output
    plan = drawn.output.split("\nThe plan:\n\n", 2)[-1]
    assert plan.startswith("```mermaid\ngraph TD\n") and plan.endswith("```\n")


def test_the_epic_keeps_its_invariants() -> None:
    player = EpicPlayer(demo_script(), lambda _: None)
    player.play()
    assert player.check(Expect(state="done", sub_issues=6, max_in_progress=2)) == []
    assert 0 < player.max_in_progress <= 2
    assert set(player.states().values()) == {"completed"}
    retries = {"api": 1}  # the one /retry; every other task starts once
    assert player.starts() == {t.key: 1 + retries.get(t.key, 0) for t in demo_script().tasks}


def _played() -> tuple[EpicPlayer, list[str]]:
    said: list[str] = []
    player = EpicPlayer(demo_script(), said.append)
    player.play()
    return player, "\n".join(said).splitlines()


def test_the_epic_demo_tells_each_branch_commit_and_merge_as_github_holds_it() -> None:
    player, lines = _played()
    gh, git = player.gh, player.gh.git
    told = [line.strip() for line in lines if line.strip().startswith("GitHub: ")]
    created = [re.fullmatch(r"GitHub: branch (\S+) created from (\S+) at (\w+)", t) for t in told]
    branches = {m[1]: (m[2], m[3]) for m in created if m}
    first = next(oid for oid, c in git.commits.items() if not c.parents)
    assert branches["baton/issue-1"] == ("main", first[:7])
    epic = player.record()
    assert epic is not None and epic.work is not None and epic.work.branch == "baton/issue-1"
    tasks = {n: player.record(n) for n in gh.sub_issues_of(player.epic)}
    for number, record in tasks.items():
        assert record is not None and record.work is not None
        assert branches[record.work.branch][0] == "baton/issue-1", number
    # Every commit Baton made is told once, by its own id, and nothing else is.
    ours = {oid for oid, c in git.commits.items() if c.author == gh.bot_login}
    pull = gh.pull_requests[8]
    named = [re.search(r" (?:→|as) (\w{7})\b", t) for t in told]
    ids = [m[1] for m in named if m]
    assert sorted(ids) == sorted(oid[:7] for oid in {*ours, pull.merge_commit or ""})
    # Each task's branch merged into the epic's: a merge commit whose second parent is its head.
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
    # The epic's pull request: opened when every task is done, merged by the approver.
    assert told[-2:] == [
        "GitHub: pull request #8 opened as a draft from baton/issue-1 and marked ready for review",
        f"GitHub: pull request #8 merged into main as {(pull.merge_commit or '')[:7]}",
    ]
    assert pull.merged and git.head("main") == pull.merge_commit
    assert git.commits[pull.merge_commit or ""].parents[1] == git.head("baton/issue-1")


def test_the_merge_of_the_epic_s_pull_request_finishes_it_along_its_route_not_by_force() -> None:
    player, _ = _played()
    record = player.record()

    assert record is not None and record.state == "done"
    last = record.history[-1]
    assert (last.from_state, last.trigger, last.actor, last.forced) == (
        "completing",
        "merge",
        "maria",
        False,
    )


def test_an_epic_finished_by_an_approval_keeps_its_pull_request_open() -> None:
    script = demo_script().model_copy(update={"finish": "approve"})
    said: list[str] = []
    player = EpicPlayer(script, said.append)
    player.play()

    assert player.check(Expect(state="done")) == []
    assert player.gh.pull_requests[8].merged is False
    assert "\n".join(said).count("maria on #1: approved") == 2  # the specification, the epic
    assert (player.work() or "").endswith("; pull request #8 open")


def test_simulate_epic_passes_its_expectations() -> None:
    result = CliRunner().invoke(cli, ["simulate", "--epic", str(EXAMPLE)])
    assert result.exit_code == 0, result.output


def test_simulate_epic_fails_a_wrong_expectation(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.yml"
    wrong.write_text(
        EXAMPLE.read_text()
        .replace("api: completed", "api: failed")
        .replace("sub_issues: 4", "sub_issues: 5")
    )
    result = CliRunner().invoke(cli, ["simulate", "--epic", str(wrong)])
    assert result.exit_code == 1
    assert "task api is completed, expected failed" in result.output
    assert "4 sub-issues, expected 5" in result.output


def test_the_epics_doc_quotes_the_epic_demo_as_it_runs() -> None:
    """Every line of docs/epics.md's abbreviated run is printed by the demo, in that order."""
    readme = (Path(__file__).parents[2] / "docs" / "epics.md").read_text()
    section = readme[readme.index("### baton demo --epic") :]
    block = section[section.index("```\n") + 4 : section.index("\n```", section.index("```\n"))]
    quoted = [line for line in block.splitlines()[1:] if line not in ("…", "")]
    printed = CliRunner().invoke(cli, ["demo", "--epic"]).output.splitlines()
    at = 0
    for line in quoted:
        assert line in printed[at:], line
        at = printed.index(line, at) + 1
