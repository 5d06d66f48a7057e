"""The Alibaba GPU cluster trace 2023 ("openb") as Kubernetes Nodes and Pods.

Reads the CSV files Alibaba released with Weng et al., *Beware of
Fragmentation* (USENIX ATC '23) and turns each row into a real lightkube
:class:`~lightkube.resources.core_v1.Node` or
:class:`~lightkube.resources.core_v1.Pod`, the way the paper's simulator
(``hkust-adsl/kubernetes-scheduler-simulator``, ``data/pod_csv_to_yaml.py``
and ``data/node_yaml/``) turns them into YAML. It also builds
:class:`TraceArrays`, the same rows as numpy arrays, for the fast replay in
:mod:`kubenotes.replay`.

How a row becomes an object
---------------------------
Node (``openb_node_list_*.csv``: ``sn,cpu_milli,memory_mib,gpu,model``)
    ``metadata.name`` = ``sn``; label ``alibabacloud.com/gpu-card-model`` =
    ``model`` (GPU nodes only); ``status.capacity`` = ``status.allocatable`` =
    ``cpu: <cpu_milli>m``, ``memory: <memory_mib>Mi``, ``pods: 1001`` and, on
    GPU nodes, the extended resources ``alibabacloud.com/gpu-count: <gpu>``
    and ``alibabacloud.com/gpu-milli: <gpu * 1000>``.
Pod (``openb_pod_list_*.csv``: ``name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]``)
    namespace ``paib-gpu``, one container ``main`` whose requests equal its
    limits: ``cpu: <cpu_milli>m``, ``memory: <memory_mib>Mi`` and, for a GPU
    pod, the extended resource ``alibabacloud.com/gpu-milli: <num_gpu * gpu_milli>``
    (the pod's total GPU demand in thousandths of a GPU). The *shape* of the
    demand is carried, as in the simulator, by annotations:
    ``alibabacloud.com/gpu-count`` (number of GPUs) and
    ``alibabacloud.com/gpu-milli`` (share of **each** GPU, 1-1000). A non-empty
    ``gpu_spec`` (``V100M16|V100M32``) becomes the annotation
    ``alibabacloud.com/gpu-card-model`` and a required node-affinity term
    ``alibabacloud.com/gpu-card-model In [V100M16, V100M32]``.

Data licence: the trace has no licence file; Alibaba allows use "for research
or study purpose" and asks users to cite the paper. kubenotes never ships or
downloads it: pass the directory, or set :data:`ENV_VAR`.

References
----------
hkust-adsl/kubernetes-scheduler-simulator data/pod_csv_to_yaml.py, data/node_yaml/
hkust-adsl/kubernetes-scheduler-simulator pkg/type/open-gpu-share/utils/const.go (annotation names)
alibaba/clusterdata cluster-trace-gpu-v2023/README.md (schema, terms of use)
Q. Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
Fragmentation Gradient Descent", USENIX ATC 2023.

Examples
--------
>>> import io
>>> rows = read_pod_rows(io.StringIO(
...     "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\\n"
...     "openb-pod-0000,12000,16384,1,460,V100M16|V100M32\\n"), "pods.csv")
>>> pod = pod_object(rows[0])
>>> pod.metadata.annotations[GPU_MILLI], pod.spec.containers[0].resources.requests[GPU_MILLI]
('460', '460')
>>> pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values
['V100M16', 'V100M32']
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - imported where objects are built (lightkube takes ~0.3 s to import)
    from lightkube.resources.core_v1 import Node, Pod

from kubenotes.errors import KubenotesError

__all__ = [
    "ENV_VAR",
    "default_trace_dir",
    "NAMESPACE",
    "GPU_MILLI",
    "GPU_COUNT",
    "GPU_MODEL",
    "GPU_INDEX",
    "MILLI_PER_GPU",
    "MAX_PODS_PER_NODE",
    "DEFAULT_PODS_FILE",
    "GPU_NODES_FILE",
    "ALL_NODES_FILE",
    "TraceError",
    "TraceNotFound",
    "TraceFormatError",
    "NodeRow",
    "PodRow",
    "TraceArrays",
    "trace_dir",
    "read_node_rows",
    "read_pod_rows",
    "node_object",
    "pod_object",
    "load_nodes",
    "load_pods",
    "load_arrays",
    "trace_arrays",
    "trace_counts",
    "pod_gpu_request",
    "node_gpu_allocatable",
]

#: Environment variable naming the trace directory when no path is passed.
ENV_VAR = "KUBENOTES_ALIBABA_TRACE"
#: Namespace of every trace pod (as the simulator writes them).
NAMESPACE = "paib-gpu"
#: Extended resource (node allocatable and pod request: total thousandths of a GPU)
#: and pod annotation (share of each requested GPU, 1-1000).
GPU_MILLI = "alibabacloud.com/gpu-milli"
#: Extended resource on nodes (number of GPU cards) and pod annotation (number of GPUs requested).
GPU_COUNT = "alibabacloud.com/gpu-count"
#: Node label (the card model) and pod annotation (allowed models, ``|``-separated).
GPU_MODEL = "alibabacloud.com/gpu-card-model"
#: Pod annotation written when GPUs are assigned: card indices joined by ``-`` (``"0-1"``).
GPU_INDEX = "alibabacloud.com/gpu-index"
#: Thousandths of a GPU in one card.
MILLI_PER_GPU = 1000
#: ``pods`` allocatable of every trace node (the simulator's node YAML).
MAX_PODS_PER_NODE = 1001
#: The production pod list of the paper's main experiments.
DEFAULT_PODS_FILE = "openb_pod_list_default.csv"
#: The 1,213 GPU nodes the paper simulates.
GPU_NODES_FILE = "openb_node_list_gpu_node.csv"
#: All 1,523 nodes (GPU and CPU-only).
ALL_NODES_FILE = "openb_node_list_all_node.csv"

_MIB = 1024 * 1024
_NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
_POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")


class TraceError(KubenotesError):
    """Base class of the errors raised while reading the trace."""


class TraceNotFound(TraceError):
    """No trace directory was given, or the directory or a file in it is missing."""


class TraceFormatError(TraceError):
    """A malformed CSV row, named by file and row.

    The message is one line, ``<file> row <n>: <column>: <problem>``, where
    ``n`` counts data rows from 1 (the header is not counted, so row ``n`` is
    line ``n + 1`` of the file).

    Parameters
    ----------
    source : str
        File name (without directory).
    row : int or None
        1-based data row, or None for a problem with the header.
    detail : str
        What is wrong, e.g. ``num_gpu: invalid integer "x"``.

    Examples
    --------
    >>> str(TraceFormatError("openb_pod_list_default.csv", 17, 'num_gpu: invalid integer "x"'))
    'openb_pod_list_default.csv row 17: num_gpu: invalid integer "x"'
    >>> str(TraceFormatError("pods.csv", None, 'missing column "gpu_milli"'))
    'pods.csv header: missing column "gpu_milli"'
    """

    def __init__(self, source: str, row: int | None, detail: str):
        self.source, self.row, self.detail = source, row, detail
        where = f"{source} row {row}" if row is not None else f"{source} header"
        super().__init__(f"{where}: {detail}")


@dataclass(frozen=True, slots=True)
class NodeRow:
    """One validated row of a node list.

    Attributes
    ----------
    name : str
        ``sn``.
    milli_cpu : int
        CPU capacity in millicores.
    memory_mib : int
        Memory capacity in MiB.
    gpu_count : int
        Number of GPU cards (0 for a CPU-only node).
    model : str
        GPU card model (``""`` for a CPU-only node).
    """

    name: str
    milli_cpu: int
    memory_mib: int
    gpu_count: int
    model: str

    @property
    def memory_bytes(self) -> int:
        """Memory capacity in bytes."""
        return self.memory_mib * _MIB


@dataclass(frozen=True, slots=True)
class PodRow:
    """One validated row of a pod list.

    Attributes
    ----------
    name : str
    milli_cpu : int
        CPU request in millicores.
    memory_mib : int
        Memory request in MiB (a few rows are 0).
    num_gpu : int
        Number of GPUs (0 for a CPU-only pod).
    gpu_milli : int
        Share of each GPU in thousandths (1-1000; 0 when ``num_gpu == 0``).
    gpu_spec : tuple[str, ...]
        Allowed card models; empty means any model.
    qos, phase : str
        Alibaba's service class and the phase when the trace was taken (not used by the replay).
    """

    name: str
    milli_cpu: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_spec: tuple[str, ...] = ()
    qos: str = ""
    phase: str = ""

    @property
    def memory_bytes(self) -> int:
        """Memory request in bytes."""
        return self.memory_mib * _MIB

    @property
    def total_gpu_milli(self) -> int:
        """Whole GPU demand in thousandths of a GPU (``num_gpu * gpu_milli``)."""
        return self.num_gpu * self.gpu_milli


# ---------------------------------------------------------------------------
# locating and parsing


_TRACE_FOLDER = ("shared", "data", "alibaba-gpu-2023")


def default_trace_dir() -> Path:
    """The Alibaba trace directory: ``$KUBENOTES_ALIBABA_TRACE``, else ``../shared/data/alibaba-gpu-2023`` beside the repository.

    Parameters
    ----------
    None
        It reads the environment variable ``KUBENOTES_ALIBABA_TRACE``
        (:data:`ENV_VAR`) instead.

    Returns
    -------
    pathlib.Path
        A directory holding ``openb_pod_list_default.csv``.

    Raises
    ------
    TraceNotFound
        When the environment variable names a directory without the trace,
        or it is unset and the default folder is missing. The message says
        where to get the data and under which terms.

    See Also
    --------
    trace_dir : resolves an explicit path first, then falls back to this.

    References
    ----------
    alibaba/clusterdata cluster-trace-gpu-v2023/README.md (where to get it, terms of use)

    Notes
    -----
    The default location is relative to the installed ``kubenotes`` package
    (an editable install from the repository), not to the notebook's working
    directory, so a notebook copied elsewhere still finds the data.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get(ENV_VAR)
    >>> os.environ[ENV_VAR] = "/nonexistent/trace"
    >>> try:
    ...     default_trace_dir()
    ... except TraceNotFound as e:
    ...     print(str(e).split(". ")[0] + ".")
    ... finally:
    ...     _ = os.environ.pop(ENV_VAR) if old is None else os.environ.update({ENV_VAR: old})
    Alibaba GPU trace not found: KUBENOTES_ALIBABA_TRACE=/nonexistent/trace has no openb_pod_list_default.csv.
    """
    how = ("Get the CSV files of cluster-trace-gpu-v2023 from https://github.com/alibaba/clusterdata "
           "(research or study use only; cite Weng et al., USENIX ATC '23) and set "
           f"{ENV_VAR} to their folder.")
    env = os.environ.get(ENV_VAR)
    if env:
        p = Path(env)
        if (p / DEFAULT_PODS_FILE).is_file():
            return p
        raise TraceNotFound(f"Alibaba GPU trace not found: {ENV_VAR}={env} has no {DEFAULT_PODS_FILE}. {how}")
    p = Path(__file__).resolve().parents[2].parent.joinpath(*_TRACE_FOLDER)
    if (p / DEFAULT_PODS_FILE).is_file():
        return p
    raise TraceNotFound(f"Alibaba GPU trace not found: {ENV_VAR} is not set and {p} has no {DEFAULT_PODS_FILE}. {how}")


def trace_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The trace directory: ``path``, else :func:`default_trace_dir` (``$KUBENOTES_ALIBABA_TRACE`` or ``../shared/data/alibaba-gpu-2023``).

    Parameters
    ----------
    path : str or path-like, optional
        Directory holding the ``openb_*.csv`` files.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TraceNotFound
        When ``path`` does not exist, or no path is given and the default
        location holds no trace.

    Examples
    --------
    >>> trace_dir("/nonexistent/trace")
    Traceback (most recent call last):
    ...
    kubenotes.datasets.alibaba.TraceNotFound: trace directory not found: /nonexistent/trace
    """
    if path is None:
        return default_trace_dir()
    p = Path(path)
    if not p.is_dir():
        raise TraceNotFound(f"trace directory not found: {p}")
    return p


