"""NodeUnschedulable against upstream's node_unschedulable_test.go (TestNodeUnschedulable).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go
"""

from __future__ import annotations

import pytest

from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodeunschedulable
from kubenotes.scheduler.testing import make_node, make_pod

TOLERATE = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


@pytest.mark.parametrize("name,tolerations,unschedulable,code", [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", None, True,
     Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ("Schedule pod to normal node", None, False, Code.SUCCESS),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)", TOLERATE, True,
     Code.SUCCESS),
])
def test_node_unschedulable(name, tolerations, unschedulable, code):
    pl = nodeunschedulable.new(None, None)
    extra = {"tolerations": tolerations} if tolerations else {}
    st = pl.filter(None, PodInfo(make_pod("p", **extra)), NodeInfo(make_node("n", unschedulable=unschedulable)))
    assert st.code == code
    if code != Code.SUCCESS:
        assert st.reasons == ["node(s) were unschedulable"]


def test_toleration_for_another_effect_does_not_help():
    pod = make_pod("p", tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                      "effect": "NoExecute"}])
    st = nodeunschedulable.NodeUnschedulable().filter(None, PodInfo(pod), NodeInfo(make_node("n", unschedulable=True)))
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_constants():
    assert nodeunschedulable.ERR_REASON_UNKNOWN_CONDITION == "node(s) had unknown conditions"
    assert nodeunschedulable.NodeUnschedulable().name() == "NodeUnschedulable"
