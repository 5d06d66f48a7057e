"""Tests for kubenotes.cri.images and the ImageService RPCs of kubenotes.cri.runtime.

Where the cases come from:

* distribution/reference normalize_test.go (TestParseNormalizedNamed /
  TestNormalizedName): short names go to docker.io/library, hosts are
  recognised by a dot, a port or ``localhost``, ``:latest`` is added;
* cri-tools pkg/validate/image.go (critest): "public image with tag should be
  pulled and removed", "image status of a missing image is nil (not an
  error)", "listImage should get exactly 3 images" style listing;
* containerd internal/cri/server/images/image_pull.go: the pull returns the
  image ID as ``image_ref``; the "not found" message;
* the layer cache arithmetic is the model's own (pull = resolve + missing
  bytes / bandwidth + per-layer overhead).
"""

from __future__ import annotations

import pytest
import simpy

from kubenotes.cri import CRIError, ContainerRuntime
from kubenotes.cri.images import (PAUSE_IMAGE, ImageCatalogue, ImageStore, Layer, default_catalogue, layer_cache_pulls,
                                  normalize_image_ref)

MIB = 1 << 20


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("busybox", "docker.io/library/busybox:latest"),
        ("busybox:1.36", "docker.io/library/busybox:1.36"),
        ("library/busybox", "docker.io/library/busybox:latest"),
        ("docker.io/busybox", "docker.io/library/busybox:latest"),
        ("bitnami/redis:7", "docker.io/bitnami/redis:7"),
        ("quay.io/prometheus/node-exporter", "quay.io/prometheus/node-exporter:latest"),
        ("localhost/app:v1", "localhost/app:v1"),
        ("myregistry:5000/team/app", "myregistry:5000/team/app:latest"),
        ("nginx@sha256:" + "a" * 64, "docker.io/library/nginx@sha256:" + "a" * 64),
        ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"),
    ],
)
def test_normalize_image_ref(ref, expected):
    assert normalize_image_ref(ref) == expected


def _catalogue():
    base = Layer("sha256:base", 30 * MIB, 75 * MIB, inodes=5000)
    cat = ImageCatalogue()
    cat.register("example.com/a:1", layers=[base, Layer("sha256:a1", 10 * MIB, 25 * MIB, 100)])
    cat.register("example.com/b:1", layers=[base, Layer("sha256:b1", 20 * MIB, 50 * MIB, 200),
                                            Layer("sha256:b2", 2 * MIB, 5 * MIB, 10)])
    return cat


def test_shared_layers_are_downloaded_once():
    store = ImageStore("n", _catalogue(), bandwidth_bytes_per_second=10 * MIB,
                       per_layer_overhead_seconds=0.5, resolve_seconds=0.25)
    assert store.missing_bytes("example.com/b:1") == 52 * MIB
    assert store.pull_seconds("example.com/b:1") == pytest.approx(0.25 + 5.2 + 1.5)
    assert store.record_download("example.com/a:1") == 40 * MIB
    # b now only misses its own two layers
    assert [l.digest for l in store.missing_layers("example.com/b:1")] == ["sha256:b1", "sha256:b2"]
    assert store.pull_seconds("example.com/b:1") == pytest.approx(0.25 + 2.2 + 1.0)
    assert store.record_download("example.com/b:1") == 22 * MIB
    assert store.bytes_downloaded == 62 * MIB
    # a present image costs only the resolve step
    assert store.pull_seconds("example.com/a:1") == pytest.approx(0.25)
    assert store.used_bytes() == (75 + 25 + 50 + 5) * MIB
    assert store.inodes_used() == 5000 + 100 + 200 + 10


def test_remove_keeps_layers_other_images_use():
    store = ImageStore("n", _catalogue())
    store.add("example.com/a:1")
    store.add("example.com/b:1")
    store.remove("example.com/b:1")
    assert set(store.layers) == {"sha256:base", "sha256:a1"}
    assert store.remove("example.com/b:1") is None  # idempotent
    store.remove("example.com/a:1")
    assert store.layers == {} and store.used_bytes() == 0


def test_default_catalogue_shares_the_debian_base():
    cat = default_catalogue()
    assert cat.get("nginx:1.27").layers[0] == cat.get("redis:7.4").layers[0] == cat.get("postgres:16").layers[0]
    assert cat.get("busybox:1.36").size_bytes < cat.get("nginx:1.27").size_bytes < cat.get("postgres:16").size_bytes
    assert cat.get(PAUSE_IMAGE).config["Entrypoint"] == ["/pause"]


def run(env, gen):
    proc = env.process(gen)
    env.run(until=proc)
    return proc.value


