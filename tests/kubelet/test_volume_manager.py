"""The kubelet's volume manager: SetUp per plugin, FailedMount back-off, WaitForAttachAndMount, unmount.

Cases ported from kubernetes/kubernetes@v1.34.0:

* pkg/volume/configmap/configmap_test.go ``TestMakePayload`` (every case: "no overrides", "no overrides
  binary data", "no overrides mixed data", "basic 1", "subdirs", "subdirs 3", "non existent key",
  "mapping with Mode", "mapping with defaultMode", "optional non existent key"); ``TestPlugin`` (the volume
  path ``pods/test_pod_uid/volumes/kubernetes.io~configmap/test_volume_name`` and the data in it);
  ``TestPluginOptional`` (optional and missing: mounted empty); ``TestPluginKeysOptional`` (optional
  with a missing item key: the other keys are there);
* pkg/volume/secret/secret_test.go ``TestMakePayload`` ("no overrides", "basic 1", "non existent key",
  "optional non existent key", "mapping with Mode");
* pkg/kubelet/volumemanager/volume_manager_test.go ``TestGetMountedVolumesForPodAndGetVolumesInUse``
  (mounted after WaitForAttachAndMount; a volume no container mounts is not mounted),
  ``TestWaitForAttachAndMountError`` (the error lists volumes sorted, Go ``%v`` style),
  ``TestWaitForAllPodsUnmount`` ("successful unmount", "multiple pods without volumes").

The rest (timings of the back-off and the 300 ms poll, upstream's event and error wording, the
projected ``kube-api-access`` volume) follows volume_manager.go, operation_generator.go,
exponential_backoff.go and projected.go.
"""

from __future__ import annotations

import base64

import pytest
import simpy

from kubenotes.apiserver.admission.serviceaccount import token_volume_source
from kubenotes.kubelet.volumes import (
    FAILED_MOUNT_VOLUME,
    FileProjection,
    VolumeManager,
    VolumeSetUpError,
    WaitForAttachAndMountError,
    make_config_map_payload,
    make_secret_payload,
)

UID = "test_pod_uid"


class Host:
    """An in-memory adapter: ConfigMaps and Secrets by (namespace, name), tokens numbered."""

    def __init__(self) -> None:
        self.config_maps: dict[tuple[str, str], dict] = {}
        self.secrets: dict[tuple[str, str], dict] = {}
        self.token_requests: list[tuple] = []
        self.events: list[tuple] = []

    def get_config_map(self, ns, name):
        return self.config_maps.get((ns, name))

    def get_secret(self, ns, name):
        return self.secrets.get((ns, name))

    def request_token(self, ns, sa, audiences, expiration_seconds, pod):
        self.token_requests.append((ns, sa, tuple(audiences), expiration_seconds, pod["metadata"]["name"]))
        return f"token-{len(self.token_requests)}"

    def record_event(self, pod, event_type, reason, message):
        self.events.append((pod["metadata"]["name"], event_type, reason, message))


def _pod(volumes: list[dict], mounts: list[str] | None = None, name: str = "web", uid: str = UID, **spec) -> dict:
    mounts = [v["name"] for v in volumes] if mounts is None else mounts
    return {"metadata": {"name": name, "namespace": "default", "uid": uid},
            "spec": {"volumes": volumes, "serviceAccountName": "default",
                     "containers": [{"name": "c", "volumeMounts": [{"name": m, "mountPath": f"/m/{m}"}
                                                                   for m in mounts]}], **spec}}


def _setup(start_at: float = 0.0):
    env = simpy.Environment()
    host = Host()
    vm = VolumeManager(env, "node-1", host)
    if start_at:
        env.run(until=start_at)
    return env, host, vm


def _wait(env, vm, pod):
    """Start WaitForAttachAndMount; returns a dict that gets 'done' (time) or 'error'."""
    out: dict = {}

    def proc():
        try:
            yield from vm.wait_for_attach_and_mount(pod)
            out["done"] = env.now
        except WaitForAttachAndMountError as e:
            out["error"], out["at"] = e, env.now

    env.process(proc())
    return out


