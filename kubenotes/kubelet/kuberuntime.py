"""The kubelet's side of the CRI: the sandbox and container configs it sends, and a pod start through them.

The kubelet decides and the runtime only reads what it is sent: the pod's
cgroup (``PodSandboxConfig.linux.cgroup_parent``, from
:mod:`kubenotes.kubelet.cgroups`), its DNS (``dns_config``, from
:mod:`kubenotes.kubelet.dns`), each container's resources and
``oom_score_adj`` (``ContainerConfig.linux.resources``), mounts and
environment. The runtime's half is :mod:`kubenotes.cri`.

* :func:`sandbox_config_for_pod` / :func:`container_config_for_pod`: the
  ``RunPodSandbox`` and ``CreateContainer`` configs (``generatePodSandboxConfig``,
  ``generateContainerConfig``);
* :func:`oci_config`: those configs through the runtime, down to runc's ``config.json``;
* :func:`runtime_stack_graph`: a node's processes for some pods, from the kubelet down;
* :func:`pod_start_calls`: the CRI calls of one pod start, in ``SyncPod``'s order.
* :func:`start_latency` (with :func:`latency_pod` and :data:`CACHE_STATES`): one
  pod start on one node per runtime, image size, cached images and bandwidth,
  and where its time goes.

Mirrors ``pkg/kubelet/kuberuntime``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_sandbox.go (generatePodSandboxConfig)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (generateContainerConfig)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
"""

from __future__ import annotations

import functools
from typing import Any, Generator, Iterable, Mapping

import networkx as nx
import simpy

from kubenotes.api.qos import pod_qos_class
from kubenotes.cri.api import NAMESPACE_MODE_CONTAINER, NAMESPACE_MODE_NODE, NAMESPACE_MODE_POD, new_id
from kubenotes.cri.images import PAUSE_IMAGE, ImageCatalogue, ImageStore, Layer, default_catalogue, normalize_image_ref
from kubenotes.cri.oci import container_oci_config
from kubenotes.cri.runtime import CONTAINERD, RUNC, ContainerRuntime, PodSandbox
from kubenotes.cri.stack import runtime_stack_graph_from_cri
from kubenotes.kubelet.cgroups import CGROUP_DRIVER_SYSTEMD, linux_container_resources, pod_cgroup_path
from kubenotes.kubelet.dns import pod_dns_config
from kubenotes.kubelet.volumes import KUBELET_PODS_DIR

__all__ = [
    "SERVICE_ACCOUNT_MOUNT_PATH",
    "sandbox_config_for_pod",
    "container_config_for_pod",
    "oci_config",
    "runtime_stack_graph",
    "pod_start_calls",
    "CACHE_STATES",
    "LATENCY_IMAGE",
    "latency_pod",
    "start_latency",
]

#: Where the projected ServiceAccount token volume is mounted.
SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"

_VOLUME_PLUGIN_DIR = {
    "emptyDir": "kubernetes.io~empty-dir",
    "configMap": "kubernetes.io~configmap",
    "secret": "kubernetes.io~secret",
    "projected": "kubernetes.io~projected",
    "downwardAPI": "kubernetes.io~downward-api",
    "persistentVolumeClaim": "kubernetes.io~csi",
}


def _namespace_options(pod: Mapping[str, Any]) -> dict[str, str]:
    spec = pod.get("spec") or {}
    return {
        "network": NAMESPACE_MODE_NODE if spec.get("hostNetwork") else NAMESPACE_MODE_POD,
        "pid": NAMESPACE_MODE_NODE if spec.get("hostPID")
        else (NAMESPACE_MODE_POD if spec.get("shareProcessNamespace") else NAMESPACE_MODE_CONTAINER),
        "ipc": NAMESPACE_MODE_NODE if spec.get("hostIPC") else NAMESPACE_MODE_POD,
    }


