"""API server defaulting that the scheduler and controllers rely on.

Mirrors what ``kube-apiserver`` does to an object before storing it:

* the defaulting functions of ``pkg/apis/core/v1/defaults.go`` and the
  declarative defaults in ``zz_generated.defaults.go`` (``SetDefaults_Pod``,
  ``SetDefaults_PodSpec``, ``SetDefaults_Container``, container port
  protocol ``TCP``), including pod-level resources (``defaultPodRequests``,
  ``defaultHugePagePodLimits``; PodLevelResources is beta and on in v1.34);
* the Pod create strategy of ``pkg/registry/core/pod/strategy.go``
  (``PrepareForCreate``): ``matchLabelKeys``/``mismatchLabelKeys`` of pod
  (anti-)affinity terms and ``matchLabelKeys`` of topology spread
  constraints merged into their ``labelSelector`` (MatchLabelKeysInPodAffinity
  GA, MatchLabelKeysInPodTopologySpreadSelectorMerge beta and on), the
  ``SchedulingGated`` condition and ``status.qosClass``;
* the workload defaults of ``pkg/apis/apps/v1`` and ``pkg/apis/batch/v1``
  (replicas, update strategies, Job completions and parallelism...), with
  pod-template defaults (``SetDefaults_PodSpec``, ``SetDefaults_Container``)
  applied to their templates;
* ``pkg/apis/networking/v1``: NetworkPolicy ``policyTypes`` and port
  protocols, IngressClass parameter scope;
* the request namespace: a namespaced object without one lands in ``default``.

Everything works in place on lightkube objects and is idempotent.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/zz_generated.defaults.go
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go
kubernetes/kubernetes@v1.34.0 pkg/apis/apps/v1/defaults.go
kubernetes/kubernetes@v1.34.0 pkg/apis/batch/v1/defaults.go
kubernetes/kubernetes@v1.34.0 pkg/apis/networking/v1/defaults.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go
KEP-2837 (pod-level resources), KEP-3633 (matchLabelKeys in pod affinity), KEP-3243 (matchLabelKeys in topology spread)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from lightkube.core.resource import NamespacedResource
from lightkube.models.apps_v1 import (
    DaemonSetUpdateStrategy,
    DeploymentStrategy,
    RollingUpdateDaemonSet,
    RollingUpdateDeployment,
    RollingUpdateStatefulSetStrategy,
    StatefulSetPersistentVolumeClaimRetentionPolicy,
    StatefulSetUpdateStrategy,
)
from lightkube.models.core_v1 import PodCondition, PodSecurityContext, PodStatus
from lightkube.models.meta_v1 import LabelSelectorRequirement, ObjectMeta

from kubenotes.api.qos import compute_pod_qos
from kubenotes.api.quantity import format_quantity
from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.api.resources import CPU, MEMORY, resource_list

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_SCHEDULER_NAME",
    "DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS",
    "TERMINATION_MESSAGE_PATH_DEFAULT",
    "apply_defaults",
    "scheme_defaulted_pod",
    "scheme_defaulted_pod_template",
    "set_defaults_container",
    "set_defaults_pod_spec",
    "set_defaults_pod",
    "prepare_pod_for_create",
]

#: Namespace of a namespaced object created without one.
DEFAULT_NAMESPACE = "default"
#: ``v1.DefaultSchedulerName``.
DEFAULT_SCHEDULER_NAME = "default-scheduler"
#: ``v1.DefaultTerminationGracePeriodSeconds``.
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
#: ``v1.TerminationMessagePathDefault``.
TERMINATION_MESSAGE_PATH_DEFAULT = "/dev/termination-log"

_HUGEPAGES = "hugepages-"
_POD_SCHEDULED = "PodScheduled"
_SCHEDULING_GATED = "SchedulingGated"
_SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


# --- containers and pod specs ------------------------------------------------------


def _image_tag(image: str) -> str:
    # parsers.ParseImageName: the tag, "latest" when neither tag nor digest is given,
    # "" when only a digest is given (or the reference does not parse).
    if not image:
        return ""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        return last.rsplit(":", 1)[1]
    return "" if digest else "latest"


def set_defaults_container(container: Any) -> None:
    """Default one container in place (``SetDefaults_Container`` and port defaults).

    ``imagePullPolicy`` becomes ``Always`` for a ``:latest`` or untagged
    image and ``IfNotPresent`` otherwise; ``terminationMessagePath`` and
    ``terminationMessagePolicy`` get their defaults; every port without a
    protocol gets ``TCP``; probes get :func:`set_defaults_probe`; an env var's
    ``fieldRef`` gets ``apiVersion: v1``.

    Parameters
    ----------
    container : lightkube.models.core_v1.Container

    Examples
    --------
    >>> from lightkube.models.core_v1 import Container
    >>> c = Container.from_dict({"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]})
    >>> set_defaults_container(c)
    >>> c.imagePullPolicy, c.ports[0].protocol, c.terminationMessagePolicy
    ('Always', 'TCP', 'File')
    """
    if not container.imagePullPolicy:
        container.imagePullPolicy = "Always" if _image_tag(container.image or "") == "latest" else "IfNotPresent"
    if not container.terminationMessagePath:
        container.terminationMessagePath = TERMINATION_MESSAGE_PATH_DEFAULT
    if not container.terminationMessagePolicy:
        container.terminationMessagePolicy = "File"
    for port in container.ports or ():
        if not port.protocol:
            port.protocol = "TCP"
    for probe in (container.livenessProbe, container.readinessProbe, container.startupProbe):
        if probe is not None:
            set_defaults_probe(probe)
    for env in container.env or ():  # SetDefaults_ObjectFieldSelector
        ref = env.valueFrom.fieldRef if env.valueFrom is not None else None
        if ref is not None and not ref.apiVersion:
            ref.apiVersion = "v1"


#: ``SetDefaults_Probe``: timeoutSeconds, periodSeconds, successThreshold, failureThreshold.
PROBE_DEFAULTS = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))
#: ``SetDefaults_{ConfigMap,Secret,Projected,DownwardAPI}VolumeSource``: defaultMode 0644.
VOLUME_DEFAULT_MODE = 0o644


def set_defaults_probe(probe: Any) -> None:
    """Default a probe in place (``SetDefaults_Probe`` and ``SetDefaults_HTTPGetAction``).

    Examples
    --------
    >>> from lightkube.models.core_v1 import Probe
    >>> p = Probe.from_dict({"httpGet": {"port": 80}})
    >>> set_defaults_probe(p)
    >>> p.periodSeconds, p.failureThreshold, p.httpGet.path, p.httpGet.scheme
    (10, 3, '/', 'HTTP')
    """
    for name, value in PROBE_DEFAULTS:
        if not getattr(probe, name):
            setattr(probe, name, value)
    if probe.httpGet is not None:
        if not probe.httpGet.path:
            probe.httpGet.path = "/"
        if not probe.httpGet.scheme:
            probe.httpGet.scheme = "HTTP"


def _set_defaults_volumes(spec: Any) -> None:
    for v in spec.volumes or ():
        for src in (v.configMap, v.secret, v.projected, v.downwardAPI):
            if src is not None and src.defaultMode is None:
                src.defaultMode = VOLUME_DEFAULT_MODE


def set_defaults_pod_spec(spec: Any) -> None:
    """Default a PodSpec in place, as for pods and pod templates (``SetDefaults_PodSpec``).

    Sets ``dnsPolicy: ClusterFirst``, ``restartPolicy: Always``,
    ``securityContext: {}``, ``terminationGracePeriodSeconds: 30``,
    ``schedulerName: default-scheduler``, the deprecated ``serviceAccount``
    from ``serviceAccountName`` (v1 conversion) and ``defaultMode: 420`` of
    configMap, secret, projected and downwardAPI volumes, then defaults every
    container, init container and ephemeral container (probes included).

    Parameters
    ----------
    spec : lightkube.models.core_v1.PodSpec

    Examples
    --------
    >>> from lightkube.models.core_v1 import PodSpec
    >>> spec = PodSpec.from_dict({"containers": [{"name": "c", "image": "nginx:1.27"}]})
    >>> set_defaults_pod_spec(spec)
    >>> spec.schedulerName, spec.restartPolicy, spec.containers[0].imagePullPolicy
    ('default-scheduler', 'Always', 'IfNotPresent')
    """
    if not spec.dnsPolicy:
        spec.dnsPolicy = "ClusterFirst"
    if not spec.restartPolicy:
        spec.restartPolicy = "Always"
    if spec.securityContext is None:
        spec.securityContext = PodSecurityContext()
    if spec.terminationGracePeriodSeconds is None:
        spec.terminationGracePeriodSeconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if not spec.schedulerName:
        spec.schedulerName = DEFAULT_SCHEDULER_NAME
    # v1 conversion keeps the deprecated serviceAccount field equal to serviceAccountName
    if spec.serviceAccountName and not spec.serviceAccount:
        spec.serviceAccount = spec.serviceAccountName
    elif spec.serviceAccount and not spec.serviceAccountName:
        spec.serviceAccountName = spec.serviceAccount
    _set_defaults_volumes(spec)
    for c in spec.containers or ():
        set_defaults_container(c)
    for c in spec.initContainers or ():
        set_defaults_container(c)
    for c in spec.ephemeralContainers or ():
        set_defaults_container(c)


# --- pod-level resources -----------------------------------------------------------


def _add(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        if k not in into or v > into[k]:
            into[k] = v


def _aggregate_containers(spec: Any, which: str) -> dict[str, int]:
    """``AggregateContainerRequests``/``AggregateContainerLimits``: sidecar-aware, no overhead, no pod level."""
    total: dict[str, int] = {}
    for i, c in enumerate(spec.containers or ()):
        res = c.resources
        _add(total, resource_list(getattr(res, which, None) if res else None, f"spec.containers[{i}].resources.{which}"))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for i, c in enumerate(spec.initContainers or ()):
        res = c.resources
        rl = resource_list(getattr(res, which, None) if res else None, f"spec.initContainers[{i}].resources.{which}")
        if is_restartable_init_container(c):
            _add(total, rl)
            _add(sidecars, rl)
            use = dict(sidecars)
        else:
            use = dict(rl)
            _add(use, sidecars)
        _max(init_max, use)
    _max(total, init_max)
    return total


def _is_supported_pod_level_resource(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith(_HUGEPAGES)


def _default_hugepage_pod_limits(spec: Any) -> None:
    res = spec.resources
    if res is None or (not res.limits and not res.requests):
        return
    pod_limits = dict(res.limits or {})
    pod_requests = res.requests or {}
    for name, amount in _aggregate_containers(spec, "limits").items():
        if not name.startswith(_HUGEPAGES) or name in pod_requests:
            continue
        if name not in pod_limits:
            pod_limits[name] = format_quantity(amount, name)
    if pod_limits:
        res.limits = pod_limits


def _default_pod_requests(spec: Any) -> None:
    res = spec.resources
    if res is None or not res.limits:
        return
    pod_requests = dict(res.requests or {})
    for name, amount in _aggregate_containers(spec, "requests").items():
        # Only overcommittable pod-level resources (cpu, memory) come from the containers.
        if name not in pod_requests and name in (CPU, MEMORY):
            pod_requests[name] = format_quantity(amount, name)
    for name, q in res.limits.items():
        if name not in pod_requests and _is_supported_pod_level_resource(name):
            pod_requests[name] = q
    if pod_requests:
        res.requests = pod_requests


def _requests_from_limits(containers: Iterable[Any]) -> None:
    for c in containers:
        res = c.resources
        if res is None or res.limits is None:
            continue
        requests = dict(res.requests or {})
        for name, q in res.limits.items():
            if name not in requests:
                requests[name] = q
        res.requests = requests


def set_defaults_pod(pod: Any) -> None:
    """Pod-only defaults, in place (``SetDefaults_Pod``).

    * every container and init container requests what it limits, for each
      resource with a limit but no request;
    * with ``spec.resources`` (pod-level resources): hugepage limits default
      from the containers' aggregated limits, then pod-level requests default
      (only when pod-level limits are set) to the containers' aggregated cpu
      and memory requests, else to the pod-level limits;
    * ``enableServiceLinks: true``;
    * with ``hostNetwork``, each container port without a ``hostPort`` gets
      ``hostPort = containerPort``.

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod

    Raises
    ------
    InvalidQuantity
        When a quantity needed for pod-level aggregation does not parse.

    Notes
    -----
    Upstream also rounds every quantity up to milli precision
    (``SetDefaults_ResourceList``); here quantities keep their spelling and
    the rounding happens when they are converted to integers. Aggregated
    pod-level values are written in canonical form (``1500m``, ``128Mi``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go (SetDefaults_Pod, defaultPodRequests, defaultHugePagePodLimits)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [
    ...     {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}},
    ...     {"name": "b", "resources": {"requests": {"cpu": "250m"}}}],
    ...     "resources": {"limits": {"cpu": "2", "memory": "2Gi"}}}})
    >>> set_defaults_pod(pod)
    >>> pod.spec.containers[0].resources.requests
    {'cpu': '500m', 'memory': '1Gi'}
    >>> pod.spec.resources.requests
    {'cpu': '750m', 'memory': '1Gi'}
    """
    spec = pod.spec
    _requests_from_limits(spec.containers or ())
    _requests_from_limits(spec.initContainers or ())
    _default_hugepage_pod_limits(spec)
    _default_pod_requests(spec)
    if spec.enableServiceLinks is None:
        spec.enableServiceLinks = True
    if spec.hostNetwork:
        for c in list(spec.containers or ()) + list(spec.initContainers or ()):
            for port in c.ports or ():
                if not port.hostPort:
                    port.hostPort = port.containerPort


# --- pod create strategy -----------------------------------------------------------


def _merge_label_keys(selector: Any, keys: Iterable[str] | None, operator: str, labels: Mapping[str, str]) -> None:
    exprs = list(selector.matchExpressions or ())
    for key in keys or ():
        if key not in labels:
            continue
        req = LabelSelectorRequirement(key=key, operator=operator, values=[labels[key]])
        if not any(e.key == req.key and e.operator == req.operator and list(e.values or ()) == req.values
                   for e in exprs):
            exprs.append(req)
    selector.matchExpressions = exprs


def _mutate_affinity_term(term: Any, labels: Mapping[str, str]) -> None:
    if term is None or term.labelSelector is None or not (term.matchLabelKeys or term.mismatchLabelKeys):
        return  # a nil labelSelector matches nothing; nothing to merge into
    _merge_label_keys(term.labelSelector, term.matchLabelKeys, "In", labels)
    _merge_label_keys(term.labelSelector, term.mismatchLabelKeys, "NotIn", labels)


def prepare_pod_for_create(pod: Any) -> None:
    """The Pod create strategy's mutations, in place (``podStrategy.PrepareForCreate``).

    * each pod (anti-)affinity term with ``matchLabelKeys`` gets ``key In
      (pod's value)`` and with ``mismatchLabelKeys`` ``key NotIn (pod's
      value)`` appended to its ``labelSelector``, for keys the pod has;
    * each topology spread constraint with ``matchLabelKeys`` gets ``key In
      (pod's value)`` the same way;
    * a pod with ``schedulingGates`` gets a ``PodScheduled=False``
      condition with reason ``SchedulingGated``;
    * ``status.qosClass`` is computed (and ``status.phase: Pending`` set on
      a pod without status).

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod
        Already defaulted (see :func:`set_defaults_pod`).

    Notes
    -----
    Upstream replaces the whole status on create; here an existing status
    (e.g. a running pod loaded from a cluster dump) is kept and only a
    missing ``qosClass`` is filled. An expression already present is not
    appended twice, so calling this again changes nothing.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (PrepareForCreate, mutatePodAffinity, mutateTopologySpreadConstraints)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod = Pod.from_dict({"metadata": {"name": "p", "labels": {"app": "web", "pod-template-hash": "abc"}},
    ...     "spec": {"containers": [{"name": "c"}], "affinity": {"podAntiAffinity": {
    ...         "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname",
    ...             "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}]}}}})
    >>> prepare_pod_for_create(pod)
    >>> pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.to_dict()
    {'matchExpressions': [{'key': 'pod-template-hash', 'operator': 'In', 'values': ['abc']}], 'matchLabels': {'app': 'web'}}
    >>> pod.status.phase, pod.status.qosClass
    ('Pending', 'BestEffort')
    """
    spec = pod.spec
    labels = (pod.metadata.labels if pod.metadata is not None else None) or {}
    aff = spec.affinity
    if aff is not None:
        for group in (aff.podAffinity, aff.podAntiAffinity):
            if group is None:
                continue
            for w in group.preferredDuringSchedulingIgnoredDuringExecution or ():
                _mutate_affinity_term(w.podAffinityTerm, labels)
            for term in group.requiredDuringSchedulingIgnoredDuringExecution or ():
                _mutate_affinity_term(term, labels)
    for tsc in spec.topologySpreadConstraints or ():
        if tsc.matchLabelKeys and tsc.labelSelector is not None:
            _merge_label_keys(tsc.labelSelector, tsc.matchLabelKeys, "In", labels)
    if pod.status is None:
        pod.status = PodStatus(phase="Pending")
    if not pod.status.qosClass:
        pod.status.qosClass = compute_pod_qos(pod)
    if spec.schedulingGates and not any(c.type == _POD_SCHEDULED for c in pod.status.conditions or ()):
        pod.status.conditions = list(pod.status.conditions or ()) + [PodCondition(
            type=_POD_SCHEDULED, status="False", reason=_SCHEDULING_GATED, message=_SCHEDULING_GATED_MESSAGE)]


# --- workloads ---------------------------------------------------------------------


def _default_template(template: Any) -> None:
    if template is not None and template.spec is not None:
        set_defaults_pod_spec(template.spec)


def _defaults_deployment(spec: Any) -> None:
    if spec.replicas is None:
        spec.replicas = 1
    if spec.strategy is None:
        spec.strategy = DeploymentStrategy()
    if not spec.strategy.type:
        spec.strategy.type = "RollingUpdate"
    if spec.strategy.type == "RollingUpdate":
        if spec.strategy.rollingUpdate is None:
            spec.strategy.rollingUpdate = RollingUpdateDeployment()
        if spec.strategy.rollingUpdate.maxUnavailable is None:
            spec.strategy.rollingUpdate.maxUnavailable = "25%"
        if spec.strategy.rollingUpdate.maxSurge is None:
            spec.strategy.rollingUpdate.maxSurge = "25%"
    if spec.revisionHistoryLimit is None:
        spec.revisionHistoryLimit = 10
    if spec.progressDeadlineSeconds is None:
        spec.progressDeadlineSeconds = 600


def _defaults_daemonset(spec: Any) -> None:
    if spec.updateStrategy is None:
        spec.updateStrategy = DaemonSetUpdateStrategy()
    if not spec.updateStrategy.type:
        spec.updateStrategy.type = "RollingUpdate"
    if spec.updateStrategy.type == "RollingUpdate":
        if spec.updateStrategy.rollingUpdate is None:
            spec.updateStrategy.rollingUpdate = RollingUpdateDaemonSet()
        if spec.updateStrategy.rollingUpdate.maxUnavailable is None:
            spec.updateStrategy.rollingUpdate.maxUnavailable = 1
        if spec.updateStrategy.rollingUpdate.maxSurge is None:
            spec.updateStrategy.rollingUpdate.maxSurge = 0
    if spec.revisionHistoryLimit is None:
        spec.revisionHistoryLimit = 10


def _defaults_statefulset(spec: Any) -> None:
    if not spec.podManagementPolicy:
        spec.podManagementPolicy = "OrderedReady"
    if spec.updateStrategy is None:
        spec.updateStrategy = StatefulSetUpdateStrategy()
    if not spec.updateStrategy.type:
        spec.updateStrategy.type = "RollingUpdate"
        if spec.updateStrategy.rollingUpdate is None:
            spec.updateStrategy.rollingUpdate = RollingUpdateStatefulSetStrategy()
    ru = spec.updateStrategy.rollingUpdate
    if spec.updateStrategy.type == "RollingUpdate" and ru is not None and ru.partition is None:
        ru.partition = 0
    if spec.persistentVolumeClaimRetentionPolicy is None:
        spec.persistentVolumeClaimRetentionPolicy = StatefulSetPersistentVolumeClaimRetentionPolicy()
    policy = spec.persistentVolumeClaimRetentionPolicy
    if not policy.whenDeleted:
        policy.whenDeleted = "Retain"
    if not policy.whenScaled:
        policy.whenScaled = "Retain"
    if spec.replicas is None:
        spec.replicas = 1
    if spec.revisionHistoryLimit is None:
        spec.revisionHistoryLimit = 10


def _defaults_job(obj: Any) -> None:
    spec = obj.spec
    if spec.completions is None and spec.parallelism is None:
        spec.completions = 1
        spec.parallelism = 1
    if spec.parallelism is None:
        spec.parallelism = 1
    if spec.backoffLimit is None:
        spec.backoffLimit = 2**31 - 1 if spec.backoffLimitPerIndex is not None else 6
    tmpl_labels = spec.template.metadata.labels if spec.template and spec.template.metadata else None
    if tmpl_labels is not None and not obj.metadata.labels:
        obj.metadata.labels = dict(tmpl_labels)
    if spec.completionMode is None:
        spec.completionMode = "NonIndexed"
    if spec.suspend is None:
        spec.suspend = False
    if spec.podReplacementPolicy is None:
        spec.podReplacementPolicy = "Failed" if spec.podFailurePolicy is not None else "TerminatingOrFailed"
    if spec.manualSelector is None:
        spec.manualSelector = False


def _defaults_cronjob(spec: Any) -> None:
    if not spec.concurrencyPolicy:
        spec.concurrencyPolicy = "Allow"
    if spec.suspend is None:
        spec.suspend = False
    if spec.successfulJobsHistoryLimit is None:
        spec.successfulJobsHistoryLimit = 3
    if spec.failedJobsHistoryLimit is None:
        spec.failedJobsHistoryLimit = 1


def _defaults_replication_controller(obj: Any) -> None:
    spec = obj.spec
    labels = spec.template.metadata.labels if spec.template and spec.template.metadata else None
    if labels:
        if not spec.selector:
            spec.selector = dict(labels)
        if not obj.metadata.labels:
            obj.metadata.labels = dict(labels)
    if spec.replicas is None:
        spec.replicas = 1


#: ``DefaultClientIPServiceAffinitySeconds``: three hours.
DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800


def _defaults_service(spec: Any) -> None:
    """``SetDefaults_Service``: type, session affinity, port protocol and targetPort, traffic policies."""
    from lightkube.models.core_v1 import ClientIPConfig, SessionAffinityConfig

    if not spec.sessionAffinity:
        spec.sessionAffinity = "None"
    if spec.sessionAffinity == "None":
        spec.sessionAffinityConfig = None
    elif spec.sessionAffinity == "ClientIP":
        cfg = spec.sessionAffinityConfig
        if cfg is None or cfg.clientIP is None or cfg.clientIP.timeoutSeconds is None:
            spec.sessionAffinityConfig = SessionAffinityConfig(
                clientIP=ClientIPConfig(timeoutSeconds=DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS))
    if not spec.type:
        spec.type = "ClusterIP"
    for port in spec.ports or ():
        if not port.protocol:
            port.protocol = "TCP"
        if port.targetPort in (None, 0, ""):
            port.targetPort = port.port
    externally_accessible = spec.type in ("NodePort", "LoadBalancer") or (
        spec.type == "ClusterIP" and bool(spec.externalIPs))
    if externally_accessible and not spec.externalTrafficPolicy:
        spec.externalTrafficPolicy = "Cluster"
    if spec.internalTrafficPolicy is None and spec.type in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec.internalTrafficPolicy = "Cluster"
    if spec.type == "LoadBalancer" and spec.allocateLoadBalancerNodePorts is None:
        spec.allocateLoadBalancerNodePorts = True


def _defaults_network_policy(spec: Any) -> None:
    """``SetDefaults_NetworkPolicy`` and ``SetDefaults_NetworkPolicyPort``: policyTypes, port protocol TCP.

    Without ``policyTypes`` a policy is an Ingress policy, and an Egress one
    too when it has egress rules; a port without a protocol is TCP.
    """
    for rule in (spec.ingress or []) + (spec.egress or []):
        for port in rule.ports or ():
            if port.protocol is None:
                port.protocol = "TCP"
    if not spec.policyTypes:
        spec.policyTypes = ["Ingress"] + (["Egress"] if spec.egress else [])


def apply_defaults(obj: Any) -> Any:
    """Apply the API server's defaults to an object being created, in place.

    * any namespaced object without ``metadata.namespace`` gets ``default``;
    * a Pod gets :func:`set_defaults_pod_spec`, :func:`set_defaults_pod`
      and :func:`prepare_pod_for_create` (requests from limits, pod-level
      requests, ``schedulerName``, port protocols, ``matchLabelKeys``
      merged into selectors, ``status.qosClass``...);
    * a Service gets ``SetDefaults_Service`` (type ClusterIP, sessionAffinity
      None, port protocol TCP and targetPort = port, traffic policies
      Cluster);
    * a NetworkPolicy gets ``policyTypes`` (``Ingress``, plus ``Egress``
      when it has egress rules) and port protocol ``TCP``; an IngressClass's
      ``parameters`` get scope ``Cluster``;
    * a PersistentVolume gets reclaim policy ``Retain`` and ``volumeMode``
      ``Filesystem``, a PersistentVolumeClaim ``volumeMode`` ``Filesystem``, a
      StorageClass reclaim policy ``Delete`` and ``volumeBindingMode``
      ``Immediate``;
    * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
      ReplicationController and PodTemplate get their own defaults
      (replicas 1, rolling-update strategies, Job parallelism...) and
      :func:`set_defaults_pod_spec` on their pod template.

    Parameters
    ----------
    obj : lightkube resource
        E.g. ``lightkube.resources.core_v1.Pod`` or ``apps_v1.Deployment``.
        Other kinds only get the namespace default.

    Returns
    -------
    object
        ``obj`` itself, for chaining.

    Raises
    ------
    InvalidQuantity
        When a Pod quantity needed for pod-level defaulting does not parse.

    Notes
    -----
    As upstream, requests are *not* copied from limits inside pod templates
    (only in Pods, where the API server defaults the pods a controller
    creates). Probe, volume-source and ``fieldRef`` defaults are left out:
    nothing in the model reads them. Toleration operators are not defaulted
    upstream either; an empty operator means ``Equal`` when matching.
    Priority (``spec.priority``, ``spec.preemptionPolicy``) is set by
    admission, see :func:`kubenotes.api.priority.apply_priority_admission`.

    See Also
    --------
    kubenotes.api.priority.apply_priority_admission : the admission step that follows.
    kubenotes.api.qos.compute_pod_qos : what fills ``status.qosClass``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go
    kubernetes/kubernetes@v1.34.0 pkg/apis/apps/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/apis/batch/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/apis/storage/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/apis/networking/v1/defaults.go

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod = apply_defaults(Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [
    ...     {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}}))
    >>> pod.metadata.namespace, pod.spec.schedulerName, pod.spec.containers[0].resources.requests
    ('default', 'default-scheduler', {'cpu': '1', 'memory': '1Gi'})
    >>> pod.status.qosClass
    'Guaranteed'
    >>> from lightkube.resources.apps_v1 import Deployment
    >>> d = apply_defaults(Deployment.from_dict({"metadata": {"name": "d"}, "spec": {
    ...     "selector": {"matchLabels": {"app": "d"}},
    ...     "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c"}]}}}}))
    >>> d.spec.replicas, d.spec.strategy.rollingUpdate.maxSurge, d.spec.template.spec.schedulerName
    (1, '25%', 'default-scheduler')
    >>> from lightkube.resources.networking_v1 import NetworkPolicy
    >>> np = apply_defaults(NetworkPolicy.from_dict({"metadata": {"name": "n"}, "spec": {"podSelector": {},
    ...     "egress": [{"ports": [{"port": 53}]}]}}))
    >>> np.spec.policyTypes, np.spec.egress[0].ports[0].protocol
    (['Ingress', 'Egress'], 'TCP')
    """
    if isinstance(obj, NamespacedResource):
        if obj.metadata is None:
            obj.metadata = ObjectMeta()
        if not obj.metadata.namespace:
            obj.metadata.namespace = DEFAULT_NAMESPACE
    kind = getattr(obj, "kind", None)
    spec = getattr(obj, "spec", None)
    if kind == "Pod" and spec is not None:
        set_defaults_pod(obj)
        set_defaults_pod_spec(spec)
        prepare_pod_for_create(obj)
    elif kind == "PodTemplate":
        _default_template(getattr(obj, "template", None))
    elif spec is not None:
        if kind == "Deployment":
            _defaults_deployment(spec)
        elif kind == "ReplicaSet":
            if spec.replicas is None:
                spec.replicas = 1
        elif kind == "StatefulSet":
            _defaults_statefulset(spec)
        elif kind == "DaemonSet":
            _defaults_daemonset(spec)
        elif kind == "Job":
            if obj.metadata is None:
                obj.metadata = ObjectMeta()
            _defaults_job(obj)
        elif kind == "CronJob":
            _defaults_cronjob(spec)
            jt = spec.jobTemplate
            if jt is not None and jt.spec is not None:
                _default_template(jt.spec.template)
            return obj
        elif kind == "ReplicationController":
            if obj.metadata is None:
                obj.metadata = ObjectMeta()
            _defaults_replication_controller(obj)
        elif kind == "Service":
            _defaults_service(spec)
            return obj
        elif kind == "NetworkPolicy":
            _defaults_network_policy(spec)
            return obj
        elif kind == "IngressClass":
            # SetDefaults_IngressClass (pkg/apis/networking/v1/defaults.go)
            if spec.parameters is not None and spec.parameters.scope is None:
                spec.parameters.scope = "Cluster"
            return obj
        elif kind in ("PersistentVolume", "PersistentVolumeClaim"):
            # SetDefaults_PersistentVolume / SetDefaults_PersistentVolumeClaimSpec
            if kind == "PersistentVolume" and spec.persistentVolumeReclaimPolicy is None:
                spec.persistentVolumeReclaimPolicy = "Retain"
            if spec.volumeMode is None:
                spec.volumeMode = "Filesystem"
            return obj
        else:
            return obj
        _default_template(getattr(spec, "template", None))
    elif kind == "StorageClass":
        # SetDefaults_StorageClass (pkg/apis/storage/v1/defaults.go)
        if getattr(obj, "reclaimPolicy", None) is None:
            obj.reclaimPolicy = "Delete"
        if getattr(obj, "volumeBindingMode", None) is None:
            obj.volumeBindingMode = "Immediate"
    return obj


def scheme_defaulted_pod(pod: dict) -> dict:
    """A stored Pod dict with the defaults decoding applies (``SetObjectDefaults_Pod``), as a new dict.

    What a component gets when it decodes a Pod through the scheme (the
    kubelet reading a static pod file): :func:`set_defaults_pod_spec` and
    :func:`set_defaults_pod`, but none of the create-time strategy
    (:func:`prepare_pod_for_create`). ``status`` is kept as given.

    Parameters
    ----------
    pod : dict
        A Pod as JSON-shaped dict (``apiVersion``/``kind`` optional).

    Returns
    -------
    dict
        A new dict; ``pod`` is not changed.

    Raises
    ------
    InvalidQuantity
        When a quantity needed for pod-level defaulting does not parse.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/zz_generated.defaults.go (SetObjectDefaults_Pod)

    Examples
    --------
    >>> p = scheme_defaulted_pod({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    >>> p["spec"]["restartPolicy"], p["spec"]["containers"][0]["imagePullPolicy"]
    ('Always', 'Always')
    """
    from lightkube.resources.core_v1 import Pod

    obj = Pod.from_dict(pod)
    if obj.spec is not None:
        set_defaults_pod_spec(obj.spec)
    set_defaults_pod(obj)
    out = obj.to_dict()
    if "status" in pod:
        out["status"] = pod["status"]
    return out


def scheme_defaulted_pod_template(template: dict) -> dict:
    """A PodTemplateSpec dict with its pod spec's scheme defaults (:func:`set_defaults_pod_spec`), as a new dict.

    Parameters
    ----------
    template : dict
        ``{"metadata": ..., "spec": ...}`` as in a workload's ``spec.template``.

    Returns
    -------
    dict
        A new dict; ``template`` is not changed.

    Raises
    ------
    TypeError, ValueError
        When ``template`` does not decode as a PodTemplateSpec.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/zz_generated.defaults.go (SetObjectDefaults_PodTemplate)

    Examples
    --------
    >>> t = scheme_defaulted_pod_template({"spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
    >>> t["spec"]["dnsPolicy"], t["spec"]["containers"][0]["imagePullPolicy"]
    ('ClusterFirst', 'IfNotPresent')
    """
    from lightkube.models.core_v1 import PodTemplateSpec

    typed = PodTemplateSpec.from_dict(template)
    if typed.spec is not None:
        set_defaults_pod_spec(typed.spec)
    return typed.to_dict()
