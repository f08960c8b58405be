"""Where a workflow comes from: a preset by name, or a workflow file by path.

`load_workflow` is the one way a workflow is named, so a file that `baton validate --workflow`
accepts is one that `graph --workflow`, `simulate --workflow` and `workflow:` in the config
accept too. A command's --workflow path is read from the working directory; the config's
`workflow:` path from beside the config, inside the repository, where it is locked against
agents' changesets as the config is.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path

from baton.errors import InvalidWorkflow, YamlRefused
from baton.workflow.model import Workflow, load_preset, parse_workflow, preset_document
from baton.workflow.yaml_source import YamlDocument, file_text

# Reads the workflow file a name points at (`load_workflow_file`, or a repository's file for
# `baton doctor`).
WorkflowFileReader = Callable[[str], tuple[Workflow, YamlDocument]]


def is_workflow_file(name: str) -> bool:
    """A preset's name has neither a dot nor a slash; a workflow file's path has one."""
    return "." in name or "/" in name


def load_workflow(name: str, read_file: WorkflowFileReader | None) -> tuple[Workflow, YamlDocument]:
    """A preset, or the workflow file `read_file` reads; InvalidWorkflow in one line otherwise."""
    if not is_workflow_file(name):
        return load_preset(name), preset_document(name)
    if read_file is None:
        raise InvalidWorkflow(f"{name}: a workflow file is read only beside a config file")
    return read_file(name)


def load_workflow_file(path: Path) -> tuple[Workflow, YamlDocument]:
    """A workflow file, refused in one line naming it when it cannot be read, is too large, is
    not UTF-8 or does not validate."""
    try:
        text = file_text(path)
    except OSError as exc:
        raise InvalidWorkflow(f"cannot read workflow file {path}: {exc.strerror}") from exc
    except YamlRefused as exc:
        raise InvalidWorkflow(f"workflow file {exc}") from exc
    return parse_workflow(text, source=str(path))


def in_repository(config_path: str, name: str) -> str:
    """The repository path of the workflow file a config at `config_path` names: beside the
    config, never outside the repository (no absolute path, no `..`)."""
    if name.startswith("/") or ".." in name.split("/") or "\\" in name:
        raise InvalidWorkflow(
            f"{config_path}: workflow: {name!r} must be a path beside the config, inside the "
            "repository (no leading /, no .., no backslash)"
        )
    return posixpath.normpath(posixpath.join(posixpath.dirname(config_path), name))


def beside(config: Path) -> WorkflowFileReader:
    """The reader for the config at `config` (a file on disk): its folder's workflow files."""

    def read(name: str) -> tuple[Workflow, YamlDocument]:
        in_repository(config.as_posix(), name)
        return load_workflow_file(config.parent / name)

    return read


def from_repository(config_path: str, read_text: Callable[[str], str | None]) -> WorkflowFileReader:
    """The reader for a config read from a repository (`baton doctor`): `read_text` gives a
    file's text by its path in the repository, None when there is no such file."""

    def read(name: str) -> tuple[Workflow, YamlDocument]:
        path = in_repository(config_path, name)
        text = read_text(path)
        if text is None:
            raise InvalidWorkflow(
                f"{config_path}: workflow: the workflow file {path} does not exist"
            )
        return parse_workflow(text, source=path)

    return read


def from_working_directory(name: str) -> tuple[Workflow, YamlDocument]:
    """A command's --workflow path: any file the user names."""
    return load_workflow_file(Path(name))
