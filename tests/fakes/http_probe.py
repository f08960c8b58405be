"""Raw requests to the fake GitHub, past PyGithub, to check what travels (statuses, headers,
bodies)."""

from __future__ import annotations

from typing import Any

import requests

from fakes.http_github import FakeGitHub


def raw(fake: FakeGitHub, method: str, path: str, **kwargs: Any) -> requests.Response:
    """Bypass PyGithub to check wire details (status codes, headers, bodies)."""
    headers = {"Authorization": f"Bearer {fake.token}"}
    return requests.request(method, fake.url + path, headers=headers, timeout=5, **kwargs)


def statuses(fake: FakeGitHub, method: str, path_contains: str) -> list[int]:
    return [call.status for call in fake.calls(method, path_contains)]
