"""The controller registry (kubenotes.controllers) and the RBAC each controller declares next to itself."""

from __future__ import annotations

import ast
import inspect
import sys

import pytest

from kubenotes.apiserver.bootstrap_policy import (
    SA_ROLE_PREFIX,
    ControllerPolicy,
    bootstrap_cluster_role_bindings,
    bootstrap_cluster_roles,
    controller_roles,
    policy_rule,
)
from kubenotes.controllers import CONTROLLER_POLICIES, CONTROLLERS, load_controller
from kubenotes.controllers.reconciler import Controller
from kubenotes.errors import ConfigError


def test_registry_is_static_imports():
    import kubenotes.controllers as pkg

    src = inspect.getsource(pkg)
    assert "importlib" not in src and "import_module" not in src
    assert all(isinstance(cls, type) and issubclass(cls, Controller) for cls in CONTROLLERS.values())


def test_every_registered_controller_declares_its_policy():
    """A controller added to CONTROLLERS without a ControllerPolicy in its module fails here."""
    assert list(CONTROLLER_POLICIES) == list(CONTROLLERS)
    for name, cls in CONTROLLERS.items():
        policy = CONTROLLER_POLICIES[name]
        assert isinstance(policy, ControllerPolicy), name
        module = sys.modules[cls.__module__]
        declared = [v for v in vars(module).values() if isinstance(v, ControllerPolicy)]
        assert any(v is policy for v in declared), f"{name}: {cls.__module__} declares no policy for it"
        # the client's identity is the declared one
        assert cls.service_account == policy.service_account, name
        if policy.service_account is not None:
            assert policy.rules, f"{name}: service account {policy.service_account} has no rules"
        else:
            assert policy.rules == (), name


def test_policies_are_declared_at_the_top_of_each_controller_module():
    for cls in CONTROLLERS.values():
        module = sys.modules[cls.__module__]
        tree = ast.parse(inspect.getsource(module))
        first_def = next(i for i, n in enumerate(tree.body) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        names = {t.id for n in tree.body[:first_def] if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name)}
        assert any(n.endswith("CONTROLLER_POLICY") for n in names), cls.__module__


def test_controllers_sharing_a_service_account_share_one_declaration():
    by_sa: dict[str, ControllerPolicy] = {}
    for name, policy in CONTROLLER_POLICIES.items():
        if policy.service_account is not None:
            assert by_sa.setdefault(policy.service_account, policy) is policy, name
    assert {n for n, p in CONTROLLER_POLICIES.items() if p.service_account == "node-controller"} == {
        "node-ipam-controller", "node-lifecycle-controller", "taint-eviction-controller"}
    assert CONTROLLER_POLICIES["serviceaccount-token-controller"].service_account is None


def test_every_declared_service_account_has_its_role_and_binding():
    roles = {r["metadata"]["name"]: r for r in bootstrap_cluster_roles(CONTROLLER_POLICIES.values())}
    bindings = {b["metadata"]["name"]: b for b in bootstrap_cluster_role_bindings(CONTROLLER_POLICIES.values())}
    for name, policy in CONTROLLER_POLICIES.items():
        if policy.service_account is None:
            continue
        role = SA_ROLE_PREFIX + policy.service_account
        assert roles[role]["rules"] == list(policy.rules), name
        assert bindings[role]["subjects"] == [{"kind": "ServiceAccount", "name": policy.service_account,
                                               "namespace": "kube-system"}], name


def test_roles_are_copies_of_the_declarations():
    roles = controller_roles(CONTROLLER_POLICIES.values())
    for r in roles:
        for rule in r["rules"]:
            rule["verbs"].append("escalate")
    again = controller_roles(CONTROLLER_POLICIES.values())
    assert all("escalate" not in rule["verbs"] for r in again[1:] for rule in r["rules"])


def test_two_different_policies_for_one_service_account_are_refused():
    a = ControllerPolicy("x-controller", (policy_rule(["get"], [""], ["pods"]),))
    b = ControllerPolicy("x-controller", (policy_rule(["list"], [""], ["pods"]),))
    assert len(controller_roles([a, a])) == 2  # the aggregator's and x-controller's
    with pytest.raises(ConfigError, match="two controller policies for service account x-controller differ"):
        controller_roles([a, b])


def test_load_controller():
    assert load_controller("job-controller") is CONTROLLERS["job-controller"]
    with pytest.raises(KeyError, match="unknown controller 'nope'; known: cronjob-controller, "):
        load_controller("nope")
