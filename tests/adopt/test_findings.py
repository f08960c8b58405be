"""How findings print: each with its fix below it, then a line counting them."""

from __future__ import annotations

from baton.adopt.findings import error, report, unchecked, warning


def test_a_report_lists_each_finding_then_counts_them() -> None:
    findings = [
        error("no workflow calls Baton", "run `baton init`"),
        warning("2 status labels do not exist yet"),
        unchecked("the Actions secrets: GitHub answered 403", "admin on the repository"),
    ]
    assert report(findings) == [
        "error: no workflow calls Baton",
        "  fix: run `baton init`",
        "warning: 2 status labels do not exist yet",
        "cannot check: the Actions secrets: GitHub answered 403",
        "  fix: use a token with admin on the repository",
        "Baton's setup needs fixing: 1 error, 1 warning, 1 not checked.",
    ]


def test_nothing_found_is_said_plainly() -> None:
    assert report([]) == ["Baton's setup looks right: 0 errors."]
    assert report([warning("a"), warning("b")])[-1] == (
        "Baton's setup looks right: 0 errors, 2 warnings."
    )


def test_notes_are_counted_last_and_never_make_the_setup_need_fixing() -> None:
    from baton.adopt.findings import Finding, Level

    notes = [Finding(level=Level.note, what="a"), Finding(level=Level.note, what="b")]
    assert report(notes) == ["note: a", "note: b", "Baton's setup looks right: 0 errors, 2 notes."]
    assert report(notes[:1])[-1] == "Baton's setup looks right: 0 errors, 1 note."