def sandbox_config_for_pod(
    pod: Mapping[str, Any], attempt: int = 0, cgroup_driver: str = CGROUP_DRIVER_SYSTEMD
) -> dict[str, Any]:
    """The ``PodSandboxConfig`` the kubelet sends in ``RunPodSandbox`` (``generatePodSandboxConfig``).

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod (with ``metadata.uid``).
    attempt : int
        Sandbox attempt (incremented when the kubelet recreates the sandbox).
    cgroup_driver : str
        ``systemd`` or ``cgroupfs``.

    Returns
    -------
    dict
        The CRI message as a JSON-shaped dict with CRI field names:
        ``metadata``, ``hostname``, ``log_directory``, ``labels`` (the pod's
        plus ``io.kubernetes.pod.*``), ``annotations``, ``linux``
        (``cgroup_parent``, ``security_context.namespace_options``),
        ``dns_config`` and, when a container declares ports, ``port_mappings``.

    Raises
    ------
    ValueError
        For an unknown ``cgroup_driver``, or a ``containerPort``/``hostPort``
        that is not an integer.

    See Also
    --------
    container_config_for_pod : the message of each ``CreateContainer``.
    kubenotes.cri.runtime.ContainerRuntime.RunPodSandbox : what reads it.

    Notes
    -----
    The kubelet decides, the runtime only reads: ``linux.cgroup_parent`` is
    the pod's cgroup (:func:`kubenotes.kubelet.cgroups.pod_cgroup_path`, in
    the cgroup driver's form). Sysctls, ``linux.resources``/``overhead`` and
    security context beyond the namespace options are left out.
    ``dns_config`` is :func:`kubenotes.kubelet.dns.pod_dns_config` (the
    kubelet's ``clusterDNS`` 10.96.0.10, ``cluster.local``, an empty node
    resolv.conf). ``port_mappings`` lists every container port (``hostPort``
    0 included), as ``MakePortMappings`` does.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_sandbox.go (generatePodSandboxConfig)

    Examples
    --------
    >>> cfg = sandbox_config_for_pod({"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...                               "spec": {"containers": [{"name": "c"}]}})
    >>> cfg["metadata"], cfg["log_directory"]
    ({'name': 'web', 'uid': 'u1', 'namespace': 'default', 'attempt': 0}, '/var/log/pods/default_web_u1')
    >>> cfg["linux"]["cgroup_parent"]
    '/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu1.slice'
    >>> cfg["dns_config"]["servers"], cfg["dns_config"]["searches"][0], cfg["dns_config"]["options"]
    (['10.96.0.10'], 'default.svc.cluster.local', ['ndots:5'])
    >>> sandbox_config_for_pod({"metadata": {"name": "dns", "uid": "u2"}, "spec": {"containers": [
    ...     {"name": "c", "ports": [{"containerPort": 53, "hostPort": 53, "protocol": "UDP"}]}]}})["port_mappings"]
    [{'protocol': 'UDP', 'container_port': 53, 'host_port': 53, 'host_ip': ''}]
    """
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    name, ns, uid = meta.get("name", ""), meta.get("namespace", "default"), meta.get("uid", "")
    labels = dict(meta.get("labels") or {})
    labels.update({"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": ns, "io.kubernetes.pod.uid": uid})
    config: dict[str, Any] = {
        "metadata": {"name": name, "uid": uid, "namespace": ns, "attempt": attempt},
        "hostname": spec.get("hostname") or name,
        "log_directory": f"/var/log/pods/{ns}_{name}_{uid}",
        "labels": labels,
        "annotations": dict(meta.get("annotations") or {}),
        "linux": {
            "cgroup_parent": pod_cgroup_path(pod, cgroup_driver),
            "security_context": {"namespace_options": _namespace_options(pod)},
        },
    }
    # the kubelet's dnsConfigurer.GetPodDNS: what the runtime writes to the sandbox's /etc/resolv.conf
    dns = pod_dns_config(pod)
    config["dns_config"] = {"servers": list(dns.servers), "searches": list(dns.searches),
                            "options": list(dns.options)}
    # kubecontainer.MakePortMappings over the app containers: every port, hostPort 0 included (the runtime
    # hands only those with a host port to CNI's portmap plugin)
    mappings = [{"protocol": p.get("protocol", "TCP"), "container_port": int(p.get("containerPort") or 0),
                 "host_port": int(p.get("hostPort") or 0), "host_ip": p.get("hostIP", "")}
                for c in spec.get("containers") or () for p in c.get("ports") or ()]
    if mappings:
        config["port_mappings"] = mappings
    return config


