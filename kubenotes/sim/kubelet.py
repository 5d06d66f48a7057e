"""A stand-in kubelet (a "hollow node"): Lease, NodeStatus and pod status, with no containers behind them.

Until the node-side model lands (issue #9), each Node of a running
:class:`~kubenotes.sim.cluster.Cluster` is served by this stand-in, in the
role kubemark's hollow kubelet and KWOK's stages play for scale tests. It
does what the control plane needs to see from a node, through the API like
the real kubelet:

* **registration and status**: the Node's ``Ready``, ``MemoryPressure``,
  ``DiskPressure`` and ``PIDPressure`` conditions with the kubelet's reasons
  and messages, re-posted when something changes and at least every
  ``nodeStatusReportFrequency`` (5 min);
* **heartbeat**: the node's Lease in ``kube-node-lease``, renewed every
  ``nodeLeaseDurationSeconds`` × 0.25 = 10 s;
* **pods**: a pod bound to the node is marked ``Running`` and ``Ready`` after
  ``pod_startup_seconds``, with a pod IP from the node's ``spec.podCIDR``; a
  pod being deleted is stopped after ``pod_termination_seconds`` (never later
  than its grace period): its containers exit 0 on SIGTERM, or 137 when the
  grace period is shorter (SIGKILL); its final status is posted as the
  kubelet's status manager posts it (the containers terminated, phase
  ``Succeeded`` when every container exited 0, else ``Failed``; a pod whose
  containers never started is ``Failed`` with ``ContainerStatusUnknown``),
  then it is removed (``DELETE`` with grace period 0).

``node_down()`` stops the kubelet: no heartbeats, no status, and it does not
act on its pods (it sees no API change, so an evicted pod's containers are not
stopped and no deletion is confirmed; a container's own exits are posted later);
its pods keep their last status. ``node_up()`` resumes it: the pod changes it
missed are handed over as a fresh list would be, and acted on then.

Stand-in conventions (KWOK-style annotations on a pod, for Jobs and retries):
``kubenotes.io/run-seconds: "5"`` makes the containers exit after 5 s of
running, with ``kubenotes.io/exit-code`` (default ``"0"``). The pod then
turns ``Succeeded``/``Failed`` under ``restartPolicy: Never``; under
``OnFailure``/``Always`` the container restarts with the kubelet's back-off
(10 s doubling to 300 s), counting ``restartCount``: at the back-off's expiry
exactly (the kubelet model, :mod:`kubenotes.kubelet.kubelet`, follows v1.34's
10-15 s pod-worker re-check instead).

**Container logs** (``kubectl logs``): each run of a container keeps a log of
timestamped lines on the virtual clock, holding only what the model can
honestly know a container prints (:func:`modelled_output`):

* the pod annotation ``kubenotes.io/log.<container>`` (or ``kubenotes.io/log``
  for every container), a learner's script of the output: its lines are
  printed when the container starts;
* otherwise, what the container's ``command`` + ``args`` print when they are
  plain ``echo``/``printf`` commands, directly or in a ``sh -c``/``bash -c``
  script of simple commands separated by ``;``, ``&&`` or newlines.
  ``sleep N`` delays the lines after it by N virtual seconds (they appear in
  the log when the clock gets there; ``follow`` streams them then);
  ``exit``, ``sleep infinity``, a loop, a pipe, a redirection, a ``$``
  expansion or any other program ends what is modelled, because its output
  cannot be known (a real ``nginx`` prints access logs kubenotes cannot
  invent, so its log is empty);
* a container that exits (``kubenotes.io/run-seconds``) prints nothing after
  its exit; its log stays readable, and after a restart it is the
  ``previous`` log.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/nodestatus/setters.go (condition reasons and messages)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/nodelease/controller.go, staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go (TerminatePod, canBeDeleted), pkg/kubelet/kubelet_pods.go
    (generateAPIPodStatus, getPhase), pkg/kubelet/kubelet.go (SyncTerminatingPod, SyncTerminatedPod)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go (nodeStatusUpdateFrequency 10s, nodeStatusReportFrequency 5m, nodeLeaseDurationSeconds 40)
kubernetes/kubernetes@v1.34.0 test/kubemark (hollow node); sigs.k8s.io/kwok stages
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (validateContainerLogStatus, GetKubeletContainerLogs)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs: since, tail, limitBytes, timestamps, follow)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any, Generator

from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.client.flowcontrol import run_blocking
from kubenotes.cri.runtime import SIGKILL_EXIT_CODE
from kubenotes.kubelet.backoff import go_duration
from kubenotes.kubelet.logs import (  # noqa: F401 - re-exported: the log model moved to kubenotes.kubelet.logs
    LOG_ANNOTATION,
    ContainerLogReader,
    ContainerRun,
    container_env,
    format_log_timestamp,
    modelled_output,
    open_container_log,
    validate_container_log_status,
)

__all__ = ["KubeletOptions", "StandInKubelet", "NODE_LEASE_NAMESPACE", "RUN_SECONDS_ANNOTATION",
           "EXIT_CODE_ANNOTATION", "LOG_ANNOTATION", "modelled_output", "validate_container_log_status",
           "ContainerRun", "ContainerLogReader",
           "format_log_timestamp"]

NODE_LEASE_NAMESPACE = "kube-node-lease"
RUN_SECONDS_ANNOTATION = "kubenotes.io/run-seconds"
EXIT_CODE_ANNOTATION = "kubenotes.io/exit-code"
#: The kubelet's container restart back-off (``pkg/kubelet/kubelet.go``: backOffPeriod 10 s, MaxContainerBackOff 300 s).
INITIAL_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS = 10.0, 300.0


@dataclass
class KubeletOptions:
    """The stand-in's timings (KubeletConfiguration defaults where upstream has one).

    Attributes
    ----------
    node_lease_duration_seconds : int
        ``nodeLeaseDurationSeconds`` (40); the Lease is renewed every quarter of it.
    node_status_report_frequency_seconds : float
        ``nodeStatusReportFrequency`` (300): status is re-posted at least this often.
    pod_startup_seconds : float
        Binding → Running and Ready (a stand-in for sandbox, pulls and start; 2 s).
    pod_termination_seconds : float
        Deletion → removed, when the grace period is longer (containers exit on SIGTERM; 1 s).
    """

    node_lease_duration_seconds: int = 40
    node_status_report_frequency_seconds: float = 300.0
    pod_startup_seconds: float = 2.0
    pod_termination_seconds: float = 1.0


def _micro_time(seconds: float, epoch: Any) -> str:
    """``metav1.MicroTime`` (RFC 3339 with microseconds), as Lease renewTime is written."""
    import datetime as _dt

    t = epoch + _dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")



class StandInKubelet:
    """One node's stand-in kubelet, a set of SimPy processes.

    Parameters
    ----------
    cluster : Cluster
        Supplies ``env``, ``server`` and clients.
    node_name : str
    options : KubeletOptions, optional
    """

    def __init__(self, cluster: Any, node_name: str, options: KubeletOptions | None = None):
        self.cluster = cluster
        self.env = cluster.env
        self.node_name = node_name
        self.options = options or KubeletOptions()
        self.component = f"kubelet/{node_name}"
        from kubenotes.apiserver.request import UserInfo

        self.client = cluster.server.client(self.component, UserInfo(f"system:node:{node_name}",
                                                                    groups=("system:nodes", "system:authenticated")))
        self.up = True
        self.pods: dict[str, dict] = {}  # uid -> last seen pod
        self._started: set[str] = set()
        self._terminating: set[str] = set()
        self._ips: dict[str, str] = {}
        self._next_ip = 2
        self._restart_counts: dict[str, int] = {}
        #: pod uid -> container name -> its runs, oldest first (the container logs).
        self.runs: dict[str, dict[str, list[ContainerRun]]] = {}
        self._status_posted_at = -1e9
        self._last_conditions: dict | None = None
        self._wake = None
        #: Pod deliveries while down, by uid (the latest wins), replayed by :meth:`node_up`.
        self._deferred: dict[str, tuple[bool, dict]] = {}

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.env.process(self._heartbeat())
        self.env.process(self._pod_source())

    def node_down(self) -> None:
        """Stop the kubelet: no heartbeats or status, and no action on pods; pods keep their last status."""
        self.up = False

    def node_up(self) -> None:
        """Resume heartbeats (status is posted at once) and act on the pod changes missed while down."""
        if not self.up:
            self.up = True
            self._status_posted_at = -1e9
            deferred, self._deferred = self._deferred, {}
            for removed, pod in deferred.values():
                (self._on_pod_removed if removed else self._on_pod)(pod)
            if self._wake is not None and not self._wake.triggered:
                self._wake.succeed()

    def _defer_while_down(self, pod: dict, removed: bool) -> bool:
        if self.up:
            return False
        uid = pod["metadata"]["uid"]
        self._deferred.pop(uid, None)
        self._deferred[uid] = (removed, pod)
        return True

    # ------------------------------------------------------------ node status and lease
    def _heartbeat(self) -> Generator:
        renew = self.options.node_lease_duration_seconds * 0.25
        while True:
            if self.up:
                self._renew_lease()
                self._post_status()
                yield self.env.timeout(renew)
            else:
                self._wake = self.env.event()
                yield self._wake
                self._wake = None

    def _renew_lease(self) -> None:
        server = self.cluster.server
        now = _micro_time(self.env.now, server.epoch)
        lease = server.get("leases", NODE_LEASE_NAMESPACE, self.node_name)
        try:
            if lease is None:
                node = server.get("nodes", None, self.node_name)
                owner = [{"apiVersion": "v1", "kind": "Node", "name": self.node_name,
                          "uid": node["metadata"]["uid"]}] if node else []
                self.client.create("leases", {
                    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": self.node_name, "namespace": NODE_LEASE_NAMESPACE,
                                 "ownerReferences": owner},
                    "spec": {"holderIdentity": self.node_name,
                             "leaseDurationSeconds": self.options.node_lease_duration_seconds,
                             "renewTime": now}}, NODE_LEASE_NAMESPACE)
            else:
                new = deep_copy(lease)
                new["spec"]["renewTime"] = now
                self.client.update("leases", new, NODE_LEASE_NAMESPACE)
        except ApiError:
            pass  # retried at the next renewal, as the lease controller backs off

    def _conditions(self, old: list[dict]) -> list[dict]:
        now = self.cluster.server.timestamp()
        prev = {c.get("type"): c for c in old or []}
        out = []
        for ctype, status, reason, message in (
                ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                ("Ready", "True", "KubeletReady", "kubelet is posting ready status")):
            p = prev.get(ctype)
            transition = p.get("lastTransitionTime") if p and p.get("status") == status else now
            out.append({"type": ctype, "status": status, "lastHeartbeatTime": now,
                        "lastTransitionTime": transition, "reason": reason, "message": message})
        return out

    def _post_status(self) -> None:
        server = self.cluster.server
        node = server.get("nodes", None, self.node_name)
        if node is None:
            return
        st = node.get("status") or {}
        conds = st.get("conditions") or []
        want = [(c["type"], c["status"], c["reason"]) for c in self._conditions(conds)]
        have = [(c.get("type"), c.get("status"), c.get("reason")) for c in conds]
        due = self.env.now - self._status_posted_at >= self.options.node_status_report_frequency_seconds
        if want == have and not due:
            return
        new = deep_copy(node)
        nst = new.setdefault("status", {})
        nst["conditions"] = self._conditions(conds)
        info = nst.setdefault("nodeInfo", {})
        ids = hashlib.sha256(self.node_name.encode()).hexdigest()
        for k, v in (("machineID", ids[:32]), ("systemUUID", f"{ids[:8]}-{ids[8:12]}-{ids[12:16]}-{ids[16:20]}-"
                                                              f"{ids[20:32]}"),
                     ("bootID", f"{ids[32:40]}-{ids[40:44]}-{ids[44:48]}-{ids[48:52]}-{ids[52:64]}"),
                     ("kernelVersion", "6.8.0-1015-generic"), ("osImage", "Ubuntu 24.04.2 LTS"),
                     ("containerRuntimeVersion", "containerd://2.1.0"), ("kubeletVersion", "v1.34.0"),
                     ("kubeProxyVersion", ""), ("operatingSystem", "linux"), ("architecture", "amd64")):
            info.setdefault(k, v)
        if "capacity" not in nst:
            nst["capacity"] = {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}
        nst.setdefault("allocatable", dict(nst["capacity"]))
        nst.setdefault("daemonEndpoints", {"kubeletEndpoint": {"Port": 10250}})
        try:
            self.client.update_status("nodes", new)
            self._status_posted_at = self.env.now
        except ApiError:
            pass

    # ------------------------------------------------------------ pods
    def _pod_source(self) -> Generator:
        """The API pod source: list and watch pods with ``spec.nodeName=<node>`` (``config.NewSourceApiserver``)."""
        from kubenotes.kubelet.config import watch_api_source

        return watch_api_source(self.env, self.client, self.node_name, self._on_pod, self._on_pod_removed)

    def _on_pod_removed(self, pod: dict) -> None:
        if self._defer_while_down(pod, True):
            return
        self.pods.pop(pod["metadata"]["uid"], None)
        self.runs.pop(pod["metadata"]["uid"], None)  # removing the pod removes its logs

    def _on_pod(self, pod: dict) -> None:
        if self._defer_while_down(pod, False):
            return
        uid = pod["metadata"]["uid"]
        self.pods[uid] = pod
        if pod["metadata"].get("deletionTimestamp"):
            if uid not in self._terminating:
                self._terminating.add(uid)
                grace = pod["metadata"].get("deletionGracePeriodSeconds", 0) or 0
                self.env.process(self._terminate(uid, min(float(grace), self.options.pod_termination_seconds)))
            return
        if uid not in self._started:
            self._started.add(uid)
            self.env.process(self._start(uid))

    def _pod_ip(self, uid: str) -> str:
        ip = self._ips.get(uid)
        if ip:
            return ip
        node = self.cluster.server.get("nodes", None, self.node_name)
        cidr = ((node or {}).get("spec") or {}).get("podCIDR")
        if not cidr:
            return ""
        net = ipaddress.ip_network(cidr, strict=False)
        ip = str(net.network_address + self._next_ip)  # .1 is the bridge/gateway, as host-local starts at .2
        self._next_ip += 1
        self._ips[uid] = ip
        return ip

    def _host_ip(self) -> str:
        node = self.cluster.server.get("nodes", None, self.node_name) or {}
        for a in (node.get("status") or {}).get("addresses") or []:
            if a.get("type") == "InternalIP":
                return a.get("address", "")
        return ""

    def _start(self, uid: str) -> Generator:
        yield self.env.timeout(self.options.pod_startup_seconds)
        while not self.up:
            yield self.env.timeout(1.0)
        pod = self.pods.get(uid)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        started = self.env.now
        if self.cluster.server.request_costs is None:
            self._write_running(uid, started)
        else:  # the status update waits for the kubelet's rate limiter and takes its latency
            yield from run_blocking(self.env, self._write_running, uid, started)
        run = (pod["metadata"].get("annotations") or {}).get(RUN_SECONDS_ANNOTATION)
        if run is None:
            return
        exit_code = int((pod["metadata"].get("annotations") or {}).get(EXIT_CODE_ANNOTATION, "0"))
        policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
        backoff = INITIAL_BACKOFF_SECONDS
        while True:
            yield self.env.timeout(float(run))
            while not self.up:  # the exit is posted once the kubelet is back
                yield self.env.timeout(1.0)
            pod = self.pods.get(uid)
            if pod is None or pod["metadata"].get("deletionTimestamp"):
                return
            restart = policy == "Always" or (policy == "OnFailure" and exit_code != 0)
            if not restart:
                self._write_terminated(uid, exit_code, started)
                return
            self._write_terminated(uid, exit_code, started, restarting=True, backoff_seconds=backoff)
            yield self.env.timeout(backoff)
            while not self.up:  # a stopped kubelet restarts nothing
                yield self.env.timeout(1.0)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
            self._restart_counts[uid] = self._restart_counts.get(uid, 0) + 1
            started = self.env.now
            self._write_running(uid, started)

    def _container_id(self, uid: str, name: str) -> str:
        h = hashlib.sha256(f"{uid}/{name}/{self._restart_counts.get(uid, 0)}".encode()).hexdigest()
        return f"containerd://{h}"

    def _status_base(self, pod: dict) -> dict:
        st = deep_copy(pod.get("status") or {})
        st["hostIP"] = self._host_ip()
        if st["hostIP"]:
            st["hostIPs"] = [{"ip": st["hostIP"]}]
        ip = self._pod_ip(pod["metadata"]["uid"])
        if ip:
            st["podIP"] = ip
            st["podIPs"] = [{"ip": ip}]
        return st

    def _set_conditions(self, st: dict, ready: bool, initialized: bool = True) -> None:
        now = self.cluster.server.timestamp()
        prev = {c.get("type"): c for c in st.get("conditions") or []}
        out = []
        for ctype, status in (("PodReadyToStartContainers", "True"), ("Initialized", "True" if initialized else "False"),
                              ("Ready", "True" if ready else "False"),
                              ("ContainersReady", "True" if ready else "False"), ("PodScheduled", "True")):
            p = prev.get(ctype)
            c = {"type": ctype, "status": status, "lastProbeTime": None,
                 "lastTransitionTime": p.get("lastTransitionTime") if p and p.get("status") == status else now}
            if status == "False" and ctype in ("Ready", "ContainersReady"):
                c["reason"] = "ContainersNotReady" if ctype == "ContainersReady" else "ContainersNotReady"
            out.append(c)
        st["conditions"] = out

    def _write(self, uid: str, st: dict) -> None:
        pod = self.pods.get(uid)
        if pod is None:
            return
        new = dict(pod)
        new["status"] = st
        try:
            out = self.client.update_status("pods", new, pod["metadata"]["namespace"])
            self.pods[uid] = out
        except ApiError:
            pass  # the status manager retries on the next sync

    def _write_running(self, uid: str, started: float) -> None:
        pod = self.pods.get(uid)
        if pod is None:
            return
        st = self._status_base(pod)
        st["phase"] = "Running"
        epoch = self.cluster.server.epoch
        st.setdefault("startTime", format_timestamp(self.env.now, epoch))
        self._set_conditions(st, ready=True)
        prev = {c.get("name"): c for c in st.get("containerStatuses") or []}
        st["containerStatuses"] = [{
            "name": c["name"], "image": c.get("image", ""), "imageID": c.get("image", ""),
            "containerID": self._container_id(uid, c["name"]), "ready": True, "started": True,
            "restartCount": self._restart_counts.get(uid, 0),
            "state": {"running": {"startedAt": format_timestamp(started, epoch)}},
            "lastState": (prev.get(c["name"]) or {}).get("lastState") or {}}
            for c in (pod.get("spec") or {}).get("containers") or []]
        self._write(uid, st)
        self._record_runs(pod, started)

    def _record_runs(self, pod: dict, started: float) -> None:
        """A new run of each container starts at ``started``: its modelled output goes in its log."""
        uid = pod["metadata"]["uid"]
        ann = pod["metadata"].get("annotations") or {}
        for c in (pod.get("spec") or {}).get("containers") or []:
            runs = self.runs.setdefault(uid, {}).setdefault(c["name"], [])
            cid = self._container_id(uid, c["name"])
            if runs and runs[-1].container_id == cid:
                continue
            lines = modelled_output(c, ann, container_env(pod, c))
            runs.append(ContainerRun(cid, started, lines=[(started + dt, text) for dt, text in lines]))

    def _write_terminated(self, uid: str, exit_code: int, started: float, restarting: bool = False,
                          backoff_seconds: float = INITIAL_BACKOFF_SECONDS) -> None:
        pod = self.pods.get(uid)
        if pod is None:
            return
        epoch = self.cluster.server.epoch
        st = self._status_base(pod)
        term = {"exitCode": exit_code, "reason": "Completed" if exit_code == 0 else "Error",
                "startedAt": format_timestamp(started, epoch), "finishedAt": format_timestamp(self.env.now, epoch),
                "containerID": self._container_id(uid, "")}
        statuses = []
        for c in (pod.get("spec") or {}).get("containers") or []:
            cs = {"name": c["name"], "image": c.get("image", ""), "imageID": c.get("image", ""),
                  "containerID": self._container_id(uid, c["name"]), "ready": False, "started": False,
                  "restartCount": self._restart_counts.get(uid, 0)}
            if restarting:
                # doBackOff's Waiting message (the BackOff event's words differ: "Back-off restarting ...")
                cs["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                           "message": f"back-off {go_duration(backoff_seconds)} restarting failed "
                                                      f"container={c['name']} pod={pod['metadata']['name']}_"
                                                      f"{pod['metadata']['namespace']}({uid})"}}
                cs["lastState"] = {"terminated": dict(term, containerID=cs["containerID"])}
            else:
                cs["state"] = {"terminated": dict(term, containerID=cs["containerID"])}
            statuses.append(cs)
        st["containerStatuses"] = statuses
        for runs in self.runs.get(uid, {}).values():
            if runs and runs[-1].finished_seconds is None:
                runs[-1].finished_seconds = float(self.env.now)
        if not restarting:
            st["phase"] = "Succeeded" if exit_code == 0 else "Failed"
        self._set_conditions(st, ready=False)
        self._write(uid, st)

    # ------------------------------------------------------------ container logs
    def container_log_reader(self, namespace: str, name: str, container: str,
                             options: dict | None = None) -> ContainerLogReader:
        """Answer ``GET /containerLogs/<namespace>/<name>/<container>`` (``GetKubeletContainerLogs``).

        Parameters
        ----------
        namespace, name, container : str
            The container, already validated against the pod by the API server.
        options : dict, optional
            ``PodLogOptions`` by upstream name (``previous``, ``follow``, ``tailLines``...).

        Returns
        -------
        ContainerLogReader

        Raises
        ------
        ApiError
            400 BadRequest with the kubelet's words: ``pod "x" cannot be found - no
            logs available``, or those of :func:`validate_container_log_status`;
            500 while the node is down (the kubelet does not answer).

        Notes
        -----
        A pod bound here whose containers have not started yet has no
        container status in the stand-in (the real kubelet posts
        ``waiting: ContainerCreating`` at once): it is answered as that status.
        """
        return open_container_log(self, namespace, name, container, options, self._log_status)

    def _log_status(self, pod: dict) -> dict:
        """The pod's status, or ``waiting: ContainerCreating`` for containers the stand-in has not started."""
        status = pod.get("status") or {}
        if not status.get("containerStatuses") and not self.runs.get(pod["metadata"]["uid"]):
            status = {"containerStatuses": [{"name": c["name"], "state": {"waiting": {"reason": "ContainerCreating"}}}
                                            for c in (pod.get("spec") or {}).get("containers") or []]}
        return status

    def _final_status(self, pod: dict, stop_exit_code: int) -> dict:
        """The status posted before the pod's deletion: its stopped containers, a terminal phase.

        As the kubelet: ``generateAPIPodStatus(..., podIsTerminal=true)`` over the
        runtime's view (:func:`~kubenotes.kubelet.status.generate_api_pod_status`), then the status
        manager's ``TerminatePod`` (:func:`~kubenotes.kubelet.status.terminate_pod`). The stand-in's
        runtime view: each container's last two runs (its logs' runs); a run still going
        exits with ``stop_exit_code`` now, an earlier run with the pod's exit-code annotation;
        sidecars (restartable init containers, not otherwise modelled) ran from the pod's
        first start; a pod whose containers never started has none (Failed, ContainerStatusUnknown).
        """
        from kubenotes.api.podutil import is_restartable_init_container
        from kubenotes.kubelet.status import (
            CONTAINER_STATE_EXITED,
            RuntimeContainerStatus,
            RuntimePodStatus,
            generate_api_pod_status,
            terminate_pod,
            terminated_reason,
        )

        uid = pod["metadata"]["uid"]
        now = float(self.env.now)
        epoch = self.cluster.server.epoch
        spec = pod.get("spec") or {}
        exit_code = int((pod["metadata"].get("annotations") or {}).get(EXIT_CODE_ANNOTATION, "0"))
        runs = self.runs.get(uid, {})
        instances = []
        for c in spec.get("containers") or []:
            mine = runs.get(c["name"]) or []
            for i, run in enumerate(mine):
                if i < len(mine) - 2:
                    continue
                code = stop_exit_code if run.finished_seconds is None else exit_code
                if run.finished_seconds is None:
                    run.finished_seconds = now  # the log's run ends here
                instances.append(RuntimeContainerStatus(
                    c["name"], CONTAINER_STATE_EXITED, id=run.container_id, image=c.get("image", ""),
                    image_ref=c.get("image", ""), created_at_seconds=run.started_seconds,
                    started_at_seconds=run.started_seconds, finished_at_seconds=run.finished_seconds,
                    exit_code=code, reason=terminated_reason(code), restart_count=i))
        first = min((r.started_seconds for rs in runs.values() for r in rs), default=None)
        if first is not None:
            for c in spec.get("initContainers") or []:
                if is_restartable_init_container(c):
                    instances.append(RuntimeContainerStatus(
                        c["name"], CONTAINER_STATE_EXITED, id=self._container_id(uid, c["name"]),
                        image=c.get("image", ""), image_ref=c.get("image", ""), created_at_seconds=first,
                        started_at_seconds=first, finished_at_seconds=now, exit_code=stop_exit_code,
                        reason=terminated_reason(stop_exit_code)))
        ip = self._ips.get(uid)
        host = self._host_ip()
        status = generate_api_pod_status(
            pod, RuntimePodStatus(ips=[ip] if ip else [], container_statuses=instances), now=now,
            host_ips=[host] if host else [], pod_is_terminal=True,
            format_time=lambda seconds: format_timestamp(seconds, epoch))
        return terminate_pod(pod, status)

    def _terminate(self, uid: str, seconds: float) -> Generator:
        yield self.env.timeout(seconds)
        while not self.up:
            yield self.env.timeout(1.0)
        pod = self.pods.get(uid)
        if pod is None:
            return
        # SyncTerminatingPod stopped the containers: SIGTERM, or SIGKILL when the grace period is shorter
        grace = float(pod["metadata"].get("deletionGracePeriodSeconds", 0) or 0)
        killed = grace < self.options.pod_termination_seconds
        self._write(uid, self._final_status(pod, SIGKILL_EXIT_CODE if killed else 0))
        pod = self.pods.get(uid, pod)
        md = pod["metadata"]
        try:
            self.client.delete("pods", md["name"], md["namespace"], grace_period_seconds=0,
                               preconditions={"uid": uid})
        except ApiError:
            pass
        self._ips.pop(uid, None)
