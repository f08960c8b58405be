"""The dashboard as one Markdown page GitHub renders: Mermaid charts, and every number in a table
too, since API clients read the raw text.

Titles and problems are other people's text: each goes through `markdown.cell`, so none can
mention anyone or link an issue, and issue numbers are written with a zero-width space after
`#` (`#\u200b12`), so a page listing a thousand issues leaves no trace on any of them. Charts
carry only state names (a workflow's, `[a-z][a-z0-9_]*`) and numbers. The page stays within
GitHub's body limit: the long tables are cut to fewer rows, whole, until it fits, and each
says how many more there were.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from baton.core.model.epic import RoleSpend, Spend
from baton.core.text import markdown
from baton.dashboard.model import (
    Figures,
    PerIssue,
    ProofLine,
    Slowest,
    SpendLine,
    StateTime,
    Unreadable,
    Waiting,
)

MARKER = "<!-- baton:dashboard -->"
TITLE = "Baton dashboard"
GITHUB_BODY_LIMIT = 65_536
PAGE_BUDGET = 60_000  # leave room under GitHub's limit
ROW_STEPS = (100, 50, 25, 10, 5, 0)  # rows per long table, tried in turn until the page fits
CHART_STATES = 12  # bars in the time-per-state chart
TITLE_CELL = 80
T = TypeVar("T")
_HEX = re.compile(r"[0-9a-f]+")


def render(figures: Figures, *, budget: int = PAGE_BUDGET) -> str:
    """The page, with as many rows per long table as fit within `budget` characters."""
    page = ""
    for rows in ROW_STEPS:
        page = _page(figures, rows)
        if len(page) <= budget:
            return page
    return page


def _page(figures: Figures, rows: int) -> str:
    parts = [
        _header(figures),
        _now(figures, rows),
        _flow(figures),
        _rework(figures, rows),
        _humans(figures, rows),
        _outcomes(figures),
        _evidence(figures, rows),
        _spend(figures, rows),
        _unreadable(figures, rows),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


# --- pieces ------------------------------------------------------------------------------------
def issue_ref(number: int) -> str:
    """`#12` as it reads, with a zero-width space so GitHub links (and notifies) nothing."""
    return f"#{markdown.ZWSP}{number}"


def duration(seconds: int) -> str:
    """`45s`, `5m`, `2h 05m`, `3d 4h`."""
    if seconds < 60:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h"


def money(value: float) -> str:
    # Not `$`: two on one line would be read as math.
    return f"USD {value:,.2f}"


def _table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    head = "| " + " | ".join(header) + " |"
    rule = "|" + "|".join("---" for _ in header) + "|"
    return "\n".join([head, rule, *("| " + " | ".join(line) + " |" for line in lines)])


def _capped(
    header: Sequence[str], items: Sequence[T], row: Callable[[T], list[str]], rows: int
) -> str:
    """A table of the first `rows` items and a line counting the rest; never cut mid-row."""
    shown = items[:rows]
    parts = [_table(header, [row(item) for item in shown])] if shown else []
    more = len(items) - len(shown)
    if more:
        parts.append(f"…and {more:,} more issue{'s' if more != 1 else ''}.")
    return "\n\n".join(parts)


def _title(text: str) -> str:
    return markdown.cell(text, TITLE_CELL)


def _per_issue(items: Sequence[PerIssue], what: str, rows: int) -> str:
    def row(item: PerIssue) -> list[str]:
        return [issue_ref(item.number), _title(item.title), str(item.count)]

    return _capped(["Issue", "Title", what], items, row, rows)


def _counts(header: Sequence[str], counts: dict[str, int]) -> str:
    return _table(header, [[markdown.code(name), str(n)] for name, n in counts.items()])


def _mermaid(lines: Sequence[str]) -> str:
    return "```mermaid\n" + "\n".join(lines) + "\n```"


# --- charts (state names and numbers only) -----------------------------------------------------
def pie_chart(by_state: dict[str, int]) -> str:
    lines = ["pie showData", "    title Issues by state"]
    lines += [f'    "{state}" : {count}' for state, count in by_state.items()]
    return _mermaid(lines)


def time_chart(state_times: Sequence[StateTime]) -> str:
    shown = list(state_times[:CHART_STATES])
    names = ", ".join(f'"{t.state}"' for t in shown)
    hours = ", ".join(f"{t.median / 3600:.2f}" for t in shown)
    top = max((t.median for t in shown), default=0) / 3600
    return _mermaid(
        [
            "xychart-beta horizontal",  # the state names read along the side, not over each other
            '    title "Median hours per state"',
            f"    x-axis [{names}]",
            f'    y-axis "hours" 0 --> {max(top * 1.1, 0.1):.2f}',
            f"    bar [{hours}]",
        ]
    )


def path_chart(slowest: Slowest) -> str:
    lines = [
        "gantt",
        f"    title Slowest issue: {slowest.number}, {duration(slowest.seconds)}",
        "    dateFormat x",  # milliseconds since 1970: `X` (seconds) draws every bar everywhere
        f"    axisFormat {'%H:%M' if slowest.seconds < 86_400 else '%m-%d'}",
        "    section path",
    ]
    for i, stay in enumerate(slowest.path):
        start = int(stay.start.timestamp()) * 1000
        end = start + max(stay.seconds, 1) * 1000
        lines.append(f"    {stay.state} :s{i}, {start}, {end}")
    return _mermaid(lines)


# --- sections ----------------------------------------------------------------------------------
def _header(figures: Figures) -> str:
    issues = figures.issues
    lines = [
        MARKER,
        f"# {TITLE}",
        "",
        f"Updated {figures.generated_at:%Y-%m-%d %H:%M} UTC from the records of {issues:,} "
        f"issue{'s' if issues != 1 else ''} Baton has worked (open, and closed in the last "
        f"{figures.window_days} days): {figures.open_issues:,} open.",
    ]
    if figures.unreadable:
        lines.append(f"{len(figures.unreadable):,} record(s) could not be read: see the end.")
    return "\n".join(lines)


def _now(figures: Figures, rows: int) -> str:
    parts = ["## Now"]
    if figures.by_state:
        parts += [pie_chart(figures.by_state), _counts(["State", "Issues"], figures.by_state)]

    def row(item: Waiting) -> list[str]:
        return [
            issue_ref(item.number),
            _title(item.title),
            markdown.code(item.state),
            markdown.cell(item.on),
            duration(item.seconds),
        ]

    if figures.waiting:
        parts.append("Where open issues wait, and for whom, oldest first:")
        header = ["Issue", "Title", "State", "Waiting for", "Waited"]
        parts.append(_capped(header, figures.waiting, row, rows))
    else:
        parts.append("No open issue is waiting.")
    return "\n\n".join(parts)


def _flow(figures: Figures) -> str:
    parts = ["## Flow"]
    if not figures.state_times:
        parts.append("No state has been left yet.")
    else:
        parts.append(time_chart(figures.state_times))
        lines = [
            [markdown.code(t.state), str(t.count), duration(t.median), duration(t.p90)]
            for t in figures.state_times
        ]
        parts.append(_table(["State", "Stays", "Median", "90th percentile"], lines))
    lead = figures.lead_time
    if lead.count:
        parts.append(
            f"Lead time from entry to merge: median {duration(lead.median)}, 90th percentile "
            f"{duration(lead.p90)} ({lead.count} merged)."
        )
    if figures.slowest is not None:
        slowest = figures.slowest
        parts.append(
            f"The slowest issue, {issue_ref(slowest.number)} {_title(slowest.title)}, "
            f"{duration(slowest.seconds)}:"
        )
        parts.append(path_chart(slowest))
    return "\n\n".join(parts)


def _rework(figures: Figures, rows: int) -> str:
    rework = figures.rework
    parts = [
        "## Rework",
        f"{rework.rounds:,} round(s) of rework on {rework.issues:,} issue(s): a round starts "
        "when the work goes back to a state it was in before.",
    ]
    if rework.sent_back_by:
        parts.append(_counts(["Sent back by", "Rounds"], rework.sent_back_by))
        parts.append(_counts(["Entered again", "Times"], rework.redone))
        parts.append(_per_issue(rework.per_issue, "Rounds", rows))
    return "\n\n".join(parts)


def _humans(figures: Figures, rows: int) -> str:
    humans = figures.humans
    parts = [
        "## Humans",
        f"{humans.touchpoints:,} touchpoint(s) (answers, approvals, relabels, reviews), "
        f"a median of {humans.median_per_issue:g} per issue.",
    ]
    if humans.by_kind:
        parts.append(_counts(["Kind", "Touchpoints"], humans.by_kind))
        parts.append(_per_issue(humans.per_issue, "Touchpoints", rows))
    return "\n\n".join(parts)


def _outcomes(figures: Figures) -> str:
    out = figures.outcomes
    rate = f"{out.merge_rate:.1%}" if out.merge_rate is not None else "none decided yet"
    published = (
        f"{out.published_rate:.1%} of {out.published_pull_requests:,} agent pull requests "
        f"(humans' {out.humans_rate:.1%})"
    )
    parts = [
        "## Outcomes",
        _table(
            ["Opened", "Merged", "Closed unmerged", "Open", "Merge rate", "Published"],
            [
                [
                    str(out.opened),
                    str(out.merged),
                    str(out.closed_unmerged),
                    str(out.open),
                    rate,
                    published,
                ]
            ],
        ),
    ]
    if out.failed_attempts:
        parts.append("Agents' failed attempts, by role:")
        parts.append(_counts(["Role", "Failed attempts"], out.failed_attempts))
    else:
        parts.append("No agent's attempt failed.")
    return "\n\n".join(parts)


def _evidence(figures: Figures, rows: int) -> str:
    proofs = figures.evidence
    alone = f"{proofs.reports_alone:,} issue(s) moved on agents' reports alone"
    if not proofs.issues:
        if proofs.configured:
            said = f"No issue has evidence yet (no state was settled by the tests): {alone}."
        elif proofs.reports_alone:
            said = f"No issue has evidence (no `tests:` in the config): {alone}."
        else:
            said = "No issue has evidence (no `tests:` in the config)."
        return "\n\n".join(["## Evidence", said])
    counts = proofs.counts
    held = "no green yet"
    if proofs.first_green_rate is not None:
        held = (
            f"{proofs.first_green_rate:.1%} ({proofs.first_green_held:,} of "
            f"{proofs.green_issues:,} issue(s))"
        )
    header = ["Red proofs", "Green proofs", "Failing", "Broken", "Issues signed off"]
    totals = [counts.red, counts.green, counts.failing, counts.broken, proofs.signed_off]
    parts = [
        "## Evidence",
        f"{proofs.issues:,} issue(s) had a state settled by what the tests showed; {alone}.",
        _table([*header, "First green held"], [[*(f"{n:,}" for n in totals), held]]),
    ]
    header = ["Issue", "Title", "Red", "Green", "Failing", "Broken", "Signed off", "First green"]
    parts.append(_capped([*header, "Last red proof"], proofs.per_issue, _proof_row, rows))
    return "\n\n".join(parts)


def _proof_row(item: ProofLine) -> list[str]:
    counts, last = item.counts, item.last_red
    signed = "an earlier proof" if item.signed else ""
    if last is not None and last.signed:
        signed = "yes"
    green = {None: "", True: "held", False: "broke"}[item.first_green_held]
    proof = ""
    if last is not None:
        short = last.commit[:7]
        # Baton's own commit, 40 hex digits; anything else is shown as the plain text it is
        commit = markdown.code(short) if _HEX.fullmatch(short) else markdown.cell(short)
        proof = f"{commit}: {last.fail_to_pass:,} failing, {last.pass_to_pass:,} passing"
    numbers = [str(n) for n in (counts.red, counts.green, counts.failing, counts.broken)]
    return [issue_ref(item.number), _title(item.title), *numbers, signed, green, proof]


def _spend_cells(spend: Spend | RoleSpend) -> list[str]:
    return [str(spend.runs), f"{spend.tokens:,}", money(spend.money), f"{spend.minutes:,.1f}"]


def _spend(figures: Figures, rows: int) -> str:
    spending = figures.spend
    lines = [["All issues", *_spend_cells(spending.total)]]
    lines.append(["The merged issues", *_spend_cells(spending.merged_issues)])
    if spending.per_merged is not None:
        lines.append(["All spend per merged pull request", *_spend_cells(spending.per_merged)])
    parts = ["## Spend", _table(["", "Runs", "Tokens", "Money", "Minutes"], lines)]
    if spending.per_role:
        roles = [[markdown.code(r), *_spend_cells(s)] for r, s in spending.per_role.items()]
        parts.append(_table(["Role", "Runs", "Tokens", "Money", "Minutes"], roles))
    if spending.roles_from_history:
        parts.append(
            f"{spending.roles_from_history:,} issue(s) written before the record kept spend per "
            "role count their roles' runs from the history, without their costs."
        )

    def row(item: SpendLine) -> list[str]:
        merged = "merged" if item.merged else ""
        return [issue_ref(item.number), _title(item.title), *_spend_cells(item.spend), merged]

    header = ["Issue", "Title", "Runs", "Tokens", "Money", "Minutes", "Pull request"]
    parts.append(_capped(header, spending.per_issue, row, rows))
    return "\n\n".join(parts)


def _unreadable(figures: Figures, rows: int) -> str:
    if not figures.unreadable:
        return ""

    def row(item: Unreadable) -> list[str]:
        return [issue_ref(item.number), _title(item.title), markdown.cell(item.problem, 200)]

    table = _capped(["Issue", "Title", "Why"], figures.unreadable, row, max(rows, 5))
    return "\n\n".join(["## Unreadable records", table])
