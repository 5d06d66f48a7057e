"""Tests of kubenotes.viz.controllers: history, rollout timelines, ownership graphs, tables and the chapter's scenarios.

The rollout invariants (never more than ``replicas + maxSurge`` pods, never fewer
than ``replicas - maxUnavailable`` available) are the ones upstream's
``test/e2e/apps/deployment.go`` checks in ``testRollingUpdateDeployment`` /
``testDeploymentProportionalScaling`` and that ``TestReconcileOldReplicaSets`` in
``pkg/controller/deployment/rolling_test.go`` states per step; the fence values
come from ``TestResolveFenceposts`` (``pkg/controller/deployment/util/deployment_util_test.go``).
The cascade orders follow ``test/e2e/apimachinery/garbage_collector.go``
("should delete pods created by rc when not orphaning", "should orphan pods created
by rc if delete options say so", "should keep the rc around until all its pods are
deleted if the deleteOptions says so"). The Job back-off (10 s doubling) is
``TestJobBackoff`` / ``getFinishedTime`` in ``pkg/controller/job/job_controller_test.go``.
"""

from __future__ import annotations

import contextlib
import io

import networkx as nx
import pytest
from matplotlib.figure import Figure

from kubenotes.apiserver.server import AuditEntry
from kubenotes.client.components import reconcile_loop_graph
from kubenotes.sim import scenarios as sc
from kubenotes.sim import ownership as own
from kubenotes.sim import timelines as st
from kubenotes.viz import controllers as vc
from kubenotes.sim.history import Revision, object_history

# ----------------------------------------------------------------------------- synthetic histories


def _dep(replicas=4, surge="25%", unavailable="25%", uid="D", image="nginx:1.27", rv="1"):
    return {"kind": "Deployment", "metadata": {"name": "web", "namespace": "d", "uid": uid, "resourceVersion": rv},
            "spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                "maxSurge": surge, "maxUnavailable": unavailable}},
                "template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}


def _rs(name, replicas, owner_uid="D", available=0, ready=0, rv="2", revision=None):
    md = {"name": name, "namespace": "d", "uid": "rs-" + name, "resourceVersion": rv,
          "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": owner_uid, "controller": True}]}
    if revision is not None:
        md["annotations"] = {"deployment.kubernetes.io/revision": str(revision)}
    return {"kind": "ReplicaSet", "metadata": md, "spec": {"replicas": replicas},
            "status": {"availableReplicas": available, "readyReplicas": ready}}


