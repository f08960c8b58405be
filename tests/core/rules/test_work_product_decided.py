"""The work product, decided directly: the branch made on entering a state that changes code,
agents' changesets (committed first, refused, stale), the draft pull request opened at the
first commit, its description kept current and marked ready, and the one move refused for
want of it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import CommitPlan, Outcome, PullRequestPlan
from baton.core.model.facts import Facts
from baton.core.model.record import LastReport, Record
from baton.core.model.work import BranchFacts, CommitMark, Work
from baton.core.rules import work_product
from baton.core.rules.context import Ctx, Draft, Scene
from baton.core.rules.reports import MAX_STALE_RUNS
from baton.core.text.work import pull_request_body
from baton.workflow.config import Policy, WorkSettings
from baton.workflow.model import AgentStatus, load_preset

BRANCH = "baton/issue-1"
BASE = "a" * 40
HEAD = "c" * 40
NEW = "e" * 40  # the oid of the commit a run just made
DIGEST = "sha256:" + "d" * 64
OTHER = "sha256:" + "f" * 64
ESCALATED = "requires_human_intervention"


def result(status: str = "success", confidence: float = 0.85, **fields: Any) -> AgentResult:
    fields.setdefault("summary", "Add the CSV export\nwith a header row")
    return AgentResult(status=AgentStatus(status), confidence=confidence, **fields)


def fresh(build, **changes: Any) -> Work:
    """The branch Baton made, still at the default branch's head: no commit, no PR."""
    return build.work(pull_request=None, commits=[], head="", **changes)


def report(build, state: str, outcome: AgentResult | None = None, **event: Any):
    return build.reported(state, outcome or result(), **event)


# --- the branch ---------------------------------------------------------------------------
def test_a_maintainer_entering_a_state_that_changes_code_makes_the_branch(lifecycle):
    decision = lifecycle.decide(None, lifecycle.labeled("status:implementing", "maria", None))

    assert decision.create_branch == BRANCH
    assert decision.record.work == Work(branch=BRANCH, created=True)


def test_a_report_moving_into_a_state_that_changes_code_makes_the_branch(lifecycle):
    record = lifecycle.record("analyzing_requirements")

    decision = lifecycle.decide(record, report(lifecycle, "analyzing_requirements"))

    assert (decision.state, decision.create_branch) == ("creating_tests", BRANCH)
    assert decision.record.work == Work(branch=BRANCH, created=True)


def test_a_relabel_into_a_state_that_changes_code_makes_the_branch(lifecycle):
    record = lifecycle.record("waiting_for_human_input")

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:fixing-issues", "maria", "waiting_for_human_input")
    )

    assert (decision.state, decision.create_branch) == ("fixing_issues", BRANCH)


def test_a_retry_in_a_state_that_changes_code_makes_the_branch_an_older_record_lacks(lifecycle):
    record = lifecycle.record("implementing")  # written before issues had branches

    decision = lifecycle.decide(record, report(lifecycle, "implementing", result("failure")))

    assert (decision.outcome, decision.create_branch) == (Outcome.retry, BRANCH)


def test_the_branch_is_made_once(lifecycle):
    record = lifecycle.record("creating_tests", work=fresh(lifecycle))

    decision = lifecycle.decide(record, report(lifecycle, "creating_tests"))

    assert decision.state == "implementing"
    assert decision.create_branch is None
    assert decision.record.work == fresh(lifecycle)


def test_a_state_that_changes_no_code_makes_no_branch(lifecycle):
    record = lifecycle.record("received")

    decision = lifecycle.decide(record, report(lifecycle, "received"))

    assert (decision.state, decision.create_branch) == ("analyzing_requirements", None)
    assert decision.record.work is None


def test_the_branch_prefix_comes_from_the_config(lifecycle):
    build = lifecycle.with_policy(work=WorkSettings(branch_prefix="agents/"))

    decision = build.decide(None, build.labeled("status:implementing", "maria", None))

    assert decision.create_branch == "agents/1"


