"""The record comment: its codec (render/parse, compaction, signature) and how a run finds and
trusts it among an issue's comments (`issue.load.load`), rebuilding from labels when it must."""

from __future__ import annotations

import hmac
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from baton.core.model.issue_facts import Comment
from baton.core.model.record import (
    KEEP_FEEDBACK,
    KEEP_PROCESSED,
    Approval,
    Compacted,
    Dispatch,
    HistoryEntry,
    HumanInput,
    LastReport,
    Record,
)
from baton.errors import RecordCorrupt
from baton.issue import record_comment
from baton.issue.load import Loaded, load, read_record
from baton.issue.record_comment import GITHUB_BODY_LIMIT, MIN_HISTORY, RECORD_CLOSE, RECORD_OPEN
from baton.workflow.config import Policy
from baton.workflow.model import load_preset

WORKFLOW = load_preset("issue-lifecycle")
POLICY = Policy()
BOT = POLICY.bot_login
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=3)
ISSUE = 7
SECRET = "s3cret-for-tests"

# A lifecycle walk along table edges, used to build long histories.
WALK = [
    ("received", "analyzing_requirements"),
    ("analyzing_requirements", "creating_tests"),
    ("creating_tests", "implementing"),
    ("implementing", "running_tests"),
    ("running_tests", "fixing_issues"),
    ("fixing_issues", "running_tests"),
    ("running_tests", "implementing"),
    ("implementing", "fixing_issues"),
]


def entry(
    n: int, source: str | None, target: str, reason: str = "", *, forced: bool = False
) -> HistoryEntry:
    return HistoryEntry(
        at=T0 + timedelta(minutes=5 * n),
        from_state=source,
        to_state=target,
        reason=reason or f"{source} → {target}: the tests are ready (success, confidence 0.90)",
        actor="developer",
        trigger="report",
        forced=forced,
        iteration=n,
    )


def history(transitions: int) -> list[HistoryEntry]:
    """`transitions` entries: the entry into the workflow, then a walk along table edges."""
    entries = [entry(0, None, "received", "entered the workflow: trigger label by maria")]
    for n in range(1, transitions):
        source, target = WALK[(n - 1) % len(WALK)]
        entries.append(entry(n, source, target, forced=n % 10 == 0))
    return entries[:transitions]


def typical(text: str = "Export the CSV with commas", **changes: object) -> Record:
    """A record mid-lifecycle with `text` in every field that holds user text."""
    entries = [
        entry(0, None, "received", f"entered the workflow: {text}"),
        entry(1, "received", "analyzing_requirements", text),
        entry(2, "analyzing_requirements", "requirements_unclear", text),
        entry(3, "requirements_unclear", "waiting_for_requirements_clarification", text),
        entry(4, "waiting_for_requirements_clarification", "requirements_clarified", text),
        entry(5, "requirements_clarified", "creating_tests", text),
        entry(6, "creating_tests", "implementing", text),
    ]
    base = Record(
        workflow=WORKFLOW.name,
        issue=ISSUE,
        state="implementing",
        entered_at=T0 + timedelta(minutes=30),
        iteration=6,
        attempt=2,
        visits={"received": 1, "implementing": 1, "creating_tests": 1},
        history=entries,
        pending_input=[
            HumanInput(author="alice", excerpt=text, comment_id=1011, state="x", at=T0),
            HumanInput(author="bob", excerpt=text, comment_id=None, state="y", at=T0),
        ],
        feedback=[text, f"second: {text}"],
        open_questions=[text, "Which columns?"],
        approval=Approval(by="maria", state="waiting_for_human_input", iteration=3, at=T0),
        dispatch=Dispatch(agent="developer", state="implementing", attempt=2, at=T0),
        last_report=LastReport(
            agent="tester",
            state="creating_tests",
            status="success",
            confidence=0.9,
            summary=text,
            at=T0,
        ),
        processed=["labeled:7:baton:2026-01-05T09:00:00Z", "report:41", "comment:1011"],
        last_comment_id=1011,
        revision=6,
    )
    return base.model_copy(update=changes)


