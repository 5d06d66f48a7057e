"""The OCI bundle's ``config.json`` a high-level runtime hands to runc.

The runtime's half of a container start. The kubelet decides and sends CRI
messages (:mod:`kubenotes.kubelet.kuberuntime`: the ``PodSandboxConfig`` of
``RunPodSandbox`` with ``linux.cgroup_parent`` and ``dns_config``, the
``ContainerConfig`` of ``CreateContainer`` with
``linux.resources``: ``cpu_shares``, ``cpu_quota``, ``memory_limit_in_bytes``,
``oom_score_adj``...); the runtime only reads them and turns them into an OCI
runtime-spec document (:func:`oci_config_from_cri`, as containerd's CRI
plugin does in ``container_create.go`` / ``opts/spec_linux_opts.go``):
process (args from command/args and the image's Entrypoint/Cmd, env, cwd,
user, default capabilities, ``oomScoreAdj``), root, mounts (containerd's
defaults, the read-only ``/sys/fs/cgroup``, the sandbox's ``/etc/hostname``,
``/etc/resolv.conf`` and ``/dev/shm``, and the kubelet's bind mounts),
namespaces (new pid/mount/cgroup, the sandbox's ipc/uts/network joined by
path), ``cgroupsPath`` (from the kubelet's ``cgroup_parent``: a ``.slice``
parent gets systemd's ``slice:prefix:id`` form) and ``resources``.
:func:`container_oci_config` picks the IDs, the pause PID and the image
config as the runtime would.

Simplified: no seccomp/AppArmor/SELinux profiles (the kubelet's default is
Unconfined unless ``seccompDefault``), no rlimits, devices beyond the default
deny-all rule, hugepages, user namespaces, CDI, or image volumes; additional
GIDs are ``[gid] + supplementalGroups + [fsGroup]`` without reading the
image's ``/etc/group``.

References
----------
opencontainers/runtime-spec@v1.2.0 config.md, config-linux.md
containerd/containerd@v2.1 internal/cri/server/container_create.go (buildContainerSpec, getCgroupsPath)
containerd/containerd@v2.1 internal/cri/opts/spec_linux_opts.go (WithMounts, WithResources, WithOOMScoreAdj)
containerd/containerd@v2.1 pkg/oci/spec.go, mounts.go (defaultUnixCaps, defaultMounts)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
(LinuxPodSandboxConfig, LinuxContainerResources, DNSConfig)
"""

from __future__ import annotations

from typing import Any, Mapping

from kubenotes.cri.api import NAMESPACE_MODE_CONTAINER, NAMESPACE_MODE_NODE, NAMESPACE_MODE_POD, new_id
from kubenotes.cri.images import default_catalogue

__all__ = [
    "OCI_VERSION",
    "DEFAULT_UNIX_CAPS",
    "DEFAULT_MASKED_PATHS",
    "DEFAULT_READONLY_PATHS",
    "SANDBOX_OOM_SCORE_ADJ",
    "default_mounts",
    "netns_path",
    "cgroups_path",
    "oci_config_from_cri",
    "sandbox_oci_config",
    "container_oci_config",
    "oci_excerpt",
]

#: The runtime-spec version runc 1.2/1.3 writes.
OCI_VERSION = "1.2.0"
#: containerd ``defaultUnixCaps``: the capabilities of a non-privileged container.
DEFAULT_UNIX_CAPS = (
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
)
#: containerd ``defaultUnixMaskedPaths``.
DEFAULT_MASKED_PATHS = (
    "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
    "/sys/devices/virtual/powercap", "/proc/scsi",
)
#: containerd's default read-only paths.
DEFAULT_READONLY_PATHS = ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger")
#: containerd ``defaultSandboxOOMAdj``: the pause process.
SANDBOX_OOM_SCORE_ADJ = -998

_CRI_STATE_DIR = {"containerd": "/run/containerd/io.containerd.grpc.v1.cri", "cri-o": "/run/containers/storage/overlay-containers"}
_CRI_ROOT_DIR = {"containerd": "/var/lib/containerd/io.containerd.grpc.v1.cri", "cri-o": "/var/lib/containers/storage/overlay-containers"}
_SCOPE_PREFIX = {"containerd": "cri-containerd", "cri-o": "crio"}



