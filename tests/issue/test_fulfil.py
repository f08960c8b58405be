"""The one fulfilment step (`issue/fulfil.py`): each ask answered with the Tracker, each read
made once, the answers handed back as facts; a login looked up once per run, the OWNER counted
as admin without a call."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from baton.core.model.epic import (
    EpicState,
    PlannedTask,
    TaskLink,
    TaskObservation,
    TaskOrder,
    TaskStatus,
)
from baton.core.model.events import CheckNote, LaterCommit, Lineage, ReviewNote
from baton.core.model.facts import NO_FACTS, Asks, Facts, FailingAsk
from baton.core.model.issue_facts import Actor, Comment, IssueInfo
from baton.core.model.record import Record
from baton.github.lookups import look_up
from baton.github.role_data import Snapshot, SubIssue
from baton.github.tracker import LookedUp, Lookup
from baton.issue.fulfil import Asked, fulfil
from baton.issue.record_comment import render
from baton.workflow.config import Config, Who, settings_from

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOTE = ReviewNote(path="src/a.py", line=3, body="rename this")
FAILING = CheckNote(name="tests", summary="1 failed")
ASKED = Asked(record=None, issue=IssueInfo(number=1), now=NOW)
SETTINGS = settings_from(Config())
TEAMS = settings_from(
    Config.model_validate({"approvers": {"teams": ["acme/reviewers"]}})  # type: ignore[arg-type]
)
PERMISSIONS = {"maria": "maintain", "wendy": "write", "bob": "read"}


@dataclass
class Calls:
    """The reads asked of GitHub, in order, with fixed answers."""

    made: list[tuple[str, Any]] = field(default_factory=list)
    lookups: list[Lookup] = field(default_factory=list)

    def look_up(self, lookup: Lookup) -> LookedUp:
        self.lookups.append(lookup)
        return look_up(self, lookup)  # type: ignore[arg-type]  # no epic's reads here

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        self.made.append(("review_notes", (pull_request, review_id)))
        return [NOTE]

    def failing_checks(self, head: str) -> list[CheckNote]:
        self.made.append(("failing_checks", head))
        return [FAILING]

    def lineage(self, base: str, commit: str) -> Lineage:
        self.made.append(("lineage", (base, commit)))
        return Lineage(base=base, commits=(LaterCommit(oid=commit),), total=1)

    def permission(self, login: str) -> str:
        self.made.append(("permission", login))
        return PERMISSIONS.get(login, "none")

    def is_team_member(self, team: str, login: str) -> bool:
        self.made.append(("is_team_member", (team, login)))
        return login == "bob"

    def failing_issues(self, label: str, since: datetime, limit: int) -> int:
        self.made.append(("failing_issues", (label, since, limit)))
        return 4


def answer(asks: Asks, facts: Facts = NO_FACTS, settings: Any = SETTINGS) -> tuple[Facts, Calls]:
    calls = Calls()
    notes: list[str] = []
    found = fulfil(asks, facts, ASKED, calls, settings, notes)  # type: ignore[arg-type]
    return found, calls


def test_each_pull_request_read_is_answered_once_in_one_step() -> None:
    asks = Asks(review_notes=(7, 501), failing_checks="c" * 40, lineage=("c" * 40, "d" * 40))

    found, calls = answer(asks)

    assert found.review_notes == [NOTE] and found.failing_checks == [FAILING]
    assert found.lineage == Lineage(base="c" * 40, commits=(LaterCommit(oid="d" * 40),), total=1)
    assert calls.made == [
        ("lineage", ("c" * 40, "d" * 40)),
        ("review_notes", (7, 501)),
        ("failing_checks", "c" * 40),
    ]


def test_the_actor_is_looked_up_with_the_policys_teams_and_kept_for_the_run() -> None:
    found, calls = answer(Asks(actor=Actor(login="bob")), settings=TEAMS)

    assert (found.permissions, found.teams) == ({"bob": "read"}, {"bob": ("acme/reviewers",)})
    assert calls.made == [("permission", "bob"), ("is_team_member", ("acme/reviewers", "bob"))]
    assert found.knows("bob")


def test_the_repository_owner_counts_as_admin_without_a_call() -> None:
    owner, calls = answer(Asks(actor=Actor(login="olga", association="OWNER")))
    member, more = answer(Asks(actor=Actor(login="maria", association="MEMBER")))

    assert owner.permissions == {"olga": "admin"} and calls.made == []
    assert member.permissions == {"maria": "maintain"} and more.made == [("permission", "maria")]


def test_a_login_already_looked_up_is_not_asked_again() -> None:
    known = Facts(permissions={"wendy": "write"})

    found, calls = answer(Asks(authors=("wendy", "bob")), known)

    assert found.permissions == {"wendy": "write", "bob": "read"}
    assert calls.made == [("permission", "bob")]


def test_the_repository_breakers_count_is_read_and_said() -> None:
    ask = FailingAsk(label="api:down", since=NOW, threshold=3)
    calls = Calls()
    notes: list[str] = []

    found = fulfil(Asks(failing_issues=ask), Facts(), ASKED, calls, SETTINGS, notes)  # type: ignore[arg-type]

    assert found.failing_issues == 4
    assert calls.made == [("failing_issues", ("api:down", NOW, 3))]
    assert notes == ["the repository breaker counts 4 failing issue(s) since 09:00"]


def test_an_empty_ask_reads_nothing_and_changes_nothing() -> None:
    facts = Facts(permissions={"a": "read"})
    found, calls = answer(Asks(), facts)
    assert found == facts and calls.made == [] and calls.lookups == []


def test_who_answers_is_the_policys_approvers_and_maintainers_teams() -> None:
    settings = settings_from(
        Config.model_validate(
            {"approvers": {"teams": ["acme/b"]}, "maintainers": {"teams": ["acme/a"]}}
        )
    )
    assert isinstance(settings.policy.approvers, Who)
    _, calls = answer(Asks(actor=Actor(login="wendy")), settings=settings)
    assert [c for c in calls.made if c[0] == "is_team_member"] == [
        ("is_team_member", ("acme/a", "wendy")),
        ("is_team_member", ("acme/b", "wendy")),
    ]


def test_the_pull_requests_reads_the_count_and_the_people_go_to_github_as_one_lookup() -> None:
    ask = FailingAsk(label="api:down", since=NOW, threshold=3)
    asks = Asks(
        actor=Actor(login="bob"),
        authors=("wendy", "bob", "maria"),
        lineage=("c" * 40, "d" * 40),
        review_notes=(7, 501),
        failing_checks="d" * 40,
        failing_issues=ask,
    )

    found, calls = answer(asks, Facts(permissions={"maria": "maintain"}), TEAMS)

    assert calls.lookups == [
        Lookup(
            permissions=("bob", "wendy"),  # each login once; maria's is known
            memberships=(("acme/reviewers", "bob"),),
            lineage=("c" * 40, "d" * 40),
            review_notes=(7, 501),
            failing_checks="d" * 40,
            failing_issues=ask,
        )
    ]
    assert found.permissions == {"maria": "maintain", "bob": "read", "wendy": "write"}
    assert found.teams == {"bob": ("acme/reviewers",)}
    assert (found.failing_issues, found.failing_checks, found.review_notes) == (
        4,
        [FAILING],
        [NOTE],
    )


def test_commit_authors_alone_are_looked_up_without_team_memberships() -> None:
    """No actor asked: the teams are nobody's to look up, whatever the policy names."""
    found, calls = answer(Asks(authors=("wendy",)), settings=TEAMS)
    assert calls.made == [("permission", "wendy")]
    assert found.permissions == {"wendy": "write"} and found.teams == {}


