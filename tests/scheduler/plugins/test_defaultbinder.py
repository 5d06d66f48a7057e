"""Tests for kubenotes.scheduler.plugins.defaultbinder (after default_binder_test.go TestDefaultBinder)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.defaultbinder import NAME, binding, new
from kubenotes.scheduler.testing import make_pod

POD = PodInfo(make_pod("foo", namespace="ns", uid="foo-uid"))


def test_binding_object():
    assert binding(POD, "foohost") == {
        "apiVersion": "v1", "kind": "Binding",
        "metadata": {"namespace": "ns", "name": "foo", "uid": "foo-uid"},
        "target": {"kind": "Node", "name": "foohost"},
    }


@pytest.mark.parametrize("fail, want_code", [(False, Code.SUCCESS), (True, Code.ERROR)])
def test_default_binder(fail, want_code):
    got = []

    def binder(pod, node):
        if fail:
            raise RuntimeError("binding error")
        got.append(binding(pod, node))

    s = new(None, SimpleNamespace(binder=binder)).bind(None, POD, "foohost")
    assert s.code == want_code
    if fail:
        assert s.message() == "binding error" and got == []
    else:
        assert got[0]["target"] == {"kind": "Node", "name": "foohost"}


def test_without_binder_and_name():
    pl = new(None, SimpleNamespace(binder=None))
    assert pl.name() == NAME == "DefaultBinder" and pl.bind(None, POD, "n").is_success()
