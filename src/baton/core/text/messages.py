"""The words Baton says to humans on an issue, kept out of the decision logic.

Every function returns Markdown. What agents and people wrote is quoted (`markdown.quote`) or
escaped onto one line (`markdown.escape`), so it cannot pass for Baton's own lines, mention
anyone or reference another issue; people are named in code spans, never @-mentioned. Every part
is clipped and the whole checked against GitHub's limit: a comment GitHub refuses (422) would
be lost after the state had already moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import get_close_matches

from baton.core.model.events import LaterCommit, Lineage
from baton.core.text import markdown
from baton.workflow.config import Policy, Who

SIGNATURE = "<sub>— Baton, the PM of this issue</sub>"
# GitHub refuses a comment body over 65,536 characters. The message mark and a re-post note
# take a few hundred more, and lengths are counted in UTF-16 units, as the most cautious
# reading of "characters" (an emoji is two).
LIMIT = 60_000
SUMMARY = 2_000  # characters of an agent's summary shown
QUESTIONS = 24_000  # characters shared by all the questions shown, at most QUESTION each
QUESTION = 2_000
SHOWN = 50  # questions listed; the rest are counted
REASON = 2_000
NOTE = 500
LABEL_LIMIT = 50  # characters GitHub allows in a label name
CLIPPED = "*(The rest of this message was cut to fit in one comment.)*"


def units(text: str) -> int:
    """The length GitHub's limit is checked against (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str, limit: int = LIMIT) -> str:
    """The message itself when it fits; else the whole lines that fit, and a note saying so."""
    if units(text) <= limit:
        return text
    room = limit - units(CLIPPED) - 2
    kept: list[str] = []
    for line in text.split("\n"):
        room -= units(line) + 1
        if room < 0:
            break
        kept.append(line)
    return "\n".join([*kept, "", CLIPPED])


def _who(group: Who) -> str:
    parts = []
    if group.permission:
        parts.append(f"anyone with {group.permission} permission")
    if group.users:
        parts.append("users " + ", ".join(markdown.code(u) for u in group.users))
    if group.teams:
        parts.append("teams " + ", ".join(markdown.code(t) for t in group.teams))
    return " or ".join(parts) or "nobody (no approvers are configured)"


def sign(lines: list[str]) -> str:
    body = fit("\n".join(lines), LIMIT - units(SIGNATURE) - 2)
    return "\n".join([body, "", SIGNATURE])


