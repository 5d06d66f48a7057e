"""Test helpers for the volume controllers, after upstream's framework_test.go.

``new_volume`` / ``new_claim`` build objects as upstream's ``newVolume`` / ``newClaim`` do (access
modes RWO+ROX, volumeMode Filesystem, a GCE PD source, namespace ``default``; a Bound claim's
status copies its request and access modes). :func:`sync_once` is upstream's ``testSyncClaim`` /
``testSyncVolume``: the objects are stored through a real API server, the PersistentVolume
controller's caches are filled from its informers, and one ``syncClaim`` (or ``syncVolume``) runs;
the result is what the API server then holds, with the Events written ("Type Reason").

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/framework_test.go
"""

from __future__ import annotations

from typing import Any, Iterable

from kubenotes.api.storagehelpers import ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER

NS = "default"
BOUND_BY_CONTROLLER = ANN_BOUND_BY_CONTROLLER
BIND_COMPLETED = ANN_BIND_COMPLETED
CLASS_GOLD, CLASS_SILVER, CLASS_WAIT, CLASS_EMPTY = "gold", "silver", "wait", ""


def dns(name: str) -> str:
    """Upstream's rows name objects ``volume1-4_1``, which only its fake client accepts: ``_`` becomes ``-``."""
    return name.replace("_", "-")


def new_volume(name: str, capacity: str, claim_uid: str, claim_name: str, phase: str, policy: str = "Retain",
               cls: str = "", *annotations: str, source: dict | None = None) -> dict:
    """``newVolume``."""
    name, claim_name = dns(name), dns(claim_name)
    pv: dict[str, Any] = {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "uid": f"pv-{name}"},
        "spec": {"capacity": {"storage": capacity}, "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
                 "persistentVolumeReclaimPolicy": policy, "storageClassName": cls, "volumeMode": "Filesystem",
                 **(source or {"gcePersistentDisk": {"pdName": name}})},
        "status": {"phase": phase} if phase else {},
    }
    if claim_name:
        pv["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": NS,
                                  "name": claim_name, **({"uid": claim_uid} if claim_uid else {})}
    if annotations:
        pv["metadata"]["annotations"] = {a: "yes" for a in annotations}
    return pv


def new_claim(name: str, uid: str, request: str, volume_name: str, phase: str, cls: str | None = None,
              *annotations: str) -> dict:
    """``newClaim``: ``cls`` None leaves ``storageClassName`` unset."""
    name, volume_name = dns(name), dns(volume_name)
    claim: dict[str, Any] = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": NS, "uid": uid},
        "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
                 "resources": {"requests": {"storage": request}}, "volumeMode": "Filesystem"},
        "status": {"phase": phase} if phase else {},
    }
    if volume_name:
        claim["spec"]["volumeName"] = volume_name
    if cls is not None:
        claim["spec"]["storageClassName"] = cls
    if annotations:
        claim["metadata"]["annotations"] = {a: "yes" for a in annotations}
    if phase == "Bound":
        claim["status"]["accessModes"] = list(claim["spec"]["accessModes"])
        claim["status"]["capacity"] = {"storage": request}
    return claim


def storage_class(name: str, mode: str = "Immediate", provisioner: str = "kubernetes.io/no-provisioner",
                  default: bool = False, **extra: Any) -> dict:
    sc: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
                          "provisioner": provisioner, "volumeBindingMode": mode, **extra}
    if default:
        sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    return sc


def _post_statuses(c: Any, objs: Iterable[dict]) -> None:
    """Stored objects lose their status on create; post it as the controllers once did."""
    for o in objs:
        if not o.get("status"):
            continue
        res = "persistentvolumes" if o["kind"] == "PersistentVolume" else "persistentvolumeclaims"
        ns = o["metadata"].get("namespace")
        cur = c.get(res, o["metadata"]["name"], ns)
        cur["status"] = o["status"]
        c.client.update_status(res, cur, ns)


def cluster_with(volumes: Iterable[dict] = (), claims: Iterable[dict] = (), classes: Iterable[dict] = (),
                 others: Iterable[dict] = (), controllers: Iterable[str] = ("persistentvolume-binder-controller",),
                 **kw: Any) -> Any:
    """A cluster holding the objects (with their statuses), nothing run yet."""
    from kubenotes.sim.cluster import Cluster

    volumes, claims = list(volumes), list(claims)
    kw.setdefault("kubelet", "stand-in")
    kw.setdefault("scheduler", False)
    c = Cluster([*classes, *volumes, *claims, *others], controllers=list(controllers), **kw)
    _post_statuses(c, [*volumes, *claims])
    return c


def sync_once(volumes: Iterable[dict], claims: Iterable[dict], test: str, *, classes: Iterable[dict] = (),
              others: Iterable[dict] = (), target: str | None = None) -> tuple[dict, dict, list[str]]:
    """Upstream's ``testSyncClaim`` (``test="claim"``) or ``testSyncVolume``: one sync of the first claim (or
    volume, or ``target``) with the controller's caches filled; returns (volumes by name, claims by name,
    events as "Type Reason")."""
    volumes, claims = list(volumes), list(claims)
    c = cluster_with(volumes, claims, classes, others)
    ctrl = c.controllers["persistentvolume-binder-controller"]
    ctrl.reconcile = lambda key: None  # the worker drains its queue without syncing
    c.run(until=1)
    for v in ctrl.volume_informer.lister.list():
        ctrl._store_volume(v)
    for cl in ctrl.claim_informer.lister.list():
        ctrl._store_claim(cl)
    n_events = len(c.list("events", NS))
    if test == "claim":
        name = target or claims[0]["metadata"]["name"]
        ctrl.sync_claim(ctrl.claims[f"{NS}/{name}"])
    else:
        name = target or volumes[0]["metadata"]["name"]
        ctrl.sync_volume(ctrl.volumes.get(name))
    events = [f'{e["type"]} {e["reason"]}' for e in c.list("events", NS)[n_events:]]
    return ({v["metadata"]["name"]: v for v in c.list("persistentvolumes")},
            {x["metadata"]["name"]: x for x in c.list("persistentvolumeclaims", NS)}, events)


def summary_volume(v: dict) -> tuple:
    """(phase, claimRef name, claimRef uid, bound-by-controller) of a volume."""
    ref = v["spec"].get("claimRef") or {}
    return ((v.get("status") or {}).get("phase", ""), ref.get("name", ""), ref.get("uid", ""),
            BOUND_BY_CONTROLLER in (v["metadata"].get("annotations") or {}))


def summary_claim(c: dict) -> tuple:
    """(phase, volumeName, sorted binding annotations, status capacity) of a claim."""
    anns = c["metadata"].get("annotations") or {}
    return ((c.get("status") or {}).get("phase", ""), c["spec"].get("volumeName", ""),
            tuple(sorted(a for a in anns if a in (BOUND_BY_CONTROLLER, BIND_COMPLETED))),
            ((c.get("status") or {}).get("capacity") or {}).get("storage", ""))
