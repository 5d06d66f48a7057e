"""``python -m kubenotes`` and the ``kubenotes`` console script; see :mod:`kubenotes.cli`."""

from __future__ import annotations

import sys
from typing import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kubenotes`` command line and return its exit status (see :func:`kubenotes.cli.main`)."""
    try:
        from kubenotes.cli import main as cli_main
    except KeyboardInterrupt:  # Ctrl-C while importing
        print("kubenotes: interrupted", file=sys.stderr)
        return 130
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
