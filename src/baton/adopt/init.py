"""`baton init`: a repository's caller workflow and starter config, and what is left to do.

The caller is `caller.yml` beside this module (examples/workflows/baton.yml links to it): one
source, so what `init` writes is what the README shows. `init` pins its `uses:` line, puts a
header fit for where the file is written in place of the copy-me steps and, for another agent,
names that agent's ready profile and the key's secret.

`init` writes only a ref it can vouch for: `--ref`, else the commit pip installed this Baton
from (PEP 610), else the release commit a release build recorded in the package
(`release.json` beside this module, written by .github/workflows/release.yml before it builds
the package). A local or editable install records neither: `init` says what to pass and writes
nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

from baton import __version__
from baton.adopt.agents import AGENTS, DEFAULT_AGENT
from baton.adopt.needs import APPROVE_SETTING, CALLER_PATH, RECORD_SECRET, REUSABLE_WORKFLOW
from baton.errors import SetupRefused
from baton.names import CONFIG_PATH

BATON_REPOSITORY = "issue-baton/baton"  # where releases are tagged (pyproject's Homepage)
DISTRIBUTION = "issue-baton"
_GITHUB = re.compile(r"(?:git\+)?https://github\.com/(?P<repository>[\w.-]+/[\w.-]+?)(?:\.git)?/?")
SHA = re.compile(r"[0-9a-f]{40}")
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
_USES = re.compile(
    rf"^(?P<indent>[ \t]+)uses: [\w.-]+/[\w.-]+/\.github/workflows/{re.escape(REUSABLE_WORKFLOW)}"
    r"@\S+.*$",
    re.M,
)
_AGENT = re.compile(r"^      agent: [a-z0-9-]+$", re.M)
_COPY_STEPS = re.compile(r"^# Copy this file to .*\n(?:#   .*\n)+", re.M)
_DEFAULT_KEY = AGENTS[DEFAULT_AGENT]
RELEASE_RECORD = "release.json"  # beside this module in a release build only
_REPOSITORY = re.compile(r"[\w.-]+/[\w.-]+")


@dataclass(frozen=True)
class Setup:
    """What `init` writes (path -> text) and whether the caller is pinned to a commit."""

    files: dict[str, str]
    ref: str
    pinned: bool


def caller_source() -> str:
    return resources.files("baton.adopt").joinpath("caller.yml").read_text(encoding="utf-8")


def written_header(agent: str, ref: str) -> str:
    """What the written caller says in place of the example's copy-me steps: it is where it
    belongs already, so only what is left to do."""
    key = AGENTS[agent].secret
    lines = [
        f"# Written by `baton init` to {CALLER_PATH}. Before Baton can run:",
        f"#   1. Add the secrets: gh secret set {key} (the agent's key), and the record's",
        f"#      signing secret: openssl rand -hex 32 | gh secret set {RECORD_SECRET}",
        "#   2. Allow Actions to open pull requests (Settings, Actions, General), commit this",
        f"#      file and {CONFIG_PATH}, then check: baton doctor --repo OWNER/NAME",
    ]
    if not SHA.fullmatch(ref):
        lines.append(f"#   3. Pin the `uses:` line below to the commit SHA of {ref} (a tag moves).")
    return "".join(f"{line}\n" for line in lines)


def caller_workflow(
    agent: str, ref: str, *, repository: str = BATON_REPOSITORY, release: str | None = None
) -> str:
    """The caller workflow for `agent`, its `uses:` at `ref` (a commit SHA, or a tag the
    maintainer is told to pin; `release`: the tag that commit is)."""
    text = caller_source()
    pin = f"{repository}/.github/workflows/{REUSABLE_WORKFLOW}@{ref}"
    comment = (
        f"# {release or f'v{__version__}'}"
        if SHA.fullmatch(ref)
        else "# zizmor: ignore[unpinned-uses] a tag: pin its commit SHA (baton init --ref SHA)"
    )
    text, found = _USES.subn(lambda m: f"{m['indent']}uses: {pin} {comment}", text, count=1)
    text, steps = _COPY_STEPS.subn(lambda _: written_header(agent, ref), text, count=1)
    if not found or not steps:
        raise SetupRefused(f"caller.yml has no `uses:` of {REUSABLE_WORKFLOW} or no copy steps")
    setup = AGENTS[agent]
    if agent == DEFAULT_AGENT:
        return text
    text = _AGENT.sub(lambda _: f"      agent: {setup.profile}", text, count=1)
    old = f"{_DEFAULT_KEY.passed_as}: ${{{{ secrets.{_DEFAULT_KEY.secret} }}}}"
    new = f"{setup.passed_as}: ${{{{ secrets.{setup.secret} }}}}"
    return text.replace(old, new)


def starter_config() -> str:
    """A small `.github/baton.yml` that Baton's loader accepts: the keys a maintainer changes
    first; every other one keeps its default."""
    return (
        f"# {CONFIG_PATH}: Baton's settings for this repository. Every key is optional; the\n"
        "# whole list, with when to change each, is examples/baton.yml in Baton's repository.\n"
        f"# Check it before you commit: baton validate --config {CONFIG_PATH}\n"
        "workflow: issue-lifecycle # or approval-gate, task-review, test-first "
        "(baton graph --workflow NAME)\n"
        "entry:\n"
        "  trigger_label: baton # adding this label to an issue starts the workflow\n"
        "approvers:\n"
        "  permission: write # who may say `approved` at a gate\n"
    )


def installed_commit(direct_url: str | None) -> tuple[str, str] | None:
    """The repository and commit this Baton was installed from, when pip recorded them
    (`pip install git+https://github.com/OWNER/NAME@SHA` writes `direct_url.json`, PEP 610)."""
    try:
        record = json.loads(direct_url or "null")
    except ValueError:
        return None
    vcs = record.get("vcs_info") if isinstance(record, dict) else None
    commit = vcs.get("commit_id") if isinstance(vcs, dict) else None
    where = _GITHUB.fullmatch(str(record.get("url", ""))) if isinstance(record, dict) else None
    if not isinstance(commit, str) or not SHA.fullmatch(commit) or where is None:
        return None
    return where["repository"], commit


def direct_url_record() -> str | None:
    """What pip recorded of where this Baton came from; None when it recorded nothing."""
    try:
        return metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None


def release_commit(record: str | None) -> tuple[str, str, str] | None:
    """The repository, commit and tag a release build recorded (`release.json`); None when
    there is none, or it is not this version's (a record is trusted only as the build wrote
    it: a repository, a full commit SHA, this version's tag)."""
    try:
        data = json.loads(record or "null")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    repository, commit, tag = data.get("repository"), data.get("commit"), data.get("tag")
    if not (
        isinstance(repository, str)
        and _REPOSITORY.fullmatch(repository)
        and isinstance(commit, str)
        and SHA.fullmatch(commit)
        and tag == f"v{__version__}"
    ):
        return None
    return repository, commit, tag


