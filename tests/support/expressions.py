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


def job_starts(
    path: Path,
    events: list[tuple[str, dict[str, Any]]],
    outputs: list[dict[str, str]],
    inputs: dict[str, Any] | None = None,
    failed: tuple[str, ...] = (),
) -> list[tuple[str, ...]]:
    """The jobs that start in the run of each event, job by job in the file's order (each one
    after the jobs it needs): each `if:` by GitHub's engine, with the results of the jobs it
    needs and, from each job that started, that run's `outputs` (its agent, issue, ...). An
    `if:` without a status function waits for every job it needs to succeed, as the runner's
    implicit `success()` does. A job in `failed` that starts ends in failure."""
    graph = jobs(path)
    done: list[dict[str, dict[str, Any]]] = [{} for _ in events]
    for name, spec in graph.items():
        needs = spec.get("needs", [])
        needs = [needs] if isinstance(needs, str) else list(needs)
        contexts = []
        for (event, payload), results in zip(events, done, strict=True):
            repository = payload.get("repository", {}).get("full_name", "octo/repo")
            github = {"event_name": event, "event": payload, "repository": repository}
            given = reusable_inputs() if inputs is None else inputs
            needed = {need: results[need] for need in needs}
            contexts.append({"github": github, "inputs": given, "needs": needed})
        expression = str(spec.get("if", "true"))
        answers = render_each(condition(expression), contexts)
        implicit = not any(f"{status}()" in expression for status in ("cancelled", "always"))
        for results, answer, given_outputs in zip(done, answers, outputs, strict=True):
            waits = implicit and any(results[n]["result"] != "success" for n in needs)
            ran = answer == "true" and not waits
            result = ("failure" if name in failed else "success") if ran else "skipped"
            results[name] = {
                "result": result,
                "outputs": dict(given_outputs) if ran else {},
            }
    return [tuple(job for job in graph if results[job]["result"] != "skipped") for results in done]
