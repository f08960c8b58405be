"""One issue on the simulated GitHub, driven as GitHub and agents drive it: the helpers the
engine, fault and race tests share (the fixtures are in tests/conftest.py).

Every builder takes the real path a GitHub event or an agent hand-back takes — a webhook payload
from `baton.sim.payloads` through `webhooks.parse`, or `events.report`, then `run.handle` over
the `SimGitHub` (the production `GitHubTracker`, in process over the model of GitHub) — so a
test exercises exactly what `baton run` and `baton report` do, each run a fresh client as each
is a process of its own. Each step moves the fake clock on a few minutes, as real events are
apart in time.

The cast: maria (maintain), tess (triage), wendy (write), alice (read, the issue's author) and
bob (read, a passer-by). Issue #1 is open and not yet in the workflow.
"""

from __future__ import annotations

import itertools
from base64 import b64encode
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import graphql
from graphql import FieldNode, OperationDefinitionNode, OperationType

from baton import webhooks
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.decision import Decision
from baton.core.model.events import Event, Ignored, Sweep
from baton.core.model.issue_facts import Comment
from baton.core.model.record import Record
from baton.core.model.work import digest_in
from baton.github.tracker import DispatchTarget
from baton.issue import record_comment
from baton.issue.load import read_record
from baton.run import RunResult, handle
from baton.sim import payloads
from baton.sim.api.faults import Call
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep as run_sweep
from baton.workflow.config import Config, Settings, settings_from

ISSUE = 1
PEOPLE = {"maria": "maintain", "tess": "triage", "wendy": "write", "alice": "read", "bob": "read"}
STEP = timedelta(minutes=5)

_run_ids = itertools.count(1)


def configured(**config: Any) -> Settings:
    """Settings from a config written in Python, e.g. `configured(agent_timeout="2h")`."""
    return settings_from(Config(**config))


# --- what humans and GitHub do ------------------------------------------------------------
def deliver(
    gh: SimGitHub, settings: Settings, name: str, payload: dict[str, Any]
) -> Decision | Ignored:
    """One webhook through `webhooks.parse` and `run.handle`: the Decision, or why it was
    Ignored."""
    parsed = webhooks.parse(name, payload, settings.policy, now=gh.now, run_id=str(next(_run_ids)))
    gh.now += STEP
    if isinstance(parsed, Ignored):
        return parsed
    assert not isinstance(parsed, Sweep), "use sweep() for scheduled runs"
    gh.new_run()
    return handle(parsed, gh, settings).decision


def relabel(
    gh: SimGitHub, settings: Settings, label: str, by: str, *, bot: bool | None = None
) -> Decision | Ignored:
    """`by` adds `label` to issue #1 (`bot` types the sender; by default a `[bot]` login is a
    Bot)."""
    gh.human_label(ISSUE, label, by=by)
    return deliver(gh, settings, "issues", payloads.labeled(gh, ISSUE, label, sender=by, bot=bot))


def enter(gh: SimGitHub, settings: Settings, by: str = "maria") -> Decision | Ignored:
    """Start Baton on issue #1 with the trigger label."""
    return relabel(gh, settings, "baton", by)


def enter_at(gh: SimGitHub, settings: Settings, state: str) -> Decision:
    """Put issue #1 straight into `state`: maria adds its status label (a forced entry)."""
    decision = relabel(gh, settings, label_of(settings, state), "maria")
    assert isinstance(decision, Decision) and decision.state == state, decision
    return decision


def comment(
    gh: SimGitHub, settings: Settings, body: str, by: str, *, bot: bool = False
) -> Decision | Ignored:
    """`by` posts `body` on issue #1."""
    posted = gh.human_comment(ISSUE, body, author=by, bot=bot)
    return deliver(gh, settings, "issue_comment", payloads.comment_created(gh, posted.id))


def edit(gh: SimGitHub, settings: Settings, comment_id: int, body: str) -> Decision | Ignored:
    """The author of `comment_id` edits it to say `body`."""
    old = gh.comment_store[comment_id].body
    gh.human_edit(comment_id, body)
    payload = payloads.comment_edited(gh, comment_id, old)
    return deliver(gh, settings, "issue_comment", payload)


def close(gh: SimGitHub, settings: Settings, by: str) -> Decision | Ignored:
    gh.human_close(ISSUE, by=by)
    return deliver(gh, settings, "issues", payloads.closed(gh, ISSUE, sender=by))


def reopen(gh: SimGitHub, settings: Settings, by: str) -> Decision | Ignored:
    gh.human_reopen(ISSUE, by=by)
    return deliver(gh, settings, "issues", payloads.reopened(gh, ISSUE, sender=by))


