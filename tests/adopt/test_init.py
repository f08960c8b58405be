"""`baton init`'s files: the caller is caller.yml with its `uses:` pinned (and, for another
agent, that agent's lines), the starter config is one Baton's loader accepts, and nothing is
overwritten unless asked."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from baton import __version__
from baton.adopt.agents import AGENTS
from baton.adopt.init import (
    BATON_REPOSITORY,
    caller_source,
    check_root,
    installed_commit,
    next_steps,
    release_commit,
    release_record,
    setup_for,
    write,
)
from baton.errors import SetupRefused
from baton.workflow.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "0123456789abcdef0123456789abcdef01234567"
CALLER = ".github/workflows/baton.yml"


def test_the_example_users_read_is_the_source_init_writes_from() -> None:
    example = ROOT / "examples" / "workflows" / "baton.yml"
    assert example.read_text(encoding="utf-8") == caller_source()


def _code(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_claudes_caller_is_the_source_pinned_with_a_header_for_where_it_is() -> None:
    written = setup_for("claude", RELEASE).files[CALLER]
    source = caller_source()
    changed = [(a, b) for a, b in zip(_code(source), _code(written), strict=True) if a != b]
    assert changed == [
        (
            "    uses: OWNER/baton/.github/workflows/baton-issues.yml@v0.1.0 # zizmor: "
            "ignore[unpinned-uses] a placeholder: pin step 1's SHA",
            f"    uses: {BATON_REPOSITORY}/.github/workflows/baton-issues.yml@{RELEASE} "
            f"# v{__version__}",
        )
    ]
    assert "Copy this file to" in source and "Copy this file to" not in written
    assert written.splitlines()[2:7] == [
        f"# Written by `baton init` to {CALLER}. Before Baton can run:",
        "#   1. Add the secrets: gh secret set ANTHROPIC_API_KEY (the agent's key), and the "
        "record's",
        "#      signing secret: openssl rand -hex 32 | gh secret set BATON_RECORD_SECRET",
        "#   2. Allow Actions to open pull requests (Settings, Actions, General), commit this",
        "#      file and .github/baton.yml, then check: baton doctor --repo OWNER/NAME",
    ]


def test_the_caller_names_the_ready_profile_the_suite_runs_and_fits_in_40_lines() -> None:
    job = yaml.safe_load(caller_source())["jobs"]["baton"]
    assert job["with"] == {"agent": "claude-code"}
    assert len(_code(caller_source())) <= 40


def test_a_tag_given_is_written_with_a_step_to_pin_its_sha() -> None:
    setup = setup_for("claude", "v0.1.0")
    assert (setup.ref, setup.pinned) == ("v0.1.0", False)
    job = yaml.safe_load(setup.files[CALLER])["jobs"]["baton"]
    assert job["uses"].endswith("baton-issues.yml@v0.1.0")
    assert "#   3. Pin the `uses:` line below to the commit SHA of v0.1.0 (a tag moves)." in (
        setup.files[CALLER].splitlines()
    )
    assert next_steps("claude", setup)[0] == (
        f"note: {CALLER} names the tag v0.1.0, which can move: pin the release's commit "
        "SHA (baton init --ref SHA --force, or edit its `uses:` line)."
    )


@pytest.mark.parametrize(
    "direct_url",
    [None, '{"url": "file:///home/me/baton", "dir_info": {"editable": true}}'],
    ids=["no record", "an editable checkout"],
)
def test_a_local_install_without_ref_refuses_saying_what_to_pass(direct_url: str | None) -> None:
    with pytest.raises(SetupRefused) as raised:
        setup_for("codex", None, direct_url=direct_url, again="baton init --agent codex")
    assert str(raised.value) == (
        f"this Baton ({__version__}) is not a release build and was not installed from a "
        "commit, so it knows no Baton commit to pin: run `baton init --agent codex --ref SHA` "
        "with the full commit SHA of the Baton release to call (its release summary prints it)"
    )


def _record(**fields: str) -> str:
    base = {"repository": BATON_REPOSITORY, "commit": RELEASE, "tag": f"v{__version__}"}
    return json.dumps({**base, **fields})


def test_a_release_build_pins_the_release_commit_it_recorded() -> None:
    setup = setup_for("claude", None, release=_record())
    assert (setup.ref, setup.pinned) == (RELEASE, True)
    job = yaml.safe_load(setup.files[CALLER])["jobs"]["baton"]
    assert job["uses"] == f"{BATON_REPOSITORY}/.github/workflows/baton-issues.yml@{RELEASE}"
    assert f"@{RELEASE} # v{__version__}\n" in setup.files[CALLER]
    assert setup_for("claude", "f" * 40, release=_record()).ref == "f" * 40  # --ref wins


@pytest.mark.parametrize(
    "record",
    [
        _record(tag="v9.9.9"),
        _record(commit="abc123"),
        _record(repository="a b"),
        "[]",
        "not json",
    ],
    ids=["another version's", "a short commit", "no repository", "not a mapping", "broken"],
)
def test_a_release_record_that_is_not_this_builds_is_no_release(record: str) -> None:
    assert release_commit(record) is None
    with pytest.raises(SetupRefused, match="is not a release build"):
        setup_for("claude", None, release=record)


def test_an_installed_package_has_no_release_record_outside_a_release_build() -> None:
    assert release_record() is None


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_another_agent_gets_its_profile_and_its_keys_secret(agent: str) -> None:
    text = setup_for(agent, RELEASE).files[CALLER]
    job = yaml.safe_load(text)["jobs"]["baton"]
    setup = AGENTS[agent]
    assert job["with"] == {"agent": setup.profile}
    assert job["secrets"] == {
        setup.passed_as: f"${{{{ secrets.{setup.secret} }}}}",
        "BATON_RECORD_SECRET": "${{ secrets.BATON_RECORD_SECRET }}",
    }
    assert f"gh secret set {setup.secret} (the agent's key)" in text
    assert "ANTHROPIC_API_KEY" not in text


def test_the_starter_config_is_one_batons_loader_accepts() -> None:
    text = setup_for("claude", RELEASE).files[".github/baton.yml"]
    settings = parse_config(text, source=".github/baton.yml")
    assert (settings.workflow.name, settings.policy.trigger_label) == ("issue-lifecycle", "baton")


def _repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_init_refuses_to_overwrite_the_caller_and_writes_nothing(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / CALLER).write_text("mine\n", encoding="utf-8")
    with pytest.raises(SetupRefused, match=r"^\.github/workflows/baton\.yml exists; pass --force"):
        write(root, setup_for("claude", RELEASE), force=False)
    assert (root / CALLER).read_text(encoding="utf-8") == "mine\n"
    assert not (root / ".github" / "baton.yml").exists()


def test_force_switches_the_agent_and_keeps_a_customised_config(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    assert write(root, setup_for("claude", RELEASE), force=False) == [CALLER, ".github/baton.yml"]
    mine = "workflow: approval-gate\n"
    (root / ".github" / "baton.yml").write_text(mine, encoding="utf-8")
    assert write(root, setup_for("codex", RELEASE), force=True) == [CALLER]
    assert yaml.safe_load((root / CALLER).read_text())["jobs"]["baton"]["with"] == {
        "agent": "codex"
    }
    assert (root / ".github" / "baton.yml").read_text(encoding="utf-8") == mine


def test_a_config_there_already_is_kept_and_the_caller_written(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    (root / ".github").mkdir()
    (root / ".github" / "baton.yml").write_text("mine\n", encoding="utf-8")
    assert write(root, setup_for("claude", RELEASE), force=False) == [CALLER]
    assert (root / ".github" / "baton.yml").read_text(encoding="utf-8") == "mine\n"


def test_init_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    _repository(tmp_path)
    with pytest.raises(SetupRefused) as raised:
        write(tmp_path / "elsewhere", setup_for("claude", RELEASE), force=False)
    assert str(raised.value) == (
        f"--dir {tmp_path / 'elsewhere'}: no such folder; give the repository's checkout"
    )
    assert not (tmp_path / "elsewhere").exists()


def test_init_refuses_a_folder_outside_any_git_repository(tmp_path: Path) -> None:
    with pytest.raises(SetupRefused) as raised:
        write(tmp_path, setup_for("claude", RELEASE), force=False)
    assert str(raised.value) == (
        f"{tmp_path.resolve()} is not in a git repository: run baton init in your "
        "repository's checkout (or pass --dir it)"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_folder_inside_a_repository_or_a_worktree_is_accepted(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    check_root(tmp_path / "sub")
    check_root(tmp_path)


@pytest.mark.parametrize(
    ("agent", "ref", "message"),
    [
        ("copilot", None, "unknown agent 'copilot'; the agents are: claude, codex, gemini"),
        ("claude", "v1 && curl", "--ref 'v1 && curl' is neither a commit SHA nor a tag"),
        ("claude", "../main", "--ref '../main' is neither a commit SHA nor a tag"),
    ],
)
def test_bad_options_are_one_line_errors(agent: str, ref: str | None, message: str) -> None:
    with pytest.raises(SetupRefused) as raised:
        setup_for(agent, ref)
    assert str(raised.value) == message


def test_the_next_steps_name_the_secrets_and_the_setting() -> None:
    assert next_steps("codex", setup_for("codex", RELEASE)) == [
        "Next:",
        "  1. Add the secrets (GitHub shows their names, never their values):",
        "       openssl rand -hex 32 | gh secret set BATON_RECORD_SECRET",
        "       gh secret set OPENAI_API_KEY   # the codex agent's key",
        "  2. Turn on Settings → Actions → General → Workflow permissions → "
        '"Allow GitHub Actions to create and approve pull requests"',
        "     (Baton opens a draft pull request with the workflow's token).",
        "  3. Commit both files, then check the setup: baton doctor --repo OWNER/NAME",
    ]


def test_batons_repository_is_the_projects_homepage() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["urls"]["Homepage"] == f"https://github.com/{BATON_REPOSITORY}"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(
            '{"url": "https://github.com/issue-baton/baton.git", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            ("issue-baton/baton", RELEASE),
            id="installed from Baton's repository at a commit",
        ),
        pytest.param(
            '{"url": "git+https://github.com/a-fork/baton", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            ("a-fork/baton", RELEASE),
            id="installed from a fork: the fork's workflow at its commit",
        ),
        pytest.param(
            '{"url": "file:///home/me/baton", "dir_info": {"editable": true}}',
            None,
            id="an editable checkout: no commit recorded",
        ),
        pytest.param(
            '{"url": "https://example.org/baton.git", '
            f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}',
            None,
            id="not from GitHub",
        ),
        pytest.param("not json", None, id="a broken record"),
        pytest.param(None, None, id="no record"),
    ],
)
def test_the_commit_pip_installed_baton_from(
    record: str | None, expected: tuple[str, str] | None
) -> None:
    assert installed_commit(record) == expected


def test_init_pins_the_installed_commit_unless_a_ref_is_given() -> None:
    record = (
        '{"url": "https://github.com/a-fork/baton", '
        f'"vcs_info": {{"vcs": "git", "commit_id": "{RELEASE}"}}}}'
    )
    setup = setup_for("claude", None, direct_url=record)
    job = yaml.safe_load(setup.files[CALLER])["jobs"]["baton"]
    assert (job["uses"], setup.pinned) == (
        f"a-fork/baton/.github/workflows/baton-issues.yml@{RELEASE}",
        True,
    )
    other = "f" * 40
    job = yaml.safe_load(setup_for("claude", other, direct_url=record).files[CALLER])["jobs"][
        "baton"
    ]
    assert job["uses"] == f"{BATON_REPOSITORY}/.github/workflows/baton-issues.yml@{other}"


def test_the_release_workflow_records_what_init_pins(tmp_path: Path) -> None:
    """The pypi job's step, replayed: the record it writes is one `release_commit` trusts, and
    the package carries it."""
    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    job = release["jobs"]["pypi"]
    (step,) = [s for s in job["steps"] if "release.json" in s.get("run", "")]
    assert step["env"] == {
        "TAG": "${{ github.ref_name }}",
        "COMMIT": "${{ needs.pin.outputs.commit }}",
    }
    assert "pin" in job["needs"]
    built = [i for i, s in enumerate(job["steps"]) if "python -m build" in s.get("run", "")]
    assert job["steps"].index(step) < built[0]
    (tmp_path / "src" / "baton" / "adopt").mkdir(parents=True)
    env = {"TAG": f"v{__version__}", "COMMIT": RELEASE, "GITHUB_REPOSITORY": "issue-baton/baton"}
    subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, check=True)
    record = (tmp_path / "src" / "baton" / "adopt" / "release.json").read_text(encoding="utf-8")
    assert release_commit(record) == ("issue-baton/baton", RELEASE, f"v{__version__}")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "adopt/release.json" in project["tool"]["setuptools"]["package-data"]["baton"]
