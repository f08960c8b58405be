"""The image's size, build and start figures are measured in one place, benchmarks/image.md, and
every other document quotes them exactly: a passage about the image that gives a size or a
time gives one of the figures image.md lists as quoted, each the one its section measured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
IMAGE_MD = ROOT / "benchmarks" / "image.md"
QUOTING = (
    "README.md",
    "examples/README.md",
    "examples/agents/README.md",
    "action.yml",
    "Dockerfile",
    "scripts/build-image.sh",
    "scripts/measure-image-start.sh",
    ".github/workflows/release.yml",
    "docs/architecture.md",
    "docs/setup.md",
    "docs/costs.md",
)
# A size or a duration as the documents write one: `45.8 MB`, `18–36 s`, `56–93 ms`, `25-30 s`.
FIGURE = re.compile(r"(?<![\w.])~?\d+(?:\.\d+)?(?:\s?[–-]\s?\d+(?:\.\d+)?)?\s?(?:MB|ms|s)\b")
# A passage about the image (its size, its build, its pull, its start).
ABOUT_IMAGE = re.compile(r"\bimage\b|Dockerfile", re.IGNORECASE)


def _sections(text: str) -> dict[str, str]:
    """image.md's sections by their GitHub anchor."""
    found: dict[str, str] = {}
    for part in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title, _, body = part.partition("\n")
        anchor = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        found[anchor] = body
    return found


def _quoted() -> list[tuple[str, str, str]]:
    """The rows of image.md's table of quoted figures: (what, figure, the section's anchor)."""
    table = _sections(IMAGE_MD.read_text())["the-figures-others-quote"]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("what", "---"):
            anchor = re.fullmatch(r"\[[^\]]+\]\(#([\w-]+)\)", cells[2])
            assert anchor, line
            rows.append((cells[0], cells[1], anchor[1]))
    return rows


def _passages(text: str, *, prose: bool) -> list[str]:
    """Paragraphs and list items: of the whole text (`prose`, Markdown) or of its comments
    alone, their `#` taken off (YAML, shell, the Dockerfile)."""
    passages: list[list[str]] = [[]]
    for raw in text.splitlines():
        comment = raw.lstrip().startswith("#")
        if not prose and not comment:
            passages.append([])
            continue
        line = re.sub(r"^\s*#+ ?", "", raw) if comment and not prose else raw
        if not line.strip() or re.match(r"\s*[-*] ", line):
            passages.append([])
        passages[-1].append(line)
    return ["\n".join(p) for p in passages if p]


def _normal(figure: str) -> str:
    return re.sub(r"\s*[–-]\s*", "–", figure.lstrip("~"))


def test_image_md_lists_the_quoted_figures() -> None:
    assert [what for what, _, _ in _quoted()] == [
        "what the Dockerfile adds to its Python base",
        "the copy of `src/` a second stage would save",
        "a job that builds the Dockerfile, before Baton runs",
        "a job that pulls the release's image, before Baton runs",
        "an ignored event inside the image",
    ]


@pytest.mark.parametrize(("what", "figure", "anchor"), _quoted(), ids=lambda v: str(v)[:40])
def test_each_quoted_figure_is_the_one_its_section_measured(
    what: str, figure: str, anchor: str
) -> None:
    section = _sections(IMAGE_MD.read_text())[anchor]
    for number in FIGURE.findall(figure):
        assert number in section, f"{what}: {number} is not measured in #{anchor}"


@pytest.mark.parametrize("name", QUOTING)
def test_every_figure_of_the_image_elsewhere_is_a_quoted_one(name: str) -> None:
    allowed = {_normal(n) for _, figure, _ in _quoted() for n in FIGURE.findall(figure)}
    strays = [
        (figure, passage.strip()[:80])
        for passage in _passages((ROOT / name).read_text(), prose=name.endswith(".md"))
        if ABOUT_IMAGE.search(passage)
        for figure in FIGURE.findall(passage)
        if _normal(figure) not in allowed
    ]
    assert strays == []


def test_a_stray_figure_in_a_passage_about_the_image_is_found() -> None:
    """The check above would catch the figures the documents used to disagree on."""
    old = "the Dockerfile is built on every job (about 25-30 s for an image this small)"
    allowed = {_normal(n) for _, figure, _ in _quoted() for n in FIGURE.findall(figure)}
    passages = _passages(f"# {old}", prose=False)
    found = [f for p in passages if ABOUT_IMAGE.search(p) for f in FIGURE.findall(p)]
    assert found == ["25-30 s"] and _normal(found[0]) not in allowed
