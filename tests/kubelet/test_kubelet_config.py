"""Tests for kubenotes.kubelet.config (pod sources and their merge).

Cases ported from kubernetes/kubernetes@v1.34.0:

* pkg/kubelet/config/file_test.go: TestReadPodsFromFileExistAlready /
  TestReadPodsFromFile (a manifest becomes ``test-<node>`` with the given uid
  as config.hash, the node name, the NoExecute toleration, decoding defaults
  and phase Pending; a manifest without a uid gets a generated one),
  TestExtractFromBadDataFile (a bad file is skipped), TestExtractFromEmptyDir,
  and the ``[^.]*`` glob of extractFromDir (dotfiles ignored).
* pkg/kubelet/config/common_test.go: TestDecodeSinglePod, TestDecodePodList
  (names ``<name>-<node>``, defaults applied), TestStaticPodNameGenerate
  (generatePodName lower-cases the node name); the generated uid (hash of
  the manifest, node and path) is checked for its properties, not its value.
* pkg/kubelet/config/http_test.go: TestExtractPodsFromHTTP (one pod, a
  PodList) and TestExtractInvalidPods (errors worded upstream's way,
  non-200 and empty bodies).
* pkg/kubelet/config/config_test.go: TestNewPodAdded,
  TestNewPodAddedUpdatedRemoved, TestNewPodAddedUpdatedSet,
  TestPodUpdateAnnotations, TestPodUpdateLabels, TestInvalidPodFiltered
  (duplicate names), plus graceful DELETE, the status-only RECONCILE and the
  empty ADD of a first SET that checkAndUpdatePod / merge produce.
* pkg/kubelet/pod/mirror_client_test.go and pkg/kubelet/types/pod_update_test.go:
  the mirror pod's annotation and owner, IsMirrorPodOf, IsStaticPod.
"""

from __future__ import annotations

import json

import pytest

from kubenotes.errors import ManifestError
from kubenotes.kubelet.config import (
    ADD,
    API_SERVER_SOURCE,
    DELETE,
    FILE_SOURCE,
    RECONCILE,
    REMOVE,
    SET,
    UPDATE,
    api_source_update,
    PodStorage,
    PodUpdate,
    decode_pod_list,
    decode_single_pod,
    extract_from_dir,
    extract_from_http,
    generate_pod_name,
    is_mirror_pod,
    is_mirror_pod_of,
    is_static_pod,
    mirror_pod,
    read_pods_from_dir,
)

NODE = "node-1"


def manifest(name="test", uid="12345", namespace="mynamespace", image="test/image", labels=None):
    meta = {"name": name, "namespace": namespace}
    if uid:
        meta["uid"] = uid
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "image", "image": image}]}}


def test_read_pods_from_file():
    u = extract_from_dir({"test_pod_manifest.yaml": json.dumps(manifest())}, NODE, "/tmp/manifests")
    assert (u.op, u.source) == (SET, FILE_SOURCE)
    (pod,) = u.pods
    assert pod["metadata"]["name"] == "test-node-1"
    assert pod["metadata"]["uid"] == "12345" and pod["metadata"]["namespace"] == "mynamespace"
    assert pod["metadata"]["annotations"] == {"kubernetes.io/config.hash": "12345"}
    spec = pod["spec"]
    assert spec["nodeName"] == NODE and spec["restartPolicy"] == "Always" and spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30 and spec["schedulerName"] == "default-scheduler"
    assert spec["tolerations"] == [{"operator": "Exists", "effect": "NoExecute"}]
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "Always" and c["terminationMessagePath"] == "/dev/termination-log"
    assert pod["status"] == {"phase": "Pending"}


def test_generated_uid_depends_on_content_node_and_path():
    m = json.dumps(manifest(uid=""))
    a = extract_from_dir({"a.yaml": m}, NODE, "/m").pods[0]["metadata"]
    assert len(a["uid"]) == 32 and a["annotations"]["kubernetes.io/config.hash"] == a["uid"]
    assert extract_from_dir({"a.yaml": m}, NODE, "/m").pods[0]["metadata"]["uid"] == a["uid"]
    assert extract_from_dir({"b.yaml": m}, NODE, "/m").pods[0]["metadata"]["uid"] != a["uid"]
    assert extract_from_dir({"a.yaml": m}, "node-2", "/m").pods[0]["metadata"]["uid"] != a["uid"]
    changed = json.dumps(manifest(uid="", image="test/image:v2"))
    assert extract_from_dir({"a.yaml": changed}, NODE, "/m").pods[0]["metadata"]["uid"] != a["uid"]


def test_static_pod_name_generate():
    assert generate_pod_name("kube-apiserver", "Master-1") == "kube-apiserver-master-1"
    assert generate_pod_name("etcd", "node.example.com") == "etcd-node.example.com"


def test_extract_from_bad_data_file_and_dotfiles():
    errors = []
    u = extract_from_dir({"bad.yaml": "{ bad", ".swap.yaml": json.dumps(manifest()), "svc.yaml":
                          "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"}, NODE, "/m", errors)
    assert u.pods == []
    assert len(errors) == 2
    assert errors[0].startswith("/m/bad.yaml: couldn't parse as pod(") and errors[0].endswith(
        "please check config file")
    assert extract_from_dir({}, NODE).pods == []


