"""The v1.34 schema: which model classes kubenotes decodes with, and the fields they wrongly require.

Objects are checked against lightkube's generated model classes
(``lightkube-models``), pinned to the 1.34 series in ``pyproject.toml``: their
fields are v1.34's, so a field added after v1.34 (``spec.volumes[].emptyDir.mode``)
is an unknown field, refused under strict field validation as a v1.34 API
server refuses it (:mod:`kubenotes.apiserver.fieldvalidation`).

The generated classes mark a field required whenever upstream's OpenAPI does,
but a v1.34 API server never refuses a body for a missing field at decoding:
Go's JSON decoder leaves a non-pointer field at its zero value and the
defaulting functions fill some of them. Where that zero value or default is
then accepted, a missing field must not be refused here either.
:func:`fill_required_defaults` writes those values into the raw object before
the class sees it, as upstream's decoder and defaulters would:

- ``PodFailurePolicyOnPodConditionsPattern.status``: ``"True"`` (``SetDefaults_Job``, batch/v1 defaults.go);
- ``PriorityClass.value``: 0 (``int32`` without omitempty);
- ``SleepAction.seconds``: 0 (zero is allowed, PodLifecycleSleepActionAllowZero is GA);
- ``ISCSIVolumeSource.lun`` and ``ISCSIPersistentVolumeSource.lun``: 0 (validation allows 0..255);
- ``ControllerRevision.revision``: 0 (validation allows >= 0);
- the status counts: ``PodDisruptionBudgetStatus`` (``currentHealthy``, ``desiredHealthy``,
  ``disruptionsAllowed``, ``expectedPods``), ``DaemonSetStatus`` (``currentNumberScheduled``,
  ``desiredNumberScheduled``, ``numberMisscheduled``, ``numberReady``), ``replicas`` of
  ``ReplicaSetStatus``, ``StatefulSetStatus``, ``ReplicationControllerStatus`` and ``ScaleStatus``,
  ``HorizontalPodAutoscalerStatus`` (``currentReplicas``, ``desiredReplicas``): 0;
- ``ContainerStatus`` ``ready`` (false), ``restartCount`` (0), ``image`` and ``imageID`` (""), and
  ``ContainerStateTerminated.exitCode`` (0): what the kubelet always writes;
- every ``NodeSystemInfo`` string (``machineID``, ``bootID``...): "";
- ``DaemonEndpoint.Port`` (0), ``VolumeAttachmentStatus.attached`` (false), ``ResourcePool.generation`` (0).

Every other field the classes require is one v1.34's validation requires too
(a container's ``name``, a Service port's ``port``, a taint's ``effect``...),
so refusing it as ``Required value`` at decoding gives the verdict the API
server gives. Left as required although upstream's
documentation mentions a default: ``ContainerResizePolicy.restartPolicy`` (no
defaulting function fills an entry's policy; the default the documentation
names is for a container without the entry), ``TopologySpreadConstraint``
``maxSkew``/``whenUnsatisfiable`` and the ``type`` of ``SeccompProfile`` and
``AppArmorProfile`` (validation requires them).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/batch/v1/defaults.go (SetDefaults_Job)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api (the Go types: pointer and omitempty fields)
kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go
https://github.com/gtsystem/lightkube-models (the generated classes)
"""

from __future__ import annotations

from typing import Any

import msgspec.inspect as _mi

__all__ = ["SCHEMA_SERIES", "REQUIRED_DEFAULTS", "fill_required_defaults", "go_json_kind", "models_version"]

#: The Kubernetes minor the model classes must come from (``lightkube-models`` 1.34.x).
SCHEMA_SERIES = "1.34"

_STATUS_COUNTS = {
    "PodDisruptionBudgetStatus": ("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"),
    "DaemonSetStatus": ("currentNumberScheduled", "desiredNumberScheduled", "numberMisscheduled", "numberReady"),
    "ReplicaSetStatus": ("replicas",), "StatefulSetStatus": ("replicas",),
    "ReplicationControllerStatus": ("replicas",), "ScaleStatus": ("replicas",),
    "HorizontalPodAutoscalerStatus": ("currentReplicas", "desiredReplicas"),
}

#: ``(model class name, JSON field) -> value`` written when the field is missing (see the module docstring).
#: For autoscaling/v2's ``HorizontalPodAutoscalerStatus`` only the fields its class requires are filled.
REQUIRED_DEFAULTS: dict[tuple[str, str], Any] = {
    ("PodFailurePolicyOnPodConditionsPattern", "status"): "True",
    ("PriorityClass", "value"): 0,
    ("SleepAction", "seconds"): 0,
    ("ISCSIVolumeSource", "lun"): 0,
    ("ISCSIPersistentVolumeSource", "lun"): 0,
    ("ControllerRevision", "revision"): 0,
    **{(cls, f): 0 for cls, fields in _STATUS_COUNTS.items() for f in fields},
    ("ContainerStatus", "ready"): False,
    ("ContainerStatus", "restartCount"): 0,
    ("ContainerStatus", "image"): "",
    ("ContainerStatus", "imageID"): "",
    ("ContainerStateTerminated", "exitCode"): 0,
    **{("NodeSystemInfo", f): "" for f in (
        "architecture", "bootID", "containerRuntimeVersion", "kernelVersion", "kubeProxyVersion",
        "kubeletVersion", "machineID", "operatingSystem", "osImage", "systemUUID")},
    ("DaemonEndpoint", "Port"): 0,
    ("VolumeAttachmentStatus", "attached"): False,
    ("ResourcePool", "generation"): 0,
}