def test_a_known_branch_not_yet_created_keeps_its_fields(lifecycle):
    known = Work(branch="baton/issue-1", problem="kept")
    record = lifecycle.record("analyzing_requirements", work=known)

    decision = lifecycle.decide(record, report(lifecycle, "analyzing_requirements"))

    assert decision.record.work == known.model_copy(update={"created": True})


# --- a valid changeset is committed first -------------------------------------------------
def test_a_valid_changeset_is_committed_before_the_report_is_decided(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("ok")))

    assert decision.work_first
    assert decision.commit == CommitPlan(
        branch=BRANCH,
        digest=DIGEST,
        expected_head=BASE,
        headline="developer: Add the CSV export (#1)",
        body=f"Agent developer in implementing, attempt 1.\n\nRefs: #1\nBaton-Changeset: {DIGEST}",
    )
    assert decision.record is None and decision.message is None and decision.agent is None
    assert decision.state == "implementing"


def test_a_changeset_from_a_state_that_changes_no_code_is_not_committed(lifecycle):
    record = lifecycle.record("running_tests")
    event = report(lifecycle, "running_tests")

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("ok")))

    assert decision.commit is None and not decision.work_first
    assert decision.state == "implementing"
    assert decision.reason.endswith(
        "; the changeset was not committed: running_tests does not change code"
    )


def test_the_commit_is_recorded_and_the_first_one_opens_the_draft_pull_request(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("committed")))

    assert (decision.outcome, decision.state) == (Outcome.transition, "creating_pr")
    work = decision.record.work
    assert work.head == NEW
    assert work.commits == [
        CommitMark(
            digest=DIGEST,
            oid=NEW,
            agent="developer",
            state="implementing",
            attempt=1,
            files=2,
            at=event.at,
            summary="Add the CSV export",
        )
    ]
    assert decision.open_pull_request == PullRequestPlan(
        branch=BRANCH, title="Export as CSV (#1)", body=pull_request_body(1, work)
    )
    assert decision.work_first


def test_a_commit_already_recorded_is_not_recorded_twice(lifecycle):
    work = lifecycle.work(commits=[lifecycle.mark(NEW)], head=NEW)
    record = lifecycle.record("fixing_issues", work=work)
    event = report(lifecycle, "fixing_issues")

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("committed")))

    assert decision.record.work.commits == work.commits


def test_no_pull_request_is_opened_when_the_config_says_so(lifecycle):
    build = lifecycle.with_policy(work=WorkSettings(pull_request=False))
    record = build.record("implementing", work=fresh(build))
    event = report(build, "implementing", result(confidence=0.5))

    decision = build.decide(record, event, Facts(changeset=build.changeset("committed")))

    assert decision.state == "fixing_issues"
    assert decision.open_pull_request is None and not decision.work_first


def test_the_opened_pull_request_is_recorded_and_its_ready_state_marks_it_ready(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(
        lifecycle,
        "implementing",
    )

    decision = lifecycle.decide(
        record, event, Facts(opened=lifecycle.opened(), changeset=lifecycle.changeset("committed"))
    )

    assert decision.state == "creating_pr" and not decision.work_first
    work = decision.record.work
    assert (work.pull_request, work.pull_request_id, work.ready) == (7, "PR_kwDOfake7", True)
    assert decision.update_pull_request == PullRequestPlan(
        branch=BRANCH,
        title="Export as CSV (#1)",
        body=pull_request_body(1, work),
        node_id="PR_kwDOfake7",
        number=7,
        ready=True,
    )


def test_a_new_commit_refreshes_the_open_pull_requests_description(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work())
    outcome = result(confidence=0.5, summary="Fix the header @octocat #2")
    event = report(
        lifecycle,
        "fixing_issues",
        outcome,
    )

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("committed", digest=OTHER))
    )

    assert decision.state == "running_tests"
    assert decision.open_pull_request is None
    plan = decision.update_pull_request
    assert plan is not None and (plan.node_id, plan.ready) == ("PR_kwDOfake7", False)
    assert plan.body.splitlines()[6:8] == [
        "- `developer` in `implementing`: Add the CSV export (`ccccccc`)",
        "- `developer` in `fixing_issues`: Fix the header @\u200boctocat #\u200b2 (`eeeeeee`)",
    ]