def _pod(name, rs, rv, ready=False, terminating=False, node=None, phase="Running"):
    md = {"name": name, "namespace": "d", "uid": "pod-" + name, "resourceVersion": rv,
          "ownerReferences": [{"kind": "ReplicaSet", "name": rs, "uid": "rs-" + rs, "controller": True}]}
    if terminating:
        md["deletionTimestamp"] = "2025-08-27T00:00:10Z"
    return {"kind": "Pod", "metadata": md, "spec": {"nodeName": node},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


# ----------------------------------------------------------------------------- ownership graph


def test_ownership_graph_links_by_uid_and_marks_missing_owners():
    dep = _dep()
    rs = _rs("web-a", 2)
    pod = _pod("p1", "web-a", "3")
    stray = _pod("p2", "web-gone", "4")  # owner RS no longer exists: the garbage collector's work
    g = own.ownership_graph([pod, stray, rs, dep])
    assert list(g.edges()) == [("D", "rs-web-a"), ("rs-web-a", "pod-p1"), ("rs-web-gone", "pod-p2")]
    assert g.nodes["rs-web-gone"]["missing"] is True and g.nodes["rs-web-a"]["missing"] is False
    assert [g.nodes[v]["kind"] for v in list(g)[:2]] == ["Deployment", "ReplicaSet"]


def test_graph_diff_tells_deleted_from_orphaned():
    before = nx.DiGraph([("d", "r"), ("r", "p1"), ("r", "p2")])
    after_orphan = nx.DiGraph()
    after_orphan.add_nodes_from(["r", "p1", "p2"])
    after_orphan.add_edges_from([("r", "p1"), ("r", "p2")])
    d = own.graph_diff(before, after_orphan)
    assert d.nodes["d"]["change"] == "deleted" and d.nodes["r"]["change"] == ""
    assert d.edges["d", "r"]["change"] == "deleted"
    kept = nx.DiGraph([("d", "r")])
    kept.add_nodes_from(["p1", "p2"])
    d2 = own.graph_diff(before, kept)
    assert d2.edges["r", "p1"]["change"] == "removed"


def test_layout_is_fixed_and_centres_parents():
    g = nx.DiGraph([("d", "r1"), ("d", "r2"), ("r1", "a"), ("r1", "b"), ("r2", "c")])
    pos = vc._ownership_layout(g)
    assert pos == vc._ownership_layout(g)
    assert pos["r1"] == (0.5, -1.0) and pos["d"][0] == (pos["r1"][0] + pos["r2"][0]) / 2
    assert {y for _, y in pos.values()} == {0.0, -1.0, -2.0}


def test_drawings_return_their_axes_and_figures():
    g = own.ownership_graph([_pod("p1", "web-a", "3"), _rs("web-a", 1), _dep()])
    fig = vc.ownership_figure(g, title="a\nb")
    assert len(fig.axes) == 1 and fig.axes[0].get_title() == "a\nb" and len(fig.axes[0].texts) == 5  # 3 boxes, 2 arrows
    loop = reconcile_loop_graph("deployment-controller", "deployments")
    assert loop.graph["controller"] == "deployment-controller"
    assert nx.is_weakly_connected(loop) and nx.find_cycle(loop)  # it is a loop
    assert len(vc.reconcile_loop_figure(loop).axes) == 1


# ----------------------------------------------------------------------------- tables


def test_events_table_sorts_filters_and_colours_warnings():
    def ev(name, reason, t, etype="Normal"):
        return {"kind": "Event", "metadata": {"name": name, "namespace": "d"}, "type": etype, "reason": reason,
                "message": f"{reason} <b>", "count": 2, "involvedObject": {"kind": "Pod", "name": "p"},
                "lastTimestamp": f"2025-08-27T00:00:{t:02d}Z", "source": {"component": "c"}}
    html = vc.events_table([ev("b", "Late", 9), ev("a", "Early", 3, "Warning")])
    assert html.index("Early") < html.index("Late")
    assert "&lt;b&gt;" in html and "color:#c62828" in html
    only = vc.events_table([ev("b", "Late", 9), ev("a", "Early", 3)], reasons=["Late"])
    assert "Early" not in only
    assert "Early" not in vc.events_table([ev("b", "Late", 9), ev("a", "Early", 3)], limit=1)


def test_audit_table_window_and_filters():
    log = [AuditEntry(1.0, "kubectl", "patch", "ReplicaSet", "d", "web", "7", "replicas 4->6"),
           AuditEntry(2.0, "replicaset-controller", "create", "Pod", "d", "web-x", "8", "owner=ReplicaSet/web"),
           AuditEntry(9.0, "default-scheduler", "bind", "Pod", "d", "web-x", "9", "node=n1")]
    t = vc.audit_table(log, since=1.5, until=5)
    assert "web-x" in t and "replicas 4-&gt;6" not in t and "node=n1" not in t
    assert "kubectl" not in vc.audit_table(log, components=["default-scheduler"])


def test_node_timeline_rows_only_on_change():
    def node(status, taints=(), reason="KubeletReady"):
        return {"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": list(taints)},
                "status": {"conditions": [{"type": "Ready", "status": status, "reason": reason}]}}
    taint = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
    h = [Revision(0, "ADDED", {"kind": "Node", "metadata": {"name": "n1"}}),
         Revision(1, "MODIFIED", node("True")), Revision(11, "MODIFIED", node("True")),
         Revision(70, "MODIFIED", node("Unknown", reason="NodeStatusUnknown")),
         Revision(75, "MODIFIED", node("Unknown", [taint], reason="NodeStatusUnknown"))]
    rows = st.node_timeline(h, "n1")
    assert [(r["time"], r["ready"], r["taints"]) for r in rows] == [
        (1, "True", []), (70, "Unknown", []), (75, "Unknown", ["node.kubernetes.io/unreachable:NoExecute"])]
    assert "background:#fff3e0" in vc.node_timeline_table(rows)


# ----------------------------------------------------------------------------- running clusters


def test_object_history_of_a_cluster_is_timed_by_the_audit_log():
    run = sc.simulate_scale(5, 4)
    hist = object_history(run.cluster, "replicasets", "default")
    replicas = [(r.time, r.object["spec"]["replicas"]) for r in hist]
    assert replicas[0] == (0.0, 4) and (run.at_seconds, 5) in replicas
    assert all(a.time <= b.time for a, b in zip(hist, hist[1:]))


