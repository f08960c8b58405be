"""The JSON Schema of `.github/baton.yml` (`workflow/schema.py`): generated from the model,
shipped current, and agreeing with loading on what is a config."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from baton.cli import cli
from baton.errors import InvalidConfig
from baton.workflow.config import Config, parse_config

REPO = Path(__file__).resolve().parents[2]
SHIPPED_SCHEMA = REPO / "schema" / "baton-config.schema.json"

INLINE_WORKFLOW = """\
workflow:
  name: tiny
  initial: start
  agents: [dev]
  states:
    start: {kind: work, agent: dev}
    gate: {kind: waiting, approval: done, timeout: {after: 2d, to: done}}
    done: {kind: terminal}
  transitions:
    start: [gate]
    gate: [done]
    done: []
  rules:
    start:
      - {when: {status: success}, to: gate}
      - {to: retry}
"""


def _parse(text: str) -> Any:
    return parse_config(text, source="baton.yml")


# --- the JSON Schema -----------------------------------------------------------------------
def test_the_shipped_schema_equals_what_baton_schema_prints() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert SHIPPED_SCHEMA.read_text(encoding="utf-8") == result.output, (
        "schema/baton-config.schema.json is stale: regenerate it with "
        "`baton schema > schema/baton-config.schema.json`"
    )


def test_the_schema_lists_every_config_setting_and_nothing_else() -> None:
    schema = json.loads(SHIPPED_SCHEMA.read_text(encoding="utf-8"))
    assert set(schema["properties"]) == set(Config.model_fields)
    assert schema["additionalProperties"] is False


def _conforms(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    """A small JSON Schema check for the keywords our schema uses (jsonschema is not installed)."""
    if "$ref" in schema:
        return _conforms(value, defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return any(_conforms(value, option, defs) for option in schema["anyOf"])
    types = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    kind = schema.get("type")
    if kind and not isinstance(value, types[kind]):
        return False
    if kind in {"integer", "number"} and isinstance(value, bool):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 1e9):
            return False
    too_small = isinstance(value, int) and value < schema.get("minimum", -1e18)
    if too_small or (isinstance(value, int) and value > schema.get("maximum", 1e18)):
        return False
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return False
        return all(_conforms(item, schema.get("items", {}), defs) for item in value)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                if not _conforms(item, properties[key], defs):
                    return False
            elif extra is False or (isinstance(extra, dict) and not _conforms(item, extra, defs)):
                return False
    return True


SAMPLE_CONFIG = """\
workflow: issue-lifecycle
approvers:
  permission: maintain
  users: [maria]
  teams: [acme/reviewers]
maintainers: {permission: triage}
answerers: anyone
approval_words: [approved, lgtm]
allow_edited_approvals: false
entry: {trigger_label: baton, on_open: false, status_label: true}
label_prefix: "status:"
pull_requests: false
timeouts: {waiting_for_human_input: 3d, implementing: 12h}
agent_timeout: 2h
limits: {max_iterations: 30}
sweep_budget: 200
"""


@pytest.mark.parametrize(
    "text",
    [SAMPLE_CONFIG, INLINE_WORKFLOW, "{}\n"],
    ids=["a config using every setting", "a config with an inline workflow", "an empty config"],
)
def test_a_good_config_conforms_to_the_schema_and_loads(text: str) -> None:
    schema = json.loads(SHIPPED_SCHEMA.read_text(encoding="utf-8"))
    assert _conforms(yaml.safe_load(text), schema, schema["$defs"])
    _parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "reviewers: [maria]\n",
        "approvers: {permission: owner}\n",
        "timeouts: {implementing: soon}\n",
        "sweep_budget: 1\n",
        "entry: {trigger: baton}\n",
    ],
    ids=[
        "an unknown key",
        "a permission GitHub does not have",
        "a timeout that is not a duration",
        "a budget below the minimum",
        "an unknown key under entry",
    ],
)
def test_a_bad_config_breaks_the_schema_as_it_breaks_loading(text: str) -> None:
    schema = json.loads(SHIPPED_SCHEMA.read_text(encoding="utf-8"))
    assert not _conforms(yaml.safe_load(text), schema, schema["$defs"])
    with pytest.raises(InvalidConfig):
        _parse(text)
