"""The chapters in reading order: one table that the index, every chapter's links and the README are generated from.

:data:`CHAPTERS` lists each notebook in ``notebooks/`` with its title, what a
reader learns there, the :mod:`kubenotes.viz` module that draws it and the
folder under ``data/`` its manifests and scenarios come from. Nothing else
holds that list: ``python -m kubenotes.chapters --write`` rewrites, from it,

- the chapter table of ``notebooks/00.00-index.ipynb`` (between marker comments),
- the previous / contents / next line that ends the first cell of each notebook,
- the "Chapters" table of ``README.md`` (between marker comments),

and ``python -m kubenotes.chapters --check`` (and ``tests/test_chapters.py``)
fails when any of them differs from what the table gives, or when a notebook
and the table disagree about which chapters exist. To add a chapter: add its
row here, create ``notebooks/NN.MM-kebab-title.ipynb`` whose first markdown
cell holds the title and the hook, then run ``--write``.

Only the generated parts of a file are touched: in a notebook, the last line
of the first markdown cell (and, in the index, the table between the
markers); the other cells, the title and the hook stay as written.

This module reads no other part of kubenotes (the viz module and the data
folder are names, checked against the files by the test), so the table can be
read without matplotlib or ipywidgets.

References
----------
https://kubernetes.io/docs/concepts/overview/components/ (the components the chapters follow)
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Chapter",
    "CHAPTERS",
    "GENERATOR",
    "INDEX",
    "navigation_line",
    "index_table",
    "readme_table",
    "expected_files",
    "main",
]

#: The command that regenerates every generated part (named in each of them).
GENERATOR = "python -m kubenotes.chapters --write"


@dataclass(frozen=True)
class Chapter:
    """One notebook of the course.

    Attributes
    ----------
    notebook : str
        File name without ``.ipynb``: ``NN.MM-kebab-title``; ``NN.MM`` orders the chapters.
    title : str
        Link text after the number, as the index, the links and the README show it.
    learn : str
        One line: what you learn (the README's "what you learn" column).
    teaches : str
        The index's longer "what it teaches" (``""`` for the index itself).
    widgets : str
        What the chapter's widgets move (the index's "widgets" column).
    viz : str or None
        The module of :mod:`kubenotes.viz` that draws the chapter (``"scheduler"`` is ``kubenotes/viz/scheduler.py``).
    data : str or None
        The folder under ``data/`` holding the chapter's manifests and scenarios; ``None`` when it reads none
        (``04.04`` reads the GPU trace from the user's copy).
    costs : str or None
        How long the API requests of the clusters the chapter runs take (issue #27), shown on its navigation
        line: ``"instant"`` (zero virtual time: a ``Cluster`` built in Python, or scenario files that say
        ``spec.cluster.requestCosts: instant``), ``"realistic"`` (client rate limits and request latency,
        :mod:`kubenotes.sim.costs`), or a short phrase naming both when its runs differ; ``None`` when the
        chapter runs no cluster.
    """

    notebook: str
    title: str
    learn: str
    teaches: str = ""
    widgets: str = ""
    viz: str | None = None
    data: str | None = None
    costs: str | None = None

    @property
    def number(self) -> str:
        """``"04.00"``.

        Examples
        --------
        >>> c = Chapter("04.00-scheduling-framework", "The scheduling framework", "Filter table, Score heatmap")
        >>> c.number, c.file, c.label
        ('04.00', '04.00-scheduling-framework.ipynb', '04.00 The scheduling framework')
        """
        return self.notebook[:5]

    @property
    def file(self) -> str:
        """The notebook's file name in ``notebooks/``."""
        return self.notebook + ".ipynb"

    @property
    def label(self) -> str:
        """``"04.00 The scheduling framework"``; the index's is ``"Contents"``."""
        return self.title if self.notebook == INDEX else f"{self.number} {self.title}"


#: The index notebook, first row of :data:`CHAPTERS`.
INDEX = "00.00-index"

#: Every notebook, in reading order (the index first).
CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        INDEX, "Contents",
        "reading order and a glossary pairing English terms with the Chinese ones "
        "(预选 filter, 优选 score, 污点 taint, 容忍 toleration …)",
    ),
    Chapter(
        "01.00-objects-and-manifests", "Objects and manifests",
        "how the API server reads YAML: exact quantities, defaulting, Priority admission, effective requests, QoS",
        "How the API server reads your YAML: exact quantities (`500m`, `2Gi`), defaulting (requests from limits), "
        "Priority admission, a Pod's effective request with init and sidecar containers, QoS classes",
        "request/limit sliders → QoS class and effective request",
        viz="objects", data="cluster",
    ),
    Chapter(
        "02.00-control-plane-architecture", "Control plane architecture",
        "the running cluster's components as a graph, and one `kubectl apply` traced hop by hop through authn, "
        "RBAC, admission, validation, the store, watches, controllers, the scheduler and the kubelet",
        "The running cluster as a graph of components that only talk to the API server; one `kubectl apply` of a "
        "Deployment traced hop by hop: authentication, RBAC, admission, validation, the store, watches, the "
        "Deployment and ReplicaSet controllers, the scheduler's binding and the kubelet",
        "what is applied (Deployment, bare ReplicaSet, bare Pod) and a slider over the apply's hops on the "
        "component graph",
        viz="controlplane", data="cluster",
        costs="instant",
    ),
    Chapter(
        "02.01-api-server-and-list-watch", "API server and List-Watch",
        "resourceVersions and watches, a 409 Conflict, a 410 Gone and the Reflector's relist, the informer cache, "
        "RBAC's Forbidden",
        "resourceVersions and a watch stream; a 409 Conflict between two writers; a watch from a compacted "
        "revision (410 Gone) and the Reflector's relist; the informer cache beside the store; RBAC forbidding a "
        "request",
        "how much happens while a watch is down → resume or relist",
        viz="controlplane", data="cluster",
        costs="instant",
    ),
    Chapter(
        "02.02-kubectl-against-the-model", "kubectl against the model",
        "the real kubectl against the served model: each command's HTTP requests, handler chain, store writes and "
        "watch events; a `set image` rollout under a clock slider; 401/403/404/422",
        "The model served over the Kubernetes REST API and driven by the real `kubectl`: each command's HTTP "
        "requests (discovery, OpenAPI, the LIST answered as a Table, `apply`'s GET and POST) beside its output, "
        "with admission steps, store writes and watch events; `get -w` as LIST then WATCH; a rollout started from "
        "kubectl; 401, 403, 404 and 422 explained",
        "a clock slider replays a rollout second by second",
        viz="kubectl", data="cluster",
        costs="instant",
    ),
    Chapter(
        "02.03-etcd-and-raft", "etcd and Raft",
        "etcd's Raft: terms, elections and the election timeout, quorum writes and their errors, CheckQuorum and "
        "PreVote, ReadIndex, MVCC revisions, and one apply traced through the Raft log; checked against real etcd",
        "etcd 3.4's Raft on a virtual clock: leader election with terms and votes, the randomized election "
        "timeout (model vs real etcd), stop / pause / partition / restart members, writes blocked without a "
        "quorum (`request timed out`), CheckQuorum and PreVote, linearizable vs serializable reads, the log and "
        "commit index per member, MVCC revisions and 410 Gone, one `kubectl apply` through Raft index -> "
        "revision -> resourceVersion -> watch -> informer, Flannel's and Calico's keys in etcd",
        "members 1/3/5, election timeout, a fault (stop / pause leader, partition, stop a majority) and when it "
        "is undone, --pre-vote, seed -> state timeline and writes",
        viz="etcd", data="cluster",
        costs="instant",
    ),
    Chapter(
        "03.00-controllers-reconcile", "Controllers: the reconcile loop",
        "the reconcile loop; a rollout under maxSurge/maxUnavailable; a dead node, its taints and evictions; the "
        "garbage collector's cascades; quota; a Job's back-off",
        "informer → workqueue → Reconcile → API; a Deployment rollout over time with maxSurge/maxUnavailable; a "
        "dead node going Unknown, tainted and its pods evicted after 300 s; the ownership graph and the garbage "
        "collector's three cascades; a ResourceQuota's 403; a Job's back-off",
        "maxSurge, maxUnavailable, replicas, node failure, cascade steps",
        viz="controllers", data="controllers",
        costs="instant",
    ),
    Chapter(
        "03.01-the-other-controllers", "The other controllers",
        "namespace deletion and its finalizers, ServiceAccounts and tokens, node IPAM and CIDRNotAvailable, "
        "DaemonSets, StatefulSets, the HPA's formula, CronJobs, and what the cloud-controller-manager would own",
        "a Namespace emptied kind by kind and held by a finalizer; the default ServiceAccount and a legacy token "
        "Secret; podCIDRs from --cluster-cidr until they run out; a DaemonSet's per-node rolling update; "
        "OrderedReady vs Parallel StatefulSets; the HPA's ceil(current × metric / target), tolerance and 300 s "
        "stabilization; a CronJob's concurrencyPolicy and missed starts; kube- vs cloud-controller-manager",
        "finalizer, grace period, token Secret, CIDR sizes, maxUnavailable, policy, load, target, "
        "concurrencyPolicy",
        viz="workloads", data="controllers",
        costs="instant",
    ),
    Chapter(
        "03.02-operators-and-crds", "Operators and CRDs: write your own controller",
        "a CRD served and discovered, your own controller (informer, workqueue, Reconcile) in a cell, a CEL "
        "ValidatingAdmissionPolicy and a Python webhook refusing requests, Rook's operator failing a Ceph monitor over",
        "Extending the API: a CustomResourceDefinition applied and discovery changing at once (`kubectl "
        "api-resources`), schema defaulting and a 422 with its field path; a controller written in a cell with the "
        "library's informers and rate-limited workqueue, reconciling a Website into a Deployment and its status on "
        "the virtual clock; a CEL ValidatingAdmissionPolicy and a webhook served from a Python function on loopback "
        "refusing requests with the API server's messages; "
        "Rook's pattern: a CephCluster reconciled into three mons on three nodes, and the mon failover after a node "
        "dies (45 s health checks, 10 min timeout)",
        "a clock slider over the mon failover: mons per node, quorum and the operator's log",
        viz="operators", data="operators",
        costs="instant",
    ),
    Chapter(
        "04.00-scheduling-framework", "The scheduling framework",
        "Filter table, Score heatmap, NormalizeScore and weights, the FailedScheduling message, pod affinity and "
        "ImageLocality, preemption with priorities and PDBs, extenders, legacy names",
        "One scheduling cycle on the sample cluster: Filter (预选) table, Score (优选) heatmap, NormalizeScore and "
        "weights, the winner, the FailedScheduling message, pod affinity and anti-affinity (hostname vs zone) and "
        "ImageLocality, preemption with PriorityClasses and a PodDisruptionBudget, a scheduler extender over HTTP "
        "beside a framework plugin, the scheduler's goals, and how the old predicate/priority names map onto "
        "plugins",
        "score-plugin weights, scoring strategy, pod CPU/memory, tolerations, node affinity; affinity terms; "
        "preemptor priority and PDB; extender weight",
        viz="scheduler", data="scheduling",
    ),
    Chapter(
        "04.04-gpu-trace-replay", "GPU sharing on a production trace",
        "a production GPU trace replayed under nine policies as out-of-tree Score plugins; write your own plugin",
        "The Alibaba GPU cluster trace (USENIX ATC '23) replayed under nine policies written as out-of-tree Score "
        "plugins: allocation ratio, fragmentation, FGD's score in numbers; then write and enable your own Score "
        "plugin",
        "policies, trace variant, arrived workload",
        viz="replay", data="replay",
    ),
    Chapter(
        "05.00-kubelet", "The kubelet",
        "the kubelet from binding to a running pod: pod sources, syncPod (volumes, then CRI) as a timeline, "
        "status, probes, CrashLoopBackOff, static and mirror pods, the PLEG's cost; API server → kubelet :10250 "
        "for logs, exec, port-forward and the Summary API (no SSH)",
        "From binding to a running pod on the node: where the kubelet gets pods (watch, static manifests), "
        "syncPod's order over CRI (sandbox, image pulls, init containers, containers), the pod status as the API "
        "shows it, probes, a liveness failure and CrashLoopBackOff, static and mirror pods, why the PLEG's "
        "relist cost caps pods per node, and how `kubectl logs`/`exec`/`port-forward`/`top` reach the kubelet "
        "over HTTPS on port 10250 (the SSH tunnels removed in v1.22)",
        "probe settings and restart policy, pods per node, kubectl command → hops",
        viz="kubelet", data="kubelet",
        costs="realistic",
    ),
    Chapter(
        "05.01-cri-and-runtimes", "CRI and container runtimes",
        "one pod start call by call (the pause sandbox first), CRI configs and the OCI `config.json`, containerd "
        "vs CRI-O stacks, the image layer cache, start latency, where Docker and dockershim stood",
        "The kubelet's gRPC calls to containerd or CRI-O, one pod start call by call (the pause sandbox first), "
        "the configs sent and the OCI `config.json` runc gets (namespaces, cgroups, `oomScoreAdj`), the runtime "
        "stack as a graph, the image layer cache, and `docker run` mapped onto the CRI calls (dockershim until "
        "v1.24, cri-dockerd after)",
        "runtime, image size and cache → start latency",
        viz="cri", data="kubelet",
        costs="instant",
    ),
    Chapter(
        "05.02-qos-and-eviction", "QoS, OOM and node-pressure eviction",
        "QoS classes, `oom_score_adj` and cgroup files, the kubepods tree under the systemd and cgroupfs drivers, "
        "a memory-pressure timeline and the eviction order beside the kernel OOM killer's",
        "QoS classes (服务质量) from requests and limits, `oom_score_adj` and the cgroup files the kubelet writes, "
        "the kubepods cgroup tree (systemd vs cgroupfs cgroup driver), a memory-pressure timeline with node conditions and the eviction (驱逐) order, "
        "and the kernel OOM killer's order beside it",
        "requests/limits → class, oom_score_adj, cgroup values; growth rate and soft threshold",
        viz="qos", data="qos",
        costs="realistic",
    ),
    Chapter(
        "05.03-storage-and-csi", "Storage and CSI",
        "claims bound to volumes (Immediate vs WaitForFirstConsumer), one CSI volume call by call beside syncPod, "
        "StatefulSet claims outliving pods, a node failure with a ReadWriteOnce volume, storage capacity tracking, "
        "a claim grown online, the volume Filter reasons",
        "PersistentVolumes and claims (持久卷) as the PV controller and the scheduler's VolumeBinding match them "
        "(size, access modes, class, Immediate vs WaitForFirstConsumer), one pod's CSI volume call by call "
        "(VolumeAttachment, ControllerPublishVolume, the kubelet's WaitForAttach before syncPod's CRI calls), a "
        "StatefulSet's claims surviving a pod's deletion, a node failure with a ReadWriteOnce volume (the "
        "Multi-Attach error, the out-of-service taint, the 6-minute force detach), storage capacity tracking "
        "(CSIStorageCapacity), a mounted claim grown online (ControllerExpandVolume, then the kubelet's "
        "NodeExpandVolume), and the scheduler's volume Filter reasons",
        "claim size, access mode, class and binding mode → the volume it binds",
        viz="storage", data="storage",
        costs="instant",
    ),
    Chapter(
        "06.00-cni-and-calico", "CNI and Calico's network modes",
        "the CNI calls at sandbox creation, Calico's IPAM blocks, interfaces and routes in VXLAN / IPIP / BGP / "
        "CrossSubnet modes, a packet walk with headers and MTU, NetworkPolicy enforced by Felix (default deny, then "
        "one path), BGP mesh vs route reflectors, a node failure, Flannel beside Calico (what each stores where, "
        "vxlan / host-gw / wireguard routes and MTU, no policy)",
        "How a pod gets its network (网络插件 CNI): the runtime's CNI calls at sandbox creation (bridge + "
        "host-local, checked against the real plugins), Calico's IPAM blocks, each node's interfaces and routes in "
        "VXLAN, IPIP (隧道 tunnels), BGP and CrossSubnet modes, a packet's walk hop by hop with its headers and "
        "MTU, NetworkPolicy (网络策略) as Calico's Felix enforces it: default deny, then one allowed path, "
        "full-mesh BGP vs route reflectors, a node failure withdrawing its routes, and Flannel beside Calico: "
        "Node annotations or etcd leases, each backend's routes, ARP and FDB entries, host-gw without L2 adjacency",
        "node count, packet size and mode → overhead, MTU, BGP sessions; policies, label and destination → verdicts; "
        "Flannel backend and destination → walk, routes, FDB",
        viz="network", data="network",
        costs="realistic",
    ),
    Chapter(
        "06.01-services-and-kube-proxy", "Services and kube-proxy",
        "kube-proxy's iptables and nftables rules for a Service, 10,000 connections over its endpoints (iptables "
        "random, IPVS rr, ClientIP affinity), a readiness failure draining an endpoint, env vars vs DNS, the "
        "Service types (NodePort, LoadBalancer, ExternalName, selector-less, headless, a taken clusterIP's 422)",
        "A Service's virtual IP (服务 Service) as kube-proxy programs it: the iptables chains with their "
        "probabilities and the nftables table for N endpoints, 10,000 simulated connections over the endpoints "
        "(iptables random, IPVS round robin, ClientIP affinity; 负载均衡 load balancing), a readiness failure "
        "draining an endpoint, environment variables vs cluster DNS, and the rules each Service type produces "
        "(ClusterIP, NodePort, LoadBalancer, ExternalName, selector-less with a hand-written EndpointSlice, "
        "headless; a requested clusterIP that is taken)",
        "endpoints → rules and connection histogram; Service type → rules and DNS",
        viz="proxy", data="network",
        costs="realistic",
    ),
)

