"""GitHub's objects (user, repository, label, reactions, issue, comment) as the REST API
answers and the webhooks carry them: a fake renders its state with these, so its REST answers
and its payloads are the same objects."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable

from baton.sim.model.rules import REACTIONS
from baton.sim.payloads.source import REPOSITORY_ID, Json


# --- the objects: as the REST API answers and the webhooks carry them -------------------------
def repo_api(api: str, repo: str) -> str:
    return f"{api}/repos/{repo}"


def html_url(repo: str) -> str:
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
    base = repo_api(api, repo)
    return {
        "id": REPOSITORY_ID,
        "node_id": f"R_fake{REPOSITORY_ID}",
        "name": repo.split("/", 1)[1],
        "full_name": repo,
        "private": False,
        "owner": owner,
        "html_url": html_url(repo),
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
        "url": f"{repo_api(api, repo)}/labels/{urllib.parse.quote(name, safe='')}",
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
    base = repo_api(api, repo)
    url = f"{base}/issues/{number}"
    kind = "pull" if is_pull_request else "issues"
    data: Json = {
        "url": url,
        "repository_url": base,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{html_url(repo)}/{kind}/{number}",
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
            "html_url": f"{html_url(repo)}/pull/{number}",
            "diff_url": f"{html_url(repo)}/pull/{number}.diff",
            "patch_url": f"{html_url(repo)}/pull/{number}.patch",
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
    base = repo_api(api, repo)
    url = f"{base}/issues/comments/{comment_id}"
    return {
        "url": url,
        "html_url": f"{html_url(repo)}/issues/{number}#issuecomment-{comment_id}",
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
