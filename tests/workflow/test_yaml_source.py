"""YAML read with its lines kept and duplicate keys refused (`workflow/yaml_source.py`):
PyYAML alone would keep the last of two equal keys and hide a duplicated state."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from baton.action.fast_path import PRESETS
from baton.errors import DuplicateKeyError, YamlRefused
from baton.workflow.model import preset_names
from baton.workflow.yaml_source import (
    BATON_FILE_LIMIT,
    WORKFLOW_FILE_LIMIT,
    file_text,
    load_bounded,
    read_yaml,
)

TEXT = """\
states:
  start: {kind: work}
  done:
    kind: terminal
steps:
  - one
  - two
"""


@pytest.mark.parametrize(
    ("text", "key", "line", "path"),
    [
        ("a: 1\nb: 2\na: 3\n", "a", 3, ()),
        ("states:\n  x: {}\n  y: {}\n  x: {}\n", "x", 4, ("states",)),
        ("steps:\n  - {k: 1, k: 2}\n", "k", 2, ("steps", "0")),
    ],
    ids=["at the top level", "inside a mapping", "inside a list's item"],
)
def test_a_key_given_twice_is_refused_with_its_line_and_where(
    text: str, key: str, line: int, path: tuple[str, ...]
) -> None:
    with pytest.raises(DuplicateKeyError) as refused:
        read_yaml(text)

    assert (refused.value.key, refused.value.line, refused.value.path) == (key, line, path)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ((), 1),
        (("states", "start"), 2),
        (("states", "done", "kind"), 4),
        (("states", "missing", "kind"), 1),
        (("steps", 1), 7),
        (("steps", 9), 5),
    ],
    ids=[
        "the document",
        "a key",
        "a nested key",
        "a key that is not there points at the deepest that is",
        "a list's item",
        "an index past the list points at the list",
    ],
)
def test_a_path_is_found_at_its_line(path: tuple[str | int, ...], line: int) -> None:
    assert read_yaml(TEXT, source="f.yml").line_of(path) == line


def test_an_empty_document_is_no_data_and_no_lines() -> None:
    document = read_yaml("", source="empty.yml")

    assert (document.data, document.root, document.line_of(("a",))) == (None, None, None)


def _pure(text: str) -> tuple[object, yaml.Node | None]:
    return yaml.safe_load(text), yaml.compose(text, Loader=yaml.SafeLoader)


def _lines(node: yaml.Node | None) -> list[tuple[str, int, int]]:
    """Every node's kind, line and column, depth first."""
    if node is None:
        return []
    found = [(type(node).__name__, node.start_mark.line, node.start_mark.column)]
    children = node.value if isinstance(node.value, list) else []
    for child in children:
        for part in child if isinstance(child, tuple) else (child,):
            found += _lines(part)
    return found


@pytest.mark.parametrize("name", preset_names())
def test_a_preset_reads_as_the_pure_python_parser_reads_it(name: str) -> None:
    """Read with libyaml when PyYAML has it (a run reads three presets): the same data and the
    same line and column of every node as PyYAML's own parser gives."""
    text = (PRESETS / f"{name}.yml").read_text(encoding="utf-8")
    document = read_yaml(text)
    data, root = _pure(text)
    assert document.data == data
    assert _lines(document.root) == _lines(root)


def test_yaml_that_does_not_parse_is_reported_as_the_pure_python_parser_reports_it() -> None:
    """Its message quotes the offending line, which libyaml's does not."""
    text = "states:\n  a: [1,\n  b: 2\n"
    with pytest.raises(yaml.YAMLError) as raised:
        read_yaml(text)
    with pytest.raises(yaml.YAMLError) as pure:
        yaml.safe_load(text)
    assert str(raised.value) == str(pure.value)
    assert "      a: [1,\n         ^" in str(raised.value)


# --- aliases, sizes and depth: refused before anything walks the data -------------------------
# The billion laughs in YAML: nine levels of nine aliases, 10^9 strings once expanded. PyYAML
# builds it by reference in microseconds; `str`, pydantic or a JSON dump of it never finish.
BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{letter}: &{letter} [{','.join([f'*{previous}'] * 9)}]"
            for previous, letter in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "jobs: {laugh: {runs-on: ubuntu-latest, steps: [{run: echo}], env: {A: *i}}}",
    ]
)


def test_the_billion_laughs_is_refused_in_one_line_before_it_is_built() -> None:
    assert 400 < len(BILLION_LAUGHS) < 500
    started = time.perf_counter()
    with pytest.raises(YamlRefused) as own:
        read_yaml(BILLION_LAUGHS)
    with pytest.raises(YamlRefused) as other:
        load_bounded(BILLION_LAUGHS)
    assert time.perf_counter() - started < 1
    assert str(own.value) == (
        "line 1: the value anchored there (&) is repeated by an alias (*); Baton's config and "
        "workflow files take no aliases: write it out"
    )
    assert str(other.value) == (
        "line 7: its aliases expand to more than 4,194,304 characters of values (a YAML alias "
        "bomb?)"
    )


GITHUB_ANCHORS = """\
on: push
env: &env {NODE_VERSION: "20", CI: "true"}
jobs:
  test:
    runs-on: ubuntu-latest
    env: *env
    steps: &steps
      - uses: actions/checkout@v4
      - run: npm test
  lint:
    runs-on: ubuntu-latest
    env: *env
    steps: *steps
"""


def test_a_github_workflow_may_use_anchors_as_github_actions_reads_them() -> None:
    data = load_bounded(GITHUB_ANCHORS)
    assert data["jobs"]["lint"] == {**data["jobs"]["test"]}
    assert data["jobs"]["lint"]["env"] == {"NODE_VERSION": "20", "CI": "true"}


def test_but_baton_files_take_no_alias_at_all() -> None:
    with pytest.raises(YamlRefused, match=r"^line 2: the value anchored there"):
        read_yaml(GITHUB_ANCHORS)


@pytest.mark.parametrize("read", [read_yaml, load_bounded])
def test_an_alias_of_a_value_inside_itself_is_refused(read: Any) -> None:
    with pytest.raises(YamlRefused, match=r"^line 1: "):
        read("a: &a [1, *a]\n")


@pytest.mark.parametrize(
    "text",
    [
        "[" * 65536,
        "- " * 32768,
        "a: &a [x]\nb: [" + ",".join(["*a"] * 16000) + "]\n",
        "k: " + "x" * 65536 + "\n",
    ],
    ids=["64 KB of open brackets", "64 KB of nested dashes", "16,000 aliases", "one long scalar"],
)
def test_64_kb_of_adversarial_yaml_is_answered_quickly(text: str) -> None:
    started = time.perf_counter()
    for read in (read_yaml, load_bounded):
        with contextlib.suppress(yaml.YAMLError, YamlRefused):
            read(text)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    ("read", "limit"), [(read_yaml, BATON_FILE_LIMIT), (load_bounded, WORKFLOW_FILE_LIMIT)]
)
def test_text_over_the_size_limit_is_refused_before_it_is_parsed(read: Any, limit: int) -> None:
    with pytest.raises(YamlRefused, match=f"at most {limit:,} are read"):
        read("#" * limit + "\n")
    read("#" * (limit - 1) + "\n")


def test_a_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "baton.yml"
    path.write_bytes(b"label_prefix: \xff\n")
    with pytest.raises(YamlRefused) as refused:
        file_text(path)
    assert str(refused.value) == f"{path} is not UTF-8 text (byte 14: 0xff)"