_INDEX_FILE = INDEX + ".ipynb"
#: Appended to each generated navigation line (an HTML comment: Jupyter and GitHub do not show it).
_NAV_MARK = f"<!-- generated by `{GENERATOR}` from kubenotes/chapters.py -->"
_BEGIN = f"<!-- chapters: begin; generated by `{GENERATOR}` from kubenotes/chapters.py, do not edit by hand -->"
_END = "<!-- chapters: end -->"
_INDEX_HEADING = "## Chapters, in reading order"
_README_HEADING = "## Chapters"


def _link(chapter: Chapter, text: str) -> str:
    return f"[{text}]({chapter.file})"


def navigation_line(notebook: str) -> str:
    """The previous / contents / next line that ends a notebook's first cell.

    Parameters
    ----------
    notebook : str
        A notebook of :data:`CHAPTERS` (``"04.00-scheduling-framework"``).

    Returns
    -------
    str
        Markdown links, then, for a chapter that runs a cluster, which request costs its runs use
        (:attr:`Chapter.costs`), ending with a comment that names the generator.

    Raises
    ------
    KeyError
        When :data:`CHAPTERS` has no such notebook.

    Examples
    --------
    >>> print(navigation_line("02.00-control-plane-architecture").split(" <!--")[0])
    [← 01.00 Objects and manifests](01.00-objects-and-manifests.ipynb) · [Contents](00.00-index.ipynb) \
· [02.01 API server and List-Watch →](02.01-api-server-and-list-watch.ipynb) · request costs: instant
    >>> print(navigation_line(INDEX).split(" <!--")[0])
    **Contents** · next: [01.00 Objects and manifests](01.00-objects-and-manifests.ipynb)
    >>> print(navigation_line("01.00-objects-and-manifests").split(" <!--")[0])
    [← Contents](00.00-index.ipynb) · [02.00 Control plane architecture →](02.00-control-plane-architecture.ipynb)
    >>> navigation_line("03.00-controllers-reconcile").split(" <!--")[0].split(" · ")[-1]
    'request costs: instant'
    """
    names = [c.notebook for c in CHAPTERS]
    if notebook not in names:
        raise KeyError(notebook)
    i = names.index(notebook)
    prev = CHAPTERS[i - 1] if i > 0 else None
    nxt = CHAPTERS[i + 1] if i + 1 < len(CHAPTERS) else None
    index = CHAPTERS[0]
    if prev is None:
        parts = ["**Contents**"] + ([f"next: {_link(nxt, nxt.label)}"] if nxt else [])
    elif prev is index:
        parts = [_link(index, "← Contents")] + ([_link(nxt, f"{nxt.label} →")] if nxt else [])
    else:
        parts = [_link(prev, f"← {prev.label}"), _link(index, "Contents")]
        parts += [_link(nxt, f"{nxt.label} →")] if nxt else []
    costs = CHAPTERS[i].costs
    if costs:
        parts.append(f"request costs: {costs}")
    return " · ".join(parts) + " " + _NAV_MARK


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def index_table() -> str:
    """The index notebook's chapter table, between its marker comments.

    Returns
    -------
    str
        Markdown: the begin marker, a table with one row per chapter after the index, the end marker.

    Examples
    --------
    >>> print(index_table().splitlines()[2])
    | chapter | what it teaches | widgets |
    """
    rows = ["| chapter | what it teaches | widgets |", "| --- | --- | --- |"]
    rows += [f"| {_link(c, c.label)} | {_cell(c.teaches)} | {_cell(c.widgets)} |" for c in CHAPTERS[1:]]
    return "\n".join([_BEGIN, "", *rows, "", _END])


