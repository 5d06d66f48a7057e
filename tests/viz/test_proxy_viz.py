"""The Services and kube-proxy chapter's views (kubenotes.viz.proxy) over kubenotes.sim.services: rules, graph, histograms, drain, discovery."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import json
import pathlib
import re

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from kubenotes.viz.proxy import (  # noqa: E402
    balance_histogram,
    balance_panel,
    balance_table,
    discovery_table,
    dns_records_table,
    endpoint_slice_table,
    resolution_table,
    rule_graph,
    rule_graph_figure,
    rules_diff,
    rules_html,
    rules_panel,
    side_by_side,
)
from kubenotes.viz.proxy import _rules_view as rules_view  # noqa: E402  (rules_panel's callback)
from kubenotes.viz.html import Html  # noqa: E402
from kubenotes.dns.coredns import ClusterDNS  # noqa: E402
from kubenotes.sim.scenarios import simulate_readiness_drain  # noqa: E402
from kubenotes.sim.services import (  # noqa: E402
    NODE_NAME,
    WEB_CLUSTER_IP,
    balance_runs,
    discovery_objects,
    discovery_timeline,
    nftables_rules,
    service_rules,
    svc_probabilities,
    web_objects,
    web_state,
)


@pytest.mark.parametrize("n, probs", [
    (1, [None]),
    (2, ["0.5000000000", None]),
    (3, ["0.3333333333", "0.5000000000", None]),
    (4, ["0.2500000000", "0.3333333333", "0.5000000000", None]),
])
def test_probabilities_per_endpoint_count(n, probs):
    text = service_rules(web_state(n))
    assert svc_probabilities(text) == probs
    assert text.count(":KUBE-SEP-") == n and text.count(":KUBE-SVC-") == 1
    assert all(ln.startswith((":KUBE-S", "-A KUBE-S")) for ln in text.splitlines())


def test_rules_for_the_chapter_service():
    text = service_rules(web_state(3))
    assert f"-d {WEB_CLUSTER_IP} --dport 80" in text
    assert "--to-destination 10.244.1.10:8080" in text and "--to-destination 10.244.1.12:8080" in text
    affinity = service_rules(web_state(3, session_affinity=True))
    assert "--rcheck --seconds 10800 --reap" in affinity and "--rcheck" not in text
    full = service_rules(web_state(3), service_only=False)
    assert full.startswith("*filter") and "KUBE-POSTROUTING" in full


def test_nftables_alongside():
    nft = nftables_rules(web_state(3))
    assert "numgen random mod 3" in nft and nft.count("chain endpoint-") == 3
    assert "service-endpoints-check" not in nft


def test_rules_view_highlights():
    view = rules_view(3)
    assert "KUBE-SVC jump probabilities: 0.3333333333, 0.5000000000, rest" in view
    assert view.count('color:#2e7d32">KUBE-SEP-') >= 6 and 'color:#e65100">--probability 0.5000000000' in view
    assert "numgen random mod 3" in view
    assert "nft list table" not in rules_html("x")


def test_rules_panel_wiring():
    with contextlib.redirect_stdout(io.StringIO()):
        panel = rules_panel()
    slider = panel.children[0].children[0]
    assert slider.description == "endpoints" and slider.value == 3 and "kubenotes-control" in slider._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes
    assert rules_view(5) != rules_view(3) and "0.2000000000" in rules_view(5)


def test_rule_graph_shape_and_probabilities():
    objs = web_objects(3)
    g = rule_graph(service_rules(web_state(3)), objs)
    kinds = {}
    for n, d in g.nodes(data=True):
        kinds.setdefault(d["kind"], []).append(n)
    assert {k: len(v) for k, v in kinds.items()} == {"Service": 1, "KUBE-SVC": 1, "KUBE-SEP": 3, "Pod": 3}
    assert list(g.successors(kinds["Service"][0])) == kinds["KUBE-SVC"]
    assert sorted(g.nodes[p]["label"].split("\n")[0] for p in kinds["Pod"]) == ["web-0", "web-1", "web-2"]
    for sep in kinds["KUBE-SEP"]:
        assert len(list(g.successors(sep))) == 1
    fig = rule_graph_figure(g)
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"KUBE-SEP-* chain", "1/3", "1/2", "rest"} <= texts


def test_rule_graph_figure_fits_the_column_and_arrows_start_at_box_edges():
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    objs = web_objects(3)
    fig = rule_graph_figure(rule_graph(service_rules(web_state(3)), objs))
    width, _ = inline_png_size(fig)
    assert 700 < width <= MAX_INLINE_WIDTH_PX  # was 1,196 px in chapter 06.01 (shown at 84 %)
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    boxes = [t for t in ax.texts if t.get_bbox_patch() is not None]
    for arrow in (a for a in ax.texts if getattr(a, "arrow_patch", None) is not None):
        x0 = arrow.xyann[0]
        # the arrow starts right of the box it leaves (it used to start 0.32 data units from the centre, inside it)
        source = min(boxes, key=lambda t: abs(t.get_position()[1] - arrow.xyann[1]) * 10 + abs(t.get_position()[0] - x0)
                     if t.get_position()[0] < x0 else float("inf"))
        bb = source.get_bbox_patch().get_window_extent(renderer)
        right = ax.transData.inverted().transform((bb.x1, bb.y0))[0]
        assert x0 >= right, (source.get_text(), x0, right)


def test_balance_runs_and_figure():
    runs = balance_runs(3, 10_000, 50, 0)
    assert list(runs) == ["iptables random", "IPVS round robin", "ClientIP affinity (iptables)"]
    assert all(sum(r.counts.values()) == 10_000 for r in runs.values())
    assert set(runs["IPVS round robin"].counts.values()) == {3334, 3333}
    assert runs["iptables random"].p_value > 0.01
    assert set(runs["ClientIP affinity (iptables)"].endpoints_per_client.values()) == {1}
    fig = balance_histogram(runs)
    assert len(fig.axes) == 3 and "χ²" in fig.axes[0].get_title()
    assert "max endpoints per client" in balance_table(runs)
    with contextlib.redirect_stdout(io.StringIO()):
        panel = balance_panel()
    assert len(panel.children[0].children) == 3



def test_balance_panel_redraws_its_figure_as_a_new_one():
    """The panel keeps one figure per endpoint count and updates it: the PNG is a new figure's, to the byte."""
    from kubenotes.viz.proxy import _balance_figure
    from kubenotes.viz.widgets import figure_png

    kept = _balance_figure(balance_runs(3, 10_000, 1, 0))       # y axis up to 10,000 (one client, affinity)
    for clients, seed in ((50, 0), (500, 7), (1, 3)):
        runs = balance_runs(3, 10_000, clients, seed)
        assert _balance_figure(runs, kept) is kept
        assert figure_png(kept) == figure_png(balance_histogram(runs)), (clients, seed)


