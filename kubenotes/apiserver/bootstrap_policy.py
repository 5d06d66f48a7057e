"""The RBAC objects a new API server creates for itself: default ClusterRoles and ClusterRoleBindings.

On start-up kube-apiserver's RBAC post-start hook reconciles a fixed set of
ClusterRoles and ClusterRoleBindings (``kubectl get clusterroles -l
kubernetes.io/bootstrapping=rbac-defaults``): the user-facing roles
``cluster-admin``, ``admin``, ``edit`` and ``view`` (the last three built by
aggregation from the ``system:aggregate-to-*`` roles), the roles of the
control-plane components (``system:kube-scheduler``,
``system:kube-controller-manager``, ``system:node``...), the discovery roles
every authenticated user holds, and one ``system:controller:<name>`` role per
kube-controller-manager controller, bound to the ServiceAccount
``kube-system/<name>`` the controller runs as.

This module returns them as plain dicts, exactly as ``kubectl get -o json``
shows them (rules rendered as upstream's rule builder renders them: verbs,
groups and resources sorted and deduplicated).

The controller roles are not written here: each controller module declares
its ServiceAccount and rules next to itself (a :class:`ControllerPolicy`,
collected in :data:`kubenotes.controllers.CONTROLLER_POLICIES`), and whoever
builds the cluster passes them to :func:`bootstrap_cluster_roles` and
:func:`bootstrap_cluster_role_bindings` (the API server is a lower layer than
the controllers and never imports them). Upstream keeps them all here, in
``controller_policy.go``; its controller descriptors carry no RBAC.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/cluster-roles.yaml
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/controller-roles.yaml
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/core.go (which service account each controller uses)
https://kubernetes.io/docs/reference/access-authn-authz/rbac/#default-roles-and-role-bindings
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Iterable

from kubenotes.errors import ConfigError

__all__ = [
    "bootstrap_cluster_roles",
    "bootstrap_cluster_role_bindings",
    "controller_roles",
    "controller_role_bindings",
    "events_rule",
    "policy_rule",
    "ControllerPolicy",
    "CLUSTER_ROLE_AGGREGATION_POLICY",
    "SA_ROLE_PREFIX",
    "BOOTSTRAPPING_LABEL",
    "AUTOUPDATE_ANNOTATION",
    "AGGREGATE_TO_ADMIN",
    "AGGREGATE_TO_EDIT",
    "AGGREGATE_TO_VIEW",
    "READ",
    "WRITE",
    "READ_WRITE",
    "RBAC_GROUP",
    "LEGACY_GROUP",
    "APPS_GROUP",
    "AUTHENTICATION_GROUP",
    "AUTHORIZATION_GROUP",
    "AUTOSCALING_GROUP",
    "BATCH_GROUP",
    "CERTIFICATES_GROUP",
    "COORDINATION_GROUP",
    "DISCOVERY_GROUP",
    "EVENTS_GROUP",
    "EXTENSIONS_GROUP",
    "NETWORKING_GROUP",
    "NODE_GROUP",
    "POLICY_GROUP",
    "STORAGE_GROUP",
]

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"

#: Prefix of every controller role (``system:controller:replicaset-controller``).
SA_ROLE_PREFIX = "system:controller:"
#: Label on every bootstrap object (``kubernetes.io/bootstrapping: rbac-defaults``).
BOOTSTRAPPING_LABEL = ("kubernetes.io/bootstrapping", "rbac-defaults")
#: Annotation that lets the API server reconcile (re-add missing permissions to) a bootstrap object at start-up.
AUTOUPDATE_ANNOTATION = ("rbac.authorization.kubernetes.io/autoupdate", "true")
#: Labels that make a ClusterRole's rules part of ``admin``, ``edit`` and ``view``.
AGGREGATE_TO_ADMIN = "rbac.authorization.k8s.io/aggregate-to-admin"
AGGREGATE_TO_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit"
AGGREGATE_TO_VIEW = "rbac.authorization.k8s.io/aggregate-to-view"

READ = ("get", "list", "watch")
WRITE = ("create", "update", "patch", "delete", "deletecollection")
READ_WRITE = READ + WRITE

#: API groups the rules name, as upstream's ``policy.go`` names them (``legacyGroup``, ``appsGroup``...).
LEGACY_GROUP = ""
APPS_GROUP = "apps"
AUTHENTICATION_GROUP = "authentication.k8s.io"
AUTHORIZATION_GROUP = "authorization.k8s.io"
AUTOSCALING_GROUP = "autoscaling"
BATCH_GROUP = "batch"
CERTIFICATES_GROUP = "certificates.k8s.io"
COORDINATION_GROUP = "coordination.k8s.io"
DISCOVERY_GROUP = "discovery.k8s.io"
EVENTS_GROUP = "events.k8s.io"
EXTENSIONS_GROUP = "extensions"
NETWORKING_GROUP = "networking.k8s.io"
NODE_GROUP = "node.k8s.io"
POLICY_GROUP = "policy"
STORAGE_GROUP = "storage.k8s.io"

@dataclass(frozen=True)
class ControllerPolicy:
    """One controller's entry in the bootstrap policy: the ServiceAccount it runs as and its role's rules.

    Each controller module in :mod:`kubenotes.controllers` declares one, next
    to the controller, as ``CONTROLLER_POLICY``; :func:`bootstrap_cluster_roles`
    and :func:`bootstrap_cluster_role_bindings` are assembled from them: a
    ClusterRole ``system:controller:<service_account>`` with these rules,
    bound to ServiceAccount ``kube-system/<service_account>``.

    Parameters
    ----------
    service_account : str or None
        The ``kube-system`` ServiceAccount the controller's client authenticates
        as (upstream: ``controllerContext.ClientBuilder.ClientOrDie(<sa>)``).
        ``None``: the controller uses kube-controller-manager's own credentials
        (``rootClientBuilder``, user ``system:kube-controller-manager``) and has
        no role of its own, as the tokens controller does.
    rules : tuple of dict
        The role's PolicyRules, as :func:`policy_rule` renders them (empty when
        ``service_account`` is None). Controllers that share a ServiceAccount
        (node-ipam, node-lifecycle and taint-eviction run as ``node-controller``)
        share one declaration.

    See Also
    --------
    kubenotes.controllers.CONTROLLER_POLICIES : controller name -> its declaration.

    Notes
    -----
    Upstream keeps every controller role in one file of the API server's
    bootstrap policy (``controller_policy.go``, ``buildControllerRoles``), and
    kube-controller-manager's controller descriptors
    (``cmd/kube-controller-manager/app/controller_descriptor.go``) carry no RBAC:
    the ServiceAccount name appears only in each controller's start function.
    kubenotes puts both next to the controller, so that adding a controller
    means writing one module; the objects the API server creates are the same.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
    kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/controller_descriptor.go
    kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/core.go (``ClientOrDie(<sa>)`` per controller)

    Examples
    --------
    >>> p = ControllerPolicy("service-account-controller", (policy_rule(["create"], [""], ["serviceaccounts"]),))
    >>> [r["metadata"]["name"] for r in controller_roles([p])]
    ['system:controller:clusterrole-aggregation-controller', 'system:controller:service-account-controller']
    """

    service_account: str | None
    rules: tuple[dict, ...] = ()


def policy_rule(verbs: Iterable[str], groups: Iterable[str] = (), resources: Iterable[str] = (),
                names: Iterable[str] = (), urls: Iterable[str] = ()) -> dict:
    """One ``PolicyRule`` as upstream's ``rbacv1helpers.NewRule(...).Groups(...).Resources(...)`` renders it.

    Verbs, groups, resources, names and URLs are deduplicated and sorted (the
    builder stores them in string sets); empty lists are left out.

    Parameters
    ----------
    verbs : iterable of str
    groups : iterable of str
        API groups (``""`` is the core group).
    resources : iterable of str
        ``pods``, ``pods/status``, ``*/scale``, ``*``.
    names : iterable of str
        ``resourceNames``.
    urls : iterable of str
        ``nonResourceURLs`` (a non-resource rule has no groups or resources).

    Returns
    -------
    dict
        ``{"verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"}`` (only those set).

    Examples
    --------
    >>> policy_rule(["update", "create", "patch"], ["events.k8s.io", ""], ["events"])
    {'verbs': ['create', 'patch', 'update'], 'apiGroups': ['', 'events.k8s.io'], 'resources': ['events']}
    >>> policy_rule(["get"], urls=["/version", "/healthz"])
    {'verbs': ['get'], 'nonResourceURLs': ['/healthz', '/version']}
    """
    rule: dict = {"verbs": sorted(set(verbs))}
    groups, resources, names, urls = sorted(set(groups)), sorted(set(resources)), sorted(set(names)), sorted(set(urls))
    if groups:
        rule["apiGroups"] = groups
    if resources:
        rule["resources"] = resources
    if names:
        rule["resourceNames"] = names
    if urls:
        rule["nonResourceURLs"] = urls
    return rule


_r = policy_rule


def events_rule() -> dict:
    """``eventsRule()``: create, update and patch Events in the core and ``events.k8s.io`` groups.

    Every controller role carries it, so the controllers' EventRecorders can write.
    """
    return _r(("create", "update", "patch"), (LEGACY_GROUP, EVENTS_GROUP), ("events",))


def _meta(name: str, labels: dict | None = None) -> dict:
    lbl = {BOOTSTRAPPING_LABEL[0]: BOOTSTRAPPING_LABEL[1]}
    lbl.update(labels or {})
    return {"name": name, "labels": lbl, "annotations": {AUTOUPDATE_ANNOTATION[0]: AUTOUPDATE_ANNOTATION[1]}}


def _cluster_role(name: str, rules: list[dict], labels: dict | None = None, aggregate_from: str = "") -> dict:
    role = {"apiVersion": RBAC_API_VERSION, "kind": "ClusterRole", "metadata": _meta(name, labels), "rules": rules}
    if aggregate_from:
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {aggregate_from: "true"}}]}
    return role


def _subject(kind: str, name: str, namespace: str = "") -> dict:
    if kind == "ServiceAccount":
        return {"kind": kind, "name": name, "namespace": namespace}
    return {"kind": kind, "apiGroup": RBAC_GROUP, "name": name}


def _cluster_binding(role: str, subjects: list[dict], name: str = "") -> dict:
    b = {"apiVersion": RBAC_API_VERSION, "kind": "ClusterRoleBinding", "metadata": _meta(name or role),
         "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role}}
    if subjects:
        b["subjects"] = subjects
    return b


# ------------------------------------------------------------------ component and user-facing roles

def _aggregate_to_admin() -> list[dict]:
    return [
        _r(("create",), (AUTHORIZATION_GROUP,), ("localsubjectaccessreviews",)),
        _r(READ_WRITE, ("rbac.authorization.k8s.io",), ("roles", "rolebindings")),
    ]


def _aggregate_to_edit() -> list[dict]:
    return [
        # exec/attach/port-forward and secrets can reveal a service account's credentials, hence edit, not view
        _r(READ, (LEGACY_GROUP,), ("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets",
                              "services/proxy")),
        _r(("impersonate",), (LEGACY_GROUP,), ("serviceaccounts",)),
        _r(WRITE, (LEGACY_GROUP,), ("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward")),
        _r(("create",), (LEGACY_GROUP,), ("pods/eviction",)),
        _r(WRITE, (LEGACY_GROUP,), ("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                               "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets",
                               "events")),
        _r(("create",), (LEGACY_GROUP,), ("serviceaccounts/token",)),
        _r(WRITE, (APPS_GROUP,), ("statefulsets", "statefulsets/scale", "daemonsets", "deployments",
                             "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale")),
        _r(WRITE, (AUTOSCALING_GROUP,), ("horizontalpodautoscalers",)),
        _r(WRITE, (BATCH_GROUP,), ("jobs", "cronjobs")),
        _r(WRITE, (EXTENSIONS_GROUP,), ("daemonsets", "deployments", "deployments/scale", "deployments/rollback",
                                   "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale",
                                   "networkpolicies")),
        _r(WRITE, (POLICY_GROUP,), ("poddisruptionbudgets",)),
        _r(WRITE, (NETWORKING_GROUP,), ("ingresses", "networkpolicies")),
        _r(READ_WRITE, (COORDINATION_GROUP,), ("leases",)),
    ]


def _aggregate_to_view() -> list[dict]:
    return [
        _r(READ, (LEGACY_GROUP,), ("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                              "services", "services/status", "endpoints", "persistentvolumeclaims",
                              "persistentvolumeclaims/status", "configmaps")),
        _r(READ, (LEGACY_GROUP,), ("limitranges", "resourcequotas", "bindings", "events", "pods/status",
                              "resourcequotas/status", "namespaces/status", "replicationcontrollers/status",
                              "pods/log")),
        # reading namespaces at namespace scope means reading *this* namespace
        _r(READ, (LEGACY_GROUP,), ("namespaces",)),
        _r(READ, (DISCOVERY_GROUP,), ("endpointslices",)),
        _r(READ, (APPS_GROUP,), ("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
                            "daemonsets", "daemonsets/status", "deployments", "deployments/status",
                            "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale")),
        _r(READ, (AUTOSCALING_GROUP,), ("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
        _r(READ, (BATCH_GROUP,), ("jobs", "cronjobs", "cronjobs/status", "jobs/status")),
        _r(READ, (EXTENSIONS_GROUP,), ("daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                                  "deployments/status", "ingresses", "ingresses/status", "replicasets",
                                  "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
                                  "networkpolicies")),
        _r(READ, (POLICY_GROUP,), ("poddisruptionbudgets", "poddisruptionbudgets/status")),
        _r(READ, (NETWORKING_GROUP,), ("ingresses", "ingresses/status", "networkpolicies")),
    ]


def _kube_scheduler() -> list[dict]:
    return [
        events_rule(),
        # leader election
        _r(("create",), (COORDINATION_GROUP,), ("leases",)),
        _r(("get", "update"), (COORDINATION_GROUP,), ("leases",), ("kube-scheduler",)),
        # fundamental resources
        _r(READ, (LEGACY_GROUP,), ("nodes",)),
        _r(("get", "list", "watch", "delete"), (LEGACY_GROUP,), ("pods",)),
        _r(("create",), (LEGACY_GROUP,), ("pods/binding", "bindings")),
        _r(("patch", "update"), (LEGACY_GROUP,), ("pods/status",)),
        # things that select pods
        _r(READ, (LEGACY_GROUP,), ("services", "replicationcontrollers")),
        _r(READ, (APPS_GROUP, EXTENSIONS_GROUP), ("replicasets",)),
        _r(READ, (APPS_GROUP,), ("statefulsets",)),
        # things that pods use or apply to
        _r(READ, (POLICY_GROUP,), ("poddisruptionbudgets",)),
        _r(READ, (LEGACY_GROUP,), ("persistentvolumeclaims", "persistentvolumes")),
        # delegated authentication and authorization checks
        _r(("create",), (AUTHENTICATION_GROUP,), ("tokenreviews",)),
        _r(("create",), (AUTHORIZATION_GROUP,), ("subjectaccessreviews",)),
        # volume limits
        _r(READ, (STORAGE_GROUP,), ("csinodes",)),
        # namespaces for inter-pod affinity namespaceSelector
        _r(READ, (LEGACY_GROUP,), ("namespaces",)),
        _r(READ, (STORAGE_GROUP,), ("csidrivers",)),
        _r(READ, (STORAGE_GROUP,), ("csistoragecapacities",)),
        # NodeVolumeLimits counts the node's VolumeAttachments (kubernetes#127757, v1.32)
        _r(READ, (STORAGE_GROUP,), ("volumeattachments",)),
    ]


def _kube_controller_manager() -> list[dict]:
    return [
        events_rule(),
        # leader election
        _r(("create",), (COORDINATION_GROUP,), ("leases",)),
        _r(("get", "update"), (COORDINATION_GROUP,), ("leases",), ("kube-controller-manager",)),
        # credentials for the per-controller service accounts, and the tokens controller
        _r(("create",), (LEGACY_GROUP,), ("secrets", "serviceaccounts")),
        _r(("delete",), (LEGACY_GROUP,), ("secrets",)),
        _r(("get",), (LEGACY_GROUP,), ("namespaces", "secrets", "serviceaccounts", "configmaps")),
        _r(("update",), (LEGACY_GROUP,), ("secrets", "serviceaccounts")),
        # API access checks (non-mutating creates)
        _r(("create",), (AUTHENTICATION_GROUP,), ("tokenreviews",)),
        _r(("create",), (AUTHORIZATION_GROUP,), ("subjectaccessreviews",)),
        # every shared informer
        _r(("list", "watch"), ("*",), ("*",)),
        _r(("create",), (LEGACY_GROUP,), ("serviceaccounts/token",)),
    ]


def _node() -> list[dict]:
    return [
        _r(("create",), (AUTHENTICATION_GROUP,), ("tokenreviews",)),
        _r(("create",), (AUTHORIZATION_GROUP,), ("subjectaccessreviews", "localsubjectaccessreviews")),
        _r(READ, (LEGACY_GROUP,), ("services",)),
        _r(("create", "get", "list", "watch"), (LEGACY_GROUP,), ("nodes",)),
        _r(("update", "patch"), (LEGACY_GROUP,), ("nodes/status",)),
        _r(("update", "patch"), (LEGACY_GROUP,), ("nodes",)),
        _r(("create", "update", "patch"), (LEGACY_GROUP,), ("events",)),
        _r(READ, (LEGACY_GROUP,), ("pods",)),
        _r(("create", "delete"), (LEGACY_GROUP,), ("pods",)),
        _r(("update", "patch"), (LEGACY_GROUP,), ("pods/status",)),
        _r(("create",), (LEGACY_GROUP,), ("pods/eviction",)),
        _r(READ, (LEGACY_GROUP,), ("secrets", "configmaps")),
        _r(("get",), (LEGACY_GROUP,), ("persistentvolumeclaims", "persistentvolumes")),
        _r(("get",), (LEGACY_GROUP,), ("endpoints",)),
        _r(("create", "get", "list", "watch"), (CERTIFICATES_GROUP,), ("certificatesigningrequests",)),
        _r(("get", "create", "update", "patch", "delete"), (COORDINATION_GROUP,), ("leases",)),
        _r(("get",), (STORAGE_GROUP,), ("volumeattachments",)),
        _r(("create",), (LEGACY_GROUP,), ("serviceaccounts/token",)),
        _r(("get", "update", "patch"), (LEGACY_GROUP,), ("persistentvolumeclaims/status",)),
        _r(READ, (STORAGE_GROUP,), ("csidrivers",)),
        _r(("get", "create", "update", "patch", "delete"), (STORAGE_GROUP,), ("csinodes",)),
        _r(READ, (NODE_GROUP,), ("runtimeclasses",)),
    ]


def _cluster_roles_unaggregated() -> list[dict]:
    return [
        # a "root" role which can do absolutely anything
        _cluster_role("cluster-admin", [_r(("*",), ("*",), ("*",)), _r(("*",), urls=("*",))]),
        _cluster_role("system:discovery", [_r(("get",), urls=(
            "/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*",
            "/api", "/api/*", "/apis", "/apis/*"))]),
        _cluster_role("system:monitoring", [_r(("get",), urls=(
            "/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*",
            "/healthz/*"))]),
        _cluster_role("system:public-info-viewer", [_r(("get",), urls=(
            "/livez", "/readyz", "/healthz", "/version", "/version/"))]),
        # minimal access for a "normal" user to learn about themselves
        _cluster_role("system:basic-user", [
            _r(("create",), (AUTHORIZATION_GROUP,), ("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
            _r(("create",), (AUTHENTICATION_GROUP,), ("selfsubjectreviews",)),
        ]),
        _cluster_role("admin", [], aggregate_from=AGGREGATE_TO_ADMIN),
        _cluster_role("edit", [], {AGGREGATE_TO_ADMIN: "true"}, aggregate_from=AGGREGATE_TO_EDIT),
        _cluster_role("view", [], {AGGREGATE_TO_EDIT: "true"}, aggregate_from=AGGREGATE_TO_VIEW),
        _cluster_role("system:aggregate-to-admin", _aggregate_to_admin(), {AGGREGATE_TO_ADMIN: "true"}),
        _cluster_role("system:aggregate-to-edit", _aggregate_to_edit(), {AGGREGATE_TO_EDIT: "true"}),
        _cluster_role("system:aggregate-to-view", _aggregate_to_view(), {AGGREGATE_TO_VIEW: "true"}),
        _cluster_role("system:node", _node()),
        _cluster_role("system:node-proxier", [
            _r(("list", "watch"), (LEGACY_GROUP,), ("services", "endpoints")),
            _r(READ, (LEGACY_GROUP,), ("nodes",)),
            events_rule(),
            _r(("list", "watch"), (DISCOVERY_GROUP,), ("endpointslices",)),
        ]),
        _cluster_role("system:auth-delegator", [
            _r(("create",), (AUTHENTICATION_GROUP,), ("tokenreviews",)),
            _r(("create",), (AUTHORIZATION_GROUP,), ("subjectaccessreviews",)),
        ]),
        _cluster_role("system:kube-controller-manager", _kube_controller_manager()),
        _cluster_role("system:kube-scheduler", _kube_scheduler()),
        _cluster_role("system:volume-scheduler", [
            _r(READ + ("update", "patch"), (LEGACY_GROUP,), ("persistentvolumes",)),
            _r(READ, (STORAGE_GROUP,), ("storageclasses",)),
            _r(READ + ("update", "patch"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
        ]),
        _cluster_role("system:service-account-issuer-discovery", [_r(("get",), urls=(
            "/.well-known/openid-configuration", "/openid/v1/jwks"))]),
    ]


# ------------------------------------------------------------------ controller roles

#: The clusterrole-aggregation controller's policy. kubenotes has no module for that controller: the API
#: server's RBAC computes ``admin``/``edit``/``view`` from their aggregation rules (:func:`_aggregate`,
#: :func:`kubenotes.apiserver.rbac.aggregated_rules`), so its role is part of the bootstrap policy itself.
CLUSTER_ROLE_AGGREGATION_POLICY = ControllerPolicy("clusterrole-aggregation-controller", (
    _r(("escalate", "get", "list", "watch", "update", "patch"), (RBAC_GROUP,), ("clusterroles",)),
))


def _controller_rules(policies: Iterable[ControllerPolicy]) -> dict[str, tuple[dict, ...]]:
    """``buildControllerRoles()``: service account -> rules, one entry per distinct service account.

    Raises
    ------
    ConfigError
        When two declarations name one service account with different rules.
    """
    rules: dict[str, tuple[dict, ...]] = {}
    for p in (CLUSTER_ROLE_AGGREGATION_POLICY, *policies):
        if p.service_account is None:
            continue
        if rules.setdefault(p.service_account, p.rules) != p.rules:
            raise ConfigError(f"two controller policies for service account {p.service_account} differ")
    return rules


def controller_roles(policies: Iterable[ControllerPolicy]) -> list[dict]:
    """The ``system:controller:<sa>`` ClusterRoles of the given controllers' policies, sorted by name.

    Parameters
    ----------
    policies : iterable of ControllerPolicy
        Each controller's declaration (``kubenotes.controllers.CONTROLLER_POLICIES.values()``); the
        clusterrole aggregator's :data:`CLUSTER_ROLE_AGGREGATION_POLICY` is always added.

    Returns
    -------
    list of dict
        One ClusterRole per distinct service account (a policy whose service account is None adds none).

    Raises
    ------
    ConfigError
        When two policies name one service account with different rules.

    Examples
    --------
    >>> node = ControllerPolicy("node-controller", (policy_rule(["delete"], [""], ["pods"]),))
    >>> tokens = ControllerPolicy(None)
    >>> [r["metadata"]["name"] for r in controller_roles([node, node, tokens])]
    ['system:controller:clusterrole-aggregation-controller', 'system:controller:node-controller']
    """
    return [_cluster_role(SA_ROLE_PREFIX + sa, copy.deepcopy(list(rules)))
            for sa, rules in sorted(_controller_rules(policies).items())]


def controller_role_bindings(policies: Iterable[ControllerPolicy]) -> list[dict]:
    """One ClusterRoleBinding per controller role, to ServiceAccount ``kube-system/<sa>`` (``addControllerRole``).

    Parameters
    ----------
    policies : iterable of ControllerPolicy
        As for :func:`controller_roles`.

    Returns
    -------
    list of dict
        In the order of :func:`controller_roles`.

    Raises
    ------
    ConfigError
        When two policies name one service account with different rules.

    Examples
    --------
    >>> b = controller_role_bindings([])[0]
    >>> b["metadata"]["name"], b["subjects"]
    ('system:controller:clusterrole-aggregation-controller', [{'kind': 'ServiceAccount', 'name': 'clusterrole-aggregation-controller', 'namespace': 'kube-system'}])
    """
    return [_cluster_binding(SA_ROLE_PREFIX + sa, [_subject("ServiceAccount", sa, "kube-system")])
            for sa in sorted(_controller_rules(policies))]


def _aggregate(roles: list[dict]) -> None:
    """Fill ``admin``/``edit``/``view`` as the clusterrole-aggregation controller would after start-up."""
    from kubenotes.apiserver.rbac import aggregated_rules

    by_name = {r["metadata"]["name"]: r for r in roles}
    for name in ("view", "edit", "admin"):  # innermost first, as the controller converges
        by_name[name]["rules"] = aggregated_rules(by_name[name], roles)


def bootstrap_cluster_roles(controller_policies: Iterable[ControllerPolicy]) -> list[dict]:
    """Every bootstrap ClusterRole: ``clusterRoles()`` then ``ControllerRoles()``, as the API server creates them.

    ``admin``, ``edit`` and ``view`` carry their ``aggregationRule`` and,
    in ``rules``, what the clusterrole-aggregation controller writes there
    once it has run.

    Parameters
    ----------
    controller_policies : iterable of ControllerPolicy
        The controllers' declarations, which whoever builds the cluster passes in
        (``kubenotes.controllers.CONTROLLER_POLICIES.values()``): the API server
        sits below the controllers and does not import them.

    Returns
    -------
    list of dict
        ``rbac.authorization.k8s.io/v1`` ClusterRoles, labelled
        ``kubernetes.io/bootstrapping: rbac-defaults`` and annotated
        ``rbac.authorization.kubernetes.io/autoupdate: "true"``.

    Notes
    -----
    Kept: the user-facing roles, discovery roles, the roles of the
    scheduler, controller manager, kubelets and kube-proxy, and the
    controller roles of the given policies (plus the clusterrole
    aggregator's). Left out: feature-gated rules (DRA, ClusterTrustBundles...),
    the certificate-approver, kubelet-api-admin, heapster, kube-dns,
    node-bootstrapper and node-problem-detector roles, the roles of
    controllers kubenotes does not run (attach-detach, PV binder, TTL...),
    and the namespaced bootstrap Roles in ``kube-system``/``kube-public``
    (leader-election locks, ``extension-apiserver-authentication-reader``).

    Raises
    ------
    ConfigError
        When two controller policies name one service account with different rules.

    Examples
    --------
    >>> roles = {r["metadata"]["name"]: r for r in bootstrap_cluster_roles([])}
    >>> roles["view"]["aggregationRule"]
    {'clusterRoleSelectors': [{'matchLabels': {'rbac.authorization.k8s.io/aggregate-to-view': 'true'}}]}
    >>> roles["edit"]["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-admin"]
    'true'
    >>> len(roles["admin"]["rules"]) > len(roles["edit"]["rules"]) > len(roles["view"]["rules"]) > 0
    True
    """
    roles = _cluster_roles_unaggregated()
    _aggregate(roles)
    return roles + controller_roles(controller_policies)


def bootstrap_cluster_role_bindings(controller_policies: Iterable[ControllerPolicy]) -> list[dict]:
    """Every bootstrap ClusterRoleBinding: ``clusterRoleBindings()`` then the controller bindings.

    Parameters
    ----------
    controller_policies : iterable of ControllerPolicy
        As for :func:`bootstrap_cluster_roles`.

    Returns
    -------
    list of dict
        ``rbac.authorization.k8s.io/v1`` ClusterRoleBindings, labelled and annotated as the roles.

    Raises
    ------
    ConfigError
        When two controller policies name one service account with different rules.

    Notes
    -----
    ``system:node`` is bound to no one, as upstream has left it since 1.8:
    kubelets are authorized by the Node authorizer, not RBAC.

    Examples
    --------
    >>> node = ControllerPolicy("node-controller", (policy_rule(["delete"], [""], ["pods"]),))
    >>> b = {x["metadata"]["name"]: x for x in bootstrap_cluster_role_bindings([node])}
    >>> b["cluster-admin"]["subjects"]
    [{'kind': 'Group', 'apiGroup': 'rbac.authorization.k8s.io', 'name': 'system:masters'}]
    >>> "subjects" in b["system:node"], b["system:controller:node-controller"]["roleRef"]["name"]
    (False, 'system:controller:node-controller')
    """
    g, u = "Group", "User"
    bindings = [
        _cluster_binding("cluster-admin", [_subject(g, "system:masters")]),
        _cluster_binding("system:monitoring", [_subject(g, "system:monitoring")]),
        _cluster_binding("system:discovery", [_subject(g, "system:authenticated")]),
        _cluster_binding("system:basic-user", [_subject(g, "system:authenticated")]),
        _cluster_binding("system:public-info-viewer", [_subject(g, "system:authenticated"),
                                                       _subject(g, "system:unauthenticated")]),
        _cluster_binding("system:node-proxier", [_subject(u, "system:kube-proxy")]),
        _cluster_binding("system:kube-controller-manager", [_subject(u, "system:kube-controller-manager")]),
        _cluster_binding("system:kube-scheduler", [_subject(u, "system:kube-scheduler")]),
        _cluster_binding("system:volume-scheduler", [_subject(u, "system:kube-scheduler")]),
        # deprecated in 1.7 by the Node authorizer: kept, with no subjects
        _cluster_binding("system:node", []),
        _cluster_binding("system:service-account-issuer-discovery", [_subject(g, "system:serviceaccounts")]),
    ]
    return bindings + controller_role_bindings(controller_policies)
