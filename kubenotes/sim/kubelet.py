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
  pod being deleted is removed (``DELETE`` with grace period 0) after
  ``pod_termination_seconds`` (never later than its grace period).

``node_down()`` stops heartbeats and status (the node "dies", its pods keep
their last status); ``node_up()`` resumes them.

Stand-in conventions (KWOK-style annotations on a pod, for Jobs and retries):
``kubenotes.io/run-seconds: "5"`` makes the containers exit after 5 s of
running, with ``kubenotes.io/exit-code`` (default ``"0"``). The pod then
turns ``Succeeded``/``Failed`` under ``restartPolicy: Never``; under
``OnFailure``/``Always`` the container restarts with the kubelet's back-off
(10 s doubling to 300 s), counting ``restartCount``.

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
kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go, pkg/kubelet/kubelet_pods.go (generateAPIPodStatus)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go (nodeStatusUpdateFrequency 10s, nodeStatusReportFrequency 5m, nodeLeaseDurationSeconds 40)
kubernetes/kubernetes@v1.34.0 test/kubemark (hollow node); sigs.k8s.io/kwok stages
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (validateContainerLogStatus, GetKubeletContainerLogs)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs: since, tail, limitBytes, timestamps, follow)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import ipaddress
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Generator

from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError, new_bad_request
from kubenotes.apiserver.store import deep_copy

__all__ = ["KubeletOptions", "StandInKubelet", "NODE_LEASE_NAMESPACE", "RUN_SECONDS_ANNOTATION",
           "EXIT_CODE_ANNOTATION", "LOG_ANNOTATION", "modelled_output", "validate_container_log_status",
           "ContainerRun", "ContainerLogReader",
           "format_log_timestamp"]

NODE_LEASE_NAMESPACE = "kube-node-lease"
RUN_SECONDS_ANNOTATION = "kubenotes.io/run-seconds"
EXIT_CODE_ANNOTATION = "kubenotes.io/exit-code"
#: A learner's script of a container's output: ``kubenotes.io/log`` (every container) or
#: ``kubenotes.io/log.<container>`` (one container); its lines are printed when the container starts.
LOG_ANNOTATION = "kubenotes.io/log"
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


# --------------------------------------------------------------------------- container logs
_SHELLS = ("sh", "bash", "ash", "dash", "zsh")
_SEPARATORS = (";", "&&")
_SLEEP_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PRINTF_SPEC = re.compile(r"%(%|[-+ 0#]*\d*(?:\.\d+)?[sdiuxXoc])")


def _unescape(text: str) -> str:
    """The backslash escapes ``printf`` (and ``echo -e``) interpret."""
    out, i = [], 0
    table = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in table:
            out.append(table[text[i + 1]])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _printf(fmt: str, args: list[str]) -> str:
    """``printf FORMAT ARGS``: ``%s``, ``%d`` and friends with the arguments, the format reused while any are left."""
    args = list(args)
    out = []
    while True:
        used = [0]

        def sub(m: re.Match) -> str:
            spec = m.group(1)
            if spec == "%":
                return "%"
            val = args.pop(0) if args else ""
            used[0] += 1
            conv = spec[-1]
            try:
                if conv in "diuxXoc":
                    num = int(val or 0)
                    return ("%" + spec.replace("u", "d")) % (chr(num) if conv == "c" else num)
                return ("%" + spec) % val
            except (ValueError, TypeError):
                return val
        out.append(_unescape(_PRINTF_SPEC.sub(sub, fmt)))
        if not args or not used[0]:
            return "".join(out)


def _sleep_seconds(args: list[str]) -> float | None:
    """``sleep 5``, ``sleep 1m 30s``, ``sleep 0.5``; None for ``infinity`` or what is not a duration."""
    total = 0.0
    for a in args:
        m = re.fullmatch(r"(\d+(?:\.\d*)?)([smhd]?)", a)
        if m is None:
            return None
        total += float(m.group(1)) * _SLEEP_UNITS[m.group(2) or "s"]
    return total if args else None


def _statements(script: str) -> list[list[str]] | None:
    """A shell script as simple commands, or None from the first construct this model does not interpret."""
    lex = shlex.shlex(script, posix=True, punctuation_chars=";&|<>()")
    lex.whitespace = " \t\r"
    lex.commenters = ""
    lex.wordchars += "$`{}:,+%@!^[]"  # keep $VAR, ${VAR} and backquotes inside their words
    out: list[list[str]] = [[]]
    try:
        tokens = list(lex)
    except ValueError:  # unbalanced quotes
        return None
    for tok in tokens:
        if tok == "\n" or tok in _SEPARATORS or (tok and set(tok) <= {";", "\n"}):
            out.append([])
            continue
        if tok and set(tok) & set(";&|<>()"):
            # a pipe, redirection, subshell...: the command it touches and all after it are unknown
            out[-1] = None  # type: ignore[call-overload]
            break
        parts = tok.split("\n")  # shlex keeps newlines inside words when they are not whitespace
        for j, part in enumerate(parts):
            if j:
                out.append([])
            if part:
                out[-1].append(part)
    return [c for c in out if c != []]  # None stays, ending the script