def split(body: str) -> tuple[str, str]:
    """(the JSON inside the hidden comment, the readable part below it)."""
    assert body.startswith(RECORD_OPEN + "\n")
    end = body.index("\n" + RECORD_CLOSE)
    return body[len(RECORD_OPEN) + 1 : end], body[end + len(RECORD_CLOSE) + 1 :]


def gfm_cells(row: str) -> list[str]:
    """Split a table row the way GitHub does: a backslash escapes the next character."""
    cells, current, chars = [], "", iter(row)
    for char in chars:
        if char == "\\":
            current += char + next(chars, "")
        elif char == "|":
            cells.append(current)
            current = ""
        else:
            current += char
    return [*cells, current]


LIVE_MENTION = re.compile(r"(?<![\w`])@[A-Za-z0-9]")

HOSTILE = [
    pytest.param("-->", id="a comment closer"),
    pytest.param("--!>", id="the lenient comment closer"),
    pytest.param("<!-- baton:record", id="a forged record marker"),
    pytest.param(
        '-->\n<!-- baton:record\n{"state": "completed"}\n-->',
        id="a whole forged record",
    ),
    pytest.param("</details><details open>", id="html that would unfold the comment"),
    pytest.param("``` `code` ```", id="backticks"),
    pytest.param("a | b | c", id="table pipes"),
    pytest.param("C:\\dir\\|x", id="a backslash before a pipe"),
    pytest.param("one\ntwo\r\nthree\n\n- four", id="newlines"),
    pytest.param("nul\x00bell\x07esc\x1b[31m", id="control characters"),
    pytest.param("\u202eevil\u202c and zero\u200bwidth\ufeff", id="bidi and zero-width unicode"),
    pytest.param("ping @octocat and @github/everyone", id="mentions"),
    pytest.param("::set-output name=x::1", id="a workflow command"),
    pytest.param("&lt;escaped&gt; &amp;", id="html entities"),
    pytest.param("x" * 10_000, id="a 10k-character string"),
    pytest.param(("<!-- @octocat |`\n" * 700)[:10_000], id="a 10k-character hostile mix"),
]


# --- the codec ----------------------------------------------------------------------------------
def test_a_typical_record_round_trips_unchanged() -> None:
    record = typical()

    body = record_comment.render(record, agent="developer")

    assert record_comment.compact(record) == record
    assert record_comment.parse(body) == record


def test_the_readable_part_says_the_state_the_agent_and_the_latest_moves() -> None:
    _, readable = split(record_comment.render(typical(), agent="developer"))

    assert "`implementing`" in readable
    assert "**developer**" in readable
    assert "| creating_tests | implementing |" in readable
    assert readable.index("creating_tests | implementing") < readable.index(
        "received | analyzing_requirements"
    )  # newest first


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_round_trips_and_cannot_escape_the_hidden_record(text: str) -> None:
    record = typical(text)

    body = record_comment.render(record, agent="developer")
    hidden, _ = split(body)

    assert record_comment.parse(body) == record_comment.compact(record)
    assert body.count(RECORD_OPEN) == 1
    assert "<" not in hidden
    assert ">" not in hidden
    assert "-->" not in hidden
    assert "\n" not in hidden


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_the_readable_part_is_inert(text: str) -> None:
    _, readable = split(record_comment.render(typical(text), agent="developer"))

    assert "<!--" not in readable
    assert "-->" not in readable
    assert "--!>" not in readable
    assert "</details>" not in readable
    assert "@octocat" not in readable
    assert LIVE_MENTION.search(readable) is None


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_keeps_every_history_row_to_five_cells(text: str) -> None:
    _, readable = split(record_comment.render(typical(text), agent="developer"))
    rows = [line for line in readable.splitlines() if line.startswith("| 2026-")]

    assert len(rows) == len(typical().history)
    for row in rows:
        assert len(gfm_cells(row)) == 7, row  # five cells between the outer pipes


def test_mentioned_user_text_is_still_shown_but_defused() -> None:
    _, readable = split(record_comment.render(typical("ask @octocat"), agent="developer"))

    assert "@\u200boctocat" in readable


