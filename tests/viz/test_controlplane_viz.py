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
from kubenotes.client.components import informer_graph  # noqa: E402
from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.sim.listwatch import watch_outage  # noqa: E402
from kubenotes.sim.trace import apply_hops, component_graph  # noqa: E402
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
    g = component_graph(cluster)
    hops = apply_hops(cluster, replicaset(), until_seconds=10, graph=g)
    return cluster, g, hops


# --- the component graph ------------------------------------------------------------------


def _assert_no_overlap(g):
    pos = cp._component_layout(g)
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
    g = component_graph(c)
    assert {v for v, d in g.nodes(data=True) if d["kind"] == "controller"} == set(CONTROLLERS)
    assert len([v for v, d in g.nodes(data=True) if d["kind"] == "kubelet"]) == 9
    _assert_no_overlap(g)


def test_layout_is_fixed_and_boxes_do_not_overlap():
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller", "node-lifecycle-controller"])
    g = component_graph(c)
    pos = cp._component_layout(g)
    assert pos == cp._component_layout(component_graph(c))
    _assert_no_overlap(g)
    # the request path reads left to right on one row, etcd at its end
    xs = [pos[s][0] for s in (*cp.APISERVER_STAGES, "etcd")]
    assert xs == sorted(xs) and len({pos[s][1] for s in cp.APISERVER_STAGES}) == 1


def test_many_controllers_wrap_into_columns():
    g = nx.DiGraph()
    for i in range(16):
        g.add_node(f"c{i}", kind="controller", group="kube-controller-manager")
    pos = cp._component_layout(g)
    assert len({x for x, _ in pos.values()}) == 2  # 11 + 5: two columns keep the figure narrow


# --- one apply, hop by hop ---------------------------------------------------------------


def test_hops_table_and_figure(traced):
    _c, g, hops = traced
    t = cp.hops_table(hops, current=7, window=3)
    assert t.count("<tr>") == 1 + 3 and "background:#fff3e0" in t and ">7<" in t and ">8<" not in t
    later = cp.hops_table(hops[20:])  # a slice keeps its own step numbers
    assert later.count("<tr>") == 1 + len(hops) - 20 and "background:#fff3e0" not in later
    fig = cp.hops_figure(g, hops, 7)
    texts = [t.get_text().replace("\n", " ") for t in fig.axes[0].texts]  # two-word stages on two lines
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


def _pixels(png: bytes):
    from matplotlib.image import imread

    return imread(io.BytesIO(png))


def test_apply_panel_serves_repeats_from_its_memo(traced, monkeypatch):
    """The panel draws the picture of the run up to the slider's hop once per hop (kept when moving back)."""
    _c, g, hops = traced
    drawn = []
    real = cp._HopPictures.png
    monkeypatch.setattr(cp._HopPictures, "png", lambda self, run, t: drawn.append(len(run)) or real(self, run, t))
    panel = quiet(cp.apply_panel, g, hops, start=6)
    slider = panel.children[0].children[0]
    for k in (7, 6, 7, 6):
        quiet(setattr, slider, "value", k)
    assert drawn == [6, 7]  # 6 and 7 again come from the memo


def test_hop_pictures_are_the_full_draws_pixel_for_pixel(sample_traced):
    """The plain part drawn once, the rest on top in z-order: exactly _png(hops_figure(...)), and nothing stays."""
    import numpy as np

    g, hops = sample_traced
    pictures = cp._HopPictures(g)
    unchanging = pictures.ax.get_children()
    for k in (1, 6, len(hops)):
        title = f"Deployment default/api: step {k} of {len(hops)}"
        full = _pixels(cp._png(cp.hops_figure(g, hops, k, title=title)))
        assert np.array_equal(_pixels(pictures.png(hops[:k], title)), full), k
        assert pictures.ax.get_children() == unchanging and pictures.ax.get_title() == " "


