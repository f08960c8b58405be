"""One run on one issue: read what GitHub holds, decide, write back, chain the next agent.

Shared by `baton run` (events), `baton report` (agent hand-back), `baton sweep` (schedule),
`baton demo` and `baton simulate`, so every path goes through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from baton.core.authority import answers_whoever, needs_identity, reopens_whoever
from baton.core.catchup import as_event, missed_comment
from baton.core.changeset import Changeset
from baton.core.comment_commands import parse_command
from baton.core.decision import CommitPlan, Decision, Outcome
from baton.core.engine import decide
from baton.core.epic.commands import parse_epic_command
from baton.core.events import (
    AgentReported,
    ChecksCompleted,
    Commented,
    Event,
    IssueChanged,
    Labeled,
    Reviewed,
)
from baton.core.issue_facts import Actor, Comment, IssueInfo
from baton.core.record import Record
from baton.core.triage import event_reason, view_of
from baton.core.work import BranchFacts, PullRequestFacts, branch_name
from baton.errors import CommitRefused, PullRequestRefused, StaleHead, TrackerError
from baton.github.tracker import BranchHead, CommitRequest, DispatchTarget, Snapshot, Tracker
from baton.issue import epic_facts
from baton.issue.apply import Applied, apply
from baton.issue.changeset_facts import baton_message, claims, judge
from baton.issue.load import Loaded, load
from baton.workflow.config import RepoBreaker, Settings


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


def _needs_permission(event: Event, loaded: Loaded, settings: Settings) -> bool:
    """Look the actor up only when the decision may turn on who they are."""
    if event.actor.is_bot or event.actor.permission is not None:
        return False
    if isinstance(event, Labeled):
        return event.added
    if needs_identity(event):  # a review steers the issue only from an approver
        return True
    if isinstance(event, IssueChanged):
        # Only a reopen turns on who did it, and not when the config lets this human anyway.
        policy = settings.policy
        return event.action == "reopened" and not reopens_whoever(
            event.actor.login, event.issue.author, policy
        )
    if not isinstance(event, Commented):
        return False
    if parse_command(event.body, settings.policy.approval_words):
        return True
    if settings.workflow.role == "epic" and parse_epic_command(event.body) is not None:
        return True
    record = loaded.record
    if record is not None and settings.workflow.converses(record.state):
        return not answers_whoever(event.actor.login, event.issue.author, settings.policy)
    if record is None or not settings.workflow.is_waiting(record.state):
        return False
    return not answers_whoever(event.actor.login, event.issue.author, settings.policy)


@dataclass
class Identities:
    """The permissions and teams one run looked up, by login: a run may decide several times
    (a caught-up comment, then the event itself; again after a concurrent run), and each
    lookup is a round trip. Per run, never global: a permission can change between runs."""

    known: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def of(self, actor: Actor, tracker: Tracker, settings: Settings) -> Actor:
        """`actor` with their permission and the config's teams they belong to."""
        login = actor.login
        if login not in self.known:
            # OWNER is the one association that cannot misreport; everything else asks the API.
            owner = actor.association == "OWNER"
            permission = "admin" if owner else tracker.permission(login)
            policy = settings.policy
            teams = sorted(set(policy.approvers.teams) | set(policy.maintainers.teams))
            member_of = tuple(t for t in teams if tracker.is_team_member(t, login))
            self.known[login] = (permission, member_of)
        permission, member_of = self.known[login]
        return Actor(
            login=login,
            is_bot=actor.is_bot,
            association=actor.association,
            permission=permission,
            teams=member_of,
        )


