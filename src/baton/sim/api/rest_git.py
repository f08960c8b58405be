"""REST for the repository's git: commits with their files, compares, refs, branches and the
merges API, over `baton.sim.model.git.Git`.
"""

from __future__ import annotations

from typing import Any

from baton.sim.api.base import FakeBase
from baton.sim.api.wire import ApiError, _int_param, _invalid, _not_found, _Request, _Response
from baton.sim.model import git, rules


class GitRoutes(FakeBase):
    """Commits, compares, refs, branches, merges."""

    def _render_git_user(self, login: str, stamp: str) -> dict[str, Any]:
        return {"name": login, "email": f"{login}@users.noreply.github.com", "date": stamp}

    def _render_commit(self, base: str, oid: str) -> dict[str, Any]:
        """A commit as GitHub embeds it (in a branch, a compare, a merge's answer); `GET
        /repos/{owner}/{repo}/commits/{ref}` adds ``stats`` and ``files``. What GitHub made
        itself (createCommitOnBranch, a merge) it signs: verified, committed by `web-flow`."""
        commit = self._git.commits[oid]
        api, stamp = self._api(base), rules.timestamp(commit.when)
        account = commit.account  # an address GitHub links to no account: no user
        author = (
            None
            if account is None
            else self._render_user(base, {"login": account, "type": rules.user_type(account)})
        )
        git_author = self._render_git_user(commit.author, stamp)
        if account is None:
            git_author["email"] = commit.email
        committer, git_committer = author, git_author
        verification: dict[str, Any] = {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        }
        if commit.signed:
            committer = self._render_user(base, {"login": "web-flow", "type": "User"})
            git_committer = {"name": "GitHub", "email": "noreply@github.com", "date": stamp}
            verification = {
                "verified": True,
                "reason": "valid",
                "signature": "-----BEGIN PGP SIGNATURE-----\n\nfake\n-----END PGP SIGNATURE-----\n",
                "payload": f"tree {git.tree_oid(commit.tree)}\n",
                "verified_at": stamp,
            }
        return {
            "url": f"{api}/commits/{oid}",
            "sha": oid,
            "node_id": f"C_fake{oid}",
            "html_url": f"{self._html()}/commit/{oid}",
            "comments_url": f"{api}/commits/{oid}/comments",
            "commit": {
                "url": f"{api}/git/commits/{oid}",
                "author": git_author,
                "committer": git_committer,
                "message": commit.message,
                "tree": {"sha": git.tree_oid(commit.tree), "url": f"{api}/git/trees/{oid}"},
                "comment_count": 0,
                "verification": verification,
            },
            "author": author,
            "committer": committer,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{self._html()}/commit/{p}"}
                for p in commit.parents
            ],
        }

    def _render_file(self, base: str, oid: str, change: git.FileDiff) -> dict[str, Any]:
        """One entry of a commit's ``files`` (no ``patch``: Baton never reads it)."""
        api, path = self._api(base), change.path
        entry: dict[str, Any] = {
            "sha": change.blob,
            "filename": path,
            "status": change.status,
            "additions": 0,
            "deletions": 0,
            "changes": 0,
            "blob_url": f"{self._html()}/blob/{oid}/{path}",
            "raw_url": f"{self._html()}/raw/{oid}/{path}",
            "contents_url": f"{api}/contents/{path}?ref={oid}",
        }
        if change.previous:
            entry["previous_filename"] = change.previous
        return entry

    def _render_ref(self, base: str, branch: str) -> dict[str, Any]:
        oid = self._git.refs[branch]
        api = self._api(base)
        return {
            "ref": git.HEADS + branch,
            "node_id": f"REF_fake{self._ref_id(branch)}",
            "url": f"{api}/git/refs/heads/{branch}",
            "object": {"sha": oid, "type": "commit", "url": f"{api}/git/commits/{oid}"},
        }

    def _get_commit(self, req: _Request) -> _Response:
        """``files`` against the first parent, 300 a page (``page``), with a ``Link`` header
        naming the next page while there is one, as GitHub pages a large commit's files."""
        commit = self._git.resolve(req.params["ref"])
        if commit is None:
            raise ApiError(422, f"No commit found for SHA: {req.params['ref']}")
        body = self._render_commit(req.base, commit.oid)
        changes = self._git.changes(commit.oid)
        page = max(_int_param(req.query, "page", 1), 1)
        size = git.COMMIT_FILES_PAGE
        shown = changes[(page - 1) * size : page * size]
        body["stats"] = {"total": 0, "additions": 0, "deletions": 0}
        body["files"] = [self._render_file(req.base, commit.oid, c) for c in shown]
        headers: dict[str, str] = {}
        if page * size < len(changes):
            url = f"{self._api(req.base)}/commits/{commit.oid}?page={page + 1}"
            headers["link"] = f'<{url}>; rel="next"'
        return _Response(200, body, headers)

    def _compare(self, req: _Request) -> _Response:
        """``GET /repos/{owner}/{repo}/compare/{base}...{head}`` by branch or commit id: how
        far `head` is ahead of and behind `base`, with the commits it is ahead by."""
        left, dots, right = req.params["basehead"].partition("...")
        base, head = self._git.resolve(left), self._git.resolve(right)
        if not dots or base is None or head is None:
            raise _not_found()
        ahead, behind, merge_base = self._git.compare(base.oid, head.oid)
        # Unpaged, the first 250 commits; `per_page` (at most 100) and `page` page them.
        shown = ahead[: git.COMPARE_COMMITS]
        if "per_page" in req.query or "page" in req.query:
            size = min(max(_int_param(req.query, "per_page", 30), 1), 100)
            page = max(_int_param(req.query, "page", 1), 1)
            shown = ahead[(page - 1) * size : page * size]
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        api = self._api(req.base)
        return _Response(
            200,
            {
                "url": f"{api}/compare/{left}...{right}",
                "html_url": f"{self._html()}/compare/{left}...{right}",
                "base_commit": self._render_commit(req.base, base.oid),
                "merge_base_commit": self._render_commit(req.base, merge_base),
                "status": status,
                "ahead_by": len(ahead),
                "behind_by": behind,
                "total_commits": len(ahead),
                "commits": [self._render_commit(req.base, o) for o in shown],
                "files": [],
            },
        )

    def _get_ref(self, req: _Request) -> _Response:
        branch = req.params["branch"]
        if branch not in self._git.refs:
            raise _not_found()
        return _Response(200, self._render_ref(req.base, branch))

    def _get_branch(self, req: _Request) -> _Response:
        branch = req.params["branch"]
        oid = self._git.refs.get(branch)
        if oid is None:
            raise ApiError(404, "Branch not found")
        api = self._api(req.base)
        return _Response(
            200,
            {
                "name": branch,
                "commit": self._render_commit(req.base, oid),
                "_links": {
                    "self": f"{api}/branches/{branch}",
                    "html": f"{self._html()}/tree/{branch}",
                },
                "protected": False,
                "protection": {
                    "enabled": False,
                    "required_status_checks": {
                        "enforcement_level": "off",
                        "contexts": [],
                        "checks": [],
                    },
                },
                "protection_url": f"{api}/branches/{branch}/protection",
            },
        )

    def _merge(self, req: _Request) -> _Response:
        """`POST /merges`: 201 with the merge commit, 204 when there is nothing to merge,
        404 for a missing branch, 409 on a conflict (see ``sim.model.git.Git.merge_branches``)."""
        body = self._object_body(req)
        for name in ("base", "head"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise _invalid("Merge", name, "missing_field")
        base, head = body["base"], body["head"]
        message = body.get("commit_message") or f"Merge {head} into {base}"
        if not isinstance(message, str):
            raise _invalid("Merge", "commit_message", "invalid")
        try:
            made = self._git.merge_branches(base, head, message, self.bot_login, self.now)
        except git.GitRefusal as refused:
            raise ApiError(409 if refused.kind == "conflict" else 404, refused.message) from None
        if made is None:
            return _Response(204)
        return _Response(201, self._render_commit(req.base, made.oid))
