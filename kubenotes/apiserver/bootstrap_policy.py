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

from typing import Iterable

__all__ = [
    "bootstrap_cluster_roles",
    "bootstrap_cluster_role_bindings",
    "controller_roles",
    "controller_role_bindings",
    "events_rule",
    "policy_rule",
    "CONTROLLER_SERVICE_ACCOUNTS",
    "SA_ROLE_PREFIX",
    "BOOTSTRAPPING_LABEL",
    "AUTOUPDATE_ANNOTATION",
    "AGGREGATE_TO_ADMIN",
    "AGGREGATE_TO_EDIT",
    "AGGREGATE_TO_VIEW",
    "READ",
    "WRITE",
    "READ_WRITE",
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

_LEGACY = ""
_APPS = "apps"
_AUTHENTICATION = "authentication.k8s.io"
_AUTHORIZATION = "authorization.k8s.io"
_AUTOSCALING = "autoscaling"
_BATCH = "batch"
_CERTIFICATES = "certificates.k8s.io"
_COORDINATION = "coordination.k8s.io"
_DISCOVERY = "discovery.k8s.io"
_EVENTS = "events.k8s.io"
_EXTENSIONS = "extensions"
_NETWORKING = "networking.k8s.io"
_NODE = "node.k8s.io"
_POLICY = "policy"
_STORAGE = "storage.k8s.io"

#: kubenotes controller name (``kubenotes.controllers.CONTROLLERS``) -> the kube-system ServiceAccount its
#: client authenticates as upstream (``controllerContext.ClientBuilder.ClientOrDie(<sa>)``). ``None``: the
#: controller uses kube-controller-manager's own credentials (``rootClientBuilder``), i.e. user
#: ``system:kube-controller-manager``, as the tokens controller does.
CONTROLLER_SERVICE_ACCOUNTS: dict[str, str | None] = {
    "namespace-controller": "namespace-controller",
    "serviceaccount-controller": "service-account-controller",
    "serviceaccount-token-controller": None,
    "root-ca-certificate-publisher-controller": "root-ca-cert-publisher",
    "node-ipam-controller": "node-controller",
    "node-lifecycle-controller": "node-controller",
    "taint-eviction-controller": "node-controller",  # "taint-manager uses existing cluster role from node-controller"
    "replicaset-controller": "replicaset-controller",
    "replicationcontroller-controller": "replication-controller",
    "deployment-controller": "deployment-controller",
    "daemonset-controller": "daemon-set-controller",
    "statefulset-controller": "statefulset-controller",
    "job-controller": "job-controller",
    "cronjob-controller": "cronjob-controller",
    "endpoints-controller": "endpoint-controller",
    "endpointslice-controller": "endpointslice-controller",
    "garbage-collector-controller": "generic-garbage-collector",
    "resourcequota-controller": "resourcequota-controller",
    "disruption-controller": "disruption-controller",
    "horizontal-pod-autoscaler-controller": "horizontal-pod-autoscaler",
}


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
    return _r(("create", "update", "patch"), (_LEGACY, _EVENTS), ("events",))


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
        _r(("create",), (_AUTHORIZATION,), ("localsubjectaccessreviews",)),
        _r(READ_WRITE, ("rbac.authorization.k8s.io",), ("roles", "rolebindings")),
    ]


def _aggregate_to_edit() -> list[dict]:
    return [
        # exec/attach/port-forward and secrets can reveal a service account's credentials, hence edit, not view
        _r(READ, (_LEGACY,), ("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets",
                              "services/proxy")),
        _r(("impersonate",), (_LEGACY,), ("serviceaccounts",)),
        _r(WRITE, (_LEGACY,), ("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward")),
        _r(("create",), (_LEGACY,), ("pods/eviction",)),
        _r(WRITE, (_LEGACY,), ("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                               "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets",
                               "events")),
        _r(("create",), (_LEGACY,), ("serviceaccounts/token",)),
        _r(WRITE, (_APPS,), ("statefulsets", "statefulsets/scale", "daemonsets", "deployments",
                             "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale")),
        _r(WRITE, (_AUTOSCALING,), ("horizontalpodautoscalers",)),
        _r(WRITE, (_BATCH,), ("jobs", "cronjobs")),
        _r(WRITE, (_EXTENSIONS,), ("daemonsets", "deployments", "deployments/scale", "deployments/rollback",
                                   "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale",
                                   "networkpolicies")),
        _r(WRITE, (_POLICY,), ("poddisruptionbudgets",)),
        _r(WRITE, (_NETWORKING,), ("ingresses", "networkpolicies")),
        _r(READ_WRITE, (_COORDINATION,), ("leases",)),
    ]


