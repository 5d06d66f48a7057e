"""Liveness, readiness and startup probes: the prober's workers and manager.

Mirrors ``pkg/kubelet/prober`` (worker.go, prober_manager.go, prober.go,
results/results_manager.go). One **worker** per (pod, container, probe kind)
runs as a SimPy process:

* it waits a random part of ``periodSeconds`` first *only when the kubelet
  (the manager) started less than one period ago* (upstream's
  ``rand.Float64() * period`` after a kubelet restart; here the manager's
  seeded ``rng``), then calls ``doProbe`` at once and every ``periodSeconds``
  (a Go ticker: ticks missed while a slow probe runs collapse into one);
* ``doProbe`` skips the probe during ``initialDelaySeconds`` (compared as
  ``int(now - startedAt) < initialDelaySeconds``), runs only the startup probe
  until the container has *started*, and only readiness/liveness after;
* results are counted as upstream counts them: ``resultRun`` is the number of
  identical results in a row, and the stored result changes only once the run
  reaches ``failureThreshold`` (failures) or ``successThreshold`` (successes);
* a new container ID resets the stored result to the kind's initial value
  (readiness ``Failure``, liveness ``Success``, startup ``Unknown``) and
  resumes a worker that was on hold; after a liveness failure, and after
  any startup verdict, the worker holds until the next container;
* every failed probe records an ``Unhealthy`` Warning event
  (``Liveness probe failed: <output>``); a liveness or startup ``Failure``
  makes the kubelet kill the container with ``Container app failed liveness
  probe, will be restarted`` (a ``Killing`` event, :func:`kill_message`).

Probe *outcomes* are not computed here: the ``results_source`` says what each
exec/httpGet/tcpSocket/grpc handler would have returned (the kubelet model's
source: a scenario's steps, else :func:`kubenotes.kubelet.process_model.exec_probe_outcome`
for an exec probe on a file the container's script makes, else success).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/worker.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/prober_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/prober.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/results/results_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (computePodActions)
kubernetes/kubernetes@v1.34.0 pkg/probe/exec/exec.go, pkg/probe/http/http.go, pkg/probe/tcp/tcp.go, pkg/probe/grpc/grpc.go
https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import simpy

from kubenotes.kubelet.backoff import go_duration

__all__ = [
    "LIVENESS",
    "READINESS",
    "STARTUP",
    "SUCCESS",
    "FAILURE",
    "UNKNOWN",
    "CONTAINER_UNHEALTHY",
    "CONTAINER_PROBE_WARNING",
    "KILLING_CONTAINER",
    "REASON_LIVENESS_PROBE",
    "REASON_STARTUP_PROBE",
    "DEFAULT_PROBE",
    "probe_with_defaults",
    "probe_handler",
    "timeout_output",
    "default_failure_output",
    "kill_message",
    "ProbeOutcome",
    "table_results_source",
    "ProberManager",
    "Worker",
]

#: ``probeType`` names as ``probeType.String()`` prints them.
LIVENESS = "Liveness"
READINESS = "Readiness"
STARTUP = "Startup"
_SPEC_FIELD = {LIVENESS: "livenessProbe", READINESS: "readinessProbe", STARTUP: "startupProbe"}

#: ``results.Result`` values (``Result.String()``).
SUCCESS = "Success"
FAILURE = "Failure"
UNKNOWN = "UNKNOWN"

#: ``events.ContainerUnhealthy``.
CONTAINER_UNHEALTHY = "Unhealthy"
#: ``events.ContainerProbeWarning``.
CONTAINER_PROBE_WARNING = "ProbeWarning"
#: ``events.KillingContainer``.
KILLING_CONTAINER = "Killing"
#: ``reasonLivenessProbe`` / ``reasonStartupProbe`` (containerKillReason).
REASON_LIVENESS_PROBE = "LivenessProbe"
REASON_STARTUP_PROBE = "StartupProbe"

#: API defaults of a ``v1.Probe`` (``SetDefaults_Probe``).
DEFAULT_PROBE = {"initialDelaySeconds": 0, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}

_INITIAL_VALUE = {READINESS: FAILURE, LIVENESS: SUCCESS, STARTUP: UNKNOWN}


def probe_with_defaults(probe: Mapping[str, Any]) -> dict:
    """The probe with the API server's defaults filled in.

    Examples
    --------
    >>> probe_with_defaults({"httpGet": {"path": "/", "port": 80}})["periodSeconds"]
    10
    """
    out = dict(probe)
    for k, v in DEFAULT_PROBE.items():
        if out.get(k) is None:
            out[k] = v
    return out


def probe_handler(probe: Mapping[str, Any]) -> str:
    """Which handler the probe uses: ``exec``, ``httpGet``, ``tcpSocket`` or ``grpc``."""
    for h in ("exec", "httpGet", "tcpSocket", "grpc"):
        if probe.get(h) is not None:
            return h
    return "exec"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _port(probe_part: Mapping[str, Any], container: Mapping[str, Any] | None) -> Any:
    port = probe_part.get("port")
    if isinstance(port, str) and container is not None:
        for p in container.get("ports") or []:
            if p.get("name") == port:
                return p.get("containerPort")
    return port


def timeout_output(probe: Mapping[str, Any], pod_ip: str = "", container: Mapping[str, Any] | None = None) -> str:
    """The output text upstream's handlers give when the probe times out.

    Examples
    --------
    >>> timeout_output({"exec": {"command": ["cat", "/tmp/healthy"]}})
    'command "cat /tmp/healthy" timed out'
    >>> timeout_output({"tcpSocket": {"port": 80}}, "10.0.0.5")
    'dial tcp 10.0.0.5:80: i/o timeout'
    """
    h = probe_handler(probe)
    part = probe.get(h) or {}
    if h == "exec":
        return f"command {_q(' '.join(part.get('command') or []))} timed out"
    host = part.get("host") or pod_ip
    port = _port(part, container)
    if h == "httpGet":
        scheme = str(part.get("scheme") or "HTTP").lower()
        path = part.get("path") or "/"
        if not path.startswith("/"):
            path = "/" + path
        return (f'Get "{scheme}://{host}:{port}{path}": context deadline exceeded '
                "(Client.Timeout exceeded while awaiting headers)")
    if h == "tcpSocket":
        return f"dial tcp {host}:{port}: i/o timeout"
    timeout = probe.get("timeoutSeconds") or DEFAULT_PROBE["timeoutSeconds"]
    return f"timeout: failed to connect service {_q(f'{host}:{port}')} within {go_duration(timeout)}: context deadline exceeded"


def default_failure_output(probe: Mapping[str, Any], pod_ip: str = "", container: Mapping[str, Any] | None = None) -> str:
    """A plausible failure output per handler when the scenario gives none.

    Examples
    --------
    >>> default_failure_output({"httpGet": {"path": "/healthz", "port": 8080}})
    'HTTP probe failed with statuscode: 500'
    """
    h = probe_handler(probe)
    part = probe.get(h) or {}
    if h == "httpGet":
        return "HTTP probe failed with statuscode: 500"
    if h == "tcpSocket":
        return f"dial tcp {part.get('host') or pod_ip}:{_port(part, container)}: connect: connection refused"
    if h == "grpc":
        return 'service unhealthy (responded with "NOT_SERVING")'
    return ""


def kill_message(container_name: str, kind: str, restart_policy: str = "Always") -> str:
    """The ``Killing`` event message after a liveness or startup failure.

    Examples
    --------
    >>> kill_message("app", LIVENESS)
    'Container app failed liveness probe, will be restarted'
    >>> kill_message("app", STARTUP, "Never")
    'Container app failed startup probe'
    """
    message = f"Container {container_name} failed {kind.lower()} probe"
    if restart_policy != "Never":
        message += ", will be restarted"
    return message


@dataclass(frozen=True)
class ProbeOutcome:
    """What a probe handler returned.

    Attributes
    ----------
    result : str
        ``success``, ``warning``, ``failure``, ``timeout`` or ``unknown``.
    output : str
        The handler's output text (for failures: the event message's tail).
    """

    result: str = "success"
    output: str = ""


#: (pod_uid, container_name, kind, now) -> ProbeOutcome | (result, output) | result str
ResultsSource = Callable[[str, str, str, float], Any]


def table_results_source(table: Mapping[tuple, Any], default: Any = "success") -> ResultsSource:
    """A results source from a table keyed ``(pod_uid, container, kind)``.

    Values are a result string, a ``(result, output)`` pair, a
    :class:`ProbeOutcome`, or a callable ``now -> any of those``. The table is
    read at every probe, so a scenario may change it while the model runs.

    Examples
    --------
    >>> src = table_results_source({("u1", "app", LIVENESS): ("failure", "boom")})
    >>> src("u1", "app", LIVENESS, 0.0), src("u1", "app", READINESS, 0.0)
    (('failure', 'boom'), 'success')
    """

    def source(pod_uid: str, container: str, kind: str, now: float) -> Any:
        v = table.get((pod_uid, container, kind), default)
        return v(now) if callable(v) else v

    return source


def _as_outcome(value: Any) -> ProbeOutcome:
    if value is None:
        return ProbeOutcome()
    if isinstance(value, ProbeOutcome):
        return value
    if isinstance(value, str):
        return ProbeOutcome(value, "")
    result, output = value
    return ProbeOutcome(result, output or "")


@dataclass
class _ContainerState:
    container_id: str = ""
    running: bool = False
    started_at: float | None = None
    terminated: bool = False
    exit_code: int | None = None


class Worker:
    """One probe worker (``worker``): a SimPy process probing one container.

    Attributes
    ----------
    kind : str
        ``Liveness``, ``Readiness`` or ``Startup``.
    spec : dict
        The probe with defaults.
    container_id : str
        The container instance the worker follows ("" before the first).
    last_result : str or None
        The last probe result (``Success``/``Failure``), None before any.
    result_run : int
        How many identical results in a row.
    on_hold : bool
        True after a liveness failure or a startup verdict, until a new container.
    probes : list of tuple
        ``(time, outcome, output)`` of every probe actually run.

    Notes
    -----
    Built by :class:`ProberManager`; not meant to be created directly.
    """

    def __init__(self, manager: "ProberManager", kind: str, pod: Mapping[str, Any], container: Mapping[str, Any]) -> None:
        self.manager = manager
        self.env = manager.env
        self.kind = kind
        self.pod = pod
        self.pod_uid = (pod.get("metadata") or {}).get("uid", "")
        self.container = container
        self.container_name = container.get("name", "")
        self.spec = probe_with_defaults(container.get(_SPEC_FIELD[kind]) or {})
        self.initial_value = _INITIAL_VALUE[kind]
        self.container_id = ""
        self.last_result: str | None = None
        self.result_run = 0
        self.on_hold = False
        self.probes: list[tuple[float, str, str]] = []
        self._manual: simpy.Event | None = None
        self._stopped = False
        self.process: simpy.Process | None = None

    # --- results manager ------------------------------------------------
    def _set(self, result: str, message: str = "") -> None:
        self.manager._set_result(self, result, message)

    def _remove(self) -> None:
        self.manager._remove_result(self.kind, self.container_id)

    # --- the loop ---------------------------------------------------------
    def run(self):
        """The worker's SimPy process (``worker.run``)."""
        period = float(self.spec["periodSeconds"])
        try:
            if period > self.env.now - self.manager.start_seconds:
                yield self.env.timeout(self.manager.rng.random() * period)
            tick_origin = self.env.now
            last_tick = tick_origin
            while True:
                keep_going = yield from self.do_probe()
                if not keep_going or self._stopped:
                    break
                # Go ticker: next tick after the last one consumed; missed ticks collapse.
                now = self.env.now
                next_tick = last_tick + period
                if now >= next_tick:
                    last_tick = tick_origin + period * int((now - tick_origin) // period)
                    continue
                self._manual = self.env.event()
                tick = self.env.timeout(next_tick - now)
                fired = yield tick | self._manual
                manual = self._manual
                self._manual = None
                if manual in fired and tick not in fired:
                    tick_origin = last_tick = self.env.now  # probeTicker.Reset
                else:
                    last_tick = next_tick
        except simpy.Interrupt:
            pass
        finally:
            if self.container_id:
                self._remove()
            self.manager._remove_worker(self)

    def trigger(self) -> None:
        """``manualTriggerCh``: probe now and restart the ticker (non-blocking)."""
        if self._manual is not None and not self._manual.triggered:
            self._manual.succeed()

    def stop(self) -> None:
        """Stop the worker; it cleans its results up and leaves the manager."""
        if self._stopped:
            return
        self._stopped = True
        if self.process is not None and self.process.is_alive and self.process is not self.env.active_process:
            self.process.interrupt("stop")

    def do_probe(self):
        """Probe once and record the result (``doProbe``); a generator returning keep-going."""
        m = self.manager
        pod = m.pods.get(self.pod_uid, self.pod)
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Failed", "Succeeded"):
            return False
        state = m.containers.get((self.pod_uid, self.container_name))
        if state is None or not state.container_id:
            return True  # wait for more information
        if self.container_id != state.container_id:
            if self.container_id:
                self._remove()
            self.container_id = state.container_id
            self._set(self.initial_value)
            self.on_hold = False  # a new container: resume probing
        if self.on_hold:
            return True
        if not state.running:
            self._set(FAILURE)
            if not state.terminated:
                return True
            restart_policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
            sidecar = self.container.get("restartPolicy") == "Always"
            return restart_policy != "Never" or sidecar
        if (pod.get("metadata") or {}).get("deletionTimestamp") and self.kind in (LIVENESS, STARTUP):
            self._set(SUCCESS)  # quiet shutdown
            return False
        if int(self.env.now - (state.started_at or 0.0)) < int(self.spec["initialDelaySeconds"]):
            return True
        if m.is_container_started(self.pod_uid, self.container_name):
            if self.kind == STARTUP:
                return True
        elif self.kind != STARTUP:
            return True

        result, output = yield from self._probe(pod, state)
        if result is None:
            return True
        if self.last_result == result:
            self.result_run += 1
        else:
            self.last_result = result
            self.result_run = 1
        if (result == FAILURE and self.result_run < int(self.spec["failureThreshold"])) or (
            result == SUCCESS and self.result_run < int(self.spec["successThreshold"])
        ):
            return True
        message = output
        if result == FAILURE and self.kind in (LIVENESS, STARTUP):
            message = kill_message(self.container_name, self.kind, (pod.get("spec") or {}).get("restartPolicy", "Always"))
        self._set(result, message)
        if (self.kind == LIVENESS and result == FAILURE) or self.kind == STARTUP:
            self.on_hold = True
            self.result_run = 0
        return True

    def _probe(self, pod: Mapping[str, Any], state: _ContainerState):
        """``prober.probe``: ask the results source, take the time, record events."""
        m = self.manager
        outcome = _as_outcome(m.results_source(self.pod_uid, self.container_name, self.kind, self.env.now))
        pod_ip = (pod.get("status") or {}).get("podIP", "")
        r = outcome.result
        output = outcome.output
        if r == "timeout":
            yield self.env.timeout(float(self.spec["timeoutSeconds"]))
            output = output or timeout_output(self.spec, pod_ip, self.container)
            r = "failure"
        elif outcome.result not in ("success", "warning", "failure", "unknown"):
            raise ValueError(f"unknown probe outcome {outcome.result!r}")
        elif m.probe_seconds:
            yield self.env.timeout(m.probe_seconds)
        self.probes.append((self.env.now, outcome.result, output))
        if r == "success":
            return SUCCESS, output
        if r == "warning":
            m._event(self, "Warning", CONTAINER_PROBE_WARNING, f"{self.kind} probe warning: {output}")
            return SUCCESS, output
        if r == "unknown":
            return FAILURE, output
        if not output:
            output = default_failure_output(self.spec, pod_ip, self.container)
        m._event(self, "Warning", CONTAINER_UNHEALTHY, f"{self.kind} probe failed: {output}")
        return FAILURE, output


class ProberManager:
    """The kubelet's probe manager (``prober.Manager``).

    Parameters
    ----------
    env : simpy.Environment
    rng : random.Random
        Seeded; draws the first-probe jitter of workers started within one
        period of the manager's creation.
    results_source : callable or mapping, optional
        ``(pod_uid, container, kind, now) -> outcome`` (see
        :func:`table_results_source`; a mapping is wrapped by it). Default:
        every probe succeeds.
    on_result : callable, optional
        ``on_result(pod_uid, container, kind, result, message)``, called when a
        stored result *changes* (as the results manager's update channel). For
        a liveness/startup ``Failure`` the message is :func:`kill_message`.
    on_event : callable, optional
        ``on_event(pod_uid, container, type, reason, message)`` for
        ``Unhealthy``/``ProbeWarning`` events; they are also kept in ``events``.
    probe_seconds : float
        Virtual time a non-timed-out probe takes (default 0).

    Attributes
    ----------
    events : list of dict
        Every probe event: ``time``, ``pod_uid``, ``container``, ``type``, ``reason``, ``message``.
    results_log : list of dict
        Every stored-result change: ``time``, ``pod_uid``, ``container``, ``kind``, ``result``, ``message``.

    Notes
    -----
    Simplified: the pod status comes from the kubelet's calls
    (:meth:`container_started`, :meth:`container_exited`, :meth:`update_pod`)
    instead of the status manager, and the ``Started`` flag is computed when
    read instead of at the next status sync; the kubelet's reaction to a
    result update (a status sync that triggers readiness) is modelled by
    :meth:`update_pod_status`, called on container start and startup success.
    Probe retries on errors (``maxProbeRetries``) and metrics are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/prober_manager.go

    Examples
    --------
    >>> import random, simpy
    >>> env = simpy.Environment()
    >>> changes = []
    >>> m = ProberManager(env, random.Random(1), {("u1", "app", LIVENESS): ("failure", "boom")},
    ...                   on_result=lambda *a: changes.append(a))
    >>> pod = {"metadata": {"uid": "u1", "name": "web", "namespace": "default"},
    ...        "spec": {"containers": [{"name": "app", "livenessProbe": {"exec": {"command": ["true"]}}}]}}
    >>> env.run(until=20); m.add_pod(pod); m.container_started("u1", "app", "c1", started_at=20)
    >>> env.run(until=60)
    >>> changes[-1]
    ('u1', 'app', 'Liveness', 'Failure', 'Container app failed liveness probe, will be restarted')
    >>> env.now - 20 >= 20   # three failures 10 s apart
    True
    """

    def __init__(
        self,
        env: simpy.Environment,
        rng: Any,
        results_source: ResultsSource | Mapping | None = None,
        on_result: Callable[..., Any] | None = None,
        on_event: Callable[..., Any] | None = None,
        *,
        probe_seconds: float = 0.0,
    ) -> None:
        self.env = env
        self.rng = rng
        if results_source is None:
            results_source = {}
        if isinstance(results_source, Mapping):
            results_source = table_results_source(results_source)
        self.results_source = results_source
        self.on_result = on_result
        self.on_event = on_event
        self.probe_seconds = float(probe_seconds)
        self.start_seconds = float(env.now)
        self.workers: dict[tuple[str, str, str], Worker] = {}
        self.pods: dict[str, Mapping[str, Any]] = {}
        self.containers: dict[tuple[str, str], _ContainerState] = {}
        self.results: dict[str, dict[str, str]] = {LIVENESS: {}, READINESS: {}, STARTUP: {}}
        self.events: list[dict] = []
        self.results_log: list[dict] = []

    # --- pods -------------------------------------------------------------
    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """Start a worker for every probe of the pod's containers and sidecars (``AddPod``)."""
        uid = (pod.get("metadata") or {}).get("uid", "")
        self.pods[uid] = pod
        spec = pod.get("spec") or {}
        sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
        for c in list(spec.get("containers") or []) + sidecars:
            for kind in (STARTUP, READINESS, LIVENESS):
                if c.get(_SPEC_FIELD[kind]) is None:
                    continue
                key = (uid, c.get("name", ""), kind)
                if key in self.workers:
                    continue
                w = Worker(self, kind, pod, c)
                self.workers[key] = w
                w.process = self.env.process(w.run())

    def update_pod(self, pod: Mapping[str, Any]) -> None:
        """Give the workers the pod's latest object (phase, deletionTimestamp, podIP)."""
        self.pods[(pod.get("metadata") or {}).get("uid", "")] = pod

    def remove_pod(self, pod: Mapping[str, Any]) -> None:
        """Stop the pod's workers (``RemovePod``)."""
        uid = (pod.get("metadata") or {}).get("uid", "")
        for key, w in list(self.workers.items()):
            if key[0] == uid:
                w.stop()

    def stop_liveness_and_startup(self, pod: Mapping[str, Any]) -> None:
        """``StopLivenessAndStartup``: stop probing a terminating pod's liveness/startup."""
        uid = (pod.get("metadata") or {}).get("uid", "")
        for key, w in list(self.workers.items()):
            if key[0] == uid and key[2] in (LIVENESS, STARTUP):
                w.stop()

    # --- container status (from the kubelet) -------------------------------
    def container_started(self, pod_uid: str, container: str, container_id: str, started_at: float | None = None) -> None:
        """A container instance is running since ``started_at`` (default now)."""
        self.containers[(pod_uid, container)] = _ContainerState(
            container_id, True, self.env.now if started_at is None else float(started_at))
        self.update_pod_status(pod_uid)

    def container_exited(self, pod_uid: str, container: str, container_id: str | None = None, exit_code: int | None = None) -> None:
        """The container instance exited (``State.Terminated``)."""
        st = self.containers.setdefault((pod_uid, container), _ContainerState())
        if container_id is not None:
            st.container_id = container_id
        st.running, st.terminated, st.exit_code = False, True, exit_code

    def container_waiting(self, pod_uid: str, container: str) -> None:
        """The container is waiting (no running instance, not terminated)."""
        st = self.containers.setdefault((pod_uid, container), _ContainerState())
        st.running = st.terminated = False

    # --- queries -----------------------------------------------------------
    def worker(self, pod_uid: str, container: str, kind: str) -> Worker | None:
        """The worker for (pod, container, kind), if any."""
        return self.workers.get((pod_uid, container, kind))

    def _result(self, kind: str, pod_uid: str, container: str) -> str | None:
        st = self.containers.get((pod_uid, container))
        if st is None or not st.container_id:
            return None
        return self.results[kind].get(st.container_id)

    def readiness(self, pod_uid: str, container: str) -> str | None:
        """The stored readiness result of the current container instance (None if unset)."""
        return self._result(READINESS, pod_uid, container)

    def liveness(self, pod_uid: str, container: str) -> str | None:
        """The stored liveness result of the current container instance."""
        return self._result(LIVENESS, pod_uid, container)

    def startup(self, pod_uid: str, container: str) -> str | None:
        """The stored startup result of the current container instance."""
        return self._result(STARTUP, pod_uid, container)

    def is_container_started(self, pod_uid: str, container: str) -> bool:
        """``isContainerStarted``: running and (startup succeeded or there is no startup probe)."""
        st = self.containers.get((pod_uid, container))
        if st is None or not st.running:
            return False
        r = self._result(STARTUP, pod_uid, container)
        if r is not None:
            return r == SUCCESS
        return (pod_uid, container, STARTUP) not in self.workers

    def container_ready(self, pod_uid: str, container: str) -> bool:
        """``UpdatePodStatus``'s ready flag: started and (readiness Success or no readiness probe)."""
        st = self.containers.get((pod_uid, container))
        if not self.is_container_started(pod_uid, container) or st is None or not st.running:
            return False
        if self.readiness(pod_uid, container) == SUCCESS:
            return True
        return (pod_uid, container, READINESS) not in self.workers

    def update_pod_status(self, pod_uid: str) -> None:
        """``UpdatePodStatus``: trigger the readiness probe of started, not-ready containers."""
        for (uid, name, kind), w in list(self.workers.items()):
            if uid != pod_uid or kind != READINESS:
                continue
            if self.is_container_started(uid, name) and self.readiness(uid, name) != SUCCESS:
                w.trigger()

    # --- internals --------------------------------------------------------
    def _set_result(self, w: Worker, result: str, message: str) -> None:
        store = self.results[w.kind]
        if store.get(w.container_id) == result:
            return
        store[w.container_id] = result
        self.results_log.append({"time": self.env.now, "pod_uid": w.pod_uid, "container": w.container_name,
                                 "kind": w.kind, "result": result, "message": message})
        if self.on_result is not None:
            self.on_result(w.pod_uid, w.container_name, w.kind, result, message)
        if w.kind == STARTUP and result == SUCCESS:
            self.update_pod_status(w.pod_uid)

    def _remove_result(self, kind: str, container_id: str) -> None:
        self.results[kind].pop(container_id, None)

    def _remove_worker(self, w: Worker) -> None:
        key = (w.pod_uid, w.container_name, w.kind)
        if self.workers.get(key) is w:
            del self.workers[key]

    def _event(self, w: Worker, type_: str, reason: str, message: str) -> None:
        self.events.append({"time": self.env.now, "pod_uid": w.pod_uid, "container": w.container_name,
                            "type": type_, "reason": reason, "message": message})
        if self.on_event is not None:
            self.on_event(w.pod_uid, w.container_name, type_, reason, message)
