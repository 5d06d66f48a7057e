"""Calico IPAM: pools, blocks affine to nodes, borrowing.

Ported cases: ``libcalico-go/lib/ipam/randomblock_test.go`` ("Test random block generator with different
CIDRs": the IPv4 entries, every block inside the pool and the count = pool size / block size);
``ipam_test.go`` behaviours (a host claims a new block when its blocks are full; AssignIP of a given
address; ReleaseIPs frees the address for reuse; strict affinity forbids borrowing) re-expressed on the model.
"""

import ipaddress

import pytest

from kubenotes.cni.calico.ipam import (CalicoIPAM, IPAMError, IPPool, fnv1_32, random_block_generator,
                                       vxlan_tunnel_handle)


@pytest.mark.parametrize("cidr,block_size", [("10.10.0.0/24", 26), ("10.10.0.0/16", 20), ("10.10.0.0/24", 32)])
def test_random_block_generator_covers_the_pool(cidr, block_size):
    pool = IPPool(cidr=cidr, block_size=block_size)
    blocks = list(random_block_generator(pool, "testHost"))
    net = ipaddress.IPv4Network(cidr)
    assert len(blocks) == net.num_addresses // 2 ** (32 - block_size)
    assert len(set(blocks)) == len(blocks)
    assert all(b.subnet_of(net) and b.prefixlen == block_size for b in blocks)


def test_fnv1_is_go_hash_fnv_new32():
    # Go: fnv.New32().Write([]byte("foobar")).Sum32() == 0x31f0b262 (FNV-1, not FNV-1a)
    assert fnv1_32(b"foobar") == 0x31F0B262


def test_defaults_match_calico_node():
    p = IPPool()
    assert (p.cidr, p.block_size, p.ipip_mode, p.vxlan_mode, p.nat_outgoing) == ("192.168.0.0/16", 26, "Always", "Never", True)
    assert p.to_manifest()["spec"]["blockSize"] == 26


def test_validation():
    with pytest.raises(IPAMError, match="spec.blockSize"):
        IPPool(cidr="10.0.0.0/16", block_size=33)
    with pytest.raises(IPAMError, match="cannot both"):
        IPPool(ipip_mode="Always", vxlan_mode="Always")
    with pytest.raises(IPAMError, match="spec.vxlanMode"):
        IPPool(vxlan_mode="Sometimes")


def test_block_of_64_then_a_second_block():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/24")])
    ips = [ipam.auto_assign("n1", f"h{i}") for i in range(65)]
    blocks = ipam.affine_blocks("n1")
    assert len(blocks) == 2 and blocks[0].free() == 0 and blocks[1].free() == 63
    assert ips[:2] == [blocks[0].address(0), blocks[0].address(1)]  # lowest ordinal first
    assert ips[64] == blocks[1].address(0)
    assert len(set(ips)) == 65


def test_nodes_get_different_blocks_and_tunnel_address_comes_first():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/16")])
    t = ipam.auto_assign("a", vxlan_tunnel_handle("a"))
    p = ipam.auto_assign("a", "pod")
    q = ipam.auto_assign("b", "pod-b")
    ba, bb = ipam.affine_blocks("a")[0], ipam.affine_blocks("b")[0]
    assert ba.cidr != bb.cidr and t == str(ba.cidr.network_address)
    assert ipaddress.IPv4Address(p) == ipaddress.IPv4Address(t) + 1 and q in [bb.address(0)]


def test_release_and_reuse():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/24")])
    a = ipam.auto_assign("n1", "h1")
    ipam.auto_assign("n1", "h2")
    assert ipam.release_by_handle("h1") == [a]
    assert ipam.auto_assign("n1", "h3") == a
    assert ipam.release_ips("10.0.0.250") == []


def test_assign_ip_claims_its_block_and_refuses_duplicates_and_outsiders():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/24")])
    assert ipam.assign_ip("n1", "h", "10.0.0.70") == "10.0.0.70"
    assert ipam.block_for("10.0.0.70").affinity == "host:n1" and str(ipam.block_for("10.0.0.70").cidr) == "10.0.0.64/26"
    with pytest.raises(IPAMError, match="already assigned"):
        ipam.assign_ip("n1", "h2", "10.0.0.70")
    with pytest.raises(IPAMError, match="not in any enabled IPPool"):
        ipam.assign_ip("n1", "h3", "172.16.0.1")


def test_borrowing_when_the_pool_has_no_unclaimed_block():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/26")])  # one block only
    ipam.auto_assign("a", "pa")
    ip = ipam.auto_assign("b", "pb")
    assert ipam.affine_blocks("b") == [] and ipam.borrowed() == {ip: "b"}
    strict = CalicoIPAM([IPPool(cidr="10.0.0.0/26")], strict_affinity=True)
    strict.auto_assign("a", "pa")
    with pytest.raises(IPAMError, match="strict affinity"):
        strict.auto_assign("b", "pb")


def test_pool_exhausted():
    ipam = CalicoIPAM([IPPool(cidr="10.0.0.0/30", block_size=30)])
    for i in range(4):
        ipam.auto_assign("a", f"h{i}")
    with pytest.raises(IPAMError, match="full"):
        ipam.auto_assign("a", "h5")
