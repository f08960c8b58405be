"""A scratch git repository a test builds commit by commit, and the `tests:` that run its
tests with the real pytest (this interpreter's, without this repository's options)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from baton.core.model.changeset import Changeset, FileChange
from baton.workflow.suite import SuiteSettings

IDENTITY = {
    "GIT_AUTHOR_NAME": "Tess Ter",
    "GIT_AUTHOR_EMAIL": "tess@example.com",
    "GIT_COMMITTER_NAME": "Tess Ter",
    "GIT_COMMITTER_EMAIL": "tess@example.com",
}
PYTEST = (
    f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:randomly -p no:xdist "
    '-o addopts= -o pythonpath=. --junitxml="$BATON_JUNIT"'
)


def pytest_suite(timeout: timedelta = timedelta(minutes=2), **more: object) -> SuiteSettings:
    return SuiteSettings.model_validate({"command": PYTEST, "timeout": timeout, **more})


def changeset_of(base: str, files: dict[str, str | None], mode: str = "100644") -> Changeset:
    """A changeset as capture writes one: each file's bytes base64, None a deletion."""
    return Changeset(
        base=base,
        files=[
            FileChange(
                path=path,
                contents=None if text is None else base64.b64encode(text.encode()).decode(),
                mode=mode,
            )
            for path, text in files.items()
        ],
    )


class ScratchRepo:
    """A git repository in `root`; `commit` writes files (None deletes one) and commits them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=self.root,
            capture_output=True,
            check=True,
            env={**os.environ, **IDENTITY},
        )
        return done.stdout.decode().strip()

    def commit(self, message: str, files: dict[str, str | None]) -> str:
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")
