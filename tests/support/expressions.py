"""GitHub's own expression engine (`@actions/expressions`, installed test-only in
tests/workflow/expressions by `.ci/run`), to evaluate the workflows' `${{ }}` as the runner
does, and the workflow files' parts the tests read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "tests" / "workflow" / "expressions"
REUSABLE = ROOT / ".github" / "workflows" / "baton-issues.yml"
EXPANDED = ROOT / "examples" / "workflows" / "baton-expanded.yml"
CALLER = ROOT / "examples" / "workflows" / "baton.yml"


def require_engine() -> None:
    """Skip the calling module without the engine; fail it where `.ci/run` installed it."""
    if shutil.which("node") is not None and (ENGINE / "node_modules" / "@actions").is_dir():
        return
    if os.environ.get("BATON_REQUIRE_EXPRESSIONS"):
        pytest.fail(
            "GitHub's expression engine is not installed (npm ci in tests/workflow/expressions)"
        )
    pytest.skip(
        "GitHub's expression engine is not installed: run `npm ci` in tests/workflow/expressions",
        allow_module_level=True,
    )


def _node(request: dict[str, Any]) -> Any:
    answer = subprocess.run(
        ["node", str(ENGINE / "evaluate.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(answer.stdout)


def render(templates: list[str], contexts: dict[str, Any]) -> list[str]:
    """The templates as the runner renders them, by GitHub's expression engine."""
    rendered: list[str] = _node({"templates": templates, "contexts": contexts})
    return rendered


def render_each(template: str, contexts: list[dict[str, Any]]) -> list[str]:
    """One template rendered in each of many contexts, in one start of the engine."""
    batch = [{"templates": [template], "contexts": context} for context in contexts]
    return [answer[0] for answer in _node({"batch": batch})]


def condition(expression: str) -> str:
    """An `if:` as a template: the runner evaluates a bare `if:` as one expression."""
    return "${{ " + expression + " }}"


def workflow(path: Path) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def jobs(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = workflow(path)["jobs"]
    return found


def reusable_inputs(**changes: Any) -> dict[str, Any]:
    """The reusable workflow's inputs at their defaults, with `changes` (snake_case names)."""
    declared = workflow(REUSABLE)[True]["workflow_call"]["inputs"]
    inputs = {name: spec.get("default") for name, spec in declared.items()}
    for name, value in changes.items():
        key = name.replace("_", "-")
        assert key in inputs, f"the reusable workflow has no input {key}"
        inputs[key] = value
    return inputs
