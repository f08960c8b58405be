"""A changeset: the files an agent changed, handed from its read-only job to `baton report`.

The agent's job is untrusted (it read issue text), so what it hands over is hostile input: the
report job checks every path and every limit here before one byte reaches the branch, and a
refused changeset writes nothing. Checks are linear in the changeset's size.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model import gitpath, handback
from baton.core.model.links import BaseLinks, check_links
from baton.errors import InvalidChangeset
from baton.workflow.config import DEFAULT_FORBIDDEN, LOCKED_FORBIDDEN, WorkSettings
from baton.workflow.forbidden import entry_name
from baton.workflow.suite import SuiteSettings

CHANGESET_VERSION = 1
CHANGESET_FILE = "baton-changeset.json"  # beside the result file, unless told otherwise
# Beside the result instead of it when the agent's job could not run the agent at all (no
# command, not a checkout): the report job fails once with it and spends no attempt.
SETUP_ERROR_FILE = "baton-setup-error.txt"
OID = re.compile(r"^[0-9a-f]{40}$")
MAX_PATH = 1024  # characters of a path (git allows more; nobody needs it)
MAX_SEGMENT = 255
REGULAR = "100644"
EXECUTABLE = "100755"
SYMLINK = "120000"
GITLINK = "160000"  # a submodule
_CONTROL = re.compile(r"[\x00-\x1f\x7f\\]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON can spell one; no UTF-8 path holds it
_DROP_HFS_IGNORED = dict.fromkeys(gitpath.HFS_IGNORED)


class FileChange(BaseModel):
    """One path: new contents (base64) or, with `contents` None, a deletion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    path: str
    contents: str | None = None
    mode: str = REGULAR

    @property
    def deleted(self) -> bool:
        return self.contents is None


class Changeset(BaseModel):
    """What an agent changed in its checkout, bound to the commit it started from (`base`).

    `refused` is set by the capture itself when it saw something it must not carry (a file too
    large to read, a symlink); the report job refuses such a changeset with that reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    version: Literal[1] = 1
    base: str
    files: list[FileChange] = Field(default_factory=list)
    refused: str | None = None

    @property
    def empty(self) -> bool:
        return not self.files and self.refused is None

    def digest(self) -> str:
        """`sha256:<hex>` of the base and the files, order-independent: the key by which a
        re-run finds its commit already on the branch."""
        files = sorted((f.path, f.mode, f.contents) for f in self.files)
        canonical = json.dumps([self.base, files], separators=(",", ":"), ensure_ascii=True)
        return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def path_problem(path: str, *, symlink: bool = False) -> str | None:
    """Why `path` may not be written, or None: relative, normalised, inside the repository,
    and a path git itself accepts on every platform (`core.model.gitpath`: never into `.git`, under
    any name a file system folds onto it). Linear in the path's length."""
    if not path:
        return "an empty path"
    if len(path) > MAX_PATH:
        return f"a path of {len(path)} characters (at most {MAX_PATH})"
    shown = json.dumps(path[:120])
    if _CONTROL.search(path):
        return f"{shown} has a control character or a backslash"
    if _SURROGATE.search(path):
        return f"{shown} is not valid UTF-8"
    if path.startswith("/"):
        return f"{shown} is absolute"
    for segment in path.split("/"):
        if segment in {"", ".", ".."}:
            return f"{shown} is not a normalised relative path"
        if len(segment) > MAX_SEGMENT:
            return f"{shown} has a name longer than {MAX_SEGMENT} characters"
    problem = gitpath.verify_path(path, symlink=symlink)
    return f"{shown} {problem}" if problem else None


def matches(path: str, pattern: str) -> bool:
    """Glob match by path segment: `*` within one name, `**` any number of names (also none).
    Segment by segment, so a long path against a pattern with many stars stays cheap."""
    return relation(path, pattern) == "match"


Relation = Literal["match", "below", "above"]
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class _Glob:
    parts: tuple[str, ...]
    literal: tuple[bool, ...]  # the part has no wildcard: compared with ==
    # The first part after the leading `**`s when it is a plain name: every path the glob
    # relates to holds that name, so a path without it is passed over at once.
    anchor: str | None


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> _Glob:
    parts = tuple(pattern.strip("/").split("/"))
    literal = tuple(not (_GLOB_CHARS & set(p)) for p in parts)
    first = next((i for i, p in enumerate(parts) if p != "**"), None)
    anchor = parts[first] if first is not None and literal[first] else None
    return _Glob(parts, literal, anchor)


def relation(path: str, pattern: str) -> Relation | None:
    """How a path stands to a glob: it matches; it is `below` a path that matches (a file
    under a forbidden file or folder); it is `above` one (a file where the glob needs a
    folder: a prefix of the glob ending in a name, not `**`, matches it whole); or None."""
    names = tuple(path.split("/"))
    return _relate(names, frozenset(names), _glob(pattern))


