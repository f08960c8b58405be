"""An agent's changeset judged against the issue's branch as the report run read it.

The one place that says whether a changeset is refused, stale, already committed or to be
committed; `decide` reads the answer (`ChangesetFacts`) and never the files themselves.

A commit at the branch head whose trailer names the changeset is adopted as Baton's only when
it provably is (`not_baton_s`): anyone who may push can copy a trailer, nobody but GitHub can
sign as Baton's `createCommitOnBranch`, and the tree check holds whoever made it.

The base's symbolic links are judged here too, from the base commit's tree as GitHub has it,
never from the agent job's word (its job is the agent's): the read of the issue brings the
entries of the root and of every folder of a changed path (`tree_ask`); only when a link is
there does a further read (`Git.read_tree`) bring its target and the folders it leads through,
until `core.model.links` has what it needs or `MAX_TREE_READS` reads were made.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable

from baton.core.model.changeset import (
    OID,
    Changeset,
    TestFiles,
    decoded_size,
    forbidden_problem,
    path_problem,
    problems,
)
from baton.core.model.events import AgentReported
from baton.core.model.links import BaseLinks, check_links, folders_of
from baton.core.model.record import Record
from baton.core.model.work import ChangesetFacts, digest_in
from baton.core.rules.proof import test_files
from baton.core.text.work import commit_message
from baton.github.tracker import BranchHead, CommitFacts, Git, Snapshot, TreeAsk, TreeRead
from baton.names import BOT_LOGIN, CONFIG_PATH
from baton.workflow.config import Settings, WorkSettings

SHOWN_PATHS = 20
MAX_TREE_READS = 6  # reads after the first: a link's target, then the folders it leads into
MAX_FOLDERS = 400  # folders one read lists; a changeset spread wider is judged unreadable
SYMLINK_MODE = "120000"
WEB_FLOW = "web-flow"  # the account GitHub commits as when it makes and signs a commit


def blob_oid(data: bytes) -> str:
    """The id git gives a file's contents: sha1 of `blob <length>\\0` and the bytes."""
    raw = b"blob %d\0" % len(data) + data
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest()


def claims(changeset: Changeset, head: BranchHead | None, record: Record | None) -> bool:
    """Whether the head commit names this changeset in its trailer while the record does not
    know the commit: the one case where `judge` needs the commit's facts (`commit_facts`)."""
    if changeset.empty or head is None or digest_in(head.message) is None:
        return False
    digest = changeset.digest()
    work = record.work if record is not None else None
    if work is not None and work.committed(digest) is not None:
        return False
    return digest_in(head.message) == digest


def _paths(changeset: Changeset) -> list[str]:
    return [f.path for f in changeset.files if path_problem(f.path) is None]


def tree_ask(changeset: Changeset | None) -> TreeAsk | None:
    """What the report's read asks of the base's tree: the entries of the root and of every
    folder of a changed path (None: nothing to judge, or too many folders to ask at once)."""
    if changeset is None or changeset.empty or not OID.match(changeset.base):
        return None
    folders = sorted({f for path in _paths(changeset) for f in folders_of(path)})
    return TreeAsk(changeset.base, tuple(folders)) if len(folders) <= MAX_FOLDERS else None


def base_links(
    changeset: Changeset,
    settings: WorkSettings,
    first: TreeRead | None,
    read: Callable[[TreeAsk], TreeRead],
    *,
    config: str | None = CONFIG_PATH,
) -> BaseLinks:
    """The base's links as far as the changeset's paths need them: `first` (what the read of
    the issue brought), then a read for each step a link leads further (the links' targets
    and the folders they lead through), at most `MAX_TREE_READS`. What is still unknown after
    them leaves `core.model.links.check_links` wanting, and the changeset is refused."""
    paths = _paths(changeset)
    links: dict[str, str] = {}
    listed: set[str] = set()
    pending: set[str] = set()

    def learn(found: TreeRead) -> None:
        for folder, entries in found.folders.items():
            listed.add(folder)
            for name, mode in entries or ():
                path = f"{folder}/{name}" if folder else name
                if mode == SYMLINK_MODE and path not in links:
                    pending.add(path)
        for path, target in found.links.items():
            pending.discard(path)
            links[path] = target or ""  # no text: leads nowhere a changeset holds

    def forbidden(path: str) -> bool:
        return forbidden_problem(path, settings, config=config) is not None

    if first is not None:
        learn(first)
    for _ in range(MAX_TREE_READS + 1):
        known = BaseLinks(dict(links), frozenset(listed))
        wanted = check_links(known, paths, forbidden).wanted
        if not wanted and not pending:
            return known
        if len(wanted) + len(pending) > MAX_FOLDERS:
            break
        learn(read(TreeAsk(changeset.base, tuple(sorted(wanted)), tuple(sorted(pending)))))
    return BaseLinks(dict(links), frozenset(listed))


