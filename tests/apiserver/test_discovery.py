"""Tests for kubenotes.apiserver.discovery.

Shapes follow kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/apidiscovery/v2/types.go
(APIGroupDiscoveryList / APIVersionDiscovery / APIResourceDiscovery / APISubresourceDiscovery) and
staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (APIResourceList, APIGroupList, APIVersions).
The expected short names, categories and subresource kinds are those a v1.34 cluster lists in
``kubectl api-resources`` / ``GET /api/v1`` (pods/binding -> Binding, pods/eviction -> policy/v1 Eviction,
deployments/scale -> autoscaling/v1 Scale). The real-kubectl check lives in test_openapi.py.
"""

from __future__ import annotations

import json

import pytest

from kubenotes.apiserver import discovery
from kubenotes.apiserver.resources import SERVED_RESOURCES


def _entry(doc, name):
    return next(r for r in doc["resources"] if r["name"] == name)


def test_version_info_selects_kubectl_1_33():
    v = discovery.version_info()
    assert (v["major"], v["minor"], v["gitVersion"]) == ("1", "33", "v1.33.0")
    assert v["gitVersion"] == f"v{v['major']}.{v['minor']}.0"
    for key in ("gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"):
        assert v[key]


def test_api_versions_and_group_list():
    assert discovery.api_versions("127.0.0.1:9") == {
        "kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:9"}]}
    groups = discovery.api_group_list()
    assert groups["kind"] == "APIGroupList" and groups["apiVersion"] == "v1"
    names = [g["name"] for g in groups["groups"]]
    assert "" not in names
    assert set(names) == {r.group for r in SERVED_RESOURCES if r.group}
    auto = next(g for g in groups["groups"] if g["name"] == "autoscaling")
    assert auto["preferredVersion"] == {"groupVersion": "autoscaling/v2", "version": "v2"}
    # a v1.34 API server serves autoscaling/v1 beside v2 (pkg/registry/autoscaling/rest/storage_autoscaling.go)
    assert auto["versions"] == [auto["preferredVersion"], {"groupVersion": "autoscaling/v1", "version": "v1"}]


def test_core_resource_list_pods():
    doc = discovery.api_resource_list("", "v1")
    assert (doc["kind"], doc["apiVersion"], doc["groupVersion"]) == ("APIResourceList", "v1", "v1")
    pods = _entry(doc, "pods")
    assert pods == {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
                    "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
                    "shortNames": ["po"], "categories": ["all"]}
    assert _entry(doc, "pods/status") == {"name": "pods/status", "singularName": "", "namespaced": True,
                                          "kind": "Pod", "verbs": ["get", "patch", "update"]}
    assert _entry(doc, "pods/binding")["kind"] == "Binding"
    assert _entry(doc, "pods/binding")["verbs"] == ["create"]
    ev = _entry(doc, "pods/eviction")
    assert (ev["group"], ev["version"], ev["kind"], ev["verbs"]) == ("policy", "v1", "Eviction", ["create"])
    assert _entry(doc, "pods/log")["verbs"] == ["get"]
    assert _entry(doc, "nodes")["namespaced"] is False
    assert _entry(doc, "nodes")["shortNames"] == ["no"]
    assert "categories" not in _entry(doc, "configmaps")
    tok = _entry(doc, "serviceaccounts/token")
    assert (tok["group"], tok["kind"]) == ("authentication.k8s.io", "TokenRequest")


def test_apps_scale_subresource():
    doc = discovery.api_resource_list("apps", "v1")
    scale = _entry(doc, "deployments/scale")
    assert (scale["group"], scale["version"], scale["kind"]) == ("autoscaling", "v1", "Scale")
    assert scale["verbs"] == ["get", "patch", "update"]
    assert "group" not in _entry(doc, "deployments/status")


def test_every_resource_is_listed_once():
    listed = []
    for g, v in discovery.group_versions():
        listed += [(g, r["name"]) for r in discovery.api_resource_list(g, v)["resources"] if "/" not in r["name"]]
    assert sorted(listed) == sorted((r.group, r.resource) for r in SERVED_RESOURCES)


@pytest.mark.parametrize("group,version", [("apps", "v2"), ("nope", "v1"), ("", "v2")])
def test_unknown_group_version_raises_key_error(group, version):
    with pytest.raises(KeyError):
        discovery.api_resource_list(group, version)


def test_aggregated_discovery_core():
    doc = discovery.aggregated_discovery("/api")
    assert (doc["kind"], doc["apiVersion"]) == ("APIGroupDiscoveryList", "apidiscovery.k8s.io/v2")
    [core] = doc["items"]
    assert core["metadata"].get("name", "") == ""
    [v1] = core["versions"]
    assert (v1["version"], v1["freshness"]) == ("v1", "Current")
    pods = next(r for r in v1["resources"] if r["resource"] == "pods")
    assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert (pods["scope"], pods["singularResource"]) == ("Namespaced", "pod")
    assert pods["shortNames"] == ["po"] and pods["categories"] == ["all"]
    subs = {s["subresource"]: s for s in pods["subresources"]}
    assert set(subs) == {"status", "binding", "eviction", "log", "ephemeralcontainers"}
    assert subs["eviction"]["responseKind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert subs["status"]["verbs"] == ["get", "patch", "update"]
    nodes = next(r for r in v1["resources"] if r["resource"] == "nodes")
    assert nodes["scope"] == "Cluster"
    json.dumps(doc)  # JSON-serialisable


def test_aggregated_discovery_groups_match_legacy():
    doc = discovery.aggregated_discovery("apis")
    names = [i["metadata"]["name"] for i in doc["items"]]
    assert names == [g["name"] for g in discovery.api_group_list()["groups"]]
    apps = doc["items"][names.index("apps")]
    deploy = next(r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments")
    assert deploy["shortNames"] == ["deploy"]
    scale = next(s for s in deploy["subresources"] if s["subresource"] == "scale")
    assert scale == {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1",
                                                              "kind": "Scale"}, "verbs": ["get", "patch", "update"]}
    with pytest.raises(KeyError):
        discovery.aggregated_discovery("/apis/apps")