def _files(vm, uid=UID, name=None):
    ms = vm.mounted(uid)
    m = next(m for m in ms if name is None or m["name"] == name)
    return {p: (f["content"], f["mode"]) for p, f in m["files"].items()}


# ------------------------------------------------------------ configmap.MakePayload (TestMakePayload)
CM = {"data": {"foo": "foo", "bar": "bar"}}
P644 = 0o644


@pytest.mark.parametrize("name,mappings,cm,optional,payload", [
    ("no overrides", None, CM, False, {"foo": FileProjection(b"foo", P644), "bar": FileProjection(b"bar", P644)}),
    ("no overrides binary data", None,
     {"binaryData": {"foo": base64.b64encode(b"foo").decode(), "bar": base64.b64encode(b"bar").decode()}}, False,
     {"foo": FileProjection(b"foo", P644), "bar": FileProjection(b"bar", P644)}),
    ("no overrides mixed data", None, {"binaryData": {"foo": base64.b64encode(b"foo").decode()},
                                       "data": {"bar": "bar"}}, False,
     {"foo": FileProjection(b"foo", P644), "bar": FileProjection(b"bar", P644)}),
    ("basic 1", [{"key": "foo", "path": "path/to/foo.txt"}], CM, False,
     {"path/to/foo.txt": FileProjection(b"foo", P644)}),
    ("subdirs", [{"key": "foo", "path": "path/to/1/2/3/foo.txt"}], CM, False,
     {"path/to/1/2/3/foo.txt": FileProjection(b"foo", P644)}),
    ("subdirs 3", [{"key": "foo", "path": "path/to/1/2/3/foo.txt"},
                   {"key": "bar", "path": "another/path/to/the/esteemed/bar.bin"}], CM, False,
     {"path/to/1/2/3/foo.txt": FileProjection(b"foo", P644),
      "another/path/to/the/esteemed/bar.bin": FileProjection(b"bar", P644)}),
    ("mapping with Mode", [{"key": "foo", "path": "foo.txt", "mode": 0o400},
                           {"key": "bar", "path": "bar.bin", "mode": 0o400}], CM, False,
     {"foo.txt": FileProjection(b"foo", 0o400), "bar.bin": FileProjection(b"bar", 0o400)}),
    ("mapping with defaultMode", [{"key": "foo", "path": "foo.txt"}, {"key": "bar", "path": "bar.bin"}], CM, False,
     {"foo.txt": FileProjection(b"foo", P644), "bar.bin": FileProjection(b"bar", P644)}),
    ("optional non existent key", [{"key": "zab", "path": "path/to/foo.txt"}], CM, True, {}),
])
def test_config_map_make_payload(name, mappings, cm, optional, payload):
    assert make_config_map_payload(mappings, cm, P644, optional) == payload, name


def test_config_map_make_payload_non_existent_key_and_no_default_mode():
    with pytest.raises(VolumeSetUpError, match="^configmap references non-existent config key: zab$"):
        make_config_map_payload([{"key": "zab", "path": "path/to/foo.txt"}], CM, P644, False)
    with pytest.raises(VolumeSetUpError, match="No defaultMode used"):
        make_config_map_payload(None, CM, None, False)


SECRET = {"data": {"foo": base64.b64encode(b"foo").decode(), "bar": base64.b64encode(b"bar").decode()}}


@pytest.mark.parametrize("name,mappings,optional,payload", [
    ("no overrides", None, False, {"foo": FileProjection(b"foo", P644), "bar": FileProjection(b"bar", P644)}),
    ("basic 1", [{"key": "foo", "path": "path/to/foo.txt"}], False, {"path/to/foo.txt": FileProjection(b"foo", P644)}),
    ("mapping with Mode", [{"key": "foo", "path": "foo.txt", "mode": 0o400}], False,
     {"foo.txt": FileProjection(b"foo", 0o400)}),
    ("optional non existent key", [{"key": "zab", "path": "path/to/foo.txt"}], True, {}),
])
def test_secret_make_payload(name, mappings, optional, payload):
    assert make_secret_payload(mappings, SECRET, P644, optional) == payload, name


