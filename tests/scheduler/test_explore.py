"""What-ifs of chapter 04.00's later sections (kubenotes.scheduler.explore), on the sample cluster."""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.data import sample
from kubenotes.scheduler.explore import extender_what_if, pod_affinity_variant, preemption_what_if
from kubenotes.scheduler.plugins import interpodaffinity as ipa
from kubenotes.scheduler.whatif import pod_variant, schedule_what_if

CONFIG = sample("scheduling", "scheduler-config.yaml")
EXT = sample("extenders", "scheduler-config.yaml")
HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
URL = "http://127.0.0.1:8888/scheduler"


@pytest.fixture(scope="module")
def fits():
    m = load_manifests(sample("cluster"), sample("scheduling", "fits.yaml"))
    return m, m.get("Pod", "web-7c9d8f6b5d-x8k2q", namespace="web")


@pytest.fixture(scope="module")
def preempt():
    m = load_manifests(sample("cluster"), sample("scheduling", "preemption.yaml"))
    return m, m.get("Pod", "ledger-migration", namespace="data")


def run(m, pod, **kw):
    return schedule_what_if(m, pod_affinity_variant(pod, **kw), config=CONFIG)


def test_required_affinity_by_hostname_vs_zone(fits):
    m, pod = fits
    host = run(m, pod, kind="podAffinity", mode="required", topology_key=HOST, match_labels={"app": "redis"})
    zone = run(m, pod, kind="podAffinity", mode="required", topology_key=ZONE, match_labels={"app": "redis"})
    passed = lambda r: {n for n, f in r["filter"].items() if f.get("InterPodAffinity") == "passed"}  # noqa: E731
    assert passed(host) == {"worker-b-2"} and passed(zone) == {"worker-b-1", "worker-b-2"}
    assert host["filter"]["worker-a-1"]["InterPodAffinity"] == ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH
    assert ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod affinity rules"


def test_required_anti_affinity_by_zone_rejects_the_zone(fits):
    m, pod = fits
    r = run(m, pod, kind="podAntiAffinity", mode="required", topology_key=ZONE, match_labels={"app": "redis"})
    rejected = {n for n, f in r["filter"].items() if f.get("InterPodAffinity") == ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH}
    assert rejected == {"worker-b-1", "worker-b-2"} and r["nodeName"] not in rejected


def test_preferred_terms_score_and_anti_affinity_scores_negative(fits):
    m, pod = fits
    aff = run(m, pod, kind="podAffinity", mode="preferred", topology_key=ZONE, match_labels={"app": "redis"}, weight=30)
    anti = run(m, pod, kind="podAntiAffinity", mode="preferred", topology_key=HOST, match_labels={"app": "redis"})
    assert {n for n, s in aff["score"].items() if s["InterPodAffinity"] == 30} == {"worker-b-1", "worker-b-2"}
    assert anti["score"]["worker-b-2"]["InterPodAffinity"] == -100 and anti["finalScore"]["worker-b-2"]["InterPodAffinity"] == 0
    assert not any(f.get("InterPodAffinity", "passed") != "passed" for f in aff["filter"].values())


def test_term_defaults_to_the_pods_own_namespace(fits):
    m, pod = fits  # postgres pods run in "data", the web pod is in "web"
    r = run(m, pod, kind="podAffinity", mode="required", topology_key=ZONE, match_labels={"app": "postgres"})
    assert r["nodeName"] is None and "6 node(s) didn't match pod affinity rules" in r["message"]


def test_no_term_removes_pod_affinity_and_image_changes_imagelocality(fits):
    m, pod = fits
    tolerant = pod_variant(pod, tolerate=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    plain = run(m, tolerant, match_labels=None)
    torch = run(m, tolerant, match_labels=None, image="nvcr.io/nvidia/pytorch:24.08-py3")
    assert all(s["ImageLocality"] == 0 for s in plain["score"].values())
    assert {n for n, s in torch["score"].items() if s["ImageLocality"] == 100} == {"gpu-a-1", "gpu-b-1"}
    assert plain["nodeName"] == "worker-b-2" and torch["nodeName"] == "gpu-a-1"
    assert pod_affinity_variant(pod, match_labels=None).spec.affinity is None


def test_bad_mode_is_one_clear_line(fits):
    with pytest.raises(ValueError, match="^mode must be one of"):
        pod_affinity_variant(fits[1], mode="sometimes")


def test_priority_must_be_strictly_higher_than_the_victims(preempt):
    m, pod = preempt
    at = preemption_what_if(m, pod, priority=-100, config=CONFIG)  # batch-low is -100
    above = preemption_what_if(m, pod, priority=-99, config=CONFIG)
    assert at["nominatedNodeName"] is None and not at["victims"]
    assert {c["status"] for c in at["candidates"]} == {"UnschedulableAndUnresolvable: No preemption victims found for incoming pod"}
    assert above["nominatedNodeName"] == "worker-c-2" and above["victims"] == ["batch/transcode-4-bjzgj"]


def test_fewest_pdb_violations_beats_lower_victim_priority(preempt):
    m, pod = preempt
    pdb = ("batch", {"job-name": "transcode"}, 0)
    no_pdb = preemption_what_if(m, pod, priority=1100, config=CONFIG)
    with_pdb = preemption_what_if(m, pod, priority=1100, pdb=pdb, config=CONFIG)
    assert no_pdb["victims"] == ["batch/transcode-4-bjzgj"]
    assert with_pdb["nominatedNodeName"] == "worker-b-1" and with_pdb["victims"] == ["data/postgres-1"]
    rows = {c["node"]: c for c in with_pdb["candidates"]}
    assert rows["worker-b-1"]["pdb_violations"] == 0 and rows["worker-c-2"]["pdb_violations"] == 1
    assert rows["worker-b-1"]["selected"] and not rows["worker-c-2"]["selected"]
    # a PDB that allows the disruptions counts no violation
    loose = preemption_what_if(m, pod, priority=1100, pdb=("batch", {"job-name": "transcode"}, 5), config=CONFIG)
    assert all(c["pdb_violations"] == 0 for c in loose["candidates"]) and loose["victims"] == no_pdb["victims"]


def test_extender_filters_scales_by_weight_times_ten_and_binds(fits):
    m, pod = fits
    w2 = extender_what_if(m, pod, config=EXT, avoid_zones=("us-central1-c",), prefer_zone="us-central1-a")
    w7 = extender_what_if(m, pod, config=EXT, avoid_zones=("us-central1-c",), prefer_zone="us-central1-a", weight=7)
    assert w2["filter"]["worker-c-1"][URL] == "zone us-central1-c is avoided by the extender"
    assert "worker-c-1" not in w2["totalScore"]
    assert w2["finalScore"]["worker-a-1"][URL] == 200 and w7["finalScore"]["worker-a-1"][URL] == 700
    assert w2["finalScore"]["worker-b-1"][URL] == 0
    assert [e[0] for e in w2["exchanges"]] == ["filter", "prioritize", "bind"]
    verb, request, code, response = w2["exchanges"][0]
    assert code == 200 and request["NodeNames"] and request["Nodes"] is None  # nodeCacheCapable: names only
    assert set(response) >= {"NodeNames", "FailedNodes", "FailedAndUnresolvableNodes"}


def test_extender_needs_a_configured_extender(fits):
    with pytest.raises(ValueError, match="no extenders"):
        extender_what_if(fits[0], fits[1], config=CONFIG)
