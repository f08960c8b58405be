"""The JSON Schema of `.github/baton.yml`, generated from the config model.

A copy ships in the repository (`schema/baton-config.schema.json`) for editors; a test keeps it
equal to what this function generates.
"""

from __future__ import annotations

import json
from typing import Any

from baton.workflow.config import Config

SCHEMA_ID = "https://github.com/issue-baton/baton/schema/baton-config.schema.json"


def config_schema() -> dict[str, Any]:
    schema = Config.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Baton configuration (.github/baton.yml)",
        **schema,
    }


def config_schema_text() -> str:
    return json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"
