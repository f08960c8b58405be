"""What a CLI reports of its own run on standard output: the reply in its JSON envelope, the
tokens and money it counted (`source: "cli"`), and the error it ended with; the agent's own
claim only where the CLI reports nothing (`source: "agent"`). The envelopes are the ones the
pinned CLIs printed against the scripted models of test_real_clis.py, cut to what is read."""

from __future__ import annotations

import json
import time

import pytest

from baton.agents.cli_report import CliReport, read_report, with_cost
from baton.core.model.agent_result import AgentResult
from baton.core.model.epic import Cost
from baton.workflow.model import AgentStatus

RESULT = '{"status": "success", "confidence": 0.9}'
CLAUDE = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": f"Done. {RESULT}",
    "total_cost_usd": 0.0016,
    "usage": {
        "input_tokens": 200,
        "cache_creation_input_tokens": 30,
        "cache_read_input_tokens": 70,
        "output_tokens": 40,
        "server_tool_use": {"web_search_requests": 0},
    },
}
CODEX = [
    {"type": "thread.started", "thread_id": "t"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "i0", "type": "command_execution"}},
    {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": RESULT}},
    {
        "type": "turn.completed",
        "usage": {"input_tokens": 200, "cached_input_tokens": 150, "output_tokens": 40},
    },
]
CODEX_REFUSED = [
    {"type": "thread.started", "thread_id": "t"},
    {"type": "error", "message": "unexpected status 401 Unauthorized"},
    {"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}},
]
GEMINI = {
    "session_id": "s",
    "response": f"Done. {RESULT}",
    "stats": {
        "models": {
            "gemini-flash-lite": {"tokens": {"prompt": 100, "candidates": 20, "total": 120}},
            "gemini-flash": {"tokens": {"prompt": 200, "candidates": 40, "total": 240}},
        },
        "tools": {"totalCalls": 1},
    },
}


def lines(events: list[dict[str, object]]) -> str:
    return "".join(json.dumps(event) + "\n" for event in events)


CASES = {
    "Claude Code's json envelope": (
        json.dumps(CLAUDE),
        CliReport(f"Done. {RESULT}", Cost(tokens=340, money=0.0016, source="cli")),
    ),
    "Claude Code's stream-json ends with the same result": (
        lines([{"type": "system", "subtype": "init"}, {"type": "assistant"}, CLAUDE]),
        CliReport(f"Done. {RESULT}", Cost(tokens=340, money=0.0016, source="cli")),
    ),
    "Claude Code's error result is its error": (
        json.dumps({**CLAUDE, "is_error": True, "result": "API Error: 401"}),
        CliReport("API Error: 401", Cost(tokens=340, money=0.0016, source="cli"), "API Error: 401"),
    ),
    "Codex's event stream: turn usage, no price": (
        lines(CODEX + CODEX[-1:]),
        CliReport(RESULT, Cost(tokens=480, source="cli")),
    ),
    "Codex refused: the error is the reply and no spend is reported": (
        lines(CODEX_REFUSED),
        CliReport("unexpected status 401 Unauthorized", None, "unexpected status 401 Unauthorized"),
    ),
    "Gemini's pretty-printed json: every model's total, its router's too": (
        json.dumps(GEMINI, indent=2),
        CliReport(f"Done. {RESULT}", Cost(tokens=360, source="cli")),
    ),
    "plain text: no envelope": (f"Done.\n{RESULT}\n", CliReport()),
    "the agent's own result object is no envelope": (RESULT, CliReport()),
    "nothing": ("", CliReport()),
}


@pytest.mark.parametrize("stdout,expected", CASES.values(), ids=CASES.keys())
def test_what_each_cli_reports(stdout: str, expected: CliReport) -> None:
    assert read_report(stdout) == expected


HOSTILE = {
    "token counts that are not counts": {
        **CLAUDE,
        "usage": {"input_tokens": -5, "output_tokens": True, "cache_read_input_tokens": "9"},
        "total_cost_usd": "lots",
    },
    "a price beyond belief": {**CLAUDE, "total_cost_usd": 1e300},
    "counts beyond belief": {**CLAUDE, "usage": {"input_tokens": 10**30}},
    "stats that are not a mapping": {"session_id": "s", "stats": {"models": [1, 2]}},
    "a reply that is not text": {**GEMINI, "response": {"text": "x"}},
}


@pytest.mark.parametrize("envelope", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_envelope_reads_as_bounded_figures_and_never_raises(
    envelope: dict[str, object],
) -> None:
    report = read_report(json.dumps(envelope))
    if report.cost is not None:
        assert Cost.model_validate(report.cost.model_dump()) == report.cost
    assert isinstance(report.reply, str)


def test_64_kb_of_nested_brackets_and_broken_lines_is_read_in_bounded_time() -> None:
    hostile = ("{" * 2000 + "\n" + '{"type": "turn.completed", "usage": [' * 500 + "\n") * 20
    started = time.process_time()
    report = read_report(hostile[: 64 * 1024])
    assert time.process_time() - started < 2.0
    assert report == CliReport()


def result(cost: Cost | None = None) -> AgentResult:
    return AgentResult(status=AgentStatus.success, confidence=0.9, cost=cost)


def test_what_the_cli_reported_outranks_the_agent_s_claim() -> None:
    cli = Cost(tokens=480, source="cli")
    assert with_cost(result(Cost(tokens=1, money=0.01)), cli).cost == cli


def test_the_agent_s_claim_stands_only_where_the_cli_reported_nothing_marked_as_its_own() -> None:
    claimed = with_cost(result(Cost(tokens=1, money=0.01, source="cli")), None).cost
    assert claimed == Cost(tokens=1, money=0.01, source="agent")
    assert with_cost(result(), None).cost is None
