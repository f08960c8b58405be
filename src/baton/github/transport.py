"""One connection to GitHub: retries, the call budget, the counting, and GraphQL's fall-back.

Every call Baton makes goes through here, so one place owns how a call is retried, counted and
turned into a `TrackerError` carrying GitHub's answer (never the token). The role modules
(`issues`, `issue_writes`, `git`, `pulls`, `sub_issues`) say what to ask; this says how.

PyGithub's `GithubRetry` retries 5xx answers and secondary rate limits (honouring
`retry-after`) — but a mutation document only on a rate limit, since a 502 may come after GitHub
ran part of it. Should GraphQL answer that it cannot take a document at all (nothing ran: a
GitHub Enterprise Server without a field, an exhausted GraphQL budget), `GraphQLUnusable` tells
the role to do the same over REST, and `fall_back` keeps the rest of the process there and says
so. The only module of Baton that imports PyGithub.

Of PyGithub it takes the `Requester` (and its retry and exceptions), never the package's
`__init__`: that imports every one of PyGithub's ~300 classes and, through `github.Auth`, jwt
and cryptography, ~90 ms of a transition's CPU for nothing Baton calls (the token always
arrives made; an App's key never reaches this process). `_requester_alone` enters the
package into `sys.modules` unexecuted, so its submodules load on their own.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from baton.errors import GraphQLUnusable, TrackerError
from baton.github.graphql.answers import STATUS_OF, FieldError
from baton.github.graphql.issues import LabelFound
from baton.github.graphql.mutation import Mutation
from baton.github.graphql.sub_issues import SubIssuesRead

if TYPE_CHECKING:
    from github.Auth import Auth


def _requester_alone() -> None:
    """Load `github.Requester` and `github.GithubRetry` without running `github/__init__.py`.

    The package object comes from its spec (importlib's `module_from_spec`), unexecuted; the
    two modules load into it. Should code in the same process later ask the package for any
    name (`from github import Github`, as tests do; the requester's own `github.GithubException`
    on a path Baton never takes), its `__init__` runs then, once (a module's `__getattr__`, PEP
    562), so PyGithub stays whole for anyone else. Until then the package does not show the
    modules loaded, whose names (`GithubRetry`) `__init__` gives to their classes. The logger
    is set up as `__init__` sets it, so PyGithub's retry and back-off messages still show."""
    if "github" in sys.modules:
        return
    spec = importlib.util.find_spec("github")
    if spec is None or spec.loader is None:
        return  # not installed: the imports below fail as they would have
    package = importlib.util.module_from_spec(spec)
    sys.modules["github"] = package
    try:
        for name in ("github.Requester", "github.GithubRetry"):
            importlib.import_module(name)
    except BaseException:
        del sys.modules["github"]
        raise
    loaded = {k: v for k, v in vars(package).items() if isinstance(v, ModuleType)}
    for name in loaded:
        delattr(package, name)
    logger = logging.getLogger("github")
    handler = logging.StreamHandler()

    def complete(name: str) -> Any:
        del vars(package)["__getattr__"]
        vars(package).update(loaded)  # PyGithub's modules reach each other through them
        logger.removeHandler(handler)  # `__init__` adds its own
        assert spec.loader is not None
        spec.loader.exec_module(package)
        return getattr(package, name)

    vars(package)["__getattr__"] = complete
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)


_requester_alone()

from github.Consts import DEFAULT_USER_AGENT  # noqa: E402 (after the package is in place)
from github.GithubException import GithubException  # noqa: E402
from github.GithubRetry import GithubRetry  # noqa: E402
from github.Requester import Requester  # noqa: E402

PER_PAGE = 100
RETRIED_METHODS = frozenset({"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"})
# A spent hourly budget is not waited out (up to an hour of a runner): the run fails, saying so,
# and the sweep or the next event picks the issue up.
MAX_RATE_LIMIT_WAIT = 120.0


def _requester_class(connection: Callable[..., Any] | None) -> type[Requester]:
    """PyGithub's `Requester`, or with `connection` a subclass of it that opens that connection
    class: `injectConnectionClasses` sets the class attributes of the class it is called on, so
    on a subclass made here it reaches no other requester of the process."""
    if connection is None:
        return Requester

    class ConnectedRequester(Requester):
        pass

    chosen = cast("Any", connection)
    ConnectedRequester.injectConnectionClasses(chosen, chosen)
    return ConnectedRequester


def _said(data: Any) -> str:
    """GitHub's message, with the details a 422 keeps in `errors` ("A pull request already
    exists for ...", "No commits between ...")."""
    if not isinstance(data, dict):
        return ""
    parts = [str(data.get("message") or "")]
    for error in data.get("errors") or []:
        detail = error.get("message") or error.get("code") if isinstance(error, dict) else error
        if detail:
            parts.append(str(detail))
    return ": ".join(p for p in parts if p)