# --- the epic's side: read with the run's record, time and record secret ---------------------
SECRET = "s3cret"
EPIC, TASK = 10, 11
BOT_LOGIN = SETTINGS.policy.bot_login
EPIC_RECORD = Record(
    workflow="feature-epic",
    issue=EPIC,
    state="implementing",
    entered_at=NOW,
    epic=EpicState(
        tasks=[
            PlannedTask(
                key="base", title="Base", number=TASK, status=TaskStatus.in_progress, starts=1
            )
        ],
        branch="baton/epic-10",
    ),
)
TASK_RECORD = Record(
    workflow="epic-task",
    issue=TASK,
    state="in_progress",
    entered_at=NOW,
    task=TaskLink(epic=EPIC, key="base", starts_taken=1, failures=2),
)
ORDER = TaskOrder(
    epic=EPIC,
    key="base",
    epic_state="implementing",
    known=True,
    starts=1,
    base_branch="baton/epic-10",
)


def record_comment(record: Record, secret: str | None) -> Comment:
    """The bot's record comment of `record`, signed with `secret` (None: unsigned)."""
    body = render(record, agent=None, secret=secret, written_at=NOW)
    return Comment(
        id=record.issue * 100,
        author=BOT_LOGIN,
        body=body,
        created_at=NOW,
        author_is_bot=True,
        updated_at=NOW,
    )


