"""Every way a run can fail, in one module: which errors reach a user as `BatonError`s (the
three that never do are named), and what each carries beyond its message."""

from __future__ import annotations

import inspect
import re

import pytest

from baton import errors

NOT_FOR_USERS = {
    "DuplicateKeyError",
    "YamlRefused",
    "RecordCorrupt",
    "GraphQLUnusable",
    "InvalidDuration",
    "InvalidSetting",
    "InvalidInput",
    "InvalidStep",
    "StateNotInWorkflow",
}


def _classes() -> dict[str, type]:
    return {
        name: cls
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if cls.__module__ == errors.__name__
    }


def test_every_error_but_the_internal_ones_is_a_baton_error() -> None:
    classes = _classes()
    internal = {name for name, cls in classes.items() if not issubclass(cls, errors.BatonError)}
    assert internal == NOT_FOR_USERS
    assert all(
        issubclass(cls, ValueError)
        for name, cls in classes.items()
        if "Invalid" in name and name in NOT_FOR_USERS
    )


def test_the_docstrings_tree_draws_every_error_under_its_base() -> None:
    """The module docstring's tree is the exception tree: each class once, indented under
    its base, the internal ones below it."""
    doc = errors.__doc__ or ""
    drawn = {
        match.group(2): len(match.group(1))
        for match in re.finditer(r"^( *(?:[│ ]   )*(?:├── |└── )?)([A-Z]\w+)", doc, re.M)
        if match.group(2) in _classes()
    }
    assert set(drawn) == set(_classes())
    for name, cls in _classes().items():
        base = cls.__mro__[1].__name__
        if base in drawn:
            assert drawn[name] > drawn[base], (name, base)


@pytest.mark.parametrize(
    ("path", "where"),
    [((), "top level"), (("work",), "work"), (("states", "implementing"), "states.implementing")],
)
def test_a_duplicate_key_says_where_and_on_which_line(path: tuple[str, ...], where: str) -> None:
    error = errors.DuplicateKeyError("agent", 12, path)
    assert str(error) == f"duplicate key 'agent' in {where} (line 12)"
    assert (error.key, error.line, error.path) == ("agent", 12, path)
    assert isinstance(error, ValueError)


def test_a_moved_head_is_a_409_that_names_the_head() -> None:
    error = errors.StaleHead("the branch moved", head="abc123")
    assert (str(error), error.status, error.head) == ("the branch moved", 409, "abc123")
    assert isinstance(error, errors.TrackerError)


def test_a_tracker_error_keeps_githubs_status() -> None:
    assert errors.TrackerError("refused", status=422).status == 422
    assert errors.TrackerError("network").status is None
    assert issubclass(errors.CommitRefused, errors.TrackerError)
    assert issubclass(errors.PullRequestRefused, errors.TrackerError)


def test_graphql_unusable_is_lasting_unless_said_otherwise() -> None:
    assert errors.GraphQLUnusable("unknown field").lasting is True
    assert errors.GraphQLUnusable("timeout", lasting=False).lasting is False