def readme_table() -> str:
    """The README's chapter table, between its marker comments.

    Returns
    -------
    str
        Markdown: the begin marker, one row per notebook (the index too) with its viz module and data folder,
        the end marker.

    Examples
    --------
    >>> print(readme_table().splitlines()[2])
    | notebook | what you learn | drawn by | data |
    >>> [l.split(" | ", 1)[0] for l in readme_table().splitlines()].count("| `03.01-the-other-controllers`")
    1
    """
    rows = ["| notebook | what you learn | drawn by | data |", "| --- | --- | --- | --- |"]
    for c in CHAPTERS:
        viz = f"`kubenotes/viz/{c.viz}.py`" if c.viz else "–"
        data = f"`data/{c.data}/`" if c.data else "–"
        rows.append(f"| `{c.notebook}` | {_cell(c.learn)} | {viz} | {data} |")
    return "\n".join([_BEGIN, "", *rows, "", _END])


def _replace_block(text: str, heading: str, block: str) -> str:
    """``text`` with the marked block (or, before the first write, the first table after ``heading``) replaced."""
    if _BEGIN.split(";")[0] in text:
        start = text.index(_BEGIN.split(";")[0])
        end = text.index(_END, start) + len(_END)
        return text[:start] + block + text[end:]
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == heading)
    start = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[:start] + [block] + lines[end:])


