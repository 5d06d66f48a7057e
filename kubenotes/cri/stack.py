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
(:func:`kubenotes.cri.oci.container_oci_config`, from the CRI configs the
kubelet sent) so a chapter can show which processes share a network
namespace and where their cgroups sit in the ``kubepods`` tree.

References
----------
containerd/containerd@v2.1 docs/cri/architecture.md; cmd/containerd-shim-runc-v2
cri-o/cri-o@v1.34 docs/crio.conf.5.md (drop_infra_ctr); containers/conmon README
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import networkx as nx

from kubenotes.cri.api import NAMESPACE_MODE_NODE, NAMESPACE_MODE_POD, new_id
from kubenotes.cri.oci import SANDBOX_OOM_SCORE_ADJ, container_oci_config, netns_path

__all__ = ["LAYER_KUBELET", "LAYER_RUNTIME", "LAYER_SHIM", "LAYER_RUNC", "LAYER_PROCESS",
           "runtime_stack_graph_from_cri"]

LAYER_KUBELET = 0
LAYER_RUNTIME = 1
LAYER_SHIM = 2
LAYER_RUNC = 3
LAYER_PROCESS = 4

_SOCKETS = {"containerd": "/run/containerd/containerd.sock", "cri-o": "/var/run/crio/crio.sock"}


def _ns_summary(spec: Mapping[str, Any]) -> dict[str, str]:
    return {n["type"]: n.get("path", "new") for n in spec["linux"]["namespaces"]}


def runtime_stack_graph_from_cri(
    kind: str,
    sandboxes: Iterable[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]],
    *,
    low_level: str = "runc",
    drop_infra_ctr: bool = True,
) -> nx.DiGraph:
    """The runtime stack of a node from the CRI configs the kubelet sent it.

    Parameters
    ----------
    kind : {"containerd", "cri-o"}
    sandboxes : iterable of (dict, sequence of dict)
        Per pod: its CRI ``PodSandboxConfig`` (``metadata``,
        ``linux.cgroup_parent``, ``linux.security_context.namespace_options``)
        and the ``ContainerConfig`` of each app container, in order.
    low_level : str
        Label of the OCI runtime nodes (``runc``, ``crun``).
    drop_infra_ctr : bool
        CRI-O only: no pause process unless the pod shares its PID namespace.

    Returns
    -------
    networkx.DiGraph
        Nodes have ``label``, ``layer`` (0 kubelet ... 4 processes, for a
        multipartite layout) and ``kind``; process nodes also ``pod``,
        ``container``, ``namespaces`` (type -> path or ``"new"``),
        ``cgroup`` (``linux.cgroupsPath``), ``pod_cgroup`` (the kubelet's
        ``cgroup_parent``) and ``oom_score_adj``. Edges have ``relation``.

    Raises
    ------
    ValueError
        For an unknown ``kind``.

    Notes
    -----
    runc is short-lived (it execs the container process and exits); it is
    drawn once per shim/conmon to show who invoked it. PIDs are not shown.
    Sandbox and container IDs are derived as in
    :func:`kubenotes.cri.oci.container_oci_config`. A container whose image
    is unknown to the default catalogue and that has no command is drawn
    running ``/entrypoint``.

    See Also
    --------
    kubenotes.kubelet.kuberuntime.runtime_stack_graph : the same from Pods.

    Examples
    --------
    >>> sandbox = {"metadata": {"name": "web", "namespace": "default", "uid": "u1", "attempt": 0},
    ...            "linux": {"cgroup_parent": "/kubepods/besteffort/podu1"}}
    >>> app = {"metadata": {"name": "app", "attempt": 0}, "image": {"image": "nginx:1.27"}}
    >>> g = runtime_stack_graph_from_cri("containerd", [(sandbox, [app])])
    >>> sorted(g.successors("runc/default/web"))
    ['default/web/POD', 'default/web/app']
    >>> g.nodes["default/web/app"]["cgroup"].startswith("/kubepods/besteffort/podu1/")
    True
    """
    if kind not in ("containerd", "cri-o"):
        raise ValueError(f"unknown runtime kind {kind!r}")
    g = nx.DiGraph()
    g.add_node("kubelet", label="kubelet", layer=LAYER_KUBELET, kind="kubelet")
    top = "containerd" if kind == "containerd" else "crio"
    g.add_node(top, label="containerd (CRI plugin)" if kind == "containerd" else "crio", layer=LAYER_RUNTIME,
               kind="runtime")
    g.add_edge("kubelet", top, relation=f"CRI gRPC over {_SOCKETS[kind]}")

    for sandbox_config, configs in sandboxes:
        meta = sandbox_config.get("metadata") or {}
        ns, name = meta.get("namespace", "default"), meta.get("name", "")
        key = f"{ns}/{name}"
        sandbox_id = new_id("sandbox", meta.get("uid", ""), meta.get("attempt", 0))
        linux = sandbox_config.get("linux") or {}
        ns_opts = (linux.get("security_context") or {}).get("namespace_options") or {}
        shared_pid = ns_opts.get("pid") == NAMESPACE_MODE_POD
        netns = "" if ns_opts.get("network") == NAMESPACE_MODE_NODE else netns_path(sandbox_id, kind)
        pod_cgroup = linux.get("cgroup_parent", "")
        containers = [((c.get("metadata") or {}).get("name"), c) for c in configs]

        def add_process(node: str, parent_runc: str, label: str, container: str | None,
                        config: Mapping[str, Any] | None = None) -> None:
            attrs: dict[str, Any] = {"label": label, "layer": LAYER_PROCESS, "kind": "process", "pod": key,
                                     "container": container, "pod_cgroup": pod_cgroup}
            if config is None:  # the pause container
                attrs.update(namespaces={"pid": "new", "ipc": "new", "uts": "new", "mount": "new",
                                         **({"network": netns} if netns else {})},
                             cgroup=pod_cgroup + "/" + sandbox_id, oom_score_adj=SANDBOX_OOM_SCORE_ADJ)
            else:
                try:
                    cfg = container_oci_config(config, sandbox_config, sandbox_id=sandbox_id, runtime=kind)
                except ValueError:  # image unknown to the default catalogue and no command
                    cfg = container_oci_config(config, sandbox_config, sandbox_id=sandbox_id, runtime=kind,
                                               image_config={"Cmd": ["/entrypoint"]})
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
            for c, config in containers:
                add_process(f"{key}/{c}", runc, c, c, config)
        else:
            members: list[tuple[str, str | None, Mapping[str, Any] | None]] = [(c, c, cfg) for c, cfg in containers]
            if shared_pid or not drop_infra_ctr:
                members.insert(0, ("POD", None, None))
            for label, c, config in members:
                conmon, runc = f"conmon/{key}/{label}", f"runc/{key}/{label}"
                g.add_node(conmon, label="conmon", layer=LAYER_SHIM, kind="shim", pod=key)
                g.add_node(runc, label=low_level, layer=LAYER_RUNC, kind="oci-runtime", pod=key)
                g.add_edge(top, conmon, relation="starts one conmon per container")
                g.add_edge(conmon, runc, relation="runs")
                add_process(f"{key}/{label}", runc, "pause" if c is None else c, c, config)
    return g
