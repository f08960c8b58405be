"""`names.py`: the names the fast path shares, and an issue's number read back from its branch's
name (a hint only: the record decides)."""

from __future__ import annotations

import pytest

from baton import names
from baton.names import issue_of_branch


def test_the_names_are_the_ones_github_and_the_docs_use() -> None:
    assert names.BOT_LOGIN == "github-actions[bot]"
    assert names.CONFIG_PATH == ".github/baton.yml"
    assert names.BRANCH_PREFIX == "baton/issue-"


@pytest.mark.parametrize(
    ("branch", "issue"),
    [
        pytest.param("baton/issue-42", 42, id="the issue's branch"),
        pytest.param("baton/issue-123456789", 123456789, id="nine digits"),
        pytest.param("baton/issue-1234567890", None, id="ten digits"),
        pytest.param("baton/issue-", None, id="no number"),
        pytest.param("baton/issue-042", None, id="a leading zero"),
        pytest.param("baton/issue-0", None, id="zero"),
        pytest.param("baton/issue-4x", None, id="not a number"),
        pytest.param("baton/issue-٤٢", None, id="Arabic-Indic digits"),
        pytest.param("feature/issue-42", None, id="another prefix"),
        pytest.param("xbaton/issue-42", None, id="the prefix not at the start"),
    ],
)
def test_the_issue_of_a_branch_is_read_from_its_name(branch: str, issue: int | None) -> None:
    assert issue_of_branch("baton/issue-", branch) == issue