def _is_navigation(line: str) -> bool:
    return f"]({_INDEX_FILE})" in line or line.startswith("**Contents**")


def _with_navigation(source: str, notebook: str) -> str:
    """A first cell's text with its last line replaced by (or, when it has none, followed by) the navigation."""
    lines = source.rstrip("\n").split("\n")
    nav = navigation_line(notebook)
    if _is_navigation(lines[-1]):
        lines[-1] = nav
    else:
        lines += ["", nav]
    return "\n".join(lines)


def _source_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _rewrite_notebook(raw: str, notebook: str) -> str:
    nb = json.loads(raw)
    first = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    first["source"] = _source_lines(_with_navigation("".join(first["source"]), notebook))
    if notebook == INDEX:
        cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown"
                    and "".join(c["source"]).startswith(_INDEX_HEADING))
        cell["source"] = _source_lines(_replace_block("".join(cell["source"]), _INDEX_HEADING, index_table()))
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def expected_files(root: Path) -> dict[Path, str]:
    """What the generator would write: each generated file's full text, from the files as they are now.

    Parameters
    ----------
    root : pathlib.Path
        The repository (it holds ``README.md`` and ``notebooks/``).

    Returns
    -------
    dict[pathlib.Path, str]
        File -> its text with every generated part regenerated; a file whose text is unchanged is consistent.

    Raises
    ------
    FileNotFoundError
        When a notebook of :data:`CHAPTERS` or the README is missing.
    StopIteration
        When the README or the index notebook has no "Chapters" heading followed by a table.

    Examples
    --------
    >>> files = expected_files(Path(__file__).resolve().parents[1])
    >>> [p.name for p in files][:2], len(files) == len(CHAPTERS) + 1
    (['00.00-index.ipynb', '01.00-objects-and-manifests.ipynb'], True)
    """
    out = {}
    for c in CHAPTERS:
        path = root / "notebooks" / c.file
        out[path] = _rewrite_notebook(path.read_text(encoding="utf-8"), c.notebook)
    readme = root / "README.md"
    out[readme] = _replace_block(readme.read_text(encoding="utf-8"), _README_HEADING, readme_table())
    return out


