"""The words Baton says on an epic: the dialogue's questions and warning, the specification,
the plan, the breaker and the completion, and what Baton writes to GitHub from the plan: the
sub-issues' titles, the merge commits of tasks. Agent text is quoted or escaped in Markdown
(`core.text.markdown`), like every other message (`core.text.messages`), and made data in plain text
(`core.text.plaintext`): a title or a commit message reaches no issue and mentions nobody."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from baton.core.text import markdown, plaintext
from baton.core.text.messages import numbered, sign


def task_title(title: str, limit: int) -> str:
    """A sub-issue's title from the planner's words: a task's pull request takes its title
    from it, and a squash merge the commit's headline, so `Fixes #3` there would close #3."""
    return plaintext.line(title, limit)


def merge_message(task: int, key: str, base: str) -> str:
    """The merge commit of a task's branch into its epic's: the task's number is Baton's
    reference; the key is the planner's (`gh-1` would reference issue 1)."""
    return f"Merge task #{task} ({plaintext.defuse(key)}) into {base}"


def discovery_questions(
    turn: int, categories: Sequence[str], asked: Sequence[str], remaining: int
) -> str:
    """A round of the discovery agent's questions, headed by the categories they cover."""
    named = ", ".join(markdown.code(c) for c in categories if c) or markdown.code("questions")
    lines = [
        f"### ❓ Discovery, round {turn + 1}: {named}",
        "",
        "Please answer in a comment:",
        "",
        *numbered(asked),
        "",
        f"Categories still open after this one: {remaining}. Reply `generate now` at any time "
        "to have the specification written from what is known.",
    ]
    return sign(lines)


def turn_warning(turns: int, max_turns: int) -> str:
    return sign(
        [
            f"### ⏳ Discovery has taken {turns} answers",
            "",
            f"At {max_turns} answers the specification is generated anyway. Reply "
            "`generate now` to have it written from what is known, or `continue` to answer "
            "more questions.",
        ]
    )


def generating(why: str) -> str:
    return sign([f"### 📝 Writing the specification: {why}"])


def specification(spec: str, version: int, words: Sequence[str]) -> str:
    approve = markdown.code(words[0] if words else "approved")
    return sign(
        [
            f"### 📋 Specification, version {version}",
            "",
            markdown.quote(spec, 40_000),
            "",
            f"An approver replies {approve} to plan the work from it, `/edit <what to change>` "
            "for minor edits, or `/revise <what is wrong>` for a major revision (more questions).",
        ]
    )


def plan_refused(problem: str, attempt: int, attempts: int) -> str:
    return sign(
        [
            "### 🔁 The plan was refused",
            "",
            markdown.quote(problem, 2_000),
            "",
            f"The planner plans again (attempt {attempt} of {attempts}).",
        ]
    )


def plan_created(count: int, table: str, started: Sequence[str]) -> str:
    lines = [f"### 🗺️ The plan: {count} tasks, each a sub-issue", "", table, ""]
    if started:
        lines.append("Started now: " + ", ".join(markdown.code(k) for k in started) + ".")
    return sign(lines)


def breaker_open(reasons: Sequence[str], table: str, issue_refs: Sequence[int]) -> str:
    failed = ", ".join(f"#{n}" for n in issue_refs) or "none"
    lines = [
        "### ⛔ The circuit breaker opened: no new task starts",
        "",
        "Recent failures:",
        "",
        *[f"- {markdown.escape(r)}" for r in reasons],
        "",
        table,
        "",
        "What you can do (an approver):",
        "",
        "- `/resume` here: one task starts as a probe; its success closes the breaker, its "
        "failure opens it again;",
        f"- on a failed task ({failed}): `/retry <guidance>` to queue it again with your "
        "guidance, `approved` if you fixed it yourself, `/skip` to let its dependents go on;",
        "- `/replan <why>` here: the planner revises the plan (failed tasks are replaced).",
    ]
    return sign(lines)


def budget_stop(why: str, spend: str) -> str:
    return sign(
        [
            "### 💸 The budget is spent: no new agent starts",
            "",
            f"{markdown.escape(why)} (spent so far: {markdown.escape(spend)}).",
            "",
            "Raise the budget in `.github/baton.yml` (`budgets:`), then `/resume`.",
        ]
    )


def repo_breaker(count: int, threshold: int, label: str, window: timedelta) -> str:
    return sign(
        [
            "### ⛔ The repository-wide circuit breaker is open: no agent starts",
            "",
            f"{count} open issues labelled {markdown.code(label)} had failing agents within "
            f"{window} (the threshold is {threshold}). An agent's API key or quota may have run "
            "out. This issue waits; once the cause is fixed, an approver comments `/retry` here "
            "to let its agent through as a probe. The breaker closes by itself as the failing "
            "issues succeed or their failures age out of the window.",
        ]
    )


def resumed(probe: bool) -> str:
    how = "one task starts as a probe" if probe else "ready tasks start again"
    return sign([f"### ▶️ Resumed: {how}"])


def completed(count: int, pull_request: int | None, problem: str | None) -> str:
    where = f"pull request #{pull_request}" if pull_request else "the epic's branch"
    lines = [f"### ✅ All {count} tasks are done", "", f"The work is in {where}."]
    if problem:
        lines += ["", f"The pull request could not be opened: {markdown.escape(problem)}"]
    lines += [
        "",
        "An approver replies `approved` (or merges the pull request) to finish the epic, or "
        "`/continue <what else>` to plan more tasks.",
    ]
    return sign(lines)
