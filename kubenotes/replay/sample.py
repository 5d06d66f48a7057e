"""Which trace chapter 04.04 replays: Alibaba's real trace, or the synthetic sample shipped in ``data/replay/``.

kubenotes does not ship Alibaba's ``cluster-trace-gpu-v2023`` (research or study
use only; see :mod:`kubenotes.datasets.alibaba`). So that the chapter always
runs, the repository carries a small **synthetic** trace in the same schema
(``data/replay/alibaba-gpu-2023-sample/``, written by
``tools/gen_alibaba_sample.py`` from a seed: invented rows, not rows of the
real trace). :func:`trace_or_sample` returns the real trace when it is found
and the sample otherwise, with a note saying which, and how to get the real
one.

References
----------
alibaba/clusterdata cluster-trace-gpu-v2023/README.md (schema, where to get it, terms of use)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kubenotes.data import sample
from kubenotes.datasets.alibaba import ENV_VAR, TraceNotFound, default_trace_dir, trace_dir

__all__ = ["SAMPLE_FOLDER", "TRACE_URL", "TraceSource", "sample_trace_dir", "trace_or_sample"]

#: The synthetic sample, under the repository's ``data/``.
SAMPLE_FOLDER = ("replay", "alibaba-gpu-2023-sample")
#: Where the real trace's CSV files are published.
TRACE_URL = "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023/csv"


@dataclass(frozen=True, slots=True)
class TraceSource:
    """A trace directory and what it holds.

    Attributes
    ----------
    path : pathlib.Path
        Directory holding the ``openb_*.csv`` files.
    synthetic : bool
        True for the synthetic sample, False for Alibaba's trace.
    note : str
        One paragraph for the reader: which trace this is and, for the
        sample, why and how to get the real one.
    """

    path: Path
    synthetic: bool
    note: str

    def __str__(self) -> str:
        return self.note

    def _repr_markdown_(self) -> str:
        return f"**{self.note}**" if self.synthetic else self.note


def sample_trace_dir() -> Path:
    """The synthetic sample's directory, ``data/replay/alibaba-gpu-2023-sample``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    kubenotes.errors.NotFound
        When the repository's ``data/`` folder (or ``$KUBENOTES_DATA``) has no sample.

    Examples
    --------
    >>> sample_trace_dir().name
    'alibaba-gpu-2023-sample'
    """
    return sample(*SAMPLE_FOLDER)


def trace_or_sample(path: str | os.PathLike[str] | None = None) -> TraceSource:
    """Alibaba's trace when it is found, else the synthetic sample.

    Parameters
    ----------
    path : str or path-like, optional
        An explicit trace directory: used as given (no fallback, a missing
        directory raises). Without it, :func:`~kubenotes.datasets.alibaba.default_trace_dir`
        (``$KUBENOTES_ALIBABA_TRACE``, else ``../shared/data/alibaba-gpu-2023``
        beside the repository) is tried first.

    Returns
    -------
    TraceSource
        ``synthetic`` is True when the sample is used; ``note`` then says that
        its rows are invented and where to get the real trace.

    Raises
    ------
    TraceNotFound
        When ``path`` is given and does not exist.
    kubenotes.errors.NotFound
        When the trace is not found and neither is the sample (no ``data/`` folder).

    See Also
    --------
    kubenotes.datasets.alibaba.default_trace_dir : the real trace's location.

    Notes
    -----
    The sample's replays show how the chapter's code works, not the paper's
    results: 64 invented pods on 63 invented nodes are far too few for the
    policies' differences to mean anything.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get(ENV_VAR)
    >>> os.environ[ENV_VAR] = "/nonexistent/trace"
    >>> try:
    ...     src = trace_or_sample()
    ... finally:
    ...     _ = os.environ.pop(ENV_VAR) if old is None else os.environ.update({ENV_VAR: old})
    >>> src.synthetic, src.path.name, src.note.split(":")[0]
    (True, 'alibaba-gpu-2023-sample', 'SYNTHETIC SAMPLE, not the Alibaba trace')
    """
    if path is not None:
        p = trace_dir(path)
        return TraceSource(p, False, f"Alibaba GPU trace 2023 from {p}")
    try:
        p = default_trace_dir()
    except TraceNotFound as e:
        why = str(e).split(". ")[0]
        note = (f"SYNTHETIC SAMPLE, not the Alibaba trace: {why}. The chapter replays the small invented trace in "
                "data/replay/alibaba-gpu-2023-sample (tools/gen_alibaba_sample.py, seeded; the real trace's schema, "
                "none of its rows): the code and figures work the same, but the numbers are not the paper's, and "
                "the text's figures refer to the real trace. To replay the real trace, get the CSV files of "
                f"cluster-trace-gpu-v2023 from {TRACE_URL} (research or study use only; cite Weng et al., "
                f"USENIX ATC '23), put them in ../shared/data/alibaba-gpu-2023 beside the repository or set "
                f"{ENV_VAR} to their folder, and restart the kernel.")
        return TraceSource(sample_trace_dir(), True, note)
    return TraceSource(p, False, f"Alibaba GPU trace 2023 from {p}")
