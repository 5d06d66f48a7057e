"""RBAC escalation prevention, as kube-apiserver v1.34's policy-based RBAC storage.

Cases after upstream (kubernetes/kubernetes@v1.34.0): ``staging/src/k8s.io/component-helpers/auth/rbac/
validation/policy_comparator_test.go`` (Covers: subresources, ``*/subresource``, resource names, non-resource
URL prefixes), ``pkg/registry/rbac/validation/policy_compact_test.go`` (CompactRules),
``pkg/registry/rbac/escalation_check_test.go`` (IsOnlyMutatingGCFields) and
``test/integration/auth/rbac_test.go`` (who may create and update Roles, ClusterRoles and bindings, with
``escalate`` and ``bind``, and the aggregationRule). The messages are upstream's, compared literally.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.rbac_escalation import (
    AGGREGATION_RULE_FORBIDDEN,
    compact_rules,
    compact_string,
    covers,
    is_only_mutating_gc_fields,
)
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.status import ApiError
from kubenotes.sim.cluster import Cluster

RBAC = "rbac.authorization.k8s.io"
ALICE = UserInfo("alice", groups=("system:authenticated",))
GRANT = ('user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not '
         'currently held:\n')


def _rule(verbs, groups=None, resources=None, names=None, urls=None):
    r = {"verbs": list(verbs)}
    for k, v in (("apiGroups", groups), ("resources", resources), ("resourceNames", names),
                 ("nonResourceURLs", urls)):
        if v is not None:
            r[k] = list(v)
    return r


# ------------------------------------------------------------------ Covers, CompactRules, CompactString

@pytest.mark.parametrize("owner, servant, ok", [
    # policy_comparator_test.go cases
    ([_rule(["*"], ["*"], ["*"])], [_rule(["get"], ["apps"], ["deployments"])], True),
    ([_rule(["get"], [""], ["pods"])], [_rule(["get", "list"], [""], ["pods"])], False),
    ([_rule(["get"], [""], ["*/status"])], [_rule(["get"], [""], ["pods/status", "nodes/status"])], True),
    ([_rule(["get"], [""], ["*/status"])], [_rule(["get"], [""], ["pods"])], False),
    ([_rule(["get"], [""], ["pods"])], [_rule(["get"], [""], ["pods/log"])], False),
    ([_rule(["get"], [""], ["secrets"], ["a", "b"])], [_rule(["get"], [""], ["secrets"], ["a"])], True),
    ([_rule(["get"], [""], ["secrets"], ["a"])], [_rule(["get"], [""], ["secrets"])], False),
    ([_rule(["get"], [""], ["secrets"])], [_rule(["get"], [""], ["secrets"], ["x"])], True),
    ([_rule(["get"], urls=["/apis/*"])], [_rule(["get"], urls=["/apis/apps/v1"])], True),
    ([_rule(["get"], urls=["/apis/*"])], [_rule(["get"], urls=["/api"])], False),
    ([_rule(["*"], ["*"], ["*"])], [_rule(["get"], urls=["/healthz"])], False),  # resources never cover URLs
    ([_rule(["get"], urls=["*"])], [_rule(["get"], [""], ["pods"])], False),
])
def test_covers(owner, servant, ok):
    assert covers(owner, servant)[0] is ok


def test_covers_reports_each_missing_permission_broken_down():
    ok, missing = covers([_rule(["get"], [""], ["pods"])],
                         [_rule(["get", "delete"], ["", "apps"], ["pods"], ["p"])])
    assert not ok
    assert missing == [_rule(["delete"], [""], ["pods"], ["p"]), _rule(["get"], ["apps"], ["pods"], ["p"]),
                       _rule(["delete"], ["apps"], ["pods"], ["p"])]


def test_compact_rules_joins_verbs_of_one_group_resource_and_name():
    rules = [_rule(["get"], [""], ["pods"]), _rule(["list"], [""], ["pods"]), _rule(["get"], [""], ["pods"]),
             _rule(["get"], [""], ["pods"], ["a"]), _rule(["list"], [""], ["pods"], ["a"]),
             _rule(["get"], urls=["/x"]), _rule(["post"], urls=["/x"])]
    got = sorted(compact_string(r) for r in compact_rules(rules))
    assert got == ['{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}',
                   '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
                   '{NonResourceURLs:["/x"], Verbs:["get"]}', '{NonResourceURLs:["/x"], Verbs:["post"]}']


def test_is_only_mutating_gc_fields():
    old = {"kind": "Role", "metadata": {"name": "r", "namespace": "dev", "resourceVersion": "7"},
           "rules": [_rule(["get"], [""], ["pods"])]}
    gc = {**old, "metadata": {**old["metadata"], "ownerReferences": [{"uid": "u"}], "finalizers": ["f"]}}
    assert is_only_mutating_gc_fields(gc, old)
    assert not is_only_mutating_gc_fields({**gc, "metadata": {**gc["metadata"], "labels": {"a": "b"}}}, old)
    assert not is_only_mutating_gc_fields(gc, None)


# ------------------------------------------------------------------ through the API server

@pytest.fixture(scope="module")
def cluster():
    """A cluster with the bootstrap policy and RBAC; ``alice`` is ``admin`` of namespace ``dev``."""
    c = Cluster(controllers=[], scheduler=False)
    for ns in ("dev", "prod"):
        c.client.create("namespaces", {"metadata": {"name": ns}})
    _binding(c.client, "alice-admin", "ClusterRole", "admin", "dev")
    return c


def _binding(client, name, kind, role, namespace=None, user="alice"):
    obj = {"metadata": {"name": name}, "roleRef": {"apiGroup": RBAC, "kind": kind, "name": role},
           "subjects": [{"kind": "User", "name": user, "apiGroup": RBAC}]}
    if namespace:
        obj["metadata"]["namespace"] = namespace
        return client.create("rolebindings", obj, namespace)
    return client.create("clusterrolebindings", obj)


def _refused(fn, *args, code=403):
    with pytest.raises(ApiError) as e:
        fn(*args)
    assert e.value.status["code"] == code, e.value.status
    return e.value.status["message"]


def test_a_role_within_what_the_requester_holds_is_created(cluster):
    alice = cluster.server.client("kubectl", ALICE)
    role = {"metadata": {"name": "pod-reader", "namespace": "dev"},
            "rules": [_rule(["get", "list"], [""], ["pods", "pods/log"])]}
    assert alice.create("roles", role, "dev")["metadata"]["name"] == "pod-reader"


def test_a_role_granting_more_is_refused_with_upstreams_message(cluster):
    alice = cluster.server.client("kubectl", ALICE)
    role = {"metadata": {"name": "node-reader", "namespace": "dev"},
            "rules": [_rule(["get", "list"], [""], ["nodes", "pods"]), _rule(["get"], urls=["/metrics"])]}
    msg = _refused(alice.create, "roles", role, "dev")
    assert msg == (f'roles.{RBAC} "node-reader" is forbidden: {GRANT}'
                   '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}\n'
                   '{NonResourceURLs:["/metrics"], Verbs:["get"]}')
    assert cluster.server.get("roles", "dev", "node-reader") is None
    # where alice may not create Roles at all, authorization answers first
    role["metadata"]["namespace"] = "prod"
    msg = _refused(alice.create, "roles", role, "prod")
    assert msg.startswith(f'roles.{RBAC} is forbidden: User "alice" cannot create resource "roles"')


def test_an_update_adding_a_rule_is_refused_and_a_gc_only_update_is_not(cluster):
    alice = cluster.server.client("kubectl", ALICE)
    alice.create("roles", {"metadata": {"name": "cm", "namespace": "dev"},
                           "rules": [_rule(["get"], [""], ["configmaps"])]}, "dev")
    msg = _refused(alice.patch, "roles", "cm", {"rules": [_rule(["get"], ["apps"], ["*"])]}, "dev")
    assert msg == f'roles.{RBAC} "cm" is forbidden: {GRANT}{{APIGroups:["apps"], Resources:["*"], Verbs:["get"]}}'
    # an admin made the Role grant more than alice holds; alice may still set its finalizers (GC fields)
    cluster.client.patch("roles", "cm", {"rules": [_rule(["*"], ["*"], ["*"])]}, "dev")
    out = alice.patch("roles", "cm", {"metadata": {"finalizers": ["example.com/keep"]}}, "dev")
    assert out["metadata"]["finalizers"] == ["example.com/keep"]
    _refused(alice.patch, "roles", "cm", {"metadata": {"labels": {"a": "b"}}}, "dev")


def test_escalate_on_roles_allows_any_rules(cluster):
    admin = cluster.client
    admin.create("clusterroles", {"metadata": {"name": "escalate-roles"},
                                  "rules": [_rule(["escalate"], [RBAC], ["roles"])]})
    bob = UserInfo("bob", groups=("system:authenticated",))
    admin.create("rolebindings", {"metadata": {"name": "bob-admin", "namespace": "dev"},
                                  "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "admin"},
                                  "subjects": [{"kind": "User", "name": "bob"}]}, "dev")
    client = cluster.server.client("kubectl", bob)
    role = {"metadata": {"name": "everything", "namespace": "dev"}, "rules": [_rule(["*"], ["*"], ["*"])]}
    assert 'user "bob" (groups=["system:authenticated"]) is attempting' in _refused(client.create, "roles", role,
                                                                                   "dev")
    admin.create("rolebindings", {"metadata": {"name": "bob-escalate", "namespace": "dev"},
                                  "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "escalate-roles"},
                                  "subjects": [{"kind": "User", "name": "bob"}]}, "dev")
    assert client.create("roles", role, "dev")["rules"] == [_rule(["*"], ["*"], ["*"])]


def test_binding_a_role_needs_its_permissions_or_bind(cluster):
    alice = cluster.server.client("kubectl", ALICE)
    msg = _refused(_binding, alice, "alice-root", "ClusterRole", "cluster-admin", "dev")
    assert msg == (f'rolebindings.{RBAC} "alice-root" is forbidden: {GRANT}'
                   '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}')
    # a role whose permissions alice holds in dev may be bound there
    assert _binding(alice, "alice-view", "ClusterRole", "view", "dev", user="carol")["roleRef"]["name"] == "view"
    # a binding to a missing role: the registry's NotFound
    msg = _refused(_binding, alice, "alice-x", "Role", "missing", "dev", code=404)
    assert msg == f'roles.{RBAC} "missing" not found'
    # bind on exactly that ClusterRole, granted in dev
    cluster.client.create("clusterroles", {"metadata": {"name": "bind-cluster-admin"}, "rules": [
        _rule(["bind"], [RBAC], ["clusterroles"], ["cluster-admin"])]})
    _binding(cluster.client, "alice-bind", "ClusterRole", "bind-cluster-admin", "dev")
    assert _binding(alice, "alice-root", "ClusterRole", "cluster-admin", "dev")["metadata"]["name"] == "alice-root"


def test_a_cluster_role_binding_checks_cluster_wide_rules_only(cluster):
    dave = UserInfo("dave", groups=("system:authenticated",))
    cluster.client.create("clusterroles", {"metadata": {"name": "crb-writer"}, "rules": [
        _rule(["create", "update"], [RBAC], ["clusterrolebindings"]), _rule(["get", "list"], [""], ["pods"])]})
    _binding(cluster.client, "dave-crb", "ClusterRole", "crb-writer", user="dave")
    _binding(cluster.client, "dave-edit", "ClusterRole", "edit", "dev", user="dave")  # namespaced: not counted
    client = cluster.server.client("kubectl", dave)
    msg = _refused(_binding, client, "dave-view", "ClusterRole", "view", None)
    assert msg.startswith(f'clusterrolebindings.{RBAC} "dave-view" is forbidden: user "dave" '
                          '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently '
                          'held:\n{APIGroups:[""], Resources:["bindings"], Verbs:["get" "list" "watch"]}\n')
    cluster.client.create("clusterroles", {"metadata": {"name": "pod-lister"},
                                           "rules": [_rule(["list"], [""], ["pods"])]})
    assert _binding(client, "dave-pods", "ClusterRole", "pod-lister", None)["roleRef"]["name"] == "pod-lister"


def test_an_aggregation_rule_needs_cluster_admin(cluster):
    erin = UserInfo("erin", groups=("system:authenticated",))
    cluster.client.create("clusterroles", {"metadata": {"name": "cr-writer"}, "rules": [
        _rule(["create", "update", "patch", "get"], [RBAC], ["clusterroles"])]})
    _binding(cluster.client, "erin-cr", "ClusterRole", "cr-writer", user="erin")
    client = cluster.server.client("kubectl", erin)
    agg = {"metadata": {"name": "agg"}, "rules": [],
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}}
    assert _refused(client.create, "clusterroles", agg) == f'clusterroles.{RBAC} "agg" is forbidden: ' \
                                                           f'{AGGREGATION_RULE_FORBIDDEN}'
    cluster.client.create("clusterroles", agg)
    # dropping (or changing) the rule of an aggregated role is checked too
    assert AGGREGATION_RULE_FORBIDDEN in _refused(client.patch, "clusterroles", "agg", {"aggregationRule": None})
    plain = client.create("clusterroles", {"metadata": {"name": "plain"}, "rules": []})
    assert plain["metadata"]["name"] == "plain"


def test_a_binding_to_a_missing_role_is_named_in_resolution_errors(cluster):
    frank = UserInfo("frank", groups=("system:authenticated",))
    _binding(cluster.client, "frank-admin", "ClusterRole", "admin", "dev", user="frank")
    _binding(cluster.client, "frank-ghost", "ClusterRole", "ghost", "dev", user="frank")
    client = cluster.server.client("kubectl", frank)
    msg = _refused(client.create, "roles", {"metadata": {"name": "n", "namespace": "dev"},
                                            "rules": [_rule(["get"], [""], ["nodes"])]}, "dev")
    assert msg == (f'roles.{RBAC} "n" is forbidden: user "frank" (groups=["system:authenticated"]) is attempting '
                   'to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], '
                   f'Verbs:["get"]}}; resolution errors: [clusterroles.{RBAC} "ghost" not found]')


def test_system_masters_bypasses_and_the_bootstrap_roles_exist(cluster):
    out = cluster.client.create("clusterroles", {"metadata": {"name": "root-2"},
                                                 "rules": [_rule(["*"], ["*"], ["*"])]})
    assert out["metadata"]["name"] == "root-2"
    assert cluster.server.get("clusterroles", None, "system:controller:deployment-controller") is not None


# ------------------------------------------------------------------ the real kubectl

def test_kubectl_namespace_admin_cannot_bind_cluster_admin_without_bind(kubectl_required):
    from kubenotes.sim.serve import serve

    c = Cluster(controllers=[], scheduler=False)
    c.client.create("namespaces", {"metadata": {"name": "team"}})
    _binding(c.client, "alice-admin", "ClusterRole", "admin", "team")
    s = serve(c, port=0, time_scale=0)
    try:
        as_alice = ("--as=alice", "-n", "team")
        r = s.kubectl("create", "rolebinding", "mine", "--clusterrole=cluster-admin", "--user=alice", *as_alice)
        assert r.returncode != 0
        assert r.stderr.strip() == (
            f'error: failed to create rolebinding: rolebindings.{RBAC} "mine" is forbidden: {GRANT}'
            '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}'), r.stderr
        r = s.kubectl("create", "role", "r", "--verb=get", "--resource=nodes", *as_alice)
        assert r.returncode != 0 and "attempting to grant RBAC permissions not currently held" in r.stderr
        with s.lock:
            c.client.create("clusterroles", {"metadata": {"name": "bind-cluster-admin"}, "rules": [
                _rule(["bind"], [RBAC], ["clusterroles"], ["cluster-admin"])]})
            _binding(c.client, "alice-bind", "ClusterRole", "bind-cluster-admin", "team")
        r = s.kubectl("create", "rolebinding", "mine", "--clusterrole=cluster-admin", "--user=alice", *as_alice)
        assert r.returncode == 0, r.stderr
        assert s.kubectl("auth", "can-i", "delete", "secrets", *as_alice).stdout.strip() == "yes"
    finally:
        s.stop()
