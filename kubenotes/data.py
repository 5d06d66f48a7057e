"""Where the sample manifests live (the repository's ``data/`` folder).

Notebooks load scenarios with ``sample("cluster")``; set ``KUBENOTES_DATA``
to point at another copy.
"""

from __future__ import annotations

import os
from pathlib import Path

from kubenotes.errors import NotFound

__all__ = ["data_dir", "sample", "SCENARIO_DIRS", "sample_cluster_dirs"]

#: The folders of self-contained chapter scenarios: each file is its own small cluster (nodes, workloads and a
#: ``kind: Scenario``), run alone as ``simulate data/<dir>/<file>.yaml``; files in different folders may reuse names.
SCENARIO_DIRS = ("controllers", "kubelet", "qos", "network", "operators", "storage")


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

    Parameters
    ----------
    *parts : str
        Path components under the data folder (``"scheduling", "fits.yaml"``);
        none gives the folder itself.

    Returns
    -------
    pathlib.Path
        The existing path, under :func:`data_dir` (``$KUBENOTES_DATA`` or the
        repository's ``data/``).

    Raises
    ------
    NotFound
        When it does not exist, or when :func:`data_dir` finds no data folder.

    See Also
    --------
    data_dir
    kubenotes.api.manifests.load_manifests : reads the YAML found there.

    Examples
    --------
    >>> sample("cluster").name
    'cluster'
    >>> sample("scheduling", "fits.yaml").relative_to(data_dir()).as_posix()
    'scheduling/fits.yaml'
    """
    p = data_dir().joinpath(*parts)
    if not p.exists():
        raise NotFound(f"no sample data at {p}")
    return p


def sample_cluster_dirs() -> list[Path]:
    """The folders that together make the one shared sample cluster: every data folder but :data:`SCENARIO_DIRS`.

    Returns
    -------
    list of pathlib.Path
        Sorted by name.

    Raises
    ------
    NotFound
        When there is no sample data (:func:`data_dir`).

    Examples
    --------
    >>> names = [p.name for p in sample_cluster_dirs()]
    >>> "cluster" in names, "operators" in names
    (True, False)
    """
    return sorted(p for p in data_dir().iterdir() if p.is_dir() and p.name not in SCENARIO_DIRS)