def _find(pod: Mapping[str, Any], container_name: str) -> Mapping[str, Any]:
    spec = pod.get("spec") or {}
    for c in list(spec.get("containers") or ()) + list(spec.get("initContainers") or ()):
        if c.get("name") == container_name:
            return c
    raise KeyError(f"container {container_name!r} not found in pod")


def container_config_for_pod(
    pod: Mapping[str, Any],
    container_name: str,
    *,
    attempt: int = 0,
    memory_capacity_bytes: int = 8 * 1024**3,
    service_env: Mapping[str, str] | None = None,
    environment: Iterable[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The ``ContainerConfig`` the kubelet sends in ``CreateContainer`` (``generateContainerConfig``).

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod.
    container_name : str
        A regular or init container.
    attempt : int
        Restart count of this container.
    memory_capacity_bytes : int
        Node memory capacity, for ``oom_score_adj``.
    service_env : dict, optional
        Service environment variables (``KUBERNETES_SERVICE_HOST``...).
    environment : iterable of (str, str), optional
        The whole environment as the kubelet made it
        (:func:`kubenotes.kubelet.envvars.make_environment_variables`); when
        given, ``service_env`` and the literal ``env`` values are not read.

    Returns
    -------
    dict
        The CRI message as a JSON-shaped dict with CRI field names:
        ``metadata`` (name, attempt), ``image``, ``command``, ``args``,
        ``working_dir``, ``envs`` (``[{"key", "value"}]``), ``mounts``,
        ``labels``, ``annotations``, ``log_path`` (relative to the sandbox's
        ``log_directory``) and ``linux`` (``resources``, ``security_context``).

    Raises
    ------
    KeyError
        When the pod has no such container.
    ValueError
        When a ``runAsUser``/``runAsGroup`` is not an integer; a bad resource
        quantity raises :class:`~kubenotes.errors.InvalidQuantity`.

    Notes
    -----
    ``linux.resources`` is :func:`kubenotes.kubelet.cgroups.linux_container_resources`
    (``cpu_shares``, ``cpu_quota``, ``memory_limit_in_bytes``, ``oom_score_adj``...).
    Without ``environment``, only literal ``env`` values are used (no
    ``valueFrom``/``envFrom``): the container's ``env`` first, then the
    Service variables it does not define.
    The termination-log file name is a deterministic 8-hex suffix where the
    kubelet uses a random one.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (generateContainerConfig)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (makeMounts, makeEnvironmentVariables)

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "env": [{"name": "A", "value": "1"}]}]}}
    >>> cfg = container_config_for_pod(pod, "app")
    >>> cfg["image"], cfg["envs"], cfg["log_path"]
    ({'image': 'nginx:1.27'}, [{'key': 'A', 'value': '1'}], 'app/0.log')
    >>> [m["container_path"] for m in cfg["mounts"]]
    ['/etc/hosts', '/dev/termination-log']
    """
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    container = _find(pod, container_name)
    uid = meta.get("uid", "")
    pod_dir = f"{KUBELET_PODS_DIR}/{uid}"
    if environment is not None:
        envs = [{"key": k, "value": v} for k, v in environment]
    else:
        envs = [{"key": e["name"], "value": str(e.get("value", ""))} for e in container.get("env") or () if "name" in e]
        defined = {e["key"] for e in envs}
        for k in sorted(service_env or {}):
            if k not in defined:
                envs.append({"key": k, "value": str(service_env[k])})

    volumes = {v.get("name"): v for v in spec.get("volumes") or ()}
    mounts: list[dict[str, Any]] = []
    for vm in container.get("volumeMounts") or ():
        vol = volumes.get(vm.get("name")) or {}
        if "hostPath" in vol:
            host = (vol.get("hostPath") or {}).get("path", "")
        else:
            plugin = next((d for k, d in _VOLUME_PLUGIN_DIR.items() if k in vol), "kubernetes.io~empty-dir")
            host = f"{pod_dir}/volumes/{plugin}/{vm.get('name')}"
        if vm.get("subPath"):
            host += "/" + vm["subPath"]
        mounts.append({"container_path": vm.get("mountPath", ""), "host_path": host,
                       "readonly": bool(vm.get("readOnly", False)), "propagation": "PROPAGATION_PRIVATE"})
    if not spec.get("hostNetwork"):
        mounts.append({"container_path": "/etc/hosts", "host_path": f"{pod_dir}/etc-hosts",
                       "readonly": False, "propagation": "PROPAGATION_PRIVATE"})
    term_path = container.get("terminationMessagePath", "/dev/termination-log")
    mounts.append({"container_path": term_path,
                   "host_path": f"{pod_dir}/containers/{container_name}/{new_id(uid, container_name, attempt)[:8]}",
                   "readonly": False, "propagation": "PROPAGATION_PRIVATE"})

    sc = dict(spec.get("securityContext") or {})
    csc = container.get("securityContext") or {}
    run_as_user = csc.get("runAsUser", sc.get("runAsUser"))
    run_as_group = csc.get("runAsGroup", sc.get("runAsGroup"))
    security_context: dict[str, Any] = {
        "namespace_options": _namespace_options(pod),
        "privileged": bool(csc.get("privileged", False)),
        "readonly_rootfs": bool(csc.get("readOnlyRootFilesystem", False)),
        "no_new_privs": csc.get("allowPrivilegeEscalation") is False,
        "supplemental_groups": list(sc.get("supplementalGroups") or ()) + ([sc["fsGroup"]] if "fsGroup" in sc else []),
        "capabilities": {
            "add_capabilities": list((csc.get("capabilities") or {}).get("add") or ()),
            "drop_capabilities": list((csc.get("capabilities") or {}).get("drop") or ()),
        },
    }
    if run_as_user is not None:
        security_context["run_as_user"] = {"value": int(run_as_user)}
    if run_as_group is not None:
        security_context["run_as_group"] = {"value": int(run_as_group)}

    resources = linux_container_resources(pod, container_name, memory_capacity_bytes)
    return {
        "metadata": {"name": container_name, "attempt": attempt},
        "image": {"image": container.get("image", "")},
        "command": list(container.get("command") or ()),
        "args": list(container.get("args") or ()),
        "working_dir": container.get("workingDir", ""),
        "envs": envs,
        "mounts": mounts,
        "labels": {
            "io.kubernetes.container.name": container_name,
            "io.kubernetes.pod.name": meta.get("name", ""),
            "io.kubernetes.pod.namespace": meta.get("namespace", "default"),
            "io.kubernetes.pod.uid": uid,
        },
        "annotations": {"io.kubernetes.container.restartCount": str(attempt),
                        "io.kubernetes.container.terminationMessagePath": term_path},
        "log_path": f"{container_name}/{attempt}.log",
        "linux": {"resources": resources, "security_context": security_context},
    }


def oci_config(
    pod: Mapping[str, Any],
    container_name: str,
    *,
    sandbox_id: str | None = None,
    container_id: str | None = None,
    sandbox_pid: int | None = None,
    cgroup_driver: str = CGROUP_DRIVER_SYSTEMD,
    qos_class: str | None = None,
    memory_capacity_bytes: int = 8 * 1024**3,
    image_config: Mapping[str, Any] | None = None,
    service_env: Mapping[str, str] | None = None,
    runtime: str = "containerd",
    cgroup_v2: bool = True,
    attempt: int = 0,
) -> dict[str, Any]:
    """The ``config.json`` runc gets for one container of a Pod (kubelet's CRI config, then the runtime's spec).

    The kubelet's half (:func:`sandbox_config_for_pod`,
    :func:`container_config_for_pod`) chained with the runtime's
    (:func:`kubenotes.cri.oci.container_oci_config`).

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod with ``metadata.uid``.
    container_name : str
    sandbox_id, container_id : str, optional
        Default: deterministic IDs from the pod UID and container name.
    sandbox_pid : int, optional
        Host PID of the pause process (default: a number derived from the sandbox ID).
    cgroup_driver : str
        ``systemd`` (kubeadm's default) or ``cgroupfs``.
    qos_class : str, optional
        Force a QoS class (as ``status.qosClass``); default: computed.
    memory_capacity_bytes : int
        Node memory (for the Burstable ``oomScoreAdj``).
    image_config : dict, optional
        OCI image config; default: the default catalogue's config for the image, if any.
    service_env : dict, optional
        Service environment variables to add.
    runtime : str
        ``containerd`` or ``cri-o``.

    Returns
    -------
    dict

    Raises
    ------
    KeyError
        No such container.
    ValueError
        No command from the container or the image.

    See Also
    --------
    kubenotes.cri.oci.oci_config_from_cri : the runtime's translation alone.

    Notes
    -----
    On a node the runtime builds this file itself from the CRI configs and
    the image; here both halves run in one call, with the simplifications
    of :func:`container_config_for_pod` and the runtime's translation.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (generateContainerConfig)
    containerd/containerd@v2.1 internal/cri/server/container_create.go (buildContainerSpec)
    opencontainers/runtime-spec@v1.2.0 config.md, config-linux.md

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"}, "spec": {"containers": [
    ...     {"name": "app", "image": "nginx:1.27", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"},
    ...      "limits": {"cpu": "500m", "memory": "128Mi"}}}]}}
    >>> spec = oci_config(pod, "app", container_id="c1")
    >>> spec["process"]["args"], spec["process"]["oomScoreAdj"]
    (['/docker-entrypoint.sh', 'nginx', '-g', 'daemon off;'], 993)
    >>> spec["linux"]["cgroupsPath"], spec["linux"]["resources"]["cpu"]
    ('kubepods-burstable-podu1.slice:cri-containerd:c1', {'shares': 256, 'quota': 50000, 'period': 100000})
    """
    if qos_class is not None:
        pod = {**pod, "status": {**(pod.get("status") or {}), "qosClass": qos_class}}
    sandbox_config = sandbox_config_for_pod(pod, 0, cgroup_driver)
    config = container_config_for_pod(pod, container_name, attempt=attempt,
                                      memory_capacity_bytes=memory_capacity_bytes, service_env=service_env)
    return container_oci_config(config, sandbox_config, sandbox_id=sandbox_id, container_id=container_id,
                                sandbox_pid=sandbox_pid, image_config=image_config, runtime=runtime,
                                cgroup_v2=cgroup_v2)


def runtime_stack_graph(
    kind: str,
    pods: Iterable[Mapping[str, Any]],
    *,
    cgroup_driver: str = CGROUP_DRIVER_SYSTEMD,
    low_level: str = RUNC,
    drop_infra_ctr: bool = True,
    memory_capacity_bytes: int = 8 * 1024**3,
) -> nx.DiGraph:
    """The runtime stack of a node running ``pods``: the kubelet's CRI configs, drawn by the runtime.

    Parameters
    ----------
    kind : {"containerd", "cri-o"}
    pods : iterable of dict
        JSON-shaped Pods (``metadata.name``, ``metadata.uid``, ``spec.containers``);
        a Pod without a uid gets one derived from its namespace and name.
    cgroup_driver : str
        ``systemd`` or ``cgroupfs``.
    low_level : str
        Label of the OCI runtime nodes (``runc``, ``crun``).
    drop_infra_ctr : bool
        CRI-O only: no pause process unless ``shareProcessNamespace``.
    memory_capacity_bytes : int
        For the containers' ``oom_score_adj``.

    Returns
    -------
    networkx.DiGraph
        As :func:`kubenotes.cri.stack.runtime_stack_graph_from_cri`, and the
        process nodes also carry the pod's ``qos_class``.

    Raises
    ------
    ValueError
        For an unknown ``kind``.
    KeyError
        For a container without a name.

    Notes
    -----
    Per pod the kubelet's :func:`sandbox_config_for_pod` (``cgroup_parent``)
    and :func:`container_config_for_pod` (``oom_score_adj``) go to
    :func:`kubenotes.cri.stack.runtime_stack_graph_from_cri`; the QoS class
    is the kubelet's (:func:`kubenotes.api.qos.pod_qos_class`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_sandbox.go (generatePodSandboxConfig)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (generateContainerConfig)

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}, {"name": "log", "image": "busybox:1.36",
    ...                 "command": ["sh", "-c", "tail -f /dev/null"]}]}}
    >>> g = runtime_stack_graph("containerd", [pod])
    >>> sorted(g.successors("containerd"))
    ['shim/default/web']
    >>> sorted(g.successors("runc/default/web"))
    ['default/web/POD', 'default/web/app', 'default/web/log']
    >>> g.nodes["default/web/app"]["namespaces"]["network"] == g.nodes["default/web/log"]["namespaces"]["network"]
    True
    >>> g.nodes["default/web/app"]["qos_class"]
    'BestEffort'
    >>> g2 = runtime_stack_graph("cri-o", [pod])
    >>> sorted(g2.successors("crio")), "default/web/POD" in g2
    (['conmon/default/web/app', 'conmon/default/web/log'], False)
    """
    sandboxes = []
    qos: dict[str, str] = {}
    for pod in pods:
        meta = pod.get("metadata") or {}
        ns, name = meta.get("namespace", "default"), meta.get("name", "")
        uid = meta.get("uid") or new_id("uid", ns, name)[:36]
        pod = {**pod, "metadata": {**meta, "uid": uid}}
        containers = (pod.get("spec") or {}).get("containers") or ()
        sandboxes.append((sandbox_config_for_pod(pod, 0, cgroup_driver),
                          [container_config_for_pod(pod, c.get("name"), memory_capacity_bytes=memory_capacity_bytes)
                           for c in containers]))
        qos[f"{ns}/{name}"] = pod_qos_class(pod)
    g = runtime_stack_graph_from_cri(kind, sandboxes, low_level=low_level, drop_infra_ctr=drop_infra_ctr)
    for _, attrs in g.nodes(data=True):
        if attrs.get("kind") == "process":
            attrs["qos_class"] = qos[attrs["pod"]]
    return g


def pod_start_calls(
    pod: Mapping[str, Any],
    *,
    kind: str = CONTAINERD,
    low_level: str = RUNC,
    latencies: Mapping[str, float] | None = None,
    bandwidth_bytes_per_second: float | None = None,
    catalogue: ImageCatalogue | None = None,
    preloaded_images: tuple[str, ...] = (),
    network_setup_seconds: float = 0.0,
    memory_capacity_bytes: int = 8 * 1024**3,
) -> dict[str, Any]:
    """The CRI calls of one pod start on a fresh node, in the order the kubelet's ``SyncPod`` makes them.

    RunPodSandbox and PodSandboxStatus; then per init container (in order,
    each waited for until it exits) and per app container: ImageStatus,
    PullImage when the image is missing (``IfNotPresent``), CreateContainer,
    StartContainer.

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod.
    kind, low_level, latencies
        As for :class:`kubenotes.cri.runtime.ContainerRuntime`.
    bandwidth_bytes_per_second : float, optional
        Registry download rate (default: the image store's).
    catalogue : ImageCatalogue, optional
        Registry contents (register custom images and sizes there).
    preloaded_images : tuple of str
        Images already on the node (the pause image is pre-pulled if listed).
    network_setup_seconds : float
        Time the CNI ADD takes (the networking model's job on a full cluster).
    memory_capacity_bytes : int
        For ``oom_score_adj``.

    Returns
    -------
    dict
        ``{"trace": [...], "runtime": ContainerRuntime, "started_seconds": float}``:
        the runtime's trace, the runtime itself, and when the last app
        container was started.

    Raises
    ------
    ValueError
        For an unknown ``kind`` or ``low_level`` runtime, or a bad cgroup or
        port value (see :func:`sandbox_config_for_pod`).
    KeyError
        When a container has no ``name``.
    TypeError
        When a CRI call fails inside the run, e.g. ``PullImage`` of an image
        the catalogue does not hold (``nginx`` alone is ``nginx:latest``):
        SimPy raises the process's exception again by calling its class with
        its ``args``, which :class:`~kubenotes.cri.api.CRIError`'s constructor
        does not accept, so the ``CRIError`` surfaces as a ``TypeError``.

    Notes
    -----
    A stand-in for chapters about the CRI; the kubelet model
    (:mod:`kubenotes.kubelet.kubelet`) makes the same calls with probes, restarts,
    back-off and status updates in between. Init containers that never exit
    block the start, as they do for real.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (startContainer)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_manager.go (EnsureImageExists)

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    >>> out = pod_start_calls(pod, preloaded_images=("registry.k8s.io/pause:3.10",))
    >>> [e["method"] for e in out["trace"]]
    ['RunPodSandbox', 'PodSandboxStatus', 'ImageStatus', 'PullImage', 'CreateContainer', 'StartContainer']
    >>> hot = pod_start_calls(pod, preloaded_images=("registry.k8s.io/pause:3.10", "nginx:1.27"))
    >>> hot["started_seconds"] < out["started_seconds"]
    True
    """
    env = simpy.Environment()

    def cni(_sandbox: PodSandbox) -> Generator:
        yield env.timeout(network_setup_seconds)
        return "10.244.0.2"

    store = ImageStore("node", catalogue) if bandwidth_bytes_per_second is None else ImageStore(
        "node", catalogue, bandwidth_bytes_per_second=bandwidth_bytes_per_second)
    for ref in preloaded_images:
        store.add(ref, pinned=normalize_image_ref(ref) == PAUSE_IMAGE)
    rt = ContainerRuntime(env, "node", kind, low_level, latencies, images=store, network_setup=cni)
    spec = pod.get("spec") or {}
    started = {}

    def sync() -> Generator:
        sandbox_config = sandbox_config_for_pod(pod)
        sid = (yield from rt.RunPodSandbox({"config": sandbox_config, "runtime_handler": ""}))["pod_sandbox_id"]
        yield from rt.PodSandboxStatus({"pod_sandbox_id": sid})
        for init, containers in ((True, spec.get("initContainers") or ()), (False, spec.get("containers") or ())):
            for c in containers:
                image = {"image": c.get("image", "")}
                if (yield from rt.ImageStatus({"image": image}))["image"] is None:
                    yield from rt.PullImage({"image": image, "sandbox_config": sandbox_config})
                config = container_config_for_pod(pod, c["name"], memory_capacity_bytes=memory_capacity_bytes)
                cid = (yield from rt.CreateContainer({"pod_sandbox_id": sid, "config": config,
                                                       "sandbox_config": sandbox_config}))["container_id"]
                yield from rt.StartContainer({"container_id": cid})
                container = rt.containers[cid]
                if init and c.get("restartPolicy") != "Always":
                    yield container.exited_event
                started[c["name"]] = env.now

    env.process(sync())
    env.run()
    return {"trace": list(rt.trace), "runtime": rt,
            "started_seconds": max((started[c["name"]] for c in spec.get("containers") or () if c["name"] in started),
                                   default=float("nan"))}


# ---------------------------------------------------------------------------
# start latency: one pod start on one node, per runtime, image size, cache state and bandwidth

#: What the node holds before the pod starts, for :func:`start_latency`: nothing at all; the pause image
#: and the Debian base layer (another pod runs ``nginx``); or the pod's image too.
CACHE_STATES = ("new node", "base layer cached", "image cached")
#: The image of :func:`latency_pod`: the Debian base layer plus one application layer.
LATENCY_IMAGE = "registry.example.com/shop/api:v1"

_MIB = 1024 * 1024


def latency_pod(image: str = LATENCY_IMAGE) -> dict[str, Any]:
    """The pod of :func:`start_latency`: one container, Burstable (requests only), running ``image``.

    Parameters
    ----------
    image : str
        The container's image reference (default :data:`LATENCY_IMAGE`).

    Returns
    -------
    dict
        A Pod as the API server stores it: ``shop/api``, uid
        ``5e1f0c2a-api``, one container ``api`` requesting 250m CPU and
        128Mi memory.

    Raises
    ------
    None
        It only builds a dict.

    Examples
    --------
    >>> latency_pod()["spec"]["containers"][0]["image"]
    'registry.example.com/shop/api:v1'
    """
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "api", "namespace": "shop", "uid": "5e1f0c2a-api"},
            "spec": {"containers": [{"name": "api", "image": image, "command": ["/api", "--port=8080"],
                                     "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}}]}}


@functools.lru_cache(maxsize=256)
def _start(kind: str, image_mib: int, cache: str, bandwidth_mib_per_second: int, low_level: str,
           network_setup_seconds: float) -> dict[str, Any]:
    if cache not in CACHE_STATES:
        raise ValueError(f"unknown cache state {cache!r}; expected one of {CACHE_STATES}")
    if image_mib < 30:
        raise ValueError("image_mib must be at least 30 (the Debian base layer is 28.2 MiB)")
    cat = default_catalogue()
    base = cat.get("nginx:1.27").layers[0]
    app_bytes = int(image_mib * _MIB) - base.size_bytes
    app_layer = Layer("sha256:" + new_id("layer", LATENCY_IMAGE, image_mib), app_bytes, int(app_bytes * 2.5))
    cat.register(LATENCY_IMAGE, layers=[base, app_layer], config={"Cmd": ["/api"]})
    preloaded: tuple[str, ...] = ()
    if cache != "new node":
        preloaded = (PAUSE_IMAGE, "nginx:1.27")
    if cache == "image cached":
        preloaded += (LATENCY_IMAGE,)
    out = pod_start_calls(latency_pod(), kind=kind, low_level=low_level, catalogue=cat, preloaded_images=preloaded,
                          bandwidth_bytes_per_second=bandwidth_mib_per_second * _MIB,
                          network_setup_seconds=network_setup_seconds)
    rt = out["runtime"]
    trace = out["trace"]
    phases = {"sandbox": sum(e["duration_seconds"] for e in trace if e["method"] == "RunPodSandbox"),
              "image pull": sum(e["duration_seconds"] for e in trace if e["method"] == "PullImage"),
              "create + start": sum(e["duration_seconds"] for e in trace
                                    if e["method"] in ("CreateContainer", "StartContainer")),
              "status calls": sum(e["duration_seconds"] for e in trace
                                  if e["method"] in ("PodSandboxStatus", "ImageStatus"))}
    return {"kind": kind, "low_level": low_level, "image_mib": image_mib, "cache": cache,
            "bandwidth_mib_per_second": bandwidth_mib_per_second, "started_seconds": out["started_seconds"],
            "downloaded_bytes": rt.images.bytes_downloaded, "phases": phases, "trace": trace,
            "events": list(rt.events)}


def start_latency(
    kind: str = CONTAINERD,
    image_mib: int = 200,
    cache: str = "base layer cached",
    bandwidth_mib_per_second: int = 50,
    low_level: str = RUNC,
    *,
    network_setup_seconds: float = 0.05,
) -> dict[str, Any]:
    """Start :func:`latency_pod` on one node and say how long it took and where the time went.

    Parameters
    ----------
    kind : {"containerd", "cri-o"}
    image_mib : int
        Compressed size of the pod's image in MiB (at least 30): the 28.2 MiB
        Debian base layer plus one application layer.
    cache : str
        One of :data:`CACHE_STATES`: ``"new node"`` (nothing pulled, not even
        the pause image), ``"base layer cached"`` (the pause image and
        ``nginx:1.27``, hence the Debian base layer, are on the node) or
        ``"image cached"`` (the pod's image too: the kubelet's
        ``IfNotPresent`` skips PullImage).
    bandwidth_mib_per_second : int
        Registry download rate.
    low_level : {"runc", "crun"}
    network_setup_seconds : float
        Time of the CNI ADD inside RunPodSandbox.

    Returns
    -------
    dict
        ``started_seconds`` (when the container was started), ``downloaded_bytes``,
        ``phases`` (seconds in RunPodSandbox, PullImage, Create+Start, status
        calls), ``trace`` and ``events`` of the runtime, and the parameters.
        Results are cached per parameters; treat them as read-only.

    Raises
    ------
    ValueError
        For an unknown ``cache`` state, runtime kind, or ``image_mib`` < 30.

    See Also
    --------
    pod_start_calls : the pod start it runs.

    Notes
    -----
    The image is registered in a fresh :func:`~kubenotes.cri.images.default_catalogue`
    as the ``nginx:1.27`` Debian base layer plus one application layer;
    latencies are the model's illustrative defaults, not measurements.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (``SyncPod``)

    Examples
    --------
    >>> cold, warm, hot = (start_latency(cache=c)["started_seconds"] for c in CACHE_STATES)
    >>> cold > warm > hot
    True
    >>> start_latency(cache="image cached")["downloaded_bytes"]
    0
    """
    return _start(kind, int(image_mib), cache, int(bandwidth_mib_per_second), low_level, float(network_setup_seconds))