def test_every_non_dot_file_is_read_whatever_its_extension():
    u = extract_from_dir({"web.yaml.bak": json.dumps(manifest(name="web"))}, NODE)
    assert [p["metadata"]["name"] for p in u.pods] == ["web-node-1"]


def test_read_pods_from_real_dir(tmp_path):
    (tmp_path / "etcd.yaml").write_text(json.dumps(manifest(name="etcd", namespace="kube-system")))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.yaml").write_text(json.dumps(manifest(name="x")))
    u = read_pods_from_dir(str(tmp_path), NODE)
    assert [p["metadata"]["name"] for p in u.pods] == ["etcd-node-1"]
    assert read_pods_from_dir(str(tmp_path / "missing"), NODE).pods == []


def test_decode_single_pod_and_pod_list():
    pod = decode_single_pod(json.dumps(manifest()), "http://example.com", False, "host")
    assert pod["metadata"]["name"] == "test-host" and "tolerations" not in pod["spec"]  # only file pods
    lst = {"apiVersion": "v1", "kind": "PodList", "items": [manifest(), manifest(name="two", uid="2")]}
    pods = decode_pod_list(json.dumps(lst), "http://example.com", False, "host")
    assert [p["metadata"]["name"] for p in pods] == ["test-host", "two-host"]
    with pytest.raises(ManifestError):
        decode_single_pod(json.dumps(lst), "u", False, "host")
    with pytest.raises(ManifestError):
        decode_single_pod(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {}}), "u", False, "host")


def test_default_namespace():
    pod = decode_single_pod(json.dumps(manifest(namespace="")), "f", True, NODE)
    assert pod["metadata"]["namespace"] == "default"


def test_extract_pods_from_http():
    u = extract_from_http("http://cfg/pods", json.dumps(manifest()), NODE)
    assert (u.op, u.source, len(u.pods)) == (SET, "http", 1)
    lst = {"apiVersion": "v1", "kind": "PodList", "items": [manifest(), manifest(name="b", uid="b")]}
    assert len(extract_from_http("http://cfg/pods", json.dumps(lst), NODE).pods) == 2
    with pytest.raises(ManifestError, match="^http://cfg/pods: 404 Not Found$"):
        extract_from_http("http://cfg/pods", "", NODE, 404, "404 Not Found")
    with pytest.raises(ManifestError, match="^zero-length data received from http://cfg/pods$"):
        extract_from_http("http://cfg/pods", "", NODE)
    with pytest.raises(ManifestError, match=r"^http://cfg/pods: received '\{\}', but couldn't parse as single \("):
        extract_from_http("http://cfg/pods", "{}", NODE)


# --- mirror pods ---------------------------------------------------------------------------------------------
def test_mirror_pod_for_static_pod():
    static = decode_single_pod(json.dumps(manifest(uid="")), "/m/t.yaml", True, NODE)
    static["metadata"]["annotations"]["kubernetes.io/config.source"] = "file"
    assert is_static_pod(static) and not is_mirror_pod(static)
    mp = mirror_pod(static, NODE, "node-uid")
    assert is_mirror_pod(mp) and is_mirror_pod_of(mp, static)
    assert mp["metadata"]["annotations"]["kubernetes.io/config.mirror"] == static["metadata"]["uid"]
    assert mp["metadata"]["annotations"]["kubernetes.io/config.source"] == "file"
    assert mp["metadata"]["ownerReferences"][0]["kind"] == "Node" and mp["metadata"]["ownerReferences"][0][
        "controller"] is True
    assert "status" not in mp
    edited = decode_single_pod(json.dumps(manifest(uid="", image="test/image:v2")), "/m/t.yaml", True, NODE)
    assert not is_mirror_pod_of(mp, edited)
    assert not is_static_pod({"metadata": {"annotations": {"kubernetes.io/config.source": "api"}}})


# --- merge (config_test.go) ----------------------------------------------------------------------------------
def api_pod(name, uid, namespace="new", **extra):
    meta = {"name": name, "namespace": namespace, "uid": uid}
    meta.update(extra.pop("meta", {}))
    return {"metadata": meta, "spec": extra.pop("spec", {"containers": [{"name": "c", "image": "i"}]}), **extra}


def ops(updates):
    return [(u.op, [p["metadata"]["name"] for p in u.pods]) for u in updates]


def test_new_pod_added():
    store = PodStorage()
    out = store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "123")]), now=5)
    assert ops(out) == [(ADD, ["foo"])]
    ann = out[0].pods[0]["metadata"]["annotations"]
    assert ann["kubernetes.io/config.source"] == "api" and ann["kubernetes.io/config.seen"] == "2025-08-27T00:00:05Z"
    assert store.seen_all_sources([API_SERVER_SOURCE]) and not store.seen_all_sources([FILE_SOURCE])


