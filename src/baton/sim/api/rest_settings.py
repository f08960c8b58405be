"""REST for what `baton doctor` reads of a repository: its files on the default branch (the
contents API, over the git model), the Actions secrets by name, and the Actions settings.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

from baton.sim.api.base import FakeBase
from baton.sim.api.wire import ApiError, _not_found, _Request, _Response
from baton.sim.model import rules
from baton.sim.model.git import blob_oid, tree_oid
from baton.sim.model.settings import RepositorySettings, Secret


def _stamp(secret: Secret, field: str) -> str:
    moment: datetime = getattr(secret, field)
    return rules.timestamp(moment)


class SettingsRoutes(FakeBase):
    """Files, secrets and the Actions settings; the state is the model's."""

    # Whether the token may read what needs admin (secrets, the Actions settings); a test sets
    # it off to see GitHub's 403, as a token of a writer without admin gets.
    token_is_admin = True

    def _admin_only(self) -> None:
        if not self.token_is_admin:
            raise ApiError(403, "Resource not accessible by personal access token")

    @property
    def settings(self) -> RepositorySettings:
        """The repository's settings; a test changes them in place."""
        return self._state.settings

    def set_secret(self, name: str) -> None:
        """Someone adds an Actions secret (`gh secret set NAME`); only its name is kept."""
        with self._lock:
            self._state.settings.set_secret(name, self.now)

    def _entry(self, base: str, path: str, kind: str, data: bytes, oid: str, ref: str) -> Any:
        """One item of the contents API: a file's or a directory's links and ids."""
        api = f"{self._api(base)}/contents/{path}?ref={ref}"
        html = f"{self._html()}/{'blob' if kind == 'file' else 'tree'}/{ref}/{path}"
        git = f"{self._api(base)}/git/{'blobs' if kind == 'file' else 'trees'}/{oid}"
        raw = f"https://raw.githubusercontent.com/{self.owner}/{self.repo}/{ref}/{path}"
        return {
            "type": kind,
            "size": len(data) if kind == "file" else 0,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": oid,
            "url": api,
            "git_url": git,
            "html_url": html,
            "download_url": raw if kind == "file" else None,
            "_links": {"self": api, "git": git, "html": html},
        }

    def _get_contents(self, req: _Request) -> _Response:
        """A file: its entry with the content in base64 (wrapped at 60 characters, as GitHub
        sends it); a directory: the list of its entries, without content; else 404."""
        ref = req.query.get("ref") or self._git.default_branch
        commit = self._git.resolve(ref)
        if commit is None:
            raise _not_found()
        path = req.params["path"].strip("/")
        data = commit.tree.get(path)
        if data is not None:
            entry = self._entry(req.base, path, "file", data, blob_oid(data), ref)
            encoded = base64.b64encode(data).decode()
            lines = [encoded[i : i + 60] for i in range(0, len(encoded), 60)]
            entry.update({"encoding": "base64", "content": "\n".join(lines) + "\n"})
            return _Response(200, entry)
        prefix = f"{path}/"
        children: dict[str, dict[str, bytes]] = {}  # a child's name -> its files, by sub-path
        for name, blob in commit.tree.items():
            if name.startswith(prefix):
                child, _, deeper = name[len(prefix) :].partition("/")
                children.setdefault(child, {})[deeper] = blob
        if not children:
            raise _not_found()
        items = []
        for child, files in sorted(children.items()):
            if "" in files:  # a file
                data = files[""]
                items.append(
                    self._entry(req.base, prefix + child, "file", data, blob_oid(data), ref)
                )
            else:
                oid = tree_oid(files)
                items.append(self._entry(req.base, prefix + child, "dir", b"", oid, ref))
        return _Response(200, items)

    def _list_secrets(self, req: _Request) -> _Response:
        self._admin_only()
        secrets = sorted(self._state.settings.secrets.values(), key=lambda s: s.name)
        return self._paginate(
            req,
            secrets,
            lambda s: {
                "name": s.name,
                "created_at": _stamp(s, "created_at"),
                "updated_at": _stamp(s, "updated_at"),
            },
            wrap="secrets",
        )

    def _get_actions_permissions(self, req: _Request) -> _Response:
        self._admin_only()
        settings = self._state.settings
        answer: dict[str, Any] = {"enabled": settings.actions_enabled}
        if settings.actions_enabled:
            answer["allowed_actions"] = settings.allowed_actions
            answer["sha_pinning_required"] = settings.sha_pinning_required
            if settings.allowed_actions == "selected":
                answer["selected_actions_url"] = (
                    f"{self._api(req.base)}/actions/permissions/selected-actions"
                )
        return _Response(200, answer)

    def _get_workflow_permissions(self, req: _Request) -> _Response:
        self._admin_only()
        settings = self._state.settings
        return _Response(
            200,
            {
                "default_workflow_permissions": settings.default_workflow_permissions,
                "can_approve_pull_request_reviews": settings.can_approve_pull_request_reviews,
            },
        )
