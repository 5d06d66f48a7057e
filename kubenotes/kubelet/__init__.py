"""The node agent: QoS policy, cgroup values, node-pressure eviction, probes, back-off and the PLEG.

Mirrors ``pkg/kubelet`` of kubernetes/kubernetes v1.34. The modules here are
pure functions over JSON-shaped objects (plain dicts with the API's camelCase
field names), so a kubelet model and the chapters can call them directly:

* :mod:`kubenotes.kubelet.qos`: ``oom_score_adj`` per container
  (``pkg/kubelet/qos/policy.go``) and the kernel OOM killer's order;
* :mod:`kubenotes.kubelet.cgroups`: the ``kubepods`` cgroup tree and the values
  the kubelet and the runtime write (``pkg/kubelet/cm``, ``pkg/kubelet/kuberuntime``);
* :mod:`kubenotes.kubelet.eviction`: eviction signals, thresholds, node
  conditions and the eviction ranking (``pkg/kubelet/eviction``);
* :mod:`kubenotes.kubelet.backoff`: CrashLoopBackOff and ImagePullBackOff
  (client-go ``flowcontrol/backoff.go``, ``kuberuntime_manager.go`` ``doBackOff``,
  ``images/image_manager.go``);
* :mod:`kubenotes.kubelet.prober`: liveness, readiness and startup probe workers
  and their manager (``pkg/kubelet/prober``);
* :mod:`kubenotes.kubelet.pleg`: the generic PLEG's relist, its events, ``Healthy``
  and the relist-cost curve (``pkg/kubelet/pleg/generic.go``);
* :mod:`kubenotes.kubelet.status`: the pod status the kubelet writes: phase,
  container statuses, conditions (``kubelet_pods.go``, ``status/generate.go``);
* :mod:`kubenotes.kubelet.node_status`: registration, node status, allocatable
  and the node Lease (``kubelet_node_status.go``, ``nodestatus/setters.go``,
  ``cm/node_container_manager_linux.go``, ``nodelease``);
* :mod:`kubenotes.kubelet.config`: pod sources (static manifest directory, HTTP
  URL, API), mirror pods and the source merge (``pkg/kubelet/config``).
* :mod:`kubenotes.kubelet.kuberuntime`: the CRI sandbox and container configs
  the kubelet sends (cgroup parent, resources, ``oom_score_adj``, DNS, mounts,
  environment) and a pod start through them (``pkg/kubelet/kuberuntime``);
  the runtimes in :mod:`kubenotes.cri` only read them;
* :mod:`kubenotes.kubelet.envvars`: the Service environment variables of a
  container (``pkg/kubelet/envvars``, ``getServiceEnvVarMap``);
* :mod:`kubenotes.kubelet.dns`: the pod's DNS servers, search path and options
  (``pkg/kubelet/network/dns``);
* :mod:`kubenotes.kubelet.server`: the kubelet's API on port 10250, how it
  authorizes a caller, and the hops of ``kubectl logs``/``exec``/``port-forward``/``top``
  (``pkg/kubelet/server``);
* :mod:`kubenotes.kubelet.csi`: the CSI volume plugin's ``WaitForAttach`` on the
  VolumeAttachment (``pkg/volume/csi/csi_attacher.go``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/
"""

__all__: list[str] = []
