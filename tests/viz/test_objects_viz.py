"""Chapter 01 tables, bar chart and widget: the numbers they show are the library's."""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from kubenotes.api.manifests import defaulting_steps, load_manifests  # noqa: E402
from kubenotes.api.resources import pod_requests, request_breakdown  # noqa: E402
from kubenotes.data import sample  # noqa: E402
from kubenotes.errors import FieldError, InvalidQuantity  # noqa: E402
from kubenotes.scheduler.testing import make_node, make_pod  # noqa: E402
from kubenotes.sim.objects import pod_with_sidecar  # noqa: E402
from kubenotes.viz import objects as ov  # noqa: E402


def quiet(fn, *args, **kwargs):
    """Build a widget outside Jupyter, where its Output would print to stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


# --- pod-level resources -----------------------------------------------------------------


def test_pod_level_resources_replace_the_container_sum():
    pod = make_pod("p", requests={"cpu": "200m"}, resources={"requests": {"cpu": "1"}}, overhead={"cpu": "50m"})
    b = request_breakdown(pod)
    assert b["pod-level"] == 1000 and b["effective"] == 1050 == pod_requests(pod)["cpu"]
    assert "pod-level" not in request_breakdown(pod, "memory")
    fig = ov.plot_request_breakdown(pod, "cpu")
    assert "pod level\nspec.resources" in [t.get_text() for t in fig.axes[0].get_yticklabels()]


# --- chart and explanation --------------------------------------------------------------


def test_plot_titles_legend_and_no_pyplot_leak():
    plt.close("all")
    fig = ov.plot_request_breakdown(pod_with_sidecar())
    assert [ax.get_title() for ax in fig.axes] == ["cpu: effective request 1450m", "memory: effective request 504Mi"]
    assert fig.get_suptitle() == "PodRequests of default/shop: QoS class Burstable"
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "1200m  (max)" in texts and "1450m" in texts and "700m" in texts
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "containers", "sidecars", "init container", "max of the two phases", "pod overhead"]
    assert plt.get_fignums() == []  # the notebook shows it once, when the cell returns it
    one = ov.plot_request_breakdown(pod_with_sidecar(), "memory")
    assert len(one.axes) == 1 and one.axes[0].get_xlabel() == "memory request (MiB)"


def test_explain_pod_lines_and_rejection():
    text = ov.explain_pod(pod_with_sidecar())
    assert "effective request <b>1450m</b> = max(running 700m, init peak 1200m) + overhead 250m" in text
    assert "effective request <b>504Mi</b>" in text and ">Burstable<" in text
    assert "rejects" not in text
    bad = ov.explain_pod(pod_with_sidecar(app_cpu_milli=1200, app_cpu_limit_milli=1000,
                                             app_memory_mib=600, app_memory_limit_mib=512))
    assert ('Pod "shop" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "1200m": '
            "must be less than or equal to cpu limit of 1") in bad
    assert 'Invalid value: "600Mi": must be less than or equal to memory limit of 512Mi' in bad


# --- tables ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    return load_manifests(sample("cluster"))


def test_kinds_table_counts_the_sample_cluster(cluster):
    t = ov.kinds_table(cluster)
    rows = t.split("<tbody>")[1].split("<tr>")[1:]
    assert "<b>Pod</b>" in rows[0] and ">44<" in rows[0] and "running-pods.yaml" in rows[0]
    node = next(r for r in rows if "<b>Node</b>" in r)
    assert "Cluster" in node and ">9<" in node and "nodes.yaml" in node


def test_quantity_table_is_exact_and_marks_rounding():
    t = ov.quantity_table(["100m", "1.5", "2Gi", "1e3", "500M"])
    rows = t.split("<tbody>")[1].split("<tr>")[1:]
    assert ">0.1<" in rows[0] and ">100<" in rows[0] and ">1 ↑<" in rows[0]  # 0.1 byte rounds up to 1
    assert ">1\u2009500<" in rows[1] and ">2 ↑<" in rows[1] and ">1.5<" in rows[1]
    assert ">2\u2009147\u2009483\u2009648<" in rows[2] and "binary suffix: ×2^30" in rows[2]
    assert "decimal exponent" in rows[3] and ">1\u2009000<" in rows[3]
    assert ">500\u2009000\u2009000<" in rows[4] and "decimal suffix: ×10^6" in rows[4]
    with pytest.raises(InvalidQuantity):
        ov.quantity_table(["lots"])


def test_defaulting_steps_in_order_without_touching_the_input(cluster):
    written = load_manifests("""
