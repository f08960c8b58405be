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
`action`, `sender` and `repository`; a fake renders those objects with the functions at the
bottom, so its REST answers and its payloads are the same objects. The events of the issue's
branch and pull request (`pull_request_review`, `pull_request`, `check_suite`, `workflow_run`)
are built from what the caller says of the pull request, since the fakes keep none. Stdlib only.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from baton.sim.github.rules import DEFAULT_LABEL_COLOR, REACTIONS, user_type

DEFAULT_WORKFLOW = ".github/workflows/baton.yml"
REPOSITORY_ID = 1296269
Json = dict[str, Any]


class Source(Protocol):
    """What building a payload needs of a fake GitHub: its objects as the REST API renders
    them, and who caused an issue's latest event."""

    @property
    def bot_login(self) -> str: ...

    def issue_json(self, number: int) -> Json: ...

    def comment_json(self, comment_id: int) -> Json: ...

    def issue_of_comment(self, comment_id: int) -> int: ...

    def label_json(self, name: str) -> Json:
        """The repository's label; KeyError when there is none of that name (any case)."""
        ...

    def repo_json(self) -> Json: ...

    def user_json(self, login: str, user_type: str = "User") -> Json: ...

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        """The login and user type of whoever caused the issue's latest `event` (labeled,
        unlabeled, closed, reopened), for `label` if given; None when nobody did."""
        ...


@dataclass(frozen=True)
class DispatchRequest:
    """A workflow_dispatch or repository_dispatch request a fake received."""

    kind: Literal["workflow_dispatch", "repository_dispatch"]
    created_at: str
    workflow: str | None = None  # the workflow's file name when known, e.g. "baton.yml"
    ref: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    event_type: str | None = None
    client_payload: dict[str, Any] = field(default_factory=dict)


# --- who sent it --------------------------------------------------------------------------------
def _sender(source: Source, login: str, bot: bool | None) -> Json:
    kind = user_type(login) if bot is None else ("Bot" if bot else "User")
    return source.user_json(login, kind)


def _envelope(source: Source, sender: Json, **fields: Any) -> Json:
    return {**fields, "repository": source.repo_json(), "sender": sender}


# --- issues -------------------------------------------------------------------------------------
_EVENT_OF_ACTION = {
    "labeled": "labeled",
    "unlabeled": "unlabeled",
    "closed": "closed",
    "reopened": "reopened",
}


def issues(
    source: Source,
    number: int,
    action: str,
    *,
    sender: str | None = None,
    bot: bool | None = None,
    label: str | None = None,
    changes: Json | None = None,
) -> Json:
    """An `issues` event for issue `number` as it is now. `sender` defaults to whoever caused
    the latest matching event (labeled, unlabeled, closed, reopened), else the issue's author;
    `bot` types the sender (by default a `[bot]` login is a Bot)."""
    issue = source.issue_json(number)
    if sender is not None:
        who = _sender(source, sender, bot)
    else:
        event = _EVENT_OF_ACTION.get(action)
        actor = source.last_actor(number, event, label) if event else None
        login, kind = actor or (issue["user"]["login"], issue["user"]["type"])
        who = source.user_json(login, kind)
    payload = _envelope(source, who, action=action, issue=issue)
    if label is not None:
        payload["label"] = _label_or_gone(source, label)
    if changes is not None:
        payload["changes"] = changes
    return payload


def _label_or_gone(source: Source, name: str) -> Json:
    try:
        return source.label_json(name)
    except KeyError:  # deleted since; GitHub still sends the label it removed
        return {
            "id": 0,
            "node_id": "",
            "url": "",
            "name": name,
            "color": DEFAULT_LABEL_COLOR,
            "default": False,
            "description": None,
        }


def opened(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "opened", sender=sender)


def labeled(
    source: Source, number: int, label: str, *, sender: str | None = None, bot: bool | None = None
) -> Json:
    return issues(source, number, "labeled", sender=sender, bot=bot, label=label)


def unlabeled(
    source: Source, number: int, label: str, *, sender: str | None = None, bot: bool | None = None
) -> Json:
    return issues(source, number, "unlabeled", sender=sender, bot=bot, label=label)


def closed(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "closed", sender=sender)


def reopened(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "reopened", sender=sender)


def edited(
    source: Source,
    number: int,
    *,
    old_title: str | None = None,
    old_body: str | None = None,
    sender: str | None = None,
) -> Json:
    """`changes` holds the previous values, as GitHub sends them."""
    changes: Json = {}
    if old_title is not None:
        changes["title"] = {"from": old_title}
    if old_body is not None:
        changes["body"] = {"from": old_body}
    return issues(source, number, "edited", sender=sender, changes=changes)


