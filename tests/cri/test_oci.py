"""Tests for kubenotes.cri.oci (the OCI runtime-spec config.json), through the kubelet's CRI configs.

``oci_config``, ``sandbox_config_for_pod`` and ``container_config_for_pod`` are
the kubelet's (kubenotes.kubelet.kuberuntime); the spec is the runtime's.

Where the cases come from:

* containerd internal/cri/server/container_create_linux_test.go
  (TestGeneralContainerSpec, TestContainerSpecCommand: command/args vs the
  image's Entrypoint/Cmd, "no command specified"; TestContainerSpecWithExtraMounts;
  TestPodNamespaces / TestContainerSpecPidNamespace: pid CONTAINER vs POD,
  host namespaces omitted; TestPrivilegedBindMount / capabilities add/drop;
  TestContainerSpecReadonlyRootfs; TestGetCgroupsPath: systemd
  ``slice:cri-containerd:id`` vs cgroupfs ``parent/id``);
* containerd pkg/oci/spec.go: default capabilities and mounts;
* kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy_test.go and
  pkg/kubelet/cm/helpers_linux_test.go: the Guaranteed / Burstable /
  BestEffort oom_score_adj and cgroup values, which the spec must carry
  unchanged (checked against kubenotes.kubelet.qos and kubenotes.kubelet.cgroups).
"""

from __future__ import annotations

import pytest

from kubenotes.cri.oci import DEFAULT_UNIX_CAPS, cgroups_path, oci_config_from_cri
from kubenotes.kubelet.cgroups import container_cgroup_path, linux_container_resources, pod_cgroup_path
from kubenotes.kubelet.kuberuntime import container_config_for_pod, oci_config, sandbox_config_for_pod
from kubenotes.kubelet.qos import container_oom_score_adjust

MEM = 8 * 1024**3


def pod(resources=None, uid="0a1b-2c3d", **spec):
    c = {"name": "app", "image": "nginx:1.27"}
    if resources is not None:
        c["resources"] = resources
    body = {"containers": [c]}
    body.update(spec)
    return {"metadata": {"name": "web", "namespace": "shop", "uid": uid}, "spec": body}


GUARANTEED = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
BURSTABLE = {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"cpu": "500m", "memory": "1Gi"}}