def test_secret_make_payload_non_existent_key():
    with pytest.raises(VolumeSetUpError, match="^references non-existent secret key: zab$"):
        make_secret_payload([{"key": "zab", "path": "x"}], SECRET, P644, False)


# ------------------------------------------------------------ plugins through the manager
def test_config_map_volume_path_and_data():
    """configmap_test.go TestPlugin: the path and the data in the volume."""
    env, host, vm = _setup()
    host.config_maps[("default", "test_configmap_name")] = {"data": {"data-1": "value-1", "data-2": "value-2"}}
    pod = _pod([{"name": "test_volume_name", "configMap": {"name": "test_configmap_name", "defaultMode": 420}}])
    out = _wait(env, vm, pod)
    env.run(until=1)
    assert "done" in out
    (m,) = vm.mounted(UID)
    assert m["path"].endswith("pods/test_pod_uid/volumes/kubernetes.io~configmap/test_volume_name")
    assert m["plugin"] == "kubernetes.io/configmap"
    assert _files(vm) == {"data-1": ("value-1", "0644"), "data-2": ("value-2", "0644")}
    assert vm.volume_paths(UID) == {"test_volume_name": m["path"]}


def test_optional_config_map_missing_is_mounted_empty_and_missing_keys_skipped():
    """TestPluginOptional and TestPluginKeysOptional."""
    env, host, vm = _setup()
    host.config_maps[("default", "present")] = {"data": {"data-1": "1", "data-2": "2", "data-3": "3"}}
    pod = _pod([{"name": "absent", "configMap": {"name": "nope", "optional": True}},
                {"name": "keys", "configMap": {"name": "present", "optional": True,
                                               "items": [{"key": k, "path": k}
                                                         for k in ("data-1", "data-2", "data-3", "missing")]}}])
    out = _wait(env, vm, pod)
    env.run(until=1)
    assert out["done"] == pytest.approx(0.3)  # tick 0 already ran: mounted at 0.1, seen by the poll at 0.3
    assert _files(vm, name="absent") == {}
    assert sorted(_files(vm, name="keys")) == ["data-1", "data-2", "data-3"]
    assert not host.events


def test_unused_volume_is_not_mounted_and_a_pod_without_mounts_does_not_wait():
    """TestGetMountedVolumesForPodAndGetVolumesInUse: "The volume is not mounted nor mapped"."""
    env, host, vm = _setup()
    pod = _pod([{"name": "used", "emptyDir": {}}, {"name": "unused", "configMap": {"name": "nope"}}],
               mounts=["used"])
    out = _wait(env, vm, pod)
    env.run(until=1)
    assert "done" in out
    assert [m["name"] for m in vm.mounted(UID)] == ["used"]
    assert not host.events  # the missing ConfigMap of the unused volume is never fetched
    bare = _pod([{"name": "x", "emptyDir": {}}], mounts=[], name="bare", uid="u2")
    out2 = _wait(env, vm, bare)
    env.run(until=2)
    assert out2["done"] == 1 and vm.mounted("u2") == []


def test_missing_config_map_fails_with_upstream_words_and_backs_off_until_it_appears():
    env, host, vm = _setup(start_at=0.05)
    pod = _pod([{"name": "conf", "configMap": {"name": "app-config"}}])
    vm.add_pod(pod)
    out = _wait(env, vm, pod)
    env.run(until=20)
    msg = 'MountVolume.SetUp failed for volume "conf" : configmap "app-config" not found'
    assert host.events[0] == ("web", "Warning", FAILED_MOUNT_VOLUME, msg)
    times = [round(t, 3) for t, op, _, _, outcome in vm.trace if op == "MountVolume.SetUp"]
    # reconciler ticks every 100 ms; back-off 0.5 s doubling; a retry needs strictly more than the wait
    assert times == [0.1, 0.7, 1.8, 3.9, 8.0, 16.1]
    assert len(host.events) == 6  # one Warning per failed attempt
    assert vm.backoff(UID, "conf").duration_before_retry_seconds == 16.0
    assert "done" not in out and "error" not in out
    host.config_maps[("default", "app-config")] = {"data": {"k": "v"}}
    env.run(until=40)
    # the next retry (16.1 + 16 s, so 32.2) succeeds; the 300 ms poll from 0.05 sees it at 32.45
    assert [round(t, 3) for t, op, _, _, o in vm.trace if op == "MountVolume.SetUp" and o == "succeeded"] == [32.2]
    assert out["done"] == pytest.approx(32.45)
    assert len(host.events) == 6


