"""The `Tracker` calls of an epic: its sub-issues, several issues at once, creating its tasks
in the round trips `GitHubTracker` makes, and merging a task's branch back.
"""

from __future__ import annotations

from baton.core.model.epic import (
    CreatedTask,
    MergeFacts,
    MergePlan,
    NewTask,
    TaskCreationFacts,
    TaskCreationPlan,
)
from baton.core.text import task_marker as marker
from baton.errors import TrackerError
from baton.github import graphql as gql
from baton.github.tracker import (
    Snapshot,
    SubIssue,
)
from baton.sim.memory.base import PAGE_SIZE, MemoryBase, _refusing
from baton.sim.model import git, relations


class EpicCalls(MemoryBase):
    """Sub-issues, read_many, create_tasks and merges, as the `Tracker` asks."""

    def _sub_issue(self, epic: int, number: int) -> SubIssue:
        issue = self.issues[number]
        mark = marker.read(issue.body) if issue.author == self.bot_login else None
        return SubIssue(
            number=number,
            node_id=self.node_id_of(number),
            open=issue.state == "open",
            labels=tuple(issue.labels[: gql.SUB_ISSUE_LABELS]),
            author=issue.author,
            marker=mark[1] if mark is not None and mark[0] == epic else None,
            blocked_by=tuple(self.relations.blocked_by(number)[: gql.BLOCKERS]),
        )

    def sub_issues(self, number: int) -> list[SubIssue]:
        """One round trip, as GitHubTracker's one query (`sub_issues` in `calls`); none right
        after a read of the issue itself, which brought them."""
        if self.sub_issues_read.pop(number, None) is None:
            self._call("sub_issues")
        self._issue(number)
        return [self._sub_issue(number, n) for n in self.relations.sub_issues(number)]

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        """One round trip for every issue's first 100 comments (`read_many` in `calls`), one
        more per further page of an issue with more; an issue that is not there (or is a pull
        request: GraphQL's `issue(number:)` finds none) is left out."""
        wanted = list(dict.fromkeys(numbers))
        if not wanted:
            return {}
        self._call("read_many")
        read: dict[int, Snapshot] = {}
        for number in wanted:
            issue = self.issues.get(number)
            if issue is None or issue.is_pull_request:
                continue
            comments = self.comments_of(number)
            for _ in range(PAGE_SIZE, len(comments), PAGE_SIZE):
                self._call("comments")  # the next page, by cursor
            read[number] = Snapshot(issue=None, comments=comments)
        return read

    def create_tasks(self, plan: TaskCreationPlan) -> TaskCreationFacts:
        """The round trips GitHubTracker makes: one query (`create_tasks` in `calls`), one per
        label the repository lacks (`create_label`), one document per 20 missing tasks (its
        fields `create_issue`), one per 20 missing edges (`add_blocked_by`). A field failed by
        `fail_next` kills its request there, as a 5xx would (what ran stays); GitHub's own
        refusals fail their field only, and the run stops after that document."""
        epic = plan.epic
        keys = {task.key for task in plan.tasks}
        unknown = sorted({k for edge in plan.edges for k in edge} - keys)
        if unknown:
            raise TrackerError(
                f"creating the tasks of #{epic}: the edges name tasks the plan lacks: {unknown}"
            )
        read = self.sub_issues_read.pop(epic, None)
        if read is None or (plan.branch and plan.branch != read):
            self._call("create_tasks")  # else the run's read brought what the query asks
        if self._issue(epic).is_pull_request:
            raise TrackerError(f"#{epic} is not an issue (NOT_FOUND)", status=404)
        tasks: dict[str, SubIssue] = {}
        for number in self.relations.sub_issues(epic):
            sub = self._sub_issue(epic, number)
            if sub.marker is not None and sub.marker not in tasks:
                tasks[sub.marker] = sub
        missing = [task for task in plan.tasks if task.key not in tasks]
        # The query read the default branch's head and whether the epic's branch exists: a
        # missing branch is made by the first document sent (or one of its own).
        start = self.git.head(self.git.default_branch)
        ref = (plan.branch, start) if plan.branch and self.git.head(plan.branch) is None else None
        self.branch_made = False
        for name in dict.fromkeys(x for task in missing for x in task.labels):
            if self.store.find_label(name) is None:
                self._call("create_label")
                with _refusing():
                    self.store.label_for(name)
                self.log.append(f"label {name} created")
        size = gql.TASKS_PER_DOCUMENT
        for first in range(0, len(missing), size):
            tasks |= self._create_chunk(epic, missing[first : first + size], ref)
            ref = None
        edges = [
            (blocked, blocking)
            for blocked, blocking in dict.fromkeys(plan.edges)
            if tasks[blocking].number not in tasks[blocked].blocked_by
        ]
        per = gql.EDGES_PER_DOCUMENT
        for first in range(0, len(edges), per):
            self._add_edges(epic, edges[first : first + per], tasks, ref)
            ref = None
        if ref is not None:
            batched = self._one_trip()
            try:
                self._create_ref(ref)
            finally:
                self._batched = batched
        return TaskCreationFacts(
            created=[
                CreatedTask(
                    key=task.key, number=tasks[task.key].number, node_id=tasks[task.key].node_id
                )
                for task in plan.tasks
            ],
            branch_created=self.branch_made,
        )

    branch_made = False  # whether the last create_tasks made the epic's branch

    def _create_ref(self, ref: tuple[str, str | None] | None) -> None:
        """`createRef` as a field of a creation document (`create_ref` in `calls`); refused
        (a racing run made it first), the run's own branch step judges the branch."""
        if ref is None or ref[1] is None:
            return
        self._call("create_ref")
        try:
            self.git.create_branch(ref[0], ref[1])
        except git.GitRefusal:
            return
        self.branch_made = True
        self.log.append(f"branch {ref[0]} created at {ref[1][:7]}")

    def _create_chunk(
        self, epic: int, chunk: list[NewTask], ref: tuple[str, str | None] | None = None
    ) -> dict[str, SubIssue]:
        batched = self._one_trip()
        made: dict[str, SubIssue] = {}
        refused: list[str] = []
        try:
            self._create_ref(ref)
            for task in chunk:
                self._call("create_issue")
                try:
                    self.relations.check_sub_issue(epic)
                except relations.RelationRefusal as refusal:
                    refused.append(f"{task.key}: UNPROCESSABLE {refusal.message}")
                    continue
                body = gql.task_body(epic, task.key, task.body)
                number = self.open_issue(
                    task.title, body, author=self.bot_login, labels=task.labels
                )
                self.relations.add_sub_issue(epic, number)
                self.log.append(f"#{number} sub-issue of #{epic}")
                made[task.key] = self._sub_issue(epic, number)
        finally:
            self._batched = batched
        if refused:
            raise TrackerError(
                f"GitHub refused creating {len(refused)} of {len(chunk)} tasks of #{epic} "
                f"(GraphQL), {refused[0].replace(':', ' first:', 1)}",
                status=422,
            )
        return made

    def _add_edges(
        self,
        epic: int,
        edges: list[tuple[str, str]],
        tasks: dict[str, SubIssue],
        ref: tuple[str, str | None] | None = None,
    ) -> None:
        batched = self._one_trip()
        refused: list[str] = []
        try:
            self._create_ref(ref)
            for blocked, blocking in edges:
                self._call("add_blocked_by")
                issue, by = tasks[blocked].number, tasks[blocking].number
                try:
                    self.relations.add_blocked_by(issue, by)
                except relations.RelationRefusal as refusal:
                    if refusal.message != relations.ALREADY_BLOCKED_MESSAGE:  # added meanwhile
                        refused.append(f"{blocked} blocked by {blocking}: {refusal.message}")
                    continue
                self.log.append(f"#{issue} blocked by #{by}")
        finally:
            self._batched = batched
        if refused:
            raise TrackerError(
                f"GitHub refused {len(refused)} of {len(edges)} dependencies of the tasks of "
                f"#{epic} (GraphQL), {refused[0].replace(':', ' first: UNPROCESSABLE', 1)}",
                status=422,
            )

    def merge(self, plan: MergePlan) -> MergeFacts:
        """REST `POST /merges`: one round trip (`merge` in `calls`), as the bot."""
        self._call("merge")
        try:
            made = self.git.merge_branches(
                plan.base, plan.head, plan.message, self.bot_login, self.now
            )
        except git.GitRefusal as refused:
            status = "conflict" if refused.kind == "conflict" else "missing"
            return MergeFacts(status=status, detail=refused.message)
        if made is None:
            return MergeFacts(status="up_to_date")
        self.log.append(f"merge {made.oid[:7]} of {plan.head} into {plan.base}")
        return MergeFacts(status="merged", oid=made.oid)
