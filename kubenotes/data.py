"""Where the sample manifests live (the repository's ``data/`` folder).

Notebooks load scenarios with ``sample("cluster")``; set ``KUBENOTES_DATA``
to point at another copy.
"""

from __future__ import annotations

import os
from pathlib import Path

from kubenotes.errors import NotFound

__all__ = ["data_dir", "sample"]


def data_dir() -> Path:
    """The sample-data folder: ``$KUBENOTES_DATA`` or ``data/`` beside the package.

    Raises
    ------
    NotFound
        When neither exists (e.g. a wheel install without the repository).
    """
    env = os.environ.get("KUBENOTES_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1] / "data")
    for c in candidates:
        if c.is_dir():
            return c
    raise NotFound("kubenotes sample data not found: set KUBENOTES_DATA to the repository's data/ folder")


def sample(*parts: str) -> Path:
    """Path of a file or folder under the sample data, e.g. ``sample("cluster")``.

    Raises
    ------
    NotFound
        When it does not exist.

    Examples
    --------
    >>> sample("cluster").name
    'cluster'
    """
    p = data_dir().joinpath(*parts)
    if not p.exists():
        raise NotFound(f"no sample data at {p}")
    return p
