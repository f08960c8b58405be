"""The jobs of an issue on a proof workflow, over real HTTP against the fake GitHub: a config
with `tests:` (the real pytest on the repository's files), the agent job's hand-back as it leaves
it (`baton-result.json`, `baton-changeset.json`, `baton-evidence.json` beside each other), the
evidence from the real `baton verify` run on a checkout of the fake's commit, and `baton report`
bound to what Baton last dispatched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from action_harness import ActionRunner, Step
from baton.core.model.changeset import CHANGESET_FILE, Changeset
from baton.core.model.evidence import EVIDENCE_FILE, Evidence
from baton.evidence.job import result_of
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.fake_clone import checkout
from support.scratch_repo import PYTEST

RESULT_FILE = "baton-result.json"
CHECK_RUNS = ("POST", "/repos/octo/demo/check-runs")


def proof_config(folder: Path, workflow: str = "test-first", *, tests: bool = True) -> Path:
    """`.github/baton.yml` as a repository with tests writes it: the workflow and `tests:`
    (without them, when not `tests`: the states move on the agents' reports)."""
    path = folder / "baton.yml"
    text = f"workflow: {workflow}\n"
    if tests:
        text += f"tests:\n  command: {json.dumps(PYTEST)}\n"
    path.write_text(text, encoding="utf-8")
    return path


def proof_runner(
    fake: FakeGitHub, workdir: Path, workflow: str = "test-first", *, tests: bool = True
) -> ActionRunner:
    """The action harness on the fake, with that config."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = proof_config(workdir, workflow, tests=tests)
    return ActionRunner(fake, workdir, config=str(config))


def dispatched(fake: FakeGitHub) -> dict[str, Any]:
    """The inputs of Baton's last dispatch: the issue, the state, the hand-over."""
    _, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
    inputs: dict[str, Any] = payload["inputs"]
    return inputs


def hand_back(
    action: ActionRunner,
    result: dict[str, Any],
    changeset: Changeset | None = None,
    evidence: Evidence | None = None,
) -> Path:
    """The agent job's files, beside each other in its hand-back folder (none left over from
    an earlier job): the result, and the changeset and the evidence when there are any."""
    folder = action.workdir / "handback"
    folder.mkdir(exist_ok=True)
    for name in (RESULT_FILE, CHANGESET_FILE, EVIDENCE_FILE):
        (folder / name).unlink(missing_ok=True)
    (folder / RESULT_FILE).write_text(json.dumps(result), encoding="utf-8")
    if changeset is not None:
        (folder / CHANGESET_FILE).write_text(changeset.model_dump_json(), encoding="utf-8")
    if evidence is not None:
        (folder / EVIDENCE_FILE).write_text(evidence.model_dump_json(), encoding="utf-8")
    return folder / RESULT_FILE


def report(action: ActionRunner, result: Path, inputs: dict[str, Any], **extra: str) -> Step:
    """The report job's `baton report`, bound to the dispatch the agent's run came from."""
    args = ["report", "--issue", str(inputs["issue"]), "--result", str(result)]
    args += ["--state", inputs["state"], "--handover", inputs["handover"]]
    args += ["--agent", inputs["agent"]] if inputs.get("agent") else []
    return action.invoke(args, "workflow_dispatch", {}, **extra)


def verify(
    fake: FakeGitHub,
    action: ActionRunner,
    commit: str,
    where: Path,
    *,
    changeset: Changeset | None = None,
    base: str | None = None,
) -> Evidence:
    """The real `baton verify` in a checkout of the fake's `commit`, as the agent job runs it:
    with the agent's changeset applied on it (`--changeset`, a red proof), or on the commit
    itself from `base` (`--base`, Baton's last commit). The evidence it wrote."""
    clone = checkout(fake, commit, where)
    output = where.parent / f"{where.name}-{EVIDENCE_FILE}"
    args = ["verify", "--output", str(output), "--config", str(action.config)]
    if changeset is not None:
        changes = where.parent / f"{where.name}-{CHANGESET_FILE}"
        changes.write_text(changeset.model_dump_json(), encoding="utf-8")
        args += ["--changeset", str(changes)]
    if base is not None:
        args += ["--base", base]
    done = subprocess.run(
        [sys.executable, "-m", "baton", *args],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Evidence.model_validate_json(output.read_text(encoding="utf-8"))


def computed_result(evidence: Evidence) -> dict[str, Any]:
    """The `tests` profile's `baton-result.json`: computed from the evidence, not a model's."""
    return result_of(evidence).model_dump(mode="json", exclude_none=True)
