"""Scheduler extenders: web services kube-scheduler calls after its own Filter and Score (``HTTPExtender``).

Mirrors ``pkg/scheduler/extender.go`` (``HTTPExtender``), the extender steps
of ``pkg/scheduler/schedule_one.go`` (``findNodesThatPassExtenders``, the
extender part of ``prioritizeNodes``, ``extendersBinding``),
``buildExtenders`` of ``pkg/scheduler/scheduler.go``, the ``Extender``
interface of ``pkg/scheduler/framework/extender.go`` and the wire types of
``k8s.io/kube-scheduler/extender/v1``.

An extender is configured in ``KubeSchedulerConfiguration.extenders``: a
``urlPrefix`` and the verbs it serves. After the Filter plugins, each
extender interested in the pod gets the feasible nodes (``POST
<urlPrefix>/<filterVerb>``, an :class:`ExtenderArgs`) and answers with the
nodes that pass and why the others fail (:class:`ExtenderFilterResult`);
after the Score plugins, each prioritizer returns a ``HostPriorityList``
(0-10 per node) that is scaled to the scheduler's range and added:
``score * weight * (MaxNodeScore / MaxExtenderPriority)``. One extender may
bind the pod instead of the DefaultBinder, and extenders may trim the
preemption candidates.

:class:`HTTPExtender` speaks upstream's JSON over HTTP. Given a ``service``
(any object with ``filter``, ``prioritize``, ``bind`` or ``preempt``
methods taking and returning the decoded JSON), it hands the same JSON to
that object instead of the network, so notebooks and tests need no server;
:class:`ExtenderServer` serves such an object over real HTTP on 127.0.0.1.
:class:`DemoExtender` is one such service (zones: a filter, a prioritizer,
a binder and a preemption verb); ``python -m kubenotes.scheduler.extender
--port 8888 data/cluster`` runs it for ``data/extenders/scheduler-config.yaml``.

Notes
-----
Simplified compared with upstream:

* prioritizers run one after another in configuration order (upstream: one
  goroutine each; the sums are the same, only the order of the per-node
  score list differs);
* requests use Python's ``urllib`` with no proxy; ``tlsConfig`` supports
  ``insecure``, ``caFile``/``caData`` and ``certFile``/``keyFile``
  (``serverName`` and ``certData``/``keyData`` are not applied);
* an extender that binds only reports success: the model then records the
  binding itself (upstream, the extender writes the Binding to the API
  server);
* as in v1.34, a filter result of full ``Nodes`` (``nodeCacheCapable:
  false``) becomes new NodeInfos holding only the Node: Score plugins then
  see those nodes without their pods (kubernetes/kubernetes#141781, not
  fixed in v1.34).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/extender.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (findNodesThatPassExtenders, prioritizeNodes, extendersBinding)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/scheduler.go (buildExtenders)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-scheduler/extender/v1/types.go
https://github.com/kubernetes/design-proposals-archive/blob/main/scheduling/scheduler_extender.md
https://kubernetes.io/docs/reference/config-api/kube-scheduler-config.v1/#kubescheduler-config-k8s-io-v1-Extender

Examples
--------
An extender that keeps the pod out of one zone and prefers another, answered in-process:

>>> from kubenotes.scheduler.config import API_VERSION, KIND, load_config
>>> from kubenotes.scheduler.schedule_one import new_scheduler
>>> from kubenotes.scheduler.testing import make_node, make_pod
>>> cfg = load_config({"apiVersion": API_VERSION, "kind": KIND, "extenders": [{
...     "urlPrefix": "http://zones.example:8888/scheduler", "filterVerb": "filter",
...     "prioritizeVerb": "prioritize", "weight": 5}]})
>>> nodes = [make_node(n, labels={"topology.kubernetes.io/zone": z})
...          for n, z in (("a1", "zone-a"), ("b1", "zone-b"), ("c1", "zone-c"))]
>>> demo = DemoExtender(avoid_zones=["zone-c"], prefer_zone="zone-b")
>>> sched = new_scheduler(nodes, [make_pod("web", requests={"cpu": "1"})], config=cfg,
...                       extender_services={"http://zones.example:8888/scheduler": demo})
>>> (t,) = sched.run()
>>> t.node_name, t.filter["c1"]["http://zones.example:8888/scheduler"]
('b1', 'zone zone-c is avoided by the extender')
>>> t.final_score["b1"]["http://zones.example:8888/scheduler"]   # 10 * weight 5 * (100 / 10)
500
>>> verb, request, code, response = sched.extenders[0].exchanges[0]
>>> verb, sorted(request), code, sorted(response)
('filter', ['NodeNames', 'Nodes', 'Pod'], 200, ['Error', 'FailedAndUnresolvableNodes', 'FailedNodes', 'NodeNames', 'Nodes'])
"""

from __future__ import annotations

import base64
import json
import socket
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Mapping, Protocol, Sequence

from kubenotes.api.duration import parse_go_duration
from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Code, Status
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.framework.runtime import NodePluginScores, NodeToStatus, PluginScore
from kubenotes.scheduler.plugins.defaultbinder import binding
from kubenotes.scheduler.plugins.defaultpreemption.preemption import Victims

__all__ = [
    "EXTENDER_NAME",
    "DEFAULT_EXTENDER_TIMEOUT_SECONDS",
    "MIN_EXTENDER_PRIORITY",
    "MAX_EXTENDER_PRIORITY",
    "VERB_TYPES",
    "ExtenderArgs",
    "ExtenderFilterResult",
    "HostPriority",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "MetaPod",
    "MetaVictims",
    "ExtenderPreemptionArgs",
    "ExtenderPreemptionResult",
    "Extender",
    "HTTPExtender",
    "build_extenders",
    "ignored_extended_resources",
    "convert_to_meta_victims",
    "find_nodes_that_pass_extenders",
    "add_extender_scores",
    "extenders_binding",
    "DemoExtender",
    "ExtenderServer",
]

