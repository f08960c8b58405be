"""How hard the text properties look for a counterexample.

A mutation run (mutmut copies the tests into `mutants/` and runs them once per mutant) only
needs to see a property fail: it looks at fewer examples and does not shrink the failure,
which can take minutes when every step renders Markdown."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import Phase, settings

MUTATION_RUN = "mutants" in Path(__file__).resolve().parts or "MUTANT_UNDER_TEST" in os.environ


def budget(examples: int) -> settings:
    if MUTATION_RUN:
        return settings(
            max_examples=max(examples // 4, 25),
            deadline=None,
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
            database=None,
        )
    return settings(max_examples=examples, deadline=None)
