"""The project's own CI passes where it really runs: GitHub's hosted runners run as the user
`runner` with a Docker engine, this project's machine as root with no engine at all, and
`.ci/run` builds and runs the image on both (scripts/build-image.sh picks the way).

No Docker engine runs here, so the Docker way is driven through a stand-in `docker` that records
each call and runs each `docker run` as a process on this machine, the /github mount mapped to
its host directory: the script's choice, its calls and scripts/image_smoke.py's checks of the
image's behaviour all run for real; only the isolation of a container is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent

# Runs as `docker`. `info` answers when DOCKER_STUB_ENGINE is "up"; `run` executes the command
# on this machine with the container's paths mapped to the mounted host directory.
DOCKER_STUB = """\
import json, os, subprocess, sys

args = sys.argv[1:]
with open(os.environ["DOCKER_STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(args) + "\\n")
command = args[0] if args else ""
if command == "info":
    sys.exit(0 if os.environ.get("DOCKER_STUB_ENGINE") == "up" else 1)
if command == "version":
    print("0.0-stub")
elif command in ("build", "pull"):
    pass
elif args[:2] == ["image", "inspect"]:
    if "--format" in args:
        print(50_000_000 if args[-1] == "baton:ci" else 40_000_000)
    else:
        print(json.dumps([{"Config": {"Entrypoint": ["baton"], "Cmd": ["run"]}}]))
elif command == "run":
    env, rest, mounts, workdir, entrypoint = {}, args[1:], {}, "/", None
    while rest[0].startswith("--"):
        option = rest.pop(0)
        if option == "--rm":
            continue
        value = rest.pop(0)
        if option == "--env":
            name, _, text = value.partition("=")
            env[name] = text
        elif option == "--volume":
            host, container = value.rsplit(":", 1)
            mounts[container] = host
        elif option == "--workdir":
            workdir = value
        elif option == "--entrypoint":
            entrypoint = value
    image, *arguments = rest

    def host_path(text):
        for container, host in mounts.items():
            text = text.replace(container + "/", host + "/")
        return text

    env = {name: host_path(value) for name, value in env.items()}
    env["PATH"] = os.environ["PATH"]
    done = subprocess.run(
        [entrypoint, *map(host_path, arguments)], cwd=host_path(workdir + "/"), env=env
    )
    sys.exit(done.returncode)
else:
    sys.exit(f"docker stand-in: {command} is not expected")
"""

# buildah's way must not start when Docker answers; when it does start, it stops right here.
REFUSE = '#!/bin/sh\necho "$(basename "$0") called: $*" >&2\nexit 97\n'


def _run_build_script(tmp_path: Path, *, engine_up: bool) -> tuple[str, list[list[str]]]:
    stubs = tmp_path / "bin"
    stubs.mkdir()
    docker = stubs / "docker"
    docker.write_text(f"#!{sys.executable}\n{DOCKER_STUB}", encoding="utf-8")
    for tool in ("buildah", "debootstrap", "apt-get"):
        (stubs / tool).write_text(REFUSE, encoding="utf-8")
    for tool in stubs.iterdir():
        tool.chmod(0o755)
    log = tmp_path / "docker.log"
    log.touch()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))},
        "PATH": os.pathsep.join([str(stubs), str(VENV_BIN), os.environ["PATH"]]),
        "PYTHON": sys.executable,
        "BATON_IMAGE_CACHE": str(tmp_path / "cache"),
        "BATON_IMAGE_RUNS": "1",
        "DOCKER_STUB_LOG": str(log),
        "DOCKER_STUB_ENGINE": "up" if engine_up else "down",
    }
    env.pop("BATON_IMAGE_ENGINE", None)
    done = subprocess.run(
        ["bash", "scripts/build-image.sh"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = done.stdout + done.stderr
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return f"exit {done.returncode}\n{said}", calls


@pytest.fixture(scope="module")
def docker_way(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[list[str]]]:
    return _run_build_script(tmp_path_factory.mktemp("docker"), engine_up=True)


def test_the_image_script_builds_with_docker_when_an_engine_answers(
    docker_way: tuple[str, list[list[str]]],
) -> None:
    said, calls = docker_way
    assert said.startswith("exit 0\n"), said
    builds = [c for c in calls if c[0] == "build"]
    assert len(builds) == 1
    assert builds[0][-3:] == ["--file", "Dockerfile", "."]
    assert "called:" not in said, "buildah's way started although Docker answered"


def test_the_docker_way_runs_the_image_against_the_fake_github(
    docker_way: tuple[str, list[list[str]]],
) -> None:
    said, calls = docker_way
    runs = [c for c in calls if c[0] == "run"]
    # The transition, five ignored events, the timing runs and the in-container timer.
    assert len(runs) >= 8
    for run in runs:
        assert run[1:4] == ["--rm", "--network", "host"], run
        assert "baton:ci" in run
    assert "(b) trigger label by a maintainer -> status:received: ok" in said
    assert "image check passed" in said
    assert "start-up:" in said


def test_without_an_engine_the_image_is_left_to_buildah(tmp_path: Path) -> None:
    # This machine: a docker client, no daemon. The script must not try to build with it.
    said, calls = _run_build_script(tmp_path, engine_up=False)
    assert [c[0] for c in calls] == ["info"]
    assert "buildah called: --version" in said or "needs root" in said, said


def _ci_workflow() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_ci_runs_on_githubs_hosted_ubuntu_runners_where_docker_answers() -> None:
    for job in _ci_workflow()["jobs"].values():
        assert str(job["runs-on"]).startswith("ubuntu-")


def test_ci_runs_the_script_as_the_runners_own_user() -> None:
    # No sudo: the Docker way needs no root, and a root-owned .venv would break later steps.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/build-image.sh" in ci
    assert "sudo" not in ci
    steps = [s for job in _ci_workflow()["jobs"].values() for s in job["steps"]]
    assert not any("sudo" in str(s.get("run", "")) for s in steps)
