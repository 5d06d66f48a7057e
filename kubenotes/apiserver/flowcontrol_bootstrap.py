"""API Priority and Fairness's bootstrap configuration: the FlowSchemas and PriorityLevelConfigurations kube-apiserver creates.

At start kube-apiserver ensures two *mandatory* priority levels (``exempt``,
``catch-all``) and flow schemas of the same names, and a set of *suggested*
ones (``system``, ``node-high``, ``leader-election``, ``workload-high``,
``workload-low``, ``global-default``, and thirteen flow schemas in all).
Each carries the annotation ``apf.kubernetes.io/autoupdate-spec: "true"``,
which tells the apiserver it may keep the object's spec up to date.

A request is classified by the FlowSchema of lowest ``matchingPrecedence``
whose rules match its user and verb/resource (or non-resource URL); the
flow distinguisher (``ByUser`` or ``ByNamespace``) then picks the flow.

Notes
-----
Only the objects are modelled: kubenotes' API server does not queue or
reject requests by priority level (it serves one request at a time on a
virtual clock). The ``Dangling`` condition upstream's APF configuration
controller keeps on each FlowSchema is written once, right after the
bootstrap objects are created (:func:`dangling_condition`), not kept up to
date when a priority level is deleted later.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
(Mandatory* and Suggested* objects; flowcontrol v1, NominalConcurrencyShares and LendablePercent)
kubernetes/kubernetes@v1.34.0 pkg/registry/flowcontrol/ensurer (the ``apf.kubernetes.io/autoupdate-spec`` annotation)
"""

from __future__ import annotations

import copy

__all__ = ["AUTO_UPDATE_ANNOTATION", "bootstrap_priority_level_configurations", "bootstrap_flow_schemas",
           "dangling_condition"]

#: Set on every bootstrap object: the apiserver keeps its spec as shipped (``"false"`` hands it to the user).
AUTO_UPDATE_ANNOTATION = "apf.kubernetes.io/autoupdate-spec"

_API_VERSION = "flowcontrol.apiserver.k8s.io/v1"

_ALL_RESOURCES = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"], "clusterScope": True}
_ALL_NON_RESOURCES = {"verbs": ["*"], "nonResourceURLs": ["*"]}


def _group(name: str) -> dict:
    return {"kind": "Group", "group": {"name": name}}


def _user(name: str) -> dict:
    return {"kind": "User", "user": {"name": name}}


def _kube_system_sa(name: str) -> dict:
    return {"kind": "ServiceAccount", "serviceAccount": {"name": name, "namespace": "kube-system"}}


def _meta(name: str) -> dict:
    return {"name": name, "annotations": {AUTO_UPDATE_ANNOTATION: "true"}}


def _limited(shares: int, lendable: int, queues: int | None = None, hand: int = 6, length: int = 50) -> dict:
    response = ({"type": "Queue", "queuing": {"queues": queues, "handSize": hand, "queueLengthLimit": length}}
                if queues else {"type": "Reject"})
    return {"type": "Limited", "limited": {"nominalConcurrencyShares": shares, "lendablePercent": lendable,
                                           "limitResponse": response}}


#: (name, spec) of the mandatory then suggested priority levels, in upstream's order.
_LEVELS: tuple[tuple[str, dict], ...] = (
    ("exempt", {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}),
    ("catch-all", _limited(5, 0)),
    ("system", _limited(30, 33, 64)),
    ("node-high", _limited(40, 25, 64)),
    ("leader-election", _limited(10, 0, 16, hand=4)),
    ("workload-high", _limited(40, 50, 128)),
    ("workload-low", _limited(100, 90, 128)),
    ("global-default", _limited(20, 50, 128)),
)