def _wanted(changeset: Changeset) -> tuple[dict[str, str], set[str]]:
    """The blob each added or changed path must hold, and the paths that must be gone."""
    blobs: dict[str, str] = {}
    for f in changeset.files:
        if f.contents is None:
            continue
        try:
            blobs[f.path] = blob_oid(base64.b64decode(f.contents, validate=True))
        except (binascii.Error, ValueError):
            blobs[f.path] = ""  # matches no blob GitHub names
    return blobs, {f.path for f in changeset.files if f.contents is None}


def _tree_problem(changeset: Changeset, commit: CommitFacts) -> str | None:
    """Why the commit's changes are not exactly the changeset's, or None: every changed path
    with the changeset's blob, every deletion gone, nothing else touched. Linear in both."""
    blobs, deletions = _wanted(changeset)
    seen: set[str] = set()
    for change in commit.files:
        removed: set[str] = set()
        wrote: str | None = change.path
        if change.status == "removed":
            removed, wrote = {change.path}, None
        elif change.status == "renamed":
            removed = {change.previous}
        elif change.status not in ("added", "modified"):
            return f"it changes {change.path} ({change.status}), which the changeset does not"
        for path in removed:
            if path not in deletions:
                return f"it deletes {path}, which the changeset does not"
            seen.add(path)
        if wrote is not None:
            if wrote not in blobs:
                return f"it writes {wrote}, which the changeset does not"
            if blobs[wrote] != change.blob:
                return f"its {wrote} is not the changeset's"
            seen.add(wrote)
    missing = next((f.path for f in changeset.files if f.path not in seen), None)
    return f"it leaves out {missing}, which the changeset changes" if missing else None


def not_baton_s(
    changeset: Changeset,
    commit: CommitFacts | None,
    bot: str = BOT_LOGIN,
    *,
    message: str | None = None,
) -> str | None:
    """Why a commit claiming the changeset is not Baton's commit of it, or None: its one parent
    is the changeset's base, its tree is exactly base + changeset, GitHub signed it itself (a
    `createCommitOnBranch` commit: committer `web-flow`, signature `valid`; `verified` alone
    holds for any key GitHub knows, and the author is only the author email's account), its
    author is Baton's login, and its message is `message`, the one Baton writes for it."""
    if commit is None:
        return "GitHub knows no such commit"
    if commit.parents != (changeset.base,):
        parents = ", ".join(p[:7] for p in commit.parents) or "none"
        return f"its parent is {parents}, not the changeset's base {changeset.base[:7]}"
    if not commit.verified or commit.reason != "valid":
        return "GitHub did not verify its signature (Baton's commits are signed by GitHub)"
    if commit.committer != WEB_FLOW:
        who = commit.committer or "no GitHub account"
        return f"its committer is {who}, not {WEB_FLOW} (GitHub itself signs Baton's commits)"
    if commit.author != bot:
        return f"its author is {commit.author or 'no GitHub account'}, not {bot}"
    if commit.more_files:
        return f"it changes more files than the changeset's {len(changeset.files)}"
    if message is not None and commit.message != message:
        return "its message is not the one Baton writes for this changeset"
    return _tree_problem(changeset, commit)


def baton_message(changeset: Changeset, record: Record | None, agent: str, summary: str) -> str:
    """The whole message Baton writes when it commits `changeset` for `record`'s state and
    attempt with the result's `summary` (`commit_message`, as createCommitOnBranch joins it);
    empty, so that no commit matches, without a record."""
    if record is None:
        return ""
    headline, body = commit_message(
        issue=record.issue,
        agent=agent,
        state=record.state,
        attempt=record.attempt,
        summary=summary,
        digest=changeset.digest(),
    )
    return f"{headline}\n\n{body}" if body else headline