def test_readiness_drain_removes_the_endpoint():
    run = simulate_readiness_drain()
    before, after = service_rules(run.state("before")), service_rules(run.state("after"))
    assert before.count(":KUBE-SEP-") == 3 and after.count(":KUBE-SEP-") == 2
    assert f"--to-destination {run.failed_ip}:80" in before and run.failed_ip not in after
    assert svc_probabilities(after) == ["0.5000000000", None]
    eps = {e["addresses"][0]: e["conditions"] for s in run.slices("after") for e in s["endpoints"]}
    assert eps[run.failed_ip] == {"ready": False, "serving": False, "terminating": False}
    assert sum(c["ready"] for c in eps.values()) == 2
    pod = run.cluster.get("pods", run.failed_pod, "default")
    assert pod["status"]["phase"] == "Running"              # not ready, still running: nothing restarts it
    diff = rules_diff(before, after)
    assert diff.count("<div") == 4 and "+ " not in diff      # a declaration, 2 SEP rules, 1 SVC jump: only removed
    assert "False" in endpoint_slice_table(run.slices("after"))
    assert rules_diff("a", "a").endswith("(no change)</pre>")


def test_discovery_env_vs_dns():
    tl = discovery_timeline()
    assert not any(k.startswith("WEB_") for k in tl["env"])
    assert tl["env_restarted"]["WEB_SERVICE_HOST"] == WEB_CLUSTER_IP
    assert "KUBERNETES_SERVICE_HOST" in tl["env"]
    assert [r.data for r in tl["dns"]] == [WEB_CLUSTER_IP]
    table = discovery_table(tl)
    assert "(none)" in table and "A 10.96.0.100" in table
    assert "web.default.svc.cluster.local." in resolution_table(tl["resolution"])