def _relate(names: tuple[str, ...], present: frozenset[str], glob: _Glob) -> Relation | None:
    """One pass over the names with the set of glob positions reached (at most one more than
    the glob's parts), so at most len(names) * len(parts) name comparisons."""
    if glob.anchor is not None and glob.anchor not in present:
        return None
    parts, literal, end = glob.parts, glob.literal, len(glob.parts)

    def closure(reach: set[int]) -> set[int]:
        out = set(reach)
        for j in reach:
            while j < end and parts[j] == "**":
                j += 1
                out.add(j)
        return out

    def fits(name: str, j: int) -> bool:
        return name == parts[j] if literal[j] else fnmatchcase(name, parts[j])

    reach, below = closure({0}), False
    for i, name in enumerate(names):
        below = below or (i > 0 and end in reach)
        stay = {j for j in reach if j < end and parts[j] == "**"}
        step = {j + 1 for j in reach if j < end and parts[j] != "**" and fits(name, j)}
        reach = closure(stay | step)
        if not reach:
            break
    if end in reach:
        return "match"
    if below:
        return "below"
    if any(j > 0 and parts[j - 1] != "**" for j in reach):
        return "above"
    return None


@lru_cache(maxsize=4096)
def _decomposed(char: str) -> str:
    return unicodedata.normalize("NFD", char)


def _nfd(text: str) -> str:
    """NFD in O(n log n): `unicodedata.normalize` orders a run of combining marks by insertion
    sort, quadratic on a hostile run; here each character is decomposed alone and each run is
    sorted stably by combining class, which is what canonical ordering is."""
    out: list[str] = []
    run: list[str] = []
    for char in "".join(map(_decomposed, text)):
        if unicodedata.combining(char):
            run.append(char)
            continue
        out.extend(sorted(run, key=unicodedata.combining))
        run.clear()
        out.append(char)
    out.extend(sorted(run, key=unicodedata.combining))
    return "".join(out)


def folded(path: str) -> str:
    """The name a case-insensitive checkout (macOS, Windows) opens: case folded, the code
    points HFS+ ignores dropped, so `.Claude/x` and `.c\\u200claude/x` are `.claude/x`, and
    normalised (Unicode's canonical caseless match, composed), as APFS and HFS+ open
    `cafe\\u0301` and `caf\\u00e9` as one name. NFC of text already in canonical order is
    one pass, so the whole fold stays O(n log n) in the path's length."""
    caseless = _nfd(_nfd(path.translate(_DROP_HFS_IGNORED)).casefold())
    return unicodedata.normalize("NFC", caseless)


def _literal(path: str) -> str:
    """A glob matching `path` only: each wildcard character in a class of its own."""
    return path.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")


def lifts(allow: str, pattern: str) -> bool:
    """Whether an allow glob (matching the path at hand) lifts the default entry `pattern`: it
    names the entry, being the very pattern, a path written out with no wildcard, or a glob
    one of whose names, written without a wildcard, is the entry's name (`entry_name`). So
    `docs/**` lifts no entry, `docs/**/CLAUDE.md` lifts `**/CLAUDE.md` under docs/ and
    `tools/.claude/**` lifts `**/.claude/**` there. Compared as paths are (`folded`)."""
    allow, pattern = folded(allow.strip("/")), folded(pattern)
    parts = allow.split("/")
    if allow == pattern or not any(_GLOB_CHARS & set(part) for part in parts):
        return True
    name = entry_name(pattern)
    return any(not (_GLOB_CHARS & set(part)) and fnmatchcase(part, name) for part in parts)


def forbidden_problem(path: str, work: WorkSettings, *, config: str | None = None) -> str | None:
    """Why `path` is forbidden, or None: Baton's locked entries and its config at `config` (the
    path the workflow's `config` input names), then its default set (which `work.allow` lifts
    for the paths it matches), then the repository's `work.forbidden`. A path matching an
    entry, below one or above one is refused, compared case-insensitively (`folded`): a
    checkout on macOS or Windows opens `.Claude/settings.json` as the `.claude/settings.json`
    Claude Code obeys."""
    names = tuple(folded(path).split("/"))
    present = frozenset(names)

    def relates(pattern: str, only_match: bool = False) -> bool:
        found = _relate(names, present, _glob(folded(pattern)))
        return found == "match" if only_match else found is not None

    for rule in LOCKED_FORBIDDEN:
        if relates(rule.pattern):
            return f"{path} is a forbidden path ({rule.pattern}): {rule.why}; no setting allows it"
    if config is not None and relates(_literal(config)):
        return (
            f"{path} is a forbidden path ({config}): Baton's config, as the workflow's `config` "
            "input names it: an agent would rewrite its own rules; no setting allows it"
        )
    allows = [glob for glob in work.allow if relates(glob, only_match=True)]
    for rule in DEFAULT_FORBIDDEN:
        if relates(rule.pattern) and not any(lifts(glob, rule.pattern) for glob in allows):
            allow = json.dumps(path)  # a JSON string is a YAML one
            return (
                f"{path} is a forbidden path ({rule.pattern}): {rule.why}; a maintainer can "
                f"allow it in .github/baton.yml with work: {{allow: [{allow}]}}"
            )
    for pattern in work.forbidden:
        if relates(pattern):
            return f"{path} is a forbidden path ({pattern}, in work.forbidden)"
    return None


