"""Conversion between the served versions of one resource's data (the storage codec's job).

Two resources of v1.34's default API are served in a version other than the
one their objects are stored in:

- ``autoscaling/v1`` HorizontalPodAutoscalers, stored as ``autoscaling/v2``.
  v1 has only a CPU utilization target: the v2 ``Resource`` metric for ``cpu``
  with an ``averageUtilization`` target becomes ``targetCPUUtilizationPercentage``
  (and the current CPU utilization ``currentCPUUtilizationPercentage``); every
  other metric, the current metrics, the conditions and the behavior travel in
  the ``autoscaling.alpha.kubernetes.io/*`` annotations as JSON, in v1's metric
  shapes, and come back from them;
- ``events.k8s.io/v1`` Events, stored as core ``v1`` Events under
  ``/registry/events``: ``regarding`` is ``involvedObject``, ``note`` is
  ``message``, ``reportingController`` is ``reportingComponent``, and the
  ``deprecated*`` fields are the core Event's ``source``, ``firstTimestamp``,
  ``lastTimestamp`` and ``count``.

:func:`convert` turns an object of either served version into the other; the
store (:mod:`kubenotes.apiserver.store`) keeps the storage form and converts
what it hands out to the version a request asked for.

Notes
-----
Simplified against upstream: the conversion works on the JSON form directly
(upstream goes through the internal version), and v1's annotations hold the
JSON the model writes, field for field as upstream's.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/autoscaling/v1/conversion.go
kubernetes/kubernetes@v1.34.0 pkg/apis/autoscaling/annotations.go (the annotation keys)
kubernetes/kubernetes@v1.34.0 pkg/apis/events/v1/conversion.go
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/default_storage_factory_builder.go (events cohabiting with core events)
"""

from __future__ import annotations

import json
from copy import deepcopy as deep_copy
from typing import Any

__all__ = ["convert", "register_none_conversion", "METRIC_SPECS_ANNOTATION", "METRIC_STATUSES_ANNOTATION", "CONDITIONS_ANNOTATION",
           "BEHAVIOR_ANNOTATION"]

#: ``autoscaling.MetricSpecsAnnotation``: the v2 metrics v1 cannot express, as v1 ``MetricSpec`` JSON.
METRIC_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
#: ``autoscaling.MetricStatusesAnnotation``: the current metrics beside CPU utilization.
METRIC_STATUSES_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
#: ``autoscaling.HorizontalPodAutoscalerConditionsAnnotation``: ``status.conditions``.
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
#: ``autoscaling.BehaviorSpecsAnnotation``: ``spec.behavior``.
BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"

_HPA_ANNOTATIONS = (METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION)

# v1 MetricSpec/MetricStatus source fields <-> v2 paths, by metric type (the v1 source's field name is the
# type's lowerCamel spelling in both versions).
_SPEC_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "Object": (("target", ("describedObject",)), ("metricName", ("metric", "name")),
               ("selector", ("metric", "selector")), ("targetValue", ("target", "value")),
               ("averageValue", ("target", "averageValue"))),
    "Pods": (("metricName", ("metric", "name")), ("selector", ("metric", "selector")),
             ("targetAverageValue", ("target", "averageValue"))),
    "Resource": (("name", ("name",)), ("targetAverageUtilization", ("target", "averageUtilization")),
                 ("targetAverageValue", ("target", "averageValue"))),
    "ContainerResource": (("name", ("name",)), ("container", ("container",)),
                          ("targetAverageUtilization", ("target", "averageUtilization")),
                          ("targetAverageValue", ("target", "averageValue"))),
    "External": (("metricName", ("metric", "name")), ("metricSelector", ("metric", "selector")),
                 ("targetValue", ("target", "value")), ("targetAverageValue", ("target", "averageValue"))),
}
_STATUS_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "Object": (("target", ("describedObject",)), ("metricName", ("metric", "name")),
               ("selector", ("metric", "selector")), ("currentValue", ("current", "value")),
               ("averageValue", ("current", "averageValue"))),
    "Pods": (("metricName", ("metric", "name")), ("selector", ("metric", "selector")),
             ("currentAverageValue", ("current", "averageValue"))),
    "Resource": (("name", ("name",)), ("currentAverageUtilization", ("current", "averageUtilization")),
                 ("currentAverageValue", ("current", "averageValue"))),
    "ContainerResource": (("name", ("name",)), ("container", ("container",)),
                          ("currentAverageUtilization", ("current", "averageUtilization")),
                          ("currentAverageValue", ("current", "averageValue"))),
    "External": (("metricName", ("metric", "name")), ("metricSelector", ("metric", "selector")),
                 ("currentValue", ("current", "value")), ("currentAverageValue", ("current", "averageValue"))),
}