# --- issue_comment ------------------------------------------------------------------------------
def issue_comment(
    source: Source,
    comment_id: int,
    action: str = "created",
    *,
    sender: str | None = None,
    changes: Json | None = None,
) -> Json:
    """An `issue_comment` event; `sender` defaults to the comment's author."""
    comment = source.comment_json(comment_id)
    author = comment["user"]
    who = (
        source.user_json(author["login"], author["type"])
        if sender is None
        else _sender(source, sender, None)
    )
    payload = _envelope(
        source,
        who,
        action=action,
        issue=source.issue_json(source.issue_of_comment(comment_id)),
        comment=comment,
    )
    if changes is not None:
        payload["changes"] = changes
    return payload


def comment_created(source: Source, comment_id: int, *, sender: str | None = None) -> Json:
    return issue_comment(source, comment_id, "created", sender=sender)


def comment_edited(
    source: Source, comment_id: int, old_body: str, *, sender: str | None = None
) -> Json:
    return issue_comment(
        source, comment_id, "edited", sender=sender, changes={"body": {"from": old_body}}
    )


# --- dispatch and schedule ----------------------------------------------------------------------
def _input_string(value: Any) -> str:
    """`github.event.inputs` holds strings (booleans as "true"/"false")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def workflow_dispatch(
    source: Source,
    inputs: Mapping[str, Any],
    *,
    sender: str,
    ref: str = "refs/heads/main",
    workflow: str = DEFAULT_WORKFLOW,
) -> Json:
    return _envelope(
        source,
        _sender(source, sender, None),
        inputs={key: _input_string(value) for key, value in inputs.items()},
        ref=ref,
        workflow=workflow,
    )


def repository_dispatch(
    source: Source,
    event_type: str,
    client_payload: Mapping[str, Any] | None = None,
    *,
    sender: str,
    branch: str = "main",
) -> Json:
    """`action` is the `event_type`; `client_payload` keeps its JSON types."""
    return _envelope(
        source,
        _sender(source, sender, None),
        action=event_type,
        branch=branch,
        client_payload=dict(client_payload or {}),
        installation={"id": 1, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="},
    )


def from_dispatch(source: Source, dispatch: DispatchRequest) -> tuple[str, Json]:
    """The `(event name, payload)` of the run a recorded dispatch starts, sent by the token's
    identity (the bot): a test chains runs by replaying what Baton dispatched."""
    sender = source.bot_login
    if dispatch.kind == "workflow_dispatch":
        ref = dispatch.ref or "main"
        payload = workflow_dispatch(
            source,
            dispatch.inputs,
            ref=ref if ref.startswith("refs/") else f"refs/heads/{ref}",
            workflow=f".github/workflows/{dispatch.workflow}",
            sender=sender,
        )
        return "workflow_dispatch", payload
    payload = repository_dispatch(
        source, dispatch.event_type or "", dispatch.client_payload, sender=sender
    )
    return "repository_dispatch", payload


def schedule(cron: str, *, workflow: str = DEFAULT_WORKFLOW) -> Json:
    """A `schedule` run's event: GitHub sends no webhook payload, only the cron string
    (`github.event.schedule`) and the workflow path; no repository, no sender."""
    return {"schedule": cron, "workflow": workflow}


# --- the issue's branch and pull request --------------------------------------------------------
DEFAULT_AT = "2026-01-01T00:00:00Z"
ACTIONS_APP = {
    "id": 15368,
    "slug": "github-actions",
    "node_id": "MDM6QXBwMTUzNjg=",
    "name": "GitHub Actions",
}


def _fork(source: Source, owner: str) -> Json:
    """The repository forked by `owner`: what a fork's pull request names as its head."""
    repo = source.repo_json()
    name = repo["name"]
    api = repo["url"].rsplit("/repos/", 1)[0]
    full = f"{owner}/{name}"
    return {
        **repo,
        "id": REPOSITORY_ID + 1,
        "node_id": f"R_fake{REPOSITORY_ID + 1}",
        "full_name": full,
        "owner": source.user_json(owner),
        "html_url": _html(full),
        "url": _repo_api(api, full),
        "fork": True,
    }


def _minimal_repo(repo: Json) -> Json:
    """The short repository object a check suite's or run's pull requests carry."""
    return {"id": repo["id"], "url": repo["url"], "name": repo["name"]}


