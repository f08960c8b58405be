"""What the documents say about GitHub and about Baton's own workflow agrees with both: CI on a
pull request GITHUB_TOKEN made waits for a write user's approval (GitHub's rule, docs/tokens.md),
and the concurrency group is the one the reusable workflow sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
USER_DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "action.yml",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "examples").rglob("*.md"),
        *(ROOT / "examples").rglob("*.yml"),
    ]
)
# What GitHub stopped doing in 2026 (docs/tokens.md): pull requests GITHUB_TOKEN makes now get
# their `pull_request` runs, held for approval. Said of pull requests, these are wrong.
WRONG = [
    re.compile(r"pull requests? made with GITHUB_TOKEN start no CI", re.I),
    re.compile(r"start no CI runs", re.I),
    re.compile(r"CI runs? on Baton's pull requests only with the App", re.I),
    re.compile(r"to have CI run on them", re.I),
]


def _flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_says_baton_pull_requests_get_no_ci(path: Path) -> None:
    text = _flat(path)
    assert [w.pattern for w in WRONG if w.search(text)] == []


def test_the_check_finds_what_action_yml_used_to_say() -> None:
    old = (
        "Commits and pull requests made with GITHUB_TOKEN start no CI runs: pass a GitHub App "
        "installation token to have CI run on them (docs/tokens.md)."
    )
    assert any(w.search(old) for w in WRONG)


def test_the_token_input_says_ci_waits_for_approval_and_an_app_starts_it_unapproved() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    said = " ".join(action["inputs"]["github-token"]["description"].split())
    assert (
        "A pull request GITHUB_TOKEN opens or updates gets `pull_request` CI runs that wait for "
        "a write user's \"Approve and run\"; a GitHub App installation token's start at once, "
        "unapproved, and need `ci: {unapproved_runs: accept}` (docs/tokens.md)."
    ) in said


def test_the_examples_name_the_concurrency_group_the_reusable_workflow_sets() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "baton-issues.yml").read_text())
    group = " ".join(workflow["jobs"]["report"]["concurrency"]["group"].split())
    assert group.startswith("baton-${{ inputs.branch-prefix }}${{ ")
    examples = _flat(ROOT / "examples" / "README.md")
    assert "the group `baton-<branch-prefix><issue number>`" in examples
    assert "(`baton-baton/issue-7` for issue 7 with the default prefix)" in examples
    assert "`baton-<issue number>`" not in examples
