"""`baton demo --epic` and `baton simulate --epic`: a whole epic in memory."""

from __future__ import annotations

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
    assert "The circuit breaker is open:" in out
    assert "maria on #1: /resume" in out
    assert "/retry Validate" in out
    assert "Final state: done." in out
    assert "```mermaid" in out and "graph TD" in out
    assert "at most 2 tasks in progress at once" in out


def test_the_epic_keeps_its_invariants() -> None:
    player = EpicPlayer(demo_script(), lambda _: None)
    player.play()
    assert player.check(Expect(state="done", sub_issues=6, max_in_progress=2)) == []
    assert 0 < player.max_in_progress <= 2
    assert set(player.states().values()) == {"completed"}
    retries = {"api": 1}  # the one /retry; every other task starts once
    assert player.starts() == {t.key: 1 + retries.get(t.key, 0) for t in demo_script().tasks}


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
