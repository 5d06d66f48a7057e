"""Helpers the Job, DaemonSet and StatefulSet controllers share: pod control, claims and revisions.

These controllers create pods from a template with a controller
``ownerReference``, adopt and release pods by selector (``ClaimPods``), and
(DaemonSet, StatefulSet) snapshot their template in ``ControllerRevision``
objects whose hash labels the pods. The helpers every workload controller
uses live elsewhere, once: owner references, expectations, pod activity,
hashing and ``resolve_controller_ref`` in
:mod:`kubenotes.controllers.controller_utils` (``pkg/controller/controller_utils.go``);
pod readiness and availability (``is_pod_available`` and the DaemonSet and
StatefulSet's ``is_pod_available_inclusive``) in
:mod:`kubenotes.controllers.podutil` (``pkg/api/v1/pod/util.go``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go (RealPodControl, ActivePods)
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_ref_manager.go (PodControllerRefManager.ClaimPods)
kubernetes/kubernetes@v1.34.0 pkg/controller/history/controller_history.go (ControllerRevisionName, HashControllerRevision)
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import (
    FAILED_CREATE_POD_REASON,
    FAILED_DELETE_POD_REASON,
    SUCCESSFUL_CREATE_POD_REASON,
    SUCCESSFUL_DELETE_POD_REASON,
    fnv32a,
    safe_encode_string,
)
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import pod_ready_since_seconds, timestamp_seconds

__all__ = ["label_selector", "selector_matches", "claim_pods", "pod_from_template",
           "create_pod", "delete_pod", "hash_revision_data", "controller_revision_name", "template_patch",
           "int_or_percent", "CONTROLLER_REVISION_HASH_LABEL", "active_pods_rank_key", "WrittenVersions",
           "CACHE_CATCH_UP_SECONDS"]

#: ``apps.ControllerRevisionHashLabelKey``.
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"


def label_selector(selector: dict | None) -> Any:
    """``metav1.LabelSelectorAsSelector`` (None selects nothing, ``{}`` everything)."""
    from kubenotes.api.selectors import LabelSelector

    return LabelSelector.from_api(selector)


def selector_matches(selector: dict | None, labels: dict | None) -> bool:
    """Whether a ``metav1.LabelSelector`` dict matches ``labels``."""
    return label_selector(selector).matches(labels or {})


def claim_pods(client: Any, owner: dict, api_version: str, kind: str, selector: Any, pods: Iterable[dict],
               finalizers: tuple[str, ...] = ()) -> list[dict]:
    """``PodControllerRefManager.ClaimPods``: the pods ``owner`` controls after adopting and releasing.

    A pod controlled by ``owner`` (by uid) that no longer matches is released
    (its ownerReference removed); a matching orphan (no controller, not being
    deleted) is adopted with a patch that adds the controller reference (and
    ``finalizers``, as the Job controller adds its tracking finalizer). An
    owner being deleted adopts nothing.

    Parameters
    ----------
    client : Client
    owner : dict
    api_version, kind : str
        Of the owner (``apps/v1``, ``DaemonSet``).
    selector : LabelSelector
    pods : iterable of dict
        Cached pods of the owner's namespace.
    finalizers : tuple of str

    Returns
    -------
    list of dict
        The claimed pods (cached objects, or the patched copies).
    """
    uid = owner["metadata"]["uid"]
    deleting = bool(owner["metadata"].get("deletionTimestamp"))
    out = []
    for pod in pods:
        md = pod["metadata"]
        ref = get_controller_of(pod)
        labels = md.get("labels") or {}
        if ref is not None:
            if ref.get("uid") != uid:
                continue
            if selector.matches(labels) or deleting or md.get("deletionTimestamp"):
                out.append(pod)
                continue
            refs = [r for r in md.get("ownerReferences") or [] if r.get("uid") != uid]
            try:
                client.patch("pods", md["name"], {"metadata": {"ownerReferences": refs,
                                                               "uid": md["uid"]}}, md["namespace"])
            except ApiError:
                pass
            continue
        if deleting or md.get("deletionTimestamp") or not selector.matches(labels):
            continue
        refs = list(md.get("ownerReferences") or []) + [new_controller_ref(owner, api_version, kind)]
        patch: dict = {"metadata": {"ownerReferences": refs}}
        if finalizers:
            patch["metadata"]["finalizers"] = list(md.get("finalizers") or []) + \
                [f for f in finalizers if f not in (md.get("finalizers") or [])]
        try:
            out.append(client.patch("pods", md["name"], patch, md["namespace"]))
        except ApiError:
            pass
    return out


def pod_from_template(template: dict, owner: dict, api_version: str, kind: str, *, name: str = "",
                      generate_name: str = "", extra_labels: dict | None = None,
                      finalizers: Iterable[str] = ()) -> dict:
    """``controller.GetPodFromTemplate``: a Pod from a template with the owner's controller reference."""
    tmd = (template or {}).get("metadata") or {}
    labels = dict(tmd.get("labels") or {})
    labels.update(extra_labels or {})
    md: dict = {"namespace": owner["metadata"].get("namespace"), "labels": labels,
                "ownerReferences": [new_controller_ref(owner, api_version, kind)]}
    if tmd.get("annotations"):
        md["annotations"] = dict(tmd["annotations"])
    fins = list(tmd.get("finalizers") or [])
    fins += [f for f in finalizers if f not in fins]
    if fins:
        md["finalizers"] = fins
    if name:
        md["name"] = name
    elif generate_name:
        md["generateName"] = generate_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": deep_copy((template or {}).get("spec") or {})}


