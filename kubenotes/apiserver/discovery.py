"""Discovery documents: ``/version``, ``/api``, ``/apis``, resource lists and aggregated discovery.

Every document is built from :data:`kubenotes.apiserver.resources.SERVED_RESOURCES`
and returned as a JSON-shaped dict; the HTTP layer only serialises it. These
are the documents ``kubectl api-resources``, ``kubectl get`` (its RESTMapper)
and the client libraries read before any other request.

Notes
-----
Simplified against upstream: no ``storageVersionHash`` in resource lists,
no ``acceptedTypes`` on aggregated subresources, and the served version is
fixed (see :func:`version_info`). A group served in two versions (autoscaling
v2 and v1) lists the preferred one first, as ``preferredVersion``. Subresource verbs and
response kinds follow upstream's registry (``status`` get/patch/update with
the parent kind, ``scale`` autoscaling/v1 Scale, ``binding`` v1 Binding,
``eviction`` policy/v1 Eviction, ``log`` get of Pod, ``token``
authentication.k8s.io/v1 TokenRequest, ``finalize`` update of Namespace,
``approval`` get/patch/update of CertificateSigningRequest).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/apidiscovery/v2/types.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (APIResourceList, APIGroupList, APIVersions)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/version/types.go (Info)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (subresource discovery entries)
"""

from __future__ import annotations

from typing import Iterable

from kubenotes.apiserver.resources import SERVED_RESOURCES, ResourceInfo

__all__ = [
    "SERVER_MAJOR",
    "SERVER_MINOR",
    "SERVER_GIT_VERSION",
    "AGGREGATED_DISCOVERY_V2",
    "version_info",
    "group_versions",
    "api_versions",
    "api_group_list",
    "api_resource_list",
    "aggregated_discovery",
    "subresource_kind",
    "subresource_verbs",
]

#: The version ``/version`` reports.  kubectl's dispatcher on these machines
#: picks the kubectl binary whose minor matches this (kubectl.1.33).
SERVER_MAJOR = "1"
SERVER_MINOR = "33"
SERVER_GIT_VERSION = "v1.33.0"

#: The media type parameters kubectl asks for aggregated discovery with.
AGGREGATED_DISCOVERY_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

# subresource -> (group, version, kind or None for the parent's kind), verbs
_SUBRESOURCES: dict[str, tuple[tuple[str, str, str | None], tuple[str, ...]]] = {
    "status": ((None, None, None), ("get", "patch", "update")),
    "scale": (("autoscaling", "v1", "Scale"), ("get", "patch", "update")),
    "binding": (("", "v1", "Binding"), ("create",)),
    "eviction": (("policy", "v1", "Eviction"), ("create",)),
    "log": ((None, None, None), ("get",)),
    "ephemeralcontainers": ((None, None, None), ("get", "patch", "update")),
    "finalize": ((None, None, None), ("update",)),
    "token": (("authentication.k8s.io", "v1", "TokenRequest"), ("create",)),
    "approval": ((None, None, None), ("get", "patch", "update")),
}


