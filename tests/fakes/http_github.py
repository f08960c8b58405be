"""The fake GitHub of the integration tests: GitHub's API over the model (`baton.sim.api`),
served over a real socket at ``url``.

Why a real server for these: PyGithub builds URLs from ``base_url``, follows ``Link`` headers and
retries through urllib3, and the CLI and the Docker image run in processes of their own; only a
real socket exercises all of that. The state, routes, GraphQL and faults are
`baton.sim.api.face.GitHubApi`'s, the same the demo and the in-process tests use.
"""

from __future__ import annotations

from baton.sim.api.face import (
    REACTIONS,
    REPOSITORY_ID,
    ROLES,
    Call,
    CommentState,
    DispatchRequest,
    EventState,
    Fault,
    FieldFault,
    GitHubApi,
    IssueState,
    LabelState,
    PullState,
    ReactionState,
    UserRef,
)
from fakes.http_server import Serving

__all__ = [
    "REACTIONS",
    "REPOSITORY_ID",
    "ROLES",
    "Call",
    "CommentState",
    "DispatchRequest",
    "EventState",
    "FakeGitHub",
    "Fault",
    "FieldFault",
    "IssueState",
    "LabelState",
    "PullState",
    "ReactionState",
    "UserRef",
]


class FakeGitHub(Serving, GitHubApi):
    """GitHub for one repository, reachable over HTTP at ``url`` once started."""
