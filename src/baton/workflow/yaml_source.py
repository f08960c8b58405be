"""YAML reading that keeps line numbers and refuses duplicate keys, aliases and oversized text.

PyYAML silently keeps the last of two equal keys, which would hide a duplicated state from the
maintainer; errors also read better with the line they point at. PyYAML resolves an alias by
reference, so a document of 400 bytes composes and loads in microseconds, and then whatever walks
the data (pydantic's validation, `str`, a JSON dump, a recursive check) meets billions of values:
Baton's own files take no aliases at all, and other YAML (a GitHub workflow that `baton doctor`
reads) is refused when its aliases would expand past a bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from baton.errors import DuplicateKeyError, YamlRefused

# Sizes refused before parsing. Baton's config and workflow files are a few KB (the largest
# preset is under 10 KB); a GitHub Actions workflow gets twice the room.
BATON_FILE_LIMIT = 256 * 1024
WORKFLOW_FILE_LIMIT = 512 * 1024
# What a document's aliases may expand to, as a multiple of its size limit: anchors for shared
# steps and env blocks stay far below it, a billion-laughs document of 400 bytes far above.
EXPANSION_FACTOR = 8


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


def _check_tree(root: yaml.Node | None) -> None:
    """Duplicate keys and aliases in one pass over the nodes, each visited once (linear time, no
    recursion). The composer builds an alias as a second reference to the anchored node, so a node
    reached twice is an alias: refused in Baton's own files, where nothing needs one and where
    400 bytes of aliases expand to billions of values in whatever walks the data."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[str, ...]]] = [(root, ())] if root is not None else []
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            raise YamlRefused(
                f"line {node.start_mark.line + 1}: the value anchored there (&) is repeated by "
                "an alias (*); Baton's config and workflow files take no aliases: write it out"
            )
        seen.add(id(node))
        children: list[tuple[yaml.Node, tuple[str, ...]]] = []
        if isinstance(node, yaml.MappingNode):
            names: set[str] = set()
            for key, value in node.value:
                name = str(key.value)
                if name in names:
                    raise DuplicateKeyError(name, key.start_mark.line + 1, path)
                names.add(name)
                children += [(key, path), (value, (*path, name))]
        elif isinstance(node, yaml.SequenceNode):
            children = [(item, (*path, str(index))) for index, item in enumerate(node.value)]
        stack += reversed(children)  # popped in the document's order: the first alias is told


def expanded_size(root: yaml.Node | None, limit: int) -> int:
    """What the document expands to with every alias written out (a node and each character
    of a scalar count one), computed once per node; YamlRefused past `limit` or for an alias of
    a node inside itself, whose expansion has no end."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)] if root is not None else []
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if children_done:
            size = 1 + len(str(node.value)) if isinstance(node, yaml.ScalarNode) else 1
            size += sum(sizes[id(child)] for child in children)
            if size > limit:
                raise YamlRefused(
                    f"line {node.start_mark.line + 1}: its aliases expand to more than "
                    f"{limit:,} characters of values (a YAML alias bomb?)"
                )
            sizes[id(node)] = size
            open_nodes.discard(id(node))
            continue
        if id(node) in open_nodes:
            raise YamlRefused(f"line {node.start_mark.line + 1}: an alias of a value inside itself")
        open_nodes.add(id(node))
        stack.append((node, True))
        stack += [(child, False) for child in children if id(child) not in sizes]
    return sizes[id(root)] if root is not None else 0


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


# libyaml's loader when PyYAML has it: every run reads three presets, and the pure-Python
# parser spends most of a transition's non-import CPU on them.
_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(
    text: str, loader_class: type[yaml.SafeLoader], check: Callable[[yaml.Node | None], object]
) -> tuple[yaml.Node | None, Any]:
    """The node tree and the data built from it: one parse, not one for each."""
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        check(root)
        return root, loader.construct_document(root) if root is not None else None
    finally:
        loader.dispose()


_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_FLOW_DEPTH_TO_QUOTE = 100


def _flow_depth(text: str) -> int:
    """How deep `[` and `{` nest (quoted ones counted too: an upper bound), in linear time."""
    depth = deepest = 0
    for bracket in _NOT_BRACKETS.sub("", text):
        depth = depth + 1 if bracket in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


def _parsed(text: str, check: Callable[[yaml.Node | None], object]) -> tuple[yaml.Node | None, Any]:
    try:
        try:
            return _parse(text, _FAST_LOADER, check)
        except yaml.YAMLError:
            # PyYAML's own scanner takes time quadratic in the depth of flow brackets.
            if _FAST_LOADER is yaml.SafeLoader or _flow_depth(text) > _FLOW_DEPTH_TO_QUOTE:
                raise
            # Parsed again by the pure-Python loader, whose messages quote the offending line.
            return _parse(text, yaml.SafeLoader, check)
    except RecursionError:  # PyYAML composes and builds nested values recursively
        raise YamlRefused("values nested too deeply to read") from None


def _refuse_size(text: str, limit: int) -> None:
    size = len(text) if len(text) > limit else len(text.encode("utf-8"))
    if size > limit:
        raise YamlRefused(f"{size:,} bytes or more; at most {limit:,} are read")


def file_text(path: Path, *, limit: int = BATON_FILE_LIMIT) -> str:
    """A file's text, refused before it is parsed when it is over `limit` bytes or not UTF-8:
    YamlRefused with one line naming the file (and the offset of the first bad byte)."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise YamlRefused(f"{path} is over {limit:,} bytes; at most {limit:,} are read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise YamlRefused(f"{path} is not UTF-8 text (byte {exc.start}: 0x{bad})") from None


def load_bounded(text: str, *, limit: int = WORKFLOW_FILE_LIMIT) -> Any:
    """A YAML document written for another tool (a GitHub Actions workflow, which may use
    anchors): its data, refused when the text is over `limit` bytes or its aliases expand to
    more than EXPANSION_FACTOR times that. Raises yaml.YAMLError or YamlRefused."""
    _refuse_size(text, limit)
    _, data = _parsed(text, lambda root: expanded_size(root, EXPANSION_FACTOR * limit))
    return data


def read_yaml(text: str, *, source: str = "<string>") -> YamlDocument:
    """Parse one of Baton's own YAML documents (a config, a workflow); raises yaml.YAMLError,
    DuplicateKeyError, or YamlRefused for an alias, or a text over BATON_FILE_LIMIT bytes."""
    _refuse_size(text, BATON_FILE_LIMIT)
    root, data = _parsed(text, _check_tree)
    return YamlDocument(data=data, root=root, source=source)
