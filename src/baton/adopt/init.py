"""`baton init`: a repository's caller workflow and starter config, and what is left to do.

The caller is `caller.yml` beside this module (examples/workflows/baton.yml links to it): one
source, so what `init` writes is what the README shows. `init` only pins its `uses:` line and,
for another agent, swaps the `with:` block's install and command lines and the key's secret.
"""

from __future__ import annotations

import json
import re
import textwrap
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
_WITH = re.compile(r"^    with:\n(?:      .*\n|        .*\n)+", re.M)
_DEFAULT_KEY = AGENTS[DEFAULT_AGENT]


@dataclass(frozen=True)
class Setup:
    """What `init` writes (path -> text) and whether the caller is pinned to a commit."""

    files: dict[str, str]
    ref: str
    pinned: bool


def caller_source() -> str:
    return resources.files("baton.adopt").joinpath("caller.yml").read_text(encoding="utf-8")


def _folded(key: str, value: str) -> str:
    """`key: >-` and the value folded onto lines of the block (YAML joins them with spaces)."""
    lines = textwrap.wrap(value, 88, break_long_words=False, break_on_hyphens=False)
    if " ".join(lines) != value:  # runs of spaces would not survive folding
        raise SetupRefused(f"cannot fold {key}: {value!r}")
    return f"      {key}: >-\n" + "".join(f"        {line}\n" for line in lines)


def caller_workflow(agent: str, ref: str, *, repository: str = BATON_REPOSITORY) -> str:
    """The caller workflow for `agent`, its `uses:` at `ref` (a commit SHA, or a tag the
    maintainer is told to pin)."""
    text = caller_source()
    pin = f"{repository}/.github/workflows/{REUSABLE_WORKFLOW}@{ref}"
    comment = (
        f"# v{__version__}"
        if SHA.fullmatch(ref)
        else "# zizmor: ignore[unpinned-uses] a tag: pin its commit SHA (baton init --ref SHA)"
    )
    text, found = _USES.subn(lambda m: f"{m['indent']}uses: {pin} {comment}", text, count=1)
    if not found:
        raise SetupRefused(f"caller.yml has no `uses:` of {REUSABLE_WORKFLOW}")
    setup = AGENTS[agent]
    if agent == DEFAULT_AGENT:
        return text
    block = f"    with:\n      agent-setup: {setup.ready.setup}\n"
    block += _folded("agent-command", setup.ready.command)
    text = _WITH.sub(lambda _: block, text, count=1)
    old = f"{_DEFAULT_KEY.passed_as}: ${{{{ secrets.{_DEFAULT_KEY.secret} }}}}"
    new = f"{setup.passed_as}: ${{{{ secrets.{setup.secret} }}}}"
    return text.replace(old, new).replace(f"({_DEFAULT_KEY.secret} here;", f"({setup.secret} here;")


def starter_config() -> str:
    """A small `.github/baton.yml` that Baton's loader accepts: the keys a maintainer changes
    first; every other one keeps its default."""
    return (
        f"# {CONFIG_PATH}: Baton's settings for this repository. Every key is optional; the\n"
        "# whole list, with when to change each, is examples/baton.yml in Baton's repository.\n"
        f"# Check it before you commit: baton validate --config {CONFIG_PATH}\n"
        "workflow: issue-lifecycle # or approval-gate, task-review (baton graph --workflow NAME)\n"
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


def plan(agent: str, ref: str | None, *, direct_url: str | None = None) -> Setup:
    """The files for `agent`, the caller pinned to `ref`, else to the commit this Baton was
    installed from, else to this release's tag (which the maintainer is told to pin)."""
    if agent not in AGENTS:
        raise SetupRefused(f"unknown agent {agent!r}; the agents are: {', '.join(AGENTS)}")
    repository, chosen = BATON_REPOSITORY, ref or f"v{__version__}"
    installed = None if ref else installed_commit(direct_url)
    if installed is not None:
        repository, chosen = installed
    if not _REF.fullmatch(chosen) or ".." in chosen:
        raise SetupRefused(f"--ref {chosen!r} is neither a commit SHA nor a tag")
    caller = caller_workflow(agent, chosen, repository=repository)
    files = {CALLER_PATH: caller, CONFIG_PATH: starter_config()}
    return Setup(files, chosen, bool(SHA.fullmatch(chosen)))


def write(root: Path, setup: Setup, *, force: bool) -> list[str]:
    """Write the files under `root`; none at all when one exists already and not `force`."""
    existing = [path for path in setup.files if (root / path).exists()]
    if existing and not force:
        raise SetupRefused(f"{existing[0]} exists; pass --force to overwrite it")
    for path, text in setup.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return list(setup.files)


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
