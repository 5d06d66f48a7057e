"""Chapter 05.00's kubelet views: the pod start timeline, the status history, restarts, static pods, PLEG.

The scenarios run the kubelet model end to end; the expectations are upstream's, ported from:

* the start order (sandbox, the init container to completion, then the app container; each start is
  pull, create, start): ``pkg/kubelet/kuberuntime/kuberuntime_manager_test.go`` ``TestSyncPod`` and
  ``TestComputePodActionsWithInitContainers`` ("initialization in progress; do nothing",
  "Start the next init container", "initialization completed; start all containers");
* readiness after ``successThreshold`` successes and liveness after ``failureThreshold`` failures:
  ``pkg/kubelet/prober/worker_test.go`` ``TestSuccessThreshold`` and ``TestFailureThreshold``, and
  ``TestInitialDelay`` (no probe before ``initialDelaySeconds``);
* the liveness kill and restart: ``TestComputePodActions`` ("Kill and recreate the container if the
  liveness check has failed"; "don't restart containers if RestartPolicy == Never");
* the CrashLoopBackOff 10 s, 20 s, 40 s after the exit, the first restart at once:
  ``kuberuntime_manager_test.go`` ``TestSyncPodBackoff``;
* restart policies against exit codes: ``pkg/kubelet/kubelet_pods_test.go`` ``TestGetPhase``
  (``Succeeded``/``Failed`` for ``Never``/``OnFailure``) via ``TestComputePodActions``
  ("restart exited containers if RestartPolicy == OnFailure and exit code != 0");
* static pods: ``pkg/kubelet/config/file_test.go`` ``TestReadPodsFromFileExistAlready`` (the name
  ``<name>-<node>``, the config annotations) and ``config_test.go`` ``TestNewPodAddedUpdatedRemoved``
  (an edited manifest is a new pod: REMOVE and ADD);
* the PLEG curve's 110-pod budget is the model's own (:func:`kubenotes.kubelet.pleg.relist_seconds`).
"""

from __future__ import annotations

import contextlib
import io

import networkx as nx
import pytest
from matplotlib.figure import Figure

from kubenotes.sim import scenarios as sc
from kubenotes.sim import timelines as st
from kubenotes.viz import kubelet as vk


# ----------------------------------------------------------------------------- the pod start
def test_timeline_rows_are_sorted_and_can_be_cut():
    run = sc.simulate_pod_start()
    rows = st.start_timeline(run)
    assert [r["time"] for r in rows] == sorted(r["time"] for r in rows)
    cut = st.start_timeline(run, until_seconds=5)
    assert cut and all(r["time"] <= 5 for r in cut) and len(cut) < len(rows)
    assert {r["source"] for r in rows} == {"volume", "CRI", "event", "probe", "status"}
    # SyncPod's order: the volumes are mounted before the sandbox is created
    first = {src: next(r["time"] for r in rows if r["source"] == src) for src in ("volume", "CRI")}
    assert first["volume"] < first["CRI"]
    assert "RunPodSandbox" in vk.start_timeline_table(rows) and "color:#1565c0" in vk.start_timeline_table(rows)


def test_status_history_shows_the_phases_and_conditions_in_order():
    history = st.status_history(sc.simulate_pod_start())
    first, last = history[0], history[-1]
    assert first["phase"] == "Pending" and first["containers"] == {"init-db": "waiting: PodInitializing",
                                                                   "web": "waiting: PodInitializing"}
    assert first["conditions"]["PodScheduled"] == "True" and first["conditions"]["Initialized"] == "False"
    initialized = next(h["time"] for h in history if h["conditions"]["Initialized"] == "True")
    running = next(h["time"] for h in history if h["phase"] == "Running")
    ready = next(h["time"] for h in history if h["conditions"]["Ready"] == "True")
    assert initialized < running < ready
    assert last["containers"]["init-db"] == "terminated: Completed exitCode=0"
    assert last["ready"] == {"init-db": True, "web": True}
    table = vk.status_history_table(history)
    assert "PodInitializing" in table and "Ready=T" in table


def test_start_figure_has_a_lane_per_container():
    fig = vk.start_timeline_figure(sc.simulate_pod_start())
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["sandbox", "init-db", "web", "probes", "Ready"]


