"""`core/model/handback.py`: what an agent's job hands back is validated the same way for every
file, each failure one line naming the file and what to fix."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from baton.core.model import handback
from baton.errors import InvalidChangeset


class Thing(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    size: int = 0


def parse(text: str) -> Thing:
    return handback.parse(text, Thing, "the thing", InvalidChangeset)


def test_a_valid_object_is_the_model() -> None:
    assert parse('{"name": "a", "size": 2}') == Thing(name="a", size=2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{",
            "the thing is not JSON (Expecting property name enclosed in double quotes at line 1 "
            "column 2)",
        ),
        ("[1]", "the thing must be a JSON object"),
        ("[" * 50_000 + "]" * 50_000, "the thing is nested too deeply to be read"),
        ('{"name": 1}', "the thing does not validate: name: Input should be a valid string"),
        ("{}", "the thing does not validate: name: Field required"),
    ],
)
def test_each_failure_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(InvalidChangeset) as caught:
        parse(text)
    assert str(caught.value) == message


def test_more_than_five_problems_are_counted() -> None:
    class Many(BaseModel):
        model_config = ConfigDict(strict=True)

        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int

    with pytest.raises(InvalidChangeset) as caught:
        handback.parse("{}", Many, "the thing", InvalidChangeset)
    assert str(caught.value) == (
        "the thing does not validate: a: Field required; b: Field required; c: Field required; "
        "d: Field required; e: Field required; and 2 more"
    )
