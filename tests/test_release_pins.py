"""What the Action is built from stays what was reviewed: every action pinned to a commit, the
workflows checked by a security linter, the image's dependencies locked with hashes, and
Dependabot proposing the updates instead of a tag or an index moving under us."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
PROJECT_WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
EXAMPLE_WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
SNIPPET_DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "examples").rglob("*.md")),
    *sorted((ROOT / "docs").glob("*.md")),
]
LOCK = ROOT / "requirements.txt"
DEPENDABOT = ROOT / ".github" / "dependabot.yml"
VENV_BIN = Path(sys.executable).parent


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------- pinned actions

_USES = re.compile(
    r"^[ \t]*(?:-[ \t]+)?uses:[ \t]*(?P<ref>[^\s#]+)[ \t]*(?:#[ \t]*(?P<comment>.*))?$", re.M
)
_PINNED = re.compile(r"(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})")
_VERSION_COMMENT = re.compile(r"v\d+\.\d+\.\d+")
# The examples' own Baton reference is a placeholder the user replaces with the release they
# pin (the file's step 1 says how); zizmor is told so on the line. The reusable workflow runs
# the action of its own commit (a checkout of job.workflow_sha, `./.baton/action`).
_PLACEHOLDERS = {
    f"OWNER/baton@v{VERSION}",
    f"OWNER/baton/.github/workflows/baton-issues.yml@v{VERSION}",
}


def _yaml_blocks(markdown: str) -> str:
    return "\n".join(re.findall(r"^```ya?ml\n(.*?)^```", markdown, re.S | re.M))


def _uses(path: Path) -> list[tuple[str, str]]:
    """Each `uses:` of a workflow, or of a Markdown file's YAML snippets: (ref, comment)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = _yaml_blocks(text)
    return [(m["ref"], (m["comment"] or "").strip()) for m in _USES.finditer(text)]


def _pins(paths: list[Path]) -> dict[str, set[tuple[str, str]]]:
    """action -> {(sha, version comment)} over the files."""
    pins: dict[str, set[tuple[str, str]]] = {}
    for path in paths:
        for ref, comment in _uses(path):
            if match := _PINNED.fullmatch(ref):
                pins.setdefault(match["action"], set()).add((match["sha"], comment))
    return pins


@pytest.mark.parametrize("path", [*PROJECT_WORKFLOWS, *EXAMPLE_WORKFLOWS, *SNIPPET_DOCS], ids=_rel)
def test_every_action_is_pinned_to_a_full_commit_sha_with_its_version_beside_it(
    path: Path,
) -> None:
    loose = []
    for ref, comment in _uses(path):
        if ref.startswith("./"):
            continue  # this repository's own action, at the commit under test
        if path in EXAMPLE_WORKFLOWS and ref in _PLACEHOLDERS:
            assert "zizmor: ignore[unpinned-uses]" in comment
            continue
        if not (_PINNED.fullmatch(ref) and _VERSION_COMMENT.match(comment)):
            loose.append(f"{ref} {comment}".strip())
    assert loose == [], "pin to a full commit SHA with `# vX.Y.Z` after it"


def test_the_checks_see_the_snippets_they_are_meant_to() -> None:
    # The README shows commands, not workflow YAML: the examples and docs/ hold every `uses:`.
    assert _pins(EXAMPLE_WORKFLOWS)
    assert ROOT / ".github" / "workflows" / "baton-issues.yml" in PROJECT_WORKFLOWS
    assert {p.name for p in EXAMPLE_WORKFLOWS} >= {"baton.yml", "baton-expanded.yml"}
    assert any(path.name == "tokens.md" for path in SNIPPET_DOCS)


def test_the_app_token_is_pinned_where_the_reusable_workflow_and_the_docs_use_it() -> None:
    pins = _pins([*PROJECT_WORKFLOWS, *SNIPPET_DOCS])
    assert len(pins["actions/create-github-app-token"]) == 1


def test_the_example_and_the_docs_pin_each_action_where_the_projects_workflows_do() -> None:
    # Dependabot updates .github/workflows for sure; this keeps the copies users take in step.
    ours = _pins(PROJECT_WORKFLOWS)
    for path in [*EXAMPLE_WORKFLOWS, *SNIPPET_DOCS]:
        for action, pins in _pins([path]).items():
            if action in ours:
                assert pins == ours[action], f"{_rel(path)}: copy the pin of {action}"


