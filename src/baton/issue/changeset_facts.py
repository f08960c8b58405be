"""An agent's changeset judged against the issue's branch as the report run read it.

The one place that says whether a changeset is refused, stale, already committed or to be
committed; `decide` reads the answer (`ChangesetFacts`) and never the files themselves.
"""

from __future__ import annotations

from baton.core.changeset import Changeset, decoded_size, problems
from baton.core.record import Record
from baton.core.work import ChangesetFacts, digest_in
from baton.github.tracker import BranchHead
from baton.workflow.config import WorkSettings

SHOWN_PATHS = 20


def judge(
    changeset: Changeset,
    settings: WorkSettings,
    head: BranchHead | None,
    record: Record | None,
    *,
    changes_code: bool = True,
) -> ChangesetFacts:
    """Refused (what the checks found), committed (the record, or the commit at the branch head,
    carries its digest: an earlier attempt of this run wrote it), stale (the branch moved since
    the agent started), ok (commit it), or empty. `changes_code`: whether the issue's state is
    one whose agent changes the repository; another agent's changes are left out, and said."""
    if changeset.empty:
        return ChangesetFacts(status="empty", base=changeset.base)
    if not changes_code:
        state = record.state if record is not None else "this state"
        count = len(changeset.files)
        why = f"{state} does not change code: the {count} changed file(s) were left out"
        return ChangesetFacts(status="empty", base=changeset.base, problems=[why])
    found = problems(changeset, settings)
    paths = [f.path for f in changeset.files[:SHOWN_PATHS]]
    size = sum(decoded_size(f.contents) or 0 for f in changeset.files if f.contents)
    common = {
        "base": changeset.base,
        "files": len(changeset.files),
        "bytes": size,
        "paths": paths,
    }
    if found:
        return ChangesetFacts(status="refused", problems=found[:20], **common)
    digest = changeset.digest()
    work = record.work if record is not None else None
    mark = work.committed(digest) if work is not None else None
    if mark is not None:
        return ChangesetFacts(status="committed", digest=digest, oid=mark.oid, **common)
    if head is None and (work is None or not work.created):
        # An issue that entered its code state before Baton made branches: the commit creates
        # the branch at the default branch's head first (`run._do_work`), which must be `base`.
        return ChangesetFacts(status="ok", digest=digest, head="", **common)
    if head is None:
        branch = work.branch if work is not None else "the issue's branch"
        return ChangesetFacts(
            status="refused",
            digest=digest,
            problems=[f"{branch} does not exist (deleted?): nothing to commit onto"],
            **common,
        )
    if digest_in(head.message) == digest:
        return ChangesetFacts(
            status="committed", digest=digest, oid=head.oid, head=head.oid, **common
        )
    if head.oid != changeset.base:
        return ChangesetFacts(status="stale", digest=digest, head=head.oid, **common)
    return ChangesetFacts(status="ok", digest=digest, head=head.oid, **common)