def _open_csv(directory: Path, name: str) -> Path:
    f = directory / name
    if not f.is_file():
        raise TraceNotFound(f"trace file not found: {f}")
    return f


def _int(source: str, row: int, rec: dict, column: str, *, low: int = 0, high: int | None = None) -> int:
    raw = rec.get(column)
    text = "" if raw is None else raw.strip()
    try:
        v = int(text)
    except ValueError:
        raise TraceFormatError(source, row, f'{column}: invalid integer "{raw if raw is not None else ""}"') from None
    if v < low or (high is not None and v > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise TraceFormatError(source, row, f"{column}: {v} must be {bound}")
    return v


def _reader(f: IO[str], source: str, required: Sequence[str]) -> csv.DictReader:
    reader = csv.DictReader(f)
    header = reader.fieldnames or []
    for col in required:
        if col not in header:
            raise TraceFormatError(source, None, f'missing column "{col}"')
    return reader


def read_node_rows(f: IO[str], source: str = "<nodes>") -> list[NodeRow]:
    """Parse and validate a node list.

    Parameters
    ----------
    f : text file
        CSV with columns ``sn,cpu_milli,memory_mib,gpu,model``.
    source : str
        File name used in error messages.

    Returns
    -------
    list[NodeRow]
        In file order.

    Raises
    ------
    TraceFormatError
        On a missing column, an empty ``sn``, a value that is not a
        non-negative integer, or a GPU node without a ``model``.

    Examples
    --------
    >>> import io
    >>> read_node_rows(io.StringIO("sn,cpu_milli,memory_mib,gpu,model\\nn1,64000,262144,2,P100\\n"))
    [NodeRow(name='n1', milli_cpu=64000, memory_mib=262144, gpu_count=2, model='P100')]
    """
    out = []
    for i, rec in enumerate(_reader(f, source, _NODE_COLUMNS), start=1):
        name = (rec.get("sn") or "").strip()
        if not name:
            raise TraceFormatError(source, i, "sn: empty node name")
        cpu = _int(source, i, rec, "cpu_milli")
        mem = _int(source, i, rec, "memory_mib")
        gpu = _int(source, i, rec, "gpu")
        model = (rec.get("model") or "").strip()
        if gpu > 0 and not model:
            raise TraceFormatError(source, i, f"model: empty for a node with {gpu} GPUs")
        out.append(NodeRow(name, cpu, mem, gpu, model))
    return out


def read_pod_rows(f: IO[str], source: str = "<pods>") -> list[PodRow]:
    """Parse and validate a pod list.

    Parameters
    ----------
    f : text file
        CSV with at least ``name,cpu_milli,memory_mib,num_gpu,gpu_milli``;
        ``gpu_spec``, ``qos`` and ``pod_phase`` are read when present.
    source : str
        File name used in error messages.

    Returns
    -------
    list[PodRow]
        In file order.

    Raises
    ------
    TraceFormatError
        On a missing column, an empty name, a value that is not a
        non-negative integer, ``gpu_milli`` outside 0-1000, a GPU pod with
        ``gpu_milli == 0``, a CPU-only pod with ``gpu_milli > 0``, or a pod
        asking for a fraction of more than one GPU.

    Notes
    -----
    The simulator clips ``gpu_milli`` to 0-1000 and panics on a fractional
    multi-GPU request; kubenotes rejects both, since no published row needs them.
    ``gpu_spec`` only matters for GPU pods (the simulator ignores it otherwise).

    Examples
    --------
    >>> import io
    >>> read_pod_rows(io.StringIO("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np,1000,0,2,500\\n"), "p.csv")
    Traceback (most recent call last):
    ...
    kubenotes.datasets.alibaba.TraceFormatError: p.csv row 1: gpu_milli: 500 asks for part of each of 2 GPUs (only single-GPU pods may share a GPU)
    """
    out = []
    for i, rec in enumerate(_reader(f, source, _POD_COLUMNS), start=1):
        name = (rec.get("name") or "").strip()
        if not name:
            raise TraceFormatError(source, i, "name: empty pod name")
        cpu = _int(source, i, rec, "cpu_milli")
        mem = _int(source, i, rec, "memory_mib")
        num = _int(source, i, rec, "num_gpu")
        milli = _int(source, i, rec, "gpu_milli", high=MILLI_PER_GPU)
        if num == 0 and milli != 0:
            raise TraceFormatError(source, i, f"gpu_milli: {milli} for a pod with num_gpu 0")
        if num > 0 and milli == 0:
            raise TraceFormatError(source, i, f"gpu_milli: 0 for a pod with num_gpu {num}")
        if num > 1 and milli < MILLI_PER_GPU:
            raise TraceFormatError(
                source, i, f"gpu_milli: {milli} asks for part of each of {num} GPUs (only single-GPU pods may share a GPU)")
        spec = tuple(x.strip() for x in (rec.get("gpu_spec") or "").split("|") if x.strip()) if num > 0 else ()
        out.append(PodRow(name, cpu, mem, num, milli, spec, (rec.get("qos") or "").strip(),
                          (rec.get("pod_phase") or "").strip()))
    return out


def _rows(path: str | os.PathLike[str] | None, name: str, reader) -> list:
    f = _open_csv(trace_dir(path), name)
    with open(f, newline="") as fh:
        return reader(fh, f.name)


# ---------------------------------------------------------------------------
# objects


def node_object(row: NodeRow) -> Node:
    """A lightkube Node for one node row (see the module docstring for the mapping).

    Parameters
    ----------
    row : NodeRow

    Returns
    -------
    lightkube.resources.core_v1.Node

    Examples
    --------
    >>> n = node_object(NodeRow("openb-node-0000", 64000, 262144, 2, "P100"))
    >>> n.metadata.labels[GPU_MODEL], n.status.allocatable[GPU_COUNT], n.status.allocatable[GPU_MILLI]
    ('P100', '2', '2000')
    """
    labels = {"kubernetes.io/hostname": row.name, "kubernetes.io/os": "linux"}
    res = {"cpu": f"{row.milli_cpu}m", "memory": f"{row.memory_mib}Mi", "pods": str(MAX_PODS_PER_NODE)}
    if row.gpu_count > 0:
        labels[GPU_MODEL] = row.model
        res[GPU_COUNT] = str(row.gpu_count)
        res[GPU_MILLI] = str(row.gpu_count * MILLI_PER_GPU)
    from lightkube.resources.core_v1 import Node

    return Node.from_dict({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": row.name, "labels": labels},
        "status": {"capacity": dict(res), "allocatable": dict(res)},
    })


def pod_object(row: PodRow, *, node_name: str | None = None, gpu_index: Sequence[int] | None = None) -> Pod:
    """A lightkube Pod for one pod row (see the module docstring for the mapping).

    Parameters
    ----------
    row : PodRow
    node_name : str, optional
        Bind the pod (``spec.nodeName``).
    gpu_index : sequence of int, optional
        Card indices assigned on that node; written to the
        ``alibabacloud.com/gpu-index`` annotation (``"0-1"``) as the
        simulator's Open-Gpu-Share Reserve does.

    Returns
    -------
    lightkube.resources.core_v1.Pod

    Examples
    --------
    >>> p = pod_object(PodRow("openb-pod-0001", 6000, 12288, 1, 460), node_name="n1", gpu_index=[3])
    >>> p.metadata.annotations == {GPU_MILLI: "460", GPU_COUNT: "1", GPU_INDEX: "3"}, p.spec.nodeName
    (True, 'n1')
    """
    req: dict[str, str] = {"cpu": f"{row.milli_cpu}m", "memory": f"{row.memory_mib}Mi"}
    annotations: dict[str, str] = {}
    spec: dict[str, Any] = {}
    if row.num_gpu > 0:
        req[GPU_MILLI] = str(row.total_gpu_milli)
        annotations[GPU_MILLI] = str(row.gpu_milli)
        annotations[GPU_COUNT] = str(row.num_gpu)
        if row.gpu_spec:
            annotations[GPU_MODEL] = "|".join(row.gpu_spec)
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": GPU_MODEL, "operator": "In", "values": list(row.gpu_spec)}]}]}}}
        if gpu_index is not None:
            annotations[GPU_INDEX] = "-".join(str(int(i)) for i in gpu_index)
    if node_name:
        spec["nodeName"] = node_name
    spec["containers"] = [{"name": "main", "image": "tensorflow:latest",
                           "resources": {"requests": dict(req), "limits": dict(req)}}]
    md: dict[str, Any] = {"name": row.name, "namespace": NAMESPACE}
    if annotations:
        md["annotations"] = annotations
    from lightkube.resources.core_v1 import Pod

    return Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec})


