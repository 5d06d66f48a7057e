"""Chapter 02's graph, hops, tables and widgets: what they show is what the running model did.

The resume-or-relist boundary of :func:`watch_outage` follows upstream's watch
cache rule (``staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go``,
``getAllEventsSinceLocked``: a resourceVersion older than the oldest event
kept is "too old"), as ``TestWatchCacheBasic``/``TestEvents`` in
``watch_cache_test.go`` exercise it; the reflector's relist on 410 is the
behaviour ``TestReflectorListAndWatchWithErrors``-style cases check in
client-go's ``reflector_test.go``.
"""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import pytest  # noqa: E402

from kubenotes.apiserver.request import UserInfo  # noqa: E402
from kubenotes.apiserver.server import APIServer  # noqa: E402
from kubenotes.apiserver.status import ApiError  # noqa: E402
from kubenotes.client import SharedInformerFactory  # noqa: E402
from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.viz import controlplane as cp  # noqa: E402

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def replicaset(name: str = "hello", replicas: int = 2) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.27",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def quiet(fn, *args, **kwargs):
    """Build a widget outside Jupyter, where its Output would print to stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


@pytest.fixture()
def cluster():
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller"])
    c.run(until=1)
    return c


@pytest.fixture()
def traced(cluster):
    g = cp.component_graph(cluster)
    hops = cp.apply_hops(cluster, replicaset(), until_seconds=10, graph=g)
    return cluster, g, hops


# --- the component graph ------------------------------------------------------------------


def test_graph_has_every_running_component(cluster):
    g = cp.component_graph(cluster)
    assert set(cp.APISERVER_STAGES) | {"kubectl", "etcd", "watch cache", "kube-scheduler"} <= set(g)
    assert g.nodes["replicaset-controller"]["group"] == "kube-controller-manager"
    assert {v for v, d in g.nodes(data=True) if d["kind"] == "kubelet"} == {"kubelet/n1", "kubelet/n2"}
    # the handler chain, in upstream's order, ends in etcd
    chain = [*cp.APISERVER_STAGES, "etcd"]
    assert all(g.has_edge(a, b) for a, b in zip(chain, chain[1:]))
    assert nx.shortest_path(g, "kubectl", "etcd") == ["kubectl", *chain]
    flows = {(u, v): d["flow"] for u, v, d in g.edges(data=True)}
    assert flows["kube-scheduler", "authentication"] == "bind"
    assert flows["kubelet/n1", "authentication"] == "status"
    assert flows["replicaset-controller", "authentication"] == "write"
    assert flows["watch cache", "kubelet/n2"] == flows["watch cache", "replicaset-controller"] == "watch"


def test_graph_without_scheduler_or_controllers():
    c = Cluster.from_manifests(NODES, seed=0, controllers=[], scheduler=False, kubelet="stand-in")
    g = cp.component_graph(c)
    assert "kube-scheduler" not in g and not [v for v, d in g.nodes(data=True) if d["kind"] == "controller"]
    # the kubelet model always brings the two controllers every pod's token volume needs
    c = Cluster.from_manifests(NODES, seed=0, controllers=[], scheduler=False)
    assert sorted(v for v, d in cp.component_graph(c).nodes(data=True) if d["kind"] == "controller") == [
        "root-ca-certificate-publisher-controller", "serviceaccount-controller"]


def _assert_no_overlap(g):
    pos = cp.component_layout(g)
    assert set(pos) == set(g)
    boxes = []
    for v, (x, y) in pos.items():
        hw, hh = cp._HALF[g.nodes[v]["kind"]]
        boxes.append((v, x - hw, y - hh, x + hw, y + hh))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
            assert apart, f"{a[0]} overlaps {b[0]}"


def test_sample_cluster_graph_with_every_controller_fits():
    from kubenotes.controllers import CONTROLLERS
    from kubenotes.data import sample

    c = Cluster.from_manifests(sample("cluster"), seed=0)
    g = cp.component_graph(c)
    assert {v for v, d in g.nodes(data=True) if d["kind"] == "controller"} == set(CONTROLLERS)
    assert len([v for v, d in g.nodes(data=True) if d["kind"] == "kubelet"]) == 9
    _assert_no_overlap(g)


def test_layout_is_fixed_and_boxes_do_not_overlap():
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller", "node-lifecycle-controller"])
    g = cp.component_graph(c)
    pos = cp.component_layout(g)
    assert pos == cp.component_layout(cp.component_graph(c))
    _assert_no_overlap(g)
    # the request path reads left to right on one row, etcd at its end
    xs = [pos[s][0] for s in (*cp.APISERVER_STAGES, "etcd")]
    assert xs == sorted(xs) and len({pos[s][1] for s in cp.APISERVER_STAGES}) == 1


def test_many_controllers_wrap_into_columns():
    g = nx.DiGraph()
    for i in range(16):
        g.add_node(f"c{i}", kind="controller", group="kube-controller-manager")
    pos = cp.component_layout(g)
    assert len({x for x, _ in pos.values()}) == 3  # 7 + 7 + 2


# --- one apply, hop by hop ---------------------------------------------------------------


def test_apply_hops_follow_the_request_path_then_the_watchers(traced):
    cluster, g, hops = traced
    assert [h["step"] for h in hops] == list(range(1, len(hops) + 1))
    assert all(h["from"] in g and h["to"] in g for h in hops)
    times = [h["time"] for h in hops]
    assert times == sorted(times)
    # kubectl's request, stage by stage
    assert [(h["from"], h["to"]) for h in hops[:6]] == [
        ("kubectl", "authentication"), ("authentication", "authorization"), ("authorization", "mutating admission"),
        ("mutating admission", "validation"), ("validation", "validating admission"),
        ("validating admission", "etcd")]
    assert hops[0]["what"] == "create replicasets default/hello (as kubernetes-admin)"
    assert "/registry/replicasets/default/hello" in hops[5]["what"]
    # then the watch wakes the ReplicaSet controller, which creates the pods
    assert hops[6]["from"] == "etcd" and hops[6]["to"] == "replicaset-controller"
    assert hops[6]["what"].startswith("watch: ADDED ReplicaSet default/hello ")
    order = [(h["from"], h["to"]) for h in hops]
    first_create = order.index(("replicaset-controller", "authentication"))
    first_bind = next(i for i, h in enumerate(hops) if h["what"].startswith("create pods/binding"))
    first_kubelet = next(i for i, h in enumerate(hops) if h["from"].startswith("kubelet/"))
    assert first_create < first_bind < first_kubelet
    assert hops[first_bind - 1]["to"] == "kube-scheduler" and hops[first_bind - 1]["what"].startswith("watch: ADDED Pod")
    assert hops[first_kubelet - 1]["from"] == "etcd" and hops[first_kubelet - 1]["what"].startswith("watch: ADDED Pod")
    binds = [h for h in hops if h["what"].startswith("create pods/binding")]
    assert len(binds) == 2 and all(h["from"] == "kube-scheduler" for h in binds)
    # each bound pod is reported Running by the kubelet of its node
    pods = cluster.list("pods", "default")
    nodes = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods}
    running = [h for h in hops if h["from"].startswith("kubelet/") and "Running" in h["what"]]
    assert sorted(h["from"] for h in running) == sorted(f"kubelet/{n}" for n in nodes.values())


def test_apply_hops_resource_versions_increase_and_match_the_store(traced):
    cluster, _g, hops = traced
    import re

    rvs = [int(re.search(r"resourceVersion (\d+)", h["what"]).group(1)) for h in hops if h["to"] == "etcd"]
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
    rs = cluster.get("replicasets", "hello", "default")
    assert int(rs["metadata"]["resourceVersion"]) == max(
        rv for h, rv in zip([h for h in hops if h["to"] == "etcd"], rvs) if "replicasets/default/hello" in h["what"])


def test_apply_hops_records_requests_and_restores_tracing(traced):
    cluster, _g, hops = traced
    assert cluster.server.request_trace is None  # tracing was off before, and is off again
    assert hops[0]["request"] is not None and all(h["request"] is None for h in hops if h["from"] == "etcd")


def test_apply_hops_keeps_tracing_on_when_it_was_on(cluster):
    trace = cluster.server.trace_requests()
    hops = cp.apply_hops(cluster, replicaset("other", 1), until_seconds=4)
    assert cluster.server.request_trace is trace
    rec = trace[hops[0]["request"]]
    assert (rec["verb"], rec["resource"], rec["name"]) == ("create", "replicasets", "other")


def test_apply_hops_without_status_updates(cluster):
    hops = cp.apply_hops(cluster, replicaset(), until_seconds=10, status_updates=False)
    assert not [h for h in hops if "replicasets/status" in h["what"]]
    assert [h for h in hops if "pods/status" in h["what"]]  # the kubelet is not a controller: kept


def test_apply_hops_ignores_unrelated_writes(cluster):
    hops = cp.apply_hops(cluster, replicaset(), until_seconds=25)  # leases renew every 10 s meanwhile
    assert not [h for h in hops if "leases" in h["what"] or "Lease" in h["what"]]


def test_refused_apply_raises_and_leaves_no_hops(cluster):
    bad = replicaset()
    bad["metadata"]["namespace"] = "missing"
    with pytest.raises(ApiError):
        cp.apply_hops(cluster, bad, until_seconds=5)
    assert cluster.server.request_trace is None


def test_hops_table_and_figure(traced):
    _c, g, hops = traced
    t = cp.hops_table(hops, current=7, window=3)
    assert t.count("<tr>") == 1 + 3 and "background:#fff3e0" in t and ">7<" in t and ">8<" not in t
    later = cp.hops_table(hops[20:])  # a slice keeps its own step numbers
    assert later.count("<tr>") == 1 + len(hops) - 20 and "background:#fff3e0" not in later
    fig = cp.hops_figure(g, hops, 7)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "1" in texts and "7" in texts  # numbered hop arrows
    assert set(cp.APISERVER_STAGES) <= set(texts) and "kube-apiserver" in texts
    plt.close(fig)


def test_draw_highlights_current_hop_in_its_own_colour():
    g = nx.DiGraph()
    g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    g.add_node("authentication", kind="stage", group="kube-apiserver", label="authentication")
    g.add_edge("kubectl", "authentication", flow="write")
    fig = cp.component_figure(g, [{"step": 1, "from": "kubectl", "to": "authentication"}])
    from matplotlib.colors import to_hex

    colours = {to_hex(p.get_edgecolor()) for p in fig.axes[0].patches}
    assert to_hex(cp._NOW) in colours
    plt.close(fig)


def test_apply_panel_slider_changes_the_hop(traced, monkeypatch):
    _c, g, hops = traced
    seen = []
    real = cp.hops_table
    monkeypatch.setattr(cp, "hops_table", lambda h, **kw: seen.append(kw["current"]) or real(h, **kw))
    panel = quiet(cp.apply_panel, g, hops, start=6)
    slider = panel.children[0].children[0]
    assert slider.value == 6 and slider.max == len(hops) and "kubenotes-control" in slider._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes
    quiet(setattr, slider, "value", 9)
    assert seen == [6, 9]


# --- List-Watch tables -------------------------------------------------------------------


def test_watch_stream_table_shows_a_pod_lifecycle(cluster):
    w = cluster.client.watch("pods", "default", resource_version=str(cluster.server.store.revision))
    cluster.apply(replicaset("one", 1))
    cluster.run(until=8)
    events = w.pop_all()
    rvs = [int(e.resource_version) for e in events]
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
    t = cp.watch_stream_table(events)
    assert t.count("<tr>") == 1 + len(events)
    assert "ADDED" in t and "phase=Pending" in t and "phase=Running" in t and "nodeName=n" in t


def test_request_trace_table_of_a_forbidden_request(cluster):
    trace = cluster.server.trace_requests()
    nobody = cluster.server.client("kubectl", UserInfo("jane", groups=("system:authenticated",)))
    with pytest.raises(ApiError) as err:
        nobody.create("configmaps", {"metadata": {"name": "x"}}, "default")
    assert err.value.code == 403
    t = cp.request_trace_table(trace[-1])
    assert "-&gt; 403" in t and "authentication" in t and "configmaps is forbidden" in t
    assert "create configmaps in namespace default" in t


def test_reflector_log_and_cache_vs_store():
    api = APIServer(seed=0)
    c = api.client()
    for n in ("a", "b"):
        c.create("configmaps", {"metadata": {"name": n}, "data": {"v": "0"}}, "default")
    f = SharedInformerFactory(api.client("kube-controller-manager"), api.env)
    inf = f.informer_for("configmaps")
    f.start()
    api.env.run(until=1)
    assert cp.cache_vs_store(inf, api, "configmaps").count("in sync") == 2
    c.patch("configmaps", "a", {"data": {"v": "1"}}, "default")
    c.delete("configmaps", "b", "default")
    c.create("configmaps", {"metadata": {"name": "c"}}, "default")
    t = cp.cache_vs_store(inf, api, "configmaps")  # before the informer has processed anything
    assert "stale (cache behind)" in t and "deleted, cache still has it" in t and "not yet in cache" in t
    api.env.run(until=2)
    assert cp.cache_vs_store(inf, api, "configmaps").count("in sync") == 2
    log = cp.reflector_log_table(inf.reflector)
    assert "LIST" in log and "from resourceVersion" in log


# --- resume or relist --------------------------------------------------------------------


@pytest.mark.parametrize("capacity", [1, 5, 10])
def test_watch_outage_boundary(capacity):
    """Every missed event still in the history: resume; one more write: 410 and a relist."""
    kept = cp.watch_outage(capacity, history_capacity=capacity)
    lost = cp.watch_outage(capacity + 1, history_capacity=capacity)
    assert not kept["relisted"] and kept["lists"] == 1 and kept["watches"] >= 2
    assert "WATCH 410 Gone" not in [a for _, a, _ in kept["log"]]
    assert (2.0, "WATCH", f"from resourceVersion {kept['last_seen']}") in [(t, a, d.split(",")[0])
                                                                           for t, a, d in kept["log"]]
    assert lost["relisted"] and lost["lists"] == 2
    assert [a for _, a, _ in lost["log"]].count("WATCH 410 Gone") == 1
    gone = next(d for _, a, d in lost["log"] if a == "WATCH 410 Gone")
    assert gone.startswith(f"too old resource version: {lost['last_seen']} (")
    # either way the cache ends with the last write
    assert kept["cache"] == {"version": str(capacity)} and lost["cache"] == {"version": str(capacity + 1)}


def test_watch_outage_rejects_bad_arguments():
    with pytest.raises(ValueError):
        cp.watch_outage(-1)
    with pytest.raises(ValueError):
        cp.watch_outage(1, history_capacity=0)


def test_outage_table_says_which():
    assert "Resumed." in cp.outage_table(cp.watch_outage(2, 8))
    assert "410 Gone -&gt; relist." in cp.outage_table(cp.watch_outage(9, 8))


def test_outage_panel_first_slider_changes_the_verdict(monkeypatch):
    seen = []
    real = cp.outage_table
    monkeypatch.setattr(cp, "outage_table", lambda r: seen.append(r["relisted"]) or real(r))
    panel = quiet(cp.outage_panel, 3, 5)
    first = panel.children[0].children[0]
    assert first.description == "writes while down" and "kubenotes-control" in first._dom_classes
    quiet(setattr, first, "value", 6)
    assert seen == [False, True]


# --- inside an informer, and RBAC's answers ----------------------------------------------


def test_informer_graph_follows_client_go():
    g = cp.informer_graph()
    assert nx.shortest_path(g, "kube-apiserver", "Reconcile") == ["kube-apiserver", "Reflector", "DeltaFIFO", "Indexer",
                                                                    "Lister", "Reconcile"]
    assert g.has_edge("Reconcile", "kube-apiserver") and not g.has_edge("Reconcile", "Indexer")  # writes go to the API
    assert not any(v == "kube-apiserver" for _, v in g.out_edges("Lister"))  # reads never do
    fig = cp.informer_figure(["Reflector", "DeltaFIFO"])
    from matplotlib.colors import to_hex

    hot = [p for p in fig.axes[0].patches if to_hex(p.get_edgecolor()) == to_hex(cp._NOW)]
    assert len(hot) == 3  # two boxes and the arrow between them
    plt.close(fig)


def test_can_i_table_with_the_view_role(cluster):
    from kubenotes.apiserver.rbac import RBACAuthorizer

    cluster.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "viewer-view", "namespace": "default"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": "default"}]})
    user = UserInfo("system:serviceaccount:default:viewer",
                    groups=("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"))
    t = cp.can_i_table(RBACAuthorizer(cluster.server), user, ["pods", "secrets"], verbs=("get", "create"))
    rows = t.split("<tr>")[2:]
    assert rows[0].count("✓") == 1 and rows[0].count("✗") == 1  # pods: get yes, create no
    assert rows[1].count("✓") == 0 and rows[1].count("✗") == 2  # secrets: neither


def test_apply_hops_on_a_bare_request_path():
    """AlwaysAllow, no admission, no validation: the stages are still passed, and say so."""
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller"], authorization=False,
                               admission=False, validation=False)
    c.run(until=1)
    hops = cp.apply_hops(c, replicaset("bare", 1), until_seconds=5)
    assert [h["what"] for h in hops[2:5]] == ["authorized: AlwaysAllow", "mutating admission: no plugin enabled",
                                              "validation: not enabled"]
    assert hops[5]["what"].startswith("validating admission: no plugin enabled; stored /registry/replicasets/default/bare")
    assert any(h["what"].startswith("as system:serviceaccount:kube-system:replicaset-controller: AlwaysAllow;")
               for h in hops)
