"""An epic's rules (`rules/epic/route.py`): the `feature-epic` preset the rules follow, as
docs/epics.md draws it."""

from __future__ import annotations

import re
from pathlib import Path

from baton.workflow.graph import to_mermaid
from support.epic_rules import EPIC

EPICS_DOC = Path(__file__).resolve().parents[4] / "docs" / "epics.md"


def test_the_epics_doc_shows_the_generated_feature_epic_diagram() -> None:
    text = EPICS_DOC.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- epic-diagram:start -->\n```mermaid\n(.*?)\n```\n<!-- epic-diagram:end -->",
        text,
        re.S,
    )
    assert match, "docs/epics.md keeps the epic diagram between its markers"
    assert match.group(1) == to_mermaid(EPIC.workflow), (
        "regenerate it with `baton graph --workflow feature-epic`"
    )
