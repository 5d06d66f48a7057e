"""kube-apiserver's bootstrap objects: API Priority and Fairness's configuration and the default ServiceCIDR.

The expected tables are ``kubectl get flowschemas`` and ``kubectl get prioritylevelconfigurations`` of a fresh
cluster (names, priority levels, precedences, distinguishers; upstream's bootstrap/default.go, v1.29 onward).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.load import start_api_server
from kubenotes.apiserver.tables import table_for

FLOW_SCHEMAS = [  # NAME, PRIORITYLEVEL, MATCHINGPRECEDENCE, DISTINGUISHERMETHOD, MISSINGPL
    ("exempt", "exempt", 1, "<none>", "False"),
    ("probes", "exempt", 2, "<none>", "False"),
    ("system-leader-election", "leader-election", 100, "ByUser", "False"),
    ("endpoint-controller", "workload-high", 150, "ByUser", "False"),
    ("workload-leader-election", "leader-election", 200, "ByUser", "False"),
    ("system-node-high", "node-high", 400, "ByUser", "False"),
    ("system-nodes", "system", 500, "ByUser", "False"),
    ("kube-controller-manager", "workload-high", 800, "ByNamespace", "False"),
    ("kube-scheduler", "workload-high", 800, "ByNamespace", "False"),
    ("kube-system-service-accounts", "workload-high", 900, "ByNamespace", "False"),
    ("service-accounts", "workload-low", 9000, "ByUser", "False"),
    ("global-default", "global-default", 9900, "ByUser", "False"),
    ("catch-all", "catch-all", 10000, "ByUser", "False"),
]

PRIORITY_LEVELS = [  # NAME, TYPE, NOMINALCONCURRENCYSHARES, QUEUES, HANDSIZE, QUEUELENGTHLIMIT
    ("catch-all", "Limited", 5, "<none>", "<none>", "<none>"),
    ("exempt", "Exempt", "<none>", "<none>", "<none>", "<none>"),
    ("global-default", "Limited", 20, 128, 6, 50),
    ("leader-election", "Limited", 10, 16, 4, 50),
    ("node-high", "Limited", 40, 64, 6, 50),
    ("system", "Limited", 30, 64, 6, 50),
    ("workload-high", "Limited", 40, 128, 6, 50),
    ("workload-low", "Limited", 100, 128, 6, 50),
]


@pytest.fixture(scope="module")
def server():
    return start_api_server()


def _rows(server, resource):
    return [r["cells"] for r in table_for(resource, server.list(resource), server.now())["rows"]]


def test_flow_schemas_as_a_fresh_cluster_lists_them(server):
    rows = sorted(_rows(server, "flowschemas"), key=lambda c: (c[2], c[0]))
    assert [(c[0], c[1], c[2], c[3], c[5]) for c in rows] == sorted(FLOW_SCHEMAS, key=lambda r: (r[2], r[0]))


def test_priority_levels_as_a_fresh_cluster_lists_them(server):
    rows = sorted(_rows(server, "prioritylevelconfigurations"))
    assert [tuple(c[:6]) for c in rows] == PRIORITY_LEVELS


def test_lendable_percent_and_auto_update_annotation(server):
    lendable = {p["metadata"]["name"]: (p["spec"].get("limited") or p["spec"].get("exempt"))["lendablePercent"]
                for p in server.list("prioritylevelconfigurations")}
    assert lendable == {"exempt": 0, "catch-all": 0, "system": 33, "node-high": 25, "leader-election": 0,
                        "workload-high": 50, "workload-low": 90, "global-default": 50}
    for o in server.list("prioritylevelconfigurations") + server.list("flowschemas"):
        assert o["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}


def test_probes_are_exempt_for_everyone_and_nodes_report_on_node_high(server):
    fs = {f["metadata"]["name"]: f for f in server.list("flowschemas")}
    probes = fs["probes"]["spec"]["rules"][0]
    assert probes["nonResourceRules"] == [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}]
    assert {s["group"]["name"] for s in probes["subjects"]} == {"system:unauthenticated", "system:authenticated"}
    node_high = fs["system-node-high"]["spec"]["rules"][0]["resourceRules"]
    assert [(r["apiGroups"], r["resources"]) for r in node_high] == [([""], ["nodes", "nodes/status"]),
                                                                    (["coordination.k8s.io"], ["leases"])]


def test_default_service_cidr_is_ready(server):
    (cidr,) = server.list("servicecidrs")
    assert cidr["metadata"]["name"] == "kubernetes" and cidr["spec"]["cidrs"] == ["10.96.0.0/12"]
    (ready,) = cidr["status"]["conditions"]
    assert (ready["type"], ready["status"], ready["message"]) == ("Ready", "True",
                                                                   "Kubernetes default Service CIDR is ready")
    assert _rows(server, "servicecidrs")[0][:2] == ["kubernetes", "10.96.0.0/12"]
