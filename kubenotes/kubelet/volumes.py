"""The kubelet's volume manager: desired and actual state of the world, a reconciler, six volume plugins.

Before a pod's sandbox is created, ``SyncPod`` blocks in
``volumeManager.WaitForAttachAndMount`` until every volume a container
mounts is set up under ``/var/lib/kubelet/pods/<uid>/volumes/``. Three loops
do the work upstream, all modelled here on the SimPy clock:

* the **desired-state-of-world populator** copies the pods of the pod
  manager (:meth:`VolumeManager.add_pod`) into the desired state, only the
  volumes some container actually mounts, and drops the pods whose runtime
  may be removed (:meth:`VolumeManager.remove_pod`);
* the **reconciler**, every ``reconcilerLoopSleepPeriod`` (100 ms), tears
  down what is mounted but no longer desired and sets up what is desired but
  not mounted (or marked for remount), each operation guarded by the
  operation executor's exponential back-off (500 ms doubling to 2m2s);
* :meth:`VolumeManager.wait_for_attach_and_mount` polls the actual state
  immediately and then every 300 ms for up to 2m3s.

Plugins (``SetUp``): ``kubernetes.io/empty-dir`` (node disk, or tmpfs for
``medium: Memory`` with upstream's size rule), ``kubernetes.io/configmap``,
``kubernetes.io/secret``, ``kubernetes.io/downward-api``,
``kubernetes.io/projected`` (configMap, secret, downwardAPI and
serviceAccountToken sources merged into one directory, as the ServiceAccount
admission plugin's ``kube-api-access-xxxxx`` volume uses them) and
``kubernetes.io/host-path`` (type checks against a small model host
filesystem), and ``kubernetes.io/csi`` for claims bound to CSI
PersistentVolumes when the adapter has a CSI plugin (``adapter.csi``,
:class:`kubenotes.kubelet.csi.CSIVolumePlugin`): verify attached, wait for
the VolumeAttachment, stage the device once per node, publish per pod, expand a
grown claim on the node (after SetUp, and for mounted volumes at each pod sync); on
teardown unpublish, and unstage when no pod uses the volume any more. The
attachable CSI volumes desired or attached are the node's ``volumesInUse``
(:meth:`VolumeManager.volumes_in_use`). The volume manager is API-free: it
reads ConfigMaps, Secrets and tokens through an adapter (:class:`VolumeHostAdapter`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/volume_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/volume_manager.go (GetVolumesInUse, MarkVolumesAsReportedInUse)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/reconciler/reconciler_common.go (unmountDetachDevices)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/reconciler/reconciler_common.go
kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/operation_generator.go (GenerateMountVolumeFunc)
kubernetes/kubernetes@v1.34.0 pkg/util/goroutinemap/exponentialbackoff/exponential_backoff.go
kubernetes/kubernetes@v1.34.0 pkg/volume/{emptydir,configmap,secret,projected,downwardapi,hostpath}
kubernetes/kubernetes@v1.34.0 pkg/kubelet/token/token_manager.go
https://kubernetes.io/docs/concepts/storage/volumes/
"""

from __future__ import annotations

import base64
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterable, Mapping, Protocol

import simpy

from kubenotes.api.quantity import memory_bytes, milli_value, value
from kubenotes.csi.spec import CSIError
from kubenotes.errors import KubenotesError, aggregate_error_message

__all__ = [
    "VolumeManager", "VolumeHostAdapter", "MountedVolume", "FileProjection", "VolumeSetUpError",
    "WaitForAttachAndMountError", "WaitForUnmountError", "ExponentialBackoff",
    "make_config_map_payload", "make_secret_payload", "collect_downward_api_data", "format_map",
    "expected_volumes", "volume_plugin_name", "pod_volume_dir",
    "KUBELET_PODS_DIR", "RECONCILER_LOOP_SLEEP_PERIOD_SECONDS", "POD_ATTACH_AND_MOUNT_TIMEOUT_SECONDS",
    "POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_SECONDS", "INITIAL_DURATION_BEFORE_RETRY_SECONDS",
    "MAX_DURATION_BEFORE_RETRY_SECONDS", "FAILED_MOUNT_VOLUME", "ERR_WAIT_TIMEOUT", "DEFAULT_MODE",
    "EMPTY_DIR_PLUGIN_NAME", "CONFIG_MAP_PLUGIN_NAME", "SECRET_PLUGIN_NAME", "PROJECTED_PLUGIN_NAME",
    "DOWNWARD_API_PLUGIN_NAME", "HOST_PATH_PLUGIN_NAME", "CSI_PLUGIN_NAME", "DEFAULT_HOST_PATHS",
]

#: ``--root-dir`` + ``pods`` (``config.DefaultKubeletPodsDirName``).
KUBELET_PODS_DIR = "/var/lib/kubelet/pods"
#: ``reconcilerLoopSleepPeriod`` (also ``desiredStateOfWorldPopulatorLoopSleepPeriod``).
RECONCILER_LOOP_SLEEP_PERIOD_SECONDS = 0.1
#: ``podAttachAndMountTimeout`` = 2m3s ("slightly offset from 2 minutes to make timeouts recognizable").
POD_ATTACH_AND_MOUNT_TIMEOUT_SECONDS = 123.0
#: ``podAttachAndMountRetryInterval``.
POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_SECONDS = 0.3
#: ``exponentialbackoff.initialDurationBeforeRetry``.
INITIAL_DURATION_BEFORE_RETRY_SECONDS = 0.5
#: ``exponentialbackoff.maxDurationBeforeRetry`` = 2m2s.
MAX_DURATION_BEFORE_RETRY_SECONDS = 122.0
#: ``events.FailedMountVolume``.
FAILED_MOUNT_VOLUME = "FailedMount"
#: ``wait.ErrWaitTimeout`` (what ``PollUntilContextTimeout`` returns at its deadline).
ERR_WAIT_TIMEOUT = "timed out waiting for the condition"
#: ``ConfigMapVolumeSourceDefaultMode`` etc. (0644), what API defaulting writes as ``defaultMode: 420``.
DEFAULT_MODE = 0o644

EMPTY_DIR_PLUGIN_NAME = "kubernetes.io/empty-dir"
CONFIG_MAP_PLUGIN_NAME = "kubernetes.io/configmap"
SECRET_PLUGIN_NAME = "kubernetes.io/secret"
PROJECTED_PLUGIN_NAME = "kubernetes.io/projected"
DOWNWARD_API_PLUGIN_NAME = "kubernetes.io/downward-api"
HOST_PATH_PLUGIN_NAME = "kubernetes.io/host-path"
#: ``csi.CSIPluginName``: the plugin of a claim bound to a PV with ``spec.csi`` (:mod:`kubenotes.kubelet.csi`).
CSI_PLUGIN_NAME = "kubernetes.io/csi"

#: Volume source key -> plugin name (the plugins modelled here).
_PLUGINS = {"emptyDir": EMPTY_DIR_PLUGIN_NAME, "configMap": CONFIG_MAP_PLUGIN_NAME, "secret": SECRET_PLUGIN_NAME,
            "projected": PROJECTED_PLUGIN_NAME, "downwardAPI": DOWNWARD_API_PLUGIN_NAME,
            "hostPath": HOST_PATH_PLUGIN_NAME}
#: Plugins whose ``RequiresRemount`` is true: set up again on every ``WaitForAttachAndMount`` (each sync).
_REMOUNTED = {CONFIG_MAP_PLUGIN_NAME, SECRET_PLUGIN_NAME, PROJECTED_PLUGIN_NAME, DOWNWARD_API_PLUGIN_NAME}

