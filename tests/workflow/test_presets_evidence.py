"""The presets' evidence (issue 26): `issue-lifecycle` keeps seed 000's table and gains two proof
states whose verdict rules come first; `test-first` walks from a red proof through its sign-off
to green and a pull request, decided directly."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from click.testing import CliRunner

from baton.cli import cli
from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import Event, commented
from baton.core.model.evidence import Evidence, ProofCounts, TestCase
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import Dispatch, Record
from baton.core.model.work import ChangesetFacts
from baton.core.rules.route import decide
from baton.workflow.checks import check
from baton.workflow.config import Policy
from baton.workflow.model import AgentStatus, StateKind, load_preset
from baton.workflow.suite import SuiteSettings

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
POLICY = Policy(tests=SuiteSettings(command="pytest"))
FILES = "sha256:" + "f" * 64
NEW = "tests.test_csv::test_export"
OLD = "tests.test_calc::test_add"


def test_issue_lifecycle_keeps_21_states_and_72_edges_with_two_proof_states() -> None:
    wf = load_preset("issue-lifecycle")
    assert len(wf.states) == 21
    assert sum(len(targets) for targets in wf.transitions.values()) == 72
    proofs = {state: spec.proof for state, spec in wf.states.items() if spec.proof}
    assert proofs == {"creating_tests": "red", "running_tests": "green"}
    for state in proofs:
        first = [rule for rule in wf.rules[state] if rule.when.verdict is not None]
        assert wf.rules[state][: len(first)] == first, f"{state}: verdict rules come first"
        assert {v for rule in first for v in rule.when.verdict or []} == {
            "red",
            "green",
            "failing",
            "broken",
        }


def test_test_first_is_the_shape_the_issue_asks_for() -> None:
    wf = load_preset("test-first")
    spec = wf.states
    assert (spec["writing_tests"].agent, spec["writing_tests"].proof) == ("tester", "red")
    assert spec["writing_tests"].changes_code and spec["implementing"].changes_code
    assert spec["tests_review"].kind is StateKind.waiting and spec["tests_review"].signs_off
    assert (spec["tests_review"].approval, spec["tests_review"].reply) == (
        "implementing",
        "writing_tests",
    )
    assert (spec["proving"].agent, spec["proving"].proof) == ("tester", "green")
    assert wf.pull_request.ready == "creating_pr"
    assert check(wf).problems == []


def test_baton_validate_passes_test_first_without_a_warning() -> None:
    result = CliRunner().invoke(cli, ["validate", "--workflow", "test-first"])
    assert (result.exit_code, result.output) == (0, "test-first: 0 error(s), 0 warning(s)\n")


def test_epic_task_test_first_is_the_shape_an_epic_s_tests_first_task_asks_for() -> None:
    wf = load_preset("epic-task-test-first")
    assert (wf.role, wf.initial, wf.agents) == (
        "task",
        "pending",
        ["pm", "tester", "developer", "reviewer"],
    )
    assert wf.transitions == {
        "pending": ["writing_tests", "in_progress", "blocked"],
        "writing_tests": ["tests_review", "failed"],
        "tests_review": ["in_progress", "writing_tests"],
        "in_progress": ["proving", "failed"],
        "proving": ["pending_review", "retry_queued", "failed"],
        "pending_review": ["completed", "retry_queued", "failed"],
        "retry_queued": ["in_progress"],
        "blocked": ["pending", "skipped"],
        "failed": ["in_progress", "skipped", "pending", "completed"],
        "completed": [],
        "skipped": [],
    }
    shape = {
        state: (spec.kind.value, spec.agent, spec.proof, spec.signs_off, spec.changes_code)
        for state, spec in wf.states.items()
    }
    assert shape == {
        "pending": ("waiting", None, None, False, False),
        "writing_tests": ("work", "tester", "red", False, True),
        "tests_review": ("waiting", None, None, True, False),
        "in_progress": ("work", "developer", None, False, True),
        "proving": ("work", "tester", "green", False, False),
        "pending_review": ("work", "reviewer", None, False, False),
        "retry_queued": ("work", "pm", None, False, False),
        "blocked": ("waiting", None, None, False, False),
        "failed": ("waiting", None, None, False, False),
        "completed": ("terminal", None, None, False, False),
        "skipped": ("terminal", None, None, False, False),
    }
    review = wf.states["tests_review"]
    assert (review.approval, review.reply, review.timeout) == ("in_progress", "writing_tests", None)
    assert (wf.escalation.state, wf.escalation.retry, wf.escalation.skip) == (
        "failed",
        "pending",
        "skipped",
    )
    for state in ("writing_tests", "proving"):  # the verdict rules come first, as test-first's
        first = [rule for rule in wf.rules[state] if rule.when.verdict is not None]
        assert wf.rules[state][: len(first)] == first
    assert [(r.when.verdict, r.to) for r in wf.rules["proving"][:4]] == [
        (["green"], "pending_review"),
        (["failing", "red"], "failed"),  # the third visit
        (["failing", "red"], "retry_queued"),
        (["broken"], "retry"),
    ]
    assert check(wf).problems == []


def test_the_epic_task_preset_is_unchanged_by_the_tests_first_one() -> None:
    wf = load_preset("epic-task")
    assert all(spec.task_status is None for spec in wf.states.values())
    assert sum(len(targets) for targets in wf.transitions.values()) == 14
    assert wf.transitions["pending"] == ["in_progress", "blocked"]


# --- test-first, walked ------------------------------------------------------------------------
class Walk:
    """Issue #1 under test-first with `tests:`, one decision at a time, a minute apart."""

    def __init__(self) -> None:
        self.wf = load_preset("test-first")
        self.now = START
        self.ids = itertools.count(1)
        self.record = Record(
            workflow="test-first",
            issue=1,
            state="received",
            entered_at=START,
            iteration=1,
            visits={"received": 1},
            dispatch=Dispatch(agent="pm", state="received", attempt=1, at=START),
        )
        self.decisions: list[Decision] = []

    def issue(self) -> IssueInfo:
        label = self.wf.label_for(self.record.state, POLICY.label_prefix)
        return IssueInfo(number=1, title="Export as CSV", labels=(label,), author="alice")

    def decide(self, event: Event, facts: Facts = NO_FACTS) -> Decision:
        self.now += timedelta(minutes=1)
        decision = decide(self.record, event, self.wf, POLICY, facts)
        self.decisions.append(decision)
        if decision.record is not None:
            self.record = decision.record
        return decision

    def report(
        self,
        agent: str,
        status: str = "success",
        changeset: ChangesetFacts | None = None,
        **event: Any,
    ) -> Decision:
        result = AgentResult(status=AgentStatus(status), confidence=0.95, summary="done")
        made = events.report(
            1,
            agent=agent,
            result=result,
            error=None,
            now=self.now,
            run_id=f"run-{next(self.ids)}",
            state=self.record.state,
        )
        made = made.model_copy(update={"issue": self.issue(), **event})
        return self.decide(made, Facts(changeset=changeset))

    def approve(self, by: str = "maria") -> Decision:
        number = 100 + next(self.ids)
        return self.decide(
            commented(
                id=f"comment:{number}",
                issue=self.issue(),
                actor=Actor(login=by),
                at=self.now,
                comment_id=number,
                comments_upto=number,
                comments_seen=number,
                body="approved",
                run_id=f"run-{number}",
                approval_words=("approved",),
            ),
            Facts(permissions={by: "maintain"}, teams={by: ()}),
        )

    def committed(self, agent: str, oid: str, evidence: Evidence | None = None) -> Decision:
        """A changeset on the branch head: committed first, then decided with the commit."""
        head = self.record.work.head if self.record.work and self.record.work.head else "a" * 40
        digest = "sha256:" + oid[0] * 64
        facts = ChangesetFacts(status="ok", digest=digest, base=head, head=head, files=1)
        extra = (
            {"evidence": evidence.model_copy(update={"commit": head, "changeset": digest})}
            if evidence
            else {}
        )
        first = self.report(agent, changeset=facts, **extra)
        assert first.commit is not None, first.reason
        done = facts.model_copy(update={"status": "committed", "oid": oid})
        return self.report(agent, changeset=done, **extra)