#: ``framework.ExtenderName``: what ``UnschedulablePlugins`` records when extenders rejected nodes.
EXTENDER_NAME = "Extender"
#: ``DefaultExtenderTimeout``: the HTTP timeout when ``httpTimeout`` is not set.
DEFAULT_EXTENDER_TIMEOUT_SECONDS = 5.0
#: ``extenderv1.MinExtenderPriority`` / ``MaxExtenderPriority``: the range of an extender's scores.
MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
#: Verb -> (request type, response type) of the JSON exchanged with an extender (``extender/v1/types.go``;
#: ``HTTPExtender.Filter/Prioritize/Bind/ProcessPreemption`` in ``pkg/scheduler/extender.go``).
VERB_TYPES: dict[str, tuple[str, str]] = {
    "filter": ("ExtenderArgs", "ExtenderFilterResult"),
    "prioritize": ("ExtenderArgs", "HostPriorityList"),
    "bind": ("ExtenderBindingArgs", "ExtenderBindingResult"),
    "preempt": ("ExtenderPreemptionArgs", "ExtenderPreemptionResult"),
}

#: ``extenderv1.FailedNodesMap``: node name -> failure message.
FailedNodesMap = dict


# --------------------------------------------------------------------------- wire types
def _field(d: Any, key: str) -> Any:
    """``d[key]`` as Go's encoding/json finds a struct field: the exact key first, else any case."""
    if not isinstance(d, dict):
        return None
    if key in d:
        return d[key]
    low = key.lower()
    for k, v in d.items():
        if isinstance(k, str) and k.lower() == low:
            return v
    return None


def _pod_object(pod: Any) -> Any:
    return pod.pod if isinstance(pod, PodInfo) else pod


def _to_json_object(obj: Any) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else obj.to_dict()