@pytest.mark.parametrize(
    "resources, qos_dir, oom",
    [
        (GUARANTEED, "kubepods-pod0a1b_2c3d.slice", -997),
        (BURSTABLE, "kubepods-burstable-pod0a1b_2c3d.slice", 1000 - (1000 * 512 * 1024**2) // MEM),
        (None, "kubepods-besteffort-pod0a1b_2c3d.slice", 1000),
    ],
)
def test_qos_classes_cgroups_and_oom_score_adj(resources, qos_dir, oom):
    p = pod(resources)
    spec = oci_config(p, "app", container_id="cid", memory_capacity_bytes=MEM)
    assert spec["linux"]["cgroupsPath"] == f"{qos_dir}:cri-containerd:cid"
    assert spec["process"]["oomScoreAdj"] == oom == container_oom_score_adjust(p, "app", MEM)
    res = linux_container_resources(p, "app", MEM)
    cpu = spec["linux"]["resources"]["cpu"]
    assert cpu["shares"] == res["cpu_shares"]
    assert cpu.get("quota") == (res["cpu_quota"] or None)
    assert spec["linux"]["resources"]["memory"].get("limit") == res.get("memory_limit_in_bytes")
    # the systemd scope runc creates is exactly where kubelet/cgroups says the container lives
    parent, prefix, cid = spec["linux"]["cgroupsPath"].split(":")
    assert container_cgroup_path(p, cid).endswith(f"/{parent}/{prefix}-{cid}.scope")


def test_guaranteed_values():
    spec = oci_config(pod(GUARANTEED), "app", container_id="c")
    assert spec["linux"]["resources"]["cpu"] == {"shares": 1024, "quota": 100000, "period": 100000}
    assert spec["linux"]["resources"]["memory"] == {"limit": 1 << 30, "swap": 1 << 30}
    assert spec["linux"]["resources"]["unified"] == {"memory.oom.group": "1"}


def test_besteffort_values_and_cgroupfs_driver():
    p = pod(None)
    spec = oci_config(p, "app", container_id="c", cgroup_driver="cgroupfs")
    assert spec["linux"]["cgroupsPath"] == "/kubepods/besteffort/pod0a1b-2c3d/c"
    assert spec["linux"]["cgroupsPath"] == container_cgroup_path(p, "c", "cgroupfs")
    assert spec["linux"]["resources"]["cpu"] == {"shares": 2, "period": 100000}
    assert spec["linux"]["resources"]["memory"] == {}


def test_qos_class_override():
    spec = oci_config(pod(BURSTABLE), "app", container_id="c", qos_class="BestEffort")
    assert spec["process"]["oomScoreAdj"] == 1000
    assert spec["linux"]["cgroupsPath"].startswith("kubepods-besteffort-")


def test_cgroups_path():
    assert cgroups_path("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podx.slice", "i") == \
        "kubepods-burstable-podx.slice:cri-containerd:i"
    assert cgroups_path("/kubepods/podx", "i") == "/kubepods/podx/i"
    assert cgroups_path("/kubepods.slice/kubepods-podx.slice", "i", "cri-o") == "kubepods-podx.slice:crio:i"


def _cri_spec(command=(), args=(), image=None, **config):
    cfg = {"metadata": {"name": "c"}, "command": list(command), "args": list(args)}
    cfg.update(config)
    sb = {"metadata": {"name": "p", "namespace": "n", "uid": "u"}, "hostname": "p",
          "linux": {"cgroup_parent": "/kubepods/besteffort/podu"}}
    return oci_config_from_cri(cfg, sb, container_id="cid", sandbox_id="ab" * 32, sandbox_pid=4321,
                               image_config=image or {})


@pytest.mark.parametrize(
    "command, args, image, expected",
    [
        ((), (), {"Entrypoint": ["/ep"], "Cmd": ["c1"]}, ["/ep", "c1"]),
        (("/cmd",), (), {"Entrypoint": ["/ep"], "Cmd": ["c1"]}, ["/cmd"]),
        ((), ("a1",), {"Entrypoint": ["/ep"], "Cmd": ["c1"]}, ["/ep", "a1"]),
        (("/cmd",), ("a1",), {"Entrypoint": ["/ep"], "Cmd": ["c1"]}, ["/cmd", "a1"]),
        ((), (), {"Cmd": ["c1", "c2"]}, ["c1", "c2"]),
        ((), ("a1",), {"Entrypoint": [""], "Cmd": ["c1"]}, ["a1"]),
    ],
)
def test_process_args_from_command_args_and_image(command, args, image, expected):
    assert _cri_spec(command, args, image)["process"]["args"] == expected


def test_no_command_specified():
    with pytest.raises(ValueError, match="no command specified"):
        _cri_spec()


def test_env_image_then_config_with_override_and_service_env():
    p = pod(None)
    p["spec"]["containers"][0]["env"] = [{"name": "NGINX_VERSION", "value": "mine"}, {"name": "A", "value": "1"}]
    spec = oci_config(p, "app", service_env={"KUBERNETES_SERVICE_HOST": "10.96.0.1", "A": "service"})
    env = spec["process"]["env"]
    assert env[0] == "HOSTNAME=web"
    assert "NGINX_VERSION=mine" in env and "A=1" in env and "A=service" not in env
    assert "KUBERNETES_SERVICE_HOST=10.96.0.1" in env
    assert env.index("NGINX_VERSION=mine") == 2  # keeps the image's position, value replaced


def test_default_capabilities_and_add_drop():
    spec = _cri_spec(("x",))
    assert spec["process"]["capabilities"]["bounding"] == list(DEFAULT_UNIX_CAPS)
    assert "inheritable" not in spec["process"]["capabilities"]
    sc = {"capabilities": {"add_capabilities": ["NET_ADMIN"], "drop_capabilities": ["NET_RAW", "MKNOD"]}}
    caps = _cri_spec(("x",), linux={"security_context": sc})["process"]["capabilities"]["effective"]
    assert "CAP_NET_ADMIN" in caps and "CAP_NET_RAW" not in caps and "CAP_MKNOD" not in caps
    sc = {"capabilities": {"drop_capabilities": ["ALL"], "add_capabilities": ["NET_BIND_SERVICE"]}}
    assert _cri_spec(("x",), linux={"security_context": sc})["process"]["capabilities"]["permitted"] == \
        ["CAP_NET_BIND_SERVICE"]


def test_namespaces_join_the_sandbox():
    spec = _cri_spec(("x",))
    ns = {n["type"]: n.get("path") for n in spec["linux"]["namespaces"]}
    assert ns["pid"] is None and ns["mount"] is None and ns["cgroup"] is None
    assert ns["ipc"] == "/proc/4321/ns/ipc" and ns["uts"] == "/proc/4321/ns/uts"
    assert ns["network"].startswith("/var/run/netns/cni-")
    shared = _cri_spec(("x",), linux={"security_context": {"namespace_options": {"pid": "POD"}}})
    assert {n["type"]: n.get("path") for n in shared["linux"]["namespaces"]}["pid"] == "/proc/4321/ns/pid"


def test_host_network_and_pid_omit_namespaces():
    p = pod(None, hostNetwork=True, hostPID=True)
    types = [n["type"] for n in oci_config(p, "app")["linux"]["namespaces"]]
    assert "network" not in types and "uts" not in types and "pid" not in types
    assert "ipc" in types and "mount" in types


def test_security_context_user_readonly_rootfs_and_no_new_privs():
    p = pod(None, securityContext={"runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000,
                                   "supplementalGroups": [4000]})
    p["spec"]["containers"][0]["securityContext"] = {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False}
    spec = oci_config(p, "app")
    assert spec["process"]["user"] == {"uid": 1000, "gid": 3000, "additionalGids": [2000, 3000, 4000]}
    assert spec["root"] == {"path": "rootfs", "readonly": True}
    assert spec["process"]["noNewPrivileges"] is True
    assert oci_config(pod(None), "app")["process"]["noNewPrivileges"] is False


def test_mounts_defaults_cgroup_sandbox_files_and_kubelet_binds():
    p = pod(None, volumes=[{"name": "kube-api-access-x1y2z", "projected": {"sources": []}},
                           {"name": "cache", "emptyDir": {}}])
    p["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "kube-api-access-x1y2z", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
         "readOnly": True},
        {"name": "cache", "mountPath": "/cache"}]
    mounts = oci_config(p, "app")["mounts"]
    by_dest = {m["destination"]: m for m in mounts}
    for dest in ("/proc", "/dev", "/dev/pts", "/dev/mqueue", "/sys", "/run", "/sys/fs/cgroup",
                 "/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/dev/shm", "/dev/termination-log"):
        assert dest in by_dest, dest
    assert by_dest["/sys/fs/cgroup"]["options"][-1] == "ro"
    assert by_dest["/dev/shm"]["type"] == "bind"  # the sandbox's shm replaces the default tmpfs
    assert sum(m["destination"] == "/dev/shm" for m in mounts) == 1
    assert by_dest["/etc/hosts"]["source"] == "/var/lib/kubelet/pods/0a1b-2c3d/etc-hosts"
    sa = by_dest["/var/run/secrets/kubernetes.io/serviceaccount"]
    assert sa["source"] == "/var/lib/kubelet/pods/0a1b-2c3d/volumes/kubernetes.io~projected/kube-api-access-x1y2z"
    assert sa["options"] == ["rbind", "rprivate", "ro"]
    assert by_dest["/cache"]["source"].endswith("/volumes/kubernetes.io~empty-dir/cache")
    # CRI mounts come after the defaults, shallower paths first
    binds = [m["destination"] for m in mounts if m["type"] == "bind"]
    assert binds[-1] == "/var/run/secrets/kubernetes.io/serviceaccount"
    assert binds.index("/cache") < binds.index("/etc/hosts")  # 1 path part before 2


