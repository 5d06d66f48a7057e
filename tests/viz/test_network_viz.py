"""Chapter 06.00's views (:mod:`kubenotes.viz.network`): the cluster graph, walk renderings, sessions, the panel."""

import matplotlib
import pytest

matplotlib.use("Agg")

from kubenotes.cni.calico.packet import example_cluster, network_from_objects  # noqa: E402
from kubenotes.sim.network import packet_walk  # noqa: E402
from kubenotes.cni.calico.bgp import route_withdrawal  # noqa: E402
from kubenotes.viz import network as nv  # noqa: E402
from kubenotes.viz.widgets import CONTROL_CLASS, LIVE_OUTPUT_CLASS  # noqa: E402


@pytest.mark.parametrize("mode,bgp,tunnels,tunnel_kind", [("vxlan", 0, 3, "vxlan"), ("ipip", 3, 3, "ipip"),
                                                         ("bgp", 3, 0, None)])
def test_cluster_graph(mode, bgp, tunnels, tunnel_kind):
    net = network_from_objects(example_cluster(3), mode=mode)[0]
    g = nv.cluster_graph(net)
    kinds = [k for *_, k in g.edges(data="kind")]
    assert kinds.count("bgp") == bgp and kinds.count("tunnel") == tunnels
    assert sum(1 for _, k in g.nodes(data="kind") if k == "pod") == 4
    assert sum(1 for _, k in g.nodes(data="kind") if k == tunnel_kind) == (3 if tunnel_kind else 0)
    for p in net.pods.values():
        assert g.has_edge(p.key, f"{p.node}/{p.veth}") and g.has_edge(f"{p.node}/{p.veth}", p.node)


def test_crosssubnet_graph_has_tunnels_only_across_subnets():
    net = network_from_objects(example_cluster(3, subnets=2), mode="vxlan-crosssubnet")[0]
    tunnels = {tuple(sorted((a.split("/")[0], b.split("/")[0]))) for a, b, k in nv.cluster_graph(net).edges(data="kind")
               if k == "tunnel"}
    assert tunnels == {("node-0", "node-1"), ("node-1", "node-2")}


def test_cluster_figure_labels_and_legend():
    net = network_from_objects(example_cluster(2), mode="ipip")[0]
    fig = nv.cluster_figure(net)
    ax = fig.axes[0]
    texts = {t.get_text() for t in ax.texts}
    assert "node-0" in texts and any(t.startswith("tunl0") for t in texts)
    assert "BGP session (1)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_walk_renderings():
    walk = packet_walk(example_cluster(2), "default/client", "default/web-1-0", mode="vxlan", size_bytes=1000)
    html = nv.walk_table_html(walk)
    assert html.count("<tr>") == len(walk["hops"]) + 1 and "overhead 50 bytes, pod MTU 1450" in html
    fig = nv.header_stack_figure(walk)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[2] == "node-0/\nvxlan.calico"
    boxes = [p for p in ax.patches if p.get_linewidth() == 2]
    assert len(boxes) == 4  # the four headers pushed by vxlan.calico
    assert "1050 B" in [t.get_text() for t in ax.texts]


def test_routes_and_withdrawal_tables():
    net = network_from_objects(example_cluster(3), mode="ipip")[0]
    html = nv.routes_table(net, "node-0")
    assert "blackhole" in html and "bird" in html and "dhcp" in html
    w = route_withdrawal(net, "node-2")
    t = nv.withdrawal_table(w, caption="c")
    assert t.count("<tr>") == 3 and w["node-0"]["withdrawn"][0] in t


def test_sessions_figure():
    fig = nv.sessions_figure(max_nodes=50, reflectors=(2,), mark=10)
    lines = fig.axes[0].get_lines()
    mesh = [l for l in lines if l.get_label().startswith("full mesh")][0]
    assert list(mesh.get_ydata()[:3]) == [1, 3, 6] and mesh.get_ydata()[8] == 45
    rr = [l for l in lines if "route reflectors" in l.get_label()][0]
    assert rr.get_ydata()[-1] == 1 + 48 * 2


def test_mode_table():
    t = nv.mode_table(10, 1460)
    assert t.count("<tr>") == 6 and "no: 2 fragments" in t and ">45<" in t


def test_mode_panel_recomputes_when_the_first_slider_moves(monkeypatch):
    panel = nv.mode_panel(node_count=3)
    rows, out = panel.children[:-1], panel.children[-1]
    controls = [w for row in rows for w in row.children]
    assert LIVE_OUTPUT_CLASS in out._dom_classes and all(CONTROL_CLASS in c._dom_classes for c in controls)
    slider = controls[0]
    assert type(slider).__name__ == "IntSlider" and slider.value == 3
    calls = []
    original = nv.mode_summary
    monkeypatch.setattr(nv, "mode_summary", lambda *a, **k: calls.append(a) or original(*a, **k))
    slider.value = 5
    assert calls and calls[0][0] == 5