def test_github_refusing_the_pull_request_is_said_once_and_the_work_goes_on(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    problem = "Resource not accessible by integration (403)"
    event = report(
        lifecycle,
        "implementing",
        result(confidence=0.5),
    )

    decision = lifecycle.decide(
        record,
        event,
        Facts(opened=lifecycle.opened(None, problem), changeset=lifecycle.changeset("committed")),
    )

    assert (decision.outcome, decision.state) == (Outcome.transition, "fixing_issues")
    assert decision.record.work.problem == problem
    assert decision.record.work.pull_request is None
    assert decision.message == (
        "### ⚠️ The pull request could not be opened\n"
        "\n"
        "GitHub refused to open a draft pull request from `baton/issue-1`: Resource not "
        "accessible by integration (403)\n"
        "\n"
        "To fix it, turn on **Allow GitHub Actions to create and approve pull requests** (the "
        "repository's Settings → Actions → General → Workflow permissions; in an organisation, "
        "its own Settings → Actions → General first), or give Baton a token that may open pull "
        "requests (the action's `github-token` input, e.g. a GitHub App token).\n"
        "\n"
        "The commits are on the branch and the work goes on; the pull request is tried again at "
        "the next commit. If the work reaches the pull-request state with none open, the issue "
        "goes to a human (`requires_human_intervention`) until this is fixed and someone answers "
        "`/retry`.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )
    again = record.model_copy(update={"work": decision.record.work, "state": "fixing_issues"})
    repeat = lifecycle.decide(
        again,
        report(
            lifecycle,
            "fixing_issues",
            result(confidence=0.5),
        ),
        Facts(
            opened=lifecycle.opened(None, problem),
            changeset=lifecycle.changeset("committed", digest=OTHER),
        ),
    )
    assert repeat.message is None, "the same problem is not said at every commit"


def test_entering_the_ready_state_when_github_refused_the_pull_request_asks_a_human(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(
        lifecycle,
        "implementing",
    )

    decision = lifecycle.decide(
        record,
        event,
        Facts(
            opened=lifecycle.opened(None, "Resource not accessible by integration (403)"),
            changeset=lifecycle.changeset("committed"),
        ),
    )

    assert (decision.outcome, decision.state) == (Outcome.transition, ESCALATED)
    assert decision.record.escalated_from == "implementing"
    assert decision.record.work.problem == "Resource not accessible by integration (403)"
    assert decision.record.work.commits, "the commit stays recorded"
    assert decision.reason == (
        "escalated: creating_pr needs the issue's pull request, and none is open (Resource not "
        'accessible by integration (403)): turn on "Allow GitHub Actions to create and approve '
        'pull requests" (Settings → Actions → General) or give Baton a token that may open pull '
        "requests, then /retry"
    )
    assert "- `/retry <guidance>` — run `implementing` again" in decision.message


def test_a_report_entering_the_ready_state_with_commits_tries_the_pull_request_again(lifecycle):
    work = lifecycle.work(pull_request=None, problem="403")
    record = lifecycle.record("fixing_issues", work=work)
    event = report(lifecycle, "fixing_issues", result(confidence=0.95))

    decision = lifecycle.decide(record, event)

    assert decision.state == "creating_pr"
    assert decision.open_pull_request is not None and decision.work_first


def test_a_relabel_into_the_ready_state_without_a_pull_request_asks_a_human(lifecycle):
    record = lifecycle.record(
        "fixing_issues", work=lifecycle.work(pull_request=None, problem="403")
    )

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.state == ESCALATED
    assert "none is open (403)" in decision.reason


def test_a_relabel_into_the_ready_state_marks_the_pull_request_ready(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work())

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.state == "creating_pr"
    assert decision.record.work.ready
    assert decision.update_pull_request.ready
    assert decision.update_pull_request.node_id == "PR_kwDOfake7"


def test_without_commits_the_ready_state_needs_no_pull_request(lifecycle):
    record = lifecycle.record("fixing_issues", work=fresh(lifecycle))

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.state == "creating_pr" and decision.update_pull_request is None


# --- refused and stale changesets ---------------------------------------------------------
def test_a_refused_changeset_is_a_failed_attempt_and_says_nothing_was_written(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    problems = [".github/workflows/ci.yml: agents may not change workflows", "4 MB over the limit"]
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("refused", problems=problems))
    )

    assert (decision.outcome, decision.state) == (Outcome.retry, "implementing")
    assert decision.commit is None
    assert decision.record.attempt == 2
    assert decision.record.work == fresh(lifecycle)
    assert decision.record.feedback == [
        "Your changes were refused and nothing was committed: .github/workflows/ci.yml: agents "
        "may not change workflows",
        "Your changes were refused and nothing was committed: 4 MB over the limit",
    ]
    assert decision.reason.startswith(
        "the developer's changes were refused: .github/workflows/ci.yml: agents may not change "
        "workflows (and 1 more); attempt 2 of 3"
    )
    assert decision.message == (
        "### 🛑 The `developer`'s changes were refused\n"
        "\n"
        "Nothing was written to `baton/issue-1`. Why:\n"
        "\n"
        "- .github/workflows/ci.yml: agents may not change workflows\n"
        "- 4 MB over the limit\n"
        "\n"
        "The attempt counts as failed; the agent is told why when it runs again.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_a_refused_changeset_on_the_last_attempt_escalates_and_says_both(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle), attempt=3)
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("refused", problems=["a symlink"]))
    )

    assert decision.state == ESCALATED
    assert decision.message.index("changes were refused") < decision.message.index(
        "A human decision is needed"
    )


def test_a_stale_changeset_runs_the_agent_again_on_the_new_head_without_counting(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle), feedback=["use commas"])
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("stale", head="b" * 40))
    )

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.retry,
        "implementing",
        "developer",
    )
    assert decision.commit is None and decision.message is None
    assert decision.record.attempt == 1 and decision.record.dispatch.attempt == 1
    assert decision.record.work.stale_runs == 1
    assert decision.record.feedback == [
        "Your changes were not committed: baton/issue-1 moved from aaaaaaa to bbbbbbb while you "
        "worked. Do the work again on the new head; this run does not count as a failed attempt.",
        "use commas",
    ]
    assert decision.reason == (
        "stale changeset: baton/issue-1 moved from aaaaaaa to bbbbbbb while the developer "
        "worked; the developer runs again on bbbbbbb (attempt 1, not counted)"
    )


