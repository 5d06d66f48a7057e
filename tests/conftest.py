"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import os

import pytest

from kubenotes.sim.serve import find_kubectl

_NO_KUBECTL = "no kubectl installed (/usr/lib/google-cloud-sdk/bin/kubectl.1.33, /usr/bin/kubectl or PATH)"


@pytest.fixture
def kubectl_required() -> str:
    """The real kubectl's path: the test skips without one, and fails instead when ``CI`` is set (CI has it)."""
    kubectl = find_kubectl()
    if kubectl is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {_NO_KUBECTL}")
        pytest.skip(_NO_KUBECTL)
    return kubectl


@pytest.fixture
def etcd_required() -> str:
    """The etcd server binary: the test skips without one, and fails instead when ``CI`` is set (.ci/run installs it)."""
    from kubenotes.etcd.members import EtcdUnavailable, find_etcd

    try:
        return find_etcd()
    except EtcdUnavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {e}")
        pytest.skip(str(e))