_K8S_VAR = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_SHELL_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_kubernetes_vars(text: str, env: dict[str, str]) -> str:
    """The kubelet's ``$(VAR)`` expansion of ``command`` and ``args`` (``$$`` escapes; unknown names stay).

    Examples
    --------
    >>> expand_kubernetes_vars("hello $(NAME) $(MISSING) $$(NAME)", {"NAME": "web"})
    'hello web $(MISSING) $(NAME)'
    """
    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))

    return _K8S_VAR.sub(sub, text)


def container_env(pod: dict, container: dict) -> dict[str, str]:
    """The variables the model knows a container's shell has: literal ``env`` values and ``HOSTNAME``.

    ``HOSTNAME`` is the pod's hostname (``spec.hostname`` or the pod name),
    as the runtime sets it. Variables from ``valueFrom``, ``envFrom`` and the
    Service links are not known here.

    Examples
    --------
    >>> container_env({"metadata": {"name": "web-1"}}, {"env": [{"name": "A", "value": "1"}, {"name": "B",
    ...                "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]})
    {'HOSTNAME': 'web-1', 'A': '1'}
    """
    env = {"HOSTNAME": (pod.get("spec") or {}).get("hostname") or (pod.get("metadata") or {}).get("name", "")}
    for e in container.get("env") or ():
        if "value" in e and "valueFrom" not in e:
            env[e["name"]] = expand_kubernetes_vars(str(e["value"]), env)
    return env


def _expand_shell_words(cmd: list[str], env: dict[str, str]) -> list[str] | None:
    """``$VAR``/``${VAR}`` in each word from ``env``; None when a word needs anything else (unknown names,
    ``$(...)``, arithmetic, backquotes)."""
    out = []
    for w in cmd:
        if "`" in w:
            return None
        names = [a or b for a, b in _SHELL_VAR.findall(w)]
        if any(n not in env for n in names):
            return None
        w2 = _SHELL_VAR.sub(lambda m: env[m.group(1) or m.group(2)], w)
        if "$" in _SHELL_VAR.sub("", w):
            return None
        out.append(w2)
    return out


