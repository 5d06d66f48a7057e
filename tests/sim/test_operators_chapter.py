"""kubenotes.sim.operators: discovery rows before and after a CRD, the Website file, the CEL policy, Rook's mon runs."""

from __future__ import annotations

import pytest

from kubenotes.apiserver.status import ApiError
from kubenotes.controllers.reconciler import Controller, split_key
from kubenotes.sim.operators import (MonFailoverRun, MonSample, api_resources, replicas_policy, simulate_mon_failover,
                                     website_cluster, website_deployment, website_objects)

WEBSITE = {"apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "big", "namespace": "shop"},
           "spec": {"replicas": 10, "image": "nginx:1.27"}}


def test_discovery_lists_the_crd_only_once_it_is_applied():
    c = website_cluster(crd=False, start=False)
    assert api_resources(c, "example.com") == []
    assert "websites" not in {r["name"] for r in api_resources(c)}
    crd = next(o for o in website_objects()[0] if o["kind"] == "CustomResourceDefinition")
    c.apply(crd)
    assert api_resources(c, "example.com") == [{"name": "websites", "shortNames": "ws", "apiVersion": "example.com/v1",
                                                "namespaced": True, "kind": "Website"}]
    core = {r["name"]: r for r in api_resources(c, "")}
    assert core["pods"]["apiVersion"] == "v1" and core["pods"]["shortNames"] == "po"
    assert not any("/" in r["name"] for r in api_resources(c))  # subresources left out, as kubectl does


def test_scenario_creates_the_website_with_schema_defaults_and_nothing_reconciles_it():
    c = website_cluster()
    c.run(until=10)
    site = c.get("websites.example.com", "web", "shop")
    assert site["spec"] == {"replicas": 2, "image": "nginx:1.27", "port": 80}
    assert c.list("deployments", "shop") == []


def test_policy_refuses_above_the_limit_with_the_api_servers_message():
    c = website_cluster(start=False)
    for obj in replicas_policy(5):
        c.apply(obj)
    with pytest.raises(ApiError) as e:
        c.apply(WEBSITE)
    assert e.value.code == 422
    assert str(e.value) == ('websites.example.com "big" is forbidden: ValidatingAdmissionPolicy '
                            "'website-replicas-limit' with binding 'website-replicas-limit-binding' denied request: "
                            "a Website may run at most 5 replicas")
    assert c.get("websites.example.com", "big", "shop") is None
    c.apply({**WEBSITE, "spec": {"replicas": 5, "image": "nginx:1.27"}})  # at the limit: allowed
    assert c.get("websites.example.com", "big", "shop")["spec"]["replicas"] == 5


class _Minimal(Controller):
    """The chapter's controller, reduced: create the Deployment a Website asks for."""

    name, service_account = "website-controller", "website-controller"

    def setup(self):
        self.websites = self.informers.informer_for("websites.example.com")
        self.websites.add_event_handler(on_add=self.enqueue, on_update=lambda old, new: self.enqueue(new))
        self.deployments = self.informers.informer_for("deployments")

    def reconcile(self, key):
        ns, name = split_key(key)
        site = self.websites.lister.get(ns, name)
        if site is not None and self.deployments.lister.get(ns, name) is None:
            self.client.create("deployments", website_deployment(site), ns)


def test_a_controller_with_the_files_rbac_reconciles_and_the_gc_follows_the_owner():
    c = website_cluster({"website-controller": _Minimal})
    c.run(until=15)
    ctl = c.controllers["website-controller"]
    assert ctl.errors == []  # the file's ClusterRole lets the service account create Deployments
    d = c.get("deployments", "web", "shop")
    assert d["spec"]["replicas"] == 2 and d["metadata"]["ownerReferences"][0]["name"] == "web"
    assert len(c.list("pods", "shop", label_selector="website=web")) == 2
    c.run(until=31)  # the garbage collector monitors a CRD's kind from its next discovery sync (every 30 s)
    c.client.delete("websites.example.com", "web", "shop")
    c.run(until=40)
    assert c.get("deployments", "web", "shop") is None


def test_without_the_files_rbac_the_controller_is_forbidden():
    class Other(_Minimal):
        name, service_account = "other-controller", "other-controller"

    c = website_cluster({"other-controller": Other})
    c.run(until=8)
    assert c.get("deployments", "web", "shop") is None
    assert any("forbidden" in msg for _, _, msg in c.controllers["other-controller"].errors)


def test_mon_failover_run_samples_the_mons_of_a_failed_node():
    run = simulate_mon_failover("worker-3", run_seconds=200)
    assert sorted({(s.mon, s.node) for s in run.at(50)}) == [("a", "worker-1"), ("b", "worker-2"), ("c", "worker-3")]
    assert run.quorum_at(50) == ["a", "b", "c"]
    assert {s.state for s in run.at(200) if s.mon == "c"} == {"out of quorum"}
    assert run.quorum_at(200) == ["a", "b"]
    assert run.failover_seconds() is None  # 10 minutes have not passed
    assert any('marking mon "c" out of quorum' in line for _, line in run.log)


def test_no_failure_keeps_the_quorum_and_a_bad_node_is_one_line():
    run = simulate_mon_failover("", run_seconds=150)
    assert run.quorum_at(150) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="no node 'worker-9'.*worker-1, worker-2, worker-3, worker-4"):
        simulate_mon_failover("worker-9")


def test_at_takes_the_last_sample_at_or_before():
    run = MonFailoverRun(None, "n", 5.0, (MonSample(0, "a", "n", "in quorum"), MonSample(10, "a", "n", "out of quorum"),
                                          MonSample(10, "b", "m", "in quorum")), ())
    assert run.at(-1) == [] and [s.state for s in run.at(9.9)] == ["in quorum"]
    assert run.quorum_at(10) == ["b"] and run.failover_seconds() == 10


def test_a_python_function_served_as_a_webhook_refuses_with_upstreams_text():
    from kubenotes.sim.operators import serve_webhook

    def no_latest(request):
        image = request["object"]["spec"]["image"]
        return not image.endswith(":latest"), f"image {image}: pin a version"

    hook = serve_webhook(no_latest)
    try:
        c = website_cluster(start=False)
        c.apply(hook.configuration("no-latest.example.com", api_groups=["example.com"], resources=["websites"]))
        with pytest.raises(ApiError) as e:
            c.apply({**WEBSITE, "spec": {"replicas": 1, "image": "nginx:latest"}})
        assert e.value.code == 403
        assert str(e.value) == ('admission webhook "no-latest.example.com" denied the request: '
                                "image nginx:latest: pin a version")
        c.apply({**WEBSITE, "spec": {"replicas": 1, "image": "nginx:1.27"}})
        assert [r["operation"] for r in hook.reviews] == ["CREATE", "CREATE"]
        assert hook.reviews[0]["object"]["spec"]["port"] == 80  # after defaulting, as upstream sends it
    finally:
        hook.stop()
    with pytest.raises(ApiError) as e:  # down, under failurePolicy Fail: refused, nothing stored
        c.apply({**WEBSITE, "metadata": {"name": "later", "namespace": "shop"}})
    assert e.value.code == 500 and 'failed calling webhook "no-latest.example.com"' in str(e.value)
    assert c.get("websites.example.com", "later", "shop") is None