def pull_request_object(
    source: Source,
    *,
    number: int,
    branch: str,
    head_sha: str,
    title: str = "",
    body: str = "",
    author: str | None = None,
    draft: bool = True,
    state: str = "open",
    merged: bool = False,
    merged_by: str | None = None,
    fork: str | None = None,
    at: str = DEFAULT_AT,
) -> Json:
    """A pull request as webhooks carry it. `fork`: the login whose fork holds the branch."""
    repo = source.repo_json()
    head_repo = _fork(source, fork) if fork else repo
    api, html = repo["url"], repo["html_url"]
    login = author or source.bot_login
    closed = state == "closed"
    return {
        "url": f"{api}/pulls/{number}",
        "id": 900_000 + number,
        "node_id": f"PR_fake{number}",
        "html_url": f"{html}/pull/{number}",
        "diff_url": f"{html}/pull/{number}.diff",
        "patch_url": f"{html}/pull/{number}.patch",
        "issue_url": f"{api}/issues/{number}",
        "number": number,
        "state": state,
        "locked": False,
        "title": title or f"Work on {branch}",
        "user": _sender(source, login, None),
        "body": body or None,
        "created_at": at,
        "updated_at": at,
        "closed_at": at if closed else None,
        "merged_at": at if merged else None,
        "merge_commit_sha": "f" * 40 if merged else None,
        "assignees": [],
        "requested_reviewers": [],
        "labels": [],
        "draft": draft,
        "head": {
            "label": f"{head_repo['owner']['login']}:{branch}",
            "ref": branch,
            "sha": head_sha,
            "user": head_repo["owner"],
            "repo": head_repo,
        },
        "base": {
            "label": f"{repo['owner']['login']}:main",
            "ref": "main",
            "sha": "0" * 40,
            "user": repo["owner"],
            "repo": repo,
        },
        "author_association": "NONE",
        "auto_merge": None,
        "merged": merged,
        "mergeable": None,
        "merged_by": _sender(source, merged_by, None) if merged and merged_by else None,
        "comments": 0,
        "review_comments": 0,
        "commits": 1,
        "additions": 1,
        "deletions": 0,
        "changed_files": 1,
    }


def pull_request_review(
    source: Source,
    *,
    number: int,
    branch: str,
    head_sha: str,
    review_id: int,
    state: str,
    reviewer: str,
    body: str = "",
    action: str = "submitted",
    association: str = "COLLABORATOR",
    fork: str | None = None,
    at: str = DEFAULT_AT,
) -> Json:
    """A `pull_request_review` event. Webhooks spell `review.state` in lower case
    (`approved`, `changes_requested`, `commented`, `dismissed`), unlike the REST API."""
    pull = pull_request_object(
        source, number=number, branch=branch, head_sha=head_sha, fork=fork, at=at
    )
    user = _sender(source, reviewer, None)
    review = {
        "id": review_id,
        "node_id": f"PRR_fake{review_id}",
        "user": user,
        "body": body or None,
        "commit_id": head_sha,
        "submitted_at": at,
        "state": state,
        "html_url": f"{pull['html_url']}#pullrequestreview-{review_id}",
        "pull_request_url": pull["url"],
        "author_association": association,
        "_links": {
            "html": {"href": f"{pull['html_url']}#pullrequestreview-{review_id}"},
            "pull_request": {"href": pull["url"]},
        },
    }
    return _envelope(source, user, action=action, review=review, pull_request=pull)


def pull_request_closed(
    source: Source,
    *,
    number: int,
    branch: str,
    head_sha: str,
    merged: bool,
    sender: str,
    merged_by: str | None = None,
    fork: str | None = None,
    at: str = DEFAULT_AT,
) -> Json:
    """A `pull_request` event with action `closed`; `merged_by` defaults to the sender."""
    pull = pull_request_object(
        source,
        number=number,
        branch=branch,
        head_sha=head_sha,
        state="closed",
        draft=False,
        merged=merged,
        merged_by=(merged_by or sender) if merged else None,
        fork=fork,
        at=at,
    )
    return _envelope(
        source, _sender(source, sender, None), action="closed", number=number, pull_request=pull
    )


def _pull_request_refs(source: Source, numbers: Iterable[int], branch: str, sha: str) -> list[Json]:
    """The short pull requests a check suite or workflow run lists (same branch only)."""
    repo = _minimal_repo(source.repo_json())
    return [
        {
            "url": f"{repo['url']}/pulls/{n}",
            "id": 900_000 + n,
            "number": n,
            "head": {"ref": branch, "sha": sha, "repo": repo},
            "base": {"ref": "main", "sha": "0" * 40, "repo": repo},
        }
        for n in numbers
    ]