def test_dns_records_of_the_chapter_objects():
    records = ClusterDNS(discovery_objects()).records()
    rows = {(r.name, r.rtype, r.data) for r in records}
    assert ("kube-dns.kube-system.svc.cluster.local.", "A", "10.96.0.10") in rows
    assert ("_dns._udp.kube-dns.kube-system.svc.cluster.local.", "SRV",
            "0 100 53 kube-dns.kube-system.svc.cluster.local.") in rows
    assert ("db-0.db.default.svc.cluster.local.", "A", "10.244.1.30") in rows
    assert ("_postgres._tcp.db.default.svc.cluster.local.", "SRV", "0 50 5432 db-1.db.default.svc.cluster.local.") in rows
    assert "10-244-1-10.default.pod.cluster.local." in dns_records_table(records)
    assert NODE_NAME == "worker-1"


def test_rules_wrap_so_each_jump_target_stays_in_the_column():
    # Defect (issue #26): the rules <pre> kept lines whole (white-space:pre), so a ~1000 px column cut off
    # the "-j KUBE-SEP-..." target of every probability rule.
    view = rules_view(8, session_affinity=True)
    longest = max(len(ln) for ln in service_rules(web_state(8, session_affinity=True)).splitlines())
    assert longest * 6.6 > 1000  # 11 px monospace: about 6.6 px a character, wider than the column
    pres = re.findall(r"<pre style=\"([^\"]*)\"", view)
    assert len(pres) == 2 and all("white-space:pre-wrap" in css and "overflow-wrap:anywhere" in css for css in pres)
    assert "white-space:pre;" not in view
    # every rule is its own hanging-indented block, its target inside it
    blocks = re.findall(r'<span style="display:block;[^"]*">(.*?)</span>(?=<span style="display:block|</pre>)', view)
    probability_rules = [b for b in blocks if "--probability" in b]
    assert len(probability_rules) == 7 and all(re.search(r"-j <b[^>]*>KUBE-SEP-", b) for b in probability_rules)
    assert "white-space:pre-wrap" in rules_diff("-A KUBE-SVC-X -j KUBE-SEP-Y", "")


def test_side_by_side_is_one_html_object():
    from kubenotes.sim.network import add_endpoint_slices

    slices = [o for o in add_endpoint_slices(web_objects(2)) if o["kind"] == "EndpointSlice"]
    before = endpoint_slice_table(slices, caption="before")
    after = endpoint_slice_table(slices[:0], caption="after")
    both = side_by_side(before, after)
    assert type(both) is Html and both._repr_html_() == str(both)
    assert both.count("<table") == 2 and both.index(before) < both.index(after)
    assert "flex-wrap:wrap" in both and both.count("overflow-x:auto") == 2
    with pytest.raises(ValueError, match="at least one part"):
        side_by_side()


_VIZ_HTML_FUNCTIONS = {name for mod in ("kubenotes.viz.proxy", "kubenotes.viz.network")
                       for name, f in inspect.getmembers(__import__(mod, fromlist=["x"]), inspect.isfunction)
                       if inspect.signature(f).return_annotation in ("Html", Html)}


