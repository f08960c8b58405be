"""What Baton says on an epic: one exact text, and agent text never read as Markdown."""

from __future__ import annotations

import pytest

from baton.core.text import epic as texts
from baton.core.text.messages import SIGNATURE


def test_the_turn_warning_reads_exactly() -> None:
    assert texts.turn_warning(15, 20) == "\n".join(
        [
            "### ⏳ Discovery has taken 15 answers",
            "",
            "At 20 answers the specification is generated anyway. Reply `generate now` to have "
            "it written from what is known, or `continue` to answer more questions.",
            "",
            SIGNATURE,
        ]
    )


def test_resumed_says_whether_a_probe_starts() -> None:
    assert texts.resumed(True).startswith("### ▶️ Resumed: one task starts as a probe")
    assert texts.resumed(False).startswith("### ▶️ Resumed: ready tasks start again")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(texts.breaker_open(["@admin <b>x</b>"], "", [3]), id="breaker reasons"),
        pytest.param(texts.budget_stop("@admin <b>x</b>", "1 agent run"), id="a budget stop"),
        pytest.param(texts.completed(2, None, "@admin <b>x</b>"), id="a pull request problem"),
    ],
)
def test_agent_text_is_escaped(text: str) -> None:
    assert "@admin" not in text
    assert "<b>" not in text


def test_the_specification_is_quoted() -> None:
    text = texts.specification("# Title\n@admin", 2, ["approved"])
    assert "### 📋 Specification, version 2" in text
    assert "\n# Title" not in text and "@admin" not in text
