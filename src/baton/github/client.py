"""The Tracker on the real GitHub API: one role module each, over one transport.

A run reads with one GraphQL query and writes with one GraphQL mutation document (`issues`,
`issue_writes`, `batch_write`); an agent's changeset is one signed commit (`git`); the pull
request opens over REST (`pulls`); an epic's tasks are created in batches (`sub_issues`); a
check run is posted over REST (`checks`); what a decision asks to be looked up is answered by
the roles' own reads (`lookups`). Every call goes through `transport`, which owns
retries, the call budget, the counting and the fall-back to REST, and is the only module
importing PyGithub.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from baton.github.batch_write import write_batched
from baton.github.checks import GitHubChecks
from baton.github.git import GitHubGit
from baton.github.issue_writes import GitHubIssueWrites
from baton.github.issues import GitHubIssues
from baton.github.lookups import look_up
from baton.github.pages import GitHubPages
from baton.github.pulls import GitHubPullRequests
from baton.github.sub_issues import GitHubSubIssues
from baton.github.tracker import LookedUp, Lookup, Writes, Written
from baton.github.transport import Known, Role, Transport
from baton.names import BOT_LOGIN

if TYPE_CHECKING:
    from github import GithubRetry


class GitHubTracker(
    GitHubIssues,
    GitHubIssueWrites,
    GitHubGit,
    GitHubPullRequests,
    GitHubSubIssues,
    GitHubPages,
    GitHubChecks,
):
    """`baton.github.tracker.Tracker` (and `Transported`): the roles over one transport,
    sharing what the reads learned."""

    def __init__(
        self,
        repository: str,
        token: str,
        *,
        api_url: str = "https://api.github.com",
        seconds_between_writes: float = 0.0,
        timeout: int = 15,
        retry: GithubRetry | int | None = None,
        secondary_rate_wait: float = 30.0,
        labels: Sequence[str] = (),
        graphql: bool = True,
        bot_login: str = BOT_LOGIN,
        connection: Callable[..., Any] | None = None,
    ) -> None:
        """`labels`: the status labels a run may add, whose node ids the read looks up so that
        adding one costs nothing more; `graphql=False` keeps to REST; `bot_login`: the account
        the token writes as, whose sub-issues' task marks are trusted; `connection`: the
        connection class of the requesters (`Transport`'s), the model in process in the sim."""
        transport = Transport(
            repository,
            token,
            api_url=api_url,
            seconds_between_writes=seconds_between_writes,
            timeout=timeout,
            retry=retry,
            secondary_rate_wait=secondary_rate_wait,
            graphql=graphql,
            connection=connection,
        )
        Role.__init__(self, transport, Known(lookups=tuple(dict.fromkeys(labels))))
        self.repository = repository
        self.bot_login = bot_login

    def write(self, writes: Writes) -> Written:
        return write_batched(self, writes)

    def look_up(self, lookup: Lookup) -> LookedUp:
        return look_up(self, lookup)

    # --- what the transport counted, for the job summary and the benchmarks ---------------
    @property
    def requests(self) -> int:
        return self.transport.requests

    @property
    def graphql_requests(self) -> int:
        return self.transport.graphql_requests

    @property
    def budget(self) -> dict[str, tuple[int, int]]:
        return self.transport.budget

    @property
    def notes(self) -> list[str]:
        return self.transport.notes

    @property
    def graphql(self) -> bool:
        """Whether GraphQL is still used (False after a lasting fall-back to REST)."""
        return self.transport.graphql
