"""The Tracker on the real GitHub REST API, through PyGithub. The only module importing it.

Calls are kept to what a run needs: no `GET /repos/...` to start (URLs are built from the
repository name), labels come from the event payload when it carries them, and comments are
read 100 a page to the end. PyGithub's `GithubRetry` retries 5xx answers and secondary rate
limits (honouring `retry-after`); whatever still fails becomes a `TrackerError` whose message
names the call and GitHub's answer, never the token.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from github import Auth, Github, GithubException, GithubRetry

from baton.errors import TrackerError
from baton.events import IssueInfo
from baton.tracker import Comment, DispatchTarget, LabelSpec

PER_PAGE = 100
RETRIED_METHODS = frozenset({"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"})
DEFAULT_COLOUR = "ededed"  # what GitHub gives a label created implicitly by adding it


def _info(data: dict[str, Any]) -> IssueInfo:
    return IssueInfo(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        state=str(data.get("state") or "open"),
        labels=tuple(str(label.get("name")) for label in data.get("labels") or []),
        author=str((data.get("user") or {}).get("login") or ""),
        is_pull_request=bool(data.get("pull_request")),
        updated_at=_when(data["updated_at"]) if data.get("updated_at") else None,
    )


def _when(value: str | None) -> datetime:
    return datetime.fromisoformat((value or "1970-01-01T00:00:00Z").replace("Z", "+00:00"))


def _comment(item: dict[str, Any]) -> Comment:
    user = item.get("user") or {}
    return Comment(
        id=int(item["id"]),
        author=str(user.get("login") or ""),
        body=str(item.get("body") or ""),
        created_at=_when(item.get("created_at")),
        author_is_bot=user.get("type") == "Bot",
        association=str(item.get("author_association") or "NONE"),
    )


class GitHubTracker:
    """`baton.tracker.Tracker` over PyGithub's requester (retries, pagination, errors)."""

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
    ) -> None:
        if repository.count("/") != 1:
            raise TrackerError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        self.repository = repository
        self._base = f"/repos/{repository}"
        self._gh = Github(
            auth=Auth.Token(token),
            base_url=api_url.rstrip("/"),
            timeout=timeout,
            per_page=PER_PAGE,
            retry=retry
            if retry is not None
            else GithubRetry(
                total=3,
                # Never after a read timeout: GitHub may have applied the write, and a second
                # POST would post the comment twice (a lost message is re-posted by the outbox).
                read=0,
                secondary_rate_wait=secondary_rate_wait,
                # PATCH too: Baton's PATCHes (the record, a label's style) are idempotent.
                allowed_methods=RETRIED_METHODS,
            ),
            seconds_between_requests=0,
            seconds_between_writes=seconds_between_writes,
            lazy=True,
        )
        self._requester = self._gh.requester
        self.requests = 0  # REST calls made, for the job summary and the benchmarks

    # --- plumbing -------------------------------------------------------------------------
    def _call(self, verb: str, path: str, what: str, **kwargs: Any) -> tuple[dict[str, Any], Any]:
        self.requests += 1
        try:
            return self._requester.requestJsonAndCheck(verb, path, **kwargs)
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            raise TrackerError(
                f"GitHub refused {what} ({verb} {path}): {exc.status} {message or ''}".rstrip(),
                status=exc.status,
            ) from None
        except OSError as exc:  # connection refused, timeouts (requests wraps them in OSError)
            raise TrackerError(f"GitHub unreachable for {what} ({verb} {path}): {exc}") from None

    # --- reads ---------------------------------------------------------------------------
    def issue(self, number: int) -> IssueInfo:
        _, data = self._call("GET", f"{self._base}/issues/{number}", f"reading issue #{number}")
        return _info(data)

    def comments(self, number: int) -> list[Comment]:
        found: list[Comment] = []
        page = 1
        while True:
            headers, data = self._call(
                "GET",
                f"{self._base}/issues/{number}/comments",
                f"listing the comments of #{number}",
                parameters={"per_page": PER_PAGE, "page": page},
            )
            found.extend(_comment(item) for item in data or [])
            if 'rel="next"' not in str(headers.get("link", "")):
                return found
            page += 1

    def comment(self, comment_id: int) -> Comment | None:
        try:
            _, item = self._call(
                "GET", f"{self._base}/issues/comments/{comment_id}", f"reading comment {comment_id}"
            )
        except TrackerError as exc:
            if exc.status == 404:
                return None
            raise
        return _comment(item)

    def permission(self, login: str) -> str:
        try:
            _, data = self._call(
                "GET",
                f"{self._base}/collaborators/{quote(login, safe='')}/permission",
                f"looking up {login}'s permission",
            )
        except TrackerError as exc:
            if exc.status == 404:  # not a user GitHub knows: no permission at all
                return "none"
            raise
        return str(data.get("permission") or "none")

    def is_team_member(self, team: str, login: str) -> bool:
        org, _, slug = team.partition("/")
        try:
            _, data = self._call(
                "GET",
                f"/orgs/{quote(org)}/teams/{quote(slug)}/memberships/{quote(login, safe='')}",
                f"checking {login} in team {team}",
            )
        except TrackerError as exc:
            if exc.status == 404:
                return False
            raise
        return bool(data.get("state") == "active")

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        headers, data = self._call(
            "GET",
            f"{self._base}/issues",
            "listing open issues",
            parameters={
                "state": "open",
                "sort": "updated",  # least recently updated first: what waited longest
                "direction": "asc",
                "per_page": PER_PAGE,
                "page": page,
            },
        )
        issues = [_info(item) for item in data or []]
        more = 'rel="next"' in str(headers.get("link", ""))
        return issues, (page + 1 if more else None)

    # --- writes --------------------------------------------------------------------------
    def create_comment(self, number: int, body: str) -> int:
        _, data = self._call(
            "POST",
            f"{self._base}/issues/{number}/comments",
            f"commenting on #{number}",
            input={"body": body},
        )
        return int(data["id"])

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call(
            "PATCH",
            f"{self._base}/issues/comments/{comment_id}",
            f"updating comment {comment_id}",
            input={"body": body},
        )

    def delete_comment(self, comment_id: int) -> None:
        self._call(
            "DELETE", f"{self._base}/issues/comments/{comment_id}", f"deleting comment {comment_id}"
        )

    def react(self, comment_id: int, content: str) -> None:
        self._call(
            "POST",
            f"{self._base}/issues/comments/{comment_id}/reactions",
            f"reacting to comment {comment_id}",
            input={"content": content},
        )

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        add = [label for label in wanted if label not in current]
        remove = [label for label in current if label not in wanted]
        # Add first: an issue briefly carrying two status labels is repaired by the next run,
        # one carrying none would look like it left the workflow.
        if add:
            _, data = self._call(
                "POST",
                f"{self._base}/issues/{number}/labels",
                f"labelling #{number}",
                input={"labels": add},
            )
            for label in data or []:
                name = str(label.get("name"))
                spec = specs.get(name)
                if (
                    spec
                    and str(label.get("color")).lower() == DEFAULT_COLOUR
                    and not label.get("description")
                ):
                    self._style_label(spec)
        for label in remove:
            try:
                self._call(
                    "DELETE",
                    f"{self._base}/issues/{number}/labels/{quote(label, safe='')}",
                    f"removing {label} from #{number}",
                )
            except TrackerError as exc:
                if exc.status != 404:  # already gone: the difference is applied
                    raise

    def _style_label(self, spec: LabelSpec) -> None:
        """First use of a status label: GitHub created it grey; give it its colour and text."""
        self._call(
            "PATCH",
            f"{self._base}/labels/{quote(spec.name, safe='')}",
            f"styling label {spec.name}",
            input={"color": spec.color, "description": spec.description},
        )

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None:
        self._call(
            "POST",
            f"{self._base}/actions/workflows/{quote(target.workflow, safe='')}/dispatches",
            f"starting workflow {target.workflow}",
            input={"ref": target.ref, "inputs": inputs},
        )