def test_test_first_walks_from_a_red_proof_through_its_sign_off_to_green() -> None:
    walk = Walk()
    assert walk.report("pm").state == "writing_tests"
    red = Evidence(
        verdict="red",
        reason="1 new or changed failed",
        commit="a" * 40,
        exit_status=1,
        tests=(
            TestCase(id=OLD, outcome="passed"),
            TestCase(id=NEW, outcome="failed", message="no attribute 'export'"),
        ),
        new=(NEW,),
        files=FILES,
    )
    proved = walk.committed("tester", "b" * 40, red)
    assert (proved.state, proved.check and proved.check.conclusion) == ("tests_review", "neutral")
    assert "The red proof to sign off" in (proved.message or "")

    signed = walk.approve()
    assert signed.state == "implementing"
    assert walk.record.tests is not None and walk.record.tests.signed is not None
    assert walk.record.tests.signed.by == "maria"

    assert walk.committed("developer", "c" * 40).state == "proving"
    green = Evidence(
        verdict="green",
        reason="2 passed",
        commit="c" * 40,
        exit_status=0,
        tests=(TestCase(id=OLD, outcome="passed"), TestCase(id=NEW, outcome="passed")),
        files=FILES,
    )
    passed = walk.report("tester", "failure", evidence=green)  # the evidence, not the word
    assert (passed.state, passed.check and passed.check.conclusion) == ("creating_pr", "success")
    assert walk.report("pm").state == "awaiting_approval"
    assert walk.approve().state == "completed"
    assert walk.record.tests is not None
    assert walk.record.tests.counts == ProofCounts(red=1, green=1)
    assert all(d.outcome is not Outcome.refused for d in walk.decisions)