class TokenAuth:
    """`github.Auth.Token`'s two methods the requester calls, without `github.Auth`'s import
    of jwt and cryptography: the header, and its masked form for PyGithub's debug log."""

    def __init__(self, token: str) -> None:
        self._token = token

    def authentication(self, headers: dict[str, str]) -> None:
        headers["Authorization"] = f"token {self._token}"

    def mask_authentication(self, headers: dict[str, str]) -> None:
        headers["Authorization"] = "token (oauth token removed)"


@dataclass
class Known:
    """What this process's reads learned that later calls address GitHub by: node ids (a
    GraphQL write names its targets by them), the labels an issue carried, the default branch.
    Shared by the roles, so a write needs no lookup of its own."""

    lookups: tuple[str, ...] = ()  # status labels the next read looks up, for the writes
    issue_nodes: dict[int, str] = field(default_factory=dict)
    comment_nodes: dict[int, str] = field(default_factory=dict)
    label_nodes: dict[str, str] = field(default_factory=dict)  # by casefolded name
    label_styles: dict[str, LabelFound] = field(default_factory=dict)
    issue_labels: dict[int, set[str]] = field(default_factory=dict)  # casefolded, as last read
    default_branch: str | None = None
    repository_node: str | None = None  # the repository's node id (a new pull request's)
    # An issue's sub-issues as the run's read brought them, for the next sub-issue call.
    sub_issues_read: dict[int, SubIssuesRead] = field(default_factory=dict)


