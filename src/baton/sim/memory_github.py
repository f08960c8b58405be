"""GitHub in memory: issues, labels, comments with authors, reactions, permissions, dispatches,
and the repository's branches, commits, pull requests, reviews and check runs.

It powers `baton demo` and `baton simulate` and is the one shared fake of the test suite. Every
change is logged in a compact readable form (`#1 +label status:received`), every call is
counted per operation, and `fail_next` makes a named operation raise, for fault tests.

The repository is a `model.git.Git`: `main` starts at a commit of a README, commits carry
their whole tree and the ids git would give them, and a commit whose expected head is stale is
refused as `createCommitOnBranch` refuses it. Pull requests take their numbers from the issues'
sequence, as on GitHub. Sub-issues and "blocked by" edges follow GitHub's rules
(`model.relations.Relations`); a plan's tasks are created in the round trips `GitHubTracker` makes,
and a task branch merges back as the merges API does (`model.git.Git.merge_branches`, with
its conflicts). What humans and CI do to them (`human_push`, `human_review`,
`human_merge`, `human_close_pr`, `add_check_run`) are helpers for tests and scenarios.

What GitHub itself does it takes from `sim/model/`, as the HTTP fake of the tests does: body
and label limits, label names that ignore case, roles by login, ids past 2**31. It renders its
issues, comments and labels as GitHub's JSON (`payloads`), so `payloads` builds a webhook
payload from it exactly as from the HTTP fake.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from baton.core.model.issue_facts import Comment
from baton.errors import TrackerError
from baton.github.lookups import look_up
from baton.github.tracker import LookedUp, Lookup
from baton.sim.memory.base import _refusing
from baton.sim.memory.epics import EpicCalls
from baton.sim.memory.github_json import GitHubJson
from baton.sim.memory.issues import IssueCalls
from baton.sim.memory.pages import PageCalls
from baton.sim.model import rules
from baton.sim.model.issues import User
from baton.sim.model.pulls import VERDICTS, PullRequest

__all__ = ["MemoryGitHub", "PullRequest"]  # scenario.py reads PullRequest here


class MemoryGitHub(IssueCalls, EpicCalls, PageCalls, GitHubJson):
    """One repository's issues and work, held in memory; implements
    `baton.github.tracker.Tracker`."""

    def look_up(self, lookup: Lookup) -> LookedUp:
        """`Lookups.look_up` by its own reads, each counted as `GitHubTracker` counts it."""
        return look_up(self, lookup)

    def human_comment(
        self, number: int, body: str, *, author: str, association: str = "NONE", bot: bool = False
    ) -> Comment:
        comment = self._add_comment(number, body, author=author, bot=bot, association=association)
        self.log.append(f"#{number} comment {comment.id} by {author}")
        return comment

    def human_edit(self, comment_id: int, body: str, *, by: str | None = None) -> None:
        """Someone edits the comment: its author in the UI by default, or `by` (a maintainer,
        another workflow posting as the bot)."""
        stored = self.comment_store[comment_id]
        self.store.edit(stored, body, User.named(by or stored.author))
        self.log.append(f"#{stored.issue} comment {comment_id} edited by {by or stored.author}")

    def human_label(
        self, number: int, label: str, *, add: bool = True, by: str | None = None
    ) -> None:
        """`by` (the issue's author unless named) adds or removes `label`."""
        issue = self._issue(number)
        who = User.named(by or issue.author)
        with _refusing():
            if add:
                self.store.add_label(issue, label, who)
            else:
                self.store.remove_label(issue, label, who)
        self._touch(number)
        self.log.append(f"#{number} {'+' if add else '-'}label {label} (human)")

    def human_close(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "closed", by)

    def human_reopen(self, number: int, *, by: str | None = None) -> None:
        self._set_state(number, "open", by)

    def add_label(
        self, name: str, color: str = rules.DEFAULT_LABEL_COLOR, description: str | None = None
    ) -> None:
        """The repository has the label `name` (made in the UI, say): Baton need not create it."""
        if self.store.find_label(name) is not None:
            raise ValueError(f"label {name!r} already exists")
        with _refusing():
            self.store.create_label(name, color, description)

    def set_permission(self, login: str, permission: str) -> None:
        """Give `login` a repository role: admin, maintain, write, triage, read or none."""
        self.collaborators.set(login, permission)

    def add_team_member(self, team: str, login: str, *, state: str = "active") -> None:
        """Put `login` in `org/team-slug`."""
        org, _, slug = team.partition("/")
        self.teams.add(org, slug, login, state=state)

    def fail_next(
        self,
        operation: str,
        error: TrackerError | None = None,
        times: int = 1,
        *,
        after: int = 0,
    ) -> None:
        """Make the next `times` calls of `operation` (a method name, or a field of a
        document: `create_issue`, `add_blocked_by`) raise, once `after` more have passed
        (`fail_next("create_issue", after=3)`: the request dies at the fourth task)."""
        failure = error or TrackerError(f"injected failure in {operation}")
        self._failures.setdefault(operation, []).extend([None] * after + [failure] * times)

    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        """Someone makes `child` a sub-issue of `parent` (GitHub's rules: one parent, at most
        100 sub-issues, not itself); raises `RelationRefusal` as GitHub refuses."""
        self._issue(parent)
        self._issue(child)
        self.relations.add_sub_issue(parent, child, replace_parent=replace_parent)
        self.log.append(f"#{child} sub-issue of #{parent}")

    def add_blocked_by(self, issue: int, blocking: int) -> None:
        """Someone marks `issue` as blocked by `blocking`."""
        self._issue(issue)
        self._issue(blocking)
        self.relations.add_blocked_by(issue, blocking)
        self.log.append(f"#{issue} blocked by #{blocking}")

    def sub_issues_of(self, number: int) -> list[int]:
        return self.relations.sub_issues(number)

    def blocked_by_of(self, number: int) -> list[int]:
        return self.relations.blocked_by(number)

    def parent_of(self, number: int) -> int | None:
        return self.relations.parent(number)

    def human_push(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str = "A change pushed by hand",
        by: str = "maria",
    ) -> str:
        """`by` pushes one commit to `branch` (a new branch starts at the default branch):
        each path's new text, or None to delete it. Returns the new head; a Baton commit that
        still expects the old one is refused as stale."""
        data = {path: None if text is None else text.encode() for path, text in files.items()}
        commit = self.git.push(branch, data, message, by, self.now)
        self.log.append(f"push {commit.oid[:7]} to {branch} by {by}: {commit.headline}")
        return commit.oid

    def human_open_pull_request(
        self, branch: str, title: str, *, by: str = "bob", body: str = "", draft: bool = False
    ) -> int:
        """`by` opens a pull request from `branch` to the default branch (a stranger's, say)."""
        return self._open(branch, title, body, author=by, draft=draft).number

    def human_review(
        self,
        pull_request: int,
        by: str,
        verdict: str,
        body: str = "",
        notes: Iterable[tuple[str, int | None, str]] = (),
    ) -> int:
        """`by` submits a review (approved, changes_requested or commented) on the pull
        request's current head, with inline notes (path, line, body). Returns its id."""
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; expected one of {VERDICTS}")
        found = self._pull(pull_request)
        review = self.work.review(found, User.named(by), verdict, body, notes)
        self.log.append(f"#{found.number} review {review.id} {verdict} by {by}")
        return review.id

    def human_merge(self, pull_request: int, by: str = "maria") -> str:
        """`by` merges the open pull request with a merge commit; returns the commit."""
        found = self._pull(pull_request)
        commit = self.work.merge(found, User.named(by))
        self.log.append(f"#{found.number} closed by {by}")
        self.log.append(f"#{found.number} merged by {by}")
        return commit

    def human_close_pr(self, pull_request: int, by: str = "maria") -> None:
        """`by` closes the pull request without merging it."""
        found = self._pull(pull_request)
        self.work.close(found, User.named(by))
        self.log.append(f"#{found.number} closed by {by}")

    def add_check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str | None,
        summary: str = "",
        *,
        title: str = "",
        text: str = "",
    ) -> int:
        """CI reports a check run on a commit: a conclusion (success, failure, timed_out...)
        or None while it runs. A later run of the same name supersedes it."""
        run = self.work.add_check_run(head_sha, name, conclusion, title, summary, text)
        self.log.append(f"check {name} {conclusion or run.status} on {head_sha[:7]}")
        return run.id
