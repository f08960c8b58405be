"""What a maintainer installing Baton reads before any code: the licence, the PyPI page, the
Marketplace listing, the changelog, the security policy and the table of inputs
(docs/reference.md)."""

from __future__ import annotations

import email
import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
REPOSITORY = "https://github.com/issue-baton/baton"
MARKETPLACE_DESCRIPTION_LIMIT = 125


# --------------------------------------------------------------------------- the licence


def test_the_licence_file_is_the_mit_licence_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]


def test_no_licence_classifier_contradicts_the_spdx_expression() -> None:
    # PEP 639: with a `license` expression, `License ::` classifiers are an error on upload.
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]


def test_the_build_backend_is_new_enough_for_an_spdx_licence() -> None:
    (requirement,) = PYPROJECT["build-system"]["requires"]
    match = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", requirement)
    assert match, requirement
    assert int(match.group(1)) >= 77, 'setuptools reads `license = "MIT"` from 77 on'


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Baton's wheel, built the way PyPI's will be: pip, with build isolation."""
    out = tmp_path_factory.mktemp("wheel")
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GITHUB_", "INPUT_", "RUNNER_"))
    }
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", out, ROOT],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("issue_baton-*.whl")
    return built


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(archive.read(name))


def test_the_wheel_carries_the_licence_expression_and_the_licence_file(wheel: Path) -> None:
    metadata = _metadata(wheel)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    with zipfile.ZipFile(wheel) as archive:
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in archive.namelist())


def test_the_wheel_names_the_repository_the_issues_and_the_changelog(wheel: Path) -> None:
    urls = dict(u.split(", ", 1) for u in _metadata(wheel).get_all("Project-URL") or [])
    assert {"Homepage", "Issues", "Changelog"} <= set(urls)
    assert all(url.startswith(REPOSITORY) for url in urls.values()), urls


def test_the_wheel_says_which_pythons_it_supports(wheel: Path) -> None:
    metadata = _metadata(wheel)
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    minimum = int(PROJECT["requires-python"].removeprefix(">=3."))
    versions = {
        int(c.rsplit(".", 1)[1])
        for c in metadata.get_all("Classifier") or []
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    assert minimum in versions
    assert min(versions) == minimum


def test_every_classifier_is_one_pypi_accepts() -> None:
    import trove_classifiers as trove  # a dev dependency: missing is a broken install

    unknown = [c for c in PROJECT["classifiers"] if c not in trove.classifiers]
    assert unknown == [], "PyPI refuses an upload with an unknown classifier"


def test_the_project_urls_name_the_repository_the_config_schema_names() -> None:
    schema = json.loads((ROOT / "schema" / "baton-config.schema.json").read_text("utf-8"))
    assert schema["$id"].startswith(REPOSITORY + "/")
    assert all(url.startswith(REPOSITORY) for url in PROJECT["urls"].values())


# --------------------------------------------------------------------------- the Marketplace


def test_the_action_description_fits_the_marketplace_listing() -> None:
    description = ACTION["description"]
    assert len(description) <= MARKETPLACE_DESCRIPTION_LIMIT, (
        f"{len(description)} characters; the Marketplace shows {MARKETPLACE_DESCRIPTION_LIMIT}"
    )
    assert "\n" not in description


# --------------------------------------------------------------------------- the changelog

CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_changelog_keeps_an_unreleased_section_first() -> None:
    headings = re.findall(r"^## (.+)$", CHANGELOG, re.M)
    assert headings[0] == "[Unreleased]"


def test_the_changelog_has_an_entry_for_this_version_with_its_date() -> None:
    version = re.escape(PROJECT["version"])
    assert re.search(rf"^## \[{version}\] - \d{{4}}-\d{{2}}-\d{{2}}$", CHANGELOG, re.M)


def test_each_changelog_heading_links_to_its_comparison_or_release() -> None:
    headings = re.findall(r"^## \[([^\]]+)\]", CHANGELOG, re.M)
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", CHANGELOG, re.M))
    assert set(headings) == set(links)
    assert links["Unreleased"].startswith(f"{REPOSITORY}/compare/v")
    for version in set(headings) - {"Unreleased"}:
        assert links[version] == f"{REPOSITORY}/releases/tag/v{version}"


def test_the_changelog_sections_use_keep_a_changelogs_kinds() -> None:
    kinds = set(re.findall(r"^### (.+)$", CHANGELOG, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


# --------------------------------------------------------------------------- the security policy


def test_the_security_policy_sends_reports_to_private_vulnerability_reporting() -> None:
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert f"{REPOSITORY}/security/advisories/new" in text
    assert "Do not open a public issue" in text


# --------------------------------------------------------------------------- the inputs table


def _reference_inputs() -> dict[str, tuple[str, str]]:
    """docs/reference.md's table of inputs (the README links it): name -> (default, meaning)."""
    readme = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    match = re.search(r"\| input \| default \| what it does \|\n\|[-|]+\|\n((?:\|.*\|\n)+)", readme)
    assert match, "docs/reference.md keeps a table with the columns input | default | what it does"
    rows: dict[str, tuple[str, str]] = {}
    for line in match.group(1).splitlines():
        name, default, meaning = (cell.strip() for cell in line.strip("|").split(" | "))
        rows[name.strip("`")] = (default, meaning)
    return rows


def _as_written(spec: dict[str, Any]) -> str:
    return f"`{spec['default']}`" if "default" in spec else "none"


def test_the_reference_lists_every_input_of_the_action_in_its_order() -> None:
    assert list(_reference_inputs()) == list(ACTION["inputs"])


@pytest.mark.parametrize("name", list(ACTION["inputs"]))
def test_the_reference_gives_each_inputs_default_as_action_yml_does(name: str) -> None:
    default, meaning = _reference_inputs()[name]
    assert default == _as_written(ACTION["inputs"][name])
    assert meaning, f"say what `{name}` does"
