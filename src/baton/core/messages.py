"""The words Baton says to humans on an issue, kept out of the decision logic.

Every function returns Markdown; user text passes through `markdown.escape`/`quote`, and
people are named in code spans, never @-mentioned, so a reply cannot ping a crowd.
"""

from __future__ import annotations

from collections.abc import Sequence

from baton.core import markdown
from baton.workflow.config import Policy, Who

SIGNATURE = "<sub>— Baton, the PM of this issue</sub>"


def _who(group: Who) -> str:
    parts = []
    if group.permission:
        parts.append(f"anyone with {group.permission} permission")
    if group.users:
        parts.append("users " + ", ".join(markdown.code(u) for u in group.users))
    if group.teams:
        parts.append("teams " + ", ".join(markdown.code(t) for t in group.teams))
    return " or ".join(parts) or "nobody (no approvers are configured)"


def _sign(lines: list[str]) -> str:
    return "\n".join([*lines, "", SIGNATURE])


def questions(state: str, agent: str | None, summary: str, asked: Sequence[str]) -> str:
    lines = [f"### ❓ Questions before the work goes on ({markdown.code(state)})", ""]
    if summary:
        lines += [f"The {agent or 'PM'} reports:", "", markdown.quote(summary, 2000), ""]
    if asked:
        lines += ["Please answer in a comment:", ""]
        lines += [f"{i}. {markdown.escape(q)}" for i, q in enumerate(asked, 1)]
    else:
        lines += ["Please reply with what is missing."]
    lines += ["", "Your reply is handed to the next agent."]
    return _sign(lines)


def approval_request(state: str, summary: str, policy: Policy, replies_allowed: bool) -> str:
    word = policy.approval_words[0]
    lines = [f"### 🙋 Waiting for a human ({markdown.code(state)})", ""]
    if summary:
        lines += [markdown.quote(summary, 2000), ""]
    lines += [
        f"To approve, start a comment with **{word}** (e.g. `{word} — looks good`); "
        f"approvals count from {_who(policy.approvers)}.",
    ]
    if replies_allowed:
        lines += ["Any other reply is handed to the next agent as feedback."]
    return _sign(lines)


def escalation(
    state: str,
    reason: str,
    *,
    retry_to: str | None,
    skip_to: str | None,
    replan_to: str | None,
    policy: Policy,
    moved_to: str | None,
) -> str:
    where = (
        f"The issue moved to {markdown.code(moved_to)}."
        if moved_to
        else f"The issue is held in {markdown.code(state)}."
    )
    lines = [
        f"### 🚨 A human decision is needed ({markdown.code(state)})",
        "",
        f"{markdown.escape(reason)} {where} No agent runs until someone decides:",
        "",
    ]
    if retry_to:
        lines.append(
            f"- `/retry <guidance>` — run {markdown.code(retry_to)} again with your guidance"
        )
    if skip_to:
        lines.append(
            f"- `/skip` — treat {markdown.code(state)} as done and go to {markdown.code(skip_to)}"
        )
    if replan_to:
        lines.append(f"- `/replan` — start again from {markdown.code(replan_to)}")
    lines += [
        "- or relabel the issue to the state you want",
        "",
        f"Commands count from {_who(policy.approvers)}.",
    ]
    return _sign(lines)


def refusal(actor: str, why: str) -> str:
    return _sign([f"{markdown.code(actor)}: {markdown.escape(why)}"])


def unknown_label(label: str, valid: Sequence[str]) -> str:
    listed = ", ".join(markdown.code(v) for v in valid)
    return _sign(
        [
            f"{markdown.code(label)} is not a state of this workflow, so I removed it.",
            "",
            f"The status labels are: {listed}.",
        ]
    )


def finished(state: str, summary: str) -> str:
    lines = [f"### 🏁 This issue is now {markdown.code(state)}"]
    if summary:
        lines += ["", markdown.quote(summary, 2000)]
    return _sign(lines)


def notes(items: Sequence[str]) -> str:
    lines = ["### 🔧 I repaired this issue's state", ""]
    lines += [f"- {markdown.escape(item)}" for item in items]
    return _sign(lines)


def join(*parts: str | None) -> str | None:
    """One comment out of several messages (one run posts at most one comment)."""
    present = [p.replace(f"\n\n{SIGNATURE}", "") for p in parts if p]
    if not present:
        return None
    return _sign(["\n\n".join(present)])
