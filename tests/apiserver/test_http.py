"""The HTTP layer (kubenotes.apiserver.http) spoken to as a REST client would, over real loopback HTTPS.

Each test starts its own server on a free port (``serve(..., port=0)``) and
stops it. Cases follow what upstream's handler tests check:
staging/src/k8s.io/apiserver/pkg/endpoints/apiserver_test.go (TestNotFound,
TestUnauthorized-style 401 without credentials, TestWatch*, list selectors),
staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go
(TestGetAPIRequestInfo: namespace subresources ``status``/``finalize``) and
the chunking behaviour of staging/src/k8s.io/apiserver/pkg/storage/cacher
(limit/continue pages that together give the whole list).
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
import urllib.error
import urllib.request

import pytest

from kubenotes.apiserver.http import parse_request_path
from kubenotes.kubelet.logs import format_log_timestamp
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


@pytest.fixture
def served():
    c = Cluster([NODE, _pod("a", {"app": "web"}), _pod("b", {"app": "web"}), _pod("c", {"app": "db"})],
                controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=0)
    try:
        yield s
    finally:
        s.stop()


#: ``call``'s default token: the served cluster's admin token (random per start, read from the ServedCluster).
ADMIN = "<the served cluster's admin token>"


def call(s, method: str, path: str, body=None, *, token: str | None = ADMIN, accept: str = "application/json",
         ctype: str = "application/json") -> tuple[int, dict]:
    headers = {"Accept": accept}
    token = s.token if token == ADMIN else token
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = ctype
    req = urllib.request.Request(s.url + path, data=data, method=method, headers=headers)
    ctx = ssl.create_default_context(cafile=s.ca_path)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_no_or_bad_token_gets_401_everywhere(served):
    for path in ("/version", "/api", "/apis", "/api/v1/pods", "/api/v1/namespaces/default/pods/a"):
        code, body = call(served, "GET", path, token=None)
        assert (code, body["kind"], body["reason"]) == (401, "Status", "Unauthorized")
        code, _ = call(served, "GET", path, token="not-a-token")
        assert code == 401
    code, _ = call(served, "POST", "/api/v1/namespaces/default/pods", _pod("x"), token=None)
    assert code == 401
    assert served.cluster.get("pods", "x", "default") is None


def test_version_and_legacy_discovery(served):
    code, v = call(served, "GET", "/version")
    assert code == 200 and v["gitVersion"].startswith("v1.") and v["major"] == "1"
    assert call(served, "GET", "/api")[1]["versions"] == ["v1"]
    groups = {g["name"] for g in call(served, "GET", "/apis")[1]["groups"]}
    assert {"apps", "batch", "rbac.authorization.k8s.io"} <= groups
    core = {r["name"]: r for r in call(served, "GET", "/api/v1")[1]["resources"]}
    assert core["pods"]["shortNames"] == ["po"] and core["pods"]["categories"] == ["all"]
    assert core["pods"]["namespaced"] and not core["nodes"]["namespaced"]
    assert "watch" in core["pods"]["verbs"] and "pods/status" in core
    apps = {r["name"]: r for r in call(served, "GET", "/apis/apps/v1")[1]["resources"]}
    assert apps["deployments/scale"]["kind"] == "Scale" and apps["deployments/scale"]["group"] == "autoscaling"
    assert call(served, "GET", "/apis/nope.example.com/v1")[0] == 404


def test_get_not_found_is_a_status(served):
    code, body = call(served, "GET", "/api/v1/namespaces/default/pods/nope")
    assert code == 404
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": 'pods "nope" not found', "reason": "NotFound",
                    "details": {"name": "nope", "kind": "pods"}, "code": 404}
    code, body = call(served, "GET", "/api/v1/widgets")
    assert (code, body["reason"]) == (404, "NotFound")


def test_create_conflicts_and_bad_bodies(served):
    code, body = call(served, "POST", "/api/v1/namespaces/default/pods", _pod("new"))
    assert code == 201 and body["metadata"]["namespace"] == "default" and body["metadata"]["resourceVersion"]
    code, body = call(served, "POST", "/api/v1/namespaces/default/pods", _pod("new"))
    assert (code, body["reason"], body["message"]) == (409, "AlreadyExists", 'pods "new" already exists')
    code, body = call(served, "PATCH", "/api/v1/namespaces/default/pods/new", {"metadata": {"labels": {"x": "y"}}},
                      ctype="application/apply-patch+yaml")
    assert (code, body["message"]) == (400, "fieldManager is required for apply requests")
    code, body = call(served, "PATCH", "/api/v1/namespaces/default/pods/new", {"metadata": {"labels": {"x": "y"}}},
                      ctype="application/x-yaml")
    assert code == 415 and body["reason"] == "UnsupportedMediaType"
    code, body = call(served, "POST", "/api/v1/namespaces/default/pods?dryRun=All", _pod("dry"))
    assert code == 201 and served.cluster.get("pods", "dry", "default") is None


def test_list_selectors_and_pages(served):
    code, body = call(served, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb")
    assert code == 200 and body["kind"] == "PodList"
    assert sorted(p["metadata"]["name"] for p in body["items"]) == ["a", "b"]
    body = call(served, "GET", "/api/v1/pods?fieldSelector=metadata.name%3Dc")[1]
    assert [p["metadata"]["name"] for p in body["items"]] == ["c"]
    names, path = [], "/api/v1/namespaces/default/pods?limit=2"
    for _ in range(5):
        body = call(served, "GET", path)[1]
        assert len(body["items"]) <= 2
        names += [p["metadata"]["name"] for p in body["items"]]
        cont = body["metadata"].get("continue")
        if not cont:
            break
        path = f"/api/v1/namespaces/default/pods?limit=2&continue={cont}"
    assert sorted(names) == ["a", "b", "c"]
    code, body = call(served, "GET", "/api/v1/pods?labelSelector=app%3D%3D%3D")
    assert code == 400 and body["kind"] == "Status"


def test_server_side_table(served):
    code, t = call(served, "GET", "/api/v1/namespaces/default/pods", accept=TABLE)
    assert code == 200 and t["kind"] == "Table" and t["metadata"]["resourceVersion"]
    cols = [(c["name"], c["priority"]) for c in t["columnDefinitions"]]
    assert cols[:5] == [("Name", 0), ("Ready", 0), ("Status", 0), ("Restarts", 0), ("Age", 0)]
    assert ("Node", 1) in cols  # the -o wide columns come with priority 1
    assert sorted(r["cells"][0] for r in t["rows"]) == ["a", "b", "c"]
    assert t["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert t["rows"][0]["object"]["metadata"]["namespace"] == "default"
    t = call(served, "GET", "/api/v1/namespaces/default/pods?includeObject=Object", accept=TABLE)[1]
    assert all(r["object"]["kind"] == "Pod" and r["object"]["spec"]["containers"] for r in t["rows"])
    code, t = call(served, "GET", "/api/v1/nodes/n1", accept=TABLE)
    assert [c["name"] for c in t["columnDefinitions"]][:5] == ["Name", "Status", "Roles", "Age", "Version"]
    assert t["rows"][0]["cells"][0] == "n1"


def test_patch_merge_strategic_json_and_scale(served):
    path = "/api/v1/namespaces/default/pods/a"
    code, body = call(served, "PATCH", path, {"metadata": {"labels": {"tier": "front"}}},
                      ctype="application/strategic-merge-patch+json")
    assert code == 200 and body["metadata"]["labels"] == {"app": "web", "tier": "front"}
    code, body = call(served, "PATCH", path, [{"op": "remove", "path": "/metadata/labels/tier"}],
                      ctype="application/json-patch+json")
    assert code == 200 and body["metadata"]["labels"] == {"app": "web"}
    code, body = call(served, "PATCH", path, {"metadata": {"annotations": {"k": "v"}}},
                      ctype="application/merge-patch+json")
    assert body["metadata"]["annotations"] == {"k": "v"}
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "w"}},
                    "template": {"metadata": {"labels": {"app": "w"}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}}
    assert call(served, "POST", "/apis/apps/v1/namespaces/default/deployments", dep)[0] == 201
    code, scale = call(served, "GET", "/apis/apps/v1/namespaces/default/deployments/web/scale")
    assert code == 200 and scale["kind"] == "Scale" and scale["spec"]["replicas"] == 1
    code, scale = call(served, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                       {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"},
                        "spec": {"replicas": 4}})
    assert code == 200 and served.cluster.get("deployments", "web", "default")["spec"]["replicas"] == 4


def test_json_patch_that_does_not_apply_is_422_invalid_and_changes_nothing(served):
    # patch.go applyJSPatch: an Apply error is NewGenericServerResponse(422) with the generic message;
    # kopf adds and removes its finalizers with a ``test`` on resourceVersion and retries on this 422
    path = "/api/v1/namespaces/default/pods/a"
    rv = call(served, "GET", path)[1]["metadata"]["resourceVersion"]
    for ops in ([{"op": "test", "path": "/metadata/resourceVersion", "value": "1"},
                 {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/f"]}],
                [{"op": "remove", "path": "/metadata/nope"}],
                [{"op": "frobnicate", "path": "/metadata/labels"}]):
        code, body = call(served, "PATCH", path, ops, ctype="application/json-patch+json")
        assert (code, body["reason"], body["message"], body["details"]) == (
            422, "Invalid", "the server rejected our request due to an error in our request", {})
    assert call(served, "GET", path)[1]["metadata"]["resourceVersion"] == rv
    code, body = call(served, "PATCH", path, {"op": "test"}, ctype="application/json-patch+json")
    assert (code, body["reason"]) == (400, "BadRequest")   # DecodePatch: not a list of operations


def test_delete_namespace_goes_terminating_and_unknown_is_404(served):
    assert call(served, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                       "metadata": {"name": "x"}})[0] == 201
    code, body = call(served, "DELETE", "/api/v1/namespaces/x")
    assert code == 200 and body["status"]["phase"] == "Terminating"  # no namespace controller runs here
    code, body = call(served, "DELETE", "/api/v1/namespaces/nope")
    assert (code, body["message"]) == (404, 'namespaces "nope" not found')


def _read_event(resp) -> dict:
    line = resp.readline()
    assert line, "the watch stream ended before an event"
    return json.loads(line)


def test_watch_streams_json_lines_from_a_resource_version(served):
    rv = call(served, "GET", "/api/v1/namespaces/default/pods")[1]["metadata"]["resourceVersion"]
    conn = http.client.HTTPSConnection("127.0.0.1", served.port, timeout=10,
                                       context=ssl.create_default_context(cafile=served.ca_path))
    try:
        conn.request("GET", f"/api/v1/namespaces/default/pods?watch=1&resourceVersion={rv}"
                            "&allowWatchBookmarks=true&timeoutSeconds=10",
                     headers={"Authorization": f"Bearer {served.token}"})
        resp = conn.getresponse()
        assert resp.status == 200
        assert call(served, "POST", "/api/v1/namespaces/default/pods", _pod("w1"))[0] == 201
        ev = _read_event(resp)
        assert ev["type"] == "ADDED" and ev["object"]["metadata"]["name"] == "w1"
        assert int(ev["object"]["metadata"]["resourceVersion"]) > int(rv)
        call(served, "PATCH", "/api/v1/namespaces/default/pods/w1", {"metadata": {"labels": {"v": "2"}}},
             ctype="application/merge-patch+json")
        ev = _read_event(resp)
        assert ev["type"] == "MODIFIED" and ev["object"]["metadata"]["labels"] == {"v": "2"}
    finally:
        conn.close()


def test_watch_without_resource_version_starts_with_current_objects_and_times_out(served):
    conn = http.client.HTTPSConnection("127.0.0.1", served.port, timeout=10,
                                       context=ssl.create_default_context(cafile=served.ca_path))
    try:
        start = time.monotonic()
        conn.request("GET", "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dweb&timeoutSeconds=1",
                     headers={"Authorization": f"Bearer {served.token}"})
        resp = conn.getresponse()
        lines = [json.loads(x) for x in resp.read().splitlines() if x.strip()]
        assert time.monotonic() - start < 8
        assert sorted((e["type"], e["object"]["metadata"]["name"]) for e in lines) == [("ADDED", "a"),
                                                                                       ("ADDED", "b")]
    finally:
        conn.close()


def _watch_lines(served, query: str) -> list[dict]:
    conn = http.client.HTTPSConnection("127.0.0.1", served.port, timeout=10,
                                       context=ssl.create_default_context(cafile=served.ca_path))
    try:
        conn.request("GET", f"/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1&{query}",
                     headers={"Authorization": f"Bearer {served.token}"})
        resp = conn.getresponse()
        lines = []
        while not lines or lines[-1]["type"] != "BOOKMARK":  # the stream ends at timeoutSeconds
            line = resp.readline()
            if not line:
                break
            lines.append(json.loads(line))
        return lines
    finally:
        conn.close()


def test_watch_list_initial_events_end_with_an_annotated_bookmark(served):
    # WatchList (beta, on in v1.34): sendInitialEvents=true sends the state, then a BOOKMARK annotated
    # k8s.io/initial-events-end at the state's revision; defaulted for a watch from no resourceVersion
    rv = call(served, "GET", "/api/v1/namespaces/default/pods")[1]["metadata"]["resourceVersion"]
    for query in ("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
                  "allowWatchBookmarks=true", f"resourceVersion={rv}&sendInitialEvents=true"
                  "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"):
        lines = _watch_lines(served, query)
        assert [(e["type"], e["object"]["metadata"].get("name")) for e in lines] == [
            ("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c"), ("BOOKMARK", None)], query
        assert lines[-1]["object"]["metadata"] == {"resourceVersion": rv,
                                                   "annotations": {"k8s.io/initial-events-end": "true"}}
    assert [e["type"] for e in _watch_lines(served, "labelSelector=app%3Ddb")] == ["ADDED"]  # no bookmarks asked
    assert _watch_lines(served, "sendInitialEvents=false&resourceVersionMatch=NotOlderThan") == []
    code, body = call(served, "GET", "/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true")
    assert (code, body["reason"], body["message"]) == (422, "Invalid", 'ListOptions.meta.k8s.io "" is invalid: '
                                                       "resourceVersionMatch: Forbidden: sendInitialEvents requires "
                                                       "setting resourceVersionMatch to NotOlderThan")


def test_watch_too_old_resource_version_is_an_error_event_410():
    c = Cluster([NODE], controllers=[], scheduler=False, history_capacity=5)
    s = serve(c, port=0, time_scale=0)
    try:
        for i in range(10):
            assert call(s, "POST", "/api/v1/namespaces/default/configmaps",
                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{i}"}})[0] == 201
        # cacher.go: a 200 watch whose one event is ERROR with the 410 Status (kopf and client-go relist on it)
        code, body = call(s, "GET", "/api/v1/configmaps?watch=1&resourceVersion=2")
        assert (code, body["type"], body["object"]["code"], body["object"]["reason"]) == (200, "ERROR", 410, "Expired")
        assert body["object"]["message"].startswith("too old resource version: 2 (")
    finally:
        s.stop()


def _restart_pair():
    """Two runs of one cluster served one after the other: a restart (new store, new CA, new admin token)."""
    first = serve(Cluster([NODE], controllers=[], scheduler=False), port=0, time_scale=0)
    try:
        for i in range(12):
            assert call(first, "POST", "/api/v1/namespaces/default/configmaps",
                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{i}"}})[0] == 201
        code, listed = call(first, "GET", "/api/v1/namespaces/default/configmaps")
        started_at = call(first, "GET", "/api/v1/namespaces/default/configmaps/cm0")[1]["metadata"]["resourceVersion"]
    finally:
        first.stop()
    return int(started_at), int(listed["metadata"]["resourceVersion"])


def test_after_a_restart_an_old_resource_version_is_never_accepted_silently():
    early, late = _restart_pair()
    again = serve(Cluster([NODE], controllers=[], scheduler=False), port=0, time_scale=0)
    try:
        start = again.cluster.server.store.revision  # the new watch cache's list revision
        # a new run's revisions start above every one the earlier run made (sim/serve.revision_floor), so none
        # of the earlier run's resourceVersions falls inside the new run's history
        assert early < late < start
        for rv in (early, late):  # from before the server started: the 410 ERROR event (the client relists)
            code, body = call(again, "GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}")
            assert (code, body["type"], body["object"]["code"], body["object"]["message"]) == (
                200, "ERROR", 410, f"too old resource version: {rv} ({start})")
        # cacher: newer than the store's revision -> 504, for a watch and for a list (rv > 0: NotOlderThan)
        ahead = start + 1000
        for path in (f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={ahead}",
                     f"/api/v1/namespaces/default/configmaps?resourceVersion={ahead}"):
            code, body = call(again, "GET", path)
            assert (code, body["reason"], body["message"]) == (
                504, "Timeout", f"Too large resource version: {ahead}, current: {start}")
        assert call(again, "POST", "/api/v1/namespaces/default/configmaps",
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new0"}})[0] == 201
        # the list revision itself resumes (rv == oldest - 1 is accepted, as getAllEventsSinceLocked)
        conn = http.client.HTTPSConnection("127.0.0.1", again.port, timeout=10,
                                           context=ssl.create_default_context(cafile=again.ca_path))
        conn.request("GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={start}"
                            "&timeoutSeconds=1", headers={"Authorization": f"Bearer {again.token}"})
        first = json.loads(conn.getresponse().readline())
        assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "new0")
        conn.close()
    finally:
        again.stop()


def test_a_body_of_another_version_of_the_urls_group_is_refused_not_converted(served):
    hpa_v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "minReplicas": 1, "maxReplicas": 3, "targetCPUUtilizationPercentage": 60}}
    v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
    msg = ("the API version in the data (autoscaling/v1) does not match the expected API version "
           "(autoscaling/v2)")  # create.go / update.go: RequestScope.AcceptsGroupVersion
    code, body = call(served, "POST", v2, hpa_v1)
    assert (code, body["reason"], body["message"]) == (400, "BadRequest", msg)
    code, made = call(served, "POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", hpa_v1)
    assert code == 201 and made["apiVersion"] == "autoscaling/v1"  # its own URL: stored (as autoscaling/v2)
    code, body = call(served, "PUT", v2 + "/web", {**hpa_v1, "metadata": made["metadata"]})
    assert (code, body["message"]) == (400, msg)
    code, got = call(served, "GET", v2 + "/web")
    assert code == 200 and got["apiVersion"] == "autoscaling/v2" and got["spec"]["maxReplicas"] == 3


def test_list_resource_version_must_be_a_number():
    c = Cluster([NODE], controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=0)
    try:
        code, body = call(s, "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=abc")
        assert (code, body["message"]) == (400, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing '
                                                '"abc": invalid syntax')
        code, body = call(s, "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=0")
        assert code == 200
    finally:
        s.stop()


@pytest.mark.parametrize("path,expected", [
    ("/api/v1/namespaces/x/finalize", ("", "", "namespaces", "x", "finalize")),
    ("/api/v1/namespaces/x/status", ("", "", "namespaces", "x", "status")),
    ("/api/v1/namespaces/x/pods", ("", "x", "pods", "", "")),
    ("/apis/apps/v1/namespaces/x/deployments/d/scale", ("apps", "x", "deployments", "d", "scale")),
    ("/api/v1/nodes/n1", ("", "", "nodes", "n1", "")),
])
def test_request_info(path, expected):
    ri = parse_request_path(path)
    assert (ri.group, ri.namespace, ri.resource, ri.name, ri.subresource) == expected


def test_twenty_concurrent_watchers_each_see_every_event_in_order(served):
    """The issue's load check, scaled down: 20 watch streams, 60 writes, no event lost or reordered."""
    import threading

    rv = call(served, "GET", "/api/v1/namespaces/default/configmaps")[1]["metadata"]["resourceVersion"]
    n_watchers, n_writes = 20, 60
    results: list[list[str]] = [[] for _ in range(n_watchers)]
    conns = []
    for _ in range(n_watchers):
        conn = http.client.HTTPSConnection("127.0.0.1", served.port, timeout=15,
                                           context=ssl.create_default_context(cafile=served.ca_path))
        conn.request("GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}"
                            "&timeoutSeconds=15", headers={"Authorization": f"Bearer {served.token}"})
        conns.append((conn, conn.getresponse()))

    def read(i: int, resp) -> None:
        while len(results[i]) < n_writes:
            line = resp.readline()
            if not line:
                return
            results[i].append(json.loads(line)["object"]["metadata"]["resourceVersion"])

    readers = [threading.Thread(target=read, args=(i, r), daemon=True) for i, (_, r) in enumerate(conns)]
    for t in readers:
        t.start()
    try:
        written = []
        for i in range(n_writes):
            code, body = call(served, "POST", "/api/v1/namespaces/default/configmaps",
                              {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{i}"}})
            assert code == 201
            written.append(body["metadata"]["resourceVersion"])
        for t in readers:
            t.join(15)
        assert all(r == written for r in results), [len(r) for r in results]
    finally:
        for conn, _ in conns:
            conn.close()


def test_aggregated_discovery_when_the_client_asks_for_it(served):
    accept = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
              "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")
    for path in ("/api", "/apis"):
        code, body = call(served, "GET", path, accept=accept)
        assert code == 200 and body["kind"] == "APIGroupDiscoveryList"


def _get_text(s, path: str) -> tuple[int, str, str]:
    req = urllib.request.Request(s.url + path, headers={"Authorization": f"Bearer {s.token}"})
    ctx = ssl.create_default_context(cafile=s.ca_path)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


def test_pod_log_is_text_plain_with_upstream_errors():
    # LogREST (pkg/registry/core/pod/rest/log.go): text/plain; errors as Status objects
    script = {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo one; sleep 2; echo two"]}
    two = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "two"},
           "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}
    c = Cluster([NODE, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                        "spec": {"restartPolicy": "Never", "containers": [script]}}, two], controllers=[])
    s = serve(c, port=0, time_scale=0)
    try:
        s.run_for(1)
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/p/log")
        assert (code, body["reason"], body["message"]) == (
            400, "BadRequest", 'container "c" in pod "p" is waiting to start: ContainerCreating')
        s.run_for(10)
        code, ctype, text = _get_text(s, "/api/v1/namespaces/default/pods/p/log")
        assert (code, ctype.split(";")[0], text) == (200, "text/plain", "one\ntwo\n")
        run = c.kubelets["n1"].runs[c.get("pods", "p", "default")["metadata"]["uid"]]["c"][-1]
        assert _get_text(s, "/api/v1/namespaces/default/pods/p/log?tailLines=1&timestamps=true")[2] == \
            format_log_timestamp(run.started_seconds + 2, c.server.epoch) + " two\n"
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/two/log")
        assert (code, body["message"]) == (400, "a container name must be specified for pod two, choose one of: [a b]")
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/p/log?tailLines=-1")
        assert (code, body["reason"]) == (422, "Invalid")
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/p/log?tailLines=x")
        assert code == 400
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/p/log?sinceTime=yesterday")
        assert code == 400 and "RFC 3339" in body["message"]
        code, body = call(s, "GET", "/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true", None)
        assert code == 400 and "runs no container processes" in body["message"]
        code, body = call(s, "POST", "/api/v1/namespaces/default/pods/p/portforward", {})
        assert code == 400 and "kubenotes cannot forward ports of pod \"p\"" in body["message"]
        code, body = call(s, "GET", "/metrics")
        assert code == 404 and "serves no /metrics" in body["message"]
    finally:
        s.stop()