@pytest.mark.parametrize(
    "transitions",
    [
        pytest.param(10, id="ten transitions"),
        pytest.param(100, id="a hundred transitions"),
        pytest.param(1000, id="a thousand transitions"),
    ],
)
def test_a_long_history_renders_small_and_counts_what_it_dropped(transitions: int) -> None:
    entries = history(transitions)
    record = typical(
        history=entries,
        state=entries[-1].to_state,
        iteration=transitions - 1,
        revision=transitions,
    )

    body = record_comment.render(record, agent=WORKFLOW.agent_of(record.state))
    parsed = record_comment.parse(body)

    assert len(body) < 16_000
    assert parsed.state == record.state
    assert parsed.compacted.entries + len(parsed.history) == transitions
    assert parsed.history == entries[-len(parsed.history) :]
    assert len(parsed.history) >= min(transitions, MIN_HISTORY)  # loop detection reads these


def test_compaction_remembers_how_many_forced_moves_it_dropped_and_since_when() -> None:
    entries = history(1000)
    record = typical(history=entries, state=entries[-1].to_state)

    parsed = record_comment.parse(record_comment.render(record, agent=None))
    dropped = entries[: parsed.compacted.entries]

    assert parsed.compacted.entries > 0
    assert parsed.compacted.forced == sum(1 for e in dropped if e.forced)
    assert parsed.compacted.since == entries[0].at


def test_rendering_a_compacted_record_again_changes_nothing() -> None:
    entries = history(1000)
    record = typical(history=entries, state=entries[-1].to_state)

    once = record_comment.render(record, agent="developer")
    twice = record_comment.render(record_comment.parse(once), agent="developer")

    assert twice == once


def test_a_second_compaction_adds_to_the_counts_of_the_first() -> None:
    first = record_comment.parse(
        record_comment.render(typical(history=history(500), state="fixing_issues"), agent=None)
    )
    more = [
        entry(500 + n, "running_tests", "fixing_issues") for n in range(1, 501)
    ]  # 500 more transitions on top of what the first render kept
    second = record_comment.parse(
        record_comment.render(
            first.model_copy(update={"history": first.history + more}), agent=None
        )
    )

    assert second.compacted.entries + len(second.history) == 1000
    assert second.compacted.since == first.compacted.since


HUGE = ("<@octocat> | `x` -->\n" * 6_000)[:100_000]


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(typical(HUGE), id="huge text in every user field"),
        pytest.param(
            typical(
                HUGE,
                last_report=typical().last_report.model_copy(update={"summary": HUGE * 10}),
            ),
            id="a million-character summary",
        ),
        pytest.param(
            typical(
                HUGE,
                feedback=[HUGE] * KEEP_FEEDBACK,
                open_questions=[HUGE] * KEEP_FEEDBACK,
                pending_input=[typical().pending_input[0].model_copy(update={"excerpt": HUGE})]
                * KEEP_FEEDBACK,
                processed=[f"comment:{n}" for n in range(KEEP_PROCESSED)],
                history=[e.model_copy(update={"reason": HUGE}) for e in history(1000)],
            ),
            id="every list full and every text huge",
        ),
    ],
)
def test_a_body_never_exceeds_githubs_limit(record: Record) -> None:
    body = record_comment.render(record, agent="developer")

    assert len(body) <= GITHUB_BODY_LIMIT
    assert record_comment.parse(body).state == record.state


def test_a_signed_record_round_trips_with_its_secret() -> None:
    record = typical()

    body = record_comment.render(record, agent="developer", secret=SECRET)

    assert record_comment.parse(body, SECRET) == record
    assert '"sig":' in split(body)[0]


def test_a_signature_names_its_scheme_and_is_a_hmac_of_the_canonical_payload() -> None:
    body = record_comment.render(typical(), agent="developer", secret=SECRET)
    data = json.loads(split(body)[0])
    signature = data.pop("sig")
    canonical = json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)

    assert signature == "v2:" + hmac.new(SECRET.encode(), canonical.encode(), "sha256").hexdigest()


