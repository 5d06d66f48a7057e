"""What the model can tell of a container's process: when it ends, which files it makes, what an exec probe sees.

A real node runs the container's program; kubenotes reads its command line
instead (:func:`kubenotes.cri.runtime.command_outcome`). This module holds the
kubelet model's decisions where that reading runs out, each one said to the
learner as an Event with reason :data:`MODEL_ASSUMPTION` (not an upstream
reason: upstream's kubelet has nothing to assume):

* **run time of commands the model cannot read** (:func:`run_outcome`): a
  container of a *batch* pod (owned by a Job, or ``restartPolicy``
  ``Never``/``OnFailure``) and a regular init container exit with code 0 after
  ``KubeletConfiguration.default_run_seconds`` (:data:`DEFAULT_RUN_SECONDS`,
  10 s, about what the Job tutorial's ``perl`` computing 2000 digits of pi
  takes); the containers of long-running pods (``restartPolicy: Always``
  outside a Job) and sidecars keep running until stopped, as a server does.
  An image the runtime's catalogue describes, run with its own command
  (``nginx:1.27`` with no ``command``/``args``), is a known server and keeps
  running too. The pod annotations ``kubenotes.io/run-seconds`` and
  ``kubenotes.io/exit-code`` still set both for every container of the pod.
* **files a container's script makes** (:func:`file_timeline`): ``touch``,
  ``echo ... > file`` and ``rm`` in a ``sh -c`` script of simple statements
  and ``sleep N``, on the container's clock;
* **exec probes on those files** (:func:`exec_probe_outcome`): ``cat FILE``,
  ``test -e|-f FILE``, ``ls FILE``, ``stat FILE`` succeed while the script's
  file exists and fail with the tool's own words once it is removed (the
  liveness tutorial's ``touch /tmp/healthy; sleep 30; rm -f /tmp/healthy;
  sleep 600``). Any other probe cannot be known: it is taken to succeed
  unless a Scenario ``probe`` step says otherwise, and the kubelet says so
  once per container and probe (:func:`probe_assumption_message`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/prober.go (runProbe: exec, httpGet, tcpSocket, grpc)
kubernetes/kubernetes@v1.34.0 pkg/probe/exec/exec.go
https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
https://kubernetes.io/docs/concepts/workloads/controllers/job/#running-an-example-job
"""

from __future__ import annotations

import shlex
from typing import Any, Mapping, Sequence

from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.cri.runtime import RUNS_FOREVER, command_outcome

__all__ = [
    "DEFAULT_RUN_SECONDS",
    "MODEL_ASSUMPTION",
    "is_batch_pod",
    "run_outcome",
    "assumed_exit_message",
    "file_timeline",
    "exec_probe_outcome",
    "probe_assumption_message",
]

#: ``KubeletConfiguration.default_run_seconds``'s default: how long a command the model cannot read runs in a
#: batch pod or an init container before it exits 0.
DEFAULT_RUN_SECONDS = 10.0
#: The reason of the kubelet model's own Events, where it says what it assumed (not an upstream reason).
MODEL_ASSUMPTION = "ModelAssumption"

_SHELLS = {"sh", "bash", "ash", "dash"}


def is_batch_pod(pod: Mapping[str, Any]) -> bool:
    """A pod meant to finish: owned by a Job, or ``restartPolicy`` ``Never``/``OnFailure``.

    Examples
    --------
    >>> is_batch_pod({"spec": {"restartPolicy": "Never"}}), is_batch_pod({"spec": {}})
    (True, False)
    >>> is_batch_pod({"metadata": {"ownerReferences": [{"kind": "Job", "name": "pi"}]}, "spec": {}})
    True
    """
    owners = (pod.get("metadata") or {}).get("ownerReferences") or []
    if any(o.get("kind") == "Job" for o in owners):
        return True
    return (pod.get("spec") or {}).get("restartPolicy", "Always") in ("Never", "OnFailure")


