"""The agent job's steps before the agent's own, in the reusable workflow and the expanded
example: the issue's branch is what earlier agents wrote, so nothing of it may run before the
agent does (a `pip/` package, an `.npmrc`), and Baton's config comes from the default branch.

The `run` steps are replayed for real where they can run offline (the pip install, against a
checkout holding a planted `pip` package), and read off the file where they cannot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
REUSABLE = ROOT / ".github" / "workflows" / "baton-issues.yml"
EXPANDED = ROOT / "examples" / "workflows" / "baton-expanded.yml"
FLOWS = [REUSABLE, EXPANDED]
RUNNER_TEMP = "${{ runner.temp }}"


def _ids(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _job(path: Path, name: str) -> dict[str, Any]:
    flow = yaml.safe_load(path.read_text(encoding="utf-8"))
    job = flow["jobs"][name]
    assert isinstance(job, dict)
    return job


def _before_the_agent(path: Path) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = _job(path, "agent")["steps"]
    agent = next(i for i, s in enumerate(steps) if s.get("name") == "Run the agent")
    return steps[:agent]


def _pip_step(path: Path) -> dict[str, Any]:
    return next(s for s in _before_the_agent(path) if "pip install" in s.get("run", ""))


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_the_agent_jobs_pip_step_does_not_run_a_pip_package_an_agent_committed(
    flow: Path, tmp_path: Path
) -> None:
    # `python -m pip` puts its working directory first on sys.path: in the checkout, a `pip/`
    # package a changeset added runs, with GITHUB_ENV and GITHUB_PATH open for later steps.
    step = _pip_step(flow)
    proof = tmp_path / "planted-pip-ran"
    workspace = tmp_path / "checkout"
    (workspace / "pip").mkdir(parents=True)
    (workspace / "pip" / "__init__.py").write_text("", encoding="utf-8")
    (workspace / "pip" / "__main__.py").write_text(
        f"import pathlib\npathlib.Path({str(proof)!r}).write_text('ran')\n", encoding="utf-8"
    )
    runner_temp = tmp_path / "runner-temp"
    (runner_temp / "baton-config").mkdir(parents=True)
    (runner_temp / "baton-source").mkdir()
    for lock in ("requirements.txt", "requirements-build.txt"):
        shutil.copy(ROOT / lock, runner_temp / "baton-source" / lock)
    where = step.get("working-directory", "")
    assert where.startswith(RUNNER_TEMP), f"{step['run']!r} runs in the checkout"
    cwd = runner_temp / where.removeprefix(RUNNER_TEMP).lstrip("/")
    env = dict(os.environ)
    env.update(
        PIP_NO_INDEX="1",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        GITHUB_WORKSPACE=str(workspace),
        RUNNER_TEMP=str(runner_temp),
        PYTHONPATH="",
    )
    env.update({k: str(v) for k, v in (step.get("env") or {}).items() if "${{" not in str(v)})

    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    # The real pip ran, offline: it read the lock and found nothing to install from.
    assert "annotated-types" in done.stdout + done.stderr
    assert not proof.exists(), "the checkout's pip ran in the agent job's install step"
    # The same step in the checkout runs the planted package: what the check above guards.
    subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=workspace,
        env={**env, "PYTHONSAFEPATH": ""},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proof.exists()


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_every_step_before_the_agents_runs_outside_the_checkout(flow: Path) -> None:
    runs = [s for s in _before_the_agent(flow) if "run" in s]
    assert len(runs) >= 4  # keep the config, install Baton, install the agent, the briefing
    for step in runs:
        assert step.get("working-directory", "").startswith(RUNNER_TEMP), step["run"]
        assert "GITHUB_WORKSPACE" not in step["run"] or step["run"].startswith("mv "), step
    python = [s for s in runs if "python" in s["run"] or "baton " in s["run"]]
    assert python and all(s["env"].get("PYTHONSAFEPATH") == "1" for s in python)


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_the_agent_job_reads_the_config_from_the_default_branch_not_the_issues_branch(
    flow: Path,
) -> None:
    steps = _job(flow, "agent")["steps"]
    config = steps[0]
    assert config["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert config["with"]["sparse-checkout-cone-mode"] is False
    assert config["with"]["path"] == ".baton-config"
    source = steps[1]  # Baton's own source, for its install step
    assert source["with"]["path"] == ".baton-source"
    moved = steps[2]["run"].splitlines()
    assert moved == [
        'mv "$GITHUB_WORKSPACE/.baton-config" "$RUNNER_TEMP/baton-config"',
        'mv "$GITHUB_WORKSPACE/.baton-source" "$RUNNER_TEMP/baton-source"',
    ]
    # The issue's checkout after the move, and after the briefing that names its branch.
    briefing = next(i for i, s in enumerate(steps) if s.get("name") == "Fetch the briefing")
    assert steps[briefing]["working-directory"] == f"{RUNNER_TEMP}/baton-config"
    (issue,) = [i for i, s in enumerate(steps) if "checkout" in s.get("uses", "") and i > 2]
    assert issue > briefing
    assert steps[issue]["with"]["ref"] == "${{ steps.brief.outputs.branch }}"
    agent = next(s for s in steps if s.get("name") == "Run the agent")
    assert 'export INPUT_CONFIG="$RUNNER_TEMP/baton-config/' in agent["run"]


def _run_the_agents_config_choice(flow: Path, tmp_path: Path, *, on_default: bool) -> str:
    """The `Run the agent` step's script up to `baton agent`, replayed: which INPUT_CONFIG
    `baton agent` is given."""
    agent = next(s for s in _job(flow, "agent")["steps"] if s.get("name") == "Run the agent")
    script = agent["run"].split("baton agent", 1)[0] + 'printf %s "${INPUT_CONFIG-}"\n'
    temp = tmp_path / "temp"
    config = temp / "baton-config" / ".github" / "baton.yml"
    config.parent.mkdir(parents=True)
    if on_default:
        config.write_text("{}\n", encoding="utf-8")
    given = agent.get("env", {}).get("INPUT_CONFIG")
    env = {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(temp)}
    if given is not None:
        env["INPUT_CONFIG"] = ".github/baton.yml"
    done = subprocess.run(
        ["bash", "-e", "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.replace(str(temp), "$RUNNER_TEMP")


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_baton_agent_is_given_the_default_branchs_config_when_there_is_one(
    flow: Path, tmp_path: Path
) -> None:
    assert (
        _run_the_agents_config_choice(flow, tmp_path, on_default=True)
        == "$RUNNER_TEMP/baton-config/.github/baton.yml"
    )
    absent = _run_the_agents_config_choice(flow, tmp_path / "none", on_default=False)
    assert absent in {"", ".github/baton.yml"}  # the defaults: that path is locked


def _replay(flow: Path, name: str, tmp_path: Path, env: dict[str, str], before: str = "") -> Any:
    """A step of the agent job replayed with this checkout's `baton` on PATH and the agent's
    install or run swapped for a `printf` of what would run; its completed process."""
    step = next(s for s in _job(flow, "agent")["steps"] if s.get("name") == name)
    script = before + step["run"].replace('bash -euo pipefail -c "$SETUP"', 'printf %s "$SETUP"')
    temp = tmp_path / "temp"
    (temp / "baton-config").mkdir(parents=True, exist_ok=True)
    (temp / "baton").mkdir(exist_ok=True)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["bash", "-e", "-c", script],
        env={"PATH": path, "RUNNER_TEMP": str(temp), "ROLE": "developer", **env},
        cwd=temp / "baton-config",
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_the_agent_job_installs_the_ready_profile_the_workflow_names(
    flow: Path, tmp_path: Path
) -> None:
    from baton.workflow.agent_profiles import READY

    step = next(s for s in _job(flow, "agent")["steps"] if s.get("name") == "Install the agent")
    assert step["env"]["AGENT"] in {"${{ inputs.agent }}", "${{ vars.BATON_AGENT }}"}
    named = _replay(flow, "Install the agent", tmp_path, {"AGENT": "codex", "AGENT_SETUP": ""})
    assert (named.returncode, named.stdout) == (0, READY["codex"].setup), named.stderr
    own = _replay(flow, "Install the agent", tmp_path, {"AGENT": "", "AGENT_SETUP": "make it"})
    assert (own.returncode, own.stdout) == (0, "make it"), own.stderr
    # A name that is no profile stops the step, with the setup error where the upload finds
    # it (the report job then fails once with it; no attempt is spent).
    wrong = _replay(flow, "Install the agent", tmp_path, {"AGENT": "claude", "AGENT_SETUP": ""})
    assert (wrong.returncode, wrong.stdout) == (1, "")
    marker = tmp_path / "temp" / "baton" / "baton-setup-error.txt"
    assert "the `agent` input 'claude' is no ready profile" in marker.read_text(encoding="utf-8")


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_the_agent_job_hands_baton_agent_the_ready_profile_and_the_command(
    flow: Path, tmp_path: Path
) -> None:
    steps = {s.get("name"): s for s in _job(flow, "agent")["steps"]}
    assert steps["Run the agent"]["env"]["AGENT"] == steps["Install the agent"]["env"]["AGENT"]
    shown = _replay(
        flow,
        "Run the agent",
        tmp_path,
        {"AGENT": "gemini", "AGENT_COMMAND": ""},
        before="baton() { printf '%s\\n' \"$@\"; }\n",
    )
    assert shown.returncode == 0, shown.stderr
    args = shown.stdout.splitlines()
    assert args[0] == "agent"
    given = dict(zip(args[1::2], args[2::2], strict=True))
    assert (given["--agent"], given["--command"], given["--role"]) == ("gemini", "", "developer")


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_the_agent_job_hands_baton_agent_the_state_the_briefing_read(
    flow: Path, tmp_path: Path
) -> None:
    steps = {s.get("name"): s for s in _job(flow, "agent")["steps"]}
    for name in ("Install the agent", "Run the agent"):
        assert steps[name]["env"]["STATE"] == "${{ steps.brief.outputs.state }}", name
    shown = _replay(
        flow,
        "Run the agent",
        tmp_path,
        {"AGENT": "", "AGENT_COMMAND": "", "STATE": "running_tests"},
        before="baton() { printf '%s\\n' \"$@\"; }\n",
    )
    assert shown.returncode == 0, shown.stderr
    args = shown.stdout.splitlines()
    given = dict(zip(args[1::2], args[2::2], strict=True))
    assert (given["--state"], given["--role"]) == ("running_tests", "developer")


PROOF_CONFIG = {
    "workflow": {
        "name": "proof-demo",
        "initial": "running_tests",
        "agents": ["developer"],
        "states": {
            "running_tests": {
                "kind": "work",
                "agent": "developer",
                "proof": "green",
                "description": "The tests run",
                "expects": "Run the tests.",
            },
            "done": {"kind": "terminal", "description": "Done"},
        },
        "transitions": {"running_tests": ["done"], "done": []},
    },
    "tests": {"command": "pytest"},
    "agents": {"roles": {"developer": "codex"}},
}


@pytest.mark.parametrize("flow", FLOWS, ids=_ids)
def test_a_proof_green_state_installs_nothing_and_needs_no_agent_key(
    flow: Path, tmp_path: Path
) -> None:
    from baton.action.agent_choice import TESTS_SETUP

    config = tmp_path / "temp" / "baton-config" / ".github" / "baton.yml"
    config.parent.mkdir(parents=True)
    config.write_text(yaml.safe_dump(PROOF_CONFIG), encoding="utf-8")
    env = {"AGENT": "", "AGENT_SETUP": "make it", "INPUT_CONFIG": ".github/baton.yml"}
    green = _replay(flow, "Install the agent", tmp_path, {**env, "STATE": "running_tests"})
    assert (green.returncode, green.stdout) == (0, TESTS_SETUP), green.stderr
    # Its no-op runs as the step would run it: nothing installed, nothing asked for.
    assert (
        subprocess.run(["bash", "-euo", "pipefail", "-c", TESTS_SETUP], check=False).returncode == 0
    )
    other = _replay(flow, "Install the agent", tmp_path, {**env, "STATE": "done"})
    assert other.stdout.startswith("npm install -g @openai/codex@"), other.stderr
