"""Server-side apply: field managers, ``managedFields``, and apply conflicts.

``kubectl apply --server-side`` (and lightkube's ``Client.apply``) send
``PATCH`` with ``Content-Type: application/apply-patch+yaml`` and a
``fieldManager``. The API server then merges the *applied configuration*
into the live object and records, per manager, the set of fields it owns in
``metadata.managedFields`` (``fieldsV1``). A field the applier sets to a
value different from the live one, while another manager owns it, is a
**conflict**: 409 ``Apply failed with 1 conflict: conflict with "kubectl"
with subresource "scale" using apps/v1: .spec.replicas``, unless the
request has ``force=true``, which takes the field over. A field the
applier owned before and leaves out of its new configuration is removed
from the object, unless another manager owns it too.

Field sets are Python sets of *paths*; a path is a tuple of upstream's path
elements in their ``fieldsV1`` spelling: ``"f:spec"`` (a field or map key),
``'k:{"name":"nginx"}'`` (an element of an associative list by its keys),
``'v:"a"'`` (an element of a set), ``"i:0"`` (by index). A leaf is a member;
so is an associative list's element (``"."`` in ``fieldsV1``) and its key
fields. :func:`path_string` prints a path as upstream's conflict messages do
(``.spec.template.spec.containers[name="nginx"].image``).

Notes
-----
Simplified from upstream (structured-merge-diff), and said so here:

* Ownership is tracked from the first server-side apply of an object on.
  Writes before that (create, update, client-side apply) record no
  ``managedFields``; the first apply then finds the object's existing fields
  owned by upstream's placeholder manager ``before-first-apply`` (what
  upstream does for an object without managed fields). After that, every
  write records an ``Update`` entry for its manager with the leaf fields it
  changed, which moves them away from other managers, as upstream does.
* Which lists are associative (``x-kubernetes-list-type: map`` with its keys)
  or sets comes from the patch metadata of the built-in types
  (:mod:`kubenotes.apiserver.patch_meta`); every other list is atomic (owned
  whole). Maps marked ``x-kubernetes-map-type: atomic`` (``LabelSelector``)
  are treated as granular maps.
* No per-version conversion of field sets: the object is stored at the
  version it is served at.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go (messages)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/structuredmerge.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyPatcher, force)
kubernetes-sigs/structured-merge-diff@v6 fieldpath/element.go (path elements, String), merge/update.go (Apply)
https://kubernetes.io/docs/reference/using-api/server-side-apply/
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy

__all__ = [
    "ListInfo",
    "ATOMIC",
    "BEFORE_FIRST_APPLY",
    "field_set",
    "fields_v1",
    "parse_fields_v1",
    "path_string",
    "apply_configuration",
    "record_update",
    "manager_for",
    "new_apply_conflict",
]

#: ``(list_type, keys)``: ``("atomic", ())``, ``("set", ())`` or ``("map", ("name",))``.
ListInfo = tuple[str, tuple[str, ...]]

ATOMIC: ListInfo = ("atomic", ())

#: The manager upstream gives the fields of an object that had no managed fields when it was first applied.
BEFORE_FIRST_APPLY = "before-first-apply"

#: A resolver: the list info of the list at a field-name path from the object's root
#: (``("spec", "template", "spec", "containers")``).
ListResolver = Callable[[tuple[str, ...]], ListInfo]


def _atomic(_: tuple[str, ...]) -> ListInfo:
    return ATOMIC


#: Defaults of list-map key fields a configuration may leave out (``protocol`` of container and Service ports
#: is a key with the OpenAPI default ``TCP``; upstream fills it from the schema before keying).
KEY_DEFAULTS = {"protocol": "TCP"}


def _key_values(item: dict, keys: tuple[str, ...]) -> dict:
    return {k: item.get(k, KEY_DEFAULTS.get(k)) for k in sorted(keys)}


def _key_element(item: dict, keys: tuple[str, ...]) -> str:
    return "k:" + json.dumps(_key_values(item, keys), separators=(",", ":"))


def _value_element(v: Any) -> str:
    return "v:" + json.dumps(v, separators=(",", ":"))


def field_set(obj: Any, resolve: ListResolver = _atomic, *, skip_top: Iterable[str] = ("apiVersion", "kind")
              ) -> set[tuple[str, ...]]:
    """The set of field paths a configuration sets (upstream ``ToFieldSet``).

    ``metadata.name``/``namespace`` count, as upstream's do; ``apiVersion`` and
    ``kind`` do not.

    Examples
    --------
    >>> cfg = {"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}}
    >>> lists = {("spec", "template", "spec", "containers"): ("map", ("name",))}
    >>> for p in sorted(field_set(cfg, lambda fp: lists.get(fp, ATOMIC))):
    ...     print(path_string(p))
    .spec.replicas
    .spec.template.spec.containers[name="a"]
    .spec.template.spec.containers[name="a"].image
    .spec.template.spec.containers[name="a"].name
    """
    out: set[tuple[str, ...]] = set()
    skip = set(skip_top)

    def walk(v: Any, path: tuple[str, ...], fpath: tuple[str, ...]) -> None:
        if isinstance(v, dict) and v:
            for k, child in v.items():
                if child is None or (not path and k in skip):
                    continue
                walk(child, path + (f"f:{k}",), fpath + (k,))
            return
        if isinstance(v, list) and v:
            list_type, keys = resolve(fpath)
            if list_type == "map":
                for item in v:
                    if isinstance(item, dict):
                        p = path + (_key_element(item, keys),)
                        out.add(p)
                        walk(item, p, fpath)
                return
            if list_type == "set":
                for item in v:
                    out.add(path + (_value_element(item),))
                return
        out.add(path)  # a leaf: scalar, empty map/list, or an atomic list

    walk(obj, (), ())
    return out


def fields_v1(paths: Iterable[tuple[str, ...]]) -> dict:
    """A path set as the ``fieldsV1`` trie (``"."`` marks a member that also has members below it).

    Examples
    --------
    >>> fields_v1({("f:spec", "f:replicas"), ("f:spec", 'k:{"name":"a"}'), ("f:spec", 'k:{"name":"a"}', "f:name")})
    {'f:spec': {'f:replicas': {}, 'k:{"name":"a"}': {'.': {}, 'f:name': {}}}}
    """
    root: dict = {}
    members = set(paths)
    for p in sorted(members):
        node = root
        for i, el in enumerate(p):
            node = node.setdefault(el, {})
            if i < len(p) - 1 and p[: i + 1] in members:
                node.setdefault(".", {})
    return root


def parse_fields_v1(trie: dict) -> set[tuple[str, ...]]:
    """The path set of a ``fieldsV1`` trie (inverse of :func:`fields_v1`).

    Examples
    --------
    >>> sorted(parse_fields_v1({"f:spec": {"f:replicas": {}, "k:{\\"name\\":\\"a\\"}": {".": {}, "f:name": {}}}}))
    [('f:spec', 'f:replicas'), ('f:spec', 'k:{"name":"a"}'), ('f:spec', 'k:{"name":"a"}', 'f:name')]
    """
    out: set[tuple[str, ...]] = set()

    def walk(node: dict, path: tuple[str, ...]) -> None:
        for k, child in node.items():
            if k == ".":
                out.add(path)
            elif child:
                walk(child, path + (k,))
            else:
                out.add(path + (k,))

    walk(trie or {}, ())
    return out


def path_string(path: Iterable[str]) -> str:
    """A path as upstream prints it in conflicts (``fieldpath.Path.String``).

    Examples
    --------
    >>> path_string(("f:spec", "f:containers", 'k:{"name":"nginx"}', "f:image"))
    '.spec.containers[name="nginx"].image'
    >>> path_string(("f:metadata", "f:finalizers", 'v:"a"')), path_string(("f:x", "i:0"))
    ('.metadata.finalizers[=a]', '.x[0]')
    """
    out = []
    for el in path:
        kind, rest = el[:1], el[2:]
        if kind == "f":
            out.append("." + rest)
        elif kind == "k":
            keys = json.loads(rest)
            out.append("[" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(keys.items())) + "]")
        elif kind == "v":
            v = json.loads(rest)
            out.append(f"[={v if isinstance(v, str) else json.dumps(v)}]")
        else:
            out.append(f"[{rest}]")
    return "".join(out)


# ------------------------------------------------------------------ navigation
def _find(container: Any, el: str) -> tuple[bool, Any]:
    kind, rest = el[:1], el[2:]
    if kind == "f":
        if isinstance(container, dict) and rest in container:
            return True, container[rest]
        return False, None
    if not isinstance(container, list):
        return False, None
    if kind == "k":
        keys = json.loads(rest)
        for item in container:
            if isinstance(item, dict) and _key_values(item, tuple(keys)) == keys:
                return True, item
        return False, None
    if kind == "v":
        v = json.loads(rest)
        return (True, v) if v in container else (False, None)
    i = int(rest)
    return (True, container[i]) if 0 <= i < len(container) else (False, None)


def _get(obj: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    cur = obj
    for el in path:
        ok, cur = _find(cur, el)
        if not ok:
            return False, None
    return True, cur


def _remove(obj: Any, path: tuple[str, ...]) -> None:
    ok, parent = _get(obj, path[:-1])
    if not ok:
        return
    el = path[-1]
    kind, rest = el[:1], el[2:]
    if kind == "f" and isinstance(parent, dict):
        parent.pop(rest, None)
    elif isinstance(parent, list):
        found, item = _find(parent, el)
        if found:
            parent.remove(item)


def _prune_empty(obj: dict, path: tuple[str, ...]) -> None:
    """Drop maps left empty by a removal, up to (not including) the root."""
    for n in range(len(path) - 1, 0, -1):
        ok, v = _get(obj, path[:n])
        if ok and isinstance(v, dict) and not v and path[n - 1].startswith("f:"):
            _remove(obj, path[:n])
        else:
            break


# ------------------------------------------------------------------ merging
def _merge(live: Any, cfg: Any, fpath: tuple[str, ...], resolve: ListResolver) -> Any:
    if isinstance(cfg, dict) and isinstance(live, dict):
        out = dict(live)
        for k, v in cfg.items():
            if v is None:
                continue
            out[k] = _merge(live.get(k), v, fpath + (k,), resolve)
        return out
    if isinstance(cfg, list) and isinstance(live, list):
        list_type, keys = resolve(fpath)
        if list_type == "map":
            out = [deep_copy(x) for x in live]
            for item in cfg:
                if not isinstance(item, dict):
                    continue
                want = _key_values(item, keys)
                for i, cur in enumerate(out):
                    if isinstance(cur, dict) and _key_values(cur, keys) == want:
                        out[i] = _merge(cur, item, fpath, resolve)
                        break
                else:
                    out.append(deep_copy(item))
            return out
        if list_type == "set":
            return list(live) + [deep_copy(x) for x in cfg if x not in live]
    return deep_copy(cfg)


def _ownership(managed: list[dict]) -> list[tuple[dict, set[tuple[str, ...]]]]:
    return [(e, parse_fields_v1(e.get("fieldsV1") or {})) for e in managed]


def _manager_id(entry: dict) -> str:
    """How a manager is printed in a conflict (``printManager``)."""
    s = json.dumps(entry.get("manager", ""))
    if entry.get("subresource"):
        s += f" with subresource {json.dumps(entry['subresource'])}"
    if entry.get("operation") == "Update":
        s += f" using {entry.get('apiVersion', '')}"
    return s


def new_apply_conflict(conflicts: list[tuple[dict, tuple[str, ...]]]) -> ApiError:
    """409 Conflict with upstream's apply-conflict message and ``FieldManagerConflict`` causes.

    Examples
    --------
    >>> e = new_apply_conflict([({"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1",
    ...                          "subresource": "scale"}, ("f:spec", "f:replicas"))])
    >>> e.code, str(e)
    (409, 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas')
    """
    causes = [{"type": "FieldManagerConflict", "message": f"conflict with {_manager_id(e)}",
               "field": path_string(p)} for e, p in conflicts]
    if len(conflicts) == 1:
        msg = f"Apply failed with 1 conflict: conflict with {_manager_id(conflicts[0][0])}: " \
              f"{path_string(conflicts[0][1])}"
    else:
        by: dict[str, list[str]] = {}
        for e, p in conflicts:
            by.setdefault(_manager_id(e), []).append(path_string(p))
        lines: list[str] = []
        for m in sorted(by):
            lines.append(f"conflicts with {m}:")
            lines += [f"- {p}" for p in by[m]]
        msg = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": msg,
                     "reason": "Conflict", "details": {"causes": causes}, "code": 409})


def _entry(manager: str, operation: str, api_version: str, time: str, paths: set[tuple[str, ...]],
           subresource: str = "") -> dict:
    e = {"manager": manager, "operation": operation, "apiVersion": api_version, "time": time,
         "fieldsType": "FieldsV1", "fieldsV1": fields_v1(paths)}
    if subresource:
        e["subresource"] = subresource
    return e


def apply_configuration(live: dict | None, config: dict, manager: str, *, force: bool = False, time: str = "",
                        resolve: ListResolver = _atomic) -> dict:
    """Merge an applied configuration into the live object; returns the new object (``live`` unchanged).

    Parameters
    ----------
    live : dict or None
        The stored object, or None when the apply creates it.
    config : dict
        The applied configuration (the request body).
    manager : str
        The ``fieldManager`` (kubectl sends ``kubectl``).
    force : bool
        Take over conflicting fields instead of failing.
    time : str
        metav1 time for the managed-fields entry.
    resolve : callable
        The list info of a list by its field-name path (see :data:`ListResolver`).

    Returns
    -------
    dict
        The merged object, with ``metadata.managedFields`` updated.

    Raises
    ------
    ApiError
        409 Conflict (:func:`new_apply_conflict`) when another manager owns a
        field the configuration changes and ``force`` is false.

    Examples
    --------
    >>> live = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...         "spec": {"replicas": 1, "paused": False}}
    >>> cfg = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 2}}
    >>> new = apply_configuration(live, cfg, "kubectl")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas
    >>> new = apply_configuration(live, cfg, "kubectl", force=True)
    >>> new["spec"], [m["manager"] for m in new["metadata"]["managedFields"]]
    ({'replicas': 2, 'paused': False}, ['before-first-apply', 'kubectl'])
    >>> cfg["spec"] = {}   # kubectl stops setting replicas: the field it owned alone goes
    >>> apply_configuration(new, cfg, "kubectl")["spec"]
    {'paused': False}
    """
    api_version = config.get("apiVersion", (live or {}).get("apiVersion", ""))
    new_paths = _owned(field_set(config, resolve))
    if live is None:
        out = deep_copy(config)
        out.setdefault("metadata", {})["managedFields"] = [_entry(manager, "Apply", api_version, time, new_paths)]
        return out
    managed = deep_copy((live.get("metadata") or {}).get("managedFields") or [])
    if not managed:  # upstream: an object without managed fields gets them all owned by a placeholder
        existing = _owned(field_set({k: v for k, v in live.items() if k != "status"}, resolve))
        if existing:
            managed = [_entry(BEFORE_FIRST_APPLY, "Update", api_version, time, existing)]
    owned = _ownership(managed)
    mine_before: set[tuple[str, ...]] = set()
    for e, paths in owned:
        if e.get("manager") == manager and e.get("operation") == "Apply":
            mine_before = paths
    # conflicts: a leaf this config sets to another value than the live one, owned by someone else
    conflicts: list[tuple[dict, tuple[str, ...]]] = []
    for p in sorted(new_paths):
        in_cfg, v_cfg = _get(config, p)
        in_live, v_live = _get(live, p)
        if not in_live or (in_cfg and v_cfg == v_live) or not in_cfg:
            continue
        if isinstance(v_cfg, dict) and not p[-1].startswith("f:"):
            continue  # a list element itself: its fields are compared one by one
        for e, paths in owned:
            if p in paths and not (e.get("manager") == manager and e.get("operation") == "Apply"):
                conflicts.append((e, p))
    if conflicts and not force:
        raise new_apply_conflict(conflicts)
    taken = {p for _, p in conflicts}
    # fields this manager stops applying: removed unless somebody else owns them
    others = set().union(*[paths for e, paths in owned
                           if not (e.get("manager") == manager and e.get("operation") == "Apply")])
    out = _merge(deep_copy(live), {k: v for k, v in config.items() if k != "status"}, (), resolve)
    removed: list[tuple[str, ...]] = []
    for p in sorted(mine_before - new_paths - others, key=len):  # an element before its fields
        if any(p[:len(r)] == r for r in removed):
            continue
        _remove(out, p)
        _prune_empty(out, p)
        removed.append(p)
    entries = []
    for e, paths in owned:
        if e.get("manager") == manager and e.get("operation") == "Apply":
            continue
        rest = paths - taken
        if rest:
            entries.append(dict(e, fieldsV1=fields_v1(rest)))
    entries.append(_entry(manager, "Apply", api_version, time, new_paths))
    out.setdefault("metadata", {})["managedFields"] = entries
    return out


#: Metadata no manager owns (upstream strips them from every field set: ``stripmeta.go``).
_SERVER_FIELDS = {("f:metadata", f"f:{k}") for k in (
    "name", "namespace", "managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink",
    "deletionTimestamp", "deletionGracePeriodSeconds")}


def _owned(paths: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    return {p for p in paths if p[:2] not in _SERVER_FIELDS}


def _changed_leaves(old: Any, new: Any, resolve: ListResolver) -> tuple[set, set]:
    """Leaf paths set or changed from ``old`` to ``new``, and leaf paths removed."""
    a = field_set(old, resolve)
    b = field_set(new, resolve)
    changed = {p for p in b if p not in a or _get(old, p)[1] != _get(new, p)[1]}
    return changed, a - b


def record_update(old: dict, new: dict, manager: str, *, operation: str = "Update", subresource: str = "",
                  time: str = "", resolve: ListResolver = _atomic) -> None:
    """Record a non-apply write in ``new``'s ``managedFields`` (only for objects that have them).

    The fields the write sets or changes move to ``manager``'s ``Update``
    entry; fields it removed leave every entry. Objects never applied
    server-side are left alone (see the module notes).

    Examples
    --------
    >>> old = apply_configuration(None, {"apiVersion": "apps/v1", "kind": "Deployment",
    ...                                  "metadata": {"name": "web"}, "spec": {"replicas": 2}}, "kubectl")
    >>> new = deep_copy(old); new["spec"]["replicas"] = 5
    >>> record_update(old, new, "kubectl", subresource="scale")
    >>> [(m["manager"], m["operation"], m["fieldsV1"]) for m in new["metadata"]["managedFields"]]
    [('kubectl', 'Update', {'f:spec': {'f:replicas': {}}})]
    """
    managed = (old.get("metadata") or {}).get("managedFields")
    if not managed:
        return
    strip = {"status"} if not subresource == "status" else set()
    o = {k: v for k, v in old.items() if k not in strip}
    n = {k: v for k, v in new.items() if k not in strip}
    changed, removed = _changed_leaves(o, n, resolve)
    changed = _owned(changed)
    entries = []
    mine: set[tuple[str, ...]] = set()
    api_version = new.get("apiVersion", "")
    for e, paths in _ownership(deep_copy(managed)):
        same = (e.get("manager") == manager and e.get("operation") == operation
                and e.get("subresource", "") == subresource)
        if same:
            mine = paths - removed
            continue
        rest = paths - changed - removed
        if rest:
            entries.append(dict(e, fieldsV1=fields_v1(rest)))
    mine |= changed
    if mine:
        entries.append(_entry(manager, operation, api_version, time, mine, subresource))
    new.setdefault("metadata", {})["managedFields"] = entries


def manager_for(user_agent: str, field_manager: str = "") -> str:
    """The manager name of a write: ``fieldManager`` if given, else the user agent up to its first ``/``.

    Examples
    --------
    >>> manager_for("kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"), manager_for("x", "helm")
    ('kubectl', 'helm')
    """
    if field_manager:
        return field_manager
    return (user_agent or "unknown").split("/")[0][:128]
