"""Pins the format of `issue/record_comment.py`, which a mutation sample found unpinned (issue
18, item 5): a fixed Record renders to this exact comment body, byte for byte, and signs to
this exact signature. Records live on issues for months: a Baton after an upgrade must read
the ones it wrote before, and a change of format has to be a decision, not an accident."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.record import Dispatch, HistoryEntry, LastReport, Record
from baton.issue import record_comment

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
WRITTEN = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
SECRET = "s3cret-for-tests"
REPOSITORY = "octo/demo"

JSON = (
    '{"approval":null,"attempt":2,"budget_from":1,"compacted":{"entries":0,"forced":0,'
    '"since":null},"dispatch":{"agent":"developer","at":"2026-01-05T09:00:00Z",'
    '"attempt":2,"by":"comment:41","run":"1234","state":"implementing"},'
    '"entered_after_comment":0,"entered_at":"2026-01-05T09:00:00Z","epic":null,'
    '"escalated_from":null,"failing_since":null,'
    '"feedback":["tests fail: \\u003c!-- baton:record --\\u003e \\u0026 more"],"held":false,'
    '"history":[{"actor":"maria","at":"2026-01-05T09:00:00Z","forced":false,"from":null,'
    '"iteration":1,"reason":"labelled baton by maria","to":"planning_approach",'
    '"trigger":"entry"},{"actor":"pm","at":"2026-01-05T09:00:00Z","forced":false,'
    '"from":"planning_approach","iteration":2,'
    '"reason":"the plan \\u003cis\\u003e ready \\u0026 | approved","to":"implementing",'
    '"trigger":"report"}],"issue":7,"iteration":2,"last_comment_id":41,'
    '"last_report":{"agent":"developer","at":"2026-01-05T09:00:00Z","confidence":0.4,'
    '"state":"implementing","status":"failure",'
    '"summary":"The CSV export \\u003cb\\u003efails\\u003c/b\\u003e"},"open_questions":[],'
    '"outbox":null,"pending_input":[],"processed":["comment:41"],"revision":5,'
    '"schema_version":4,"spend":{"minutes":0.0,"money":0.0,"runs":0,"tokens":0},'
    '"state":"implementing","task":null,"visits":{"implementing":1,'
    '"planning_approach":1},"work":null,"workflow":"issue-lifecycle",'
    '"written_at":"2026-01-05T09:30:00Z"}'
)
READABLE = (
    "### 🤖 Baton · `implementing`\n"
    "\n"
    "This issue is in `implementing`; agent **developer** holds the baton. "
    "Iteration 2, attempt 2.\n"
    "\n"
    "**Last report** from developer in `implementing`: failure, confidence 0.40\n"
    "\n"
    "> The CSV export &lt;b&gt;fails&lt;/b&gt;\n"
    "\n"
    "| when (UTC) | from | to | why | by |\n"
    "|---|---|---|---|---|\n"
    "| 2026-01-05 09:00 | planning_approach | implementing "
    "| the plan &lt;is&gt; ready &amp; \\| approved | pm |\n"
    "| 2026-01-05 09:00 | — | planning_approach | labelled baton by maria | maria |\n"
    "\n"
    "<sub>Maintained by Baton; edits to this comment are overwritten.</sub>"
)
BODY = "<!-- baton:record\n" + JSON + "\n-->\n" + READABLE
KEY = "f3cd2bf093131eecd20a43d779df7a550429d11643de13cecf7d908750e91fd9"
SIGNATURE = '"sig":"v2:fe67703374425313c17202a47afedab43cee01e3e9bb7a90ce72048c60aee782"'


def fixed() -> Record:
    """A record in the middle of its life, with text that must be escaped in both parts."""
    return Record(
        workflow="issue-lifecycle",
        issue=7,
        state="implementing",
        entered_at=T0,
        iteration=2,
        attempt=2,
        budget_from=1,
        visits={"planning_approach": 1, "implementing": 1},
        history=[
            HistoryEntry(
                at=T0,
                from_state=None,
                to_state="planning_approach",
                reason="labelled baton by maria",
                actor="maria",
                trigger="entry",
                iteration=1,
            ),
            HistoryEntry(
                at=T0,
                from_state="planning_approach",
                to_state="implementing",
                reason="the plan <is> ready & | approved",
                actor="pm",
                trigger="report",
                iteration=2,
            ),
        ],
        feedback=["tests fail: <!-- baton:record --> & more"],
        dispatch=Dispatch(
            agent="developer", state="implementing", attempt=2, at=T0, by="comment:41", run="1234"
        ),
        last_report=LastReport(
            agent="developer",
            state="implementing",
            status="failure",
            confidence=0.4,
            summary="The CSV export <b>fails</b>",
            at=T0,
        ),
        processed=["comment:41"],
        last_comment_id=41,
        revision=5,
    )


def test_a_fixed_record_renders_to_this_exact_body() -> None:
    assert record_comment.render(fixed(), agent="developer", written_at=WRITTEN) == BODY


def test_this_exact_body_parses_back_to_the_record() -> None:
    assert record_comment.parse(BODY) == fixed().model_copy(update={"written_at": WRITTEN})


def test_a_fixed_record_signs_to_this_exact_signature_under_its_repositorys_key() -> None:
    key = record_comment.record_key(SECRET, REPOSITORY)
    assert key == KEY
    assert record_comment.record_key(SECRET, "Octo/Demo") == KEY, "GitHub's names ignore case"
    body = record_comment.render(fixed(), agent="developer", secret=key, written_at=WRITTEN)
    hidden = JSON.replace(',"spend":', "," + SIGNATURE + ',"spend":')
    assert body == "<!-- baton:record\n" + hidden + "\n-->\n" + READABLE
    assert record_comment.parse(body, key) == fixed().model_copy(update={"written_at": WRITTEN})