def release_record() -> str | None:
    """What a release build recorded in this package; None in any other build."""
    try:
        return resources.files("baton.adopt").joinpath(RELEASE_RECORD).read_text("utf-8")
    except (FileNotFoundError, OSError):
        return None


def setup_for(
    agent: str,
    ref: str | None,
    *,
    direct_url: str | None = None,
    release: str | None = None,
    again: str = "baton init",
) -> Setup:
    """The files for `agent`, the caller pinned to `ref`, else to the commit this Baton was
    installed from, else to the release commit its build recorded; none of them: SetupRefused
    saying what to pass (`again`: the command as given, to paste with --ref)."""
    if agent not in AGENTS:
        raise SetupRefused(f"unknown agent {agent!r}; the agents are: {', '.join(AGENTS)}")
    repository, chosen, tag = BATON_REPOSITORY, ref or "", None
    installed = None if ref else installed_commit(direct_url)
    recorded = None if ref or installed else release_commit(release)
    if installed is not None:
        repository, chosen = installed
    elif recorded is not None:
        repository, chosen, tag = recorded
    elif not ref:
        raise SetupRefused(
            f"this Baton ({__version__}) is not a release build and was not installed from a "
            f"commit, so it knows no Baton commit to pin: run `{again} --ref SHA` with the "
            "full commit SHA of the Baton release to call (its release summary prints it)"
        )
    if not _REF.fullmatch(chosen) or ".." in chosen:
        raise SetupRefused(f"--ref {chosen!r} is neither a commit SHA nor a tag")
    caller = caller_workflow(agent, chosen, repository=repository, release=tag)
    files = {CALLER_PATH: caller, CONFIG_PATH: starter_config()}
    return Setup(files, chosen, bool(SHA.fullmatch(chosen)))


def _in_git_repository(root: Path) -> bool:
    """A `.git` (a folder, or the file of a worktree or submodule) at `root` or above."""
    return any((folder / ".git").exists() for folder in (root, *root.parents))


def check_root(root: Path) -> None:
    """SetupRefused unless `root` is a folder of a git repository (init creates none)."""
    if not root.is_dir():
        raise SetupRefused(f"--dir {root}: no such folder; give the repository's checkout")
    if not _in_git_repository(root.resolve()):
        raise SetupRefused(
            f"{root.resolve()} is not in a git repository: run baton init in your repository's "
            "checkout (or pass --dir it)"
        )


def write(root: Path, setup: Setup, *, force: bool) -> list[str]:
    """Write the files under `root`, a folder of a git repository; returns those written. The
    caller is rewritten only with `force`; a config that exists is never touched (it is the
    maintainer's). Nothing is written when anything is refused."""
    check_root(root)
    if (root / CALLER_PATH).exists() and not force:
        raise SetupRefused(f"{CALLER_PATH} exists; pass --force to rewrite it")
    written = []
    for path, text in setup.files.items():
        target = root / path
        if path != CALLER_PATH and target.exists():
            continue  # the maintainer's own: --force rewrites only the caller
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def next_steps(agent: str, setup: Setup) -> list[str]:
    """What the maintainer does next, in order: the pin, the secrets, the setting, the check."""
    key = AGENTS[agent]
    lines = []
    if not setup.pinned:
        lines += [
            f"note: {CALLER_PATH} names the tag {setup.ref}, which can move: pin the release's "
            f"commit SHA (baton init --ref SHA --force, or edit its `uses:` line).",
        ]
    lines += [
        "Next:",
        "  1. Add the secrets (GitHub shows their names, never their values):",
        f"       openssl rand -hex 32 | gh secret set {RECORD_SECRET}",
        f"       gh secret set {key.secret}   # the {key.profile} agent's key",
        f'  2. Turn on Settings → Actions → General → Workflow permissions → "{APPROVE_SETTING}"',
        "     (Baton opens a draft pull request with the workflow's token).",
        "  3. Commit both files, then check the setup: baton doctor --repo OWNER/NAME",
    ]
    return lines
