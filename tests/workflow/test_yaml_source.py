"""YAML read with its lines kept and duplicate keys refused (`workflow/yaml_source.py`):
PyYAML alone would keep the last of two equal keys and hide a duplicated state."""

from __future__ import annotations

import pytest
import yaml

from baton.action.fast_path import PRESETS
from baton.errors import DuplicateKeyError
from baton.workflow.model import preset_names
from baton.workflow.yaml_source import read_yaml

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
