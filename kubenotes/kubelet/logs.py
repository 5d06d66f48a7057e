"""What a container prints, as far as the model can know, and the kubelet's log reading.

The model runs no processes, so a container's log holds only what its spec
says it prints: plain ``echo``/``printf``/``sleep`` in its ``command`` (or a
``sh -c`` script of them), with the kubelet's ``$(VAR)`` expansion and the
shell's ``$VAR`` from literal ``env`` values and ``HOSTNAME``, or lines a
learner scripts with the ``kubenotes.io/log`` annotation. Each start of a
container is a :class:`ContainerRun`; :class:`ContainerLogReader` reads them
with ``kubectl logs``' options, as the kubelet's ``ReadLogs`` does.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs, timestamps, tail, limitBytes)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (validateContainerLogStatus)
kubernetes/kubernetes@v1.34.0 third_party/forked/golang/expansion/expand.go ($(VAR) in command and args)
"""

from __future__ import annotations

import datetime as _dt
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from kubenotes.apiserver.status import ApiError, new_bad_request

__all__ = ["open_container_log", "LOG_ANNOTATION", "modelled_output", "expand_kubernetes_vars", "container_env", "ContainerRun",
           "ContainerLogReader", "format_log_timestamp", "validate_container_log_status"]

#: A learner's script of a container's output: ``kubenotes.io/log`` (every container) or
#: ``kubenotes.io/log.<container>`` (one container); its lines are printed when the container starts.
LOG_ANNOTATION = "kubenotes.io/log"


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


def container_env(pod: dict, container: dict, service_env: dict[str, str] | None = None) -> dict[str, str]:
    """The variables the model knows a container's shell has: ``HOSTNAME``, the Service links, literal ``env``.

    ``HOSTNAME`` is the pod's hostname (``spec.hostname`` or the pod name),
    as the runtime sets it. ``service_env`` (the kubelet's Service variables,
    :func:`kubenotes.kubelet.envvars.service_env_vars`) comes before the
    container's own ``env``, which may refer to it with ``$(VAR)`` and wins
    over it (``makeEnvironmentVariables``). Variables from ``valueFrom`` and
    ``envFrom`` are not known here.

    Examples
    --------
    >>> container_env({"metadata": {"name": "web-1"}}, {"env": [{"name": "A", "value": "1"}, {"name": "B",
    ...                "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]})
    {'HOSTNAME': 'web-1', 'A': '1'}
    >>> container_env({"metadata": {"name": "web-1"}}, {"env": [{"name": "API", "value": "$(KUBERNETES_SERVICE_HOST)"}]},
    ...               {"KUBERNETES_SERVICE_HOST": "10.96.0.1"})
    {'HOSTNAME': 'web-1', 'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'API': '10.96.0.1'}
    """
    env = {"HOSTNAME": (pod.get("spec") or {}).get("hostname") or (pod.get("metadata") or {}).get("name", "")}
    env.update(service_env or {})
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


def open_container_log(kubelet: Any, namespace: str, name: str, container: str, options: dict | None,
                       status_of: Callable[[dict], dict]) -> "ContainerLogReader":
    """``GetKubeletContainerLogs`` for either kubelet: find the pod, check the container, open its run's log.

    Parameters
    ----------
    kubelet : Kubelet or StandInKubelet
        Its ``up``, ``node_name``, ``pods`` (uid -> pod), ``runs`` and ``env``.
    namespace, name, container : str
    options : dict, optional
        ``PodLogOptions`` (``previous``, ``follow``, ``tailLines``...).
    status_of : callable(pod) -> dict
        The pod status the kubelet answers from (its own last write, or what it would write).

    Raises
    ------
    ApiError
        500 while the node is down (a dial error), 400 for an unknown pod and with
        :func:`validate_container_log_status`'s words.
    """
    opts = dict(options or {})
    if not kubelet.up:
        from kubenotes.apiserver.server import _kubelet_unreachable

        raise _kubelet_unreachable(kubelet.node_name, f"/containerLogs/{namespace}/{name}/{container}")
    pod = next((p for p in kubelet.pods.values()
                if p["metadata"]["name"] == name and p["metadata"].get("namespace") == namespace), None)
    if pod is None:
        raise new_bad_request(f'pod "{name}" cannot be found - no logs available')
    uid = pod["metadata"]["uid"]
    cid = validate_container_log_status(name, status_of(pod), container, bool(opts.get("previous")))
    run = next((r for r in kubelet.runs.get(uid, {}).get(container, []) if r.container_id == cid), None)
    if run is None:  # a container the model has no run for prints nothing
        run = ContainerRun(cid, float(kubelet.env.now), float(kubelet.env.now))
    return ContainerLogReader(kubelet, run, uid, opts)