def test_pull_image_rpc_takes_pull_time_and_returns_image_id():
    env = simpy.Environment()
    rt = ContainerRuntime(env, "n")
    expected = rt.pull_seconds("nginx:1.27")
    resp = run(env, rt.PullImage({"image": {"image": "nginx:1.27"}}))
    image = rt.images.lookup("nginx:1.27")
    assert resp == {"image_ref": image.id} and image.id.startswith("sha256:")
    assert env.now == pytest.approx(expected)
    assert rt.trace[-1]["service"] == "ImageService" and rt.trace[-1]["duration_seconds"] == pytest.approx(expected)
    t = env.now
    run(env, rt.PullImage({"image": {"image": "redis:7.4"}}))
    redis = rt.images.catalogue.get("redis:7.4")
    shared = redis.layers[0].size_bytes
    assert env.now - t == pytest.approx(rt.images.resolve_seconds
                                        + (redis.size_bytes - shared) / rt.images.bandwidth_bytes_per_second
                                        + rt.images.per_layer_overhead_seconds * (len(redis.layers) - 1))


def test_concurrent_pulls_of_one_image_share_the_download():
    env = simpy.Environment()
    rt = ContainerRuntime(env, "n")
    seconds = rt.pull_seconds("postgres:16")
    results = []

    def puller():
        results.append((yield from rt.PullImage({"image": {"image": "postgres:16"}}))["image_ref"])
        results.append(env.now)
    env.process(puller())
    env.process(puller())
    env.run()
    assert results[0] == results[2] and results[1] == results[3] == pytest.approx(seconds)
    assert rt.images.bytes_downloaded == rt.images.catalogue.get("postgres:16").size_bytes


def test_pull_unknown_image_fails_with_containerd_message():
    env = simpy.Environment()
    rt = ContainerRuntime(env, "n")
    with pytest.raises(CRIError) as e:
        run(env, rt.PullImage({"image": {"image": "nginx:9.9"}}))
    assert e.value.code == "Unknown"
    assert e.value.message == ('failed to pull and unpack image "docker.io/library/nginx:9.9": failed to resolve '
                               'reference "docker.io/library/nginx:9.9": docker.io/library/nginx:9.9: not found')
    assert rt.trace[-1]["error"] == str(e.value)


def test_image_status_list_remove_and_fs_info():
    env = simpy.Environment()
    rt = ContainerRuntime(env, "n")
    assert run(env, rt.ImageStatus({"image": {"image": "busybox:1.36"}}))["image"] is None
    run(env, rt.PullImage({"image": {"image": "busybox:1.36"}}))
    run(env, rt.PullImage({"image": {"image": "nginx:1.27"}}))
    img = run(env, rt.ImageStatus({"image": {"image": "busybox:1.36"}}))["image"]
    assert img["repo_tags"] == ["docker.io/library/busybox:1.36"]
    assert img["size"] == rt.images.catalogue.get("busybox:1.36").size_bytes and img["pinned"] is False
    assert len(run(env, rt.ListImages({}))["images"]) == 2
    assert [i["id"] for i in run(env, rt.ListImages({"filter": {"image": {"image": "nginx:1.27"}}}))["images"]] == \
        [rt.images.lookup("nginx:1.27").id]
    fs = run(env, rt.ImageFsInfo({}))
    used = fs["image_filesystems"][0]["used_bytes"]["value"]
    assert used == rt.images.catalogue.get("busybox:1.36").unpacked_bytes + rt.images.catalogue.get("nginx:1.27").unpacked_bytes
    run(env, rt.RemoveImage({"image": {"image": img["id"]}}))
    assert run(env, rt.ImageStatus({"image": {"image": "busybox:1.36"}}))["image"] is None
    run(env, rt.RemoveImage({"image": {"image": "busybox:1.36"}}))  # idempotent
    assert rt.trace[-1]["error"] is None
    fs = run(env, rt.ImageFsInfo({}))
    assert fs["image_filesystems"][0]["used_bytes"]["value"] == rt.images.catalogue.get("nginx:1.27").unpacked_bytes
    assert fs["image_filesystems"][0]["fs_id"]["mountpoint"].endswith("io.containerd.snapshotter.v1.overlayfs")


def test_layer_cache_pulls_download_only_missing_layers():
    rows = layer_cache_pulls(["nginx:1.27", "redis:7.4", "httpd:2.4", "redis:7.4"])
    nginx, redis, httpd, again = rows
    assert nginx["download_bytes"] == nginx["size_bytes"] and nginx["missing_layers"] == 7
    assert redis["missing_layers"] == 3 and httpd["missing_layers"] == 1  # the shared Debian base is there
    assert redis["size_bytes"] - redis["download_bytes"] == httpd["size_bytes"] - httpd["download_bytes"] > 28 * 2**20
    assert again["download_bytes"] == 0 and again["missing_layers"] == 0 and again["pull_seconds"] == 0.3
    assert [r["node_layers"] for r in rows] == [7, 10, 11, 11]