def test_a_repository_s_record_key_is_pinned_and_bound_to_the_repository() -> None:
    key = record_comment.record_key("s3cret", "octo/demo")

    assert key == hmac.new(b"s3cret", b"baton-record\0octo/demo", "sha256").hexdigest()
    assert key == "620f1e1f3be9e2ec3e42ab740672b7b9d76c3397e2f6391990999acacf66a2c5"
    assert record_comment.record_key("s3cret", "Octo/Demo") == key, "GitHub ignores case"
    assert record_comment.record_key("s3cret", "octo/other") != key
    assert record_comment.record_key("other", "octo/demo") != key


def test_a_record_signed_for_another_repository_does_not_parse_here() -> None:
    here = record_comment.record_key(SECRET, "octo/demo")
    there = record_comment.record_key(SECRET, "octo/other")
    body = record_comment.render(typical(), agent="developer", secret=there)

    with pytest.raises(RecordCorrupt, match="signature does not match"):
        record_comment.parse(body, here)


def test_a_record_signed_with_the_bare_secret_by_an_older_baton_is_refused_saying_so() -> None:
    body = record_comment.render(typical(), agent="developer", secret=SECRET)
    old = body.replace('"sig":"v2:', '"sig":"')  # an older Baton's signature: no scheme

    with pytest.raises(RecordCorrupt) as refused:
        record_comment.parse(old, SECRET)

    assert str(refused.value) == (
        "the record was signed by an older Baton, with a signature not bound to this "
        "repository; it is rebuilt from its label once, and signed anew"
    )
    assert record_comment.parse(old) == typical(), "without the secret it reads as before"


# --- corrupt records ------------------------------------------------------------------------------
def bot(comment_id: int, body: str, *, author: str = BOT) -> Comment:
    return Comment(
        id=comment_id,
        author=author,
        body=body,
        created_at=T0 + timedelta(minutes=comment_id),
        author_is_bot=author.endswith("[bot]"),
    )


def human(comment_id: int, body: str, *, author: str = "mallory") -> Comment:
    return Comment(
        id=comment_id, author=author, body=body, created_at=T0 + timedelta(minutes=comment_id)
    )


def loaded(
    comments: list[Comment],
    labels: tuple[str, ...] = ("status:implementing",),
    *,
    number: int = ISSUE,
    secret: str | None = None,
) -> Loaded:
    return load(number, labels, comments, WORKFLOW, POLICY, now=NOW, secret=secret)


def rendered(record: Record | None = None, secret: str | None = None) -> str:
    return record_comment.render(record or typical(), agent="developer", secret=secret)


def tampered(body: str, **changes: object) -> str:
    """The body with fields of its JSON edited by hand, the signature left as it was."""
    hidden, _ = split(body)
    data = json.loads(hidden)
    data.update(changes)
    return body.replace(hidden, json.dumps(data, separators=(",", ":"), sort_keys=True))


def test_a_bot_record_is_loaded_as_written() -> None:
    result = loaded([human(1, "hello"), bot(2, rendered()), human(3, "approved")])

    assert result.record == typical()
    assert result.comment_id == 2
    assert result.duplicates == ()
    assert result.problem is None
    assert [c.id for c in result.human_comments] == [1, 3]


CORRUPT = [
    pytest.param(
        rendered().replace("\n" + RECORD_CLOSE, ""), "not closed", id="an unclosed marker"
    ),
    pytest.param(f"{RECORD_OPEN}\n{{not json\n{RECORD_CLOSE}", "not valid JSON", id="invalid JSON"),
    pytest.param(f"{RECORD_OPEN}\n[1, 2]\n{RECORD_CLOSE}", "not a JSON object", id="a JSON list"),
    pytest.param(f'{RECORD_OPEN}\n"text"\n{RECORD_CLOSE}', "not a JSON object", id="a JSON string"),
    pytest.param(
        f'{RECORD_OPEN}\n{{"workflow": "issue-lifecycle"}}\n{RECORD_CLOSE}',
        "does not validate",
        id="a record missing its fields",
    ),
    pytest.param(
        tampered(rendered(), iteration="many"), "does not validate", id="a field of the wrong type"
    ),
    pytest.param(rendered(typical(issue=99)), "#99", id="the record of another issue"),
    pytest.param(
        rendered(typical(workflow="task-review")), "'task-review'", id="another workflow's record"
    ),
    pytest.param(
        rendered(typical(state="time_travelling")),
        "time_travelling",
        id="a state the workflow does not have",
    ),
]