@dataclass(frozen=True)
class TestFiles:
    """What a changeset may do to the test files (`tests.paths`) and the frozen test
    infrastructure (`tests.frozen`): `tests_only`, a red proof's state, where the tester writes
    tests and nothing else; `frozen`, after a sign-off, where only a red proof's state may
    change them (`core/rules/proof.test_files` says which applies)."""

    __test__ = False
    suite: SuiteSettings
    tests_only: bool = False
    frozen: bool = False


def _is_test_file(path: str, globs: tuple[str, ...]) -> bool:
    """A path matching a glob, or below one that matches (a file under a test folder)."""
    return any(relation(path, glob) in ("match", "below") for glob in globs)


def suite_problems(paths: list[str], rule: TestFiles) -> list[str]:
    """Why the changeset's `paths` may not be written by this state: outside the tests in a red
    proof's state; a signed-off test or frozen file elsewhere. Globs as `work.forbidden`'s,
    path segment by path segment, so each path costs at most its names times the globs'."""
    suite = rule.suite
    found: list[str] = []
    for path in paths:
        test = _is_test_file(path, suite.paths)
        frozen = test or _is_test_file(path, suite.frozen)
        if rule.tests_only and not frozen:
            found.append(
                f"{path} is not a test file (tests.paths) nor test infrastructure "
                "(tests.frozen): this state writes tests only"
            )
        elif rule.frozen and not rule.tests_only and frozen:
            kind = "test file" if test else "frozen test infrastructure file"
            found.append(
                f"{path} is a signed-off {kind}: only the tester changes it, through a new red "
                "proof and a new sign-off"
            )
    return found


def problems(
    changeset: Changeset,
    limits: WorkSettings,
    *,
    config: str | None = None,
    links: BaseLinks | None = None,
    tests: TestFiles | None = None,
) -> list[str]:
    """Every reason to refuse the changeset, in a stable order; empty when it may be written.
    `config`: the config's path in the repository (`Policy.config_path`), locked too; `links`:
    the base's symbolic links, through which a forbidden path may lead to a changed one;
    `tests`: what the state may do to the test and frozen files (`suite_problems`)."""
    found: list[str] = []
    if changeset.refused:
        found.append(changeset.refused)
    if not OID.match(changeset.base):
        found.append("the base commit is not a 40-character commit id")
    if len(changeset.files) > limits.max_files:
        found.append(f"{len(changeset.files)} files changed (at most {limits.max_files})")
        return found  # not worth decoding
    seen: set[str] = set()
    total = 0
    for change in changeset.files:
        problem = path_problem(change.path, symlink=change.mode == SYMLINK)
        if problem:
            found.append(problem)
            continue
        if change.path in seen:
            found.append(f"{change.path} appears twice")
        seen.add(change.path)
        if change.mode == SYMLINK:
            found.append(f"{change.path} is a symbolic link")
        elif change.mode == GITLINK:
            found.append(f"{change.path} is a submodule")
        elif change.mode not in {REGULAR, EXECUTABLE}:
            found.append(f"{change.path} has file mode {change.mode[:10]!r}")
        blocked = forbidden_problem(change.path, limits, config=config)
        if blocked:
            found.append(blocked)
        if change.contents is not None:
            size = decoded_size(change.contents)
            if size is None:
                found.append(f"{change.path}: the contents are not base64")
            else:
                total += size
    if total > limits.max_bytes:
        found.append(f"{total:,} bytes of file contents (at most {limits.max_bytes:,})")
    if tests is not None:
        found.extend(suite_problems(sorted(seen), tests))
    if links is not None and not found:
        found.extend(link_problems(links, [f.path for f in changeset.files], limits, config))
    return found


def link_problems(
    base: BaseLinks, paths: list[str], work: WorkSettings, config: str | None = None
) -> list[str]:
    """Why `paths` change what a forbidden path of the base leads to through its links
    (`core.model.links`); a base whose folders on the way were not all read is refused."""
    checked = check_links(
        base, paths, lambda p: forbidden_problem(p, work, config=config) is not None
    )
    if checked.wanted:
        folders = ", ".join(sorted(f or "/" for f in checked.wanted)[:3])
        return [
            *checked.problems,
            f"the base's links could not all be read ({folders}): whether a forbidden path "
            "leads to a changed one cannot be told",
        ]
    return checked.problems


def decoded_size(contents: str) -> int | None:
    """Bytes the base64 text decodes to, or None if it is not canonical base64."""
    try:
        return len(base64.b64decode(contents, validate=True))
    except (binascii.Error, ValueError):
        return None


def parse_changeset(text: str) -> Changeset:
    return handback.parse(text, Changeset, "the changeset", InvalidChangeset)
