"""The HorizontalPodAutoscaler controller: scale a workload so the metric meets its target.

Every 15 s (``--horizontal-pod-autoscaler-sync-period``) the controller reads
the target's ``scale`` subresource (any kind that has one: a Deployment, a
StatefulSet, or a custom resource whose CRD declares ``subresources.scale``;
the target is found by its group and kind, as the RESTMapper maps it, and its
pods by the Scale's ``status.selector``), computes ``desiredReplicas =
ceil(readyPods * currentMetric / targetMetric)`` unless the ratio is within
the 10 % tolerance, stabilises the recommendation (the highest of the last
5 minutes when scaling down), limits the rate of change, clamps to
``minReplicas``/``maxReplicas`` and writes the new size to the ``scale``
subresource with a ``SuccessfulRescale`` Event. The conditions
``AbleToScale``, ``ScalingActive`` and ``ScalingLimited`` say why.

The metric is the scenario's: ``ctx.metrics[(namespace, hpa_name)]`` is one
float, read as the current **average utilization in percent of the
request** for a ``Resource`` metric whose target type is ``Utilization``, and
as the current **average value** (in the metric's units; CPU in cores) for
``AverageValue`` targets (``Resource`` or ``Pods`` metrics). It stands in for
metrics-server and applies to the HPA's first metric.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/horizontal.go (reconcileAutoscaler, scaleForResourceMappings, validateAndParseSelector, normalizeDesiredReplicas*, conditions)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/scale/client.go (the scale client: Get/Update of <resource>/scale)
kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/replica_calculator.go (GetResourceReplicas, calcPlainMetricReplicas)
kubernetes/kubernetes@v1.34.0 pkg/apis/autoscaling/v2/defaults.go (behavior defaults)
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/options/hpacontroller.go (sync period 15s, tolerance 0.1, downscale stabilization 5m)
https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kubenotes.apiserver.bootstrap_policy import (
    AUTOSCALING_GROUP,
    LEGACY_GROUP,
    READ,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.resources import SERVED_RESOURCES, ResourceInfo
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.reconciler import Controller, Result, split_key
from kubenotes.errors import KubenotesError

__all__ = ["HorizontalController", "replicas_for", "usage_ratio_replicas", "convert_desired_replicas_with_rules",
           "calculate_scale_up_limit_with_scaling_rules", "calculate_scale_down_limit_with_behaviors",
           "default_behavior", "ScaleEvent", "DEFAULT_SYNC_PERIOD_SECONDS", "DEFAULT_TOLERANCE",
           "DEFAULT_DOWNSCALE_STABILIZATION_SECONDS", "SCALE_UP_LIMIT_FACTOR", "SCALE_UP_LIMIT_MINIMUM",
           "DEFAULT_CPU_UTILIZATION", "CONTROLLER_POLICY", "ScaleTargetError"]

#: Upstream's ``system:controller:horizontal-pod-autoscaler`` role (``controller_policy.go``) and the
#: ServiceAccount the controller runs as (``ClientOrDie("horizontal-pod-autoscaler")``,
#: ``cmd/kube-controller-manager/app/autoscaling.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("horizontal-pod-autoscaler", (
    policy_rule(READ, (AUTOSCALING_GROUP,), ("horizontalpodautoscalers",)),
    policy_rule(("update",), (AUTOSCALING_GROUP,), ("horizontalpodautoscalers/status",)),
    policy_rule(("get", "update"), ("*",), ("*/scale",)),
    policy_rule(("list", "watch"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(("list", "watch"), ("metrics.k8s.io",), ("pods",)),
    policy_rule(READ, ("custom.metrics.k8s.io",), ("*",)),
    policy_rule(READ, ("external.metrics.k8s.io",), ("*",)),
    events_rule(),
))

DEFAULT_SYNC_PERIOD_SECONDS = 15.0
DEFAULT_TOLERANCE = 0.1
DEFAULT_DOWNSCALE_STABILIZATION_SECONDS = 300.0
#: Without ``behavior``: at most ``max(2 * current, 4)`` replicas per step.
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4.0
#: ``autoscaling.DefaultCPUUtilization``: the metric of an HPA that lists none.
DEFAULT_CPU_UTILIZATION = 80


class ScaleTargetError(KubenotesError):
    """An HPA's ``scaleTargetRef`` maps to no served resource (the RESTMapper's error, as its text)."""


def replicas_for(current_replicas: int, current_value: float, target_value: float,
                 tolerance: float = DEFAULT_TOLERANCE) -> int:
    """The replica count the HPA's formula asks for: ``ceil(current * current_value / target_value)``.

    Within the tolerance (``|1 - ratio| <= 0.1``) the count stays.

    Parameters
    ----------
    current_replicas : int
        Pods reporting the metric (upstream: ready pods).
    current_value, target_value : float
        Average utilization (%) or average value, in the same units.
    tolerance : float

    Examples
    --------
    >>> replicas_for(3, 90, 50), replicas_for(3, 54, 50), replicas_for(4, 20, 50), replicas_for(10, 44, 50)
    (6, 3, 2, 9)
    """
    ratio = current_value / target_value
    return usage_ratio_replicas(current_replicas, ratio, tolerance)


def usage_ratio_replicas(ready_pods: int, usage_ratio: float, tolerance: float = DEFAULT_TOLERANCE,
                         unready_pods: int = 0, current_replicas: int | None = None) -> int:
    """``GetResourceReplicas`` on a usage ratio, with unready pods counted as using nothing on a scale-up.

    Parameters
    ----------
    ready_pods : int
        Pods with a metric.
    usage_ratio : float
        current / target.
    tolerance : float
    unready_pods : int
        Pods without a usable metric (not ready).
    current_replicas : int, optional
        The target's ``spec.replicas`` (returned when within tolerance); ``ready_pods`` by default.

    Examples
    --------
    >>> usage_ratio_replicas(2, 1.5, unready_pods=2, current_replicas=4)   # the unready halve the ratio: stay
    4
    >>> usage_ratio_replicas(2, 3.0, unready_pods=2, current_replicas=4)   # ratio 1.5 over all 4 pods
    6
    """
    current = ready_pods if current_replicas is None else current_replicas
    if not (unready_pods > 0 and usage_ratio > 1.0):
        if abs(1.0 - usage_ratio) <= tolerance:
            return current
        return int(math.ceil(usage_ratio * ready_pods - 1e-9))
    total = ready_pods + unready_pods
    new_ratio = usage_ratio * ready_pods / total
    if abs(1.0 - new_ratio) <= tolerance or (usage_ratio < 1.0 < new_ratio) or (usage_ratio > 1.0 > new_ratio):
        return current
    new_replicas = int(math.ceil(new_ratio * total - 1e-9))
    if (new_ratio < 1.0 and new_replicas > current) or (new_ratio > 1.0 and new_replicas < current):
        return current
    return new_replicas


def convert_desired_replicas_with_rules(current_replicas: int, desired_replicas: int, min_replicas: int,
                                        max_replicas: int) -> tuple[int, str, str]:
    """``convertDesiredReplicasWithRules``: clamp without ``behavior`` (scale-up at most ``max(2x, 4)``).

    Examples
    --------
    >>> convert_desired_replicas_with_rules(2, 10, 1, 20)
    (4, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate')
    >>> convert_desired_replicas_with_rules(5, 0, 1, 20)[:2], convert_desired_replicas_with_rules(5, 7, 1, 6)[:2]
    ((1, 'TooFewReplicas'), (6, 'TooManyReplicas'))
    """
    scale_up_limit = int(max(SCALE_UP_LIMIT_FACTOR * current_replicas, SCALE_UP_LIMIT_MINIMUM))
    if max_replicas > scale_up_limit:
        maximum, cond, reason = scale_up_limit, "ScaleUpLimit", \
            "the desired replica count is increasing faster than the maximum scale rate"
    else:
        maximum, cond, reason = max_replicas, "TooManyReplicas", \
            "the desired replica count is more than the maximum replica count"
    minimum = 1 if min_replicas == 0 else min_replicas
    if desired_replicas < minimum:
        return minimum, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
    if desired_replicas > maximum:
        return maximum, cond, reason
    return desired_replicas, "DesiredWithinRange", "the desired count is within the acceptable range"


@dataclass
class ScaleEvent:
    """``timestampedScaleEvent``: a past change of the replica count (for rate policies)."""

    replica_change: int
    timestamp: float
    outdated: bool = False


def _change_in_period(period_seconds: float, events: list[ScaleEvent], now: float) -> int:
    return sum(e.replica_change for e in events if e.timestamp > now - period_seconds)


def calculate_scale_up_limit_with_scaling_rules(current_replicas: int, events: list[ScaleEvent], rules: dict,
                                                now: float) -> int:
    """``calculateScaleUpLimitWithScalingRules``: the most replicas the scale-up policies allow now.

    Examples
    --------
    >>> calculate_scale_up_limit_with_scaling_rules(3, [], default_behavior()["scaleUp"], 0.0)   # max(3+4, 3*2)
    7
    """
    select = rules.get("selectPolicy", "Max")
    if select == "Disabled":
        return current_replicas
    result = math.inf if select == "Min" else -math.inf
    for p in rules.get("policies") or []:
        start = current_replicas - _change_in_period(p["periodSeconds"], events, now)
        if p["type"] == "Pods":
            proposed = start + p["value"]
        else:
            proposed = int(math.ceil(start * (1 + p["value"] / 100)))
        result = min(result, proposed) if select == "Min" else max(result, proposed)
    return int(result)


def calculate_scale_down_limit_with_behaviors(current_replicas: int, events: list[ScaleEvent], rules: dict,
                                              now: float) -> int:
    """``calculateScaleDownLimitWithBehaviors``: the fewest replicas the scale-down policies allow now.

    Examples
    --------
    >>> calculate_scale_down_limit_with_behaviors(8, [], default_behavior()["scaleDown"], 0.0)   # 100 %: down to 0
    0
    """
    select = rules.get("selectPolicy", "Max")
    if select == "Disabled":
        return current_replicas
    result = -math.inf if select == "Min" else math.inf
    for p in rules.get("policies") or []:
        start = current_replicas + _change_in_period(p["periodSeconds"], events, now)
        if p["type"] == "Pods":
            proposed = start - p["value"]
        else:
            proposed = int(start * (1 - p["value"] / 100))
        result = max(result, proposed) if select == "Min" else min(result, proposed)
    return int(result)


def default_behavior(behavior: dict | None = None) -> dict:
    """``GenerateHPAScaleUpRules``/``GenerateHPAScaleDownRules``: fill unset fields of a ``behavior``.

    Scale up: window 0 s, policies 4 Pods / 15 s and 100 Percent / 15 s,
    ``selectPolicy: Max``. Scale down: window unset (the controller's 300 s),
    100 Percent / 15 s, ``Max``.
    """
    b = deep_copy(behavior or {})
    up = b.get("scaleUp") or {}
    up.setdefault("stabilizationWindowSeconds", 0)
    up.setdefault("selectPolicy", "Max")
    if not up.get("policies"):
        up["policies"] = [{"type": "Pods", "value": 4, "periodSeconds": 15},
                          {"type": "Percent", "value": 100, "periodSeconds": 15}]
    down = b.get("scaleDown") or {}
    down.setdefault("selectPolicy", "Max")
    if not down.get("policies"):
        down["policies"] = [{"type": "Percent", "value": 100, "periodSeconds": 15}]
    b["scaleUp"], b["scaleDown"] = up, down
    return b


@dataclass
class _Rec:
    recommendation: int
    timestamp: float


@dataclass
class _State:
    recommendations: list[_Rec] = field(default_factory=list)
    scale_up_events: list[ScaleEvent] = field(default_factory=list)
    scale_down_events: list[ScaleEvent] = field(default_factory=list)


class HorizontalController(Controller):
    """``podautoscaler.HorizontalController``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    The metric comes from the scenario (see the module docstring), not from
    metrics APIs. Pods count as ready or unready by their Ready condition
    (upstream also treats CPU samples taken in a pod's first 5 minutes or
    30 s after readiness specially); pods are assumed to have equal requests.
    Only the first metric of ``spec.metrics`` is evaluated; Object and
    External metrics, ContainerResource and ``observedGeneration`` are not
    modelled. The RESTMapper is read live (upstream's is a discovery cache
    reset every 30 s). ``FailedComputeMetricsReplicas`` is recorded for a
    missing or unparsable selector only (upstream also records it when every
    metric fails); the ``AmbiguousSelector`` check (pods under two HPAs) is
    not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/horizontal.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
    ...       "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": {
    ...           "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    >>> hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    ...        "metadata": {"name": "web", "namespace": "default"},
    ...        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
    ...                 "minReplicas": 1, "maxReplicas": 10}}
    >>> c = Cluster([node, rs, hpa], controllers=["replicaset-controller", "horizontal-pod-autoscaler-controller"],
    ...             authorization=False)
    >>> c.metrics[("default", "web")] = 120.0   # average CPU utilization, percent of request (target 80)
    >>> c.run(until=16)
    >>> c.get("replicasets", "web", "default")["spec"]["replicas"]
    3
    """

    name = "horizontal-pod-autoscaler"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.sync_period = float(self.option("horizontal-pod-autoscaler-sync-period", DEFAULT_SYNC_PERIOD_SECONDS))
        self.tolerance = float(self.option("horizontal-pod-autoscaler-tolerance", DEFAULT_TOLERANCE))
        self.downscale_window = float(self.option("horizontal-pod-autoscaler-downscale-stabilization",
                                                  DEFAULT_DOWNSCALE_STABILIZATION_SECONDS))
        self.state: dict[str, _State] = {}
        self.hpas = self.informers.informer_for("horizontalpodautoscalers")
        self.pods = self.informers.informer_for("pods")
        self.hpas.add_event_handler(lambda o: self.enqueue_after(o, self.sync_period),
                                    lambda old, cur: self.enqueue_after(cur, self.sync_period),
                                    lambda o: None)

    # ------------------------------------------------------------ conditions
    def _set_condition(self, hpa: dict, ctype: str, status: str, reason: str, message: str) -> None:
        conds = hpa["status"].setdefault("conditions", [])
        now = self.client.server.timestamp()
        for c in conds:
            if c["type"] == ctype:
                if c.get("status") != status:
                    c["lastTransitionTime"] = now
                c.update(status=status, reason=reason, message=message)
                return
        conds.append({"type": ctype, "status": status, "lastTransitionTime": now, "reason": reason,
                      "message": message})

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``reconcileKey``/``reconcileAutoscaler``; always requeued after the sync period."""
        ns, name = split_key(key)
        shared = self.hpas.lister.get(ns, name)
        if shared is None:
            self.state.pop(key, None)
            return None
        hpa = deep_copy(shared)
        old_status = deep_copy(hpa.get("status") or {})
        hpa.setdefault("status", {})
        try:
            self._reconcile_autoscaler(key, hpa)
        finally:
            if hpa["status"] != old_status:
                try:
                    self.client.update_status("horizontalpodautoscalers", hpa, ns)
                except ApiError:
                    pass
        return Result(requeue_after_seconds=self.sync_period)

    def _metric_spec(self, hpa: dict) -> dict:
        metrics = (hpa.get("spec") or {}).get("metrics") or []
        if not metrics:
            return {"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}
        return metrics[0]

    def rest_mappings(self, api_version: str, kind: str) -> list[ResourceInfo]:
        """``RESTMapper.RESTMappings``: every served version of the target's group and kind, preferred first.

        Only the group of ``scaleTargetRef.apiVersion`` counts, as upstream
        maps a GroupKind: built-in kinds, then the custom resources the API
        server serves now (a CRD applied after the HPA is found on the next sync).

        Parameters
        ----------
        api_version : str
            ``scaleTargetRef.apiVersion`` (``apps/v1``, ``example.com/v1``).
        kind : str

        Returns
        -------
        list of ResourceInfo

        Raises
        ------
        ScaleTargetError
            For an apiVersion that is no group/version (``unexpected GroupVersion string: a/b/c``) or a kind no
            served resource has (``no matches for kind "Widget" in group "example.com"``).

        References
        ----------
        kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go (ParseGroupVersion)
        kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/meta/errors.go (NoKindMatchError)
        """
        if api_version.count("/") > 1:
            raise ScaleTargetError(f"unexpected GroupVersion string: {api_version}")
        group = api_version.split("/")[0] if "/" in api_version else ""
        found = [ri for ri in SERVED_RESOURCES if ri.group == group and ri.kind == kind]
        found += [ri for ri in self.client.server.crds.served() if ri.group == group and ri.kind == kind]
        if not found:
            raise ScaleTargetError(f'no matches for kind "{kind}" in group "{group}"')
        return found

    def scale_for_resource_mappings(self, namespace: str, name: str,
                                    mappings: list[ResourceInfo]) -> tuple[dict, ResourceInfo]:
        """``scaleForResourceMappings``: the first mapping whose ``scale`` subresource answers; else the first error.

        The scale client's ``GET <resource>/<name>/scale`` returns an
        ``autoscaling/v1`` Scale, for a custom resource read through its CRD's
        ``subresources.scale`` paths; a resource without a ``scale``
        subresource answers 404 as the API server's routes do.

        Raises
        ------
        ApiError
            The first mapping's error when none answers.
        """
        first: ApiError | None = None
        for ri in mappings:
            try:
                if "scale" not in ri.subresources:
                    raise ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                    "message": "the server could not find the requested resource",
                                    "reason": "NotFound", "details": {}, "code": 404})
                target = f"{ri.resource}.{ri.version}.{ri.group}" if ri.group else ri.resource
                return self.client.get(target, name, namespace, subresource="scale"), ri
            except ApiError as e:
                first = first or e
        raise first if first is not None else ScaleTargetError("unrecognized resource")

    def _reconcile_autoscaler(self, key: str, hpa: dict) -> None:
        spec, st = hpa.get("spec") or {}, hpa["status"]
        ref = spec.get("scaleTargetRef") or {}
        ns = hpa["metadata"]["namespace"]
        try:
            mappings = self.rest_mappings(ref.get("apiVersion") or "", ref.get("kind", ""))
            scale, ri = self.scale_for_resource_mappings(ns, ref.get("name", ""), mappings)
        except (ApiError, ScaleTargetError) as e:
            self._set_condition(hpa, "AbleToScale", "False", "FailedGetScale",
                                f"the HPA controller was unable to get the target's current scale: {e}")
            self.event(hpa, "Warning", "FailedGetScale", str(e))
            return
        self._set_condition(hpa, "AbleToScale", "True", "SucceededGetScale",
                            "the HPA controller was able to get the target's current scale")
        current = int(scale["spec"]["replicas"])
        min_replicas = int(spec.get("minReplicas", 1))
        max_replicas = int(spec.get("maxReplicas", 1))
        rescale_reason = ""
        metric_statuses = st.get("currentMetrics") or []
        desired = 0
        if current == 0 and min_replicas != 0:
            rescale = False
            self._set_condition(hpa, "ScalingActive", "False", "ScalingDisabled",
                                "scaling is disabled since the replica count of the target is zero")
        elif current > max_replicas:
            rescale_reason = "Current number of replicas above Spec.MaxReplicas"
            desired = max_replicas
            rescale = desired != current
        elif current < min_replicas:
            rescale_reason = "Current number of replicas below Spec.MinReplicas"
            desired = min_replicas
            rescale = desired != current
        else:
            computed = self._compute_replicas(hpa, scale, current)
            if computed is None:
                self._set_status(hpa, current, st.get("desiredReplicas", current), metric_statuses, False)
                return
            metric_desired, metric_name, metric_statuses = computed
            rescale_metric = ""
            if metric_desired > desired:
                desired = metric_desired
                rescale_metric = metric_name
            if desired > current:
                rescale_reason = f"{rescale_metric} above target"
            if desired < current:
                rescale_reason = "All metrics below target"
            if spec.get("behavior") is None:
                desired = self._normalize(hpa, key, current, desired, min_replicas)
            else:
                desired = self._normalize_with_behaviors(hpa, key, current, desired, min_replicas)
            rescale = desired != current
        if rescale:
            try:
                self._update_scale(ri, scale, desired)
            except ApiError as e:
                self.event(hpa, "Warning", "FailedRescale", f"New size: {desired}; reason: {rescale_reason}; "
                                                            f"error: {e}")
                self._set_condition(hpa, "AbleToScale", "False", "FailedUpdateScale",
                                    f"the HPA controller was unable to update the target scale: {e}")
                self._set_status(hpa, current, current, metric_statuses, False)
                return
            self._set_condition(hpa, "AbleToScale", "True", "SucceededRescale",
                                f"the HPA controller was able to update the target scale to {desired}")
            self.event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {rescale_reason}")
            self._store_scale_event(hpa, key, current, desired)
        else:
            desired = current
        self._set_status(hpa, current, desired, metric_statuses, rescale)

    def _update_scale(self, ri: ResourceInfo, scale: dict, desired: int) -> dict:
        """The scale client's ``Update``: the Scale as read (its resourceVersion too) with ``spec.replicas = desired``."""
        new = deep_copy(scale)
        new["spec"]["replicas"] = desired
        target = f"{ri.resource}.{ri.version}.{ri.group}" if ri.group else ri.resource
        return self.client.update(target, new, scale["metadata"].get("namespace"), subresource="scale")

    def _set_status(self, hpa: dict, current: int, desired: int, metric_statuses: list, rescale: bool) -> None:
        st = hpa["status"]
        st["currentReplicas"] = current
        st["desiredReplicas"] = desired
        if metric_statuses:
            st["currentMetrics"] = metric_statuses
        else:
            st.pop("currentMetrics", None)
        if rescale:
            st["lastScaleTime"] = self.client.server.timestamp()

    def _compute_replicas(self, hpa: dict, scale: dict, current: int) -> tuple[int, str, list] | None:
        """``computeReplicasForMetrics`` for the first metric; None when it could not be computed."""
        if not self._validate_selector(hpa, (scale.get("status") or {}).get("selector") or ""):
            return None
        ms = self._metric_spec(hpa)
        mtype = ms.get("type", "Resource")
        ns, name = hpa["metadata"]["namespace"], hpa["metadata"]["name"]
        value = self.ctx.metrics.get((ns, name))
        if mtype == "Resource":
            res = ms.get("resource") or {}
            rname = res.get("name", "cpu")
            target = res.get("target") or {}
            if value is None:
                self._set_condition(hpa, "ScalingActive", "False", "FailedGetResourceMetric",
                                    f"the HPA was unable to compute the replica count: failed to get {rname} "
                                    f"utilization: unable to get metrics for resource {rname}: no metrics returned "
                                    f"from resource metrics API")
                self.event(hpa, "Warning", "FailedGetResourceMetric",
                           f"failed to get {rname} utilization: unable to get metrics for resource {rname}: "
                           f"no metrics returned from resource metrics API")
                return None
            if target.get("type", "Utilization") == "Utilization":
                target_value = float(target.get("averageUtilization", DEFAULT_CPU_UTILIZATION))
                metric_name = f"{rname} resource utilization (percentage of request)"
                current_status = {"averageUtilization": int(round(value))}
            else:
                from kubenotes.api.quantity import parse_quantity

                target_value = _as_float(target.get("averageValue"), parse_quantity)
                metric_name = f"{rname} resource"
                current_status = {"averageValue": _format_value(value)}
            status = [{"type": "Resource", "resource": {"name": rname, "current": current_status}}]
        elif mtype == "Pods":
            pods_m = ms.get("pods") or {}
            mname = (pods_m.get("metric") or {}).get("name", "")
            rname = mname
            if value is None:
                self._set_condition(hpa, "ScalingActive", "False", "FailedGetPodsMetric",
                                    f"the HPA was unable to compute the replica count: unable to get metric {mname}: "
                                    f"no metrics returned from custom metrics API")
                return None
            from kubenotes.api.quantity import parse_quantity

            target_value = _as_float((pods_m.get("target") or {}).get("averageValue"), parse_quantity)
            metric_name = f"pods metric {mname}"
            status = [{"type": "Pods", "pods": {"metric": {"name": mname},
                                                "current": {"averageValue": _format_value(value)}}}]
        else:
            self._set_condition(hpa, "ScalingActive", "False", "InvalidMetricSourceType",
                                f"the HPA was unable to compute the replica count: unknown metric source type "
                                f'"{mtype}"')
            return None
        ready, unready = self._count_pods(scale, rname if mtype == "Resource" else "")
        if ready == 0 or target_value <= 0:
            what = f"{rname} utilization" if mtype == "Resource" else "pods metric value"
            err = f"failed to get {what}: did not receive metrics for targeted pods (pods might be unready)"
            reason = "FailedGetResourceMetric" if mtype == "Resource" else "FailedGetPodsMetric"
            self._set_condition(hpa, "ScalingActive", "False", reason,
                                f"the HPA was unable to compute the replica count: {err}")
            self.event(hpa, "Warning", reason, err)
            return None
        ratio = value / target_value
        desired = usage_ratio_replicas(ready, ratio, self.tolerance, unready, current)
        self._set_condition(hpa, "ScalingActive", "True", "ValidMetricFound",
                            f"the HPA was able to successfully calculate a replica count from {metric_name}")
        return desired, metric_name, status

    def _validate_selector(self, hpa: dict, selector: str) -> bool:
        """``validateAndParseSelector``: the target's Scale must carry a selector that parses.

        Else a ``SelectorRequired`` or ``InvalidSelector`` Event, ScalingActive
        False with reason ``InvalidSelector``, and the reconcile's
        ``FailedComputeMetricsReplicas`` Event with the same error.
        """
        from kubenotes.api.selectors import parse_selector
        from kubenotes.errors import FieldError

        if not selector:
            err = "selector is required"
            self.event(hpa, "Warning", "SelectorRequired", err)
            self._set_condition(hpa, "ScalingActive", "False", "InvalidSelector",
                                "the HPA target's scale is missing a selector")
        else:
            try:
                parse_selector(selector)
                return True
            except FieldError as e:
                err = f"couldn't convert selector into a corresponding internal selector object: {e}"
            self.event(hpa, "Warning", "InvalidSelector", err)
            self._set_condition(hpa, "ScalingActive", "False", "InvalidSelector", err)
        self.event(hpa, "Warning", "FailedComputeMetricsReplicas", err)
        return False

    def _count_pods(self, scale: dict, resource: str = "cpu") -> tuple[int, int]:
        """``groupPods``: (pods with a usable metric, unready pods) among the target's pods.

        Deleted and Failed pods are ignored; Pending pods are unready; for
        CPU a running pod that is not Ready is unready too (upstream also
        looks at how recently it started and turned ready).
        """
        from kubenotes.api.selectors import parse_selector

        sel_text = (scale.get("status") or {}).get("selector") or ""
        if not sel_text:
            return 0, 0
        sel = parse_selector(sel_text)
        ready = unready = 0
        for p in self.pods.lister.list(scale["metadata"].get("namespace")):
            if not sel.matches(p["metadata"].get("labels") or {}):
                continue
            if p["metadata"].get("deletionTimestamp") or (p.get("status") or {}).get("phase") == "Failed":
                continue
            phase = (p.get("status") or {}).get("phase")
            if phase == "Pending" or (resource == "cpu" and not is_pod_ready(p)):
                unready += 1
            elif phase == "Running":
                ready += 1
        return ready, unready

    # ------------------------------------------------------------ normalisation
    def _normalize(self, hpa: dict, key: str, current: int, prenormalized: int, min_replicas: int) -> int:
        """``normalizeDesiredReplicas`` (no ``behavior``): 5-minute downscale stabilization, then the rules."""
        stabilized = self._stabilize(key, prenormalized)
        if stabilized != prenormalized:
            self._set_condition(hpa, "AbleToScale", "True", "ScaleDownStabilized",
                                "recent recommendations were higher than current one, applying the highest recent "
                                "recommendation")
        else:
            self._set_condition(hpa, "AbleToScale", "True", "ReadyForNewScale",
                                "recommended size matches current size")
        desired, cond, reason = convert_desired_replicas_with_rules(current, stabilized, min_replicas,
                                                                    int(hpa["spec"].get("maxReplicas", 1)))
        self._set_condition(hpa, "ScalingLimited", "False" if desired == stabilized else "True", cond, reason)
        return desired

    def _stabilize(self, key: str, prenormalized: int) -> int:
        state = self.state.setdefault(key, _State())
        now = float(self.env.now)
        cutoff = now - self.downscale_window
        best = prenormalized
        old_index = -1
        for i, rec in enumerate(state.recommendations):
            if rec.timestamp < cutoff:
                old_index = i
            elif rec.recommendation > best:
                best = rec.recommendation
        if old_index >= 0:
            state.recommendations[old_index] = _Rec(prenormalized, now)
        else:
            state.recommendations.append(_Rec(prenormalized, now))
        return best

    def _normalize_with_behaviors(self, hpa: dict, key: str, current: int, prenormalized: int,
                                  min_replicas: int) -> int:
        """``normalizeDesiredReplicasWithBehaviors``: windows per direction, then rate policies."""
        behavior = default_behavior(hpa["spec"].get("behavior"))
        up, down = behavior["scaleUp"], behavior["scaleDown"]
        down_window = down.get("stabilizationWindowSeconds")
        down_window = self.downscale_window if down_window is None else float(down_window)
        stabilized, reason, message = self._stabilize_with_behaviors(key, current, prenormalized,
                                                                     float(up["stabilizationWindowSeconds"]),
                                                                     down_window)
        if stabilized != prenormalized:
            self._set_condition(hpa, "AbleToScale", "True", reason, message)
        else:
            self._set_condition(hpa, "AbleToScale", "True", "ReadyForNewScale",
                                "recommended size matches current size")
        desired, reason, message = self._convert_with_behavior_rate(key, current, stabilized, min_replicas,
                                                                    int(hpa["spec"].get("maxReplicas", 1)), up, down)
        self._set_condition(hpa, "ScalingLimited", "False" if desired == stabilized else "True", reason, message)
        return desired

    def _stabilize_with_behaviors(self, key: str, current: int, desired: int, up_window: float,
                                  down_window: float) -> tuple[int, str, str]:
        state = self.state.setdefault(key, _State())
        now = float(self.env.now)
        up_cutoff, down_cutoff = now - up_window, now - down_window
        up_rec = down_rec = desired
        old_index = -1
        for i, rec in enumerate(state.recommendations):
            if rec.timestamp > up_cutoff:
                up_rec = min(rec.recommendation, up_rec)
            if rec.timestamp > down_cutoff:
                down_rec = max(rec.recommendation, down_rec)
            if rec.timestamp < up_cutoff and rec.timestamp < down_cutoff:
                old_index = i
        recommendation = current
        if recommendation < up_rec:
            recommendation = up_rec
        if recommendation > down_rec:
            recommendation = down_rec
        if old_index >= 0:
            state.recommendations[old_index] = _Rec(desired, now)
        else:
            state.recommendations.append(_Rec(desired, now))
        if desired >= current:
            return recommendation, "ScaleUpStabilized", ("recent recommendations were lower than current one, "
                                                         "applying the lowest recent recommendation")
        return recommendation, "ScaleDownStabilized", ("recent recommendations were higher than current one, "
                                                       "applying the highest recent recommendation")

    def _convert_with_behavior_rate(self, key: str, current: int, desired: int, min_replicas: int,
                                    max_replicas: int, up: dict, down: dict) -> tuple[int, str, str]:
        state = self.state.setdefault(key, _State())
        now = float(self.env.now)
        if desired > current:
            limit = calculate_scale_up_limit_with_scaling_rules(current, state.scale_up_events, up, now)
            limit = max(limit, current)
            maximum = max_replicas
            if maximum > limit:
                maximum, reason, message = limit, "ScaleUpLimit", \
                    "the desired replica count is increasing faster than the maximum scale rate"
            else:
                reason, message = "TooManyReplicas", "the desired replica count is more than the maximum replica count"
            if desired > maximum:
                return maximum, reason, message
        elif desired < current:
            limit = calculate_scale_down_limit_with_behaviors(current, state.scale_down_events, down, now)
            limit = min(limit, current)
            minimum = min_replicas
            if minimum < limit:
                minimum, reason, message = limit, "ScaleDownLimit", \
                    "the desired replica count is decreasing faster than the maximum scale rate"
            else:
                reason, message = "TooFewReplicas", "the desired replica count is less than the minimum replica count"
            if desired < minimum:
                return minimum, reason, message
        return desired, "DesiredWithinRange", "the desired count is within the acceptable range"

    def _store_scale_event(self, hpa: dict, key: str, prev: int, new: int) -> None:
        """``storeScaleEvent``: remember the change for the rate policies (only with ``behavior``)."""
        behavior = hpa["spec"].get("behavior")
        if behavior is None:
            return
        behavior = default_behavior(behavior)
        state = self.state.setdefault(key, _State())
        now = float(self.env.now)
        if new > prev:
            events, rules, change = state.scale_up_events, behavior["scaleUp"], new - prev
        else:
            events, rules, change = state.scale_down_events, behavior["scaleDown"], prev - new
        longest = max((p["periodSeconds"] for p in rules.get("policies") or []), default=0)
        for e in events:
            if e.timestamp < now - longest:
                e.outdated = True
        for i, e in enumerate(events):
            if e.outdated:
                events[i] = ScaleEvent(change, now)
                return
        events.append(ScaleEvent(change, now))


def _as_float(q: Any, parse_quantity: Any) -> float:
    if q is None:
        return 0.0
    if isinstance(q, (int, float)):
        return float(q)
    return float(parse_quantity(str(q)))


def _format_value(v: float) -> str:
    """A quantity string: whole numbers as is, else milli-units (``"250m"``)."""
    if float(v).is_integer():
        return str(int(v))
    return f"{int(round(v * 1000))}m"
