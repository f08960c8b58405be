"""The plain data the Tracker roles pass: what a dispatch names, which labels a change touches."""

from __future__ import annotations

import pytest

from baton.errors import InvalidWorkflowRef
from baton.github.role_data import DispatchTarget, LabelChange, LabelSpec


@pytest.mark.parametrize(
    ("ref", "workflow", "at"),
    [
        ("octo/repo/.github/workflows/baton.yml@refs/heads/main", "baton.yml", "refs/heads/main"),
        ("o/r/.github/workflows/a@b.yml@refs/tags/v1", "a", "b.yml@refs/tags/v1"),
    ],
    ids=["the file's name and its ref", "the first @ ends the path"],
)
def test_a_dispatch_goes_to_the_running_workflow_file_at_its_ref(
    ref: str, workflow: str, at: str
) -> None:
    assert DispatchTarget.from_workflow_ref(ref) == DispatchTarget(workflow=workflow, ref=at)


@pytest.mark.parametrize("ref", ["", "no-at-sign", "@refs/heads/main", "o/r/w.yml@"])
def test_a_workflow_ref_without_a_path_and_a_ref_is_refused_in_one_line(ref: str) -> None:
    with pytest.raises(InvalidWorkflowRef) as refused:
        DispatchTarget.from_workflow_ref(ref)
    assert str(refused.value) == f"GITHUB_WORKFLOW_REF {ref!r} is not path@ref"


def test_a_label_change_touches_only_the_difference_in_order() -> None:
    spec = LabelSpec(name="status:done", color="0e8a16", description="done")
    change = LabelChange(
        current=("bug", "status:received", "ui"),
        wanted=("bug", "ui", "status:done"),
        specs={"status:done": spec},
    )
    assert (change.add, change.remove) == (["status:done"], ["status:received"])
    assert LabelChange(("a",), ("a",), {}).add == LabelChange(("a",), ("a",), {}).remove == []
