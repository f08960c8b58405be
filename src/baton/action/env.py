"""The environment GitHub sets for the Action, read once into one model.

`action.inputs` reads and checks every value (inputs as `INPUT_<NAME>`, `BATON_*` knobs and
GitHub's `GITHUB_*`) with the standard library, so the fast path of `baton run` applies exactly
the same rules; this model adds the types and the defaults. A value that does not parse stops
the command before anything is read or written, with one line naming the variable and what it
accepts. The token is kept as a SecretStr and never printed. What a run hands back is written
by `action/outputs.py`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from baton.action import inputs
from baton.action.inputs import DEFAULT_API_URL
from baton.errors import InvalidConfig
from baton.names import BOT_LOGIN, CONFIG_PATH


class ActionEnv(BaseModel):
    """Everything a command reads from its environment; built by `from_environ`."""

    # Strict: every value arrives already parsed by `inputs.read`, whose rules are the only ones.
    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    event_name: str = ""
    event_path: Path | None = None
    repository: str = ""
    api_url: str = DEFAULT_API_URL
    token: SecretStr | None = None
    run_id: str = ""
    run_attempt: int = 1
    output: Path | None = None
    summary: Path | None = None
    workflow_ref: str = ""
    config: str = CONFIG_PATH
    config_given: bool = False
    dry_run: bool = False
    bot_login: str = BOT_LOGIN
    record_secret: SecretStr | None = None
    http_timeout: int = Field(default=15, ge=1)  # seconds per GitHub request
    agent_command: str | None = None  # `baton agent`'s command line when --command is not given
    agent_timeout: int | None = Field(default=None, ge=1)  # seconds, when --timeout is not given

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> ActionEnv:
        """Raises InvalidConfig, one line per bad value, when any value does not parse."""
        reading = inputs.read(os.environ if env is None else env)
        if reading.problems:
            raise InvalidConfig("\n".join(reading.problems))
        return cls.model_validate({**reading.values, "config_given": reading.config_given})

    def secret_value(self) -> str | None:
        """The key this repository's records are signed with (`record_comment.record_key`)."""
        if not self.record_secret:
            return None
        from baton.issue.record_comment import record_key

        return record_key(self.record_secret.get_secret_value(), self.repository)
