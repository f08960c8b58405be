"""REST for pull requests, their reviews' comments and the check runs on a commit: listed, and
created as an App creates one (`POST /check-runs`, GitHub's reference for "Create a check
run": 201 with the run; 422 for a field it refuses or a commit the repository lacks)."""

from __future__ import annotations

from typing import Any

from baton.names import BOT_LOGIN
from baton.sim.api.base import FakeBase
from baton.sim.api.views import _stamp_of
from baton.sim.api.wire import ApiError, _invalid, _not_found, _refused, _Request, _Response
from baton.sim.model import pulls, rules
from baton.sim.model.issues import User
from baton.sim.model.pulls import CheckRun, PullRequest, Review, ReviewComment

CREATE_PULL_DOCS = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
CREATE_CHECK_DOCS = "https://docs.github.com/rest/checks/runs#create-a-check-run"
APPS = {"github-actions": (15368, "GitHub Actions")}  # a slug -> (id, name) of known Apps


class PullRoutes(FakeBase):
    """Pull requests, review comments, check runs."""

    def _render_pull(self, base: str, pull: PullRequest) -> dict[str, Any]:
        """A pull request as GET /repos/{owner}/{repo}/pulls/{n} gives it."""
        issue = self._issues[pull.number]
        api, number = self._api(base), pull.number
        url = f"{api}/pulls/{number}"
        html = f"{self._html()}/pull/{number}"
        repo = self._render_repo(base)
        owner = self._render_user(base, User(self.owner, "Organization"))

        def part(branch: str, sha: str) -> dict[str, Any]:
            return {
                "label": f"{self.owner}:{branch}",
                "ref": branch,
                "sha": sha,
                "user": owner,
                "repo": repo,
            }

        merged_by = pull.merged_by
        return {
            "url": url,
            "id": pull.id,
            "node_id": pull.node_id,
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{number}",
            "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{number}/comments",
            "statuses_url": f"{api}/statuses/{self._pull_head(pull)}",
            "number": number,
            "state": issue.state,
            "locked": False,
            "title": issue.title,
            "user": self._render_user(base, pull.user),
            "body": issue.body or None,
            "labels": [self._render_label(base, self._labels[n]) for n in issue.labels],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": rules.timestamp(issue.created_at),
            "updated_at": rules.timestamp(issue.updated_at),
            "closed_at": _stamp_of(issue.closed_at),
            "merged_at": _stamp_of(pull.merged_at),
            "merge_commit_sha": pull.merge_commit,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": part(pull.head, self._pull_head(pull)),
            "base": part(pull.base, self._git.refs.get(pull.base, "")),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": f"{api}/issues/{number}"},
                "comments": {"href": f"{api}/issues/{number}/comments"},
                "review_comments": {"href": f"{url}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{url}/commits"},
                "statuses": {"href": f"{api}/statuses/{self._pull_head(pull)}"},
            },
            "author_association": issue.association,
            "auto_merge": None,
            "draft": pull.draft,
            "merged": pull.merged,
            "mergeable": None,  # GitHub computes it in the background; null until it has
            "rebaseable": None,
            "mergeable_state": "unknown",
            "merged_by": self._render_user(base, merged_by) if merged_by else None,
            "comments": len(self._store.comments_of(number)),
            "review_comments": sum(
                len(r.comments) for r in self._reviews.values() if r.pull_request == number
            ),
            "maintainer_can_modify": False,
            "commits": self._git.ahead(pull.base, pull.head) if pull.head in self._git.refs else 0,
            "additions": 0,
            "deletions": 0,
            "changed_files": 0,
        }

    def _render_review_comment(
        self, base: str, review: Review, comment: ReviewComment
    ) -> dict[str, Any]:
        """One inline comment of a review, as the review's comments list gives it."""
        api, number = self._api(base), review.pull_request
        url = f"{api}/pulls/comments/{comment.id}"
        html = f"{self._html()}/pull/{number}#discussion_r{comment.id}"
        submitted = rules.timestamp(review.submitted_at)
        return {
            "url": url,
            "pull_request_review_id": review.id,
            "id": comment.id,
            "node_id": f"PRRC_fake{comment.id}",
            "diff_hunk": "",
            "path": comment.path,
            "position": comment.line,
            "original_position": comment.line,
            "commit_id": review.commit,
            "original_commit_id": review.commit,
            "in_reply_to_id": None,
            "user": self._render_user(base, review.author),
            "body": comment.body,
            "created_at": submitted,
            "updated_at": submitted,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": f"{api}/pulls/{number}"},
            },
            "line": comment.line,
            "original_line": comment.line,
            "side": "RIGHT",
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "subject_type": "line" if comment.line is not None else "file",
        }

    def _render_check_run(self, base: str, run: CheckRun) -> dict[str, Any]:
        api = self._api(base)
        return {
            "id": run.id,
            "head_sha": run.head_sha,
            "node_id": f"CR_fake{run.id}",
            "external_id": run.external_id,
            "url": f"{api}/check-runs/{run.id}",
            "html_url": f"{self._html()}/runs/{run.id}",
            "details_url": f"{self._html()}/actions/runs/{run.id}",
            "status": run.status,
            "conclusion": run.conclusion,
            "started_at": rules.timestamp(run.started_at),
            "completed_at": _stamp_of(run.completed_at),
            "output": {
                "title": run.title or None,
                "summary": run.summary or None,
                "text": run.text or None,
                "annotations_count": 0,
                "annotations_url": f"{api}/check-runs/{run.id}/annotations",
            },
            "name": run.name,
            "check_suite": {"id": run.id + 1},
            "app": {
                "id": APPS.get(run.app, (900_000 + len(run.app), ""))[0],
                "slug": run.app,
                "name": APPS.get(run.app, (0, run.app))[1],
            },
            "pull_requests": [],
        }

    def _app_of_token(self) -> str:
        """The App the token belongs to: GitHub Actions' for GITHUB_TOKEN, else the bot's."""
        login = self.bot_login
        return "github-actions" if login == BOT_LOGIN else login.removesuffix("[bot]")

    def _create_check_run(self, req: _Request) -> _Response:
        """`POST /check-runs`: `name` and `head_sha` required; `status` (default `queued`,
        `completed` when a conclusion is given); `output` with `title` and `summary`."""
        body = self._object_body(req)
        for name in ("name", "head_sha"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise _invalid("CheckRun", name, "missing_field")
        conclusion = body.get("conclusion")
        status = "completed" if conclusion is not None else body.get("status", "queued")
        output = body.get("output", {"title": "", "summary": ""})  # optional; if given, whole
        if not isinstance(output, dict):
            raise _invalid("CheckRun", "output", "invalid")
        external = body.get("external_id", "")
        if not isinstance(external, str):
            raise _invalid("CheckRun", "external_id", "invalid")
        title, summary = output.get("title"), output.get("summary")
        refusal = pulls.check_run_refusal(body["name"], status, conclusion, title, summary)
        if refusal is not None:
            raise _refused(refusal)
        sha = body["head_sha"]
        if sha not in self._git.commits:
            raise ApiError(422, pulls.no_commit_message(sha))
        try:
            run = self._work.create_check_run(
                sha,
                body["name"],
                conclusion=conclusion,
                title=str(title),
                summary=str(summary),
                external_id=external,
                app=self._app_of_token(),
            )
        except pulls.CheckRunRefusal as refused:
            raise ApiError(422, refused.message) from None
        return _Response(201, self._render_check_run(req.base, run))

    def _create_pull(self, req: _Request) -> _Response:
        body = self._object_body(req)
        if not self.actions_may_open_pull_requests:
            error = ApiError(403, pulls.ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS)
            response = error.response()
            response.body["documentation_url"] = CREATE_PULL_DOCS
            return response
        for name in ("title", "head", "base"):
            if not isinstance(body.get(name), str) or not body[name].strip():
                raise _invalid("PullRequest", name, "missing_field")
        owner, colon, branch = body["head"].rpartition(":")
        if colon and owner.casefold() != self.owner.casefold():
            raise _invalid("PullRequest", "head", "invalid")
        if body["base"] not in self._git.refs:
            raise _invalid("PullRequest", "base", "invalid")
        if body["base"] != self._git.default_branch:
            raise ApiError(422, "The fake GitHub opens pull requests to the default branch only")
        draft = body.get("draft", False)
        if not isinstance(draft, bool):
            raise _invalid("PullRequest", "draft", "invalid")
        pull = self._open_pull(branch, body["title"], body.get("body") or "", self._bot, draft)
        return _Response(201, self._render_pull(req.base, pull))

    def _list_pulls(self, req: _Request) -> _Response:
        state = req.query.get("state", "open")
        if state not in ("open", "closed", "all"):
            raise _invalid("PullRequest", "state", "invalid")
        head = req.query.get("head")
        owner, _, branch = (head or "").rpartition(":")
        wanted_base = req.query.get("base")
        pulls = [
            pull
            for pull in self._pulls.values()
            if state in ("all", self._issues[pull.number].state)
            # `head` is `user:ref-name`; another owner's branch is no branch of this repository
            and (
                head is None or (owner.casefold() == self.owner.casefold() and pull.head == branch)
            )
            and (wanted_base is None or pull.base == wanted_base)
        ]
        pulls.sort(
            key=lambda pull: pull.number, reverse=req.query.get("direction", "desc") == "desc"
        )
        return self._paginate(req, pulls, lambda pull: self._render_pull(req.base, pull))

    def _pull_or_404(self, number: int) -> PullRequest:
        pull = self._pulls.get(number)
        if pull is None:
            raise _not_found()
        return pull

    def _get_pull(self, req: _Request) -> _Response:
        pull = self._pull_or_404(int(req.params["number"]))
        return _Response(200, self._render_pull(req.base, pull))

    def _update_pull(self, req: _Request) -> _Response:
        """`PATCH /pulls/{n}`: title, body, state, base (Baton sends only the body)."""
        pull = self._pull_or_404(int(req.params["number"]))
        body = self._object_body(req)
        issue = self._issues[pull.number]
        if "body" in body:
            issue.body = self._body_text("PullRequest", body.get("body"), required=False)
        if "title" in body:
            title = body.get("title")
            if not isinstance(title, str) or not title.strip():
                raise _invalid("PullRequest", "title", "missing_field")
            issue.title = title
        self._store.touch(issue)
        return _Response(200, self._render_pull(req.base, pull))

    def _list_review_comments(self, req: _Request) -> _Response:
        number = self._pull_or_404(int(req.params["number"])).number
        review = self._reviews.get(int(req.params["review_id"]))
        if review is None or review.pull_request != number:
            raise _not_found()
        return self._paginate(
            req, review.comments, lambda c: self._render_review_comment(req.base, review, c)
        )

    def _list_check_runs(self, req: _Request) -> _Response:
        commit = self._git.resolve(req.params["ref"])
        sha = commit.oid if commit is not None else req.params["ref"]
        which = req.query.get("filter", "latest")
        if which not in ("latest", "all"):
            raise _invalid("CheckRun", "filter", "invalid")
        runs = [run for run in self._check_runs if run.head_sha == sha]
        if which == "latest":  # the most recent run of each name
            latest = {run.name: run for run in runs}
            runs = [run for run in runs if latest[run.name] is run]
        if "check_name" in req.query:
            runs = [run for run in runs if run.name == req.query["check_name"]]
        if "status" in req.query:
            runs = [run for run in runs if run.status == req.query["status"]]
        runs.sort(key=lambda run: run.id, reverse=True)  # newest first
        return self._paginate(
            req, runs, lambda run: self._render_check_run(req.base, run), wrap="check_runs"
        )