def test_kubelet_side_configs():
    p = pod(BURSTABLE)
    sb = sandbox_config_for_pod(p)
    assert sb["linux"]["cgroup_parent"] == pod_cgroup_path(p)
    assert sb["metadata"] == {"name": "web", "uid": "0a1b-2c3d", "namespace": "shop", "attempt": 0}
    assert sb["linux"]["security_context"]["namespace_options"] == {"network": "POD", "pid": "CONTAINER", "ipc": "POD"}
    cc = container_config_for_pod(p, "app", attempt=3, memory_capacity_bytes=MEM)
    assert cc["metadata"] == {"name": "app", "attempt": 3}
    assert cc["linux"]["resources"] == linux_container_resources(p, "app", MEM)
    assert cc["labels"]["io.kubernetes.container.name"] == "app"
    with pytest.raises(KeyError):
        container_config_for_pod(p, "missing")


def test_crio_annotations_and_pinned_namespaces():
    spec = oci_config(pod(None), "app", runtime="cri-o", container_id="c")
    assert spec["annotations"]["io.kubernetes.cri-o.ContainerType"] == "container"
    ns = {n["type"]: n.get("path") for n in spec["linux"]["namespaces"]}
    assert ns["ipc"].startswith("/var/run/ipcns/") and ns["network"].startswith("/var/run/netns/")
    assert not ns["network"].startswith("/var/run/netns/cni-")
    assert spec["linux"]["cgroupsPath"].endswith(":crio:c")
