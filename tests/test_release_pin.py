"""A release tag ends on a commit whose action.yml runs the published image by digest
(scripts/pin_release.py, driven by .github/workflows/release.yml): the rewrite, the reproducible
commit, the compare-and-swap that moves the tag, and the workflow's wiring of the three.

The git side runs for real against a bare repository standing in for GitHub."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "pin_release.py"
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
VENV_BIN = Path(sys.executable).parent
TAG = "v9.9.9"
IMAGE = "ghcr.io/octo/baton"
DIGEST = "sha256:" + "0123456789abcdef" * 4
# Nothing of this machine's or this user's git settings (signing, hooks, identity) applies.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Maintainer",
    "GIT_AUTHOR_EMAIL": "maintainer@example.invalid",
    "GIT_COMMITTER_NAME": "Maintainer",
    "GIT_COMMITTER_EMAIL": "maintainer@example.invalid",
    "GIT_AUTHOR_DATE": "1790000000 +0000",
    "GIT_COMMITTER_DATE": "1790000000 +0000",
}


def _env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    return {**keep, **GIT_ENV}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def pin(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def make_commit(cwd: Path) -> subprocess.CompletedProcess[str]:
    return pin(cwd, "commit", "--tag", TAG, "--image", IMAGE, "--digest", DIGEST)


def _sha(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    match = re.fullmatch(r"commit=([0-9a-f]{40})\n", done.stdout)
    assert match, done.stdout
    return match.group(1)


@pytest.fixture
def tagged(tmp_path: Path) -> tuple[Path, Path, str]:
    """A checkout of an annotated release tag, and the bare `origin` it came from."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", str(origin))
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "--quiet", "--initial-branch", "main")
    shutil.copy(ROOT / "action.yml", source / "action.yml")
    (source / "README.md").write_text("Baton\n", encoding="utf-8")
    git(source, "add", ".")
    git(source, "commit", "--quiet", "--no-gpg-sign", "-m", "Release candidate")
    git(source, "tag", "--no-sign", "-a", "-m", f"Baton {TAG}", TAG)
    git(source, "push", "--quiet", str(origin), "main", TAG)
    tested = git(source, "rev-parse", "HEAD")
    work = clone(tmp_path / "work", origin)
    return work, origin, tested


def clone(path: Path, origin: Path) -> Path:
    git(path.parent, "clone", "--quiet", "--branch", TAG, str(origin), str(path))
    return path


def remote_tag(origin: Path) -> str:
    return git(origin, "rev-parse", f"refs/tags/{TAG}^{{commit}}")


# --------------------------------------------------------------------------- the commit


def test_the_release_commit_changes_only_the_image_line_of_action_yml(
    tagged: tuple[Path, Path, str],
) -> None:
    work, _, tested = tagged
    sha = _sha(make_commit(work))
    assert git(work, "rev-parse", f"{sha}^") == tested
    assert git(work, "diff", "--name-only", tested, sha) == "action.yml"
    diff = git(work, "diff", "--unified=0", tested, sha, "--", "action.yml").splitlines()
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        "-  image: Dockerfile",
        f"+  image: docker://{IMAGE}@{DIGEST}",
    ]


def test_the_pinned_action_runs_the_image_by_digest_behind_the_same_interface(
    tagged: tuple[Path, Path, str],
) -> None:
    work, _, _ = tagged
    _sha(make_commit(work))
    before = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    after = yaml.safe_load((work / "action.yml").read_text(encoding="utf-8"))
    assert after["runs"] == {**before["runs"], "image": f"docker://{IMAGE}@{DIGEST}"}
    assert {k: v for k, v in after.items() if k != "runs"} == {
        k: v for k, v in before.items() if k != "runs"
    }


