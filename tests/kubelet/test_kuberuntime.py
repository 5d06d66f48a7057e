"""The kubelet's start of one pod on one node (:func:`kubenotes.kubelet.kuberuntime.start_latency`).

Moved from tests/viz/test_cri_viz.py with the function (issue #24): the start
order is ``SyncPod``'s (``pkg/kubelet/kuberuntime/kuberuntime_manager.go``),
the latencies the runtime model's defaults.
"""

from __future__ import annotations

import pytest

from kubenotes.cri.images import PAUSE_IMAGE, default_catalogue
from kubenotes.cri.runtime import CONTAINERD, CRI_O
from kubenotes.kubelet.kuberuntime import CACHE_STATES, start_latency


def test_start_latency_orders_the_cache_states():
    new, base, cached = (start_latency(cache=c) for c in CACHE_STATES)
    assert new["started_seconds"] > base["started_seconds"] > cached["started_seconds"]
    assert cached["downloaded_bytes"] == 0 and cached["phases"]["image pull"] == 0
    assert "PullImage" not in [e["method"] for e in cached["trace"]]
    assert base["downloaded_bytes"] == 200 * 2**20 - int(28.2 * 2**20)  # the app layer only
    pause = sum(l.size_bytes for l in default_catalogue().get(PAUSE_IMAGE).layers)
    assert new["downloaded_bytes"] == 200 * 2**20 + pause


def test_start_latency_grows_with_image_size_and_shrinks_with_bandwidth():
    sizes = [start_latency(image_mib=m)["started_seconds"] for m in (50, 100, 400)]
    assert sizes == sorted(sizes)
    assert sizes[2] - sizes[1] == pytest.approx(300 / 50, rel=1e-6)  # 300 MiB more at 50 MiB/s
    assert start_latency(bandwidth_mib_per_second=500)["started_seconds"] < sizes[1] + 5


def test_start_latency_runtime_differences_come_from_the_model():
    c, o = (start_latency(k, image_mib=100, cache="image cached") for k in (CONTAINERD, CRI_O))
    assert c["phases"]["sandbox"] == pytest.approx(0.25 + 0.05)  # RunPodSandbox + the CNI ADD
    assert o["phases"]["sandbox"] == pytest.approx(0.20 + 0.05)
    crun = start_latency(image_mib=100, cache="image cached", low_level="crun")
    assert crun["started_seconds"] < c["started_seconds"]
    new_c, new_o = (start_latency(k, cache="new node") for k in (CONTAINERD, CRI_O))
    assert new_c["phases"]["sandbox"] > new_o["phases"]["sandbox"] + 0.3  # containerd pulls pause, CRI-O does not


def test_start_latency_rejects_bad_parameters():
    with pytest.raises(ValueError, match="cache state"):
        start_latency(cache="warm")
    with pytest.raises(ValueError, match="at least 30"):
        start_latency(image_mib=10)
    with pytest.raises(ValueError, match="runtime kind"):
        start_latency(kind="docker")
