"""A task's mark in its sub-issue's body: exact output, the last valid mark wins, anything
malformed is no mark, and reading is linear on hostile input."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.text import task_marker as marker


@pytest.mark.parametrize(
    ("epic", "key", "expected"),
    [
        (1, "a", '<!-- baton:task {"epic":1,"key":"a"} -->'),
        (42, "api-v2_x#1", '<!-- baton:task {"epic":42,"key":"api-v2_x#1"} -->'),
        (7, "0", '<!-- baton:task {"epic":7,"key":"0"} -->'),
    ],
)
def test_render_is_exact(epic: int, key: str, expected: str) -> None:
    assert marker.render(epic, key) == expected
    assert marker.OPEN == "<!-- baton:task "
    assert marker.CLOSE == " -->"


def test_read_finds_a_mark_within_text() -> None:
    body = f"The task.\n\n{marker.render(3, 'base')}\n\nMore text."
    assert marker.read(body) == (3, "base")


def test_read_returns_the_last_valid_mark() -> None:
    body = f"{marker.render(1, 'first')}\n{marker.render(2, 'second')}"
    assert marker.read(body) == (2, "second")


def test_the_last_mark_counts_even_when_invalid() -> None:
    """The last thing shaped like a mark decides: a later bad one is no mark at all."""
    body = marker.render(1, "good") + '\n<!-- baton:task {"epic":0,"key":"x"} -->'
    assert marker.read(body) is None


def test_no_mark() -> None:
    assert marker.read("") is None
    assert marker.read("just text <!-- baton:task --> <!-- other -->") is None


def _mark(data: str) -> str:
    return f"<!-- baton:task {data} -->"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param('{"epic":"1","key":"a"}', id="epic as a string"),
        pytest.param('{"epic":1.0,"key":"a"}', id="epic as a float"),
        pytest.param('{"epic":true,"key":"a"}', id="epic as a bool"),
        pytest.param('{"epic":false,"key":"a"}', id="epic false"),
        pytest.param('{"epic":0,"key":"a"}', id="epic zero"),
        pytest.param('{"epic":-3,"key":"a"}', id="negative epic"),
        pytest.param('{"epic":null,"key":"a"}', id="epic null"),
        pytest.param('{"key":"a"}', id="no epic"),
        pytest.param('{"epic":1}', id="no key"),
        pytest.param('{"epic":1,"key":5}', id="key not a string"),
        pytest.param('{"epic":1,"key":""}', id="empty key"),
        pytest.param('{"epic":1,"key":"Upper"}', id="upper-case key"),
        pytest.param('{"epic":1,"key":"-lead"}', id="key starting with a dash"),
        pytest.param('{"epic":1,"key":"_lead"}', id="key starting with an underscore"),
        pytest.param('{"epic":1,"key":"has space"}', id="key with a space"),
        pytest.param('{"epic":1,"key":"a.b"}', id="key with a dot"),
        pytest.param('{"epic":1,"key":"' + "a" * 51 + '"}', id="key of 51 characters"),
        pytest.param('{"epic":1,"key":"a","x":{}}', id="nested braces"),
        pytest.param('{"epic":1,"key":"a"', id="unclosed"),
        pytest.param('{"epic":1,,"key":"a"}', id="not JSON"),
        pytest.param("{}", id="empty object"),
        pytest.param('{"epic":1,"key":"a","pad":"' + "x" * 200 + '"}', id="overlong JSON"),
        pytest.param('{"epic":1,\n"key":"a"}', id="a newline inside"),
        pytest.param('{"epic":1,"key":"<a>"}', id="angle brackets"),
    ],
)
def test_read_refuses(data: str) -> None:
    assert marker.read(_mark(data)) is None


def test_read_accepts_the_longest_key_and_a_long_json() -> None:
    key = "a" * 50
    assert marker.read(marker.render(1, key)) == (1, key)
    data = '{"epic":1,"key":"a","pad":"' + "x" * 173 + '"}'
    assert len(data) == 202  # 200 characters between the braces
    assert marker.read(_mark(data)) == (1, "a")
    assert marker.read(_mark(data[:-2] + 'x"}')) is None  # 201 between the braces


def test_a_key_ending_in_a_newline_is_no_key() -> None:
    """JSON's "\\n" escape puts a real newline in the key; `_KEY.match` with `$` lets it by
    (`\\Z` or `fullmatch` would not), so a key `a\\n` is read as valid."""
    assert marker.read(_mark('{"epic":1,"key":"a\\n"}')) is None


def test_read_accepts_extra_fields_and_spacing() -> None:
    assert marker.read(_mark('{"key": "k", "epic": 9, "other": 1}')) == (9, "k")


def test_read_needs_the_exact_frame() -> None:
    good = '{"epic":1,"key":"a"}'
    assert marker.read(f"<!-- baton:task {good}-->") is None
    assert marker.read(f"<!--baton:task {good} -->") is None
    assert marker.read(f"<!-- baton:tasks {good} -->") is None


def test_read_is_linear_on_64_kb_of_openings() -> None:
    body = ("<!-- baton:task {" + '"epic":1,"key":"a"' * 3) * (64_000 // 70)
    started = time.perf_counter()
    assert marker.read(body) is None
    assert marker.read(marker.OPEN + "{" * 64_000) is None
    assert marker.read((marker.OPEN + "{") * 4_000 + marker.render(5, "tail")) == (5, "tail")
    assert time.perf_counter() - started < 1.0


KEYS = st.from_regex(r"\A[a-z0-9][a-z0-9_#-]{0,49}\Z")


@given(epic=st.integers(min_value=1, max_value=10**12), key=KEYS, before=st.text(), after=st.text())
def test_round_trip(epic: int, key: str, before: str, after: str) -> None:
    body = before + "\n" + marker.render(epic, key) + "\n" + after.replace("<!-- baton:task", "")
    assert marker.read(body) == (epic, key)


def test_render_is_json_inside_the_frame() -> None:
    text = marker.render(12, "k")
    inner = text.removeprefix(marker.OPEN).removesuffix(marker.CLOSE)
    assert json.loads(inner) == {"epic": 12, "key": "k"}