def test_new_pod_added_updated_removed():
    store = PodStorage()
    store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "123")]), now=0)
    # the same pod again: nothing to do
    assert store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE, [api_pod("foo", "123")]), now=1) == []
    changed = api_pod("foo", "123", spec={"containers": [{"name": "c", "image": "i:v2"}]})
    out = store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE, [changed]), now=2)
    assert ops(out) == [(UPDATE, ["foo"])]
    assert out[0].pods[0]["metadata"]["annotations"]["kubernetes.io/config.seen"] == "2025-08-27T00:00:00Z"
    out = store.merge(PodUpdate(REMOVE, API_SERVER_SOURCE, [api_pod("foo", "123")]), now=3)
    assert ops(out) == [(REMOVE, ["foo"])]
    assert store.all_pods() == []


def test_graceful_delete():
    store = PodStorage()
    store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "123")]), now=0)
    deleting = api_pod("foo", "123", meta={"deletionTimestamp": "2025-08-27T00:01:00Z",
                                           "deletionGracePeriodSeconds": 30})
    assert ops(store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE, [deleting]), now=1)) == [(DELETE, ["foo"])]


def test_new_pod_added_updated_set():
    store = PodStorage()
    out = store.merge(PodUpdate(SET, FILE_SOURCE, [api_pod("foo", "1"), api_pod("foo2", "2"),
                                                   api_pod("foo3", "3")]), now=0)
    assert ops(out) == [(ADD, ["foo", "foo2", "foo3"])]
    changed = api_pod("foo2", "2", spec={"containers": [{"name": "c", "image": "new"}]})
    out = store.merge(PodUpdate(SET, FILE_SOURCE, [changed, api_pod("foo3", "3"), api_pod("foo4", "4")]), now=20)
    assert ops(out) == [(REMOVE, ["foo"]), (ADD, ["foo4"]), (UPDATE, ["foo2"])]


def test_first_empty_set_marks_source_seen():
    store = PodStorage()
    out = store.merge(PodUpdate(SET, FILE_SOURCE, []), now=0)
    assert ops(out) == [(ADD, [])]
    assert store.seen_all_sources([FILE_SOURCE])
    assert store.merge(PodUpdate(SET, FILE_SOURCE, []), now=20) == []


def test_status_only_change_reconciles():
    store = PodStorage()
    store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "1", status={"phase": "Pending"})]), now=0)
    out = store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE, [api_pod("foo", "1", status={"phase": "Running"})]),
                      now=1)
    assert ops(out) == [(RECONCILE, ["foo"])]
    assert out[0].pods[0]["status"] == {"phase": "Running"}


def test_pod_update_annotations_and_labels():
    store = PodStorage()
    store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "1", meta={"annotations": {"x": "1"}})]), now=0)
    out = store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE,
                                [api_pod("foo", "1", meta={"annotations": {"x": "2"}})]), now=1)
    assert ops(out) == [(UPDATE, ["foo"])]
    ann = out[0].pods[0]["metadata"]["annotations"]
    assert ann["x"] == "2" and ann["kubernetes.io/config.source"] == "api" and "kubernetes.io/config.seen" in ann
    out = store.merge(PodUpdate(UPDATE, API_SERVER_SOURCE, [api_pod("foo", "1", meta={
        "annotations": {"x": "2"}, "labels": {"app": "web"}})]), now=2)
    assert ops(out) == [(UPDATE, ["foo"])] and out[0].pods[0]["metadata"]["labels"] == {"app": "web"}


def test_invalid_pod_filtered():
    store = PodStorage()
    out = store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "1")]), now=0)
    assert ops(out) == [(ADD, ["foo"])]
    out = store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("foo", "1"), api_pod("foo", "2")]), now=1)
    assert out == []
    assert store.events == [("FailedValidation", "foo_new",
                             'Error validating pod foo_new(2) from api due to duplicate pod name "foo", ignoring')]


def test_sources_are_kept_apart():
    store = PodStorage()
    store.merge(PodUpdate(SET, FILE_SOURCE, [api_pod("etcd-n1", "f1")]), now=0)
    store.merge(PodUpdate(ADD, API_SERVER_SOURCE, [api_pod("web", "a1")]), now=0)
    # an empty file snapshot removes the static pod only
    assert ops(store.merge(PodUpdate(SET, FILE_SOURCE, []), now=20)) == [(REMOVE, ["etcd-n1"])]
    assert [p["metadata"]["name"] for p in store.all_pods()] == ["web"]


def test_api_snapshots_merge_into_add_delete_remove():
    store = PodStorage()
    bound = [api_pod("a", "1", spec={"nodeName": NODE}), api_pod("b", "2", spec={"nodeName": "other"})]
    assert ops(store.merge(api_source_update(bound, NODE), now=0)) == [(ADD, ["a"])]
    deleting = api_pod("a", "1", spec={"nodeName": NODE}, meta={"deletionTimestamp": "2025-08-27T00:00:30Z"})
    assert ops(store.merge(api_source_update([deleting], NODE), now=1)) == [(DELETE, ["a"])]
    assert ops(store.merge(api_source_update([], NODE), now=2)) == [(REMOVE, ["a"])]