def _source_key(metric_type: str) -> str:
    return metric_type[0].lower() + metric_type[1:]


def _get(d: dict, path: tuple[str, ...]) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _put(d: dict, path: tuple[str, ...], value: Any) -> None:
    for p in path[:-1]:
        d = d.setdefault(p, {})
    d[path[-1]] = value


def _metric_to_v1(m: dict, fields: dict) -> dict:
    t = m.get("type", "")
    src = m.get(_source_key(t)) or {}
    out: dict = {}
    for v1_name, path in fields.get(t, ()):
        v = _get(src, path)
        if v is not None:
            out[v1_name] = deep_copy(v)
    return {"type": t, _source_key(t): out}


def _metric_to_v2(m: dict, fields: dict, target_key: str) -> dict:
    t = m.get("type", "")
    src = m.get(_source_key(t)) or {}
    out: dict = {}
    for v1_name, path in fields.get(t, ()):
        if v1_name in src:
            _put(out, path, deep_copy(src[v1_name]))
    if target_key == "target" and t in _SPEC_FIELDS:  # v2's MetricTarget names its type
        target = out.setdefault("target", {})
        target["type"] = ("Utilization" if "averageUtilization" in target else
                          "AverageValue" if "averageValue" in target else "Value")
    return {"type": t, _source_key(t): out}


def _is_cpu_utilization(m: dict, key: str) -> bool:
    res = m.get("resource") or {}
    return (m.get("type") == "Resource" and res.get("name") == "cpu"
            and (res.get(key) or {}).get("averageUtilization") is not None)


def _hpa_to_v1(obj: dict) -> dict:
    out = deep_copy(obj)
    out["apiVersion"] = "autoscaling/v1"
    spec = out.get("spec") or {}
    status = out.get("status")
    anns = dict((out.get("metadata") or {}).get("annotations") or {})
    metrics = spec.pop("metrics", None) or []
    others = []
    for m in metrics:
        if _is_cpu_utilization(m, "target"):
            spec["targetCPUUtilizationPercentage"] = m["resource"]["target"]["averageUtilization"]
        else:
            others.append(_metric_to_v1(m, _SPEC_FIELDS))
    if others:
        anns[METRIC_SPECS_ANNOTATION] = json.dumps(others, separators=(",", ":"))
    behavior = spec.pop("behavior", None)
    if behavior is not None:
        anns[BEHAVIOR_ANNOTATION] = json.dumps(behavior, separators=(",", ":"))
    if status is not None:
        current = status.pop("currentMetrics", None) or []
        other_current = []
        for m in current:
            if _is_cpu_utilization(m, "current"):
                status["currentCPUUtilizationPercentage"] = m["resource"]["current"]["averageUtilization"]
            else:
                other_current.append(_metric_to_v1(m, _STATUS_FIELDS))
        if other_current:
            anns[METRIC_STATUSES_ANNOTATION] = json.dumps(other_current, separators=(",", ":"))
        conditions = status.pop("conditions", None)
        if conditions:
            anns[CONDITIONS_ANNOTATION] = json.dumps(conditions, separators=(",", ":"))
    if anns:
        out.setdefault("metadata", {})["annotations"] = anns
    return out


def _hpa_to_v2(obj: dict) -> dict:
    out = deep_copy(obj)
    out["apiVersion"] = "autoscaling/v2"
    md = out.setdefault("metadata", {})
    anns = dict(md.get("annotations") or {})
    spec = out.setdefault("spec", {})
    cpu = spec.pop("targetCPUUtilizationPercentage", None)
    metrics = [_metric_to_v2(m, _SPEC_FIELDS, "target") for m in json.loads(anns.pop(METRIC_SPECS_ANNOTATION, "[]"))]
    if cpu is not None:
        metrics.append({"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": cpu}}})
    if metrics:
        spec["metrics"] = metrics
    if BEHAVIOR_ANNOTATION in anns:
        spec["behavior"] = json.loads(anns.pop(BEHAVIOR_ANNOTATION))
    status = out.get("status")
    current = [_metric_to_v2(m, _STATUS_FIELDS, "current")
               for m in json.loads(anns.pop(METRIC_STATUSES_ANNOTATION, "[]"))]
    conditions = json.loads(anns.pop(CONDITIONS_ANNOTATION, "[]"))
    if status is not None or current or conditions:
        status = out.setdefault("status", {})
        cpu_now = status.pop("currentCPUUtilizationPercentage", None)
        if cpu_now is not None:
            current.append({"type": "Resource", "resource": {"name": "cpu", "current": {
                "averageUtilization": cpu_now}}})
        if current:
            status["currentMetrics"] = current
        if conditions:
            status["conditions"] = conditions
    if anns:
        md["annotations"] = anns
    else:
        md.pop("annotations", None)
    return out