def load_nodes(path: str | os.PathLike[str] | None = None, *, gpu_only: bool = True,
               nodes: str | None = None) -> list[Node]:
    """Read a node list into lightkube Nodes.

    Parameters
    ----------
    path : str or path-like, optional
        Trace directory; default ``$KUBENOTES_ALIBABA_TRACE``.
    gpu_only : bool
        Keep only nodes with GPUs (the 1,213 nodes the paper simulates).
    nodes : str, optional
        File name inside the directory; default ``openb_node_list_gpu_node.csv``
        when ``gpu_only`` else ``openb_node_list_all_node.csv``.

    Returns
    -------
    list[Node]
        In file order.

    Raises
    ------
    TraceNotFound
        When the directory or file is missing.
    TraceFormatError
        On a malformed row.

    Examples
    --------
    >>> load_nodes("/nonexistent")
    Traceback (most recent call last):
    ...
    kubenotes.datasets.alibaba.TraceNotFound: trace directory not found: /nonexistent
    """
    rows = _node_rows(path, gpu_only, nodes)
    return [node_object(r) for r in rows]


def _node_rows(path, gpu_only: bool, nodes: str | None) -> list[NodeRow]:
    name = nodes or (GPU_NODES_FILE if gpu_only else ALL_NODES_FILE)
    rows = _rows(path, name, read_node_rows)
    return [r for r in rows if r.gpu_count > 0] if gpu_only else rows