def test_the_pinned_action_matches_githubs_schema(tagged: tuple[Path, Path, str]) -> None:
    tool = VENV_BIN / "check-jsonschema"
    if not tool.is_file():
        pytest.fail("check-jsonschema is not installed (part of the dev extra)")
    work, _, _ = tagged
    _sha(make_commit(work))
    done = subprocess.run(
        [str(tool), "--builtin-schema", "vendor.github-actions", str(work / "action.yml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_two_jobs_make_the_same_release_commit(tagged: tuple[Path, Path, str]) -> None:
    # The pin job tries the commit, the tag job pushes it: they must be one and the same.
    work, origin, _ = tagged
    other = clone(work.parent / "other", origin)
    assert _sha(make_commit(work)) == _sha(make_commit(other))


def test_the_release_commit_says_what_it_pins_and_from_what(
    tagged: tuple[Path, Path, str],
) -> None:
    work, _, tested = tagged
    sha = _sha(make_commit(work))
    message = git(work, "log", "-1", "--format=%B", sha)
    assert message.startswith(f"Release {TAG}: ")
    assert f"{IMAGE}@{DIGEST}" in message
    assert tested in message


@pytest.mark.parametrize(
    ("option", "value", "complaint"),
    [
        pytest.param("--digest", "sha256:0123abcd", "not a digest", id="a short digest"),
        pytest.param("--digest", "latest", "not a digest", id="a tag in place of a digest"),
        pytest.param("--digest", "md5:" + "0" * 32, "not a digest", id="another hash"),
        pytest.param("--image", "ghcr.io/Octo/Baton", "lower case", id="capitals GHCR refuses"),
        pytest.param("--image", f"{IMAGE}:1.2.3", "without a tag", id="an image with a tag"),
    ],
)
def test_a_reference_that_could_move_or_never_pull_is_refused(
    tagged: tuple[Path, Path, str], option: str, value: str, complaint: str
) -> None:
    work, _, tested = tagged
    arguments = {"--tag": TAG, "--image": IMAGE, "--digest": DIGEST, option: value}
    done = pin(work, "commit", *[x for pair in arguments.items() for x in pair])
    assert done.returncode == 1
    assert complaint in done.stderr and "::error::" in done.stderr
    assert git(work, "rev-parse", "HEAD") == tested
    assert git(work, "status", "--porcelain") == ""


def test_an_action_that_no_longer_builds_the_dockerfile_is_refused(
    tagged: tuple[Path, Path, str],
) -> None:
    work, _, _ = tagged
    first = _sha(make_commit(work))
    again = make_commit(work)
    assert again.returncode == 1
    assert "already pinned" in again.stderr
    assert git(work, "rev-parse", "HEAD") == first


def test_the_branchs_action_yml_builds_the_dockerfile_the_release_rewrites() -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert text.count("\n  image: Dockerfile\n") == 1


# --------------------------------------------------------------------------- moving the tag


def test_push_moves_the_tag_from_the_tested_commit_to_the_release_commit(
    tagged: tuple[Path, Path, str],
) -> None:
    work, origin, tested = tagged
    sha = _sha(make_commit(work))
    done = pin(work, "push", "--tag", TAG, "--commit", sha)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{TAG} moved from {tested} to {sha}"
    assert remote_tag(origin) == sha
    shown = git(origin, "show", f"{TAG}:action.yml")
    assert f"image: docker://{IMAGE}@{DIGEST}" in shown


def test_push_leaves_alone_a_tag_someone_moved_meanwhile(
    tagged: tuple[Path, Path, str],
) -> None:
    work, origin, tested = tagged
    sha = _sha(make_commit(work))
    elsewhere = work.parent / "elsewhere"
    clone(elsewhere, origin)
    (elsewhere / "README.md").write_text("Baton, again\n", encoding="utf-8")
    git(elsewhere, "commit", "--quiet", "--no-gpg-sign", "-am", "Another candidate")
    git(elsewhere, "push", "--quiet", "--force", "origin", f"HEAD:refs/tags/{TAG}")
    moved = remote_tag(origin)
    done = pin(work, "push", "--tag", TAG, "--commit", sha)
    assert done.returncode == 1
    assert "someone moved it; nothing pushed" in done.stderr
    assert tested in done.stderr
    assert remote_tag(origin) == moved


def test_a_rerun_after_the_tag_moved_is_done_without_pushing(
    tagged: tuple[Path, Path, str],
) -> None:
    work, origin, _ = tagged
    sha = _sha(make_commit(work))
    assert pin(work, "push", "--tag", TAG, "--commit", sha).returncode == 0
    again = pin(work, "push", "--tag", TAG, "--commit", sha)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == f"{TAG} already names {sha}"
    assert remote_tag(origin) == sha


def test_push_refuses_a_commit_this_job_did_not_make(tagged: tuple[Path, Path, str]) -> None:
    # The tag job's own commit differs from the one the pin job ran: never push that one.
    work, origin, tested = tagged
    _sha(make_commit(work))
    done = pin(work, "push", "--tag", TAG, "--commit", "f" * 40)
    assert done.returncode == 1
    assert "was not made here" in done.stderr
    assert remote_tag(origin) == tested


# --------------------------------------------------------------------------- the workflow


@pytest.fixture(scope="module")
def jobs() -> dict[str, dict[str, Any]]:
    workflow = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    assert isinstance(workflow, dict)
    found: dict[str, dict[str, Any]] = workflow["jobs"]
    return found


def _needs(job: dict[str, Any]) -> set[str]:
    needs = job.get("needs", [])
    return {needs} if isinstance(needs, str) else set(needs)


def _commit_lines(job: dict[str, Any]) -> list[str]:
    return [
        " ".join(line.split())
        for step in job["steps"]
        for line in str(step.get("run", "")).replace("\\\n", " ").splitlines()
        if "pin_release.py commit" in line
    ]


def test_the_image_job_hands_on_the_digest_it_pushed(jobs: dict[str, dict[str, Any]]) -> None:
    image = jobs["image"]
    pushed = next(s for s in image["steps"] if s.get("id") == "push")
    assert pushed["with"]["push"] is True
    assert image["outputs"]["digest"] == "${{ steps.push.outputs.digest }}"


def test_the_pinned_action_runs_before_any_tag_moves(jobs: dict[str, dict[str, Any]]) -> None:
    assert _needs(jobs["pin"]) == {"image"}
    assert "pin" in _needs(jobs["tag"])
    steps = jobs["pin"]["steps"]
    made = next(i for i, s in enumerate(steps) if "pin_release.py commit" in str(s.get("run")))
    tried = next(i for i, s in enumerate(steps) if s.get("uses") == "./")
    assert made < tried
    assert steps[tried]["with"]["dry-run"] == "true"
    assert jobs["pin"]["permissions"] == {"contents": "read"}


def test_the_pin_and_tag_jobs_make_the_commit_from_the_same_inputs(
    jobs: dict[str, dict[str, Any]],
) -> None:
    pin_lines, tag_lines = _commit_lines(jobs["pin"]), _commit_lines(jobs["tag"])
    assert len(pin_lines) == len(tag_lines) == 1
    assert pin_lines[0].split(">>")[0].strip() == tag_lines[0]

    def env(job: str) -> dict[str, str]:
        step = next(s for s in jobs[job]["steps"] if "pin_release.py commit" in str(s.get("run")))
        return {k: step["env"][k] for k in ("TAG", "IMAGE", "DIGEST")}

    assert env("pin") == env("tag")
    assert env("pin")["DIGEST"] == "${{ needs.image.outputs.digest }}"


def test_the_tag_job_pushes_the_commit_the_pin_job_ran(jobs: dict[str, dict[str, Any]]) -> None:
    assert jobs["pin"]["outputs"]["commit"] == "${{ steps.commit.outputs.commit }}"
    step = next(s for s in jobs["tag"]["steps"] if "pin_release.py push" in str(s.get("run")))
    assert step["env"]["COMMIT"] == "${{ needs.pin.outputs.commit }}"
    assert '--commit "$COMMIT"' in step["run"]
    assert jobs["tag"]["permissions"] == {"contents": "write"}


def test_no_job_that_can_write_to_the_repository_runs_the_action(
    jobs: dict[str, dict[str, Any]],
) -> None:
    for name, job in jobs.items():
        if "write" in (job.get("permissions") or {}).get("contents", ""):
            assert not [s for s in job["steps"] if s.get("uses") == "./"], name


def test_every_checkout_in_the_release_leaves_no_token_behind(
    jobs: dict[str, dict[str, Any]],
) -> None:
    for name, job in jobs.items():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, name