#: The model node's host filesystem for hostPath type checks: path -> ``Directory``, ``File``, ``Socket``,
#: ``CharDevice`` or ``BlockDevice``. ``DirectoryOrCreate``/``FileOrCreate`` add to a manager's copy.
DEFAULT_HOST_PATHS: dict[str, str] = {
    "/": "Directory", "/etc": "Directory", "/etc/kubernetes": "Directory", "/etc/cni/net.d": "Directory",
    "/etc/hosts": "File", "/etc/localtime": "File", "/etc/ssl/certs": "Directory", "/opt/cni/bin": "Directory",
    "/var": "Directory", "/var/log": "Directory", "/var/log/pods": "Directory", "/var/lib": "Directory",
    "/var/lib/kubelet": "Directory", "/var/lib/containerd": "Directory", "/run": "Directory",
    "/var/run": "Directory", "/run/containerd/containerd.sock": "Socket",
    "/var/run/containerd/containerd.sock": "Socket", "/lib/modules": "Directory", "/sys": "Directory",
    "/proc": "Directory", "/dev": "Directory", "/dev/null": "CharDevice", "/dev/sda": "BlockDevice",
    "/tmp": "Directory",
}

#: ``token_manager``: refresh a cached token after 80 % of its TTL or 24 h, less up to 10 s of jitter.
_TOKEN_MAX_TTL_SECONDS = 24 * 3600.0
_TOKEN_MAX_JITTER_SECONDS = 10.0


class VolumeHostAdapter(Protocol):
    """What the volume manager needs from the kubelet (the lead maps it to the API server).

    ``get_config_map(namespace, name)`` and ``get_secret(namespace, name)`` return the object as
    the API returns it (``data`` plain for ConfigMaps, base64 for Secrets), or None when it does not
    exist. ``request_token(namespace, service_account_name, audiences, expiration_seconds, pod)``
    returns a token string (``serviceaccounts/<name>/token``). ``record_event(pod, type, reason,
    message)`` records a Kubernetes Event about the pod. Any of them may raise
    :class:`VolumeSetUpError` (or an ``ApiError``) to fail the SetUp with its message. Optional:
    ``node_allocatable() -> {"cpu": "4", "memory": "8Gi", ...}`` (defaults for downward API
    ``resourceFieldRef`` limits and the size of a memory-backed emptyDir); ``csi``, the node's CSI volume
    plugin (:class:`kubenotes.kubelet.csi.CSIVolumePlugin`), which mounts claims bound to CSI volumes; or,
    without it, ``wait_for_attach(pod, volume)``, called before an unmodelled volume (a claim) is "mounted
    as is". Their errors are :class:`VolumeSetUpError` (with ``operation`` naming the failed step, and
    ``pending`` to retry without an Event).
    """

    def get_config_map(self, namespace: str, name: str) -> dict | None: ...

    def get_secret(self, namespace: str, name: str) -> dict | None: ...

    def request_token(self, namespace: str, service_account_name: str, audiences: list[str],
                      expiration_seconds: int, pod: dict) -> str: ...

    def record_event(self, pod: dict, event_type: str, reason: str, message: str) -> None: ...


class VolumeSetUpError(KubenotesError):
    """A volume plugin's ``SetUp`` failed; ``str()`` is upstream's error text (``configmap "x" not found``)."""


@dataclass(frozen=True)
class FileProjection:
    """``volumeutil.FileProjection``: one file an atomic writer puts into a volume.

    Attributes
    ----------
    data : bytes
    mode : int
        Permission bits (``0o644``).
    """

    data: bytes
    mode: int


@dataclass
class MountedVolume:
    """One entry of the actual state of the world (a volume set up for a pod).

    Attributes
    ----------
    name : str
        ``OuterVolumeSpecName`` (``pod.spec.volumes[].name``).
    plugin : str
        ``kubernetes.io/configmap``...
    path : str
        Where it is on the node (``/var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~configmap/<name>``;
        the host path itself for hostPath).
    files : dict of str to FileProjection
        The payload (relative path -> file) of configMap/secret/projected/downwardAPI volumes.
    medium : str
        ``""`` (node disk), ``"Memory"`` (tmpfs), ``"HugePages..."``; hostPath: its ``type``.
    size_limit_bytes : int or None
        tmpfs ``size=`` for a memory-backed emptyDir.
    mounted_at : float
        Virtual seconds of the first successful SetUp.
    set_up_count : int
        How many SetUps succeeded (remounts included).
    """

    name: str
    plugin: str
    path: str
    files: dict[str, FileProjection] = field(default_factory=dict)
    medium: str = ""
    size_limit_bytes: int | None = None
    mounted_at: float = 0.0
    set_up_count: int = 1

    def view(self) -> dict:
        """A plain dict for notebooks (file contents decoded as text, modes in octal)."""
        return {"name": self.name, "plugin": self.plugin, "path": self.path, "medium": self.medium,
                "size_limit_bytes": self.size_limit_bytes,
                "files": {p: {"content": f.data.decode("utf-8", "replace"), "mode": f"{f.mode:04o}"}
                          for p, f in sorted(self.files.items())}}


class WaitForAttachAndMountError(KubenotesError):
    """``WaitForAttachAndMount`` timed out; the message is upstream's.

    Attributes
    ----------
    unmounted_volumes, unattached_volumes, volumes_not_in_dsw : list of str
        Sorted volume names.
    interrupted : bool
        Always True: ``wait.Interrupted(err)`` (a timeout, or the sync's context
        cancelled), so v1.34's ``SyncPod`` records no Event for it.
    """

    interrupted = True

    def __init__(self, unmounted: list[str], unattached: list[str], not_in_dsw: list[str],
                 cause: str = ERR_WAIT_TIMEOUT):
        self.unmounted_volumes, self.unattached_volumes, self.volumes_not_in_dsw = unmounted, unattached, not_in_dsw
        super().__init__(f"unmounted volumes={_go_list(unmounted)}, unattached volumes={_go_list(unattached)}, "
                         f"failed to process volumes={_go_list(not_in_dsw)}: {cause}")


class WaitForUnmountError(KubenotesError):
    """``WaitForUnmount`` timed out: ``mounted volumes=[...]: timed out waiting for the condition``."""

    interrupted = True

    def __init__(self, mounted: list[str]):
        self.mounted_volumes = mounted
        super().__init__(f"mounted volumes={_go_list(mounted)}: {ERR_WAIT_TIMEOUT}")