def check_suite_completed(
    source: Source,
    *,
    branch: str,
    head_sha: str,
    conclusion: str,
    suite_id: int,
    pull_requests: Iterable[int] = (),
    from_fork: bool = False,
    sender: str = "github-actions[bot]",
    at: str = DEFAULT_AT,
    check_runs: int = 1,
) -> Json:
    """A `check_suite` event with action `completed`. A fork's suite has no head branch and no
    pull requests (GitHub's checks only see pushes to the repository itself). `check_runs`: how
    many ran in it (`latest_check_runs_count`); 0 for a suite whose run never started a job, as
    a run held for approval that ends unapproved."""
    repo = source.repo_json()
    suite = {
        "id": suite_id,
        "node_id": f"CS_fake{suite_id}",
        "head_branch": None if from_fork else branch,
        "head_sha": head_sha,
        "status": "completed",
        "conclusion": conclusion,
        "url": f"{repo['url']}/check-suites/{suite_id}",
        "before": "0" * 40,
        "after": head_sha,
        "pull_requests": []
        if from_fork
        else _pull_request_refs(source, pull_requests, branch, head_sha),
        "app": {**ACTIONS_APP, "owner": source.user_json("github", "Organization")},
        "created_at": at,
        "updated_at": at,
        "rerequestable": True,
        "runs_rerequestable": True,
        "latest_check_runs_count": check_runs,
        "check_runs_url": f"{repo['url']}/check-suites/{suite_id}/check-runs",
        "head_commit": {
            "id": head_sha,
            "tree_id": "1" * 40,
            "message": "Baton commit",
            "timestamp": at,
        },
    }
    return _envelope(source, _sender(source, sender, None), action="completed", check_suite=suite)


def workflow_run_completed(
    source: Source,
    *,
    branch: str,
    head_sha: str,
    conclusion: str,
    run_id: int,
    name: str = "CI",
    pull_requests: Iterable[int] = (),
    fork: str | None = None,
    sender: str = "github-actions[bot]",
    at: str = DEFAULT_AT,
    event: str | None = None,
) -> Json:
    """A `workflow_run` event with action `completed`; `fork`: the run is of a fork's branch
    (its `head_repository` is the fork). `event`: what started the run (`pull_request` for a
    fork's, else `push` unless given). A `pull_request` run of a pull request GITHUB_TOKEN
    opened or updated is held for a writer's approval: it completes `action_required` while
    held, and `failure` with no job run (no check run on the head) if never approved; the
    payload looks like any other run's, so only the check runs tell it apart."""
    repo = source.repo_json()
    head_repo = _fork(source, fork) if fork else repo
    path = f".github/workflows/{name.lower().replace(' ', '-')}.yml"
    run = {
        "id": run_id,
        "name": name,
        "node_id": f"WFR_fake{run_id}",
        "head_branch": branch,
        "head_sha": head_sha,
        "path": path,
        "display_title": name,
        "run_number": 1,
        "event": event or ("pull_request" if fork else "push"),
        "status": "completed",
        "conclusion": conclusion,
        "workflow_id": 161335,
        "url": f"{repo['url']}/actions/runs/{run_id}",
        "html_url": f"{repo['html_url']}/actions/runs/{run_id}",
        "pull_requests": []
        if fork
        else _pull_request_refs(source, pull_requests, branch, head_sha),
        "created_at": at,
        "updated_at": at,
        "run_attempt": 1,
        "run_started_at": at,
        "head_commit": {
            "id": head_sha,
            "tree_id": "1" * 40,
            "message": "Baton commit",
            "timestamp": at,
        },
        "repository": repo,
        "head_repository": head_repo,
    }
    workflow = {
        "id": 161335,
        "node_id": "W_fake161335",
        "name": name,
        "path": path,
        "state": "active",
    }
    return _envelope(
        source,
        _sender(source, sender, None),
        action="completed",
        workflow_run=run,
        workflow=workflow,
    )


# --- the objects: as the REST API answers and the webhooks carry them -------------------------
def _repo_api(api: str, repo: str) -> str:
    return f"{api}/repos/{repo}"


def _html(repo: str) -> str:
    return f"https://github.com/{repo}"


def user_object(api: str, login: str, kind: str, user_id: int) -> Json:
    html = (
        f"https://github.com/apps/{login.removesuffix('[bot]')}"
        if kind == "Bot"
        else f"https://github.com/{login}"
    )
    return {
        "login": login,
        "id": user_id,
        "node_id": f"U_fake{user_id}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}?v=4",
        "gravatar_id": "",
        "url": f"{api}/users/{urllib.parse.quote(login, safe='')}",
        "html_url": html,
        "type": kind,
        "site_admin": False,
        "user_view_type": "public",
    }


