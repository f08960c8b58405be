"""Sub-issues and "blocked by" dependencies between one repository's issues, with GitHub's
limits and refusals. Stdlib only.
"""

from __future__ import annotations

SUB_ISSUE_LIMIT = 100  # sub-issues per parent (GitHub refuses the 101st)
# GitHub's refusals, word for word where seen (addSubIssue's limit, from a failing workflow's
# log; "one parent", from the gh CLI's fix for it; a repeated dependency, from REST's and
# GraphQL's 422 as several clients quote it). A repeated sub-issue's words are as remembered,
# not checked; the self-referencing ones are documented nowhere: these words are ours.
SUB_ISSUE_LIMIT_MESSAGE = f"Parent cannot have more than {SUB_ISSUE_LIMIT} sub-issues"
ONE_PARENT_MESSAGE = "Sub issue may only have one parent"
DUPLICATE_SUB_ISSUE_MESSAGE = "Issue may not contain duplicate sub-issues"
OWN_SUB_ISSUE_MESSAGE = "An issue cannot be a sub-issue of itself"
ALREADY_BLOCKED_MESSAGE = "Issue is already blocked by this issue"
BLOCKS_ITSELF_MESSAGE = "An issue cannot block itself"


class RelationRefusal(Exception):
    """GitHub refused a sub-issue or a dependency (422 over REST, UNPROCESSABLE in GraphQL)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Relations:
    """The sub-issues (one parent each, at most 100 per parent, in the order they were added)
    and the "blocked by" edges of one repository's issues, by number, with GitHub's refusals."""

    def __init__(self) -> None:
        self.parents: dict[int, int] = {}
        self.children: dict[int, list[int]] = {}
        self.blockers: dict[int, list[int]] = {}

    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        if parent == child:
            raise RelationRefusal(OWN_SUB_ISSUE_MESSAGE)
        known = self.children.setdefault(parent, [])
        if child in known:
            raise RelationRefusal(DUPLICATE_SUB_ISSUE_MESSAGE)
        if child in self.parents and not replace_parent:
            raise RelationRefusal(ONE_PARENT_MESSAGE)
        if len(known) >= SUB_ISSUE_LIMIT:
            raise RelationRefusal(SUB_ISSUE_LIMIT_MESSAGE)
        if child in self.parents:
            self.children[self.parents[child]].remove(child)
        self.parents[child] = parent
        known.append(child)

    def check_sub_issue(self, parent: int) -> None:
        """Whether `parent` takes one more sub-issue (createIssue with a parent)."""
        if len(self.children.get(parent, [])) >= SUB_ISSUE_LIMIT:
            raise RelationRefusal(SUB_ISSUE_LIMIT_MESSAGE)

    def add_blocked_by(self, issue: int, blocking: int) -> None:
        if issue == blocking:
            raise RelationRefusal(BLOCKS_ITSELF_MESSAGE)
        known = self.blockers.setdefault(issue, [])
        if blocking in known:
            raise RelationRefusal(ALREADY_BLOCKED_MESSAGE)
        known.append(blocking)

    def sub_issues(self, parent: int) -> list[int]:
        return list(self.children.get(parent, []))

    def parent(self, child: int) -> int | None:
        return self.parents.get(child)

    def blocked_by(self, issue: int) -> list[int]:
        return list(self.blockers.get(issue, []))

    def blocking(self, issue: int) -> list[int]:
        return sorted(n for n, known in self.blockers.items() if issue in known)
