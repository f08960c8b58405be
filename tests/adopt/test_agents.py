"""Each agent `baton init` offers installs, runs and takes its key as examples/agents/ shows."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from baton.adopt.agents import AGENTS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_the_agent_matches_its_example(agent: str) -> None:
    setup = AGENTS[agent]
    example = yaml.safe_load((EXAMPLES / f"{setup.profile}.yml").read_text(encoding="utf-8"))
    assert example["with"]["agent-setup"] == setup.ready.setup
    assert example["secrets"] == {setup.passed_as: f"${{{{ secrets.{setup.secret} }}}}"}
