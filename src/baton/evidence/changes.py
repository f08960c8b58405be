"""Which tests are new or changed since the base: by the test files the commits touched.

`git diff BASE...HEAD` (from where the branch left the base) names the files; those matching
`tests.paths` are the touched test files. A test belongs to a file by its JUnit `file`, else by
its class name read as a module path (pytest's `tests.test_x`, Surefire's `org.acme.XTest`),
else by its package's folder (go-junit-report's `example.com/m/pkg`). It is new or changed when
its file is new since the base, or when its name (a function's, or a test title's last words)
is on a line the commits added to that file. A change inside an old test's body that leaves its
name's line alone is not seen: such a test counts as an old one (so a failure of it is never
read as red).

git reads the commits before the tests run (the tests may rewrite `.git/config`), with no
external diff, no text conversion and no fsmonitor. The same listing of the commit's tree gives
`files`, the digest of its test and frozen files that a signed-off set is held to.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from baton.core.model import evidence
from baton.core.model.changeset import matches
from baton.core.model.evidence import TestCase

MAX_DIFF = 8 * 1024 * 1024  # bytes of added lines read; past it, the rest is not looked at
# Read from commits, never the work tree or the index: no fsmonitor, filter or driver runs.
GIT = ["git", "-c", "core.quotepath=off", "-c", "diff.noprefix=false", "-c", "core.fsmonitor="]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERAL = re.compile(r"""'([^'\\\n]{1,300})'|"([^"\\\n]{1,300})"|`([^`\\\n]{1,300})`""")
_PARAMS = re.compile(r"(\[.*\]|\(.*\))$")
MAX_WORDS = 40


class GitError(Exception):
    """git could not answer (not a checkout, an unknown ref)."""


def git(checkout: Path, *args: str) -> bytes:
    done = subprocess.run(
        [*GIT, *args], cwd=checkout, capture_output=True, stdin=subprocess.DEVNULL, timeout=120
    )
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(why[-1] if why else f"git {args[0]} failed")
    return done.stdout


def commit_of(checkout: Path, ref: str) -> str:
    """The commit `ref` names, as 40 hex digits."""
    if ref.startswith("-"):
        raise GitError(f"{ref!r} is not a git ref")
    oid = git(checkout, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    if not re.fullmatch(r"[0-9a-f]{40}", oid):
        raise GitError(f"{ref!r} names no commit of this checkout")
    return oid


def merge_base(checkout: Path, default_branch: str | None) -> str | None:
    """Where HEAD left the default branch (its remote-tracking ref, else a local branch of that
    name), or None when the checkout has neither (a one-commit-deep checkout of another branch)
    or they share no history."""
    if not default_branch:
        return None
    for ref in (f"refs/remotes/origin/{default_branch}", f"refs/heads/{default_branch}"):
        try:
            return commit_of(checkout, git(checkout, "merge-base", "HEAD", ref).decode().strip())
        except GitError:
            continue
    return None


@dataclass
class Touched:
    """A test file the commits touched: whether it is new, and what its added lines hold."""

    added_file: bool
    identifiers: set[str] = field(default_factory=set)
    literals: set[str] = field(default_factory=set)


def touched_tests(checkout: Path, base: str, paths: Sequence[str]) -> dict[str, Touched]:
    """The test files `base...HEAD` added or modified, with the words on their added lines."""
    listing = git(checkout, "diff", "--name-status", "--no-renames", "-z", f"{base}...HEAD")
    fields = listing.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, Touched] = {}
    for status, path in zip(fields[::2], fields[1::2], strict=False):
        if status in {"A", "M"} and any(matches(path, glob) for glob in paths):
            found[path] = Touched(added_file=status == "A")
    if found:
        _read_added_lines(checkout, base, found)
    return found


def _read_added_lines(checkout: Path, base: str, found: dict[str, Touched]) -> None:
    diff = git(
        checkout, "diff", "-U0", "--no-renames", "--no-ext-diff", "--no-textconv",
        f"{base}...HEAD", "--", *(f":(literal){p}" for p in found),
    )[:MAX_DIFF].decode("utf-8", "replace")  # fmt: skip
    current: Touched | None = None
    for line in diff.split("\n"):
        if line.startswith("+++ "):
            name = line[4:]
            current = found.get(name[2:]) if name.startswith("b/") else None
        elif line.startswith("+") and current is not None:
            current.identifiers.update(_IDENTIFIER.findall(line))
            current.literals.update(a or b or c for a, b, c in _LITERAL.findall(line))