def _with_identity(
    event: Event, loaded: Loaded, tracker: Tracker, settings: Settings, identities: Identities
) -> Event:
    if not _needs_permission(event, loaded, settings):
        return event
    return event.model_copy(update={"actor": identities.of(event.actor, tracker, settings)})


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
    if changeset is not None and not changeset.empty:
        branch = branch_name(settings.policy.work.branch_prefix, issue.number)
    read_now = snapshot is None
    if snapshot is None:
        snapshot = tracker.read(issue.number, with_issue=fetched, branch=branch)
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
    event = _with_pull_request_details(event, loaded.record, tracker)
    event = epic_facts.attach(event, loaded.record, issue, tracker, settings, secret=secret)
    original = event
    event, caught_up = _catch_up(event, loaded, settings)
    event = _with_identity(event, loaded, tracker, settings, identities)
    decision = decide(loaded.record, event, settings.workflow, settings.policy)
    if caught_up is not None and decision.outcome is Outcome.ignored:
        caught_up = None  # the missed comment turned out not to matter: handle the event itself
        floored = _with_floor(original, loaded)
        event = _with_identity(floored, loaded, tracker, settings, identities)
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
    tracker: Tracker,
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
    )
    return event.model_copy(update={"changeset": facts})


def _with_pull_request_details(event: Event, record: Record | None, tracker: Tracker) -> Event:
    """What the payload of a pull-request event leaves out, read only for the issue's own pull
    request and only when the decision needs it: a review's inline comments, the failing
    checks' names and output."""
    work = record.work if record is not None else None
    if work is None or (work.pull_request is None and not work.head):
        return event
    if isinstance(event, Reviewed):
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


def _do_work(
    decision: Decision,
    event: Event,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
    settings_breaker: RepoBreaker | None = None,
) -> Event:
    """Carry out what the decision needs GitHub to do before it is final (a commit, a new pull
    request, an epic's sub-issues, a task's merge) and hand the answer back as facts on the
    event, for `decide` to read again."""
    if decision.count_failing:
        breaker = settings_breaker
        assert breaker is not None
        since = event.at - breaker.window
        count = tracker.failing_issues(breaker.label, since, breaker.threshold)
        notes.append(f"the repository breaker counts {count} failing issue(s) since {since:%H:%M}")
        return event.model_copy(update={"failing_issues": count})
    if decision.create_tasks is not None:
        plan = decision.create_tasks
        facts = tracker.create_tasks(plan)
        notes.append(
            f"sub-issues of #{plan.epic}: {len(facts.created)} for {len(plan.tasks)} tasks"
        )
        return event.model_copy(update={"created": facts})
    if decision.merge is not None:
        merging = tracker.merge(decision.merge)
        notes.append(f"merged {decision.merge.head} into {decision.merge.base}: {merging.status}")
        return event.model_copy(update={"merge": merging})
    if decision.commit is not None:
        assert isinstance(event, AgentReported)
        return _commit(decision.commit, event, changeset, tracker, notes)
    opening = decision.open_pull_request
    assert opening is not None
    try:
        opened = tracker.open_pull_request(opening)
    except PullRequestRefused as exc:
        notes.append(f"the pull request could not be opened: {exc}")
        facts_refused = PullRequestFacts(problem=str(exc))
        return _with_opened(event, facts_refused)
    notes.append(f"opened draft pull request #{opened.number} from {opening.branch}")
    opened_facts = PullRequestFacts(number=opened.number, node_id=opened.node_id)
    return _with_opened(event, opened_facts)


def _with_opened(event: Event, facts: PullRequestFacts) -> Event:
    if isinstance(event, AgentReported):
        return event.model_copy(update={"pull_request": facts})
    return event.model_copy(update={"opened": facts})


