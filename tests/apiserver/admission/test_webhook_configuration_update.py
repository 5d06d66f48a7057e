"""A webhook configuration update relaxes the checks the stored object already broke (issue #29).

After ``ValidateValidatingWebhookConfigurationUpdate`` / ``ValidateMutatingWebhookConfigurationUpdate``
(kubernetes/kubernetes@v1.34.0 pkg/apis/admissionregistration/validation/validation.go).
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.validation import validate_create, validate_update


def _hook(name="a.example.com", **kw):
    h = {"name": name, "clientConfig": {"url": "https://hook.example.com/v"}, "sideEffects": "None",
         "admissionReviewVersions": ["v1"]}
    h.update(kw)
    return h


def _config(*hooks, kind="ValidatingWebhookConfiguration"):
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": "w", "resourceVersion": "1"}, "webhooks": list(hooks)}


def _msgs(causes):
    return [c["message"] for c in causes]


RES = {"ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
       "MutatingWebhookConfiguration": "mutatingwebhookconfigurations"}


@pytest.mark.parametrize("kind", list(RES))
def test_side_effects_some_kept_when_stored_had_side_effects(kind):
    ri = resource_for(RES[kind])
    stored = _config(_hook(sideEffects="Some"), kind=kind)
    assert _msgs(validate_create(ri, stored)) == [
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']
    new = copy.deepcopy(stored)
    new["webhooks"][0]["timeoutSeconds"] = 5
    assert validate_update(ri, new, stored) == []
    # a stored configuration without side effects does not let an update introduce them
    clean = _config(_hook(), kind=kind)
    assert _msgs(validate_update(ri, stored, clean)) == [
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']
    # relaxed, the list of what is allowed is upstream's four classes
    bad = _config(_hook(sideEffects="Maybe"), kind=kind)
    assert _msgs(validate_update(ri, bad, stored)) == [
        'webhooks[0].sideEffects: Unsupported value: "Maybe": supported values: "None", "NoneOnDryRun", "Some", '
        '"Unknown"']


def test_unrecognized_review_versions_and_duplicate_names_kept():
    ri = resource_for("validatingwebhookconfigurations")
    stored = _config(_hook(admissionReviewVersions=["v2"]), _hook(), _hook())
    assert _msgs(validate_create(ri, stored)) == [
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
        'webhooks[1].name: Duplicate value: "a.example.com"', 'webhooks[2].name: Duplicate value: "a.example.com"']
    assert validate_update(ri, copy.deepcopy(stored), stored) == []
    # stored webhooks that were all valid: the update is checked as a create
    clean = _config(_hook(), _hook("b.example.com"), _hook("c.example.com"))
    assert _msgs(validate_update(ri, stored, clean)) == _msgs(validate_create(ri, stored))


def test_unchanged_match_conditions_are_not_validated_again():
    ri = resource_for("validatingwebhookconfigurations")
    stored = _config(_hook(matchConditions=[{"name": "c", "expression": "1 + 1"}]))
    assert _msgs(validate_create(ri, stored)) == [
        'webhooks[0].matchConditions[0].expression: Invalid value: "1 + 1": must evaluate to bool']
    new = copy.deepcopy(stored)
    new["webhooks"][0]["timeoutSeconds"] = 5
    assert validate_update(ri, new, stored) == []
    new["webhooks"][0]["matchConditions"].append({"name": "d", "expression": "true"})
    assert _msgs(validate_update(ri, new, stored)) == [
        'webhooks[0].matchConditions[0].expression: Invalid value: "1 + 1": must evaluate to bool']
