"""The agents `baton init` sets up: each a ready profile (its install line and command line,
`workflow.agent_profiles`) and the secret holding its key, named as examples/agents/*.yml pass
it to the reusable workflow (a test keeps the two equal)."""

from __future__ import annotations

from dataclasses import dataclass

from baton.workflow.agent_profiles import READY, Ready


@dataclass(frozen=True)
class AgentSetup:
    """One agent: its ready profile, the repository secret with its key, and the name the
    reusable workflow takes that key under."""

    profile: str
    secret: str
    passed_as: str

    @property
    def ready(self) -> Ready:
        return READY[self.profile]


AGENTS: dict[str, AgentSetup] = {
    "claude": AgentSetup("claude-code", "ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    "codex": AgentSetup("codex", "OPENAI_API_KEY", "CODEX_API_KEY"),
    "gemini": AgentSetup("gemini", "GEMINI_API_KEY", "GEMINI_API_KEY"),
}
DEFAULT_AGENT = "claude"  # the caller's own `with:` (caller.yml) is Claude Code's
