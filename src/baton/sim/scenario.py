"""Replay a scripted issue against the in-memory GitHub: `baton simulate` and `baton demo`.

A scenario is a YAML list of what humans, agents and the clock do. Each step becomes the
webhook payload GitHub would send (or the agent report `baton report` would read) and goes
through the same `webhooks.parse` → `run.handle` path as a real run, so a maintainer can test a
workflow file before deploying it. `expect` steps turn a scenario into a check.

The format is documented in docs/scenarios.md; a test keeps every step kind and key named there.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from baton import webhooks
from baton.agents import briefing
from baton.core import events
from baton.core.agent_result import AgentResult
from baton.core.changeset import Changeset, FileChange
from baton.core.decision import Decision
from baton.core.issue_facts import IssueInfo
from baton.core.record import Record
from baton.core.work import branch_name
from baton.errors import InvalidScenario, TrackerError
from baton.github.tracker import DispatchTarget
from baton.issue.load import read_record
from baton.run import RunResult, handle
from baton.sim import payloads
from baton.sim.github import rules as github_rules
from baton.sim.memory_github import MemoryGitHub, PullRequest
from baton.sweep import sweep
from baton.workflow.config import Settings
from baton.workflow.durations import Duration
from baton.workflow.graph import path_mermaid
from baton.workflow.model import AgentStatus

Role = Literal["none", "read", "triage", "write", "maintain", "admin"]
CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")


class IssueSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = "An issue"
    body: str = ""
    author: str = "alice"
    labels: list[str] = Field(default_factory=list)


Files = dict[str, str | None]  # path: its new text, or None (YAML null) to delete it


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str | None = None
    status: AgentStatus = AgentStatus.success
    confidence: float = Field(default=0.9, ge=0, le=1)
    summary: str = ""
    issues_found: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    next_state: str | None = None
    changes: Files | None = Field(
        default=None, description="The files the agent wrote (text) or deleted (null)."
    )
    base: Literal["head", "stale"] = Field(
        default="head",
        description="stale: someone pushes to the branch while the agent works, so its "
        "changeset starts from the head before that push.",
    )

    @model_validator(mode="after")
    def _stale_needs_changes(self) -> Report:
        if self.base == "stale" and self.changes is None:
            raise ValueError("`base: stale` needs `changes`: a changeset to be stale")
        return self

    def result_fields(self) -> dict[str, Any]:
        """The fields of the agent result JSON."""
        return self.model_dump(exclude={"agent", "changes", "base"})


def _given(value: object) -> object:
    """`merge: true` is `merge: {}`: a human step whose every key has a default."""
    return {} if value is True else value


class Push(BaseModel):
    model_config = ConfigDict(extra="forbid")

    files: Files = Field(min_length=1)
    message: str = "A change pushed by hand"
    by: str | None = None


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    line: int | None = Field(default=None, ge=1)
    body: str


class Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["approved", "changes_requested", "commented"]
    by: str | None = None
    body: str = ""
    notes: list[Note] = Field(default_factory=list)


class Who(BaseModel):
    """A human step on the pull request that needs nothing but who does it."""

    model_config = ConfigDict(extra="forbid")

    by: str | None = None


Conclusion = Literal[
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
    "startup_failure",
]


class Checks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="ci", min_length=1)
    conclusion: Conclusion = "failure"
    summary: str = ""
    held: bool = Field(
        default=False,
        description="A pull_request run GitHub held for a writer's approval (GITHUB_TOKEN made "
        "the pull request) that ended with no job run: no check run, a `workflow_run` event.",
    )


PullRequestState = Literal["none", "draft", "open", "merged", "closed"]


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: str | None = None
    agent: str | None = Field(default=None, description="The agent named by the last step.")
    labels: list[str] | None = None
    transitioned: bool | None = None
    branch_files: Files | None = Field(
        default=None,
        description="Each file's text at the head of the issue's branch (null: absent).",
    )
    pull_request: PullRequestState | None = None
    commits: int | None = Field(default=None, ge=0, description="Baton's commits on the branch.")


ACTIONS = (
    "open",
    "label",
    "unlabel",
    "comment",
    "report",
    "wait",
    "sweep",
    "close",
    "reopen",
    "dispatch",
    "push",
    "review",
    "merge",
    "close_pr",
    "checks",
    "expect",
)


class Step(BaseModel):
    """Exactly one action per step; `by` says who does it (a human login)."""

    model_config = ConfigDict(extra="forbid")

    open: bool | None = None
    label: str | None = None
    unlabel: str | None = None
    comment: str | None = None
    report: Report | None = None
    wait: Duration | None = None
    sweep: bool | None = None
    close: bool | None = None
    reopen: bool | None = None
    dispatch: bool | None = None
    push: Push | None = None
    review: Review | None = None
    merge: Who | None = None
    close_pr: Who | None = None
    checks: Checks | None = None
    expect: Expect | None = None
    by: str | None = None
    association: str = "NONE"
    note: str = ""

    _true_is_empty = field_validator("merge", "close_pr", "checks", mode="before")(_given)

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        given = [name for name in ACTIONS if getattr(self, name) not in (None, False)]
        if len(given) != 1:
            raise ValueError(
                f"a step needs exactly one of {', '.join(ACTIONS)}; got {given or 'none'}"
            )
        inner = getattr(getattr(self, given[0]), "by", None)
        if inner is not None and self.by is not None and inner != self.by:
            raise ValueError(f"`by` is given twice ({self.by} and {inner}); give it once")
        return self

    @property
    def actor(self) -> str | None:
        """Who does the step: `by` beside the action or inside it (`merge: {by: maria}`)."""
        inner = getattr(getattr(self, self.action), "by", None)
        return inner if inner is not None else self.by

    @property
    def action(self) -> str:
        return next(name for name in ACTIONS if getattr(self, name) not in (None, False))


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "scenario"
    start: datetime = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    issue: IssueSpec = Field(default_factory=IssueSpec)
    people: dict[str, Role] = Field(
        default_factory=dict, description="login: repository permission"
    )
    step_minutes: int = Field(default=5, ge=0, description="Clock advance between steps.")
    steps: list[Step]


def one_line(text: str, limit: int = 300) -> str:
    """An error as one short line: a scenario's values can be huge or span lines."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_scenario(text: str, source: str) -> Scenario:
    """The scenario in `text`; InvalidScenario (one line) for anything that is not one."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidScenario(one_line(f"{source}: not valid YAML: {exc}")) from exc
    except RecursionError as exc:  # PyYAML recurses once per level of nesting
        raise InvalidScenario(f"{source}: nested too deeply to be a scenario") from exc
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(one_line(str(p), 40) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        ]
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InvalidScenario(one_line(f"{source}: {'; '.join(problems[:3])}{more}")) from exc
    except (OverflowError, ValueError) as exc:  # a duration beyond what a datetime holds
        raise InvalidScenario(one_line(f"{source}: {exc}")) from exc


def load_scenario(path: Path) -> Scenario:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidScenario(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidScenario(f"{path} is not UTF-8 (byte {exc.start})") from exc
    return parse_scenario(text, str(path))


def demo_scenario() -> Scenario:
    text = (resources.files("baton.sim") / "demo.yml").read_text(encoding="utf-8")
    return parse_scenario(text, "demo.yml")


class Impossible(Exception):
    """A step that cannot happen as written (the player says which step)."""


@dataclass(frozen=True)
class Holding:
    """What GitHub holds of the issue's work: its branch's head and its newest pull request."""

    head: str | None = None
    pull_request: int | None = None
    pull_request_state: PullRequestState = "none"


VERDICT_WORDS = {
    "approved": "approves",
    "changes_requested": "requests changes",
    "commented": "comments",
}
STALE_PUSH = {"NOTES.md": "Pushed by hand while the agent worked.\n"}


class Player:
    """Plays a scenario step by step and reports each decision through `say`."""

    def __init__(self, scenario: Scenario, settings: Settings, say: Callable[[str], None]):
        self.scenario = scenario
        self.settings = settings
        self.say = say
        self.gh = MemoryGitHub(bot_login=settings.policy.bot_login, now=scenario.start)
        for login, permission in scenario.people.items():
            self.gh.set_permission(login, permission)
        self.number = 0
        self.last: Decision | None = None
        self.failures: list[str] = []
        self.run_counter = 0

    # --- helpers -----------------------------------------------------------------------
    def record(self) -> Record | None:
        """The record as the next run would read it."""
        return read_record(self.gh.comments_of(self.number), self.gh.bot_login)

    @property
    def branch(self) -> str:
        """The issue's branch, as Baton names it."""
        return branch_name(self.settings.policy.work.branch_prefix, self.number)

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        self.run_counter += 1
        parsed = webhooks.parse(
            name, payload, self.settings.policy, now=self.gh.now, run_id=str(self.run_counter)
        )
        if isinstance(parsed, events.Ignored):
            self.say(f"   ignored (no API call): {parsed.reason}")
            self.last = None
            return
        if isinstance(parsed, events.Sweep):
            self._sweep()
            return
        self._show(handle(parsed, self.gh, self.settings))

    def _sweep(self) -> None:
        result = sweep(self.gh, self.settings, now=self.gh.now, chain=CHAIN)
        if not result.results:
            self.last = None
            self.say(f"   sweep: nothing is due ({result.listed} open issue(s) listed)")
        for item in result.results:
            self._show(item)

    def _show(self, result: RunResult) -> None:
        decision = result.decision
        self.last = decision
        moved = (
            f"{decision.previous_state or '(not in workflow)'} → {decision.state}"
            if decision.transitioned
            else (decision.state or "(not in workflow)")
        )
        self.say(f"   {decision.outcome.value}: {moved}")
        self.say(f"   why: {decision.reason}")
        if decision.labels is not None or decision.transitioned:
            status = [x for x in self.gh.labels_of(self.number)]
            self.say(f"   labels: {', '.join(status) or '(none)'}")
        if decision.message:
            first = [line for line in decision.message.splitlines() if line.strip()][:6]
            self.say("   bot comments:")
            for line in first:
                if not line.startswith("<sub>"):
                    self.say(f"     | {line}")
        if decision.agent:
            how = "workflow run dispatched" if result.dispatched else "follow-up job"
            self.say(f"   next agent: {decision.agent} ({how})")
            self._show_feedback(decision.agent)

    def _show_feedback(self, agent: str) -> None:
        """The feedback the next agent's briefing carries, as `baton context` builds it from
        what GitHub now holds (read here without a call: the agent's job makes that read)."""
        record = self.record()
        if record is None or not record.feedback:
            return
        found = self.gh.issues[self.number]
        issue = IssueInfo(
            number=self.number,
            title=found.title,
            body=found.body,
            state=found.state,
            labels=tuple(found.labels),
            author=found.author,
        )
        comments = self.gh.comments_of(self.number)
        brief = briefing.build(self.gh.repo, issue, record, comments, self.settings)
        if brief.agent != agent:
            return
        self.say(f"   the {agent}'s briefing, feedback:")
        for item in brief.feedback:
            for line in item.splitlines():
                self.say(f"     | {one_line(line, 200)}")

    # --- what GitHub holds of the work ----------------------------------------------------
    def _latest_pull(self) -> PullRequest | None:
        """The newest pull request from the issue's branch, open or not."""
        pulls = [p for p in self.gh.pull_requests.values() if p.head == self.branch]
        return max(pulls, key=lambda p: p.number, default=None)

    def _pull_state(self, pull: PullRequest | None) -> PullRequestState:
        if pull is None:
            return "none"
        if pull.merged:
            return "merged"
        if self.gh.issues[pull.number].state != "open":
            return "closed"
        return "draft" if pull.draft else "open"

    def holding(self) -> Holding:
        if self.number == 0:
            return Holding()
        pull = self._latest_pull()
        return Holding(
            head=self.gh.git.head(self.branch),
            pull_request=pull.number if pull else None,
            pull_request_state=self._pull_state(pull),
        )

    def baton_commits(self) -> int:
        """Baton's commits on the issue's branch (the bot's, from the default branch on)."""
        head = self.gh.git.head(self.branch) if self.number else None
        if head is None:
            return 0
        git = self.gh.git
        return sum(1 for oid in git.ancestors(head) if git.commits[oid].author == self.gh.bot_login)

    def _narrate(self, before: Holding) -> None:
        """Say what the step changed of the branch and the pull request."""
        now = self.holding()
        git = self.gh.git
        if now.head is not None and now.head != before.head:
            start = before.head or git.head(git.default_branch) or ""
            new = self._commits_between(start, now.head)
            if before.head is None:
                self.say(f"   GitHub: branch {self.branch} created at {start[:7]}")
            for oid in new:
                commit = git.commits[oid]
                self.say(
                    f"   GitHub: {self.branch} → {oid[:7]} by {commit.author}: {commit.headline}"
                )
                for line in self._files_of(oid):
                    self.say(f"     {line}")
        if now.pull_request is not None and (
            now.pull_request != before.pull_request
            or now.pull_request_state != before.pull_request_state
        ):
            number, state = now.pull_request, now.pull_request_state
            fresh = now.pull_request != before.pull_request
            pull = self.gh.pull_requests[number]
            if state == "merged":
                said = f"merged into {pull.base} as {(pull.merge_commit or '')[:7]}"
            elif state == "closed":
                said = "closed without merging"
            elif fresh:
                ready = "" if state == "draft" else " and marked ready for review"
                said = f"opened as a draft from {pull.head}{ready}"
            else:
                said = "marked ready for review"
            self.say(f"   GitHub: pull request #{number} {said}")

    def _commits_between(self, start: str, head: str) -> list[str]:
        """The commits on `head` that `start` lacks, oldest first (along first parents)."""
        git = self.gh.git
        known = git.ancestors(start) if start else set()
        chain: list[str] = []
        oid: str | None = head
        while oid is not None and oid not in known:
            chain.append(oid)
            parents = git.commits[oid].parents
            oid = parents[0] if parents else None
        return chain[::-1]

    def _files_of(self, oid: str) -> list[str]:
        """What the commit changed: `+ path` added, `~ path` changed, `- path` deleted."""
        commit = self.gh.git.commits[oid]
        parent = self.gh.git.commits[commit.parents[0]].tree if commit.parents else {}
        lines = []
        for path in sorted(set(parent) | set(commit.tree)):
            if path not in parent:
                lines.append(f"+ {path}")
            elif path not in commit.tree:
                lines.append(f"- {path}")
            elif parent[path] != commit.tree[path]:
                lines.append(f"~ {path}")
        return lines

    # --- steps -----------------------------------------------------------------------------
    def play(self) -> int:
        """Play every step; 1 if an expectation failed. InvalidScenario (one line) when a
        step cannot happen at all: the issue cannot be opened, or the clock runs off the
        calendar."""
        issue = self.scenario.issue
        for index, step in enumerate(self.scenario.steps, 1):
            if step.action not in {"open", "expect"} and self.number == 0:
                self.number = self._open(issue.author)
            note = f" — {one_line(step.note, 200)}" if step.note else ""
            self.say(f"\n{index:>2}. {self._describe(step)}{note}")
            before = self.holding()
            try:
                getattr(self, f"_do_{step.action}")(step)
                if step.action not in {"wait", "expect"}:
                    self.gh.now += timedelta(minutes=self.scenario.step_minutes)
            except OverflowError as exc:
                raise InvalidScenario(f"step {index}: the clock ran past year 9999") from exc
            except Impossible as exc:
                raise InvalidScenario(one_line(f"step {index}: {exc}")) from exc
            self._narrate(before)
        return 1 if self.failures else 0

    def _open(self, author: str) -> int:
        issue = self.scenario.issue
        try:
            return self.gh.open_issue(
                issue.title, issue.body, author=author, labels=tuple(issue.labels)
            )
        except TrackerError as exc:
            raise InvalidScenario(
                one_line(f"GitHub would not open the scenario's issue: {exc}")
            ) from exc

    def _human(self, action: Callable[[], object]) -> bool:
        """A person's action on GitHub; False (and said) when GitHub would refuse it, as it
        refuses an empty label or one too long: then no event follows."""
        try:
            action()
        except TrackerError as exc:
            self.say(f"   GitHub refused it, so no event: {one_line(str(exc))}")
            self.last = None
            return False
        return True

    def _describe(self, step: Step) -> str:
        who = step.actor or self.scenario.issue.author
        if step.report is not None:
            r = step.report
            agent = r.agent or (self._due_agent() or "agent")
            extra = [f"{len(r.questions)} question(s)"] if r.questions else []
            extra += [f"{len(r.issues_found)} issue(s) found"] if r.issues_found else []
            extra += [f"proposes {r.next_state}"] if r.next_state else []
            if r.changes is not None:
                stale = " from a stale base" if r.base == "stale" else ""
                extra += [f"changed {len(r.changes)} file(s){stale}"]
            tail = f", {', '.join(extra)}" if extra else ""
            return f"{agent} reports {r.status.value}, confidence {r.confidence:.2f}{tail}"
        if step.comment is not None:
            text = " ".join(step.comment.split())
            return f"{who} comments: {text[:70]!r}"
        if step.label is not None:
            return f"{who} adds label {step.label}"
        if step.unlabel is not None:
            return f"{who} removes label {step.unlabel}"
        if step.wait is not None:
            return f"time passes: {step.wait}"
        if step.push is not None:
            return f"{who} pushes {len(step.push.files)} file(s) to {self.branch}"
        pull = self._open_pull_number()
        named = f"pull request #{pull}" if pull else "the pull request"
        if step.review is not None:
            notes = len(step.review.notes)
            inline = f", {notes} inline note(s)" if notes else ""
            return f"{who} reviews {named}: {VERDICT_WORDS[step.review.verdict]}{inline}"
        if step.checks is not None:
            head = self.gh.git.head(self.branch) or ""
            on = f" on {head[:7]}" if head else ""
            return f"CI: check {step.checks.name} {step.checks.conclusion}{on}"
        return {
            "open": f"{who} opens the issue",
            "sweep": "the scheduled sweep runs",
            "close": f"{who} closes the issue",
            "reopen": f"{who} reopens the issue",
            "dispatch": "a workflow_dispatch run starts",
            "merge": f"{who} merges {named}",
            "close_pr": f"{who} closes {named} without merging",
            "expect": "check",
        }[step.action]

    def _due_agent(self) -> str | None:
        record = self.record()
        return self.settings.workflow.agent_of(record.state) if record else None

    def _open_pull_number(self) -> int | None:
        return self.gh.pull_request_of(self.branch) if self.number else None

    def _open_pull(self) -> PullRequest:
        """The open pull request from the issue's branch; GitHub has nothing to act on else."""
        number = self._open_pull_number()
        if number is None:
            raise TrackerError(f"{self.branch} has no open pull request")
        return self.gh.pull_requests[number]

    def _at(self) -> str:
        return github_rules.timestamp(self.gh.now)

    def _do_open(self, step: Step) -> None:
        opener = step.by or self.scenario.issue.author
        self.number = self._open(opener)
        self._event("issues", payloads.opened(self.gh, self.number, sender=opener))

    def _do_label(self, step: Step) -> None:
        assert step.label is not None
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_label(self.number, step.label or "", by=who)):
            self._event("issues", payloads.labeled(self.gh, self.number, step.label, sender=who))

    def _do_unlabel(self, step: Step) -> None:
        assert step.unlabel is not None
        who = step.by or self.scenario.issue.author
        label = step.unlabel
        if self._human(lambda: self.gh.human_label(self.number, label, add=False, by=who)):
            self._event(
                "issues", payloads.unlabeled(self.gh, self.number, step.unlabel, sender=who)
            )

    def _do_comment(self, step: Step) -> None:
        assert step.comment is not None
        who = step.by or self.scenario.issue.author
        body = step.comment
        posted: list[int] = []

        def post() -> None:
            comment = self.gh.human_comment(
                self.number, body, author=who, association=step.association
            )
            posted.append(comment.id)

        if self._human(post):
            self._event("issue_comment", payloads.comment_created(self.gh, posted[0]))

    def _do_report(self, step: Step) -> None:
        assert step.report is not None
        spec = step.report
        result: AgentResult | None = None
        error = None
        try:
            result = AgentResult(**spec.result_fields())
        except ValidationError as exc:
            # As `baton report` hands on a result that fails validation: an invalid result.
            error = one_line(f"the agent result does not validate: {exc.errors()[0]['msg']}")
            self.say(f"   {error}")
        changeset = self._changeset(spec, step.by or self.scenario.issue.author)
        self.run_counter += 1
        event = events.report(
            self.number,
            agent=spec.agent,
            result=result,
            error=error,
            now=self.gh.now,
            run_id=f"sim-{self.run_counter}",
        )
        self._show(handle(event, self.gh, self.settings, chain=CHAIN, changeset=changeset))

    def _changeset(self, spec: Report, pusher: str) -> Changeset | None:
        """The changeset `baton agent` would have written: the files, bound to the commit the
        agent checked out (the branch head, else the default branch's). `base: stale`: someone
        pushes to the branch while the agent works, so that commit is no longer the head."""
        if spec.changes is None:
            return None
        git = self.gh.git
        base = git.head(self.branch) or git.head(git.default_branch) or ""
        tree = git.commits[base].tree
        for path, text in spec.changes.items():
            if text is None and path not in tree:
                raise Impossible(f"the agent cannot delete {path}: it is not in {base[:7]}")
        if spec.base == "stale":
            self.say(f"   meanwhile {pusher} pushes to {self.branch}")
            self.gh.human_push(self.branch, STALE_PUSH, "Pushed while the agent worked", pusher)
        files = [
            FileChange(
                path=path,
                contents=None if text is None else base64.b64encode(text.encode()).decode(),
            )
            for path, text in spec.changes.items()
        ]
        return Changeset(base=base, files=files)

    def _do_wait(self, step: Step) -> None:
        assert step.wait is not None
        self.gh.now += step.wait
        self.say(f"   clock: {self.gh.now:%Y-%m-%d %H:%M} UTC")

    def _do_sweep(self, step: Step) -> None:
        self._event("schedule", payloads.schedule("17 * * * *"))

    def _do_close(self, step: Step) -> None:
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_close(self.number, by=who)):
            self._event("issues", payloads.closed(self.gh, self.number, sender=who))

    def _do_reopen(self, step: Step) -> None:
        who = step.by or self.scenario.issue.author
        if self._human(lambda: self.gh.human_reopen(self.number, by=who)):
            self._event("issues", payloads.reopened(self.gh, self.number, sender=who))

    def _do_dispatch(self, step: Step) -> None:
        sender = step.by or self.gh.bot_login
        payload = payloads.workflow_dispatch(self.gh, {"issue": self.number}, sender=sender)
        self._event("workflow_dispatch", payload)

    def _do_push(self, step: Step) -> None:
        assert step.push is not None
        spec, who = step.push, step.actor or self.scenario.issue.author
        self.last = None
        if self._human(lambda: self.gh.human_push(self.branch, spec.files, spec.message, who)):
            # GitHub sends `push` (and `pull_request` synchronize); Baton acts on neither: an
            # agent's changeset made before the push is found stale when it reports.
            self.say("   no event Baton acts on")

    def _do_review(self, step: Step) -> None:
        assert step.review is not None
        spec, who = step.review, step.actor or self.scenario.issue.author
        submitted: list[tuple[PullRequest, int]] = []

        def submit() -> None:
            pull = self._open_pull()
            notes = [(n.path, n.line, n.body) for n in spec.notes]
            review = self.gh.human_review(pull.number, who, spec.verdict, spec.body, notes)
            submitted.append((pull, review))

        if self._human(submit):
            pull, review = submitted[0]
            payload = payloads.pull_request_review(
                self.gh,
                number=pull.number,
                branch=pull.head,
                head_sha=self.gh.git.head(pull.head) or pull.head_sha,
                review_id=review,
                state=spec.verdict,
                reviewer=who,
                body=spec.body,
                association=step.association,
                at=self._at(),
            )
            self._event("pull_request_review", payload)

    def _do_merge(self, step: Step) -> None:
        self._end_pull_request(step, merged=True)

    def _do_close_pr(self, step: Step) -> None:
        self._end_pull_request(step, merged=False)

    def _end_pull_request(self, step: Step, *, merged: bool) -> None:
        who = step.actor or self.scenario.issue.author
        ended: list[PullRequest] = []

        def end() -> None:
            pull = self._open_pull()
            if merged:
                self.gh.human_merge(pull.number, by=who)
            else:
                self.gh.human_close_pr(pull.number, by=who)
            ended.append(pull)

        if self._human(end):
            pull = ended[0]
            payload = payloads.pull_request_closed(
                self.gh,
                number=pull.number,
                branch=pull.head,
                head_sha=pull.head_sha,
                merged=merged,
                sender=who,
                at=self._at(),
            )
            self._event("pull_request", payload)

    def _do_checks(self, step: Step) -> None:
        assert step.checks is not None
        spec = step.checks
        ran: list[tuple[str, int]] = []

        def run() -> None:
            head = self.gh.git.head(self.branch)
            if head is None:
                raise TrackerError(f"{self.branch} does not exist: there is no commit to check")
            if spec.held:  # no job ran: no check run, only the workflow run's conclusion
                ran.append((head, 70_000 + len(self.gh.check_runs)))
                return
            ran.append(
                (head, self.gh.add_check_run(head, spec.name, spec.conclusion, spec.summary))
            )

        if self._human(run):
            head, run_id = ran[0]
            pull = self._open_pull_number()
            if spec.held:
                held = payloads.workflow_run_completed(
                    self.gh,
                    branch=self.branch,
                    head_sha=head,
                    conclusion=spec.conclusion,
                    run_id=run_id,
                    name=spec.name,
                    pull_requests=[pull] if pull else [],
                    event="pull_request",
                    at=self._at(),
                )
                self._event("workflow_run", held)
                return
            payload = payloads.check_suite_completed(
                self.gh,
                branch=self.branch,
                head_sha=head,
                conclusion=spec.conclusion,
                suite_id=run_id,
                pull_requests=[pull] if pull else [],
                at=self._at(),
            )
            self._event("check_suite", payload)

    def _do_expect(self, step: Step) -> None:
        assert step.expect is not None
        want = step.expect
        record = self.record()
        state = record.state if record else None
        problems = []
        if want.state is not None and state != want.state:
            problems.append(f"state is {state}, expected {want.state}")
        if want.labels is not None:
            labels = sorted(self.gh.labels_of(self.number))
            if labels != sorted(want.labels):
                problems.append(f"labels are {labels}, expected {sorted(want.labels)}")
        agent = self.last.agent if self.last else None
        if want.agent is not None and agent != want.agent:
            problems.append(f"agent is {agent}, expected {want.agent}")
        transitioned = bool(self.last and self.last.transitioned)
        if want.transitioned is not None and transitioned != want.transitioned:
            problems.append(f"transitioned is {transitioned}, expected {want.transitioned}")
        problems += self._work_problems(want)
        for problem in problems:
            self.say(f"   ✗ {problem}")
        if not problems:
            self.say("   ✓ as expected")
        self.failures.extend(problems)

    def _work_problems(self, want: Expect) -> list[str]:
        """What the branch and the pull request hold that the expectation does not."""
        problems = []
        exists = self.number != 0 and self.gh.git.head(self.branch) is not None
        for path, text in (want.branch_files or {}).items():
            found = self.gh.file_at(self.branch, path) if exists else None
            if found != text:
                problems.append(
                    f"{path} on {self.branch} is {_shown(found)}, expected {_shown(text)}"
                )
        holding = self.holding()
        if want.pull_request is not None and holding.pull_request_state != want.pull_request:
            problems.append(
                f"the pull request is {holding.pull_request_state}, expected {want.pull_request}"
            )
        commits = self.baton_commits()
        if want.commits is not None and commits != want.commits:
            problems.append(
                f"Baton made {commits} commit(s) on the branch, expected {want.commits}"
            )
        return problems

    def work(self) -> str | None:
        """What GitHub holds of the issue's work in one line, or None when it has nothing."""
        holding = self.holding()
        if holding.head is None:
            return None
        line = f"{self.branch} at {holding.head[:7]}, {self.baton_commits()} commit(s) by Baton"
        if holding.pull_request is None:
            return f"{line}, no pull request"
        pull = self.gh.pull_requests[holding.pull_request]
        said: str = holding.pull_request_state
        if said == "merged":
            said = f"merged into {pull.base} as {(pull.merge_commit or '')[:7]}"
        return f"{line}; pull request #{pull.number} {said}"

    def tally(self) -> str:
        """What the run cost, counted as GitHub counts it: a batched read or write is one
        request (one round trip), however many operations it holds."""
        return (
            f"{self.gh.requests} GitHub API requests, "
            f"{len(self.gh.dispatches)} workflow runs dispatched"
        )

    def path(self) -> str:
        record = self.record()
        history = record.history if record else []
        return path_mermaid(history, self.settings.workflow)


def _shown(text: str | None) -> str:
    return "absent" if text is None else one_line(repr(text), 80)
