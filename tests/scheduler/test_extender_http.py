"""A scheduler extender over real HTTP: a stdlib http.server on 127.0.0.1 answering upstream's JSON."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubenotes.scheduler.config import API_VERSION, KIND, load_config
from kubenotes.scheduler.extender import DemoExtender, ExtenderServer
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def cluster():
    return [make_node(n, labels={ZONE: z}) for n, z in (("a1", "za"), ("a2", "za"), ("b1", "zb"), ("c1", "zc"))]


def config(url_prefix, **extra):
    e = {"urlPrefix": url_prefix, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 3,
         "bindVerb": "bind", "httpTimeout": "2s", **extra}
    return load_config({"apiVersion": API_VERSION, "kind": KIND, "extenders": [e]})


@pytest.mark.parametrize("node_cache_capable", [False, True])
def test_scheduling_through_a_real_http_extender(node_cache_capable):
    demo = DemoExtender(avoid_zones=["zc"], prefer_zone="zb", nodes=cluster())
    with ExtenderServer(demo) as srv:
        sched = new_scheduler(cluster(), [make_pod("web", requests={"cpu": "1"})],
                              config=config(srv.url_prefix, nodeCacheCapable=node_cache_capable))
        (t,) = sched.run()
    assert t.node_name == "b1"
    assert t.filter["c1"][srv.url_prefix] == "zone zc is avoided by the extender"
    assert t.final_score["b1"][srv.url_prefix] == 10 * 3 * 10
    assert demo.bindings == [("default/web", "b1")] and sched.bindings == [("default/web", "b1")]
    verbs = [v for v, _ in srv.requests]
    assert verbs == ["filter", "prioritize", "bind"]
    filter_request = srv.requests[0][1]
    assert set(filter_request) == {"Pod", "Nodes", "NodeNames"}
    if node_cache_capable:
        assert filter_request["Nodes"] is None and filter_request["NodeNames"] == ["a1", "a2", "b1", "c1"]
    else:
        assert filter_request["NodeNames"] is None
        assert [n["metadata"]["name"] for n in filter_request["Nodes"]["items"]] == ["a1", "a2", "b1", "c1"]
    # the prioritizer was sent only the nodes the filter kept
    prio = srv.requests[1][1]
    assert (prio["NodeNames"] or [n["metadata"]["name"] for n in prio["Nodes"]["items"]]) == ["a1", "a2", "b1"]
    assert srv.requests[2][1] == {"PodName": "web", "PodNamespace": "default", "PodUID": "default/web", "Node": "b1"}


class _Status(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        return


def test_a_non_200_answer_fails_the_attempt_with_upstreams_message():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Status)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/scheduler"
        (t,) = new_scheduler(cluster(), [make_pod("web")], config=config(url)).run(max_attempts=1)
    finally:
        server.shutdown()
        server.server_close()
    assert (t.node_name, t.message) == (None, f"failed filter with extender at URL {url}/filter, code 503")


def _closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_an_unreachable_extender():
    url = f"http://127.0.0.1:{_closed_port()}/scheduler"
    (t,) = new_scheduler(cluster(), [make_pod("web")], config=config(url)).run(max_attempts=1)
    host_port = url.split("/")[2]
    assert t.message == f'Post "{url}/filter": dial tcp {host_port}: connect: connection refused'
    # ignorable: the filter, prioritize and bind failures are skipped and the default plugins decide
    sched = new_scheduler(cluster(), [make_pod("web")], config=config(url, ignorable=True))
    (t,) = sched.run()
    assert t.node_name is not None and sched.bindings == [("default/web", t.node_name)]
    assert t.filter["a1"][url].startswith(f'ignored error: Post "{url}/filter": dial tcp')
    assert url not in t.final_score[t.node_name]


def test_the_server_answers_404_for_an_unknown_verb_and_500_when_the_service_fails():
    class Broken:
        def filter(self, args):
            raise RuntimeError("boom")

    with ExtenderServer(Broken()) as srv:
        import urllib.error
        import urllib.request

        for verb, code in (("filter", 500), ("nope", 404)):
            req = urllib.request.Request(f"{srv.url_prefix}/{verb}", data=json.dumps({}).encode(), method="POST")
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with pytest.raises(urllib.error.HTTPError) as e:
                opener.open(req, timeout=5)
            assert e.value.code == code


def test_the_schedule_command_calls_the_extender_of_the_sample_configuration(tmp_path, capsys):
    # data/extenders/scheduler-config.yaml with its urlPrefix pointed at a demo extender on a free port
    import yaml

    from kubenotes.api.manifests import load_manifests
    from kubenotes.cli import main
    from kubenotes.data import sample

    cfg = yaml.safe_load(sample("extenders", "scheduler-config.yaml").read_text())
    demo = DemoExtender(avoid_zones=["us-central1-c"], prefer_zone="us-central1-a",
                        nodes=load_manifests(sample("cluster", "nodes.yaml")).nodes)
    with ExtenderServer(demo) as srv:
        cfg["extenders"][0]["urlPrefix"] = srv.url_prefix
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(cfg))
        argv = ["schedule", str(sample("cluster")), str(sample("scheduling", "fits.yaml")), "--config", str(path)]
        assert main([*argv, "-o", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)["pods"]
    assert rec["nodeName"].startswith("worker-a-")
    assert rec["filter"]["worker-c-1"][srv.url_prefix] == "zone us-central1-c is avoided by the extender"
    assert rec["finalScore"][rec["nodeName"]][srv.url_prefix] == 10 * 2 * 10
    assert [v for v, _ in srv.requests] == ["filter", "prioritize", "bind"]
    assert demo.bindings == [("web/" + rec["name"], rec["nodeName"])]


def test_https_extender_with_enable_https_its_ca_or_neither(tmp_path):
    # pkg/scheduler/extender.go makeTransport: enableHTTPS without a CA skips verification; with tlsConfig.caData
    # the server's certificate is verified; with neither, the self-signed certificate is refused
    import base64

    from kubenotes.sim.serve import self_signed_cert

    cert, key = self_signed_cert()
    (tmp_path / "tls.crt").write_bytes(cert)
    (tmp_path / "tls.key").write_bytes(key)
    with ExtenderServer(DemoExtender(prefer_zone="zb"), tls=(str(tmp_path / "tls.crt"), str(tmp_path / "tls.key"))) as srv:
        assert srv.url_prefix.startswith("https://127.0.0.1:")
        for extra in ({"enableHTTPS": True}, {"tlsConfig": {"caData": base64.b64encode(cert).decode()}}):
            (t,) = new_scheduler(cluster(), [make_pod("web")], config=config(srv.url_prefix, **extra)).run()
            assert t.node_name == "b1", extra
        (t,) = new_scheduler(cluster(), [make_pod("web")], config=config(srv.url_prefix)).run(max_attempts=1)
    assert t.message == (f'Post "{srv.url_prefix}/filter": tls: failed to verify certificate: '
                         "x509: certificate signed by unknown authority")
