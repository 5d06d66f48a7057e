"""The kubelet model's pod set-up before any container: volumes (``WaitForAttachAndMount``) and the
sandbox's network through CNI, in a running Cluster (the kubelet model is its default kubelet).

* every pod mounts its ``kube-api-access-*`` projected volume (a TokenRequest, the ``kube-root-ca.crt``
  ConfigMap the root CA publisher writes, the namespace) before its sandbox is created (``SyncPod``'s order);
* a ConfigMap volume whose ConfigMap does not exist keeps the pod ``ContainerCreating`` with upstream's
  ``FailedMount`` events, retried with the operation executor's back-off; creating the ConfigMap starts the pod;
* deleting a pod stuck there does not wait for the 2m3s mount timeout (the sync's context is cancelled);
* RunPodSandbox runs CNI ADD (bridge + host-local over the Node's podCIDR; a hostPort becomes a portmap DNAT),
  StopPodSandbox CNI DEL, which returns the address to host-local.
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "spec": {"podCIDR": "10.244.1.0/24"},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}}


def _pod(name: str, **spec) -> dict:
    body = {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx:1.27"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def _cluster(*objects) -> Cluster:
    return Cluster([NODE, *objects], seed=0, controllers=[])


def test_the_service_account_volume_is_mounted_before_the_sandbox():
    c = _cluster(_pod("web"))
    c.run(until=10)
    k = c.kubelets["n1"]
    pod = c.client.get("pods", "web", "default")
    assert pod["status"]["phase"] == "Running"
    uid = pod["metadata"]["uid"]
    (vol,) = k.volume_manager.mounted(uid)
    assert vol["name"].startswith("kube-api-access-") and vol["plugin"] == "kubernetes.io/projected"
    assert vol["path"] == f"/var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~projected/{vol['name']}"
    assert sorted(vol["files"]) == ["ca.crt", "namespace", "token"]
    assert vol["files"]["namespace"]["content"] == "default"
    assert vol["files"]["ca.crt"]["content"] == c.client.get("configmaps", "kube-root-ca.crt", "default")["data"]["ca.crt"]
    mounted_at = next(t for t, op, *_ , outcome in k.volume_manager.trace
                      if op == "WaitForAttachAndMount" and outcome == "succeeded")
    sandbox_at = next(t["time"] for t in k.runtime.trace if t["method"] == "RunPodSandbox")
    assert 0 < mounted_at <= sandbox_at
    assert k.pod_dirs[uid] == [f"/var/lib/kubelet/pods/{uid}", f"/var/lib/kubelet/pods/{uid}/volumes",
                               f"/var/lib/kubelet/pods/{uid}/plugins"]


def test_a_missing_config_map_holds_the_pod_until_it_exists():
    spec = {"volumes": [{"name": "conf", "configMap": {"name": "app-config"}}],
            "containers": [{"name": "app", "image": "nginx:1.27",
                            "volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}]}
    c = _cluster(_pod("web", **spec))
    c.run(until=60)
    pod = c.client.get("pods", "web", "default")
    assert pod["status"]["phase"] == "Pending"
    assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ContainerCreating"
    k = c.kubelets["n1"]
    failed = [e for e in k.events if e["reason"] == "FailedMount"]
    assert failed[0]["type"] == "Warning"
    assert failed[0]["message"] == 'MountVolume.SetUp failed for volume "conf" : configmap "app-config" not found'
    # the operation executor's back-off: 0.5 s doubling (attempts at 0.1, 0.7, 1.8, 3.9, 8.0, 16.1, 32.2 s)
    assert [round(e["time"], 1) for e in failed][:7] == [0.1, 0.7, 1.8, 3.9, 8.0, 16.1, 32.2]
    assert not [t for t in k.runtime.trace if t["method"] == "RunPodSandbox"]
    c.client.create("configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-config"},
                                   "data": {"app.conf": "port=8080"}}, "default")
    c.run(until=200)
    pod = c.client.get("pods", "web", "default")
    assert pod["status"]["phase"] == "Running"
    conf = next(v for v in k.volume_manager.mounted(pod["metadata"]["uid"]) if v["name"] == "conf")
    assert conf["files"] == {"app.conf": {"content": "port=8080", "mode": "0644"}}


def test_deleting_a_pod_stuck_on_its_volumes_does_not_wait_for_the_mount_timeout():
    spec = {"volumes": [{"name": "creds", "secret": {"secretName": "missing"}}],
            "containers": [{"name": "app", "image": "nginx:1.27",
                            "volumeMounts": [{"name": "creds", "mountPath": "/creds"}]}]}
    c = _cluster(_pod("web", **spec))
    c.run(until=20)
    assert [e["message"] for e in c.kubelets["n1"].events if e["reason"] == "FailedMount"][0] == (
        'MountVolume.SetUp failed for volume "creds" : secret "missing" not found')
    c.client.delete("pods", "web", "default")
    c.run(until=25)
    assert c.server.get("pods", "default", "web") is None


def test_the_sandbox_gets_its_address_from_cni_and_gives_it_back():
    ports = {"containers": [{"name": "app", "image": "nginx:1.27",
                             "ports": [{"containerPort": 80, "hostPort": 8080}]}]}
    c = _cluster(_pod("a", **ports), _pod("b"))
    c.run(until=10)
    ips = {n: c.client.get("pods", n, "default")["status"]["podIP"] for n in ("a", "b")}
    assert sorted(ips.values()) == ["10.244.1.2", "10.244.1.3"]   # host-local: .1 is the bridge's gateway
    k = c.kubelets["n1"]
    adds = [t for t in k.cni.trace if t["command"] == "ADD"]
    # containerd's loopback network first, then the conflist's chain in order
    assert [(t["network"], t["type"]) for t in adds][:4] == [
        ("cni-loopback", "loopback"), ("cbr0", "bridge"), ("cbr0", "portmap"), ("cbr0", "bandwidth")]
    nat = k.cni.host.iptables_save_nat()
    assert "CNI-HOSTPORT-DNAT" in nat and f"--to-destination {ips['a']}:80" in nat and "--dport 8080" in nat
    c.client.delete("pods", "a", "default")
    c.run(until=60)
    assert any(t["command"] == "DEL" for t in k.cni.trace)
    assert f"--to-destination {ips['a']}:80" not in k.cni.host.iptables_save_nat()
    c.client.create("pods", _pod("c"), "default")
    c.run(until=70)
    # round robin: host-local hands out the next address after the last one it reserved, not the freed one
    assert c.client.get("pods", "c", "default")["status"]["podIP"] == "10.244.1.4"
