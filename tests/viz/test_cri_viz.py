"""Chapter 05.01's CRI views: the tables, figures and widget show what the runtime model did.

The call order checked here is the kubelet's ``SyncPod`` order
(``pkg/kubelet/kuberuntime/kuberuntime_manager.go``: sandbox, then init
containers one at a time, then app containers, each through
``startContainer``'s pull, create, start in ``kuberuntime_container.go``), and
the QoS values are those of ``pkg/kubelet/qos/policy_test.go``
(``TestGetContainerOOMScoreAdjust``: Guaranteed -997, BestEffort 1000,
Burstable 1000 - 1000*request/capacity). The views themselves have no
upstream counterpart; these tests check that each one reports the model's
own records.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from kubenotes.cri.api import call_summary  # noqa: E402
from kubenotes.cri.images import layer_cache_pulls  # noqa: E402
from kubenotes.cri.oci import oci_excerpt  # noqa: E402
from kubenotes.cri.runtime import RUNTIME_KINDS  # noqa: E402
from kubenotes.kubelet.kuberuntime import oci_config, pod_start_calls, runtime_stack_graph, start_latency  # noqa: E402
from kubenotes.viz import cri  # noqa: E402
from kubenotes.viz.graphs import detached_figure  # noqa: E402
from kubenotes.viz.html import TD_CSS  # noqa: E402
from kubenotes.viz.widgets import CONTROL_CLASS, LIVE_OUTPUT_CLASS  # noqa: E402

GUARANTEED = {"requests": {"cpu": "500m", "memory": "256Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}}


def _pod(name: str = "web", resources: dict | None = None, **spec) -> dict:
    return {"metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "resources": resources or {}}], **spec}}


@pytest.fixture(scope="module")
def start():
    pod = _pod(resources=GUARANTEED)
    pod["spec"]["initContainers"] = [{"name": "init", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 1"],
                                      "resources": GUARANTEED}]
    return pod_start_calls(pod, network_setup_seconds=0.05)


# --- call_summary / call_table ---------------------------------------------------------------------


def test_call_summary_names_the_arguments_of_each_call(start):
    by_method = {}
    for e in start["trace"]:
        by_method.setdefault(e["method"], call_summary(e))
    request, response = by_method["RunPodSandbox"]
    assert request.startswith("pod shop/web attempt 0, cgroup_parent /kubepods.slice/kubepods-poduid_web.slice")
    assert response == "pod_sandbox_id " + start["trace"][0]["response"]["pod_sandbox_id"][:13]
    assert by_method["PodSandboxStatus"][1] == "SANDBOX_READY, ip 10.244.0.2"
    assert by_method["ImageStatus"] == ("image busybox:1.36", "image: null (not on the node)")
    assert by_method["CreateContainer"][0].startswith("container init (image busybox:1.36) in sandbox ")
    assert by_method["StartContainer"][1] == "{}"


def test_call_summary_reports_errors_and_present_images():
    err = {"method": "PullImage", "request": {"image": {"image": "nope:1"}}, "response": None,
           "error": "rpc error: code = Unknown desc = not found"}
    assert call_summary(err) == ("image nope:1", "error: rpc error: code = Unknown desc = not found")
    present = {"method": "ImageStatus", "request": {"image": {"image": "x"}},
               "response": {"image": {"size": 2 * 2**20}}}
    assert call_summary(present)[1] == "present, 2.0 MiB"


def test_call_table_has_one_row_per_call_in_order(start):
    table = cri.call_table(start["trace"], caption="cap")
    assert table.count("<tr>") - 1 == len(start["trace"]) == 10
    positions = [table.index(f"<b>{m}</b>") for m in ("RunPodSandbox", "PodSandboxStatus", "ImageStatus", "PullImage")]
    assert positions == sorted(positions)
    assert ">cap</caption>" in table and table._repr_html_() == str(table)


# --- timeline -------------------------------------------------------------------------------------


def test_timeline_has_a_bar_per_call_and_marks_runtime_events(start):
    fig = cri.call_timeline_figure(start["trace"], start["runtime"].events, started_seconds=start["started_seconds"])
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "1 RunPodSandbox" and labels[-1] == "inside the runtime" and len(labels) == 11
    assert len(ax.patches) == 10  # one bar per call
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "pulled pause:3.10" in texts and "exited" in texts
    assert f"last container started: {start['started_seconds']:.2f} s" in texts
    starts = sorted(p.get_x() for p in ax.patches)
    assert starts[0] == 0.0 and starts[-1] == pytest.approx(start["trace"][-1]["time"])


def test_call_timeline_fits_a_notebook_column(start):
    import io

    from PIL import Image

    from kubenotes.viz.widgets import figure_png

    fig = cri.call_timeline_figure(start["trace"], start["runtime"].events, started_seconds=start["started_seconds"],
                                   title="shop/web on a new node (containerd + runc)")
    assert Image.open(io.BytesIO(figure_png(fig))).size[0] <= 1000  # was 1,039 px: shrunk in a ~1,000 px column


def test_timeline_without_events_has_no_runtime_lane(start):
    labels = [t.get_text() for t in cri.call_timeline_figure(start["trace"]).axes[0].get_yticklabels()]
    assert "inside the runtime" not in labels and len(labels) == len(start["trace"])


# --- configs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("resources, qos, oom, parent", [
    (GUARANTEED, "Guaranteed", -997, "/kubepods.slice/kubepods-poduid_web.slice"),
    ({"requests": {"cpu": "250m", "memory": "1Gi"}}, "Burstable", 875,
     "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-poduid_web.slice"),
    ({}, "BestEffort", 1000, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-poduid_web.slice"),
])
def test_cri_to_oci_table_shows_the_qos_in_every_field(resources, qos, oom, parent):
    # policy_test.go: Guaranteed -997, BestEffort 1000, Burstable 1000 - 1000*1Gi/8Gi = 875
    table = cri.cri_to_oci_table(_pod(resources=resources), "app")
    assert f"<td style=\"{TD_CSS}\">{qos}</td>" in table
    assert f"oom_score_adj <code>{oom}</code>" in table and f"process.oomScoreAdj <code>{oom}</code>" in table
    assert f"cgroup_parent <code>{parent}</code>" in table


def test_cri_to_oci_table_converts_cpu_and_memory():
    table = cri.cri_to_oci_table(_pod(resources=GUARANTEED), "app")
    assert "cpu_shares <code>512</code>" in table and "cpu.weight <code>20</code>" in table
    assert "cpu.max 50000 100000" in table and "memory.max 268435456" in table
    be = cri.cri_to_oci_table(_pod(resources={}), "app")
    assert "cpu_shares <code>2</code>" in be and "cpu.max max 100000" in be and "memory.max max" in be
    assert "crio:" in cri.cri_to_oci_table(_pod(), "app", kind="cri-o")
    with pytest.raises(KeyError, match="nope"):
        cri.cri_to_oci_table(_pod(), "nope")


def test_oci_excerpt_reads_the_spec():
    spec = oci_config(_pod(resources=GUARANTEED), "app", sandbox_id="s" * 64, container_id="c1")
    ex = oci_excerpt(spec)
    assert ex["process.oomScoreAdj"] == -997 and ex["linux.cgroupsPath"].endswith(":cri-containerd:c1")
    assert "devices" not in ex["linux.resources"] and ex["linux.resources"]["memory"]["limit"] == 256 * 2**20
    assert ex["linux.namespaces"]["pid"] == "new" and ex["linux.namespaces"]["network"].startswith("/var/run/netns/")
    host = oci_excerpt(oci_config(_pod(hostNetwork=True), "app"))
    assert "network" not in host["linux.namespaces"]


# --- stack --------------------------------------------------------------------------------------


def _two_pods():
    web = _pod(resources=GUARANTEED)
    web["spec"]["containers"].append({"name": "log", "image": "busybox:1.36", "command": ["sleep", "3600"]})
    return [web, _pod("batch")]


def test_stack_layout_puts_parents_above_their_children():
    g = runtime_stack_graph("containerd", _two_pods())
    pos = cri.stack_layout(g)
    for a, b in g.edges:
        assert pos[a][1] > pos[b][1]
    procs = sorted(pos[v][0] for v, d in g.nodes(data=True) if d["kind"] == "process")
    assert procs == [0.0, 1.0, 2.0, 3.0, 4.0]  # web: pause, app, log; batch: pause, app
    assert pos["shim/shop/web"][0] == 1.0 and pos["shim/shop/batch"][0] == 3.5
    assert pos["kubelet"][0] == pytest.approx(2.0)


def test_draw_runtime_stack_labels_every_node_and_frames_each_pod():
    for kind, runtime, middle in (("containerd", "containerd (CRI plugin)", "containerd-shim-runc-v2"),
                                  ("cri-o", "crio", "conmon")):
        g = runtime_stack_graph(kind, _two_pods())
        ax = cri.draw_runtime_stack(g, detached_figure(8, 5).add_subplot(), title=kind)
        texts = [t.get_text() for t in ax.texts]
        assert runtime in texts and middle in texts and "kubelet" in texts
        frames = [t for t in texts if t.startswith("pod shop/")]
        assert sorted(f.split(" (")[0] for f in frames) == ["pod shop/batch", "pod shop/web"]
        # web's "log" container has no requests: the pod is Burstable
        assert any("(Burstable)" in f and "kubepods-burstable-poduid_web.slice" in f for f in frames)
        assert any("(BestEffort)" in f and "besteffort" in f for f in frames)
        assert sum(1 for t in texts if t.startswith("app\noom_score_adj")) == 2
        assert len([p for p in ax.patches if type(p).__name__ == "FancyArrowPatch"]) == g.number_of_edges()


def test_runtime_stack_figure_has_a_panel_per_kind():
    fig = cri.runtime_stack_figure(_two_pods(), title="t")
    assert [ax.get_title(loc="left").split(":")[0] for ax in fig.axes] == ["containerd", "cri-o"]
    pause = [t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("pause")]
    assert len(pause) == 2 and all("oom_score_adj -998" in p for p in pause)
    assert not any(t.get_text().startswith("pause") for t in fig.axes[1].texts)
    assert len(cri.runtime_stack_figure(_two_pods(), kinds=("cri-o",)).axes) == 1


def test_runtime_stack_figure_fits_a_notebook_column_and_stays_readable():
    # issue #26: at 1,580 px the figure was shrunk into a ~1,000 px output column until unreadable
    import io

    from PIL import Image

    from kubenotes.viz.widgets import figure_png

    three_pods = _two_pods() + [_pod("cache", resources=GUARANTEED)]  # wider than the chapter's two pods
    for pods in (three_pods,):
        fig = cri.runtime_stack_figure(pods, title="kubelet → runtime → shim → runc → processes")
        width, _ = Image.open(io.BytesIO(figure_png(fig))).size  # the inline backend's tight PNG, at its dpi
        assert width <= 1000, width  # shown at >= 90 % of its natural width in a ~1,000 px column
        smallest_px = min(t.get_fontsize() for ax in fig.axes for t in ax.texts) * fig.dpi / 72
        assert smallest_px >= 9, smallest_px
        top, bottom = (ax.get_position() for ax in fig.axes)
        assert top.y0 > bottom.y1  # stacked: containerd above cri-o


# --- layer cache and start latency ------------------------------------------------------------------


def test_layer_cache_pulls_with_preloaded_images_and_bandwidth():
    slow = layer_cache_pulls(["redis:7.4"], preloaded=["nginx:1.27"], bandwidth_bytes_per_second=2**20)
    fast = layer_cache_pulls(["redis:7.4"], preloaded=["nginx:1.27"], bandwidth_bytes_per_second=100 * 2**20)
    assert slow[0]["missing_layers"] == 3 and slow[0]["pull_seconds"] > fast[0]["pull_seconds"]
    table = cri.layer_cache_table(slow, caption="c")
    assert "3 of 4" in table and table.count("<tr>") - 1 == 1


def test_start_latency_table_and_figure():
    results = [start_latency(k) for k in RUNTIME_KINDS]
    table = cri.start_latency_table(results)
    assert table.count("<tr>") - 1 == 2 and f"<b>{results[1]['started_seconds']:.3f}</b>" in table
    fig = cri.start_latency_figure(results[0])
    assert f"started after {results[0]['started_seconds']:.2f} s" in fig.axes[0].get_title(loc="left")


def test_start_latency_panel_recomputes_when_the_first_slider_moves(monkeypatch):
    panel = cri.start_latency_panel(image_mib=100)
    rows, out = panel.children[:-1], panel.children[-1]
    controls = [w for row in rows for w in row.children]
    assert LIVE_OUTPUT_CLASS in out._dom_classes and all(CONTROL_CLASS in c._dom_classes for c in controls)
    slider = controls[0]
    assert type(slider).__name__ == "IntSlider" and slider.value == 100
    calls = []
    original = cri.start_latency
    monkeypatch.setattr(cri, "start_latency", lambda *a, **k: calls.append((a, k)) or original(*a, **k))
    slider.value = 130
    assert calls and all(k["image_mib"] == 130 for _, k in calls)
    assert {a[0] for a, _ in calls} == set(RUNTIME_KINDS)  # the chosen runtime and the other one


def test_cri_to_oci_table_wraps_its_long_identifiers():
    """05.01's table was 1,112 px wide in a 1,008 px output: a cgroupsPath's 64-hex container id cannot break."""
    import re

    table = cri.cri_to_oci_table(_pod(resources=GUARANTEED), "app")
    assert re.match(r'<table [^>]*style="[^"]*max-width:100%', table)
    for row in table.split("<tbody>")[1].split("<tr>")[1:]:
        cells = re.findall(r'<td style="([^"]*)">', row)
        assert len(cells) == 4
        assert all("overflow-wrap:anywhere" in css for css in cells[2:])  # the CRI and OCI columns
        assert not any("overflow-wrap" in css for css in cells[:2])
