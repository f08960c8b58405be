"""A scenario played to its end, for the tests of what the player reads, says and checks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from baton.sim.scenario.format import parse_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config

WORKED = (
    "people: {maria: maintain}\n"
    "steps:\n"
    "  - label: status:implementing\n"
    "    by: maria\n"
    "  - report:\n"
    "      agent: developer\n"
    "      confidence: 0.95\n"
    "      summary: Add the export\n"
    '      changes: {src/export.py: "def to_csv(): ...\\n"}\n'
)


@pytest.fixture
def played() -> Callable[[str], Player]:
    """Plays `text` (a scenario) and hands back its player."""

    def play(text: str) -> Player:
        player = Player(parse_scenario(text, "inline"), load_config(None), lambda _: None)
        player.play()
        return player

    return play


@pytest.fixture
def worked(played: Callable[[str], Player]) -> Player:
    """An issue whose developer reported one file: a branch, Baton's commit, a draft."""
    return played(WORKED)
