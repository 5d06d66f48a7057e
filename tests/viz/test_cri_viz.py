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

from kubenotes.cri.images import PAUSE_IMAGE, default_catalogue  # noqa: E402
from kubenotes.kubelet.kuberuntime import oci_config, pod_start_calls, runtime_stack_graph  # noqa: E402
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
        by_method.setdefault(e["method"], cri.call_summary(e))
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
    assert cri.call_summary(err) == ("image nope:1", "error: rpc error: code = Unknown desc = not found")
    present = {"method": "ImageStatus", "request": {"image": {"image": "x"}},
               "response": {"image": {"size": 2 * 2**20}}}
    assert cri.call_summary(present)[1] == "present, 2.0 MiB"


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
    ex = cri.oci_excerpt(spec)
    assert ex["process.oomScoreAdj"] == -997 and ex["linux.cgroupsPath"].endswith(":cri-containerd:c1")
    assert "devices" not in ex["linux.resources"] and ex["linux.resources"]["memory"]["limit"] == 256 * 2**20
    assert ex["linux.namespaces"]["pid"] == "new" and ex["linux.namespaces"]["network"].startswith("/var/run/netns/")
    host = cri.oci_excerpt(oci_config(_pod(hostNetwork=True), "app"))
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


# --- layer cache -----------------------------------------------------------------------------------


def test_layer_cache_pulls_download_only_missing_layers():
    rows = cri.layer_cache_pulls(["nginx:1.27", "redis:7.4", "httpd:2.4", "redis:7.4"])
    nginx, redis, httpd, again = rows
    assert nginx["download_bytes"] == nginx["size_bytes"] and nginx["missing_layers"] == 7
    assert redis["missing_layers"] == 3 and httpd["missing_layers"] == 1  # the shared Debian base is there
    assert redis["size_bytes"] - redis["download_bytes"] == httpd["size_bytes"] - httpd["download_bytes"] > 28 * 2**20
    assert again["download_bytes"] == 0 and again["missing_layers"] == 0 and again["pull_seconds"] == 0.3
    assert [r["node_layers"] for r in rows] == [7, 10, 11, 11]


def test_layer_cache_pulls_with_preloaded_images_and_bandwidth():
    slow = cri.layer_cache_pulls(["redis:7.4"], preloaded=["nginx:1.27"], bandwidth_bytes_per_second=2**20)
    fast = cri.layer_cache_pulls(["redis:7.4"], preloaded=["nginx:1.27"], bandwidth_bytes_per_second=100 * 2**20)
    assert slow[0]["missing_layers"] == 3 and slow[0]["pull_seconds"] > fast[0]["pull_seconds"]
    table = cri.layer_cache_table(slow, caption="c")
    assert "3 of 4" in table and table.count("<tr>") - 1 == 1


# --- start latency ----------------------------------------------------------------------------------


def test_start_latency_orders_the_cache_states():
    new, base, cached = (cri.start_latency(cache=c) for c in cri.CACHE_STATES)
    assert new["started_seconds"] > base["started_seconds"] > cached["started_seconds"]
    assert cached["downloaded_bytes"] == 0 and cached["phases"]["image pull"] == 0
    assert "PullImage" not in [e["method"] for e in cached["trace"]]
    assert base["downloaded_bytes"] == 200 * 2**20 - int(28.2 * 2**20)  # the app layer only
    pause = sum(l.size_bytes for l in default_catalogue().get(PAUSE_IMAGE).layers)
    assert new["downloaded_bytes"] == 200 * 2**20 + pause


def test_start_latency_grows_with_image_size_and_shrinks_with_bandwidth():
    sizes = [cri.start_latency(image_mib=m)["started_seconds"] for m in (50, 100, 400)]
    assert sizes == sorted(sizes)
    assert sizes[2] - sizes[1] == pytest.approx(300 / 50, rel=1e-6)  # 300 MiB more at 50 MiB/s
    assert cri.start_latency(bandwidth_mib_per_second=500)["started_seconds"] < sizes[1] + 5


def test_start_latency_runtime_differences_come_from_the_model():
    c, o = (cri.start_latency(k, image_mib=100, cache="image cached") for k in cri.RUNTIME_KINDS)
    assert c["phases"]["sandbox"] == pytest.approx(0.25 + 0.05)  # RunPodSandbox + the CNI ADD
    assert o["phases"]["sandbox"] == pytest.approx(0.20 + 0.05)
    crun = cri.start_latency(image_mib=100, cache="image cached", low_level="crun")
    assert crun["started_seconds"] < c["started_seconds"]
    new_c, new_o = (cri.start_latency(k, cache="new node") for k in cri.RUNTIME_KINDS)
    assert new_c["phases"]["sandbox"] > new_o["phases"]["sandbox"] + 0.3  # containerd pulls pause, CRI-O does not


def test_start_latency_rejects_bad_parameters():
    with pytest.raises(ValueError, match="cache state"):
        cri.start_latency(cache="warm")
    with pytest.raises(ValueError, match="at least 30"):
        cri.start_latency(image_mib=10)
    with pytest.raises(ValueError, match="runtime kind"):
        cri.start_latency(kind="docker")


def test_start_latency_table_and_figure():
    results = [cri.start_latency(k) for k in cri.RUNTIME_KINDS]
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
    assert {a[0] for a, _ in calls} == set(cri.RUNTIME_KINDS)  # the chosen runtime and the other one
