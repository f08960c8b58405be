"""`baton verify`: run the tests on the checkout's commit and write what they showed.

The JUnit path is Baton's: a file in a fresh temporary folder outside the checkout, read once
after the command exits, then removed. Failure messages are the tests' words (agent-written):
every secret of the job's environment is redacted, the characters a reader cannot see are
removed as they are from issue text, and each is clipped. Evidence names the commit the tests
ran on; if the tests moved HEAD, nothing they showed is trusted. Evidence of an agent's
changeset (`verify_changeset`) ran on the changeset applied on its base, in a temporary
worktree (`evidence/applied.py`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from baton.agents import secrets
from baton.agents.environment import secrets_of
from baton.agents.sanitize import visible_characters
from baton.core.model.changeset import Changeset
from baton.core.model.evidence import MAX_MESSAGE, Evidence, SignedOff
from baton.core.rules.evidence import judge
from baton.evidence import applied, changes, junit
from baton.evidence.run import run_suite
from baton.workflow.suite import SuiteSettings

CLIPPED_BEFORE_CLEANING = 8 * MAX_MESSAGE  # characters a message keeps before it is cleaned


def cleaner(environ: Mapping[str, str]) -> Callable[[str], str]:
    """Clean one failure message: secrets redacted (over the whole text, so no cut can keep
    half of one), unseen characters removed (and secrets redacted again), clipped."""
    held = secrets_of(environ)

    def clean(text: str) -> str:
        if held:
            text = secrets.redact(text, held)
        text = visible_characters(text[:CLIPPED_BEFORE_CLEANING])
        if held:  # again: NFKC makes a full-width secret the plain one
            text = secrets.redact(text, held)
        return text.strip()[:MAX_MESSAGE]

    return clean


def verify(
    checkout: Path,
    suite: SuiteSettings,
    *,
    base: str | None = None,
    environ: Mapping[str, str] | None = None,
    signed_off: SignedOff | None = None,
) -> Evidence:
    """Run `suite` in `checkout` and judge what it showed. A bad `base` or a folder that is not
    a git checkout raises `changes.GitError` before anything runs."""
    environ = os.environ if environ is None else environ
    # git is read before the tests run: they are agent-written and may rewrite `.git/`.
    commit = changes.commit_of(checkout, "HEAD")
    base_oid = changes.commit_of(checkout, base) if base else None
    tree = changes.tree_of(checkout, commit)
    layout = changes.Layout.of(e.path for e in tree if changes.matching(e.path, suite.paths))
    files = changes.files_digest(tree, (*suite.paths, *suite.frozen))
    touched = changes.touched_tests(checkout, base_oid, suite.paths) if base_oid else {}
    with tempfile.TemporaryDirectory(prefix="baton-junit-", ignore_cleanup_errors=True) as folder:
        path = Path(folder) / "junit.xml"
        ran = run_suite(suite, checkout, path, environ)
        read = junit.read(path, cleaner(environ)) if ran.problem is None else junit.JunitRead()
    problem = ran.problem or read.problem
    if problem is None and changes.commit_of(checkout, "HEAD") != commit:
        problem = "the tests moved HEAD away from the commit they ran on"
    tests = changes.with_files(read.tests, layout, checkout) if problem is None else []
    new = changes.new_ids(tests, touched, layout, checkout)
    verdict, reason = judge(
        tests, set(new), ran.exit_status, problem=problem, signed_off=signed_off
    )
    return Evidence(
        verdict=verdict,
        reason=reason,
        commit=commit,
        base=base_oid,
        exit_status=ran.exit_status,
        tests=tuple(tests),
        new=tuple(new),
        files=files,
    )


def verify_changeset(
    checkout: Path,
    changeset: Changeset,
    suite: SuiteSettings,
    *,
    environ: Mapping[str, str] | None = None,
    signed_off: SignedOff | None = None,
) -> Evidence:
    """Run `suite` on the changeset applied on its base (`applied.worktree`, with `--base` the
    base, so the changeset's tests are the new ones): the evidence names the base as `commit`
    and the changeset's digest (`Changeset.digest`, the one the report judges it by), and
    `files` is of the tree the tests ran on. `ChangesetNotApplied` (a `GitError`) when the
    changeset cannot be applied; nothing ran then."""
    with applied.worktree(checkout, changeset) as tree:
        evidence = verify(tree, suite, base=changeset.base, environ=environ, signed_off=signed_off)
    # `base` is the base as git resolved it before the tests ran, in the worktree.
    return evidence.model_copy(update={"commit": evidence.base, "changeset": changeset.digest()})


def write(evidence: Evidence, output: Path) -> None:
    """The evidence as JSON, compact (a run of 10,000 tests stays within 2 MB)."""
    text = json.dumps(evidence.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    output.write_text(text + "\n", encoding="utf-8")


def summary(evidence: Evidence) -> str:
    """One line for the log: the verdict, its reason, the counts."""
    counts: dict[str, int] = {}
    for test in evidence.tests:
        counts[test.outcome] = counts.get(test.outcome, 0) + 1
    shown = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    return (
        f"{evidence.verdict}: {evidence.reason} ({shown or 'no tests'}; "
        f"{len(evidence.new)} new or changed) on {evidence.commit[:12]}"
    )
