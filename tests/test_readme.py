"""The README's promises: its quick start and its diagram stay true."""

from __future__ import annotations

import re
from pathlib import Path

from baton.workflow.graph import to_mermaid
from baton.workflow.model import load_preset

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_diagram_is_the_generated_default_workflow() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- diagram:start -->\n```mermaid\n(.*?)\n```\n<!-- diagram:end -->", text, re.S
    )
    assert match, "the README keeps the diagram between its markers"
    assert match.group(1) == to_mermaid(load_preset("issue-lifecycle")), (
        "regenerate it with `baton graph --workflow issue-lifecycle`"
    )


def test_the_quick_start_is_two_commands_demo_then_tests() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n\n```bash\n(.*?)\n```", text, re.S)
    assert block
    commands = block.group(1).splitlines()
    assert len(commands) == 2
    assert commands[0].endswith("baton demo") and "pip install -e '.[dev]'" in commands[0]
    assert commands[1] == ".venv/bin/python -m pytest"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "\n.venv/bin/python -m pytest\n" in ci