def judge(
    changeset: Changeset,
    settings: WorkSettings,
    head: BranchHead | None,
    record: Record | None,
    *,
    changes_code: bool = True,
    head_commit: CommitFacts | None = None,
    bot: str = BOT_LOGIN,
    config: str | None = CONFIG_PATH,
    message: str | None = None,
    links: BaseLinks | None = None,
    tests: TestFiles | None = None,
) -> ChangesetFacts:
    """Refused (what the checks found; `config`, the config's path, is locked too), committed
    (the record carries its digest, or the commit at the branch head does and is provably
    Baton's commit of it (`head_commit`, read when the head `claims` it): an earlier attempt of
    this run wrote it), stale (the branch moved since the agent started; `problems` says why a
    head claiming the changeset was not adopted), ok (commit it), or empty. `changes_code`:
    whether the issue's state is one whose agent changes the repository; another agent's
    changes are left out, and said. `links`: the base's links (`base_links`), through which a
    forbidden path may lead to a changed one. `tests`: what the state may do to the test and
    frozen files (`core/rules/proof.test_files`): a red proof's state writes tests only, and
    after a sign-off no other state touches them."""
    if changeset.empty:
        return ChangesetFacts(status="empty", base=changeset.base)
    if not changes_code:
        state = record.state if record is not None else "this state"
        count = len(changeset.files)
        why = f"{state} does not change code: the {count} changed file(s) were left out"
        return ChangesetFacts(status="empty", base=changeset.base, problems=[why])
    found = problems(changeset, settings, config=config, links=links, tests=tests)
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
        # the branch at the default branch's head first (`work_first.do_work`), which must be
        # `base`.
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
        not_ours = not_baton_s(changeset, head_commit, bot, message=message)
        if not_ours is None:
            return ChangesetFacts(
                status="committed", digest=digest, oid=head.oid, head=head.oid, **common
            )
        claim = f"commit {head.oid[:7]} claims these changes but is not Baton's: {not_ours}"
        return ChangesetFacts(
            status="stale", digest=digest, head=head.oid, problems=[claim], **common
        )
    if head.oid != changeset.base:
        return ChangesetFacts(status="stale", digest=digest, head=head.oid, **common)
    return ChangesetFacts(status="ok", digest=digest, head=head.oid, **common)


def attach(
    known: ChangesetFacts | None,
    event: AgentReported,
    changeset: Changeset,
    snapshot: Snapshot,
    record: Record | None,
    settings: Settings,
    tracker: Git,
    *,
    fresh: bool = True,
) -> ChangesetFacts:
    """The report's changeset judged against the branch head just read; once this run has
    committed it, or GitHub refused the commit, the facts it `known` say so and are kept. A
    commit refused as stale is kept while the run decides on the read it made before (`fresh`
    False), and judged again on a new read (a racing run may have committed the very same
    changeset meanwhile). A head commit claiming the changeset is read only then (`claims`:
    rare)."""
    if known is not None and (
        known.status in ("committed", "refused") or (known.status == "stale" and not fresh)
    ):
        return known
    code = record is not None and settings.workflow.changes_code(record.state)
    head = snapshot.branch
    claimed = head is not None and claims(changeset, head, record)
    agent = (settings.workflow.agent_of(record.state) if record is not None else None) or "agent"
    summary = event.result.summary if event.result is not None else ""
    work, config = settings.policy.work, settings.policy.config_path
    links = (
        base_links(changeset, work, snapshot.tree, tracker.read_tree, config=config)
        if code and not changeset.empty
        else None
    )
    return judge(
        changeset,
        settings.policy.work,
        head,
        record,
        changes_code=code,
        head_commit=tracker.commit_facts(head.oid) if head is not None and claimed else None,
        bot=settings.policy.bot_login,
        config=settings.policy.config_path,
        message=baton_message(changeset, record, agent, summary) if claimed else None,
        links=links,
        tests=test_files(settings.workflow, settings.policy, record),
    )