def test_each_action_is_pinned_at_one_commit_across_all_files() -> None:
    pins = _pins([*PROJECT_WORKFLOWS, *EXAMPLE_WORKFLOWS, *SNIPPET_DOCS])
    assert {action: p for action, p in pins.items() if len(p) > 1} == {}


@pytest.mark.parametrize(
    ("line", "pinned"),
    [
        pytest.param(
            "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
            True,
            id="a full sha with its version is pinned",
        ),
        pytest.param("      - uses: actions/checkout@v7", False, id="a major tag is not pinned"),
        pytest.param(
            "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
            False,
            id="a sha without its version is not accepted",
        ),
        pytest.param(
            "        uses: actions/checkout@3d3c42e5 # v7.0.1",
            False,
            id="a short sha is not pinned",
        ),
        pytest.param(
            "      - uses: pypa/gh-action-pypi-publish@release/v1",
            False,
            id="a branch is not pinned",
        ),
    ],
)
def test_the_pin_check_tells_a_pin_from_a_moving_reference(
    tmp_path: Path, line: str, pinned: bool
) -> None:
    workflow = tmp_path / "w.yml"
    workflow.write_text(f"jobs:\n  a:\n    steps:\n{line}\n", encoding="utf-8")
    ((ref, comment),) = _uses(workflow)
    assert bool(_PINNED.fullmatch(ref) and _VERSION_COMMENT.match(comment)) is pinned


# --------------------------------------------------------------------------- zizmor