def test_back_off_caps_at_two_minutes_two_seconds():
    env, host, vm = _setup()
    pod = _pod([{"name": "conf", "configMap": {"name": "never"}}])
    vm.add_pod(pod)
    env.run(until=1000)
    b = vm.backoff(UID, "conf")
    assert b.duration_before_retry_seconds == 122.0
    times = [t for t, op, *_ in vm.trace if op == "MountVolume.SetUp"]
    gaps = [round(b - a, 3) for a, b in zip(times, times[1:])]
    assert gaps[-1] == 122.1 and max(gaps) == 122.1


def test_wait_times_out_after_2m3s_with_upstream_message_and_no_extra_event():
    env, host, vm = _setup()
    pod = _pod([{"name": "vol2", "configMap": {"name": "a"}}, {"name": "vol02", "configMap": {"name": "b"}},
                {"name": "ok", "emptyDir": {}}])
    out = _wait(env, vm, pod)
    env.run(until=200)
    e = out["error"]
    assert out["at"] == pytest.approx(123.0)
    assert str(e) == ("unmounted volumes=[vol02 vol2], unattached volumes=[], failed to process volumes=[]: "
                      "timed out waiting for the condition")
    assert e.interrupted and e.unmounted_volumes == ["vol02", "vol2"]
    assert {r for _, _, r, _ in host.events} == {FAILED_MOUNT_VOLUME}  # v1.34 records no event for the timeout


def test_missing_item_key_fails_as_upstream_words_it():
    env, host, vm = _setup()
    host.config_maps[("default", "cfg")] = {"data": {"existing-key": "x"}}
    pod = _pod([{"name": "config-volume", "configMap": {"name": "cfg",
                                                        "items": [{"key": "missing-key", "path": "f"}]}}])
    vm.add_pod(pod)
    env.run(until=0.5)
    assert host.events[0][3] == ('MountVolume.SetUp failed for volume "config-volume" : '
                                 "configmap references non-existent config key: missing-key")


def test_secret_volume_items_modes_and_missing_secret():
    env, host, vm = _setup()
    host.secrets[("default", "db")] = {"data": {"password": base64.b64encode(b"hunter2").decode(),
                                                "user": base64.b64encode(b"admin").decode()}}
    pod = _pod([{"name": "creds", "secret": {"secretName": "db", "defaultMode": 0o400,
                                             "items": [{"key": "password", "path": "pw"}]}},
                {"name": "other", "secret": {"secretName": "gone"}}])
    vm.add_pod(pod)
    env.run(until=0.5)
    assert _files(vm, name="creds") == {"pw": ("hunter2", "0400")}
    assert vm.mounted(UID)[0]["path"].endswith("/volumes/kubernetes.io~secret/creds")
    assert host.events[0][3] == 'MountVolume.SetUp failed for volume "other" : secret "gone" not found'


def test_kube_api_access_projected_volume():
    env, host, vm = _setup()
    host.config_maps[("default", "kube-root-ca.crt")] = {"data": {"ca.crt": "PEM"}}
    pod = _pod([{"name": "kube-api-access-abcde", "projected": token_volume_source()}])
    out = _wait(env, vm, pod)
    env.run(until=1)
    assert "done" in out
    (m,) = vm.mounted(UID)
    assert m["path"].endswith("/volumes/kubernetes.io~projected/kube-api-access-abcde")
    assert _files(vm) == {"token": ("token-1", "0644"), "ca.crt": ("PEM", "0644"), "namespace": ("default", "0644")}
    assert host.token_requests == [("default", "default", (), 3607, "web")]