class Transport:
    """REST and GraphQL calls to one repository over PyGithub's requesters, counted."""

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
        graphql: bool = True,
        connection: Callable[..., Any] | None = None,
    ) -> None:
        """`graphql=False` keeps to REST; `connection`: what the requesters open instead of
        HTTP (`sim.api.connection`: the model of GitHub in process, for the demo and tests)."""
        if repository.count("/") != 1:
            raise TrackerError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        self.repository = repository
        self.base = f"/repos/{repository}"
        self.owner, self.name = repository.split("/")

        # Two requesters write (REST calls, mutation documents), each paced on its own: each
        # waits twice the pause, so together they keep to the rate asked for.
        paced = 2 * seconds_between_writes
        requester_class = _requester_class(connection)

        def requester(retrying: GithubRetry, pause: float) -> Requester:
            # What `github.Github(...).requester` builds, without the `Github` around it.
            return requester_class(
                auth=cast("Auth", TokenAuth(token)),
                base_url=api_url.rstrip("/"),
                timeout=timeout,
                user_agent=DEFAULT_USER_AGENT,
                per_page=PER_PAGE,
                verify=True,
                retry=retry if retry is not None else retrying,
                pool_size=None,
                seconds_between_requests=0,
                seconds_between_writes=pause,
                lazy=True,
            )

        def retrying(**more: Any) -> GithubRetry:
            wait = {"secondary_rate_wait": secondary_rate_wait}
            return GithubRetry(
                total=3, read=0, max_rate_limit_wait=MAX_RATE_LIMIT_WAIT, **wait, **more
            )

        # REST: 5xx and rate limits retried, never after a read timeout (GitHub may have applied
        # the write, and a second POST would post the comment twice; a lost message is re-posted
        # by the outbox); PATCH too, as Baton's PATCHes (record, a label's style) are idempotent.
        self._requester = requester(retrying(allowed_methods=RETRIED_METHODS), paced)
        # GraphQL queries: retried like REST reads, and not paced (POSTs PyGithub would take
        # for writes). Mutation documents: retried on a rate limit only (GitHub ran nothing),
        # never on a 5xx, after which GitHub may have run part of the document.
        self._reader = requester(retrying(), 0.0)
        self._writer = requester(retrying(status_forcelist=[]), paced)
        self.requests = 0  # API calls made (REST and GraphQL), for the summary and benchmarks
        self.graphql_requests = 0
        self.budget: dict[str, tuple[int, int]] = {}  # what is left of the hour: resource ->
        # (remaining, limit), from the last answer of each
        self.graphql = graphql
        self.notes: list[str] = []  # what a run should tell its reader (a fall-back to REST)

    def call(
        self, verb: str, path: str, what: str, *, once: bool = False, **kwargs: Any
    ) -> tuple[dict[str, Any], Any]:
        """One REST call. `once`: not retried after a 5xx, which GitHub may answer after it
        created the comment (a second POST would post it twice; the outbox re-posts a message
        that truly never landed)."""
        self.requests += 1
        requester = self._writer if once else self._requester
        try:
            headers, data = requester.requestJsonAndCheck(verb, path, **kwargs)
        except GithubException as exc:
            said = _said(exc.data)
            raise TrackerError(
                f"GitHub refused {what} ({verb} {path}): {exc.status} {said}".rstrip(),
                status=exc.status,
                said=said,
            ) from None
        except OSError as exc:  # connection refused, timeouts (requests wraps them in OSError)
            raise TrackerError(f"GitHub unreachable for {what} ({verb} {path}): {exc}") from None
        self._note_budget(headers, "core")
        return headers, data

    def _note_budget(self, headers: Any, default: str) -> None:
        """GitHub says on every answer what is left of the hour, per budget (REST's `core`,
        `graphql`): the run reports it, so a maintainer sees what Baton costs."""
        if not isinstance(headers, dict):
            return
        lower = {str(k).lower(): str(v) for k, v in headers.items()}
        remaining, limit = lower.get("x-ratelimit-remaining"), lower.get("x-ratelimit-limit")
        if remaining and limit and remaining.isdigit() and limit.isdigit():
            resource = lower.get("x-ratelimit-resource") or default
            self.budget[resource] = (int(remaining), int(limit))

    def query(
        self, document: str, variables: dict[str, Any], what: str, *, mutation: bool = False
    ) -> dict[str, Any]:
        """One GraphQL document; the answer's `data` and per-field `errors` are the caller's."""
        requester = self._writer if mutation else self._reader
        self.requests += 1
        self.graphql_requests += 1
        try:
            headers, answer = requester.requestJsonAndCheck(
                "POST",
                self._requester.graphql_url,
                input={"query": document, "variables": variables},
            )
        except GithubException as exc:
            if exc.status in (404, 410):  # no GraphQL endpoint here
                raise GraphQLUnusable(f"{exc.status} from the GraphQL endpoint") from None
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            raise TrackerError(
                f"GitHub refused {what} (GraphQL): {exc.status} {message or ''}".rstrip(),
                status=exc.status,
                said=str(message or ""),
            ) from None
        except OSError as exc:
            raise TrackerError(f"GitHub unreachable for {what} (GraphQL): {exc}") from None
        self._note_budget(headers, "graphql")
        if not isinstance(answer, dict):
            raise TrackerError(f"GitHub answered {what} (GraphQL) with no JSON object")
        if answer.get("data") is not None:
            return answer
        errors = [e for e in answer.get("errors") or [] if isinstance(e, dict)]
        first = str(errors[0].get("message")) if errors else "no data in the answer"
        refused = "data" not in answer  # refused before running: the spec leaves `data` out
        limited = any(str(e.get("type")) in ("RATE_LIMITED", "RATE_LIMIT") for e in errors)
        if refused or limited or not mutation:
            # Nothing ran (a document this server does not know, a spent GraphQL budget), or
            # it was only a read (an error while reading: REST reads this one again).
            raise GraphQLUnusable(first, lasting=refused or limited)
        # `data: null` from a mutation is an error during execution (GitHub's "Something went
        # wrong while executing your query"): part of the document may have run, so it is not
        # sent again over REST; the run fails and the next one repairs, as after a 502.
        raise TrackerError(f"GitHub could not finish {what} (GraphQL): {first}")

    def mutate(self, doc: Mutation, what: str) -> dict[str, Any]:
        try:
            return self.query(doc.document(), doc.variables, what, mutation=True)
        except GraphQLUnusable as why:
            raise TrackerError(f"GitHub refused {what} (GraphQL): {why}") from None

    def fall_back(self, why: GraphQLUnusable) -> None:
        if why.lasting:
            self.graphql = False
            self.notes.append(f"GraphQL could not be used ({why}); this run went on over REST")
        else:
            self.notes.append(f"a GraphQL read failed ({why}); it was read over REST instead")

    def graphql_only(self, what: str) -> None:
        if not self.graphql:
            raise TrackerError(f"{what} needs GitHub's GraphQL API")

    @staticmethod
    def refused(what: str, error: FieldError) -> TrackerError:
        return TrackerError(
            f"GitHub refused {what} (GraphQL): {error.kind} {error.message}",
            status=STATUS_OF.get(error.kind),
            kind=error.kind,
            said=error.message,
        )


class Role:
    """A role's share of `GitHubTracker`: the transport it calls through, and what the reads of
    this process learned (shared by every role of one tracker)."""

    def __init__(self, transport: Transport, known: Known | None = None) -> None:
        self.transport = transport
        self.known = known if known is not None else Known()
