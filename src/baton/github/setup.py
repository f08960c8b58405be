"""A repository's setup over REST, for `baton doctor`: files through the contents API, the
Actions secrets by name, the Actions settings, the labels. Read-only, and each read is one
route of GitHub's REST API (a folder or a list: one page of 100 at a time).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from baton.errors import TrackerError
from baton.github.tracker import ActionsSettings
from baton.github.transport import PER_PAGE, Transport

# A repository as GitHub names it, owner/name: what `baton doctor --repo` takes.
OWNER_NAME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# The contents API sends a file's content only up to 1 MB; a larger file's answer has none, and
# would read as an empty file (an empty config is the defaults).
CONTENT_LIMIT = 1024 * 1024


class GitHubRepositorySetup:
    """`baton.github.tracker.RepositorySetup` over one transport."""

    def __init__(self, repository: str, token: str, *, api_url: str) -> None:
        self.transport = Transport(repository, token, api_url=api_url, graphql=False)

    def _contents(self, path: str) -> Any:
        """The contents API's answer for `path`, None on 404 (no such file or folder)."""
        try:
            _, data = self.transport.call(
                "GET",
                f"{self.transport.base}/contents/{quote(path)}",
                f"reading {path}",
            )
        except TrackerError as exc:
            if exc.status == 404:
                return None
            raise
        return data

    def file(self, path: str) -> str | None:
        data = self._contents(path)
        if data is None:
            return None
        if not isinstance(data, dict) or data.get("type") != "file":
            raise TrackerError(f"{path} is not a file on the default branch")
        size = data.get("size")
        if isinstance(size, int) and size > CONTENT_LIMIT:  # it came without its content
            raise TrackerError(f"{path} is {size:,} bytes, too large to read (at most 1 MB)")
        try:
            return base64.b64decode(str(data.get("content") or "")).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise TrackerError(f"{path} is not UTF-8 text") from None

    def directory(self, path: str) -> list[str] | None:
        data = self._contents(path)
        if data is None:
            return None
        if not isinstance(data, list):
            raise TrackerError(f"{path} is not a folder on the default branch")
        return [str(item["path"]) for item in data if item.get("type") == "file"]

    def _pages(self, route: str, what: str, items: Callable[[Any], list[Any]]) -> Iterator[Any]:
        page = 1
        while True:
            headers, data = self.transport.call(
                "GET",
                f"{self.transport.base}{route}",
                what,
                parameters={"per_page": PER_PAGE, "page": page},
            )
            yield from items(data)
            if 'rel="next"' not in str(headers.get("link", "")):
                return
            page += 1

    def secret_names(self) -> list[str]:
        found = self._pages(
            "/actions/secrets", "listing the Actions secrets", lambda d: d.get("secrets") or []
        )
        return [str(secret["name"]) for secret in found]

    def actions_settings(self) -> ActionsSettings:
        _, actions = self.transport.call(
            "GET", f"{self.transport.base}/actions/permissions", "reading the Actions settings"
        )
        _, token = self.transport.call(
            "GET",
            f"{self.transport.base}/actions/permissions/workflow",
            "reading the workflows' token settings",
        )
        return ActionsSettings(
            enabled=bool(actions.get("enabled")),
            allowed_actions=str(actions.get("allowed_actions") or ""),
            default_workflow_permissions=token.get("default_workflow_permissions"),
            can_approve_pull_request_reviews=token.get("can_approve_pull_request_reviews"),
        )

    def label_names(self) -> list[str]:
        found = self._pages("/labels", "listing the labels", lambda d: d or [])
        return [str(label["name"]) for label in found]
