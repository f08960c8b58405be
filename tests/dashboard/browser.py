"""The page as a browser shows it: its Markdown made HTML (markdown-it, with GitHub's tables),
its charts drawn by Mermaid (tests/dashboard/mermaid), in headless Chromium from the
distribution's packages. `tests/dashboard/test_page_browser.py` checks every chart is drawn;
`python tests/dashboard/browser.py` writes docs/dashboard.png from the demo's page."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

HERE = Path(__file__).parent
MERMAID = HERE / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
_CHART = re.compile(r'<pre><code class="language-mermaid">(.*?)</code></pre>', re.S)
STYLE = """
body { font: 14px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
       max-width: 980px; margin: 24px auto; padding: 0 32px; line-height: 1.5; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid #d1d9e0; padding: 4px 12px; }
tr:nth-child(2n) { background: #f6f8fa; }
code { background: #eff1f3; padding: .1em .3em; border-radius: 4px; font-size: 85%; }
pre.mermaid { background: none; }
"""


def chromium() -> str | None:
    names = ("chromium", "chromium-browser", "google-chrome")  # Debian, Ubuntu, GitHub's runners
    return next((found for name in names if (found := shutil.which(name))), None)


def html_of(page: str) -> str:
    body = MarkdownIt("commonmark").enable("table").render(page)
    body = _CHART.sub(lambda m: f'<pre class="mermaid">{m.group(1)}</pre>', body)
    script = MERMAID.as_uri()
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>{STYLE}</style>
<script src="{html.escape(script)}"></script></head><body>{body}
<script>
mermaid.initialize({{ startOnLoad: false, securityLevel: "strict" }});
mermaid.run({{ querySelector: "pre.mermaid" }})
  .then(() => {{ document.body.dataset.drawn = "yes"; }})
  .catch((e) => {{ document.body.dataset.drawn = "error: " + e; }});
</script></body></html>"""


def _run(html_path: Path, *mode: str) -> str:
    browser = chromium()
    assert browser is not None
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                "--virtual-time-budget=15000",
                *mode,
                html_path.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return done.stdout


def drawn_dom(page: str, workdir: Path) -> str:
    """The document after Mermaid drew the charts (`body[data-drawn]` says how it went)."""
    path = workdir / "page.html"
    path.write_text(html_of(page), encoding="utf-8")
    return _run(path, "--dump-dom")


def screenshot(page: str, out: Path, workdir: Path, *, height: int = 4000) -> None:
    path = workdir / "page.html"
    path.write_text(html_of(page), encoding="utf-8")
    _run(path, f"--screenshot={out}", f"--window-size=1100,{height}", "--hide-scrollbars")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(HERE.parent))
    from baton.dashboard.commands import demo_page
    from baton.sim.scenario.format import demo_scenario
    from baton.sim.scenario.player import Player
    from baton.workflow.config import load_config

    settings = load_config(None)
    player = Player(demo_scenario(), settings, lambda _: None)
    player.play()
    with tempfile.TemporaryDirectory() as work:
        target = HERE.parents[1] / "docs" / "dashboard.png"
        screenshot(demo_page(player.gh, settings), target, Path(work))
        print(target)
