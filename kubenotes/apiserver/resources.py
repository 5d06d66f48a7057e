"""The API surface the model serves: which resources exist, their kinds, scope, verbs and etcd keys.

One :class:`ResourceInfo` per resource, as the API server's discovery
documents list them (``kubectl api-resources``), plus the etcd key prefix the
generic registry stores them under (``/registry/pods/<namespace>/<name>``;
upstream keeps a few historical prefixes, such as ``minions`` for Nodes,
``controllers`` for ReplicationControllers and ``ingress`` for Ingresses, and
the aggregator's and apiextensions' group-qualified ones, and so does this table).

The resources are those of every group-version a v1.34 kube-apiserver serves
by default: every GA (``v1``/``v2``) group-version. Beta APIs are off by
default since v1.24 (KEP-3136) and none of v1.34's betas is switched on, so
coordination.k8s.io/v1beta1 LeaseCandidates, certificates.k8s.io/v1beta1
ClusterTrustBundles and the resource.k8s.io betas are not served, and
admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicies only when
enabled (:data:`GATED_RESOURCES`: the gate and ``--runtime-config``);
resource.k8s.io/v1 (DRA) and storage.k8s.io/v1 VolumeAttributesClass are GA in
v1.34 and are. The API server's own aggregated groups are here too:
apiextensions.k8s.io (CustomResourceDefinitions) and apiregistration.k8s.io
(APIServices).

Notes
-----
The connect subresources (``pods/exec``, ``attach``, ``portforward``,
``proxy`` of pods, nodes and services) and ``pods/resize`` are not listed:
the model runs no processes to connect to and resizes no pod in place.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/registry/*/*/storage/storage.go (DefaultQualifiedResource, ShortNames, Categories)
kubernetes/kubernetes@v1.34.0 pkg/registry/*/rest/storage_*.go (the group-versions and resources each group serves)
kubernetes/kubernetes@v1.34.0 pkg/controlplane/instance.go (DefaultAPIResourceConfigSource: GA on, beta and alpha off)
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/default_storage_factory_builder.go (etcd resource prefixes)
kubernetes/kubernetes@v1.34.0 test/integration/etcd/data.go (every resource's etcd key and storage version)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (NamespaceKeyFunc)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubenotes.apiserver.status import ApiError, new_bad_request

__all__ = ["ResourceInfo", "RESOURCES", "SERVED_RESOURCES", "STORED_ONLY", "storage_resource", "stored_only_table",
           "resource_for", "resource_for_kind", "by_api_version_kind", "etcd_key", "GATED_RESOURCES",
           "parse_runtime_config", "gated_served"]

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

    def __hash__(self) -> int:
        # group, version and resource identify a resource; hashing three strings (their hashes are cached)
        # instead of every field keeps the store's lookups by ResourceInfo cheap
        return hash((self.group, self.version, self.resource))

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
_EXT = ("api-extensions",)
_CREATE = ("create",)
_STATUS = ("status",)

#: Every resource the model's API server stores or answers, one entry per group-resource in its
#: preferred (and storage) version, in discovery order: the core group, then the named groups. These
#: are the resources ``ServerPreferredResources`` returns, which the garbage collector and the
#: namespace deleter walk. The other versions served of the same data are in :data:`SERVED_RESOURCES`.
RESOURCES: tuple[ResourceInfo, ...] = (
    _r("", "v1", "bindings", "Binding", True, verbs=_CREATE),
    _r("", "v1", "componentstatuses", "ComponentStatus", False, ("cs",), verbs=("get", "list")),
    _r("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    _r("", "v1", "endpoints", "Endpoints", True, ("ep",), prefix="services/endpoints"),
    _r("", "v1", "events", "Event", True, ("ev",)),
    _r("", "v1", "limitranges", "LimitRange", True, ("limits",)),
    _r("", "v1", "namespaces", "Namespace", False, ("ns",),
       verbs=("create", "delete", "get", "list", "patch", "update", "watch"), sub=("status", "finalize")),
    _r("", "v1", "nodes", "Node", False, ("no",), sub=_STATUS, prefix="minions"),
    _r("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ("pvc",), sub=_STATUS),
    _r("", "v1", "persistentvolumes", "PersistentVolume", False, ("pv",), sub=_STATUS),
    _r("", "v1", "pods", "Pod", True, ("po",), _ALL,
       sub=("status", "binding", "eviction", "log", "ephemeralcontainers")),
    _r("", "v1", "podtemplates", "PodTemplate", True),
    _r("", "v1", "replicationcontrollers", "ReplicationController", True, ("rc",), _ALL, sub=("status", "scale"),
       prefix="controllers"),
    _r("", "v1", "resourcequotas", "ResourceQuota", True, ("quota",), sub=_STATUS),
    _r("", "v1", "secrets", "Secret", True),
    _r("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",), sub=("token",)),
    _r("", "v1", "services", "Service", True, ("svc",), _ALL, sub=_STATUS, prefix="services/specs"),
    _r("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", False,
       cats=_EXT),
    _r("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", False,
       cats=_EXT, sub=_STATUS),
    _r("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding",
       False, cats=_EXT),
    _r("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration",
       False, cats=_EXT),
    _r("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
       ("crd", "crds"), _EXT, sub=_STATUS, prefix="apiextensions.k8s.io/customresourcedefinitions"),
    _r("apiregistration.k8s.io", "v1", "apiservices", "APIService", False, cats=_EXT, sub=_STATUS,
       prefix="apiregistration.k8s.io/apiservices"),
    _r("apps", "v1", "controllerrevisions", "ControllerRevision", True),
    _r("apps", "v1", "daemonsets", "DaemonSet", True, ("ds",), _ALL, sub=_STATUS),
    _r("apps", "v1", "deployments", "Deployment", True, ("deploy",), _ALL, sub=("status", "scale")),
    _r("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",), _ALL, sub=("status", "scale")),
    _r("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",), _ALL, sub=("status", "scale")),
    _r("authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False, verbs=_CREATE),
    _r("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", False, verbs=_CREATE),
    _r("authorization.k8s.io", "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", True, verbs=_CREATE),
    _r("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False, verbs=_CREATE),
    _r("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, verbs=_CREATE),
    _r("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", False, verbs=_CREATE),
    _r("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",), _ALL,
       sub=_STATUS),
    _r("batch", "v1", "cronjobs", "CronJob", True, ("cj",), _ALL, sub=_STATUS),
    _r("batch", "v1", "jobs", "Job", True, (), _ALL, sub=_STATUS),
    _r("certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", False, ("csr",),
       sub=("approval", "status")),
    _r("coordination.k8s.io", "v1", "leases", "Lease", True),
    _r("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", True),
    _r("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "FlowSchema", False, sub=_STATUS),
    _r("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", "PriorityLevelConfiguration", False,
       sub=_STATUS),
    _r("networking.k8s.io", "v1", "ingressclasses", "IngressClass", False),
    _r("networking.k8s.io", "v1", "ingresses", "Ingress", True, ("ing",), sub=_STATUS, prefix="ingress"),
    _r("networking.k8s.io", "v1", "ipaddresses", "IPAddress", False, ("ip",)),
    _r("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, ("netpol",)),
    _r("networking.k8s.io", "v1", "servicecidrs", "ServiceCIDR", False, sub=_STATUS),
    _r("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False),
    _r("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",), sub=_STATUS),
    _r("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    _r("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    _r("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True),
    _r("rbac.authorization.k8s.io", "v1", "roles", "Role", True),
    _r("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    _r("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True, sub=_STATUS),
    _r("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
    _r("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False),
    _r("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, ("pc",)),
    _r("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    _r("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    _r("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", True),
    _r("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ("sc",)),
    _r("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", False, sub=_STATUS),
    _r("storage.k8s.io", "v1", "volumeattributesclasses", "VolumeAttributesClass", False, ("vac",)),
)

#: Served versions that are not their data's storage version: ``(served, stored as apiVersion)``.
#: autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2 (``ExpectedGVK`` in upstream's
#: etcd test data); events.k8s.io/v1 Events share the core Events' storage (``/registry/events``, stored as
#: core v1 ``Event``). :mod:`kubenotes.apiserver.conversion` converts between the forms.
_OTHER_VERSIONS: tuple[tuple[ResourceInfo, str], ...] = (
    (_r("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",), _ALL,
        sub=_STATUS), "autoscaling/v2"),
    (_r("events.k8s.io", "v1", "events", "Event", True, ("ev",)), "v1"),
)


def _discovery_rank(ri: ResourceInfo) -> tuple:
    # core first, then groups by name; inside a group the newer GA version first (autoscaling v2, v1)
    return (ri.group != "", ri.group, -int(ri.version.lstrip("v")))


#: Every served group/version/resource, in discovery order: :data:`RESOURCES` plus the other versions
#: of the same data (autoscaling/v1, events.k8s.io/v1). What ``/api``, ``/apis``, OpenAPI and the HTTP
#: routes serve.
SERVED_RESOURCES: tuple[ResourceInfo, ...] = tuple(sorted(RESOURCES + tuple(r for r, _ in _OTHER_VERSIONS),
                                                          key=_discovery_rank))

#: Kinds the API server stores while no component of the model acts on them yet: ``resource.group`` ->
#: the open issue that makes one act, 0 when none is filed, None when no Kubernetes component acts on
#: them upstream either (PodTemplates are only read by clients). Ingresses and IngressClasses are not
#: here: the DefaultIngressClass admission plugin acts on them (the controllers that route an Ingress's
#: traffic are third-party upstream too). The README's table of stored-only kinds is generated from it (:func:`stored_only_table`).
STORED_ONLY: dict[str, int | None] = {
    "podtemplates": None,
    "apiservices.apiregistration.k8s.io": 0,
    "certificatesigningrequests.certificates.k8s.io": 0,
    "flowschemas.flowcontrol.apiserver.k8s.io": 27,
    "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io": 27,
    "servicecidrs.networking.k8s.io": 30,
    "runtimeclasses.node.k8s.io": 0,
    "deviceclasses.resource.k8s.io": 0,
    "resourceclaims.resource.k8s.io": 0,
    "resourceclaimtemplates.resource.k8s.io": 0,
    "resourceslices.resource.k8s.io": 0,
    "volumeattachments.storage.k8s.io": 28,
    "volumeattributesclasses.storage.k8s.io": 28,
}

#: Off-by-default APIs the model can serve: resource -> (feature gate, group/version ``--runtime-config`` enables).
#: admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicies (beta in v1.34, gate off by default) are served
#: only with the ``MutatingAdmissionPolicy`` gate on and ``admissionregistration.k8s.io/v1beta1=true`` in
#: ``--runtime-config`` (:func:`gated_served`); they resolve by name in-process either way (the API server refuses
#: a client's request for one that is not served).
GATED_RESOURCES: dict[ResourceInfo, tuple[str, str]] = {
    _r("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies", "MutatingAdmissionPolicy", False,
       cats=_EXT): ("MutatingAdmissionPolicy", "admissionregistration.k8s.io/v1beta1"),
    _r("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicybindings",
       "MutatingAdmissionPolicyBinding", False, cats=_EXT): ("MutatingAdmissionPolicy",
                                                            "admissionregistration.k8s.io/v1beta1"),
}


def parse_runtime_config(value: "str | dict | None") -> dict[str, bool]:
    """``--runtime-config``: ``group/version=true|false`` pairs, comma separated (``api/all``, ``api/beta`` too).

    Parameters
    ----------
    value : str, dict of str to bool, or None
        ``admissionregistration.k8s.io/v1beta1=true`` (a key alone means ``true``).

    Returns
    -------
    dict of str to bool

    Raises
    ------
    ConfigError
        For a value that is not a boolean, or a key that is not ``group/version`` (upstream's texts).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/resourceconfig/helpers.go (MergeAPIResourceConfigs)

    Examples
    --------
    >>> parse_runtime_config("admissionregistration.k8s.io/v1beta1=true")
    {'admissionregistration.k8s.io/v1beta1': True}
    >>> parse_runtime_config("api/beta")
    {'api/beta': True}
    """
    from kubenotes.errors import ConfigError
    from kubenotes.features import parse_bool

    if not value:
        return {}
    if isinstance(value, dict):
        return {str(k): bool(v) for k, v in value.items()}
    out: dict[str, bool] = {}
    for part in str(value).split(","):
        key, _, text = part.strip().partition("=")
        if not key:
            continue
        if "/" not in key:
            raise ConfigError(f'invalid key "{key}" in --runtime-config: expected group/version')
        try:
            out[key] = parse_bool(text) if text else True
        except Exception:  # noqa: BLE001 - parse_bool's error becomes the flag's
            raise ConfigError(f"invalid value of {key}: {text}, err: strconv.ParseBool: parsing \"{text}\": "
                              "invalid syntax") from None
    return out


def gated_served(feature_gates: object, runtime_config: dict[str, bool]) -> frozenset[ResourceInfo]:
    """The resources of :data:`GATED_RESOURCES` served: gate on and group/version enabled.

    Examples
    --------
    >>> from kubenotes.features import FeatureGate
    >>> on = FeatureGate.parse("MutatingAdmissionPolicy=true")
    >>> len(gated_served(on, {"admissionregistration.k8s.io/v1beta1": True})), len(gated_served(on, {}))
    (2, 0)
    """
    out = []
    for ri, (gate, gv) in GATED_RESOURCES.items():
        enabled = runtime_config.get(gv, runtime_config.get("api/beta", runtime_config.get("api/all", False)))
        if enabled and feature_gates.enabled(gate):  # type: ignore[attr-defined]
            out.append(ri)
    return frozenset(out)


_BY_RESOURCE: dict[str, ResourceInfo] = {}
_BY_KIND: dict[tuple[str, str], ResourceInfo] = {}
_BY_NAME: dict[str, ResourceInfo] = {}
for _ri in RESOURCES + tuple(r for r, _ in _OTHER_VERSIONS) + tuple(GATED_RESOURCES):
    _BY_RESOURCE.setdefault(f"{_ri.resource}.{_ri.group}" if _ri.group else _ri.resource, _ri)
    _BY_KIND[(_ri.api_version, _ri.kind)] = _ri
    for _n in (_ri.resource, _ri.singular, _ri.kind, *_ri.short_names):
        _BY_NAME.setdefault(_n.lower(), _ri)
        if _ri.group:
            _BY_NAME.setdefault(f"{_n.lower()}.{_ri.group}", _ri)
        _BY_NAME.setdefault(f"{_n.lower()}.{_ri.version}.{_ri.group}" if _ri.group else f"{_n.lower()}.{_ri.version}",
                            _ri)
_STORAGE: dict[ResourceInfo, ResourceInfo] = {r: _BY_KIND[(stored_as, r.kind)] for r, stored_as in _OTHER_VERSIONS}
_STORAGE_GROUPS = frozenset(r.group for r in _STORAGE)  # a cheap test first: the store asks on every read


def storage_resource(ri: ResourceInfo) -> ResourceInfo:
    """The resource whose storage holds ``ri``'s objects: ``ri`` itself unless it is another served version.

    Parameters
    ----------
    ri : ResourceInfo
        Any served resource (:data:`SERVED_RESOURCES`).

    Returns
    -------
    ResourceInfo
        The entry of :data:`RESOURCES` with the same data: autoscaling/v2 for
        autoscaling/v1 HorizontalPodAutoscalers, core v1 for events.k8s.io/v1 Events.

    See Also
    --------
    kubenotes.apiserver.conversion.convert : turns an object into the other version.

    Examples
    --------
    >>> storage_resource(resource_for("horizontalpodautoscalers.v1.autoscaling")).api_version
    'autoscaling/v2'
    >>> storage_resource(resource_for("events.events.k8s.io")).api_version
    'v1'
    >>> storage_resource(resource_for("pods")) is resource_for("pods")
    True
    """
    if ri.group not in _STORAGE_GROUPS:
        crd = getattr(ri, "crd", None) if ri.__class__ is not ResourceInfo else None
        return ri if crd is None or crd.storage is None else crd.storage  # a CRD's other served versions
    return _STORAGE.get(ri, ri)


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


def stored_only_table() -> str:
    """The README's table of stored-only kinds (:data:`STORED_ONLY`), as Markdown.

    One row per kind in discovery order: kind, apiVersion, resource, and the
    open issue that makes a component act on it (``none filed`` when there is
    none; ``none upstream either`` when no Kubernetes component acts on it
    upstream). ``tests/apiserver/test_builtin_kinds.py`` keeps the README's copy
    equal to this.

    Returns
    -------
    str
        A Markdown table, one line per row, ending in a newline.

    Examples
    --------
    >>> print(stored_only_table().splitlines()[2])
    | PodTemplate | v1 | podtemplates | none upstream either (clients, third-party controllers) |
    """
    lines = ["| kind | apiVersion | resource | acted on by |", "| --- | --- | --- | --- |"]
    for ri in RESOURCES:
        key = f"{ri.resource}.{ri.group}" if ri.group else ri.resource
        if key in STORED_ONLY:
            issue = STORED_ONLY[key]
            by = (f"#{issue}" if issue else "none filed" if issue == 0
                  else "none upstream either (clients, third-party controllers)")
            lines.append(f"| {ri.kind} | {ri.api_version} | {ri.resource} | {by} |")
    return "\n".join(lines) + "\n"
