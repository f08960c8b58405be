"""One run on one issue: read what GitHub holds, decide, write back, chain the next agent.

Shared by `baton run` (events), `baton report` (agent hand-back), `baton sweep` (schedule),
`baton demo` and `baton simulate`, so every path goes through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from baton.core.model.changeset import Changeset
from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import (
    AgentReported,
    ChecksCompleted,
    Commented,
    Event,
    Labeled,
    Reviewed,
)
from baton.core.model.issue_facts import Comment, IssueInfo
from baton.core.model.record import Record
from baton.core.model.record import handover as handover_of
from baton.core.model.work import branch_name
from baton.core.rules.approved_commit import needs_lineage
from baton.core.rules.catchup import as_event, missed_comment
from baton.core.rules.route import decide
from baton.core.rules.triage import event_reason, view_of
from baton.errors import RecordCorrupt, TrackerError
from baton.github.tracker import DispatchTarget, Git, Issues, PullRequests, Snapshot, Tracker
from baton.identities import Identities, with_identity
from baton.issue import epic_facts, record_comment
from baton.issue.apply import Applied, apply, post_check
from baton.issue.changeset_facts import base_links, baton_message, claims, judge, tree_ask
from baton.issue.load import Loaded, load
from baton.work_first import create_branch, do_work, with_foreign_branch
from baton.workflow.config import Settings
from baton.workflow.model import Workflow


@dataclass
class RunResult:
    decision: Decision
    loaded: Loaded
    applied: Applied | None = None
    dispatched: bool = False
    notes: list[str] = field(default_factory=list)
    snapshot: Snapshot | None = None  # what the decision was made on (reused after a commit)
    event: Event | None = None  # the event as decided: a report with its changeset judged
    settings: Settings | None = None  # the settings of the issue's own workflow (epic, task)

    @property
    def record(self) -> Record | None:
        """The issue's record after this run: the one written, else the one read."""
        return self.decision.record or self.loaded.record

    @property
    def handover(self) -> str:
        """What the run of the agent this run names is handed (`record.handover`): its
        attempt, and the digest of the record comment as this run wrote it (else read it).
        Empty when no agent is named or no record comment is known."""
        if not self.decision.agent:
            return ""
        written = self.applied.record_body if self.applied else None
        body = written or self.loaded.record_body
        if not body:
            return ""
        try:
            return handover_of(record_comment.parse(body))
        except RecordCorrupt:
            return ""


def _catch_up(event: Event, loaded: Loaded, settings: Settings) -> tuple[Event, Comment | None]:
    """Put the oldest missed actionable comment in place of the event, and set the floor."""
    humans = loaded.human_comments
    event = _with_floor(event, loaded)
    missed = missed_comment(loaded.record, event, humans, settings.workflow, settings.policy)
    if missed is not None:
        return as_event(missed, event), missed
    return event, None


def _with_floor(event: Event, loaded: Loaded) -> Event:
    seen = max((c.id for c in loaded.human_comments), default=0)
    upto = event.comment_id if isinstance(event, Commented) else seen
    return event.model_copy(update={"comments_upto": upto, "comments_seen": seen})


MAX_RACES = 3


def _decide_once(
    event: Event,
    tracker: Tracker,
    settings: Settings,
    *,
    secret: str | None,
    refresh: bool,
    identities: Identities | None = None,
    snapshot: Snapshot | None = None,
    changeset: Changeset | None = None,
) -> tuple[RunResult, IssueInfo]:
    """Read the issue, rebuild the record, decide. Reads only; nothing is written here.
    `identities`: the logins this run already looked up (shared by every decision of the run);
    `snapshot`: a read this run already made that carries the issue as it is now;
    `changeset`: what the reporting agent changed, judged against the branch head read here."""
    identities = identities if identities is not None else Identities()
    issue = event.issue
    fetched = issue.partial or refresh
    branch = None
    if (changeset is not None and not changeset.empty) or fetched:
        # A report's changeset is judged against the head; a run that reads the issue itself
        # (a dispatch: an epic making its tasks) learns whether its branch is there.
        branch = branch_name(settings.policy.work.branch_prefix, issue.number)
    read_now = snapshot is None
    if snapshot is None:
        snapshot = tracker.read(
            issue.number, with_issue=fetched, branch=branch, tree=tree_ask(changeset)
        )
    if fetched and snapshot.issue is not None:
        issue = snapshot.issue
        event = event.model_copy(update={"issue": issue})
    settings = settings.for_labels(issue.labels)
    comments = snapshot.comments
    # A label being added is the event itself, not evidence of where a lost record stood.
    known = tuple(x for x in issue.labels if not (isinstance(event, Labeled) and x == event.label))
    loaded = load(
        issue.number,
        known,
        comments,
        settings.workflow,
        settings.policy,
        now=event.at,
        secret=secret,
    )
    if isinstance(event, AgentReported) and changeset is not None:
        event = _judged(
            event, changeset, snapshot, loaded.record, settings, tracker, fresh=read_now
        )
    event = _with_pull_request_details(event, loaded.record, tracker, settings.workflow)
    event = epic_facts.attach(event, loaded.record, issue, tracker, settings, secret=secret)
    original = event
    event, caught_up = _catch_up(event, loaded, settings)
    event = with_identity(event, loaded, tracker, settings, identities)
    decision = decide(loaded.record, event, settings.workflow, settings.policy)
    if caught_up is not None and decision.outcome is Outcome.ignored:
        caught_up = None  # the missed comment turned out not to matter: handle the event itself
        floored = _with_floor(original, loaded)
        event = with_identity(floored, loaded, tracker, settings, identities)
        decision = decide(loaded.record, event, settings.workflow, settings.policy)
    if decision.repairs and not fetched:
        # The payload's labels are a snapshot from when the event fired; confirm drift against
        # the issue as it is now before repairing anything. A GraphQL read already holds it.
        fresh = snapshot if snapshot.issue is not None else None
        return _decide_once(
            original,
            tracker,
            settings,
            secret=secret,
            refresh=True,
            identities=identities,
            snapshot=fresh,
            changeset=changeset,
        )
    if loaded.lost_message and loaded.record and decision.record is None:
        # Re-posting a lost message rewrites the record too, so a run racing this one fails
        # its concurrency check instead of posting the same message again.
        revision = loaded.record.revision + 1
        rewritten = loaded.record.model_copy(update={"revision": revision, "outbox": None})
        decision = decision.model_copy(update={"record": rewritten})
    result = RunResult(
        decision=decision, loaded=loaded, snapshot=snapshot, event=original, settings=settings
    )
    if caught_up is not None:
        result.notes.append(
            f"caught up comment {caught_up.id} by {caught_up.author}, whose own run never came"
        )
    return result, issue


