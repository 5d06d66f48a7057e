"""The node's runtime stack as a graph: kubelet -> high-level runtime -> shim/conmon -> runc -> processes.

On a containerd node the kubelet talks CRI (gRPC over
``/run/containerd/containerd.sock``) to containerd's CRI plugin, which starts
one ``containerd-shim-runc-v2`` per pod; the shim runs ``runc create``/``runc
start`` for the pause container and then for each container, and stays as
their parent (runc itself exits). On a CRI-O node ``crio`` starts one
``conmon`` per container, which runs runc and stays as the container's
monitor; with CRI-O's default ``drop_infra_ctr = true`` there is no pause
process unless the pod shares its PID namespace (``pinns`` holds the
namespaces instead).

Each process node carries the namespaces and cgroup of its OCI config
(:func:`kubenotes.cri.oci.oci_config`) so a chapter can show which processes
share a network namespace and where their cgroups sit in the ``kubepods``
tree.

References
----------
containerd/containerd@v2.1 docs/cri/architecture.md; cmd/containerd-shim-runc-v2
cri-o/cri-o@v1.34 docs/crio.conf.5.md (drop_infra_ctr); containers/conmon README
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux.go
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import networkx as nx

from kubenotes.cri.api import new_id
from kubenotes.cri.oci import netns_path, oci_config
from kubenotes.kubelet.cgroups import CGROUP_DRIVER_SYSTEMD, pod_cgroup_path
from kubenotes.kubelet.qos import pod_qos

__all__ = ["LAYER_KUBELET", "LAYER_RUNTIME", "LAYER_SHIM", "LAYER_RUNC", "LAYER_PROCESS", "runtime_stack_graph"]

LAYER_KUBELET = 0
LAYER_RUNTIME = 1
LAYER_SHIM = 2
LAYER_RUNC = 3
LAYER_PROCESS = 4

_SOCKETS = {"containerd": "/run/containerd/containerd.sock", "cri-o": "/var/run/crio/crio.sock"}


def _ns_summary(spec: Mapping[str, Any]) -> dict[str, str]:
    return {n["type"]: n.get("path", "new") for n in spec["linux"]["namespaces"]}


def runtime_stack_graph(
    kind: str,
    pods: Iterable[Mapping[str, Any]],
    *,
    cgroup_driver: str = CGROUP_DRIVER_SYSTEMD,
    low_level: str = "runc",
    drop_infra_ctr: bool = True,
    memory_capacity_bytes: int = 8 * 1024**3,
) -> nx.DiGraph:
    """The runtime stack of a node running ``pods``.

    Parameters
    ----------
    kind : {"containerd", "cri-o"}
    pods : iterable of dict
        JSON-shaped Pods (``metadata.name``, ``metadata.uid``, ``spec.containers``).
    cgroup_driver : str
        ``systemd`` or ``cgroupfs``.
    low_level : str
        Label of the OCI runtime nodes (``runc``, ``crun``).
    drop_infra_ctr : bool
        CRI-O only: no pause process unless ``shareProcessNamespace``.
    memory_capacity_bytes : int
        For the containers' ``oom_score_adj``.

    Returns
    -------
    networkx.DiGraph
        Nodes have ``label``, ``layer`` (0 kubelet ... 4 processes, for a
        multipartite layout) and ``kind``; process nodes also ``pod``,
        ``container``, ``namespaces`` (type -> path or ``"new"``),
        ``cgroup`` (``linux.cgroupsPath``), ``pod_cgroup``, ``qos_class``
        and ``oom_score_adj``. Edges have ``relation``.

    Raises
    ------
    ValueError
        For an unknown ``kind``.

    Notes
    -----
    runc is short-lived (it execs the container process and exits); it is
    drawn once per shim/conmon to show who invoked it. PIDs are not shown.

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}, {"name": "log", "image": "busybox:1.36",
    ...                 "command": ["sh", "-c", "tail -f /dev/null"]}]}}
    >>> g = runtime_stack_graph("containerd", [pod])
    >>> sorted(g.successors("containerd"))
    ['shim/default/web']
    >>> sorted(g.successors("runc/default/web"))
    ['default/web/POD', 'default/web/app', 'default/web/log']
    >>> g.nodes["default/web/app"]["namespaces"]["network"] == g.nodes["default/web/log"]["namespaces"]["network"]
    True
    >>> g2 = runtime_stack_graph("cri-o", [pod])
    >>> sorted(g2.successors("crio")), "default/web/POD" in g2
    (['conmon/default/web/app', 'conmon/default/web/log'], False)
    """
    if kind not in ("containerd", "cri-o"):
        raise ValueError(f"unknown runtime kind {kind!r}")
    g = nx.DiGraph()
    g.add_node("kubelet", label="kubelet", layer=LAYER_KUBELET, kind="kubelet")
    top = "containerd" if kind == "containerd" else "crio"
    g.add_node(top, label="containerd (CRI plugin)" if kind == "containerd" else "crio", layer=LAYER_RUNTIME,
               kind="runtime")
    g.add_edge("kubelet", top, relation=f"CRI gRPC over {_SOCKETS[kind]}")

    for pod in pods:
        meta = pod.get("metadata") or {}
        ns, name = meta.get("namespace", "default"), meta.get("name", "")
        uid = meta.get("uid") or new_id("uid", ns, name)[:36]
        pod = {**pod, "metadata": {**meta, "uid": uid}}
        key = f"{ns}/{name}"
        sandbox_id = new_id("sandbox", uid, 0)
        qos = pod_qos(pod)
        spec = pod.get("spec") or {}
        shared_pid = bool(spec.get("shareProcessNamespace"))
        netns = "" if spec.get("hostNetwork") else netns_path(sandbox_id, kind)
        pod_cgroup = pod_cgroup_path(pod, cgroup_driver)
        containers = [c.get("name") for c in spec.get("containers") or ()]

        def add_process(node: str, parent_runc: str, label: str, container: str | None) -> None:
            attrs: dict[str, Any] = {"label": label, "layer": LAYER_PROCESS, "kind": "process", "pod": key,
                                     "container": container, "pod_cgroup": pod_cgroup, "qos_class": qos}
            if container is None:
                attrs.update(namespaces={"pid": "new", "ipc": "new", "uts": "new", "mount": "new",
                                         **({"network": netns} if netns else {})},
                             cgroup=pod_cgroup + "/" + sandbox_id, oom_score_adj=-998)
            else:
                kw = dict(sandbox_id=sandbox_id, cgroup_driver=cgroup_driver,
                          memory_capacity_bytes=memory_capacity_bytes, runtime=kind)
                try:
                    cfg = oci_config(pod, container, **kw)
                except ValueError:  # image unknown to the default catalogue and no command
                    cfg = oci_config(pod, container, image_config={"Cmd": ["/entrypoint"]}, **kw)
                attrs.update(namespaces=_ns_summary(cfg), cgroup=cfg["linux"]["cgroupsPath"],
                             oom_score_adj=cfg["process"].get("oomScoreAdj"))
            g.add_node(node, **attrs)
            g.add_edge(parent_runc, node, relation="create + start (exits after exec)")

        if kind == "containerd":
            shim, runc = f"shim/{key}", f"runc/{key}"
            g.add_node(shim, label="containerd-shim-runc-v2", layer=LAYER_SHIM, kind="shim", pod=key)
            g.add_node(runc, label=low_level, layer=LAYER_RUNC, kind="oci-runtime", pod=key)
            g.add_edge(top, shim, relation="starts one shim per pod (ttrpc)")
            g.add_edge(shim, runc, relation="runs")
            add_process(f"{key}/POD", runc, "pause", None)
            for c in containers:
                add_process(f"{key}/{c}", runc, c, c)
        else:
            members: list[tuple[str, str | None]] = [(c, c) for c in containers]
            if shared_pid or not drop_infra_ctr:
                members.insert(0, ("POD", None))
            for label, c in members:
                conmon, runc = f"conmon/{key}/{label}", f"runc/{key}/{label}"
                g.add_node(conmon, label="conmon", layer=LAYER_SHIM, kind="shim", pod=key)
                g.add_node(runc, label=low_level, layer=LAYER_RUNC, kind="oci-runtime", pod=key)
                g.add_edge(top, conmon, relation="starts one conmon per container")
                g.add_edge(conmon, runc, relation="runs")
                add_process(f"{key}/{label}", runc, "pause" if c is None else c, c)
    return g