def go_json_kind(v: Any) -> str:
    """The JSON type of a decoded value as Go's ``encoding/json`` names it in an ``UnmarshalTypeError``.

    Parameters
    ----------
    v : object
        A value as ``json.loads`` or YAML gives it.

    Returns
    -------
    str
        ``bool``, ``number``, ``string``, ``array``, ``object`` or ``null``.

    References
    ----------
    golang/go src/encoding/json/decode.go (UnmarshalTypeError.Value: "bool", "number", "string", "array",
    "object")

    Examples
    --------
    >>> [go_json_kind(v) for v in (True, 3, 1.5, "x", [1], {"a": 1}, None)]
    ['bool', 'number', 'number', 'string', 'array', 'object', 'null']
    """
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null" if v is None else type(v).__name__


def models_version() -> str:
    """The installed ``lightkube-models`` version (``1.34.0.8``).

    Returns
    -------
    str

    Examples
    --------
    >>> models_version().startswith(SCHEMA_SERIES + ".")
    True
    """
    from importlib.metadata import version

    return version("lightkube-models")


# class -> (fields to fill: JSON name -> value, fields to descend: JSON name -> resolved type)
_PLANS: dict[type, tuple[dict[str, Any], dict[str, Any]]] = {}
_INFO: dict[type, Any] = {}


def _resolved(t: Any) -> Any:
    if isinstance(t, _mi.UnionType):
        for s in t.types:
            if not isinstance(s, _mi.NoneType):
                return _resolved(s)
        return None
    return t


def _reaches(t: Any, seen: frozenset = frozenset()) -> bool:
    """Whether a value of type ``t`` can hold a struct with a field to fill."""
    t = _resolved(t)
    if isinstance(t, (_mi.ListType, _mi.DictType)):
        return _reaches(t.item_type if isinstance(t, _mi.ListType) else t.value_type, seen)
    if not isinstance(t, _mi.StructType) or t.cls in seen:
        return False
    fill, descend = _plan(t)
    return bool(fill or descend)


def _plan(t: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    got = _PLANS.get(t.cls)
    if got is None:
        _PLANS[t.cls] = ({}, {})  # a recursive type (JSONSchemaProps) reaches itself: empty while planned
        name = t.cls.__name__
        fill = {f.encode_name: REQUIRED_DEFAULTS[(name, f.encode_name)] for f in t.fields
                if f.required and (name, f.encode_name) in REQUIRED_DEFAULTS}
        descend = {}
        for f in t.fields:
            ft = _resolved(f.type)
            if isinstance(ft, (_mi.StructType, _mi.ListType, _mi.DictType)) and _reaches(ft, frozenset({t.cls})):
                descend[f.encode_name] = ft
        got = _PLANS[t.cls] = (fill, descend)
    return got


def _fill(t: Any, value: Any) -> None:
    if value is None:
        return
    if isinstance(t, _mi.StructType):
        if not isinstance(value, dict):
            return
        fill, descend = _plan(t)
        for k, v in fill.items():
            if k not in value:
                value[k] = v
        for k, st in descend.items():
            sub = value.get(k)
            if sub is not None:
                _fill(st, sub)
    elif isinstance(t, _mi.ListType) and isinstance(value, list):
        it = _resolved(t.item_type)
        for item in value:
            _fill(it, item)
    elif isinstance(t, _mi.DictType) and isinstance(value, dict):
        vt = _resolved(t.value_type)
        for item in value.values():
            _fill(vt, item)


def fill_required_defaults(data: Any, cls: type) -> Any:
    """Write, in place, the values upstream gives to fields the model class requires (see the module table).

    Parameters
    ----------
    data : dict
        The raw object (JSON-shaped), before ``cls.from_dict``; other values are returned untouched.
    cls : type
        Its lightkube class (``lightkube.resources.batch_v1.Job``...).

    Returns
    -------
    dict
        ``data`` itself.

    Examples
    --------
    >>> from lightkube.resources.batch_v1 import Job
    >>> job = {"spec": {"template": {"spec": {"containers": []}}, "podFailurePolicy": {"rules": [
    ...     {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}}
    >>> fill_required_defaults(job, Job)["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"]
    [{'type': 'DisruptionTarget', 'status': 'True'}]
    >>> from lightkube.resources.scheduling_v1 import PriorityClass
    >>> fill_required_defaults({"metadata": {"name": "low"}}, PriorityClass)["value"]
    0
    """
    if not isinstance(data, dict):
        return data
    info = _INFO.get(cls)
    if info is None:
        info = _INFO[cls] = _mi.type_info(cls)
    _fill(info, data)
    return data