# --- what agents and the clock do ----------------------------------------------------------
def report(
    gh: SimGitHub,
    settings: Settings,
    agent: str | None,
    *,
    error: str | None = None,
    run_id: str | None = None,
    **result: Any,
) -> Decision:
    """`agent` hands back a result (success, confidence 0.9 unless told); `error`: none at all."""
    parsed = (
        None
        if error is not None
        else AgentResult(**{"status": "success", "confidence": 0.9, **result})
    )
    event = events.report(
        ISSUE,
        agent=agent,
        result=parsed,
        error=error,
        now=gh.now,
        run_id=run_id or f"run-{next(_run_ids)}",
    )
    gh.now += STEP
    gh.new_run()
    return handle(event, gh, settings).decision


@dataclass(frozen=True)
class Skipped:
    """The sweep passed over issue #1 without reading it: the listing showed nothing due."""

    issue: int = ISSUE


def sweep(gh: SimGitHub, settings: Settings, after: timedelta) -> Decision | Skipped:
    """Let `after` pass, run the scheduled sweep, and return its decision on issue #1, or
    `Skipped()` when it did not even read the issue (so no decision was made)."""
    gh.now += after
    gh.new_run()
    swept = run_sweep(gh, settings, now=gh.now, chain=None)
    found = next((r.decision for r in swept.results if r.decision.issue == ISSUE), None)
    return found or Skipped()


# --- what a test reads back ---------------------------------------------------------------
def label_of(settings: Settings, state: str) -> str:
    return settings.workflow.label_for(state, settings.policy.label_prefix)


def record_of(gh: SimGitHub) -> Record | None:
    """The record on issue #1 as the next run would read it."""
    return read_record(gh.comments_of(ISSUE), gh.bot_login)


def state_of(gh: SimGitHub) -> str | None:
    record = record_of(gh)
    return record.state if record else None


def messages_of(gh: SimGitHub, number: int = ISSUE) -> list[str]:
    """What the bot said to humans on the issue, oldest first (the record comment left out)."""
    return [
        c.body
        for c in gh.comments_of(number)
        if c.author == gh.bot_login and not record_comment.has_marker(c.body)
    ]


def writes(gh: SimGitHub) -> int:
    """Requests so far that change something on GitHub (REST writes, GraphQL mutations)."""
    return len(gh.writes_sent())


# --- the requests a run sends, as GitHub sees them ----------------------------------------------
def seen_as(call: Call) -> str:
    """A request as a test reads it: REST by method and path (`POST /repos/octo/demo/labels`),
    a GraphQL query by its operation (`BatonRead`), a mutation with its root fields by their
    names in GitHub's schema, in order (`BatonWrite: addComment addLabelsToLabelable`)."""
    if call.operation is None:
        return f"{call.method} {call.path}"
    document = graphql.parse(call.body["query"])
    (operation,) = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation.operation is not OperationType.MUTATION:
        return call.operation
    fields = [f.name.value for f in operation.selection_set.selections if isinstance(f, FieldNode)]
    return f"{call.operation}: {' '.join(fields)}"


def requests_in_order(gh: SimGitHub) -> list[str]:
    """Every request sent from now on, in order (reads and writes), as `seen_as` tells them."""
    seen: list[str] = []
    gh.api.on_request = lambda call: seen.append(seen_as(call))
    return seen


# --- jobs that can run again, for fault and race tests ---------------------------------------
CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")


@dataclass
class Job:
    """One `baton run` or `baton report` job: each run handles the same event again, with the
    same id, as a re-run of the job (same GITHUB_RUN_ID) or a re-delivered webhook does."""

    gh: SimGitHub
    settings: Settings
    event_at: Callable[[datetime], Event]
    chain: DispatchTarget | None = None
    results: list[RunResult] = field(default_factory=list)

    def run(self) -> RunResult:
        event = self.event_at(self.gh.now)
        self.gh.now += STEP
        self.gh.new_run()
        result = handle(event, self.gh, self.settings, chain=self.chain)
        self.results.append(result)
        return result

    def named(self, agent: str) -> int:
        """Runs of this job that finished and named `agent` for the follow-up job."""
        return sum(1 for r in self.results if r.decision.agent == agent)


def webhook_job(gh: SimGitHub, settings: Settings, name: str, payload: dict[str, Any]) -> Job:
    """A job for a webhook whose payload is fixed now, as GitHub fixes it when the event fires."""
    run_id = str(next(_run_ids))

    def event_at(now: datetime) -> Event:
        parsed = webhooks.parse(name, payload, settings.policy, now=now, run_id=run_id)
        assert not isinstance(parsed, Ignored | Sweep), parsed
        return parsed

    return Job(gh, settings, event_at)