def _container(pod: Mapping[str, Any], name: str) -> tuple[Mapping[str, Any] | None, bool]:
    spec = pod.get("spec") or {}
    for c in spec.get("initContainers") or []:
        if c.get("name") == name:
            return c, True
    for c in spec.get("containers") or []:
        if c.get("name") == name:
            return c, False
    return None, False


def run_outcome(pod: Mapping[str, Any], container_name: str, argv: Sequence[str],
                default_run_seconds: float = DEFAULT_RUN_SECONDS,
                image_program_known: bool = False) -> tuple[tuple[float, int] | None, bool]:
    """When the container's process ends: ``(outcome, assumed)``.

    Parameters
    ----------
    pod : dict
        The pod (owner references, ``restartPolicy``, init containers).
    container_name : str
        A regular or init container of the pod.
    argv : list of str
        The process's arguments as the runtime resolved them (entrypoint and command).
    default_run_seconds : float
        ``KubeletConfiguration.default_run_seconds``.
    image_program_known : bool
        The image is one the runtime's catalogue describes (``nginx``,
        ``redis``, ``postgres``...) and the pod gives no ``command`` or
        ``args``: its own program is known to run until stopped, so nothing is assumed.

    Returns
    -------
    outcome : tuple of (float, int) or None
        ``(run_seconds, exit_code)`` for the runtime, or None: it runs until stopped.
    assumed : bool
        True when the outcome is the model's assumption (a command it cannot
        read, in a batch pod or a regular init container).

    Examples
    --------
    >>> job_pod = {"metadata": {"ownerReferences": [{"kind": "Job", "name": "pi"}]},
    ...            "spec": {"restartPolicy": "Never", "containers": [{"name": "pi"}]}}
    >>> run_outcome(job_pod, "pi", ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"])
    ((10.0, 0), True)
    >>> run_outcome(job_pod, "pi", ["sleep", "3"])
    ((3.0, 0), False)
    >>> web = {"spec": {"containers": [{"name": "web"}]}}
    >>> run_outcome(web, "web", ["nginx", "-g", "daemon off;"])
    (None, False)
    >>> run_outcome({"spec": {"restartPolicy": "Never", "containers": [{"name": "web"}]}}, "web",
    ...             ["/docker-entrypoint.sh", "nginx", "-g", "daemon off;"], image_program_known=True)
    (None, False)
    """
    outcome = command_outcome(list(argv))
    if isinstance(outcome, tuple):
        return outcome, False
    if outcome == RUNS_FOREVER or image_program_known:
        return None, False
    container, is_init = _container(pod, container_name)
    if container is not None and is_init and is_restartable_init_container(container):
        return None, False  # a sidecar is long-running
    if is_init or is_batch_pod(pod):
        return (float(default_run_seconds), 0), True
    return None, False


def assumed_exit_message(container: Mapping[str, Any], run_seconds: float) -> str:
    """The :data:`MODEL_ASSUMPTION` Event's message for an assumed run time.

    Parameters
    ----------
    container : dict
        The container spec (``name``, ``command``, ``args``).
    run_seconds : float
        The assumed run time.

    Returns
    -------
    str

    Examples
    --------
    >>> print(assumed_exit_message({"name": "pi", "command": ["perl", "-wle", "print 1"]}, 10.0))
    ... # doctest: +NORMALIZE_WHITESPACE
    kubenotes cannot tell when "perl -wle 'print 1'" (container pi) ends: it is assumed to exit 0 after 10s
    (KubeletConfiguration.default_run_seconds; the pod annotations kubenotes.io/run-seconds and
    kubenotes.io/exit-code set both)
    >>> print(assumed_exit_message({"name": "ffmpeg", "args": ["-i", "in.mkv"]}, 10.0)[:71])
    kubenotes cannot tell when the image's entrypoint with args "-i in.mkv"
    """
    from kubenotes.kubelet.backoff import go_duration

    command = [str(a) for a in container.get("command") or []]
    args = [str(a) for a in container.get("args") or []]
    if command:
        what = f'"{shlex.join(command + args)}"'
    elif args:
        what = f'the image\'s entrypoint with args "{shlex.join(args)}"'
    else:
        what = "the image's command"
    return (f"kubenotes cannot tell when {what} (container {container.get('name', '')}) ends: it is assumed to "
            f"exit 0 after {go_duration(run_seconds)} (KubeletConfiguration.default_run_seconds; the pod "
            "annotations kubenotes.io/run-seconds and kubenotes.io/exit-code set both)")


