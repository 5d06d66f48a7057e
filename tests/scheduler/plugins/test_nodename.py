"""NodeName against upstream's node_name_test.go (TestNodeName).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodename/node_name_test.go
"""

from __future__ import annotations

import pytest

from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodename
from kubenotes.scheduler.testing import make_node, make_pod


@pytest.mark.parametrize("name,pod_node,node,code", [
    ("no host specified", None, "", Code.SUCCESS),
    ("host matches", "foo", "foo", Code.SUCCESS),
    ("host doesn't match", "bar", "foo", Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
])
def test_node_name(name, pod_node, node, code):
    pl = nodename.new(None, None)
    st = pl.filter(None, PodInfo(make_pod("p", node_name=pod_node)), NodeInfo(make_node(node)))
    assert st.code == code
    if code != Code.SUCCESS:
        assert st.reasons == [nodename.ERR_REASON] == ["node(s) didn't match the requested node name"]
    assert pl.name() == "NodeName"
