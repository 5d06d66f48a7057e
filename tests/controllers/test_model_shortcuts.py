"""The shortcuts that make controller runs cheaper give the answers of the plain code (issue #26)."""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict

from kubenotes.apiserver.server import parse_timestamp, using_epoch
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.deployment_util import equal_ignore_hash, find_new_replica_set
from kubenotes.controllers.podutil import get_zone_key, timestamp_seconds


def test_timestamp_seconds_follows_the_epoch_in_effect():
    text = "2030-01-01T00:01:00Z"
    before = timestamp_seconds(text)
    with using_epoch(dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)):
        assert timestamp_seconds(text) == 60.0  # not the value memoised under the default epoch
    assert timestamp_seconds(text) == before == parse_timestamp(text)
    assert timestamp_seconds("") is None and timestamp_seconds(None) is None


def test_deep_copy_copies_containers_and_shares_the_rest():
    inner = OrderedDict(a=[1, {"b": None}])
    marker = object()
    src = {"x": inner, "t": (1, 2), "o": marker, "f": 1.5, "s": "v", "n": None, "ok": True}
    got = deep_copy(src)
    assert got == src and type(got["x"]) is dict and type(got["x"]["a"]) is list
    assert got["t"] is src["t"] and got["o"] is marker
    got["x"]["a"][1]["b"] = 3
    assert inner["a"][1]["b"] is None


def _template(labels: dict | None) -> dict:
    md = {"labels": labels} if labels is not None else {}
    return {"metadata": md, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}


def test_equal_ignore_hash_drops_a_label_map_left_empty():
    hashed = _template({"pod-template-hash": "abc"})
    assert equal_ignore_hash(hashed, _template(None))
    assert equal_ignore_hash(hashed, _template({}))
    assert not equal_ignore_hash(hashed, _template({"app": "web"}))
    assert hashed["metadata"]["labels"] == {"pod-template-hash": "abc"}  # the input is not changed


def test_find_new_replica_set_is_the_oldest_equal_template():
    dep = {"spec": {"template": _template({"app": "web"})}}

    def rs(name: str, created: str, labels: dict) -> dict:
        return {"metadata": {"name": name, "uid": name, "creationTimestamp": created},
                "spec": {"template": _template(labels)}}

    old = rs("old", "2025-08-27T00:00:01Z", {"app": "other", "pod-template-hash": "1"})
    new1 = rs("new1", "2025-08-27T00:00:03Z", {"app": "web", "pod-template-hash": "2"})
    new2 = rs("new2", "2025-08-27T00:00:02Z", {"app": "web", "pod-template-hash": "3"})
    assert find_new_replica_set(dep, [old, new1, new2])["metadata"]["name"] == "new2"
    assert find_new_replica_set(dep, [old]) is None
    assert find_new_replica_set(dep, []) is None


def test_get_zone_key_prefers_the_ga_labels_and_falls_back_to_beta():
    node = {"metadata": {"labels": {"failure-domain.beta.kubernetes.io/zone": "b",
                                    "topology.kubernetes.io/region": "r"}}}
    assert get_zone_key(node) == "r:\x00:b"
    node["metadata"]["labels"]["topology.kubernetes.io/zone"] = "a"
    assert get_zone_key(node) == "r:\x00:a"
    assert get_zone_key({"metadata": {"labels": {"topology.kubernetes.io/zone": ""}}}) == ""
    assert get_zone_key({}) == ""
