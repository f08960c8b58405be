"""The GraphQL documents Baton sends to GitHub, grouped by role, and how their answers are read.

Why GraphQL: one query returns the issue, its labels, its first 100 comments and the node ids of
the status labels, where REST needs two calls or more; one mutation document carries every write
of a run, where REST needs one call each. Pure text and dict handling: no I/O here, so the
documents and the parsing are tested alone (against GitHub's schema, in tests/fakes).

The names are gathered here for the model's API (`baton.sim.api`), which answers the same
documents in process and, for the tests, over HTTP; Baton's own modules import from the role's
module.
"""

from baton.github.graphql.answers import (
    STATUS_OF,
    FieldError,
    created_id,
    field_errors,
    nested_errors,
)
from baton.github.graphql.git import (
    BRANCH,
    BRANCH_AND_BASE,
    CREATE_COMMIT,
    CREATE_REF,
    REF,
    commit_input,
    parse_ref,
    qualified,
)
from baton.github.graphql.issues import (
    COMMENT_BODY,
    COMMENTS_PAGE,
    PAGE,
    LabelFound,
    ReadResult,
    author_login,
    parse_comment,
    parse_comments,
    parse_read,
    read_document,
    read_many_document,
)
from baton.github.graphql.mutation import REACTIONS, Mutation
from baton.github.graphql.sub_issues import (
    BLOCKERS,
    EDGES_PER_DOCUMENT,
    SUB_ISSUE_LABELS,
    TASKS_PER_DOCUMENT,
    SubIssueFound,
    created_issue,
    parse_sub_issues,
    sub_issues_document,
    task_body,
)

__all__ = [
    "BLOCKERS",
    "BRANCH",
    "BRANCH_AND_BASE",
    "COMMENTS_PAGE",
    "COMMENT_BODY",
    "CREATE_COMMIT",
    "CREATE_REF",
    "EDGES_PER_DOCUMENT",
    "PAGE",
    "REACTIONS",
    "REF",
    "STATUS_OF",
    "SUB_ISSUE_LABELS",
    "TASKS_PER_DOCUMENT",
    "FieldError",
    "LabelFound",
    "Mutation",
    "ReadResult",
    "SubIssueFound",
    "author_login",
    "commit_input",
    "created_id",
    "created_issue",
    "field_errors",
    "nested_errors",
    "parse_comment",
    "parse_comments",
    "parse_read",
    "parse_ref",
    "parse_sub_issues",
    "qualified",
    "read_document",
    "read_many_document",
    "sub_issues_document",
    "task_body",
]