def test_kube_api_access_without_root_ca_config_map_fails_like_a_real_cluster():
    env, host, vm = _setup()
    pod = _pod([{"name": "kube-api-access-abcde", "projected": token_volume_source()}])
    vm.add_pod(pod)
    env.run(until=0.5)
    assert host.events[0][3] == ('MountVolume.SetUp failed for volume "kube-api-access-abcde" : '
                                 'configmap "kube-root-ca.crt" not found')


def test_projected_errors_are_aggregated_and_fs_group_makes_the_token_0640():
    env, host, vm = _setup()
    src = {"defaultMode": 420, "sources": [{"configMap": {"name": "a"}}, {"secret": {"name": "b"}},
                                           {"serviceAccountToken": {"path": "token", "audience": "vault",
                                                                    "expirationSeconds": 600}}]}
    pod = _pod([{"name": "p", "projected": src}], securityContext={"fsGroup": 2000})
    vm.add_pod(pod)
    env.run(until=0.5)
    assert host.events[0][3] == ('MountVolume.SetUp failed for volume "p" : '
                                 '[configmap "a" not found, secret "b" not found]')
    host.config_maps[("default", "a")] = {"data": {"x": "1"}}
    host.secrets[("default", "b")] = {"data": {"y": base64.b64encode(b"2").decode()}}
    env.run(until=2)
    # the token fetched during the failed attempt stays in the token manager's cache
    assert _files(vm) == {"x": ("1", "0644"), "y": ("2", "0644"), "token": ("token-1", "0640")}
    assert host.token_requests == [("default", "default", ("vault",), 600, "web")]


def test_token_is_cached_across_remounts_and_refreshed_after_80_percent_of_its_ttl():
    env, host, vm = _setup()
    host.config_maps[("default", "kube-root-ca.crt")] = {"data": {"ca.crt": "PEM"}}
    pod = _pod([{"name": "kube-api-access-abcde", "projected": token_volume_source()}])
    _wait(env, vm, pod)
    env.run(until=100)
    _wait(env, vm, pod)  # each sync remounts (ReprocessPod); the token manager's cache answers
    env.run(until=101)
    assert len(host.token_requests) == 1
    remounts = [o for _, op, _, v, o in vm.trace if op == "MountVolume.SetUp"]
    assert remounts == ["succeeded", "remounted"]
    env.run(until=2900)  # 80 % of 3607 s is 2885.6 s
    _wait(env, vm, pod)
    env.run(until=2901)
    assert len(host.token_requests) == 2
    assert _files(vm)["token"] == ("token-2", "0644")


def test_remount_picks_up_config_map_changes_and_keeps_old_files_when_it_is_deleted():
    env, host, vm = _setup()
    host.config_maps[("default", "cfg")] = {"data": {"level": "info"}}
    pod = _pod([{"name": "conf", "configMap": {"name": "cfg"}}])
    _wait(env, vm, pod)
    env.run(until=1)
    host.config_maps[("default", "cfg")] = {"data": {"level": "debug"}}
    _wait(env, vm, pod)
    env.run(until=2)
    assert _files(vm) == {"level": ("debug", "0644")}
    del host.config_maps[("default", "cfg")]
    out = _wait(env, vm, pod)
    env.run(until=3)
    assert "done" in out  # still mounted: a failed remount does not unmount
    assert _files(vm) == {"level": ("debug", "0644")}
    assert host.events[-1][3] == 'MountVolume.SetUp failed for volume "conf" : configmap "cfg" not found'


def test_empty_dir_on_disk_and_in_memory():
    env, host, vm = _setup()
    pod = _pod([{"name": "scratch", "emptyDir": {}},
                {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}])
    pod["spec"]["containers"][0]["resources"] = {"limits": {"memory": "256Mi"}}
    _wait(env, vm, pod)
    env.run(until=1)
    by = {m["name"]: m for m in vm.mounted(UID)}
    assert by["scratch"]["medium"] == "" and by["scratch"]["size_limit_bytes"] is None
    assert by["scratch"]["path"].endswith("/volumes/kubernetes.io~empty-dir/scratch")
    assert (by["cache"]["medium"], by["cache"]["size_limit_bytes"]) == ("Memory", 64 * 2**20)
    # the volume's sizeLimit counts only when below what the pod could use (its memory limit)
    assert by["shm"]["size_limit_bytes"] == 256 * 2**20