def test_stale_runs_in_a_row_reach_a_human(lifecycle):
    work = fresh(lifecycle, stale_runs=MAX_STALE_RUNS)
    record = lifecycle.record("implementing", work=work)
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("stale", head="b" * 40))
    )

    assert decision.state == ESCALATED
    assert "4 times in a row" in decision.reason


def test_a_report_that_is_not_stale_ends_the_run_of_stale_ones(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle, stale_runs=2))
    event = report(lifecycle, "implementing", result(confidence=0.5))

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("empty")))

    assert decision.state == "fixing_issues"
    assert decision.record.work.stale_runs == 0


def test_checks_that_failed_while_the_agent_worked_go_to_the_next_agent(lifecycle):
    work = lifecycle.work(failing_checks=["check tests failed: 2 failed"])
    record = lifecycle.record("fixing_issues", work=work)
    outcome = result(confidence=0.5, issues_found=["the footer is missing"])

    decision = lifecycle.decide(record, report(lifecycle, "fixing_issues", outcome))

    assert decision.state == "running_tests"
    assert decision.record.feedback == ["the footer is missing", "check tests failed: 2 failed"]
    assert decision.record.work.failing_checks == []


# --- the pull request's description -------------------------------------------------------
def test_the_pull_request_body_closes_the_issue_and_lists_the_work_escaped(lifecycle):
    marks = [
        lifecycle.mark("1" * 40, summary="Add the CSV export"),
        lifecycle.mark(
            "2" * 40,
            digest=OTHER,
            summary="<!-- baton:record --> [x](http://evil) @team fixes #9 ## heading",
        ),
    ]
    body = pull_request_body(12, lifecycle.work(commits=marks))

    assert body == (
        "Closes #12\n"
        "\n"
        "Baton's agents work on issue #12 here: each commit is one agent's changeset, checked "
        "and committed by Baton. The issue shows where the work stands and how to steer it.\n"
        "\n"
        "### The work so far\n"
        "\n"
        "- `developer` in `implementing`: Add the CSV export (`1111111`)\n"
        "- `developer` in `implementing`: &lt;!-- baton:record --&gt; \\[x\\](http:\u200b//evil) "
        "@\u200bteam fixes #\u200b9 ## heading (`2222222`)\n"
        "\n"
        "<sub>Baton maintains this description from the issue's record; an edit here is "
        "replaced at the next commit. Steer the work on the issue.</sub>"
    )


