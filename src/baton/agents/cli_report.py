"""What a coding CLI reports about its own run on standard output: its final reply and what the
run cost, read from the JSON it prints when asked to.

* Claude Code (`--output-format json`, or the last line of `stream-json`): one object with
  `"type": "result"`, the reply in `result`, `usage` (input, cache and output tokens) and
  `total_cost_usd`, the price Claude Code computes for the model it used.
* Codex (`codex exec --json`): one event per line; each `turn.completed` carries the turn's
  `usage` (input and output tokens; cached input is part of input), the reply is the last
  `item.completed` whose item is an `agent_message`. Codex reports no price.
* Gemini CLI (`--output-format json`): one object, the reply in `response`, and
  `stats.models.<model>.tokens.total` for every model it asked (its router included).

Budgets count these figures (`source: "cli"`); the agent's own `cost` claim only where the CLI
reported nothing (`source: "agent"`). What the CLI printed is the agent's output, so hostile:
reading it is linear in its length and never raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.epic import Cost

MAX_TOKENS = 10**12  # the bound of Cost.tokens: a CLI claiming more is not believed
MAX_MONEY = 10**9


@dataclass(frozen=True)
class CliReport:
    """The reply the CLI's envelope holds (None: not a CLI's JSON), the cost it reported, and
    the error it ended with (a refused key: on standard output, where the job log misses it)."""

    reply: str | None = None
    cost: Cost | None = None
    error: str | None = None


def _objects(stdout: str) -> list[dict[str, Any]]:
    """The output as one JSON object (pretty-printed or not), else each line that is one."""
    text = stdout.strip()
    if not text.startswith("{"):
        return []
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        return [whole]
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _count(value: object) -> int:
    """A token count as the CLI wrote it; anything but a non-negative integer counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _claude(result: dict[str, Any]) -> CliReport:
    usage = result.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    tokens = sum(
        _count(usage.get(name))
        for name in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        )
    )
    price = result.get("total_cost_usd")
    money = float(price) if isinstance(price, int | float) and not isinstance(price, bool) else None
    reply = result.get("result") if isinstance(result.get("result"), str) else ""
    error = reply if result.get("is_error") is True and reply else None
    return CliReport(reply=reply, cost=_cost(tokens, money, usage or money), error=error)


def _codex(events: list[dict[str, Any]]) -> CliReport:
    tokens, reported, reply, errors = 0, False, "", []
    for event in events:
        failed = event.get("error")
        message = failed.get("message") if isinstance(failed, dict) else event.get("message")
        if event.get("type") in ("error", "turn.failed") and isinstance(message, str):
            errors.append(message)
        usage = event.get("usage")
        if event.get("type") == "turn.completed" and isinstance(usage, dict):
            tokens += _count(usage.get("input_tokens")) + _count(usage.get("output_tokens"))
            reported = True
        item = event.get("item")
        if (
            event.get("type") == "item.completed"
            and isinstance(item, dict)
            and item.get("type") == "agent_message"
            and isinstance(item.get("text"), str)
        ):
            reply = item["text"]
    error = "\n".join(dict.fromkeys(errors)) or None
    return CliReport(reply=reply or error or "", cost=_cost(tokens, None, reported), error=error)


def _gemini(output: dict[str, Any]) -> CliReport:
    models = output["stats"].get("models") if isinstance(output.get("stats"), dict) else None
    tokens = 0
    for model in models.values() if isinstance(models, dict) else ():
        counts = model.get("tokens") if isinstance(model, dict) else None
        if isinstance(counts, dict):
            tokens += _count(counts.get("total"))
    reply = output.get("response") if isinstance(output.get("response"), str) else ""
    failed = output.get("error")
    message = failed.get("message") if isinstance(failed, dict) else None
    error = message if isinstance(message, str) and message else None
    return CliReport(
        reply=reply or error or "", cost=_cost(tokens, None, isinstance(models, dict)), error=error
    )


def _cost(tokens: int, money: float | None, reported: object) -> Cost | None:
    if not reported:
        return None
    if money is not None and not 0 <= money <= MAX_MONEY:
        money = None
    return Cost(tokens=min(tokens, MAX_TOKENS), money=money, source="cli")


def read_report(stdout: str) -> CliReport:
    """What the CLI reported on standard output; an empty report when it printed no envelope
    Baton knows (plain text, or a result object the agent printed itself)."""
    objects = _objects(stdout)
    for obj in reversed(objects):  # stream-json ends with the result
        if obj.get("type") == "result" and ("usage" in obj or "total_cost_usd" in obj):
            return _claude(obj)
    if any(str(obj.get("type", "")).startswith(("thread.", "turn.")) for obj in objects):
        return _codex(objects)
    if len(objects) == 1 and ("stats" in objects[0] or "session_id" in objects[0]):
        return _gemini(objects[0])
    return CliReport()


def with_cost(result: AgentResult, reported: Cost | None) -> AgentResult:
    """The result carrying what the CLI reported, else the agent's own claim marked as such."""
    if reported is not None:
        return result.model_copy(update={"cost": reported})
    if result.cost is not None:
        return result.model_copy(
            update={"cost": result.cost.model_copy(update={"source": "agent"})}
        )
    return result
