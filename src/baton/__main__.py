"""`python -m baton` and the `baton` console script."""

from __future__ import annotations


def main() -> None:
    from baton.cli import cli

    cli()


if __name__ == "__main__":
    main()