def default_mounts() -> list[dict[str, Any]]:
    """containerd's default mounts (``pkg/oci`` ``defaultMounts``) in runtime-spec form.

    Examples
    --------
    >>> [m["destination"] for m in default_mounts()]
    ['/proc', '/dev', '/dev/pts', '/dev/shm', '/dev/mqueue', '/sys', '/run']
    """
    return [
        {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
         "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
         "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/run", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    ]


def netns_path(sandbox_id: str, runtime: str = "containerd") -> str:
    """The pinned network namespace of a sandbox: ``/var/run/netns/cni-<uuid>`` (containerd) or ``/var/run/netns/<uuid>`` (CRI-O pinns).

    The UUID is derived from the sandbox ID here (runtimes draw a random one).

    Examples
    --------
    >>> netns_path("0123abcd" * 8).startswith("/var/run/netns/cni-"), len(netns_path("x", "cri-o"))
    (True, 51)
    """
    h = new_id("netns", sandbox_id)[:32]
    uuid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
    return f"/var/run/netns/{'cni-' if runtime == 'containerd' else ''}{uuid}"


def cgroups_path(cgroup_parent: str, container_id: str, runtime: str = "containerd") -> str:
    """``linux.cgroupsPath`` from the kubelet's ``cgroup_parent`` (containerd ``getCgroupsPath``).

    With the systemd driver the parent ends in ``.slice`` and runc wants
    ``<slice>:<prefix>:<id>``; with cgroupfs it is ``<parent>/<id>``.

    Examples
    --------
    >>> cgroups_path("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu1.slice", "abc")
    'kubepods-besteffort-podu1.slice:cri-containerd:abc'
    >>> cgroups_path("/kubepods/besteffort/podu1", "abc")
    '/kubepods/besteffort/podu1/abc'
    >>> cgroups_path("/kubepods.slice/kubepods-podu1.slice", "abc", "cri-o")
    'kubepods-podu1.slice:crio:abc'
    """
    base = cgroup_parent.rstrip("/").rsplit("/", 1)[-1]
    if base.endswith(".slice"):
        return f"{base}:{_SCOPE_PREFIX[runtime]}:{container_id}"
    return cgroup_parent.rstrip("/") + "/" + container_id


def _process_args(config: Mapping[str, Any], image_config: Mapping[str, Any]) -> list[str]:
    command, args = list(config.get("command") or ()), list(config.get("args") or ())
    if not command:
        if not args:
            args = list(image_config.get("Cmd") or ())
        entrypoint = list(image_config.get("Entrypoint") or ())
        if entrypoint != [""]:
            command = entrypoint
    if not command and not args:
        raise ValueError("no command specified")
    return command + args


def _env(hostname: str, image_config: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    out: dict[str, str] = {"HOSTNAME": hostname}
    for item in image_config.get("Env") or ():
        k, _, v = item.partition("=")
        out[k] = v
    for e in config.get("envs") or ():
        out[e["key"]] = e.get("value", "")
    return [f"{k}={v}" for k, v in out.items()]


def _capabilities(sc: Mapping[str, Any]) -> list[str]:
    if sc.get("privileged"):
        return ["CAP_ALL"]
    caps = list(DEFAULT_UNIX_CAPS)
    c = sc.get("capabilities") or {}
    drop = {("CAP_" + x.upper()) if not x.upper().startswith("CAP_") else x.upper() for x in c.get("drop_capabilities") or ()}
    add = [("CAP_" + x.upper()) if not x.upper().startswith("CAP_") else x.upper() for x in c.get("add_capabilities") or ()]
    if "CAP_ALL" in drop:
        caps = []
    else:
        caps = [x for x in caps if x not in drop]
    for x in add:
        if x not in caps and x != "CAP_ALL":
            caps.append(x)
    return caps


def _namespaces(ns_opts: Mapping[str, str], sandbox_pid: int, netns: str, runtime: str,
                sandbox_id: str, cgroup_v2: bool) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    pid_mode = ns_opts.get("pid", NAMESPACE_MODE_CONTAINER)
    if pid_mode == NAMESPACE_MODE_POD:
        out.append({"type": "pid", "path": f"/proc/{sandbox_pid}/ns/pid"})
    elif pid_mode != NAMESPACE_MODE_NODE:
        out.append({"type": "pid"})
    pinned = runtime == "cri-o"
    if ns_opts.get("ipc", NAMESPACE_MODE_POD) != NAMESPACE_MODE_NODE:
        out.append({"type": "ipc", "path": f"/var/run/ipcns/{sandbox_id[:32]}" if pinned else f"/proc/{sandbox_pid}/ns/ipc"})
    if ns_opts.get("network", NAMESPACE_MODE_POD) != NAMESPACE_MODE_NODE:
        out.append({"type": "uts", "path": f"/var/run/utsns/{sandbox_id[:32]}" if pinned else f"/proc/{sandbox_pid}/ns/uts"})
    out.append({"type": "mount"})
    if ns_opts.get("network", NAMESPACE_MODE_POD) != NAMESPACE_MODE_NODE:
        out.append({"type": "network", "path": netns})
    if cgroup_v2:
        out.append({"type": "cgroup"})
    return out


def _resources(res: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"devices": [{"allow": False, "access": "rwm"}]}
    cpu: dict[str, Any] = {}
    if res.get("cpu_shares"):
        cpu["shares"] = int(res["cpu_shares"])
    if res.get("cpu_quota"):
        cpu["quota"] = int(res["cpu_quota"])
    if res.get("cpu_period"):
        cpu["period"] = int(res["cpu_period"])
    out["cpu"] = cpu
    mem: dict[str, Any] = {}
    if res.get("memory_limit_in_bytes"):
        mem["limit"] = int(res["memory_limit_in_bytes"])
        mem["swap"] = int(res["memory_limit_in_bytes"])
    out["memory"] = mem
    if res.get("unified"):
        out["unified"] = dict(res["unified"])
    return out


def oci_config_from_cri(
    config: Mapping[str, Any],
    sandbox_config: Mapping[str, Any],
    *,
    container_id: str,
    sandbox_id: str,
    sandbox_pid: int = 1,
    image_config: Mapping[str, Any] | None = None,
    image_ref: str = "",
    runtime: str = "containerd",
    cgroup_v2: bool = True,
) -> dict[str, Any]:
    """The runtime-spec ``config.json`` a runtime writes for a CRI ``CreateContainer``.

    Parameters
    ----------
    config : dict
        CRI ``ContainerConfig``.
    sandbox_config : dict
        CRI ``PodSandboxConfig`` of the pod.
    container_id, sandbox_id : str
    sandbox_pid : int
        Host PID of the sandbox's pause process (its namespaces are joined
        through ``/proc/<pid>/ns/*``).
    image_config : dict
        OCI image config (``Entrypoint``, ``Cmd``, ``Env``, ``WorkingDir``, ``User``).
    runtime : str
        ``containerd`` or ``cri-o``.
    cgroup_v2 : bool
        Adds a private cgroup namespace, as runtimes do on the unified hierarchy.

    Returns
    -------
    dict
        runtime-spec fields: ``ociVersion``, ``process``, ``root``,
        ``hostname``, ``mounts``, ``annotations``, ``linux``.

    Raises
    ------
    ValueError
        ``no command specified`` when neither the config nor the image gives one.

    Examples
    --------
    >>> spec = oci_config_from_cri({"metadata": {"name": "c"}, "command": ["sleep"], "args": ["3600"]},
    ...     {"metadata": {"name": "p", "namespace": "d", "uid": "u"}, "hostname": "p",
    ...      "linux": {"cgroup_parent": "/kubepods/besteffort/podu"}}, container_id="c1", sandbox_id="s" * 32)
    >>> spec["process"]["args"], spec["linux"]["cgroupsPath"]
    (['sleep', '3600'], '/kubepods/besteffort/podu/c1')
    >>> [n["type"] for n in spec["linux"]["namespaces"]]
    ['pid', 'ipc', 'uts', 'mount', 'network', 'cgroup']
    """
    image_config = image_config or {}
    linux = config.get("linux") or {}
    sc = linux.get("security_context") or {}
    res = linux.get("resources") or {}
    hostname = sandbox_config.get("hostname", "")
    ns_opts = ((sandbox_config.get("linux") or {}).get("security_context") or {}).get("namespace_options") or {}
    ns_opts = {**ns_opts, **(sc.get("namespace_options") or {})}

    if "run_as_user" in sc:
        uid = int(sc["run_as_user"]["value"])
    else:
        user = str(image_config.get("User") or "0").split(":", 1)[0]
        uid = int(user) if user.isdigit() else 0
    gid = int(sc["run_as_group"]["value"]) if "run_as_group" in sc else 0
    groups = sorted({gid, *map(int, sc.get("supplemental_groups") or ())})
    caps = _capabilities(sc)

    mounts = default_mounts()
    mounts.append({"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
                   "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]})
    cri_mounts = list(config.get("mounts") or ())
    taken = {m.get("container_path") for m in cri_mounts}
    state_dir = f"{_CRI_STATE_DIR[runtime]}/sandboxes/{sandbox_id}"
    root_dir = f"{_CRI_ROOT_DIR[runtime]}/sandboxes/{sandbox_id}"
    extra = [
        {"container_path": "/etc/hostname", "host_path": f"{root_dir}/hostname"},
        {"container_path": "/etc/hosts", "host_path": f"{root_dir}/hosts"},
        {"container_path": "/etc/resolv.conf", "host_path": f"{root_dir}/resolv.conf"},
        {"container_path": "/dev/shm", "host_path": f"{state_dir}/shm"},
    ]
    cri_mounts += [dict(m, readonly=False) for m in extra if m["container_path"] not in taken]
    taken = {m["container_path"] for m in cri_mounts}
    mounts = [m for m in mounts if m["destination"] not in taken]
    cri_mounts.sort(key=lambda m: len([p for p in m["container_path"].split("/") if p]))
    for m in cri_mounts:
        prop = {"PROPAGATION_BIDIRECTIONAL": "rshared", "PROPAGATION_HOST_TO_CONTAINER": "rslave"}.get(
            m.get("propagation", ""), "rprivate")
        mounts.append({"destination": m["container_path"], "type": "bind", "source": m["host_path"],
                       "options": ["rbind", prop, "ro" if m.get("readonly") else "rw"]})

    meta = sandbox_config.get("metadata") or {}
    if runtime == "containerd":
        annotations = {
            "io.kubernetes.cri.container-type": "container",
            "io.kubernetes.cri.container-name": (config.get("metadata") or {}).get("name", ""),
            "io.kubernetes.cri.image-name": image_ref or (config.get("image") or {}).get("image", ""),
            "io.kubernetes.cri.sandbox-id": sandbox_id,
            "io.kubernetes.cri.sandbox-name": meta.get("name", ""),
            "io.kubernetes.cri.sandbox-namespace": meta.get("namespace", ""),
            "io.kubernetes.cri.sandbox-uid": meta.get("uid", ""),
        }
    else:
        annotations = {
            "io.kubernetes.cri-o.ContainerType": "container",
            "io.kubernetes.cri-o.ContainerID": container_id,
            "io.kubernetes.cri-o.SandboxID": sandbox_id,
            "io.kubernetes.cri-o.Image": image_ref or (config.get("image") or {}).get("image", ""),
        }
    annotations.update(config.get("annotations") or {})

    process: dict[str, Any] = {
        "terminal": bool(config.get("tty", False)),
        "user": {"uid": uid, "gid": gid, "additionalGids": groups},
        "args": _process_args(config, image_config),
        "env": _env(hostname, image_config, config),
        "cwd": config.get("working_dir") or image_config.get("WorkingDir") or "/",
        "capabilities": {"bounding": list(caps), "effective": list(caps), "permitted": list(caps)},
        "noNewPrivileges": bool(sc.get("no_new_privs", False)),
    }
    if "oom_score_adj" in res:
        process["oomScoreAdj"] = int(res["oom_score_adj"])
    cgroup_parent = (sandbox_config.get("linux") or {}).get("cgroup_parent", "")
    return {
        "ociVersion": OCI_VERSION,
        "process": process,
        "root": {"path": "rootfs", "readonly": bool(sc.get("readonly_rootfs", False))},
        "hostname": hostname,
        "mounts": mounts,
        "annotations": annotations,
        "linux": {
            "resources": _resources(res),
            "cgroupsPath": cgroups_path(cgroup_parent, container_id, runtime),
            "namespaces": _namespaces(ns_opts, sandbox_pid, netns_path(sandbox_id, runtime), runtime,
                                      sandbox_id, cgroup_v2),
            "maskedPaths": [] if sc.get("privileged") else list(DEFAULT_MASKED_PATHS),
            "readonlyPaths": [] if sc.get("privileged") else list(DEFAULT_READONLY_PATHS),
        },
    }


def sandbox_oci_config(
    sandbox_config: Mapping[str, Any],
    *,
    sandbox_id: str,
    runtime: str = "containerd",
    cgroup_v2: bool = True,
) -> dict[str, Any]:
    """The pause container's ``config.json``: ``/pause`` in new pid/ipc/uts/mount namespaces and the pod's netns.

    Examples
    --------
    >>> spec = sandbox_oci_config({"metadata": {"name": "p"}, "hostname": "p",
    ...     "linux": {"cgroup_parent": "/kubepods/besteffort/podu"}}, sandbox_id="a" * 64)
    >>> spec["process"]["args"], spec["process"]["oomScoreAdj"], spec["process"]["user"]["uid"]
    (['/pause'], -998, 65535)
    """
    ns_opts = ((sandbox_config.get("linux") or {}).get("security_context") or {}).get("namespace_options") or {}
    namespaces: list[dict[str, str]] = []
    if ns_opts.get("pid") != NAMESPACE_MODE_NODE:
        namespaces.append({"type": "pid"})
    if ns_opts.get("ipc") != NAMESPACE_MODE_NODE:
        namespaces.append({"type": "ipc"})
    host_net = ns_opts.get("network") == NAMESPACE_MODE_NODE
    if not host_net:
        namespaces.append({"type": "uts"})
    namespaces.append({"type": "mount"})
    if not host_net:
        namespaces.append({"type": "network", "path": netns_path(sandbox_id, runtime)})
    if cgroup_v2:
        namespaces.append({"type": "cgroup"})
    cgroup_parent = (sandbox_config.get("linux") or {}).get("cgroup_parent", "")
    return {
        "ociVersion": OCI_VERSION,
        "process": {"user": {"uid": 65535, "gid": 65535}, "args": ["/pause"], "cwd": "/",
                    "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                    "noNewPrivileges": True, "oomScoreAdj": SANDBOX_OOM_SCORE_ADJ},
        "root": {"path": "rootfs", "readonly": True},
        "hostname": sandbox_config.get("hostname", ""),
        "mounts": default_mounts(),
        "annotations": {"io.kubernetes.cri.container-type": "sandbox", "io.kubernetes.cri.sandbox-id": sandbox_id}
        if runtime == "containerd" else {"io.kubernetes.cri-o.ContainerType": "sandbox"},
        "linux": {"resources": {"devices": [{"allow": False, "access": "rwm"}], "cpu": {"shares": 2}},
                  "cgroupsPath": cgroups_path(cgroup_parent, sandbox_id, runtime),
                  "namespaces": namespaces},
    }


def container_oci_config(
    config: Mapping[str, Any],
    sandbox_config: Mapping[str, Any],
    *,
    sandbox_id: str | None = None,
    container_id: str | None = None,
    sandbox_pid: int | None = None,
    image_config: Mapping[str, Any] | None = None,
    runtime: str = "containerd",
    cgroup_v2: bool = True,
) -> dict[str, Any]:
    """The ``config.json`` for one ``CreateContainer``, with the IDs and the image config the runtime picks itself.

    :func:`oci_config_from_cri` with defaults: the sandbox and container IDs
    are derived from the sandbox's ``metadata.uid`` and the container's name
    and attempt, the pause PID from the sandbox ID, and the image config is
    the default catalogue's for ``config.image.image``.

    Parameters
    ----------
    config : dict
        CRI ``ContainerConfig`` (as the kubelet sends it).
    sandbox_config : dict
        CRI ``PodSandboxConfig`` of the pod.
    sandbox_id, container_id : str, optional
        Default: deterministic IDs (runtimes draw random ones).
    sandbox_pid : int, optional
        Host PID of the pause process (default: a number derived from the sandbox ID).
    image_config : dict, optional
        OCI image config; default: the default catalogue's config for the image, if any.
    runtime : str
        ``containerd`` or ``cri-o``.
    cgroup_v2 : bool
        Adds a private cgroup namespace.

    Returns
    -------
    dict
        As :func:`oci_config_from_cri`.

    Raises
    ------
    ValueError
        ``no command specified`` when neither the config nor the image gives one.

    References
    ----------
    containerd/containerd@v2.1 internal/cri/server/container_create.go (CreateContainer)

    Examples
    --------
    >>> spec = container_oci_config({"metadata": {"name": "app", "attempt": 0}, "image": {"image": "nginx:1.27"}},
    ...     {"metadata": {"name": "web", "uid": "u1", "attempt": 0}, "hostname": "web",
    ...      "linux": {"cgroup_parent": "/kubepods/besteffort/podu1"}}, container_id="c1")
    >>> spec["process"]["args"], spec["linux"]["cgroupsPath"]
    (['/docker-entrypoint.sh', 'nginx', '-g', 'daemon off;'], '/kubepods/besteffort/podu1/c1')
    """
    meta = sandbox_config.get("metadata") or {}
    container_meta = config.get("metadata") or {}
    uid = meta.get("uid", "")
    sandbox_id = sandbox_id or new_id("sandbox", uid, meta.get("attempt", 0))
    container_id = container_id or new_id("container", uid, container_meta.get("name", ""),
                                          container_meta.get("attempt", 0))
    if sandbox_pid is None:
        sandbox_pid = 1000 + int(sandbox_id[:8], 16) % 30000 if all(ch in "0123456789abcdef" for ch in sandbox_id[:8]) else 4242
    if image_config is None:
        ref = (config.get("image") or {}).get("image", "")
        image = default_catalogue().get(ref) if ref else None
        image_config = dict(image.config) if image is not None else {}
    return oci_config_from_cri(config, sandbox_config, container_id=container_id, sandbox_id=sandbox_id,
                               sandbox_pid=sandbox_pid, image_config=image_config, runtime=runtime,
                               cgroup_v2=cgroup_v2)


def oci_excerpt(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of an OCI ``config.json`` that show the pod: process, cgroup, resources, namespaces.

    Parameters
    ----------
    spec : dict
        An OCI runtime spec (:func:`oci_config_from_cri`, or :func:`kubenotes.kubelet.kuberuntime.oci_config`).

    Returns
    -------
    dict
        ``process.args``, ``process.oomScoreAdj``, ``linux.cgroupsPath``,
        ``linux.resources`` (without the device list) and
        ``linux.namespaces`` as type -> path (``"new"`` for a namespace of
        the container's own).

    Raises
    ------
    KeyError
        A namespace entry has no ``type``.
    AttributeError
        ``spec`` is not a mapping.

    Examples
    --------
    >>> spec = {"process": {"args": ["/pause"], "oomScoreAdj": -998}, "linux": {"cgroupsPath": "p:cri-containerd:x",
    ...         "resources": {"devices": [], "cpu": {"shares": 2}}, "namespaces": [{"type": "pid"},
    ...         {"type": "network", "path": "/var/run/netns/cni-1"}]}}
    >>> oci_excerpt(spec)["linux.namespaces"]
    {'pid': 'new', 'network': '/var/run/netns/cni-1'}
    """
    linux = spec.get("linux") or {}
    process = spec.get("process") or {}
    return {
        "process.args": list(process.get("args") or ()),
        "process.oomScoreAdj": process.get("oomScoreAdj"),
        "linux.cgroupsPath": linux.get("cgroupsPath", ""),
        "linux.resources": {k: v for k, v in (linux.get("resources") or {}).items() if k != "devices"},
        "linux.namespaces": {n["type"]: n.get("path", "new") for n in linux.get("namespaces") or ()},
    }