# events.k8s.io/v1 field <-> core v1 field
_EVENT_FIELDS = (("regarding", "involvedObject"), ("note", "message"), ("reportingController", "reportingComponent"),
                 ("deprecatedSource", "source"), ("deprecatedFirstTimestamp", "firstTimestamp"),
                 ("deprecatedLastTimestamp", "lastTimestamp"), ("deprecatedCount", "count"))


def _rename(obj: dict, api_version: str, pairs: tuple[tuple[str, str], ...]) -> dict:
    out = deep_copy(obj)
    out["apiVersion"] = api_version
    for old, new in pairs:
        out.pop(new, None)
    for old, new in pairs:
        if old in obj:
            out.pop(old, None)
            out[new] = deep_copy(obj[old])
    return out


_CONVERSIONS = {
    ("autoscaling/v2", "autoscaling/v1", "HorizontalPodAutoscaler"): _hpa_to_v1,
    ("autoscaling/v1", "autoscaling/v2", "HorizontalPodAutoscaler"): _hpa_to_v2,
    ("v1", "events.k8s.io/v1", "Event"): lambda o: _rename(o, "events.k8s.io/v1",
                                                          tuple((b, a) for a, b in _EVENT_FIELDS)),
    ("events.k8s.io/v1", "v1", "Event"): lambda o: _rename(o, "v1", _EVENT_FIELDS),
}


def convert(obj: dict, api_version: str) -> dict:
    """``obj`` in ``api_version``: a converted copy, or ``obj`` itself when it is in that version already.

    Parameters
    ----------
    obj : dict
        A HorizontalPodAutoscaler (autoscaling/v1 or v2) or an Event (core v1 or events.k8s.io/v1);
        any other object must already be in ``api_version``.
    api_version : str
        The version wanted.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        For a pair of versions with no conversion (a kind served in one version only).

    Examples
    --------
    >>> hpa = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
    ...        "spec": {"maxReplicas": 5, "targetCPUUtilizationPercentage": 50}}
    >>> convert(hpa, "autoscaling/v2")["spec"]["metrics"]
    [{'type': 'Resource', 'resource': {'name': 'cpu', 'target': {'type': 'Utilization', 'averageUtilization': 50}}}]
    >>> convert(convert(hpa, "autoscaling/v2"), "autoscaling/v1") == hpa
    True
    >>> ev = convert({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "message": "Pulled",
    ...               "involvedObject": {"kind": "Pod", "name": "web"}, "reason": "Pulled"}, "events.k8s.io/v1")
    >>> ev["note"], ev["regarding"]["name"], "message" in ev
    ('Pulled', 'web', False)
    """
    have = obj.get("apiVersion", api_version)
    if have == api_version:
        return obj
    fn = _CONVERSIONS.get((have, api_version, obj.get("kind", "")))
    if fn is None:
        raise ValueError(f'no conversion of {obj.get("kind")} from "{have}" to "{api_version}"')
    return fn(obj)


def register_none_conversion(api_versions: "list[str] | tuple[str, ...]", kind: str) -> None:
    """Let :func:`convert` move ``kind`` between ``api_versions`` by rewriting ``apiVersion`` only.

    What a CustomResourceDefinition's ``conversion.strategy: None`` does: the
    fields stay as they are. Called by
    :mod:`kubenotes.apiserver.apiextensions.registry` for each CRD served in
    more than one version.

    Examples
    --------
    >>> register_none_conversion(["example.com/v1", "example.com/v2"], "Widget")
    >>> convert({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"a": 1}}, "example.com/v2")
    {'apiVersion': 'example.com/v2', 'kind': 'Widget', 'spec': {'a': 1}}
    """
    def rewrite(target: str) -> Any:
        def fn(o: dict) -> dict:
            out = dict(o)
            out["apiVersion"] = target
            return out
        return fn

    for a in api_versions:
        for b in api_versions:
            if a != b:
                _CONVERSIONS.setdefault((a, b, kind), rewrite(b))

