"""Who acts on an issue, as one run looks it up (`decide` asks, `issue/fulfil.py` answers): each
login's permission at most once, however often the run decides.

A run decides again after a missed comment turned out not to matter, and after another run
changed the record first; the in-memory GitHub counts the `permission` calls (`calls`), and a
second lookup of the same login in one run is a wasted round trip.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton import webhooks
from baton.core.model.decision import Outcome
from baton.core.model.events import Commented, LaterCommit, Lineage, Reviewed, commented
from baton.core.model.facts import NO_FACTS, Asks, Facts
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import Record
from baton.core.rules.asking import asks_of
from baton.core.rules.needs import needs_permission
from baton.issue.fulfil import Asked, fulfil
from baton.run import handle
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings
from support.memory import ISSUE, close, configured, enter_at, reopen, report

GATE = "waiting_for_human_input"
T = datetime(2026, 3, 2, tzinfo=UTC)


def approval_by(gh: SimGitHub, settings: Settings, login: str) -> Commented:
    """`login` comments "approved" on issue #1; the event its run would handle."""
    posted = gh.human_comment(ISSUE, "approved", author=login)
    payload = payloads.comment_created(gh, posted.id)
    event = webhooks.parse("issue_comment", payload, settings.policy, now=gh.now, run_id="41")
    assert isinstance(event, Commented)
    return event


def test_a_caught_up_comment_and_the_event_itself_look_their_author_up_once(gh, settings):
    enter_at(gh, settings, GATE)
    # bob's earlier reply, whose own run never came: the run catches it up first, finds it
    # does not matter, and decides bob's approval itself.
    gh.human_comment(ISSUE, "hello?", author="bob", association="COLLABORATOR")
    event = approval_by(gh, settings, "bob")
    before = gh.calls["permission"]

    result = handle(event, gh, settings)

    assert result.decision.outcome is Outcome.refused
    assert gh.calls["permission"] - before == 1


def test_deciding_again_after_a_concurrent_run_looks_nobody_up_again(gh, settings):
    enter_at(gh, settings, GATE)
    event = approval_by(gh, settings, "wendy")
    lookups: list[int] = []

    def concurrent_run(operation: str) -> None:
        # Just before wendy's run writes, a stale report's run rewrites the record.
        if operation == "comment" and not lookups:
            lookups.append(gh.calls["permission"])
            report(gh, settings, "pm")

    gh.on_call = concurrent_run
    before = gh.calls["permission"]
    result = handle(event, gh, settings)
    gh.on_call = None

    assert lookups, "the concurrent run happened"
    assert any("decided again" in note for note in result.notes)
    assert result.decision.state == "human_input_received"
    assert gh.calls["permission"] - before == 1


def test_a_reopen_the_config_allows_anyway_looks_nobody_up(gh):
    settings = configured(reopeners="author-or-maintainers")
    enter_at(gh, settings, "implementing")
    close(gh, settings, "alice")
    before = gh.calls["permission"]

    reopen(gh, settings, "alice")
    close(gh, settings, "bob")

    assert gh.calls["permission"] == before, "neither the author's reopen nor a close turns on it"


def approved_on_top(
    reviewer: str, *authors: Actor | None, total: int | None = None
) -> tuple[Reviewed, Lineage]:
    """`reviewer` approves the last of the commits by `authors` on top of Baton's last; and the
    commits as the run read them."""
    commits = tuple(LaterCommit(oid=f"{i:040x}", author=a) for i, a in enumerate(authors, 1))
    event = Reviewed(
        id="review:9",
        issue=IssueInfo(number=ISSUE),
        actor=Actor(login=reviewer),
        at=datetime(2026, 3, 2, tzinfo=UTC),
        pull_request=7,
        review_id=9,
        verdict="approved",
        commit=commits[-1].oid,
    )
    total = len(commits) if total is None else total
    return event, Lineage(base="c" * 40, commits=commits, total=total)


def human(login: str) -> Actor:
    return Actor(login=login)