def modelled_output(container: dict, annotations: dict | None = None,
                    env: dict[str, str] | None = None) -> list[tuple[float, str]]:
    """What a container prints, as far as the model can know: ``(seconds after start, line)`` pairs.

    Parameters
    ----------
    container : dict
        The container spec (``name``, ``command``, ``args``).
    annotations : dict, optional
        The pod's annotations: ``kubenotes.io/log.<name>`` or ``kubenotes.io/log`` script the output.
    env : dict, optional
        The variables known to the container (:func:`container_env`): the
        kubelet expands ``$(VAR)`` in ``command``/``args`` with them, and the
        shell ``$VAR``/``${VAR}`` in a ``sh -c`` script.

    Returns
    -------
    list of (float, str)
        Lines in order; the seconds add up the ``sleep`` commands before each.

    Notes
    -----
    Only ``echo`` (with ``-n``/``-e``), ``printf``, ``sleep N``, ``true`` and
    ``:`` are interpreted, with ``$VAR`` expanded from ``env`` (a script that
    single-quotes a ``$`` stops there: the model does not track quoting after
    splitting words), as the whole command or in a ``sh -c`` script of
    simple commands joined by ``;``, ``&&`` or newlines. Anything else ends
    the modelled output: its output and what follows it are unknowable
    without running the program. A command with no ``command:`` runs the
    image's entrypoint, which the model does not know: empty.

    Examples
    --------
    >>> modelled_output({"name": "c", "command": ["sh", "-c", "echo hello; sleep 5; printf '%s-%d\\\\n' a 1"]})
    [(0.0, 'hello'), (5.0, 'a-1')]
    >>> modelled_output({"name": "c", "command": ["echo"], "args": ["one", "two"]})
    [(0.0, 'one two')]
    >>> modelled_output({"name": "c", "command": ["sh", "-c", "echo start; while true; do echo tick; sleep 1; done"]})
    [(0.0, 'start')]
    >>> modelled_output({"name": "web", "image": "nginx"}, {"kubenotes.io/log": "ready\\nlistening on 80"})
    [(0.0, 'ready'), (0.0, 'listening on 80')]
    >>> modelled_output({"name": "c", "command": ["sh", "-c", "echo hello from $HOSTNAME; echo $(GREETING)"]},
    ...                 env={"HOSTNAME": "hello-1", "GREETING": "hi"})
    [(0.0, 'hello from hello-1'), (0.0, 'hi')]
    """
    ann = annotations or {}
    scripted = ann.get(f"{LOG_ANNOTATION}.{container.get('name', '')}", ann.get(LOG_ANNOTATION))
    if scripted is not None:
        return [(0.0, line) for line in str(scripted).splitlines()]
    env = env or {}
    argv = [expand_kubernetes_vars(str(a), env) for a in (container.get("command") or [])]
    if not argv:
        return []
    argv += [expand_kubernetes_vars(str(a), env) for a in container.get("args") or []]
    prog = argv[0].rsplit("/", 1)[-1]
    if prog in _SHELLS and len(argv) >= 3 and argv[1] in ("-c", "-ec", "-xc", "-exc", "-euc", "-eu", "-e"):
        if argv[1] in ("-e", "-eu"):  # sh -e -c SCRIPT
            if argv[2] != "-c" or len(argv) < 4:
                return []
            script = argv[3]
        else:
            script = argv[2]
        statements = _statements(script)
        if statements is None:
            return []
        if re.search(r"'[^']*\$[^']*'", script):
            env = None  # a single-quoted $ is literal, which the split words no longer show: stop at any $
    else:
        statements = [argv]
    lines: list[tuple[float, str]] = []
    t, pending = 0.0, ""
    for cmd in statements:
        if cmd is None or not cmd:
            break
        if any("$" in w or "`" in w for w in cmd):
            expanded = _expand_shell_words(cmd, env) if env is not None else None
            if expanded is None:
                break  # other expansions need the shell's state
            cmd = expanded
        name, rest = cmd[0].rsplit("/", 1)[-1], cmd[1:]
        if name == "echo":
            newline, escapes = True, False
            while rest and rest[0] in ("-n", "-e", "-ne", "-en", "-E"):
                newline = newline and "n" not in rest[0]
                escapes = "e" in rest[0] and rest[0] != "-E"
                rest = rest[1:]
            text = " ".join(rest)
            text = (_unescape(text) if escapes else text) + ("\n" if newline else "")
        elif name == "printf" and rest:
            text = _printf(rest[0], rest[1:])
        elif name in ("true", ":"):
            continue
        elif name == "sleep":
            secs = _sleep_seconds(rest)
            if secs is None:
                break  # sleep infinity: nothing more is printed
            t += secs
            continue
        else:
            break  # exit, a loop, another program: what follows is not modelled
        pending += text
        *complete, pending = pending.split("\n")
        lines.extend((t, line) for line in complete)
    if pending:
        lines.append((t, pending))
    return lines


def format_log_timestamp(seconds: float, epoch: _dt.datetime) -> str:
    """A log line's timestamp as the kubelet prints it (``RFC3339NanoFixed``: nine fractional digits).

    Examples
    --------
    >>> import datetime as dt
    >>> format_log_timestamp(2.5, dt.datetime(2025, 8, 27, tzinfo=dt.timezone.utc))
    '2025-08-27T00:00:02.500000000Z'
    """
    t = epoch + _dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}000Z"


@dataclass
class ContainerRun:
    """One run of a container (one ``containerID``) and the lines it prints.

    Attributes
    ----------
    container_id : str
    started_seconds : float
    finished_seconds : float or None
        When it exited (None while it runs).
    lines : list of (float, str)
        ``(virtual time, text)``, some possibly still in the future (after a ``sleep``).
    """

    container_id: str
    started_seconds: float
    finished_seconds: float | None = None
    lines: list[tuple[float, str]] = field(default_factory=list)

    def visible(self, now: float) -> list[tuple[float, str]]:
        """The lines printed by ``now`` (and before the exit)."""
        end = now if self.finished_seconds is None else min(now, self.finished_seconds)
        return [ln for ln in self.lines if ln[0] <= end]


