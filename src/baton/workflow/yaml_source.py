"""YAML reading that keeps line numbers and refuses duplicate keys.

PyYAML silently keeps the last of two equal keys, which would hide a duplicated state from the
maintainer; errors also read better with the line they point at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from baton.errors import DuplicateKeyError


@dataclass(frozen=True)
class YamlDocument:
    """Parsed data plus the composed node tree, to map a data path back to a line."""

    data: Any
    root: yaml.Node | None
    source: str

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """1-based line of the deepest node along `path` that exists."""
        node = self.root
        line = node.start_mark.line + 1 if node is not None else None
        for step in path:
            if isinstance(node, yaml.MappingNode):
                found = None
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(step):
                        found = (key, value)
                        break
                if found is None:
                    return line
                line = found[0].start_mark.line + 1
                node = found[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
                if step >= len(node.value):
                    return line
                node = node.value[step]
                line = node.start_mark.line + 1
            else:
                return line
        return line


def _check_duplicates(node: yaml.Node | None, path: tuple[str, ...] = ()) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                raise DuplicateKeyError(name, key.start_mark.line + 1, path)
            seen.add(name)
            _check_duplicates(value, (*path, name))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _check_duplicates(item, (*path, str(index)))


# libyaml's loader when PyYAML has it: every run reads three presets, and the pure-Python
# parser spends most of a transition's non-import CPU on them.
_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(text: str, loader_class: type[yaml.SafeLoader]) -> tuple[yaml.Node | None, Any]:
    """The node tree and the data built from it: one parse, not one for each."""
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        _check_duplicates(root)
        return root, loader.construct_document(root) if root is not None else None
    finally:
        loader.dispose()


def read_yaml(text: str, *, source: str = "<string>") -> YamlDocument:
    """Parse one YAML document; raises yaml.YAMLError or DuplicateKeyError."""
    try:
        root, data = _parse(text, _FAST_LOADER)
    except yaml.YAMLError:
        # Parsed again by the pure-Python loader, whose messages quote the offending line.
        root, data = _parse(text, yaml.SafeLoader)
    return YamlDocument(data=data, root=root, source=source)