def _script(argv: Sequence[str]) -> str | None:
    """The ``sh -c`` script of a command line (None for anything else)."""
    if argv and argv[0].rsplit("/", 1)[-1] in _SHELLS and "-c" in argv[1:]:
        i = list(argv).index("-c")
        return argv[i + 1] if i + 1 < len(argv) else ""
    return None


def file_timeline(argv: Sequence[str]) -> tuple[dict[str, list[tuple[float, bool]]], float]:
    """The files a container's ``sh -c`` script creates and removes, on its clock.

    Parameters
    ----------
    argv : list of str
        The process's arguments.

    Returns
    -------
    changes : dict[str, list[tuple[float, bool]]]
        Path -> ``(seconds after start, exists afterwards)`` in order.
    known_until : float
        Seconds after start up to which the script is read; ``inf`` when the
        whole script is read, 0 when it is not a script the model reads. After
        it (a loop, a program the model does not know...) the files are unknown.

    Examples
    --------
    >>> file_timeline(["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"])
    ({'/tmp/healthy': [(0.0, True), (30.0, False)]}, inf)
    >>> file_timeline(["sh", "-c", "echo ok > /tmp/ready; exec nginx"])
    ({'/tmp/ready': [(0.0, True)]}, 0.0)
    """
    script = _script(argv)
    changes: dict[str, list[tuple[float, bool]]] = {}
    if script is None:
        return changes, 0.0
    t = 0.0
    for part in script.replace("&&", ";").replace("\n", ";").split(";"):
        try:
            tokens = shlex.split(part)
        except ValueError:
            return changes, t
        if not tokens:
            continue
        cmd = tokens[0].rsplit("/", 1)[-1]
        redirect = [tokens[i + 1] for i, tok in enumerate(tokens[:-1]) if tok in (">", ">>")]
        redirect += [tok[1:] for tok in tokens if tok.startswith(">") and len(tok) > 1 and tok[1] != ">"]
        if cmd == "sleep":
            arg = tokens[1] if len(tokens) > 1 else "0"
            try:
                t += float(arg.rstrip("s"))
            except ValueError:
                return changes, t  # sleep infinity: the rest is never reached
        elif cmd == "touch":
            for path in tokens[1:]:
                if not path.startswith("-"):
                    changes.setdefault(path, []).append((t, True))
        elif cmd == "rm":
            for path in tokens[1:]:
                if not path.startswith("-"):
                    changes.setdefault(path, []).append((t, False))
        elif cmd in ("echo", "printf", "true", ":", "mkdir", "date", "hostname", "env"):
            for path in redirect:
                changes.setdefault(path, []).append((t, True))
        elif cmd == "exit":
            return changes, float("inf")
        else:
            return changes, t
    return changes, float("inf")


def _file_exists(argv: Sequence[str], path: str, seconds: float) -> bool | None:
    changes, known_until = file_timeline(argv)
    history = changes.get(path)
    if not history or seconds < history[0][0] or seconds > known_until:
        return None  # the image's files, or past what the script says
    exists = history[0][1]
    for t, state in history:
        if t <= seconds:
            exists = state
    return exists


def _missing_output(tool: str, path: str, busybox: bool) -> str:
    """What ``cat``/``ls``/``stat``/``test`` print for a missing file (busybox or GNU coreutils words)."""
    if tool == "cat":
        return f"cat: can't open '{path}': No such file or directory" if busybox \
            else f"cat: {path}: No such file or directory"
    if tool == "ls":
        return f"ls: {path}: No such file or directory" if busybox \
            else f"ls: cannot access '{path}': No such file or directory"
    if tool == "stat":
        return f"stat: can't stat '{path}': No such file or directory" if busybox \
            else f"stat: cannot statx '{path}': No such file or directory"
    return ""  # test prints nothing


