"""`baton init` and `baton doctor` as a maintainer runs them: init's files pass actionlint and
zizmor, then `baton doctor`, run against the fake over real HTTP, finds nothing wrong."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from adopt.conftest import RELEASE
from baton.cli import cli
from fakes.http_github import FakeGitHub

VENV_BIN = Path(sys.executable).parent
CALLER = ".github/workflows/baton.yml"


def _lint(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A linter of the dev extra on a file (actionlint finds shellcheck beside it)."""
    found = VENV_BIN / tool
    binary = str(found) if found.is_file() else shutil.which(tool)
    if binary is None:
        pytest.fail(f"{tool} is not installed (part of the dev extra)")
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GITHUB_TOKEN", None)
    return subprocess.run(
        [binary, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_init_has_help() -> None:
    result = CliRunner().invoke(cli, ["init", "--help"])
    assert result.exit_code == 0
    assert "--agent [claude|codex|gemini]" in result.output
    assert "--force" in result.output and "--ref" in result.output


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_inits_files_pass_actionlint_zizmor_and_then_doctor(
    tmp_path: Path, fake: FakeGitHub, agent: str
) -> None:
    runner = CliRunner()
    (tmp_path / ".git").mkdir()
    result = runner.invoke(
        cli, ["init", "--dir", str(tmp_path), "--agent", agent, "--ref", RELEASE]
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [f"wrote {CALLER}", "wrote .github/baton.yml"]
    linted = _lint("actionlint", "-oneline", "-no-color", str(tmp_path / CALLER))
    assert linted.returncode == 0, linted.stdout + linted.stderr
    audited = _lint("zizmor", "--offline", "--no-progress", str(tmp_path / CALLER))
    assert audited.returncode == 0, audited.stdout + audited.stderr

    files = {p: (tmp_path / p).read_text(encoding="utf-8") for p in (CALLER, ".github/baton.yml")}
    fake.push("main", files, "Add Baton")
    secrets = [
        line.split("gh secret set ")[1].split()[0]
        for line in result.output.splitlines()
        if "gh secret set" in line
    ]
    for name in secrets:
        fake.set_secret(name)
    fake.add_label("baton")
    fake.add_label("baton:epic")
    env = {"GITHUB_TOKEN": fake.token, "GITHUB_API_URL": fake.url}
    doctor = runner.invoke(cli, ["doctor", "--repo", fake.repo_full_name], env=env)
    assert doctor.exit_code == 0, doctor.output
    assert doctor.output.splitlines()[-1] == (
        "Baton's setup looks right: 0 errors, 1 warning, 1 note."
    )


def test_init_refuses_to_overwrite_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / ".git").mkdir()
    given = ["init", "--dir", str(tmp_path), "--ref", RELEASE]
    assert runner.invoke(cli, given).exit_code == 0
    before = (tmp_path / CALLER).read_text(encoding="utf-8")
    again = runner.invoke(cli, [*given, "--agent", "codex"])
    assert (again.exit_code, again.stderr) == (
        1,
        f"error: {CALLER} exists; pass --force to rewrite it\n",
    )
    assert (tmp_path / CALLER).read_text(encoding="utf-8") == before


def test_init_force_switches_agents_and_keeps_the_config(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / ".git").mkdir()
    given = ["init", "--dir", str(tmp_path), "--ref", RELEASE]
    assert runner.invoke(cli, given).exit_code == 0
    (tmp_path / ".github" / "baton.yml").write_text("workflow: approval-gate\n", encoding="utf-8")
    switched = runner.invoke(cli, [*given, "--agent", "gemini", "--force"])
    assert switched.exit_code == 0, switched.output
    assert switched.output.splitlines()[:2] == [
        f"wrote {CALLER}",
        "kept (it exists; init never rewrites it): .github/baton.yml",
    ]
    assert "agent: gemini" in (tmp_path / CALLER).read_text(encoding="utf-8")
    assert (tmp_path / ".github" / "baton.yml").read_text() == "workflow: approval-gate\n"


def test_init_from_a_local_install_says_what_to_pass_and_writes_nothing(tmp_path: Path) -> None:
    # This checkout's editable install records no commit and no release.
    (tmp_path / ".git").mkdir()
    result = CliRunner().invoke(cli, ["init", "--dir", str(tmp_path), "--agent", "codex"])
    assert result.exit_code == 1
    assert result.stderr == (
        "error: this Baton (0.1.0) is not a release build and was not installed from a commit, "
        f"so it knows no Baton commit to pin: run `baton init --agent codex --dir {tmp_path} "
        "--ref SHA` with the full commit SHA of the Baton release to call (its release summary "
        "prints it)\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == [".git"]


@pytest.mark.parametrize("where", ["missing", "not a repository"])
def test_init_refuses_a_folder_it_cannot_set_up_in_one_line(tmp_path: Path, where: str) -> None:
    root = tmp_path / "repo" if where == "missing" else tmp_path
    result = CliRunner().invoke(cli, ["init", "--dir", str(root), "--ref", RELEASE])
    assert result.exit_code == 1
    said = (
        f"--dir {root}: no such folder"
        if where == "missing"
        else f"{root.resolve()} is not in a git repository"
    )
    assert result.stderr.startswith(f"error: {said}") and result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_doctor_exits_1_on_an_error_and_names_it(fake: FakeGitHub) -> None:
    env = {"GITHUB_TOKEN": None, "GH_TOKEN": fake.token, "GITHUB_API_URL": fake.url}
    result = CliRunner().invoke(cli, ["doctor", "--repo", fake.repo_full_name], env=env)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "error: no workflow in .github/workflows calls Baton's reusable workflow (baton-issues.yml)"
    )


def test_doctor_without_a_token_or_with_a_bad_one_says_so(fake: FakeGitHub) -> None:
    runner = CliRunner()
    bare = runner.invoke(
        cli, ["doctor", "--repo", "octo/demo"], env={"GITHUB_TOKEN": None, "GH_TOKEN": None}
    )
    assert (bare.exit_code, bare.stderr) == (
        2,
        "error: no token: set GITHUB_TOKEN or GH_TOKEN (gh auth token)\n",
    )
    env = {"GITHUB_TOKEN": "wrong", "GITHUB_API_URL": fake.url}
    bad = runner.invoke(cli, ["doctor", "--repo", "octo/demo"], env=env)
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: GitHub refused reading .github/workflows (GET ")
    assert "401 Bad credentials" in bad.stderr


@pytest.mark.parametrize("given", ["foo", "a/b/c", "a b/c", "octo/demo\n", "/demo", "octo/"])
def test_doctor_with_a_bad_repo_names_the_flag_it_came_from(given: str) -> None:
    result = CliRunner().invoke(
        cli, ["doctor", "--repo", given], env={"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "x/y"}
    )
    assert (result.exit_code, result.stderr, result.stdout) == (
        2,
        f"error: --repo {given!r} is not owner/name, such as octo/repo\n",
        "",
    )
