"""The Node manifests the benchmarks' generated clusters share (one home, imported by the benchmark scripts).

Each script runs as ``python benchmarks/NAME.py``, so this module is found beside it.
"""

from __future__ import annotations


def node_manifests(count: int, capacity: dict[str, str], *, zones: int = 0) -> list[dict]:
    """``count`` Ready-to-use Node objects ``node-0000``, ``node-0001``, ... with one capacity for all.

    Parameters
    ----------
    count : int
        How many nodes.
    capacity : dict of str to str
        ``status.capacity`` and ``status.allocatable`` of every node (``{"cpu": "4", "memory": "16Gi", ...}``).
    zones : int
        0: only the ``kubernetes.io/hostname`` label; n > 0: also ``topology.kubernetes.io/zone: zone-<i % n>``.

    Returns
    -------
    list of dict
        The Nodes, each with an InternalIP ``10.0.<i // 250>.<i % 250 + 1>``.
    """
    nodes = []
    for i in range(count):
        name = f"node-{i:04d}"
        labels = {"kubernetes.io/hostname": name}
        if zones:
            labels["topology.kubernetes.io/zone"] = f"zone-{i % zones}"
        cap = dict(capacity)
        nodes.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                      "status": {"capacity": cap, "allocatable": cap,
                                 "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250 + 1}"}]}})
    return nodes