_EVERYONE = [_group("system:unauthenticated"), _group("system:authenticated")]
_LEADER_ELECTION_RULES = [
    {"verbs": ["get", "create", "update"], "apiGroups": [""], "resources": ["endpoints", "configmaps"],
     "namespaces": ["kube-system"], "clusterScope": False},
    {"verbs": ["get", "create", "update"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
     "namespaces": ["*"], "clusterScope": False},
]


def _all(subjects: list[dict]) -> dict:
    return {"subjects": subjects, "resourceRules": [dict(_ALL_RESOURCES)], "nonResourceRules": [dict(_ALL_NON_RESOURCES)]}


#: (name, priority level, matchingPrecedence, distinguisher or None, rules) in upstream's order.
_SCHEMAS: tuple[tuple[str, str, int, str | None, list[dict]], ...] = (
    ("exempt", "exempt", 1, None, [_all([_group("system:masters")])]),
    ("catch-all", "catch-all", 10000, "ByUser", [_all(list(_EVERYONE))]),
    ("system-nodes", "system", 500, "ByUser", [_all([_group("system:nodes")])]),
    ("system-node-high", "node-high", 400, "ByUser", [{
        "subjects": [_group("system:nodes")],
        "resourceRules": [
            {"verbs": ["*"], "apiGroups": [""], "resources": ["nodes", "nodes/status"], "namespaces": ["*"],
             "clusterScope": True},
            {"verbs": ["*"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "namespaces": ["*"],
             "clusterScope": False}]}]),
    ("probes", "exempt", 2, None, [{
        "subjects": list(_EVERYONE),
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}]}]),
    ("system-leader-election", "leader-election", 100, "ByUser", [{
        "subjects": [_user("system:kube-controller-manager"), _user("system:kube-scheduler"), _kube_system_sa("*")],
        "resourceRules": copy.deepcopy(_LEADER_ELECTION_RULES)}]),
    ("workload-leader-election", "leader-election", 200, "ByUser", [{
        "subjects": [_kube_system_sa("*")],
        "resourceRules": [dict(r, namespaces=["*"]) for r in copy.deepcopy(_LEADER_ELECTION_RULES)]}]),
    ("endpoint-controller", "workload-high", 150, "ByUser", [{
        "subjects": [_user("system:kube-controller-manager"), _kube_system_sa("endpoint-controller"),
                     _kube_system_sa("endpointslicemirroring-controller")],
        "resourceRules": [{"verbs": ["get", "create", "update"], "apiGroups": [""], "resources": ["endpoints"],
                           "namespaces": ["*"], "clusterScope": False}]}]),
    ("kube-controller-manager", "workload-high", 800, "ByNamespace", [_all([_user("system:kube-controller-manager")])]),
    ("kube-scheduler", "workload-high", 800, "ByNamespace", [_all([_user("system:kube-scheduler")])]),
    ("kube-system-service-accounts", "workload-high", 900, "ByNamespace", [_all([_kube_system_sa("*")])]),
    ("service-accounts", "workload-low", 9000, "ByUser", [_all([_group("system:serviceaccounts")])]),
    ("global-default", "global-default", 9900, "ByUser", [_all(list(_EVERYONE))]),
)


def bootstrap_priority_level_configurations() -> list[dict]:
    """The PriorityLevelConfigurations kube-apiserver v1.34 creates: mandatory (exempt, catch-all) then suggested.

    Returns
    -------
    list of dict
        Eight ``flowcontrol.apiserver.k8s.io/v1`` objects, new copies each call.

    Examples
    --------
    >>> [(p["metadata"]["name"], p["spec"].get("limited", {}).get("nominalConcurrencyShares"))
    ...  for p in bootstrap_priority_level_configurations()][:4]
    [('exempt', None), ('catch-all', 5), ('system', 30), ('node-high', 40)]
    """
    return [{"apiVersion": _API_VERSION, "kind": "PriorityLevelConfiguration", "metadata": _meta(name),
             "spec": copy.deepcopy(spec)} for name, spec in _LEVELS]


def bootstrap_flow_schemas() -> list[dict]:
    """The FlowSchemas kube-apiserver v1.34 creates: mandatory (exempt, catch-all) then the eleven suggested.

    Returns
    -------
    list of dict
        Thirteen ``flowcontrol.apiserver.k8s.io/v1`` objects, new copies each call.

    Examples
    --------
    >>> sorted((f["spec"]["matchingPrecedence"], f["metadata"]["name"]) for f in bootstrap_flow_schemas())[:3]
    [(1, 'exempt'), (2, 'probes'), (100, 'system-leader-election')]
    """
    out = []
    for name, level, precedence, distinguisher, rules in _SCHEMAS:
        spec: dict = {"priorityLevelConfiguration": {"name": level}, "matchingPrecedence": precedence}
        if distinguisher:
            spec["distinguisherMethod"] = {"type": distinguisher}
        spec["rules"] = copy.deepcopy(rules)
        out.append({"apiVersion": _API_VERSION, "kind": "FlowSchema", "metadata": _meta(name), "spec": spec})
    return out


def dangling_condition(flow_schema: dict, level_names: set[str] | frozenset[str], timestamp: str) -> dict:
    """The ``Dangling`` condition of ``flow_schema`` as the APF configuration controller writes it.

    Parameters
    ----------
    flow_schema : dict
        A FlowSchema.
    level_names : set of str
        Names of the PriorityLevelConfigurations that exist.
    timestamp : str
        RFC 3339 ``lastTransitionTime``.

    Returns
    -------
    dict
        ``{"type": "Dangling", "status": "False", "reason": "Found", ...}`` when its priority level exists,
        ``"True"`` / ``"NotFound"`` when not.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go (digestConfigObjects)

    Examples
    --------
    >>> fs = bootstrap_flow_schemas()[0]
    >>> c = dangling_condition(fs, {"exempt"}, "2025-08-27T00:00:00Z")
    >>> c["status"], c["reason"], c["message"]
    ('False', 'Found', 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists')
    """
    name = flow_schema["spec"]["priorityLevelConfiguration"]["name"]
    if name in level_names:
        status, reason = "False", "Found"
        message = f'This FlowSchema references the PriorityLevelConfiguration object named "{name}" and it exists'
    else:
        status, reason = "True", "NotFound"
        message = f'This FlowSchema references the PriorityLevelConfiguration object named "{name}" but there is no such object'
    return {"type": "Dangling", "status": status, "lastTransitionTime": timestamp, "reason": reason,
            "message": message}
