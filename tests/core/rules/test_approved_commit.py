"""An approval counts for Baton's last commit, or for a commit built on it by users with write
access (`rules/approved_commit.py`), decided through `decide` from the commits a run read
between the two (`Lineage`); and when a run reads them at all (`needs_lineage`)."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.events import LaterCommit, Lineage
from baton.core.model.facts import Asks, Facts
from baton.core.model.issue_facts import Actor
from baton.core.rules.approved_commit import needs_lineage, refusal
from baton.core.text import messages

GATE = "waiting_for_human_input"
HEAD = "c" * 40  # Baton's last commit (conftest's HEAD)
APPROVED = "d" * 40
BETWEEN = "e" * 40
OLDER = "b" * 40


def by(login: str, *, bot: bool = False) -> Actor:
    """A commit's author as GitHub links it; their permission is the cast's (conftest's `CAST`)
    or what a test's facts say: tom and una are nobody the run has looked up yet."""
    return Actor(login=login, is_bot=bot)


def later(*authors: Actor | None) -> tuple[LaterCommit, ...]:
    """Commits on top of Baton's last, the approved one last."""
    oids = [BETWEEN] * (len(authors) - 1) + [APPROVED]
    return tuple(LaterCommit(oid=oid, author=a) for oid, a in zip(oids, authors, strict=True))


WRITER = by("wendy")
REASON = (
    "wendy approved pull request #7 at ddddddd, but {why}: an approval counts only for Baton's "
    "last commit, or a commit built on it by users with write access"
)

COUNTED = [
    pytest.param(HEAD, None, id="Baton's last commit approved"),
    pytest.param(
        APPROVED, Lineage(base=HEAD, commits=later(WRITER), total=1), id="a writer's on top"
    ),
    pytest.param(
        APPROVED,
        Lineage(base=HEAD, commits=later(by("maria"), by("ada")), total=2),
        id="a maintainer's and an admin's on top",
    ),
]


@pytest.mark.parametrize(("commit", "lineage"), COUNTED)
def test_an_approval_of_batons_last_or_of_writers_commits_on_it_counts(lifecycle, commit, lineage):
    record = lifecycle.record(GATE, work=lifecycle.work())
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=commit)

    decision = lifecycle.decide(record, event, Facts(lineage=lineage))

    assert (decision.outcome, decision.state) == (Outcome.transition, "human_input_received")
    assert decision.record.approval is not None


NOT_COUNTED = [
    pytest.param(
        Lineage(base=HEAD, commits=later(by("bob"), WRITER), total=2),
        "eeeeeee on top of Baton's last commit ccccccc is by bob, who has read access",
        "but `eeeeeee`, on top of Baton's last commit `ccccccc`, is by `bob`, who has `read` "
        "access.",
        id="a read user's commit in between",
    ),
    pytest.param(
        Lineage(base=HEAD, commits=later(WRITER, by("bob")), total=2),
        "ddddddd on top of Baton's last commit ccccccc is by bob, who has read access",
        "but `ddddddd`, on top of Baton's last commit `ccccccc`, is by `bob`, who has `read` "
        "access.",
        id="the approved commit itself a read user's",
    ),
    pytest.param(
        Lineage(base=HEAD, commits=later(by("dependabot[bot]", bot=True), WRITER), total=2),
        "eeeeeee on top of Baton's last commit ccccccc is by dependabot[bot], a bot",
        "but `eeeeeee`, on top of Baton's last commit `ccccccc`, is by `dependabot[bot]`, a bot.",
        id="another bot's commit in between",
    ),
    pytest.param(
        Lineage(base=HEAD, commits=later(by("github-actions[bot]", bot=True), WRITER), total=2),
        "eeeeeee on top of Baton's last commit ccccccc is by github-actions[bot], a bot",
        "but `eeeeeee`, on top of Baton's last commit `ccccccc`, is by `github-actions[bot]`, "
        "a bot.",
        id="a commit of Baton's own its record does not hold",
    ),
    pytest.param(
        Lineage(base=HEAD, commits=later(None, WRITER), total=2),
        "eeeeeee on top of Baton's last commit ccccccc has no GitHub account as its author",
        "but `eeeeeee`, on top of Baton's last commit `ccccccc`, has no GitHub account as its "
        "author.",
        id="a commit GitHub links to no account",
    ),
    pytest.param(
        Lineage(base=HEAD, behind=1, commits=later(WRITER), total=1),
        "it does not hold Baton's last commit ccccccc",
        "which does not hold Baton's last commit on the branch, `ccccccc`.",
        id="the approved commit not built on Baton's last",
    ),
    pytest.param(
        Lineage(base=HEAD, behind=2),
        "Baton's last commit is ccccccc",
        "but Baton's last commit on the branch is `ccccccc`.",
        id="an older commit than Baton's last: stale",
    ),
    pytest.param(
        Lineage(base=HEAD, commits=later(*[WRITER] * 100), total=300),
        "Baton reads 100 of the 300 commits on top of ccccccc",
        "but 300 commits are on top of Baton's last commit `ccccccc`, more than the 100 Baton "
        "reads.",
        id="more commits on top than one page",
    ),
]


