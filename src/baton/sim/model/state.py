"""One repository on GitHub, whole: the one model of GitHub keeps its state in it.

GitHub's API over the model (`sim.api`: in process for `SimGitHub`, on a socket for the tests'
HTTP fake in `tests/fakes/`) is the one face over a `GitHubState`: it translates a request into
its operations, and their answers and refusals into GitHub's. The clock is the state's: the face
moves `now`, and every stamp and commit takes it from here. Stdlib only.
"""

from __future__ import annotations

from datetime import datetime

from baton.sim.model import rules
from baton.sim.model.git import Git
from baton.sim.model.issues import Issues
from baton.sim.model.pulls import PullRequests
from baton.sim.model.relations import Relations
from baton.sim.model.settings import RepositorySettings


class GitHubState:
    """Issues, comments, labels, people, the git repository, pull requests with their reviews
    and checks, the relations between issues and the settings of one repository, with one
    counter of ids (they order creation) and one clock."""

    def __init__(
        self, repo: str, *, bot_login: str, now: datetime, sort_labels: bool = False
    ) -> None:
        self.repo = repo
        self.now = now
        self.ids = rules.Ids()
        self.user_ids = rules.UserIds(bot_login)
        self.issues = Issues(self.ids, self.clock, sort_labels=sort_labels)
        self.collaborators = rules.Collaborators()
        self.teams = rules.Teams()
        self.git = Git(repo, when=now)
        self.relations = Relations()
        self.pulls = PullRequests(self.owner, self.issues, self.git, self.ids, self.clock)
        self.settings = RepositorySettings()

    def clock(self) -> datetime:
        return self.now

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]
