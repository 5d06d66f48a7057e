"""The kubelet's API on :10250 (kubenotes.kubelet.server): authorization attributes, paths, and kubectl's hops.

Ported cases:

* ``test_request_attributes_follow_auth_go``: pkg/kubelet/server/auth.go GetRequestAttributes (its table of
  path patterns: stats, metrics, logs, checkpoint, everything else proxy; with KubeletFineGrainedAuthz pods,
  runningpods, healthz and configz first, then proxy) and server_test.go TestAuthFilters (the paths exec,
  containerLogs, portForward and run are nodes/proxy; the HTTP method gives the verb);
* ``test_paths_the_api_server_builds``: pkg/registry/core/pod/strategy_test.go TestCheckLogLocation and
  TestPortForwardLocation / streamParams (the query of an exec: command per word, input, output, tty).

The hop chain is the model's own: the API server's trace, the kubelet model's container records.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.request import UserInfo
from kubenotes.errors import KubenotesError
from kubenotes.kubelet import server as ks
from kubenotes.sim.scenarios import simulate_pod_start


@pytest.mark.parametrize("method, path, fine, expected", [
    ("GET", "/stats/summary", True, ["stats"]),
    ("GET", "/stats", True, ["stats"]),
    ("GET", "/metrics", True, ["metrics"]),
    ("GET", "/metrics/resource", True, ["metrics"]),
    ("GET", "/metrics/cadvisor", True, ["metrics"]),
    ("GET", "/logs/kubelet.log", True, ["log"]),
    ("POST", "/checkpoint/default/web/web", True, ["checkpoint"]),
    ("GET", "/containerLogs/default/web/web", True, ["proxy"]),
    ("POST", "/exec/default/web/web", True, ["proxy"]),
    ("GET", "/exec/default/web/web", True, ["proxy"]),
    ("POST", "/portForward/default/web", True, ["proxy"]),
    ("POST", "/run/default/web/web", True, ["proxy"]),
    ("GET", "/pods", True, ["pods", "proxy"]),
    ("GET", "/pods", False, ["proxy"]),
    ("GET", "/runningpods/", True, ["pods", "proxy"]),
    ("GET", "/healthz", True, ["healthz", "proxy"]),
    ("GET", "/healthz/ping", True, ["healthz", "proxy"]),
    ("GET", "/configz", True, ["configz", "proxy"]),
    ("GET", "/statsx", True, ["proxy"]),           # isSubpath: a prefix is not enough
    ("GET", "/podsx", True, ["proxy"]),
])
def test_request_attributes_follow_auth_go(method, path, fine, expected):
    attrs = ks.request_attributes(method, path, "worker-1", fine_grained=fine)
    assert [a["subresource"] for a in attrs] == expected
    assert {(a["resource"], a["name"]) for a in attrs} == {("nodes", "worker-1")}


@pytest.mark.parametrize("method, verb", [("GET", "get"), ("POST", "create"), ("PUT", "update"),
                                          ("PATCH", "patch"), ("DELETE", "delete"), ("post", "create")])
def test_the_http_method_gives_the_verb(method, verb):
    assert ks.request_attributes(method, "/exec/a/b/c", "n")[0]["verb"] == verb


def test_bad_input_gets_one_line():
    with pytest.raises(KubenotesError, match="HTTP method 'HEAD' has no verb"):
        ks.request_attributes("HEAD", "/pods", "n")
    with pytest.raises(KubenotesError, match="must start with /"):
        ks.request_attributes("GET", "pods", "n")
    with pytest.raises(KubenotesError, match="container is empty"):
        ks.container_logs_path("default", "web", "")
    with pytest.raises(KubenotesError, match="a command is required"):
        ks.exec_path("default", "web", "web", [])


def test_paths_the_api_server_builds():
    assert ks.container_logs_path("ns", "p", "c") == "/containerLogs/ns/p/c"
    assert ks.container_logs_path("ns", "p", "c", {"previous": True, "limitBytes": 5, "follow": False}) == \
        "/containerLogs/ns/p/c?limitBytes=5&previous=true"
    assert ks.exec_path("ns", "p", "c", ["ls", "-l"], stdin=False, tty=False) == \
        "/exec/ns/p/c?command=ls&command=-l&error=1&output=1"
    assert ks.exec_path("ns", "p", "c", ["sh"]) == "/exec/ns/p/c?command=sh&input=1&output=1&tty=1"
    assert ks.port_forward_path("ns", "p") == "/portForward/ns/p"
    assert ks.KUBELET_PORT == 10250 and ks.SSH_TUNNEL_FLAGS == ("--ssh-user", "--ssh-keyfile")


@pytest.fixture(scope="module")
def run():
    return simulate_pod_start(until_seconds=15)


def test_logs_reach_the_container_record_the_pod_status_names(run):
    hops = ks.node_api_hops(run.cluster.server, run.kubelet, "logs", "default", "web", "web")
    assert [h["to"] for h in hops] == ["kube-apiserver", "kubelet :10250", "container runtime (CRI)", "container"]
    assert all(h["modelled"] for h in hops)
    assert hops[0]["authorized as"] == "get pods/log" and hops[0]["record"].startswith("authorization: Allow")
    assert hops[1]["request"] == "GET https://worker-1:10250/containerLogs/default/web/web"
    assert hops[1]["authorized as"] == "get nodes/proxy"
    cid = run.pod["status"]["containerStatuses"][0]["containerID"].split("://")[1]
    assert cid[:13] in hops[2]["request"]
    assert hops[2]["record"] == f"log_path {run.kubelet.runtime.containers[cid].log_path}"
    assert hops[2]["record"].endswith(f"default_web_{run.uid}/web/0.log")


@pytest.mark.parametrize("command, sub, kubelet_path, cri", [
    ("exec", "exec", "/exec/default/web/web?command=sh&input=1&output=1&tty=1", "Exec {container_id: "),
    ("port-forward", "portforward", "/portForward/default/web", "PortForward {pod_sandbox_id: "),
])
def test_streams_stop_at_the_api_server_and_say_so(run, command, sub, kubelet_path, cri):
    hops = ks.node_api_hops(run.cluster.server, run.kubelet, command, "default", "web")
    assert hops[0]["authorized as"] == f"create pods/{sub}" and hops[0]["modelled"]
    assert "runs no container processes" in hops[0]["record"]
    assert [h["modelled"] for h in hops[1:]] == [False] * 4
    assert hops[1]["request"].startswith(f"POST https://worker-1:10250{kubelet_path} ")
    assert hops[1]["authorized as"] == "create nodes/proxy"
    assert hops[2]["request"].startswith(cri) and hops[2]["request"].endswith("→ {url}")
    assert all(h["record"].startswith("not modelled") for h in hops[1:])


def test_a_forbidden_user_ends_the_chain_at_the_api_server(run):
    jane = UserInfo("jane", groups=("system:authenticated",))
    hops = ks.node_api_hops(run.cluster.server, run.kubelet, "exec", "default", "web", "web", user=jane)
    assert len(hops) == 1 and 'answered 403: pods "web" is forbidden: User "jane" cannot create resource ' \
                              '"pods/exec"' in hops[0]["record"]


def test_top_names_what_the_model_lacks_and_the_summary_it_has(run):
    hops = ks.node_api_hops(run.cluster.server, run.kubelet, "top", "default", "web")
    assert [h["modelled"] for h in hops] == [False, False, False, True]
    assert hops[2]["authorized as"] == "get nodes/metrics" and "(get nodes/stats;" in hops[3]["record"]
    assert "pod web working set 0 bytes" in hops[3]["record"]


def test_unknown_command_or_pod(run):
    with pytest.raises(KubenotesError, match="unknown command 'attach'"):
        ks.node_api_hops(run.cluster.server, run.kubelet, "attach", "default", "web")
    with pytest.raises(KubenotesError, match="pod default/nope not found"):
        ks.node_api_hops(run.cluster.server, run.kubelet, "logs", "default", "nope")