def create_pod(ctrl: Any, owner: dict, pod: dict) -> dict | None:
    """``RealPodControl.CreatePods``: create ``pod`` and record SuccessfulCreate / FailedCreate on ``owner``.

    Returns the created pod, or None (the error is recorded as an Event and re-raised).

    Raises
    ------
    ApiError
        When the API server refuses the pod.
    """
    try:
        out = ctrl.client.create("pods", pod, owner["metadata"].get("namespace"))
    except ApiError as e:
        ctrl.event(owner, "Warning", FAILED_CREATE_POD_REASON, f"Error creating: {e}")
        raise
    ctrl.event(owner, "Normal", SUCCESSFUL_CREATE_POD_REASON, f"Created pod: {out['metadata']['name']}")
    return out


def delete_pod(ctrl: Any, owner: dict, pod: dict) -> bool:
    """``RealPodControl.DeletePod``: delete and record SuccessfulDelete / FailedDelete; False when already gone.

    Raises
    ------
    ApiError
        Other than 404.
    """
    md = pod["metadata"]
    try:
        ctrl.client.delete("pods", md["name"], md["namespace"])
    except ApiError as e:
        if e.code == 404:
            return False
        ctrl.event(owner, "Warning", FAILED_DELETE_POD_REASON, f"Error deleting: {e}")
        raise
    ctrl.event(owner, "Normal", SUCCESSFUL_DELETE_POD_REASON, f"Deleted pod: {md['name']}")
    return True


def template_patch(template: dict) -> dict:
    """The revision data DaemonSet and StatefulSet store: ``{"spec": {"template": <template + $patch: replace>}}``."""
    tmpl = deep_copy(template or {})
    tmpl["$patch"] = "replace"
    return {"spec": {"template": tmpl}}


def hash_revision_data(data: dict, collision_count: int | None = None) -> str:
    """``history.HashControllerRevision``: FNV-32a of the revision's raw data (+ collision count), safe-encoded.

    Notes
    -----
    Upstream hashes the JSON bytes Go's encoder writes (struct field order);
    here the JSON is written with sorted keys, so values differ from a real
    cluster's but are equally stable.
    """
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    h = fnv32a(raw)
    if collision_count:
        h = fnv32a(raw + int(collision_count).to_bytes(4, "little"))
    return safe_encode_string(str(h))


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``history.ControllerRevisionName``: ``<prefix>-<hash>``, the prefix cut so the name fits 253 characters."""
    if len(prefix) > 223:
        prefix = prefix[:223]
    return f"{prefix}-{hash_}"


def int_or_percent(value: Any, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is, ``"25%"`` of ``total`` rounded up or down.

    Raises
    ------
    ValueError
        For a string that is not a percentage (``invalid type: string is not a percentage``).

    Examples
    --------
    >>> int_or_percent("25%", 10, True), int_or_percent("25%", 10, False), int_or_percent(3, 10, True)
    (3, 2, 3)
    """
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    s = str(value)
    if not s.endswith("%"):
        raise ValueError("invalid type: string is not a percentage")
    if not s[:-1].lstrip("-").isdigit():
        raise ValueError(f'invalid value for IntOrString: invalid value "{s}": strconv.Atoi: parsing '
                         f'"{s[:-1]}": invalid syntax')
    num = int(s[:-1]) * total
    return -((-num) // 100) if round_up else num // 100


_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def active_pods_rank_key(pod: dict) -> tuple:
    """Sort key of ``controller.ActivePods``: the pods to delete first sort first.

    Unassigned before assigned, Pending < Unknown < Running, not ready before
    ready, ready for less time first, more restarts first, newer first.
    """
    spec, st, md = pod.get("spec") or {}, pod.get("status") or {}, pod["metadata"]
    ready = is_pod_ready(pod)
    since = pod_ready_since_seconds(pod) if ready else None
    restarts = sum(int(c.get("restartCount", 0) or 0) for c in st.get("containerStatuses") or [])
    created = timestamp_seconds(md["creationTimestamp"]) if md.get("creationTimestamp") else float("inf")
    return (1 if spec.get("nodeName") else 0, _PHASE_RANK.get(st.get("phase", "Pending"), 0), 1 if ready else 0,
            -(since if since is not None else 0.0), -restarts, -created)


#: How long a controller waits for its informer to show its own last write before syncing again.
CACHE_CATCH_UP_SECONDS = 0.001


class WrittenVersions:
    """The resourceVersion of each object's last write by this controller, to skip syncs on a stale cache.

    Upstream informers deliver a controller's own write within milliseconds,
    and a sync on an older copy ends in a 409 Conflict and a retry. In the
    model a sync can run at the same virtual instant as the write, before the
    informer has processed it; a controller asks :meth:`is_stale` first and
    requeues after :data:`CACHE_CATCH_UP_SECONDS` instead of retrying on a
    conflict (same outcome, without the spurious error and duplicate Events).

    Examples
    --------
    >>> w = WrittenVersions()
    >>> w.note("default/a", {"metadata": {"resourceVersion": "12"}})
    >>> w.is_stale("default/a", {"metadata": {"resourceVersion": "11"}})
    True
    >>> w.is_stale("default/a", {"metadata": {"resourceVersion": "12"}})
    False
    """

    def __init__(self) -> None:
        self._rv: dict[str, int] = {}

    def note(self, key: str, obj: dict) -> None:
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if rv and str(rv).isdigit():
            self._rv[key] = int(rv)

    def is_stale(self, key: str, cached: dict) -> bool:
        want = self._rv.get(key)
        if want is None:
            return False
        rv = (cached.get("metadata") or {}).get("resourceVersion")
        if not rv or not str(rv).isdigit() or int(rv) >= want:
            self._rv.pop(key, None)
            return False
        return True

    def forget(self, key: str) -> None:
        self._rv.pop(key, None)
