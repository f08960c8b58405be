"""The one fulfilment step (`issue/fulfil.py`): each ask answered with the Tracker, each read
made once, the answers handed back as facts; a login looked up once per run, the OWNER counted
as admin without a call."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from baton.core.model.events import CheckNote, LaterCommit, Lineage, ReviewNote
from baton.core.model.facts import NO_FACTS, Asks, Facts, FailingAsk
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.github.lookups import look_up
from baton.github.tracker import LookedUp, Lookup
from baton.issue.fulfil import Asked, fulfil
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