# ----------------------------------------------------------------------------- restarts
def test_restart_views_and_panel():
    run = sc.simulate_restarts(cause="exits with code 1")
    fig = vk.restarts_figure(run)
    assert "CrashLoopBackOff" in fig.axes[0].get_title()
    assert "back-off" in vk.restart_table(st.restart_history(run))
    table = vk.kubelet_events_table(run, ["BackOff"], limit=1)
    assert table.count("<tr>") == 2 and "color:#c62828" in table
    other = vk.restarts_figure(sc.simulate_restarts(failure_threshold=1))
    assert other.axes[0].get_title() != vk.restarts_figure(sc.simulate_restarts()).axes[0].get_title()
    with contextlib.redirect_stdout(io.StringIO()):
        panel = vk.restarts_panel()
    first = panel.children[0].children[0]
    assert first.description == "failureThreshold" and first.value == 3
    assert "kubenotes-control" in first._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes


# ----------------------------------------------------------------------------- static pods
def test_static_pod_and_mirror_pod_fields():
    table = vk.static_pod_table()
    assert "etcd-worker-1" in table and "kubernetes.io/config.mirror" in table and "Node/worker-1" in table
    broken = vk.static_pod_table({"etcd.yaml": st.STATIC_MANIFEST, "bad.yaml": "kind: ["})
    assert "couldn&#x27;t parse as pod" in broken


def test_static_pod_merges_add_once_and_replace_on_edit():
    edited = st.STATIC_MANIFEST.replace("3.6.4-0", "3.6.5-0")
    merges = st.static_pod_merges([{"etcd.yaml": st.STATIC_MANIFEST}, {"etcd.yaml": st.STATIC_MANIFEST},
                                   {"etcd.yaml": edited}, {}])
    assert [(m["time"], m["op"]) for m in merges] == [(0, "ADD"), (40, "REMOVE"), (40, "ADD"), (60, "REMOVE")]
    assert merges[0]["pods"] == ["etcd-worker-1"] and merges[1]["uids"] == merges[0]["uids"]
    assert merges[2]["uids"] != merges[1]["uids"]


# ----------------------------------------------------------------------------- PLEG and the graph
def test_pleg_figure_marks_the_110_pod_budget_and_the_panel_changes_with_pods():
    title = vk.pleg_cost_figure(110, 2, 100).axes[0].get_title()
    assert "a relist takes 1.00 s" in title and "at most 110 pods" in title
    assert vk.pleg_cost_figure(200, 2, 100).axes[0].get_title() != title
    assert "at most" not in vk.pleg_cost_figure(110, 2, 50).axes[0].get_title()
    with contextlib.redirect_stdout(io.StringIO()):
        panel = vk.pleg_panel()
    assert panel.children[0].children[0].description == "pods"


def test_kubelet_graph_connects_every_source_to_the_runtime():
    g = vk.kubelet_graph()
    sources = [n for n, d in g.nodes(data=True) if d["kind"] == "source"]
    assert len(sources) == 3
    assert all(nx.has_path(g, s, "containerd + runc") for s in sources)
    assert set(g.predecessors("syncLoop")) == {"config: podStorage.merge", "PLEG relist (1s)", "prober manager"}
    assert isinstance(vk.kubelet_graph_figure(g, highlight=["syncLoop"]), Figure)


def test_the_kubelet_runs_a_static_pod_and_keeps_its_mirror_pod():
    run = sc.simulate_static_pod(delete_mirror_at_seconds=10, edit_at_seconds=30, until_seconds=60)
    writes = [(a.component, a.verb, round(a.time)) for a in run.cluster.server.audit_log
              if a.kind == "Pod" and a.name == "etcd-worker-1" and a.verb != "update"]
    assert writes == [("kubelet/worker-1", "create", 0), ("kubectl", "delete", 10), ("kubelet/worker-1", "delete", 10),
                      ("kubelet/worker-1", "create", 10), ("kubelet/worker-1", "delete", 40),
                      ("kubelet/worker-1", "create", 40)]
    reasons = [(e["reason"], round(e["time"])) for e in run.kubelet.events if e["reason"] in ("Started", "Killing")]
    assert reasons == [("Started", 2), ("Killing", 40), ("Started", 41)]  # deleting the mirror stopped nothing
    mirror = run.cluster.get("pods", "etcd-worker-1", "kube-system")
    assert mirror["metadata"]["ownerReferences"][0]["name"] == "worker-1"
    assert mirror["spec"]["containers"][0]["image"] == "registry.k8s.io/etcd:3.6.5-0"
    table = vk.mirror_pod_writes(run)
    assert "kubectl" in table and "event Killing" in table and "Stopping container etcd" in table