@pytest.mark.parametrize(
    ("reviewer", "authors", "total", "looked_up", "permissions"),
    [
        pytest.param(
            "maria",
            [human("wendy"), human("maria"), human("wendy")],
            None,
            ["maria", "wendy"],
            ["write", "maintain", "write"],
            id="each author once, the reviewer's own lookup shared",
        ),
        pytest.param(
            "maria",
            [human("bob"), human("wendy")],
            None,
            ["maria", "bob"],
            ["read", None],
            id="none past the first commit that is not a writer's",
        ),
        pytest.param(
            "maria",
            [Actor(login="renovate[bot]", is_bot=True), None, human("wendy")],
            None,
            ["maria"],
            [None, None, None],
            id="a bot's commit stops it unasked",
        ),
        pytest.param(
            "bob", [human("wendy")], None, ["bob"], [None], id="a non-approver's approval: none"
        ),
        pytest.param(
            "maria",
            [human("wendy")],
            300,
            ["maria"],
            [None],
            id="more commits than were read: none",
        ),
    ],
)
def test_the_authors_after_batons_last_are_looked_up_only_as_far_as_the_rule_reads(
    gh, settings, reviewer, authors, total, looked_up, permissions
):
    asked: list[str] = []
    permission = gh.permission

    def counted(login: str) -> str:
        asked.append(login)
        return permission(login)

    gh.permission = counted  # type: ignore[method-assign]
    event, lineage = approved_on_top(reviewer, *authors, total=total)

    facts = Facts(lineage=lineage)
    for _ in range(10):  # the run's loop: decide asks, the fulfilment answers
        asks = asks_of(None, event, settings.workflow, settings.policy, facts)
        if asks is None:
            break
        facts = fulfil(asks, facts, Asked(None, event.issue, event.at), gh, settings, [])

    found = facts.lineage_of("c" * 40)
    assert found is not None
    assert asked == looked_up
    known = [facts.permission_of(c.author.login) if c.author else None for c in found.commits]
    assert known == permissions


def _reply(login: str, body: str = "Use commas.") -> Commented:
    return commented(
        id="comment:50",
        issue=IssueInfo(number=ISSUE, author="alice"),
        actor=Actor(login=login),
        at=datetime(2026, 3, 2, tzinfo=UTC),
        comment_id=50,
        body=body,
        approval_words=("approved",),
    )


@pytest.mark.parametrize(
    ("login", "state", "answerers", "looked_up"),
    [
        pytest.param("bob", "waiting_for_requirements_clarification", None, True, id="a passer-by"),
        pytest.param(
            "alice", "waiting_for_requirements_clarification", None, False, id="the author"
        ),
        pytest.param(
            "bob", "waiting_for_requirements_clarification", "anyone", False, id="anyone answers"
        ),
        pytest.param(
            "alice",
            "waiting_for_requirements_clarification",
            "approvers",
            True,
            id="the author, when only approvers answer",
        ),
        pytest.param("bob", "implementing", None, False, id="while an agent works"),
    ],
)
def test_a_reply_in_a_waiting_state_looks_up_only_one_the_config_does_not_let_answer(
    login: str, state: str, answerers: str | None, looked_up: bool
) -> None:
    settings = configured(answerers=answerers) if answerers else configured()
    record = Record(workflow=settings.workflow.name, issue=ISSUE, state=state, entered_at=T)
    asked = needs_permission(_reply(login), record, settings.workflow, settings.policy)
    assert asked is looked_up
    known = Facts(permissions={login: "read"}, teams={login: ()})
    assert not needs_permission(_reply(login), record, settings.workflow, settings.policy, known)


def test_the_repository_owner_counts_as_admin_without_a_call(gh, settings):
    before = gh.calls["permission"]
    asked = Asked(None, IssueInfo(number=ISSUE), T)

    owner = Actor(login="olga", association="OWNER")
    member = Actor(login="maria", association="MEMBER")
    facts = fulfil(Asks(actor=owner), NO_FACTS, asked, gh, settings, [])
    facts = fulfil(Asks(actor=member), facts, asked, gh, settings, [])

    assert facts.permission_of("olga") == "admin"
    assert facts.permission_of("maria") == "maintain"
    assert gh.calls["permission"] - before == 1, "only the member is asked for"
