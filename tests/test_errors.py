"""Every way a run can fail, in one module: which errors reach a user as `BatonError`s (the
three that never do are named), and what each carries beyond its message."""

from __future__ import annotations

import inspect

import pytest

from baton import errors

NOT_FOR_USERS = {"DuplicateKeyError", "RecordCorrupt", "GraphQLUnusable"}


def test_every_error_but_the_three_internal_ones_is_a_baton_error() -> None:
    classes = {
        name: cls
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if cls.__module__ == errors.__name__
    }
    internal = {name for name, cls in classes.items() if not issubclass(cls, errors.BatonError)}
    assert internal == NOT_FOR_USERS
    assert all(issubclass(classes[name], Exception) for name in classes)


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