def _problems(root: Path) -> list[str]:
    on_disk = {p.stem for p in (root / "notebooks").glob("*.ipynb")}
    listed = {c.notebook for c in CHAPTERS}
    problems = [f"notebooks/{n}.ipynb is not in kubenotes/chapters.py CHAPTERS" for n in sorted(on_disk - listed)]
    problems += [f"CHAPTERS lists {n}, but notebooks/{n}.ipynb does not exist" for n in sorted(listed - on_disk)]
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m kubenotes.chapters [--write | --check] [--root DIR]``.

    Parameters
    ----------
    argv : list[str], optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when every generated part matches (``--check``) or was written (``--write``); 1 when ``--check``
        finds a difference, or a notebook and :data:`CHAPTERS` disagree.
    """
    parser = argparse.ArgumentParser(prog="python -m kubenotes.chapters", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated parts")
    mode.add_argument("--check", action="store_true", help="report files whose generated parts differ")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the repository (default: the one this module is in)")
    args = parser.parse_args(argv)
    problems = _problems(args.root)
    for msg in problems:
        print(msg, file=sys.stderr)
    if problems:
        return 1
    status = 0
    for path, text in expected_files(args.root).items():
        if path.read_text(encoding="utf-8") == text:
            continue
        if args.write:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(args.root)}")
        else:
            print(f"{path.relative_to(args.root)}: generated part differs; run {GENERATOR}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