def test_the_pull_request_body_of_no_commit_says_so(lifecycle):
    assert "- nothing yet" in pull_request_body(1, Work(branch=BRANCH))


def test_timing_of_a_commit_mark_is_the_report_time(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(lifecycle, "implementing")
    event = event.model_copy(update={"at": event.at + timedelta(minutes=3)})

    decision = lifecycle.decide(record, event, Facts(changeset=lifecycle.changeset("committed")))

    assert decision.record.work.commits[0].at == event.at


def test_a_commit_made_before_the_issue_moved_away_is_remembered_with_the_stale_report() -> None:
    """The run committed, then found a maintainer had moved the issue: the report is stale,
    but the commit is on the branch and the record keeps it (a re-run finds it there)."""
    from baton.core.model.events import report as _report
    from baton.core.model.work import ChangesetFacts as _Facts
    from baton.core.rules.route import decide as _decide

    record = Record(
        workflow="issue-lifecycle",
        issue=7,
        state="fixing_issues",
        entered_at=datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
        work=Work(branch="baton/issue-7", created=True),
    )
    event = _report(
        7,
        agent="developer",
        result=AgentResult(status=AgentStatus.success, confidence=0.95, summary="done"),
        error=None,
        now=datetime(2026, 1, 5, 9, 30, tzinfo=UTC),
        run_id="run-9",
        state="implementing",
    )
    committed = _Facts(status="committed", digest="sha256:" + "1" * 64, oid="f" * 40)
    decision = _decide(
        record, event, load_preset("issue-lifecycle"), Policy(), Facts(changeset=committed)
    )
    assert decision.outcome.value == "refused" and decision.commit is None
    assert decision.record is not None and decision.record.work is not None
    assert [m.oid for m in decision.record.work.commits] == ["f" * 40]


def test_a_pull_request_already_ready_is_not_marked_ready_again(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work(ready=True))
    event = report(
        lifecycle,
        "fixing_issues",
        result(confidence=0.5),
    )

    plan = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("committed", digest=OTHER))
    ).update_pull_request

    assert plan is not None and plan.ready is False and plan.number == 7


# --- the pull request as a projection of the record: what changes nothing ------------------
def test_a_move_that_changes_nothing_of_the_work_leaves_the_pull_request_alone(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work())

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:implementing", "maria", "fixing_issues")
    )

    assert decision.state == "implementing"
    assert decision.record.work == lifecycle.work()
    assert decision.update_pull_request is None


def test_a_pull_request_known_without_its_node_id_is_not_updated(lifecycle):
    """An older record knows the number but not the node id its update would need."""
    record = lifecycle.record("fixing_issues", work=lifecycle.work(pull_request_id=""))
    event = report(
        lifecycle,
        "fixing_issues",
        result(confidence=0.5),
    )

    decision = lifecycle.decide(
        record, event, Facts(changeset=lifecycle.changeset("committed", digest=OTHER))
    )

    assert decision.state == "running_tests" and len(decision.record.work.commits) == 2
    assert decision.update_pull_request is None


def test_the_ready_state_without_a_pull_request_marks_nothing_ready(lifecycle):
    record = lifecycle.record("fixing_issues", work=fresh(lifecycle))

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.record.work == fresh(lifecycle)


