"""The JSON an agent hands back (`baton report --result FILE`), validated before use."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from baton.core.model import handback
from baton.core.model.epic import MAX_SPEC, Cost, TaskSpec
from baton.errors import InvalidAgentResult
from baton.workflow.model import AgentStatus

MAX_TEXT = 20_000
MAX_ITEMS = 50


class AgentResult(BaseModel):
    """What one agent run concluded; `next_state` is only a proposal the workflow may refuse."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    # Strict types: "0.9" or true for a confidence, or 3 for a summary, is an agent's mistake to
    # report back, not a value to guess at.
    status: AgentStatus = Field(strict=False)
    confidence: float = Field(ge=0.0, le=1.0)
    summary: str = Field(default="", max_length=MAX_TEXT)
    issues_found: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    questions: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    next_state: str | None = None
    # Epics (all optional): the discovery agent's categories covered and its specification, the
    # planning agent's tasks, a reviewer's severity, and what the attempt cost.
    categories: list[str] = Field(default_factory=list, max_length=10)
    spec: str | None = Field(default=None, max_length=MAX_SPEC)
    tasks: list[TaskSpec] | None = Field(default=None, max_length=100)
    severity: Literal["low", "medium", "high"] | None = None
    cost: Cost | None = None

    @field_validator("issues_found", "questions")
    @classmethod
    def _items_are_bounded(cls, items: list[str]) -> list[str]:
        cleaned = [item.strip() for item in items if item.strip()]
        for item in cleaned:
            if len(item) > MAX_TEXT:
                raise ValueError(f"an item is {len(item)} characters long; at most {MAX_TEXT}")
        return cleaned

    @field_validator("next_state")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


def parse_agent_result(text: str) -> AgentResult:
    """Parse and validate a result; the message says what to fix."""
    return handback.parse(text, AgentResult, "the agent result", InvalidAgentResult)
