"""Fields of disabled feature gates dropped on create and update, as the API server's strategies drop them.

An alpha field (or a beta one whose gate is off) is not refused by a v1.34 API
server: its registry strategy clears it in ``PrepareForCreate`` and
``PrepareForUpdate``, before validation, unless the object being updated
already used it. The field simply is not stored, and what depended on it
follows: a volume mount naming a dropped ``image`` volume is dropped with it;
an ``env`` entry whose only source was a dropped ``fileKeyRef`` is then refused
by validation (``valueFrom: Invalid value: ...``). :func:`drop_disabled_fields`
is the one call the API server's create and update path makes.

Objects are the JSON-shaped dicts the API server stores; they are changed in
place.

Notes
-----
Kinds and gates covered: Pods and every pod template (Deployment, ReplicaSet,
StatefulSet, DaemonSet, Job, CronJob, ReplicationController, PodTemplate) with
``dropDisabledFields`` of ``pkg/api/pod/util.go`` (see
:mod:`kubenotes.features` for the gates); Job ``spec.managedBy``
(JobManagedBy); StatefulSet ``rollingUpdate.maxUnavailable``
(MaxUnavailableStatefulSet); HorizontalPodAutoscaler ``behavior.*.tolerance``
(HPAConfigurableTolerance); PersistentVolumeClaim ``dataSourceRef.namespace``
(CrossNamespaceVolumeDataSource) and ``volumeAttributesClassName``
(VolumeAttributesClass). Not covered: the pod status fields of
``dropDisabledPodStatusFields`` (status is written by the kubelet model, which
writes none of them), pod annotations (the AppArmor annotations are GA and
kept), and the gates locked on in v1.34 (their fields can never be dropped).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/api/pod/util.go (DropDisabledPodFields, DropDisabledTemplateFields, dropDisabledFields)
kubernetes/kubernetes@v1.34.0 pkg/registry/batch/job/strategy.go (dropDisabledFields)
kubernetes/kubernetes@v1.34.0 pkg/registry/apps/statefulset/strategy.go (dropStatefulSetDisabledFields)
kubernetes/kubernetes@v1.34.0 pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go
kubernetes/kubernetes@v1.34.0 pkg/api/persistentvolumeclaim/util.go (DropDisabledFields)
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from kubenotes.features import FeatureGate, feature_gates

__all__ = [
    "drop_disabled_fields",
    "drop_disabled_pod_fields",
    "drop_disabled_template_fields",
    "drop_disabled_pod_spec_fields",
]

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _list(v: Any) -> list:
    """``v`` when it is a list, else an empty one (the object is not validated yet)."""
    return v if isinstance(v, list) else []


def _containers(spec: dict | None, lists: tuple[str, ...] = _CONTAINER_LISTS) -> Iterator[dict]:
    """Every container of a pod spec (``VisitContainers``), init containers first."""
    if not isinstance(spec, dict):
        return
    for key in lists:
        for c in _list(spec.get(key)):
            if isinstance(c, dict):
                yield c


def _any_container(spec: dict | None, test: Callable[[dict], bool],
                   lists: tuple[str, ...] = _CONTAINER_LISTS) -> bool:
    return any(test(c) for c in _containers(spec, lists))


def _security_context(spec: dict | None) -> dict:
    sc = (spec or {}).get("securityContext") if isinstance(spec, dict) else None
    return sc if isinstance(sc, dict) else {}


def _projected_sources(spec: dict | None) -> Iterator[dict]:
    for v in _list((spec or {}).get("volumes")):
        projected = v.get("projected") if isinstance(v, dict) else None
        if isinstance(projected, dict):
            for s in _list(projected.get("sources")):
                if isinstance(s, dict):
                    yield s


def _env_file_key_ref(c: dict) -> bool:
    return any(isinstance(e, dict) and isinstance(e.get("valueFrom"), dict) and e["valueFrom"].get("fileKeyRef")
               is not None for e in _list(c.get("env")))


def _affinity_terms(spec: dict) -> Iterator[dict]:
    affinity = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = affinity.get(kind)
        if not isinstance(a, dict):
            continue
        for t in _list(a.get("requiredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(t, dict):
                yield t
        for w in _list(a.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(w, dict) and isinstance(w.get("podAffinityTerm"), dict):
                yield w["podAffinityTerm"]


def drop_disabled_pod_spec_fields(spec: dict, old_spec: dict | None, gates: FeatureGate) -> None:
    """Clear the fields of ``spec`` whose gate is off and that ``old_spec`` does not use (``dropDisabledFields``).

    Parameters
    ----------
    spec : dict
        A pod spec (``pod["spec"]`` or ``template["spec"]``), changed in place.
    old_spec : dict or None
        The stored object's spec on update; None on create.
    gates : FeatureGate
        The cluster's gates.

    Returns
    -------
    None

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/pod/util.go (dropDisabledFields and the drop... helpers it calls)

    Examples
    --------
    >>> from kubenotes.features import FeatureGate
    >>> spec = {"containers": [{"name": "a", "image": "x", "lifecycle": {"stopSignal": "SIGUSR1"}}],
    ...         "hostnameOverride": "h"}
    >>> drop_disabled_pod_spec_fields(spec, None, FeatureGate())
    >>> spec
    {'containers': [{'name': 'a', 'image': 'x'}]}
    """
    if not isinstance(spec, dict):
        return
    if old_spec is None and _uses_no_gated_field(spec):
        return  # on create, every rule below only drops a field the spec has: none of them here
    on = gates.enabled
    old_sc = _security_context(old_spec)
    sc = spec.get("securityContext") if isinstance(spec.get("securityContext"), dict) else None

    if not on("UserNamespacesSupport") and "hostUsers" not in old_sc and sc is not None:
        sc.pop("hostUsers", None)
    if not on("SupplementalGroupsPolicy") and "supplementalGroupsPolicy" not in old_sc and sc is not None:
        sc.pop("supplementalGroupsPolicy", None)

    # dropDisabledPodLevelResources
    old_res = (old_spec or {}).get("resources") or {}
    if not on("PodLevelResources") and not (old_res.get("requests") or old_res.get("limits")):
        spec.pop("resources", None)

    # dropDisabledProcMountField: the field stays, forced to Default (dropping it would diff stored objects)
    if not on("ProcMountType") and not _any_container(
            old_spec, lambda c: (c.get("securityContext") or {}).get("procMount") not in (None, "Default")):
        for c in _containers(spec):
            csc = c.get("securityContext")
            if isinstance(csc, dict) and csc.get("procMount") is not None:
                csc["procMount"] = "Default"

    tsc = [t for t in _list(spec.get("topologySpreadConstraints")) if isinstance(t, dict)]
    old_tsc = [t for t in _list((old_spec or {}).get("topologySpreadConstraints")) if isinstance(t, dict)]
    if not on("NodeInclusionPolicyInPodTopologySpread"):
        for field in ("nodeTaintsPolicy", "nodeAffinityPolicy"):
            if not any(t.get(field) is not None for t in old_tsc):
                for t in tsc:
                    t.pop(field, None)
    if not on("MatchLabelKeysInPodTopologySpread") and not any(t.get("matchLabelKeys") for t in old_tsc):
        for t in tsc:
            t.pop("matchLabelKeys", None)
    if not on("MatchLabelKeysInPodAffinity") and not any(
            t.get("matchLabelKeys") or t.get("mismatchLabelKeys") for t in _affinity_terms(old_spec or {})):
        for t in _affinity_terms(spec):
            t.pop("matchLabelKeys", None)
            t.pop("mismatchLabelKeys", None)

    # dropDisabledDynamicResourceAllocationFields
    if not on("DynamicResourceAllocation") and not (old_spec or {}).get("resourceClaims"):
        for c in _containers(spec):
            if isinstance(c.get("resources"), dict):
                c["resources"].pop("claims", None)
        spec.pop("resourceClaims", None)

    if not on("ClusterTrustBundleProjection") and not any(
            s.get("clusterTrustBundle") is not None for s in _projected_sources(old_spec)):
        for s in _projected_sources(spec):
            s.pop("clusterTrustBundle", None)
    if not on("PodCertificateRequest") and not any(
            s.get("podCertificate") is not None for s in _projected_sources(old_spec)):
        for s in _projected_sources(spec):
            s.pop("podCertificate", None)

    if not on("InPlacePodVerticalScaling") and not _any_container(
            old_spec, lambda c: bool(c.get("resizePolicy")), ("containers", "initContainers")):
        for c in _containers(spec):
            c.pop("resizePolicy", None)

    if not on("SidecarContainers") and not _any_container(
            old_spec, lambda c: c.get("restartPolicy") == "Always", ("initContainers",)):
        for c in _containers(spec, ("initContainers",)):
            c.pop("restartPolicy", None)

    if not on("ContainerRestartRules") and not _container_restart_rules_in_use(old_spec):
        for c in _containers(spec, ("initContainers",)):
            if c.get("restartPolicy") not in (None, "Always"):
                c.pop("restartPolicy", None)
            c.pop("restartPolicyRules", None)
        for c in _containers(spec, ("containers", "ephemeralContainers")):
            c.pop("restartPolicy", None)
            c.pop("restartPolicyRules", None)

    if not on("RecursiveReadOnlyMounts") and not _any_container(
            old_spec, lambda c: any(isinstance(m, dict) and m.get("recursiveReadOnly") is not None
                                    for m in _list(c.get("volumeMounts")))):
        for c in _containers(spec):
            for m in _list(c.get("volumeMounts")):
                if isinstance(m, dict):
                    m.pop("recursiveReadOnly", None)

    if not on("HostnameOverride") and (old_spec or {}).get("hostnameOverride") is None:
        spec.pop("hostnameOverride", None)

    # dropFileKeyRefInUse: the source goes, the env entry stays (validation then wants another source)
    if not on("EnvFiles") and not _any_container(old_spec, _env_file_key_ref):
        for c in _containers(spec):
            for e in _list(c.get("env")):
                if isinstance(e, dict) and isinstance(e.get("valueFrom"), dict):
                    e["valueFrom"].pop("fileKeyRef", None)

    if not on("PodLifecycleSleepAction") and not _any_container(old_spec, _sleep_in_use):
        for c in _containers(spec):
            lc = c.get("lifecycle")
            if not isinstance(lc, dict):
                continue
            for hook in ("preStop", "postStart"):
                h = lc.get(hook)
                if isinstance(h, dict) and "sleep" in h:
                    h.pop("sleep")
                    if not any(h.get(k) is not None for k in ("exec", "httpGet", "tcpSocket")):
                        lc.pop(hook)
            if lc.get("preStop") is None and lc.get("postStart") is None and lc.get("stopSignal") is None:
                c.pop("lifecycle")

    # dropImageVolumes: the volumes and every mount of them
    if not on("ImageVolume") and not any(isinstance(v, dict) and v.get("image") is not None
                                         for v in _list((old_spec or {}).get("volumes"))):
        volumes = spec.get("volumes")
        if isinstance(volumes, list):
            names = {v.get("name") for v in volumes if isinstance(v, dict) and v.get("image") is not None}
            if names:
                kept = [v for v in volumes if not (isinstance(v, dict) and v.get("name") in names
                                                   and v.get("image") is not None)]
                if kept:
                    spec["volumes"] = kept
                else:
                    spec.pop("volumes")
                for c in _containers(spec):
                    mounts = c.get("volumeMounts")
                    if isinstance(mounts, list):
                        left = [m for m in mounts if not (isinstance(m, dict) and m.get("name") in names)]
                        if left:
                            c["volumeMounts"] = left
                        else:
                            c.pop("volumeMounts")

    if not on("SELinuxChangePolicy") and old_sc.get("seLinuxChangePolicy") is None and sc is not None:
        sc.pop("seLinuxChangePolicy", None)

    # dropContainerStopSignals
    if not on("ContainerStopSignals") and not _any_container(
            old_spec, lambda c: (c.get("lifecycle") or {}).get("stopSignal") is not None):
        for c in _containers(spec):
            lc = c.get("lifecycle")
            if isinstance(lc, dict) and lc.get("stopSignal") is not None:
                lc.pop("stopSignal")
                if not lc:
                    c.pop("lifecycle")


#: Pod spec fields :func:`drop_disabled_pod_spec_fields` may drop, at the spec's top level and in a container.
_GATED_SPEC_FIELDS = frozenset({"resources", "topologySpreadConstraints", "resourceClaims", "hostnameOverride"})
_GATED_POD_SECURITY_FIELDS = ("hostUsers", "supplementalGroupsPolicy", "seLinuxChangePolicy")
_GATED_CONTAINER_FIELDS = frozenset({"resizePolicy", "restartPolicy", "restartPolicyRules", "lifecycle"})


def _uses_no_gated_field(spec: dict) -> bool:
    """True when ``spec`` has none of the fields a feature gate can drop (plain dicts and lists all the way).

    A conservative test for the common pod (containers with images, resources and mounts; a service account
    token volume): anything it does not recognise answers False, and the rules run one by one.
    """
    if not _GATED_SPEC_FIELDS.isdisjoint(spec):
        return False
    sc = spec.get("securityContext")
    if sc is not None and (type(sc) is not dict or any(k in sc for k in _GATED_POD_SECURITY_FIELDS)):
        return False
    affinity = spec.get("affinity")
    if affinity is not None and (type(affinity) is not dict or "podAffinity" in affinity
                                 or "podAntiAffinity" in affinity):
        return False
    volumes = spec.get("volumes")
    if volumes is not None:
        if type(volumes) is not list:
            return False
        for v in volumes:
            if type(v) is not dict or "image" in v:
                return False
            projected = v.get("projected")
            if projected is not None:
                sources = projected.get("sources") if type(projected) is dict else None
                if type(sources) is not list or any(type(x) is not dict or "clusterTrustBundle" in x
                                                    or "podCertificate" in x for x in sources):
                    return False
    for key in _CONTAINER_LISTS:
        containers = spec.get(key)
        if containers is None:
            continue
        if type(containers) is not list:
            return False
        for c in containers:
            if type(c) is not dict or not _GATED_CONTAINER_FIELDS.isdisjoint(c):
                return False
            csc = c.get("securityContext")
            if csc is not None and (type(csc) is not dict or csc.get("procMount") is not None):
                return False
            res = c.get("resources")
            if res is not None and (type(res) is not dict or "claims" in res):
                return False
            mounts = c.get("volumeMounts")
            if mounts is not None and (type(mounts) is not list or any(
                    type(m) is not dict or "recursiveReadOnly" in m for m in mounts)):
                return False
            env = c.get("env")
            if env is not None and (type(env) is not list or any(
                    type(e) is not dict or (e.get("valueFrom") is not None and (
                        type(e["valueFrom"]) is not dict or "fileKeyRef" in e["valueFrom"])) for e in env)):
                return False
    return True


def _sleep_in_use(c: dict) -> bool:
    lc = c.get("lifecycle") if isinstance(c.get("lifecycle"), dict) else {}
    return any(isinstance(lc.get(h), dict) and lc[h].get("sleep") is not None for h in ("preStop", "postStart"))


def _container_restart_rules_in_use(old_spec: dict | None) -> bool:
    for c in _containers(old_spec, ("initContainers",)):
        if c.get("restartPolicy") not in (None, "Always") or c.get("restartPolicyRules"):
            return True
    return any(c.get("restartPolicy") is not None for c in _containers(old_spec, ("containers",)))


def drop_disabled_pod_fields(pod: dict, old_pod: dict | None, gates: FeatureGate) -> None:
    """``DropDisabledPodFields``: the disabled fields of a Pod's spec.

    Parameters
    ----------
    pod : dict
        The Pod being created or updated, changed in place.
    old_pod : dict or None
        The stored Pod on update.
    gates : FeatureGate

    Returns
    -------
    None

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/pod/util.go (DropDisabledPodFields)
    """
    spec = pod.get("spec")
    if isinstance(spec, dict):
        drop_disabled_pod_spec_fields(spec, (old_pod or {}).get("spec"), gates)


def drop_disabled_template_fields(template: dict | None, old_template: dict | None, gates: FeatureGate) -> None:
    """``DropDisabledTemplateFields``: the disabled fields of a pod template's spec.

    Parameters
    ----------
    template : dict or None
        ``spec.template`` of a workload, changed in place.
    old_template : dict or None
        The stored object's template on update.
    gates : FeatureGate

    Returns
    -------
    None

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/pod/util.go (DropDisabledTemplateFields)
    """
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        old_spec = (old_template or {}).get("spec") if isinstance(old_template, dict) else None
        drop_disabled_pod_spec_fields(template["spec"], old_spec, gates)


def _get(obj: dict | None, *path: str) -> Any:
    cur: Any = obj
    for p in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    return cur


_TEMPLATE_PATHS = {
    "Deployment": ("spec", "template"), "ReplicaSet": ("spec", "template"), "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"), "Job": ("spec", "template"), "ReplicationController": ("spec", "template"),
    "PodTemplate": ("template",), "CronJob": ("spec", "jobTemplate", "spec", "template"),
}


def drop_disabled_fields(kind: str, obj: dict, old: dict | None = None, gates: Any = None) -> None:
    """Drop the fields of disabled gates from an object being created (``old`` None) or updated.

    The API server's create and update path calls this once, in
    ``PrepareForCreate``/``PrepareForUpdate``: after mutating admission, before
    validation.

    Parameters
    ----------
    kind : str
        The object's kind (``Pod``, ``Deployment``...); other kinds are left alone.
    obj : dict
        The object as it will be stored, changed in place.
    old : dict or None
        The stored object on update.
    gates : FeatureGate, mapping, str or None
        The cluster's gates (:func:`kubenotes.features.feature_gates`); None: v1.34's defaults.

    Returns
    -------
    None

    See Also
    --------
    kubenotes.features : the gates and which of them the model honours.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (PrepareForCreate, PrepareForUpdate)
    kubernetes/kubernetes@v1.34.0 pkg/registry/apps/deployment/strategy.go (PrepareForCreate)

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a", "image": "x",
    ...                                 "volumeMounts": [{"name": "data", "mountPath": "/d"}],
    ...                                 "env": [{"name": "K", "valueFrom": {"fileKeyRef": {
    ...                                     "volumeName": "cfg", "path": "a.env", "key": "K"}}}]}],
    ...                 "volumes": [{"name": "data", "image": {"reference": "quay.io/data:1"}}]}}
    >>> drop_disabled_fields("Pod", pod)
    >>> pod["spec"]
    {'containers': [{'name': 'a', 'image': 'x', 'env': [{'name': 'K', 'valueFrom': {}}]}]}
    >>> pod = {"spec": {"containers": [{"name": "a", "image": "x"}],
    ...                 "volumes": [{"name": "data", "image": {"reference": "quay.io/data:1"}}]}}
    >>> drop_disabled_fields("Pod", pod, gates="ImageVolume=true")
    >>> [v["name"] for v in pod["spec"]["volumes"]]
    ['data']
    """
    gates = feature_gates(gates)
    if kind == "Pod":
        drop_disabled_pod_fields(obj, old, gates)
        return
    path = _TEMPLATE_PATHS.get(kind)
    if path is not None:
        drop_disabled_template_fields(_get(obj, *path), _get(old, *path), gates)
    if kind == "Job":
        spec = obj.get("spec")
        if (isinstance(spec, dict) and not gates.enabled("JobManagedBy")
                and _get(old, "spec", "managedBy") is None):
            spec.pop("managedBy", None)
    elif kind == "StatefulSet":
        ru = _get(obj, "spec", "updateStrategy", "rollingUpdate")
        if (isinstance(ru, dict) and not gates.enabled("MaxUnavailableStatefulSet")
                and _get(old, "spec", "updateStrategy", "rollingUpdate", "maxUnavailable") is None):
            ru.pop("maxUnavailable", None)
    elif kind == "HorizontalPodAutoscaler":
        behavior = _get(obj, "spec", "behavior")
        if isinstance(behavior, dict) and not gates.enabled("HPAConfigurableTolerance") and not any(
                _get(old, "spec", "behavior", r, "tolerance") is not None for r in ("scaleUp", "scaleDown")):
            for r in ("scaleUp", "scaleDown"):
                if isinstance(behavior.get(r), dict):
                    behavior[r].pop("tolerance", None)
    elif kind == "PersistentVolumeClaim":
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        ref = spec.get("dataSourceRef")
        if (isinstance(ref, dict) and not gates.enabled("CrossNamespaceVolumeDataSource")
                and _get(old, "spec", "dataSourceRef", "namespace") in (None, "")):
            ref.pop("namespace", None)
        if not gates.enabled("VolumeAttributesClass") and _get(old, "spec", "volumeAttributesClassName") is None:
            spec.pop("volumeAttributesClassName", None)