@pytest.mark.parametrize("chapter", ["06.00-cni-and-calico", "06.01-services-and-kube-proxy"])
def test_no_cell_of_the_network_chapters_ends_with_a_tuple_of_html(chapter):
    # Jupyter shows a tuple by its repr: a cell ending with (Html, Html) prints raw "<table ..." markup.
    assert {"endpoint_slice_table", "rules_html", "walk_table_html"} <= _VIZ_HTML_FUNCTIONS
    nb = json.loads((pathlib.Path(__file__).parents[2] / "notebooks" / f"{chapter}.ipynb").read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        tree = ast.parse("".join(cell["source"]))
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Tuple):
            calls = [e.func.id for e in last.value.elts if isinstance(e, ast.Call) and isinstance(e.func, ast.Name)]
            assert not set(calls) & _VIZ_HTML_FUNCTIONS, "".join(cell["source"])


@pytest.fixture(scope="module")
def service_types_run():
    from kubenotes.data import sample
    from kubenotes.sim.cli import run

    return run([sample("network", "service-types.yaml")], until=20, seed=0)


def test_service_types_rules_and_dns(service_types_run):
    from kubenotes.proxy.endpoints import proxy_state
    from kubenotes.proxy.iptables import iptables_save
    from kubenotes.sim.services import rules_for_service
    from kubenotes.viz.proxy import _service_type_view as service_type_view

    c = service_types_run
    objects = c.list("nodes") + c.list("services") + c.list("endpointslices") + c.list("pods")
    text = iptables_save(proxy_state(objects, "worker-1"))
    rules = {s["metadata"]["name"]: rules_for_service(text, "default", s["metadata"]["name"])
             for s in c.list("services", "default")}
    assert set(rules) == {"kubernetes", "web", "web-nodeport", "web-lb", "db-external", "legacy-db", "web-headless"}
    # NodePort and LoadBalancer (no ingress address without a cloud controller): KUBE-NODEPORTS -> KUBE-EXT -> KUBE-SVC
    for name, port in (("web-nodeport", 30080), ("web-lb", 30081)):
        r = rules[name]
        assert f"--dport {port} -j KUBE-EXT-" in r and r.count("-j KUBE-NODEPORTS") == 1 and ":KUBE-EXT-" in r
        assert r.startswith("*nat\n") and "--probability 0.5000000000" in r and "*filter" not in r
    assert "KUBE-NODEPORTS" not in rules["web"] and "KUBE-EXT" not in rules["web"]
    assert rules["db-external"] == rules["web-headless"] == ""
    assert "--to-destination 192.168.1.50:5432" in rules["legacy-db"] and "statistic" not in rules["legacy-db"]
    assert not any(ln for ln in rules["web"].splitlines() if "web-nodeport" in ln or "web-lb" in ln)
    dns = ClusterDNS(objects)
    headless = service_type_view(c.get("services", "web-headless", "default"), text, dns, c.now)
    assert type(headless) is Html and "(no rule: kube-proxy skips the Service, clusterIP: None (headless)" in headless
    assert headless.count(" A 10.244.1.") == 2
    external = service_type_view(c.get("services", "db-external", "default"), text, dns, c.now)
    assert "type ExternalName" in external and "CNAME db.example.com." in external
    nodeport = service_type_view(c.get("services", "web-nodeport", "default"), text, dns, c.now)
    assert "80:30080/TCP" in nodeport and "white-space:pre-wrap" in nodeport and "KUBE-NODEPORTS" in nodeport


def test_service_types_panel_and_the_taken_cluster_ip(service_types_run):
    from kubenotes.apiserver.status import ApiError
    from kubenotes.viz.proxy import service_types_panel

    with contextlib.redirect_stdout(io.StringIO()):
        panel = service_types_panel(service_types_run, "legacy-db")
    dropdown = panel.children[0].children[0]
    assert dropdown.description == "Service" and dropdown.value == "legacy-db" and "web-lb" in dropdown.options
    copy = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web-copy", "namespace": "default"},
            "spec": {"clusterIP": WEB_CLUSTER_IP, "selector": {"app": "web"}, "ports": [{"port": 80}]}}
    with pytest.raises(ApiError) as err:
        service_types_run.apply(copy)
    assert err.value.status["code"] == 422 and err.value.status["message"] == (
        'Service "web-copy" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.100"}: '
        "failed to allocate IP 10.96.0.100: provided IP is already allocated")
