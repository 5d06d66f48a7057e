"""``python -m kubenotes`` and the ``kubenotes`` console script; see :mod:`kubenotes.cli`."""

from __future__ import annotations

import os
import sys
from typing import Sequence

__all__ = ["main", "run"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kubenotes`` command line and return its exit status (see :func:`kubenotes.cli.main`)."""
    try:
        from kubenotes.cli import main as cli_main
    except KeyboardInterrupt:  # Ctrl-C while importing
        print("kubenotes: interrupted", file=sys.stderr)
        return 130
    return cli_main(argv)


def run() -> None:
    """The program: :func:`main`, then exit with its status.

    A command that asked for it (:func:`kubenotes.gcpolicy.exit_without_teardown`)
    ends the process once its output is flushed, without freeing every
    object first.
    """
    from kubenotes.gcpolicy import running_as_program, teardown_skipped

    running_as_program()
    rc = main()
    if teardown_skipped():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, ValueError):  # output closed early
            pass
        os._exit(rc)
    sys.exit(rc)


if __name__ == "__main__":
    run()
