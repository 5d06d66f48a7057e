"""Object validation: the 422 Invalid the API server answers, with upstream's field errors.

:func:`validate_create` and :func:`validate_update` are what the registry
strategies' ``Validate`` and ``ValidateUpdate`` call: they return
``StatusCause`` dicts (:func:`~kubenotes.apiserver.status.field_cause`) whose
``message`` is the full ``field.Error`` text, e.g. ``metadata.name: Invalid
value: "UPPER_case": a lowercase RFC 1123 subdomain must consist of ...``.
Values print as v1.34's ``field.Error`` prints them: strings quoted, numbers
and booleans plain, anything else as compact JSON (maps with sorted keys).

What is checked (what learners typically get wrong):

* every object: ``metadata`` as ``ValidateObjectMeta`` checks it: the name
  by kind (:data:`NAME_VALIDATION_BY_KIND`: a DNS-1123 subdomain for every
  v1.34 built-in kind but a DNS-1123 label for Namespaces and StatefulSets, a
  DNS-1035 label for Services, a path segment for RBAC objects, anything for
  CertificateSigningRequests), ``generateName``, namespace required or
  forbidden, label keys and values, annotation keys and total size,
  ownerReferences (one controller), finalizer names; on update, no new
  finalizers while deleting;
* Pod: containers required, container (and init container) names DNS-1123
  labels and unique, image required, ports, volume names and mounts (a
  ``volumeMounts[].name`` that names no volume is ``Not found``),
  ``env`` (``ValidateEnv``: relaxed names, exactly one ``valueFrom``
  source and not beside ``value``, downward API field paths and resource
  divisors, key selectors) and ``envFrom`` (prefix, one source),
  requests not above limits (:func:`kubenotes.api.resources.resource_requirements_errors`),
  non-negative quantities, pod-level ``spec.resources`` naming only
  :data:`SUPPORTED_POD_LEVEL_RESOURCES`, ``restartPolicy``, ``dnsPolicy``,
  ``activeDeadlineSeconds``, ``nodeName``, ``nodeSelector``, tolerations
  (keys, ``Equal``/``Exists`` operators only, values, effects,
  ``tolerationSeconds`` with ``NoExecute``), ``serviceAccountName``; on
  update, upstream's immutable pod spec (``pod updates may not change fields
  other than ...``), added containers, changed tolerations and
  ``activeDeadlineSeconds`` rules;
* Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet:
  selector required and non-empty, compiled as ``LabelSelectorAsSelector``
  (:meth:`kubenotes.api.selectors.LabelSelector.from_api`; one that does not
  compile is ``invalid label selector`` and the template is not matched),
  ``selector`` must match template ``labels``, template ``restartPolicy:
  Always``, ``replicas >= 0``, rolling-update ``maxSurge``/``maxUnavailable``
  rules; on update the ``apps/v1`` selector is immutable and a StatefulSet's
  spec is immutable outside its updatable fields;
* Job and CronJob: ``parallelism``/``completions``/``backoffLimit``/
  ``activeDeadlineSeconds`` non-negative, template ``restartPolicy``
  ``OnFailure`` or ``Never``, Indexed jobs need ``completions``,
  CronJob ``schedule`` required and names of at most 52 characters;
* Service (ports, names, protocols, ``type``, ``nodePort`` with ClusterIP;
  the IP families against the cluster's, in
  :func:`kubenotes.apiserver.ipallocator.ip_family_errors`),
  Node (taints; ``podCIDRs`` set once), Namespace (finalizer names),
  ResourceQuota (standard resource names, non-negative, integer counts),
  LimitRange (types, min <= default request <= default <= max, ratios),
  PodDisruptionBudget (``minAvailable`` xor ``maxUnavailable``, values),
  ConfigMap/Secret (keys; ``data``/``binaryData`` that is not base64 is the
  decoder's 400, :func:`bytes_decode_error`), PriorityClass (reserved
  ``system-`` names, value range, immutable value),
  ValidatingAdmissionPolicy (``validateValidatingAdmissionPolicySpec``:
  match constraints, ``matchConditions``, ``variables``, validations with
  their messages and reasons, audit annotations) and its binding
  (``policyName``, ``paramRef``: name xor selector,
  ``parameterNotFoundAction`` required, ``Deny`` or ``Allow``,
  ``matchResources``, ``validationActions``),
  MutatingAdmissionPolicy (``validateMutatingAdmissionPolicySpec``:
  ``matchConstraints`` with resource rules and no ``DELETE``, ``paramKind``,
  ``matchConditions``, ``variables``, at least one mutation with its
  ``patchType``'s expression, ``reinvocationPolicy`` required; expressions
  compiled in their environment, ``params`` only with a ``paramKind``) and its
  binding (``policyName``, ``paramRef``, ``matchResources``),
  Mutating/ValidatingWebhookConfiguration (the ``matchConditions``: at most
  64, unique qualified names, expressions compiling without ``params``);
* networking.k8s.io: NetworkPolicy (``ValidateNetworkPolicySpec``: pod and
  peer selectors, exactly one kind of peer beside an ``ipBlock``, ``cidr``
  and ``except`` as legacy CIDR fields with each ``except`` a strict subset,
  ports with protocol TCP/UDP/SCTP, a number or a name, ``endPort`` only
  with a numeric port and not below it, at most two ``policyTypes``; on
  update the stored CIDRs are not re-checked), Ingress (rules or a default
  backend, hosts not IPs and (wildcard) DNS names, ``pathType`` required and
  supported, Exact/Prefix paths absolute and clean, a Service backend with a
  DNS-1035 name and a port name or number xor a resource backend, TLS hosts
  and secret names, ``ingressClassName``, and on create the
  ``kubernetes.io/ingress.class`` annotation agreeing with it), IngressClass
  (``controller`` required, a domain-prefixed path of at most 250 bytes and
  immutable; ``parameters`` kind, name, scope and namespace);
* storage.k8s.io VolumeAttachment (``attacher`` required and, on create, a
  CSI driver name; exactly one of ``persistentVolumeName`` and
  ``inlineVolumeSpec``; ``nodeName`` a DNS subdomain; status metadata and
  error sizes; on update the spec is read-only).

Notes
-----
Still NOT validated for the kinds served, although v1.34's
``pkg/apis/core/validation/validation.go`` (and the apps, batch, policy,
scheduling, rbac, storage, coordination, discovery, autoscaling packages)
check them:

* Pod spec: volume sources (exactly one per volume, and each source's own
  fields: hostPath, configMap/secret items and modes, projected sources,
  PVC claim names, CSI, ephemeral, image), ``subPath``/``subPathExpr`` and
  mount propagation, probes (one handler, thresholds, ports), lifecycle
  hooks, ``fileKeyRef`` contents (EnvFiles, alpha), security contexts (pod and container, seccomp/AppArmor,
  capabilities, sysctls), affinity and anti-affinity terms, topology spread
  constraints, host namespaces and host ports against hostNetwork,
  ephemeral containers, ``resizePolicy`` and resize rules, DNS config and
  ``hostAliases``, readiness gates, scheduling gates, ``os``, overhead,
  resource claims (DRA), restartable init container rules, container
  resource names (``validateContainerResourceName``), pod-level resources
  against the containers' sums;
* Job selector generation and ``manualSelector``, Job template immutability,
  ``podFailurePolicy``, ``successPolicy``, ``backoffLimitPerIndex`` rules,
  CronJob ``timeZone`` and schedule syntax;
* Service: ``clusterIP``/``clusterIPs`` syntax and their agreement,
  ``externalIPs``, ``loadBalancerSourceRanges``, ``sessionAffinityConfig``,
  ``externalTrafficPolicy``/``internalTrafficPolicy`` values,
  ``healthCheckNodePort``, ``ipFamilies`` values and duplicates,
  ``publishNotReadyAddresses``, ``trafficDistribution``;
* Node: addresses, ``podCIDR``/``podCIDRs`` syntax, ``configSource``,
  capacity and allocatable names; Namespace spec beyond finalizers;
* ResourceQuota scopes and ``scopeSelector``; PersistentVolume and
  PersistentVolumeClaim specs (access modes, capacity, sources, storage
  class, data sources, volume mode); Endpoints, EndpointSlice addresses and
  ports; Event fields; ServiceAccount secrets; HorizontalPodAutoscaler
  metrics and behaviour; RBAC rules and subjects; StorageClass
  provisioner and parameters; Lease fields; an Ingress's status
  (``loadBalancer`` addresses, ``ValidateIngressStatusUpdate``) and the
  relaxed rules an Ingress update keeps for names its stored version already
  had (``AllowInvalidSecretName``, ``AllowInvalidWildcardHostRule``); the kinds that are stored
  without a kind validator here (ControllerRevision ``data``/``revision``
  and others): metadata only.

The ``spec: Forbidden: pod updates may not change ...`` message ends with a
compact diff of the changed fields instead of ``cmp.Diff``'s output (which
upstream deliberately randomizes). Error order follows manifest order where
upstream iterates Go maps (random order).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/apps/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/batch/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/policy/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/scheduling/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/networking/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/apis/storage/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/registry/storage/volumeattachment/strategy.go
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable, Mapping

from kubenotes.api.resources import resource_requirements_errors
from kubenotes.api.selectors import LabelSelector
from kubenotes.api.validation import (
    PERCENT_ERR as _PERCENT_ERR,
    PERCENT_FMT as _PERCENT_FMT,
    PERCENT_RE as _PERCENT_RE,
    inclusive_range_error as _inclusive_range_error,
    is_config_map_key as _is_config_map_key,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_relaxed_env_var_name,
    is_valid_cidr_for_legacy_field,
    is_valid_label_value,
    is_valid_port_name as _is_valid_port_name,
    is_valid_port_num as _is_valid_port_num,
    parse_cidr_sloppy,
    parse_ip_sloppy,
    regex_error as _regex_error,
)
from kubenotes.api.podutil import RESTART_POLICIES
from kubenotes.api.quantity import Quantity
from kubenotes.apiserver.resources import ResourceInfo
from kubenotes.apiserver.status import field_cause
from kubenotes.errors import KubenotesError

__all__ = [
    "validate_create",
    "validate_update",
    "FieldErr",
    "REQUIRED",
    "INVALID",
    "NOT_SUPPORTED",
    "FORBIDDEN",
    "DUPLICATE",
    "NOT_FOUND",
    "TOO_LONG",
    "name_is_dns_subdomain",
    "name_is_dns_label",
    "name_is_dns1035_label",
    "validate_path_segment_name",
    "NAME_VALIDATION_BY_KIND",
    "render_value",
    "FIELD_IMMUTABLE_ERROR_MSG",
    "IS_NEGATIVE_ERROR_MSG",
    "SELECTOR_MISMATCH_MSG",
    "UPDATABLE_POD_SPEC_FIELDS",
    "SUPPORTED_POD_LEVEL_RESOURCES",
    "go_base64_error",
    "bytes_decode_error",
]

# --- field.ErrorType (reason) and its String() ----------------------------------------------------------

REQUIRED = "FieldValueRequired"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
FORBIDDEN = "FieldValueForbidden"
DUPLICATE = "FieldValueDuplicate"
NOT_FOUND = "FieldValueNotFound"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"

_TYPE_TEXT = {REQUIRED: "Required value", INVALID: "Invalid value", NOT_SUPPORTED: "Unsupported value",
              FORBIDDEN: "Forbidden", DUPLICATE: "Duplicate value", NOT_FOUND: "Not found", TOO_LONG: "Too long",
              TOO_MANY: "Too many"}

FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"
SELECTOR_MISMATCH_MSG = "`selector` does not match template `labels`"
IS_NOT_INTEGER_ERROR_MSG = "must be an integer"
#: ``updatablePodSpecFields``: what a pod update may change.
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
_MAX_INT32 = 2**31 - 1
_TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)


# --- value rendering (field.Error.ErrorBody, v1.34) ----------------------------------------------------


def _go_quote(s: str) -> str:
    """``strconv.Quote``."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _go_json(v: Any) -> str:
    """``json.Marshal``: compact; map keys sorted, struct fields (:class:`_OrderedJSON`) in declaration order;
    ``<``, ``>`` and ``&`` escaped."""
    if isinstance(v, _OrderedJSON):
        return "{" + ",".join(f"{_go_json(str(k))}:{_go_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, dict):
        return "{" + ",".join(f"{_go_json(str(k))}:{_go_json(v[k])}" for k in sorted(v)) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_go_json(x) for x in v) + "]"
    s = json.dumps(v, ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class _OrderedJSON(dict):
    """A Go struct: fields print in declaration order (json tags for ``metav1`` types, Go names for internal ones)."""


def _selector_json(sel: Any) -> Any:
    """``metav1.LabelSelector`` as ``json.Marshal`` prints it (``omitempty`` fields dropped)."""
    if sel is None:
        return None
    out = _OrderedJSON()
    if sel.get("matchLabels"):
        out["matchLabels"] = dict(sel["matchLabels"])
    if sel.get("matchExpressions"):
        exprs = []
        for e in sel["matchExpressions"]:
            x = _OrderedJSON(key=e.get("key", ""), operator=e.get("operator", ""))
            if e.get("values"):
                x["values"] = list(e["values"])
            exprs.append(x)
        out["matchExpressions"] = exprs
    return out


def _owner_refs_json(refs: Any) -> list:
    out = []
    for r in refs or ():
        x = _OrderedJSON(apiVersion=r.get("apiVersion", ""), kind=r.get("kind", ""), name=r.get("name", ""),
                         uid=r.get("uid", ""))
        for k in ("controller", "blockOwnerDeletion"):
            if r.get(k) is not None:
                x[k] = r[k]
        out.append(x)
    return out


def _toleration_json(t: Mapping[str, Any]) -> Any:
    """Internal ``core.Toleration`` (no json tags: Go field names)."""
    return _OrderedJSON(Key=t.get("key") or "", Operator=t.get("operator") or "", Value=t.get("value") or "",
                        Effect=t.get("effect") or "", TolerationSeconds=t.get("tolerationSeconds"))


def _taint_json(t: Mapping[str, Any]) -> Any:
    """Internal ``core.Taint``."""
    return _OrderedJSON(Key=t.get("key") or "", Value=t.get("value") or "", Effect=t.get("effect") or "",
                        TimeAdded=t.get("timeAdded"))


def render_value(v: Any) -> str:
    """How ``field.Error`` prints a bad value.

    Examples
    --------
    >>> render_value("x"), render_value(3), render_value(True), render_value(None), render_value({"b": "2", "a": "1"})
    ('"x"', '3', 'true', 'null', '{"a":"1","b":"2"}')
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return _go_quote(v)
    if isinstance(v, Quantity):
        return _go_quote(str(v))
    return _go_json(v)


_OMIT = object()


class FieldErr:
    """One ``field.Error``: type, path, bad value, detail.

    Examples
    --------
    >>> str(FieldErr(INVALID, "spec.replicas", -1, IS_NEGATIVE_ERROR_MSG))
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0'
    >>> str(FieldErr(REQUIRED, "spec.containers"))
    'spec.containers: Required value'
    """

    __slots__ = ("type", "field", "value", "detail")

    def __init__(self, type_: str, field: str, value: Any = _OMIT, detail: str = ""):
        self.type, self.field, self.value, self.detail = type_, field, value, detail

    def body(self) -> str:
        s = _TYPE_TEXT[self.type]
        if self.type not in (REQUIRED, FORBIDDEN, TOO_LONG) and self.value is not _OMIT:
            s += ": " + render_value(self.value)
        if self.detail:
            s += ": " + self.detail
        return s

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"

    def cause(self) -> dict:
        return field_cause(self.field, str(self), self.type)


def _required(f: str, detail: str = "") -> FieldErr:
    return FieldErr(REQUIRED, f, _OMIT, detail)


def _invalid(f: str, v: Any, detail: str) -> FieldErr:
    return FieldErr(INVALID, f, v, detail)


def _forbidden(f: str, detail: str) -> FieldErr:
    return FieldErr(FORBIDDEN, f, _OMIT, detail)


def _not_supported(f: str, v: Any, valid: Iterable[str]) -> FieldErr:
    vals = list(valid)
    detail = ("supported values: " + ", ".join(_go_quote(x) for x in vals)) if vals else ""
    return FieldErr(NOT_SUPPORTED, f, v, detail)


def _duplicate(f: str, v: Any) -> FieldErr:
    return FieldErr(DUPLICATE, f, v)


def _nonneg(v: Any, f: str) -> list[FieldErr]:
    """``ValidateNonnegativeField``."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        return [_invalid(f, v, IS_NEGATIVE_ERROR_MSG)]
    return []


def _immutable(new: Any, old: Any, f: str) -> list[FieldErr]:
    """``ValidateImmutableField``."""
    if new != old:
        return [_invalid(f, new, FIELD_IMMUTABLE_ERROR_MSG)]
    return []


# --- name functions (staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go) ---------------------


def _mask_trailing_dash(name: str) -> str:
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSSubdomain`` (most kinds)."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSLabel`` (Namespaces)."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNS1035Label`` (Services)."""
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName`` (RBAC objects: ``system:controller:x`` is fine)."""
    errs = []
    if not prefix and name in (".", ".."):
        errs.append(f"may not be '{name}'")
    for bad in ("/", "%"):
        if bad in name:
            errs.append(f"may not contain '{bad}'")
    return errs


def _any_name(name: str, prefix: bool) -> list[str]:
    """``ValidateCertificateRequestName``: "We don't care what you call your certificate requests"."""
    return []


#: ``ValidateObjectMeta``'s name function of every v1.34 built-in kind whose name is not a DNS-1123 subdomain
#: (``NameIsDNSSubdomain``, the default: Pod, Node, ReplicationController, Secret, ConfigMap, ServiceAccount,
#: PersistentVolume(Claim), Endpoints, Event, ResourceQuota, LimitRange, PodTemplate, Deployment, ReplicaSet,
#: DaemonSet, ControllerRevision, Job, CronJob, HorizontalPodAutoscaler, PodDisruptionBudget, PriorityClass,
#: StorageClass, VolumeAttachment, CSINode, CSIStorageCapacity, VolumeAttributesClass, Ingress, IngressClass,
#: NetworkPolicy, ServiceCIDR, RuntimeClass, Lease, EndpointSlice, Mutating/ValidatingWebhookConfiguration,
#: ValidatingAdmissionPolicy(Binding), FlowSchema, PriorityLevelConfiguration, DeviceClass, ResourceClaim,
#: ResourceClaimTemplate, ResourceSlice). Kinds served later use the table as soon as they are served.
NAME_VALIDATION_BY_KIND: dict[str, Callable[[str, bool], list[str]]] = {
    "Namespace": name_is_dns_label,  # ValidateNamespaceName
    "Service": name_is_dns1035_label,  # ValidateServiceName
    "StatefulSet": name_is_dns_label,  # ValidateStatefulSetName: its pods' hostnames are <name>-<ordinal>
    "Role": validate_path_segment_name,  # ValidateRBACName
    "ClusterRole": validate_path_segment_name,
    "RoleBinding": validate_path_segment_name,
    "ClusterRoleBinding": validate_path_segment_name,
    "CertificateSigningRequest": _any_name,
}
_NAME_FUNCS = NAME_VALIDATION_BY_KIND


# --- []byte fields: base64 in JSON, as the decoder reads them -------------------------------------------

_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
#: ``[]byte`` fields of the kinds served: the JSON decoder wants standard base64 (with padding) in them.
_BYTES_MAPS = {"Secret": ("data",), "ConfigMap": ("binaryData",)}


def go_base64_error(text: str) -> int | None:
    """Where Go's ``base64.StdEncoding`` refuses ``text`` (``CorruptInputError``'s byte offset), or None.

    Newlines are skipped, as Go's decoder skips them; padding is required.

    Examples
    --------
    >>> go_base64_error("aGVsbG8="), go_base64_error("hello"), go_base64_error("a$bc"), go_base64_error("aGVsbG8")
    (None, 4, 1, 4)
    """
    data = text.encode("utf-8")
    n, si, j = len(data), 0, 0
    while si < n:
        c = chr(data[si])
        si += 1
        if c in "\r\n":
            continue
        if c in _BASE64_ALPHABET:
            j = (j + 1) % 4
            continue
        if c != "=":
            return si - 1
        if j in (0, 1):  # incorrect padding
            return si - 1
        if j == 2:  # "==" expected: the second "=" must follow
            while si < n and chr(data[si]) in "\r\n":
                si += 1
            if si == n:
                return n
            if chr(data[si]) != "=":
                return si - 1
            si += 1
        while si < n and chr(data[si]) in "\r\n":
            si += 1
        return si if si < n else None  # trailing garbage after the padding
    if j:
        return n - j
    return None


def bytes_decode_error(kind: str, obj: Mapping[str, Any]) -> str | None:
    """The JSON decoder's error for a ``[]byte`` value that is not base64 (``Secret.data``, ``ConfigMap.binaryData``).

    Returns
    -------
    str or None
        ``illegal base64 data at input byte N``, which the API server answers as 400 BadRequest
        (``Secret in version "v1" cannot be handled as a Secret: ...``); None when every value decodes.

    References
    ----------
    go@1.24 src/encoding/base64/base64.go (CorruptInputError), src/encoding/json/decode.go ([]byte fields)

    Examples
    --------
    >>> bytes_decode_error("Secret", {"data": {"password": "hunter2"}})
    'illegal base64 data at input byte 4'
    >>> bytes_decode_error("Secret", {"data": {"password": "aHVudGVyMg=="}}) is None
    True
    """
    for key in _BYTES_MAPS.get(kind, ()):
        values = obj.get(key)
        if not isinstance(values, dict):
            continue
        for v in values.values():
            if isinstance(v, str):
                at = go_base64_error(v)
                if at is not None:
                    return f"illegal base64 data at input byte {at}"
    return None


# --- ObjectMeta ------------------------------------------------------------------------------------------

_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _labels(labels: Any, f: str) -> list[FieldErr]:
    """``ValidateLabels``."""
    errs: list[FieldErr] = []
    for k, v in (labels or {}).items():
        errs += [_invalid(f, k, m) for m in is_qualified_name(str(k))]
        errs += [_invalid(f, v, m) for m in is_valid_label_value(str(v) if v is not None else "")]
    return errs


def _annotations(ann: Any, f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    total = 0
    for k, v in (ann or {}).items():
        errs += [_invalid(f, k, m) for m in is_qualified_name(str(k).lower())]
        total += len(str(k)) + len(str(v or ""))
    if total > _TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errs.append(FieldErr(TOO_LONG, f, _OMIT, f"may not be more than {_TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"))
    return errs


def _owner_references(refs: Any, f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    first = ""
    for ref in refs or ():
        api_version = ref.get("apiVersion") or ""
        version = api_version.split("/")[-1] if api_version else ""
        if not version:
            errs.append(_invalid(f"{f}.apiVersion", api_version, "version must not be empty"))
        if not ref.get("kind"):
            errs.append(_invalid(f"{f}.kind", ref.get("kind") or "", "must not be empty"))
        if not ref.get("name"):
            errs.append(_invalid(f"{f}.name", ref.get("name") or "", "must not be empty"))
        if not ref.get("uid"):
            errs.append(_invalid(f"{f}.uid", ref.get("uid") or "", "must not be empty"))
        if ref.get("controller"):
            cur = f"{ref.get('kind')}/{ref.get('name')}"
            if first:
                errs.append(_invalid(f, _owner_refs_json(refs), "Only one reference can have Controller set to true. "
                                                                f'Found "true" in references for {first} and {cur}'))
            else:
                first = cur
    return errs


def _finalizers(finalizers: Any, f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    fins = list(finalizers or ())
    for i, name in enumerate(fins):
        errs += [_invalid(f, name, m) for m in is_qualified_name(name)]
    if "orphan" in fins and "foregroundDeletion" in fins:
        errs.append(_invalid(f, fins, "finalizer orphan and foregroundDeletion cannot be both set"))
    for i, name in enumerate(fins):
        if "/" not in name and name not in _STANDARD_FINALIZERS and not is_qualified_name(name):
            errs.append(_invalid(f"{f}[{i}]", name, "name is neither a standard finalizer name nor is it fully "
                                                    "qualified"))
    return errs


def _object_meta(md: Mapping[str, Any], namespaced: bool, name_fn: Callable[[str, bool], list[str]],
                 f: str = "metadata") -> list[FieldErr]:
    """``ValidateObjectMetaAccessor`` (plus core's finalizer-name rule)."""
    errs: list[FieldErr] = []
    gen = md.get("generateName") or ""
    if gen:
        errs += [_invalid(f"{f}.generateName", gen, m) for m in name_fn(gen, True)]
    name = md.get("name") or ""
    if not name:
        errs.append(_required(f"{f}.name", "name or generateName is required"))
    else:
        errs += [_invalid(f"{f}.name", name, m) for m in name_fn(name, False)]
    ns = md.get("namespace") or ""
    if namespaced:
        if not ns:
            errs.append(_required(f"{f}.namespace"))
        else:
            errs += [_invalid(f"{f}.namespace", ns, m) for m in name_is_dns_label(ns, False)]
    elif ns:
        errs.append(_forbidden(f"{f}.namespace", "not allowed on this type"))
    errs += _nonneg(md.get("generation", 0), f"{f}.generation")
    errs += _labels(md.get("labels"), f"{f}.labels")
    errs += _annotations(md.get("annotations"), f"{f}.annotations")
    errs += _owner_references(md.get("ownerReferences"), f"{f}.ownerReferences")
    errs += _finalizers(md.get("finalizers"), f"{f}.finalizers")
    return errs


def _object_meta_update(md: Mapping[str, Any], omd: Mapping[str, Any], f: str = "metadata") -> list[FieldErr]:
    """``ValidateObjectMetaAccessorUpdate`` (the system fields the server already keeps are not re-checked)."""
    errs: list[FieldErr] = []
    if omd.get("deletionTimestamp"):
        extra = sorted(set(md.get("finalizers") or ()) - set(omd.get("finalizers") or ()))
        if extra:
            listed = "[]string{" + ", ".join(_go_quote(x) for x in extra) + "}"
            errs.append(_forbidden(f"{f}.finalizers", "no new finalizers can be added if the object is being "
                                                      f"deleted, found new finalizers {listed}"))
    errs += _immutable(md.get("name"), omd.get("name"), f"{f}.name")
    errs += _immutable(md.get("namespace") or "", omd.get("namespace") or "", f"{f}.namespace")
    errs += _labels(md.get("labels"), f"{f}.labels")
    errs += _annotations(md.get("annotations"), f"{f}.annotations")
    errs += _owner_references(md.get("ownerReferences"), f"{f}.ownerReferences")
    return errs


# --- label selectors (meta/v1/validation) ----------------------------------------------------------------


def _label_selector(sel: Any, f: str) -> list[FieldErr]:
    """``ValidateLabelSelector``."""
    if sel is None:
        return []
    errs = _labels(sel.get("matchLabels"), f"{f}.matchLabels")
    for i, e in enumerate(sel.get("matchExpressions") or ()):
        p = f"{f}.matchExpressions[{i}]"
        op, values = e.get("operator"), e.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(_required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(_forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or "
                                                      "'DoesNotExist'"))
        else:
            errs.append(_invalid(f"{p}.operator", op or "", "not a valid selector operator"))
        errs += [_invalid(f"{p}.key", e.get("key") or "", m) for m in is_qualified_name(e.get("key") or "")]
        for j, v in enumerate(values):
            errs += [_invalid(f"{p}.values[{j}]", v, m) for m in is_valid_label_value(v)]
    return errs


def _as_selector(sel: Any) -> LabelSelector | None:
    """``metav1.LabelSelectorAsSelector``: the compiled selector, or None where upstream returns an error.

    A nil selector compiles to one that matches nothing, an empty one to one that matches everything
    (:meth:`kubenotes.api.selectors.LabelSelector.from_api`, the one home of selector matching).
    """
    try:
        return LabelSelector.from_api(sel)
    except KubenotesError:
        return None


# --- resources --------------------------------------------------------------------------------------------


def _quantity_errors(rl: Any, f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    for k, v in (rl or {}).items():
        if type(v) is str and v in _GOOD_QUANTITIES:  # parsed before: valid and not negative
            continue
        try:
            q = Quantity.parse(v, k)
        except KubenotesError as e:
            errs.append(_invalid(f"{f}[{k}]", v, str(getattr(e, "message", e))))
            continue
        if q.sign() < 0:
            errs.append(_invalid(f"{f}[{k}]", str(q), IS_NEGATIVE_ERROR_MSG))
        elif type(v) is str:
            if len(_GOOD_QUANTITIES) >= 65536:
                _GOOD_QUANTITIES.clear()
            _GOOD_QUANTITIES.add(v)
    return errs


#: Quantity strings that parse to a value >= 0 (whether a string does depends on the string only): a bounded
#: memory of :func:`_quantity_errors`, as the same requests come back on every pod of a workload.
_GOOD_QUANTITIES: set[str] = set()


def _resource_requirements(res: Any, f: str) -> list[FieldErr]:
    res = res or {}
    errs = _quantity_errors(res.get("limits"), f"{f}.limits") + _quantity_errors(res.get("requests"), f"{f}.requests")
    if errs:
        return errs
    for e in resource_requirements_errors(res.get("requests"), res.get("limits"), f):
        # the shared rule renders "Invalid value: ...: detail"; keep its text, typed as Invalid
        body = e.message[len("Invalid value: "):] if e.message.startswith("Invalid value: ") else e.message
        value, _, detail = body.partition(": ")
        errs.append(_invalid(e.field, json.loads(value) if value.startswith('"') else value, detail))
    return errs


# --- pods -------------------------------------------------------------------------------------------------

_RESTART_POLICIES = RESTART_POLICIES  # one home: api/podutil
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _dns_label(value: str, f: str) -> list[FieldErr]:
    return [_invalid(f, value, m) for m in is_dns1123_label(value)]


def _container_ports(ports: Any, f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    names: set[str] = set()
    for i, p in enumerate(ports or ()):
        ip = f"{f}[{i}]"
        name = p.get("name")
        if name:
            errs += [_invalid(f"{ip}.name", name, m) for m in _is_valid_port_name(name)]
            if name in names:
                errs.append(_duplicate(f"{ip}.name", name))
            names.add(name)
        cp = p.get("containerPort")
        if not cp:
            errs.append(_required(f"{ip}.containerPort"))
        else:
            errs += [_invalid(f"{ip}.containerPort", cp, m) for m in _is_valid_port_num(cp)]
        hp = p.get("hostPort")
        if hp:
            errs += [_invalid(f"{ip}.hostPort", hp, m) for m in _is_valid_port_num(hp)]
        proto = p.get("protocol")
        if proto and proto not in _PROTOCOLS:
            errs.append(_not_supported(f"{ip}.protocol", proto, _PROTOCOLS))
    return errs


#: ``validEnvDownwardAPIFieldPathExpressions``: what ``env[].valueFrom.fieldRef`` may read.
_ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                    "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
#: The labels ``ConvertDownwardAPIFieldLabel`` converts for a v1 Pod (``spec.host`` becomes ``spec.nodeName``).
_POD_FIELD_LABELS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                     "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                     "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
                     "status.podIPs")
#: ``validContainerResourceFieldPathExpressions`` and the hugepages prefixes beside them.
_RESOURCE_FIELD_PATHS = ("limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu",
                         "requests.memory", "requests.ephemeral-storage")
_HUGEPAGES_FIELD_PREFIXES = ("requests.hugepages-", "limits.hugepages-")
_BINARY_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")


def _split_subscripted_path(path: str) -> tuple[str, str, bool]:
    """``fieldpath.SplitMaybeSubscriptedPath``: ``metadata.labels['app']`` → (``metadata.labels``, ``app``)."""
    if not path.endswith("']"):
        return path, "", False
    head, sep, key = path[:-2].partition("['")
    if not sep or not head:
        return path, "", False
    return head, key, True


def _object_field_selector(fs: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateObjectFieldSelector`` with the env var expressions."""
    version, path = fs.get("apiVersion") or "", fs.get("fieldPath") or ""
    if not version:
        return [_required(f"{f}.apiVersion")]
    if not path:
        return [_required(f"{f}.fieldPath")]
    head, key, subscripted = _split_subscripted_path(path)
    if version != "v1":
        problem = f"unsupported pod version: {version}"
    elif subscripted and head not in ("metadata.annotations", "metadata.labels"):
        problem = f"field label does not support subscript: {path}"
    elif not subscripted and path not in _POD_FIELD_LABELS and path != "spec.host":
        problem = f"field label not supported: {path}"
    else:
        problem = ""
    if problem:
        return [_invalid(f"{f}.fieldPath", path, f"error converting fieldPath: {problem}")]
    if subscripted:
        name = key.lower() if head == "metadata.annotations" else key
        return [_invalid(f, name, m) for m in is_qualified_name(name)]
    internal = "spec.nodeName" if path == "spec.host" else path
    if internal not in _ENV_FIELD_PATHS:
        return [_not_supported(f"{f}.fieldPath", internal, sorted(_ENV_FIELD_PATHS))]
    return []


def _resource_field_selector(fs: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateContainerResourceFieldSelector`` (env form: no containerName required) and its divisor check."""
    errs: list[FieldErr] = []
    res = fs.get("resource") or ""
    if not res:
        errs.append(_required(f"{f}.resource"))
    elif res not in _RESOURCE_FIELD_PATHS and not res.startswith(_HUGEPAGES_FIELD_PREFIXES):
        errs.append(_not_supported(f"{f}.resource", res, sorted(_RESOURCE_FIELD_PATHS)))
    divisor = fs.get("divisor")
    if divisor is None:
        return errs
    try:
        q = Quantity.parse(divisor)
    except Exception:  # the field decoder has refused an unparsable quantity already
        return errs
    if q.sign() == 0:
        return errs
    text = str(q)
    if res in ("limits.cpu", "requests.cpu") and text not in ("1m", "1"):
        errs.append(_invalid(f"{f}.divisor", res, "only divisor's values 1m and 1 are supported with the cpu resource"))
    for names, what in ((("limits.memory", "requests.memory"), "the memory resource"),
                        (("limits.ephemeral-storage", "requests.ephemeral-storage"), "the local ephemeral storage resource")):
        if res in names and text not in _BINARY_DIVISORS:
            errs.append(_invalid(f"{f}.divisor", res, "only divisor's values " + ", ".join(_BINARY_DIVISORS)
                                 + f" are supported with {what}"))
    if res.startswith(_HUGEPAGES_FIELD_PREFIXES) and text not in _BINARY_DIVISORS:
        errs.append(_invalid(f"{f}.divisor", res, "only divisor's values " + ", ".join(_BINARY_DIVISORS)
                             + " are supported with the hugepages resource"))
    return errs


def _key_selector(sel: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateConfigMapKeySelector`` / ``validateSecretKeySelector`` (the same checks)."""
    name, key = sel.get("name") or "", sel.get("key") or ""
    errs = [_invalid(f"{f}.name", name, m) for m in name_is_dns_subdomain(name, False)]
    if not key:
        errs.append(_required(f"{f}.key"))
    else:
        errs += [_invalid(f"{f}.key", key, m) for m in _is_config_map_key(key)]
    return errs


def _env(env: Any, f: str) -> list[FieldErr]:
    """``ValidateEnv`` with ``validateEnvVarValueFrom`` (relaxed names: the gate is GA in v1.34).

    A ``valueFrom`` with no source left (e.g. a ``fileKeyRef`` dropped because
    the EnvFiles gate is off) is refused as upstream refuses it.
    """
    errs: list[FieldErr] = []
    for i, ev in enumerate(env or ()):
        p = f"{f}[{i}]"
        name = ev.get("name") or ""
        if not name:
            errs.append(_required(f"{p}.name"))
        else:
            errs += [_invalid(f"{p}.name", name, m) for m in is_relaxed_env_var_name(name)]
        vf = ev.get("valueFrom")
        if vf is None:
            continue
        vp = f"{p}.valueFrom"
        sources = 0
        if vf.get("fieldRef") is not None:
            sources += 1
            errs += _object_field_selector(vf["fieldRef"], f"{vp}.fieldRef")
        if vf.get("resourceFieldRef") is not None:
            sources += 1
            errs += _resource_field_selector(vf["resourceFieldRef"], f"{vp}.resourceFieldRef")
        for key in ("configMapKeyRef", "secretKeyRef"):
            if vf.get(key) is not None:
                sources += 1
                errs += _key_selector(vf[key], f"{vp}.{key}")
        if vf.get("fileKeyRef") is not None:  # present only while the EnvFiles gate is on
            sources += 1
        if sources == 0:
            errs.append(_invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                         "`configMapKeyRef` or `secretKeyRef`"))
        elif ev.get("value"):
            errs.append(_invalid(vp, "", "may not be specified when `value` is not empty"))
        elif sources > 1:
            errs.append(_invalid(vp, "", "may not have more than one field specified at a time"))
    return errs


def _env_from(env_from: Any, f: str) -> list[FieldErr]:
    """``ValidateEnvFrom``: prefix, one source, the source's name (checked as a prefix, as upstream)."""
    errs: list[FieldErr] = []
    for i, ev in enumerate(env_from or ()):
        p = f"{f}[{i}]"
        prefix = ev.get("prefix") or ""
        if prefix:
            errs += [_invalid(f"{p}.prefix", prefix, m) for m in is_relaxed_env_var_name(prefix)]
        sources = 0
        for key in ("configMapRef", "secretRef"):
            ref = ev.get(key)
            if ref is None:
                continue
            sources += 1
            name = ref.get("name") or ""
            if not name:
                errs.append(_required(f"{p}.{key}.name"))
            else:
                errs += [_invalid(f"{p}.{key}.name", name, m) for m in name_is_dns_subdomain(name, True)]
        if sources == 0:  # upstream reports these two on the envFrom list's path, not the item's
            errs.append(_invalid(f, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif sources > 1:
            errs.append(_invalid(f, "", "may not have more than one field specified at a time"))
    return errs


def _containers(spec: Mapping[str, Any], f: str, volumes: set[str]) -> list[FieldErr]:
    errs: list[FieldErr] = []
    containers = spec.get("containers") or []
    if not containers:
        errs.append(_required(f"{f}.containers"))
    names: set[str] = set()
    for key in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(key) or ()):
            p = f"{f}.{key}[{i}]"
            name = c.get("name") or ""
            if not name:
                errs.append(_required(f"{p}.name"))
            else:
                errs += _dns_label(name, f"{p}.name")
            if name and name in names:
                errs.append(_duplicate(f"{p}.name", name))
            names.add(name)
            if not c.get("image"):
                errs.append(_required(f"{p}.image"))
            errs += _container_ports(c.get("ports"), f"{p}.ports")
            errs += _env(c.get("env"), f"{p}.env")
            errs += _env_from(c.get("envFrom"), f"{p}.envFrom")
            for j, m in enumerate(c.get("volumeMounts") or ()):
                mp = f"{p}.volumeMounts[{j}]"
                if not m.get("name"):
                    errs.append(_required(f"{mp}.name"))
                elif m["name"] not in volumes:
                    errs.append(FieldErr(NOT_FOUND, f"{mp}.name", m["name"]))
                if not m.get("mountPath"):
                    errs.append(_required(f"{mp}.mountPath"))
            errs += _resource_requirements(c.get("resources"), f"{p}.resources")
    return errs


def _tolerations(tolerations: Any, f: str) -> list[FieldErr]:
    """``ValidateTolerations``."""
    errs: list[FieldErr] = []
    for i, t in enumerate(tolerations or ()):
        p = f"{f}[{i}]"
        key, op = t.get("key") or "", t.get("operator") or ""
        value, effect = t.get("value") or "", t.get("effect") or ""
        if key:
            errs += [_invalid(f"{p}.key", key, m) for m in is_qualified_name(key)]
        if not key and op != "Exists":
            errs.append(_invalid(f"{p}.operator", op, 'operator must be Exists when `key` is empty, which means '
                                                      '"match all values and all keys"'))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(_invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if op in ("Equal", ""):
            msgs = is_valid_label_value(value)
            if msgs:
                errs.append(_invalid(f"{p}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(_invalid(f"{p}.operator", _toleration_json(t),
                                     "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(_not_supported(f"{p}.operator", op, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(_not_supported(f"{p}.effect", effect, _TAINT_EFFECTS))
    return errs


def _pod_spec(spec: Mapping[str, Any], f: str) -> list[FieldErr]:
    """The part of ``ValidatePodSpec`` the model checks."""
    errs: list[FieldErr] = []
    volumes: set[str] = set()
    for i, v in enumerate(spec.get("volumes") or ()):
        name = v.get("name") or ""
        p = f"{f}.volumes[{i}].name"
        if not name:
            errs.append(_required(p))
        else:
            errs += _dns_label(name, p)
        if name in volumes:
            errs.append(_duplicate(p, name))
        volumes.add(name)
    errs += _containers(spec, f, volumes)
    rp = spec.get("restartPolicy")
    if rp is not None:
        if rp == "":
            errs.append(_required(f"{f}.restartPolicy"))
        elif rp not in _RESTART_POLICIES:
            errs.append(_not_supported(f"{f}.restartPolicy", rp, _RESTART_POLICIES))
    dp = spec.get("dnsPolicy")
    if dp and dp not in _DNS_POLICIES:
        errs.append(_not_supported(f"{f}.dnsPolicy", dp, _DNS_POLICIES))
    ads = spec.get("activeDeadlineSeconds")
    if ads is not None and not (1 <= int(ads) <= _MAX_INT32):
        errs.append(_invalid(f"{f}.activeDeadlineSeconds", ads, _inclusive_range_error(1, _MAX_INT32)))
    if spec.get("nodeName"):
        errs += [_invalid(f"{f}.nodeName", spec["nodeName"], m) for m in name_is_dns_subdomain(spec["nodeName"], False)]
    if spec.get("serviceAccountName"):
        errs += [_invalid(f"{f}.serviceAccountName", spec["serviceAccountName"], m)
                 for m in name_is_dns_subdomain(spec["serviceAccountName"], False)]
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            errs += _dns_label(spec[key], f"{f}.{key}")
    errs += _labels(spec.get("nodeSelector"), f"{f}.nodeSelector")
    errs += _tolerations(spec.get("tolerations"), f"{f}.tolerations")
    if spec.get("resources"):
        errs += _pod_resource_names(spec["resources"], f"{f}.resources")
        errs += _resource_requirements(spec["resources"], f"{f}.resources")
    return errs


#: ``resourcehelper.SupportedPodLevelResources()`` at v1.34: what ``spec.resources`` (PodLevelResources) may name.
SUPPORTED_POD_LEVEL_RESOURCES = ("cpu", "memory")


def _pod_resource_names(res: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validatePodResourceName`` over the limits, then the requests, of ``spec.resources``."""
    errs: list[FieldErr] = []
    for which in ("limits", "requests"):
        for name in (res.get(which) or {}):
            if name not in SUPPORTED_POD_LEVEL_RESOURCES:
                errs.append(_not_supported(f"{f}.{which}[{name}]", name, SUPPORTED_POD_LEVEL_RESOURCES))
    return errs


def _pod_template(template: Any, f: str) -> list[FieldErr]:
    """``ValidatePodTemplateSpec``."""
    if template is None:
        return [_required(f)]
    md = template.get("metadata") or {}
    errs = _labels(md.get("labels"), f"{f}.labels")
    errs += _annotations(md.get("annotations"), f"{f}.annotations")
    errs += _pod_spec(template.get("spec") or {}, f"{f}.spec")
    return errs


def _validate_pod(obj: Mapping[str, Any]) -> list[FieldErr]:
    return _pod_spec(obj.get("spec") or {}, "spec")


def _diff_lines(old: Mapping[str, Any], new: Mapping[str, Any], go_type: str = "core.PodSpec") -> str:
    lines = [f"  {go_type}{{"]
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            if k in old:
                lines.append(f"- \t{k}: {_go_json(old[k])},")
            if k in new:
                lines.append(f"+ \t{k}: {_go_json(new[k])},")
    lines.append("  }")
    return "\n".join(lines)


def _only_added_tolerations(new: list, old: list, f: str) -> list[FieldErr]:
    for o in old:
        found = False
        for n in new:
            oc = dict(o)
            oc.pop("tolerationSeconds", None)
            nc = dict(n)
            nc.pop("tolerationSeconds", None)
            if oc == nc:
                found = True
                break
        if not found:
            return [_forbidden(f, "existing toleration can not be modified except its tolerationSeconds")]
    return []


def _validate_pod_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldErr]:
    """The spec part of ``ValidatePodUpdate``."""
    spec, ospec = obj.get("spec") or {}, old.get("spec") or {}
    errs: list[FieldErr] = []
    if len(spec.get("containers") or ()) != len(ospec.get("containers") or ()):
        return [_forbidden("spec.containers", "pod updates may not add or remove containers")]
    if len(spec.get("initContainers") or ()) != len(ospec.get("initContainers") or ()):
        return [_forbidden("spec.initContainers", "pod updates may not add or remove containers")]
    ads, oads = spec.get("activeDeadlineSeconds"), ospec.get("activeDeadlineSeconds")
    if ads is not None:
        if int(ads) < 0 or int(ads) > _MAX_INT32:
            return errs + [_invalid("spec.activeDeadlineSeconds", ads, _inclusive_range_error(0, _MAX_INT32))]
        if oads is not None and int(oads) < int(ads):
            return errs + [_invalid("spec.activeDeadlineSeconds", ads, "must be less than or equal to previous value")]
    elif oads is not None:
        errs.append(_invalid("spec.activeDeadlineSeconds", None,
                             "must not update from a positive integer to nil value"))
    munged = dict(spec)
    for key in ("containers", "initContainers"):
        if key not in spec:
            continue
        olds = ospec.get(key) or []
        items = []
        for i, c in enumerate(spec[key] or []):
            c2 = dict(c)
            if i < len(olds):
                if "image" in olds[i]:
                    c2["image"] = olds[i]["image"]
                else:
                    c2.pop("image", None)
            items.append(c2)
        munged[key] = items
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in ospec:
            munged[key] = ospec[key]
        else:
            munged.pop(key, None)
    tgps, otgps = munged.get("terminationGracePeriodSeconds"), ospec.get("terminationGracePeriodSeconds")
    if otgps is not None and int(otgps) < 0 and tgps == 1:
        munged["terminationGracePeriodSeconds"] = otgps
    if len(ospec.get("schedulingGates") or ()) > 0:
        # gated pods may still gain nodeSelector entries and change affinity
        for key in ("nodeSelector", "affinity"):
            if key in ospec:
                munged[key] = ospec[key]
            else:
                munged.pop(key, None)
    if munged != ospec:
        errs.append(_forbidden("spec", "pod updates may not change fields other than " +
                               ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n" + _diff_lines(ospec, munged)))
    errs += _only_added_tolerations(list(spec.get("tolerations") or ()), list(ospec.get("tolerations") or ()),
                                    "spec.tolerations")
    return errs


# --- apps / core controllers ------------------------------------------------------------------------------


def _deploy_ru_json(ru: Any) -> Any:
    """Internal ``apps.RollingUpdateDeployment``."""
    if ru is None:
        return None
    return _OrderedJSON(MaxUnavailable=ru.get("maxUnavailable"), MaxSurge=ru.get("maxSurge"))


def _sts_ru_json(ru: Any) -> Any:
    """Internal ``apps.RollingUpdateStatefulSetStrategy``."""
    if ru is None:
        return None
    return _OrderedJSON(Partition=ru.get("partition", 0), MaxUnavailable=ru.get("maxUnavailable"))


def _int_or_percent(v: Any) -> tuple[int, bool]:
    if isinstance(v, str) and v.endswith("%"):
        try:
            return int(v[:-1]), True
        except ValueError:
            return 0, True
    if isinstance(v, str):
        try:
            return int(v), False
        except ValueError:
            return 0, False
    return int(v or 0), False


def _positive_int_or_percent(v: Any, f: str) -> list[FieldErr]:
    """``ValidatePositiveIntOrPercent``."""
    if v is None:
        return []
    if isinstance(v, str):
        if not _PERCENT_RE.match(v):
            return [_invalid(f, v, _regex_error(_PERCENT_ERR, _PERCENT_FMT, "1%", "93%"))]
        return []
    return _nonneg(v, f)


def _not_more_than_100_percent(v: Any, f: str) -> list[FieldErr]:
    if isinstance(v, str) and v.endswith("%"):
        n, _ = _int_or_percent(v)
        if n > 100:
            return [_invalid(f, v, "must not be greater than 100%")]
    return []


def _template_for_replicas(template: Any, selector: LabelSelector, f: str, kind: str) -> list[FieldErr]:
    """``ValidatePodTemplateSpecForReplicaSet`` / ``ForRC``: a nil selector matches nothing, an empty one is skipped."""
    if template is None:
        return [_required(f)]
    errs: list[FieldErr] = []
    labels = (template.get("metadata") or {}).get("labels")
    if not selector.is_empty() and not selector.matches(labels):
        errs.append(_invalid(f"{f}.metadata.labels", labels, SELECTOR_MISMATCH_MSG))
    errs += _pod_template(template, f)
    tspec = template.get("spec") or {}
    rp = tspec.get("restartPolicy") or "Always"
    if rp != "Always":
        errs.append(_not_supported(f"{f}.spec.restartPolicy", rp, ("Always",)))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(_forbidden(f"{f}.spec.activeDeadlineSeconds", f"activeDeadlineSeconds in {kind} is not Supported"))
    return errs


def _selector_empty(sel: Mapping[str, Any] | None) -> bool:
    """``len(matchLabels) + len(matchExpressions) == 0`` of a non-nil selector (the ``empty selector`` rule)."""
    return sel is not None and not (sel.get("matchLabels") or sel.get("matchExpressions"))


def _workload_selector(spec: Mapping[str, Any], f: str, what: str) -> list[FieldErr]:
    sel = spec.get("selector")
    if sel is None:
        return [_required(f"{f}.selector")]
    errs = _label_selector(sel, f"{f}.selector")
    if _selector_empty(sel):
        errs.append(_invalid(f"{f}.selector", _selector_json(sel), f"empty selector is invalid for {what}"))
    return errs


def _replica_set_template(spec: Mapping[str, Any], f: str) -> list[FieldErr]:
    """Deployment and ReplicaSet: a selector ``LabelSelectorAsSelector`` refuses is ``invalid label selector``, and
    the template is then not validated (as upstream's ``ValidateDeploymentSpec``/``ValidateReplicaSetSpec``)."""
    sel = spec.get("selector")
    selector = _as_selector(sel)
    if selector is None:
        return [_invalid(f"{f}.selector", _selector_json(sel), "invalid label selector")]
    return _template_for_replicas(spec.get("template"), selector, f"{f}.template", "ReplicaSet")


def _validate_deployment(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs = _nonneg(spec.get("replicas", 1), f"{f}.replicas")
    errs += _workload_selector(spec, f, "deployment")
    errs += _replica_set_template(spec, f)
    strategy = spec.get("strategy") or {}
    st, sp = strategy.get("type") or "RollingUpdate", f"{f}.strategy"
    if st == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            errs.append(_forbidden(f"{sp}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"))
    elif st == "RollingUpdate":
        ru = strategy.get("rollingUpdate") or {}
        mu, ms = ru.get("maxUnavailable", "25%"), ru.get("maxSurge", "25%")
        errs += _positive_int_or_percent(mu, f"{sp}.rollingUpdate.maxUnavailable")
        errs += _positive_int_or_percent(ms, f"{sp}.rollingUpdate.maxSurge")
        if _int_or_percent(mu)[0] == 0 and _int_or_percent(ms)[0] == 0:
            errs.append(_invalid(f"{sp}.rollingUpdate.maxUnavailable", mu, "may not be 0 when `maxSurge` is 0"))
        errs += _not_more_than_100_percent(mu, f"{sp}.rollingUpdate.maxUnavailable")
    else:
        internal = _OrderedJSON(Type=st, RollingUpdate=_deploy_ru_json(strategy.get("rollingUpdate")))
        errs.append(_not_supported(sp, internal,
                                   ("Recreate", "RollingUpdate")))
    errs += _nonneg(spec.get("minReadySeconds", 0), f"{f}.minReadySeconds")
    if spec.get("revisionHistoryLimit") is not None:
        errs += _nonneg(spec["revisionHistoryLimit"], f"{f}.revisionHistoryLimit")
    pds = spec.get("progressDeadlineSeconds")
    if pds is not None:
        errs += _nonneg(pds, f"{f}.progressDeadlineSeconds")
        if pds <= spec.get("minReadySeconds", 0):
            errs.append(_invalid(f"{f}.progressDeadlineSeconds", pds, "must be greater than minReadySeconds"))
    return errs


def _validate_replicaset(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs = _nonneg(spec.get("replicas", 1), f"{f}.replicas")
    errs += _nonneg(spec.get("minReadySeconds", 0), f"{f}.minReadySeconds")
    errs += _workload_selector(spec, f, "deployment")  # upstream's message says "deployment" here too
    errs += _replica_set_template(spec, f)
    return errs


def _validate_replication_controller(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs = _nonneg(spec.get("minReadySeconds", 0), f"{f}.minReadySeconds")
    sel = spec.get("selector") or {}
    if not sel:
        errs.append(_required(f"{f}.selector"))
    errs += _nonneg(spec.get("replicas", 1), f"{f}.replicas")
    errs += _template_for_replicas(spec.get("template"), LabelSelector.from_set(sel), f"{f}.template",
                                   "ReplicationController")
    return errs


def _validate_statefulset(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    pmp = spec.get("podManagementPolicy", "OrderedReady")
    if pmp == "":
        errs.append(_required(f"{f}.podManagementPolicy"))
    elif pmp not in ("OrderedReady", "Parallel"):
        errs.append(_invalid(f"{f}.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"))
    us = spec.get("updateStrategy") or {"type": "RollingUpdate"}
    ut = us.get("type", "")
    if ut == "":
        errs.append(_required(f"{f}.updateStrategy"))
    elif ut == "OnDelete":
        if us.get("rollingUpdate") is not None:
            errs.append(_invalid(f"{f}.updateStrategy.rollingUpdate", _sts_ru_json(us["rollingUpdate"]),
                                 "only allowed for updateStrategy 'RollingUpdate'"))
    elif ut == "RollingUpdate":
        ru = us.get("rollingUpdate") or {}
        if ru.get("partition") is not None:
            errs += _nonneg(ru["partition"], f"{f}.updateStrategy.rollingUpdate.partition")
    else:
        internal = _OrderedJSON(Type=ut, RollingUpdate=_sts_ru_json(us.get("rollingUpdate")))
        errs.append(_invalid(f"{f}.updateStrategy", internal,
                             "must be 'RollingUpdate' or 'OnDelete'"))
    errs += _nonneg(spec.get("replicas", 1), f"{f}.replicas")
    errs += _nonneg(spec.get("minReadySeconds", 0), f"{f}.minReadySeconds")
    errs += _workload_selector(spec, f, "statefulset")
    tmpl = spec.get("template")
    if tmpl is None:
        return errs + [_required(f"{f}.template")]
    labels = (tmpl.get("metadata") or {}).get("labels")
    sel = spec.get("selector")
    selector = _as_selector(sel)
    if selector is None:
        errs.append(_invalid(f"{f}.selector", _selector_json(sel), ""))
    else:
        if not selector.is_empty() and not selector.matches(labels):
            errs.append(_invalid(f"{f}.template.metadata.labels", labels, SELECTOR_MISMATCH_MSG))
        # ValidatePodTemplateSpecForStatefulSet checks only the template's labels and annotations: the pod spec
        # is not validated, since its volumeMounts may name volumeClaimTemplates rather than volumes.
        tmd = tmpl.get("metadata") or {}
        errs += _labels(tmd.get("labels"), f"{f}.template.labels")
        errs += _annotations(tmd.get("annotations"), f"{f}.template.annotations")
    tspec = tmpl.get("spec") or {}
    rp = tspec.get("restartPolicy") or "Always"
    if rp != "Always":
        errs.append(_not_supported(f"{f}.template.spec.restartPolicy", rp, ("Always",)))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(_forbidden(f"{f}.template.spec.activeDeadlineSeconds",
                               "activeDeadlineSeconds in StatefulSet is not Supported"))
    return errs


def _validate_daemonset(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    sel = spec.get("selector")
    errs = _label_selector(sel, f"{f}.selector")
    tmpl = spec.get("template") or {}
    labels = (tmpl.get("metadata") or {}).get("labels")
    selector = _as_selector(sel)
    if selector is not None and not selector.matches(labels):
        errs.append(_invalid(f"{f}.template.metadata.labels", labels, SELECTOR_MISMATCH_MSG))
    if _selector_empty(sel):
        errs.append(_invalid(f"{f}.selector", _selector_json(sel), "empty selector is invalid for daemonset"))
    # ValidateDaemonSetSpec runs the whole ValidatePodTemplateSpec (unlike a StatefulSet's template)
    errs += _pod_template(tmpl, f"{f}.template")
    tspec = tmpl.get("spec") or {}
    rp = tspec.get("restartPolicy") or "Always"
    if rp != "Always":
        errs.append(_not_supported(f"{f}.template.spec.restartPolicy", rp, ("Always",)))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(_forbidden(f"{f}.template.spec.activeDeadlineSeconds",
                               "activeDeadlineSeconds in DaemonSet is not Supported"))
    errs += _nonneg(spec.get("minReadySeconds", 0), f"{f}.minReadySeconds")
    us = spec.get("updateStrategy") or {}
    if us.get("type", "RollingUpdate") == "RollingUpdate" and us.get("rollingUpdate") is not None:
        ru, p = us["rollingUpdate"], f"{f}.updateStrategy.rollingUpdate"
        mu, ms = ru.get("maxUnavailable", 1), ru.get("maxSurge", 0)
        errs += _positive_int_or_percent(mu, f"{p}.maxUnavailable") + _positive_int_or_percent(ms, f"{p}.maxSurge")
        errs += _not_more_than_100_percent(mu, f"{p}.maxUnavailable") + _not_more_than_100_percent(ms, f"{p}.maxSurge")
        has_u, has_s = _int_or_percent(mu)[0] != 0, _int_or_percent(ms)[0] != 0
        if has_u and has_s:
            errs.append(_invalid(f"{p}.maxSurge", ms, "may not be set when maxUnavailable is non-zero"))
        elif not has_u and not has_s:
            errs.append(_required(f"{p}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    elif us.get("type") not in (None, "RollingUpdate", "OnDelete"):
        errs.append(_not_supported(f"{f}.updateStrategy", us.get("type"), ("OnDelete", "RollingUpdate")))
    if spec.get("revisionHistoryLimit") is not None:
        errs += _nonneg(spec["revisionHistoryLimit"], f"{f}.revisionHistoryLimit")
    return errs


def _job_spec(spec: Mapping[str, Any], f: str) -> list[FieldErr]:
    errs: list[FieldErr] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        if spec.get(key) is not None:
            errs += _nonneg(spec[key], f"{f}.{key}")
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(_not_supported(f"{f}.completionMode", mode, ("NonIndexed", "Indexed")))
        if mode == "Indexed" and spec.get("completions") is None:
            errs.append(_required(f"{f}.completions", "when completion mode is Indexed"))
    tmpl = spec.get("template") or {}
    errs += _pod_template(tmpl, f"{f}.template")
    rp = (tmpl.get("spec") or {}).get("restartPolicy") or ""
    if rp in ("Always", ""):
        errs.append(_required(f"{f}.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'))
    elif rp not in ("OnFailure", "Never"):
        errs.append(_not_supported(f"{f}.template.spec.restartPolicy", rp, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and rp != "Never":
        errs.append(_invalid(f"{f}.template.spec.restartPolicy", rp,
                             'only "Never" is supported when podFailurePolicy is specified'))
    sel = spec.get("selector")
    if sel is not None:
        errs += _label_selector(sel, f"{f}.selector")
        labels = (tmpl.get("metadata") or {}).get("labels")
        selector = _as_selector(sel)
        if selector is not None and not selector.matches(labels):
            errs.append(_invalid(f"{f}.template.metadata.labels", labels, SELECTOR_MISMATCH_MSG))
    return errs


def _validate_job(obj: Mapping[str, Any]) -> list[FieldErr]:
    return _job_spec(obj.get("spec") or {}, "spec")


def _validate_cronjob(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    name = (obj.get("metadata") or {}).get("name") or ""
    if len(name) > 52:
        errs.append(_invalid("metadata.name", name, "must be no more than 52 characters"))
    if not spec.get("schedule"):
        errs.append(_required(f"{f}.schedule"))
    cp = spec.get("concurrencyPolicy")
    if cp is not None and cp not in ("Allow", "Forbid", "Replace"):
        errs.append(_not_supported(f"{f}.concurrencyPolicy", cp, ("Allow", "Forbid", "Replace")))
    for key in ("startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if spec.get(key) is not None:
            errs += _nonneg(spec[key], f"{f}.{key}")
    jt = spec.get("jobTemplate") or {}
    errs += _labels((jt.get("metadata") or {}).get("labels"), f"{f}.jobTemplate.metadata.labels")
    errs += _job_spec(jt.get("spec") or {}, f"{f}.jobTemplate.spec")
    return errs


# --- core: services, nodes, namespaces, quota, limit ranges, config -------------------------------------

_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _port_num_or_name(v: Any, f: str) -> list[FieldErr]:
    if isinstance(v, int) and not isinstance(v, bool):
        return [_invalid(f, v, m) for m in _is_valid_port_num(v)]
    if isinstance(v, str):
        return [_invalid(f, v, m) for m in _is_valid_port_name(v)]
    return []


def _validate_service(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    t = spec.get("type", "ClusterIP")
    headless = spec.get("clusterIP") == "None"
    ports = spec.get("ports") or []
    if not ports and not headless and t != "ExternalName":
        errs.append(_required(f"{f}.ports"))
    if t == "ExternalName" and not spec.get("externalName"):
        errs.append(_required(f"{f}.externalName"))
    names: set[str] = set()
    for i, p in enumerate(ports):
        pp = f"{f}.ports[{i}]"
        name = p.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(_required(f"{pp}.name"))
        elif name:
            errs += _dns_label(name, f"{pp}.name")
            if name in names:
                errs.append(_duplicate(f"{pp}.name", name))
            names.add(name)
        errs += [_invalid(f"{pp}.port", p.get("port", 0), m) for m in _is_valid_port_num(p.get("port", 0))]
        proto = p.get("protocol", "TCP")
        if not proto:
            errs.append(_required(f"{pp}.protocol"))
        elif proto not in _PROTOCOLS:
            errs.append(_not_supported(f"{pp}.protocol", proto, _PROTOCOLS))
        if p.get("targetPort") is not None:
            errs += _port_num_or_name(p["targetPort"], f"{pp}.targetPort")
        if t == "ClusterIP" and p.get("nodePort"):
            errs.append(_forbidden(f"{pp}.nodePort", "may not be used when `type` is 'ClusterIP'"))
    if spec.get("selector") is not None:
        errs += _labels(spec["selector"], f"{f}.selector")
    if t == "":
        errs.append(_required(f"{f}.type"))
    elif t not in _SERVICE_TYPES:
        errs.append(_not_supported(f"{f}.type", t, _SERVICE_TYPES))
    return errs


def _validate_node(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec = obj.get("spec") or {}
    errs: list[FieldErr] = []
    seen: dict[str, set] = {}
    for i, t in enumerate(spec.get("taints") or ()):
        p = f"spec.taints[{i}]"
        key, value, effect = t.get("key") or "", t.get("value") or "", t.get("effect") or ""
        errs += [_invalid(f"{p}.key", key, m) for m in is_qualified_name(key)]
        msgs = is_valid_label_value(value)
        if msgs:
            errs.append(_invalid(f"{p}.value", value, ";".join(msgs)))
        if not effect:
            errs.append(_required(f"{p}.effect"))
        elif effect not in _TAINT_EFFECTS:
            errs.append(_not_supported(f"{p}.effect", effect, _TAINT_EFFECTS))
        if key in seen.get(effect, set()):
            errs.append(FieldErr(DUPLICATE, p, _taint_json(t), "taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)
    return errs


def _validate_node_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldErr]:
    spec, ospec = obj.get("spec") or {}, old.get("spec") or {}
    errs: list[FieldErr] = []
    oc, nc = list(ospec.get("podCIDRs") or ()), list(spec.get("podCIDRs") or ())
    if oc and oc != nc:
        errs.append(_forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'))
    if ospec.get("providerID") and ospec.get("providerID") != spec.get("providerID"):
        errs.append(_forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    return errs


def _validate_namespace(obj: Mapping[str, Any]) -> list[FieldErr]:
    errs: list[FieldErr] = []
    for name in ((obj.get("spec") or {}).get("finalizers")) or ():
        errs += [_invalid("spec.finalizers", name, m) for m in is_qualified_name(name)]
        if "/" not in name and name != "kubernetes" and not is_qualified_name(name):
            errs.append(_invalid("spec.finalizers", name, "name is neither a standard finalizer name nor is it "
                                                          "fully qualified"))
    return errs


_STANDARD_QUOTA_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
    "services.nodeports", "services.loadbalancers", "cpu", "memory", "ephemeral-storage", "requests.cpu",
    "requests.memory", "requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage"})
_INTEGER_RESOURCES = frozenset({"pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
                                "configmaps", "persistentvolumeclaims", "services.nodeports",
                                "services.loadbalancers"})


def _validate_resource_quota(obj: Mapping[str, Any]) -> list[FieldErr]:
    errs: list[FieldErr] = []
    for k, v in (((obj.get("spec") or {}).get("hard")) or {}).items():
        p = f"spec.hard[{k}]"
        if "/" not in k and k not in _STANDARD_QUOTA_RESOURCES and not k.startswith(("hugepages-",
                                                                                     "requests.hugepages-")):
            errs.append(_invalid(p, k, "must be a standard resource for quota"))
            continue
        try:
            q = Quantity.parse(v, k)
        except KubenotesError as e:
            errs.append(_invalid(p, v, str(getattr(e, "message", e))))
            continue
        if q.sign() < 0:
            errs.append(_invalid(p, str(q), IS_NEGATIVE_ERROR_MSG))
        if (k in _INTEGER_RESOURCES or k.startswith("count/")) and q.milli_value() % 1000 != 0:
            errs.append(_invalid(p, q, IS_NOT_INTEGER_ERROR_MSG))
    return errs


_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")


def _validate_limit_range(obj: Mapping[str, Any]) -> list[FieldErr]:
    errs: list[FieldErr] = []
    seen_types: set[str] = set()
    for i, item in enumerate(((obj.get("spec") or {}).get("limits")) or ()):
        p = f"spec.limits[{i}]"
        t = item.get("type") or ""
        msgs = is_qualified_name(t)
        if msgs:
            errs += [_invalid(f"{p}.type", t, m) for m in msgs]
        elif "/" not in t and t not in _LIMIT_TYPES:
            errs.append(_invalid(f"{p}.type", t, "must be a standard limit type or fully qualified"))
        if t in seen_types:
            errs.append(_duplicate(f"{p}.type", t))
        seen_types.add(t)
        groups: dict[str, dict[str, Quantity]] = {}
        keys: list[str] = []
        for g in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            if t == "Pod" and g in ("default", "defaultRequest"):
                if item.get(g):
                    errs.append(_forbidden(f"{p}.{g}", "may not be specified when `type` is 'Pod'"))
                continue
            parsed = {}
            for k, v in (item.get(g) or {}).items():
                try:
                    parsed[k] = Quantity.parse(v, k)
                except KubenotesError as e:
                    errs.append(_invalid(f"{p}.{g}[{k}]", v, str(getattr(e, "message", e))))
                    continue
                if k not in keys:
                    keys.append(k)
            groups[g] = parsed
        if t == "PersistentVolumeClaim" and "storage" not in groups.get("min", {}) and \
                "storage" not in groups.get("max", {}):
            errs.append(_required(f"{p}.limits", "either minimum or maximum storage value is required, but neither "
                                                 "was provided"))
        for k in keys:
            mn, mx = groups.get("min", {}).get(k), groups.get("max", {}).get(k)
            df, dr = groups.get("default", {}).get(k), groups.get("defaultRequest", {}).get(k)
            ratio = groups.get("maxLimitRequestRatio", {}).get(k)
            if mn is not None and mx is not None and mn.cmp(mx) > 0:
                errs.append(_invalid(f"{p}.min[{k}]", mn, f"min value {mn} is greater than max value {mx}"))
            if dr is not None and mn is not None and mn.cmp(dr) > 0:
                errs.append(_invalid(f"{p}.defaultRequest[{k}]", dr,
                                     f"min value {mn} is greater than default request value {dr}"))
            if dr is not None and mx is not None and dr.cmp(mx) > 0:
                errs.append(_invalid(f"{p}.defaultRequest[{k}]", dr,
                                     f"default request value {dr} is greater than max value {mx}"))
            if dr is not None and df is not None and dr.cmp(df) > 0:
                errs.append(_invalid(f"{p}.defaultRequest[{k}]", dr,
                                     f"default request value {dr} is greater than default limit value {df}"))
            if df is not None and mn is not None and mn.cmp(df) > 0:
                errs.append(_invalid(f"{p}.default[{k}]", mn, f"min value {mn} is greater than default value {df}"))
            if df is not None and mx is not None and df.cmp(mx) > 0:
                errs.append(_invalid(f"{p}.default[{k}]", mx, f"default value {df} is greater than max value {mx}"))
            if ratio is not None and ratio.cmp(Quantity.of_int(1)) < 0:
                errs.append(_invalid(f"{p}.maxLimitRequestRatio[{k}]", ratio, f"ratio {ratio} is less than 1"))
            if ratio is not None and mn is not None and mx is not None and mn.milli_value() > 0:
                limit = mx.milli_value() / mn.milli_value()
                if ratio.milli_value() / 1000 > limit:
                    errs.append(_invalid(f"{p}.maxLimitRequestRatio[{k}]", ratio,
                                         f"ratio {ratio} is greater than max/min = {limit:.6f}"))
    return errs


def _validate_pdb(obj: Mapping[str, Any]) -> list[FieldErr]:
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    mn, mu = spec.get("minAvailable"), spec.get("maxUnavailable")
    if mn is not None and mu is not None:
        internal = _OrderedJSON(MinAvailable=mn, Selector=_selector_json(spec.get("selector")), MaxUnavailable=mu,
                                UnhealthyPodEvictionPolicy=spec.get("unhealthyPodEvictionPolicy"))
        errs.append(_invalid(f, internal, "minAvailable and maxUnavailable cannot be both set"))
    for key, v in (("minAvailable", mn), ("maxUnavailable", mu)):
        if v is not None:
            errs += _positive_int_or_percent(v, f"{f}.{key}") + _not_more_than_100_percent(v, f"{f}.{key}")
    errs += _label_selector(spec.get("selector"), f"{f}.selector")
    uhp = spec.get("unhealthyPodEvictionPolicy")
    if uhp is not None and uhp not in ("AlwaysAllow", "IfHealthyBudget"):
        errs.append(_not_supported(f"{f}.unhealthyPodEvictionPolicy", uhp, ("AlwaysAllow", "IfHealthyBudget")))
    return errs


def _validate_data_keys(obj: Mapping[str, Any]) -> list[FieldErr]:
    errs: list[FieldErr] = []
    size = 0
    for key in ("data", "binaryData", "stringData"):
        for k, v in (obj.get(key) or {}).items():
            errs += [_invalid(f"{key}[{k}]", k, m) for m in _is_config_map_key(k)]
            raw = len(str(v or "").encode())  # []byte fields hold base64: count the bytes it encodes
            size += raw * 3 // 4 if (key, obj.get("kind")) in (("binaryData", "ConfigMap"), ("data", "Secret")) else raw
    if size > MAX_SECRET_SIZE:  # ValidateConfigMap (the whole object: "[]") / ValidateSecret ("data")
        errs.append(FieldErr(TOO_LONG, "data" if obj.get("kind") == "Secret" else "[]", _OMIT,
                             f"may not be more than {MAX_SECRET_SIZE} bytes"))
    return errs


#: ``core.MaxSecretSize``: the most data a ConfigMap or a Secret may hold (1 MiB).
MAX_SECRET_SIZE = 1024 * 1024


def _validate_priority_class(obj: Mapping[str, Any]) -> list[FieldErr]:
    from kubenotes.api.priority import HIGHEST_USER_DEFINABLE_PRIORITY, system_priority_classes

    errs: list[FieldErr] = []
    name = (obj.get("metadata") or {}).get("name") or ""
    value = int(obj.get("value") or 0)
    if name.startswith("system-"):
        known = {pc.metadata.name: pc.value for pc in system_priority_classes()}
        if name not in known:
            errs.append(_forbidden("metadata.name", "priority class names with 'system-' prefix are reserved for "
                                                    f"system use only. error: name {name} is not a known system "
                                                    "priority class"))
        elif known[name] != value:
            errs.append(_forbidden("metadata.name", "priority class names with 'system-' prefix are reserved for "
                                                    f"system use only. error: value of {name} PriorityClass must "
                                                    f"be {known[name]}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(_forbidden("value", f"maximum allowed value of a user defined priority is "
                                        f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    pp = obj.get("preemptionPolicy")
    if pp is not None and pp not in ("Never", "PreemptLowerPriority"):
        errs.append(_not_supported("preemptionPolicy", pp, ("Never", "PreemptLowerPriority")))
    return errs


#: ``DenyAction``, ``AllowAction``, in the order upstream's NotSupported lists them.
_PARAMETER_NOT_FOUND_ACTIONS = ("Deny", "Allow")


def _validate_param_ref(ref: Any, p: str) -> list[FieldErr]:
    """``validateParamRef``: name xor selector, ``parameterNotFoundAction`` required, ``Deny`` or ``Allow``."""
    errs: list[FieldErr] = []
    if ref is None:
        return errs
    name, sel = ref.get("name") or "", ref.get("selector")
    if name:
        errs += [_invalid(f"{p}.name", name, m) for m in validate_path_segment_name(name, False)]
        if sel is not None:
            errs.append(_forbidden(f"{p}.name", "name and selector are mutually exclusive"))
    if ref.get("namespace"):
        errs += [_invalid(f"{p}.namespace", ref["namespace"], m)
                 for m in validate_path_segment_name(ref["namespace"], False)]
    if sel is not None:
        errs += _label_selector(sel, f"{p}.selector")
        if name:
            errs.append(_forbidden(f"{p}.selector", "name and selector are mutually exclusive"))
    if not name and sel is None:
        errs.append(_required(p, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        errs.append(_required(f"{p}.parameterNotFoundAction"))
    elif action not in _PARAMETER_NOT_FOUND_ACTIONS:
        errs.append(_not_supported(f"{p}.parameterNotFoundAction", action, _PARAMETER_NOT_FOUND_ACTIONS))
    return errs


def _validate_policy_name(spec: Mapping[str, Any]) -> list[FieldErr]:
    """A binding's ``policyName``: required, a DNS subdomain."""
    name = spec.get("policyName") or ""
    if not name:
        return [_required("spec.policyName")]
    return [_invalid("spec.policyName", name, m) for m in name_is_dns_subdomain(name, False)]


def _validate_vap_binding(obj: Mapping[str, Any]) -> list[FieldErr]:
    """The part of ``validateValidatingAdmissionPolicyBinding`` the model checks: ``policyName`` and ``validateParamRef``."""
    spec = obj.get("spec") or {}
    return _validate_policy_name(spec) + _validate_param_ref(spec.get("paramRef"), "spec.paramRef")


# --- admissionregistration: rules, match resources, CEL expressions (admissionregistration validation.go) --------

#: ``supportedOperations.List()`` (sorted), and ``supportedMutatingOperations`` (a policy cannot mutate a DELETE).
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_MUTATING_OPERATIONS = ("*", "CONNECT", "CREATE", "UPDATE")
_RULE_SCOPES = ("*", "Cluster", "Namespaced")
_MATCH_POLICIES = ("Equivalent", "Exact")
_FAILURE_POLICIES = ("Fail", "Ignore")
_REINVOCATION_POLICIES = ("IfNeeded", "Never")
_PATCH_TYPES = ("ApplyConfiguration", "JSONPatch")
#: ``field.TooMany`` on ``matchConditions`` past this many.
MAX_MATCH_CONDITIONS = 64
#: What each CEL environment declares (``plugin/cel/compile.go`` ``mustBuildEnvs``): every admission expression
#: sees these; ``params`` only with a ``paramKind``, ``variables`` only with variable composition.
_CEL_BASE_VARIABLES = frozenset({"object", "oldObject", "request", "namespaceObject", "authorizer"})
_CEL_IDENT = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_CEL_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                           "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
                           "void", "while"})


def _validate_resources(resources: list, p: str) -> list[FieldErr]:
    """``validateResources``: ``x/*``, ``*/x``, ``*/*`` and ``*`` combinations."""
    errs: list[FieldErr] = []
    if not resources:
        errs.append(_required(p))
    with_wild_sub: set[str] = set()
    sub_with_wild_res: set[str] = set()
    double = single = plain_res = False
    for i, rs in enumerate(resources):
        if rs == "":
            errs.append(_required(f"{p}[{i}]"))
            continue
        double = double or rs == "*/*"
        single = single or rs == "*"
        if "/" not in rs:
            plain_res = rs != "*"
            continue
        res, sub = rs.split("/", 1)
        if res in with_wild_sub:
            errs.append(_invalid(f"{p}[{i}]", rs, f"if '{res}/*' is present, must not specify {rs}"))
        if sub in sub_with_wild_res:
            errs.append(_invalid(f"{p}[{i}]", rs, f"if '*/{sub}' is present, must not specify {rs}"))
        if sub == "*":
            with_wild_sub.add(res)
        if res == "*":
            sub_with_wild_res.add(sub)
    if len(resources) > 1 and double:
        errs.append(_invalid(p, resources, "if '*/*' is present, must not specify other resources"))
    if single and plain_res:
        errs.append(_invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
    return errs


def _validate_rule_with_operations(rule: Mapping[str, Any], p: str) -> list[FieldErr]:
    """``validateRuleWithOperations`` and ``validateRule`` (subresources allowed)."""
    errs: list[FieldErr] = []
    ops = rule.get("operations") or []
    if not ops:
        errs.append(_required(f"{p}.operations"))
    if len(ops) > 1 and "*" in ops:
        errs.append(_invalid(f"{p}.operations", ops, "if '*' is present, must not specify other operations"))
    for i, op in enumerate(ops):
        if op not in _OPERATIONS:
            errs.append(_not_supported(f"{p}.operations[{i}]", op, _OPERATIONS))
    groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
    if not groups:
        errs.append(_required(f"{p}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        errs.append(_invalid(f"{p}.apiGroups", groups, "if '*' is present, must not specify other API groups"))
    if not versions:
        errs.append(_required(f"{p}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        errs.append(_invalid(f"{p}.apiVersions", versions, "if '*' is present, must not specify other API versions"))
    errs += [_required(f"{p}.apiVersions[{i}]") for i, v in enumerate(versions) if v == ""]
    errs += _validate_resources(rule.get("resources") or [], f"{p}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in _RULE_SCOPES:
        errs.append(_not_supported(f"{p}.scope", scope, _RULE_SCOPES))
    return errs


def _validate_match_resources(mr: Any, p: str) -> list[FieldErr]:
    """``validateMatchResources``, after defaulting (``matchPolicy`` Equivalent, empty selectors).

    ``SetDefaults_MatchResources`` fills ``matchPolicy`` and both selectors before validation, so their
    ``Required`` errors cannot happen through the API: only bad values are reported.
    """
    errs: list[FieldErr] = []
    if mr is None:
        return errs
    mp = mr.get("matchPolicy")
    if mp is not None and mp not in _MATCH_POLICIES:
        errs.append(_not_supported(f"{p}.matchPolicy", mp, _MATCH_POLICIES))
    errs += _label_selector(mr.get("namespaceSelector"), f"{p}.namespaceSelector")
    errs += _label_selector(mr.get("objectSelector"), f"{p}.objectSelector")
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(mr.get(key) or ()):
            rp = f"{p}.{key}[{i}]"
            seen: set[str] = set()
            for j, rn in enumerate(rule.get("resourceNames") or ()):
                errs += [_invalid(f"{rp}.resourceNames[{j}]", rn, m) for m in validate_path_segment_name(rn, False)]
                if rn in seen:
                    errs.append(_duplicate(f"{rp}.resourceNames[{j}]", rn))
                seen.add(rn)
            errs += _validate_rule_with_operations(rule, rp)
    return errs


def _mutating_operations(mr: Any, p: str) -> list[FieldErr]:
    """"It is only possible to mutate create and update requests": one error per DELETE, at the unindexed path."""
    return [_not_supported(p, op, _MUTATING_OPERATIONS)
            for rule in ((mr or {}).get("resourceRules") or ()) for op in (rule.get("operations") or ())
            if op not in _MUTATING_OPERATIONS]


def _compile_errors(path: str, expr: str, declared: frozenset | None = None,
                    returns: tuple[str, ...] = ()) -> list[FieldErr]:
    """A CEL expression's compile errors, as ``convertCELErrorToValidationError`` reports them.

    ``declared``: the variables its environment declares; a reference to another name is cel-go's
    ``undeclared reference`` error (:func:`kubenotes.apiserver.admission.cel.compile_issues`).
    ``returns``: the types the expression must evaluate to (``ReturnTypes()``: ``("bool",)`` for a validation
    or a match condition); one the model's subset can infer (:func:`~kubenotes.apiserver.admission.cel.output_type`)
    and outside them is ``must evaluate to bool`` (``must evaluate to one of [string null_type]``); an
    expression whose type depends on the object (``dyn`` to the model) passes.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go
    (CompileCELExpression); pkg/apis/admissionregistration/validation/validation.go
    (convertCELErrorToValidationError)

    Examples
    --------
    >>> [str(e) for e in _compile_errors("m[0].expression", "size(object.items) + 1", returns=("bool",))]
    ['m[0].expression: Invalid value: "size(object.items) + 1": must evaluate to bool']
    """
    from kubenotes.apiserver.admission.cel import (CELError, compile_expression, compile_issues, output_type,
                                                   syntax_error_text)

    try:
        tree = compile_expression(expr)
        issues = compile_issues(expr, declared) if declared is not None else ""
    except CELError as e:
        return [_invalid(path, expr, f"compilation failed: {syntax_error_text(expr, e)}")]
    if issues:
        return [_invalid(path, expr, f"compilation failed: {issues}")]
    got = output_type(tree) if returns else None
    if got is not None and got not in returns:
        want = returns[0] if len(returns) == 1 else "one of [" + " ".join(returns) + "]"
        return [_invalid(path, expr, f"must evaluate to {want}")]
    return []


def validate_match_conditions(conds: Any, p: str, declared: frozenset) -> list[FieldErr]:
    """``validateMatchConditions``: at most 64, each with a compiling expression and a unique qualified name.

    Parameters
    ----------
    conds : list of dict or None
        The ``matchConditions``.
    p : str
        Their field path (``webhooks[0].matchConditions``).
    declared : frozenset of str
        The variables their CEL environment declares (a webhook's have no ``params``).

    Returns
    -------
    list of FieldErr

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/admissionregistration/validation/validation.go
    (validateMatchConditions, validateMatchCondition, validateMatchConditionsExpression)

    Examples
    --------
    >>> webhook = frozenset({"object", "oldObject", "request", "namespaceObject", "authorizer"})
    >>> [str(e) for e in validate_match_conditions([{"name": "a", "expression": "true"},
    ...                                             {"name": "a", "expression": " "}], "m", webhook)]
    ['m[1].expression: Required value', 'm[1].name: Duplicate value: "a"']
    """
    errs: list[FieldErr] = []
    conds = list(conds or ())
    if len(conds) > MAX_MATCH_CONDITIONS:
        errs.append(FieldErr(TOO_MANY, p, len(conds), f"must have at most {MAX_MATCH_CONDITIONS} items"))
    names: set[str] = set()
    for i, c in enumerate(conds):
        expr, name = (c.get("expression") or "").strip(), c.get("name") or ""
        if not expr:
            errs.append(_required(f"{p}[{i}].expression"))
        else:
            errs += _compile_errors(f"{p}[{i}].expression", expr, declared, ("bool",))
        if not name:
            errs.append(_required(f"{p}[{i}].name"))
        else:
            errs += [_invalid(f"{p}[{i}].name", name, m) for m in is_qualified_name(name)]
            if name in names:
                errs.append(_duplicate(f"{p}[{i}].name", name))
            names.add(name)
    return errs


def _validate_variable(v: Mapping[str, Any], p: str, declared: frozenset) -> list[FieldErr]:
    """``validateVariable``: a CEL identifier for a name, a compiling expression."""
    errs: list[FieldErr] = []
    name, expr = v.get("name") or "", v.get("expression") or ""
    if not name.strip():
        errs.append(_required(f"{p}.name", "name is not specified"))
    elif not _CEL_IDENT.match(name) or name in _CEL_RESERVED:
        errs.append(_invalid(f"{p}.name", name, "must be a valid CEL identifier"))
    if not expr.strip():
        errs.append(_required(f"{p}.expression", "expression is not specified"))
    else:
        errs += _compile_errors(f"{p}.expression", expr, declared)
    return errs


def _validate_param_kind(pk: Mapping[str, Any], p: str) -> list[FieldErr]:
    """``validateParamKind``: an ``apiVersion`` (group a DNS subdomain, version a DNS-1035 label) and a ``kind``."""
    errs: list[FieldErr] = []
    av, kind = pk.get("apiVersion") or "", pk.get("kind") or ""
    if not av:
        errs.append(_required(f"{p}.apiVersion"))
    elif av.count("/") > 1:
        errs.append(_invalid(f"{p}.apiVersion", av, f"unexpected GroupVersion string: {av}"))
    else:
        group, _, version = av.rpartition("/") if av != "/" else ("", "", "")
        if group:
            msgs = is_dns1123_subdomain(group)
            if msgs:
                errs.append(_invalid(f"{p}.apiVersion", group, ",".join(msgs)))
        if not version:
            errs.append(_invalid(f"{p}.apiVersion", av, "version must be specified"))
        elif is_dns1035_label(version):
            errs.append(_invalid(f"{p}.apiVersion", version, ",".join(is_dns1035_label(version))))
    if not kind:
        errs.append(_required(f"{p}.kind"))
    elif is_dns1035_label(kind.lower()):
        errs.append(_invalid(f"{p}.kind", kind, "may have mixed case, but should otherwise match: "
                                                 + ",".join(is_dns1035_label(kind.lower()))))
    return errs


def _validate_mutation(m: Mapping[str, Any], p: str, declared: frozenset) -> list[FieldErr]:
    """``validateMutation``: a ``patchType`` and its expression; the other one is invalid."""
    pt = m.get("patchType")
    if not pt:
        return [_required(f"{p}.patchType")]
    if pt not in _PATCH_TYPES:
        return [_not_supported(f"{p}.patchType", pt, _PATCH_TYPES)]
    field, other = ("jsonPatch", "applyConfiguration") if pt == "JSONPatch" else ("applyConfiguration", "jsonPatch")
    errs: list[FieldErr] = []
    if m.get(field) is None:
        errs.append(_required(f"{p}.{field}", f"must be specified when patchType is {pt}"))
    else:
        expr = (m[field].get("expression") or "").strip()
        if not expr:
            errs.append(_required(f"{p}.{field}.expression"))
        else:
            errs += _compile_errors(f"{p}.{field}.expression", expr, declared)
    if m.get(other) is not None:
        errs.append(_invalid(f"{p}.{other}", "{" + other + "}", f"must not be specified when patchType is {pt}"))
    return errs


def _policy_spec_head(spec: dict) -> tuple[list[FieldErr], bool]:
    """What both admission policy kinds' spec validations check first: failurePolicy, paramKind, matchConstraints.

    Returns the errors and whether the policy has params (``paramKind`` set).
    """
    errs: list[FieldErr] = []
    fp = spec.get("failurePolicy")
    if fp is not None and fp not in _FAILURE_POLICIES:
        errs.append(_not_supported("spec.failurePolicy", fp, _FAILURE_POLICIES))
    has_params = spec.get("paramKind") is not None
    if has_params:
        errs += _validate_param_kind(spec["paramKind"], "spec.paramKind")
    mc = spec.get("matchConstraints")
    if mc is None:
        errs.append(_required("spec.matchConstraints"))
    else:
        errs += _validate_match_resources(mc, "spec.matchConstraints")
        if not mc.get("resourceRules"):
            errs.append(_required("spec.matchConstraints.resourceRules"))
    return errs, has_params


def _validate_map(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``validateMutatingAdmissionPolicySpec`` (admissionregistration validation.go).

    In upstream's order: ``failurePolicy``, ``paramKind``, ``matchConstraints`` (required, with at least one
    ``resourceRules`` entry, every rule valid, no ``DELETE``), ``matchConditions``, ``variables``, at least one
    mutation (each with its ``patchType``'s expression and not the other one), ``reinvocationPolicy`` (required,
    no default). Expressions must compile in their environment: ``params`` only with a ``paramKind``, no
    ``variables`` in ``matchConditions``.

    Returns
    -------
    list of FieldErr

    Notes
    -----
    ``failurePolicy`` (``Fail``), ``matchPolicy`` and the selectors are defaulted upstream before validation, so
    their ``Required`` errors are not reported. Expressions are compiled with the model's CEL subset: a syntax
    error has cel-go's position and caret but the model's message (``compilation failed: ERROR:
    <input>:1:12: Syntax error: unexpected '<EOF>'``, not ANTLR's ``mismatched input``), an undeclared
    variable's is cel-go's; fields are not type-checked (upstream's mutation environment types ``Object`` fields
    dynamically too).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/admissionregistration/validation/validation.go
    (validateMutatingAdmissionPolicySpec, validateMutation, validateApplyConfiguration, validateJSONPatch)
    kubernetes/kubernetes@v1.34.0 pkg/apis/admissionregistration/v1beta1/defaults.go

    Examples
    --------
    >>> [str(e) for e in _validate_map({"metadata": {"name": "p"}, "spec": {"mutations": [{"patchType": "Merge"}]}})]
    ['spec.matchConstraints: Required value', 'spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"', 'spec.reinvocationPolicy: Required value']
    """
    spec = obj.get("spec") or {}
    errs, has_params = _policy_spec_head(spec)
    if spec.get("matchConstraints") is not None:
        errs += _mutating_operations(spec["matchConstraints"], "spec.matchConstraints.resourceRules.operations")
    stateless = _CEL_BASE_VARIABLES | ({"params"} if has_params else set())
    composited = stateless | {"variables"}
    errs += validate_match_conditions(spec.get("matchConditions"), "spec.matchConditions", stateless)
    for i, v in enumerate(spec.get("variables") or ()):
        errs += _validate_variable(v, f"spec.variables[{i}]", composited)
    mutations = spec.get("mutations") or []
    if not mutations:
        errs.append(_required("spec.mutations", "mutations must contain at least one item"))
    for i, m in enumerate(mutations):
        errs += _validate_mutation(m, f"spec.mutations[{i}]", composited)
    rp = spec.get("reinvocationPolicy")
    if not rp:
        errs.append(_required("spec.reinvocationPolicy"))
    elif rp not in _REINVOCATION_POLICIES:
        errs.append(_not_supported("spec.reinvocationPolicy", rp, _REINVOCATION_POLICIES))
    return errs


def _validate_map_binding(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``validateMutatingAdmissionPolicyBindingSpec``: ``policyName``, ``paramRef``, ``matchResources`` (no DELETE).

    Examples
    --------
    >>> [str(e) for e in _validate_map_binding({"spec": {"policyName": "p", "matchResources": {"resourceRules": [
    ...     {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["pods"]}]}}})]
    ['spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"']
    """
    spec = obj.get("spec") or {}
    errs = _validate_policy_name(spec) + _validate_param_ref(spec.get("paramRef"), "spec.paramRef")
    mr = spec.get("matchResources")
    errs += _validate_match_resources(mr, "spec.matchResources")
    if mr is not None:
        errs += _mutating_operations(mr, "spec.matchResources.resourceRules.operations")
    return errs


#: ``supportedValidationPolicyReason.List()`` and ``validValidationActions.List()`` (sorted).
_VALIDATION_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")
#: ``maxAuditAnnotations`` and ``maxAuditAnnotationValueExpressionLength`` (5 KiB).
MAX_AUDIT_ANNOTATIONS = 20
MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024


def _validate_validation(v: Mapping[str, Any], p: str, declared: frozenset, message_declared: frozenset
                         ) -> list[FieldErr]:
    """``validateValidation``: an expression, an optional ``messageExpression``, a one-line ``message``, a reason."""
    errs: list[FieldErr] = []
    expr, msg, mexpr = v.get("expression") or "", v.get("message") or "", v.get("messageExpression") or ""
    if not expr.strip():
        errs.append(_required(f"{p}.expression", "expression is not specified"))
    else:
        errs += _compile_errors(f"{p}.expression", expr, declared, ("bool",))
    if mexpr and not mexpr.strip():
        errs.append(_invalid(f"{p}.messageExpression", mexpr, "must be non-empty if specified"))
    elif mexpr.strip():
        errs += _compile_errors(f"{p}.messageExpression", mexpr, message_declared, ("string",))
    if msg and not msg.strip():
        errs.append(_invalid(f"{p}.message", msg, "must be non-empty if specified"))
    elif re.search(r"[\n\r]", msg.strip()):
        errs.append(_invalid(f"{p}.message", msg, "must not contain line breaks"))
    reason = v.get("reason")
    if reason is not None and reason not in _VALIDATION_REASONS:
        errs.append(_not_supported(f"{p}.reason", reason, _VALIDATION_REASONS))
    return errs


def _validate_audit_annotation(a: Mapping[str, Any], policy_name: str, p: str, declared: frozenset
                               ) -> list[FieldErr]:
    """``validateAuditAnnotation``: ``<policy name>/<key>`` a qualified name, a ``valueExpression`` of at most 5 KiB."""
    errs: list[FieldErr] = []
    key = a.get("key") or ""
    if policy_name:
        errs += [_invalid(f"{p}.key", f"{policy_name}/{key}", m) for m in is_qualified_name(f"{policy_name}/{key}")]
    else:
        errs.append(_invalid(f"{p}.key", key, "requires metadata.name be non-empty"))
    value = (a.get("valueExpression") or "").strip()
    if not value:
        errs.append(_required(f"{p}.valueExpression", "valueExpression is not specified"))
    elif len(value) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH:
        errs.append(_required(f"{p}.valueExpression",
                              f"must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"))
    else:
        errs += _compile_errors(f"{p}.valueExpression", value, declared, ("string", "null_type"))
    return errs


def _validate_vap(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``validateValidatingAdmissionPolicySpec``: the policy's constraints, conditions, variables and validations.

    In upstream's order: ``failurePolicy``, ``paramKind``, ``matchConstraints`` (required, with
    ``resourceRules``), ``matchConditions``, ``variables``, then at least one of ``validations`` and
    ``auditAnnotations`` (at most 20, unique keys). ``failurePolicy``, ``matchPolicy`` and the selectors are
    defaulted before validation (v1 ``defaults.go``), so only bad values are reported for them.

    Examples
    --------
    >>> [str(e) for e in _validate_vap({"metadata": {"name": "p"}, "spec": {"matchConstraints": {"resourceRules": [
    ...     {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]}}})]
    ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item']
    """
    spec = obj.get("spec") or {}
    errs, has_params = _policy_spec_head(spec)
    stateless = _CEL_BASE_VARIABLES | ({"params"} if has_params else set())
    composited = stateless | {"variables"}
    errs += validate_match_conditions(spec.get("matchConditions"), "spec.matchConditions", stateless)
    for i, v in enumerate(spec.get("variables") or ()):
        errs += _validate_variable(v, f"spec.variables[{i}]", composited)
    validations, annotations = spec.get("validations") or [], spec.get("auditAnnotations")
    if not validations and not annotations:
        for key in ("validations", "auditAnnotations"):
            errs.append(_required(f"spec.{key}", "validations or auditAnnotations must contain at least one item"))
        return errs
    message_declared = composited - {"authorizer"}  # messageExpression: no authorizer upstream
    for i, v in enumerate(validations):
        errs += _validate_validation(v, f"spec.validations[{i}]", composited, message_declared)
    if annotations:
        if len(annotations) > MAX_AUDIT_ANNOTATIONS:
            errs.append(_invalid("spec.auditAnnotations", annotations,
                                 f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"))
        keys: set[str] = set()
        name = (obj.get("metadata") or {}).get("name") or ""
        for i, a in enumerate(annotations):
            errs += _validate_audit_annotation(a, name, f"spec.auditAnnotations[{i}]", composited)
            if (a.get("key") or "") in keys:
                errs.append(_duplicate(f"spec.auditAnnotations[{i}].key", a.get("key") or ""))
            keys.add(a.get("key") or "")
    return errs


def _validate_vap_binding_spec(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``validateValidatingAdmissionPolicyBindingSpec``: ``policyName``, ``paramRef``, ``matchResources``, actions.

    Examples
    --------
    >>> b = {"spec": {"policyName": "p", "validationActions": ["Deny", "Warn", "Deny"]}}
    >>> [str(e) for e in _validate_vap_binding_spec(b)]
    ['spec.validationActions[2]: Duplicate value: "Deny"', 'spec.validationActions: Invalid value: ["Deny","Warn","Deny"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)']
    """
    spec = obj.get("spec") or {}
    errs = _validate_vap_binding(obj) + _validate_match_resources(spec.get("matchResources"), "spec.matchResources")
    actions = spec.get("validationActions") or []
    seen: set[str] = set()
    for i, a in enumerate(actions):
        if a not in _VALIDATION_ACTIONS:
            errs.append(_not_supported(f"spec.validationActions[{i}]", a, _VALIDATION_ACTIONS))
        if a in seen:
            errs.append(_duplicate(f"spec.validationActions[{i}]", a))
        seen.add(a)
    if {"Deny", "Warn"} <= seen:
        errs.append(_invalid("spec.validationActions", actions, "must not contain both Deny and Warn (repeating the "
                             "same validation failure information in the API response and headers serves no "
                             "purpose)"))
    if not seen:
        errs.append(_required("spec.validationActions", "at least one validation action is required"))
    return errs


#: The variables a webhook's ``matchConditions`` may read (no ``params``, no ``variables``).
WEBHOOK_MATCH_CONDITION_VARIABLES = _CEL_BASE_VARIABLES
#: ``noSideEffectClasses.List()``: what a new webhook may declare; ``AcceptedAdmissionReviewVersions``.
_NO_SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun")
#: ``supportedSideEffectClasses``: what an update may keep when the stored configuration already had side effects.
_SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun", "Some", "Unknown")
_ADMISSION_REVIEW_VERSIONS = ("v1", "v1beta1")
_URL_FORM = "; desired format: https://host[/path]"


def _is_fully_qualified_name(name: str, p: str) -> list[FieldErr]:
    """``utilvalidation.IsFullyQualifiedName``: a DNS subdomain of at least three dot-separated segments."""
    if not name:
        return [_required(p)]
    msgs = is_dns1123_subdomain(name)
    if msgs:
        return [_invalid(p, name, ",".join(msgs))]
    if len(name.split(".")) < 3:
        return [_invalid(p, name, "should be a domain with at least three segments separated by dots")]
    return []


def _validate_webhook_client_config(cc: Mapping[str, Any], p: str) -> list[FieldErr]:
    """``url`` xor ``service``; ``webhook.ValidateWebhookURL`` (https, a host, no user, fragment or query) or
    ``webhook.ValidateWebhookService`` (name, namespace, port, path segments)."""
    from urllib.parse import urlsplit

    url, svc = cc.get("url"), cc.get("service")
    if (url is None) == (svc is None):
        return [_required(p, "exactly one of url or service is required")]
    errs: list[FieldErr] = []
    if url is not None:
        up = f"{p}.url"
        try:
            u = urlsplit(url)
            netloc = u.netloc
        except ValueError as e:
            return [_required(up, f"url must be a valid URL: {e}{_URL_FORM}")]
        if u.scheme != "https":
            errs.append(_invalid(up, u.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
        host = netloc.rpartition("@")[2]
        if not host:
            errs.append(_invalid(up, host, "host must be provided" + _URL_FORM))
        if "@" in netloc:
            errs.append(_invalid(up, netloc.rpartition("@")[0], "user information is not permitted in the URL"))
        if u.fragment:
            errs.append(_invalid(up, u.fragment, "fragments are not permitted in the URL"))
        if u.query:
            errs.append(_invalid(up, u.query, "query parameters are not permitted in the URL"))
        return errs
    sp = f"{p}.service"
    if not svc.get("name"):
        errs.append(_required(f"{sp}.name", "service name is required"))
    if not svc.get("namespace"):
        errs.append(_required(f"{sp}.namespace", "service namespace is required"))
    port = svc.get("port", 443)
    msgs = _is_valid_port_num(port)
    if msgs:
        errs.append(_invalid(f"{sp}.port", port, "port is not valid: " + ", ".join(msgs)))
    path = svc.get("path")
    if path is None or path in ("", "/"):
        return errs
    if path == "//":
        return errs + [_invalid(f"{sp}.path", path, "segment[0] may not be empty")]
    if not path.startswith("/"):
        errs.append(_invalid(f"{sp}.path", path, "must start with a '/'"))
    rest = path[1:]
    rest = rest[:-1] if rest.endswith("/") else rest
    for i, step in enumerate(rest.split("/")):
        if not step:
            errs.append(_invalid(f"{sp}.path", path, f"segment[{i}] may not be empty"))
            continue
        errs += [_invalid(f"{sp}.path", path, f"segment[{i}]: {m}") for m in is_dns1123_subdomain(step)]
    return errs


def _validate_webhook(hook: Mapping[str, Any], p: str, mutating: bool, no_side_effects: bool = True,
                      match_conditions: bool = True) -> list[FieldErr]:
    """``validateValidatingWebhook`` / ``validateMutatingWebhook``.

    ``no_side_effects``: only ``None``/``NoneOnDryRun`` allowed (``requireNoSideEffects``; a create, or an update
    of a configuration whose webhooks had none); ``match_conditions``: validate them (not ``ignoreMatchConditions``).
    """
    errs = _is_fully_qualified_name(hook.get("name") or "", f"{p}.name")
    for i, rule in enumerate(hook.get("rules") or ()):
        errs += _validate_rule_with_operations(rule, f"{p}.rules[{i}]")
    fp, mp = hook.get("failurePolicy"), hook.get("matchPolicy")
    if fp is not None and fp not in _FAILURE_POLICIES:
        errs.append(_not_supported(f"{p}.failurePolicy", fp, _FAILURE_POLICIES))
    if mp is not None and mp not in _MATCH_POLICIES:
        errs.append(_not_supported(f"{p}.matchPolicy", mp, _MATCH_POLICIES))
    se = hook.get("sideEffects")
    allowed = _NO_SIDE_EFFECT_CLASSES if no_side_effects else _SIDE_EFFECT_CLASSES
    if se is None:
        errs.append(_required(f"{p}.sideEffects", "must specify one of " + ", ".join(allowed)))
    elif se not in allowed:
        errs.append(_not_supported(f"{p}.sideEffects", se, allowed))
    ts = hook.get("timeoutSeconds")
    if ts is not None and not 1 <= ts <= 30:
        errs.append(_invalid(f"{p}.timeoutSeconds", ts, "the timeout value must be between 1 and 30 seconds"))
    errs += _label_selector(hook.get("namespaceSelector"), f"{p}.namespaceSelector")
    errs += _label_selector(hook.get("objectSelector"), f"{p}.objectSelector")
    rp = hook.get("reinvocationPolicy")
    if mutating and rp is not None and rp not in _REINVOCATION_POLICIES:
        errs.append(_not_supported(f"{p}.reinvocationPolicy", rp, _REINVOCATION_POLICIES))
    errs += _validate_webhook_client_config(hook.get("clientConfig") or {}, f"{p}.clientConfig")
    if match_conditions:
        errs += validate_match_conditions(hook.get("matchConditions"), f"{p}.matchConditions",
                                          WEBHOOK_MATCH_CONDITION_VARIABLES)
    return errs


def _validate_admission_review_versions(versions: list, p: str, require_recognized: bool = True) -> list[FieldErr]:
    """``validateAdmissionReviewVersions``: required, no duplicates, DNS-1035 labels, one of ``v1``/``v1beta1``."""
    accepted = ", ".join(_ADMISSION_REVIEW_VERSIONS)
    if not versions:
        return [_required(p, f"must specify one of {accepted}")]
    errs: list[FieldErr] = []
    seen: set[str] = set()
    for i, v in enumerate(versions):
        if v in seen:
            errs.append(_invalid(f"{p}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        errs += [_invalid(f"{p}[{i}]", v, m) for m in is_dns1035_label(v)]
    if require_recognized and not seen & set(_ADMISSION_REVIEW_VERSIONS):
        errs.append(_invalid(p, versions, f"must include at least one of {accepted}"))
    return errs


def _validate_webhook_configuration(obj: Mapping[str, Any], old: Mapping[str, Any] | None = None
                                    ) -> list[FieldErr]:
    """``validate{Mutating,Validating}WebhookConfiguration`` for a create, or an update of ``old``.

    Each webhook: a fully qualified ``name`` (unique), valid ``rules``, ``failurePolicy``/``matchPolicy`` values,
    ``sideEffects`` ``None`` or ``NoneOnDryRun`` (required), ``timeoutSeconds`` 1 to 30, selectors,
    ``reinvocationPolicy`` (mutating), ``clientConfig`` (``url`` xor ``service``), ``matchConditions`` (at most
    64, unique qualified names, expressions compiling without ``params``), ``admissionReviewVersions``.
    The fields defaulted before validation (``failurePolicy``, ``matchPolicy``, selectors, ``timeoutSeconds``)
    report bad values only.

    An update (``Validate{Validating,Mutating}WebhookConfigurationUpdate``) relaxes what the stored object
    already broke: ``sideEffects`` may be ``Some``/``Unknown`` when a stored webhook had side effects (or
    none set), unrecognized ``admissionReviewVersions`` pass when a stored webhook had only such, duplicate
    names pass when the stored names were not unique; ``matchConditions`` are not validated again when no
    webhook's changed (same count, same conditions at each index).

    Notes
    -----
    Upstream also keeps a stored invalid label value in a selector (``allowInvalidLabelValueInSelector``); the
    model does not relax that.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/admissionregistration/validation/validation.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/util/webhook/validation.go

    Examples
    --------
    >>> for e in _validate_webhook_configuration({"kind": "ValidatingWebhookConfiguration", "webhooks": [
    ...         {"name": "a.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
    ...          "clientConfig": {"url": "https://hook.example.com/v"},
    ...          "matchConditions": [{"name": "p", "expression": "params.x == 1"}]}]}):
    ...     print(e)
    webhooks[0].matchConditions[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')
     | params.x == 1
     | ^
    """
    errs: list[FieldErr] = []
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
    hooks, stored = list(obj.get("webhooks") or ()), list((old or {}).get("webhooks") or ())
    no_side_effects = recognized = unique = conditions = True
    if old is not None:
        no_side_effects = all(h.get("sideEffects") in _NO_SIDE_EFFECT_CLASSES for h in stored)
        recognized = all(not h.get("admissionReviewVersions")
                         or set(h["admissionReviewVersions"]) & set(_ADMISSION_REVIEW_VERSIONS) for h in stored)
        unique = len({h.get("name") or "" for h in stored}) == len(stored)
        conditions = len(hooks) != len(stored) or any(
            h.get("matchConditions") != o.get("matchConditions") for h, o in zip(hooks, stored))
    names: set[str] = set()
    for i, hook in enumerate(hooks):
        p = f"webhooks[{i}]"
        errs += _validate_webhook(hook, p, mutating, no_side_effects, conditions)
        errs += _validate_admission_review_versions(hook.get("admissionReviewVersions") or [],
                                                    f"{p}.admissionReviewVersions", recognized)
        name = hook.get("name") or ""
        if name and unique:
            if name in names:
                errs.append(_duplicate(f"{p}.name", name))
            names.add(name)
    return errs


# --- persistent volumes and claims (ValidatePersistentVolume*, ValidatePersistentVolumeClaim*) -----------------

#: ``supportedAccessModes``, sorted as ``sets.List`` prints them.
_PV_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_PV_VOLUME_MODES = ("Block", "Filesystem")
_PV_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
#: ``PersistentVolumeSource`` fields in ``ValidatePersistentVolumeSpec``'s order, with the path its
#: "more than 1 volume type" error names (``cephfs`` is reported as ``cephFS``).
_PV_SOURCES = (("hostPath", "hostPath"), ("gcePersistentDisk", "gcePersistentDisk"),
               ("awsElasticBlockStore", "awsElasticBlockStore"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
               ("nfs", "nfs"), ("rbd", "rbd"), ("quobyte", "quobyte"), ("cephfs", "cephFS"), ("iscsi", "iscsi"),
               ("cinder", "cinder"), ("fc", "fc"), ("flexVolume", ""), ("azureFile", "azureFile"),
               ("vsphereVolume", "vsphereVolume"), ("photonPersistentDisk", "photonPersistentDisk"),
               ("portworxVolume", "portworxVolume"), ("azureDisk", "azureDisk"), ("scaleIO", "scaleIO"),
               ("local", "local"), ("storageos", "storageos"), ("csi", "csi"))
_PVC_IMMUTABLE_MSG = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"


def _access_modes(modes: Any, f: str) -> list[FieldErr]:
    """The access-mode part of ``ValidatePersistentVolumeSpec`` / ``ValidatePersistentVolumeClaimSpec``."""
    errs: list[FieldErr] = []
    rwop = other = False
    for mode in modes or ():
        if mode not in _PV_ACCESS_MODES:
            errs.append(_not_supported(f, mode, _PV_ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        elif mode in _PV_ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(_forbidden(f, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _positive_quantity(v: Any, f: str) -> list[FieldErr]:
    """``ValidatePositiveQuantityValue``: "must be greater than zero"."""
    try:
        q = Quantity.parse(v, f)
    except KubenotesError as e:
        return [_invalid(f, v, str(getattr(e, "message", e)))]
    if q.sign() <= 0:
        return [_invalid(f, str(q), "must be greater than zero")]
    return []


def _class_name(name: Any, f: str) -> list[FieldErr]:
    """``ValidateClassName`` (a DNS subdomain) on a non-empty class name."""
    if not name:
        return []
    return [_invalid(f, name, m) for m in is_dns1123_subdomain(str(name))]


def _pvc_spec(spec: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``ValidatePersistentVolumeClaimSpec`` (no dataSource / volumeAttributesClassName checks)."""
    errs: list[FieldErr] = []
    if not spec.get("accessModes"):
        errs.append(_required(f"{f}.accessModes", "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        errs += _label_selector(spec.get("selector"), f"{f}.selector")
    errs += _access_modes(spec.get("accessModes"), f"{f}.accessModes")
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
    if storage is None:
        errs.append(_required(f"{f}.resources[storage]"))
    else:
        errs += _positive_quantity(storage, f"{f}.resources[storage]")
    errs += _class_name(spec.get("storageClassName"), f"{f}.storageClassName")
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _PV_VOLUME_MODES:
        errs.append(_not_supported(f"{f}.volumeMode", mode, _PV_VOLUME_MODES))
    return errs


def _validate_pvc(obj: Mapping[str, Any]) -> list[FieldErr]:
    return _pvc_spec(obj.get("spec") or {}, "spec")


def _validate_pv(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``ValidatePersistentVolumeSpec`` (the volume sources' own fields are not checked)."""
    spec = obj.get("spec") or {}
    errs: list[FieldErr] = []
    if not spec.get("accessModes"):
        errs.append(_required("spec.accessModes"))
    errs += _access_modes(spec.get("accessModes"), "spec.accessModes")
    cap = spec.get("capacity") or {}
    if not cap:
        errs.append(_required("spec.capacity"))
    if "storage" not in cap or len(cap) > 1:
        errs.append(_not_supported("spec.capacity", dict(cap), ("storage",)))
    for r in sorted(cap):
        errs += _positive_quantity(cap[r], f"spec.capacity[{r}]")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in _PV_RECLAIM_POLICIES:
        errs.append(_not_supported("spec.persistentVolumeReclaimPolicy", policy, _PV_RECLAIM_POLICIES))
    n = 0
    for key, path in _PV_SOURCES:
        if spec.get(key) is None:
            continue
        if n > 0 and path:
            errs.append(_forbidden(f"spec.{path}", "may not specify more than 1 volume type"))
            continue
        n += 1
        if key == "local" and not (spec.get("nodeAffinity") or {}).get("required"):
            errs.append(_required("spec.nodeAffinity", "Local volume requires node affinity"))
    if n == 0:
        errs.append(_required("spec", "must specify a volume type"))
    host = (spec.get("hostPath") or {}).get("path")
    if host is not None and host.rstrip("/") == "" and policy == "Recycle":
        errs.append(_forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    errs += _class_name(spec.get("storageClassName"), "spec.storageClassName")
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _PV_VOLUME_MODES:
        errs.append(_not_supported("spec.volumeMode", mode, _PV_VOLUME_MODES))
    return errs


#: ``maxAttachedVolumeMetadataSize`` and ``maxVolumeErrorMessageSize`` (pkg/apis/storage/validation).
_VA_MAX_METADATA_BYTES = 256 * 1024
_VA_MAX_ERROR_MESSAGE_BYTES = 1024


def _validate_volume_attachment(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``ValidateVolumeAttachment`` (spec and status). The inline volume spec's own fields are not checked."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    errs: list[FieldErr] = []
    if not spec.get("attacher"):
        errs.append(_required("spec.attacher"))
    src = spec.get("source") or {}
    pv, inline = src.get("persistentVolumeName"), src.get("inlineVolumeSpec")
    one_of = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
    if pv is None and inline is None:
        errs.append(_required("spec.source", one_of))
    elif pv is not None and inline is not None:
        errs.append(_forbidden("spec.source", one_of))
    elif pv is not None and not pv:
        errs.append(_required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
    node = spec.get("nodeName") or ""
    errs += [_invalid("spec.nodeName", node, m) for m in is_dns1123_subdomain(node)]
    meta = status.get("attachmentMetadata") or {}
    if sum(len(k) + len(str(v)) for k, v in meta.items()) > _VA_MAX_METADATA_BYTES:
        errs.append(FieldErr(TOO_LONG, "status.attachmentMetadata", _OMIT,
                             f"may not be more than {_VA_MAX_METADATA_BYTES} bytes"))
    for key in ("attachError", "detachError"):
        err = status.get(key)
        if err and len(str(err.get("message") or "")) > _VA_MAX_ERROR_MESSAGE_BYTES:
            # upstream reports maxAttachedVolumeMetadataSize as the limit here
            errs.append(FieldErr(TOO_LONG, f"status.{key}.message", _OMIT,
                                 f"may not be more than {_VA_MAX_METADATA_BYTES} bytes"))
        if err and isinstance(err.get("errorCode"), int) and err["errorCode"] < 0:
            errs.append(_invalid(f"status.{key}.errorCode", err["errorCode"],
                                 "must be between 0 and 2147483647, inclusive"))
    return errs


def _validate_volume_attachment_create(obj: Mapping[str, Any]) -> list[FieldErr]:
    """The registry's ``Validate``: ``ValidateVolumeAttachment`` then ``ValidateVolumeAttachmentV1`` (the
    attacher is a CSI driver name; the PV name a DNS subdomain)."""
    errs = _validate_volume_attachment(obj)
    spec = obj.get("spec") or {}
    attacher = str(spec.get("attacher") or "")
    if not attacher:
        errs.append(_required("spec.attacher"))
    if len(attacher) > 63:
        errs.append(FieldErr(TOO_LONG, "spec.attacher", _OMIT, "may not be more than 63 bytes"))
    errs += [_invalid("spec.attacher", attacher, m) for m in is_dns1123_subdomain(attacher.lower())]
    pv = (spec.get("source") or {}).get("persistentVolumeName")
    if pv:
        errs += [_invalid("spec.source.persistentVolumeName", pv, m) for m in is_dns1123_subdomain(pv)]
    return errs


def _pv_source(spec: Mapping[str, Any]) -> dict:
    return {k: spec[k] for k, _ in _PV_SOURCES if spec.get(k) is not None}


def _validate_pv_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldErr]:
    """The update part of ``ValidatePersistentVolumeUpdate``: the volume source, ``volumeMode`` and (once
    set) ``nodeAffinity`` are immutable. A bound volume's ``claimRef`` may change (upstream does not check it)."""
    spec, ospec = obj.get("spec") or {}, old.get("spec") or {}
    errs: list[FieldErr] = []
    src, osrc = _pv_source(spec), _pv_source(ospec)
    if src != osrc:
        errs.append(_forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after "
                                                              "creation\n" + _diff_lines(osrc, src, "core.PersistentVolumeSource")))
    errs += _immutable(spec.get("volumeMode"), ospec.get("volumeMode"), "volumeMode")
    if ospec.get("nodeAffinity") is not None and spec.get("nodeAffinity") != ospec.get("nodeAffinity"):
        errs.append(_invalid("nodeAffinity", spec.get("nodeAffinity"),
                             FIELD_IMMUTABLE_ERROR_MSG + ", except for updating from beta label to GA"))
    return errs


def _validate_pvc_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldErr]:
    """The update part of ``ValidatePersistentVolumeClaimUpdate``.

    ``volumeName`` may be set once; ``storageClassName`` may go from unset to a class (retroactive default
    class); a Bound claim's ``resources.requests.storage`` may change, but not below ``status.capacity``
    (RecoverVolumeExpansionFailure, GA); everything else in the spec is immutable, ``volumeMode`` included.
    """
    spec, ospec = dict(obj.get("spec") or {}), dict(old.get("spec") or {})
    ann = (old.get("metadata") or {}).get("annotations") or {}
    errs: list[FieldErr] = []
    new_c, old_c = json.loads(json.dumps(spec)), json.loads(json.dumps(ospec))
    if not ospec.get("volumeName"):
        old_c["volumeName"] = new_c.get("volumeName")
        if old_c["volumeName"] is None:
            old_c.pop("volumeName")
    if ("volume.beta.kubernetes.io/storage-class" not in ann and ospec.get("storageClassName") is None
            and spec.get("storageClassName")):
        new_c.pop("storageClassName", None)
    phase = ((old.get("status") or {}).get("phase")) or ((obj.get("status") or {}).get("phase"))
    if phase == "Bound" and (new_c.get("resources") or {}).get("requests") is not None:
        new_c["resources"]["requests"]["storage"] = ((ospec.get("resources") or {}).get("requests") or {}).get("storage")
    new_c.pop("volumeAttributesClassName", None)
    old_c.pop("volumeAttributesClassName", None)
    if new_c != old_c:
        errs.append(_forbidden("spec", _PVC_IMMUTABLE_MSG + "\n" +
                               _diff_lines(old_c, new_c, "core.PersistentVolumeClaimSpec")))

    def size(sp: Mapping[str, Any], *path: str) -> Any:
        v: Any = sp
        for p in path:
            v = (v or {}).get(p)
        return Quantity.parse(v).value if v is not None else 0

    try:
        new_size = size(spec, "resources", "requests", "storage")
        old_size = size(ospec, "resources", "requests", "storage")
        status_size = size(old.get("status") or {}, "capacity", "storage")
    except KubenotesError:
        return errs
    if new_size < old_size and new_size <= status_size:
        errs.append(_forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    errs += _immutable(spec.get("volumeMode"), ospec.get("volumeMode"), "volumeMode")
    return errs


# --- networking.k8s.io (pkg/apis/networking/validation/validation.go) -------------------------------------

_POLICY_TYPES = ("Ingress", "Egress")
#: The StrictIPCIDRValidation feature gate: alpha and off in v1.34, so legacy CIDR fields stay lenient.
_STRICT_IP_CIDR = False


def _network_policy_port(port: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``ValidateNetworkPolicyPort``: protocol, port number or name, ``endPort`` only above a numeric port."""
    errs: list[FieldErr] = []
    proto = port.get("protocol")
    if proto is not None and proto not in ("TCP", "UDP", "SCTP"):
        errs.append(_not_supported(f"{f}.protocol", proto, ("TCP", "UDP", "SCTP")))
    p, end = port.get("port"), port.get("endPort")
    if p is not None and not (isinstance(p, str)):
        errs += [_invalid(f"{f}.port", p, m) for m in _is_valid_port_num(p)]
        if end is not None:
            if isinstance(p, int) and isinstance(end, int) and end < p:
                errs.append(_invalid(f"{f}.endPort", end, "must be greater than or equal to `port`"))
            errs += [_invalid(f"{f}.endPort", end, m) for m in _is_valid_port_num(end)]
    elif p is not None:
        if end is not None:
            errs.append(_invalid(f"{f}.endPort", end, "may not be specified when `port` is non-numeric"))
        errs += [_invalid(f"{f}.port", p, m) for m in _is_valid_port_name(p)]
    elif end is not None:
        errs.append(_invalid(f"{f}.endPort", end, "may not be specified when `port` is not specified"))
    return errs


def _ip_block(ipb: Mapping[str, Any], f: str, old_cidrs: frozenset[str]) -> list[FieldErr]:
    """``ValidateIPBlock``: ``cidr`` required and a CIDR; each ``except`` a strict subset of it.

    CIDRs the stored policy already had are not re-checked (``AllowCIDRsEvenIfInvalid``).
    """
    cidr = ipb.get("cidr") or ""
    if not cidr:
        return [_required(f"{f}.cidr")]

    def check(value: str, path: str) -> list[FieldErr]:
        if value in old_cidrs:
            return []
        return [_invalid(path, value, m) for m in is_valid_cidr_for_legacy_field(value, _STRICT_IP_CIDR)]

    errs = check(cidr, f"{f}.cidr")
    net = parse_cidr_sloppy(cidr)
    if net is None:
        return errs
    for i, ex in enumerate(ipb.get("except") or ()):
        path = f"{f}.except[{i}]"
        errs += check(ex, path)
        exnet = parse_cidr_sloppy(ex)
        if exnet is None:
            continue
        if exnet.version != net.version or exnet.network_address not in net or net.prefixlen >= exnet.prefixlen:
            errs.append(_invalid(path, ex, "must be a strict subset of `cidr`"))
    return errs


def _network_policy_peer(peer: Mapping[str, Any], f: str, old_cidrs: frozenset[str]) -> list[FieldErr]:
    """``ValidateNetworkPolicyPeer``: at least one of podSelector/namespaceSelector/ipBlock; ipBlock alone."""
    errs: list[FieldErr] = []
    n = 0
    for key in ("podSelector", "namespaceSelector"):
        if peer.get(key) is not None:
            n += 1
            errs += _label_selector(peer[key], f"{f}.{key}")
    if peer.get("ipBlock") is not None:
        n += 1
        errs += _ip_block(peer["ipBlock"], f"{f}.ipBlock", old_cidrs)
    if n == 0:
        errs.append(_required(f, "must specify a peer"))
    elif n > 1 and peer.get("ipBlock") is not None:
        errs.append(_forbidden(f, "may not specify both ipBlock and another peer"))
    return errs


def _network_policy_spec(spec: Mapping[str, Any], f: str, old_cidrs: frozenset[str] = frozenset()) -> list[FieldErr]:
    """``ValidateNetworkPolicySpec``."""
    errs = _label_selector(spec.get("podSelector") or {}, f"{f}.podSelector")
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(spec.get(direction) or ()):
            rp = f"{f}.{direction}[{i}]"
            for j, port in enumerate(rule.get("ports") or ()):
                errs += _network_policy_port(port, f"{rp}.ports[{j}]")
            for j, peer in enumerate(rule.get(peers) or ()):
                errs += _network_policy_peer(peer, f"{rp}.{peers}[{j}]", old_cidrs)
    types = spec.get("policyTypes") or []
    if len(types) > len(_POLICY_TYPES):
        errs.append(_invalid(f"{f}.policyTypes", list(types), "may not specify more than two policyTypes"))
        return errs
    for i, t in enumerate(types):
        if t not in _POLICY_TYPES:
            errs.append(_not_supported(f"{f}.policyTypes[{i}]", t, _POLICY_TYPES))
    return errs


def _validate_network_policy(obj: Mapping[str, Any]) -> list[FieldErr]:
    return _network_policy_spec(obj.get("spec") or {}, "spec")


def _network_policy_cidrs(old: Mapping[str, Any]) -> frozenset[str]:
    """Every ``cidr`` and ``except`` of a stored policy (``ValidateNetworkPolicyUpdate``'s existingCIDRs)."""
    spec = old.get("spec") or {}
    out: set[str] = set()
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in spec.get(direction) or ():
            for peer in rule.get(peers) or ():
                ipb = peer.get("ipBlock")
                if ipb:
                    out.add(ipb.get("cidr") or "")
                    out.update(ipb.get("except") or ())
    return frozenset(out)


#: ``annotationIngressClass``: the class annotation older than ``spec.ingressClassName``.
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_PATH_SUFFIXES = ("/..", "/.")
_WILDCARD_DNS1123_SUBDOMAIN_FMT = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_WILDCARD_DNS1123_SUBDOMAIN_FMT}$")
_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(f"^{_HTTP_PATH_FMT}$")
_MAX_LEN_INGRESS_CLASS_CONTROLLER = 250


def _is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """``IsWildcardDNS1123Subdomain``: ``*.`` followed by a DNS-1123 subdomain."""
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _WILDCARD_DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(_regex_error("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS "
                                 "subdomain, which must consist of lower case alphanumeric characters, '-' or '.' "
                                 "and end with an alphanumeric character", _WILDCARD_DNS1123_SUBDOMAIN_FMT,
                                 "*.example.com"))
    return errs


def _is_ip(value: str) -> bool:
    return parse_ip_sloppy(value) is not None


def _ingress_host(host: str, f: str) -> list[FieldErr]:
    check = _is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
    return [_invalid(f, host, m) for m in check(host)]


def _ingress_backend(backend: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateIngressBackend``: a Service (name and port name or number) xor a resource reference."""
    res, svc = backend.get("resource"), backend.get("service")
    if res is not None and svc is not None:
        return [_invalid(f, "", "cannot set both resource and service backends")]
    errs: list[FieldErr] = []
    if res is not None:
        errs += _typed_local_object_reference(res, f"{f}.resource")
    elif svc is not None:
        name = svc.get("name") or ""
        if not name:
            errs.append(_required(f"{f}.service.name"))
        else:
            errs += [_invalid(f"{f}.service.name", name, m) for m in name_is_dns1035_label(name, False)]
        port = svc.get("port") or {}
        pname, pnum = port.get("name") or "", port.get("number") or 0
        if pname and pnum:
            errs.append(_invalid(f, "", "cannot set both port name & port number"))
        elif pname:
            errs += [_invalid(f"{f}.service.port.name", pname, m) for m in _is_valid_port_name(pname)]
        elif pnum:
            errs += [_invalid(f"{f}.service.port.number", pnum, m) for m in _is_valid_port_num(pnum)]
        else:
            errs.append(_required(f, "port name or number is required"))
    else:
        errs.append(_invalid(f, "", "resource or service backend is required"))
    return errs


def _path_segment(value: str, f: str) -> list[FieldErr]:
    return [_invalid(f, value, m) for m in validate_path_segment_name(value, False)]


def _typed_local_object_reference(ref: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateIngressTypedLocalObjectReference``."""
    errs: list[FieldErr] = []
    if ref.get("apiGroup") is not None:
        errs += [_invalid(f"{f}.apiGroup", ref["apiGroup"], m) for m in is_dns1123_subdomain(ref["apiGroup"])]
    for key in ("kind", "name"):
        v = ref.get(key) or ""
        errs += [_required(f"{f}.{key}")] if not v else _path_segment(v, f"{f}.{key}")
    return errs


def _http_ingress_path(path: Mapping[str, Any], f: str) -> list[FieldErr]:
    """``validateHTTPIngressPath``: pathType required and supported; Exact/Prefix paths absolute and clean."""
    pt = path.get("pathType")
    if pt is None:
        return [_required(f"{f}.pathType", "pathType must be specified")]
    p = path.get("path") or ""
    errs: list[FieldErr] = []
    if pt in ("Exact", "Prefix"):
        if not p.startswith("/"):
            errs.append(_invalid(f"{f}.path", p, "must be an absolute path"))
        if p:
            errs += [_invalid(f"{f}.path", p, f"must not contain '{seq}'") for seq in _INVALID_PATH_SEQUENCES
                     if seq in p]
            errs += [_invalid(f"{f}.path", p, f"cannot end with '{suf}'") for suf in _INVALID_PATH_SUFFIXES
                     if p.endswith(suf)]
    elif pt == "ImplementationSpecific":
        if p and not p.startswith("/"):
            errs.append(_invalid(f"{f}.path", p, "must be an absolute path"))
    else:
        errs.append(_not_supported(f"{f}.pathType", pt, _PATH_TYPES))
    return errs + _ingress_backend(path.get("backend") or {}, f"{f}.backend")


def _validate_ingress(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``ValidateIngressSpec`` (and, on create, the class annotation against ``ingressClassName``)."""
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    rules = spec.get("rules") or []
    if not rules and spec.get("defaultBackend") is None:
        errs.append(_invalid(f, rules if spec.get("rules") is not None else None,
                             "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        errs += _ingress_backend(spec["defaultBackend"], f"{f}.defaultBackend")
    for i, rule in enumerate(rules):
        rp = f"{f}.rules[{i}]"
        host = rule.get("host") or ""
        if host:
            if _is_ip(host):
                errs.append(_invalid(f"{rp}.host", host, "must be a DNS name, not an IP address"))
            errs += _ingress_host(host, f"{rp}.host")
        http = rule.get("http")
        if http is not None:
            paths = http.get("paths") or []
            if not paths:
                errs.append(_required(f"{rp}.http.paths"))
            for j, path in enumerate(paths):
                errs += _http_ingress_path(path, f"{rp}.http.paths[{j}]")
    for i, tls in enumerate(spec.get("tls") or ()):
        for j, host in enumerate(tls.get("hosts") or ()):
            errs += _ingress_host(host, f"{f}.tls[{i}].hosts[{j}]")
        secret = tls.get("secretName") or ""
        if secret:
            errs += [_invalid(f"{f}.tls[{i}].secretName", secret, m) for m in name_is_dns_subdomain(secret, False)]
    if spec.get("ingressClassName") is not None:
        cls = spec["ingressClassName"]
        errs += [_invalid(f"{f}.ingressClassName", cls, m) for m in name_is_dns_subdomain(cls, False)]
    return errs


def _validate_ingress_create(obj: Mapping[str, Any]) -> list[FieldErr]:
    errs = _validate_ingress(obj)
    ann = (obj.get("metadata") or {}).get("annotations") or {}
    cls = (obj.get("spec") or {}).get("ingressClassName")
    if INGRESS_CLASS_ANNOTATION in ann and cls is not None and ann[INGRESS_CLASS_ANNOTATION] != cls:
        errs.append(_invalid(f"annotations.{INGRESS_CLASS_ANNOTATION}", ann[INGRESS_CLASS_ANNOTATION],
                             "must match `ingressClassName` when both are specified"))
    return errs


def _is_domain_prefixed_path(value: str, f: str) -> list[FieldErr]:
    """``IsDomainPrefixedPath``: ``example.com/path``."""
    host, sep, path = value.partition("/")
    if not sep or not host or not path:
        return [_invalid(f, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [_invalid(f, host, m) for m in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.match(path):
        errs.append(_invalid(f, path, _regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def _validate_ingress_class(obj: Mapping[str, Any]) -> list[FieldErr]:
    """``validateIngressClassSpec``: controller required (a domain-prefixed path of at most 250 bytes), parameters."""
    spec, f = obj.get("spec") or {}, "spec"
    errs: list[FieldErr] = []
    controller = spec.get("controller") or ""
    if not controller:
        errs.append(_required(f"{f}.controller"))
    else:
        if len(controller.encode()) > _MAX_LEN_INGRESS_CLASS_CONTROLLER:
            errs.append(FieldErr(TOO_LONG, f"{f}.controller", _OMIT,
                                 f"may not be more than {_MAX_LEN_INGRESS_CLASS_CONTROLLER} bytes"))
        errs += _is_domain_prefixed_path(controller, f"{f}.controller")
    params = spec.get("parameters")
    if params is not None:
        pp = f"{f}.parameters"
        errs += _typed_local_object_reference(params, pp)
        scope = params.get("scope")
        if scope is None:
            errs.append(_required(f"{pp}.scope"))
        elif scope not in ("Cluster", "Namespace"):
            errs.append(_not_supported(f"{pp}.scope", scope, ("Cluster", "Namespace")))
        elif scope == "Namespace":
            ns = params.get("namespace")
            if ns is None:
                errs.append(_required(f"{pp}.namespace", "`parameters.scope` is set to 'Namespace'"))
            else:
                errs += [_invalid(f"{pp}.namespace", ns, m) for m in name_is_dns_label(ns, False)]
        elif params.get("namespace") is not None:
            errs.append(_forbidden(f"{pp}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return errs


_CREATE_VALIDATORS: dict[str, Callable[[Mapping[str, Any]], list[FieldErr]]] = {
    "Pod": _validate_pod,
    "Deployment": _validate_deployment,
    "ReplicaSet": _validate_replicaset,
    "ReplicationController": _validate_replication_controller,
    "StatefulSet": _validate_statefulset,
    "DaemonSet": _validate_daemonset,
    "Job": _validate_job,
    "CronJob": _validate_cronjob,
    "Service": _validate_service,
    "Node": _validate_node,
    "Namespace": _validate_namespace,
    "ResourceQuota": _validate_resource_quota,
    "LimitRange": _validate_limit_range,
    "PodDisruptionBudget": _validate_pdb,
    "ConfigMap": _validate_data_keys,
    "Secret": _validate_data_keys,
    "PriorityClass": _validate_priority_class,
    "ValidatingAdmissionPolicy": _validate_vap,
    "ValidatingAdmissionPolicyBinding": _validate_vap_binding_spec,
    "MutatingAdmissionPolicyBinding": _validate_map_binding,
    "MutatingAdmissionPolicy": _validate_map,
    "MutatingWebhookConfiguration": _validate_webhook_configuration,
    "ValidatingWebhookConfiguration": _validate_webhook_configuration,
    "PersistentVolume": _validate_pv,
    "PersistentVolumeClaim": _validate_pvc,
    "NetworkPolicy": _validate_network_policy,
    "Ingress": _validate_ingress_create,
    "IngressClass": _validate_ingress_class,
    "VolumeAttachment": _validate_volume_attachment_create,
}

_SELECTOR_IMMUTABLE = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"})
_STS_UPDATABLE = ("replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
                  "minReadySeconds")


def _kind_update(kind: str, obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldErr]:
    spec, ospec = obj.get("spec") or {}, old.get("spec") or {}
    errs: list[FieldErr] = []
    if kind == "Pod":
        errs += _validate_pod_update(obj, old)
    elif kind == "Node":
        errs += _validate_node_update(obj, old)
    elif kind == "PersistentVolume":
        errs += _validate_pv_update(obj, old)
    elif kind == "PersistentVolumeClaim":
        errs += _validate_pvc_update(obj, old)
    elif kind == "IngressClass":
        errs += _immutable((obj.get("spec") or {}).get("controller"), (old.get("spec") or {}).get("controller"),
                           "spec.controller")
    elif kind == "PriorityClass":
        if obj.get("value") != old.get("value"):
            errs.append(_forbidden("value", "may not be changed in an update."))
        if old.get("preemptionPolicy") is not None and obj.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errs += _immutable(obj.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy")
    if kind in _SELECTOR_IMMUTABLE:
        if spec.get("selector") != ospec.get("selector"):
            errs.append(_invalid("spec.selector", _selector_json(spec.get("selector")), FIELD_IMMUTABLE_ERROR_MSG))
    if kind == "Job":
        if (spec.get("completionMode") or "NonIndexed") == "NonIndexed":
            errs += _immutable(spec.get("completions"), ospec.get("completions"), "spec.completions")
        errs += _immutable(spec.get("completionMode"), ospec.get("completionMode"), "spec.completionMode")
    if kind == "StatefulSet":
        a = {k: v for k, v in spec.items() if k not in _STS_UPDATABLE and k != "revisionHistoryLimit"}
        b = {k: v for k, v in ospec.items() if k not in _STS_UPDATABLE and k != "revisionHistoryLimit"}
        if a != b:
            errs.append(_forbidden("spec", "updates to statefulset spec for fields other than 'replicas', "
                                           "'ordinals', 'template', 'updateStrategy', "
                                           "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                                           "forbidden"))
    return errs


def _name_fn(kind: str) -> Callable[[str, bool], list[str]]:
    return _NAME_FUNCS.get(kind, name_is_dns_subdomain)


def _to_causes(errs: list[FieldErr]) -> list[dict]:
    return [e.cause() for e in errs]


def validate_create(ri: ResourceInfo, obj: Mapping[str, Any]) -> list[dict]:
    """The field errors of a new object (the registry strategy's ``Validate``).

    Parameters
    ----------
    ri : ResourceInfo
        The resource being written.
    obj : dict
        The object after defaulting, mutating admission and ``PrepareForCreate``.

    Returns
    -------
    list of dict
        ``StatusCause`` dicts (``reason``, ``message``, ``field``); empty when valid.

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> causes = validate_create(resource_for("pods"), {"metadata": {"name": "UPPER_case", "namespace": "default"},
    ...                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    >>> print(causes[0]["message"])
    metadata.name: Invalid value: "UPPER_case": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
    """
    md = obj.get("metadata") or {}
    errs = _object_meta(md, ri.namespaced, _name_fn(ri.kind))
    fn = _CREATE_VALIDATORS.get(ri.kind)
    if fn is not None:
        errs += fn(obj)
    return _to_causes(errs)


def validate_update(ri: ResourceInfo, obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[dict]:
    """The field errors of an update (the registry strategy's ``ValidateUpdate``).

    Runs the create checks on the new object, ``ValidateObjectMetaUpdate``,
    and the kind's immutability rules against the stored object.

    Returns
    -------
    list of dict
        ``StatusCause`` dicts; empty when valid.

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> old = {"metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": 1,
    ...        "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
    ...        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    >>> new = {**old, "spec": {**old["spec"], "selector": {"matchLabels": {"app": "web", "v": "2"}}}}
    >>> [c["message"] for c in validate_update(resource_for("deploy"), new, old)]
    ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`', 'spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable']
    """
    md, omd = obj.get("metadata") or {}, old.get("metadata") or {}
    errs = _object_meta_update(md, omd)
    if ri.kind == "NetworkPolicy":  # ValidateNetworkPolicyUpdate: the stored CIDRs are not re-checked
        errs += _network_policy_spec(obj.get("spec") or {}, "spec", _network_policy_cidrs(old))
    elif ri.kind == "Ingress":  # ValidateIngressUpdate: no annotation check
        errs += _validate_ingress(obj)
    elif ri.kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        errs += _validate_webhook_configuration({"kind": ri.kind, **obj}, old)  # relaxed for what old broke
    elif ri.kind == "VolumeAttachment":  # ValidateVolumeAttachmentUpdate: not the V1 create checks; spec read-only
        errs += _validate_volume_attachment(obj)
        if (obj.get("spec") or {}) != (old.get("spec") or {}):
            errs.append(_invalid("spec", obj.get("spec") or {}, FIELD_IMMUTABLE_ERROR_MSG))
    else:
        fn = _CREATE_VALIDATORS.get(ri.kind)
        if fn is not None:
            errs += fn(obj)
    errs += _kind_update(ri.kind, obj, old)
    return _to_causes(errs)