@pytest.mark.parametrize(("lineage", "why", "said"), NOT_COUNTED)
def test_an_approval_not_built_on_batons_last_by_writers_does_not_count(
    lifecycle, lineage, why, said
):
    record = lifecycle.record(GATE, work=lifecycle.work())
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)

    decision = lifecycle.decide(record, event, Facts(lineage=lineage))

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.reason == REASON.format(why=why)
    assert decision.record.approval is None and decision.agent is None
    assert decision.record.work.last_review == 500, "a re-delivery is not said twice"
    assert decision.message == (
        "### ⚠️ `wendy`'s approval of #7 does not count\n"
        "\n"
        f"It approved `ddddddd`, {said} An approval counts for Baton's last commit, or "
        "for a commit built on it with only commits of users with write access after it "
        "(GitHub's *dismiss stale approvals* drops an approval when commits come after it): "
        "review the latest changes and approve again. If someone else's commit is on top of "
        "Baton's, request changes so that the agent takes it in, or relabel the issue.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_a_hostile_login_in_the_message_is_data():
    lineage = Lineage(base=HEAD, commits=later(by("x`@octo/team #1")), total=1)

    found = lineage.commits[0]

    said = messages.stale_approval(
        "wendy", 7, APPROVED, HEAD, lineage=lineage, blocker=found, access="read"
    )

    assert "is by `x'@octo/team #1`, who has `read` access." in said, "inside a code span"


# --- when a run reads the commits between -----------------------------------------------------
ASKED = [
    pytest.param({}, {}, True, id="an approver's approval of a commit on top at a gate"),
    pytest.param({"commit": HEAD}, {}, False, id="of Baton's last commit: no call"),
    pytest.param({"verdict": "changes_requested"}, {}, False, id="requested changes"),
    pytest.param({"by": "dependabot[bot]"}, {}, False, id="a bot's approval"),
    pytest.param({"commit": "d" * 7}, {}, False, id="a commit it cannot name"),
    pytest.param({"pull_request": 8}, {}, False, id="another pull request"),
    pytest.param({"review_id": 400}, {}, False, id="a review already handled"),
    pytest.param({"review_id": 450}, {}, False, id="the very review last handled"),
    pytest.param({"closed": True}, {}, False, id="a closed issue"),
    pytest.param({"state": "implementing"}, {}, False, id="no gate"),
    pytest.param({}, {"held": True}, False, id="a held issue"),
    pytest.param({}, {"work": {"closed": "merged"}}, False, id="a merged pull request"),
    pytest.param({}, {"work": {"head": ""}}, False, id="no commit of Baton's"),
]


@pytest.mark.parametrize(("review", "recorded", "asked"), ASKED)
def test_the_commits_between_are_read_only_when_the_approval_can_turn_on_them(
    lifecycle, review, recorded, asked
):
    review, recorded = dict(review), dict(recorded)  # the parameters stay as listed
    state = review.pop("state", GATE)
    fields = {"commit": APPROVED, "review_id": 500, **review}
    verdict, who = fields.pop("verdict", "approved"), fields.pop("by", "wendy")
    event = lifecycle.reviewed(verdict, who, state, **fields)
    work = lifecycle.work(**recorded.pop("work", {})).model_copy(update={"last_review": 450})
    record = lifecycle.record(state, work=work, **recorded)

    assert needs_lineage(record, event, lifecycle.workflow) is asked


def test_commits_read_against_an_older_head_are_read_again(lifecycle):
    record = lifecycle.record(GATE, work=lifecycle.work())
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)

    stale = Facts(lineage=Lineage(base=OLDER))
    fresh = Facts(lineage=Lineage(base=HEAD))

    assert needs_lineage(record, event, lifecycle.workflow, stale)
    assert not needs_lineage(record, event, lifecycle.workflow, fresh)


