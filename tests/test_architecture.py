"""The architecture holds: the import contracts in pyproject.toml are kept, they break on a
forbidden import, and docs/architecture.md names every package they list."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]


def _lint(src: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=config.parent,
        timeout=120,
    )


def test_every_import_contract_is_kept() -> None:
    done = _lint(ROOT / "src", ROOT / "pyproject.toml")
    count = len(CONFIG["contracts"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {count} kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        pytest.param(
            "core/model/decision.py",
            "from baton.github import tracker",
            "baton.core is not allowed to import baton.github",
            id="the core importing the GitHub layer breaks the layers",
        ),
        pytest.param(
            "issue/apply.py",
            "import github",
            "baton.issue is not allowed to import github",
            id="PyGithub imported outside github/client.py is refused",
        ),
        pytest.param(
            "core/rules/labels.py",
            "import pydantic",
            "baton.core.rules.labels is not allowed to import pydantic",
            id="the fast path importing pydantic is refused",
        ),
        pytest.param(
            "core/model/record.py",
            "from baton.core.model import decision",
            "No cycles are allowed in baton.core",
            id="a circle between two core modules is refused",
        ),
    ],
)
def test_a_forbidden_import_breaks_a_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "src" / "baton" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n")
    done = _lint(tmp_path / "src", tmp_path / "pyproject.toml")
    assert done.returncode != 0
    assert broken in done.stdout


def test_the_layers_name_every_package_of_baton_once() -> None:
    (layers,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    named = [name.strip() for layer in layers["layers"] for name in re.split("[|:]", layer)]
    on_disk = sorted(
        p.stem if p.is_file() else p.name
        for p in (ROOT / "src" / "baton").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    )
    assert sorted(named) == on_disk


def test_the_architecture_page_names_every_layer() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (layers,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    for layer in layers["layers"]:
        for name in re.split("[|:]", layer):
            assert f"`{name.strip()}" in page, name
