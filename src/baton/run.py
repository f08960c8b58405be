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
    Commented,
    Event,
    Labeled,
)
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import Record
from baton.core.model.record import handover as handover_of
from baton.core.model.work import branch_name
from baton.core.rules.catchup import missed_comment
from baton.core.rules.route import decide
from baton.core.rules.triage import event_reason, view_of
from baton.errors import RecordCorrupt, TrackerError
from baton.github.tracker import DispatchTarget, Issues, Snapshot, Tracker
from baton.issue import changeset_facts, record_comment
from baton.issue.apply import Applied, apply, post_check
from baton.issue.changeset_facts import tree_ask
from baton.issue.fulfil import Asked, fulfil
from baton.issue.load import Loaded, load
from baton.work_first import do_work, wants_work
from baton.workflow.config import Settings


@dataclass
class RunResult:
    decision: Decision
    loaded: Loaded
    applied: Applied | None = None
    dispatched: bool = False
    notes: list[str] = field(default_factory=list)
    snapshot: Snapshot | None = None  # what the decision was made on (reused after a commit)
    event: Event | None = None  # the event as decided, with the issue as the run read it
    settings: Settings | None = None  # the settings of the issue's own workflow (epic, task)
    facts: Facts = NO_FACTS  # what the run looked up or GitHub answered for the decision

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


def _catch_up(event: Event, loaded: Loaded, settings: Settings) -> tuple[Event, Commented | None]:
    """Put the oldest missed actionable comment in place of the event, and set the floor."""
    humans = loaded.human_comments
    event = _with_floor(event, loaded)
    missed = missed_comment(loaded.record, event, humans, settings.workflow, settings.policy)
    if missed is not None:
        return missed, missed
    return event, None


def _with_floor(event: Event, loaded: Loaded) -> Event:
    seen = max((c.id for c in loaded.human_comments), default=0)
    upto = event.comment_id if isinstance(event, Commented) else seen
    return event.model_copy(update={"comments_upto": upto, "comments_seen": seen})


MAX_RACES = 3
# GitHub work (a commit, a pull request, sub-issues, a merge, the branch; decided again when it
# is someone else's): then final. Asks need no bound of their own: each adds a fact the rules
# never ask for again (the authors after Baton's last are asked one by one, up to a page).
MAX_WORK_STEPS = 6


@dataclass
class _View:
    """One read of the issue: what GitHub holds, the record rebuilt from it, and the event with
    the issue as read (when the payload's copy was partial or stale: `fetched`)."""

    event: Event
    snapshot: Snapshot
    loaded: Loaded
    settings: Settings
    fetched: bool


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
    triaged: bool = False,
) -> RunResult:
    """Decide and apply one event; with `chain`, start the next agent's run by dispatch. The
    other issues a decision concerns (an epic's tasks, a task's epic) are dispatched to `notify`
    (default: `chain`): a webhook run names its own agent as a follow-up job, but its epic's
    tasks still need their own runs. `triaged`: the caller already triaged the payload (the
    fast path), so it is not triaged again.

    The loop: read → decide → (asks? look them up, decide again) → (work? do it, decide again)
    → write (`_Run.until_final`).

    Optimistic concurrency: just before writing, the record comment is read again; if another
    run changed it, the event is decided again on the new record (a re-delivered or already
    applied event then changes nothing).

    An agent's `changeset` is committed before the record that reports it: a run that dies
    between the two leaves the commit on the branch, with the changeset's digest in its
    trailer, and the re-run finds it there instead of committing it again."""
    ignored = None if triaged else _ignored_early(event, settings)
    if ignored is not None:
        return ignored
    run = _Run(tracker, settings, event, secret=secret, changeset=changeset)
    for attempt in range(MAX_RACES):
        result = run.until_final(refresh=attempt > 0, dry_run=dry_run)
        if dry_run:
            result.notes.append("dry run: nothing was written")
            return result
        if _changed_since_read(result, tracker):
            continue
        result.notes[:0] = run.notes
        if attempt:
            result.notes.append(f"another run changed the record first; decided again ({attempt}x)")
        _write(result, run, chain=chain, notify=notify or chain)
        return result
    raise TrackerError(
        f"issue #{event.issue.number}: the record changed under {MAX_RACES} concurrent runs in a "
        "row; nothing was written (the next event or sweep will pick it up)"
    )


def _ignored_early(event: Event, settings: Settings) -> RunResult | None:
    """An event triage ignores on its payload alone: decided before any API call."""
    chosen = settings if event.issue.partial else settings.for_labels(event.issue.labels)
    reason = event_reason(event, view_of(chosen.workflow, chosen.policy, settings.workflows))
    if reason is None:
        return None
    ignored = Decision(
        outcome=Outcome.ignored,
        issue=event.issue.number,
        reason=f"{reason} (no API call)",
        event=event.kind,
    )
    return RunResult(decision=ignored, loaded=Loaded(record=None))