def numbered(items: Sequence[str]) -> list[str]:
    """A numbered list of quoted items, each quote indented under its number."""
    shown = items[:SHOWN]
    each = min(QUESTION, QUESTIONS // max(len(shown), 1))
    lines = []
    for number, item in enumerate(shown, 1):
        marker = f"{number}. "
        quoted = markdown.quote(item, each).split("\n")
        lines.append(marker + quoted[0])
        lines += [" " * len(marker) + line for line in quoted[1:]]
    if len(items) > len(shown):
        lines += ["", f"…and {len(items) - len(shown)} more."]
    return lines


def questions(state: str, agent: str | None, summary: str, asked: Sequence[str]) -> str:
    lines = [f"### ❓ Questions before the work goes on ({markdown.code(state)})", ""]
    if summary:
        lines += [f"The {agent or 'PM'} reports:", "", markdown.quote(summary, SUMMARY), ""]
    if asked:
        lines += ["Please answer in a comment:", ""]
        lines += numbered(asked)
    else:
        lines += ["Please reply with what is missing."]
    lines += ["", "Your reply is handed to the next agent."]
    return sign(lines)


def approval_request(
    state: str,
    summary: str,
    policy: Policy,
    replies_allowed: bool,
    *,
    pull_request: int | None = None,
) -> str:
    word = policy.approval_words[0]
    lines = [f"### 🙋 Waiting for a human ({markdown.code(state)})", ""]
    if summary:
        lines += [markdown.quote(summary, SUMMARY), ""]
    review = (
        f", or approve pull request #{pull_request} in a review (a review requesting changes "
        "sends it back to the developer)"
        if pull_request is not None
        else ""
    )
    lines += [
        f"To approve, start a comment with **{word}** (e.g. `{word} — looks good`){review}; "
        f"approvals count from {_who(policy.approvers)}.",
    ]
    if replies_allowed:
        lines += ["Any other reply is handed to the next agent as feedback."]
    return sign(lines)


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
        f"{_line(reason, REASON)} {where} No agent runs until someone decides:",
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
    return sign(lines)


def refusal(actor: str, why: str) -> str:
    return sign([f"{markdown.code(actor)}: {_line(why, REASON)}"])


def nearest_label(label: str, valid: Sequence[str]) -> str | None:
    """The status label a typo most likely meant (`status:implementng`), by difflib's ratio,
    ignoring case; None when none is close. GitHub caps a label at 50 characters, so this
    stays cheap whatever the label."""
    by_case = {v.casefold(): v for v in valid}
    found = get_close_matches(label[:LABEL_LIMIT].casefold(), list(by_case), n=1, cutoff=0.75)
    return by_case[found[0]] if found else None


def unknown_label(label: str, valid: Sequence[str]) -> str:
    listed = ", ".join(markdown.code(v) for v in valid)
    lines = [f"{markdown.code(label)} is not a state of this workflow, so I removed it."]
    nearest = nearest_label(label, valid)
    if nearest is not None:
        lines.append(f"Did you mean {markdown.code(nearest)}?")
    return sign([*lines, "", f"The status labels are: {listed}."])


def finished(state: str, summary: str) -> str:
    lines = [f"### 🏁 This issue is now {markdown.code(state)}"]
    if summary:
        lines += ["", markdown.quote(summary, SUMMARY)]
    return sign(lines)


def notes(items: Sequence[str]) -> str:
    lines = ["### 🔧 I repaired this issue's state", ""]
    lines += [f"- {_line(item, NOTE)}" for item in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f"- …and {len(items) - SHOWN} more")
    return sign(lines)


def join(*parts: str | None) -> str | None:
    """One comment out of several messages (one run posts at most one comment)."""
    present = [p.replace(f"\n\n{SIGNATURE}", "") for p in parts if p]
    if not present:
        return None
    return sign(["\n\n".join(present)])


def _line(text: str, limit: int) -> str:
    return markdown.clip(markdown.escape(text), limit)


# --- the work product: the branch, its commits and the pull request ----------------------------
def changes_refused(agent: str, branch: str, problems: Sequence[str]) -> str:
    """An agent's changeset failed Baton's checks: nothing reached the branch."""
    lines = [
        f"### 🛑 The {markdown.code(agent)}'s changes were refused",
        "",
        f"Nothing was written to {markdown.code(branch)}. Why:",
        "",
    ]
    lines += [f"- {_line(problem, NOTE)}" for problem in problems[:SHOWN]] or ["- no reason given"]
    if len(problems) > SHOWN:
        lines.append(f"- …and {len(problems) - SHOWN} more")
    lines += ["", "The attempt counts as failed; the agent is told why when it runs again."]
    return sign(lines)


PULL_REQUEST_SETTING = (
    "**Allow GitHub Actions to create and approve pull requests** (the repository's Settings → "
    "Actions → General → Workflow permissions; in an organisation, its own Settings → Actions → "
    "General first)"
)


def pull_request_refused(branch: str, problem: str) -> str:
    """GitHub would not open the draft pull request: what to change, and that work goes on."""
    return sign(
        [
            "### ⚠️ The pull request could not be opened",
            "",
            f"GitHub refused to open a draft pull request from {markdown.code(branch)}: "
            f"{_line(problem, REASON)}",
            "",
            f"To fix it, turn on {PULL_REQUEST_SETTING}, or give Baton a token that may open "
            "pull requests (the action's `github-token` input, e.g. a GitHub App token).",
            "",
            "The commits are on the branch and the work goes on; the pull request is tried "
            "again at the next commit. If the work reaches the pull-request state with none "
            "open, the issue goes to a human (`requires_human_intervention`) until this is "
            "fixed and someone answers `/retry`.",
        ]
    )


def ci_approval(pull_request: int, *, held: bool, bot_login: str) -> str:
    """What approving CI on Baton's pull request means, said when it opens and when it is
    marked ready for review: the moments a writer looks at it."""
    number = f"#{pull_request}"
    if held:
        return sign(
            [
                f"### 🔐 CI on pull request {number} waits for a maintainer's approval",
                "",
                "GitHub holds the CI runs of a pull request that GITHUB_TOKEN opened or updated "
                "until someone with write access clicks **Approve and run** on the pull request "
                "page. Approving runs the agent-written code of the pull request (its tests, a "
                "`conftest.py`, a Makefile, any script CI calls) with the repository's secrets: "
                "review the diff first, and approve only what you would run yourself. Each "
                "commit Baton adds waits for approval again; a run never approved sends nothing "
                "back.",
            ]
        )
    return sign(
        [
            f"### 🔐 CI on pull request {number} runs without approval",
            "",
            f"Baton writes as {markdown.code(bot_login)}, and `.github/baton.yml` accepts "
            "`ci: {unapproved_runs: accept}`: the CI runs its commits start run the "
            "agent-written code (its tests, a `conftest.py`, a Makefile) with the repository's "
            "secrets before anyone has reviewed it.",
        ]
    )


def changes_requested(
    reviewer: str, pull_request: int, target: str | None, agent: str | None
) -> str:
    """A reviewer's requested changes sent the work back (or were kept for the next agent)."""
    if target is None:
        where = "The review is kept for the next agent."
    else:
        who = f"; the {markdown.code(agent)} works on it" if agent else ""
        where = f"The issue moved to {markdown.code(target)}{who}."
    return sign(
        [
            f"{markdown.code(reviewer)} requested changes on the pull request "
            f"(#{pull_request}). {where}"
        ]
    )


def is_sha(text: str) -> bool:
    """A full git object id as GitHub writes it: 40 (or 64) lowercase hex digits."""
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def stale_approval(
    reviewer: str,
    pull_request: int,
    reviewed: str,
    head: str,
    *,
    lineage: Lineage | None = None,
    blocker: LaterCommit | None = None,
    access: str | None = None,
) -> str:
    """An approval that does not count: of an older commit, of one that does not hold Baton's
    last, or of one with a commit on top of Baton's last that is not a write user's (named,
    with the `access` looked up for its author). Said, so the reviewer knows what to do."""
    seen = markdown.code(reviewed[:7]) if is_sha(reviewed) else "no commit Baton can name"
    last = markdown.code(head[:7] or "none")
    why = f"It approved {seen}, but Baton's last commit on the branch is {last}."
    if lineage is not None and lineage.commits and not lineage.descends:
        why = f"It approved {seen}, which does not hold Baton's last commit on the branch, {last}."
    elif lineage is not None and not lineage.complete:
        why = (
            f"It approved {seen}, but {lineage.total} commits are on top of Baton's last "
            f"commit {last}, more than the {len(lineage.commits)} Baton reads."
        )
    elif blocker is not None:
        later = markdown.code(blocker.oid[:7]) if is_sha(blocker.oid) else "a commit"
        author = blocker.author
        if author is None:
            whose = "has no GitHub account as its author"
        elif author.is_bot:
            whose = f"is by {markdown.code(author.login)}, a bot"
        else:
            has = markdown.code(access or "no")
            whose = f"is by {markdown.code(author.login)}, who has {has} access"
        why = f"It approved {seen}, but {later}, on top of Baton's last commit {last}, {whose}."
    return sign(
        [
            f"### ⚠️ {markdown.code(reviewer)}'s approval of #{pull_request} does not count",
            "",
            f"{why} An approval counts for Baton's last commit, or for a commit built on it "
            "with only commits of users with write access after it (GitHub's *dismiss stale "
            "approvals* drops an approval when commits come after it): review the latest "
            "changes and approve again. If someone else's commit is on top of Baton's, "
            "request changes so that the agent takes it in, or relabel the issue.",
        ]
    )


def merged(merger: str, pull_request: int, target: str | None) -> str:
    where = f" The issue is now {markdown.code(target)}." if target else ""
    return sign(
        [f"### 🎉 Pull request #{pull_request} was merged by {markdown.code(merger)}.{where}"]
    )


def pull_request_closed(closer: str, pull_request: int, state: str, moved: bool) -> str:
    """Closed without merging: a maintainer decides what happens to the work."""
    where = (
        f"The issue moved to {markdown.code(state)}"
        if moved
        else f"The issue stays in {markdown.code(state)}"
    )
    return sign(
        [
            f"### ✋ Pull request #{pull_request} was closed without merging by "
            f"{markdown.code(closer)}",
            "",
            f"{where}, and no agent runs until a maintainer decides: relabel the issue to the "
            "state to resume from (the branch is kept, and a new pull request opens at the next "
            "commit), or close the issue.",
        ]
    )


def checks_failed(head: str, failures: Sequence[str], target: str) -> str:
    lines = [
        f"### ❌ Checks failed on {markdown.code(head[:7])}",
        "",
    ]
    lines += [f"- {_line(failure, NOTE)}" for failure in failures[:SHOWN]]
    if len(failures) > SHOWN:
        lines.append(f"- …and {len(failures) - SHOWN} more")
    lines += ["", f"The issue moved to {markdown.code(target)}, with the failures as feedback."]
    return sign(lines)