def test_followed_log_streams_until_the_container_exits():
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "j", "annotations": {"kubenotes.io/run-seconds": "5"}},
           "spec": {"restartPolicy": "Never", "containers": [
               {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo a; sleep 2; echo b; sleep 9; echo c"]}]}}
    c = Cluster([NODE, pod], controllers=[])
    s = serve(c, port=0, time_scale=0)
    try:
        s.run_for(3)
        conn = http.client.HTTPSConnection("127.0.0.1", s.port, timeout=10,
                                           context=ssl.create_default_context(cafile=s.ca_path))
        conn.request("GET", "/api/v1/namespaces/default/pods/j/log?follow=true",
                     headers={"Authorization": f"Bearer {s.token}"})
        resp = conn.getresponse()
        assert resp.status == 200
        assert resp.readline() == b"a\n"
        s.run_for(2)  # t=5: "b" printed at 4
        assert resp.readline() == b"b\n"
        s.run_for(10)  # the container exits at 7, before "c" at 13: the stream ends
        assert resp.read() == b""
        conn.close()
    finally:
        s.stop()


# ------------------------------------------------------------------ field validation, server-side apply, dry run
def _cm(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}, **extra}


def test_field_validation_strict_warn_ignore(served):
    """create.go: Strict refuses an unknown field with upstream's text; Warn sends a Warning header; Ignore drops it."""
    code, body = call(served, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
                      _cm("s", dataa={"b": "2"}))
    assert (code, body["reason"]) == (400, "BadRequest")
    assert body["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
                               'unknown field "dataa"')
    assert served.cluster.get("configmaps", "s", "default") is None
    req = urllib.request.Request(served.url + "/api/v1/namespaces/default/configmaps?fieldValidation=Warn",
                                 data=json.dumps(_cm("w", dataa={"b": "2"})).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {served.token}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=served.ca_path), timeout=10) as r:
        assert r.status == 201
        assert r.headers.get_all("Warning") == ['299 - "unknown field \\"dataa\\""']
        assert "dataa" not in json.loads(r.read())
    code, body = call(served, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore",
                      _cm("i", dataa={"b": "2"}))
    assert code == 201 and "dataa" not in body
    code, body = call(served, "PATCH", "/api/v1/namespaces/default/configmaps/i?fieldValidation=Strict",
                      {"spec": {"x": 1}}, ctype="application/merge-patch+json")
    assert (code, body["reason"]) == (422, "Invalid")
    assert body["message"] == (' "" is invalid: patch: Invalid value: "map[spec:map[x:1]]": strict decoding error: '
                               'unknown field "spec"')


def test_server_side_apply_over_http(served):
    """patch.go applyPatcher: apply creates (201), then updates (200); a different value owned by another manager
    is a 409 with FieldManagerConflict causes; force=true takes it; the scale subresource's writer becomes a
    manager of replicas."""
    path = "/api/v1/namespaces/default/configmaps/ssa?fieldManager=alice"
    code, body = call(served, "PATCH", path, _cm("ssa"), ctype="application/apply-patch+yaml")
    assert code == 201 and body["metadata"]["managedFields"][0]["manager"] == "alice"
    code, body = call(served, "PATCH", path, _cm("ssa", data={"a": "1", "b": "2"}),
                      ctype="application/apply-patch+yaml")
    assert code == 200 and body["data"] == {"a": "1", "b": "2"}
    bob = "/api/v1/namespaces/default/configmaps/ssa?fieldManager=bob"
    code, body = call(served, "PATCH", bob, _cm("ssa", data={"a": "9"}), ctype="application/apply-patch+yaml")
    assert (code, body["reason"]) == (409, "Conflict")
    assert body["details"]["causes"] == [{"type": "FieldManagerConflict", "message": 'conflict with "alice"',
                                          "field": ".data.a"}]
    code, body = call(served, "PATCH", bob + "&force=true", _cm("ssa", data={"a": "9"}),
                      ctype="application/apply-patch+yaml")
    assert code == 200 and body["data"] == {"a": "9", "b": "2"}
    # a plain update by kubectl takes the field it changes from its applier
    code, body = call(served, "PATCH", "/api/v1/namespaces/default/configmaps/ssa",
                      {"data": {"b": "3"}}, ctype="application/merge-patch+json")
    owners = {m["manager"]: m["fieldsV1"] for m in body["metadata"]["managedFields"]}
    assert "alice" not in owners  # its last field went to the updater: an emptied manager is dropped
    assert owners["bob"] == {"f:data": {"f:a": {}}}
    (updater,) = set(owners) - {"bob"}
    assert owners[updater] == {"f:data": {"f:b": {}}}


def test_dry_run_patch_keeps_the_stored_resource_version(served):
    """kubectl diff sends a dry-run patch: the answer is the would-be object at the stored resourceVersion."""
    code, body = call(served, "GET", "/api/v1/namespaces/default/pods/a")
    rv = body["metadata"]["resourceVersion"]
    code, body = call(served, "PATCH", "/api/v1/namespaces/default/pods/a?dryRun=All",
                      {"metadata": {"labels": {"x": "y"}}}, ctype="application/strategic-merge-patch+json")
    assert code == 200 and body["metadata"]["labels"]["x"] == "y" and body["metadata"]["resourceVersion"] == rv
    assert "x" not in served.cluster.get("pods", "a", "default")["metadata"]["labels"]


def test_http_log_records_each_request_with_its_handler_chain_once():
    """trace_http: one entry per HTTP request; a PATCH of scale is authorized once, as upstream's chain does."""
    c = Cluster.from_manifests("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
""", controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=0)
    try:
        log = c.server.trace_http()
        code, _ = call(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                       {"spec": {"replicas": 3}}, ctype="application/merge-patch+json")
        assert code == 200
        (entry,) = log
        assert (entry["method"], entry["code"], entry["content_type"]) == (
            "PATCH", 200, "application/merge-patch+json")
        assert entry["url"] == "/apis/apps/v1/namespaces/default/deployments/web/scale"
        (req,) = entry["requests"]
        steps = [st["step"] for st in req["steps"]]
        assert steps.count("authorization") == 1 and steps[0] == "authentication" and "storage" in steps
    finally:
        s.stop()
