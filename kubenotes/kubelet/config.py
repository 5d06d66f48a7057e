"""Where a kubelet gets its pods: the manifest directory, an HTTP URL and the API server.

Mirrors ``pkg/kubelet/config`` of kubernetes/kubernetes v1.34: ``file.go``
(the static pod directory, ``staticPodPath``, re-read every
``fileCheckFrequency`` = 20 s), ``http.go`` (``staticPodURL``, fetched every
``httpCheckFrequency`` = 20 s), ``common.go`` (``applyDefaults``: how a static
pod is named, annotated and given a uid), ``config.go`` (``podStorage.merge``:
the per-source snapshots merged into incremental ADD / UPDATE / DELETE /
REMOVE / RECONCILE updates) and ``pkg/kubelet/pod/mirror_client.go`` (the
mirror pod a kubelet creates in the API for each static pod).

A static pod ``etcd`` read from ``/etc/kubernetes/manifests/etcd.yaml`` on node
``cp-1`` becomes pod ``etcd-cp-1`` with ``spec.nodeName: cp-1``, a uid that is
an MD5 hash of the manifest and its source, the annotations
``kubernetes.io/config.hash`` (that uid), ``kubernetes.io/config.source:
file`` and ``kubernetes.io/config.seen`` (when the kubelet first saw it), and
a toleration of every ``NoExecute`` taint. Its mirror pod in the API adds
``kubernetes.io/config.mirror`` (the hash) and an owner reference to the Node.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/http.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/common.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/config.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/types/pod_update.go
https://kubernetes.io/docs/tasks/configure-pod-container/static-pod/
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from kubenotes.api.yamlutil import YAMLError, load_documents
from kubenotes.apiserver.server import current_epoch
from kubenotes.errors import ManifestError
from kubenotes.kubelet.qos import (  # re-exported: the source annotations and predicates live with the QoS policy
    API_SERVER_SOURCE,
    CONFIG_MIRROR_ANNOTATION_KEY,
    CONFIG_SOURCE_ANNOTATION_KEY,
    is_mirror_pod,
    is_static_pod,
)

__all__ = [
    "CONFIG_SOURCE_ANNOTATION_KEY",
    "CONFIG_MIRROR_ANNOTATION_KEY",
    "CONFIG_FIRST_SEEN_ANNOTATION_KEY",
    "CONFIG_HASH_ANNOTATION_KEY",
    "FILE_SOURCE",
    "HTTP_SOURCE",
    "API_SERVER_SOURCE",
    "ALL_SOURCE",
    "SET",
    "ADD",
    "UPDATE",
    "DELETE",
    "REMOVE",
    "RECONCILE",
    "DEFAULT_FILE_CHECK_FREQUENCY_SECONDS",
    "DEFAULT_HTTP_CHECK_FREQUENCY_SECONDS",
    "FAILED_VALIDATION",
    "PodUpdate",
    "generate_pod_name",
    "static_pod_uid",
    "apply_defaults",
    "decode_single_pod",
    "decode_pod_list",
    "manifest_files",
    "extract_from_dir",
    "read_pods_from_dir",
    "extract_from_http",
    "api_field_selector",
    "api_source_update",
    "watch_api_source",
    "pod_full_name",
    "is_static_pod",
    "is_mirror_pod",
    "mirror_pod",
    "is_mirror_pod_of",
    "manifest_from_mirror_pod",
    "format_first_seen",
    "PodStorage",
]

CONFIG_FIRST_SEEN_ANNOTATION_KEY = "kubernetes.io/config.seen"
CONFIG_HASH_ANNOTATION_KEY = "kubernetes.io/config.hash"
#: Annotations the kubelet sets for itself: ignored when comparing a pod with its previous version.
_LOCAL_ANNOTATIONS = (CONFIG_SOURCE_ANNOTATION_KEY, CONFIG_MIRROR_ANNOTATION_KEY, CONFIG_FIRST_SEEN_ANNOTATION_KEY)

FILE_SOURCE = "file"
HTTP_SOURCE = "http"
ALL_SOURCE = "*"

#: ``kubetypes.PodOperation`` values.
SET, ADD, UPDATE, DELETE, REMOVE, RECONCILE = "SET", "ADD", "UPDATE", "DELETE", "REMOVE", "RECONCILE"

#: ``fileCheckFrequency`` default.
DEFAULT_FILE_CHECK_FREQUENCY_SECONDS = 20.0
#: ``httpCheckFrequency`` default.
DEFAULT_HTTP_CHECK_FREQUENCY_SECONDS = 20.0
#: The Event reason for a rejected duplicate pod (``events.FailedValidation``).
FAILED_VALIDATION = "FailedValidation"
_DUPLICATE_NAME_FMT = 'Error validating pod {} from {} due to duplicate pod name "{}", ignoring'
_FILE_PARSE_ERROR_FMT = "{}: couldn't parse as pod({}), please check config file"
_HTTP_PARSE_ERROR_FMT = "{}: received '{}', but couldn't parse as single ({}) or multiple pods ({})"
_HTTP_ZERO_LENGTH_FMT = "zero-length data received from {}"


def _manifest_error(detail: str, source: str = "") -> ManifestError:
    """A manifest the kubelet cannot use (it logs this and skips the file), in upstream's words.

    The decoders leave out where the manifest came from (their callers
    prefix it, as upstream's ``extractFromDir`` does), so ``source`` is empty
    and the message is ``detail`` alone.
    """
    return ManifestError(source, None, None, detail)


@dataclass
class PodUpdate:
    """One update from a pod source or from the merge (``kubetypes.PodUpdate``).

    Attributes
    ----------
    op : str
        ``SET`` (a source's full list) or, after the merge, ``ADD``, ``UPDATE``,
        ``DELETE`` (graceful), ``REMOVE``, ``RECONCILE`` (status only).
    source : str
        ``file``, ``http``, ``api``.
    pods : list of dict
    """

    op: str
    source: str
    pods: list[dict] = field(default_factory=list)


def generate_pod_name(name: str, node_name: str) -> str:
    """A static pod's name: ``<name>-<node name in lower case>`` (``generatePodName``).

    Examples
    --------
    >>> generate_pod_name("kube-apiserver", "CP-1")
    'kube-apiserver-cp-1'
    """
    return f"{name}-{node_name.lower()}"


def static_pod_uid(pod: Mapping[str, Any], source: str, is_file: bool, node_name: str) -> str:
    """The uid of a static pod without one: an MD5 hex digest of the pod and where it came from.

    Notes
    -----
    Upstream hashes the decoded Go object (``hash.DeepHashObject``, a
    ``spew`` dump) followed by ``host:<node>`` and ``file:<path>`` (or
    ``url:<url>``); here the object part is its canonical JSON, so the digest
    has upstream's form and properties (same manifest, node and path → same
    uid; any change → a new uid) but not upstream's exact value.

    Examples
    --------
    >>> uid = static_pod_uid({"metadata": {"name": "etcd"}}, "/etc/kubernetes/manifests/etcd.yaml", True, "cp-1")
    >>> len(uid), uid == static_pod_uid({"metadata": {"name": "etcd"}}, "/etc/kubernetes/manifests/etcd.yaml", True, "cp-2")
    (32, False)
    """
    hasher = hashlib.md5()
    hasher.update(json.dumps(pod, sort_keys=True, separators=(",", ":"), default=str).encode())
    if is_file:
        hasher.update(f"host:{node_name}".encode())
        hasher.update(f"file:{source}".encode())
    else:
        hasher.update(f"url:{source}".encode())
    return hasher.hexdigest()


def apply_defaults(pod: dict, source: str, is_file: bool, node_name: str) -> dict:
    """Make a manifest's pod a pod of this node (``applyDefaults``), in place.

    uid from :func:`static_pod_uid` when the manifest has none; name
    ``<name>-<node>``; namespace ``default`` when empty; ``spec.nodeName``;
    ``kubernetes.io/config.hash`` = uid; for a file, a toleration of every
    ``NoExecute`` taint; phase ``Pending``.

    Returns
    -------
    dict
        ``pod``.

    Examples
    --------
    >>> p = apply_defaults({"metadata": {"name": "web"}, "spec": {"containers": []}}, "/m/web.yaml", True, "n1")
    >>> p["metadata"]["name"], p["metadata"]["namespace"], p["spec"]["nodeName"], p["spec"]["tolerations"]
    ('web-n1', 'default', 'n1', [{'operator': 'Exists', 'effect': 'NoExecute'}])
    >>> p["metadata"]["annotations"]["kubernetes.io/config.hash"] == p["metadata"]["uid"]
    True
    """
    meta = pod.setdefault("metadata", {})
    if not meta.get("uid"):
        meta["uid"] = static_pod_uid(pod, source, is_file, node_name)
    meta["name"] = generate_pod_name(meta.get("name", ""), node_name)
    if not meta.get("namespace"):
        meta["namespace"] = "default"
    spec = pod.setdefault("spec", {})
    spec["nodeName"] = node_name
    annotations = meta.get("annotations") or {}
    meta["annotations"] = annotations
    annotations[CONFIG_HASH_ANNOTATION_KEY] = meta["uid"]
    if is_file:
        toleration = {"operator": "Exists", "effect": "NoExecute"}
        tolerations = spec.setdefault("tolerations", [])
        for i, t in enumerate(tolerations):  # AddOrUpdateTolerationInPod
            if t.get("key", "") == "" and t.get("operator") == "Exists" and t.get("effect") == "NoExecute":
                tolerations[i] = toleration
                break
        else:
            tolerations.append(toleration)
    pod.setdefault("status", {})["phase"] = "Pending"
    return pod


def _set_scheme_defaults(pod: dict) -> dict:
    """The defaults decoding applies (restartPolicy, dnsPolicy, imagePullPolicy...)."""
    from kubenotes.api.defaults import scheme_defaulted_pod

    return scheme_defaulted_pod(pod)


def _decode(data: str | bytes) -> Any:
    text = data.decode() if isinstance(data, bytes) else data
    docs = [d for _, d in load_documents(text) if d is not None]  # as utilyaml.ToJSON reads YAML
    if len(docs) != 1:
        raise _manifest_error(f"expected one object, found {len(docs)}")
    return docs[0]


def decode_single_pod(data: str | bytes, source: str, is_file: bool, node_name: str) -> dict:
    """Decode a manifest as one Pod and apply the defaults (``tryDecodeSinglePod``).

    Raises
    ------
    ManifestError
        Not YAML/JSON, not a ``v1`` Pod, or no ``metadata.name``.

    Examples
    --------
    >>> p = decode_single_pod("apiVersion: v1\\nkind: Pod\\nmetadata: {name: etcd, namespace: kube-system}\\n"
    ...                       "spec: {containers: [{name: etcd, image: etcd:3.5}]}\\n", "/m/etcd.yaml", True, "cp-1")
    >>> p["metadata"]["name"], p["spec"]["restartPolicy"], p["status"]["phase"]
    ('etcd-cp-1', 'Always', 'Pending')
    """
    try:
        obj = _decode(data)
    except YAMLError as e:
        raise _manifest_error(str(e).replace("\n", " ")) from None
    if not isinstance(obj, dict) or obj.get("kind") != "Pod" or obj.get("apiVersion") != "v1":
        kind = obj.get("kind") if isinstance(obj, dict) else type(obj).__name__
        raise _manifest_error(f'no kind "{kind}" is registered for a single v1 Pod')
    if not (obj.get("metadata") or {}).get("name"):
        raise _manifest_error("invalid pod: metadata.name: Required value: name or generateName is required")
    return apply_defaults(_set_scheme_defaults(obj), source, is_file, node_name)


def decode_pod_list(data: str | bytes, source: str, is_file: bool, node_name: str) -> list[dict]:
    """Decode a ``v1`` PodList and apply the defaults to each item (``tryDecodePodList``).

    Raises
    ------
    ManifestError
        Not a PodList, or an item without a name.
    """
    try:
        obj = _decode(data)
    except YAMLError as e:
        raise _manifest_error(str(e).replace("\n", " ")) from None
    if not isinstance(obj, dict) or obj.get("kind") != "PodList":
        raise _manifest_error("invalid pods list")
    out = []
    for item in obj.get("items") or []:
        item = {"apiVersion": "v1", "kind": "Pod", **item}
        if not (item.get("metadata") or {}).get("name"):
            raise _manifest_error("invalid pod: metadata.name: Required value: name or generateName is required")
        out.append(apply_defaults(_set_scheme_defaults(item), source, is_file, node_name))
    return out


def manifest_files(names: Iterable[str]) -> list[str]:
    """Which entries of the manifest directory the kubelet reads: all but dotfiles, sorted.

    Upstream globs ``[^.]*``: every regular file not starting with a dot is
    parsed, whatever its extension (a ``kube-apiserver.yaml.bak`` left in
    ``/etc/kubernetes/manifests`` is a second pod with the same name, and
    one of the two is rejected); subdirectories are not read.

    Examples
    --------
    >>> manifest_files(["kube-apiserver.yaml", ".etcd.yaml.swp", "etcd.yaml", "notes.txt"])
    ['etcd.yaml', 'kube-apiserver.yaml', 'notes.txt']
    """
    return sorted(n for n in names if not os.path.basename(n).startswith("."))


def extract_from_dir(files: Mapping[str, str | bytes], node_name: str, path: str = "/etc/kubernetes/manifests",
                     errors: list[str] | None = None) -> PodUpdate:
    """The file source's ``SET`` update from a manifest directory's contents (``extractFromDir``).

    Parameters
    ----------
    files : dict[str, str or bytes]
        File name -> content (a virtual directory; see :func:`read_pods_from_dir` for a real one).
    node_name : str
    path : str
        The directory (``staticPodPath``); file paths enter the uid hash.
    errors : list, optional
        Receives ``Could not process manifest file`` messages for the files skipped.

    Returns
    -------
    PodUpdate
        ``SET`` from ``file`` with one pod per parsable file.

    Examples
    --------
    >>> m = "apiVersion: v1\\nkind: Pod\\nmetadata: {name: web}\\nspec: {containers: [{name: c, image: nginx}]}\\n"
    >>> errs = []
    >>> u = extract_from_dir({"web.yaml": m, "broken.yaml": "kind: [", ".hidden.yaml": m}, "n1", errors=errs)
    >>> [p["metadata"]["name"] for p in u.pods], len(errs)
    (['web-n1'], 1)
    """
    pods = []
    for name in manifest_files(files):
        filename = os.path.join(path, name)
        try:
            pods.append(decode_single_pod(files[name], filename, True, node_name))
        except ManifestError as e:
            if errors is not None:
                errors.append(_FILE_PARSE_ERROR_FMT.format(filename, e))
    return PodUpdate(SET, FILE_SOURCE, pods)


def read_pods_from_dir(path: str, node_name: str, errors: list[str] | None = None) -> PodUpdate:
    """:func:`extract_from_dir` over a real directory (regular files only; a missing directory gives no pods)."""
    files: dict[str, bytes] = {}
    if os.path.isdir(path):
        for name in os.listdir(path):
            full = os.path.join(path, name)
            if os.path.isfile(full):
                with open(full, "rb") as fh:
                    files[name] = fh.read()
    return extract_from_dir(files, node_name, path, errors)


def extract_from_http(url: str, data: str | bytes, node_name: str, status_code: int = 200,
                      status_text: str = "200 OK") -> PodUpdate:
    """The HTTP source's update from one fetch of ``staticPodURL`` (``extractFromURL``).

    Parameters
    ----------
    url : str
    data : str or bytes
        The response body: one Pod or a PodList, YAML or JSON.
    node_name : str
    status_code, status_text : int, str
        The response status; anything but 200 is an error.

    Returns
    -------
    PodUpdate
        ``SET`` from ``http``.

    Raises
    ------
    ManifestError
        With upstream's wording: ``<url>: 404 Not Found``, ``zero-length
        data received from <url>`` (the source still counts as seen),
        ``<url>: received '...', but couldn't parse as single (...) or multiple pods (...)``.

    Examples
    --------
    >>> body = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "agent"}, "spec": {"containers": []}}'
    >>> [p["metadata"]["name"] for p in extract_from_http("http://cfg/pods", body, "n1").pods]
    ['agent-n1']
    """
    if status_code != 200:
        raise _manifest_error(status_text, url)
    if not data:
        raise _manifest_error(_HTTP_ZERO_LENGTH_FMT.format(url))
    try:
        return PodUpdate(SET, HTTP_SOURCE, [decode_single_pod(data, url, False, node_name)])
    except ManifestError as single_err:
        try:
            return PodUpdate(SET, HTTP_SOURCE, decode_pod_list(data, url, False, node_name))
        except ManifestError as multi_err:
            text = data.decode() if isinstance(data, bytes) else data
            raise _manifest_error(_HTTP_PARSE_ERROR_FMT.format(url, text, single_err, multi_err)) from None


def api_field_selector(node_name: str) -> str:
    """The field selector of the kubelet's pod watch (``NewSourceApiserver``): only pods bound to this node.

    Parameters
    ----------
    node_name : str
        The kubelet's node name.

    Returns
    -------
    str
        ``spec.nodeName=<node_name>``, for a list/watch of ``pods`` in all namespaces.

    Raises
    ------
    None
        Nothing is checked: any name is formatted as given.

    Notes
    -----
    Upstream builds it with ``fields.OneTermEqualSelector`` and escapes
    selector syntax in the value; node names never need escaping, so none is done.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/apiserver.go (NewSourceApiserver)

    Examples
    --------
    >>> api_field_selector("w1")
    'spec.nodeName=w1'
    """
    return f"spec.nodeName={node_name}"


def api_source_update(pods: Iterable[Mapping[str, Any]], node_name: str) -> PodUpdate:
    """The API source's update: a ``SET`` of every pod bound to the node.

    Upstream's API source is a reflector feeding an ``UndeltaStore``: each
    watch event re-sends the whole list, and :class:`PodStorage` turns the
    snapshot into ADD/UPDATE/DELETE/REMOVE.

    Examples
    --------
    >>> pods = [{"metadata": {"name": "a", "uid": "1"}, "spec": {"nodeName": "w1"}},
    ...         {"metadata": {"name": "b", "uid": "2"}, "spec": {"nodeName": "w2"}}]
    >>> u = api_source_update(pods, "w1")
    >>> u.op, u.source, [p["metadata"]["name"] for p in u.pods]
    ('SET', 'api', ['a'])
    """
    chosen = [copy.deepcopy(dict(p)) for p in pods if (p.get("spec") or {}).get("nodeName") == node_name]
    return PodUpdate(SET, API_SERVER_SOURCE, chosen)


def watch_api_source(env: Any, client: Any, node_name: str, on_pod: Any, on_removed: Any) -> Any:
    """The API pod source as a SimPy process (``config.NewSourceApiserver``): list, then watch from the list.

    Pods bound to ``node_name`` (field selector ``spec.nodeName=<node>``) are
    handed to ``on_pod`` (list items, ADDED and MODIFIED) and ``on_removed``
    (DELETED); when the watch ends, the source lists again. A failed watch
    request is retried after 1 s.

    Parameters
    ----------
    env : simpy.Environment
    client : Client
        The kubelet's API client.
    node_name : str
    on_pod, on_removed : callable(dict)

    Yields
    ------
    simpy events
    """
    from kubenotes.apiserver.status import ApiError

    selector = api_field_selector(node_name)
    while True:
        lst = client.list("pods", field_selector=selector)
        for p in lst["items"]:
            on_pod(p)
        try:
            w = client.watch("pods", field_selector=selector, resource_version=lst["metadata"]["resourceVersion"])
        except ApiError:
            yield env.timeout(1.0)
            continue
        while not w.stopped:
            yield w.wait()
            for ev in w.pop_all():
                if ev.type == "DELETED":
                    on_removed(ev.object)
                elif ev.type in ("ADDED", "MODIFIED"):
                    on_pod(ev.object)


def pod_full_name(pod: Mapping[str, Any]) -> str:
    """``<name>_<namespace>`` (``kubecontainer.GetPodFullName``).

    Examples
    --------
    >>> pod_full_name({"metadata": {"name": "etcd-cp-1", "namespace": "kube-system"}})
    'etcd-cp-1_kube-system'
    """
    meta = pod.get("metadata") or {}
    return f"{meta.get('name', '')}_{meta.get('namespace', '')}"


def _annotations(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return (pod.get("metadata") or {}).get("annotations") or {}






def mirror_pod(static_pod: Mapping[str, Any], node_name: str, node_uid: str) -> dict:
    """The mirror pod the kubelet creates for a static pod (``basicMirrorClient.CreateMirrorPod``).

    A copy with ``kubernetes.io/config.mirror`` set to the static pod's hash
    and the Node as controlling owner; the API server assigns its own uid
    (so the mirror's uid differs from the static pod's) and resets the status.

    Examples
    --------
    >>> sp = apply_defaults({"metadata": {"name": "etcd", "namespace": "kube-system"}, "spec": {}},
    ...                     "/m/etcd.yaml", True, "cp-1")
    >>> mp = mirror_pod(sp, "cp-1", "node-uid")
    >>> mp["metadata"]["annotations"]["kubernetes.io/config.mirror"] == sp["metadata"]["uid"], "uid" in mp["metadata"]
    (True, False)
    >>> mp["metadata"]["ownerReferences"]
    [{'apiVersion': 'v1', 'kind': 'Node', 'name': 'cp-1', 'uid': 'node-uid', 'controller': True}]
    """
    out = copy.deepcopy(dict(static_pod))
    out.setdefault("apiVersion", "v1")
    out.setdefault("kind", "Pod")
    meta = out.setdefault("metadata", {})
    for key in ("uid", "resourceVersion", "creationTimestamp"):
        meta.pop(key, None)
    annotations = dict(meta.get("annotations") or {})
    annotations[CONFIG_MIRROR_ANNOTATION_KEY] = _annotations(static_pod).get(CONFIG_HASH_ANNOTATION_KEY, "")
    meta["annotations"] = annotations
    meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid,
                                "controller": True}]
    out.pop("status", None)
    return out


def is_mirror_pod_of(mirror: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """Whether ``mirror`` is the current mirror of static ``pod``: same name and namespace, same hash (``IsMirrorPodOf``).

    An edited manifest has a new hash, so the kubelet deletes the old mirror and creates a new one.
    """
    mm, pm = mirror.get("metadata") or {}, pod.get("metadata") or {}
    if (mm.get("name"), mm.get("namespace")) != (pm.get("name"), pm.get("namespace")):
        return False
    mirror_hash = _annotations(mirror).get(CONFIG_MIRROR_ANNOTATION_KEY)
    return mirror_hash is not None and mirror_hash == _annotations(pod).get(CONFIG_HASH_ANNOTATION_KEY)


def manifest_from_mirror_pod(mirror: Mapping[str, Any], node_name: str) -> dict:
    """The manifest a node's ``staticPodPath`` holds for a mirror pod found in a cluster dump.

    A ``kubectl get -o yaml`` dump of a running cluster carries the mirror pods of
    its static pods (etcd, kube-apiserver ... on kubeadm control-plane nodes) but
    not the manifests, which live on the nodes' disks. This rebuilds one: the
    name without the ``-<node>`` suffix, the namespace, labels and annotations
    (without the kubelet's own ``kubernetes.io/config.*``), the spec, and as
    ``metadata.uid`` the mirror's ``kubernetes.io/config.mirror`` hash. A manifest
    with a uid keeps it (``applyDefaults``), so the rebuilt static pod is the one
    the mirror pod mirrors, and the kubelet keeps the mirror instead of replacing it.

    Parameters
    ----------
    mirror : dict
        A Pod with the ``kubernetes.io/config.mirror`` annotation.
    node_name : str

    Returns
    -------
    dict
        A Pod manifest.

    Examples
    --------
    >>> mirror = {"metadata": {"name": "etcd-cp-1", "namespace": "kube-system", "uid": "4d1f",
    ...                        "annotations": {"kubernetes.io/config.mirror": "9a3c", "kubernetes.io/config.seen": "x",
    ...                                        "kubeadm.kubernetes.io/etcd.advertise-client-urls": "https://10.0.0.2:2379"}},
    ...           "spec": {"nodeName": "cp-1", "containers": [{"name": "etcd", "image": "registry.k8s.io/etcd:3.5.21-0"}]},
    ...           "status": {"phase": "Running"}}
    >>> m = manifest_from_mirror_pod(mirror, "cp-1")
    >>> m["metadata"]["name"], m["metadata"]["uid"], sorted(m["metadata"]["annotations"]), "status" in m
    ('etcd', '9a3c', ['kubeadm.kubernetes.io/etcd.advertise-client-urls'], False)
    >>> apply_defaults(m, "/etc/kubernetes/manifests/etcd.yaml", True, "cp-1")["metadata"]["annotations"]["kubernetes.io/config.hash"]
    '9a3c'
    """
    meta = mirror.get("metadata") or {}
    name = meta.get("name", "")
    suffix = f"-{node_name.lower()}"
    if name.endswith(suffix):
        name = name[: -len(suffix)]
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k not in _LOCAL_ANNOTATIONS and k != CONFIG_HASH_ANNOTATION_KEY}
    out_meta: dict[str, Any] = {"name": name, "namespace": meta.get("namespace", "default"),
                                "uid": _annotations(mirror).get(CONFIG_MIRROR_ANNOTATION_KEY, "")}
    if meta.get("labels"):
        out_meta["labels"] = copy.deepcopy(meta["labels"])
    if annotations:
        out_meta["annotations"] = copy.deepcopy(annotations)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": out_meta, "spec": copy.deepcopy(mirror.get("spec") or {})}


def format_first_seen(seconds: float, epoch: _dt.datetime | None = None) -> str:
    """``kubernetes.io/config.seen``: ``time.RFC3339Nano`` (trailing zeros of the fraction dropped).

    Examples
    --------
    >>> format_first_seen(20), format_first_seen(20.25)
    ('2025-08-27T00:00:20Z', '2025-08-27T00:00:20.25Z')
    """
    t = (epoch or current_epoch()) + _dt.timedelta(seconds=seconds)
    frac = f"{t.microsecond:06d}000".rstrip("0")
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "") + "Z"


def _differ_semantically(existing: Mapping[str, Any], ref: Mapping[str, Any]) -> bool:
    em, rm = existing.get("metadata") or {}, ref.get("metadata") or {}

    def ann(m: Mapping[str, Any]) -> dict:
        return {k: v for k, v in (m.get("annotations") or {}).items() if k not in _LOCAL_ANNOTATIONS}

    return (existing.get("spec") != ref.get("spec") or (em.get("labels") or {}) != (rm.get("labels") or {})
            or em.get("deletionTimestamp") != rm.get("deletionTimestamp")
            or em.get("deletionGracePeriodSeconds") != rm.get("deletionGracePeriodSeconds")
            or em.get("generation") != rm.get("generation") or ann(em) != ann(rm))


class PodStorage:
    """The kubelet's merge of its pod sources into incremental updates (``podStorage``).

    Each source's pods are kept by uid. :meth:`merge` takes one source's
    update (a ``SET`` snapshot, which is what all three upstream sources
    send, or an ``ADD``/``UPDATE``/``DELETE``/``REMOVE`` of some pods) and returns what the
    kubelet's sync loop receives, in upstream's order: REMOVE, ADD, UPDATE,
    DELETE, then RECONCILE (a status-only change). The first ``SET`` from a
    source with nothing to add yields an empty ``ADD`` (the source is now "seen").

    Parameters
    ----------
    epoch : datetime, optional
        For the ``kubernetes.io/config.seen`` annotation.

    Notes
    -----
    Duplicate full names within one source are dropped with the
    ``FailedValidation`` message returned in :attr:`events`; upstream records
    it as an Event. Only the incremental notification mode (the one the
    kubelet uses) is modelled.

    Examples
    --------
    >>> store = PodStorage()
    >>> pod = {"metadata": {"name": "web-n1", "namespace": "default", "uid": "u1"}, "spec": {"containers": []}}
    >>> [(u.op, len(u.pods)) for u in store.merge(PodUpdate(SET, FILE_SOURCE, [pod]), now=20)]
    [('ADD', 1)]
    >>> store.merge(PodUpdate(SET, FILE_SOURCE, [pod]), now=40)
    []
    >>> [(u.op, u.pods[0]["metadata"]["name"]) for u in store.merge(PodUpdate(SET, FILE_SOURCE, []), now=60)]
    [('REMOVE', 'web-n1')]
    """

    def __init__(self, epoch: _dt.datetime | None = None):
        self.pods: dict[str, dict[str, dict]] = {}
        self.sources_seen: set[str] = set()
        self.events: list[tuple[str, str, str]] = []
        self.epoch = epoch

    def _filter_invalid(self, pods: Sequence[dict], source: str) -> list[dict]:
        names: set[str] = set()
        out = []
        for pod in pods:
            full = pod_full_name(pod)
            if full in names:
                meta = pod.get("metadata") or {}
                formatted = f"{meta.get('name', '')}_{meta.get('namespace', '')}({meta.get('uid', '')})"
                self.events.append((FAILED_VALIDATION, full,
                                    _DUPLICATE_NAME_FMT.format(formatted, source, meta.get("name", ""))))
                continue
            names.add(full)
            out.append(pod)
        return out

    def merge(self, update: PodUpdate, now: float) -> list[PodUpdate]:
        """Apply one source update; return the incremental updates for the sync loop.

        Parameters
        ----------
        update : PodUpdate
        now : float
            Virtual seconds (the ``config.seen`` time of new pods).

        Returns
        -------
        list of PodUpdate
            Non-empty ``REMOVE``, ``ADD``, ``UPDATE``, ``DELETE``, ``RECONCILE`` updates (pods are the stored copies).
        """
        source = update.source
        pods = self.pods.setdefault(source, {})
        adds: list[dict] = []
        updates: list[dict] = []
        deletes: list[dict] = []
        removes: list[dict] = []
        reconciles: list[dict] = []

        def update_pods(new_pods: Sequence[dict], old: dict[str, dict], into: dict[str, dict]) -> None:
            for ref in self._filter_invalid([copy.deepcopy(p) for p in new_pods], source):
                meta = ref.setdefault("metadata", {})
                meta.setdefault("annotations", {})
                meta["annotations"] = dict(meta["annotations"] or {})
                meta["annotations"][CONFIG_SOURCE_ANNOTATION_KEY] = source
                uid = meta.get("uid", "")
                existing = old.get(uid)
                if existing is not None:
                    into[uid] = existing
                    kind = self._check_and_update(existing, ref)
                    {"update": updates, "reconcile": reconciles, "delete": deletes}.get(kind, []).append(existing)
                    continue
                meta["annotations"][CONFIG_FIRST_SEEN_ANNOTATION_KEY] = format_first_seen(now, self.epoch)
                into[uid] = ref
                adds.append(ref)

        first_set = False
        if update.op in (ADD, UPDATE, DELETE):
            update_pods(update.pods, pods, pods)
        elif update.op == REMOVE:
            for p in update.pods:
                uid = (p.get("metadata") or {}).get("uid", "")
                if uid in pods:
                    removes.append(pods.pop(uid))
        elif update.op == SET:
            first_set = source not in self.sources_seen
            self.sources_seen.add(source)
            old = pods
            fresh: dict[str, dict] = {}
            update_pods(update.pods, old, fresh)
            removes.extend(p for uid, p in old.items() if uid not in fresh)
            self.pods[source] = fresh
        else:
            raise ValueError(f"unknown pod operation {update.op!r}")
        if update.op != SET:
            self.sources_seen.add(source)

        out = [PodUpdate(op, source, lst) for op, lst in ((REMOVE, removes), (ADD, adds), (UPDATE, updates),
                                                          (DELETE, deletes)) if lst]
        if first_set and not adds and not updates and not deletes:
            out.insert(len([u for u in out if u.op == REMOVE]), PodUpdate(ADD, source, []))
        if reconciles:
            out.append(PodUpdate(RECONCILE, source, reconciles))
        return out

    @staticmethod
    def _check_and_update(existing: dict, ref: dict) -> str:
        """``checkAndUpdatePod``: ``update``, ``delete`` (graceful), ``reconcile`` (status) or ``""``."""
        if not _differ_semantically(existing, ref):
            if existing.get("status") != ref.get("status"):
                existing["status"] = copy.deepcopy(ref.get("status"))
                return "reconcile"
            return ""
        em, rm = existing.setdefault("metadata", {}), ref.get("metadata") or {}
        seen = (em.get("annotations") or {}).get(CONFIG_FIRST_SEEN_ANNOTATION_KEY)
        existing["spec"] = copy.deepcopy(ref.get("spec"))
        for key in ("labels", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            if key in rm:
                em[key] = copy.deepcopy(rm[key])
            else:
                em.pop(key, None)
        existing["status"] = copy.deepcopy(ref.get("status"))
        annotations = dict(rm.get("annotations") or {})  # updateAnnotations: local keys keep existing values
        old_annotations = dict(em.get("annotations") or {})
        if seen is not None:
            old_annotations[CONFIG_FIRST_SEEN_ANNOTATION_KEY] = seen
        for key in _LOCAL_ANNOTATIONS:
            if key in old_annotations:
                annotations[key] = old_annotations[key]
        em["annotations"] = annotations
        return "delete" if rm.get("deletionTimestamp") else "update"

    def all_pods(self) -> list[dict]:
        """Every pod of every source (``MergedState``), sorted by source then uid."""
        return [p for source in sorted(self.pods) for _, p in sorted(self.pods[source].items())]

    def seen_all_sources(self, sources: Iterable[str]) -> bool:
        """Whether every source has delivered at least once (``SeenAllSources``)."""
        return set(sources) <= self.sources_seen
