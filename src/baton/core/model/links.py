"""What a forbidden name reaches through the base's symbolic links, and which changes touch it.

A link at a forbidden path (`CLAUDE.md -> docs/guide.md -> ai-guide.md`, `.claude ->
tools/claude` with `tools -> vendor/tools`) makes the next agent load whatever it leads to, so a
change there is a change to the forbidden path. Each such link is resolved as the kernel does:
every name of the path in turn, each link met replaced by its target read relative to the link's
folder, at most `MAX_HOPS` links; one that leaves the repository, or goes on past the limit (a
loop), cannot be judged and refuses the changeset, naming it. A link inside the folder a
forbidden link leads to is guarded too (the next agent loads it through that folder).

A changed path is refused when it is at, below or above where a guarded link leads, or is one of
the links passed on the way (replacing or deleting one changes where the name leads).

The agent job knows the whole base tree (`BaseLinks.listed` None); the report job knows the
folders it has listed, and `check_links` says which folders it still needs (`wanted`): the
root, every folder of a changed path, every folder a resolution passes, every folder a guarded
link leads to. Each resolution is bounded (`MAX_HOPS` links, `MAX_TARGET` characters each),
so a hostile tree costs linear time in what it is asked about.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

MAX_HOPS = 40  # links followed in one resolution, as Linux's path walk allows
MAX_TARGET = 4096  # characters of a link's target or a resolved path (PATH_MAX)


@dataclass(frozen=True)
class BaseLinks:
    """The base commit's symbolic links (path -> target) as far as they are known: `listed`
    holds the folders ("" the root) whose every entry is known, None when the whole tree is."""

    links: Mapping[str, str] = field(default_factory=dict)
    listed: frozenset[str] | None = None

    def knows(self, path: str) -> bool:
        return self.listed is None or parent(path) in self.listed


@dataclass(frozen=True)
class Resolution:
    """Where a path leads: `real`, the links `passed` in order, and whether it left the
    repository (`outside`: `real` is None); or why it cannot be told (`problem`), or the first
    path whose kind is not known yet (`unknown`)."""

    real: str | None
    passed: tuple[str, ...] = ()
    outside: bool = False
    problem: str | None = None
    unknown: tuple[str, ...] = ()  # the folders to list: the first unknown one's and ahead


@dataclass(frozen=True)
class LinkCheck:
    """Why the changed paths change what a forbidden link leads to (empty: they do not), and the
    folders still to list before that can be told (empty when the check is complete)."""

    problems: list[str]
    wanted: frozenset[str]


def parent(path: str) -> str:
    return path.rpartition("/")[0]


def folders_of(path: str) -> list[str]:
    """The root and every folder above `path` ("", "a", "a/b" for "a/b/c")."""
    found = [""]
    end = path.find("/")
    while end != -1:
        found.append(path[:end])
        end = path.find("/", end + 1)
    return found


def resolve(path: str, base: BaseLinks) -> Resolution:
    """Follow `path` through the base's links, name by name (the kernel's walk)."""
    pending = deque(path.split("/"))
    done: list[str] = []  # the real folders so far
    passed: list[str] = []
    size = 0
    while pending:
        name = pending.popleft()
        if name in ("", "."):
            continue
        if name == "..":
            if not done:
                return Resolution(None, tuple(passed), outside=True)
            size -= len(done.pop()) + 1
            continue
        here = f"{'/'.join(done)}/{name}" if done else name
        if not base.knows(here):
            return Resolution(None, tuple(passed), unknown=_ahead(here, pending))
        target = base.links.get(here)
        if target is None:
            done.append(name)
            size += len(name) + 1
            if size > MAX_TARGET:
                return Resolution(
                    None, tuple(passed), problem=f"leads past {MAX_TARGET} characters"
                )
            continue
        passed.append(here)
        if len(passed) > MAX_HOPS:
            return Resolution(None, tuple(passed), problem=f"passes more than {MAX_HOPS} links")
        if len(target) > MAX_TARGET:
            return Resolution(None, tuple(passed), problem=f"leads past {MAX_TARGET} characters")
        if not target or target.startswith("/"):
            return Resolution(None, tuple(passed), outside=True)
        pending.extendleft(reversed(target.split("/")))
    return Resolution("/".join(done), tuple(passed))


def _ahead(here: str, pending: Iterable[str]) -> tuple[str, ...]:
    """The folder of `here`, whose entries say what `here` is, and the folders the rest of
    the walk would pass were none of them a link (the last may be a file: then nothing is
    listed for it): read at once, they spare a read per name (a `..` or `.` ends the guess)."""
    folders = [parent(here), here]
    for name in pending:
        if name in ("", ".", ".."):
            break
        folders.append(f"{folders[-1]}/{name}")
    return tuple(folders)


def _relates(path: str, other: str) -> bool:
    """`path` is `other`, below it, or above it (other is "" for the root: everything)."""
    if not other or path == other:
        return True
    return path.startswith(other + "/") or other.startswith(path + "/")


def _under(ordered: list[str], folder: str) -> Iterable[str]:
    """The paths of sorted `ordered` below `folder`: one range, found by bisection."""
    if not folder:
        return ordered
    start = bisect.bisect_left(ordered, folder + "/")
    end = bisect.bisect_left(ordered, folder + "0")  # "0" follows "/" in code point order
    return ordered[start:end]


def check_links(
    base: BaseLinks,
    changed: Iterable[str],
    forbidden: Callable[[str], bool],
    show: Callable[[str], str] = str,
) -> LinkCheck:
    """Every changed path that changes what a guarded link leads to, one reason each (in the
    order given; `show` quotes a path), and the folders to list before the answer is complete.
    A guarded link past `MAX_HOPS` links (a loop) refuses the changeset whatever it changes; one
    leaving the repository leads to nothing a changeset holds, but the links it passed."""
    changed = list(changed)
    wanted = {f for p in changed for f in folders_of(p)} if base.listed is not None else set()
    ordered = sorted(base.links)
    queue = deque(link for link in ordered if forbidden(link))
    seen = set(queue)
    reached: list[tuple[str, str | None, tuple[str, ...]]] = []  # (link, where it leads, passed)
    problems: list[str] = []
    while queue:
        link = queue.popleft()
        found = resolve(link, base)
        if found.unknown:
            wanted.update(found.unknown)
            continue
        if found.problem is not None:
            chain = " -> ".join(map(show, found.passed[:3]))
            problems.append(
                f"{show(link)} is a forbidden path whose link {found.problem} ({chain} -> …): "
                "what the next agent loads there cannot be told"
            )
            continue
        reached.append((link, found.real, found.passed))
        if found.real is not None:
            wanted.add(found.real)
            for inner in _under(ordered, found.real):
                if inner not in seen:
                    seen.add(inner)
                    queue.append(inner)
    for path in changed:
        reason = next(filter(None, (_reason(path, *r, show) for r in reached)), None)
        if reason:
            problems.append(reason)
    left = frozenset() if base.listed is None else frozenset(wanted - base.listed)
    return LinkCheck(problems, left)


def _reason(
    path: str, link: str, real: str | None, passed: tuple[str, ...], show: Callable[[str], str]
) -> str | None:
    chain = " -> ".join(map(show, (*passed, "(outside)" if real is None else real or ".")))
    if real is not None and _relates(path, real):
        what = "is what"
    elif any(_relates(path, hop) for hop in passed[1:]):
        what = "is a link on the way to what"
    else:
        return None
    return (
        f"{show(path)} {what} {show(link)} points at ({chain}), and {show(link)} is a forbidden "
        "path: a change there is a change to it"
    )
