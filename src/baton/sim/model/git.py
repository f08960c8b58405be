"""The repository as git and GitHub keep it: commits with the ids git gives them, branches,
the compare-and-swap of `createCommitOnBranch`, the names git accepts for a branch, merges, and
GitHub's refusals of a commit, word for word. Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from baton.sim.model.objects import (
    FOLDER_MODE,
    REGULAR_MODE,
    SYMLINK_MODE,
    FileDiff,
    blob_oid,
    commit_oid,
    diff,
    tree_oid,
)

# --- branches and commits -----------------------------------------------------------------------
DEFAULT_BRANCH = "main"
README = "README.md"
HEADS = "refs/heads/"
WORKFLOWS_DIR = ".github/workflows/"
COMMIT_FILES_PAGE = 300  # files REST "get a commit" lists on its first page
COMPARE_COMMITS = 250  # commits REST compare lists when asked for no page
NOREPLY = "@users.noreply"  # the addresses GitHub links to an account
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def branch_name_problem(name: str) -> str | None:
    """Why git would refuse `name` as a branch (`git check-ref-format --branch`), or None:
    no component starting with `.` or ending in `.lock`, no `..`, no control characters, space,
    `~ ^ : ? * [ \\`, no leading, trailing or doubled `/`, no trailing `.`, no `@{`, not `@`,
    and (for a branch) not starting with `-` nor named `HEAD`."""
    if not name:
        return "the branch name is empty"
    problems = [
        (_REF_FORBIDDEN.search(name) is not None, "a space, control character or ~^:?*[\\"),
        (".." in name, "`..`"),
        ("@{" in name, "`@{`"),
        (name == "@", "only `@`"),
        (name.startswith("/") or name.endswith("/") or "//" in name, "an empty path component"),
        (name.endswith("."), "a trailing `.`"),
        (name.startswith("-"), "a leading `-`"),
        (name == "HEAD", "the name HEAD"),
    ]
    for component in name.split("/"):
        problems.append((component.startswith("."), "a component starting with `.`"))
        problems.append((component.endswith(".lock"), "a component ending in `.lock`"))
    found = next((why for bad, why in problems if bad), None)
    return f"{name!r} is not a valid branch name: it has {found}" if found else None


def stale_head_message(expected: str) -> str:
    """What `createCommitOnBranch` answers (type STALE_DATA) when the branch moved."""
    return f'Expected branch to point to "{expected}" but it did not. Pull and try again.'


def ref_exists_message(branch: str) -> str:
    """What `createRef` (and REST `POST /git/refs`) answers for a ref that exists."""
    return f'A ref named "{HEADS}{branch}" already exists in the repository.'


def workflow_refusal(path: str) -> str | None:
    """GITHUB_TOKEN never has the `workflows` permission: GitHub refuses any change under
    `.github/workflows/` made with it, with the message a push gets."""
    if not path.startswith(WORKFLOWS_DIR):
        return None
    return (
        f"refusing to allow a GitHub App to create or update workflow `{path}` without "
        "`workflows` permission"
    )


def missing_deletion_message(path: str, oid: str) -> str:
    return f"A path was requested for deletion which does not exist as of commit oid `{oid}`"


MERGE_CONFLICT = "Merge conflict"  # REST merges' 409 message


class GitRefusal(Exception):
    """Git or GitHub refused a change to the repository; `kind` says which rule (`stale`,
    `exists`, `no_branch`, `bad_name`, `no_object`, `no_path`, `workflow`, and for the merges
    API `missing` and `conflict`)."""

    def __init__(self, kind: str, message: str, *, head: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.head = head


@dataclass(frozen=True)
class GitCommit:
    """A commit as git stores it: its whole tree (path -> bytes), parents, message, author."""

    oid: str
    tree: Mapping[str, bytes]
    parents: tuple[str, ...]
    message: str
    author: str
    email: str
    when: datetime
    # Signed by GitHub: what it makes itself (`createCommitOnBranch`, a merge through the API
    # or the web) shows `verification.verified`; a commit pushed unsigned does not.
    signed: bool = False
    # The paths of `tree` that are symbolic links (mode 120000; their bytes are the target).
    links: frozenset[str] = frozenset()

    def entry(self, path: str) -> tuple[str, bytes | None] | None:
        """What `path` is in this commit's tree, as git's modes say: `100644` or `120000` with
        the blob, `040000` for a folder (`""` the root), None when there is none (a path
        through a link is none: git stores the link, not what it points at)."""
        if path in self.tree:
            return (SYMLINK_MODE if path in self.links else REGULAR_MODE), self.tree[path]
        if not path or any(p.startswith(path + "/") for p in self.tree):
            return FOLDER_MODE, None
        return None

    def entries(self, folder: str) -> list[tuple[str, str]] | None:
        """(name, mode) of each entry of `folder` (`""` the root) in git's order, or None when
        it is no folder of this tree."""
        if self.entry(folder) != (FOLDER_MODE, None):
            return None
        prefix = folder + "/" if folder else ""
        found: dict[str, str] = {}
        for path in self.tree:
            if path.startswith(prefix):
                name, slash, _ = path[len(prefix) :].partition("/")
                whole = prefix + name
                kind = SYMLINK_MODE if whole in self.links else REGULAR_MODE
                found[name] = FOLDER_MODE if slash else kind
        return sorted(found.items())

    @property
    def headline(self) -> str:
        return self.message.partition("\n")[0]

    @property
    def account(self) -> str | None:
        """The login GitHub links the commit's author to: the account whose address it
        carries (here, a `noreply` one); None for an address GitHub knows no account of."""
        return self.author if NOREPLY in self.email else None

    @property
    def body(self) -> str:
        return self.message.partition("\n")[2].lstrip("\n")


class Git:
    """One repository's commits and branches, with the ids git would give them. Both fakes
    keep their repository in one; it starts with the default branch at a commit of a README."""

    def __init__(self, repo: str, *, when: datetime, default_branch: str = DEFAULT_BRANCH) -> None:
        self.default_branch = default_branch
        self.refs: dict[str, str] = {}
        self.commits: dict[str, GitCommit] = {}
        name = repo.rsplit("/", 1)[-1]
        readme = {README: f"# {name}\n".encode()}
        owner = repo.split("/", 1)[0]
        first = self._store(readme, (), "Initial commit", owner, f"{owner}@users.noreply", when)
        self.refs[default_branch] = first.oid

    def _store(
        self,
        files: Mapping[str, bytes],
        parents: tuple[str, ...],
        message: str,
        author: str,
        email: str,
        when: datetime,
        *,
        signed: bool = False,
        links: frozenset[str] = frozenset(),
    ) -> GitCommit:
        oid = commit_oid(files, parents, message, author, email, when, links)
        commit = GitCommit(
            oid, dict(files), parents, message, author, email, when, signed, links & set(files)
        )
        self.commits[oid] = commit
        return commit

    def head(self, branch: str) -> str | None:
        return self.refs.get(branch)

    def resolve(self, ref: str) -> GitCommit | None:
        """A branch (with or without `refs/heads/`) or a commit id."""
        oid = self.refs.get(ref.removeprefix(HEADS), ref)
        return self.commits.get(oid)

    def create_branch(self, name: str, oid: str) -> None:
        problem = branch_name_problem(name)
        if problem is not None:
            raise GitRefusal("bad_name", problem)
        if name in self.refs:
            raise GitRefusal("exists", ref_exists_message(name))
        if oid not in self.commits:
            raise GitRefusal("no_object", f"Object does not exist: {oid}")
        self.refs[name] = oid

    def commit(
        self,
        branch: str,
        *,
        expected_head: str,
        additions: Mapping[str, bytes],
        deletions: Iterable[str],
        message: str,
        author: str,
        email: str,
        when: datetime,
        workflows: bool = True,
    ) -> GitCommit:
        """`createCommitOnBranch`: one commit on `branch` only if its head is `expected_head`,
        all or nothing; without the `workflows` permission no path under .github/workflows/."""
        head = self.refs.get(branch)
        if head is None:
            raise GitRefusal("no_branch", f"A branch named '{branch}' does not exist.")
        if head != expected_head:
            raise GitRefusal("stale", stale_head_message(expected_head), head=head)
        deletions = list(deletions)
        if not workflows:
            for path in [*additions, *deletions]:
                refusal = workflow_refusal(path)
                if refusal is not None:
                    raise GitRefusal("workflow", refusal)
        files = dict(self.commits[head].tree)
        for path in deletions:
            if path not in files:
                raise GitRefusal("no_path", missing_deletion_message(path, head))
            del files[path]
        files.update(additions)
        # what it adds is a regular file, even where a link was
        links = self.commits[head].links - set(additions)
        commit = self._store(files, (head,), message, author, email, when, signed=True, links=links)
        self.refs[branch] = commit.oid
        return commit

    def push(
        self,
        branch: str,
        files: Mapping[str, bytes | None],
        message: str,
        author: str,
        when: datetime,
        *,
        email: str = "",
        links: Iterable[str] = (),
    ) -> GitCommit:
        """Someone pushes one commit to `branch` (made from the default branch if new), as
        `author` at their `noreply` address unless `email` names another; the paths of `links`
        among `files` are symbolic links, their bytes the target."""
        if branch not in self.refs:
            self.create_branch(branch, self.refs[self.default_branch])
        before = self.commits[self.refs[branch]]
        kept = before.links - set(files)
        tree = dict(before.tree)
        for path, data in files.items():
            if data is None:
                tree.pop(path, None)
            else:
                tree[path] = data
        email = email or f"{author}{NOREPLY}"
        commit = self._store(
            tree, (self.refs[branch],), message, author, email, when, links=kept | set(links)
        )
        self.refs[branch] = commit.oid
        return commit

    def ancestors(self, oid: str) -> set[str]:
        """`oid` and every commit it descends from."""
        seen: set[str] = set()
        todo = [oid]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(self.commits[current].parents)
        return seen

    def first_parents(self, head: str, known: Container[str]) -> tuple[list[str], str | None]:
        """The commits from `head` back along first parents to the first one in `known`, newest
        first, and that one (None when the walk passed the root)."""
        chain: list[str] = []
        oid: str | None = head
        while oid is not None and oid not in known:
            chain.append(oid)
            parents = self.commits[oid].parents
            oid = parents[0] if parents else None
        return chain, oid

    def compare(self, base: str, head: str) -> tuple[list[str], int, str]:
        """REST compare `base...head` by commit ids: the commits `head` holds that `base`
        lacks, oldest first (GitHub's chronological order), how many of `base`'s it lacks, and
        their merge base."""
        mine, theirs = self.ancestors(head), self.ancestors(base)
        ahead = self._oldest_first(mine - theirs)
        shared = mine & theirs
        tips = [o for o in shared if not any(o in self.commits[c].parents for c in shared)]
        return ahead, len(theirs - mine), max(tips, key=lambda o: (self.commits[o].when, o))

    def _oldest_first(self, oids: set[str]) -> list[str]:
        """`oids` by date, a commit never before its parents (commits of one second apart)."""
        done: list[str] = []
        left = set(oids)
        while left:
            ready = [o for o in left if not set(self.commits[o].parents) & left]
            oid = min(ready, key=lambda o: (self.commits[o].when, o))
            done.append(oid)
            left.remove(oid)
        return done

    def ahead(self, base: str, head: str) -> int:
        """Commits on `head` that `base` lacks (a pull request needs at least one)."""
        return self.ahead_of(self.refs[base], self.refs[head])

    def ahead_of(self, base: str, head: str) -> int:
        """Commits `head` descends from that `base` does not (REST compare's `ahead_by`)."""
        return len(self.ancestors(head) - self.ancestors(base))

    def changes(self, oid: str) -> list[FileDiff]:
        """The files commit `oid` changed against its first parent (all added for a root)."""
        commit = self.commits[oid]
        before = self.commits[commit.parents[0]].tree if commit.parents else {}
        return diff(before, commit.tree)

    def merge_base(self, one: str, other: str) -> str:
        """The newest commit both branches descend from."""
        shared = self.ancestors(self.refs[one]) & self.ancestors(self.refs[other])
        # the newest common ancestor: the shared commit no other shared commit descends from
        tips = [o for o in shared if not any(o in self.commits[c].parents for c in shared)]
        return max(tips, key=lambda o: (self.commits[o].when, o))

    def conflicts(self, base: str, head: str) -> list[str]:
        """The paths both branches changed since they parted, each differently."""
        start = self.commits[self.merge_base(base, head)].tree
        ours, theirs = self.commits[self.refs[base]].tree, self.commits[self.refs[head]].tree
        paths = set(start) | set(ours) | set(theirs)
        return sorted(
            p
            for p in paths
            if ours.get(p) != start.get(p)
            and theirs.get(p) != start.get(p)
            and ours.get(p) != theirs.get(p)
        )

    def merge_branches(
        self, base: str, head: str, message: str, author: str, when: datetime
    ) -> GitCommit | None:
        """REST `POST /repos/{o}/{r}/merges`: a merge commit on `base` (201, even when `base`
        could fast-forward: GitHub answers with "the resulting merge commit"), None when `head`
        is already in `base` (204), a `missing` refusal (404) for a branch that is not there,
        a `conflict` (409, nothing written) when both changed a path differently."""
        for name, which in ((base, "Base"), (head, "Head")):
            if name not in self.refs:
                raise GitRefusal("missing", f"{which} does not exist")
        if self.refs[head] in self.ancestors(self.refs[base]):
            return None
        if self.conflicts(base, head):
            raise GitRefusal("conflict", MERGE_CONFLICT)
        return self.merge(head, base, message, author, when)

    def merge(self, head: str, base: str, message: str, author: str, when: datetime) -> GitCommit:
        """Merge `head` into `base` with a merge commit: each path as the side that changed
        it since they parted (the head's side when both did: `merge_branches` refuses that
        case first, a pull request's merge in the fakes does not look)."""
        ours, theirs = self.commits[self.refs[base]], self.commits[self.refs[head]]
        start = self.commits[self.merge_base(base, head)].tree
        tree = dict(ours.tree)
        for path in set(start) | set(theirs.tree):
            if theirs.tree.get(path) != start.get(path):
                if path in theirs.tree:
                    tree[path] = theirs.tree[path]
                else:
                    tree.pop(path, None)
        email = f"{author}@users.noreply"
        links = frozenset(p for p in ours.links | theirs.links if p in tree)
        commit = self._store(
            tree, (ours.oid, theirs.oid), message, author, email, when, signed=True, links=links
        )
        self.refs[base] = commit.oid
        return commit


# What the fakes and tests read of git as one module (the object ids live in `objects`).
__all__ = [
    "COMMIT_FILES_PAGE",
    "COMPARE_COMMITS",
    "DEFAULT_BRANCH",
    "FOLDER_MODE",
    "HEADS",
    "MERGE_CONFLICT",
    "NOREPLY",
    "README",
    "REGULAR_MODE",
    "SYMLINK_MODE",
    "WORKFLOWS_DIR",
    "FileDiff",
    "Git",
    "GitCommit",
    "GitRefusal",
    "blob_oid",
    "branch_name_problem",
    "commit_oid",
    "diff",
    "missing_deletion_message",
    "ref_exists_message",
    "stale_head_message",
    "tree_oid",
    "workflow_refusal",
]
