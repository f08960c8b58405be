"""The evidence a scripted report carries: the `baton-evidence.json` `baton verify` would have
written of the tests a scenario step names, bound to what the report is bound to.

The verdict is computed (`core.rules.evidence.judge`), never taken from the scenario; `commit` is
the commit the agent's run checked out (its changeset's base, else the branch head, else the
default branch's head); `changeset` is the changeset's digest, as `baton report` computes it;
`files` is the digest of the test and frozen files of the tree the tests ran on: that commit's
tree with the changeset applied. A step may make the commit or the changeset stale on purpose.
"""

from __future__ import annotations

import base64
import hashlib

from baton.core.model.changeset import Changeset
from baton.core.model.evidence import Evidence, files_digest
from baton.core.rules.evidence import judge
from baton.sim.model.git import Git
from baton.sim.model.objects import REGULAR_MODE, SYMLINK_MODE, blob_oid
from baton.sim.scenario.format import EvidenceSpec
from baton.sim.scenario.holding import Stage
from baton.workflow.suite import DEFAULT_FROZEN, DEFAULT_TEST_PATHS

Entry = tuple[str, str, str]  # (path, mode, blob oid), as files_digest reads a tree


def tree_entries(git: Git, commit: str, changeset: Changeset | None) -> list[Entry]:
    """The files of `commit`'s tree with `changeset` applied: written ones with their new
    blob and mode, deleted ones gone."""
    found = git.commits[commit]
    tree = {
        path: (SYMLINK_MODE if path in found.links else REGULAR_MODE, blob_oid(data))
        for path, data in found.tree.items()
    }
    for change in changeset.files if changeset is not None else ():
        if change.contents is None:
            tree.pop(change.path, None)
        else:
            tree[change.path] = (change.mode, blob_oid(base64.b64decode(change.contents)))
    return [(path, mode, oid) for path, (mode, oid) in sorted(tree.items())]


def stale_commit(git: Git, bound: str) -> str:
    """Another commit than `bound`: the one before it, or (for a first commit) an id no commit
    of the repository has."""
    parents = git.commits[bound].parents
    if parents:
        return parents[0]
    return hashlib.sha1(f"stale {bound}".encode(), usedforsecurity=False).hexdigest()


def stale_changeset(changeset: Changeset | None) -> str:
    """The digest of a changeset that is not the report's."""
    mine = changeset.digest() if changeset is not None else ""
    return "sha256:" + hashlib.sha256(f"stale {mine}".encode()).hexdigest()


def bound_commit(stage: Stage, changeset: Changeset | None) -> str:
    """The commit a report is bound to: its changeset's base, else the head of the issue's
    branch, else (before the branch exists) the default branch's head."""
    if changeset is not None:
        return changeset.base
    git = stage.gh.git
    return git.head(stage.branch) or git.head(git.default_branch) or ""


def build(stage: Stage, changeset: Changeset | None, spec: EvidenceSpec) -> Evidence:
    """The evidence of `spec`'s tests, run on the commit the report is bound to (with
    `changeset` applied when there is one), the files judged by the config's `tests:` (the
    defaults without it): the base is that commit for a changeset's tests (`--base HEAD`),
    else the merge base of the issue's branch with the default branch."""
    git, branch, suite = stage.gh.git, stage.branch, stage.settings.policy.tests
    bound = bound_commit(stage, changeset)
    verdict, reason = judge(spec.tests, spec.new, spec.status, problem=spec.problem)
    paths = suite.paths if suite is not None else DEFAULT_TEST_PATHS
    frozen = suite.frozen if suite is not None else DEFAULT_FROZEN
    base = bound
    if changeset is None and git.head(branch) is not None:
        base = git.merge_base(git.default_branch, branch)
    if spec.changeset == "stale":
        digest: str | None = stale_changeset(changeset)
    else:
        digest = changeset.digest() if changeset is not None else None
    return Evidence(
        verdict=verdict,
        reason=reason,
        commit=stale_commit(git, bound) if spec.commit == "stale" else bound,
        base=base,
        exit_status=spec.status,
        tests=tuple(spec.tests),
        new=tuple(spec.new),
        changeset=digest,
        files=files_digest(tree_entries(git, bound, changeset), paths, frozen),
    )


def evidence_line(stage: Stage, evidence: Evidence, changeset: Changeset | None) -> str:
    """The evidence in one line, as the player says it beside the report, with what it misses
    of the report when it is stale (the commit the report is bound to, its changeset)."""
    bound = bound_commit(stage, changeset)
    digest = changeset.digest() if changeset is not None else None
    on = f"on {evidence.commit[:7]}"
    if evidence.commit != bound:
        on += f" (stale: the report is bound to {bound[:7]})"
    if evidence.changeset is not None:
        on += f" with changeset {evidence.changeset[7:19]}"
    if evidence.changeset != digest:
        mine = f"changeset {digest[7:19]}" if digest else "no changeset"
        on += f" (stale: the report has {mine})"
    failing = [t.id for t in evidence.tests if t.outcome in ("failed", "error")]
    named = f"; failing: {', '.join(failing[:3])}" if failing else ""
    more = f" and {len(failing) - 3} more" if len(failing) > 3 else ""
    return f"   evidence: {evidence.verdict} {on}: {evidence.reason}{named}{more}"
