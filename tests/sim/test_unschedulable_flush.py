"""kube-scheduler's flush of unschedulablePods after podMaxInUnschedulablePodsDuration (5 min), on the virtual clock."""

from __future__ import annotations

from kubenotes.apiserver.server import using_epoch
from kubenotes.sim import Cluster
from kubenotes.sim.scheduler import POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def test_flush_at_a_time_where_the_difference_rounds_below_the_limit():
    # 1310.1 - 1010.1 == 299.99999999999994: the flush must still happen at 1310.1, not wake there for ever
    c = Cluster.from_manifests(NODE, kubelet="stand-in", controllers=[])
    c.run(until=1010.1)
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
             "spec": {"nodeSelector": {"kubernetes.io/hostname": "elsewhere"},
                      "containers": [{"name": "c", "image": "nginx:1.27"}]}})
    end = 1010.1 + POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS + 1
    steps = 0
    with using_epoch(c.server.epoch):
        while c.env.peek() <= end and steps < 20000:
            c.env.step()
            steps += 1
    assert steps < 20000, f"the clock is stuck at {c.env.now}"
    attempts = [tr for tr in c.scheduler.traces if tr.node_name is None]
    assert len(attempts) >= 2  # the first attempt, and the one after the flush at 1310.1
