"""The page drawn once in a real browser: headless Chromium (the distribution's package) with
Mermaid, as tests/dashboard/browser.py does it for docs/dashboard.png. Skipped without Chromium
or Mermaid; `.ci/run` installs both and sets BATON_REQUIRE_CHROMIUM=1, so there it fails."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from baton.dashboard.commands import demo_page
from baton.sim.scenario.format import demo_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config

from .browser import MERMAID, chromium, drawn_dom

if chromium() is None or not MERMAID.is_file():
    if os.environ.get("BATON_REQUIRE_CHROMIUM"):
        pytest.fail("Chromium or Mermaid is missing (apt-get install chromium; npm ci)")
    pytest.skip("Chromium or Mermaid is not installed", allow_module_level=True)


def test_the_demos_page_is_drawn_with_its_three_charts(tmp_path: Path) -> None:
    settings = load_config(None)
    player = Player(demo_scenario(), settings, lambda _: None)
    player.play()
    dom = drawn_dom(demo_page(player.gh, settings), tmp_path)
    assert 'data-drawn="yes"' in dom
    roles = re.findall(r'<svg [^>]*aria-roledescription="([a-z]+)"', dom)
    assert roles == ["pie", "xychart", "gantt"]
    assert "Syntax error" not in dom
    # The Gantt's axis reads the path's own hours (dates in seconds drew 1970's).
    assert ">09:05<" in dom and ">10:25<" in dom