def test_more_surge_means_a_faster_rollout_and_the_panel_output_changes():
    slow, fast = (st.rollout_done_at(st.rollout_timeline(r.cluster, "default", "web"), r.at_seconds)
                  for r in (sc.simulate_rollout(1, 0, 4), sc.simulate_rollout(4, 0, 4)))
    assert slow is not None and fast is not None and fast < slow
    a, b = vc._rollout_view(1, 1), vc._rollout_view(4, 1)
    assert isinstance(a[0], Figure) and a[0].axes[0].get_title() != b[0].axes[0].get_title()


def test_both_fences_zero_is_refused_with_upstreams_message():
    run = sc.simulate_rollout(0, 0, 4)
    assert run.error == ('Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: '
                         'Invalid value: 0: may not be 0 when `maxSurge` is 0')
    assert "refused" in vc._rollout_view(0, 0)[0]


def test_scale_down_deletes_pods_and_the_diff_graph_shows_them():
    run = sc.simulate_scale(2, 4)
    before = own.ownership_graph(run.cluster, "default", at_seconds=run.at_seconds - 0.001)
    after = own.ownership_graph(run.cluster, "default")
    d = own.graph_diff(before, after)
    assert sum(1 for _, x in d.nodes(data=True) if x["change"] == "deleted" and x["kind"] == "Pod") == 2
    assert sum(1 for _, x in after.nodes(data=True) if x["kind"] == "Pod") == 2
    assert "SuccessfulDelete" in vc._scale_view(2)[1]


@pytest.mark.parametrize("policy", ["Background", "Foreground", "Orphan"])
def test_cascade_orders(policy):
    run = sc.simulate_cascade(policy)
    left = own.ownership_graph(run.cluster, "default")
    writes = st.cascade_writes(run)
    assert writes[0].component == "kubectl" and writes[0].kind == "Deployment"
    gone_at = {}
    for e in run.cluster.audit_log:
        if e.verb == "delete" and e.detail in ("", "finalizers removed") and e.kind in ("Deployment", "ReplicaSet", "Pod"):
            gone_at.setdefault(e.kind, []).append(int(e.resource_version))
    if policy == "Orphan":
        assert sorted(d["kind"] for _, d in left.nodes(data=True)) == ["Pod"] * 4 + ["ReplicaSet"]
        rs = next(v for v, d in left.nodes(data=True) if d["kind"] == "ReplicaSet")
        assert left.in_degree(rs) == 0 and left.out_degree(rs) == 4
    else:
        assert len(left) == 0
    if policy == "Foreground":  # the owner goes last, after every dependent
        assert max(gone_at["Pod"]) < min(gone_at["ReplicaSet"]) < min(gone_at["Deployment"])
    if policy == "Background":  # the owner goes first
        assert min(gone_at["Deployment"]) < min(gone_at["ReplicaSet"]) < min(gone_at["Pod"])


def test_cascade_view_steps_through_the_writes():
    before = vc._cascade_view("Foreground", 0)
    after_one = vc._cascade_view("Foreground", 1)
    assert before[0].axes[0].get_title() != after_one[0].axes[0].get_title()
    assert "kubectl" in after_one[1] and "finalizers: foregroundDeletion" in after_one[1]


def test_panels_put_their_first_slider_first():
    with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
        panel = vc.rollout_panel()
        scale = vc.scale_panel()
    first = panel.children[0].children[0]
    assert first.description == "maxSurge" and first.value == 1
    assert "kubenotes-control" in first._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes
    assert scale.children[0].children[0].max == 9


def test_kubectl_rolling_update_keeps_every_pod_ready_and_one_extra_at_most():
    """Old kubectl's client-side RC rollout (maxUnavailable 0, maxSurge 1): ready pods never below the replicas."""
    from kubenotes.sim.scenarios import simulate_rc_rolling_update
    from kubenotes.sim.timelines import rc_sizes, series_value_at

    run = simulate_rc_rolling_update(3, 5.0)
    sizes = rc_sizes(run.cluster, "default", ["web-v1", "web-v2"])
    times = sorted({t for s in sizes.values() for t, _ in s if t >= run.at_seconds})
    totals = [sum(series_value_at(sizes[n], t) for n in sizes) for t in times]
    assert min(totals) == 3 and max(totals) == 4
    assert sizes["web-v1"][-1][1] == 0 and sizes["web-v2"][-1][1] == 3
    assert run.lines[0] == "Created web-v2" and run.lines[-1].endswith('rolling updated to "web-v2"')