@pytest.mark.parametrize(("body", "why"), CORRUPT)
def test_a_corrupt_record_is_rebuilt_from_the_status_label_saying_why(body: str, why: str) -> None:
    result = loaded([bot(5, body)], ("bug", "status:running-tests"))

    assert result.record is not None
    assert result.record.state == "running_tests"
    assert result.record.issue == ISSUE
    assert result.record.workflow == WORKFLOW.name
    assert result.comment_id == 5  # the rebuilt record overwrites the corrupt one in place
    assert result.problem is not None and why in result.problem
    [rebuild] = result.record.history
    assert rebuild.trigger == "rebuild"
    assert rebuild.from_state is None
    assert rebuild.to_state == "running_tests"
    assert why in rebuild.reason
    assert "status:running-tests" in rebuild.reason


@pytest.mark.parametrize(("body", "why"), CORRUPT)
def test_a_corrupt_record_without_a_status_label_leaves_no_record(body: str, why: str) -> None:
    result = loaded([bot(5, body)], ("bug",))

    assert result.record is None
    assert result.problem is not None and why in result.problem


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(rendered(typical(issue=99)), id="another issue's record"),
        pytest.param(rendered(typical(workflow="x")), id="another workflow's record"),
    ],
)
def test_parse_alone_does_not_judge_which_issue_or_workflow_a_record_belongs_to(body: str) -> None:
    assert record_comment.parse(body).state == "implementing"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(f"{RECORD_OPEN} {{}} {RECORD_CLOSE}", id="a marker with the JSON inline"),
        pytest.param(RECORD_OPEN, id="a bare marker"),
    ],
)
def test_parse_raises_record_corrupt_rather_than_guessing(body: str) -> None:
    with pytest.raises(RecordCorrupt):
        record_comment.parse(body)


def baton_message(comment_id: int = 2) -> Comment:
    """A message Baton posted with its mark: its trace on an issue whose record was deleted."""
    return bot(comment_id, f"{record_comment.message_mark(3, 'label:9')}\nI removed a label.")


def test_without_any_record_the_status_label_rebuilds_it_where_baton_left_a_trace() -> None:
    result = loaded([human(1, "please fix"), baton_message()], ("status:creating-tests",))

    assert result.record is not None
    assert result.record.state == "creating_tests"
    assert result.comment_id is None  # a new record comment will be created
    assert result.problem is None
    assert result.record.history[0].trigger == "rebuild"
    assert "there was no record" in result.record.history[0].reason


def test_a_status_label_alone_with_no_trace_of_baton_rebuilds_nothing() -> None:
    """Anyone with triage, or any bot, can add a status label; only Baton's own trace (a record
    comment of the bot, or a message it marked) makes a missing record a lost one."""
    result = loaded([human(1, "please fix")], ("status:creating-tests",))

    assert result.record is None
    assert result.problem is None


def test_without_any_record_or_status_label_the_issue_is_not_in_the_workflow() -> None:
    result = loaded([human(1, "please fix")], ("bug", "baton"))

    assert result.record is None
    assert result.comment_id is None


def test_two_status_labels_rebuild_at_the_first_in_workflow_order_and_name_the_other() -> None:
    result = loaded(
        [baton_message()], ("status:implementing", "bug", "status:analyzing-requirements")
    )

    assert result.record is not None
    assert result.record.state == "analyzing_requirements"
    reason = result.record.history[0].reason
    assert "implementing" in reason
    assert "status:analyzing-requirements" in reason


def test_unknown_status_labels_take_no_part_in_a_rebuild() -> None:
    result = loaded([baton_message()], ("status:no-such-state", "status:blocked"))

    assert result.record is not None
    assert result.record.state == "blocked"


