"""Tests for the runtime stack graph: kubenotes.kubelet.kuberuntime.runtime_stack_graph over kubenotes.cri.stack.

The expected shapes follow containerd's docs/cri/architecture.md (one
containerd-shim-runc-v2 per pod, parent of the pause and app processes) and
CRI-O's crio.conf.5 ``drop_infra_ctr`` (one conmon per container, no infra
container unless the PID namespace is shared); the cgroup and oom_score_adj
attributes are checked against kubenotes.kubelet.cgroups / qos.
"""

from __future__ import annotations

import networkx as nx
import pytest

from kubenotes.cri.stack import LAYER_PROCESS
from kubenotes.kubelet.cgroups import pod_cgroup_path
from kubenotes.kubelet.kuberuntime import runtime_stack_graph
from kubenotes.kubelet.qos import container_oom_score_adjust

MEM = 8 * 1024**3


def pods():
    web = {"metadata": {"name": "web", "namespace": "default", "uid": "u-web"},
           "spec": {"containers": [
               {"name": "nginx", "image": "nginx:1.27",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}},
               {"name": "tail", "image": "busybox:1.36", "command": ["tail", "-f", "/dev/null"],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"cpu": "100m", "memory": "64Mi"}}}]}}
    db = {"metadata": {"name": "db", "namespace": "prod", "uid": "u-db"},
          "spec": {"shareProcessNamespace": True, "containers": [{"name": "redis", "image": "redis:7.4"}]}}
    return [web, db]


def test_containerd_one_shim_per_pod():
    g = runtime_stack_graph("containerd", pods())
    assert nx.is_directed_acyclic_graph(g)
    assert list(g.successors("kubelet")) == ["containerd"]
    assert sorted(g.successors("containerd")) == ["shim/default/web", "shim/prod/db"]
    assert sorted(g.successors("runc/default/web")) == ["default/web/POD", "default/web/nginx", "default/web/tail"]
    assert g.nodes["default/web/POD"]["label"] == "pause"
    assert g.nodes["shim/default/web"]["label"] == "containerd-shim-runc-v2"
    assert {d["layer"] for _, d in g.nodes(data=True)} == {0, 1, 2, 3, 4}


def test_namespaces_shared_in_a_pod_and_not_across_pods():
    g = runtime_stack_graph("containerd", pods())
    web = [g.nodes[n] for n in ("default/web/nginx", "default/web/tail")]
    assert web[0]["namespaces"]["network"] == web[1]["namespaces"]["network"] == \
        g.nodes["default/web/POD"]["namespaces"]["network"]
    assert web[0]["namespaces"]["ipc"] == web[1]["namespaces"]["ipc"]
    assert web[0]["namespaces"]["pid"] == "new"  # each container its own PID namespace by default
    assert g.nodes["prod/db/redis"]["namespaces"]["network"] != web[0]["namespaces"]["network"]
    assert g.nodes["prod/db/redis"]["namespaces"]["pid"].endswith("/ns/pid")  # shareProcessNamespace


def test_cgroups_and_oom_attributes_match_the_kubelet():
    ps = pods()
    g = runtime_stack_graph("containerd", ps, cgroup_driver="cgroupfs", memory_capacity_bytes=MEM)
    web, db = ps
    node = g.nodes["default/web/nginx"]
    assert node["qos_class"] == "Guaranteed" and node["pod_cgroup"] == pod_cgroup_path(web, "cgroupfs")
    assert node["cgroup"].startswith("/kubepods/podu-web/")
    assert node["oom_score_adj"] == container_oom_score_adjust(web, "nginx", MEM) == -997
    redis = g.nodes["prod/db/redis"]
    assert redis["qos_class"] == "BestEffort" and redis["oom_score_adj"] == 1000
    assert redis["cgroup"].startswith("/kubepods/besteffort/podu-db/")


@pytest.mark.parametrize("drop_infra, infra_pods", [(True, {"prod/db"}), (False, {"prod/db", "default/web"})])
def test_crio_conmon_per_container(drop_infra, infra_pods):
    g = runtime_stack_graph("cri-o", pods(), drop_infra_ctr=drop_infra)
    assert list(g.successors("kubelet")) == ["crio"]
    conmons = [n for n in g.successors("crio")]
    assert all(g.nodes[n]["label"] == "conmon" for n in conmons)
    procs = [n for n, d in g.nodes(data=True) if d["layer"] == LAYER_PROCESS]
    assert len(conmons) == len(procs)
    assert {n.rsplit("/", 1)[0] for n in procs if n.endswith("/POD")} == infra_pods
    assert g.nodes["default/web/nginx"]["cgroup"].endswith(".slice:crio:" + g.nodes["default/web/nginx"]["cgroup"].rsplit(":", 1)[1])


def test_unknown_kind():
    with pytest.raises(ValueError):
        runtime_stack_graph("docker", [])