def _zizmor() -> str:
    for candidate in (VENV_BIN / "zizmor", shutil.which("zizmor")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.fail("zizmor is not installed (pip install zizmor, part of the dev extra)")


def _run_zizmor(*inputs: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # Offline: the same answer on every machine, and no GitHub token handed to a linter.
    env = {k: v for k, v in os.environ.items() if k not in {"GH_TOKEN", "GITHUB_TOKEN"}}
    return subprocess.run(
        [_zizmor(), "--offline", "--no-progress", "--format", "plain", *inputs],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "path",
    [*PROJECT_WORKFLOWS, *EXAMPLE_WORKFLOWS, ROOT / "action.yml", DEPENDABOT],
    ids=_rel,
)
def test_zizmor_finds_nothing_wrong(path: Path) -> None:
    # Findings that are accepted carry `# zizmor: ignore[...]` on their line, with the reason.
    result = _run_zizmor(_rel(path))
    assert result.returncode == 0, result.stdout + result.stderr


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, f"the mutation no longer applies: {old!r} is gone"
    return text.replace(old, new, 1)


SELF_TEST = ROOT / ".github" / "workflows" / "self-test.yml"


@pytest.mark.parametrize(
    ("path", "mutate", "audit"),
    [
        pytest.param(
            SELF_TEST,
            lambda t: re.sub(r"actions/checkout@\S+ # \S+", "actions/checkout@v7", t),
            "unpinned-uses",
            id="an action pinned to a tag is caught",
        ),
        pytest.param(
            SELF_TEST,
            lambda t: _replace(
                t,
                'printf \'decision: %s\\ntransitioned: %s\\n\' "$DECISION" "$TRANSITIONED"',
                "echo '${{ github.event.pull_request.title }}'",
            ),
            "template-injection",
            id="a pull request title expanded into a shell script is caught",
        ),
        pytest.param(
            SELF_TEST,
            lambda t: _replace(t, "permissions:\n  contents: read\n  issues: read\n", ""),
            "excessive-permissions",
            id="a workflow left with the default token permissions is caught",
        ),
        *(
            pytest.param(
                path,
                # Every one: zizmor reports the triggers together, so one reason hides both.
                lambda t: _replace(t, " # zizmor: ignore[dangerous-triggers]", "").replace(
                    " # zizmor: ignore[dangerous-triggers]", ""
                ),
                "dangerous-triggers",
                id=f"issue_comment and workflow_run without the reasons of {path.name} are caught",
            )
            for path in EXAMPLE_WORKFLOWS
        ),
        pytest.param(
            ROOT / ".github" / "workflows" / "baton-issues.yml",
            lambda t: _replace(
                t, 'SETUP="${SETUP:-$AGENT_SETUP}"', 'SETUP="${SETUP:-${{ inputs.agent-setup }}}"'
            ),
            "template-injection",
            id="the agent's setup expanded into its shell script is caught",
        ),
        pytest.param(
            DEPENDABOT,
            lambda t: re.sub(r"\n +cooldown:\n +default-days: 7", "", t),
            "dependabot-cooldown",
            id="dependabot proposing releases the day they appear is caught",
        ),
    ],
)
def test_zizmor_rejects_a_broken_copy(
    tmp_path: Path, path: Path, mutate: Callable[[str], str], audit: str
) -> None:
    broken = mutate(path.read_text(encoding="utf-8"))
    # A copy under the same relative path, so that zizmor reads it as the same kind of file.
    copy = tmp_path / _rel(path)
    copy.parent.mkdir(parents=True)
    copy.write_text(broken, encoding="utf-8")
    result = _run_zizmor(str(copy))
    assert result.returncode != 0, result.stdout + result.stderr
    assert f"[{audit}]" in result.stdout


# --------------------------------------------------------------------------- the lock


def _lock() -> dict[str, tuple[str, list[str]]]:
    """requirements.txt: name -> (version, hashes)."""
    entries: dict[str, tuple[str, list[str]]] = {}
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, *options = line.split()
        name, _, version = requirement.partition("==")
        assert version, f"{requirement}: not pinned with =="
        hashes = [o.removeprefix("--hash=") for o in options if o.startswith("--hash=")]
        entries[canonicalize_name(name)] = (version, hashes)
    return entries


def _runtime_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return [Requirement(spec) for spec in project["dependencies"]]


def test_the_lock_was_compiled_from_pyproject_with_hashes() -> None:
    # Dependabot re-runs the command in this header, so it must be the whole recipe.
    header = LOCK.read_text(encoding="utf-8").split("\n\n", 1)[0]
    command = re.search(r"^#\s+(pip-compile .*)$", header, re.M)
    assert command, "the lock's header names the pip-compile command"
    assert "--generate-hashes" in command.group(1).split()
    assert command.group(1).split()[-1] == "pyproject.toml"


@pytest.mark.parametrize("requirement", _runtime_requirements(), ids=str)
def test_the_lock_pins_each_runtime_dependency_within_pyprojects_range(
    requirement: Requirement,
) -> None:
    lock = _lock()
    name = canonicalize_name(requirement.name)
    assert name in lock, f"{requirement.name} is missing: run the command in the lock's header"
    version, _ = lock[name]
    assert requirement.specifier.contains(version), f"{name}=={version} is outside {requirement}"


def test_every_locked_package_carries_sha256_hashes() -> None:
    unhashed = [
        name
        for name, (_, hashes) in _lock().items()
        if not hashes or not all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes)
    ]
    assert unhashed == []


def test_the_lock_names_no_index_or_directory_of_this_machine() -> None:
    # pip-compile copies find-links and index URLs of the machine it ran on into the lock.
    text = LOCK.read_text(encoding="utf-8")
    assert not re.search(r"^--(?:find-links|index-url|extra-index-url|trusted-host)", text, re.M)
    assert "file://" not in text


def test_the_image_installs_the_lock_and_only_with_hashes() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    installs = re.findall(r"pip install [^\n]*--requirement (\S+)", dockerfile)
    assert installs == ["requirements.txt"]
    assert "--require-hashes --requirement requirements.txt" in dockerfile
    assert dockerfile.index("COPY requirements.txt") < dockerfile.index("COPY src")


# --------------------------------------------------------------------------- Dependabot


def _dependabot() -> dict[str, dict[str, object]]:
    config = yaml.safe_load(DEPENDABOT.read_text(encoding="utf-8"))
    assert config["version"] == 2
    return {update["package-ecosystem"]: update for update in config["updates"]}


def _directories(update: dict[str, object]) -> set[str]:
    listed = update.get("directories") or [update.get("directory")]
    assert isinstance(listed, list)
    return {str(d) for d in listed}


def test_dependabot_updates_the_lock_the_actions_and_the_base_image() -> None:
    updates = _dependabot()
    assert set(updates) == {"pip", "github-actions", "docker"}
    assert "/" in _directories(updates["pip"])  # requirements.txt and pyproject.toml
    assert "/" in _directories(updates["docker"])  # the Dockerfile
    assert {"/", "/examples/workflows"} <= _directories(updates["github-actions"])


def test_dependabot_waits_before_proposing_a_new_release() -> None:
    for ecosystem, update in _dependabot().items():
        cooldown = update.get("cooldown")
        assert isinstance(cooldown, dict), ecosystem
        assert int(cooldown["default-days"]) >= 3, ecosystem


def test_the_dependabot_config_matches_its_schema() -> None:
    tool = VENV_BIN / "check-jsonschema"
    if not tool.is_file():
        pytest.fail("check-jsonschema is not installed (part of the dev extra)")
    result = subprocess.run(
        [str(tool), "--builtin-schema", "vendor.dependabot", str(DEPENDABOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
