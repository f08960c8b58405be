"""`python -m baton` and the `baton` console script.

`baton run` first asks `action.fast_path.quick_run` whether the event is certainly ignored;
that path imports neither pydantic, click nor PyGithub, so most events cost an interpreter
start and no API call.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["run"]:
        from baton.action.fast_path import quick_run

        code = quick_run()
        if code is not None:
            sys.exit(code)
    from baton.cli import cli

    cli()


if __name__ == "__main__":
    main()