def _probe_file(command: Sequence[str]) -> tuple[str, str] | None:
    """``(tool, path)`` of a probe command that only checks one file."""
    cmd = list(command)
    script = _script(cmd)
    if script is not None:
        try:
            cmd = shlex.split(script)
        except ValueError:
            return None
    if not cmd:
        return None
    tool = cmd[0].rsplit("/", 1)[-1]
    args = cmd[1:]
    if tool in ("cat", "ls", "stat") and len(args) == 1 and not args[0].startswith("-"):
        return tool, args[0]
    if tool == "test" and len(args) == 2 and args[0] in ("-e", "-f"):
        return tool, args[1]
    if tool == "[" and len(args) == 3 and args[0] in ("-e", "-f") and args[2] == "]":
        return "test", args[1]
    return None


def exec_probe_outcome(probe: Mapping[str, Any], argv: Sequence[str], image: str,
                       seconds_since_start: float) -> tuple[str, str] | None:
    """What an exec probe on a file the container's script makes answers, or None when the model cannot know.

    Parameters
    ----------
    probe : dict
        The probe (its ``exec.command``).
    argv : list of str
        The container process's arguments.
    image : str
        The container's image (``busybox`` images print busybox's words).
    seconds_since_start : float
        Seconds since the container started.

    Returns
    -------
    tuple of (str, str) or None
        ``("success", "")`` or ``("failure", output)``; None when the probe is
        not an exec probe on one file, or the script does not say whether the
        file exists then.

    Examples
    --------
    >>> probe = {"exec": {"command": ["cat", "/tmp/healthy"]}}
    >>> argv = ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]
    >>> exec_probe_outcome(probe, argv, "registry.k8s.io/busybox:1.27.2", 10)
    ('success', '')
    >>> exec_probe_outcome(probe, argv, "registry.k8s.io/busybox:1.27.2", 35)
    ('failure', "cat: can't open '/tmp/healthy': No such file or directory")
    >>> exec_probe_outcome({"exec": {"command": ["/healthcheck"]}}, argv, "busybox", 35) is None
    True
    """
    command = (probe.get("exec") or {}).get("command")
    if not command:
        return None
    target = _probe_file(command)
    if target is None:
        return None
    tool, path = target
    exists = _file_exists(argv, path, seconds_since_start)
    if exists is None:
        return None
    if exists:
        return "success", ""
    return "failure", _missing_output(tool, path, "busybox" in image.rsplit("/", 1)[-1])


def probe_assumption_message(container_name: str, kind: str, probe: Mapping[str, Any]) -> str:
    """The :data:`MODEL_ASSUMPTION` Event's message for a probe whose answer the model cannot know.

    Examples
    --------
    >>> probe_assumption_message("app", "Liveness", {"httpGet": {"path": "/healthz", "port": 80}})
    'kubenotes cannot tell what the liveness probe (httpGet :80/healthz) of container app answers: it is assumed to succeed (a Scenario probe step sets its result)'
    """
    if probe.get("exec") is not None:
        what = "exec " + shlex.join([str(a) for a in (probe["exec"].get("command") or [])])
    elif probe.get("httpGet") is not None:
        part = probe["httpGet"]
        what = f"httpGet {part.get('host', '')}:{part.get('port')}{part.get('path') or '/'}"
    elif probe.get("tcpSocket") is not None:
        what = f"tcpSocket :{probe['tcpSocket'].get('port')}"
    elif probe.get("grpc") is not None:
        what = f"grpc :{probe['grpc'].get('port')}"
    else:
        what = "no handler"
    return (f"kubenotes cannot tell what the {kind.lower()} probe ({what}) of container {container_name} answers: "
            "it is assumed to succeed (a Scenario probe step sets its result)")
