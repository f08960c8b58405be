"""An epic's sub-issues over GitHub: read in one query, created and linked in batches.

An epic's sub-issues are one query; a plan's tasks are created as sub-issues (`createIssue` with
`parentIssueId`: created and linked in one step) 20 to a document, then their "blocked by" edges
(`addBlockedBy`) 20 to a document, after one query that finds the tasks already made by the mark
in their body (trusted on the bot's own issues only) and the edges already there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baton.core.model.epic import CreatedTask, NewTask, TaskCreationFacts, TaskCreationPlan
from baton.core.text import task_marker as marker
from baton.errors import GraphQLUnusable, TrackerError
from baton.github.graphql.answers import STATUS_OF, FieldError, field_errors
from baton.github.graphql.git import qualified
from baton.github.graphql.mutation import Mutation
from baton.github.graphql.sub_issues import (
    EDGES_PER_DOCUMENT,
    TASKS_PER_DOCUMENT,
    SubIssueFound,
    created_issue,
    parse_sub_issues,
    sub_issues_document,
    task_body,
)
from baton.github.labels import label_node
from baton.github.tracker import SubIssue
from baton.github.transport import Role
from baton.names import BOT_LOGIN


def _one_line(text: str) -> str:
    return " ".join(text.split())


class GitHubSubIssues(Role):
    """`tracker.SubIssues` over the transport."""

    # Whose task marks are trusted: the bot's own issues. GITHUB_TOKEN writes as BOT_LOGIN; a
    # GitHub App token needs its own login passed in.
    bot_login: str = BOT_LOGIN

    def _trusted_mark(self, epic: int, author: str, body: str) -> str | None:
        """The task key of the body's mark, only on the bot's own issue and for this epic."""
        if author.casefold() != self.bot_login.casefold():
            return None
        mark = marker.read(body)
        return mark[1] if mark is not None and mark[0] == epic else None

    def _sub_issues_state(
        self, number: int, labels: Sequence[str], what: str, operation: str, branch: str = ""
    ) -> tuple[str, str, list[SubIssue], dict[str, str]]:
        """One query: (repository node id, the issue's node id, its sub-issues, the node ids of
        `labels` the repository has, by casefolded name); with `branch`, `self.branch_start` is
        the default branch's head when `branch` is missing (else "")."""
        self.transport.graphql_only(what)
        read = self.known.sub_issues_read.pop(number, None)
        if (
            read is not None
            and all(name.casefold() in read.looked_up for name in labels)
            and (not branch or branch == read.branch)
        ):
            # The run's read just brought all this query would: no call of its own.
            start = read.default_head if branch and not read.branch_found else ""
            self.branch_start = start
            nodes = {
                name.casefold(): node
                for name in labels
                if (node := self.known.label_nodes.get(name.casefold()))
            }
            return read.repository, read.issue, self._subs(number, read.found), nodes
        variables: dict[str, Any] = {
            "owner": self.transport.owner,
            "name": self.transport.name,
            "number": number,
        }
        variables |= {f"l{i}": name for i, name in enumerate(labels)}
        if branch:
            variables["ref"] = qualified(branch)
        document = sub_issues_document(len(labels), operation=operation, branch=bool(branch))
        try:
            answer = self.transport.query(document, variables, what)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None
        repository = answer["data"].get("repository") or {}
        errors = field_errors(answer)
        issue = repository.get("issue")
        if not issue or errors:
            error = next(iter(errors.values()), FieldError("issue", "NOT_FOUND", "null"))
            raise self.transport.refused(what, error)
        found = self._subs(number, parse_sub_issues(issue))
        nodes = {
            str(x["name"]).casefold(): str(x["id"])
            for i in range(len(labels))
            if (x := repository.get(f"l{i}"))
        }
        self.known.label_nodes.update(nodes)
        head = ((repository.get("defaultBranchRef") or {}).get("target") or {}).get("oid")
        self.branch_start = str(head or "") if branch and not repository.get("ref") else ""
        return str(repository["id"]), str(issue["id"]), found, nodes

    def _subs(self, number: int, found: list[SubIssueFound]) -> list[SubIssue]:
        return [
            SubIssue(
                number=sub.number,
                node_id=sub.node_id,
                open=sub.open,
                labels=sub.labels,
                author=sub.author,
                marker=self._trusted_mark(number, sub.author, sub.body),
                blocked_by=sub.blocked_by,
            )
            for sub in found
        ]

    def sub_issues(self, number: int) -> list[SubIssue]:
        what = f"reading the sub-issues of #{number}"
        return self._sub_issues_state(number, (), what, "BatonSubIssues")[2]

    def create_tasks(self, plan: TaskCreationPlan) -> TaskCreationFacts:
        """(1) one query: the repository's and the epic's node ids, the epic's sub-issues with
        their marks and blockers, the labels' node ids; (2) a label the repository lacks is
        created (REST, grey: a status label is styled when first set); (3) one document of
        `createIssue` fields per 20 missing tasks, each created as the epic's sub-issue
        (`parentIssueId`), its mark in its body; (4) one document of `addBlockedBy` fields per
        20 missing edges. A task found by its mark is not created again, an edge present is
        not added again: a re-run after a crash does only what is missing."""
        epic = plan.epic
        what = f"creating the tasks of #{epic}"
        keys = {task.key for task in plan.tasks}
        unknown = sorted({k for edge in plan.edges for k in edge} - keys)
        if unknown:
            raise TrackerError(f"{what}: the edges name tasks the plan lacks: {unknown}")
        names = list(dict.fromkeys(label for task in plan.tasks for label in task.labels))
        repository, parent, found, label_nodes = self._sub_issues_state(
            epic, names, what, "BatonTasks", plan.branch
        )
        # The epic's branch rides in the first document sent (or one of its own).
        self.branch_made = False
        self.pending_ref = (
            (repository, plan.branch, self.branch_start) if self.branch_start else None
        )
        tasks: dict[str, SubIssue] = {}
        for sub in found:
            if sub.marker is not None and sub.marker not in tasks:  # the oldest one is kept
                tasks[sub.marker] = sub
        missing = [task for task in plan.tasks if task.key not in tasks]
        if missing:
            ids = {
                name: label_nodes.get(name.casefold())
                or label_node(self.transport, self.known, name, None)
                for name in dict.fromkeys(x for task in missing for x in task.labels)
            }
            for start in range(0, len(missing), TASKS_PER_DOCUMENT):
                chunk = missing[start : start + TASKS_PER_DOCUMENT]
                tasks |= self._create_chunk(epic, repository, parent, chunk, ids, what)
        edges = [
            (blocked, blocking)
            for blocked, blocking in dict.fromkeys(plan.edges)
            if tasks[blocking].number not in tasks[blocked].blocked_by
        ]
        for start in range(0, len(edges), EDGES_PER_DOCUMENT):
            self._add_edges(epic, edges[start : start + EDGES_PER_DOCUMENT], tasks, what)
        made = False
        if self.pending_ref is not None:
            made = self._made_ref(self.transport.mutate(self._ref_document(), what))
        return TaskCreationFacts(
            created=[
                CreatedTask(
                    key=task.key, number=tasks[task.key].number, node_id=tasks[task.key].node_id
                )
                for task in plan.tasks
            ],
            branch_created=made or self.branch_made,
        )

    # Set by create_tasks: the branch to make (repository, name, start) until a document
    # carries it, and whether one did.
    pending_ref: tuple[str, str, str] | None = None
    branch_start: str = ""
    branch_made: bool = False

    def _ref_document(self, doc: Mutation | None = None) -> Mutation:
        """`doc` (or a new one) carrying the pending branch as its `branch` field."""
        doc = doc if doc is not None else Mutation(operation="BatonCreateBranch")
        if self.pending_ref is not None:
            repository, name, start = self.pending_ref
            doc.create_ref("branch", repository, qualified(name), start)
        return doc

    def _made_ref(self, answer: dict[str, Any]) -> bool:
        """Whether the document's `branch` field made the branch. Not made (a racing run made
        it first): the run's own branch step finds it and judges it, as for any branch."""
        if self.pending_ref is None:
            return False
        self.pending_ref = None
        self.branch_made = bool(((answer.get("data") or {}).get("branch") or {}).get("ref"))
        return self.branch_made

    def _create_chunk(
        self,
        epic: int,
        repository: str,
        parent: str,
        chunk: list[NewTask],
        labels: dict[str, str],
        what: str,
    ) -> dict[str, SubIssue]:
        doc = self._ref_document(Mutation(operation="BatonCreateTasks"))
        with_ref = self.pending_ref is not None
        for i, task in enumerate(chunk):
            ids = [labels[x] for x in dict.fromkeys(task.labels)]
            doc.create_issue(
                f"t{i}",
                repository,
                task.title,
                task_body(epic, task.key, task.body),
                ids,
                parent,
            )
        answer = self.transport.mutate(doc, what)
        if with_ref:
            self._made_ref(answer)
        errors = field_errors(answer, doc.aliases)
        errors.pop("branch", None)  # not made: judged by the run's branch step
        made: dict[str, SubIssue] = {}
        for i, task in enumerate(chunk):
            created = created_issue(answer["data"], f"t{i}")
            if created is not None:
                made[task.key] = SubIssue(
                    number=created[0],
                    node_id=created[1],
                    open=True,
                    labels=task.labels,
                    author=self.bot_login,
                    marker=task.key,
                )
        if errors:
            alias, error = next(iter(errors.items()))
            key = chunk[int(alias[1:])].key if alias[1:].isdigit() else alias
            raise TrackerError(
                _one_line(
                    f"GitHub refused creating {len(errors)} of {len(chunk)} tasks of #{epic} "
                    f"(GraphQL), {key} first: {error.kind} {error.message}"
                ),
                status=STATUS_OF.get(error.kind),
                kind=error.kind,
                said=error.message,
            )
        return made

    def _add_edges(
        self, epic: int, edges: list[tuple[str, str]], tasks: dict[str, SubIssue], what: str
    ) -> None:
        doc = self._ref_document(Mutation(operation="BatonBlockedBy"))
        with_ref = self.pending_ref is not None
        for i, (blocked, blocking) in enumerate(edges):
            doc.add_blocked_by(f"e{i}", tasks[blocked].node_id, tasks[blocking].node_id)
        answer = self.transport.mutate(doc, what)
        if with_ref:
            self._made_ref(answer)
        refused = {
            alias: error
            for alias, error in field_errors(answer, doc.aliases).items()
            if alias != "branch"
            # added meanwhile (a racing run): what was wanted is there
            if "already blocked" not in error.message.casefold()
        }
        if refused:
            alias, error = next(iter(refused.items()))
            blocked, blocking = edges[int(alias[1:])] if alias[1:].isdigit() else (alias, "?")
            raise TrackerError(
                _one_line(
                    f"GitHub refused {len(refused)} of {len(edges)} dependencies of the tasks "
                    f"of #{epic} (GraphQL), {blocked} blocked by {blocking} first: "
                    f"{error.kind} {error.message}"
                ),
                status=STATUS_OF.get(error.kind),
                kind=error.kind,
                said=error.message,
            )
