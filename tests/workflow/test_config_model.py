"""The rules one value of `.github/baton.yml` must follow (`workflow/config_model.py`): each
raises `InvalidSetting`, a ValueError, so pydantic reports it at its key and loading at its line."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from baton.errors import InvalidConfig, InvalidSetting
from baton.workflow.config import parse_config
from baton.workflow.config_model import Config, Who, WorkSettings


def _parse(text: str) -> object:
    return parse_config(text, source="baton.yml")


# --- approval words ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["approved"], ("approved",)),
        (["approved", "lgtm"], ("approved", "lgtm")),
        (["LGTM"], ("lgtm",)),
        ([" ship-it "], ("ship-it",)),
    ],
    ids=[
        "the default word",
        "two words",
        "a word in capitals is kept in lower case",
        "surrounding spaces are trimmed",
    ],
)
def test_approval_words_are_accepted(words: list[str], expected: tuple[str, ...]) -> None:
    text = f"approval_words: {json.dumps(words)}\n"
    assert _parse(text).policy.approval_words == expected


@pytest.mark.parametrize(
    ("words", "reason"),
    [
        (["looks good"], "single words"),
        (["approved\tnow"], "single words"),
        ([""], "single words"),
        (["not"], "'not' cannot be an approval word"),
        (["NOT"], "'not' cannot be an approval word"),
        (["no"], "'no' cannot be an approval word"),
        (["approved", "unapproved"], "'unapproved' cannot be an approval word"),
        ([], "at least 1"),
    ],
    ids=[
        "a phrase with a space",
        "a word with a tab inside",
        "an empty word",
        "'not' would read 'not approved' as an approval",
        "'NOT' in capitals is still 'not'",
        "'no' is a refusal",
        "'unapproved' is a refusal even beside a good word",
        "an empty list leaves no way to approve",
    ],
)
def test_approval_words_that_would_mislead_are_refused(words: list[str], reason: str) -> None:
    text = f"approval_words: {json.dumps(words)}\n"
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    assert "baton.yml:1: approval_words" in str(caught.value)
    assert reason in str(caught.value)


# --- one rule, one key -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "data", "key", "words"),
    [
        (Who, {"teams": ["acme"]}, ("teams",), "must be written org/team-slug"),
        (Who, {"teams": ["acme/"]}, ("teams",), "must be written org/team-slug"),
        (WorkSettings, {"branch_prefix": "a..b/"}, ("branch_prefix",), "cannot start a git"),
        (WorkSettings, {"forbidden": ["/"]}, ("forbidden",), "is not a path glob"),
        (WorkSettings, {"allow": [".github/workflows/ci.yml"]}, ("allow",), "always refused"),
        (Config, {"approval_words": ["no"]}, ("approval_words",), "cannot be an approval word"),
    ],
    ids=[
        "a team without its organisation",
        "a team with an empty slug",
        "a branch prefix git refuses",
        "a forbidden glob of nothing but slashes",
        "an allow glob inside a locked path",
        "a refusal as an approval word",
    ],
)
def test_a_value_that_breaks_its_rule_is_reported_at_its_key(
    model: type[Config | Who | WorkSettings], data: dict[str, object], key: tuple[str], words: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    (error,) = caught.value.errors()
    assert error["loc"] == key
    assert words in error["msg"]
    assert isinstance(error["ctx"]["error"], InvalidSetting)


def test_an_invalid_setting_is_still_a_value_error() -> None:
    assert issubclass(InvalidSetting, ValueError)
