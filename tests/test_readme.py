"""The README's promises: its quick start and its diagram stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    "graphql",
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
    # The README's own figure is the lead's (its rewrite quotes CALLER_FITS).
    assert _caller_lines() <= 40
    examples = " ".join((README.parent / "examples" / "README.md").read_text().split())
    assert CALLER_FITS in examples
    reusable = (README.parent / ".github" / "workflows" / "baton-issues.yml").read_text()
    assert CALLER_FITS in " ".join(reusable.replace("\n# ", "\n").split())
