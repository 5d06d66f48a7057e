"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import itertools
import os
import tempfile
from dataclasses import dataclass

import pytest

from kubenotes.apiserver.storage import Interface, MemoryStorage
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


# ---------------------------------------------------------------- the storage backends (tests/apiserver/storage)
# One fixture the storage tests run over: ``backend`` is parametrized over ``memory`` (the embedded store, the
# model's default) and ``etcd`` (a real etcd 3.4 member on loopback, one per test session, a fresh key prefix per
# test; skips without Debian's etcd-server and fails instead when ``CI`` is set). Kept here, not in a conftest.py
# of their own: a third conftest.py module collides with the others under --doctest-modules.
_PREFIXES = itertools.count(1)


@dataclass
class Backend:
    """``name`` (``memory`` or ``etcd``), a fresh :class:`Interface` and, for etcd, the member's URL and prefix."""

    name: str
    storage: Interface
    url: str = ""
    prefix: str = ""

    @property
    def api_storage(self) -> Interface | None:
        """What ``APIServer(storage=...)`` gets: None for memory (today's default store), the etcd backend else."""
        return None if self.name == "memory" else self.storage


@pytest.fixture(scope="session")
def etcd_member():
    """One etcd member for the whole session (started on first use, stopped and removed at the end)."""
    from kubenotes.etcd.members import EtcdCluster

    # data on tmpfs when there is one: etcd's fsync per write then costs nothing, which keeps these tests fast
    saved = tempfile.tempdir
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        tempfile.tempdir = "/dev/shm"
    try:
        cluster = EtcdCluster(1).start()
    finally:
        tempfile.tempdir = saved
    yield cluster
    cluster.stop()


@pytest.fixture(params=["memory", "etcd"])
def backend(request) -> Backend:
    if request.param == "memory":
        yield Backend("memory", MemoryStorage())
        return
    yield from _etcd_backend(request)


@pytest.fixture
def etcd_backend(request) -> Backend:
    """The real-etcd :class:`Backend` alone, for the tests that only make sense on etcd (no memory run to skip)."""
    yield from _etcd_backend(request)


def _etcd_backend(request):
    request.getfixturevalue("etcd_required")
    member = request.getfixturevalue("etcd_member")
    if not member.members[0].running or not member.members[0].healthy():  # a fault test left it down
        from kubenotes.etcd.members import EtcdUnavailable

        member.members[0].resume()
        member.members[0].start()
        try:
            member.wait_healthy()
        except EtcdUnavailable:  # its port was taken while it was down: a new member on fresh ports
            member.stop()
            member.start()
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage

    prefix = f"/kubenotes-test-{os.getpid()}-{next(_PREFIXES)}"
    s = EtcdStorage(member.endpoints[0], prefix=prefix)
    yield Backend("etcd", s, member.endpoints[0], prefix)
    s.close()