def test_the_ready_state_needs_no_pull_request_when_the_config_opens_none(lifecycle):
    build = lifecycle.with_policy(work=WorkSettings(pull_request=False))
    record = build.record("fixing_issues", work=build.work(pull_request=None))

    decision = build.decide(record, build.labeled("status:creating-pr", "maria", "fixing_issues"))

    assert (decision.outcome, decision.state) == (Outcome.transition, "creating_pr")


def test_the_ready_state_after_the_pull_request_was_merged_needs_no_new_one(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work(closed="merged"))

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert (decision.outcome, decision.state) == (Outcome.transition, "creating_pr")


def test_the_ready_state_after_the_pull_request_was_closed_asks_a_human_and_says_so(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work(closed="closed"))

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.state == ESCALATED
    assert decision.reason == (
        "escalated: creating_pr needs the issue's pull request, and none is open (pull request "
        '#7 was closed without merging): turn on "Allow GitHub Actions to create and approve '
        'pull requests" (Settings → Actions → General) or give Baton a token that may open pull '
        "requests, then /retry"
    )


def test_the_ready_state_when_github_opened_nothing_without_a_reason_says_so(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work(pull_request=None))

    decision = lifecycle.decide(
        record, lifecycle.labeled("status:creating-pr", "maria", "fixing_issues")
    )

    assert decision.state == ESCALATED
    assert decision.reason.startswith(
        "escalated: creating_pr needs the issue's pull request, and none is open (GitHub did "
        "not open it): "
    )


def test_an_escalation_for_want_of_the_pull_request_keeps_the_agent_s_report(lifecycle):
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    event = report(
        lifecycle,
        "implementing",
    )

    decision = lifecycle.decide(
        record,
        event,
        Facts(opened=lifecycle.opened(None, "403"), changeset=lifecycle.changeset("committed")),
    )

    assert decision.state == ESCALATED
    assert decision.record.last_report == LastReport(
        agent="developer",
        state="implementing",
        status="success",
        confidence=0.85,
        summary="Add the CSV export\nwith a header row",
        at=event.at,
    )


# --- whose branch and whose commit it is ----------------------------------------------------------
THEIRS = BranchFacts(name=BRANCH, head="9" * 40, ahead=2)
FOREIGN = (
    "baton/issue-1 already exists with 2 commit(s) Baton did not make (head 9999999), and Baton "
    "never takes over a branch it did not create: delete or rename that branch, then /retry"
)


def test_entering_a_code_state_onto_someone_else_s_branch_holds_it_there_for_a_human(lifecycle):
    """Still one transition in the run: the entry stands, held, with no agent and no branch."""
    event = lifecycle.labeled("status:implementing", "maria", None)

    decision = lifecycle.decide(None, event, Facts(branch=THEIRS))

    assert (decision.state, decision.create_branch, decision.agent) == (
        "implementing",
        None,
        None,
    )
    assert decision.record.held and decision.record.dispatch is None
    assert decision.record.work is None or not decision.record.work.created
    assert decision.record.escalated_from == "implementing"
    assert [(h.from_state, h.to_state) for h in decision.record.history] == [(None, "implementing")]
    assert decision.reason.endswith(f"; held for a human: {FOREIGN}")
    assert "### 🚨 A human decision is needed (`implementing`)" in decision.message
    assert "The issue is held in `implementing`." in decision.message
    assert "delete or rename that branch, then /retry" in decision.message


def test_a_report_moving_onto_someone_else_s_branch_keeps_the_move_and_holds_it(lifecycle):
    record = lifecycle.record("analyzing_requirements")
    event, facts = report(lifecycle, "analyzing_requirements"), Facts(branch=THEIRS)

    decision = lifecycle.decide(record, event, facts)

    assert (decision.state, decision.create_branch, decision.agent) == (
        "creating_tests",
        None,
        None,
    )
    assert decision.record.held and decision.record.escalated_from == "creating_tests"
    assert [(h.from_state, h.to_state) for h in decision.record.history][-1] == (
        "analyzing_requirements",
        "creating_tests",
    )
    assert "A human decision is needed (`creating_tests`)" in decision.message


