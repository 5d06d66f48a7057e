"""The ReplicationController manager, and the historical ``kubectl rolling-update`` beside it.

Upstream runs the ReplicaSet controller over ReplicationControllers through a
conversion adapter (``pkg/controller/replication/conversion.go``), as if an RC
were an older API version of a ReplicaSet: same syncing, batching, ranking,
expectations and status, with the equality-map selector turned into a label
selector. :class:`ReplicationManager` is
:class:`~kubenotes.controllers.replicaset.ReplicaSetController` parametrised with
the RC's resource and kind; its events come from ``replication-controller``.

:func:`rolling_update` replays what ``kubectl rolling-update`` did before a
Deployment existed (removed from kubectl in 1.18): the *client* creates a new RC
at 0 replicas, then steps the new one up and the old one down, one pod per
update period, and deletes the old RC at the end. Compare a Deployment rollout,
where the same steps are taken by a controller in the control plane.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/replication/replication_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/replication/conversion.go
kubernetes/kubernetes@v1.17.0 pkg/kubectl/rolling_updater.go, pkg/kubectl/cmd/rollingupdate/rollingupdate.go
"""

from __future__ import annotations

from typing import Any, Generator

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.replicaset import ReplicaSetController
from kubenotes.errors import KubenotesError

__all__ = ["ReplicationManager", "rolling_update", "RollingUpdateTimeout", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:replication-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("replication-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("replication-controller", (
    policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("replicationcontrollers",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("replicationcontrollers/status",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("replicationcontrollers/finalizers",)),
    policy_rule(("list", "watch", "patch", "create", "delete"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))


class ReplicationManager(ReplicaSetController):
    """kube-controller-manager's ``replicationcontroller-controller`` (``ReplicationManager``).

    Everything is inherited from :class:`ReplicaSetController`; the managed
    kind is ``v1`` ``ReplicationController`` and the event source and service
    account are ``replication-controller``, as upstream names them.

    Notes
    -----
    The conversion adapter is replaced by reading the RC's fields directly
    (they have the ReplicaSet's names); only the selector differs: a map,
    compiled with :meth:`LabelSelector.from_set`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/replication/replication_controller.go (NewReplicationManager)
    """

    name = "replication-controller"
    service_account = CONTROLLER_POLICY.service_account
    resource = "replicationcontrollers"
    api_version = "v1"
    kind = "ReplicationController"

    def _selector(self, rc: dict) -> LabelSelector | None:
        sel = (rc.get("spec") or {}).get("selector")
        return LabelSelector.nothing() if sel is None else LabelSelector.from_set(sel)


class RollingUpdateTimeout(KubenotesError):
    """The new controller's pods did not become ready within the timeout (kubectl gave up the same way)."""


def _rc(client: Any, name: str, namespace: str) -> dict:
    return client.get("replicationcontrollers", name, namespace)


def rolling_update(client: Any, env: Any, namespace: str, old_rc_name: str, new_rc: dict,
                   update_period_seconds: float = 60.0, poll_interval_seconds: float = 3.0,
                   timeout_seconds: float = 300.0, out: list[str] | None = None) -> Generator:
    """``kubectl rolling-update OLD -f NEW`` (historical): a client-side rollout of ReplicationControllers.

    A SimPy process: run it with ``env.process(rolling_update(...))``. It
    creates ``new_rc`` with 0 replicas, then repeats: scale the new RC up by
    one, wait (polling every ``poll_interval_seconds``) until its pods are
    ready, scale the old RC down by one and wait until its controller
    reports the smaller size, sleep ``update_period_seconds``;
    finally it deletes the old RC. That is kubectl's default of maxSurge 1
    and maxUnavailable 0: never fewer than the desired ready pods, never more
    than one extra.

    Parameters
    ----------
    client : Client
        A client (``kubectl``'s).
    env : simpy.Environment
    namespace, old_rc_name : str
    new_rc : dict
        The new ReplicationController. Its selector must differ from the old
        one's (kubectl added a ``deployment`` hash label to both for that).
    update_period_seconds : float
        ``--update-period`` (1m0s).
    poll_interval_seconds : float
        ``--poll-interval`` (3s).
    timeout_seconds : float
        ``--timeout`` (5m0s) for each wait.
    out : list of str, optional
        Gets the lines kubectl printed.

    Yields
    ------
    simpy.Event
        Timeouts on the virtual clock.

    Returns
    -------
    list of str
        The printed lines (the process's value).

    Raises
    ------
    RollingUpdateTimeout
        When the new pods are not ready in time; the old RC is left as it is.
    ApiError
        When a write fails.

    Notes
    -----
    Old kubectl also renamed the new RC to the old name when no new name was
    given, and computed each step from maxSurge/maxUnavailable; the model does
    one pod per step and keeps both names. The printed lines are kubectl
    v1.17's formats.

    Examples
    --------
    >>> lines = []
    >>> # env.process(rolling_update(c.client, c.env, "default", "web-v1", new_rc, 10, out=lines))
    """
    lines = out if out is not None else []
    old = _rc(client, old_rc_name, namespace)
    desired = int(old["spec"].get("replicas", 1))
    body = deep_copy(new_rc)
    body.setdefault("metadata", {})["namespace"] = namespace
    body.setdefault("spec", {})["replicas"] = 0
    created = client.create("replicationcontrollers", body, namespace)
    new_name = created["metadata"]["name"]
    lines.append(f"Created {new_name}")
    lines.append(f"Scaling up {new_name} from 0 to {desired}, scaling down {old_rc_name} from {desired} to 0 "
                 f"(keep {desired} pods available, don't exceed {desired + 1} pods)")
    new_count, old_count = 0, desired
    while new_count < desired or old_count > 0:
        if new_count < desired:
            new_count += 1
            client.scale("replicationcontrollers", new_name, new_count, namespace)
            lines.append(f"Scaling {new_name} up to {new_count}")
            waited = 0.0
            while int((_rc(client, new_name, namespace).get("status") or {}).get("readyReplicas") or 0) < new_count:
                if waited >= timeout_seconds:
                    raise RollingUpdateTimeout("timed out waiting for any update progress to be made")
                yield env.timeout(poll_interval_seconds)
                waited += poll_interval_seconds
        if old_count > 0:
            old_count -= 1
            client.scale("replicationcontrollers", old_rc_name, old_count, namespace)
            lines.append(f"Scaling {old_rc_name} down to {old_count}")
            waited = 0.0  # scaleAndWait: until the controller reports the new size
            while int((_rc(client, old_rc_name, namespace).get("status") or {}).get("replicas") or 0) > old_count:
                if waited >= timeout_seconds:
                    raise RollingUpdateTimeout("timed out waiting for any update progress to be made")
                yield env.timeout(poll_interval_seconds)
                waited += poll_interval_seconds
        if new_count < desired or old_count > 0:
            yield env.timeout(update_period_seconds)
    lines.append(f"Update succeeded. Deleting {old_rc_name}")
    client.delete("replicationcontrollers", old_rc_name, namespace)
    lines.append(f'replicationcontroller/{old_rc_name} rolling updated to "{new_name}"')
    return lines