# --- trust ----------------------------------------------------------------------------------------
def test_a_valid_record_posted_by_a_human_is_never_trusted() -> None:
    """Where Baton was (its marked message), the human's copy is no record: the state comes
    from the label. The copy is no trace of Baton either: alone, it leaves the issue out."""
    forged = rendered(typical(state="completed"))

    result = loaded([human(1, forged), baton_message()], ("status:implementing",))

    assert result.record is not None
    assert result.record.state == "implementing"
    assert result.record.history[0].trigger == "rebuild"
    assert result.comment_id is None
    assert result.duplicates == ()
    alone = loaded([human(1, forged)], ("status:implementing",))
    assert alone.record is None and alone.comment_id is None


def test_a_human_record_with_a_message_mark_is_no_trace_of_baton() -> None:
    """A human can paste Baton's mark too: only the bot's own comments count."""
    mark = record_comment.message_mark(3, "label:9")
    pasted = human(1, f"{mark}\n{rendered(typical(state='completed'))}")

    result = loaded([pasted, human(2, mark)], ("status:implementing",))

    assert result.record is None


def test_a_forged_record_without_a_status_label_leaves_the_issue_out_of_the_workflow() -> None:
    result = loaded([human(1, rendered(typical(state="completed")))], ())

    assert result.record is None


@pytest.mark.parametrize(
    "author",
    [
        pytest.param("github-actions", id="a look-alike login without the bot suffix"),
        pytest.param("github-actions-bot", id="a look-alike login with a dash"),
        pytest.param("renovate[bot]", id="another bot"),
    ],
)
def test_a_record_from_anyone_but_the_bot_login_is_skipped(author: str) -> None:
    forged = bot(1, rendered(typical(state="completed")), author=author)
    real = bot(2, rendered())

    result = loaded([forged, real])

    assert result.record == typical()
    assert result.comment_id == 2
    assert result.duplicates == ()


def test_the_bot_login_matches_without_regard_to_case() -> None:
    result = loaded([bot(4, rendered(), author="GitHub-Actions[bot]")])

    assert result.record == typical()
    assert result.comment_id == 4


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(
            f"`status:{RECORD_OPEN}` is not a state of this workflow, so I removed it.",
            id="a bot message echoing a label named like the marker",
        ),
        pytest.param(
            f"> quoted from a reply:\n> {RECORD_OPEN}\n> {{}}\n> {RECORD_CLOSE}",
            id="a bot message quoting a forged record",
        ),
    ],
)
def test_a_bot_message_that_only_mentions_the_marker_is_not_a_record(message: str) -> None:
    """`render` opens every record comment with the marker; anything else is a message."""
    result = loaded([bot(1, message), bot(2, rendered())])

    assert result.record == typical()
    assert result.comment_id == 2
    assert result.duplicates == ()
    assert result.problem is None


def test_of_several_bot_records_the_oldest_wins_and_the_rest_are_duplicates() -> None:
    comments = [
        human(1, "hello"),
        bot(2, rendered(typical(state="creating_tests"))),
        bot(3, "plain bot message"),
        bot(4, rendered(typical(state="implementing"))),
        human(5, rendered(typical(state="completed"))),
        bot(6, rendered(typical(state="fixing_issues"))),
    ]

    result = loaded(comments)

    assert result.record is not None
    assert result.record.state == "creating_tests"
    assert result.comment_id == 2
    assert result.duplicates == (4, 6)


def test_of_several_bot_records_the_highest_revision_wins_whatever_its_age() -> None:
    """A record written anew after a 404 for one that was still there is the newer one."""
    comments = [
        bot(2, rendered(typical(state="creating_tests", revision=6))),
        bot(4, rendered(typical(state="implementing", revision=7))),
    ]

    result = loaded(comments)

    assert result.record is not None and result.record.state == "implementing"
    assert (result.comment_id, result.duplicates) == (4, (2,))


