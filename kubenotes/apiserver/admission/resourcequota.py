"""The ``ResourceQuota`` admission plugin: refuse what would exceed a namespace's quota, and charge it.

For each CREATE (and the UPDATEs that can change usage) of a namespaced
object, in the validating phase, last in the chain:

1. every ResourceQuota of the namespace whose ``status.hard`` tracks a
   resource the object charges, and whose scopes match the object, applies;
2. a pod must set each tracked cpu/memory request or limit in every
   container (``failed quota: <name>: must specify limits.cpu for: app``),
   and a tracked resource needs a usage figure (``status unknown for quota``);
3. the object's usage (:mod:`kubenotes.apiserver.admission.quota`; on
   update, the increase over the stored object) is added to each
   applicable quota's ``status.used``; if any tracked resource would pass
   ``status.hard``, the request is refused with 403 ``exceeded quota:
   <name>, requested: <r>=<q>, used: <r>=<q>, limited: <r>=<q>``;
4. otherwise the new ``status.used`` is written back (the quota controller
   later recomputes it from the objects that exist, so a charge for a
   request that fails further on is corrected).

Notes
-----
Enforcement reads ``status.hard``, which the ResourceQuota controller
copies from ``spec.hard``: a quota the controller has not synced yet does
not limit anything, as upstream. The ``LimitedResources`` admission
configuration is not modelled (none is set by default). Upstream batches
concurrent requests per namespace and retries status conflicts; requests
here are serial, so one check and one write each.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/admission.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go (CheckRequest)
https://kubernetes.io/docs/concepts/policy/resource-quotas/
"""

from __future__ import annotations

from typing import Any, Mapping

from kubenotes.api.resources import resource_list
from kubenotes.apiserver.admission import quota as q
from kubenotes.apiserver.admission.interfaces import CREATE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "ResourceQuota", "check_request", "EXCEEDED_QUOTA_MESSAGE", "FAILED_QUOTA_MESSAGE",
           "STATUS_UNKNOWN_MESSAGE", "NEGATIVE_USAGE_MESSAGE"]

NAME = "ResourceQuota"
EXCEEDED_QUOTA_MESSAGE = "exceeded quota: {name}, requested: {requested}, used: {used}, limited: {limited}"
FAILED_QUOTA_MESSAGE = "failed quota: {name}: {error}"
STATUS_UNKNOWN_MESSAGE = "status unknown for quota: {name}, resources: {resources}"
NEGATIVE_USAGE_MESSAGE = "quota usage is negative for resource(s): {resources}"


def _now(reader: Any) -> float | None:
    now = getattr(reader, "now", None)
    return float(now()) if callable(now) else None


def check_request(quotas: list[dict], attrs: Attributes, obj: dict, old: dict | None,
                  now_seconds: float | None = None) -> dict[str, dict[str, q.Quantity]]:
    """``CheckRequest``: the new ``status.used`` of each quota the request changes.

    Parameters
    ----------
    quotas : list of dict
        The namespace's ResourceQuotas.
    attrs : Attributes
    obj, old : dict
        The object being written and the stored one (``None`` on create).
    now_seconds : float, optional
        The virtual clock, for pods stuck terminating.

    Returns
    -------
    dict[str, dict[str, Quantity]]
        Quota name -> its full new ``used`` list, only for quotas whose usage changes.

    Raises
    ------
    ApiError
        403 Forbidden with upstream's ``exceeded quota``, ``failed quota``,
        ``status unknown for quota`` or negative-usage message.
    """
    ev = q.evaluator_for(attrs.resource)
    if ev is None or not ev.handles(attrs.operation, obj, old):
        return {}
    interesting = []
    for rq in quotas:
        if not ev.matches(rq, obj):
            continue
        st = rq.get("status") or {}
        hard = st.get("hard") or {}
        restricted = ev.matching_resources(hard)
        err = ev.constraints(restricted, obj)
        if err:
            raise forbidden(attrs, obj, FAILED_QUOTA_MESSAGE.format(name=rq["metadata"]["name"], error=err))
        used = st.get("used") or {}
        missing = [r for r in hard if r in restricted and r not in used]
        if missing:
            raise forbidden(attrs, obj, STATUS_UNKNOWN_MESSAGE.format(
                name=rq["metadata"]["name"], resources=",".join(sorted(restricted))))
        interesting.append(rq)
    if not interesting:
        return {}
    delta = ev.usage(obj, now_seconds)
    negative = q.is_negative(delta)
    if negative:
        raise forbidden(attrs, obj, NEGATIVE_USAGE_MESSAGE.format(resources=",".join(sorted(negative))))
    if attrs.operation == UPDATE and old is not None and (old.get("metadata") or {}).get("resourceVersion"):
        delta = q.subtract_non_negative(delta, ev.usage(old, now_seconds))
    if q.is_zero(delta):
        return {}
    out: dict[str, dict[str, q.Quantity]] = {}
    for rq in interesting:
        st = rq.get("status") or {}
        hard = resource_list(st.get("hard"), quantities=True)
        used = resource_list(st.get("used"), quantities=True)
        requested = q.mask(delta, hard)
        new_used = q.add(used, requested)
        masked = q.mask(new_used, requested)
        ok, exceeded = q.less_than_or_equal(masked, hard)
        if not ok:
            raise forbidden(attrs, obj, EXCEEDED_QUOTA_MESSAGE.format(
                name=rq["metadata"]["name"], requested=q.pretty_print(q.mask(requested, exceeded)),
                used=q.pretty_print(q.mask(used, exceeded)), limited=q.pretty_print(q.mask(hard, exceeded))))
        if any(new_used[k].cmp(used.get(k, q.Quantity.zero())) != 0 for k in new_used):
            out[rq["metadata"]["name"]] = new_used
    return out


class ResourceQuota(Plugin):
    """Enforce and charge ResourceQuotas (validating phase; CREATE and UPDATE, no subresources).

    Parameters
    ----------
    component : str
        Who the quota status writes are attributed to in the audit log.
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, component: str = "kube-apiserver"):
        self.component = component

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        if attrs.subresource or not attrs.namespace or obj is None:
            return
        quotas = reader.list("resourcequotas", attrs.namespace)
        if not quotas:
            return
        changed = check_request(list(quotas), attrs, obj, old, _now(reader))
        if not changed or attrs.dry_run:
            return
        for rq in quotas:
            name = rq["metadata"]["name"]
            if name not in changed:
                continue
            st = dict(rq.get("status") or {})
            st["used"] = _merge_used(st.get("used") or {}, changed[name])
            reader.update_status("resourcequotas", {"metadata": {"name": name, "namespace": attrs.namespace},
                                                    "status": st}, self.component)


def _merge_used(old: Mapping[str, Any], new: Mapping[str, q.Quantity]) -> dict:
    out = dict(old)
    for k, v in new.items():
        out[k] = str(v)
    return out
