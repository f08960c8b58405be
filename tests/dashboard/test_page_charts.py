"""Every chart the page draws, checked by Mermaid's own parser (npm `mermaid`, test-only, run
under node with jsdom: tests/dashboard/mermaid). Without it installed the module is skipped;
`.ci/run` installs it and sets BATON_REQUIRE_MERMAID=1, so there it fails instead."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from baton.dashboard.figures import figures
from baton.dashboard.model import Worked
from baton.dashboard.page import render
from baton.sim.scenario.format import demo_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config
from baton.workflow.model import load_preset
from support.records import at, record, work

PARSER = Path(__file__).parent / "mermaid"
CHART = re.compile(r"```mermaid\n(.*?)```", re.S)
LIFECYCLE = load_preset("issue-lifecycle")


def _parser_or_skip() -> None:
    if shutil.which("node") and (PARSER / "node_modules" / "mermaid").is_dir():
        return
    if os.environ.get("BATON_REQUIRE_MERMAID"):
        pytest.fail("Mermaid is not installed (npm ci --prefix tests/dashboard/mermaid)")
    pytest.skip(
        "Mermaid is not installed: run `npm ci --prefix tests/dashboard/mermaid`",
        allow_module_level=True,
    )


_parser_or_skip()


def parse(charts: list[str]) -> list[dict[str, str]]:
    done = subprocess.run(
        ["node", str(PARSER / "parse.mjs")],
        input=json.dumps(charts),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers: list[dict[str, str]] = json.loads(done.stdout)
    return answers


def demo_page() -> str:
    settings = load_config(None)
    player = Player(demo_scenario(), settings, lambda _: None)
    player.play()
    found = player.record()
    assert found is not None
    item = Worked(1, "Export the report as CSV", True, found)
    wf = {LIFECYCLE.name: LIFECYCLE}
    return render(figures([item], [], wf, now=player.gh.now, window_days=90, bot_login="b"))


def many_page() -> str:
    moves = [
        (0, "received", "maria", "entry"),
        (5, "implementing", "pm", "report"),
        (10, "running_tests", "developer", "report"),
    ]
    worked = [
        Worked(n, f"@x #{n} | <b>", True, record(n, moves, work=work(n + 2000, "merged")))
        for n in range(1, 1001)
    ]
    wf = {LIFECYCLE.name: LIFECYCLE}
    return render(figures(worked, [], wf, now=at(10_000), window_days=90, bot_login="b"))


def test_the_parser_refuses_a_broken_chart() -> None:
    [answer] = parse(['pie showData\n    title T\n    "a" : x'])
    assert "error" in answer


def test_every_chart_of_the_demo_and_of_a_thousand_issues_parses() -> None:
    charts = CHART.findall(demo_page()) + CHART.findall(many_page())
    answers = parse(charts)
    assert [a.get("type", a.get("error")) for a in answers] == ["pie", "xychart", "gantt"] * 2
