"""The README's promises: short, its quick start and its diagram true, every command named, and
every link in it and in the docs it sends a reader to resolving."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from baton.workflow.graph import to_mermaid
from baton.workflow.model import load_preset

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_diagram_is_the_generated_default_workflow() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- diagram:start -->\n```mermaid\n(.*?)\n```\n<!-- diagram:end -->", text, re.S
    )
    assert match, "the README keeps the diagram between its markers"
    assert match.group(1) == to_mermaid(load_preset("issue-lifecycle")), (
        "regenerate it with `baton graph --workflow issue-lifecycle`"
    )


def _quick_start() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n\n```bash\n(.*?)\n```", text, re.S)
    assert block
    return block.group(1).splitlines()


def test_the_quick_start_is_two_commands_demo_then_tests() -> None:
    """The demo installs Baton alone (no dev extra); the tests add the dev extra."""
    demo, tests = _quick_start()
    assert demo.endswith("&& .venv/bin/pip install -e . && .venv/bin/baton demo")
    assert "[dev]" not in demo
    assert tests == ".venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest"


def _version_check() -> str:
    demo = _quick_start()[0]
    match = re.match(r"python3 -c '([^']*)' && python3 -m venv \.venv ", demo)
    assert match, "the quick start checks the Python version before it makes the venv"
    return match.group(1)


@pytest.mark.parametrize(
    ("version", "code", "said"),
    [
        ((3, 10, 12), 1, "Baton needs Python 3.11 or newer\n"),
        ((3, 9, 2), 1, "Baton needs Python 3.11 or newer\n"),
        ((3, 11, 0), 0, ""),
        ((3, 13, 1), 0, ""),
    ],
)
def test_the_quick_start_stops_on_an_old_python_with_one_line(
    version: tuple[int, int, int], code: int, said: str
) -> None:
    check = _version_check()
    pretend = f"import sys; sys.version_info = {version!r}; exec({check!r})"
    done = subprocess.run([sys.executable, "-c", pretend], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (code, said)


DEV_ONLY = (
    "pytest",
    "hypothesis",
    "responses",
    "mypy",
    "ruff",
    "importlinter",
    "mutmut",
)


def test_the_demo_needs_no_dev_extra(tmp_path: Path) -> None:
    """`baton demo` imports nothing the dev extra brings: an import of one fails this run."""
    script = (
        "import sys\n"
        "class Refuse:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {DEV_ONLY!r}:\n"
        "            raise ImportError('dev-only import: ' + name)\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "from baton.__main__ import main\n"
        "sys.argv = ['baton', 'demo']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "completed" in done.stdout


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "\n.venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest\n" in ci


CALLER_FITS = "fits in 40 lines of YAML"


def _caller_lines() -> int:
    """The caller's lines of YAML (no comment, no blank line)."""
    lines = (README.parent / "examples" / "workflows" / "baton.yml").read_text().splitlines()
    return len([line for line in lines if line.strip() and not line.lstrip().startswith("#")])


def test_the_docs_give_the_callers_true_length() -> None:
    # The caller's figure, quoted by the docs a user reads before copying it.
    assert _caller_lines() <= 40
    for doc in (README.parent / "examples" / "README.md", README.parent / "docs" / "setup.md"):
        assert CALLER_FITS in " ".join(doc.read_text().split()), doc
    reusable = (README.parent / ".github" / "workflows" / "baton-issues.yml").read_text()
    assert CALLER_FITS in " ".join(reusable.replace("\n# ", "\n").split())


def test_the_readme_stays_under_2000_words() -> None:
    """A newcomer needed ten minutes to trust what to copy from 6,097 words; the rest is in
    docs/ (counted as `wc -w` counts)."""
    assert len(README.read_text(encoding="utf-8").split()) < 2000


def test_the_readme_names_every_command_baton_help_lists() -> None:
    from baton.cli import cli

    listed = set(cli.list_commands(click.Context(cli)))
    assert {"init", "doctor", "demo", "run"} <= listed
    section = README.read_text(encoding="utf-8").split("## Commands\n", 1)[1].split("\n## ")[0]
    named = set(re.findall(r"`(\w+)`", section))
    assert listed - named == set(), "name these in the README's Commands"
    assert named - listed <= {"baton"}, "the README names a command baton does not have"


DOCS = sorted(
    [
        README,
        *(README.parent / "docs").glob("*.md"),
        *(README.parent / "examples").rglob("*.md"),
        README.parent / "benchmarks" / "README.md",
    ]
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    found = set()
    for title in re.findall(r"^#{1,6} (.+)$", markdown, re.M):
        found.add(re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-"))
    return found


def _without_code(markdown: str) -> str:
    return re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(README.parent)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(_without_code(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        missing_anchor = (
            where.exists()
            and where.suffix == ".md"
            and bool(anchor)
            and anchor not in _anchors(where.read_text())
        )
        if not where.exists() or missing_anchor:
            broken.append(target)
    assert broken == []


def test_the_link_check_sees_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Here\n\n[a](gone.md) [b](#there) [c](#here) [d](https://x.org/y)\n")
    text = _without_code(page.read_text())
    targets = LINK.findall(text)
    assert targets == ["gone.md", "#there", "#here", "https://x.org/y"]
    assert _anchors(text) == {"here"}