def load_pods(path: str | os.PathLike[str] | None = None, pods: str = DEFAULT_PODS_FILE) -> list[Pod]:
    """Read a pod list into lightkube Pods.

    Parameters
    ----------
    path : str or path-like, optional
        Trace directory; default ``$KUBENOTES_ALIBABA_TRACE``.
    pods : str
        File name inside the directory (``openb_pod_list_gpushare100.csv``...).

    Returns
    -------
    list[Pod]
        In file order, unbound.

    Raises
    ------
    TraceNotFound
        When the directory or file is missing.
    TraceFormatError
        On a malformed row.

    See Also
    --------
    load_nodes, pod_object

    Notes
    -----
    Each row becomes an unbound Pod with one container whose requests carry
    the row's CPU, memory and GPU share (see the module docstring for the
    mapping); the trace's creation and deletion times are not read here.

    References
    ----------
    alibaba/clusterdata cluster-trace-gpu-v2023/README.md (schema, terms of use)
    hkust-adsl/kubernetes-scheduler-simulator data/pod_csv_to_yaml.py

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (pathlib.Path(d) / "pods.csv").write_text(
    ...         "name,cpu_milli,memory_mib,num_gpu,gpu_milli\\n"
    ...         "openb-pod-0000,8000,16384,1,500\\nopenb-pod-0001,4000,8192,0,0\\n")
    ...     pods = load_pods(d, "pods.csv")
    >>> [p.metadata.name for p in pods], pods[0].spec.nodeName
    (['openb-pod-0000', 'openb-pod-0001'], None)
    >>> pods[0].spec.containers[0].resources.requests
    {'cpu': '8000m', 'memory': '16384Mi', 'alibabacloud.com/gpu-milli': '500'}
    """
    return [pod_object(r) for r in _rows(path, pods, read_pod_rows)]