READ_RECORD_CASES = [
    pytest.param([human(1, "hello")], None, id="no record at all"),
    pytest.param([human(1, rendered())], None, id="only a human's copy of a record"),
    pytest.param(
        [bot(1, "plain message"), bot(2, rendered(typical(state="creating_tests")))],
        "creating_tests",
        id="one bot record among messages",
    ),
    pytest.param(
        [bot(2, rendered(typical(state="creating_tests"))), bot(4, rendered())],
        "creating_tests",
        id="two of one revision: the oldest",
    ),
    pytest.param(
        [bot(2, rendered()), bot(4, rendered(typical(state="running_tests", revision=9)))],
        "running_tests",
        id="two revisions: the highest",
    ),
    pytest.param(
        [bot(1, rendered(), author=BOT.upper())], "implementing", id="the bot login in caps"
    ),
]


@pytest.mark.parametrize(("comments", "state"), READ_RECORD_CASES)
def test_read_record_finds_the_record_load_trusts(
    comments: list[Comment], state: str | None
) -> None:
    """`read_record` is how `baton simulate` and the tests read the state: it must pick the
    comment `load` picks."""
    found = read_record(comments, BOT)

    assert (found.state if found else None) == state
    assert found == (loaded(comments).record if found else None)


def test_read_record_says_when_the_trusted_record_cannot_be_read() -> None:
    with pytest.raises(RecordCorrupt, match="not valid JSON"):
        read_record([bot(1, f"{RECORD_OPEN}\n{{not json\n{RECORD_CLOSE}")], BOT)


# --- the signature --------------------------------------------------------------------------------
def test_with_the_secret_an_untouched_signed_record_loads() -> None:
    """Signed records carry the time they were written (schema version 2): the comment's own
    time (`bot(3)` is created at T0 + 3 minutes) agrees with it."""
    written = T0 + timedelta(minutes=3)
    body = record_comment.render(typical(), agent="developer", secret=SECRET, written_at=written)

    result = loaded([bot(3, body)], secret=SECRET)

    assert result.record == typical(written_at=written)
    assert result.problem is None


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"state": "completed"}, id="the state"),
        pytest.param({"iteration": 0}, id="the iteration count"),
        pytest.param({"held": True}, id="the held flag"),
        pytest.param({"processed": []}, id="the processed events"),
    ],
)
def test_with_the_secret_a_hand_edited_record_is_corrupt_and_rebuilt(
    changes: dict[str, object],
) -> None:
    body = tampered(rendered(secret=SECRET), **changes)

    result = loaded([bot(3, body)], ("status:implementing",), secret=SECRET)

    assert result.problem is not None and "signature" in result.problem
    assert result.record is not None
    assert result.record.history[-1].trigger == "rebuild"
    assert "signature" in result.record.history[-1].reason


def test_with_the_secret_an_unsigned_record_is_corrupt() -> None:
    result = loaded([bot(3, rendered())], secret=SECRET)

    assert result.problem is not None and "signature" in result.problem
    assert result.record is not None
    assert result.record.history[-1].trigger == "rebuild"


def test_a_record_signed_with_another_secret_is_corrupt() -> None:
    result = loaded([bot(3, rendered(secret="old-secret"))], secret=SECRET)

    assert result.problem is not None and "signature" in result.problem


def test_without_the_secret_the_signature_is_ignored() -> None:
    body = tampered(rendered(secret=SECRET), state="completed")

    result = loaded([bot(3, body)])

    assert result.problem is None
    assert result.record is not None
    assert result.record.state == "completed"


@pytest.mark.parametrize(
    ("transitions", "compacted", "note"),
    [
        pytest.param(8, 0, None, id="every entry shown: no note"),
        pytest.param(11, 0, "3 earlier entries not shown.", id="past the eight shown"),
        pytest.param(2, 5, "5 earlier entries not shown.", id="compacted entries count"),
        pytest.param(10, 4, "6 earlier entries not shown.", id="both"),
    ],
)
def test_the_readable_part_counts_the_history_entries_it_does_not_show(
    transitions: int, compacted: int, note: str | None
) -> None:
    entries = history(transitions)
    record = Record(
        workflow=WORKFLOW.name,
        issue=ISSUE,
        state=entries[-1].to_state,
        entered_at=T0,
        history=entries,
        compacted=Compacted(entries=compacted),
    )
    body = record_comment.render(record, agent=None)
    shown = re.findall(r"<sub>(\d+ earlier entries not shown\.)</sub>", body)
    assert shown == ([note] if note else [])
