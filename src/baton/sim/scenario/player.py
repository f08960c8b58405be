"""Plays a scenario on the simulated GitHub (`SimGitHub`: the production client over the model
of GitHub, in process) for `baton simulate` and `baton demo`. Each step becomes the webhook
payload GitHub would send (or the report `baton report` would read) and takes the same
`webhooks.parse` → `run.handle` path as a real run; `expect` steps make it a check. What the
player says is `narration`'s; what it reads of GitHub is `holding`'s."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from baton import webhooks
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.decision import Decision
from baton.core.model.evidence import Evidence
from baton.core.model.record import Record
from baton.core.model.work import branch_name
from baton.errors import InvalidScenario, TrackerError
from baton.github.tracker import DispatchTarget
from baton.issue.apply import tracker_labels
from baton.run import RunResult, handle
from baton.sim import payloads
from baton.sim.model import rules as github_rules
from baton.sim.model.pulls import PullRequest
from baton.sim.scenario import evidence as scripted
from baton.sim.scenario import expect, narration
from baton.sim.scenario.format import Expect, Report, Scenario, Step, one_line
from baton.sim.scenario.holding import (
    Holding,
    holding,
    open_pull_number,
    record_of,
)
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep
from baton.workflow.config import Settings
from baton.workflow.graph import path_mermaid

CHAIN = DispatchTarget(workflow="baton.yml", ref="refs/heads/main")


class Impossible(Exception):
    """A step that cannot happen as written (the player says which step)."""


STALE_PUSH = {"NOTES.md": "Pushed by hand while the agent worked.\n"}


class Player:
    """Plays a scenario step by step and reports each decision through `say`."""

    def __init__(self, scenario: Scenario, settings: Settings, say: Callable[[str], None]):
        self.scenario = scenario
        self.settings = settings
        self.say = say
        labels, bot = tracker_labels(settings), settings.policy.bot_login
        self.gh = SimGitHub(bot_login=bot, now=scenario.start, labels=labels)
        for login, permission in scenario.people.items():
            self.gh.set_permission(login, permission)
        self.number = 0
        self.last: Decision | None = None
        self.failures: list[str] = []
        self.run_counter = 0
        self.step = 0  # the step being played, from 1
        self.told: dict[str, int] = {}  # each bot comment shown, and the step that showed it
        self.evidence: list[tuple[int, Evidence]] = []  # each report's evidence, by its step
        self.comment_lines = narration.COMMENT_LINES  # lines of each bot comment said

    # --- helpers -----------------------------------------------------------------------
    def record(self) -> Record | None:
        """The record as the next run would read it."""
        return record_of(self)

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
        self.gh.new_run()
        self._show(handle(parsed, self.gh, self.settings))

    def _sweep(self) -> None:
        self.gh.new_run()
        result = sweep(self.gh, self.settings, now=self.gh.now, chain=CHAIN)
        if not result.results:
            self.last = None
            self.say(f"   sweep: nothing is due ({result.listed} open issue(s) listed)")
        for item in result.results:
            self._show(item)

    def _following(self) -> tuple[int, Step] | None:
        """The step after this one, `expect`s skipped (they are checks, not events)."""
        steps = self.scenario.steps
        for number in range(self.step + 1, len(steps) + 1):
            if steps[number - 1].action != "expect":
                return number, steps[number - 1]
        return None

    def _show(self, result: RunResult) -> None:
        self.last = result.decision
        lines = narration.decision_lines(
            self,
            result,
            told=self.told,
            step=self.step,
            following=self._following(),
            comment=self.comment_lines,
        )
        for line in lines:
            self.say(line)
        if result.decision.agent:
            for line in narration.feedback_lines(self, result.decision.agent):
                self.say(line)

    # --- what GitHub holds of the work ----------------------------------------------------
    def holding(self) -> Holding:
        return holding(self)

    # --- steps -----------------------------------------------------------------------------
    def play(self) -> int:
        """Play every step; 1 if an expectation failed. InvalidScenario (one line) when a
        step cannot happen at all: the issue cannot be opened, or the clock runs off the
        calendar."""
        issue = self.scenario.issue
        for index, step in enumerate(self.scenario.steps, 1):
            self.step = index
            if step.action not in {"open", "expect"} and self.number == 0:
                self.number = self._open(issue.author)
            self.say(self._heading(index, step))
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

    def _heading(self, index: int, step: Step) -> str:
        note = f" — {one_line(step.note, 200)}" if step.note else ""
        return f"\n{index:>2}. {narration.describe(self, step, self.scenario.issue.author)}{note}"

    def _narrate(self, before: Holding) -> None:
        """Say what the step changed of the branch and the pull request."""
        for line in narration.change_lines(self, before):
            self.say(line)

    def _open_pull(self) -> PullRequest:
        """The open pull request from the issue's branch; GitHub has nothing to act on else."""
        number = open_pull_number(self)
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
        if spec.evidence is not None:
            found = scripted.build(self, changeset, spec.evidence)  # beside the result
            self.evidence.append((self.step, found))
            self.say(scripted.evidence_line(self, found, changeset))
            event = event.model_copy(update={"evidence": found})
        self.gh.new_run()
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
            pull = open_pull_number(self)
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
        problems = self._problems(step.expect)
        for problem in problems:
            self.say(f"   ✗ {problem}")
        if not problems:
            self.say("   ✓ as expected")
        self.failures.extend(problems)

    def _problems(self, want: Expect) -> list[str]:
        return expect.problems(self, want, self.last)

    def work(self) -> str | None:
        """What GitHub holds of the issue's work in one line, or None when it has nothing."""
        return narration.work_line(self)

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