@dataclass
class _Run:
    """One run: the event with the issue as last read, the facts looked up or answered so far
    (each read once per run; a report's changeset judged, then committed), the notes of the
    GitHub work."""

    tracker: Tracker
    settings: Settings
    event: Event
    secret: str | None = None
    changeset: Changeset | None = None
    facts: Facts = NO_FACTS
    notes: list[str] = field(default_factory=list)

    def until_final(self, *, refresh: bool, dry_run: bool) -> RunResult:
        """Read, then decide until the decision neither asks for a fact nor for GitHub work
        first (a dry run does no work). Reads only, but for that work."""
        view = self.read(refresh=refresh)
        work = 0
        while True:
            result = _decided(view, self.facts)
            decision = result.decision
            if decision.asks is not None:
                asked = Asked(view.loaded.record, view.event.issue, view.event.at, self.secret)
                found = fulfil(
                    decision.asks, self.facts, asked, self.tracker, view.settings, self.notes
                )
                if found == self.facts:
                    raise TrackerError(
                        f"issue #{self.event.issue.number}: the decision asked again for "
                        f"{decision.asks}, which the run had; nothing was written"
                    )
                self.facts = found
            elif decision.repairs and not view.fetched:
                # The payload's labels are a snapshot from when the event fired; confirm drift
                # against the issue as it is now. A GraphQL read already holds it.
                known = view.snapshot if view.snapshot.issue is not None else None
                view = self.read(refresh=True, snapshot=known)
            elif dry_run or not wants_work(decision, self.facts):
                return result
            elif work == MAX_WORK_STEPS:
                raise TrackerError(
                    f"issue #{self.event.issue.number}: the decision still asked for GitHub "
                    f"work after {MAX_WORK_STEPS} steps; nothing more was written"
                )
            else:
                work += 1
                self.facts = do_work(decision, self.facts, self.changeset, self.tracker, self.notes)

    def read(self, *, refresh: bool, snapshot: Snapshot | None = None) -> _View:
        """Read the issue and rebuild its record; a report's changeset is judged against the
        branch head read here. Reads only; nothing is written here."""
        event = self.event
        fetched = event.issue.partial or refresh
        fresh = snapshot is None
        if snapshot is None:
            snapshot = _read(event, self.tracker, self.settings, fetched, self.changeset)
        if fetched and snapshot.issue is not None:
            event = event.model_copy(update={"issue": snapshot.issue})
        settings = self.settings.for_labels(event.issue.labels)
        # A label being added is the event itself, not evidence of where a lost record stood.
        labels = event.issue.labels
        known = tuple(x for x in labels if not (isinstance(event, Labeled) and x == event.label))
        loaded = load(
            event.issue.number,
            known,
            snapshot.comments,
            settings.workflow,
            settings.policy,
            now=event.at,
            secret=self.secret,
        )
        if isinstance(event, AgentReported) and self.changeset is not None:
            judged = changeset_facts.attach(
                self.facts.changeset,
                event,
                self.changeset,
                snapshot,
                loaded.record,
                settings,
                self.tracker,
                fresh=fresh,
            )
            self.facts = self.facts.merged(changeset=judged)
        self.event = event
        return _View(event, snapshot, loaded, settings, fetched)


def _decided(view: _View, facts: Facts) -> RunResult:
    """The decision on the oldest missed actionable comment in the event's place, else on the
    event itself. Pure: no call."""
    loaded, settings = view.loaded, view.settings
    workflow, policy = settings.workflow, settings.policy
    caught, caught_up = _catch_up(view.event, loaded, settings)
    decision = decide(loaded.record, caught, workflow, policy, facts)
    if caught_up is not None and decision.outcome is Outcome.ignored and decision.asks is None:
        # The missed comment turned out not to matter: handle the event itself.
        floored = _with_floor(view.event, loaded)
        decision, caught_up = decide(loaded.record, floored, workflow, policy, facts), None
    if loaded.lost_message and loaded.record and decision.record is None and not decision.asks:
        # Re-posting a lost message rewrites the record too, so a run racing this one fails
        # its concurrency check instead of posting the same message again.
        revision = loaded.record.revision + 1
        rewritten = loaded.record.model_copy(update={"revision": revision, "outbox": None})
        decision = decision.model_copy(update={"record": rewritten})
    result = RunResult(
        decision=decision,
        loaded=loaded,
        snapshot=view.snapshot,
        event=view.event,
        settings=settings,
        facts=facts,
    )
    if caught_up is not None:
        result.notes.append(
            f"caught up comment {caught_up.comment_id} by {caught_up.actor.login}, "
            "whose own run never came"
        )
    return result


def _read(
    event: Event,
    tracker: Tracker,
    settings: Settings,
    fetched: bool,
    changeset: Changeset | None,
) -> Snapshot:
    """One read of the issue: its comments, and the issue itself when the payload's copy is
    partial or stale (`fetched`); the branch head when a changeset is judged against it or the
    run reads the issue itself (a dispatch: an epic making its tasks learns whether its branch
    is there); the base's tree where a changeset's links need it."""
    number = event.issue.number
    branch = None
    if (changeset is not None and not changeset.empty) or fetched:
        branch = branch_name(settings.policy.work.branch_prefix, number)
    return tracker.read(number, with_issue=fetched, branch=branch, tree=tree_ask(changeset))


def _write(
    result: RunResult,
    run: _Run,
    *,
    chain: DispatchTarget | None,
    notify: DispatchTarget | None,
) -> None:
    """Apply the final decision and post its check run, then dispatch the agent it names and
    the issues it notifies."""
    chosen = result.settings or run.settings
    tracker = run.tracker
    issue = result.event.issue if result.event is not None else run.event.issue
    result.applied = apply(
        result.decision,
        result.loaded,
        issue,
        tracker,
        chosen.workflow,
        chosen.policy,
        secret=run.secret,
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
    if notify is not None:
        # After the record that ordered them: a run dying here leaves orders the next
        # conductor pass (or the sweep) dispatches again.
        for number in result.decision.notify:
            dispatch_next(tracker, notify, number, None, result.notes)
            result.notes.append(f"dispatched the run of #{number}")


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
