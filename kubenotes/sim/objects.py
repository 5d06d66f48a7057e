"""The objects chapter's example Pod: an app, a sidecar, an init container and pod overhead, as a created Pod has them.

Nothing here draws; :mod:`kubenotes.viz.objects` lays the Pod out and its
widget rebuilds it with :func:`pod_with_sidecar` on every slider move. The
numbers shown of it come from :mod:`kubenotes.api` (``PodRequests`` in
:func:`kubenotes.api.resources.request_breakdown`, the QoS class in
:mod:`kubenotes.api.qos`). The Pod is built as a manifest, then defaulted as
the API server does on create (:mod:`kubenotes.api.defaults`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (PrepareForCreate)
KEP-753 (sidecar containers), KEP-688 (pod overhead)
"""

from __future__ import annotations

from typing import Any

from lightkube.resources.core_v1 import Pod

from kubenotes.api.defaults import prepare_pod_for_create, set_defaults_pod, set_defaults_pod_spec

__all__ = ["SIDECAR_EXAMPLE", "pod_with_sidecar"]

#: The chapter's sidecar example, as :func:`pod_with_sidecar` keyword arguments
#: (CPU in millicores, memory in MiB): the widget's default state.
SIDECAR_EXAMPLE: dict[str, int] = {
    "app_cpu_milli": 500,
    "app_cpu_limit_milli": 1000,
    "sidecar_cpu_milli": 200,
    "init_cpu_milli": 1000,
    "overhead_cpu_milli": 250,
    "app_memory_mib": 256,
    "app_memory_limit_mib": 512,
}


def pod_with_sidecar(
    app_cpu_milli: int = 500,
    app_cpu_limit_milli: int = 1000,
    sidecar_cpu_milli: int = 200,
    init_cpu_milli: int = 1000,
    overhead_cpu_milli: int = 250,
    app_memory_mib: int = 256,
    app_memory_limit_mib: int = 512,
    *,
    sidecar_memory_mib: int = 128,
    init_memory_mib: int = 64,
    overhead_memory_mib: int = 120,
    defaults: bool = True,
) -> Pod:
    """The chapter's example Pod: an app container, a sidecar, an init container and pod overhead.

    ``default/shop`` runs ``app`` (nginx); before it, the init containers
    ``istio-proxy`` (a sidecar: ``restartPolicy: Always``, KEP-753) and
    ``migrate`` (a database migration that runs to completion while the
    sidecar already runs) start in that order. ``runtimeClassName: kata-fc``
    and ``spec.overhead`` are what the RuntimeClass admission plugin writes
    for a sandboxed runtime (KEP-688). The sidecar and init container request
    what they limit.

    Parameters
    ----------
    app_cpu_milli, app_cpu_limit_milli : int
        ``app``'s CPU request and limit, millicores.
    sidecar_cpu_milli, init_cpu_milli : int
        CPU request (= limit) of ``istio-proxy`` and of ``migrate``, millicores.
    overhead_cpu_milli : int
        ``spec.overhead.cpu``, millicores.
    app_memory_mib, app_memory_limit_mib : int
        ``app``'s memory request and limit, MiB.
    sidecar_memory_mib, init_memory_mib, overhead_memory_mib : int
        Memory of ``istio-proxy``, ``migrate`` and ``spec.overhead``, MiB.
    defaults : bool
        Apply the API server's defaults
        (:func:`kubenotes.api.defaults.apply_defaults` steps: requests from
        limits, ``status.qosClass``...), as a created Pod has them.

    Returns
    -------
    lightkube.resources.core_v1.Pod

    Raises
    ------
    InvalidQuantity
        With ``defaults=True``, when an amount does not make a valid quantity
        (``"x"`` becomes ``"xm"``): the QoS class of ``PrepareForCreate``
        parses every request and limit. With ``defaults=False`` nothing is
        parsed and the Pod is built as given.

    See Also
    --------
    kubenotes.api.resources.request_breakdown, kubenotes.viz.objects.explain_pod, kubenotes.viz.objects.request_panel

    Notes
    -----
    A value of 0 leaves that field out, as a manifest without it would (so
    a 0 limit means "no limit", not "limit 0"). Values are not validated:
    a request above its limit, which the API server rejects, is built as
    given (:func:`kubenotes.viz.objects.explain_pod` points it out). ``spec.overhead`` is written
    directly, as ``kubectl get pod -o yaml`` shows it after the RuntimeClass
    admission plugin (not modelled by kubenotes) copied it from the
    RuntimeClass's ``overhead.podFixed``.

    References
    ----------
    https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/
    https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/

    Examples
    --------
    >>> pod = pod_with_sidecar()
    >>> [c.name for c in pod.spec.initContainers], pod.spec.initContainers[0].restartPolicy
    (['istio-proxy', 'migrate'], 'Always')
    >>> pod.spec.containers[0].resources.requests, pod.status.qosClass
    ({'cpu': '500m', 'memory': '256Mi'}, 'Burstable')
    >>> pod_with_sidecar(app_cpu_milli=0, app_cpu_limit_milli=800).spec.containers[0].resources.requests["cpu"]
    '800m'
    """
    def res(cpu: int, cpu_limit: int, mem: int, mem_limit: int) -> dict[str, dict[str, str]]:
        r: dict[str, dict[str, str]] = {}
        for kind, name, amount, unit in (("requests", "cpu", cpu, "m"), ("requests", "memory", mem, "Mi"),
                                         ("limits", "cpu", cpu_limit, "m"), ("limits", "memory", mem_limit, "Mi")):
            if amount:
                r.setdefault(kind, {})[name] = f"{amount}{unit}"
        return r

    spec: dict[str, Any] = {
        "runtimeClassName": "kata-fc",
        "initContainers": [
            {"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.23.2", "restartPolicy": "Always",
             "resources": res(sidecar_cpu_milli, sidecar_cpu_milli, sidecar_memory_mib, sidecar_memory_mib)},
            {"name": "migrate", "image": "docker.io/flyway/flyway:10.17.3",
             "resources": res(init_cpu_milli, init_cpu_milli, init_memory_mib, init_memory_mib)},
        ],
        "containers": [{"name": "app", "image": "docker.io/library/nginx:1.27.3",
                        "resources": res(app_cpu_milli, app_cpu_limit_milli, app_memory_mib, app_memory_limit_mib)}],
    }
    overhead: dict[str, str] = {}
    if overhead_cpu_milli:
        overhead["cpu"] = f"{overhead_cpu_milli}m"
    if overhead_memory_mib:
        overhead["memory"] = f"{overhead_memory_mib}Mi"
    if overhead:
        spec["overhead"] = overhead
    pod = Pod.from_dict({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "shop", "namespace": "default", "labels": {"app": "shop"}}, "spec": spec})
    if defaults:
        set_defaults_pod(pod)
        set_defaults_pod_spec(pod.spec)
        prepare_pod_for_create(pod)
    return pod