def version_info() -> dict:
    """The ``/version`` document (upstream ``version.Info``).

    kubectl's dispatcher on these machines (``/usr/bin/kubectl``) asks
    ``/version`` first and runs the kubectl binary whose minor version
    matches ``minor`` (see /work/shared/notes/kubectl-protocol.md), so this
    reports 1.33 although the model follows v1.34 semantics.

    Returns
    -------
    dict

    Examples
    --------
    >>> v = version_info()
    >>> v["major"], v["minor"], v["gitVersion"], v["platform"]
    ('1', '33', 'v1.33.0', 'linux/amd64')
    """
    return {
        "major": SERVER_MAJOR,
        "minor": SERVER_MINOR,
        "emulationMajor": SERVER_MAJOR,
        "emulationMinor": SERVER_MINOR,
        "minCompatibilityMajor": SERVER_MAJOR,
        "minCompatibilityMinor": str(int(SERVER_MINOR) - 1),
        "gitVersion": SERVER_GIT_VERSION,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-04-23T00:00:00Z",
        "goVersion": "go1.24.2",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def group_versions(custom: Iterable[ResourceInfo] = ()) -> list[tuple[str, str]]:
    """Every served ``(group, version)`` in discovery order (core first, then the groups by name).

    Examples
    --------
    >>> group_versions()[:2]
    [('', 'v1'), ('admissionregistration.k8s.io', 'v1')]
    >>> [gv for gv in group_versions() if gv[0] == "autoscaling"]
    [('autoscaling', 'v2'), ('autoscaling', 'v1')]
    """
    out: list[tuple[str, str]] = []
    for ri in (*SERVED_RESOURCES, *custom):  # custom resources (CRDs) after the built-in groups
        if (ri.group, ri.version) not in out:
            out.append((ri.group, ri.version))
    return out


def _gv(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def api_versions(server_address: str = "127.0.0.1:6443") -> dict:
    """The legacy ``/api`` document (``APIVersions``).

    Examples
    --------
    >>> api_versions()["versions"]
    ['v1']
    """
    return {
        "kind": "APIVersions",
        "versions": [v for g, v in group_versions() if g == ""],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def api_group_list(custom: Iterable[ResourceInfo] = ()) -> dict:
    """The legacy ``/apis`` document (``APIGroupList``); the core group is not in it.

    Examples
    --------
    >>> g = next(g for g in api_group_list()["groups"] if g["name"] == "autoscaling")
    >>> [v["version"] for v in g["versions"]], g["preferredVersion"]
    (['v2', 'v1'], {'groupVersion': 'autoscaling/v2', 'version': 'v2'})
    """
    groups: dict[str, list[dict]] = {}
    for g, v in group_versions(custom):
        if g:
            groups.setdefault(g, []).append({"groupVersion": _gv(g, v), "version": v})
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [{"name": g, "versions": vs, "preferredVersion": vs[0]} for g, vs in groups.items()],
    }


def subresource_kind(ri: ResourceInfo, sub: str) -> tuple[str, str, str]:
    """``(group, version, kind)`` a subresource answers with.

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> subresource_kind(resource_for("deployments"), "scale")
    ('autoscaling', 'v1', 'Scale')
    >>> subresource_kind(resource_for("pods"), "status")
    ('', 'v1', 'Pod')
    """
    (g, v, k), _ = _SUBRESOURCES.get(sub, ((None, None, None), ("get",)))
    if k is None:
        return ri.group, ri.version, ri.kind
    return g, v, k


def subresource_verbs(sub: str) -> list[str]:
    """Verbs upstream lists for a subresource (``status``: get, patch, update)."""
    return list(_SUBRESOURCES.get(sub, (None, ("get",)))[1])


def _resources_in(group: str, version: str, custom: Iterable[ResourceInfo] = ()) -> list[ResourceInfo]:
    items = [ri for ri in (*SERVED_RESOURCES, *custom) if ri.group == group and ri.version == version]
    if not items:
        raise KeyError(_gv(group, version))
    return items


def api_resource_list(group: str, version: str, custom: Iterable[ResourceInfo] = ()) -> dict:
    """``/api/v1`` or ``/apis/<group>/<version>`` (``APIResourceList``).

    Subresources are listed as their own entries (``pods/status``), with
    ``group``/``version`` set only when their kind lives in another group
    version, as upstream's installer does.

    Raises
    ------
    KeyError
        For a group/version the server does not serve.

    Examples
    --------
    >>> doc = api_resource_list("", "v1")
    >>> pods = next(r for r in doc["resources"] if r["name"] == "pods")
    >>> pods["shortNames"], pods["categories"], pods["namespaced"]
    (['po'], ['all'], True)
    >>> [r["name"] for r in api_resource_list("apps", "v1")["resources"] if r["name"].startswith("deployments")]
    ['deployments', 'deployments/scale', 'deployments/status']
    """
    entries: list[dict] = []
    for ri in _resources_in(group, version, custom):
        e = {"name": ri.resource, "singularName": ri.singular, "namespaced": ri.namespaced, "kind": ri.kind,
             "verbs": list(ri.verbs)}
        if ri.short_names:
            e["shortNames"] = list(ri.short_names)
        if ri.categories:
            e["categories"] = list(ri.categories)
        entries.append(e)
        for sub in sorted(ri.subresources):
            g, v, k = subresource_kind(ri, sub)
            s = {"name": f"{ri.resource}/{sub}", "singularName": "", "namespaced": ri.namespaced}
            if (g, v) != (ri.group, ri.version):
                s["group"], s["version"] = g, v
            s["kind"] = k
            s["verbs"] = subresource_verbs(sub)
            entries.append(s)
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": _gv(group, version),
            "resources": entries}


def _resource_discovery(ri: ResourceInfo) -> dict:
    d: dict = {
        "resource": ri.resource,
        "responseKind": {"group": ri.group, "version": ri.version, "kind": ri.kind},
        "scope": "Namespaced" if ri.namespaced else "Cluster",
        "singularResource": ri.singular,
        "verbs": list(ri.verbs),
    }
    if ri.short_names:
        d["shortNames"] = list(ri.short_names)
    if ri.categories:
        d["categories"] = list(ri.categories)
    if ri.subresources:
        d["subresources"] = []
        for sub in sorted(ri.subresources):
            g, v, k = subresource_kind(ri, sub)
            d["subresources"].append({"subresource": sub, "responseKind": {"group": g, "version": v, "kind": k},
                                      "verbs": subresource_verbs(sub)})
    return d


def aggregated_discovery(which: str, custom: Iterable[ResourceInfo] = ()) -> dict:
    """The aggregated discovery document (``apidiscovery.k8s.io/v2``) for ``/api`` or ``/apis``.

    Parameters
    ----------
    which : str
        ``"/api"`` (the core group) or ``"/apis"`` (every named group);
        the leading slash is optional.

    Raises
    ------
    KeyError
        For any other path.

    Examples
    --------
    >>> doc = aggregated_discovery("/apis")
    >>> doc["kind"], doc["apiVersion"]
    ('APIGroupDiscoveryList', 'apidiscovery.k8s.io/v2')
    >>> apps = next(i for i in doc["items"] if i["metadata"]["name"] == "apps")
    >>> dep = next(r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments")
    >>> dep["scope"], dep["subresources"][0]["responseKind"]
    ('Namespaced', {'group': 'autoscaling', 'version': 'v1', 'kind': 'Scale'})
    """
    key = "/" + which.strip("/")
    if key not in ("/api", "/apis"):
        raise KeyError(which)
    core = key == "/api"
    groups: dict[str, list[dict]] = {}
    custom = tuple(custom)
    for g, v in group_versions(custom):
        if (g == "") != core:
            continue
        groups.setdefault(g, []).append({
            "version": v,
            "resources": [_resource_discovery(ri) for ri in _resources_in(g, v, custom)],
            "freshness": "Current",
        })
    items = []
    for g, versions in groups.items():
        meta: dict = {"creationTimestamp": None}
        if g:
            meta = {"name": g, "creationTimestamp": None}
        items.append({"metadata": meta, "versions": versions})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {}, "items": items}