def _judged(
    event: AgentReported,
    changeset: Changeset,
    snapshot: Snapshot,
    record: Record | None,
    settings: Settings,
    tracker: Git,
    *,
    fresh: bool = True,
) -> AgentReported:
    """The report with its changeset judged against the branch head just read; once this run
    has committed it, or GitHub refused the commit, the facts say so and are kept. A commit
    refused as stale is kept while the run decides on the read it made before (`fresh` False),
    and judged again on a new read (a racing run may have committed the very same changeset
    meanwhile). A head commit claiming the changeset is read only then (`claims`: rare)."""
    facts = event.changeset
    if facts is not None and (
        facts.status in ("committed", "refused") or (facts.status == "stale" and not fresh)
    ):
        return event
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
    facts = judge(
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
    )
    return event.model_copy(update={"changeset": facts})


def _with_pull_request_details(
    event: Event, record: Record | None, tracker: PullRequests, workflow: Workflow
) -> Event:
    """What the payload of a pull-request event leaves out, read only for the issue's own pull
    request and only when the decision needs it: a review's inline comments, the commits
    between Baton's last and the one an approval is of, the failing checks' names and output."""
    work = record.work if record is not None else None
    if work is None or (work.pull_request is None and not work.head):
        return event
    if isinstance(event, Reviewed):
        if needs_lineage(record, event, workflow):
            return event.model_copy(update={"lineage": tracker.lineage(work.head, event.commit)})
        if event.pull_request != work.pull_request or event.verdict != "changes_requested":
            return event
        if event.notes:
            return event
        return event.model_copy(
            update={"notes": tracker.review_notes(event.pull_request, event.review_id)}
        )
    if isinstance(event, ChecksCompleted):
        if event.head != work.head or event.conclusion in ("success", "neutral", "skipped"):
            return event
        # The payload names only the suite's app or workflow: the check runs say what failed.
        failing = tracker.failing_checks(event.head)
        update = {"failing": failing} if failing else {}
        return event.model_copy(update={**update, "failed_runs": len(failing)})
    return event


# A count, a commit, a pull request (or sub-issues, a merge), the branch (decided again when it
# is someone else's): then final.
MAX_WORK_STEPS = 6


def _changed_since_read(result: RunResult, tracker: Issues) -> bool:
    """Whether another run rewrote the record between our read and our write."""
    loaded = result.loaded
    if result.decision.record is None or loaded.comment_id is None:
        return False
    current = tracker.comment(loaded.comment_id)
    return current is None or current.body != loaded.record_body


