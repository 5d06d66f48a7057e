"""NodePorts against upstream's node_ports_test.go (TestNodePorts, TestPreFilterDisabled, TestGetContainerPorts).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeports/node_ports_test.go
"""

from __future__ import annotations

import itertools

import pytest

from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodeports
from kubenotes.scheduler.plugins.nodeports import ERR_REASON, NodePorts, get_host_ports
from kubenotes.scheduler.testing import make_node, make_pod

_ids = itertools.count()


def new_pod(host: str | None, *host_port_infos: str) -> PodInfo:
    """Upstream ``newPod(host, "PROTO/IP/PORT", ...)``: one container with those host ports."""
    ports = []
    for info in host_port_infos:
        proto, ip, port = info.split("/")
        ports.append({"containerPort": int(port), "hostIP": ip, "hostPort": int(port), "protocol": proto})
    return PodInfo(make_pod(f"p{next(_ids)}", containers=[{"name": "c", "image": "img", "ports": ports}],
                            node_name=host))


CASES = [
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], None),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], ERR_REASON),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], ERR_REASON),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], None),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], None),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], ERR_REASON),
    ("first tcp port conflict", ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
     ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], ERR_REASON),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], ERR_REASON),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
     ["TCP/127.0.0.1/8001"], ERR_REASON),
    ("second tcp port conflict to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], ERR_REASON),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"],
     ERR_REASON),
]


@pytest.mark.parametrize("name,wanted,used,reason", CASES, ids=[c[0] for c in CASES])
def test_node_ports(name, wanted, used, reason):
    pl = nodeports.new(None, None)
    state, pod = CycleState(), new_pod("m1", *wanted)
    _, st = pl.pre_filter(state, pod, [])
    assert st.is_success()
    st = pl.filter(state, pod, NodeInfo(make_node("m1"), [new_pod("m1", *used)]))
    if reason is None:
        assert st.is_success()
    else:
        assert (st.code, st.reasons) == (Code.UNSCHEDULABLE, [reason])


def test_skip_filter():
    _, st = NodePorts().pre_filter(CycleState(), PodInfo(make_pod("p")), [])
    assert st.code == Code.SKIP


def test_pre_filter_disabled():
    st = NodePorts().filter(CycleState(), PodInfo(make_pod("p")), NodeInfo(make_node("n")))
    assert st.code == Code.ERROR and "not found" in st.message()


def _pod_with_containers(*port_lists):
    cs = [{"name": f"c{i}", "image": "img", "ports": ports} for i, ports in enumerate(port_lists)]
    return make_pod(f"p{next(_ids)}", containers=cs)


def test_get_container_ports():
    tcp = lambda port, host=True: {"containerPort": port, **({"hostPort": port} if host else {}), "protocol": "TCP"}
    pod1 = _pod_with_containers([tcp(8001), tcp(8002)], [tcp(8003), tcp(8004)], [tcp(8005, host=False)])
    pod2 = _pod_with_containers([tcp(8011), tcp(8012)], [tcp(8013), tcp(8014)], [tcp(8015, host=False)])
    got = get_host_ports(pod1) + get_host_ports(pod2)
    assert got == [("", "TCP", p) for p in (8001, 8002, 8003, 8004, 8011, 8012, 8013, 8014)]


def test_sidecar_host_ports_count_but_plain_init_containers_do_not():
    pod = make_pod("p", containers=[{"name": "app", "ports": [{"containerPort": 80, "hostPort": 80}]}],
                   initContainers=[
                       {"name": "setup", "ports": [{"containerPort": 90, "hostPort": 90}]},
                       {"name": "proxy", "restartPolicy": "Always", "ports": [{"containerPort": 15001, "hostPort": 15001}]},
                   ])
    assert get_host_ports(pod) == [("", "TCP", 15001), ("", "TCP", 80)]