def report_job(gh: SimGitHub, settings: Settings, agent: str, **result: Any) -> Job:
    """`baton report` for `agent` (success, confidence 0.9 unless told), chaining by dispatch."""
    run_id = f"run-{next(_run_ids)}"
    parsed = AgentResult(**{"status": "success", "confidence": 0.9, **result})

    def event_at(now: datetime) -> Event:
        return events.report(ISSUE, agent=agent, result=parsed, error=None, now=now, run_id=run_id)

    return Job(gh, settings, event_at, chain=CHAIN)


def relabel_job(gh: SimGitHub, settings: Settings, label: str, by: str) -> Job:
    """`by` adds `label` to issue #1 now; the job handles that event."""
    gh.human_label(ISSUE, label, by=by)
    return webhook_job(gh, settings, "issues", payloads.labeled(gh, ISSUE, label, sender=by))


def comment_job(gh: SimGitHub, settings: Settings, body: str, by: str) -> Job:
    """`by` posts `body` on issue #1 now; the job handles that event."""
    posted = gh.human_comment(ISSUE, body, author=by)
    return webhook_job(gh, settings, "issue_comment", payloads.comment_created(gh, posted.id))


def kick_job(gh: SimGitHub, settings: Settings) -> Job:
    """The workflow run a dispatch of Baton's starts for issue #1."""
    payload = payloads.workflow_dispatch(gh, {"issue": ISSUE}, sender=gh.bot_login)
    return webhook_job(gh, settings, "workflow_dispatch", payload)


def sweep_run(gh: SimGitHub, settings: Settings, after: timedelta = STEP) -> RunResult | None:
    """The scheduled sweep `after` from now, chaining by dispatch: its run on issue #1, if any."""
    gh.now += after
    gh.new_run()
    swept = run_sweep(gh, settings, now=gh.now, chain=CHAIN)
    return next((r for r in swept.results if r.decision.issue == ISSUE), None)


def record_comments(gh: SimGitHub) -> list[Comment]:
    """The bot's record comments on issue #1, oldest first."""
    return record_comment.find_records(gh.comments_of(ISSUE), gh.bot_login)


def status_labels(gh: SimGitHub, number: int = ISSUE, prefix: str = "status:") -> list[str]:
    """The issue's labels that look like status labels, in any case (as Baton reads them)."""
    return [x for x in gh.labels_of(number) if x.casefold().startswith(prefix.casefold())]


def labels_agree(gh: SimGitHub, settings: Settings) -> bool:
    """Exactly one status label on issue #1, and it is the record's state."""
    record = record_of(gh)
    return record is not None and status_labels(gh) == [label_of(settings, record.state)]


def times_applied(gh: SimGitHub, move: tuple[str | None, str, str, str]) -> int:
    """How often the history holds the move (from, to, trigger, actor)."""
    record = record_of(gh)
    if record is None:
        return 0
    return sum(1 for e in record.history if (e.from_state, e.to_state, e.trigger, e.actor) == move)


# --- the work travels: changesets, Baton's commits, the branch --------------------------------
BRANCH = "baton/issue-1"


def changeset_on(base: str, files: dict[str, str | None]) -> Changeset:
    """What an agent that started at `base` changed: each path's new text, or None to delete it
    (the shape `baton agent` writes beside its result)."""
    changes = [
        FileChange(path=path, contents=None if text is None else b64encode(text.encode()).decode())
        for path, text in sorted(files.items())
    ]
    return Changeset(base=base, files=changes)


@dataclass
class ChangesetJob(Job):
    """`baton report` with the agent's changeset beside its result (`--changeset`)."""

    changeset: Changeset | None = None

    def run(self) -> RunResult:
        event = self.event_at(self.gh.now)
        self.gh.now += STEP
        self.gh.new_run()
        result = handle(event, self.gh, self.settings, chain=self.chain, changeset=self.changeset)
        self.results.append(result)
        return result


def changeset_job(
    gh: SimGitHub, settings: Settings, agent: str, changeset: Changeset, **result: Any
) -> ChangesetJob:
    """`baton report` for `agent` with `changeset` (success, confidence 0.9 unless told)."""
    plain = report_job(gh, settings, agent, **result)
    return ChangesetJob(gh, settings, plain.event_at, chain=CHAIN, changeset=changeset)


def lineage(gh: SimGitHub, branch: str = BRANCH) -> list[str]:
    """The branch's commits, head first, along first parents (what `git log --first-parent`
    shows); empty when the branch does not exist."""
    oid = gh.git.head(branch)
    chain: list[str] = []
    while oid is not None:
        chain.append(oid)
        parents = gh.git.commits[oid].parents
        oid = parents[0] if parents else None
    return chain


def digests_on(gh: SimGitHub, branch: str = BRANCH) -> list[str]:
    """The changeset digest of every commit on the branch that carries one, oldest first."""
    found = (digest_in(gh.git.commits[oid].message) for oid in reversed(lineage(gh, branch)))
    return [d for d in found if d is not None]