# ---------------------------------------------------------------------------
# arrays


@dataclass
class TraceArrays:
    """A node list and a pod list as numpy arrays, for the replay's hot loop.

    Attributes
    ----------
    node_names : list[str]
        Shape ``(N,)``.
    node_milli_cpu : numpy.ndarray of int64, shape (N,)
        Allocatable CPU, millicores.
    node_memory_bytes : numpy.ndarray of int64, shape (N,)
        Allocatable memory, bytes.
    node_gpu_count : numpy.ndarray of int64, shape (N,)
        GPU cards per node.
    node_model : numpy.ndarray of int64, shape (N,)
        Index into :attr:`models`; -1 for a CPU-only node.
    models : list[str]
        Card model names: the nodes' models, then models only pods name.
    pod_names : list[str]
        Shape ``(P,)``, file order.
    pod_milli_cpu, pod_memory_bytes : numpy.ndarray of int64, shape (P,)
        Requests in millicores and bytes.
    pod_num_gpu : numpy.ndarray of int64, shape (P,)
        GPUs requested.
    pod_gpu_milli : numpy.ndarray of int64, shape (P,)
        Share of each GPU, thousandths (0 for CPU-only pods).
    pod_allowed_models : numpy.ndarray of bool, shape (P, len(models))
        Which card models each pod accepts (all True without ``gpu_spec``).
    pod_gpu_spec : list[str]
        The ``gpu_spec`` string (``""`` when unconstrained), shape ``(P,)``.
    pods_file : str
        Name of the pod list the arrays came from.

    Examples
    --------
    >>> t = trace_arrays([node_object(NodeRow("n", 8000, 1024, 2, "T4"))],
    ...                  [pod_object(PodRow("p", 1000, 512, 1, 300, ("T4",)))])
    >>> t.num_nodes, t.num_pods, int(t.total_gpu_milli), t.pod_total_gpu_milli.tolist()
    (1, 1, 2000, [300])
    """

    node_names: list[str]
    node_milli_cpu: np.ndarray
    node_memory_bytes: np.ndarray
    node_gpu_count: np.ndarray
    node_model: np.ndarray
    models: list[str]
    pod_names: list[str]
    pod_milli_cpu: np.ndarray
    pod_memory_bytes: np.ndarray
    pod_num_gpu: np.ndarray
    pod_gpu_milli: np.ndarray
    pod_allowed_models: np.ndarray
    pod_gpu_spec: list[str] = field(default_factory=list)
    pods_file: str = ""

    @property
    def num_nodes(self) -> int:
        """Number of nodes ``N``."""
        return len(self.node_names)

    @property
    def num_pods(self) -> int:
        """Number of pods ``P``."""
        return len(self.pod_names)

    @property
    def pod_total_gpu_milli(self) -> np.ndarray:
        """Whole GPU demand per pod, thousandths, shape ``(P,)``."""
        return self.pod_num_gpu * self.pod_gpu_milli

    @property
    def total_gpu_milli(self) -> int:
        """Cluster GPU capacity in thousandths of a GPU."""
        return int(self.node_gpu_count.sum()) * MILLI_PER_GPU

    @classmethod
    def from_rows(cls, nodes: Sequence[NodeRow], pods: Sequence[PodRow], pods_file: str = "") -> "TraceArrays":
        """Build from validated rows.

        Parameters
        ----------
        nodes : sequence of NodeRow
        pods : sequence of PodRow
        pods_file : str

        Returns
        -------
        TraceArrays
        """
        return _build_arrays(
            [(r.name, r.milli_cpu, r.memory_bytes, r.gpu_count, r.model) for r in nodes],
            [(r.name, r.milli_cpu, r.memory_bytes, r.num_gpu, r.gpu_milli, r.gpu_spec) for r in pods],
            pods_file,
        )


