"""Pins `core/model/changeset.py`'s digest, which issue 18's mutation sample named unpinned: known
changesets give these exact digests. The digest sits in the trailers of commits on branches for
as long as they live, and a re-run after an upgrade finds its commit by it, so the literal
values are the contract (`tests/core/model/test_changeset.py` pins one more, with a deletion and
non-ASCII path)."""

from __future__ import annotations

import base64

import pytest

from baton.core.model.changeset import EXECUTABLE, SYMLINK, Changeset, FileChange

BASE = "0123456789abcdef0123456789abcdef01234567"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


FILES = [
    FileChange(path="bin/run", contents=_b64(b"#!/bin/sh\necho hi\n"), mode=EXECUTABLE),
    FileChange(path="docs/latest", contents=_b64(b"v2"), mode=SYMLINK),
    FileChange(path="README.md", contents=_b64("Café\n".encode())),
    FileChange(path="old.txt"),
]


@pytest.mark.parametrize(
    ("files", "digest"),
    [
        pytest.param(
            FILES,
            "sha256:77174fd4ff9aa0f0101cd06efed84ed9d1b18179c10f00a798518fde4bec8274",
            id="every mode, a deletion, non-ASCII contents",
        ),
        pytest.param(
            list(reversed(FILES)),
            "sha256:77174fd4ff9aa0f0101cd06efed84ed9d1b18179c10f00a798518fde4bec8274",
            id="the same files in another order",
        ),
        pytest.param(
            [],
            "sha256:2320170c2262502ac6664bd3e1cc031f28f6b878edccbb11a246e1f9e7639a28",
            id="no files",
        ),
    ],
)
def test_a_known_changeset_has_this_exact_digest(files: list[FileChange], digest: str) -> None:
    assert Changeset(base=BASE, files=files).digest() == digest
