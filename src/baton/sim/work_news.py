"""What the runs did to the work on the in-memory GitHub, in the words `baton demo` uses:
branches made, Baton's commits, branches merged, pull requests opened, made ready, merged or
closed.

Read from GitHub's state before and after a run, never from what a run says it did, so a demo
tells only what happened. The epic demo follows every issue's branch at once with `news`; the
single issue's narration (`scenario.narration`) shares the words of a commit's files and of a
pull request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from baton.sim.model.git import Git
from baton.sim.model.pulls import PullRequest
from baton.sim.sim_github import SimGitHub

# What became of a pull request, as the demos and a scenario's `expect` name it.
PullRequestState = Literal["none", "draft", "open", "merged", "closed"]


@dataclass(frozen=True)
class Seen:
    """What GitHub held of the work at one moment: each branch's head, each pull request's
    state."""

    heads: Mapping[str, str]
    pulls: Mapping[int, PullRequestState]


def pull_state(gh: SimGitHub, pull: PullRequest | None) -> PullRequestState:
    if pull is None:
        return "none"
    if pull.merged:
        return "merged"
    if gh.issues[pull.number].state != "open":
        return "closed"
    return "draft" if pull.draft else "open"


def seen(gh: SimGitHub) -> Seen:
    return Seen(
        heads=dict(gh.git.refs),
        pulls={n: pull_state(gh, pull) for n, pull in gh.pull_requests.items()},
    )


def changed_files(git: Git, oid: str) -> list[str]:
    """What the commit changed against its first parent: `+ path` added, `~ path` changed,
    `- path` deleted."""
    commit = git.commits[oid]
    parent = git.commits[commit.parents[0]].tree if commit.parents else {}
    lines = []
    for path in sorted(set(parent) | set(commit.tree)):
        if path not in parent:
            lines.append(f"+ {path}")
        elif path not in commit.tree:
            lines.append(f"- {path}")
        elif parent[path] != commit.tree[path]:
            lines.append(f"~ {path}")
    return lines


def pull_request_said(pull: PullRequest, state: PullRequestState, *, fresh: bool) -> str:
    """What became of a pull request, `fresh` when it was not there before."""
    if state == "merged":
        return f"merged into {pull.base} as {(pull.merge_commit or '')[:7]}"
    if state == "closed":
        return "closed without merging"
    if fresh:
        ready = "" if state == "draft" else " and marked ready for review"
        return f"opened as a draft from {pull.head}{ready}"
    return "marked ready for review"


def news(gh: SimGitHub, before: Seen, base_of: Callable[[str], str]) -> list[str]:
    """What changed since `before`, one line each (a commit's files beneath it): new branches
    (`base_of` names the branch each was made from), new commits along each branch's first
    parents, the merges, and the pull requests' changes. A pull request's merge commit is
    told once, as the pull request's merge."""
    git = gh.git
    now = seen(gh)
    told: set[str] = set()
    for head in before.heads.values():
        told |= git.ancestors(head)
    told |= {pull.merge_commit for pull in gh.pull_requests.values() if pull.merge_commit}
    lines: list[str] = []
    for name, head in now.heads.items():
        if before.heads.get(name) == head:
            continue
        chain, oid = git.first_parents(head, told)
        if name not in before.heads:
            lines.append(f"GitHub: branch {name} created from {base_of(name)} at {(oid or '')[:7]}")
        for new in reversed(chain):
            lines += _commit_lines(git, now.heads, name, new)
        told |= set(chain)
    for number, state in now.pulls.items():
        if before.pulls.get(number) != state:
            pull = gh.pull_requests[number]
            said = pull_request_said(pull, state, fresh=number not in before.pulls)
            lines.append(f"GitHub: pull request #{number} {said}")
    return lines


def _commit_lines(git: Git, heads: Mapping[str, str], branch: str, oid: str) -> list[str]:
    commit = git.commits[oid]
    if len(commit.parents) > 1:
        merged = [name for name, head in heads.items() if head == commit.parents[1]]
        what = merged[0] if merged else commit.parents[1][:7]
        return [f"GitHub: {what} merged into {branch} as {oid[:7]} by {commit.author}"]
    said = f"GitHub: {branch} → {oid[:7]} by {commit.author}: {commit.headline}"
    return [said, *(f"  {line}" for line in changed_files(git, oid))]


def work_line(
    gh: SimGitHub, branch: str, pull_request: int | None, merged: Sequence[str]
) -> str | None:
    """What GitHub holds of a branch in one line: its head, how many of the `merged` heads
    (an epic's tasks') it holds, Baton's commits, and what became of its pull request. None
    when the branch does not exist."""
    git = gh.git
    head = git.head(branch)
    if head is None:
        return None
    held = git.ancestors(head)
    into = sum(1 for oid in merged if oid in held)
    ours = sum(1 for oid in held if git.commits[oid].author == gh.bot_login)
    line = (
        f"{branch} at {head[:7]}, {into} task branch(es) merged into it, {ours} commit(s) by Baton"
    )
    pull = gh.pull_requests.get(pull_request) if pull_request is not None else None
    if pull is None:
        return f"{line}, no pull request"
    state = pull_state(gh, pull)
    said = pull_request_said(pull, state, fresh=False) if state in ("merged", "closed") else state
    return f"{line}; pull request #{pull.number} {said}"
