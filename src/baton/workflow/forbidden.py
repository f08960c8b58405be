"""The paths no agent's changeset may touch by default, each with the reason a refusal quotes.

Kept apart from the settings model so a reader (and docs/security.md's test) finds the list
and its reasons in one short file; `WorkSettings.refused` adds a repository's own globs.
"""

from __future__ import annotations

from typing import NamedTuple

from baton.names import CONFIG_PATH


class ForbiddenPath(NamedTuple):
    """A glob no changeset may touch, and why: the refusal quotes the reason."""

    pattern: str
    why: str


# Refused whatever `.github/baton.yml` says: GITHUB_TOKEN cannot write workflows (it lacks the
# `workflows` permission), and an agent that rewrites Baton's config rewrites its own rules.
LOCKED_FORBIDDEN = (
    ForbiddenPath(
        ".github/workflows/**",
        "workflows run with the repository's secrets, and GITHUB_TOKEN cannot write them",
    ),
    ForbiddenPath(CONFIG_PATH, "Baton's config: an agent would rewrite its own rules"),
    ForbiddenPath(".github/baton.yaml", "Baton's config: an agent would rewrite its own rules"),
)
# What a later job loads from the checkout and obeys: an agent CLI's settings (hooks and MCP
# servers run commands) and instructions (read as the next agent's prompt), a local action or a
# dev container (code a job runs), git's own files (what a later checkout fetches or filters).
# `**/` at the start: at any depth. Matched case-insensitively (see `core.model.changeset`); a
# maintainer lifts an entry for some paths with `work.allow`.
DEFAULT_FORBIDDEN = (
    ForbiddenPath("**/.claude/**", "Claude Code's settings: its hooks run shell commands"),
    ForbiddenPath("**/CLAUDE.md", "Claude Code's instructions, read into the next prompt"),
    ForbiddenPath("**/CLAUDE.local.md", "Claude Code's instructions, read into the next prompt"),
    ForbiddenPath("**/.mcp.json", "MCP servers an agent CLI starts (commands it runs)"),
    ForbiddenPath("**/AGENTS.md", "instructions Codex, Copilot, Cursor and others obey"),
    ForbiddenPath("**/AGENTS.override.md", "Codex's instructions, read before AGENTS.md"),
    ForbiddenPath("**/.codex/**", "Codex's config: MCP servers, commands, approval policy"),
    ForbiddenPath("**/GEMINI.md", "Gemini CLI's instructions, read into the next prompt"),
    ForbiddenPath("**/.gemini/**", "Gemini CLI's settings: MCP servers, hooks, commands"),
    ForbiddenPath(".github/copilot-instructions.md", "Copilot's instructions for the repository"),
    ForbiddenPath(".github/instructions/**", "Copilot's instructions per path"),
    ForbiddenPath(".github/prompts/**", "Copilot's prompt files"),
    ForbiddenPath(".github/agents/**", "Copilot's custom agents"),
    ForbiddenPath(".github/chatmodes/**", "Copilot's chat modes (instructions and tools)"),
    ForbiddenPath(".github/skills/**", "agent skills: instructions and scripts agents run"),
    ForbiddenPath(".github/hooks/**", "Copilot's agent hooks: commands it runs"),
    ForbiddenPath(".github/actions/**", "local actions: code a workflow runs with its secrets"),
    ForbiddenPath("**/action.yml", "a local action: code a workflow (`uses: ./…`) runs"),
    ForbiddenPath("**/action.yaml", "a local action: code a workflow (`uses: ./…`) runs"),
    ForbiddenPath("**/.devcontainer/**", "a dev container: commands Codespaces and CLIs run"),
    ForbiddenPath("**/.devcontainer.json", "a dev container: commands Codespaces and CLIs run"),
    ForbiddenPath("**/.vscode/**", "editor tasks that run on opening, MCP servers (mcp.json)"),
    ForbiddenPath("**/.cursor/**", "Cursor's rules, MCP servers and hooks"),
    ForbiddenPath("**/.cursorrules", "Cursor's instructions"),
    ForbiddenPath("**/.windsurf/**", "Windsurf's rules and workflows"),
    ForbiddenPath("**/.windsurfrules", "Windsurf's instructions"),
    ForbiddenPath("**/.clinerules", "Cline's instructions (a file or a folder)"),
    ForbiddenPath("**/.roo/**", "Roo Code's rules and MCP servers"),
    ForbiddenPath("**/.continue/**", "Continue's config: MCP servers and rules"),
    ForbiddenPath("**/.amazonq/**", "Amazon Q's rules and MCP servers"),
    ForbiddenPath("**/.aider*", "Aider's config, read from the checkout (.aider.conf.yml)"),
    ForbiddenPath("**/.openhands/**", "OpenHands' setup.sh (run at start) and microagents"),
    ForbiddenPath("**/.gitmodules", "submodule URLs a later checkout fetches"),
    ForbiddenPath("**/.gitattributes", "filters and line endings a later checkout applies"),
    ForbiddenPath("**/.lfsconfig", "the Git LFS server a later checkout fetches from"),
    # Read from the working folder or one above it, so at any depth: Gemini CLI loads the first
    # `.env` walking up from where it starts (`.gemini/.env` is under `.gemini/`), direnv an
    # `.envrc` (once allowed), npm the `.npmrc` of the project and of each workspace package,
    # yarn the `.yarnrc.yml` (Berry) or `.yarnrc` (classic) walking up.
    ForbiddenPath("**/.env", "variables Gemini CLI loads into the next agent's environment"),
    ForbiddenPath("**/.envrc", "direnv runs it as a shell script on entering the folder"),
    ForbiddenPath("**/.npmrc", "npm's config: the registry and scripts of the next install"),
    ForbiddenPath("**/.yarnrc.yml", "yarn's config: the registry and plugins of the next install"),
    ForbiddenPath("**/.yarnrc", "yarn's config: the registry of the next install"),
)

BUILT_IN = tuple(rule.pattern for rule in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN))


def entry_name(pattern: str) -> str:
    """The name an allow must spell to lift an entry: its last part that is not `**`
    (`CLAUDE.md`, `.claude`, `instructions`, `.aider*`)."""
    return next((p for p in reversed(pattern.split("/")) if p != "**"), pattern)


def glob_within(glob: str, pattern: str) -> bool:
    """`glob` names only paths inside a locked pattern: a literal path it matches, or the
    pattern's own directory with more after it (`.github/workflows/*.yml`)."""
    if pattern.endswith("/**"):
        return glob == pattern[:-3] or glob.startswith(pattern[:-2])
    return glob == pattern
