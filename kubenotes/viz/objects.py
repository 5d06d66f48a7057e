"""Pictures for chapter 01: how a Pod's effective request is put together, and its QoS class.

Pure presentation over :mod:`kubenotes.api.resources` and :mod:`kubenotes.api.qos`.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from lightkube.resources.core_v1 import Pod

from kubenotes.api.qos import pod_qos_class
from kubenotes.api.resources import CPU, MEMORY, is_restartable_init_container, pod_requests, resource_list

__all__ = ["request_breakdown", "plot_request_breakdown", "pod_with_sidecar", "explain_pod"]


def pod_with_sidecar(
    app_cpu_milli: int,
    app_cpu_limit_milli: int,
    sidecar_cpu_milli: int,
    init_cpu_milli: int,
    overhead_cpu_milli: int,
    app_memory_mib: int = 256,
    app_memory_limit_mib: int = 256,
) -> Pod:
    """A pod with one app container, one sidecar, one init container and pod overhead (CPU in millicores).

    A value of 0 leaves that field out, as a manifest without it would.

    Returns
    -------
    lightkube.resources.core_v1.Pod
    """
    def res(req_cpu: int, lim_cpu: int = 0, req_mem: int = 0, lim_mem: int = 0) -> dict:
        r: dict[str, dict[str, str]] = {}
        if req_cpu:
            r.setdefault("requests", {})["cpu"] = f"{req_cpu}m"
        if req_mem:
            r.setdefault("requests", {})["memory"] = f"{req_mem}Mi"
        if lim_cpu:
            r.setdefault("limits", {})["cpu"] = f"{lim_cpu}m"
        if lim_mem:
            r.setdefault("limits", {})["memory"] = f"{lim_mem}Mi"
        return r

    spec: dict[str, Any] = {
        "initContainers": [
            {"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.23.2", "restartPolicy": "Always",
             "resources": res(sidecar_cpu_milli, sidecar_cpu_milli, 128, 128)},
            {"name": "migrate", "image": "docker.io/library/postgres:16.4", "resources": res(init_cpu_milli, init_cpu_milli, 64, 64)},
        ],
        "containers": [{"name": "app", "image": "docker.io/library/nginx:1.27.2",
                        "resources": res(app_cpu_milli, app_cpu_limit_milli, app_memory_mib, app_memory_limit_mib)}],
    }
    if overhead_cpu_milli:
        spec["overhead"] = {"cpu": f"{overhead_cpu_milli}m"}
    return Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"}, "spec": spec})


def request_breakdown(pod: Pod, resource: str = CPU) -> dict[str, int]:
    """The parts of ``PodRequests`` for one resource.

    Returns
    -------
    dict[str, int]
        ``containers`` (sum of app containers), ``sidecars`` (sum of restartable
        init containers), ``init peak`` (largest init container plus the sidecars
        started before it), ``overhead`` and ``effective`` (what the scheduler
        uses); CPU in millicores, memory in bytes.
    """
    spec = pod.spec
    def req(c: Any) -> int:
        r = c.resources.requests if c.resources is not None else None
        return resource_list(r).get(resource, 0)
    containers = sum(req(c) for c in spec.containers or ())
    sidecars = 0
    init_peak = 0
    for c in spec.initContainers or ():
        if is_restartable_init_container(c):
            sidecars += req(c)
            init_peak = max(init_peak, sidecars)
        else:
            init_peak = max(init_peak, req(c) + sidecars)
    overhead = resource_list(spec.overhead).get(resource, 0) if spec.overhead else 0
    return {"containers": containers, "sidecars": sidecars, "init peak": init_peak,
            "overhead": overhead, "effective": pod_requests(pod).get(resource, 0)}


def plot_request_breakdown(pod: Pod, resource: str = CPU, ax: plt.Axes | None = None) -> plt.Figure:
    """Bar chart: containers + sidecars vs. the init peak, plus overhead, and the effective request."""
    b = request_breakdown(pod, resource)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 2.8), layout="constrained")
    else:
        fig = ax.figure
    unit = "millicores" if resource == CPU else "bytes"
    steady = b["containers"] + b["sidecars"]
    ax.barh(["running phase", "init phase"], [b["containers"], b["init peak"]], color=["#4C72B0", "#DD8452"], label="containers / init peak")
    ax.barh(["running phase"], [b["sidecars"]], left=[b["containers"]], color="#55A868", label="sidecars")
    winner = max(steady, b["init peak"])
    ax.barh(["effective"], [winner], color="#8172B2", label="max of the two phases")
    ax.barh(["effective"], [b["overhead"]], left=[winner], color="#C44E52", label="pod overhead")
    ax.set_xlabel(f"{resource} request ({unit})")
    ax.set_title(f"PodRequests: effective {resource} = {b['effective']} ({pod_qos_class(pod)} QoS)")
    ax.legend(loc="lower right", fontsize=8)
    return fig


def explain_pod(pod: Pod) -> str:
    """One HTML line: effective CPU/memory request and QoS class."""
    r = pod_requests(pod)
    return (f"<b>effective request</b>: cpu {r.get(CPU, 0)}m, memory {r.get(MEMORY, 0) // 2**20}Mi; "
            f"<b>QoS class</b>: {pod_qos_class(pod)}")
