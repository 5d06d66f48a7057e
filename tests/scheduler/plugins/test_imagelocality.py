"""ImageLocality against upstream's image_locality_test.go (TestImageLocalityPriority, TestNormalizedImageName).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import pytest

from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import imagelocality
from kubenotes.scheduler.plugins.imagelocality import MB, normalized_image_name
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod


def spec(*images, init=()):
    return {"containers": [{"name": f"c{i}", "image": im} for i, im in enumerate(images)],
            "initContainers": [{"name": f"i{i}", "image": im} for i, im in enumerate(init)]}


def image(names, size_mb):
    return {"names": names, "sizeBytes": size_mb * MB}


TEST_40_250 = spec("gcr.io/40", "gcr.io/250")
TEST_40_300 = spec("gcr.io/40", "gcr.io/300")
TEST_MIN_MAX = spec("gcr.io/10", "gcr.io/4000")
TEST_300_600_900 = spec("gcr.io/300", "gcr.io/600", "gcr.io/900")
TEST_30_40 = spec("gcr.io/30", "gcr.io/40")
TEST_30_INIT_300 = spec("gcr.io/30", init=["gcr.io/300"])

NODE_40_300_2000 = [image(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
                    image(["gcr.io/300:latest", "gcr.io/300:v1"], 300), image(["gcr.io/2000:latest"], 2000)]
NODE_250_10 = [image(["gcr.io/250:latest"], 250), image(["gcr.io/10:latest", "gcr.io/10:v1"], 10)]
NODE_600_40_900 = [image(["gcr.io/600:latest"], 600), image(["gcr.io/40:latest"], 40), image(["gcr.io/900:latest"], 900)]
NODE_300_600_900 = [image(["gcr.io/300:latest"], 300), image(["gcr.io/600:latest"], 600),
                    image(["gcr.io/900:latest"], 900)]
NODE_4000_30 = [image(["gcr.io/4000:latest"], 4000), image(["gcr.io/30:latest"], 30)]
NODE_20_30_40 = [image(["gcr.io/20:latest"], 20), image(["gcr.io/30:latest"], 30), image(["gcr.io/40:latest"], 40)]
NO_IMAGES = None

CASES = [
    ("two images spread on two nodes, prefer the larger image one", TEST_40_250,
     [NODE_40_300_2000, NODE_250_10], [0, 5]),
    ("two images on one node, prefer this node", TEST_40_300, [NODE_40_300_2000, NODE_250_10], [7, 0]),
    ("if exceed limit, use limit", TEST_MIN_MAX, [NODE_4000_30, NODE_250_10], [100, 0]),
    ("if exceed limit, use limit (with node which has no images present)", TEST_MIN_MAX,
     [NODE_4000_30, NODE_250_10, NO_IMAGES], [66, 0, 0]),
    ("pod with multiple large images, node2 is preferred", TEST_300_600_900,
     [NODE_600_40_900, NODE_300_600_900, NO_IMAGES], [32, 36, 0]),
    ("pod with multiple small images", TEST_30_40, [NODE_20_30_40, NODE_4000_30], [1, 0]),
    ("include InitContainers: two images spread on two nodes, prefer the larger image one", TEST_30_INIT_300,
     [NODE_40_300_2000, NODE_20_30_40], [6, 0]),
]


@pytest.mark.parametrize("name,pod_spec,node_images,expected", CASES, ids=[c[0] for c in CASES])
def test_image_locality_priority(name, pod_spec, node_images, expected):
    nodes = [make_node(f"node{i + 1}", images=imgs) for i, imgs in enumerate(node_images)]
    snap = new_snapshot(nodes, [])
    pl = imagelocality.new(None, SimpleNamespace(snapshot=snap))
    pod = PodInfo(make_pod("p", containers=pod_spec["containers"],
                           **({"initContainers": pod_spec["initContainers"]} if pod_spec["initContainers"] else {})))
    got = []
    for ni in snap.list():
        s, st = pl.score(CycleState(), pod, ni)
        assert st.is_success()
        got.append(s)
    assert got == expected


def _digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize("name,inp,out", [
    ("add :latest postfix 1", "root", "root:latest"),
    ("add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"),
    ("keep it as is 1", "root:tag", "root:tag"),
    ("keep it as is 2", "root@" + _digest("root"), "root@" + _digest("root")),
])
def test_normalized_image_name(name, inp, out):
    assert normalized_image_name(inp) == out
