"""The words of an issue's work product: Baton's commit messages, the pull request's title and
description. Pure, like the rest of `core`: `github/` writes them.

Agents' summaries and issue titles are untrusted, so they land as data: `plaintext` in git
objects and titles, `markdown` in the pull request's description.
"""

from __future__ import annotations

from baton.core.model.evidence import TestsRecord
from baton.core.model.work import TRAILER, Work
from baton.core.text import evidence, markdown, plaintext


def _one_line(text: str, limit: int) -> str:
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def commit_message(
    *,
    issue: int,
    agent: str,
    state: str,
    attempt: int,
    summary: str,
    digest: str,
    issue_url: str = "",
) -> tuple[str, str]:
    """(headline, body): which agent, state and attempt, the summary's first line, and the
    trailers that link the issue and let a re-run find this commit. The summary is the agent's
    (untrusted), so it lands as data (`plaintext.line`): a commit on the default branch whose
    message says `Fixes #1` or `@org/team` would close the issue or link the team."""
    first = plaintext.line(_one_line(summary, 50), 50) or "no summary"
    headline = f"{agent}: {first} (#{issue})"
    body_lines = [
        f"Agent {agent} in {state}, attempt {attempt}.",
        "",
        f"Refs: {issue_url or f'#{issue}'}",
        f"{TRAILER}: {digest}",
    ]
    return headline, "\n".join(body_lines)


def first_line(text: str, limit: int) -> str:
    """The first non-blank line of `text`, clipped to `limit` characters."""
    return _one_line(text, limit)


def pull_request_title(issue: int, title: str) -> str:
    """The issue's title, as data, and its number. A squash merge makes the title the commit's
    headline, so an issue titled `Fixes #3` must not close issue 3 (`plaintext.line`)."""
    text = plaintext.line(title, 200) or f"Issue #{issue}"
    return f"{text} (#{issue})"


PR_SUMMARY = 120  # characters of a commit's summary line shown in the pull request's body
PR_FOOTER = (
    "<sub>Baton maintains this description from the issue's record; an edit here is replaced "
    "at the next commit. Steer the work on the issue.</sub>"
)


def pull_request_body(issue: int, work: Work, tests: TestsRecord | None = None) -> str:
    """The draft pull request's description: what it closes, where the work is steered, one
    line per commit, and what the tests showed (`tests:`). Agents' summaries are untrusted, so
    each is escaped onto one line: it can mention nobody, reference nothing and pass for none
    of Baton's own lines."""
    lines = [
        f"Closes #{issue}",
        "",
        f"Baton's agents work on issue #{issue} here: each commit is one agent's changeset, "
        "checked and committed by Baton. The issue shows where the work stands and how to "
        "steer it.",
        "",
        "### The work so far",
        "",
    ]
    for mark in work.commits:
        summary = markdown.clip(markdown.escape(mark.summary), PR_SUMMARY) or "no summary"
        lines.append(
            f"- {markdown.code(mark.agent)} in {markdown.code(mark.state)}: {summary} "
            f"({markdown.code(mark.oid[:7])})"
        )
    if not work.commits:
        lines.append("- nothing yet")
    if tests is not None:
        lines += ["", *evidence.pull_request_lines(tests)]
    lines += ["", PR_FOOTER]
    return "\n".join(lines)