def repository_object(api: str, repo: str, owner: Json, *, open_issues: int, now: str) -> Json:
    """`owner` is the owner's user object (an Organization)."""
    base = _repo_api(api, repo)
    return {
        "id": REPOSITORY_ID,
        "node_id": f"R_fake{REPOSITORY_ID}",
        "name": repo.split("/", 1)[1],
        "full_name": repo,
        "private": False,
        "owner": owner,
        "html_url": _html(repo),
        "description": None,
        "fork": False,
        "url": base,
        "issues_url": f"{base}/issues{{/number}}",
        "issue_comment_url": f"{base}/issues/comments{{/number}}",
        "issue_events_url": f"{base}/issues/events{{/number}}",
        "labels_url": f"{base}/labels{{/name}}",
        "collaborators_url": f"{base}/collaborators{{/collaborator}}",
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": now,
        "pushed_at": now,
        "default_branch": "main",
        "visibility": "public",
        "has_issues": True,
        "archived": False,
        "disabled": False,
        "open_issues_count": open_issues,
        "open_issues": open_issues,
    }


def label_object(
    api: str,
    repo: str,
    *,
    label_id: int,
    name: str,
    color: str,
    description: str | None,
    default: bool = False,
) -> Json:
    return {
        "id": label_id,
        "node_id": f"LA_fake{label_id}",
        "url": f"{_repo_api(api, repo)}/labels/{urllib.parse.quote(name, safe='')}",
        "name": name,
        "color": color,
        "default": default,
        "description": description,
    }


def reactions_object(url: str, contents: Iterable[str]) -> Json:
    """The reaction counts an issue or comment carries."""
    given = list(contents)
    summary: Json = {"url": f"{url}/reactions", "total_count": len(given)}
    for content in REACTIONS:
        summary[content] = given.count(content)
    return summary


def issue_object(
    api: str,
    repo: str,
    *,
    issue_id: int,
    number: int,
    title: str,
    body: str,
    state: str,
    state_reason: str | None,
    user: Json,
    labels: list[Json],
    comments: int,
    created_at: str,
    updated_at: str,
    closed_at: str | None,
    author_association: str,
    reactions: Iterable[str],
    is_pull_request: bool,
) -> Json:
    base = _repo_api(api, repo)
    url = f"{base}/issues/{number}"
    kind = "pull" if is_pull_request else "issues"
    data: Json = {
        "url": url,
        "repository_url": base,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{_html(repo)}/{kind}/{number}",
        "id": issue_id,
        "node_id": f"I_fake{issue_id}",
        "number": number,
        "title": title,
        "user": user,
        "labels": labels,
        "state": state,
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": comments,
        "created_at": created_at,
        "updated_at": updated_at,
        "closed_at": closed_at,
        "author_association": author_association,
        "active_lock_reason": None,
        "body": body or None,  # GitHub sends null for an empty body
        "reactions": reactions_object(url, reactions),
        "timeline_url": f"{url}/timeline",
        "performed_via_github_app": None,
        "state_reason": state_reason,
    }
    if is_pull_request:
        data["pull_request"] = {
            "url": f"{base}/pulls/{number}",
            "html_url": f"{_html(repo)}/pull/{number}",
            "diff_url": f"{_html(repo)}/pull/{number}.diff",
            "patch_url": f"{_html(repo)}/pull/{number}.patch",
            "merged_at": None,
        }
    return data


def comment_object(
    api: str,
    repo: str,
    *,
    comment_id: int,
    number: int,
    user: Json,
    body: str,
    created_at: str,
    updated_at: str,
    author_association: str,
    reactions: Iterable[str],
    by_actions: bool,
) -> Json:
    """`by_actions`: written with GITHUB_TOKEN, so GitHub names the Actions app."""
    base = _repo_api(api, repo)
    url = f"{base}/issues/comments/{comment_id}"
    return {
        "url": url,
        "html_url": f"{_html(repo)}/issues/{number}#issuecomment-{comment_id}",
        "issue_url": f"{base}/issues/{number}",
        "id": comment_id,
        "node_id": f"IC_fake{comment_id}",
        "user": user,
        "created_at": created_at,
        "updated_at": updated_at,
        "author_association": author_association,
        "body": body,
        "reactions": reactions_object(url, reactions),
        "performed_via_github_app": (
            {
                "id": 15368,
                "slug": "github-actions",
                "node_id": "MDM6QXBwMTUzNjg=",
                "name": "GitHub Actions",
            }
            if by_actions
            else None
        ),
    }
