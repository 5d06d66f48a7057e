"""Tests of chapter 03.01: kubenotes.sim.workloads (the scenarios and what is read from them) and kubenotes.viz.workloads.

The behaviours checked are upstream's, each from its controller's tests or e2e:
the namespace waits for content held by finalizers and reports it in its
conditions (``pkg/controller/namespace/deletion/namespaced_resources_deleter_test.go``,
``TestDeleteNamespaceWithFinalizedContent``-style); the token controller deletes
a token Secret whose ServiceAccount does not exist (``tokens_controller_test.go``,
"deleted token secret without serviceaccount"); the range allocator records
``CIDRNotAvailable`` when the range is exhausted (``range_allocator_test.go``,
``TestAllocateOrOccupyCIDRFailure``); a DaemonSet runs only where its tolerations
allow (``test/e2e/apps/daemon_set.go``); OrderedReady creates ordinals in order and
deletes from the top (``test/e2e/apps/statefulset.go``, "Scaling should happen in
predictable order"); the HPA's formula, its cap without behavior and the
scale-down stabilization (``horizontal_test.go``); and a CronJob's Forbid policy,
suspension and starting deadline (``cronjob_controllerv2_test.go``).
Every control of every panel is moved to its minimum, middle and maximum:
no exception, no refusal except the ones upstream makes.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from matplotlib.figure import Figure

from kubenotes.sim import workloads as w
from kubenotes.sim.history import objects_at
from kubenotes.viz import controllers as vc
from kubenotes.viz import workloads as vw
from kubenotes.viz.html import Html


def _quiet(build, *args):
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
        return build(*args)


# --------------------------------------------------------------------------- the model's behaviour
def test_namespace_waits_for_the_finalizer_then_finalizes():
    run = w.simulate_namespace_deletion(80, 30)
    ns = [r for r in w.lifelines(run, ("namespaces",), namespace="") if r.name == "shop"][0]
    assert ns.deleting == 20.0 and ns.gone == 84.0
    lock = [r for r in w.lifelines(run, ("configmaps",)) if r.name == "orders-lock"][0]
    assert lock.deleting == 20.0 and lock.gone == 80.0
    messages = [r["message"] for r in w.namespace_conditions(run)]
    assert "Some finalizers are remaining: example.com/backup in 1 resource instances" in messages
    assert w.simulate_namespace_deletion(0, 30).cluster.get("namespaces", "shop") is None


def test_namespace_controller_deletes_every_kind_in_its_first_pass():
    run = w.simulate_namespace_deletion(80, 30)
    deleted = {e.kind for e in run.cluster.audit_log
               if e.component == "namespace-controller" and e.verb == "delete" and e.time == 20.0}
    assert {"Pod", "Deployment", "ReplicaSet", "Service", "Secret", "ConfigMap", "ServiceAccount"} <= deleted


def test_token_controller_fills_and_deletes_but_never_creates():
    run = w.simulate_service_accounts("build-robot")
    at_40 = {o["metadata"]["name"]: o for o in objects_at(run.cluster, "secrets", "team-b", at_seconds=40)}
    assert set(at_40["build-robot-token"]["data"]) == {"ca.crt", "namespace", "token"}
    assert run.cluster.get("secrets", "build-robot-token", "team-b") is None
    assert not [e for e in run.cluster.audit_log if e.component == "serviceaccount-token-controller"
                and e.verb == "create"]
    assert w.simulate_service_accounts("ghost").cluster.get("secrets", "build-robot-token", "team-b") is None


def test_node_ipam_blocks_and_cidr_not_available():
    run = w.simulate_node_ipam(22, 24, 5)
    assert list(w.node_cidrs(run).values()) == ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24",
                                                "10.244.3.0/24", None]
    ev = [e for e in run.cluster.list("events", "default") if e.get("reason") == "CIDRNotAvailable"]
    assert [e["message"] for e in ev] == ["Node worker-5 status is now: CIDRNotAvailable"]
    assert w.simulate_node_ipam(20, 26, 3).cluster is not None
    assert list(w.node_cidrs(w.simulate_node_ipam(20, 26, 2)).values()) == ["10.244.0.0/26", "10.244.0.64/26"]
    assert w.simulate_node_ipam(26, 24, 5).error == (
        "Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to "
        "--node-cidr-mask-size configured for CIDR family")
    assert w.cidr_capacity("10.0.0.0/20", 24) == 16
    with pytest.raises(ValueError):
        w.cidr_capacity("10.0.0.0/24", 20)


def test_daemonset_skips_the_tainted_node_until_tolerated_or_untainted():
    pods = w.lifelines(w.simulate_daemonset(1, False), ("pods",))
    assert min(p.created for p in pods if p.node == "control-plane-1") == 60.0
    tolerated = w.lifelines(w.simulate_daemonset(1, True), ("pods",))
    assert min(p.created for p in tolerated if p.node == "control-plane-1") == 0.0
    new = sorted(p.created for p in pods if 30 <= p.created < 60)
    assert len(new) == 3 and new[1] - new[0] >= 5 and new[2] - new[1] >= 5   # one node at a time
    fast = sorted(p.created for p in w.lifelines(w.simulate_daemonset(3, False), ("pods",)) if 30 <= p.created < 60)
    assert len(fast) == 3 and fast[-1] - fast[0] < 5                          # maxUnavailable 3: all at once
    assert "maxUnavailable" in w.simulate_daemonset(0, False).error


def test_statefulset_ordered_ready_versus_parallel():
    ordered = {p.name: p for p in w.lifelines(w.simulate_statefulset("OrderedReady", 5, 2), ("pods",))}
    assert [ordered[f"db-{i}"].created for i in range(3)] == [0.0, 5.0, 10.0]
    assert ordered["db-4"].deleting < ordered["db-3"].deleting < ordered["db-2"].deleting
    parallel = {p.name: p for p in w.lifelines(w.simulate_statefulset("Parallel", 5, 2), ("pods",))}
    assert {parallel[f"db-{i}"].created for i in range(3)} == {0.0}
    assert parallel["db-4"].deleting == parallel["db-2"].deleting == 70.0


def test_hpa_formula_cap_tolerance_and_stabilization():
    assert w.replica_series(w.simulate_hpa(1000, 80, 300)) == [(0.0, 2), (30.0, 4), (45.0, 7), (510.0, 2)]
    no_window = w.replica_series(w.simulate_hpa(1000, 80, 0))
    assert no_window[-1][1] == 2 and no_window[-1][0] <= 230
    # 150 % on 2 pods -> 4; then 75 % on 4 is within the tolerance (ratio 0.94): no change until the load drops
    assert w.replica_series(w.simulate_hpa(600, 80, 300)) == [(0.0, 2), (30.0, 4), (510.0, 2)]
    assert w.metric_series(w.simulate_hpa(1000, 80, 300))[:2] == [(5.0, 75.0), (20.0, 250.0)]


def test_hpa_runs_only_its_controllers_with_the_results_of_all(monkeypatch):
    """simulate_hpa runs HPA_CONTROLLERS only: the replicas, metric and Events of a run with every controller."""
    from kubenotes.sim import cluster

    run = w.simulate_hpa(1400, 60, 90)
    assert set(run.cluster.controllers) == set(w.HPA_CONTROLLERS)
    init = cluster.Cluster.__init__
    monkeypatch.setattr(cluster.Cluster, "__init__", lambda self, *a, controllers=None, **k: init(self, *a, **k))
    full = w.simulate_hpa.__wrapped__(1400, 60, 90)
    assert len(full.cluster.controllers) > len(w.HPA_CONTROLLERS)

    def shown(r):
        return (w.replica_series(r), w.metric_series(r), [(e["reason"], e["message"], e.get("count"))
                                                          for e in r.cluster.list("events", "default")
                                                          if e["involvedObject"]["kind"] == "HorizontalPodAutoscaler"])
    assert shown(run) == shown(full) and len(shown(run)[0]) >= 3


def test_cronjob_forbid_suspend_and_starting_deadline():
    jobs = w.lifelines(w.simulate_cronjob("Forbid", 90, 0), ("jobs",))
    assert [j.created for j in jobs] == [60.1, 153.1, 430.0, 523.0]
    assert [j.created for j in w.lifelines(w.simulate_cronjob("Forbid", 90, 5), ("jobs",))] == [60.1, 180.1, 480.1]
    allow = w.lifelines(w.simulate_cronjob("Allow", 200, 0), ("jobs",))
    assert max(sum(1 for j in allow if j.created <= t < (j.finished or 1e9)) for t in range(0, 600, 10)) >= 3
    replace = w.simulate_cronjob("Replace", 90, 0)
    assert any(e.component == "cronjob-controller" and e.verb == "delete" and e.kind == "Job"
               for e in replace.cluster.audit_log)


def test_controller_writes_graph_marks_the_cloud_controllers_unmodelled():
    g = w.controller_writes_graph([w.simulate_statefulset(), w.simulate_node_ipam()])
    assert g.has_edge("statefulset-controller", "Pod") and g.has_edge("node-ipam-controller", "Node")
    assert g.edges["statefulset-controller", "Pod"]["writes"] >= 3
    ccm = {n for n, d in g.nodes(data=True) if d.get("manager") == "cloud-controller-manager"}
    assert ccm == set(w.CCM_CONTROLLERS) and not any(g.nodes[n]["modelled"] for n in ccm)
    assert g.has_edge("service-lb-controller", "Service")


# --------------------------------------------------------------------------- the panels
PANELS = {
    "namespace": (vw._namespace_view, {"finalizer_removed_at_seconds": (0, 60, 120),
                                      "grace_period_seconds": (0, 60, 120)}),
    "service_accounts": (vw._service_accounts_view, {"secret_for": ("build-robot", "ghost"),
                                                    "at_seconds": (0, 40, 80)}),
    "node_ipam": (vw._node_ipam_view, {"cluster_prefix": (16, 21, 26), "node_cidr_mask_size": (22, 25, 28),
                                      "nodes": (1, 3, 5)}),
    "daemonset": (vw._daemonset_view, {"max_unavailable": (0, 2, 4), "tolerate_control_plane": (False, True)}),
    "statefulset": (vw._statefulset_view, {"pod_management_policy": ("OrderedReady", "Parallel"),
                                          "scale_up_to": (0, 3, 6), "scale_down_to": (0, 3, 6)}),
    "hpa": (vw._hpa_view, {"high_load_milli_cpu": (200, 1300, 2400), "target_utilization": (20, 60, 100),
                          "downscale_stabilization_seconds": (0, 150, 300)}),
    "cronjob": (vw._cronjob_view, {"concurrency_policy": ("Allow", "Forbid", "Replace"),
                                  "job_run_seconds": (20, 110, 200), "starting_deadline_seconds": (0, 30, 60)}),
}
DEFAULTS = {
    "namespace": {"finalizer_removed_at_seconds": 80, "grace_period_seconds": 30},
    "service_accounts": {"secret_for": "build-robot", "at_seconds": 40},
    "node_ipam": {"cluster_prefix": 22, "node_cidr_mask_size": 24, "nodes": 5},
    "daemonset": {"max_unavailable": 1, "tolerate_control_plane": False},
    "statefulset": {"pod_management_policy": "OrderedReady", "scale_up_to": 5, "scale_down_to": 2},
    "hpa": {"high_load_milli_cpu": 1000, "target_utilization": 80, "downscale_stabilization_seconds": 300},
    "cronjob": {"concurrency_policy": "Forbid", "job_run_seconds": 90, "starting_deadline_seconds": 0},
}
MOVES = [(panel, control, value) for panel, (_, controls) in PANELS.items()
         for control, values in controls.items() for value in values]


@pytest.mark.parametrize("panel,control,value", MOVES)
def test_every_control_at_min_middle_max_draws_without_error(panel, control, value):
    view, _ = PANELS[panel]
    out = view(**{**DEFAULTS[panel], control: value})
    assert out and all(isinstance(o, (Figure, Html)) for o in out)
    refused = [o for o in out if isinstance(o, Html) and "Refused" in o]
    # only the refusals upstream makes: both DaemonSet fences 0, a node mask shorter than the cluster prefix
    expected = (panel == "daemonset" and control == "max_unavailable" and value == 0) or (
        panel == "node_ipam" and control == "cluster_prefix" and value == 26)
    assert bool(refused) == expected
    for fig in (o for o in out if isinstance(o, Figure)):
        width, _ = fig.get_size_inches() * fig.dpi
        assert width <= 1000


def test_views_change_with_their_controls():
    a = vw._statefulset_view("OrderedReady", 5, 2)[0]
    b = vw._statefulset_view("Parallel", 5, 2)[0]
    assert a.axes[0].get_title(loc="left") != b.axes[0].get_title(loc="left")
    assert vw._service_accounts_view("build-robot", 40)[0] != vw._service_accounts_view("build-robot", 0)[0]


def test_panel_sliders_are_long_enough():
    import ipywidgets as widgets

    panel = _quiet(vw.statefulset_panel)           # every panel builds its sliders with the same helper
    sliders = [c for row in panel.children[:-1] for c in row.children if isinstance(c, widgets.IntSlider)]
    assert sliders and all(s is not None for s in sliders)
    for c in [*sliders, vc._control("x", 1, 0, 2, **vw._CONTROL_SIZE)]:
        total = int(c.layout.width.rstrip("px"))
        label = int(c.style.description_width.rstrip("px"))
        assert total - label - 60 >= 150            # track left after the label and the readout
        assert c.continuous_update is False


def test_lifelines_figure_segments():
    rows = [w.Lifeline("Pod", "db-0", 0.0, 10.0, 11.0, "n1", 5.0),
            w.Lifeline("Job", "j", 0.0, None, None, None, None, 4.0)]
    fig = vw.lifelines_figure(rows, end_seconds=20, marks=[(10, "delete")], spans=[(2, 3, "x")], ticks=[1, 2])
    colours = {tuple(round(v, 3) for v in p.get_facecolor()) for p in fig.axes[0].patches}
    assert len(colours) >= 4                          # pending, running, terminating, finished
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["db-0 on n1", "Job/j"]


def test_cidr_figure_summarises_large_ranges():
    fig = vw._cidr_figure("10.244.0.0/16", 24, {"a": "10.244.0.0/24"})
    assert len(fig.axes[0].patches) == 32             # 31 blocks drawn and one "more free blocks" box
    assert "256 blocks" in fig.axes[0].get_title(loc="left")


def _figure(parts):
    return next(p for p in parts if isinstance(p, Figure))


def test_hpa_view_titles_the_figure_in_html_above_it():
    title, fig, events = vw._hpa_view(1000, 80, 300)
    assert "target 80%" in title and "replicas: 2 (t=0) → 4 (t=30) → 7 (t=45) → 2 (t=510)" in title
    assert isinstance(fig, Figure) and not any(ax.get_title(loc=loc) for ax in fig.axes for loc in ("left", "center"))
    assert "SuccessfulRescale" in events


def test_panels_draw_into_one_figure_the_picture_of_a_new_one():
    """A lifelines or HPA panel keeps one figure: a position drawn into it looks as a new figure of that position."""
    from kubenotes.viz.widgets import figure_png

    for view, args in ((vw._hpa_view, [(1000, 80, 300), (200, 20, 0)]), (vw._statefulset_view, [
            ("OrderedReady", 6, 0), ("Parallel", 1, 1)]), (vw._node_ipam_view, [(16, 24, 5), (22, 24, 2)])):
        kept = _figure(view(*args[0]))
        for a in args:
            assert figure_png(_figure(view(*a, figure=kept))) == figure_png(_figure(view(*a))), (view, a)


def test_figures_keep_their_artists_inside_the_figure():
    """Fixed layouts: the tight box of every view's figure is inside it (one-pass PNG, nothing cut off)."""
    from kubenotes.viz.widgets import figure_png

    for fig in (_figure(vw._hpa_view(1000, 80, 300)), vw._daemonset_view(1, True)[0], vw._namespace_view(80, 30)[0],
                vw._cronjob_view("Allow", 200, 0)[0], vw._node_ipam_view(16, 28, 5)[0]):
        assert figure_png(fig) is not None
