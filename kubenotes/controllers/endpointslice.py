"""The EndpointSlice controller: a Service's endpoints as ``discovery.k8s.io/v1`` EndpointSlices.

For each Service with a selector, every selected pod with an IP and not in
a terminal phase becomes an endpoint: ``addresses`` (its IP),
``conditions`` (``ready``: Ready and not terminating, or
``publishNotReadyAddresses``; ``serving``: Ready; ``terminating``: being
deleted), ``targetRef``, ``nodeName`` and ``zone``. Endpoints with the same
resolved ports share slices of at most ``max-endpoints-per-slice`` (100)
endpoints, named ``<service>-<5 random characters>``, labelled
``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
endpointslice-controller.k8s.io``, and owned by the Service. The reconciler
keeps endpoints in the slice they are in, fills free room before creating
slices, and deletes slices that end up empty; a Service with no endpoints
keeps one empty placeholder slice.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/endpointslice/endpointslice_controller.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/endpointslice/reconciler.go, utils.go (podToEndpoint, newEndpointSlice)
https://kubernetes.io/docs/concepts/services-networking/endpoint-slices/
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.service import LABEL_SERVICE_NAME, is_service_ip_set
from kubenotes.apiserver.bootstrap_policy import (
    DISCOVERY_GROUP,
    LEGACY_GROUP,
    READ,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.endpoints import (
    HEADLESS_LABEL,
    LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
    StaleTracker,
    TriggerTimeTracker,
    selector_matches,
)
from kubenotes.api.podutil import find_port, is_pod_ready
from kubenotes.controllers.podutil import pod_endpoints_changed, should_pod_be_in_endpoints, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["EndpointSliceController", "pod_to_endpoint", "desired_endpoints",
           "LABEL_MANAGED_BY", "CONTROLLER_NAME", "DEFAULT_MAX_ENDPOINTS_PER_SLICE", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:endpointslice-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("endpointslice-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("endpointslice-controller", (
    policy_rule(READ, (LEGACY_GROUP,), ("services", "pods", "nodes")),
    # owner references with blockOwnerDeletion need the owner's finalizers subresource
    policy_rule(("update",), (LEGACY_GROUP,), ("services/finalizers",)),
    policy_rule(("get", "list", "watch", "create", "update", "delete"), (DISCOVERY_GROUP,), ("endpointslices",)),
    events_rule(),
))

LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
#: The managed-by value of slices this controller owns.
CONTROLLER_NAME = "endpointslice-controller.k8s.io"
DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100


def pod_to_endpoint(pod: dict, service: dict, zone: str | None = None) -> dict:
    """``podToEndpoint``: one EndpointSlice endpoint of a pod.

    Parameters
    ----------
    pod : dict
    service : dict
    zone : str, optional
        The node's ``topology.kubernetes.io/zone``.

    Examples
    --------
    >>> pod = {"metadata": {"name": "a", "namespace": "default", "uid": "u", "deletionTimestamp": "t"},
    ...        "spec": {"nodeName": "n1"},
    ...        "status": {"podIP": "10.244.0.2", "conditions": [{"type": "Ready", "status": "True"}]}}
    >>> pod_to_endpoint(pod, {"metadata": {"name": "web"}, "spec": {}})["conditions"]
    {'ready': False, 'serving': True, 'terminating': True}
    """
    md = pod["metadata"]
    spec = pod.get("spec") or {}
    serving = is_pod_ready(pod)
    terminating = bool(md.get("deletionTimestamp"))
    ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses")) or (serving and not terminating)
    ep: dict[str, Any] = {"addresses": [(pod.get("status") or {}).get("podIP", "")],
                          "conditions": {"ready": ready, "serving": serving, "terminating": terminating}}
    if spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"]:
        ep["hostname"] = spec["hostname"]
    ep["targetRef"] = {"kind": "Pod", "namespace": md.get("namespace"), "name": md["name"], "uid": md.get("uid")}
    if spec.get("nodeName"):
        ep["nodeName"] = spec["nodeName"]
    if zone:
        ep["zone"] = zone
    return ep


def _ports_for(pod: dict, service: dict) -> list[dict]:
    out = []
    for sp in (service.get("spec") or {}).get("ports") or []:
        try:
            port = find_port(pod, sp)
        except ValueError:
            continue
        p: dict[str, Any] = {"name": sp.get("name") or "", "port": port, "protocol": sp.get("protocol") or "TCP"}
        if sp.get("appProtocol"):
            p["appProtocol"] = sp["appProtocol"]
        out.append(p)
    return out


def _ports_key(ports: list[dict]) -> tuple:
    return tuple(sorted((p.get("name") or "", p.get("port"), p.get("protocol") or "TCP", p.get("appProtocol") or "")
                        for p in ports or []))


def _ep_key(ep: dict) -> tuple:
    ref = ep.get("targetRef") or {}
    return (tuple(ep.get("addresses") or []), ref.get("uid") or "", ref.get("name") or "")


def desired_endpoints(service: dict, pods: list[dict],
                      zones: dict[str, str] | None = None) -> dict[tuple, tuple[list[dict], list[dict]]]:
    """Endpoints grouped by their port set: ``ports key -> (ports, endpoints)``.

    Pods without an IP, in a terminal phase, are left out; terminating ones stay (with ``terminating: true``).

    Parameters
    ----------
    service : dict
    pods : list of dict
        The pods the selector matches.
    zones : dict[str, str], optional
        Node name -> zone.
    """
    zones = zones or {}
    out: dict[tuple, tuple[list[dict], list[dict]]] = {}
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, True):
            continue
        ports = _ports_for(pod, service)
        key = _ports_key(ports)
        node = (pod.get("spec") or {}).get("nodeName") or ""
        ep = pod_to_endpoint(pod, service, zones.get(node))
        out.setdefault(key, (ports, []))[1].append(ep)
    return out


class EndpointSliceController(Controller):
    """``endpointslice.Controller`` with the staging ``Reconciler``.

    Options: ``max-endpoints-per-slice`` (100).

    Notes
    -----
    Simplified: IPv4 only (``addressType: IPv4``); no topology hints or
    traffic distribution. The placement follows upstream's three steps (keep
    and update endpoints where they are; fill the slices already being
    updated, fullest first; put the rest into the unchanged slice that fits
    them most closely, else into new slices), with sorted rather than random
    endpoint order.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/endpointslice/reconciler.go
    """

    name = "endpointslice-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Register the Service, Pod and EndpointSlice handlers."""
        self.max_endpoints_per_slice = int(self.option("max-endpoints-per-slice", DEFAULT_MAX_ENDPOINTS_PER_SLICE))
        self.trigger_time_tracker = TriggerTimeTracker()
        self.endpoint_slice_tracker = StaleTracker()
        self._slices_of: dict[str, set[str]] = {}
        self.svc_informer = self.informers.informer_for("services")
        self.pod_informer = self.informers.informer_for("pods")
        self.node_informer = self.informers.informer_for("nodes")
        self.slice_informer = self.informers.informer_for("endpointslices")
        self.svc_informer.add_event_handler(self.enqueue, lambda o, n: self.enqueue(n),
                                            lambda o: self._enqueue_deleted(o))
        self.pod_informer.add_event_handler(self._pod_changed, self._pod_updated,
                                            lambda o: self._pod_changed(unwrap_deleted(o)))
        self.slice_informer.add_event_handler(None, None, self._slice_deleted)

    def _enqueue_deleted(self, obj: Any) -> None:
        o = unwrap_deleted(obj)
        if o is not None:
            self.enqueue(o)

    def _slice_deleted(self, obj: Any) -> None:
        s = unwrap_deleted(obj)
        if s is None:
            return
        labels = s["metadata"].get("labels") or {}
        ns, name = s["metadata"]["namespace"], s["metadata"]["name"]
        self.endpoint_slice_tracker.forget(f"{ns}/{name}")
        if labels.get(LABEL_MANAGED_BY) == CONTROLLER_NAME and labels.get(LABEL_SERVICE_NAME):
            self._slices_of.get(f"{ns}/{labels[LABEL_SERVICE_NAME]}", set()).discard(name)
            self.enqueue(f"{ns}/{labels[LABEL_SERVICE_NAME]}")

    def _services_for(self, pod: dict) -> list[str]:
        ns = pod["metadata"].get("namespace")
        labels = pod["metadata"].get("labels") or {}
        return [f"{ns}/{s['metadata']['name']}" for s in self.svc_informer.lister.list(namespace=ns)
                if (s.get("spec") or {}).get("selector") is not None
                and selector_matches(s["spec"]["selector"], labels)]

    def _pod_changed(self, pod: dict | None) -> None:
        if pod is not None:
            for k in self._services_for(pod):
                self.enqueue(k)

    def _pod_updated(self, old: dict, new: dict) -> None:
        changed, labels_changed = pod_endpoints_changed(old, new)
        if not changed and not labels_changed:
            return
        keys = set(self._services_for(new))
        if labels_changed:
            keys |= set(self._services_for(old))
        for k in sorted(keys):
            self.enqueue(k)

    def _existing_slices(self, ns: str, name: str) -> list[dict]:
        out = []
        for s in self.slice_informer.lister.list(namespace=ns):
            labels = s["metadata"].get("labels") or {}
            if labels.get(LABEL_SERVICE_NAME) == name and labels.get(LABEL_MANAGED_BY) == CONTROLLER_NAME:
                out.append(s)
        return sorted(out, key=lambda s: s["metadata"]["name"])

    def _labels(self, service: dict) -> dict:
        labels = {k: v for k, v in (service["metadata"].get("labels") or {}).items()
                  if k not in (LABEL_SERVICE_NAME, LABEL_MANAGED_BY, HEADLESS_LABEL)}
        if not is_service_ip_set(service):
            labels[HEADLESS_LABEL] = ""
        labels[LABEL_SERVICE_NAME] = service["metadata"]["name"]
        labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
        return labels

    def reconcile(self, key: str) -> Result | None:
        """``syncService``: compute the desired endpoints and reconcile the slices toward them."""
        ns, _, name = key.partition("/")
        service = self.svc_informer.lister.get(ns, name)
        if service is None:
            self.trigger_time_tracker.delete_service(ns, name)
            return None  # the garbage collector removes the slices through their ownerReferences
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName" or spec.get("selector") is None:
            return None  # no selector: the Endpoints are the user's (an empty selector selects all)
        if service["metadata"].get("deletionTimestamp"):
            return None
        pods = sorted((p for p in self.pod_informer.lister.list(namespace=ns)
                       if selector_matches(spec["selector"], p["metadata"].get("labels"))),
                      key=lambda p: p["metadata"]["name"])
        zones = {}
        for node_name in {(p.get("spec") or {}).get("nodeName") for p in pods} - {None, ""}:
            n = self.node_informer.lister.get("", node_name)
            z = ((n or {}).get("metadata", {}).get("labels") or {}).get("topology.kubernetes.io/zone")
            if z:
                zones[node_name] = z
        existing = self._existing_slices(ns, name)
        if self._stale(key, existing):
            return Result(requeue=True)  # "EndpointSlice informer cache is out of date"
        trigger = self.trigger_time_tracker.compute(service, pods)
        desired = desired_endpoints(service, pods, zones)
        self._reconcile_slices(service, desired, existing, trigger)
        return None

    def _stale(self, key: str, existing: list[dict]) -> bool:
        """``endpointSliceTracker.StaleSlices``: a slice we wrote is older in the cache, or a deleted one lingers."""
        ns = key.split("/", 1)[0]
        cached = {s["metadata"]["name"]: s for s in existing}
        for name in self._slices_of.get(key, set()):
            if self.endpoint_slice_tracker.is_stale(f"{ns}/{name}", cached.get(name)):
                return True
        return any(self.endpoint_slice_tracker.is_stale(f"{ns}/{n}", s) for n, s in cached.items())

    def _reconcile_slices(self, service: dict, desired: dict, existing: list[dict], trigger: str | None) -> None:
        ns = service["metadata"]["namespace"]
        labels = self._labels(service)
        max_n = self.max_endpoints_per_slice
        to_create: list[dict] = []
        to_update: dict[str, dict] = {}
        to_delete: list[dict] = []
        kept: list[dict] = []  # working copies of slices staying
        placed: set[tuple] = set()
        for s in existing:
            key = _ports_key(s.get("ports") or [])
            if key not in desired:
                to_delete.append(s)
                continue
            want = {_ep_key(e): e for e in desired[key][1]}
            new_eps = []
            for e in s.get("endpoints") or []:
                k = _ep_key(e)
                if k in want and k not in placed:
                    new_eps.append(want[k])
                    placed.add(k)
            work = deep_copy(s)
            work["endpoints"] = new_eps
            if not new_eps:
                to_delete.append(s)
                continue
            if new_eps != (s.get("endpoints") or []) or (s["metadata"].get("labels") or {}) != labels:
                to_update[s["metadata"]["name"]] = work
            kept.append(work)
        for key, (ports, eps) in sorted(desired.items()):
            remaining = sorted((e for e in eps if _ep_key(e) not in placed), key=_ep_key)
            if not remaining:
                continue
            same = [w for w in kept if _ports_key(w.get("ports") or []) == key]
            # 2. fill the slices already being updated, fullest first
            for w in sorted((w for w in same if w["metadata"]["name"] in to_update),
                            key=lambda w: -len(w["endpoints"])):
                room = max_n - len(w["endpoints"])
                if room > 0 and remaining:
                    w["endpoints"].extend(remaining[:room])
                    remaining = remaining[room:]
            # 3. the rest: into the unchanged slice that fits them all most closely, else new slices
            unchanged = [w for w in same if w["metadata"]["name"] not in to_update]
            while remaining:
                fill = None
                if len(remaining) < max_n:
                    fits = [w for w in unchanged if max_n - len(w["endpoints"]) >= len(remaining)]
                    if fits:
                        fill = min(fits, key=lambda w: (max_n - len(w["endpoints"]), w["metadata"]["name"]))
                if fill is None:
                    chunk, remaining = remaining[:max_n], remaining[max_n:]
                    to_create.append(self._new_slice(service, labels, ports, chunk))
                else:
                    fill["endpoints"].extend(remaining)
                    remaining = []
                    to_update[fill["metadata"]["name"]] = fill
                    unchanged.remove(fill)
        if not desired and not kept and not to_create:
            # placeholder: one empty slice stays (or is created)
            placeholder = next((s for s in to_delete if not (s.get("endpoints") or []) and not (s.get("ports") or [])),
                               None)
            if placeholder is not None:
                to_delete = [s for s in to_delete if s is not placeholder]
            else:
                to_create.append(self._new_slice(service, labels, [], []))
        # finalize(): a create and a delete of the same Service's slices become one update of the slice that
        # would be deleted (so the placeholder is filled in place rather than replaced)
        for doomed in list(to_delete):
            if not to_create:
                break
            if (doomed.get("addressType") or "IPv4") != (to_create[-1].get("addressType") or "IPv4"):
                continue
            fresh = to_create.pop()
            fresh["metadata"].pop("generateName", None)
            fresh["metadata"] = {**deep_copy(doomed["metadata"]), "labels": fresh["metadata"]["labels"]}
            to_delete.remove(doomed)
            to_update[fresh["metadata"]["name"]] = fresh
        for s in to_create:
            if trigger:
                s["metadata"].setdefault("annotations", {})[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = trigger
            try:
                out = self.client.create("endpointslices.discovery.k8s.io", s, ns)
            except ApiError as e:
                if e.code == 403:
                    return  # the namespace is terminating
                raise
            self._written(service, out)
        for name in sorted(to_update):
            w = to_update[name]
            w["metadata"]["labels"] = labels
            if trigger:
                w["metadata"].setdefault("annotations", {})[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = trigger
            self._written(service, self.client.update("endpointslices.discovery.k8s.io", w, ns))
        for s in to_delete:
            try:
                self.client.delete("endpointslices.discovery.k8s.io", s["metadata"]["name"], ns)
            except ApiError as e:
                if e.code != 404:
                    raise
            skey = f"{ns}/{s['metadata']['name']}"
            self.endpoint_slice_tracker.written(skey, str(2**62))  # deleted: stale while the cache still has it
            self._slices_of.setdefault(f"{ns}/{service['metadata']['name']}", set()).discard(s["metadata"]["name"])

    def _written(self, service: dict, out: dict) -> None:
        ns = service["metadata"]["namespace"]
        self.endpoint_slice_tracker.written(f"{ns}/{out['metadata']['name']}", out["metadata"]["resourceVersion"])
        self._slices_of.setdefault(f"{ns}/{service['metadata']['name']}", set()).add(out["metadata"]["name"])

    def _new_slice(self, service: dict, labels: dict, ports: list[dict], endpoints: list[dict]) -> dict:
        md = service["metadata"]
        return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"generateName": f"{md['name']}-", "namespace": md["namespace"], "labels": dict(labels),
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Service", "name": md["name"],
                                                  "uid": md.get("uid", ""), "controller": True,
                                                  "blockOwnerDeletion": True}]},
                "addressType": "IPv4", "endpoints": list(endpoints), "ports": list(ports)}