def handle(
    event: Event,
    tracker: Tracker,
    settings: Settings,
    *,
    chain: DispatchTarget | None = None,
    dry_run: bool = False,
    secret: str | None = None,
    changeset: Changeset | None = None,
    notify: DispatchTarget | None = None,
) -> RunResult:
    """Decide and apply one event; with `chain`, start the next agent's run by dispatch. The
    other issues a decision concerns (an epic's tasks, a task's epic) are dispatched to `notify`
    (default: `chain`): a webhook run names its own agent as a follow-up job, but its epic's
    tasks still need their own runs.

    Optimistic concurrency: just before writing, the record comment is read again; if another
    run changed it, the event is decided again on the new record (a re-delivered or already
    applied event then changes nothing).

    An agent's `changeset` is committed before the record that reports it: a run that dies
    between the two leaves the commit on the branch, with the changeset's digest in its
    trailer, and the re-run finds it there instead of committing it again."""
    chosen = settings if event.issue.partial else settings.for_labels(event.issue.labels)
    reason = event_reason(event, view_of(chosen.workflow, chosen.policy, settings.workflows))
    if reason is not None:
        ignored = Decision(
            outcome=Outcome.ignored,
            issue=event.issue.number,
            reason=f"{reason} (no API call)",
            event=event.kind,
        )
        return RunResult(decision=ignored, loaded=Loaded(record=None))
    identities = Identities()
    notes: list[str] = []
    for attempt in range(MAX_RACES):
        result, issue = _decide_once(
            event,
            tracker,
            settings,
            secret=secret,
            refresh=attempt > 0,
            identities=identities,
            changeset=changeset,
        )
        if dry_run:
            result.notes.append("dry run: nothing was written")
            return result
        branch_made = foreign = False
        for _ in range(MAX_WORK_STEPS):
            decided = result.event or event  # the report with its changeset judged
            if result.decision.work_first:
                breaker = (result.settings or settings).policy.breaker
                event = do_work(result.decision, decided, changeset, tracker, notes, breaker)
            elif result.decision.create_branch is not None and not branch_made:
                # Before the record that names it, and before the re-check of the record, so
                # the window between that check and the write stays free of calls. A run that
                # dies after this leaves a branch the next run finds (and adopts: nothing on it
                # its base lacks).
                branch_made = True
                head = create_branch(result.decision, tracker, notes)
                if not head.ahead:
                    break
                # Someone else's branch: decided again with it, the issue goes to a human.
                foreign = True
                event = with_foreign_branch(decided, head, notes)
            else:
                break
            result, issue = _decide_once(
                event,
                tracker,
                settings,
                secret=secret,
                refresh=False,
                identities=identities,
                snapshot=result.snapshot,
                changeset=changeset,
            )
        if result.decision.work_first or (
            result.decision.create_branch is not None and (foreign or not branch_made)
        ):
            raise TrackerError(
                f"issue #{event.issue.number}: the decision still asked for GitHub work after "
                f"{MAX_WORK_STEPS} steps; nothing more was written"
            )
        if _changed_since_read(result, tracker):
            continue
        result.notes[:0] = notes
        if attempt:
            result.notes.append(f"another run changed the record first; decided again ({attempt}x)")
        chosen = result.settings or settings
        result.applied = apply(
            result.decision,
            result.loaded,
            issue,
            tracker,
            chosen.workflow,
            chosen.policy,
            secret=secret,
        )
        post_check(result.decision, result.applied, tracker)
        if chain is not None and result.decision.agent:
            dispatch_next(
                tracker,
                chain,
                issue.number,
                result.decision.state,
                result.notes,
                handover=result.handover,
            )
            result.dispatched = True
        others = notify or chain
        if others is not None:
            # After the record that ordered them: a run dying here leaves orders the next
            # conductor pass (or the sweep) dispatches again.
            for number in result.decision.notify:
                dispatch_next(tracker, others, number, None, result.notes)
                result.notes.append(f"dispatched the run of #{number}")
        return result
    raise TrackerError(
        f"issue #{event.issue.number}: the record changed under {MAX_RACES} concurrent runs in a "
        "row; nothing was written (the next event or sweep will pick it up)"
    )


def dispatch_next(
    tracker: Issues,
    chain: DispatchTarget,
    number: int,
    state: str | None,
    notes: list[str],
    *,
    handover: str = "",
) -> None:
    """The next agent's run, handed the state whose agent it starts and the attempt it is
    (`handover`): its agent job then starts at once, with no decision job before it, and runs
    only that attempt. A caller whose `workflow_dispatch` declares no `state` or `handover`
    input gets GitHub's 422 ("Unexpected inputs provided"), and the issue alone.

    Sent once: GitHub may create the run and still answer 5xx (or time out), and a second POST
    would start the agent twice. So a lost answer is said, not retried; the sweep dispatches a
    silent agent again."""
    inputs = {"issue": str(number)}
    try:
        if state and handover:
            try:
                tracker.dispatch(chain, inputs | {"state": state, "handover": handover})
                return
            except TrackerError as exc:
                if exc.status != 422 or "Unexpected inputs" not in f"{exc.said} {exc}":
                    raise
            notes.append(
                f"{chain.workflow} declares no `state` or `handover` input under "
                "workflow_dispatch: dispatched with the issue alone, so the next run starts a "
                "decision job first (add both inputs to save a job per hand-off; "
                "examples/workflows/baton.yml)"
            )
        tracker.dispatch(chain, inputs)
    except TrackerError as exc:
        if exc.status is not None and exc.status < 500:
            raise
        notes.append(
            f"the dispatch of #{number}'s next run got no clear answer ({exc}): the run may or "
            "may not have started; it is not sent twice, and the sweep dispatches a silent "
            "agent again"
        )
