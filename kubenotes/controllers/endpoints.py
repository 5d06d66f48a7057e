"""The Endpoints controller: one ``Endpoints`` object per Service with a selector, from the pods it selects.

For each Service with ``spec.selector``, the pods in its namespace that
match and have a ``status.podIP`` become addresses: Ready pods in
``addresses``, the others (not terminal) in ``notReadyAddresses``, unless
``publishNotReadyAddresses`` puts all in ``addresses``. Each address has the
pod's IP, ``nodeName`` and a ``targetRef`` to the Pod; each Service port
becomes an endpoint port whose number is the pod's ``targetPort`` (a named
port is looked up in the pod's containers). Addresses with the same ports
are packed into one subset, sorted. The object carries the Service's labels,
``service.kubernetes.io/headless`` for a headless Service,
``endpoints.kubernetes.io/managed-by: endpoint-controller``, and the
annotation ``endpoints.kubernetes.io/last-change-trigger-time``; past 1000
addresses it is truncated and annotated ``endpoints.kubernetes.io/over-capacity:
truncated``. The Endpoints API is deprecated since v1.33 in favour of
EndpointSlices (:mod:`kubenotes.controllers.endpointslice`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/endpoint/endpoints_controller.go
kubernetes/kubernetes@v1.34.0 pkg/api/v1/endpoints/util.go (RepackSubsets)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/endpointslice/util/trigger_time_tracker.go
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from kubenotes.api.service import is_service_ip_set
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, READ, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.server import format_timestamp, parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.podutil import find_port, get_pod_condition, is_pod_ready
from kubenotes.controllers.podutil import pod_endpoints_changed, should_pod_be_in_endpoints, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["EndpointsController", "TriggerTimeTracker", "repack_subsets", "compute_subsets", "StaleTracker",
           "truncate_endpoints",
           "selector_matches",
           "LAST_CHANGE_TRIGGER_TIME_ANNOTATION", "OVER_CAPACITY_ANNOTATION", "MAX_CAPACITY",
           "HEADLESS_LABEL", "ENDPOINTS_MANAGED_BY_LABEL", "CONTROLLER_NAME", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:endpoint-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("endpoint-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("endpoint-controller", (
    policy_rule(READ, (LEGACY_GROUP,), ("services", "pods")),
    policy_rule(("get", "list", "watch", "create", "update", "delete"), (LEGACY_GROUP,), ("endpoints",)),
    policy_rule(("create",), (LEGACY_GROUP,), ("endpoints/restricted",)),
    events_rule(),
))

LAST_CHANGE_TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"
OVER_CAPACITY_ANNOTATION = "endpoints.kubernetes.io/over-capacity"
#: ``maxCapacity``: addresses kept in one Endpoints object.
MAX_CAPACITY = 1000
HEADLESS_LABEL = "service.kubernetes.io/headless"
ENDPOINTS_MANAGED_BY_LABEL = "endpoints.kubernetes.io/managed-by"
CONTROLLER_NAME = "endpoint-controller"


def selector_matches(selector: dict | None, labels: dict | None) -> bool:
    """A Service's map selector matches the labels (every pair present).

    Parameters
    ----------
    selector : dict or None
        A Service's ``spec.selector``.
    labels : dict or None
        A pod's labels.

    Examples
    --------
    >>> selector_matches({"app": "web"}, {"app": "web", "tier": "fe"}), selector_matches({"app": "web"}, {})
    (True, False)

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/endpoint/endpoints_controller.go
    (``labels.Set(service.Spec.Selector).AsSelectorPreValidated()``)
    """
    from kubenotes.api.selectors import LabelSelector

    return LabelSelector.from_set(selector).matches(labels or {})


def _ip_key(ip: str) -> tuple:
    try:
        a = ipaddress.ip_address(ip)
        return (a.version, int(a))
    except ValueError:
        return (9, ip)


def _addr_key(a: dict) -> tuple:
    return (_ip_key(a.get("ip", "")), ((a.get("targetRef") or {}).get("uid") or ""))


def _port_key(p: dict) -> tuple:
    return (p.get("name") or "", p.get("port", 0), p.get("protocol") or "", p.get("appProtocol") or "")


def repack_subsets(subsets: list[dict]) -> list[dict]:
    """``RepackSubsets``: ports offered by the same (address, ready) set share one subset; all sorted.

    Each port maps to the addresses offering it (an address ready for a port
    stays ready even if also listed not ready); ports whose address sets are
    identical are merged. Addresses sort by IP then target uid, ports by
    (name, port, protocol); subsets by their first port (upstream sorts them
    by a hash, an order with no meaning).

    Parameters
    ----------
    subsets : list of dict
        One subset per (address, port), as built.

    Examples
    --------
    >>> s = [{"addresses": [{"ip": "10.0.0.2"}], "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]},
    ...      {"addresses": [{"ip": "10.0.0.1"}], "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}]
    >>> [a["ip"] for a in repack_subsets(s)[0]["addresses"]]
    ['10.0.0.1', '10.0.0.2']
    """
    addr_objs: dict[tuple, dict] = {}
    port_objs: dict[tuple, dict | None] = {}
    by_port: dict[tuple, dict[tuple, bool]] = {}
    sentinel = ("", -1, "", "")
    for ss in subsets:
        keys = [_port_key(p) for p in ss.get("ports") or []] or [sentinel]
        for p in ss.get("ports") or []:
            port_objs[_port_key(p)] = p
        port_objs.setdefault(sentinel, None)
        for pk in keys:
            m = by_port.setdefault(pk, {})
            for a in ss.get("addresses") or []:
                ak = (a.get("ip"), (a.get("targetRef") or {}).get("uid"))
                addr_objs.setdefault(ak, a)
                m[ak] = True
            for a in ss.get("notReadyAddresses") or []:
                ak = (a.get("ip"), (a.get("targetRef") or {}).get("uid"))
                addr_objs.setdefault(ak, a)
                m.setdefault(ak, False)
    groups: dict[tuple, list[tuple]] = {}
    for pk, m in by_port.items():
        groups.setdefault(tuple(sorted(m.items(), key=lambda kv: (_ip_key(kv[0][0] or ""), kv[0][1] or "",
                                                                   kv[1]))), []).append(pk)
    out = []
    for addrs, pks in groups.items():
        ss: dict[str, Any] = {}
        ready = [addr_objs[k] for k, r in addrs if r]
        not_ready = [addr_objs[k] for k, r in addrs if not r]
        if ready:
            ss["addresses"] = sorted(ready, key=_addr_key)
        if not_ready:
            ss["notReadyAddresses"] = sorted(not_ready, key=_addr_key)
        ports = [port_objs[pk] for pk in sorted(pks) if pk != sentinel]
        if ports:
            ss["ports"] = ports
        out.append(ss)
    return sorted(out, key=lambda ss: [_port_key(p) for p in ss.get("ports") or []])


def _pod_address(pod: dict, service: dict) -> dict:
    md = pod["metadata"]
    spec = pod.get("spec") or {}
    addr: dict[str, Any] = {"ip": (pod.get("status") or {}).get("podIP", "")}
    if spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"] and \
            md.get("namespace") == service["metadata"].get("namespace"):
        addr["hostname"] = spec["hostname"]
    if spec.get("nodeName"):
        addr["nodeName"] = spec["nodeName"]
    addr["targetRef"] = {"kind": "Pod", "namespace": md.get("namespace"), "name": md["name"], "uid": md.get("uid")}
    return addr


def compute_subsets(service: dict, pods: list[dict]) -> tuple[list[dict], int]:
    """The Endpoints subsets of ``service`` over ``pods`` (already selected), and the address count.

    Parameters
    ----------
    service : dict
    pods : list of dict
        The pods the selector matches.

    Examples
    --------
    >>> svc = {"metadata": {"name": "web", "namespace": "default"},
    ...        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}
    >>> ready = {"metadata": {"name": "a", "namespace": "default", "uid": "1"}, "spec": {"nodeName": "n1"},
    ...          "status": {"phase": "Running", "podIP": "10.244.0.2",
    ...                     "conditions": [{"type": "Ready", "status": "True"}]}}
    >>> starting = {"metadata": {"name": "b", "namespace": "default", "uid": "2"}, "spec": {},
    ...             "status": {"phase": "Pending", "podIP": "10.244.1.2"}}
    >>> ss, n = compute_subsets(svc, [ready, starting])
    >>> [a["ip"] for a in ss[0]["addresses"]], [a["ip"] for a in ss[0]["notReadyAddresses"]], ss[0]["ports"]
    (['10.244.0.2'], ['10.244.1.2'], [{'name': 'http', 'port': 8080, 'protocol': 'TCP'}])
    """
    spec = service.get("spec") or {}
    tolerate_unready = bool(spec.get("publishNotReadyAddresses"))
    subsets: list[dict] = []
    total = 0
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, tolerate_unready):
            continue
        addr = _pod_address(pod, service)
        ready = tolerate_unready or is_pod_ready(pod)
        if not ready and not _should_be_in_not_ready(pod):
            continue
        ports = spec.get("ports") or []
        if not ports:
            if spec.get("clusterIP") == "None":  # headless without ports: addresses only
                subsets.append({"addresses" if ready else "notReadyAddresses": [addr]})
                total += 1
            continue
        for sp in ports:
            try:
                port = find_port(pod, sp)
            except ValueError:
                continue
            epp: dict[str, Any] = {"name": sp.get("name"), "port": port, "protocol": sp.get("protocol") or "TCP"}
            if epp["name"] is None:
                epp.pop("name")
            if sp.get("appProtocol"):
                epp["appProtocol"] = sp["appProtocol"]
            subsets.append({"addresses" if ready else "notReadyAddresses": [addr], "ports": [epp]})
            total += 1
    return repack_subsets(subsets), total


def _should_be_in_not_ready(pod: dict) -> bool:
    # shouldPodBeInEndpoints of the restart policy: terminal pods are never listed
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed")


def truncate_endpoints(subsets: list[dict], max_capacity: int = 1000) -> tuple[list[dict], bool]:
    """``truncateEndpoints``: keep at most ``max_capacity`` addresses, in the same ratio across subsets.

    Not-ready addresses are cut first; when the ready ones alone exceed the
    capacity, every not-ready address goes and the ready ones are cut. Each
    subset keeps ``ceil(its share * room)``, bounded by what is left.

    Parameters
    ----------
    subsets : list of dict
    max_capacity : int
        ``maxCapacity`` (1000).

    Returns
    -------
    (list of dict, bool)
        The subsets and whether anything was cut.

    Examples
    --------
    >>> ss = [{"addresses": [{}] * r, "notReadyAddresses": [{}] * n} for r, n in
    ...       [(205, 100), (400, 200), (402, 200), (400, 200), (693, 300)]]
    >>> out, cut = truncate_endpoints(ss)
    >>> [len(s["addresses"]) for s in out], cut
    ([98, 191, 192, 191, 328], True)
    """
    total_ready = sum(len(s.get("addresses") or []) for s in subsets)
    total_not_ready = sum(len(s.get("notReadyAddresses") or []) for s in subsets)
    if total_ready + total_not_ready <= max_capacity:
        return subsets, False
    truncate_ready = total_ready > max_capacity
    room, num_total = (max_capacity, total_ready) if truncate_ready else (max_capacity - total_ready, total_not_ready)
    can_be_added = room
    out = []
    for s in subsets:
        s = dict(s)
        field = "addresses" if truncate_ready else "notReadyAddresses"
        addrs = s.get(field) or []
        to_add = min(math.ceil(len(addrs) / num_total * room), can_be_added) if num_total else 0
        s[field] = addrs[:to_add]
        if truncate_ready:
            s["notReadyAddresses"] = []
        can_be_added -= len(s[field])
        for f in ("addresses", "notReadyAddresses"):
            if not s.get(f):
                s.pop(f, None)
        out.append(s)
    return out, True


class StaleTracker:
    """``staleEndpointsTracker``: the resourceVersion last written per object, to spot a lagging informer cache.

    Examples
    --------
    >>> t = StaleTracker(); t.written("default/web", "12")
    >>> t.is_stale("default/web", {"metadata": {"resourceVersion": "10"}}), t.is_stale("default/web", None)
    (True, True)
    >>> t.is_stale("default/web", {"metadata": {"resourceVersion": "12"}})
    False
    """

    def __init__(self) -> None:
        self._rv: dict[str, int] = {}

    def written(self, key: str, resource_version: str | None) -> None:
        """Remember a write (``None``: the object was deleted).

        Parameters
        ----------
        key : str
            ``namespace/name``.
        resource_version : str or None
        """
        if resource_version is None:
            self._rv.pop(key, None)
        else:
            self._rv[key] = int(resource_version)

    def is_stale(self, key: str, cached: dict | None) -> bool:
        """The cache has not caught up with our last write of ``key``.

        Parameters
        ----------
        key : str
        cached : dict or None
            The informer's copy.
        """
        want = self._rv.get(key)
        if want is None:
            return False
        if cached is None:
            return True
        return int(cached["metadata"].get("resourceVersion") or 0) < want

    def forget(self, key: str) -> None:
        """Drop what is known about ``key`` (its Service is gone)."""
        self._rv.pop(key, None)


class TriggerTimeTracker:
    """``TriggerTimeTracker``: the time of the oldest change (pod Ready transition, service creation) not yet synced.

    Examples
    --------
    >>> t = TriggerTimeTracker()
    >>> svc = {"metadata": {"namespace": "d", "name": "s", "creationTimestamp": "2025-08-27T00:00:05Z"}}
    >>> pod = {"metadata": {"name": "p"}, "status": {"conditions": [
    ...     {"type": "Ready", "status": "True", "lastTransitionTime": "2025-08-27T00:00:09Z"}]}}
    >>> t.compute(svc, [pod])
    '2025-08-27T00:00:05Z'
    >>> t.compute(svc, [pod]) is None
    True
    """

    def __init__(self) -> None:
        self._state: dict[tuple[str, str], tuple[str | None, dict[str, str | None]]] = {}

    def compute(self, service: dict, pods: list[dict]) -> str | None:
        """The trigger time of this sync (None when nothing changed since the last one).

        Parameters
        ----------
        service : dict
        pods : list of dict
            The selected pods.
        """
        md = service["metadata"]
        key = (md.get("namespace", ""), md["name"])
        svc_time = md.get("creationTimestamp")
        old_svc, old_pods = self._state.get(key, (None, {}))
        changed: list[str] = []
        if svc_time != old_svc and svc_time:
            changed.append(svc_time)
        new_pods: dict[str, str | None] = {}
        for p in pods:
            c = get_pod_condition(p.get("status"), "Ready")
            t = (c or {}).get("lastTransitionTime")
            name = p["metadata"]["name"]
            new_pods[name] = t
            if t and old_pods.get(name) != t:
                changed.append(t)
        self._state[key] = (svc_time, new_pods)
        if not changed:
            return None
        return format_timestamp(min(parse_timestamp(t) for t in changed))

    def delete_service(self, namespace: str, name: str) -> None:
        """Forget a deleted Service's state."""
        self._state.pop((namespace, name), None)


class EndpointsController(Controller):
    """``endpoint.Controller``: Endpoints objects from Services and Pods.

    Notes
    -----
    Simplified: only IPv4/single-stack pod IPs (``status.podIP``); the
    trigger time is kept per service in memory as upstream, but pod deletions
    do not contribute one.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/endpoint/endpoints_controller.go
    """

    name = CONTROLLER_NAME
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Register the Service, Pod and Endpoints handlers."""
        self.trigger_time_tracker = TriggerTimeTracker()
        self.stale_endpoints_tracker = StaleTracker()
        self.svc_informer = self.informers.informer_for("services")
        self.pod_informer = self.informers.informer_for("pods")
        self.ep_informer = self.informers.informer_for("endpoints")
        self.svc_informer.add_event_handler(self.enqueue, lambda o, n: self.enqueue(n), self._svc_deleted)
        self.pod_informer.add_event_handler(self._pod_changed, lambda o, n: self._pod_updated(o, n),
                                            lambda o: self._pod_changed(unwrap_deleted(o)))
        self.ep_informer.add_event_handler(None, None, self._ep_deleted)

    def _svc_deleted(self, obj: Any) -> None:
        svc = unwrap_deleted(obj)
        if svc is not None:
            self.enqueue(svc)

    def _ep_deleted(self, obj: Any) -> None:
        ep = unwrap_deleted(obj)
        if ep is not None and self.svc_informer.lister.get(ep["metadata"]["namespace"], ep["metadata"]["name"]):
            self.enqueue(ep)

    def _services_for(self, pod: dict) -> list[dict]:
        ns = pod["metadata"].get("namespace")
        labels = pod["metadata"].get("labels") or {}
        return [s for s in self.svc_informer.lister.list(namespace=ns)
                if (s.get("spec") or {}).get("selector") is not None
                and selector_matches(s["spec"]["selector"], labels)]

    def _pod_changed(self, pod: dict | None) -> None:
        if pod is None:
            return
        for s in self._services_for(pod):
            self.enqueue(s)

    def _pod_updated(self, old: dict, new: dict) -> None:
        """``updatePod`` with ``GetServicesToUpdateOnPodChange``: only endpoint-relevant changes resync."""
        if old.get("metadata", {}).get("resourceVersion") == new.get("metadata", {}).get("resourceVersion"):
            return
        changed, labels_changed = pod_endpoints_changed(old, new)
        if not changed and not labels_changed:
            return
        keys = {f"{s['metadata']['namespace']}/{s['metadata']['name']}" for s in self._services_for(new)}
        if labels_changed:
            keys |= {f"{s['metadata']['namespace']}/{s['metadata']['name']}" for s in self._services_for(old)}
        for k in sorted(keys):
            self.enqueue(k)

    def reconcile(self, key: str) -> Result | None:
        """``syncService``."""
        ns, _, name = key.partition("/")
        service = self.svc_informer.lister.get(ns, name)
        if service is None:
            self.trigger_time_tracker.delete_service(ns, name)
            self.stale_endpoints_tracker.forget(key)
            try:
                self.client.delete("endpoints", name, ns)
            except ApiError as e:
                if e.code != 404:
                    raise
            return None
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName" or spec.get("selector") is None:
            return None  # no selector: the Endpoints are the user's (an empty selector selects all)
        pods = sorted((p for p in self.pod_informer.lister.list(namespace=ns)
                       if selector_matches(spec["selector"], p["metadata"].get("labels"))),
                      key=lambda p: p["metadata"]["name"])
        current = self.ep_informer.lister.get(ns, name)
        if current is not None and self.stale_endpoints_tracker.is_stale(key, current):
            return Result(requeue=True)  # "endpoints informer cache is out of date"
        trigger = self.trigger_time_tracker.compute(service, pods)
        subsets, _ = compute_subsets(service, pods)
        subsets, over = truncate_endpoints(subsets, MAX_CAPACITY)
        create = current is None
        if create:
            current = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name, "namespace": ns}}
        labels = {k: v for k, v in (service["metadata"].get("labels") or {}).items()}
        if not is_service_ip_set(service):
            labels[HEADLESS_LABEL] = ""
        else:
            labels.pop(HEADLESS_LABEL, None)
        labels[ENDPOINTS_MANAGED_BY_LABEL] = CONTROLLER_NAME
        cur_ann = current["metadata"].get("annotations") or {}
        if not create and (current.get("subsets") or []) == subsets and \
                (current["metadata"].get("labels") or {}) == labels and \
                (cur_ann.get(OVER_CAPACITY_ANNOTATION) == "truncated") == over:
            return None
        new = deep_copy(current)
        md = new["metadata"]
        md["labels"] = labels
        ann = dict(md.get("annotations") or {})
        if trigger:
            ann[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = trigger
        else:
            ann.pop(LAST_CHANGE_TRIGGER_TIME_ANNOTATION, None)
        if over:
            ann[OVER_CAPACITY_ANNOTATION] = "truncated"
        else:
            ann.pop(OVER_CAPACITY_ANNOTATION, None)
        if ann:
            md["annotations"] = ann
        else:
            md.pop("annotations", None)
        if subsets:
            new["subsets"] = subsets
        else:
            new.pop("subsets", None)
        try:
            if create:
                out = self.client.create("endpoints", new, ns)
            else:
                out = self.client.update("endpoints", new, ns)
        except ApiError as e:
            if create and e.code == 403:
                return None  # the namespace is terminating
            if create:
                self.event(new, "Warning", "FailedToCreateEndpoint",
                           f"Failed to create endpoint for service {ns}/{name}: {e}")
            else:
                self.event(new, "Warning", "FailedToUpdateEndpoint", f"Failed to update endpoint {ns}/{name}: {e}")
            raise
        self.stale_endpoints_tracker.written(key, out["metadata"]["resourceVersion"])
        return None
