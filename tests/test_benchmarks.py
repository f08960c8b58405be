"""The benchmark script keeps working (its figures are quoted in the docs and notes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def test_record_sizes_are_measured_after_real_transitions() -> None:
    bench = load_script()
    sizes = bench.record_sizes([3, 30])
    assert [count for count, _ in sizes] == [3, 30]
    assert all(0 < size < bench.TARGET_RECORD_BYTES for _, size in sizes)


def test_the_report_names_every_target() -> None:
    bench = load_script()
    rows = [
        bench.Row("ignored: push", 0, "—"),
        bench.Row("agent report with a transition (and dispatch)", 7, "…"),
        bench.Row("human reply in a waiting state", 6, "…"),
    ]
    text = bench.render(
        rows,
        bench.Row("sweep", 35, "…"),
        [
            ("python -c pass", 0.02, 1.0, 40_000, 0.02),
            ("baton run, ignored event", 0.08, 4.0, 40_000, 0.07),
        ],
        [(1000, 8_500)],
    )
    targets = text.split("## Targets", 1)[1].strip().splitlines()
    assert targets == [
        "- ignored events make 0 API calls: met",
        "- an ignored run within 10× a bare interpreter: 4.0× — met",
        "- a transition in at most 4 API calls: at most 7 "
        "(agent report with a transition (and dispatch)) — NOT met "
        "(benchmarks/README.md says where each call goes)",
        "- the record under 16,000 bytes after 1,000 transitions: 8,500 — met",
        "- a sweep over 1,000 open issues within the hourly budget: 35 calls — met",
    ]


def test_each_event_kind_costs_the_calls_the_benchmarks_quote(tmp_path: Path) -> None:
    """The call budget, asserted over real HTTP: a transition in at most four calls (the read,
    a permission lookup or the record check, the write, a dispatch), ignored events in none."""
    bench = load_script()
    counts = {row.kind: row.calls for row in bench.api_calls(tmp_path)}
    assert all(calls == 0 for kind, calls in counts.items() if kind.startswith("ignored"))
    assert {kind: calls for kind, calls in counts.items() if not kind.startswith("ignored")} == {
        "entry: trigger label by a maintainer": 3,
        "agent report with a transition (and dispatch)": 4,
        "chained run naming the next agent": 1,
        "human reply in a waiting state": 3,
        "approval by a maintainer": 4,
        "forced relabel by a maintainer": 4,
        "unknown status label": 4,
    }


def test_a_sweep_over_a_thousand_issues_leaves_the_hour_almost_whole(tmp_path: Path) -> None:
    bench = load_script()
    row = bench.sweep_calls(tmp_path, total=1000, in_workflow=50, due=5)
    assert row.calls <= 25  # 10 listing pages, a read per due issue, its writes
