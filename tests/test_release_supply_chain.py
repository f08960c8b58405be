"""What a release is built from and installs stays fixed: PyPI gets a version only after its
image, its pinned commit and its tag; the image's base is pinned by digest; the agent jobs
install Baton from the pinned commit with every download checked against a hash."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
REUSABLE = ROOT / ".github" / "workflows" / "baton-issues.yml"
EXPANDED = ROOT / "examples" / "workflows" / "baton-expanded.yml"
BUILD_LOCK = ROOT / "requirements-build.txt"


def _jobs(path: Path) -> dict[str, Any]:
    jobs: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]
    return jobs


def _needs(jobs: dict[str, Any], name: str) -> set[str]:
    """A job's needs, and theirs: everything that must succeed before it runs."""
    direct = jobs[name].get("needs", [])
    found = {direct} if isinstance(direct, str) else set(direct)
    for need in list(found):
        found |= _needs(jobs, need)
    return found


def test_pypi_publishes_only_after_the_image_the_pin_and_the_tag_succeeded() -> None:
    jobs = _jobs(RELEASE)
    assert _needs(jobs, "pypi") == {"test", "image", "pin", "tag"}
    assert "if" not in jobs["pypi"], "an `if:` could let it run after a failure"


def test_the_base_image_is_pinned_by_digest_with_its_tag_beside_it() -> None:
    (line,) = [
        line
        for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line.upper().startswith("FROM ")
    ]
    assert re.fullmatch(r"FROM python:3\.\d+-slim@sha256:[0-9a-f]{64}", line), line


def _install_lines(path: Path) -> list[str]:
    steps = _jobs(path)["agent"]["steps"]
    run = "\n".join(str(step.get("run", "")) for step in steps)
    return [line for line in run.replace("\\\n", " ").splitlines() if "pip install" in line]


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
def test_the_agent_job_installs_baton_with_every_download_hashed(path: Path) -> None:
    lines = [" ".join(line.split()) for line in _install_lines(path)]
    assert len(lines) == 2, lines
    locks, source = lines
    assert "--require-hashes" in locks
    assert '"$RUNNER_TEMP/baton-source/requirements.txt"' in locks
    assert '"$RUNNER_TEMP/baton-source/requirements-build.txt"' in locks
    # Baton itself from the checked-out commit: no index, no dependency, no build download.
    for flag in ("--no-deps", "--no-build-isolation", "--no-index"):
        assert flag in source
    assert source.endswith('"$RUNNER_TEMP/baton-source"')
    assert "git+" not in " ".join(lines) and "issue-baton" not in " ".join(lines)


def _source_checkout(path: Path) -> dict[str, Any]:
    steps = _jobs(path)["agent"]["steps"]
    (step,) = [s for s in steps if s.get("with", {}).get("path") == ".baton-source"]
    with_: dict[str, Any] = step["with"]
    return with_


def test_the_reusable_agent_job_builds_the_commit_the_caller_pinned() -> None:
    checkout = _source_checkout(REUSABLE)
    assert checkout["repository"] == "${{ job.workflow_repository }}"
    assert checkout["ref"] == "${{ job.workflow_sha }}"
    assert checkout["persist-credentials"] is False


def test_the_expanded_agent_job_builds_the_release_its_action_steps_use() -> None:
    text = EXPANDED.read_text(encoding="utf-8")
    (action,) = set(re.findall(r"uses: OWNER/baton@(\S+)", text))
    checkout = _source_checkout(EXPANDED)
    assert (checkout["repository"], checkout["ref"]) == ("OWNER/baton", action)


def test_the_build_lock_pins_a_setuptools_the_build_system_accepts_by_its_hash() -> None:
    text = BUILD_LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    entries = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    assert [entry[0].split("==")[0] for entry in entries] == ["setuptools"]
    (entry,) = entries
    assert all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", part) for part in entry[1:])
    pinned = entry[0].split("==")[1]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (backend,) = [Requirement(r) for r in pyproject["build-system"]["requires"]]
    assert backend.name == "setuptools" and backend.specifier.contains(pinned)