def _commit(
    plan: CommitPlan,
    event: AgentReported,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
) -> Event:
    assert changeset is not None and event.changeset is not None
    request = CommitRequest(
        branch=plan.branch,
        expected_head=plan.expected_head,
        headline=plan.headline,
        body=plan.body,
        additions=tuple((f.path, f.contents) for f in changeset.files if f.contents is not None),
        deletions=tuple(f.path for f in changeset.files if f.contents is None),
    )
    try:
        if not event.changeset.head:  # no branch yet: it starts where the agent started
            made = tracker.create_branch(plan.branch)
            if made.ahead:
                return _foreign(event, made, notes)
            notes.append(f"branch {made.name} {_made_or_found(made)} at {made.oid[:7]}")
            if made.oid != plan.expected_head:
                raise StaleHead(f"{plan.branch} is at {made.oid[:7]}", head=made.oid)
        oid = tracker.commit(request)
    except StaleHead as exc:
        head = exc.head
        if head is None:
            found = tracker.branch(plan.branch)
            head = found.oid if found is not None else ""
        notes.append(f"the branch moved before the commit: {exc}")
        facts = event.changeset.model_copy(update={"status": "stale", "head": head})
        return event.model_copy(update={"changeset": facts})
    except CommitRefused as exc:
        # The same commit would be refused at every run: a refused changeset (a failed attempt,
        # said on the issue with GitHub's answer), never a run that fails forever.
        notes.append(f"GitHub refused the commit: {exc}")
        facts = event.changeset.model_copy(update={"status": "refused", "problems": [str(exc)]})
        return event.model_copy(update={"changeset": facts})
    notes.append(f"committed {len(changeset.files)} file(s) to {plan.branch} as {oid[:7]}")
    facts = event.changeset.model_copy(update={"status": "committed", "oid": oid})
    return event.model_copy(update={"changeset": facts})


def _create_branch(result: RunResult, tracker: Tracker, notes: list[str]) -> BranchHead:
    """The branch the decision makes, from its base (an epic's branch for a task)."""
    decision = result.decision
    assert decision.create_branch is not None
    planned = decision.record.work if decision.record else None
    base = planned.base if planned is not None and planned.base else None
    head = tracker.create_branch(decision.create_branch, base)
    if not head.ahead:
        notes.append(f"branch {head.name} {_made_or_found(head)} at {head.oid[:7]}")
    return head


def _made_or_found(head: BranchHead) -> str:
    return "created" if head.created else "found (nothing on it Baton did not write)"


def _foreign(event: Event, found: BranchHead, notes: list[str]) -> Event:
    """The issue's branch exists, Baton's record does not say Baton made it, and it carries
    commits its base lacks: it is someone else's, and `decide` refuses it (never adopts it)."""
    notes.append(f"branch {found.name} exists with {found.ahead} commit(s) Baton did not make")
    facts = BranchFacts(name=found.name, head=found.oid, ahead=found.ahead)
    return event.model_copy(update={"foreign_branch": facts})


# A count, a commit, a pull request (or sub-issues, a merge), the branch (decided again when it
# is someone else's): then final.
MAX_WORK_STEPS = 6


def _changed_since_read(result: RunResult, tracker: Tracker) -> bool:
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
                event = _do_work(result.decision, decided, changeset, tracker, notes, breaker)
            elif result.decision.create_branch is not None and not branch_made:
                # Before the record that names it, and before the re-check of the record, so
                # the window between that check and the write stays free of calls. A run that
                # dies after this leaves a branch the next run finds (and adopts: nothing on it
                # its base lacks).
                branch_made = True
                head = _create_branch(result, tracker, notes)
                if not head.ahead:
                    break
                # Someone else's branch: decided again with it, the issue goes to a human.
                foreign = True
                event = _foreign(decided, head, notes)
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
        if chain is not None and result.decision.agent:
            tracker.dispatch(chain, {"issue": str(issue.number)})
            result.dispatched = True
        others = notify or chain
        if others is not None:
            # After the record that ordered them: a run dying here leaves orders the next
            # conductor pass (or the sweep) dispatches again.
            for number in result.decision.notify:
                tracker.dispatch(others, {"issue": str(number)})
                result.notes.append(f"dispatched the run of #{number}")
        return result
    raise TrackerError(
        f"issue #{event.issue.number}: the record changed under {MAX_RACES} concurrent runs in a "
        "row; nothing was written (the next event or sweep will pick it up)"
    )
