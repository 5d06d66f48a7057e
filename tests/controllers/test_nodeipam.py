"""Node IPAM (RangeAllocator): pod CIDRs for nodes from the cluster CIDR.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam:

* cidrset/cidr_set_test.go ``TestCIDRSetFullyAllocated``, ``TestIndexToCIDRBlock``,
  ``TestCIDRSet_AllocationOccupied``, ``TestCIDRSet_RandomishAllocation`` (allocate all, release all,
  allocate again: same blocks, in order of ``nextCandidate``);
* range_allocator_test.go ``TestAllocateOrOccupyCIDRSuccess`` ("When there's no ServiceCIDR return first
  CIDR in range", "Correctly ignore already allocated CIDRs"), ``TestAllocateOrOccupyCIDRFailure``
  (exhausted range: ``CIDRNotAvailable``), ``TestReleaseCIDRSuccess`` (a released block is reused only
  after the allocator wraps around).
"""

from __future__ import annotations

import pytest

from kubenotes.controllers.nodeipam import CIDRRangeExhausted, CIDRSet
from kubenotes.sim.cluster import Cluster

IPAM = "node-ipam-controller"


def _node(name: str, pod_cidr: str | None = None) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    if pod_cidr:
        n["spec"] = {"podCIDR": pod_cidr, "podCIDRs": [pod_cidr]}
    return n


def _cidrs(c: Cluster) -> dict[str, str | None]:
    return {n["metadata"]["name"]: (n.get("spec") or {}).get("podCIDR") for n in c.list("nodes")}


# ---------------------------------------------------------------- cidr_set_test.go
def test_fully_allocated_set_fails_then_frees_after_release():
    s = CIDRSet("127.123.234.0/30", 30)
    assert s.allocate_next() == "127.123.234.0/30"
    with pytest.raises(CIDRRangeExhausted):
        s.allocate_next()
    s.release("127.123.234.0/30")
    assert s.allocate_next() == "127.123.234.0/30"


@pytest.mark.parametrize("cluster, mask, index, expected", [
    ("127.123.3.0/16", 24, 0, "127.123.0.0/24"),
    ("127.123.0.0/16", 24, 255, "127.123.255.0/24"),
    ("10.244.0.0/16", 26, 5, "10.244.1.64/26"),
    ("fd00::/48", 64, 3, "fd00:0:0:3::/64"),
])
def test_index_to_cidr_block(cluster, mask, index, expected):
    assert CIDRSet(cluster, mask)._cidr(index) == expected


def test_allocation_skips_occupied_blocks():
    s = CIDRSet("127.123.234.0/16", 24)
    s.occupy("127.123.0.0/24")
    s.occupy("127.123.2.0/23")  # a bigger block occupies two
    assert [s.allocate_next() for _ in range(3)] == ["127.123.1.0/24", "127.123.4.0/24", "127.123.5.0/24"]


def test_allocate_all_release_all_allocate_again_gives_the_same_blocks():
    s = CIDRSet("127.123.234.0/28", 30)
    first = [s.allocate_next() for _ in range(4)]
    assert first == ["127.123.234.0/30", "127.123.234.4/30", "127.123.234.8/30", "127.123.234.12/30"]
    with pytest.raises(CIDRRangeExhausted):
        s.allocate_next()
    for c in first:
        s.release(c)
    assert [s.allocate_next() for _ in range(4)] == first


# ---------------------------------------------------------------- range_allocator_test.go, in a cluster
def test_nodes_get_consecutive_24s_of_the_default_cluster_cidr():
    c = Cluster([_node("n1"), _node("n2"), _node("n3")], seed=0, controllers=[IPAM], authorization=False, kubelet="stand-in")
    c.run(until=2)
    assert _cidrs(c) == {"n1": "10.244.0.0/24", "n2": "10.244.1.0/24", "n3": "10.244.2.0/24"}
    n1 = c.get("nodes", "n1")
    assert n1["spec"]["podCIDRs"] == ["10.244.0.0/24"]
    assert any(e.component == IPAM and e.kind == "Node" and e.verb == "patch" for e in c.audit_log)


def test_first_cidr_in_range_with_a_custom_cluster_cidr_and_mask():
    c = Cluster([_node("node0")], seed=0, controllers=[IPAM], authorization=False,
                options={"cluster-cidr": "127.123.234.0/24", "node-cidr-mask-size-ipv4": 30}, kubelet="stand-in")
    c.run(until=2)
    assert _cidrs(c) == {"node0": "127.123.234.0/30"}


def test_already_allocated_cidrs_are_ignored():
    objs = [_node("a", "10.244.0.0/24"), _node("b", "10.244.2.0/24"), _node("new1"), _node("new2")]
    c = Cluster(objs, seed=0, controllers=[IPAM], authorization=False, kubelet="stand-in")
    c.run(until=2)
    got = _cidrs(c)
    assert got["a"] == "10.244.0.0/24" and got["b"] == "10.244.2.0/24"
    assert sorted([got["new1"], got["new2"]]) == ["10.244.1.0/24", "10.244.3.0/24"]


def test_exhausted_range_records_cidr_not_available():
    c = Cluster([_node("node0"), _node("node1")], seed=0, controllers=[IPAM], authorization=False,
                options={"cluster-cidr": "127.123.234.0/30", "node-cidr-mask-size-ipv4": 30}, kubelet="stand-in")
    c.run(until=2)
    got = _cidrs(c)
    assert sorted(v for v in got.values() if v) == ["127.123.234.0/30"]
    loser = next(k for k, v in got.items() if v is None)
    events = [(e["involvedObject"]["name"], e["reason"], e["message"], e["source"]["component"])
              for e in c.list("events")]
    assert (loser, "CIDRNotAvailable", f"Node {loser} status is now: CIDRNotAvailable", "cidrAllocator") in events


def test_released_cidr_is_not_reused_until_the_allocator_wraps():
    c = Cluster([_node("n1"), _node("n2")], seed=0, controllers=[IPAM], authorization=False,
                options={"cluster-cidr": "10.244.0.0/22"}, kubelet="stand-in")
    c.run(until=2)
    c.client.delete("nodes", "n1")
    c.run(until=3)
    c.client.create("nodes", {"metadata": {"name": "n3"}})
    c.client.create("nodes", {"metadata": {"name": "n4"}})
    c.client.create("nodes", {"metadata": {"name": "n5"}})
    c.run(until=5)
    got = _cidrs(c)
    assert got["n3"] == "10.244.2.0/24" and got["n4"] == "10.244.3.0/24"
    assert got["n5"] == "10.244.0.0/24"  # wrapped around to n1's released block


def test_allocate_node_cidrs_false_leaves_nodes_alone():
    c = Cluster([_node("n1")], seed=0, controllers=[IPAM], authorization=False,
                options={"allocate-node-cidrs": False}, kubelet="stand-in")
    c.run(until=2)
    assert _cidrs(c) == {"n1": None}


def test_pods_get_ips_from_their_node_cidr():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"nodeName": "n2", "containers": [{"name": "c", "image": "nginx:1.27"}]}}
    c = Cluster([_node("n1"), _node("n2"), pod], seed=0, controllers=[IPAM], authorization=False, kubelet="stand-in")
    c.run(until=5)
    assert c.get("pods", "p", "default")["status"]["podIP"] == "10.244.1.2"
