"""Where a workflow comes from (`workflow/sources.py`): a preset by name or a workflow file by
path, the one way every command's --workflow and the config's `workflow:` read one."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.errors import InvalidWorkflow
from baton.workflow.model import load_preset, to_yaml
from baton.workflow.sources import (
    beside,
    from_repository,
    in_repository,
    is_workflow_file,
    load_workflow,
    load_workflow_file,
)


def test_a_workflow_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidWorkflow, match="cannot read workflow file"):
        load_workflow_file(tmp_path / "missing.yml")


def test_a_workflow_file_that_is_not_utf8_is_one_line_naming_the_file_and_the_byte(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mine.yml"
    path.write_bytes(b"name: caf\xe9\n")

    with pytest.raises(InvalidWorkflow) as refused:
        load_workflow_file(path)

    assert str(refused.value) == f"workflow file {path} is not UTF-8 text (byte 9: 0xe9)"


def test_a_workflow_file_over_the_limit_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "big.yml"
    path.write_bytes(b"#" * (256 * 1024 + 1))

    with pytest.raises(InvalidWorkflow, match=r"big\.yml is over 262,144 bytes"):
        load_workflow_file(path)


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("issue-lifecycle", False),
        ("no-such-preset", False),
        ("mine.yml", True),
        ("workflows/mine", True),
        (".github/baton-workflow.yaml", True),
    ],
)
def test_a_name_with_a_dot_or_a_slash_is_a_file(name: str, file: bool) -> None:
    assert is_workflow_file(name) is file


def test_a_preset_comes_with_its_own_document_for_the_lines_of_its_problems() -> None:
    workflow, document = load_workflow("approval-gate", None)

    assert workflow == load_preset("approval-gate")
    assert document.source == "preset approval-gate"


def test_a_workflow_file_without_a_reader_is_refused() -> None:
    with pytest.raises(InvalidWorkflow, match="read only beside a config file"):
        load_workflow("mine.yml", None)


def test_the_configs_workflow_file_is_read_from_beside_the_config(tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "mine.yml").write_text(to_yaml(load_preset("approval-gate")), "utf-8")

    workflow, document = load_workflow("mine.yml", beside(tmp_path / "ci" / "baton.yml"))

    assert workflow == load_preset("approval-gate")
    assert document.source == str(tmp_path / "ci" / "mine.yml")


@pytest.mark.parametrize("name", ["/etc/mine.yml", "../mine.yml", "a/../../mine.yml", "a\\b.yml"])
def test_the_configs_workflow_file_stays_inside_the_repository(name: str) -> None:
    with pytest.raises(InvalidWorkflow) as refused:
        in_repository(".github/baton.yml", name)

    assert str(refused.value).startswith(".github/baton.yml: workflow: ")
    assert "\n" not in str(refused.value)


def test_a_repositorys_workflow_file_is_read_by_its_path_there() -> None:
    files = {".github/mine.yml": to_yaml(load_preset("task-review"))}
    asked: list[str] = []

    def read(path: str) -> str | None:
        asked.append(path)
        return files.get(path)

    workflow, _ = from_repository(".github/baton.yml", read)("./mine.yml")
    assert (workflow, asked) == (load_preset("task-review"), [".github/mine.yml"])

    with pytest.raises(InvalidWorkflow, match=r"file \.github/gone\.yml does not exist"):
        from_repository(".github/baton.yml", read)("gone.yml")
