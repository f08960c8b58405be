"""`core/model/issue_facts.py`: when GitHub last set a comment's body, by the times no client
can set; a reaction does not move it where GitHub says when the body was edited."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton.core.model.issue_facts import Comment

MADE = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
LATER = MADE + timedelta(minutes=5)
LATEST = MADE + timedelta(minutes=9)


@pytest.mark.parametrize(
    ("times", "expected"),
    [
        pytest.param({}, MADE, id="never changed: its creation"),
        pytest.param({"updated_at": LATER}, LATER, id="over REST: updated_at"),
        pytest.param(
            {"updated_at": LATEST, "edited_at": LATER}, LATER, id="over GraphQL: the last edit"
        ),
    ],
)
def test_a_comment_s_body_was_set_at_its_last_edit(
    times: dict[str, datetime], expected: datetime
) -> None:
    comment = Comment(id=1, author="a", body="b", created_at=MADE, **times)  # type: ignore[arg-type]
    assert comment.body_set_at == expected