# ----------------------------------------------------------------------------- API server -> kubelet
def _hops(command, **kw):
    from kubenotes.kubelet.server import node_api_hops

    run = sc.simulate_pod_start()
    return node_api_hops(run.cluster.server, run.kubelet, command, "default", "web", **kw)


def test_node_api_table_greys_the_hops_the_model_lacks():
    exec_hops = _hops("exec")
    table = vk.node_api_table(exec_hops, "kubectl exec")
    assert table.count("<tr") == 1 + len(exec_hops) and table.count("color:#757575") == 4 * 6   # 4 rows, 6 cells
    assert "create nodes/proxy" in table and "max-width:1000px" in table and "overflow-wrap:anywhere" in table
    logs = vk.node_api_table(_hops("logs"))
    assert "color:#757575" not in logs and "/containerLogs/default/web/web" in logs


def test_node_api_figure_draws_one_arrow_per_hop_dashed_where_not_modelled():
    from matplotlib.text import Annotation
    from PIL import Image

    hops = _hops("port-forward")
    fig = vk.node_api_figure(hops)
    arrows = [t.arrow_patch for t in fig.axes[0].texts if isinstance(t, Annotation)]
    assert len(arrows) == len(hops) == 5
    styles = [a.get_linestyle() for a in arrows]
    assert styles[0] == "-" and all(s == "--" for s in styles[1:])
    labels = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    assert labels[:3] == ["kubectl", "kube-apiserver", "kubelet :10250"]
    assert "2. POST worker-1:10250/portForward/default/web" in labels
    assert "1 of 5 hops in the model" in fig.axes[0].get_title()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    assert Image.open(buf).size[0] <= 1000                                      # natural width, no shrinking
    with pytest.raises(ValueError, match="no hops"):
        vk.node_api_figure([])


def test_node_api_panel_answers_every_command_and_the_checkbox(monkeypatch):
    run = sc.simulate_pod_start()
    with contextlib.redirect_stdout(io.StringIO()):
        panel = vk.node_api_panel(run)
    buttons, jane = panel.children[0].children
    assert buttons.description == "kubectl" and list(buttons.options) == ["logs", "exec", "port-forward", "top"]
    assert jane.value is False and "kubenotes-control" in buttons._dom_classes
    captured = {}
    monkeypatch.setattr(vk, "live_panel", lambda update, controls: captured.update(update=update))
    vk.node_api_panel(run)
    seen = {}
    for command in buttons.options:
        for as_jane in (False, True):
            fig, table = captured["update"](command=command, as_jane=as_jane)
            seen[command, as_jane] = table
    assert len(set(seen.values())) == len(seen)                                 # every choice shows its own chain
    assert "403" in seen["logs", True] and "403" not in seen["logs", False]
    assert "Metrics API not available" in seen["top", False]


def test_kubelet_graph_figure_fits_the_output_column():
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    fig = vk.kubelet_graph_figure(highlight=["syncLoop"])
    width, _ = inline_png_size(fig)
    assert 700 < width <= MAX_INLINE_WIDTH_PX  # was 1,190 px in chapter 05.00 (shown at 85 %)


def test_kubelet_graph_edge_labels_between_the_boxes_of_the_sync_row():
    """Labels of the horizontal edges sit in the gap between the two boxes, not under one of them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = vk.kubelet_graph_figure()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = {t.get_text(): t for t in fig.axes[0].texts}
    for source, label, target in [("syncLoop", "UpdatePod", "podWorkers"),
                                  ("config: podStorage.merge", "configCh", "syncLoop")]:
        left = texts[source].get_bbox_patch().get_window_extent(renderer)
        right = texts[target].get_bbox_patch().get_window_extent(renderer)
        lab = texts[label].get_window_extent(renderer)
        assert left.x1 <= lab.x0 and lab.x1 <= right.x0, (label, left.x1, lab.x0, lab.x1, right.x0)
    pods = next(t for name, t in texts.items() if name.startswith("one pod"))
    assert pods.get_window_extent(renderer).x1 <= texts["SyncPod / computePodActions"].get_bbox_patch(
    ).get_window_extent(renderer).x0  # 'one pod at a time' was cut by the SyncPod box