def _build_arrays(nodes: list[tuple], pods: list[tuple], pods_file: str) -> TraceArrays:
    models: list[str] = []
    index: dict[str, int] = {}
    for n in nodes:
        if n[3] > 0 and n[4] not in index:
            index[n[4]] = len(models)
            models.append(n[4])
    for p in pods:
        for m in p[5]:
            if m not in index:
                index[m] = len(models)
                models.append(m)
    allowed = np.ones((len(pods), len(models)), dtype=bool)
    for i, p in enumerate(pods):
        if p[5]:
            allowed[i] = False
            allowed[i, [index[m] for m in p[5]]] = True
    i64 = np.int64
    return TraceArrays(
        node_names=[n[0] for n in nodes],
        node_milli_cpu=np.array([n[1] for n in nodes], dtype=i64),
        node_memory_bytes=np.array([n[2] for n in nodes], dtype=i64),
        node_gpu_count=np.array([n[3] for n in nodes], dtype=i64),
        node_model=np.array([index[n[4]] if n[3] > 0 else -1 for n in nodes], dtype=i64),
        models=models,
        pod_names=[p[0] for p in pods],
        pod_milli_cpu=np.array([p[1] for p in pods], dtype=i64),
        pod_memory_bytes=np.array([p[2] for p in pods], dtype=i64),
        pod_num_gpu=np.array([p[3] for p in pods], dtype=i64),
        pod_gpu_milli=np.array([p[4] for p in pods], dtype=i64),
        pod_allowed_models=allowed,
        pod_gpu_spec=["|".join(p[5]) for p in pods],
        pods_file=pods_file,
    )


