"""Connections paged as GitHub pages them: `first` required and at most 100, cursors that read
on from their item (even one deleted since), and GitHub's error types."""

from __future__ import annotations

import pytest

from baton.sim.api.graphql_paging import GitHubError, _connection, _cursor


def _page(items: list[int], first: int | None, after: str | None = None) -> dict[str, object]:
    return _connection("comments", items, first, after, key=lambda i: i, render=lambda i: {"n": i})


def test_a_page_reads_on_from_its_cursor_even_when_that_item_is_gone() -> None:
    first = _page([1, 2, 3, 5], 2)
    assert first["nodes"] == [{"n": 1}, {"n": 2}]
    assert first["pageInfo"] == {
        "hasNextPage": True,
        "hasPreviousPage": False,
        "startCursor": _cursor(1),
        "endCursor": _cursor(2),
    }
    assert first["totalCount"] == 4
    assert _page([1, 3, 5], 2, _cursor(2))["nodes"] == [{"n": 3}, {"n": 5}]


@pytest.mark.parametrize(
    ("first", "after", "kind"),
    [
        (None, None, "MISSING_PAGINATION_BOUNDARIES"),
        (101, None, "EXCESSIVE_PAGINATION"),
        (-1, None, "INVALID_ARGUMENTS"),
        (10, "not-a-cursor", "INVALID_CURSOR_ARGUMENTS"),
    ],
)
def test_pages_github_refuses_are_refused_with_its_error_type(
    first: int | None, after: str | None, kind: str
) -> None:
    with pytest.raises(GitHubError) as refused:
        _page([1, 2], first, after)
    assert refused.value.kind == kind