def _go_list(items: Iterable[str]) -> str:
    """Go's ``%v`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(items) + "]"


class ExponentialBackoff:
    """``exponentialbackoff.ExponentialBackoff`` of one operation (volume x pod).

    The first failure waits 500 ms, each further failure doubles the wait up
    to 2m2s; a retry is allowed only once strictly more than the wait has
    passed since the last failure (``SafeToRetry``). Times are kept in whole
    milliseconds so the 100 ms reconciler grid compares exactly.

    Examples
    --------
    >>> b = ExponentialBackoff()
    >>> b.update(0.1); b.duration_before_retry_seconds, b.safe_to_retry(0.6), b.safe_to_retry(0.7)
    (0.5, False, True)
    >>> for t in (0.7, 1.8, 3.9): b.update(t)
    >>> b.duration_before_retry_seconds
    4.0
    """

    def __init__(self) -> None:
        self.duration_ms = 0
        self.last_error_ms = 0
        self.last_error = ""
        self.failures = 0

    @property
    def duration_before_retry_seconds(self) -> float:
        return self.duration_ms / 1000.0

    def update(self, now: float, error: str = "") -> None:
        """``Update``: a failure at ``now`` (virtual seconds) lengthens the wait."""
        if self.duration_ms == 0:
            self.duration_ms = int(INITIAL_DURATION_BEFORE_RETRY_SECONDS * 1000)
        else:
            self.duration_ms = min(2 * self.duration_ms, int(MAX_DURATION_BEFORE_RETRY_SECONDS * 1000))
        self.last_error_ms = _ms(now)
        self.last_error = error
        self.failures += 1

    def safe_to_retry(self, now: float) -> bool:
        """``SafeToRetry``: more than the wait has passed since the last failure."""
        return self.duration_ms == 0 or _ms(now) - self.last_error_ms > self.duration_ms

    def retry_after_ms(self) -> int:
        """The last millisecond at which a retry is still refused."""
        return self.last_error_ms + self.duration_ms


def _ms(t: float) -> int:
    return int(round(t * 1000))


# ------------------------------------------------------------------ pod helpers
def _pod_uid(pod: Mapping[str, Any]) -> str:
    md = pod.get("metadata") or {}
    return md.get("uid") or f"{md.get('namespace', '')}/{md.get('name', '')}"


def _pod_key(pod: Mapping[str, Any]) -> str:
    md = pod.get("metadata") or {}
    return f"{md.get('namespace', '')}/{md.get('name', '')}"


def expected_volumes(pod: Mapping[str, Any]) -> list[str]:
    """``getExpectedVolumes`` (``util.GetPodVolumeNames``): volumes some container mounts, sorted.

    Init, app and ephemeral containers' ``volumeMounts`` and ``volumeDevices``
    count; a volume in ``spec.volumes`` no container uses is neither expected
    nor set up.

    Examples
    --------
    >>> expected_volumes({"spec": {"volumes": [{"name": "a"}, {"name": "unused"}],
    ...                            "containers": [{"name": "c", "volumeMounts": [{"name": "a"}]}]}})
    ['a']
    """
    spec = pod.get("spec") or {}
    names: set[str] = set()
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            for m in c.get("volumeMounts") or ():
                names.add(m["name"])
            for d in c.get("volumeDevices") or ():
                names.add(d["name"])
    return sorted(names)


def volume_plugin_name(volume: Mapping[str, Any]) -> str:
    """The plugin that handles a ``pod.spec.volumes[]`` entry (``FindPluginBySpec``).

    A source not modelled here gets ``kubernetes.io/<source>`` (it is mounted as is).

    Examples
    --------
    >>> volume_plugin_name({"name": "x", "configMap": {"name": "c"}}), volume_plugin_name({"name": "y", "nfs": {}})
    ('kubernetes.io/configmap', 'kubernetes.io/nfs')
    """
    for key, plugin in _PLUGINS.items():
        if volume.get(key) is not None:
            return plugin
    others = [k for k in volume if k != "name"]
    return f"kubernetes.io/{others[0].lower()}" if others else "kubernetes.io/unknown"


def pod_volume_dir(pod_uid: str, plugin: str, volume_name: str, pods_dir: str = KUBELET_PODS_DIR) -> str:
    """``GetPodVolumeDir``: ``<pods>/<uid>/volumes/<plugin with / escaped as ~>/<name>``.

    Examples
    --------
    >>> pod_volume_dir("test_pod_uid", CONFIG_MAP_PLUGIN_NAME, "test_volume_name")
    '/var/lib/kubelet/pods/test_pod_uid/volumes/kubernetes.io~configmap/test_volume_name'
    """
    return f"{pods_dir}/{pod_uid}/volumes/{plugin.replace('/', '~')}/{volume_name}"


# ------------------------------------------------------------------ payloads
def _mode(m: Any, default: int) -> int:
    return int(m) if m is not None else default


def make_config_map_payload(mappings: list[Mapping[str, Any]] | None, config_map: Mapping[str, Any],
                            default_mode: int | None, optional: bool) -> dict[str, FileProjection]:
    """``configmap.MakePayload``: the files of a ConfigMap volume (or projected source).

    Parameters
    ----------
    mappings : list of dict or None
        ``items`` (``{"key", "path", "mode"}``); empty: every key of ``data`` and ``binaryData``.
    config_map : dict
        The ConfigMap (``data`` text, ``binaryData`` base64 as the API returns it).
    default_mode : int or None
        ``defaultMode``.
    optional : bool
        A missing key is skipped instead of failing.

    Raises
    ------
    VolumeSetUpError
        ``No defaultMode used, not even the default value for it`` or
        ``configmap references non-existent config key: <key>``.

    Examples
    --------
    >>> p = make_config_map_payload([{"key": "foo", "path": "path/to/foo.txt"}],
    ...                             {"data": {"foo": "foo", "bar": "bar"}}, 0o644, False)
    >>> p
    {'path/to/foo.txt': FileProjection(data=b'foo', mode=420)}
    """
    if default_mode is None:
        raise VolumeSetUpError("No defaultMode used, not even the default value for it")
    data = config_map.get("data") or {}
    binary = {k: base64.b64decode(v) for k, v in (config_map.get("binaryData") or {}).items()}
    payload: dict[str, FileProjection] = {}
    if not mappings:
        for k, v in data.items():
            payload[k] = FileProjection(str(v).encode(), default_mode)
        for k, v in binary.items():
            payload[k] = FileProjection(v, default_mode)
        return payload
    for ktp in mappings:
        key = ktp["key"]
        if key in data:
            content = str(data[key]).encode()
        elif key in binary:
            content = binary[key]
        else:
            if optional:
                continue
            raise VolumeSetUpError(f"configmap references non-existent config key: {key}")
        payload[ktp["path"]] = FileProjection(content, _mode(ktp.get("mode"), default_mode))
    return payload


def make_secret_payload(mappings: list[Mapping[str, Any]] | None, secret: Mapping[str, Any],
                        default_mode: int | None, optional: bool) -> dict[str, FileProjection]:
    """``secret.MakePayload``: the files of a Secret volume (values base64-decoded).

    Raises
    ------
    VolumeSetUpError
        ``no defaultMode used, not even the default value for it`` or
        ``references non-existent secret key: <key>``.

    Examples
    --------
    >>> make_secret_payload(None, {"data": {"token": "czNjcjN0"}}, 0o400, False)
    {'token': FileProjection(data=b's3cr3t', mode=256)}
    >>> make_secret_payload([{"key": "nope", "path": "x"}], {"data": {}}, 0o644, False)
    Traceback (most recent call last):
    ...
    kubenotes.kubelet.volumes.VolumeSetUpError: references non-existent secret key: nope
    """
    if default_mode is None:
        raise VolumeSetUpError("no defaultMode used, not even the default value for it")
    data = {k: base64.b64decode(v) for k, v in (secret.get("data") or {}).items()}
    payload: dict[str, FileProjection] = {}
    if not mappings:
        for k, v in data.items():
            payload[k] = FileProjection(v, default_mode)
        return payload
    for ktp in mappings:
        key = ktp["key"]
        if key not in data:
            if optional:
                continue
            raise VolumeSetUpError(f"references non-existent secret key: {key}")
        payload[ktp["path"]] = FileProjection(data[key], _mode(ktp.get("mode"), default_mode))
    return payload


def format_map(m: Mapping[str, str]) -> str:
    """``fieldpath.FormatMap``: ``key="value"`` lines, sorted by key (labels/annotations files).

    Examples
    --------
    >>> format_map({"tier": "web", "app": "shop"})
    'app="shop"\\ntier="web"'
    """
    return "\n".join(f'{k}="{_go_quote(str(v))}"' for k, v in sorted(m.items()))


def _go_quote(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _extract_field_path(pod: Mapping[str, Any], field_path: str) -> str:
    """``fieldpath.ExtractFieldPathAsString`` for the fields a downward API volume may use."""
    md = pod.get("metadata") or {}
    for prefix, key in (("metadata.labels", "labels"), ("metadata.annotations", "annotations")):
        if field_path == prefix:
            return format_map(md.get(key) or {})
        if field_path.startswith(prefix + "['") and field_path.endswith("']"):
            return str((md.get(key) or {}).get(field_path[len(prefix) + 2:-2], ""))
    simple = {"metadata.name": md.get("name", ""), "metadata.namespace": md.get("namespace", ""),
              "metadata.uid": md.get("uid", "")}
    if field_path in simple:
        return str(simple[field_path])
    raise VolumeSetUpError(f"unsupported fieldPath: {field_path}")


def _resource_field(pod: Mapping[str, Any], ref: Mapping[str, Any], allocatable: Mapping[str, Any]) -> str:
    """``resource.ExtractResourceValueByContainerNameAndNodeAllocatable``."""
    name = ref.get("containerName", "")
    spec = pod.get("spec") or {}
    container = next((c for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
                      if c.get("name") == name), None)
    if container is None:
        raise VolumeSetUpError(f"failed to find container with name {name} in pod")
    resource = ref.get("resource", "")
    kind, _, res = resource.partition(".")
    resources = container.get("resources") or {}
    q = (resources.get(kind) or {}).get(res)
    if q is None and kind == "limits":  # MergeContainerResourceLimits: unset limits are node allocatable
        q = allocatable.get(res)
    divisor = ref.get("divisor") or "1"
    if q is None:
        q = "0"
    if res == "cpu":
        return str(int(math.ceil(milli_value(q) / max(1, milli_value(divisor)))))
    if res in ("memory", "ephemeral-storage") or res.startswith("hugepages-"):
        return str(int(math.ceil(value(q) / max(1, value(divisor)))))
    raise VolumeSetUpError(f"unsupported container resource : {resource}")


def collect_downward_api_data(items: list[Mapping[str, Any]] | None, pod: Mapping[str, Any],
                              default_mode: int | None,
                              node_allocatable: Mapping[str, Any] | None = None) -> dict[str, FileProjection]:
    """``downwardapi.CollectData``: one file per item from a ``fieldRef`` or a ``resourceFieldRef``.

    Raises
    ------
    VolumeSetUpError
        An unsupported field path or resource (the messages aggregated as upstream does).

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}}}
    >>> p = collect_downward_api_data([{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}},
    ...                                {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}],
    ...                               pod, 0o644)
    >>> p["namespace"].data, p["labels"].data
    (b'shop', b'app="web"')
    """
    if default_mode is None:
        raise VolumeSetUpError("no defaultMode used, not even the default value for it")
    payload: dict[str, FileProjection] = {}
    errors: list[str] = []
    for item in items or ():
        mode = _mode(item.get("mode"), default_mode)
        try:
            if item.get("fieldRef") is not None:
                text = _extract_field_path(pod, item["fieldRef"].get("fieldPath", ""))
            elif item.get("resourceFieldRef") is not None:
                text = _resource_field(pod, item["resourceFieldRef"], node_allocatable or {})
            else:
                continue
        except VolumeSetUpError as e:
            errors.append(str(e))
            continue
        payload[item["path"]] = FileProjection(text.encode(), mode)
    if errors:
        raise VolumeSetUpError(aggregate_error_message(errors))
    return payload


# ------------------------------------------------------------------ the manager
@dataclass
class _VolumeToMount:
    name: str
    plugin: str
    volume: dict
    pod: dict


class VolumeManager:
    """``volumemanager.volumeManager`` for one node, on the SimPy clock.

    Parameters
    ----------
    env : simpy.Environment
    node_name : str
    adapter : VolumeHostAdapter
        ConfigMaps, Secrets, tokens and Events (see :class:`VolumeHostAdapter`).
    pods_dir : str
        ``<root-dir>/pods``.
    host_paths : dict of str to str, optional
        The node's host filesystem for hostPath type checks (default :data:`DEFAULT_HOST_PATHS`).
    rng : random.Random, optional
        Seeded jitter of the token manager's refresh.
    start : bool
        Start the populator/reconciler process now.

    Attributes
    ----------
    trace : list of tuple
        ``(time, operation, "namespace/pod", volume, outcome)``; operations are
        ``MountVolume.SetUp``, ``UnmountVolume.TearDown``, ``WaitForAttachAndMount``,
        ``WaitForUnmount``, ``TokenRequest``, and for CSI volumes ``VerifyControllerAttachedVolume``,
        ``MountVolume.WaitForAttach``, ``MountVolume.MountDevice``, ``UnmountDevice``; outcome
        ``succeeded``, ``remounted``, ``mounted as is (not modelled)``, ``timed out`` or the error message.
    events : list of dict
        The FailedMount Events recorded (also sent to ``adapter.record_event``).

    Notes
    -----
    Simplified compared with upstream: the populator and the reconciler share
    one 100 ms grid (upstream they are two loops of the same period) and the
    process sleeps while nothing is pending, waking on the next grid tick
    after :meth:`add_pod`, :meth:`remove_pod`, a remount request or a
    back-off expiry (the timeline is the same as a loop that always ticks);
    SetUp and TearDown take no virtual time; a CSI volume's SetUp/TearDown and
    its device's MountDevice/UnmountDevice run in the same tick (upstream's
    operations are asynchronous and the device is unmounted at a later pass);
    the resolved CSI volume of a pod volume is cached at its first mount
    attempt (upstream's populator resolves it when adding the pod); no SELinux
    relabelling, subPath, reconstruction after a kubelet restart or volume
    metrics. Sources not modelled (a claim not bound to a CSI volume, ``nfs``,
    inline ``csi``...) are "mounted as is" so their pods still start. The atomic writer's ``..data`` symlink
    layout is not shown: ``files`` is the payload it would write. File modes:
    with ``fsGroup`` the managed read-only volumes get group read
    (``SetVolumeOwnership``: ``mode | 0440``) and a projected token starts at
    0600 (so 0640). hostPath checks a model host filesystem
    (:data:`DEFAULT_HOST_PATHS`); its ``path`` is the host path itself, as upstream's ``GetPath``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/volume_manager.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/volumemanager/reconciler/reconciler_common.go

    Examples
    --------
    >>> import simpy
    >>> class Host:
    ...     def get_config_map(self, ns, name): return {"data": {"a.conf": "x=1"}} if name == "cfg" else None
    ...     def get_secret(self, ns, name): return None
    ...     def request_token(self, ns, sa, auds, exp, pod): return "tok"
    ...     def record_event(self, pod, type_, reason, message): pass
    >>> env = simpy.Environment()
    >>> vm = VolumeManager(env, "node-1", Host())
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"volumes": [{"name": "conf", "configMap": {"name": "cfg"}}],
    ...                 "containers": [{"name": "c", "volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}]}}
    >>> vm.add_pod(pod)
    >>> p = env.process(vm.wait_for_attach_and_mount(pod)); env.run(until=1)
    >>> [(m["name"], m["path"], m["files"]) for m in vm.mounted("u1")]   # doctest: +NORMALIZE_WHITESPACE
    [('conf', '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/conf',
      {'a.conf': {'content': 'x=1', 'mode': '0644'}})]
    """

    def __init__(self, env: simpy.Environment, node_name: str, adapter: Any, *, pods_dir: str = KUBELET_PODS_DIR,
                 host_paths: Mapping[str, str] | None = None, rng: random.Random | None = None,
                 start: bool = True) -> None:
        self.env = env
        self.node_name = node_name
        self.adapter = adapter
        self.pods_dir = pods_dir
        self.host_paths: dict[str, str] = dict(DEFAULT_HOST_PATHS if host_paths is None else host_paths)
        self.rng = rng or random.Random(0)
        self.trace: list[tuple[float, str, str, str, str]] = []
        self.events: list[dict] = []
        #: pod manager: uid -> pod (what add_pod gave)
        self._pods: dict[str, dict] = {}
        self._pod_key_of: dict[str, str] = {}
        #: desired state of the world: uid -> volume name -> _VolumeToMount
        self._dsw: dict[str, dict[str, _VolumeToMount]] = {}
        #: actual state of the world: uid -> volume name -> MountedVolume
        self._asw: dict[str, dict[str, MountedVolume]] = {}
        self._remount: set[tuple[str, str]] = set()
        self._reprocess: set[str] = set()
        self._backoffs: dict[tuple[str, str, str], ExponentialBackoff] = {}
        #: CSI (kubelet.csi): (uid, volume) -> the resolved CSI volume; unique names verified attached; devices
        #: staged (unique name -> {"spec", "path"}); the unique names the node status last reported in use
        self._csi_spec: dict[tuple[str, str], dict] = {}
        self._attached: set[str] = set()
        self._devices: dict[str, dict] = {}
        self._reported_in_use: set[str] = set()
        #: mounted CSI volumes to check for a pending node expansion at the next pass (each pod sync)
        self._resize_check: set[tuple[str, str]] = set()
        #: token manager cache: key -> (token, issued_at, expiration_seconds)
        self._tokens: dict[tuple, tuple[str, float, float]] = {}
        self._t0_ms = _ms(env.now)
        self._last_tick = -1
        self._wake: simpy.Event | None = None
        self._process = env.process(self._run()) if start else None

    # ------------------------------------------------------------ desired state
    def add_pod(self, pod: dict) -> None:
        """The pod manager has this pod (``podManager.AddPod``): its volumes become desired at the next tick."""
        uid = _pod_uid(pod)
        self._pods[uid] = pod
        self._pod_key_of[uid] = _pod_key(pod)
        self._reprocess.add(uid)
        self._poke()

    def remove_pod(self, pod_or_uid: dict | str) -> None:
        """The pod's runtime may be removed (its containers are gone): unmount its volumes at the next tick."""
        uid = pod_or_uid if isinstance(pod_or_uid, str) else _pod_uid(pod_or_uid)
        self._pods.pop(uid, None)
        self._reprocess.discard(uid)
        self._poke()

    def reprocess_pod(self, uid: str) -> None:
        """``ReprocessPod``: set up the pod's remountable volumes (configMap, secret, projected...) again."""
        if uid in self._pods:
            self._reprocess.add(uid)
            for name, mv in (self._asw.get(uid) or {}).items():
                if mv.plugin in _REMOUNTED:
                    self._remount.add((uid, name))
                elif mv.plugin == CSI_PLUGIN_NAME:  # checkVolumeFSResize: the PV may have grown
                    self._resize_check.add((uid, name))
            self._poke()

    # ------------------------------------------------------------ views
    def mounted(self, uid: str) -> list[dict]:
        """The pod's mounted volumes as plain dicts (name, plugin, path, files, medium, size_limit_bytes)."""
        return [mv.view() for _, mv in sorted((self._asw.get(uid) or {}).items())]

    def get_mounted_volumes_for_pod(self, uid: str) -> dict[str, MountedVolume]:
        """``GetMountedVolumesForPod``: volume name -> :class:`MountedVolume` (what the runtime bind-mounts)."""
        return dict(self._asw.get(uid) or {})

    def volume_paths(self, uid: str) -> dict[str, str]:
        """Volume name -> host path, for the CRI container config's mounts."""
        return {n: mv.path for n, mv in (self._asw.get(uid) or {}).items()}

    def volumes_in_use(self) -> list[str]:
        """``GetVolumesInUse``: attachable volumes desired or attached here, sorted (``node.status.volumesInUse``).

        Unique names (``kubernetes.io/csi/<driver>^<handle>``) of the CSI volumes that need attaching and
        that a desired pod uses, or that are still attached in the actual state (mounted, or staged and
        not yet unstaged).
        """
        out = set(self._attached)
        for uid, vols in self._dsw.items():
            for name in vols:
                spec = self._csi_spec.get((uid, name))
                if spec is not None and spec["attach_required"]:
                    out.add(spec["unique_name"])
        return sorted(out)

    def mark_volumes_as_reported_in_use(self, reported: Iterable[str]) -> None:
        """``MarkVolumesAsReportedInUse``: what the Node's ``status.volumesInUse`` now says (after a status update)."""
        self._reported_in_use = set(reported or ())

    def staged_devices(self) -> dict[str, str]:
        """Unique volume name -> staging path ("" when the driver does not stage) of the CSI volumes mounted as
        devices on the node (``MountDevice`` done, ``UnmountDevice`` not yet)."""
        return {u: d["path"] for u, d in sorted(self._devices.items())}

    def backoff(self, uid: str, volume: str) -> ExponentialBackoff | None:
        """The mount operation's back-off for this pod's volume, if it has failed."""
        return self._backoffs.get(("mount", uid, volume))

    # ------------------------------------------------------------ waiting
    def _unmounted(self, uid: str, expected: list[str]) -> list[str]:
        mounted = self._asw.get(uid) or {}
        return sorted(v for v in expected if v not in mounted)

    def wait_for_attach_and_mount(self, pod: dict, cancelled: Callable[[], bool] | None = None) -> Generator:
        """``WaitForAttachAndMount``: poll now and every 300 ms until every expected volume is mounted.

        Use as ``yield from vm.wait_for_attach_and_mount(pod)`` in a SimPy process.
        ``cancelled`` is checked at each poll: the pod worker cancels the sync's
        context when the pod is to be terminated, which ends the wait at once
        (an interrupted wait, like the timeout).

        Raises
        ------
        WaitForAttachAndMountError
            After 2m3s with volumes still unmounted: ``unmounted volumes=[...], unattached volumes=[],
            failed to process volumes=[]: timed out waiting for the condition``. v1.34's ``SyncPod``
            records no Event for it (``wait.Interrupted``) and returns the error (the pod worker retries).
        """
        expected = expected_volumes(pod)
        if not expected:
            return
        uid = _pod_uid(pod)
        if uid not in self._pods:
            self.add_pod(pod)
        else:
            self._pods[uid] = pod
        self.reprocess_pod(uid)
        start_ms = _ms(self.env.now)
        deadline_ms = start_ms + int(POD_ATTACH_AND_MOUNT_TIMEOUT_SECONDS * 1000)
        step_ms = int(POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_SECONDS * 1000)
        k = 0
        while True:
            if not self._unmounted(uid, expected):
                self._trace("WaitForAttachAndMount", pod, ",".join(expected), "succeeded")
                return
            if cancelled is not None and cancelled():
                self._trace("WaitForAttachAndMount", pod, ",".join(expected), "cancelled")
                raise WaitForAttachAndMountError(self._unmounted(uid, expected), [], [], "context canceled")
            k += 1
            next_ms = start_ms + k * step_ms
            if next_ms >= deadline_ms:
                yield self.env.timeout(max(0.0, (deadline_ms - _ms(self.env.now)) / 1000.0))
                unmounted = self._unmounted(uid, expected)
                if not unmounted:
                    self._trace("WaitForAttachAndMount", pod, ",".join(expected), "succeeded")
                    return
                err = WaitForAttachAndMountError(unmounted, [], [])
                self._trace("WaitForAttachAndMount", pod, ",".join(unmounted), "timed out")
                raise err
            yield self.env.timeout(max(0.0, (next_ms - _ms(self.env.now)) / 1000.0))

    def wait_for_unmount(self, pod: dict) -> Generator:
        """``WaitForUnmount``: poll now and every 300 ms (up to 2m3s) until none of the pod's volumes is mounted.

        Raises
        ------
        WaitForUnmountError
            ``mounted volumes=[...]: timed out waiting for the condition``.
        """
        uid = _pod_uid(pod)
        start_ms = _ms(self.env.now)
        deadline_ms = start_ms + int(POD_ATTACH_AND_MOUNT_TIMEOUT_SECONDS * 1000)
        step_ms = int(POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_SECONDS * 1000)
        k = 0
        while self._asw.get(uid):
            k += 1
            next_ms = start_ms + k * step_ms
            if next_ms >= deadline_ms:
                yield self.env.timeout(max(0.0, (deadline_ms - _ms(self.env.now)) / 1000.0))
                if self._asw.get(uid):
                    self._trace("WaitForUnmount", pod, "", "timed out")
                    raise WaitForUnmountError(sorted(self._asw[uid]))
                break
            yield self.env.timeout(max(0.0, (next_ms - _ms(self.env.now)) / 1000.0))
        self._trace("WaitForUnmount", pod, "", "succeeded")

    # ------------------------------------------------------------ the loop
    def _poke(self) -> None:
        if self._wake is not None and not self._wake.triggered:
            self._wake.succeed()

    def _tick_ms(self, k: int) -> int:
        return self._t0_ms + k * int(RECONCILER_LOOP_SLEEP_PERIOD_SECONDS * 1000)

    def _next_tick_at_or_after(self, t_ms: int) -> int:
        period = int(RECONCILER_LOOP_SLEEP_PERIOD_SECONDS * 1000)
        k = max(self._last_tick + 1, -(-(t_ms - self._t0_ms) // period))
        return k

    def _run(self) -> Generator:
        period = int(RECONCILER_LOOP_SLEEP_PERIOD_SECONDS * 1000)
        while True:
            k = self._next_tick_at_or_after(_ms(self.env.now))
            delay = (self._tick_ms(k) - _ms(self.env.now)) / 1000.0
            if delay > 0:
                yield self.env.timeout(delay)
            self._last_tick = k
            self._populate()
            self._reconcile()
            due = self._next_due_ms()
            self._wake = self.env.event()
            waits = [self._wake]
            if due is not None:
                # the first tick strictly after the back-off's last refused millisecond
                kk = max(self._last_tick + 1, (due - self._t0_ms) // period + 1)
                waits.append(self.env.timeout(max(0.0, (self._tick_ms(kk) - _ms(self.env.now)) / 1000.0)))
            yield self.env.any_of(waits)
            self._wake = None

    def _next_due_ms(self) -> int | None:
        due = None
        for uid, vols in self._dsw.items():
            mounted = self._asw.get(uid) or {}
            for name in vols:
                if name in mounted and (uid, name) not in self._remount:
                    continue
                b = self._backoffs.get(("mount", uid, name))
                if b is None:
                    continue
                t = b.retry_after_ms()
                due = t if due is None else min(due, t)
        return due

    def _populate(self) -> None:
        """``desiredStateOfWorldPopulator.populatorLoop``: add new pods' volumes, remove removed pods."""
        for uid in list(self._dsw):
            if uid not in self._pods:
                del self._dsw[uid]
        for key in [k for k in self._backoffs if k[1] not in self._pods]:
            del self._backoffs[key]
        for uid in list(self._reprocess):
            pod = self._pods.get(uid)
            self._reprocess.discard(uid)
            if pod is None:
                continue
            used = set(expected_volumes(pod))
            vols = {}
            for v in (pod.get("spec") or {}).get("volumes") or ():
                if v["name"] in used:  # "Volume is not used in the pod, ignore it."
                    vols[v["name"]] = _VolumeToMount(v["name"], volume_plugin_name(v), v, pod)
            self._dsw[uid] = vols

    def _reconcile(self) -> None:
        """``reconciler.reconcile``: unmount what is not desired, then mount what is desired."""
        now = float(self.env.now)
        for uid in list(self._asw):
            desired = self._dsw.get(uid) or {}
            for name in sorted(self._asw[uid]):
                if name in desired:
                    continue
                pod_key = self._pod_key_of.get(uid, uid)
                mv = self._asw[uid][name]
                if mv.plugin == CSI_PLUGIN_NAME and (uid, name) in self._csi_spec:
                    try:
                        self.adapter.csi.tear_down(self._csi_spec[(uid, name)], mv.path)
                    except CSIError as e:  # still mounted: retried at the next pass
                        self.trace.append((now, "UnmountVolume.TearDown", pod_key, mv.name,
                                           f'UnmountVolume.TearDown failed for volume "{name}" : {e}'))
                        continue
                del self._asw[uid][name]
                self._remount.discard((uid, name))
                self._backoffs.pop(("mount", uid, name), None)
                self.trace.append((now, "UnmountVolume.TearDown", pod_key, mv.name, "succeeded"))
            if not self._asw[uid]:
                del self._asw[uid]
                self._drop_tokens(uid)
                if uid not in self._pods:
                    self._pod_key_of.pop(uid, None)
        if self._csi_spec or self._devices or self._attached:
            self._unmount_detach_devices(now)
        for uid, vols in self._dsw.items():
            for name in sorted(vols):
                vtm = vols[name]
                mounted = (self._asw.get(uid) or {}).get(name)
                remount = (uid, name) in self._remount
                if mounted is not None and not remount:
                    continue
                key = ("mount", uid, name)
                b = self._backoffs.get(key)
                if b is not None and not b.safe_to_retry(now):
                    continue
                self._mount(uid, vtm, mounted)
        if self._resize_check:
            self._expand_in_use(now)

    def _expand_in_use(self, now: float) -> None:
        """``ExpandInUseVolume`` for the mounted CSI volumes whose claim waits for the node's part of a resize
        (:meth:`kubenotes.kubelet.csi.CSIVolumePlugin.node_expand`); a failure is Event ``VolumeResizeFailed``
        and is retried at the pod's next sync."""
        for uid, name in sorted(self._resize_check):
            self._resize_check.discard((uid, name))
            mv, spec, pod = (self._asw.get(uid) or {}).get(name), self._csi_spec.get((uid, name)), self._pods.get(uid)
            plugin = getattr(self.adapter, "csi", None)
            if mv is None or spec is None or pod is None or not hasattr(plugin, "node_expand"):
                continue
            try:
                staging = self._devices.get(spec["unique_name"], {}).get("path", "")
                size = plugin.node_expand(spec, pod, mv.path, staging)
            except VolumeSetUpError as e:
                message = f'NodeExpandVolume.NodeExpandVolume failed for volume "{name}" : {e}'
                self.trace.append((now, "NodeExpandVolume", _pod_key(pod), name, message))
                self.adapter.record_event(pod, "Warning", "VolumeResizeFailed", message)
                continue
            if size is not None:
                self.trace.append((now, "NodeExpandVolume", _pod_key(pod), name, f"succeeded ({size})"))

    def _unmount_detach_devices(self, now: float) -> None:
        """``unmountDetachDevices``: unstage the CSI volumes no pod mounts and none wants, then forget them as
        attached (the attach/detach controller detaches; ``MarkVolumeAsDetached``)."""
        def unique(keys: Iterable[tuple[str, str]]) -> set[str]:
            return {self._csi_spec[k]["unique_name"] for k in keys if k in self._csi_spec}

        busy = unique((uid, n) for uid, vols in self._asw.items() for n in vols)
        busy |= unique((uid, n) for uid, vols in self._dsw.items() for n in vols)
        for u in sorted((set(self._devices) | self._attached) - busy):
            device = self._devices.get(u)
            if device is not None:
                spec = device["spec"]
                try:
                    self.adapter.csi.unmount_device(spec, device["path"])
                except CSIError as e:
                    self.trace.append((now, "UnmountDevice", "", spec["pv_name"],
                                       f'UnmountDevice failed for volume "{spec["pv_name"]}" : {e}'))
                    continue
                del self._devices[u]
                self.trace.append((now, "UnmountDevice", "", spec["pv_name"], "succeeded"))
            self._attached.discard(u)
        for k in [k for k in self._csi_spec if k[1] not in (self._dsw.get(k[0]) or {})
                  and k[1] not in (self._asw.get(k[0]) or {})]:
            del self._csi_spec[k]

    def _mount(self, uid: str, vtm: _VolumeToMount, mounted: MountedVolume | None) -> None:
        """``operationGenerator.GenerateMountVolumeFunc``: SetUp, then mark mounted, or back off."""
        now = float(self.env.now)
        pod = vtm.pod
        try:
            mv = self._set_up(uid, vtm)
        except VolumeSetUpError as e:
            op = getattr(e, "operation", "MountVolume.SetUp")  # MountVolume.WaitForAttach: kubelet.csi
            message = f'{op} failed for volume "{vtm.name}" : {e}'
            b = self._backoffs.setdefault(("mount", uid, vtm.name), ExponentialBackoff())
            b.update(now, message)
            self.trace.append((now, op, _pod_key(pod), vtm.name, message))
            if getattr(e, "pending", False):  # still waiting for the attach: retried, no Event
                return
            self.events.append({"time": now, "pod": _pod_key(pod), "type": "Warning", "reason": FAILED_MOUNT_VOLUME,
                                "message": message})
            self.adapter.record_event(pod, "Warning", FAILED_MOUNT_VOLUME, message)
            return
        self._backoffs.pop(("mount", uid, vtm.name), None)
        self._remount.discard((uid, vtm.name))
        if mounted is not None:
            mv.mounted_at, mv.set_up_count = mounted.mounted_at, mounted.set_up_count + 1
        self._asw.setdefault(uid, {})[vtm.name] = mv
        outcome = "remounted" if mounted is not None else (
            "mounted as is (not modelled)" if mv.plugin not in (*_PLUGINS.values(), CSI_PLUGIN_NAME) else "succeeded")
        self.trace.append((now, "MountVolume.SetUp", _pod_key(pod), vtm.name, outcome))

    def _trace(self, op: str, pod: dict, volume: str, outcome: str) -> None:
        self.trace.append((float(self.env.now), op, _pod_key(pod), volume, outcome))

    # ------------------------------------------------------------ plugins
    def _call(self, fn: Any, *args: Any) -> Any:
        """An adapter call; its VolumeSetUpError or ApiError (anything with a ``code``) fails the SetUp."""
        try:
            return fn(*args)
        except VolumeSetUpError:
            raise
        except Exception as e:  # an ApiError from the lead's adapter
            if hasattr(e, "code"):
                raise VolumeSetUpError(str(e)) from e
            raise

    def _node_allocatable(self) -> dict:
        fn = getattr(self.adapter, "node_allocatable", None)
        return dict(fn() or {}) if fn is not None else {}

    def _set_up(self, uid: str, vtm: _VolumeToMount) -> MountedVolume:
        v, pod = vtm.volume, vtm.pod
        now = float(self.env.now)
        path = pod_volume_dir(uid, vtm.plugin, vtm.name, self.pods_dir)
        fs_group = ((pod.get("spec") or {}).get("securityContext") or {}).get("fsGroup")
        if vtm.plugin == EMPTY_DIR_PLUGIN_NAME:
            medium, size = self._empty_dir(pod, v["emptyDir"] or {})
            return MountedVolume(vtm.name, vtm.plugin, path, {}, medium, size, now)
        if vtm.plugin == HOST_PATH_PLUGIN_NAME:
            src = v["hostPath"] or {}
            self._check_host_path(src.get("path", ""), src.get("type") or "")
            return MountedVolume(vtm.name, vtm.plugin, src.get("path", ""), {}, src.get("type") or "", None, now)
        if vtm.plugin == CONFIG_MAP_PLUGIN_NAME:
            files = self._config_map_files(pod, v["configMap"] or {}, (v["configMap"] or {}).get("defaultMode"))
        elif vtm.plugin == SECRET_PLUGIN_NAME:
            files = self._secret_files(pod, v["secret"] or {}, (v["secret"] or {}).get("defaultMode"),
                                       name_key="secretName")
        elif vtm.plugin == DOWNWARD_API_PLUGIN_NAME:
            src = v["downwardAPI"] or {}
            files = collect_downward_api_data(src.get("items"), pod, _mode(src.get("defaultMode"), DEFAULT_MODE),
                                              self._node_allocatable())
        elif vtm.plugin == PROJECTED_PLUGIN_NAME:
            files = self._projected_files(uid, pod, v["projected"] or {}, fs_group)
        else:
            plugin = getattr(self.adapter, "csi", None)  # optional: kubelet.csi.CSIVolumePlugin
            if plugin is not None:
                spec = self._call(plugin.volume_spec, pod, v)
                if spec is not None:
                    self._csi_spec[(uid, vtm.name)] = spec
                    return self._set_up_csi(uid, vtm, plugin, spec)
            else:
                wait_for_attach = getattr(self.adapter, "wait_for_attach", None)  # optional: kubelet.csi
                if wait_for_attach is not None:
                    wait_for_attach(pod, v)
            return MountedVolume(vtm.name, vtm.plugin, path, {}, "", None, now)
        if fs_group is not None:  # SetVolumeOwnership on a read-only managed volume: group read
            files = {p: FileProjection(f.data, f.mode | 0o440) for p, f in files.items()}
        return MountedVolume(vtm.name, vtm.plugin, path, files, "", None, now)

    def _set_up_csi(self, uid: str, vtm: _VolumeToMount, plugin: Any, spec: dict) -> MountedVolume:
        """``GenerateMountVolumeFunc`` for a CSI volume: verify attached, WaitForAttach, MountDevice once, SetUp."""
        pod, u = vtm.pod, spec["unique_name"]
        if spec["attach_required"] and u not in self._attached:
            self._call(plugin.verify_controller_attached, spec, u in self._reported_in_use)
            self._attached.add(u)  # MarkVolumeAsAttached
            self._trace("VerifyControllerAttachedVolume", pod, vtm.name, "succeeded")
        publish_context = self._call(plugin.wait_for_attach, spec)
        if u not in self._devices:
            staging = plugin.mount_device(spec, publish_context)
            self._devices[u] = {"spec": spec, "path": staging}
            self._trace("MountVolume.MountDevice", pod, vtm.name, "succeeded")
        path = plugin.set_up(spec, pod, self._devices[u]["path"], publish_context)
        if hasattr(plugin, "node_expand"):  # expandVolumeDuringMount: a claim grown while not mounted here
            size = plugin.node_expand(spec, pod, path, self._devices[u]["path"])
            if size is not None:
                self._trace("NodeExpandVolume", pod, vtm.name, f"succeeded ({size})")
        return MountedVolume(vtm.name, CSI_PLUGIN_NAME, path, {}, "", None, float(self.env.now))

    def _empty_dir(self, pod: dict, src: Mapping[str, Any]) -> tuple[str, int | None]:
        """``emptydir``: the medium and, for ``Memory``, ``calculateEmptyDirMemorySize``."""
        medium = src.get("medium") or ""
        if medium != "Memory":
            return medium, None
        size = None
        alloc = self._node_allocatable().get("memory")
        if alloc is not None:
            size = memory_bytes(alloc)
        containers = (pod.get("spec") or {}).get("containers") or []
        limits = [((c.get("resources") or {}).get("limits") or {}).get("memory") for c in containers]
        if containers and all(q is not None for q in limits):
            pod_limit = sum(memory_bytes(q) for q in limits)
            if pod_limit > 0 and (size is None or pod_limit <= size):
                size = pod_limit
        if src.get("sizeLimit") is not None:
            vol = memory_bytes(src["sizeLimit"])
            if vol > 0 and (size is None or vol <= size):
                size = vol
        return medium, size

    def _check_host_path(self, path: str, path_type: str) -> None:
        """``hostPathMounter.SetUp``: ``checkType`` against the model host filesystem."""
        if ".." in path.split("/"):
            raise VolumeSetUpError(f"invalid HostPath `{path}`: must not contain '..'")
        have = self.host_paths.get(path.rstrip("/") or "/")
        if path_type == "":
            return
        if path_type == "DirectoryOrCreate":
            if have is None:
                self.host_paths[path] = have = "Directory"
            path_type = "Directory"
        elif path_type == "FileOrCreate":
            if have is None:
                self.host_paths[path] = have = "File"
            path_type = "File"
        what = {"Directory": "a directory", "File": "a file", "Socket": "a socket file",
                "CharDevice": "a character device", "BlockDevice": "a block device"}
        if path_type not in what:
            raise VolumeSetUpError(f"{path_type} is an invalid volume type")
        if have != path_type:
            raise VolumeSetUpError(f"hostPath type check failed: {path} is not {what[path_type]}")

    def _config_map_files(self, pod: dict, src: Mapping[str, Any], default_mode: Any) -> dict[str, FileProjection]:
        ns = (pod.get("metadata") or {}).get("namespace", "")
        optional = bool(src.get("optional"))
        cm = self._call(self.adapter.get_config_map, ns, src.get("name", ""))
        if cm is None:
            if not optional:
                raise VolumeSetUpError(f'configmap "{src.get("name", "")}" not found')
            cm = {}
        return make_config_map_payload(src.get("items"), cm, _mode(default_mode, DEFAULT_MODE), optional)

    def _secret_files(self, pod: dict, src: Mapping[str, Any], default_mode: Any,
                      name_key: str = "name") -> dict[str, FileProjection]:
        ns = (pod.get("metadata") or {}).get("namespace", "")
        optional = bool(src.get("optional"))
        secret = self._call(self.adapter.get_secret, ns, src.get(name_key, ""))
        if secret is None:
            if not optional:
                raise VolumeSetUpError(f'secret "{src.get(name_key, "")}" not found')
            secret = {}
        return make_secret_payload(src.get("items"), secret, _mode(default_mode, DEFAULT_MODE), optional)

    def _projected_files(self, uid: str, pod: dict, src: Mapping[str, Any],
                         fs_group: Any) -> dict[str, FileProjection]:
        """``projectedVolumeMounter.collectData``: every source into one payload, errors aggregated."""
        default_mode = _mode(src.get("defaultMode"), DEFAULT_MODE)
        payload: dict[str, FileProjection] = {}
        errors: list[str] = []
        for source in src.get("sources") or ():
            try:
                if source.get("secret") is not None:
                    payload.update(self._secret_files(pod, source["secret"], default_mode))
                elif source.get("configMap") is not None:
                    payload.update(self._config_map_files(pod, source["configMap"], default_mode))
                elif source.get("downwardAPI") is not None:
                    payload.update(collect_downward_api_data(source["downwardAPI"].get("items"), pod, default_mode,
                                                             self._node_allocatable()))
                elif source.get("serviceAccountToken") is not None:
                    tp = source["serviceAccountToken"]
                    # "When FsGroup is set, we depend on SetVolumeOwnership to change from 0600 to 0640."
                    mode = 0o600 if fs_group is not None else default_mode
                    token = self._service_account_token(uid, pod, tp)
                    payload[tp.get("path", "token")] = FileProjection(token.encode(), mode)
            except VolumeSetUpError as e:
                errors.append(str(e))
        if errors:
            raise VolumeSetUpError(aggregate_error_message(errors))
        return payload

    def _service_account_token(self, uid: str, pod: dict, tp: Mapping[str, Any]) -> str:
        """``tokenManager.GetServiceAccountToken``: the cached token, or a new TokenRequest when it is due."""
        spec = pod.get("spec") or {}
        ns = (pod.get("metadata") or {}).get("namespace", "")
        sa = spec.get("serviceAccountName") or "default"
        audiences = [tp["audience"]] if tp.get("audience") else []
        expiration = int(tp.get("expirationSeconds") or 3600)
        key = (uid, ns, sa, tuple(audiences), expiration)
        now = float(self.env.now)
        cached = self._tokens.get(key)
        if cached is not None and not self._requires_refresh(now, cached[1], cached[2]):
            return cached[0]
        token = self._call(self.adapter.request_token, ns, sa, audiences, expiration, pod)
        self._tokens[key] = (str(token), now, float(expiration))
        self.trace.append((now, "TokenRequest", _pod_key(pod), f"serviceaccounts/{sa}/token",
                           f"expirationSeconds={expiration}"))
        return str(token)

    def _requires_refresh(self, now: float, issued_at: float, ttl_seconds: float) -> bool:
        """``requiresRefresh``: older than 24 h, or within 20 % of the TTL of expiry (less jitter)."""
        jitter = float(int(self.rng.random() * _TOKEN_MAX_JITTER_SECONDS))
        if now > issued_at + _TOKEN_MAX_TTL_SECONDS - jitter:
            return True
        exp = issued_at + ttl_seconds
        return now > exp - int(ttl_seconds * 20 // 100) - jitter

    def _drop_tokens(self, uid: str) -> None:
        """``DeleteServiceAccountToken``: forget the pod's cached tokens once its volumes are gone."""
        for key in [k for k in self._tokens if k[0] == uid]:
            del self._tokens[key]