def load_arrays(path: str | os.PathLike[str] | None = None, pods: str = DEFAULT_PODS_FILE, *,
                gpu_only: bool = True, nodes: str | None = None) -> TraceArrays:
    """Read a node list and a pod list straight into :class:`TraceArrays`.

    Same files, validation and meaning as :func:`load_nodes` and
    :func:`load_pods`, without building lightkube objects (about 10x faster).

    Parameters
    ----------
    path : str or path-like, optional
        Trace directory; default ``$KUBENOTES_ALIBABA_TRACE``.
    pods : str
        Pod list file name.
    gpu_only : bool
        Keep only GPU nodes.
    nodes : str, optional
        Node list file name (see :func:`load_nodes`).

    Returns
    -------
    TraceArrays

    Raises
    ------
    TraceNotFound
        When the directory or a file is missing.
    TraceFormatError
        On a malformed row.

    See Also
    --------
    trace_arrays : the same arrays from lightkube objects.
    """
    node_rows = _node_rows(path, gpu_only, nodes)
    pod_rows = _rows(path, pods, read_pod_rows)
    return TraceArrays.from_rows(node_rows, pod_rows, pods)


def node_gpu_allocatable(node: Node) -> tuple[int, str]:
    """GPU cards and card model of a Node built by :func:`node_object`.

    Parameters
    ----------
    node : lightkube.resources.core_v1.Node

    Returns
    -------
    tuple[int, str]
        ``(gpu_count, model)``; ``(0, "")`` for a CPU-only node.

    Raises
    ------
    TraceError
        When ``alibabacloud.com/gpu-count`` is not an integer.
    """
    alloc = (node.status.allocatable if node.status is not None else None) or {}
    raw = alloc.get(GPU_COUNT, "0")
    try:
        count = int(str(raw))
    except ValueError:
        raise TraceError(f"node {node.metadata.name}: {GPU_COUNT}: invalid integer {str(raw)!r}") from None
    model = (node.metadata.labels or {}).get(GPU_MODEL, "") if count > 0 else ""
    return count, model


def pod_gpu_request(pod: Pod) -> tuple[int, int, tuple[str, ...]]:
    """GPU demand of a Pod from its annotations, as the simulator reads it.

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod

    Returns
    -------
    tuple[int, int, tuple[str, ...]]
        ``(num_gpu, gpu_milli_per_gpu, allowed_models)``; ``(0, 0, ())`` for a CPU-only pod.

    Raises
    ------
    TraceError
        When an annotation is not an integer.

    Notes
    -----
    Upstream (``GetGpuCountFromPodAnnotation``/``GetGpuMilliFromPodAnnotation``)
    silently reads a bad value as 0; kubenotes raises instead.

    Examples
    --------
    >>> pod_gpu_request(pod_object(PodRow("p", 1000, 0, 1, 250, ("T4", "A10"))))
    (1, 250, ('T4', 'A10'))
    """
    ann = pod.metadata.annotations or {}
    try:
        num = int(ann.get(GPU_COUNT, "0"))
        milli = int(ann.get(GPU_MILLI, "0")) if num > 0 else 0
    except ValueError:
        raise TraceError(f"pod {pod.metadata.name}: invalid GPU annotation") from None
    models = tuple(m for m in ann.get(GPU_MODEL, "").split("|") if m) if num > 0 else ()
    return num, milli, models