@dataclass
class EpicReads(Calls):
    """GitHub holding epic #10 with task #11 in progress, and each one's record comment."""

    comments: dict[int, list[Comment]] = field(default_factory=dict)

    def sub_issues(self, number: int) -> list[SubIssue]:
        self.made.append(("sub_issues", number))
        labels = ("baton:task", "status:in-progress")
        return [SubIssue(number=TASK, node_id="I_11", open=True, labels=labels)]

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        self.made.append(("read_many", numbers))
        return {n: Snapshot(issue=None, comments=self.comments[n]) for n in numbers}

    def read(self, number: int, *, with_issue: bool) -> Snapshot:
        self.made.append(("read", number))
        return Snapshot(issue=None, comments=self.comments[number])


def on_the_epics_side(
    asks: Asks, record: Record, comments: dict[int, list[Comment]], secret: str | None = SECRET
) -> Facts:
    """What `fulfil` answers for the run of `record` (the epic's, or task #11's, whose body has
    no mark), at NOW, with the record secret `secret`."""
    reads = EpicReads(comments=comments)
    asked = Asked(record, IssueInfo(number=TASK, author="alice"), now=NOW, secret=secret)
    return fulfil(asks, NO_FACTS, asked, reads, SETTINGS, [])  # type: ignore[arg-type]


def test_a_tasks_order_is_read_from_the_epic_its_own_record_names() -> None:
    """The task's record names its epic; its body carries no mark (nor is it the bot's issue)."""
    signed = {EPIC: [record_comment(EPIC_RECORD, SECRET)]}

    found = on_the_epics_side(Asks(order=True), TASK_RECORD, signed)

    assert found.order == ORDER and not found.orderless


def test_a_forged_epic_record_gives_no_order_under_the_record_secret() -> None:
    forged = {EPIC: [record_comment(EPIC_RECORD, None)]}  # unsigned, as any bot could post it

    found = on_the_epics_side(Asks(order=True), TASK_RECORD, forged)

    assert found.order is None and found.orderless
    unguarded = on_the_epics_side(Asks(order=True), TASK_RECORD, forged, secret=None)
    assert unguarded.order == ORDER, "without a secret the same record is read"


def test_an_epics_tasks_are_read_with_their_signed_records() -> None:
    signed = {TASK: [record_comment(TASK_RECORD, SECRET)]}

    found = on_the_epics_side(Asks(tasks=True), EPIC_RECORD, signed)

    assert found.tasks == [
        TaskObservation(
            number=TASK,
            open=True,
            status=TaskStatus.in_progress,
            link=TASK_RECORD.task,
            spend=TASK_RECORD.spend,
            attempt=3,  # two failures, and the attempt under way
        )
    ]


def test_a_forged_task_record_is_rebuilt_from_its_label_under_the_record_secret() -> None:
    """Refused, the task's record is rebuilt from its status label at the run's time: no link
    to the epic, no attempts counted from what the forgery claims."""
    forged = {TASK: [record_comment(TASK_RECORD, None)]}

    found = on_the_epics_side(Asks(tasks=True), EPIC_RECORD, forged)

    assert found.tasks == [TaskObservation(number=TASK, open=True, status=TaskStatus.in_progress)]
    unguarded = on_the_epics_side(Asks(tasks=True), EPIC_RECORD, forged, secret=None)
    assert unguarded.tasks is not None and unguarded.tasks[0].link == TASK_RECORD.task