def _aggregate_to_view() -> list[dict]:
    return [
        _r(READ, (_LEGACY,), ("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                              "services", "services/status", "endpoints", "persistentvolumeclaims",
                              "persistentvolumeclaims/status", "configmaps")),
        _r(READ, (_LEGACY,), ("limitranges", "resourcequotas", "bindings", "events", "pods/status",
                              "resourcequotas/status", "namespaces/status", "replicationcontrollers/status",
                              "pods/log")),
        # reading namespaces at namespace scope means reading *this* namespace
        _r(READ, (_LEGACY,), ("namespaces",)),
        _r(READ, (_DISCOVERY,), ("endpointslices",)),
        _r(READ, (_APPS,), ("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
                            "daemonsets", "daemonsets/status", "deployments", "deployments/status",
                            "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale")),
        _r(READ, (_AUTOSCALING,), ("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
        _r(READ, (_BATCH,), ("jobs", "cronjobs", "cronjobs/status", "jobs/status")),
        _r(READ, (_EXTENSIONS,), ("daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                                  "deployments/status", "ingresses", "ingresses/status", "replicasets",
                                  "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
                                  "networkpolicies")),
        _r(READ, (_POLICY,), ("poddisruptionbudgets", "poddisruptionbudgets/status")),
        _r(READ, (_NETWORKING,), ("ingresses", "ingresses/status", "networkpolicies")),
    ]


def _kube_scheduler() -> list[dict]:
    return [
        events_rule(),
        # leader election
        _r(("create",), (_COORDINATION,), ("leases",)),
        _r(("get", "update"), (_COORDINATION,), ("leases",), ("kube-scheduler",)),
        # fundamental resources
        _r(READ, (_LEGACY,), ("nodes",)),
        _r(("get", "list", "watch", "delete"), (_LEGACY,), ("pods",)),
        _r(("create",), (_LEGACY,), ("pods/binding", "bindings")),
        _r(("patch", "update"), (_LEGACY,), ("pods/status",)),
        # things that select pods
        _r(READ, (_LEGACY,), ("services", "replicationcontrollers")),
        _r(READ, (_APPS, _EXTENSIONS), ("replicasets",)),
        _r(READ, (_APPS,), ("statefulsets",)),
        # things that pods use or apply to
        _r(READ, (_POLICY,), ("poddisruptionbudgets",)),
        _r(READ, (_LEGACY,), ("persistentvolumeclaims", "persistentvolumes")),
        # delegated authentication and authorization checks
        _r(("create",), (_AUTHENTICATION,), ("tokenreviews",)),
        _r(("create",), (_AUTHORIZATION,), ("subjectaccessreviews",)),
        # volume limits
        _r(READ, (_STORAGE,), ("csinodes",)),
        # namespaces for inter-pod affinity namespaceSelector
        _r(READ, (_LEGACY,), ("namespaces",)),
        _r(READ, (_STORAGE,), ("csidrivers",)),
        _r(READ, (_STORAGE,), ("csistoragecapacities",)),
    ]


def _kube_controller_manager() -> list[dict]:
    return [
        events_rule(),
        # leader election
        _r(("create",), (_COORDINATION,), ("leases",)),
        _r(("get", "update"), (_COORDINATION,), ("leases",), ("kube-controller-manager",)),
        # credentials for the per-controller service accounts, and the tokens controller
        _r(("create",), (_LEGACY,), ("secrets", "serviceaccounts")),
        _r(("delete",), (_LEGACY,), ("secrets",)),
        _r(("get",), (_LEGACY,), ("namespaces", "secrets", "serviceaccounts", "configmaps")),
        _r(("update",), (_LEGACY,), ("secrets", "serviceaccounts")),
        # API access checks (non-mutating creates)
        _r(("create",), (_AUTHENTICATION,), ("tokenreviews",)),
        _r(("create",), (_AUTHORIZATION,), ("subjectaccessreviews",)),
        # every shared informer
        _r(("list", "watch"), ("*",), ("*",)),
        _r(("create",), (_LEGACY,), ("serviceaccounts/token",)),
    ]


def _node() -> list[dict]:
    return [
        _r(("create",), (_AUTHENTICATION,), ("tokenreviews",)),
        _r(("create",), (_AUTHORIZATION,), ("subjectaccessreviews", "localsubjectaccessreviews")),
        _r(READ, (_LEGACY,), ("services",)),
        _r(("create", "get", "list", "watch"), (_LEGACY,), ("nodes",)),
        _r(("update", "patch"), (_LEGACY,), ("nodes/status",)),
        _r(("update", "patch"), (_LEGACY,), ("nodes",)),
        _r(("create", "update", "patch"), (_LEGACY,), ("events",)),
        _r(READ, (_LEGACY,), ("pods",)),
        _r(("create", "delete"), (_LEGACY,), ("pods",)),
        _r(("update", "patch"), (_LEGACY,), ("pods/status",)),
        _r(("create",), (_LEGACY,), ("pods/eviction",)),
        _r(READ, (_LEGACY,), ("secrets", "configmaps")),
        _r(("get",), (_LEGACY,), ("persistentvolumeclaims", "persistentvolumes")),
        _r(("get",), (_LEGACY,), ("endpoints",)),
        _r(("create", "get", "list", "watch"), (_CERTIFICATES,), ("certificatesigningrequests",)),
        _r(("get", "create", "update", "patch", "delete"), (_COORDINATION,), ("leases",)),
        _r(("get",), (_STORAGE,), ("volumeattachments",)),
        _r(("create",), (_LEGACY,), ("serviceaccounts/token",)),
        _r(("get", "update", "patch"), (_LEGACY,), ("persistentvolumeclaims/status",)),
        _r(READ, (_STORAGE,), ("csidrivers",)),
        _r(("get", "create", "update", "patch", "delete"), (_STORAGE,), ("csinodes",)),
        _r(READ, (_NODE,), ("runtimeclasses",)),
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
            _r(("create",), (_AUTHORIZATION,), ("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
            _r(("create",), (_AUTHENTICATION,), ("selfsubjectreviews",)),
        ]),
        _cluster_role("admin", [], aggregate_from=AGGREGATE_TO_ADMIN),
        _cluster_role("edit", [], {AGGREGATE_TO_ADMIN: "true"}, aggregate_from=AGGREGATE_TO_EDIT),
        _cluster_role("view", [], {AGGREGATE_TO_EDIT: "true"}, aggregate_from=AGGREGATE_TO_VIEW),
        _cluster_role("system:aggregate-to-admin", _aggregate_to_admin(), {AGGREGATE_TO_ADMIN: "true"}),
        _cluster_role("system:aggregate-to-edit", _aggregate_to_edit(), {AGGREGATE_TO_EDIT: "true"}),
        _cluster_role("system:aggregate-to-view", _aggregate_to_view(), {AGGREGATE_TO_VIEW: "true"}),
        _cluster_role("system:node", _node()),
        _cluster_role("system:node-proxier", [
            _r(("list", "watch"), (_LEGACY,), ("services", "endpoints")),
            _r(READ, (_LEGACY,), ("nodes",)),
            events_rule(),
            _r(("list", "watch"), (_DISCOVERY,), ("endpointslices",)),
        ]),
        _cluster_role("system:auth-delegator", [
            _r(("create",), (_AUTHENTICATION,), ("tokenreviews",)),
            _r(("create",), (_AUTHORIZATION,), ("subjectaccessreviews",)),
        ]),
        _cluster_role("system:kube-controller-manager", _kube_controller_manager()),
        _cluster_role("system:kube-scheduler", _kube_scheduler()),
        _cluster_role("system:volume-scheduler", [
            _r(READ + ("update", "patch"), (_LEGACY,), ("persistentvolumes",)),
            _r(READ, (_STORAGE,), ("storageclasses",)),
            _r(READ + ("update", "patch"), (_LEGACY,), ("persistentvolumeclaims",)),
        ]),
        _cluster_role("system:service-account-issuer-discovery", [_r(("get",), urls=(
            "/.well-known/openid-configuration", "/openid/v1/jwks"))]),
    ]


# ------------------------------------------------------------------ controller roles

def _controller_rules() -> dict[str, list[dict]]:
    """``buildControllerRoles()`` for the controllers kubenotes runs (and the clusterrole aggregator)."""
    ev = events_rule()
    return {
        "clusterrole-aggregation-controller": [
            _r(("escalate", "get", "list", "watch", "update", "patch"), (RBAC_GROUP,), ("clusterroles",)),
        ],
        "cronjob-controller": [
            _r(("get", "list", "watch", "update"), (_BATCH,), ("cronjobs",)),
            _r(("get", "list", "watch", "create", "update", "delete", "patch"), (_BATCH,), ("jobs",)),
            _r(("update",), (_BATCH,), ("cronjobs/status",)),
            _r(("update",), (_BATCH,), ("cronjobs/finalizers",)),
            _r(("list", "watch", "delete"), (_LEGACY,), ("pods",)),
            ev,
        ],
        "daemon-set-controller": [
            _r(READ, (_EXTENSIONS, _APPS), ("daemonsets",)),
            _r(("update",), (_EXTENSIONS, _APPS), ("daemonsets/status",)),
            _r(("update",), (_EXTENSIONS, _APPS), ("daemonsets/finalizers",)),
            _r(("list", "watch"), (_LEGACY,), ("nodes",)),
            _r(("list", "watch", "create", "delete", "patch"), (_LEGACY,), ("pods",)),
            _r(("create",), (_LEGACY,), ("pods/binding",)),
            _r(("get", "list", "watch", "create", "delete", "update", "patch"), (_APPS,), ("controllerrevisions",)),
            ev,
        ],
        "deployment-controller": [
            _r(("get", "list", "watch", "update"), (_EXTENSIONS, _APPS), ("deployments",)),
            _r(("update",), (_EXTENSIONS, _APPS), ("deployments/status",)),
            _r(("update",), (_EXTENSIONS, _APPS), ("deployments/finalizers",)),
            _r(("get", "list", "watch", "create", "update", "patch", "delete"), (_APPS, _EXTENSIONS),
               ("replicasets",)),
            # "update" stays until kubernetes/kubernetes#36897 is resolved
            _r(("get", "list", "watch", "update"), (_LEGACY,), ("pods",)),
            ev,
        ],
        "disruption-controller": [
            _r(READ, (_EXTENSIONS, _APPS), ("deployments",)),
            _r(READ, (_APPS, _EXTENSIONS), ("replicasets",)),
            _r(READ, (_LEGACY,), ("replicationcontrollers",)),
            _r(READ, (_POLICY,), ("poddisruptionbudgets",)),
            _r(READ, (_APPS,), ("statefulsets",)),
            _r(("update",), (_POLICY,), ("poddisruptionbudgets/status",)),
            _r(("patch", "update"), (_LEGACY,), ("pods/status",)),
            _r(("get",), ("*",), ("*/scale",)),
            ev,
        ],
        "endpoint-controller": [
            _r(READ, (_LEGACY,), ("services", "pods")),
            _r(("get", "list", "watch", "create", "update", "delete"), (_LEGACY,), ("endpoints",)),
            _r(("create",), (_LEGACY,), ("endpoints/restricted",)),
            ev,
        ],
        "endpointslice-controller": [
            _r(READ, (_LEGACY,), ("services", "pods", "nodes")),
            # owner references with blockOwnerDeletion need the owner's finalizers subresource
            _r(("update",), (_LEGACY,), ("services/finalizers",)),
            _r(("get", "list", "watch", "create", "update", "delete"), (_DISCOVERY,), ("endpointslices",)),
            ev,
        ],
        "generic-garbage-collector": [
            _r(("get", "list", "watch", "patch", "update", "delete"), ("*",), ("*",)),
            ev,
        ],
        "horizontal-pod-autoscaler": [
            _r(READ, (_AUTOSCALING,), ("horizontalpodautoscalers",)),
            _r(("update",), (_AUTOSCALING,), ("horizontalpodautoscalers/status",)),
            _r(("get", "update"), ("*",), ("*/scale",)),
            _r(("list", "watch"), (_LEGACY,), ("pods",)),
            _r(("list", "watch"), ("metrics.k8s.io",), ("pods",)),
            _r(READ, ("custom.metrics.k8s.io",), ("*",)),
            _r(READ, ("external.metrics.k8s.io",), ("*",)),
            ev,
        ],
        "job-controller": [
            _r(("get", "list", "watch", "update", "patch"), (_BATCH,), ("jobs",)),
            _r(("update",), (_BATCH,), ("jobs/status",)),
            _r(("update",), (_BATCH,), ("jobs/finalizers",)),
            _r(("list", "watch", "create", "delete", "patch"), (_LEGACY,), ("pods",)),
            ev,
        ],
        # no events rule upstream: the namespace controller records no Events
        "namespace-controller": [
            _r(("get", "list", "watch", "delete"), (_LEGACY,), ("namespaces",)),
            _r(("update",), (_LEGACY,), ("namespaces/finalize", "namespaces/status")),
            _r(("get", "list", "watch", "delete", "deletecollection"), ("*",), ("*",)),
        ],
        # node-lifecycle, node-ipam and taint-eviction controllers all use this one
        "node-controller": [
            _r(("get", "list", "watch", "update", "delete", "patch"), (_LEGACY,), ("nodes",)),
            _r(("patch", "update"), (_LEGACY,), ("nodes/status",)),
            # used for pod deletion
            _r(("patch", "update"), (_LEGACY,), ("pods/status",)),
            _r(("list", "watch", "get", "delete"), (_LEGACY,), ("pods",)),
            ev,
        ],
        "replicaset-controller": [
            _r(("get", "list", "watch", "update"), (_APPS, _EXTENSIONS), ("replicasets",)),
            _r(("update",), (_APPS, _EXTENSIONS), ("replicasets/status",)),
            _r(("update",), (_APPS, _EXTENSIONS), ("replicasets/finalizers",)),
            _r(("list", "watch", "patch", "create", "delete"), (_LEGACY,), ("pods",)),
            ev,
        ],
        "replication-controller": [
            _r(("get", "list", "watch", "update"), (_LEGACY,), ("replicationcontrollers",)),
            _r(("update",), (_LEGACY,), ("replicationcontrollers/status",)),
            _r(("update",), (_LEGACY,), ("replicationcontrollers/finalizers",)),
            _r(("list", "watch", "patch", "create", "delete"), (_LEGACY,), ("pods",)),
            ev,
        ],
        "resourcequota-controller": [
            # quota counts anything, so it reads everything
            _r(("list", "watch"), ("*",), ("*",)),
            _r(("update",), (_LEGACY,), ("resourcequotas/status",)),
            ev,
        ],
        "root-ca-cert-publisher": [
            _r(("create", "update"), (_LEGACY,), ("configmaps",)),
            ev,
        ],
        "service-account-controller": [
            _r(("create",), (_LEGACY,), ("serviceaccounts",)),
            ev,
        ],
        "statefulset-controller": [
            _r(("list", "watch"), (_LEGACY,), ("pods",)),
            _r(READ, (_APPS,), ("statefulsets",)),
            _r(("update",), (_APPS,), ("statefulsets/status",)),
            _r(("update",), (_APPS,), ("statefulsets/finalizers",)),
            _r(("get", "create", "delete", "update", "patch"), (_LEGACY,), ("pods",)),
            _r(("get", "create", "delete", "update", "patch", "list", "watch"), (_APPS,), ("controllerrevisions",)),
            _r(("get", "create", "list", "watch"), (_LEGACY,), ("persistentvolumeclaims",)),
            _r(("update", "delete"), (_LEGACY,), ("persistentvolumeclaims",)),
            _r(("update",), (_LEGACY,), ("pods/finalizers",)),
            ev,
        ],
    }


def controller_roles() -> list[dict]:
    """The ``system:controller:<sa>`` ClusterRoles of the controllers kubenotes runs, sorted by name.

    Examples
    --------
    >>> names = [r["metadata"]["name"] for r in controller_roles()]
    >>> "system:controller:node-controller" in names, "system:controller:taint-eviction-controller" in names
    (True, False)
    """
    return [_cluster_role(SA_ROLE_PREFIX + sa, rules) for sa, rules in sorted(_controller_rules().items())]


def controller_role_bindings() -> list[dict]:
    """One ClusterRoleBinding per controller role, to ServiceAccount ``kube-system/<sa>`` (``addControllerRole``).

    Examples
    --------
    >>> b = controller_role_bindings()[0]
    >>> b["metadata"]["name"], b["subjects"]
    ('system:controller:clusterrole-aggregation-controller', [{'kind': 'ServiceAccount', 'name': 'clusterrole-aggregation-controller', 'namespace': 'kube-system'}])
    """
    return [_cluster_binding(SA_ROLE_PREFIX + sa, [_subject("ServiceAccount", sa, "kube-system")])
            for sa in sorted(_controller_rules())]


def _aggregate(roles: list[dict]) -> None:
    """Fill ``admin``/``edit``/``view`` as the clusterrole-aggregation controller would after start-up."""
    from kubenotes.apiserver.rbac import aggregated_rules

    by_name = {r["metadata"]["name"]: r for r in roles}
    for name in ("view", "edit", "admin"):  # innermost first, as the controller converges
        by_name[name]["rules"] = aggregated_rules(by_name[name], roles)


def bootstrap_cluster_roles() -> list[dict]:
    """Every bootstrap ClusterRole: ``clusterRoles()`` then ``ControllerRoles()``, as the API server creates them.

    ``admin``, ``edit`` and ``view`` carry their ``aggregationRule`` and,
    in ``rules``, what the clusterrole-aggregation controller writes there
    once it has run.

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
    controller roles of the controllers in
    :data:`kubenotes.controllers.CONTROLLERS` (plus the clusterrole
    aggregator's). Left out: feature-gated rules (DRA, ClusterTrustBundles...),
    the certificate-approver, kubelet-api-admin, heapster, kube-dns,
    node-bootstrapper and node-problem-detector roles, the roles of
    controllers kubenotes does not run (attach-detach, PV binder, TTL...),
    and the namespaced bootstrap Roles in ``kube-system``/``kube-public``
    (leader-election locks, ``extension-apiserver-authentication-reader``).

    Examples
    --------
    >>> roles = {r["metadata"]["name"]: r for r in bootstrap_cluster_roles()}
    >>> roles["view"]["aggregationRule"]
    {'clusterRoleSelectors': [{'matchLabels': {'rbac.authorization.k8s.io/aggregate-to-view': 'true'}}]}
    >>> roles["edit"]["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-admin"]
    'true'
    >>> len(roles["admin"]["rules"]) > len(roles["edit"]["rules"]) > len(roles["view"]["rules"]) > 0
    True
    """
    roles = _cluster_roles_unaggregated()
    _aggregate(roles)
    return roles + controller_roles()


def bootstrap_cluster_role_bindings() -> list[dict]:
    """Every bootstrap ClusterRoleBinding: ``clusterRoleBindings()`` then the controller bindings.

    Notes
    -----
    ``system:node`` is bound to no one, as upstream has left it since 1.8:
    kubelets are authorized by the Node authorizer, not RBAC.

    Examples
    --------
    >>> b = {x["metadata"]["name"]: x for x in bootstrap_cluster_role_bindings()}
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
    return bindings + controller_role_bindings()
