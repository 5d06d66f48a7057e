"""kubenotes: models of the Kubernetes control plane and node components, faithful to upstream, for learning in Jupyter.

The library mirrors upstream's component boundaries and names (Kubernetes
v1.34): each package models one upstream component, so its modules read beside
the upstream files of the same names. Paths are in kubernetes/kubernetes@v1.34.0
unless another repository is named; every module's docstring cites its files.

=========================  ==========================================  =======================================================
package                    upstream component                          upstream repository and path
=========================  ==========================================  =======================================================
``kubenotes.api``          API objects and the helpers over them       ``staging/src/k8s.io/api``; ``pkg/apis/core/v1``
                           (quantities, defaults, selectors,           (defaults); ``pkg/api/v1/resource``;
                           requests, QoS, taints, priority)            ``staging/src/k8s.io/component-helpers``;
                                                                       ``staging/src/k8s.io/apimachinery/pkg/api/resource``
                                                                       and ``pkg/labels``
``kubenotes.apiserver``    kube-apiserver: authn, RBAC, admission,     ``staging/src/k8s.io/apiserver``; ``pkg/registry``;
                           validation, storage, watch, HTTP            ``plugin/pkg/admission``; ``pkg/apis/core/validation``;
                                                                       ``plugin/pkg/auth/authorizer/rbac``
``kubenotes.client``       client-go: Reflector, DeltaFIFO,            ``staging/src/k8s.io/client-go``: ``tools/cache``,
                           informers, workqueue, events                ``util/workqueue``, ``tools/record``
``kubenotes.scheduler``    kube-scheduler: framework, plugins, queue   ``pkg/scheduler`` (``framework/``,
                                                                       ``framework/plugins/<plugin>``, ``backend/queue``)
``kubenotes.controllers``  kube-controller-manager's controllers       ``pkg/controller``; ``cmd/kube-controller-manager``
``kubenotes.kubelet``      the kubelet: pod sync, status, probes,      ``pkg/kubelet``
                           QoS and cgroups, eviction, PLEG
``kubenotes.cri``          the Container Runtime Interface and the     ``staging/src/k8s.io/cri-api/pkg/apis/runtime/v1``;
                           runtimes behind it                          containerd/containerd, cri-o/cri-o,
                                                                       opencontainers/runc
``kubenotes.cni``          the Container Network Interface, its        containernetworking/cni ``SPEC.md``;
                           reference plugins, Calico                   containernetworking/plugins; projectcalico/calico
``kubenotes.csi``          the Container Storage Interface: a          container-storage-interface/spec ``spec.md``;
                           hostpath driver, node registration          kubernetes-csi/csi-driver-host-path,
                                                                       node-driver-registrar
``kubenotes.proxy``        kube-proxy (iptables, nftables, IPVS)       ``pkg/proxy``
``kubenotes.dns``          cluster DNS: CoreDNS's ``kubernetes``        coredns/coredns ``plugin/kubernetes``;
                           plugin                                      kubernetes/dns ``docs/specification.md``
``kubenotes.etcd``         etcd: real members on loopback, Raft        etcd-io/etcd v3.4 (``etcdmain``, ``raft``)
``kubenotes.operators``    operators reconciling custom resources:     rook/rook v1.18 ``pkg/operator/ceph`` (``cluster/mon``,
                           Rook's CephCluster, mon quorum, failover    ``cluster/osd``), ``deploy/charts/rook-ceph``
``kubenotes.sim``          the components run together on one          ``cmd/`` (kube-apiserver, kube-controller-manager,
                           virtual clock; ``serve``                    kube-scheduler, kubelet); ``test/kubemark``
``kubenotes.replay``       trace replay under scheduling policies      hkust-adsl/kubernetes-scheduler-simulator
                           (Weng et al., ATC '23)                      ``pkg/simulator``
``kubenotes.datasets``     loaders for real cluster data               alibaba/clusterdata ``cluster-trace-gpu-v2023``
``kubenotes.viz``          the notebooks' drawings and widgets         none (kubenotes' own)
``kubenotes.errors``       the API's error reasons (NotFound,          ``staging/src/k8s.io/apimachinery/pkg/api/errors``
                           AlreadyExists, Conflict, Gone)
``kubenotes.cli``          the ``python -m kubenotes`` commands        ``staging/src/k8s.io/kubectl/pkg/cmd`` (its error
                                                                       and exit conventions)
``kubenotes.data``         where the sample manifests are (``data/``)  none (kubenotes' own)
``kubenotes.chapters``     the chapters' table and navigation          none (kubenotes' own)
``kubenotes.gcpolicy``     Python's garbage collector in long runs     none (kubenotes' own)
``kubenotes.features``     feature gates at v1.34's defaults and       ``pkg/features``; ``staging/src/k8s.io/component-base/``
                           ``--feature-gates``                         ``featuregate``
=========================  ==========================================  =======================================================

Examples
--------
>>> import kubenotes
>>> kubenotes.KUBERNETES_VERSION
'v1.34'
>>> from kubenotes.api.quantity import memory_bytes, milli_cpu
>>> milli_cpu("500m"), memory_bytes("1Gi")
(500, 1073741824)
"""

__version__ = "0.1.0"

#: The Kubernetes release whose source the models follow.
KUBERNETES_VERSION = "v1.34"

__all__ = ["__version__", "KUBERNETES_VERSION"]