def test_host_path_type_checks():
    env, host, vm = _setup()
    pod = _pod([{"name": "logs", "hostPath": {"path": "/var/log", "type": "Directory"}},
                {"name": "sock", "hostPath": {"path": "/run/containerd/containerd.sock", "type": "Socket"}},
                {"name": "made", "hostPath": {"path": "/data/app", "type": "DirectoryOrCreate"}},
                {"name": "plain", "hostPath": {"path": "/anything"}},
                {"name": "bad", "hostPath": {"path": "/etc", "type": "File"}}])
    vm.add_pod(pod)
    env.run(until=0.5)
    by = {m["name"]: m for m in vm.mounted(UID)}
    assert sorted(by) == ["logs", "made", "plain", "sock"]
    assert by["logs"]["path"] == "/var/log" and by["logs"]["plugin"] == "kubernetes.io/host-path"
    assert vm.host_paths["/data/app"] == "Directory"
    assert host.events[0][3] == ('MountVolume.SetUp failed for volume "bad" : '
                                 'hostPath type check failed: /etc is not a file')


def test_downward_api_volume():
    env, host, vm = _setup()
    pod = _pod([{"name": "podinfo", "downwardAPI": {"items": [
        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
        {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}},
        {"path": "mem_limit", "resourceFieldRef": {"containerName": "c", "resource": "limits.memory",
                                                   "divisor": "1Mi"}}]}}])
    pod["metadata"]["labels"] = {"zone": "us-est-coast", "cluster": "test-cluster1"}
    pod["spec"]["containers"][0]["resources"] = {"limits": {"memory": "64Mi"}}
    _wait(env, vm, pod)
    env.run(until=1)
    assert _files(vm) == {"labels": ('cluster="test-cluster1"\nzone="us-est-coast"', "0644"),
                          "name": ("web", "0644"), "mem_limit": ("64", "0644")}
    assert vm.mounted(UID)[0]["path"].endswith("/volumes/kubernetes.io~downward-api/podinfo")


def test_unmount_after_pod_removal():
    """TestWaitForAllPodsUnmount "successful unmount" and "multiple pods without volumes"."""
    env, host, vm = _setup()
    host.config_maps[("default", "cfg")] = {"data": {"a": "1"}}
    pod = _pod([{"name": "conf", "configMap": {"name": "cfg"}}, {"name": "scratch", "emptyDir": {}}])
    _wait(env, vm, pod)
    env.run(until=1)
    assert len(vm.mounted(UID)) == 2
    vm.remove_pod(pod)
    done: dict = {}

    def unmount(p, key):
        yield from vm.wait_for_unmount(p)
        done[key] = env.now

    env.process(unmount(pod, "web"))
    env.process(unmount(_pod([], name="bare", uid="u2"), "bare"))
    env.run(until=3)
    assert vm.mounted(UID) == []
    assert done["bare"] == 1 and done["web"] == pytest.approx(1.3)
    assert [(op, v) for _, op, _, v, _ in vm.trace if op == "UnmountVolume.TearDown"] == [
        ("UnmountVolume.TearDown", "conf"), ("UnmountVolume.TearDown", "scratch")]


def test_removed_pod_stops_failing_mounts():
    env, host, vm = _setup()
    pod = _pod([{"name": "conf", "configMap": {"name": "never"}}])
    vm.add_pod(pod)
    env.run(until=2)
    n = len(host.events)
    vm.remove_pod(pod)
    env.run(until=60)
    assert n == 3 and len(host.events) == n and vm.backoff(UID, "conf") is None


def test_unmodelled_sources_are_mounted_as_is():
    env, host, vm = _setup()
    pod = _pod([{"name": "data", "persistentVolumeClaim": {"claimName": "pvc-1"}}])
    out = _wait(env, vm, pod)
    env.run(until=1)
    assert "done" in out
    assert vm.mounted(UID)[0]["plugin"] == "kubernetes.io/persistentvolumeclaim"
    assert vm.trace[0][4] == "mounted as is (not modelled)"