@dataclass
class ExtenderArgs:
    """The body of a filter or prioritize call (``extenderv1.ExtenderArgs``).

    Attributes
    ----------
    pod : dict
        The pod being scheduled, as JSON.
    nodes : list[dict] or None
        The candidate Nodes (sent as a ``NodeList``) when the extender is not ``nodeCacheCapable``.
    node_names : list[str] or None
        Their names when it is.
    """

    pod: dict[str, Any]
    nodes: list[dict[str, Any]] | None = None
    node_names: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Upstream's JSON: ``{"Pod": ..., "Nodes": {"metadata": {}, "items": [...]} or null, "NodeNames": [...] or null}``."""
        return {
            "Pod": self.pod,
            "Nodes": None if self.nodes is None else {"metadata": {}, "items": list(self.nodes)},
            "NodeNames": None if self.node_names is None else list(self.node_names),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ExtenderArgs":
        """Decode a request (keys in any case, as Go decodes)."""
        nodes = _field(d, "Nodes")
        names = _field(d, "NodeNames")
        return cls(_field(d, "Pod") or {}, None if nodes is None else list(_field(nodes, "items") or []),
                   None if names is None else list(names))


@dataclass
class ExtenderFilterResult:
    """The answer to a filter call (``extenderv1.ExtenderFilterResult``).

    Attributes
    ----------
    nodes : list[dict] or None
        Nodes that pass (a ``NodeList``), for an extender that is not ``nodeCacheCapable``.
    node_names : list[str] or None
        Names of the nodes that pass, for one that is.
    failed_nodes : dict[str, str]
        Node -> message: filtered out, preemption might help.
    failed_and_unresolvable_nodes : dict[str, str]
        Node -> message: filtered out, preemption would not help (wins over ``failed_nodes``).
    error : str
        Non-empty when the extender failed.
    """

    nodes: list[dict[str, Any]] | None = None
    node_names: list[str] | None = None
    failed_nodes: dict[str, str] = field(default_factory=dict)
    failed_and_unresolvable_nodes: dict[str, str] = field(default_factory=dict)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Upstream's JSON (Go field names)."""
        return {
            "Nodes": None if self.nodes is None else {"metadata": {}, "items": list(self.nodes)},
            "NodeNames": None if self.node_names is None else list(self.node_names),
            "FailedNodes": dict(self.failed_nodes) or None,
            "FailedAndUnresolvableNodes": dict(self.failed_and_unresolvable_nodes) or None,
            "Error": self.error,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ExtenderFilterResult":
        """Decode a response (keys in any case; absent fields are empty)."""
        nodes = _field(d, "Nodes")
        names = _field(d, "NodeNames")
        return cls(
            None if nodes is None else list(_field(nodes, "items") or []),
            None if names is None else [str(n) for n in names],
            {str(k): str(v) for k, v in (_field(d, "FailedNodes") or {}).items()},
            {str(k): str(v) for k, v in (_field(d, "FailedAndUnresolvableNodes") or {}).items()},
            str(_field(d, "Error") or ""),
        )


@dataclass
class HostPriority:
    """One node's score from a prioritize call (``extenderv1.HostPriority``); a list of them is a ``HostPriorityList``."""

    host: str
    score: int

    def to_dict(self) -> dict[str, Any]:
        """``{"Host": ..., "Score": ...}``."""
        return {"Host": self.host, "Score": self.score}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "HostPriority":
        """Decode one entry; a score that is not an integer is refused as Go refuses it.

        Raises
        ------
        ValueError
            ``json: cannot unmarshal string into Go struct field HostPriority.Score of type int64``.
        """
        score = _field(d, "Score") or 0
        if isinstance(score, bool) or not isinstance(score, int):
            kind = "string" if isinstance(score, str) else "number"
            raise ValueError(f"json: cannot unmarshal {kind} into Go struct field HostPriority.Score of type int64")
        return cls(str(_field(d, "Host") or ""), score)


@dataclass
class ExtenderBindingArgs:
    """The body of a bind call (``extenderv1.ExtenderBindingArgs``)."""

    pod_name: str
    pod_namespace: str
    pod_uid: str
    node: str

    def to_dict(self) -> dict[str, Any]:
        """``{"PodName", "PodNamespace", "PodUID", "Node"}``."""
        return {"PodName": self.pod_name, "PodNamespace": self.pod_namespace, "PodUID": self.pod_uid,
                "Node": self.node}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ExtenderBindingArgs":
        """Decode a request."""
        return cls(*(str(_field(d, k) or "") for k in ("PodName", "PodNamespace", "PodUID", "Node")))


@dataclass
class ExtenderBindingResult:
    """The answer to a bind call (``extenderv1.ExtenderBindingResult``); ``error`` non-empty on failure."""

    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"Error": ...}``."""
        return {"Error": self.error}


@dataclass
class MetaPod:
    """A pod named by its UID (``extenderv1.MetaPod``)."""

    uid: str

    def to_dict(self) -> dict[str, Any]:
        """``{"UID": ...}``."""
        return {"UID": self.uid}


@dataclass
class MetaVictims:
    """Victims named by UID, for a ``nodeCacheCapable`` extender (``extenderv1.MetaVictims``)."""

    pods: list[MetaPod] = field(default_factory=list)
    num_pdb_violations: int = 0

    def to_dict(self) -> dict[str, Any]:
        """``{"Pods": [{"UID": ...}], "NumPDBViolations": n}``."""
        return {"Pods": [p.to_dict() for p in self.pods], "NumPDBViolations": self.num_pdb_violations}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "MetaVictims":
        """Decode one node's entry of a preemption result."""
        pods = [MetaPod(str(_field(p, "UID") or "")) for p in (_field(d, "Pods") or [])]
        return cls(pods, int(_field(d, "NumPDBViolations") or 0))


@dataclass
class ExtenderPreemptionArgs:
    """The body of a preempt call (``extenderv1.ExtenderPreemptionArgs``).

    Attributes
    ----------
    pod : dict
        The preemptor.
    node_name_to_victims : dict[str, Victims] or None
        Full victims, for an extender that is not ``nodeCacheCapable``.
    node_name_to_meta_victims : dict[str, MetaVictims] or None
        Victims by UID, for one that is.
    """

    pod: dict[str, Any]
    node_name_to_victims: dict[str, Victims] | None = None
    node_name_to_meta_victims: dict[str, MetaVictims] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Upstream's JSON; ``Victims.Pods`` are the pods' JSON."""
        full = None
        if self.node_name_to_victims is not None:
            full = {n: {"Pods": [_to_json_object(_pod_object(p)) for p in v.pods], "NumPDBViolations": v.num_pdb_violations}
                    for n, v in self.node_name_to_victims.items()}
        meta = None
        if self.node_name_to_meta_victims is not None:
            meta = {n: v.to_dict() for n, v in self.node_name_to_meta_victims.items()}
        return {"Pod": self.pod, "NodeNameToVictims": full, "NodeNameToMetaVictims": meta}


@dataclass
class ExtenderPreemptionResult:
    """The answer to a preempt call (``extenderv1.ExtenderPreemptionResult``): victims by UID per node."""

    node_name_to_meta_victims: dict[str, MetaVictims] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"NodeNameToMetaVictims": {...}}``."""
        return {"NodeNameToMetaVictims": {n: v.to_dict() for n, v in self.node_name_to_meta_victims.items()}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ExtenderPreemptionResult":
        """Decode a response."""
        m = _field(d, "NodeNameToMetaVictims") or {}
        return cls({str(n): MetaVictims.from_dict(v or {}) for n, v in m.items()})


# --------------------------------------------------------------------------- the interface
class Extender(Protocol):
    """What the scheduler calls on an extender (``framework.Extender``).

    Outcomes are values, as for plugins: each call returns a :class:`Status`
    that is Success, or Error with the message upstream's ``error`` carries.
    """

    def name(self) -> str: ...

    def filter(self, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[list[NodeInfo], dict[str, str], dict[str, str], Status]: ...

    def prioritize(self, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[list[HostPriority], int, Status]: ...

    def bind(self, binding: Mapping[str, Any]) -> Status: ...

    def is_binder(self) -> bool: ...

    def is_prioritizer(self) -> bool: ...

    def is_filter(self) -> bool: ...

    def is_interested(self, pod: Any) -> bool: ...

    def process_preemption(self, pod: PodInfo, victims: Mapping[str, Victims], node_infos: Any
                           ) -> tuple[dict[str, Victims], Status]: ...

    def supports_preemption(self) -> bool: ...

    def is_ignorable(self) -> bool: ...


def convert_to_meta_victims(node_name_to_victims: Mapping[str, Victims]) -> dict[str, MetaVictims]:
    """Victims as UIDs, PDB violations kept (``convertToMetaVictims``).

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> v = Victims([PodInfo(make_pod("p1", uid="uid1"))], 1)
    >>> convert_to_meta_victims({"node1": v})["node1"].to_dict()
    {'Pods': [{'UID': 'uid1'}], 'NumPDBViolations': 1}
    """
    return {node: MetaVictims([MetaPod(p.uid) for p in v.pods], v.num_pdb_violations)
            for node, v in node_name_to_victims.items()}


def _node_object(ni: NodeInfo) -> dict[str, Any]:
    return _to_json_object(ni.node)


def _go_error_text(url: str, reason: Any) -> str:
    """A failed request worded as Go's ``*url.Error`` (``Post "URL": ...``)."""
    parsed = urllib.parse.urlsplit(url)
    host = parsed.hostname or ""
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    addr = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    if isinstance(reason, ConnectionRefusedError):
        text = f"dial tcp {addr}: connect: connection refused"
    elif isinstance(reason, (TimeoutError, socket.timeout)):
        text = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
    elif isinstance(reason, socket.gaierror):
        text = f"dial tcp: lookup {host}: no such host"
    elif isinstance(reason, ssl.SSLCertVerificationError):
        text = "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    else:
        text = str(reason)
    return f'Post "{url}": {text}'


class HTTPExtender:
    """An extender reached over HTTP with upstream's JSON (``HTTPExtender``).

    Parameters
    ----------
    config : mapping
        One ``KubeSchedulerConfiguration.extenders`` entry (camelCase keys):
        ``urlPrefix``, ``filterVerb``, ``prioritizeVerb``, ``bindVerb``,
        ``preemptVerb``, ``weight``, ``enableHTTPS``, ``tlsConfig``,
        ``httpTimeout`` (Go duration, 5 s when unset), ``nodeCacheCapable``,
        ``managedResources``, ``ignorable``.
    service : object, optional
        Answers in-process instead of the network: the verb configured as
        ``filterVerb`` calls ``service.filter(request)``, and likewise
        ``prioritize``, ``bind`` and ``preempt``; each takes the decoded JSON
        request and returns the JSON response. A missing method answers 404
        and a raised exception 500, as a server would.
    keep_exchanges : int
        How many of the latest calls :attr:`exchanges` keeps.

    Attributes
    ----------
    exchanges : deque of (verb, request, status code, response)
        The latest calls, JSON as sent and received (``response`` None when none was decoded).

    Raises
    ------
    ConfigError
        When ``httpTimeout`` is not a Go duration.

    See Also
    --------
    build_extenders, DemoExtender, ExtenderServer

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/extender.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> ext = HTTPExtender({"urlPrefix": "http://gpu.example/scheduler", "filterVerb": "filter",
    ...                     "managedResources": [{"name": "example.com/gpu"}]})
    >>> ext.name(), ext.is_filter(), ext.is_prioritizer(), ext.timeout_seconds
    ('http://gpu.example/scheduler', True, False, 5.0)
    >>> ext.is_interested(make_pod("web")), ext.is_interested(make_pod("train", limits={"example.com/gpu": "1"}))
    (False, True)
    """

    def __init__(self, config: Mapping[str, Any], *, service: Any = None, keep_exchanges: int = 20):
        self.config = dict(config)
        self.url_prefix: str = config.get("urlPrefix") or ""
        self.filter_verb: str = config.get("filterVerb") or ""
        self.prioritize_verb: str = config.get("prioritizeVerb") or ""
        self.bind_verb: str = config.get("bindVerb") or ""
        self.preempt_verb: str = config.get("preemptVerb") or ""
        self.weight = int(config.get("weight") or 0)
        self.node_cache_capable = bool(config.get("nodeCacheCapable"))
        self.ignorable = bool(config.get("ignorable"))
        self.managed_resources = {str(r.get("name") or "") for r in config.get("managedResources") or ()}
        timeout = config.get("httpTimeout")
        try:
            seconds = parse_go_duration(timeout) if timeout else 0.0
        except ValueError as e:
            raise ConfigError(f"httpTimeout: {e}") from None
        self.timeout_seconds = seconds if seconds else DEFAULT_EXTENDER_TIMEOUT_SECONDS
        self.service = service
        self.exchanges: deque = deque(maxlen=keep_exchanges)
        self._ssl: ssl.SSLContext | None = None

    def __repr__(self) -> str:
        return f"HTTPExtender({self.url_prefix!r})"

    # ----------------------------------------------------------------- what it is
    def name(self) -> str:
        """The ``urlPrefix`` (``Name``)."""
        return self.url_prefix

    def is_ignorable(self) -> bool:
        """Scheduling goes on when this extender fails (``IsIgnorable``)."""
        return self.ignorable

    def supports_preemption(self) -> bool:
        """A ``preemptVerb`` is set (``SupportsPreemption``)."""
        return bool(self.preempt_verb)

    def is_binder(self) -> bool:
        """A ``bindVerb`` is set (``IsBinder``)."""
        return bool(self.bind_verb)

    def is_prioritizer(self) -> bool:
        """A ``prioritizeVerb`` is set (``IsPrioritizer``)."""
        return bool(self.prioritize_verb)

    def is_filter(self) -> bool:
        """A ``filterVerb`` is set (``IsFilter``)."""
        return bool(self.filter_verb)

    def is_interested(self, pod: Any) -> bool:
        """No ``managedResources``, or a container or init container requests or limits one (``IsInterested``).

        Parameters
        ----------
        pod : PodInfo or Pod
        """
        if not self.managed_resources:
            return True
        spec = _pod_object(pod).spec
        for containers in (spec.containers, spec.initContainers):
            for c in containers or ():
                res = c.resources
                if res is None:
                    continue
                for names in (res.requests, res.limits):
                    if names and any(n in self.managed_resources for n in names):
                        return True
        return False

    # ----------------------------------------------------------------- calls
    def _args(self, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ExtenderArgs:
        pod_json = _to_json_object(_pod_object(pod))
        if self.node_cache_capable:
            return ExtenderArgs(pod_json, None, [ni.name for ni in nodes])
        return ExtenderArgs(pod_json, [_node_object(ni) for ni in nodes], None)

    def filter(self, pod: PodInfo, nodes: list[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str], Status]:
        """Ask the extender which of ``nodes`` the pod may use (``Filter``).

        Returns
        -------
        (list[NodeInfo], dict[str, str], dict[str, str], Status)
            The nodes that pass, failed nodes -> message, failed-and-unresolvable
            nodes -> message, and Success or an Error (the request failed, the
            extender set ``Error``, or it named a node it was not sent).
            Without a ``filterVerb`` every node passes.
        """
        if not self.filter_verb:
            return list(nodes), {}, {}, Status()
        by_name = {ni.name: ni for ni in nodes}
        resp, s = self._send(self.filter_verb, self._args(pod, nodes).to_dict(), "v1.ExtenderFilterResult")
        if not s.is_success():
            return [], {}, {}, s
        result = ExtenderFilterResult.from_dict(resp)
        if result.error:
            return [], {}, {}, Status(Code.ERROR, [result.error])
        passed: list[NodeInfo] = []
        if self.node_cache_capable and result.node_names is not None:
            for n in result.node_names:
                ni = by_name.get(n)
                if ni is None:
                    return [], {}, {}, Status(Code.ERROR, [
                        f'extender "{self.url_prefix}" claims a filtered node "{n}" which is not found in the input node list'])
                passed.append(ni)
        elif result.nodes is not None:
            from kubenotes.scheduler.snapshot import typed

            passed = [NodeInfo(typed({"apiVersion": "v1", "kind": "Node", **n})) for n in result.nodes]
        return passed, result.failed_nodes, result.failed_and_unresolvable_nodes, Status()

    def prioritize(self, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[list[HostPriority], int, Status]:
        """Ask the extender for a 0-10 score per node (``Prioritize``).

        Returns
        -------
        (list[HostPriority], int, Status)
            The scores, this extender's ``weight``, and Success or Error.
            Without a ``prioritizeVerb`` every node scores 0 with weight 0.
        """
        if not self.prioritize_verb:
            return [HostPriority(ni.name, 0) for ni in nodes], 0, Status()
        resp, s = self._send(self.prioritize_verb, self._args(pod, nodes).to_dict())
        if not s.is_success():
            return [], 0, s
        if resp is None:
            return [], self.weight, Status()
        if not isinstance(resp, list):
            return [], 0, Status(Code.ERROR, ["json: cannot unmarshal object into Go value of type v1.HostPriorityList"])
        try:
            return [HostPriority.from_dict(h) for h in resp], self.weight, Status()
        except ValueError as e:
            return [], 0, Status(Code.ERROR, [str(e)])

    def bind(self, binding: Mapping[str, Any]) -> Status:
        """Ask the extender to bind (``Bind``).

        Parameters
        ----------
        binding : mapping
            A ``v1.Binding`` as JSON: ``metadata`` (namespace, name, uid) and ``target.name``.

        Returns
        -------
        Status
            Success, or Error (the request failed or the extender set ``Error``).
        """
        if not self.is_binder():
            return Status(Code.ERROR, ["unexpected empty bindVerb in extender"])
        md = binding.get("metadata") or {}
        args = ExtenderBindingArgs(md.get("name") or "", md.get("namespace") or "", md.get("uid") or "",
                                   (binding.get("target") or {}).get("name") or "")
        resp, s = self._send(self.bind_verb, args.to_dict(), "v1.ExtenderBindingResult")
        if not s.is_success():
            return s
        err = str(_field(resp, "Error") or "")
        return Status(Code.ERROR, [err]) if err else Status()

    def process_preemption(self, pod: PodInfo, node_name_to_victims: Mapping[str, Victims], node_infos: Any
                           ) -> tuple[dict[str, Victims], Status]:
        """Let the extender trim the preemption candidates (``ProcessPreemption``).

        Parameters
        ----------
        pod : PodInfo
            The preemptor.
        node_name_to_victims : mapping of str to Victims
        node_infos : object
            ``get(name) -> NodeInfo | None`` (the snapshot).

        Returns
        -------
        (dict[str, Victims], Status)
            The extender's candidates with their victims restored from the
            snapshot by UID, and Success or Error.
        """
        if not self.supports_preemption():
            return {}, Status(Code.ERROR, [f"preempt verb is not defined for extender {self.url_prefix} but run into ProcessPreemption"])
        pod_json = _to_json_object(_pod_object(pod))
        if self.node_cache_capable:
            args = ExtenderPreemptionArgs(pod_json, None, convert_to_meta_victims(node_name_to_victims))
        else:
            args = ExtenderPreemptionArgs(pod_json, dict(node_name_to_victims), None)
        resp, s = self._send(self.preempt_verb, args.to_dict(), "v1.ExtenderPreemptionResult")
        if not s.is_success():
            return {}, s
        return self.convert_to_victims(ExtenderPreemptionResult.from_dict(resp or {}).node_name_to_meta_victims, node_infos)

    def convert_to_victims(self, node_name_to_meta_victims: Mapping[str, MetaVictims], node_infos: Any
                           ) -> tuple[dict[str, Victims], Status]:
        """Victims named by UID back to the snapshot's pods (``convertToVictims``).

        Returns
        -------
        (dict[str, Victims], Status)
            Error when a node is not in ``node_infos`` or a UID is not on its node.
        """
        out: dict[str, Victims] = {}
        for node_name, meta in node_name_to_meta_victims.items():
            ni = node_infos.get(node_name)
            if ni is None:
                return {}, Status(Code.ERROR, [f'nodeinfo not found for node name "{node_name}"'])
            pods: list[PodInfo] = []
            for mp in meta.pods:
                found = next((p for p in ni.pods if p.uid == mp.uid), None)
                if found is None:
                    return {}, Status(Code.ERROR, [
                        f"extender: {self.url_prefix} claims to preempt pod (UID: &{{{mp.uid}}}) on node: "
                        f"{node_name}, but the pod is not found on that node"])
                pods.append(found)
            out[node_name] = Victims(pods, meta.num_pdb_violations)
        return out, Status()

    # ----------------------------------------------------------------- transport
    def _send(self, verb: str, args: dict[str, Any], result_type: str = "") -> tuple[Any, Status]:
        """POST ``args`` to ``<urlPrefix>/<verb>`` and decode the answer (``send``).

        ``result_type`` names the Go struct the answer decodes into: an answer
        that is not a JSON object (nor null) is refused as Go refuses it.
        """
        body = json.dumps(args, separators=(",", ":")).encode()
        url = self.url_prefix.rstrip("/") + "/" + verb
        request = json.loads(body)
        if self.service is not None:
            code, raw = self._call_service(verb, request)
        else:
            try:
                code, raw = self._post(url, body)
            except (OSError, ValueError) as e:
                reason = e.reason if isinstance(e, urllib.error.URLError) else e
                self.exchanges.append((verb, request, 0, None))
                return None, Status(Code.ERROR, [_go_error_text(url, reason)])
        if code != 200:
            self.exchanges.append((verb, request, code, None))
            return None, Status(Code.ERROR, [f"failed {verb} with extender at URL {url}, code {code}"])
        try:
            resp = json.loads(raw) if raw.strip() else None
        except ValueError as e:
            self.exchanges.append((verb, request, code, None))
            return None, Status(Code.ERROR, [f"invalid character in the extender's answer: {e}"])
        self.exchanges.append((verb, request, code, resp))
        if result_type and resp is not None and not isinstance(resp, dict):
            kind = "array" if isinstance(resp, list) else "string" if isinstance(resp, str) else "number"
            return None, Status(Code.ERROR, [f"json: cannot unmarshal {kind} into Go value of type {result_type}"])
        return resp, Status()

    def _call_service(self, verb: str, request: Any) -> tuple[int, bytes]:
        roles = ((self.filter_verb, "filter"), (self.prioritize_verb, "prioritize"), (self.bind_verb, "bind"),
                 (self.preempt_verb, "preempt"))
        method = next((m for v, m in roles if v == verb), None)
        fn = getattr(self.service, method, None) if method else None
        if fn is None:
            return 404, b""
        try:
            return 200, json.dumps(fn(request)).encode()
        except Exception:  # noqa: BLE001 - a failing service answers 500, as a server would
            return 500, b""

    def _post(self, url: str, body: bytes) -> tuple[int, bytes]:
        req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
        handlers: list[Any] = [urllib.request.ProxyHandler({})]
        if url.startswith("https:"):
            handlers.append(urllib.request.HTTPSHandler(context=self._tls_context()))
        opener = urllib.request.build_opener(*handlers)
        try:
            with opener.open(req, timeout=self.timeout_seconds) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def _tls_context(self) -> ssl.SSLContext:
        """``makeTransport``: the CA given, else (with ``enableHTTPS``) no verification."""
        if self._ssl is not None:
            return self._ssl
        tls = self.config.get("tlsConfig") or {}
        ctx = ssl.create_default_context()
        has_ca = bool(tls.get("caFile") or tls.get("caData"))
        if tls.get("caFile"):
            ctx.load_verify_locations(cafile=tls["caFile"])
        if tls.get("caData"):
            ctx.load_verify_locations(cadata=base64.b64decode(tls["caData"]).decode())
        if tls.get("certFile") and tls.get("keyFile"):
            ctx.load_cert_chain(tls["certFile"], tls["keyFile"])
        if tls.get("insecure") or (self.config.get("enableHTTPS") and not has_ca):
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        self._ssl = ctx
        return ctx


# --------------------------------------------------------------------------- building
def build_extenders(extenders: Iterable[Mapping[str, Any]], services: Mapping[str, Any] | None = None
                    ) -> list[HTTPExtender]:
    """One :class:`HTTPExtender` per configured extender, the ignorable ones last (``buildExtenders``).

    Parameters
    ----------
    extenders : iterable of mapping
        ``KubeSchedulerConfiguration.extenders``.
    services : mapping of str to object, optional
        ``urlPrefix`` -> in-process service answering for that extender (see
        :class:`HTTPExtender`); the others are called over HTTP.

    Returns
    -------
    list[HTTPExtender]

    Raises
    ------
    ConfigError
        When an ``httpTimeout`` is not a Go duration.

    Examples
    --------
    >>> [e.name() for e in build_extenders([{"urlPrefix": "http://a", "ignorable": True}, {"urlPrefix": "http://b"}])]
    ['http://b', 'http://a']
    """
    services = services or {}
    built = [HTTPExtender(e, service=services.get(e.get("urlPrefix") or "")) for e in extenders]
    return [e for e in built if not e.is_ignorable()] + [e for e in built if e.is_ignorable()]


def ignored_extended_resources(extenders: Iterable[Mapping[str, Any]]) -> list[str]:
    """Managed resources marked ``ignoredByScheduler``: NodeResourcesFit's ``ignoredResources`` (``buildExtenders``).

    Examples
    --------
    >>> ignored_extended_resources([{"urlPrefix": "u", "managedResources": [
    ...     {"name": "example.com/foo", "ignoredByScheduler": True}, {"name": "example.com/bar"}]}])
    ['example.com/foo']
    """
    return [str(r.get("name") or "") for e in extenders for r in e.get("managedResources") or ()
            if r.get("ignoredByScheduler")]


# --------------------------------------------------------------------------- the scheduler's steps
def find_nodes_that_pass_extenders(
    extenders: Sequence[Any],
    pod: PodInfo,
    feasible: list[NodeInfo],
    statuses: NodeToStatus,
    record: dict[str, dict[str, str]] | None = None,
) -> tuple[list[NodeInfo], Status | None]:
    """Run the interested extenders' filters one after another on the feasible nodes (``findNodesThatPassExtenders``).

    Parameters
    ----------
    extenders : sequence of Extender
    pod : PodInfo
    feasible : list[NodeInfo]
        The nodes that passed the Filter plugins; each extender gets what the previous one kept.
    statuses : NodeToStatus
        Gets Unschedulable for the extenders' ``FailedNodes`` and
        UnschedulableAndUnresolvable for their ``FailedAndUnresolvableNodes``
        (which win); statuses of nodes an extender was not sent stay.
    record : dict[str, dict[str, str]], optional
        node -> extender name -> ``"passed"``, the failure message,
        ``"not returned by the extender"``, or ``"ignored error: <msg>"``.

    Returns
    -------
    (list[NodeInfo], Status or None)
        The nodes every extender kept, and the Error of a failed extender
        that is not ignorable (then the list is empty).
    """
    for ext in extenders:
        if not feasible:
            break
        if not ext.is_interested(pod):
            continue
        sent = feasible
        kept, failed, unresolvable, s = ext.filter(pod, sent)
        if not s.is_success():
            if ext.is_ignorable():
                if record is not None:
                    for ni in sent:
                        record.setdefault(ni.name, {})[ext.name()] = f"ignored error: {s.message()}"
                continue
            return [], s
        for node, msg in unresolvable.items():
            statuses[node] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [msg])
        for node, msg in failed.items():
            if node in unresolvable:
                continue
            statuses[node] = Status(Code.UNSCHEDULABLE, [msg])
        if record is not None:
            kept_names = {ni.name for ni in kept}
            for ni in sent:
                if ni.name in kept_names:
                    text = "passed"
                else:
                    text = unresolvable.get(ni.name, failed.get(ni.name, "not returned by the extender"))
                record.setdefault(ni.name, {})[ext.name()] = text
        feasible = kept
    return feasible, None


def add_extender_scores(
    extenders: Sequence[Any],
    pod: PodInfo,
    nodes: list[NodeInfo],
    scores: list[NodePluginScores],
    raw: dict[str, dict[str, int]] | None = None,
    final: dict[str, dict[str, int]] | None = None,
) -> None:
    """Add each interested extender's scaled scores to the framework's (the extender part of ``prioritizeNodes``).

    Every interested extender is asked (one without a ``prioritizeVerb``
    answers 0 for each node with weight 0). Each host's score becomes ``score * weight * (MaxNodeScore / MaxExtenderPriority)``
    (``* 10``), appended to the node's plugin scores under the extender's
    name and added to its total. A prioritizer that fails gives no score
    (upstream logs it and goes on).

    Parameters
    ----------
    extenders : sequence of Extender
    pod : PodInfo
    nodes : list[NodeInfo]
        The feasible nodes, in the order of ``scores``.
    scores : list[NodePluginScores]
        Changed in place.
    raw, final : dict[str, dict[str, int]], optional
        node -> extender -> the score returned, and the scaled score.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import FakeExtender, node1_prioritizer_extender, make_node, make_pod
    >>> nodes = [NodeInfo(make_node("node1")), NodeInfo(make_node("node2"))]
    >>> scores = [NodePluginScores("node1", [], 0), NodePluginScores("node2", [], 0)]
    >>> ext = FakeExtender("E", prioritizers=[(node1_prioritizer_extender, 1)], weight=2)
    >>> add_extender_scores([ext], PodInfo(make_pod("p")), nodes, scores)
    >>> [(s.name, s.total_score) for s in scores]
    [('node1', 200), ('node2', 20)]
    """
    if not extenders or nodes is None:
        return
    scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
    per_node: dict[str, list[PluginScore]] = {}
    for ext in extenders:
        if not ext.is_interested(pod):
            continue
        hosts, weight, s = ext.prioritize(pod, nodes)
        if not s.is_success():
            continue
        for hp in hosts:
            per_node.setdefault(hp.host, []).append(PluginScore(ext.name(), hp.score * weight * scale))
            if raw is not None:
                raw.setdefault(hp.host, {})[ext.name()] = hp.score
    for ni, nps in zip(nodes, scores):
        extra = per_node.get(ni.name)
        if not extra:
            continue
        nps.scores.extend(extra)
        nps.total_score += sum(ps.score for ps in extra)
        if final is not None:
            row = final.setdefault(ni.name, {})
            for ps in extra:
                row[ps.name] = row.get(ps.name, 0) + ps.score
    if raw is not None:
        names = {ni.name for ni in nodes}
        for host in [h for h in raw if h not in names]:
            del raw[host]


def extenders_binding(extenders: Sequence[Any], pod: PodInfo, node: str,
                      record: dict[str, str] | None = None) -> tuple[bool, Status]:
    """Let the first interested binder bind the pod (``extendersBinding``).

    Returns
    -------
    (bool, Status)
        ``(False, Success)`` when no extender binds (the Bind plugins run);
        else ``(True, its status)``. An ignorable binder that fails is
        skipped.
    """
    for ext in extenders:
        if not ext.is_binder() or not ext.is_interested(pod):
            continue
        s = ext.bind(binding(pod, node))
        if record is not None:
            record[ext.name()] = "success" if s.is_success() else s.message()
        if not s.is_success() and ext.is_ignorable():
            continue
        return True, s
    return False, Status()


# --------------------------------------------------------------------------- a demo service
ZONE_LABEL = "topology.kubernetes.io/zone"


class DemoExtender:
    """An extender service keeping pods out of some zones and preferring one (for notebooks, tests and the CLI).

    Each method takes the decoded JSON request and returns the JSON answer,
    exactly what an HTTP extender receives and sends: :class:`HTTPExtender`
    calls it in-process, :class:`ExtenderServer` serves it over HTTP.

    Parameters
    ----------
    avoid_zones : iterable of str
        Nodes in these zones fail (``FailedNodes``: ``zone Z is avoided by the extender``).
    prefer_zone : str, optional
        Nodes there score 10, the others 0.
    nodes : iterable of Node or dict, optional
        The extender's node cache (needed with ``nodeCacheCapable``); full
        Nodes in requests are added to it.

    Attributes
    ----------
    bindings : list[tuple[str, str]]
        ``(namespace/name, node)`` of each bind call, in order.

    Notes
    -----
    A node without a ``topology.kubernetes.io/zone`` label fails as
    unresolvable (``FailedAndUnresolvableNodes``). ``preempt`` keeps the
    scheduler's candidates outside the avoided zones, victims unchanged.

    Examples
    --------
    >>> demo = DemoExtender(avoid_zones=["b"], prefer_zone="a")
    >>> n = lambda name, zone: {"metadata": {"name": name, "labels": {ZONE_LABEL: zone}}}
    >>> r = demo.filter({"Pod": {}, "Nodes": {"items": [n("n1", "a"), n("n2", "b")]}, "NodeNames": None})
    >>> [x["metadata"]["name"] for x in r["Nodes"]["items"]], r["FailedNodes"]
    (['n1'], {'n2': 'zone b is avoided by the extender'})
    >>> demo.prioritize({"Pod": {}, "NodeNames": ["n1", "n2"]})
    [{'Host': 'n1', 'Score': 10}, {'Host': 'n2', 'Score': 0}]
    """

    def __init__(self, avoid_zones: Iterable[str] = (), prefer_zone: str | None = None, nodes: Iterable[Any] = ()):
        self.avoid_zones = set(avoid_zones)
        self.prefer_zone = prefer_zone
        self.nodes: dict[str, dict[str, Any]] = {}
        for n in nodes:
            d = _to_json_object(n)
            self.nodes[d["metadata"]["name"]] = d
        self.bindings: list[tuple[str, str]] = []

    def _candidates(self, args: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        a = ExtenderArgs.from_dict(args)
        if a.nodes is not None:
            for n in a.nodes:
                self.nodes[n["metadata"]["name"]] = n
            return a.nodes, [n["metadata"]["name"] for n in a.nodes]
        names = a.node_names or []
        return [self.nodes.get(n, {"metadata": {"name": n}}) for n in names], names

    def _zone(self, node: Mapping[str, Any]) -> str | None:
        return ((node.get("metadata") or {}).get("labels") or {}).get(ZONE_LABEL)

    def filter(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """ExtenderArgs -> ExtenderFilterResult (``Nodes`` or ``NodeNames``, as sent)."""
        nodes, names = self._candidates(args)
        by_names = _field(args, "NodeNames") is not None
        result = ExtenderFilterResult(None if by_names else [], [] if by_names else None)
        for node, name in zip(nodes, names):
            zone = self._zone(node)
            if zone is None:
                result.failed_and_unresolvable_nodes[name] = f"node has no {ZONE_LABEL} label"
            elif zone in self.avoid_zones:
                result.failed_nodes[name] = f"zone {zone} is avoided by the extender"
            elif by_names:
                result.node_names.append(name)
            else:
                result.nodes.append(node)
        return result.to_dict()

    def prioritize(self, args: Mapping[str, Any]) -> list[dict[str, Any]]:
        """ExtenderArgs -> HostPriorityList: 10 in the preferred zone, else 0."""
        nodes, names = self._candidates(args)
        return [HostPriority(name, MAX_EXTENDER_PRIORITY if self.prefer_zone and self._zone(node) == self.prefer_zone
                             else MIN_EXTENDER_PRIORITY).to_dict() for node, name in zip(nodes, names)]

    def bind(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """ExtenderBindingArgs -> ExtenderBindingResult; records the binding."""
        b = ExtenderBindingArgs.from_dict(args)
        self.bindings.append((f"{b.pod_namespace}/{b.pod_name}", b.node))
        return ExtenderBindingResult().to_dict()

    def preempt(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """ExtenderPreemptionArgs -> ExtenderPreemptionResult: candidates outside the avoided zones."""
        out: dict[str, MetaVictims] = {}
        meta = _field(args, "NodeNameToMetaVictims")
        full = _field(args, "NodeNameToVictims")
        for node, v in (meta or {}).items():
            out[node] = MetaVictims.from_dict(v or {})
        for node, v in (full or {}).items():
            pods = [MetaPod(str(((p or {}).get("metadata") or {}).get("uid") or "")) for p in _field(v, "Pods") or []]
            out[node] = MetaVictims(pods, int(_field(v, "NumPDBViolations") or 0))
        kept = {n: v for n, v in out.items() if self._zone(self.nodes.get(n, {})) not in self.avoid_zones}
        return ExtenderPreemptionResult(kept).to_dict()


class ExtenderServer:
    """Serve an extender service over real HTTP on 127.0.0.1 (a context manager; stdlib ``http.server``).

    ``POST <prefix>/<verb>`` calls ``service.<method>`` with the decoded JSON
    body and answers its JSON (``verbs`` maps a verb to a method name); an
    unknown verb answers 404 and a raised exception 500.

    Parameters
    ----------
    service : object
        E.g. :class:`DemoExtender`.
    port : int
        0 picks a free port.
    prefix : str
        Path of the ``urlPrefix``.
    verbs : mapping of str to str, optional
        Default: ``filter``, ``prioritize``, ``bind`` and ``preempt`` to the methods of the same name.
    tls : (str, str), optional
        Paths of a PEM certificate and key: serve HTTPS.

    Attributes
    ----------
    url_prefix : str
        ``http://127.0.0.1:PORT<prefix>`` (``https`` with ``tls``), the value for the configuration's ``urlPrefix``.
    requests : list[tuple[str, object]]
        ``(verb, decoded body)`` of each request served.

    Examples
    --------
    >>> with ExtenderServer(DemoExtender(prefer_zone="a")) as srv:
    ...     ext = HTTPExtender({"urlPrefix": srv.url_prefix, "prioritizeVerb": "prioritize", "weight": 1})
    ...     from kubenotes.scheduler.testing import make_node, make_pod
    ...     ni = NodeInfo(make_node("n1", labels={ZONE_LABEL: "a"}))
    ...     hosts, weight, status = ext.prioritize(PodInfo(make_pod("p")), [ni])
    >>> hosts, weight, status.is_success(), srv.requests[0][0]
    ([HostPriority(host='n1', score=10)], 1, True, 'prioritize')
    """

    def __init__(self, service: Any, *, port: int = 0, prefix: str = "/scheduler",
                 verbs: Mapping[str, str] | None = None, tls: tuple[str, str] | None = None):
        self.service = service
        self.tls = tls
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        self.verbs = dict(verbs) if verbs is not None else {v: v for v in ("filter", "prioritize", "bind", "preempt")}
        self.requests: list[tuple[str, Any]] = []
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._url_prefix: str | None = None

    @property
    def url_prefix(self) -> str:
        """The configuration's ``urlPrefix`` for this server (known once started)."""
        if self._url_prefix is None:
            raise RuntimeError("ExtenderServer is not started")
        return self._url_prefix

    def start(self) -> "ExtenderServer":
        """Listen and serve in a daemon thread."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                path = urllib.parse.urlsplit(self.path).path
                verb = path[len(outer.prefix) + 1:] if path.startswith(outer.prefix + "/") else ""
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                method = getattr(outer.service, outer.verbs.get(verb, ""), None) if verb in outer.verbs else None
                if method is None:
                    self._answer(404, b"")
                    return
                try:
                    request = json.loads(body or b"null")
                    outer.requests.append((verb, request))
                    answer = json.dumps(method(request)).encode()
                except Exception:  # noqa: BLE001 - the service failed: 500
                    self._answer(500, b"")
                    return
                self._answer(200, answer)

            def _answer(self, code: int, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        scheme = "http"
        if self.tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            self._server.socket = ctx.wrap_socket(self._server.socket, server_side=True)
            scheme = "https"
        self._url_prefix = f"{scheme}://127.0.0.1:{self._server.server_address[1]}{self.prefix}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="extender-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ExtenderServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kubenotes.scheduler.extender [--port N] [--avoid-zone Z] [--prefer-zone Z] [MANIFEST...]``.

    Serves :class:`DemoExtender` at ``http://127.0.0.1:N/scheduler`` until
    interrupted; the Nodes of the manifests fill its node cache (for
    ``nodeCacheCapable``).
    """
    import argparse

    p = argparse.ArgumentParser(prog="python -m kubenotes.scheduler.extender",
                                description="Serve the demo scheduler extender (filter, prioritize, bind, preempt).")
    p.add_argument("manifests", nargs="*", metavar="MANIFEST", help="manifests whose Nodes fill the node cache")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument("--avoid-zone", action="append", default=None, metavar="ZONE")
    p.add_argument("--prefer-zone", default="us-central1-a", metavar="ZONE")
    a = p.parse_args(argv)
    nodes: list[Any] = []
    if a.manifests:
        from kubenotes.api.manifests import load_manifests

        nodes = list(load_manifests(*a.manifests).nodes)
    avoid = a.avoid_zone if a.avoid_zone is not None else ["us-central1-c"]
    server = ExtenderServer(DemoExtender(avoid, a.prefer_zone, nodes), port=a.port).start()
    print(f"demo extender at {server.url_prefix} (avoids {', '.join(avoid) or 'no zone'}, prefers {a.prefer_zone})",
          flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