def trace_arrays(nodes: Iterable[Node], pods: Iterable[Pod], pods_file: str = "") -> TraceArrays:
    """Build :class:`TraceArrays` from lightkube Nodes and Pods made by this module.

    Parameters
    ----------
    nodes : iterable of Node
    pods : iterable of Pod
    pods_file : str
        Recorded in :attr:`TraceArrays.pods_file`.

    Returns
    -------
    TraceArrays

    Raises
    ------
    InvalidQuantity
        When a cpu or memory quantity is malformed.
    TraceError
        When a GPU annotation or allocatable is not an integer.
    """
    from kubenotes.api.quantity import milli_value, value

    node_t = []
    for n in nodes:
        alloc = n.status.allocatable or {}
        count, model = node_gpu_allocatable(n)
        node_t.append((n.metadata.name, milli_value(alloc.get("cpu", 0), "status.allocatable.cpu"),
                       value(alloc.get("memory", 0), "status.allocatable.memory"), count, model))
    pod_t = []
    for p in pods:
        req = p.spec.containers[0].resources.requests or {}
        num, milli, models = pod_gpu_request(p)
        pod_t.append((p.metadata.name, milli_value(req.get("cpu", 0), "spec.containers[0].resources.requests.cpu"),
                      value(req.get("memory", 0), "spec.containers[0].resources.requests.memory"), num, milli, models))
    return _build_arrays(node_t, pod_t, pods_file)


def trace_counts(trace: TraceArrays) -> dict[str, Any]:
    """The trace in numbers: GPUs per card model and per node, pods by kind, GPU demand against capacity.

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    dict
        ``gpus_by_model`` (card model -> GPUs, largest first), ``nodes_by_gpus``
        (GPUs per node -> nodes, most GPUs first), ``gpus`` and ``milli_cpu``
        (the nodes' totals), ``cpu_only``, ``gpu_sharing`` (one GPU, less than
        all of it), ``whole_gpu`` (whole GPUs), ``multi_gpu`` (of those, more
        than one) and ``pinned`` (with a ``gpu_spec``) pod counts, and
        ``gpu_demand_milli`` (thousandths of a GPU the whole pod list asks for).

    Raises
    ------
    AttributeError
        ``trace`` is not a TraceArrays.

    See Also
    --------
    TraceArrays, kubenotes.viz.replay.trace_overview

    References
    ----------
    https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023 (the pod and node lists' columns)

    Examples
    --------
    >>> t = TraceArrays.from_rows([NodeRow("n", 8000, 1024, 2, "T4")],
    ...                           [PodRow("a", 1000, 0, 1, 500), PodRow("b", 1000, 0, 0, 0)])
    >>> c = trace_counts(t)
    >>> c["gpus_by_model"], c["cpu_only"], c["gpu_sharing"], c["gpu_demand_milli"]
    ({'T4': 2}, 1, 1, 500)
    """
    cap = trace.node_gpu_count
    models: dict[str, int] = {}
    for m, g in zip(trace.node_model.tolist(), cap.tolist()):
        if g > 0:
            models[trace.models[m]] = models.get(trace.models[m], 0) + g
    per_node: dict[int, int] = {}
    for g in cap.tolist():
        per_node[g] = per_node.get(g, 0) + 1
    num, milli = trace.pod_num_gpu, trace.pod_gpu_milli
    return {
        "gpus_by_model": dict(sorted(models.items(), key=lambda kv: -kv[1])),
        "nodes_by_gpus": dict(sorted(per_node.items(), reverse=True)),
        "gpus": int(cap.sum()),
        "milli_cpu": int(trace.node_milli_cpu.sum()),
        "cpu_only": int((num == 0).sum()),
        "gpu_sharing": int(((num == 1) & (milli < MILLI_PER_GPU)).sum()),
        "whole_gpu": int(((num > 0) & (milli >= MILLI_PER_GPU)).sum()),
        "multi_gpu": int((num > 1).sum()),
        "pinned": sum(1 for s in trace.pod_gpu_spec if s) if trace.pod_gpu_spec else 0,
        "gpu_demand_milli": int(trace.pod_total_gpu_milli.sum()),
    }
