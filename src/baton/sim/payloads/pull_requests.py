"""The events of the issue's branch and pull request: `pull_request_review`, `pull_request`
(closed or merged), `check_suite` and `workflow_run`. The fakes keep no pull request of their
own, so each payload is built from what the caller says of it."""

from __future__ import annotations

from collections.abc import Iterable

from baton.names import BOT_LOGIN
from baton.sim.payloads.objects import html_url, repo_api
from baton.sim.payloads.source import REPOSITORY_ID, Json, Source, envelope, sender_json

# --- the branch and pull request --------------------------------------------------------
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
        "html_url": html_url(full),
        "url": repo_api(api, full),
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
        "user": sender_json(source, login, None),
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
        "merged_by": sender_json(source, merged_by, None) if merged and merged_by else None,
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
    user = sender_json(source, reviewer, None)
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
    return envelope(source, user, action=action, review=review, pull_request=pull)


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
    return envelope(
        source, sender_json(source, sender, None), action="closed", number=number, pull_request=pull
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
    sender: str = BOT_LOGIN,
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
    return envelope(
        source, sender_json(source, sender, None), action="completed", check_suite=suite
    )


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
    sender: str = BOT_LOGIN,
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
    return envelope(
        source,
        sender_json(source, sender, None),
        action="completed",
        workflow_run=run,
        workflow=workflow,
    )