class ContainerLogReader:
    """A ``kubectl logs`` request being answered: the kubelet's ``ReadLogs`` over one :class:`ContainerRun`.

    :meth:`read` returns the text not yet returned; the first call applies
    ``sinceSeconds``/``sinceTime`` and ``tailLines``, every call counts
    against ``limitBytes``. Without ``follow`` the reader is :attr:`done` after
    the first read; with it, when the run has exited (or the pod is gone)
    and every line has been read.

    Parameters
    ----------
    kubelet : StandInKubelet
    run : ContainerRun
    uid : str
        The pod's uid (the reader ends when the kubelet forgets the pod).
    options : dict
        ``PodLogOptions`` by upstream name (see :meth:`APIServer.pod_log`).
    """

    def __init__(self, kubelet: "StandInKubelet", run: ContainerRun, uid: str, options: dict):
        self.kubelet, self.run, self.uid = kubelet, run, uid
        self.follow = bool(options.get("follow"))
        self.timestamps = bool(options.get("timestamps"))
        self.tail_lines = options.get("tailLines")
        self.limit_bytes = options.get("limitBytes")
        now = float(kubelet.env.now)
        self.since_seconds: float | None = None
        if options.get("sinceSeconds") is not None:
            self.since_seconds = now - float(options["sinceSeconds"])
        elif options.get("sinceTime"):
            since = _dt.datetime.fromisoformat(str(options["sinceTime"]).replace("Z", "+00:00"))
            if since.tzinfo is None:
                since = since.replace(tzinfo=_dt.timezone.utc)
            self.since_seconds = (since - kubelet.cluster.server.epoch).total_seconds()
        self._next = 0
        self._sent_bytes = 0
        self._first = True
        self.done = False

    def _line(self, t: float, text: str) -> str:
        if self.timestamps:
            return f"{format_log_timestamp(t, self.kubelet.cluster.server.epoch)} {text}\n"
        return text + "\n"

    def read(self) -> str:
        """The log text printed since the last read (call with the model's lock held)."""
        if self.done:
            return ""
        now = float(self.kubelet.env.now)
        visible = self.run.visible(now)
        new = visible[self._next:]
        self._next = len(visible)
        if self._first:
            self._first = False
            if self.since_seconds is not None:
                new = [ln for ln in new if ln[0] >= self.since_seconds]
            if self.tail_lines is not None:
                new = new[len(new) - int(self.tail_lines):] if int(self.tail_lines) > 0 else []
        text = "".join(self._line(t, x) for t, x in new)
        if self.limit_bytes is not None:
            room = int(self.limit_bytes) - self._sent_bytes
            raw = text.encode()
            if len(raw) >= room:
                text = raw[:max(room, 0)].decode(errors="ignore")
                self.done = True
            self._sent_bytes += len(text.encode())
        gone = self.uid not in self.kubelet.pods
        if not self.follow or gone or (self.run.finished_seconds is not None
                                       and len(self.run.visible(float("inf"))) <= self._next):
            self.done = True
        return text


