"""Which agent each role runs: the `agents:` section of `.github/baton.yml`.

A profile says how to install and run one agent (setup, command, model, tools, timeout); a
role (the workflow's agent name: pm, analyst, developer, reviewer ...) names the profile it
uses, and a role named by none runs `default`, else the ready profile the reusable workflow's
`agent` input names, else the `agent-command` input: one agent for every role stays the
one-line default; a state with `proof: green` (with `tests:`) runs the built-in `tests`
profile instead, whatever its role names. Ready profiles for the three CLIs Baton's suite runs
(`claude-code`, `claude-code-read-only`, `codex`, `gemini`) are the install and command lines of
examples/agents/*.yml, each CLI at the version the suite pins, and tests keep them equal.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from baton.errors import InvalidSetting
from baton.workflow.durations import Duration

PROFILE_NAME = r"^[a-z0-9][a-z0-9_-]{0,39}$"
# The built-in profile of a `proof: green` state (with `tests:`): `baton verify` on Baton's last
# commit instead of a model; no install, no key. It is chosen by the state, never by a role.
TESTS_PROFILE = "tests"


@dataclass(frozen=True)
class Ready:
    """A ready profile: the CLI's install line and its command line."""

    setup: str
    command: str
    tools_flag: str | None = None  # the flag whose list `tools` replaces (Claude Code only)


# Each install line pins the CLI version the suite runs (tests/agents/clis/package.json and its
# lock; tests/workflow/test_agent_profiles.py keeps the two equal): examples/agents/README.md
# says how to move them.
_CLAUDE_SETUP = "npm install -g @anthropic-ai/claude-code@2.1.332"
READY: dict[str, Ready] = {
    "claude-code": Ready(
        _CLAUDE_SETUP,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p --output-format json "
        '--permission-mode acceptEdits --allowedTools "Bash,Read,Edit,Write,Glob,Grep" '
        '--append-system-prompt "When you are done, write the result JSON described at the '
        'end of the briefing to the file $BATON_RESULT_FILE."',
        "--allowedTools",
    ),
    "claude-code-read-only": Ready(
        _CLAUDE_SETUP,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p --output-format json "
        '--tools "Read,Glob,Grep" --append-system-prompt "When you are done, end your reply '
        'with the result JSON described at the end of the briefing."',
        "--tools",
    ),
    "codex": Ready(
        "npm install -g @openai/codex@0.171.0",
        'codex exec --json --sandbox workspace-write "Do the task in the briefing on standard '
        "input. When you are done, write the result JSON it describes to the file "
        '$BATON_RESULT_FILE."',
    ),
    "gemini": Ready(
        "npm install -g @google/gemini-cli@0.61.0",
        "gemini --output-format json --skip-trust --yolo --include-directories "
        '"$(dirname "$BATON_RESULT_FILE")" -p "Do the task in the briefing on standard input. '
        'When you are done, write the result JSON it describes to the file $BATON_RESULT_FILE."',
    ),
}


class AgentProfile(BaseModel):
    """One agent: a ready profile it starts from (`uses`) or its own command line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uses: str | None = Field(default=None, description="A ready profile: " + ", ".join(READY) + ".")
    command: str | None = Field(
        default=None,
        min_length=1,
        description="The command line (as the `agent-command` input); replaces uses' command.",
    )
    setup: str | None = Field(
        default=None, description="Shell commands that install the agent; default: uses' setup."
    )
    model: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}$",
        description="Added to the command line as `--model NAME` (all three CLIs take it).",
    )
    tools: list[str] | None = Field(
        default=None,
        description="Claude Code's tools, replacing the list of the ready profile's "
        "--allowedTools (claude-code) or --tools (claude-code-read-only).",
    )
    timeout: Duration | None = Field(
        default=None, description="How long `baton agent` lets this agent run."
    )

    @model_validator(mode="after")
    def _runs_something(self) -> AgentProfile:
        if self.uses is not None and self.uses not in READY:
            raise InvalidSetting(
                f"unknown ready agent profile {self.uses!r}; the ready ones are: "
                + ", ".join(READY)
            )
        if self.uses is None and self.command is None:
            raise InvalidSetting("an agent profile needs `uses` (a ready profile) or `command`")
        if self.tools is not None:
            ready = READY[self.uses] if self.uses else None
            if ready is None or ready.tools_flag is None or self.command is not None:
                raise InvalidSetting(
                    "`tools` is for a profile that uses claude-code or claude-code-read-only "
                    "without its own command; elsewhere, name the tools in `command`"
                )
            if not all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_*():-]*", tool) for tool in self.tools):
                raise InvalidSetting(f"tools are names such as Read or Bash: {self.tools}")
        return self


class Agents(BaseModel):
    """Agent profiles, the profile each role uses, and the one for roles not named."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profiles: dict[str, AgentProfile] = Field(
        default_factory=dict, description="Profiles by name (a ready profile's name is taken)."
    )
    roles: dict[str, str] = Field(
        default_factory=dict, description="The profile each role (the workflow's agent) uses."
    )
    default: str | None = Field(
        default=None,
        description="The profile of every role not in roles; none: the workflow's `agent` "
        "input, else its agent-command.",
    )

    @model_validator(mode="after")
    def _names_are_known(self) -> Agents:
        for name in self.profiles:
            if not re.fullmatch(PROFILE_NAME, name):
                raise InvalidSetting(f"agent profile names are like claude-fast: {name!r}")
        named_tests = TESTS_PROFILE in {*self.profiles, *self.roles.values(), self.default}
        if named_tests:
            raise InvalidSetting(
                f"{TESTS_PROFILE!r} is Baton's built-in profile of a state with `proof: green` "
                "(it runs `baton verify`, no model): it is chosen by the state, not named here"
            )
        known = sorted({*self.profiles, *READY})
        named = [(f"agents.roles.{role}", name) for role, name in self.roles.items()]
        if self.default is not None:
            named.append(("agents.default", self.default))
        unknown = [f"{where}: {name!r}" for where, name in named if name not in known]
        if unknown:
            raise InvalidSetting(
                "unknown agent profile ("
                + "; ".join(unknown)
                + "); the profiles are: "
                + ", ".join(known)
            )
        return self


@dataclass(frozen=True)
class ResolvedAgent:
    """What the agent job runs for one role."""

    profile: str
    command: str
    setup: str
    timeout: float | None  # seconds; None: the agent-timeout input's


def resolve(agents: Agents, role: str | None) -> ResolvedAgent | None:
    """The agent the role runs: its profile, else the default one; None: the agent-command
    input runs (no profile is named for it)."""
    name = agents.roles.get(role or "", agents.default)
    if name is None:
        return None
    profile = agents.profiles.get(name) or AgentProfile(uses=name)
    ready = READY[profile.uses] if profile.uses else None
    command = profile.command or (ready.command if ready else "")
    if profile.tools is not None and ready is not None and ready.tools_flag:
        listed = shlex.quote(",".join(profile.tools))
        flag = re.escape(ready.tools_flag)
        command = re.sub(rf'{flag} "[^"]*"', lambda _: f"{ready.tools_flag} {listed}", command)
    if profile.model:
        command += f" --model {shlex.quote(profile.model)}"
    setup = profile.setup if profile.setup is not None else (ready.setup if ready else "")
    timeout = profile.timeout.total_seconds() if profile.timeout is not None else None
    return ResolvedAgent(profile=name, command=command, setup=setup, timeout=timeout)
