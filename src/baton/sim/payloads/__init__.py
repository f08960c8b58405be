"""GitHub's JSON, built from a fake GitHub's state: the webhook payloads of the events Baton
reads, and the objects inside them.

One builder for both fakes. `baton demo` and `baton simulate` feed these payloads from the
in-memory GitHub through `webhooks.parse`, so a simulated event takes exactly the path a real
one does; the tests build them from the HTTP fake and hand them to `baton run` as the file at
`GITHUB_EVENT_PATH`. Building a payload from the fake, after the change it reports (label the
issue, then build `labeled`), keeps event and API in agreement, as on GitHub, where a payload
is a snapshot taken just after the change.

Shapes follow GitHub's webhook docs: `issues` and `issue_comment` carry the same `issue` and
`comment` objects as the REST API (with a `pull_request` key only for pull requests), plus
`action`, `sender` and `repository`; a fake renders those objects with the functions of
`objects`, so its REST answers and its payloads are the same objects. The events of the issue's
branch and pull request (`pull_request_review`, `pull_request`, `check_suite`, `workflow_run`)
are built from what the caller says of the pull request, since the fakes keep none. Stdlib only.

The builders live by event family (`issues`: issues and comments; `dispatch`: dispatch and
schedule; `pull_requests`: the branch's reviews, merges and checks), the objects inside them in
`objects`, what they share in `source`; callers use this package's names
(`payloads.labeled(...)`), so a builder moving between the modules moves no caller.
"""

from __future__ import annotations

from baton.sim.payloads.dispatch import (
    from_dispatch,
    repository_dispatch,
    schedule,
    workflow_dispatch,
)
from baton.sim.payloads.issues import (
    closed,
    comment_created,
    comment_edited,
    edited,
    issue_comment,
    issues,
    labeled,
    opened,
    reopened,
    unlabeled,
)
from baton.sim.payloads.objects import (
    comment_object,
    issue_object,
    label_object,
    reactions_object,
    repository_object,
    user_object,
)
from baton.sim.payloads.pull_requests import (
    ACTIONS_APP,
    DEFAULT_AT,
    check_suite_completed,
    pull_request_closed,
    pull_request_object,
    pull_request_review,
    workflow_run_completed,
)
from baton.sim.payloads.source import (
    DEFAULT_WORKFLOW,
    REPOSITORY_ID,
    DispatchRequest,
    Json,
    Source,
)

__all__ = [
    "ACTIONS_APP",
    "DEFAULT_AT",
    "DEFAULT_WORKFLOW",
    "REPOSITORY_ID",
    "DispatchRequest",
    "Json",
    "Source",
    "check_suite_completed",
    "closed",
    "comment_created",
    "comment_edited",
    "comment_object",
    "edited",
    "from_dispatch",
    "issue_comment",
    "issue_object",
    "issues",
    "label_object",
    "labeled",
    "opened",
    "pull_request_closed",
    "pull_request_object",
    "pull_request_review",
    "reactions_object",
    "reopened",
    "repository_dispatch",
    "repository_object",
    "schedule",
    "unlabeled",
    "user_object",
    "workflow_dispatch",
    "workflow_run_completed",
]