def _named_on_added_line(test: TestCase, touched: Touched) -> bool:
    """The test's own name (after its class, without parameters) is on an added line: as an
    identifier (a function's, before any `/subtest`), or its last words as a string (a title)."""
    name = _PARAMS.sub("", test.id.rpartition("::")[2]).strip()
    if name.split("/")[0] in touched.identifiers:
        return True
    words = name.split()[-MAX_WORDS:]
    return any(" ".join(words[i:]) in touched.literals for i in range(len(words)))


@dataclass(frozen=True)
class Layout:
    """The checkout's test files, indexed so a class name finds its file in a few lookups."""

    files: frozenset[str]
    by_module: dict[str, list[str]]  # "org/acme/ParserTest" and every shorter tail -> files
    by_folder: dict[str, list[str]]  # a folder and every shorter tail -> its test files

    @classmethod
    def of(cls, files: Iterable[str]) -> Layout:
        by_module: dict[str, list[str]] = {}
        by_folder: dict[str, list[str]] = {}
        kept = frozenset(files)
        for path in sorted(kept):
            pure = PurePosixPath(path)
            parts = pure.with_suffix("").parts
            for i in range(len(parts)):
                by_module.setdefault("/".join(parts[i:]), []).append(path)
            folder = pure.parent.parts
            for i in range(len(folder)):
                by_folder.setdefault("/".join(folder[i:]), []).append(path)
        return cls(kept, by_module, by_folder)

    def files_of(self, test: TestCase, checkout: Path) -> list[str]:
        """The test files that may hold `test`: its own, or its package's."""
        if test.file:
            own = _relative(test.file, checkout)
            if own:
                return [own]
        owner = test.id.rpartition("::")[0] or test.id
        if owner in self.files:
            return [owner]
        parts = owner.split(".")
        for k in range(len(parts), 0, -1):
            hits = self.by_module.get("/".join(parts[:k]), [])
            if len(hits) == 1:
                return hits
        segments = owner.split("/")
        for k in range(len(segments)):
            hits = self.by_folder.get("/".join(segments[k:]), [])
            if hits:
                return hits
        return []


def _relative(path: str, checkout: Path) -> str | None:
    pure = PurePosixPath(path)
    if pure.is_absolute():
        try:
            pure = pure.relative_to(PurePosixPath(checkout.resolve().as_posix()))
        except ValueError:
            return None
    text = pure.as_posix()
    return None if text.startswith("../") else text


@dataclass(frozen=True)
class Entry:
    """One entry of a commit's tree as `git ls-tree -r` lists it."""

    mode: str
    oid: str
    path: str  # a path that is not UTF-8 keeps its bytes as surrogates


def tree_of(checkout: Path, commit: str) -> list[Entry]:
    """Every entry of `commit`'s tree (files, links and submodules, at any depth)."""
    listing = git(checkout, "ls-tree", "-r", "-z", "--full-tree", commit)
    entries = []
    for line in listing.split(b"\0"):
        meta, tab, path = line.partition(b"\t")
        fields = meta.decode("ascii", "replace").split(" ")
        if tab and len(fields) == 3:
            entries.append(Entry(fields[0], fields[2], path.decode("utf-8", "surrogateescape")))
    return entries


def matching(path: str, globs: Sequence[str]) -> bool:
    return any(matches(path, glob) for glob in globs)


def layout_of(checkout: Path, commit: str, paths: Sequence[str]) -> Layout:
    """Every file of `commit` that `tests.paths` calls a test."""
    return Layout.of(e.path for e in tree_of(checkout, commit) if matching(e.path, paths))


def files_digest(tree: Iterable[Entry], globs: Sequence[str]) -> str:
    """`sha256:<hex>` of the entries matching `globs` (`tests.paths` and `tests.frozen`): the
    one digest of `core/model/evidence.files_digest`, over the tree git lists."""
    return evidence.files_digest(((e.path, e.mode, e.oid) for e in tree), globs, ())


def with_files(tests: Sequence[TestCase], layout: Layout, checkout: Path) -> list[TestCase]:
    """The tests, each with its file where exactly one test file holds it."""
    placed = []
    for test in tests:
        files = layout.files_of(test, checkout)
        file = files[0] if len(files) == 1 else test.file
        placed.append(test if file == test.file else test.model_copy(update={"file": file}))
    return placed


def new_ids(
    tests: Sequence[TestCase], touched: dict[str, Touched], layout: Layout, checkout: Path
) -> list[str]:
    """The ids of the tests new or changed since the base, in the order the run listed them."""
    found: dict[str, None] = {}
    for test in tests:
        for file in layout.files_of(test, checkout):
            change = touched.get(file)
            if change is None:
                continue
            exact = test.file == file or len(layout.files_of(test, checkout)) == 1
            if (change.added_file and exact) or _named_on_added_line(test, change):
                found[test.id] = None
                break
    return list(found)