def test_mode_panel_draws_the_header_stack_once_per_walk(monkeypatch):
    """The walk node-0 -> node-1 is the same for every node count: its figure is drawn once, a new size redraws it."""
    drawn = []
    original = nv.header_stack_figure
    monkeypatch.setattr(nv, "header_stack_figure", lambda walk, *a, **k: drawn.append(walk) or original(walk, *a, **k))
    panel = nv.mode_panel(node_count=3)
    controls = [w for row in panel.children[:-1] for w in row.children]
    nodes, size = controls[0], controls[1]
    assert len(drawn) == 1
    nodes.value = 5
    nodes.value = 6
    assert len(drawn) == 1
    size.value = 2950  # does not fit the pod MTU: another walk
    assert len(drawn) == 2 and drawn[1] != drawn[0]


def test_vxlan_walk_says_the_kernel_encapsulates():
    # Issue #26: the walk row "UDP port 4789 ... handed to vxlan.calico" suggested a process on port 4789
    # wraps packets; the kernel's vxlan driver does, on both nodes.
    walk = packet_walk(example_cluster(2), "default/client", "default/web-1-0", mode="vxlan", size_bytes=1000)
    action = {h["at"]: h["action"] for h in walk["hops"]}
    assert "the kernel's vxlan driver pushes" in action["node-0/vxlan.calico"]
    assert "port 4789, the port the kernel's vxlan driver listens on" in action["node-1/eth0"]
    assert "no user-space process" in action["node-1/eth0"] and "handed to" not in action["node-1/eth0"]
    assert action["node-1/vxlan.calico"].startswith("the kernel's vxlan driver decapsulates: pops outer IPv4")


def _png_width_px(fig):
    import io

    from PIL import Image

    from kubenotes.viz.widgets import figure_png

    return Image.open(io.BytesIO(figure_png(fig))).size[0]  # as the inline backend shows it (tight box)


@pytest.mark.parametrize("node_count,mode", [(2, "vxlan"), (3, "vxlan-crosssubnet"), (5, "bgp"), (6, "ipip")])
def test_cluster_figure_fits_a_1000px_column_with_readable_labels(node_count, mode):
    # Issue #26: at 5-6 nodes the figure was 2.8 in per node wide (1,900 px), shown shrunk in a ~1000 px column:
    # labels of about 4 px and arcs tangled along one row.
    net = network_from_objects(example_cluster(node_count, subnets=2), mode=mode)[0]
    fig = nv.cluster_figure(net)
    width = _png_width_px(fig)
    assert width <= 1000 and fig.get_size_inches()[1] <= nv.CLUSTER_FIGURE_INCHES[1]
    shown = min(1.0, 1000 / width)
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_text()]
    assert len(labels) == len(nv.cluster_graph(net)) and {t.get_fontsize() for t in labels} == {nv.CLUSTER_FONT_SIZE}
    assert nv.CLUSTER_FONT_SIZE * fig.dpi / 72 * shown >= 9  # px on screen
    # the shell layout keeps every vertex at least ~0.55 in from every other, whatever the node count
    pos = [ax.transData.transform(t.get_position()) / fig.dpi for t in labels]
    closest = min(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 for i, a in enumerate(pos) for b in pos[i + 1:])
    assert closest >= 0.55


def test_header_stack_figure_fits_a_1000px_column():
    walk = packet_walk(example_cluster(3, subnets=2), "default/client", "default/web-1-0", mode="vxlan", size_bytes=1400)
    assert len(walk["hops"]) == 9
    assert _png_width_px(nv.header_stack_figure(walk)) <= 1000


def test_policy_panel_follows_its_controls_and_every_control_changes_the_output(monkeypatch):
    from kubenotes.viz.widgets import panels, sweep_controls

    walks = []
    original = nv.packet_walk
    monkeypatch.setattr(nv, "packet_walk", lambda *a, **k: walks.append(original(*a, **k)) or walks[-1])
    panel = nv.policy_panel(deny_web=True, allow_client=True, client_role="none")
    controls = {c.description: c for row in panel.children[:-1] for c in row.children}
    assert not walks[-1]["allowed"]  # not labelled role=client: allow-client does not match, deny-web drops it
    controls["client role"].value = "client"
    assert walks[-1]["allowed"] and walks[-1]["policy"][1]["policy"] == "default/allow-client"
    controls["to"].value = "default/web-1-0:9090"
    assert not walks[-1]["allowed"]
    report = sweep_controls([panels()[-1]])
    assert report["errors"] == [] and report["unchanged"] == [] and report["raw_markup"] == []


def test_policy_table_names_the_deciding_policy_and_rule():
    from kubenotes.cni.calico.policy import example_policies

    objs = example_cluster(2)
    objs[2]["metadata"]["labels"] = {"role": "client"}  # client
    t = str(nv.policy_table(packet_walk(objs + example_policies(True, True), "default/client", "default/web-1-0")))
    assert "default/allow-client ingress[0] (cali-pi-_" in t and "default/allow-client, default/deny-web" in t
    assert "allowed" in t