def test_hop_pictures_survive_a_failed_draw(traced, monkeypatch):
    """A draw failing half-way leaves no artist; that picture is drawn in full, the kept pixels rebuilt, the next fast."""
    import numpy as np
    from matplotlib.legend import Legend

    _c, g, hops = traced
    pictures = cp._HopPictures(g)
    unchanging, background = len(pictures.ax.get_children()), pictures.background
    real, calls = Legend.draw, []

    def fails_once(self, renderer):  # the legend comes after the boxes and arrows: the canvas is half drawn
        calls.append(self.get_texts()[-1].get_text())
        if len(calls) == 1:
            raise RuntimeError("half-way")
        return real(self, renderer)

    fulls = {k: _pixels(cp._png(cp.hops_figure(g, hops, k, title=f"step {k}"))) for k in (6, 7)}
    monkeypatch.setattr(Legend, "draw", fails_once)
    for k, full in fulls.items():
        assert np.array_equal(_pixels(pictures.png(hops[:k], f"step {k}")), full), k
        assert len(pictures.ax.get_children()) == unchanging and pictures.ax.legend_ is None
    assert pictures.background is not background  # rebuilt after the failure
    assert calls == ["hop 6", "hop 6", "hop 7"]  # the failed draw, the full draw, the next fast draw


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


def test_outage_table_says_which():
    assert "Resumed." in cp.outage_table(watch_outage(2, 8))
    assert "410 Gone -&gt; relist." in cp.outage_table(watch_outage(9, 8))


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
    g = informer_graph()
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



# --- figure widths and hop labels (issue #26) ---------------------------------------------


@pytest.fixture(scope="module")
def sample_traced():
    """The chapter's picture: the sample cluster with every controller, and the 02.00 apply's hops."""
    from kubenotes.data import sample

    c = Cluster.from_manifests(sample("cluster"), seed=0)
    c.run(until=5)
    g = component_graph(c)
    return g, apply_hops(c, replicaset("api", 2), until_seconds=15, graph=g)


def test_chapter_graph_figures_fit_a_1000px_column(sample_traced):
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    g, hops = sample_traced
    figs = [cp.component_figure(g, title="data/cluster running: every component talks only to kube-apiserver"),
            cp.hops_figure(g, hops, title="kubectl apply -f api.yaml: every hop, numbered"),
            cp.informer_figure(["kube-apiserver", "Reflector", "DeltaFIFO", "Indexer"],
                               title="client-go's List-Watch: API server -> Reflector -> DeltaFIFO -> cache and "
                                     "handlers -> Reconcile")]
    for fig in figs:
        width, _ = inline_png_size(fig)
        assert 700 < width <= MAX_INLINE_WIDTH_PX  # was 1,320 px (1,020 px for the informer)
        plt.close(fig)


def test_hop_number_labels_do_not_overlap(sample_traced):
    g, hops = sample_traced
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = cp.hops_figure(g, hops)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    labels = [t for t in fig.axes[0].texts if t.get_text()[:1].isdigit()]
    assert len(labels) > 10
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in labels]
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            assert not a.overlaps(boxes[j]), (labels[i].get_text(), labels[j].get_text())
    plt.close(fig)


def test_apply_panel_chooses_what_is_applied_and_titles_hops_by_step(traced, monkeypatch):
    c, g, hops = traced
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
    pod_hops = apply_hops(c, pod, until_seconds=20, graph=g)
    assert 0 < len(pod_hops) < len(hops) and not any(h["from"].endswith("-controller") for h in pod_hops)
    titles, seen = [], []
    real_png, real_table = cp._HopPictures.png, cp.hops_table
    monkeypatch.setattr(cp._HopPictures, "png", lambda self, run, t: titles.append(t) or real_png(self, run, t))
    monkeypatch.setattr(cp, "hops_table", lambda run, **kw: seen.append((len(run), kw["current"])) or real_table(run, **kw))
    panel = quiet(cp.apply_panel, g, {"ReplicaSet default/hello": hops, "Pod default/solo": pod_hops}, start=6)
    menu, slider = panel.children[0].children
    assert menu.description == "applied" and list(menu.options) == ["ReplicaSet default/hello", "Pod default/solo"]
    assert slider.max == len(hops) and "kubenotes-control" in menu._dom_classes
    quiet(setattr, slider, "value", len(hops))
    quiet(setattr, menu, "value", "Pod default/solo")
    assert slider.max == len(pod_hops) and slider.value == len(pod_hops)  # the range follows the chosen apply
    assert seen[-1] == (len(pod_hops), len(pod_hops))
    assert titles[0].startswith(f"ReplicaSet default/hello: step 6 of {len(hops)}, ") and "(virtual t=" in titles[0]