def validate_container_log_status(pod_name: str, status: dict, container: str, previous: bool) -> str:
    """The ``containerID`` whose log a request means (``validateContainerLogStatus``), or 400 with the kubelet's words.

    ``previous`` means the last terminated run; otherwise the running one is
    preferred, then the terminated one, then the last terminated.

    Raises
    ------
    ApiError
        400 BadRequest: ``container "c" in pod "p" is not available``,
        ``previous terminated container "c" in pod "p" not found``,
        ``container "c" in pod "p" is waiting to start: ContainerCreating``,
        ``container "c" in pod "p" is terminated``.

    Examples
    --------
    >>> st = {"containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "ContainerCreating"}}}]}
    >>> validate_container_log_status("web", st, "c", False)
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: container "c" in pod "web" is waiting to start: ContainerCreating
    >>> st = {"containerStatuses": [{"name": "c", "containerID": "containerd://2", "state": {"running": {}},
    ...        "lastState": {"terminated": {"containerID": "containerd://1"}}}]}
    >>> validate_container_log_status("web", st, "c", False), validate_container_log_status("web", st, "c", True)
    ('containerd://2', 'containerd://1')

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (validateContainerLogStatus)
    """
    cs = None
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        cs = next((c for c in status.get(key) or [] if c.get("name") == container), None)
        if cs is not None:
            break
    if cs is None:
        raise new_bad_request(f'container "{container}" in pod "{pod_name}" is not available')
    last = (cs.get("lastState") or {}).get("terminated")
    state = cs.get("state") or {}
    waiting, running, terminated = state.get("waiting"), state.get("running"), state.get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            raise new_bad_request(f'previous terminated container "{container}" in pod "{pod_name}" not found')
        return last["containerID"]
    if running is not None:
        return cs.get("containerID", "")
    if terminated is not None:
        if terminated.get("containerID"):
            return terminated["containerID"]
        if last and last.get("containerID"):
            return last["containerID"]
        raise new_bad_request(f'container "{container}" in pod "{pod_name}" is terminated')
    if last is not None:
        if not last.get("containerID"):
            raise new_bad_request(f'container "{container}" in pod "{pod_name}" is terminated')
        return last["containerID"]
    if waiting is not None:
        reason = waiting.get("reason", "")
        if reason == "ErrImagePull":
            reason = "image can't be pulled"
        elif reason == "ImagePullBackOff":
            reason = "trying and failing to pull image"
        raise new_bad_request(f'container "{container}" in pod "{pod_name}" is waiting to start: {reason}')
    raise new_bad_request(f'container "{container}" in pod "{pod_name}" is waiting to start - no logs yet')


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

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.env.process(self._heartbeat())
        self.env.process(self._pod_source())

    def node_down(self) -> None:
        """Stop heartbeats and status updates (the node is unreachable); pods keep their last status."""
        self.up = False

    def node_up(self) -> None:
        """Resume heartbeats; status is posted at once."""
        if not self.up:
            self.up = True
            self._status_posted_at = -1e9
            if self._wake is not None and not self._wake.triggered:
                self._wake.succeed()

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
        selector = f"spec.nodeName={self.node_name}"
        while True:
            lst = self.client.list("pods", field_selector=selector)
            for p in lst["items"]:
                self._on_pod(p)
            try:
                w = self.client.watch("pods", field_selector=selector,
                                      resource_version=lst["metadata"]["resourceVersion"])
            except ApiError:
                continue
            while not w.stopped:
                yield w.wait()
                for ev in w.pop_all():
                    if ev.type == "DELETED":
                        self.pods.pop(ev.object["metadata"]["uid"], None)
                        self.runs.pop(ev.object["metadata"]["uid"], None)  # removing the pod removes its logs
                    elif ev.type in ("ADDED", "MODIFIED"):
                        self._on_pod(ev.object)

    def _on_pod(self, pod: dict) -> None:
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
        self._write_running(uid, started)
        run = (pod["metadata"].get("annotations") or {}).get(RUN_SECONDS_ANNOTATION)
        if run is None:
            return
        exit_code = int((pod["metadata"].get("annotations") or {}).get(EXIT_CODE_ANNOTATION, "0"))
        policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
        backoff = INITIAL_BACKOFF_SECONDS
        while True:
            yield self.env.timeout(float(run))
            pod = self.pods.get(uid)
            if pod is None or pod["metadata"].get("deletionTimestamp"):
                return
            restart = policy == "Always" or (policy == "OnFailure" and exit_code != 0)
            if not restart:
                self._write_terminated(uid, exit_code, started)
                return
            self._write_terminated(uid, exit_code, started, restarting=True)
            yield self.env.timeout(backoff)
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

    def _write_terminated(self, uid: str, exit_code: int, started: float, restarting: bool = False) -> None:
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
                cs["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                           "message": f"back-off restarting failed container {c['name']} in pod "
                                                      f"{pod['metadata']['name']}_{pod['metadata']['namespace']}"
                                                      f"({uid})"}}
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
        opts = dict(options or {})
        if not self.up:
            from kubenotes.apiserver.server import _kubelet_unreachable

            raise _kubelet_unreachable(self.node_name, f"/containerLogs/{namespace}/{name}/{container}")
        pod = next((p for p in self.pods.values()
                    if p["metadata"]["name"] == name and p["metadata"].get("namespace") == namespace), None)
        if pod is None:
            raise new_bad_request(f'pod "{name}" cannot be found - no logs available')
        uid = pod["metadata"]["uid"]
        status = pod.get("status") or {}
        if not status.get("containerStatuses") and not self.runs.get(uid):
            status = {"containerStatuses": [{"name": c["name"], "state": {"waiting": {"reason": "ContainerCreating"}}}
                                            for c in (pod.get("spec") or {}).get("containers") or []]}
        cid = validate_container_log_status(name, status, container, bool(opts.get("previous")))
        run = next((r for r in self.runs.get(uid, {}).get(container, []) if r.container_id == cid), None)
        if run is None:  # an init or ephemeral container: the stand-in runs none, so they print nothing
            run = ContainerRun(cid, float(self.env.now), float(self.env.now))
        return ContainerLogReader(self, run, uid, opts)

    def _terminate(self, uid: str, seconds: float) -> Generator:
        yield self.env.timeout(seconds)
        while not self.up:
            yield self.env.timeout(1.0)
        pod = self.pods.get(uid)
        if pod is None:
            return
        md = pod["metadata"]
        try:
            self.client.delete("pods", md["name"], md["namespace"], grace_period_seconds=0,
                               preconditions={"uid": uid})
        except ApiError:
            pass
        self._ips.pop(uid, None)
