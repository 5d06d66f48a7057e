"""The API surface the model serves: which resources exist, their kinds, scope, verbs and etcd keys.

One :class:`ResourceInfo` per resource, as the API server's discovery
documents list them (``kubectl api-resources``), plus the etcd key prefix the
generic registry stores them under (``/registry/pods/<namespace>/<name>``;
upstream keeps a few historical prefixes, such as ``minions`` for Nodes and
``controllers`` for ReplicationControllers, and so does this table).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/registry/*/*/storage/storage.go (DefaultQualifiedResource, ShortNames, Categories)
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/default_storage_factory_builder.go (etcd resource prefixes)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (NamespaceKeyFunc)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubenotes.apiserver.status import ApiError, new_bad_request

__all__ = ["ResourceInfo", "RESOURCES", "resource_for", "resource_for_kind", "by_api_version_kind", "etcd_key"]

_CRUD = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class ResourceInfo:
    """One API resource.

    Attributes
    ----------
    group : str
        API group (``""`` for core, ``apps``, ``batch``...).
    version : str
    resource : str
        Plural lower-case name (``pods``).
    kind : str
        ``Pod``.
    namespaced : bool
    short_names : tuple[str, ...]
        As ``kubectl api-resources`` shows them (``po``).
    categories : tuple[str, ...]
        ``("all",)`` for the kinds ``kubectl get all`` lists.
    verbs : tuple[str, ...]
    subresources : tuple[str, ...]
        ``status``, ``scale``, ``binding``, ``eviction``...
    etcd_prefix : str
        The key prefix under ``/registry/``.
    singular : str
    """

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = _CRUD
    subresources: tuple[str, ...] = ()
    etcd_prefix: str = ""
    singular: str = field(default="")

    @property
    def api_version(self) -> str:
        """``v1`` or ``apps/v1``."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        """``PodList``."""
        return self.kind + "List"

    @property
    def prefix(self) -> str:
        return self.etcd_prefix or self.resource


def _r(group, version, resource, kind, namespaced, short=(), cats=(), verbs=_CRUD, sub=(), prefix="") -> ResourceInfo:
    return ResourceInfo(group, version, resource, kind, namespaced, tuple(short), tuple(cats), tuple(verbs),
                        tuple(sub), prefix, kind.lower())


_ALL = ("all",)

#: Every resource the model's API server serves, in discovery order.
RESOURCES: tuple[ResourceInfo, ...] = (
    _r("", "v1", "bindings", "Binding", True, verbs=("create",)),
    _r("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    _r("", "v1", "endpoints", "Endpoints", True, ("ep",), prefix="services/endpoints"),
    _r("", "v1", "events", "Event", True, ("ev",)),
    _r("", "v1", "limitranges", "LimitRange", True, ("limits",)),
    _r("", "v1", "namespaces", "Namespace", False, ("ns",),
       verbs=("create", "delete", "get", "list", "patch", "update", "watch"), sub=("status", "finalize")),
    _r("", "v1", "nodes", "Node", False, ("no",), sub=("status",), prefix="minions"),
    _r("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ("pvc",), sub=("status",)),
    _r("", "v1", "persistentvolumes", "PersistentVolume", False, ("pv",), sub=("status",)),
    _r("", "v1", "pods", "Pod", True, ("po",), _ALL, sub=("status", "binding", "eviction", "log", "ephemeralcontainers")),
    _r("", "v1", "replicationcontrollers", "ReplicationController", True, ("rc",), _ALL, sub=("status", "scale"),
       prefix="controllers"),
    _r("", "v1", "resourcequotas", "ResourceQuota", True, ("quota",), sub=("status",)),
    _r("", "v1", "secrets", "Secret", True),
    _r("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",), sub=("token",)),
    _r("", "v1", "services", "Service", True, ("svc",), _ALL, sub=("status",), prefix="services/specs"),
    _r("apps", "v1", "controllerrevisions", "ControllerRevision", True),
    _r("apps", "v1", "daemonsets", "DaemonSet", True, ("ds",), _ALL, sub=("status",)),
    _r("apps", "v1", "deployments", "Deployment", True, ("deploy",), _ALL, sub=("status", "scale")),
    _r("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",), _ALL, sub=("status", "scale")),
    _r("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",), _ALL, sub=("status", "scale")),
    _r("authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False, verbs=("create",)),
    _r("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", False, verbs=("create",)),
    _r("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False, verbs=("create",)),
    _r("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, verbs=("create",)),
    _r("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", False, verbs=("create",)),
    _r("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",), _ALL,
       sub=("status",)),
    _r("batch", "v1", "cronjobs", "CronJob", True, ("cj",), _ALL, sub=("status",)),
    _r("batch", "v1", "jobs", "Job", True, (), _ALL, sub=("status",)),
    _r("coordination.k8s.io", "v1", "leases", "Lease", True),
    _r("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", True),
    _r("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",), sub=("status",)),
    _r("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    _r("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    _r("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True),
    _r("rbac.authorization.k8s.io", "v1", "roles", "Role", True),
    _r("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, ("pc",)),
    _r("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ("sc",)),
)

_BY_RESOURCE: dict[str, ResourceInfo] = {}
_BY_KIND: dict[tuple[str, str], ResourceInfo] = {}
_BY_NAME: dict[str, ResourceInfo] = {}
for _ri in RESOURCES:
    _BY_RESOURCE[f"{_ri.resource}.{_ri.group}" if _ri.group else _ri.resource] = _ri
    _BY_KIND[(_ri.api_version, _ri.kind)] = _ri
    for _n in (_ri.resource, _ri.singular, _ri.kind, *_ri.short_names):
        _BY_NAME.setdefault(_n.lower(), _ri)
        if _ri.group:
            _BY_NAME.setdefault(f"{_n.lower()}.{_ri.group}", _ri)
# Older versions that manifests still use are served by the same storage (autoscaling/v1 HPAs).
_BY_KIND[("autoscaling/v1", "HorizontalPodAutoscaler")] = _BY_RESOURCE["horizontalpodautoscalers.autoscaling"]


def resource_for(name: str) -> ResourceInfo:
    """The resource for a name as ``kubectl get NAME`` accepts it: plural, singular, kind or short name.

    Parameters
    ----------
    name : str
        ``pods``, ``pod``, ``po``, ``Pod``, ``deployments.apps``...

    Raises
    ------
    ApiError
        400 BadRequest for a name no resource has, worded as kubectl's
        ``the server doesn't have a resource type "x"``.

    Examples
    --------
    >>> resource_for("deploy").resource, resource_for("po").kind, resource_for("deployments.apps").group
    ('deployments', 'Pod', 'apps')
    """
    ri = _BY_NAME.get(name.lower()) or _BY_RESOURCE.get(name)
    if ri is None:
        raise new_bad_request(f'the server doesn\'t have a resource type "{name}"')
    return ri


def resource_for_kind(kind: str, api_version: str | None = None) -> ResourceInfo:
    """The resource storing objects of ``kind`` (``apiVersion`` narrows it when given).

    Raises
    ------
    ApiError
        400 BadRequest: ``no matches for kind "X" in version "v"``.
    """
    if api_version is not None:
        ri = _BY_KIND.get((api_version, kind))
    else:
        ri = next((r for r in RESOURCES if r.kind == kind), None)
    if ri is None:
        raise new_bad_request(f'no matches for kind "{kind}" in version "{api_version or ""}"')
    return ri


def by_api_version_kind() -> dict[tuple[str, str], ResourceInfo]:
    """``{(apiVersion, kind): ResourceInfo}`` for every served kind."""
    return dict(_BY_KIND)


def etcd_key(ri: ResourceInfo, namespace: str | None, name: str) -> str:
    """The key the generic registry stores an object under.

    Examples
    --------
    >>> etcd_key(resource_for("pods"), "default", "web")
    '/registry/pods/default/web'
    >>> etcd_key(resource_for("nodes"), None, "worker-1")
    '/registry/minions/worker-1'
    """
    if ri.namespaced:
        return f"/registry/{ri.prefix}/{namespace}/{name}"
    return f"/registry/{ri.prefix}/{name}"