apiVersion: v1
kind: Pod
metadata: {name: api}
spec: {containers: [{name: api, image: "nginx:1.27.3", resources: {limits: {cpu: 500m, memory: 512Mi}}}]}
""", defaults=False).pods[0]
    snapshot = written.to_dict()
    steps = defaulting_steps(written, cluster.priority_classes)
    assert written.to_dict() == snapshot
    by_field = {s["field"]: s for s in steps}
    assert by_field["spec.containers[0].resources.requests.cpu"] == {
        "step": "SetDefaults_Pod", "field": "spec.containers[0].resources.requests.cpu", "before": "—", "after": "500m"}
    assert by_field["status.qosClass"]["after"] == "Guaranteed"
    assert by_field["spec.priority"]["after"] == "1000" and by_field["spec.priorityClassName"]["after"] == "default-priority"
    assert by_field["spec.schedulerName"]["step"] == "SetDefaults_PodSpec"
    order = ["SetDefaults_Pod", "SetDefaults_PodSpec", "PrepareForCreate", "Priority admission"]
    assert [s["step"] for s in steps] == sorted((s["step"] for s in steps), key=order.index)
    # the stored object is what load_manifests returns
    stored = load_manifests(sample("cluster", "priorityclasses.yaml"), """
apiVersion: v1
kind: Pod
metadata: {name: api}
spec: {containers: [{name: api, image: "nginx:1.27.3", resources: {limits: {cpu: 500m, memory: 512Mi}}}]}
""").pods[0]
    assert stored.spec.priority == 1000 and stored.spec.containers[0].resources.requests == {"cpu": "500m", "memory": "512Mi"}
    assert "PrepareForCreate" in ov.defaulting_table(written, cluster.priority_classes)


def test_defaulting_steps_raise_on_admission_errors():
    with pytest.raises(FieldError, match="no PriorityClass with name nope was found"):
        defaulting_steps(make_pod("p", priorityClassName="nope"))


def test_priority_admission_table_messages(cluster):
    pods = [make_pod("checkout", priorityClassName="high-priority"), make_pod("report"),
            make_pod("sneaky", priorityClassName="batch-low", priority=1000000),
            make_pod("typo", priorityClassName="high-prio")]
    t = ov.priority_admission_table(pods, cluster.priority_classes)
    rows = t.split("<tbody>")[1].split("<tr>")[1:]
    assert "<b>1000000</b>" in rows[0] and "admitted" in rows[0]
    assert "default-priority" in rows[1] and "<b>1000</b>" in rows[1]
    assert ("spec.priority: the integer value of priority (1000000) must not be provided in pod spec; "
            "priority admission controller computed -100 from the given PriorityClass name") in rows[2]
    assert "spec.priorityClassName: no PriorityClass with name high-prio was found" in rows[3]
    assert pods[2].spec.priority == 1000000 and pods[0].spec.priority is None  # inputs untouched


def test_selector_and_toleration_tables(cluster):
    t = ov.label_selector_table(["app in (web,redis),!canary", "app!=web"],
                                {"web": {"app": "web"}, "canary": {"app": "web", "canary": "true"}, "bare": {}})
    rows = t.split("<tbody>")[1].split("<tr>")[1:]
    assert "<code>app in (redis,web),!canary</code>" in rows[0]  # sorted by key, values sorted
    assert rows[0].count("✓") == 1 and rows[1].count("✓") == 1  # != matches "bare": no key at all
    nodes = ov.node_selector_table([("nvidia.com/gpu.memory", "Gt", ["20000"]), ("nvidia.com/gpu.memory", "Lt", ["20000"])],
                                   cluster.nodes)
    rows = nodes.split("<tbody>")[1].split("<tr>")[1:]
    assert rows[0].count("✓") == 2 and rows[1].count("✓") == 0 and rows[1].count("✗") == 9
    assert "40960" in rows[0] and "—" in rows[0]
    named = ov.node_selector_table({"gpu pool": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "node-pool", "operator": "In", "values": ["gpu"]}]}]}}, cluster.nodes)
    assert named.count("✓") == 2
    with pytest.raises(FieldError):
        ov.node_selector_table([("cores", "Gt", ["many"])], [make_node("n")])
    taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
              {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]
    tt = ov.toleration_table([{"key": "dedicated", "operator": "Exists"}, {"operator": "Exists"},
                              {"key": "dedicated", "value": "tpu"}], taints)
    rows = tt.split("<tbody>")[1].split("<tr>")[1:]
    assert [r.count("✓") for r in rows] == [1, 2, 0]
    assert "dedicated=gpu:NoSchedule" in tt and "node.kubernetes.io/not-ready:NoExecute" in tt
    assert "{key: dedicated, value: tpu}" in tt


def test_requests_table_marks_scheduler_defaults(cluster):
    apiserver = cluster.get("Pod", "kube-apiserver-cp-1", "kube-system")
    t = ov.requests_table([apiserver])
    assert "Burstable" in t and "250m" in t
    assert "color:#ef6c00;font-weight:bold\">200Mi<" in t  # memory filled in by the scheduler's default
    assert ">0<" in t  # PodRequests memory: nothing requested


def test_containers_table_roles():
    t = ov.containers_table(pod_with_sidecar())
    assert t.index("istio-proxy") < t.index("migrate") < t.index("<code>app</code>")
    assert "sidecar (init, restartPolicy: Always)" in t and "cpu 250m, memory 120Mi" in t


# --- widget ----------------------------------------------------------------------------------


def test_request_panel_first_slider_drives_the_update(monkeypatch):
    seen = []
    monkeypatch.setattr(ov, "plot_request_breakdown", lambda pod: seen.append(pod) or None)
    panel = quiet(ov.request_panel)
    first = panel.children[0].children[0]
    assert first.description == "app requests.cpu (m)" and first.value == 500
    assert [c.description for c in panel.children[1].children] == ["app requests.memory (Mi)", "app limits.memory (Mi)"]
    assert "kubenotes-control" in first._dom_classes and "kubenotes-live-output" in panel.children[-1]._dom_classes
    assert seen[-1].spec.containers[0].resources.requests["cpu"] == "500m"
    quiet(setattr, first, "value", 650)
    assert seen[-1].spec.containers[0].resources.requests["cpu"] == "650m"
    assert request_breakdown(seen[-1])["running"] == 850


def test_request_panel_rejects_unknown_keys():
    with pytest.raises(TypeError, match="cpu"):
        ov.request_panel(cpu=1)


def test_request_breakdown_fits_a_1000px_column():
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    fig = ov.plot_request_breakdown(pod_with_sidecar())
    width, _ = inline_png_size(fig)
    assert 700 < width <= MAX_INLINE_WIDTH_PX  # was 1,091 px in chapter 01.00
    plt.close(fig)


def test_node_selector_table_wraps_within_the_output_column(cluster):
    """01.00's operator table was 1,038 px wide in a 1,008 px output: its cells were white-space:nowrap."""
    import re

    t = ov.node_selector_table([("node-role.kubernetes.io/control-plane", "DoesNotExist", []),
                                ("topology.kubernetes.io/zone", "NotIn", ["us-central1-a"])], cluster.nodes)
    assert re.match(r'<table [^>]*style="[^"]*max-width:100%', t)
    body = t.split("<tbody>")[1]
    assert "nowrap" not in body  # label values wrap at their hyphens
    first = re.findall(r'<tr><td style="([^"]*)"><code>(.*?)</code>', body)
    assert len(first) == 2 and all("max-width:260px" in css and "overflow-wrap:anywhere" in css for css, _ in first)
    assert first[0][1] == "node-role.kubernetes.io/<wbr>control-plane DoesNotExist"  # breaks after the prefix