def test_a_report_whose_commit_would_make_the_branch_commits_nothing_onto_theirs(lifecycle):
    record = lifecycle.record("implementing")  # written before issues had branches
    event = report(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, event, Facts(branch=THEIRS, changeset=lifecycle.changeset("ok", head=""))
    )

    assert (decision.state, decision.commit, decision.create_branch, decision.agent) == (
        "implementing",
        None,
        None,
        None,
    )
    assert decision.record.held
    assert decision.record.has_processed(event.id)
    assert decision.reason.endswith(f"; held for a human: {FOREIGN}")


def test_someone_else_s_branch_changes_nothing_once_the_record_has_baton_s(lifecycle):
    """The facts only refuse a branch Baton is about to make; Baton's own stays Baton's."""
    record = lifecycle.record("creating_tests", work=fresh(lifecycle))
    event, facts = report(lifecycle, "creating_tests"), Facts(branch=THEIRS)

    decision = lifecycle.decide(record, event, facts)

    assert decision.state == "implementing" and not decision.record.held


def test_a_held_record_makes_no_branch_until_the_work_goes_on(lifecycle):
    record = lifecycle.record("analyzing_requirements")
    held = record.model_copy(update={"state": "implementing", "held": True})
    scene = Scene(report(lifecycle, "implementing"), lifecycle.workflow, lifecycle.policy)

    assert work_product.with_branch(scene, held)[1] is None
    assert work_product.with_branch(scene, held.model_copy(update={"held": False}))[1] == BRANCH


def test_a_head_commit_not_taken_as_baton_s_is_said_on_the_issue(lifecycle):
    why = "commit bbbbbbb claims these changes but is not Baton's: its author is mallory, not x"
    record = lifecycle.record("implementing", work=fresh(lifecycle))
    changes = lifecycle.changeset("stale", head="b" * 40, problems=[why + " [@octo](x)"])

    decision = lifecycle.decide(record, report(lifecycle, "implementing"), Facts(changeset=changes))

    assert (decision.outcome, decision.agent) == (Outcome.retry, "developer")
    assert decision.record.work.commits == fresh(lifecycle).commits
    assert decision.message == (
        "### ⚠️ A commit on `baton/issue-1` was not taken as Baton's\n"
        "\n"
        "commit bbbbbbb claims these changes but is not Baton's: its author is mallory, not x "
        "\\[@\u200bocto\\](x)\n"
        "\n"
        "Baton lists only commits it made itself. The agent runs again on the branch as it is "
        "now; if that commit should not be there, remove it from the branch.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_what_the_rule_would_have_said_comes_before_the_refusal_of_their_branch(lifecycle):
    """The draft's own message (questions, a refused changeset) is kept, the refusal after."""
    record = lifecycle.record("analyzing_requirements")
    event, facts = report(lifecycle, "analyzing_requirements"), Facts(branch=THEIRS)
    moved = record.model_copy(update={"state": "implementing"})
    draft = Draft(Outcome.transition, "moved", record=moved, message="### Said first")
    ctx = Ctx(
        event=event,
        workflow=lifecycle.workflow,
        policy=lifecycle.policy,
        record=record,
        facts=facts,
    )

    refused = work_product.refuse_foreign(ctx, draft)

    assert refused.record is not None and refused.record.held
    assert (refused.outcome, refused.record.state) == (Outcome.transition, "implementing")
    assert refused.message is not None
    assert refused.message.startswith("### Said first\n\n### 🚨 A human decision is needed")
    unchanged = work_product.refuse_foreign(replace(ctx, record=moved), replace(draft, record=None))
    assert unchanged.record is not None and unchanged.record.held
    assert unchanged.record.has_processed(event.id)
    untouched = Draft(Outcome.transition, "moved", record=moved)
    assert work_product.refuse_foreign(
        replace(ctx, event=report(lifecycle, "implementing"), facts=Facts()), untouched
    ) is (untouched)