def test_rollout_title_and_plot_agree_on_a_peak_held_zero_seconds():
    # maxSurge 4 / maxUnavailable 1: in one reconcile at t=20 s the new RS goes to 4 (8 pods), the old one to 3 (7)
    fig = vc._rollout_view(4, 1)[0]
    ax = fig.axes[0]
    title = ax.get_title()
    assert "at most 8 pods (for 0 s, at t=20s)" in title
    pods_line = next(line for line in ax.get_lines() if line.get_label() == "pods (not terminating)")
    assert max(pods_line.get_ydata()) == 8  # the plot reaches the title's peak (a spike at t=20 s)
    assert any("8 pods for 0 s" in t.get_text() for t in ax.texts)
    # a peak that is held says nothing more, and the plot still reaches it
    held = vc._rollout_view(4, 0)[0].axes[0]
    assert "at most 8 pods," in held.get_title() and "for 0 s" not in held.get_title()


def test_rolling_update_figure_fits_a_notebook_column():
    from PIL import Image

    from kubenotes.viz.widgets import figure_png

    fig = vc.rolling_update_figure(sc.simulate_rc_rolling_update(replicas=2, update_period_seconds=5.0),
                                   sc.simulate_rollout(1, 1, 2))
    assert Image.open(io.BytesIO(figure_png(fig))).size[0] <= 1000  # was 1,090 px in 03.00


def test_ownership_figure_of_many_pods_fits_the_column_without_overlapping_boxes():
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    g = nx.DiGraph()
    g.add_node("rs", kind="ReplicaSet", name="web", replicas=9)
    for i in range(10):  # 03.00's scale panel at spec.replicas' maximum: 9 pods, plus one being deleted
        g.add_node(f"p{i}", kind="Pod", name=f"web-{i:05d}", node="worker-1", change="created" if i > 3 else "")
        g.add_edge("rs", f"p{i}", controller=True)
    fig = vc.ownership_figure(g, title="kubectl scale rs web --replicas=9\nstatus.replicas=9")
    width, _ = inline_png_size(fig)
    assert 800 < width <= MAX_INLINE_WIDTH_PX  # was 1,401 px (shown at 72 %) for the scale panel's 9 pods
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = sorted((t.get_bbox_patch().get_window_extent(renderer) for t in fig.axes[0].texts
                    if t.get_text().startswith("Pod")), key=lambda b: b.x0)
    assert len(boxes) == 10 and all(a.x1 + 10 < b.x0 for a, b in zip(boxes, boxes[1:]))


def test_panels_draw_every_position_into_one_figure_with_a_new_figures_picture():
    """rollout/node-failure panels redraw one kept figure: each PNG is the one a new figure gives, to the byte."""
    from IPython.core.pylabtools import print_figure

    from kubenotes.viz.widgets import figure_png

    def png(fig):  # as the inline backend shows a new figure (one pass when the tight box is inside it)
        return figure_png(fig) or print_figure(fig, "png", bbox_inches="tight")

    rollout = vc._drawn_into(vc._rollout_view, vc._rollout_axes())
    for surge, unavailable, replicas in ((4, 1, 4), (1, 1, 4), (0, 0, 4), (2, 1, 6)):
        shown = rollout(max_surge=surge, max_unavailable=unavailable, replicas=replicas)
        fresh = vc._rollout_view(surge, unavailable, replicas)
        if isinstance(fresh[0], Figure):
            assert shown[0]._repr_mimebundle_()["image/png"] == _b64(png(fresh[0])), (surge, unavailable)
        else:
            assert shown == fresh  # the API's refusal: the same HTML
    failure = vc._drawn_into(vc._node_failure_view, vc._node_failure_figure())
    for toleration, grace in ((0, 20), (60, 20)):
        shown = failure(toleration_seconds=toleration, node_monitor_grace_period_seconds=grace)
        fresh = vc._node_failure_view(toleration, grace)
        assert shown[0]._repr_mimebundle_()["image/png"] == _b64(png(fresh[0]))
        assert shown[1] == fresh[1]


def _b64(png: bytes) -> str:
    import base64

    return base64.b64encode(png).decode("ascii")
