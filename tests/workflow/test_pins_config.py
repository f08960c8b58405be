"""Pins the rules of `workflow/config_model.py` that a mutation sample found unprotected (issue 18,
item 5): each thing that keeps a branch prefix from starting a git branch name is refused on
its own, with one line naming the setting and the value."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.errors import InvalidConfig
from baton.workflow.config import parse_config


def _load(prefix: str) -> str:
    settings = parse_config(f"work:\n  branch_prefix: {prefix!r}\n", source="baton.yml")
    return settings.policy.work.branch_prefix


def _git_accepts(branch: str) -> bool:
    found = subprocess.run(
        ["git", "check-ref-format", f"refs/heads/{branch}"], capture_output=True, check=False
    )
    return found.returncode == 0


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param("baton/issue-", id="the default"),
        pytest.param("bots/baton.v2_work-", id="dots, underscores and slashes inside"),
        pytest.param("work/", id="a folder of numbers"),
    ],
)
def test_a_prefix_git_takes_is_kept(prefix: str) -> None:
    assert _load(prefix) == prefix
    assert _git_accepts(f"{prefix}42")


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param("baton/..issue-", id="two dots, and nothing else wrong"),
        pytest.param("/issue-", id="a leading slash, and nothing else wrong"),
        pytest.param("-issue-", id="a leading dash, and nothing else wrong"),
        pytest.param("baton/issue.lock", id="a .lock ending, and nothing else wrong"),
    ],
)
def test_each_flaw_of_a_prefix_is_refused_on_its_own(prefix: str) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _load(prefix)
    assert str(caught.value) == (
        f"baton.yml:2: work.branch_prefix: {prefix!r} cannot start a git branch name"
    )


@pytest.mark.parametrize("prefix", ["baton//issue-", "baton/.issue-", ".baton/", "x.lock/"])
def test_a_prefix_whose_branches_git_refuses_is_refused_at_load(prefix: str) -> None:
    assert not _git_accepts(f"{prefix}42")
    with pytest.raises(InvalidConfig, match="cannot start a git branch name"):
        _load(prefix)


@settings(max_examples=150, deadline=None)
@given(prefix=st.text(alphabet="ab./-_", min_size=1, max_size=12))
def test_every_prefix_the_check_takes_makes_branches_git_takes(prefix: str) -> None:
    """Sound against git itself: a prefix the config loads never makes a branch git refuses."""
    try:
        loaded = _load(prefix)
    except InvalidConfig:
        return
    assert _git_accepts(f"{loaded}42"), loaded