@pytest.mark.parametrize(
    ("lineage", "asks"),
    [
        pytest.param(None, Asks(lineage=(HEAD, APPROVED)), id="nothing read: the commits"),
        pytest.param(
            Lineage(base=OLDER), Asks(lineage=(HEAD, APPROVED)), id="read against an older head"
        ),
        pytest.param(
            Lineage(base=HEAD, commits=later(WRITER, by("tom"), by("una")), total=3),
            Asks(authors=("tom",)),
            id="the first author whose permission is not known",
        ),
        pytest.param(
            Lineage(base=HEAD, commits=later(by("bob"), by("tom")), total=2),
            None,
            id="none past a commit that is not a writer's",
        ),
        pytest.param(
            Lineage(base=HEAD, commits=later(by("tom")), total=2),
            None,
            id="none when not every commit was read",
        ),
    ],
)
def test_an_approval_of_a_commit_on_top_asks_for_what_it_turns_on(lifecycle, lineage, asks):
    record = lifecycle.record(GATE, work=lifecycle.work())
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)

    decision = lifecycle.decide(record, event, Facts(lineage=lineage))

    assert decision.asks == asks
    if asks is not None:
        assert (decision.outcome, decision.record, decision.message) == (
            Outcome.ignored,
            None,
            None,
        )


def test_an_authors_permission_looked_up_is_what_the_approval_turns_on(lifecycle):
    record = lifecycle.record(GATE, work=lifecycle.work())
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)
    lineage = Lineage(base=HEAD, commits=later(by("tom"), by("bob")), total=2)

    read = lifecycle.decide(record, event, Facts(lineage=lineage, permissions={"tom": "read"}))
    wrote = lifecycle.decide(
        record, event, Facts(lineage=lineage, permissions={"tom": "write", "bob": "admin"})
    )

    assert read.reason == REASON.format(
        why="eeeeeee on top of Baton's last commit ccccccc is by tom, who has read access"
    )
    assert wrote.state == "human_input_received"


def test_no_record_or_no_work_reads_no_commits(lifecycle):
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)

    assert not needs_lineage(None, event, lifecycle.workflow)
    assert not needs_lineage(lifecycle.record(GATE), event, lifecycle.workflow)


def test_an_author_whose_permission_was_not_looked_up_counts_as_having_none(lifecycle):
    """`refusal` read alone, with facts that never looked tom up: the same as no access."""
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)
    lineage = Lineage(base=HEAD, commits=later(by("tom")), total=1)

    refused = refusal(event, HEAD, Facts(lineage=lineage))

    assert refused is not None
    reason, said = refused
    assert reason == REASON.format(
        why="ddddddd on top of Baton's last commit ccccccc is by tom, who has no access"
    )
    assert "is by `tom`, who has `no` access." in said


def test_a_commit_on_top_without_an_id_it_can_name_is_a_commit(lifecycle):
    event = lifecycle.reviewed("approved", "wendy", GATE, commit=APPROVED)
    lineage = Lineage(base=HEAD, commits=(LaterCommit(oid="?", author=by("bob")),), total=1)

    refused = refusal(event, HEAD, Facts(lineage=lineage, permissions={"bob": "read"}))

    assert refused is not None
    assert refused[0] == REASON.format(
        why="a commit on top of Baton's last commit ccccccc is by bob, who has read access"
    )


def test_an_approval_of_no_commit_it_can_name_says_batons_last_whatever_was_read(lifecycle):
    event = lifecycle.reviewed("approved", "wendy", GATE, commit="d" * 7)
    lineage = Lineage(base=HEAD, behind=1, commits=later(WRITER), total=1)

    refused = refusal(event, HEAD, Facts(lineage=lineage, permissions={"wendy": "write"}))

    assert refused is not None
    assert "but Baton's last commit on the branch is `ccccccc`." in refused[1]
    assert "does not hold" not in refused[1]
