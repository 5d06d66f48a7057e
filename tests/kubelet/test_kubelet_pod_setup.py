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


def test_service_links_are_in_the_environment_of_containers_started_after_the_service():
    """``getServiceEnvVarMap`` (kubelet_pods.go): the API server's ``kubernetes`` Service and the pod's
    namespace's Services as ``*_SERVICE_HOST``/``*_PORT`` variables, taken when the container starts."""
    web = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"clusterIP": "10.96.0.50", "ports": [{"name": "http", "port": 80}]}}
    script = "echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; echo web=$WEB_SERVICE_HOST; echo db=$DB_SERVICE_HOST"
    pod = _pod("client", restartPolicy="Never",
               containers=[{"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", script]}])
    c = _cluster(web, pod)
    c.client.create("services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
                                 "spec": {"ports": [{"port": 5432}]}}, "default")
    c.run(until=10)
    k = c.kubelets["n1"]
    uid = c.client.get("pods", "client", "default")["metadata"]["uid"]
    (run,) = k.runs[uid]["app"]
    # db was created before the container started, so it is there too; one created now would not be
    assert [text for _, text in run.lines] == ["10.96.0.1:443", "web=10.96.0.50",
                                               f"db={c.client.get('services', 'db', 'default')['spec']['clusterIP']}"]
    create = next(t for t in k.runtime.trace if t["method"] == "CreateContainer")
    envs = {e["key"]: e["value"] for e in create["request"]["config"]["envs"]}
    assert envs["WEB_PORT_80_TCP"] == "tcp://10.96.0.50:80" and envs["WEB_SERVICE_PORT_HTTP"] == "80"
    # a Service created after a container started is not in its environment, but a later pod's has it
    c.client.create("services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "late"},
                                 "spec": {"ports": [{"port": 81}]}}, "default")
    c.client.create("pods", _pod("client-2"), "default")
    c.run(until=20)
    creates = [t["request"]["config"] for t in k.runtime.trace if t["method"] == "CreateContainer"]
    by_pod = {cfg["labels"]["io.kubernetes.pod.name"]: {e["key"] for e in cfg["envs"]} for cfg in creates}
    assert "LATE_SERVICE_HOST" not in by_pod["client"] and "LATE_SERVICE_HOST" in by_pod["client-2"]
