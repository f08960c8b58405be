"""`files_digest` (`core/model/evidence.py`): the digest of a tree's test and frozen files that a
sign-off keeps, as CONTRACT26 defines it, checked against the lines written out by hand."""

from __future__ import annotations

import hashlib

from baton.core.model.evidence import Evidence, files_digest

PATHS = ("**/test_*.py", "**/tests/**")
FROZEN = ("**/conftest.py",)
BLOB_A, BLOB_B, BLOB_C, BLOB_D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)
TREE = [
    ("src/app.py", "100644", BLOB_A),
    ("tests/test_app.py", "100644", BLOB_B),
    ("conftest.py", "100644", BLOB_C),
    ("tests/data/run.sh", "100755", BLOB_D),
    ("README.md", "100644", BLOB_A),
]


def _sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_digest_is_of_the_sorted_lines_of_the_test_and_frozen_files_only() -> None:
    lines = (
        f"100644 {BLOB_B}\ttests/test_app.py\n"
        f"100644 {BLOB_C}\tconftest.py\n"
        f"100755 {BLOB_D}\ttests/data/run.sh\n"
    )

    assert files_digest(TREE, PATHS, FROZEN) == _sha(lines)


def test_the_order_of_the_tree_and_its_other_files_change_nothing() -> None:
    other = [*reversed(TREE), ("src/more.py", "100644", BLOB_D)]
    other = [
        entry if entry[0] != "src/app.py" else ("src/app.py", "100644", BLOB_B) for entry in other
    ]

    assert files_digest(other, PATHS, FROZEN) == files_digest(TREE, PATHS, FROZEN)


def test_a_test_file_frozen_file_or_mode_changed_changes_the_digest() -> None:
    signed = files_digest(TREE, PATHS, FROZEN)
    changed = [
        [e if e[0] != "tests/test_app.py" else (e[0], e[1], BLOB_A) for e in TREE],
        [e if e[0] != "conftest.py" else (e[0], e[1], BLOB_A) for e in TREE],
        [e if e[0] != "tests/data/run.sh" else (e[0], "100644", e[2]) for e in TREE],
        [e for e in TREE if e[0] != "conftest.py"],
        [*TREE, ("pkg/test_new.py", "100644", BLOB_A)],
    ]

    assert all(files_digest(tree, PATHS, FROZEN) != signed for tree in changed)


def test_a_tree_without_test_files_has_the_digest_of_nothing() -> None:
    assert files_digest([("src/app.py", "100644", BLOB_A)], PATHS, FROZEN) == _sha("")


def test_the_digest_is_what_evidence_files_accepts() -> None:
    evidence = Evidence(
        verdict="green",
        reason="1 passed, 0 skipped",
        commit=BLOB_A,
        exit_status=0,
        files=files_digest(TREE, PATHS, FROZEN),
    )

    assert evidence.files == files_digest(TREE, PATHS, FROZEN)
