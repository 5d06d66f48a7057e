"""CustomResourceDefinitions served live: the resources a CRD adds, and what the API server does with their objects.

:class:`CustomResourceDefinitions` is the API server's view of its CRDs
(upstream: the apiextensions-apiserver's ``crdHandler`` with its naming,
establishing and finalizer controllers). When a CRD is written it computes
the ``NamesAccepted`` and ``Established`` conditions and ``acceptedNames``, as
the naming and establishing controllers do, and from then on every served
version is a resource (:class:`CustomResourceInfo`) that the HTTP routes,
discovery, OpenAPI and the request path know. A custom resource's request
goes through the same path as a built-in kind's, with the custom resource
strategy's steps: schema pruning and defaulting at decode, schema validation,
``generation`` bumps, the ``status`` and ``scale`` subresources and the
additional printer columns. Deleting a CRD marks it ``Terminating`` with the
``customresourcecleanup.apiextensions.k8s.io`` finalizer, deletes its
objects, and then removes the finalizer, as upstream's finalizer controller does.

Notes
-----
The controllers run synchronously inside the write that triggers them (same
virtual time, two audit entries: the CRD write, then the status write by
``apiextensions-apiserver``), where upstream they run a moment later. Only
``conversion.strategy: None`` is served (a ``Webhook`` conversion is refused).
``x-kubernetes-validations`` (CEL) rules are evaluated with the CEL subset of
:mod:`kubenotes.apiserver.admission.cel` (:mod:`.celvalidation`).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/controller/establish/establishing_controller.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/controller/finalizer/crd_finalizer.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go (ScaleREST)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/etcd.go (Delete)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubenotes.apiserver.apiextensions import schema as _schema
from kubenotes.apiserver.conversion import register_none_conversion
from kubenotes.apiserver.resources import ResourceInfo
from kubenotes.apiserver.status import ApiError, _status, new_bad_request, new_invalid
from kubenotes.apiserver.store import deep_copy
from kubenotes.apiserver.validation import FieldErr

__all__ = ["CustomResourceInfo", "CustomResourceVersion", "CustomResourceDefinitions", "CLEANUP_FINALIZER",
           "is_crd", "crd_defaults", "version_priority", "CR_PATCH_TYPES_MESSAGE"]

#: ``apiextensions.CustomResourceCleanupFinalizer``.
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
_CRD_GROUP = "apiextensions.k8s.io"
_CRUD = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
#: The 415 a strategic merge patch of a custom resource gets (the CR handler's supported patch types).
CR_PATCH_TYPES_MESSAGE = ("the body of the request was in an unknown format - accepted media types include: "
                          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")


def is_crd(ri: ResourceInfo) -> bool:
    """Whether ``ri`` is apiextensions.k8s.io's ``customresourcedefinitions``."""
    return ri.resource == "customresourcedefinitions" and ri.group == _CRD_GROUP


_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(v: str) -> tuple:
    """Sort key of Kubernetes version names, highest priority first (``v2 > v1 > v1beta2 > v1alpha1 > foo``).

    Examples
    --------
    >>> sorted(["v1alpha1", "foo", "v1", "v2beta1", "v2", "v1beta1"], key=version_priority)
    ['v2', 'v1', 'v2beta1', 'v1beta1', 'v1alpha1', 'foo']
    """
    m = _VERSION.match(v)
    if not m:
        return (3, 0, 0, v)
    major, level, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    rank = {None: 0, "beta": 1, "alpha": 2}[level]
    return (rank, -major, -minor, v)


class CustomResourceVersion:
    """One served version of a CRD: what the request path needs beyond :class:`ResourceInfo`.

    Attributes
    ----------
    crd_name : str
    schema : dict or None
        ``schema.openAPIV3Schema``.
    scale : dict or None
        ``subresources.scale`` (``specReplicasPath``, ``statusReplicasPath``, ``labelSelectorPath``).
    status : bool
        Whether the ``status`` subresource is on.
    columns : list of dict
        ``additionalPrinterColumns`` (an ``Age`` column when none are given).
    storage : CustomResourceInfo or None
        The storage version's resource (None for the storage version itself).
    terminating : bool
        The CRD is being deleted: creates are refused.
    """

    def __init__(self, crd_name: str, version: dict):
        self.crd_name = crd_name
        self.update(version)
        self.storage: CustomResourceInfo | None = None
        self.terminating = False

    def update(self, version: dict) -> None:
        self.schema = (version.get("schema") or {}).get("openAPIV3Schema")
        from kubenotes.apiserver.apiextensions.celvalidation import has_rules

        self.has_rules = has_rules(self.schema)
        subs = version.get("subresources") or {}
        self.status = "status" in subs
        self.scale = subs.get("scale")
        self.columns = list(version.get("additionalPrinterColumns") or ()) or [
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]
        #: ``selectableFields`` as field-selector names (``spec.colour`` for ``.spec.colour``).
        self.selectable_fields = tuple(f.get("jsonPath", "").lstrip(".") for f in version.get("selectableFields")
                                       or ())
        #: The ``Warning`` a request through this version gets, or "" (``deprecated``/``deprecationWarning``).
        self.deprecation_warning = (version.get("deprecationWarning") or "") if version.get("deprecated") else ""


@dataclass(frozen=True)
class CustomResourceInfo(ResourceInfo):
    """A served version of a custom resource: a :class:`ResourceInfo` plus its :class:`CustomResourceVersion`."""

    crd: CustomResourceVersion | None = field(default=None, compare=False, repr=False)

    def __hash__(self) -> int:
        return hash((self.group, self.version, self.resource))


def crd_defaults(crd: dict) -> dict:
    """``SetDefaults_CustomResourceDefinition`` (apiextensions/v1), in place; returns ``crd``.

    ``names.singular`` defaults to the lower-case kind, ``names.listKind`` to
    ``<kind>List``, ``conversion`` to ``{strategy: None}``, and
    ``status.storedVersions`` to the storage version.

    Examples
    --------
    >>> c = crd_defaults({"spec": {"names": {"kind": "Widget", "plural": "widgets"},
    ...                            "versions": [{"name": "v1", "served": True, "storage": True}]}})
    >>> c["spec"]["names"]["singular"], c["spec"]["names"]["listKind"], c["spec"]["conversion"]
    ('widget', 'WidgetList', {'strategy': 'None'})
    """
    spec = crd.setdefault("spec", {})
    if not isinstance(spec, dict):
        return crd
    names = spec.get("names")
    if isinstance(names, dict):
        if not names.get("singular") and isinstance(names.get("kind"), str):
            names["singular"] = names["kind"].lower()
        if not names.get("listKind") and names.get("kind"):
            names["listKind"] = f'{names["kind"]}List'
    spec.setdefault("conversion", {"strategy": "None"})
    conv = spec.get("conversion")
    if isinstance(conv, dict) and conv.get("strategy") == "Webhook":
        svc = ((conv.get("webhook") or {}).get("clientConfig") or {}).get("service")
        if isinstance(svc, dict):
            svc.setdefault("port", 443)
    for v in spec.get("versions") or ():
        if isinstance(v, dict) and isinstance((v.get("subresources") or {}).get("scale"), dict):
            pass
    return crd


def _get_path(obj: Any, path: str) -> tuple[Any, bool]:
    """The value at a simple JSON path (``.spec.replicas``); ``(None, False)`` when absent."""
    cur = obj
    for part in [p for p in path.strip(".").split(".") if p]:
        if not isinstance(cur, dict) or part not in cur:
            return None, False
        cur = cur[part]
    return cur, True


def _set_path(obj: dict, path: str, value: Any) -> None:
    parts = [p for p in path.strip(".").split(".") if p]
    cur = obj
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = cur[p] = {}
        cur = nxt
    cur[parts[-1]] = value


def _condition(crd: dict, ctype: str) -> dict | None:
    return next((c for c in ((crd.get("status") or {}).get("conditions") or ()) if c.get("type") == ctype), None)


class CustomResourceDefinitions:
    """The CRDs an API server serves: their resources, and the custom resource strategy.

    Parameters
    ----------
    server : APIServer
        Whose store holds the CRDs and their objects.

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> api = APIServer()
    >>> c = api.client()
    >>> _ = c.create("customresourcedefinitions", {"apiVersion": "apiextensions.k8s.io/v1",
    ...     "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
    ...     "spec": {"group": "example.com", "scope": "Namespaced",
    ...              "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
    ...              "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
    ...                  "type": "object", "properties": {"spec": {"type": "object", "properties": {
    ...                      "size": {"type": "integer", "default": 1}}}}}}}]}})
    >>> [c["type"] for c in c.get("customresourcedefinitions", "widgets.example.com")["status"]["conditions"]]
    ['NamesAccepted', 'Established']
    >>> w = c.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget",
    ...                                      "metadata": {"name": "a"}, "spec": {"colour": "red"}}, "default")
    >>> w["spec"], w["metadata"]["generation"]
    ({'size': 1}, 1)
    """

    def __init__(self, server: Any):
        self.server = server
        self._by_gvr: dict[tuple[str, str, str], CustomResourceInfo] = {}
        self._by_crd: dict[str, list[CustomResourceInfo]] = {}
        self._finalizing: set[str] = set()  # CRDs whose instances are being deleted (no re-entry)

    # ------------------------------------------------------------ lookups
    def lookup(self, group: str, version: str, resource: str) -> CustomResourceInfo | None:
        """The served custom resource at ``/apis/<group>/<version>/<resource>``, or None."""
        return self._by_gvr.get((group, version, resource)) if self._by_gvr else None

    def served(self) -> list[CustomResourceInfo]:
        """Every served custom resource, groups by name, versions by priority, resources by name."""
        return sorted(self._by_gvr.values(), key=lambda r: (r.group, version_priority(r.version), r.resource))

    def resource_for(self, name: str) -> CustomResourceInfo | None:
        """A served custom resource by plural, singular, kind or short name (``widgets.example.com`` too)."""
        low = name.lower()
        served = self.served()  # by version priority: an unqualified name means the preferred version
        for ri in served:
            names = {ri.resource, ri.singular, ri.kind.lower(), *ri.short_names}
            if low in {f"{n}.{ri.version}.{ri.group}" for n in names}:
                return ri
        for ri in served:
            names = {ri.resource, ri.singular, ri.kind.lower(), *ri.short_names}
            if low in names or low in {f"{n}.{ri.group}" for n in names}:
                return ri
        return None

    def for_kind(self, api_version: str, kind: str) -> CustomResourceInfo | None:
        """The served custom resource of ``kind`` in ``api_version``, or None."""
        for ri in self._by_gvr.values():
            if ri.kind == kind and ri.api_version == api_version:
                return ri
        return None

    # ------------------------------------------------------------ serving a CRD
    def _sync(self, crd: dict | None, name: str) -> None:
        """Serve what ``crd`` (None: deleted) defines once it is Established; stop serving the rest."""
        old = {(r.group, r.version, r.resource): r for r in self._by_crd.pop(name, [])}
        keep: list[CustomResourceInfo] = []
        est = crd is not None and (_condition(crd, "Established") or {}).get("status") == "True"
        if est:
            spec = crd["spec"]
            names = (crd.get("status") or {}).get("acceptedNames") or spec["names"]
            versions = [v for v in spec.get("versions") or () if v.get("served")]
            storage_name = next((v["name"] for v in spec.get("versions") or () if v.get("storage")), None)
            infos: dict[str, CustomResourceInfo] = {}
            for v in versions:
                key = (spec["group"], v["name"], names["plural"])
                subs = tuple(s for s in ("scale", "status") if s in (v.get("subresources") or {}))
                ri = CustomResourceInfo(spec["group"], v["name"], names["plural"], names["kind"],
                                        spec.get("scope") == "Namespaced", tuple(names.get("shortNames") or ()),
                                        tuple(names.get("categories") or ()), _CRUD, subs,
                                        f'{spec["group"]}/{names["plural"]}', names.get("singular") or
                                        names["kind"].lower(), None)
                prev = old.get(key)
                if prev is not None and prev == ri and prev.crd is not None:
                    prev.crd.update(v)
                    ri = prev
                else:
                    object.__setattr__(ri, "crd", CustomResourceVersion(name, v))
                ri.crd.terminating = bool(crd["metadata"].get("deletionTimestamp"))
                if v.get("deprecated") and not ri.crd.deprecation_warning:  # the CR handler's default warning
                    ri.crd.deprecation_warning = f"{ri.api_version} {ri.kind} is deprecated"
                infos[v["name"]] = ri
            stor = infos.get(storage_name)
            for vname, ri in infos.items():
                ri.crd.storage = None if vname == storage_name else stor
            if len(infos) > 1:
                register_none_conversion([ri.api_version for ri in infos.values()], names["kind"])
            keep = list(infos.values())
        for k in old:
            self._by_gvr.pop(k, None)
        for ri in keep:
            self._by_gvr[(ri.group, ri.version, ri.resource)] = ri
        if keep:
            self._by_crd[name] = keep

    def _names_status(self, crd: dict) -> dict:
        """The naming controller's ``acceptedNames`` and conditions, then the establishing controller's."""
        spec = crd.get("spec") or {}
        names = dict(spec.get("names") or {})
        group = spec.get("group")
        status = deep_copy(crd.get("status") or {})
        conflict = ""
        for other in self.server.store.list(self.server_ri(), None):
            if other["metadata"]["name"] == crd["metadata"]["name"] or (other.get("spec") or {}).get("group") != group:
                continue
            taken = (other.get("status") or {}).get("acceptedNames") or {}
            used = {taken.get("plural"), taken.get("singular"), *(taken.get("shortNames") or ())}
            for n in (names.get("plural"), names.get("singular"), *(names.get("shortNames") or ())):
                if n and n in used:
                    conflict = f'"{n}" is already in use'
                    break
            if not conflict and names.get("kind") and names["kind"] in (taken.get("kind"), taken.get("listKind")):
                conflict = f'"{names["kind"]}" is already in use'
            if not conflict and names.get("listKind") and names["listKind"] in (taken.get("kind"),
                                                                               taken.get("listKind")):
                conflict = f'"{names["listKind"]}" is already in use'
            if conflict:
                break
        now = self.server.timestamp()
        conds = [c for c in status.get("conditions") or () if c.get("type") not in ("NamesAccepted", "Established")]
        old_na, old_est = _condition(crd, "NamesAccepted"), _condition(crd, "Established")

        def cond(ctype: str, st: str, reason: str, message: str, prev: dict | None) -> dict:
            same = prev is not None and prev.get("status") == st
            return {"type": ctype, "status": st,
                    "lastTransitionTime": prev.get("lastTransitionTime") if same else now,
                    "reason": reason, "message": message}

        if conflict:
            na = cond("NamesAccepted", "False", "NameConflict", conflict, old_na)
            est = old_est
        else:
            status["acceptedNames"] = names
            na = cond("NamesAccepted", "True", "NoConflicts", "no conflicts found", old_na)
            est = old_est if (old_est or {}).get("status") == "True" else cond(
                "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", old_est)
        status["conditions"] = [na] + ([est] if est else []) + conds
        status.setdefault("acceptedNames", {"plural": "", "kind": ""})
        stored = list(status.get("storedVersions") or [])
        storage = next((v["name"] for v in spec.get("versions") or () if v.get("storage")), None)
        if storage and storage not in stored:
            stored.append(storage)
        status["storedVersions"] = stored
        return status

    def server_ri(self) -> ResourceInfo:
        from kubenotes.apiserver.resources import resource_for

        return resource_for("customresourcedefinitions.apiextensions.k8s.io")

    def committed(self, ri: ResourceInfo, event_type: str, obj: dict) -> None:
        """After a commit: a CRD write updates what is served (and its status); a deleted CR may finish a CRD."""
        if is_crd(ri):
            name = obj["metadata"]["name"]
            if event_type == "DELETED":
                self._sync(None, name)
                return
            status = self._names_status(obj)
            if status != obj.get("status") and not obj["metadata"].get("deletionTimestamp"):
                new = dict(obj)
                new["status"] = status
                self.server.update_status("customresourcedefinitions.apiextensions.k8s.io", new,
                                          "apiextensions-apiserver")  # commits again: the sync happens there
                return
            self._sync(obj, name)
        elif event_type == "DELETED" and isinstance(ri, CustomResourceInfo) and ri.crd is not None \
                and ri.crd.terminating and ri.crd.crd_name not in self._finalizing:
            crd = self.server.store.get(self.server_ri(), None, ri.crd.crd_name)
            if crd is not None:
                self._finalize(crd)

    # ------------------------------------------------------------ deleting a CRD
    def begin_delete(self, old: dict, component: str) -> dict | None:
        """``customresourcedefinition.REST.Delete``: add the cleanup finalizer and the Terminating condition.

        Returns the CRD after the instances' deletion (None when it is gone).
        """
        srv = self.server
        if not old["metadata"].get("deletionTimestamp"):
            new = deep_copy(old)
            md = new["metadata"]
            md.pop("resourceVersion", None)
            md["deletionTimestamp"] = srv.timestamp()
            md["deletionGracePeriodSeconds"] = 0
            if CLEANUP_FINALIZER not in (md.get("finalizers") or []):
                md["finalizers"] = list(md.get("finalizers") or []) + [CLEANUP_FINALIZER]
            self._set_condition(new, "Terminating", "True", "InstanceDeletionPending",
                                "CustomResourceDefinition marked for deletion; CustomResource deletion will begin "
                                "soon")
            srv._commit(self.server_ri(), "MODIFIED", new, old, component, "delete",
                        "finalizers: " + ",".join(md["finalizers"]))
            old = new
        return self._finalize(old)

    def _set_condition(self, crd: dict, ctype: str, st: str, reason: str, message: str) -> None:
        status = crd.setdefault("status", {})
        conds = [c for c in status.get("conditions") or () if c.get("type") != ctype]
        prev = _condition(crd, ctype)
        ltt = prev.get("lastTransitionTime") if prev and prev.get("status") == st else self.server.timestamp()
        conds.append({"type": ctype, "status": st, "lastTransitionTime": ltt, "reason": reason, "message": message})
        status["conditions"] = conds

    def _finalize(self, crd: dict) -> dict | None:
        """The finalizer controller: delete every instance, then drop the finalizer (the CRD goes)."""
        srv = self.server
        name = crd["metadata"]["name"]
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or []):
            return crd
        infos = self._by_crd.get(name, [])
        ri = next((r for r in infos if r.crd is not None and r.crd.storage is None), None)
        if ri is not None:
            ri.crd.terminating = True
            from kubenotes.apiserver.request import Attributes

            self._finalizing.add(name)
            try:
                for o in list(srv.store.list(ri, None)):
                    if o["metadata"].get("deletionTimestamp"):
                        continue
                    a = Attributes(srv.client().user, "delete", ri, "", o["metadata"].get("namespace") or "",
                                   o["metadata"]["name"], False, "apiextensions-apiserver")
                    srv.delete(a)
            finally:
                self._finalizing.discard(name)
            if srv.store.list(ri, None):
                cur = srv.store.get(self.server_ri(), None, name)
                new = deep_copy(cur)
                new["metadata"].pop("resourceVersion", None)
                self._set_condition(new, "Terminating", "True", "InstanceDeletionInProgress",
                                    "CustomResource deletion is in progress")
                if new != {**cur, "metadata": {k: v for k, v in cur["metadata"].items()
                                                if k != "resourceVersion"}}:
                    srv._commit(self.server_ri(), "MODIFIED", new, cur, "apiextensions-apiserver", "update",
                                "status")
                return srv.store.get(self.server_ri(), None, name)
        cur = srv.store.get(self.server_ri(), None, name)
        if cur is None:
            return None
        new = deep_copy(cur)
        new["metadata"].pop("resourceVersion", None)
        self._set_condition(new, "Terminating", "False", "InstanceDeletionCompleted", "removed all instances")
        fins = [f for f in new["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER]
        new["metadata"]["finalizers"] = fins
        if not fins:
            new["metadata"].pop("finalizers")
            srv._commit(self.server_ri(), "DELETED", new, cur, "apiextensions-apiserver", "delete",
                        "finalizers removed")
            return None
        srv._commit(self.server_ri(), "MODIFIED", new, cur, "apiextensions-apiserver", "update", "finalizers")
        return new

    # ------------------------------------------------------------ the custom resource strategy
    def decode(self, ri: ResourceInfo, obj: dict, validation: str) -> list[str]:
        """Decoding a request body (in place): CRD defaults; for a custom resource, pruning and schema defaults.

        ``validation`` is the request's ``fieldValidation``: ``Strict`` refuses
        pruned fields (400, ``strict decoding error: unknown field "spec.x"``),
        ``Warn`` returns them as the warnings to send.

        Returns
        -------
        list of str
            ``unknown field "spec.x"`` warnings (``Warn`` only).
        """
        if is_crd(ri):
            crd_defaults(obj)
            return []
        crd = getattr(ri, "crd", None)
        if crd is None or crd.schema is None:
            return []
        pruned = _schema.prune(crd.schema, obj)
        msgs = [f'unknown field "{p}"' for p in pruned]
        if msgs and validation == "Strict":
            raise new_bad_request(f'{ri.kind} in version "{ri.version}" cannot be handled as a {ri.kind}: '
                                  f'strict decoding error: {", ".join(msgs)}')
        _schema.default(crd.schema, obj)
        return msgs if validation == "Warn" else []

    def validate(self, ri: ResourceInfo, obj: dict, old: dict | None) -> list[dict]:
        """Field causes beyond the generic object-meta checks: a CRD's spec, or a custom resource's schema."""
        if is_crd(ri):
            from kubenotes.apiserver.apiextensions.validation import validate_crd

            return [e.cause() for e in validate_crd(obj, old, self.server)]
        crd = getattr(ri, "crd", None)
        if crd is None:
            return []
        errs: list[FieldErr] = []
        if crd.schema is not None:
            errs += _schema.validate(crd.schema, obj)
            if not errs and crd.has_rules:  # x-kubernetes-validations, on a value the schema accepts
                from kubenotes.apiserver.apiextensions.celvalidation import validate_rules

                errs += validate_rules(crd.schema, obj, old)
        if crd.scale and not errs:
            val, found = _get_path(obj, crd.scale.get("specReplicasPath", ""))
            if found and not (isinstance(val, int) and not isinstance(val, bool)):
                pass  # the schema reports it
            elif found and not 0 <= val <= 2 ** 31 - 1:
                errs.append(FieldErr("FieldValueInvalid", crd.scale["specReplicasPath"].lstrip("."), val,
                                     "should be a non-negative integer"))
        return [e.cause() for e in errs]

    def check_create(self, ri: ResourceInfo) -> None:
        """Creates of a terminating CRD's resource are refused (405), as the CR handler refuses them."""
        crd = getattr(ri, "crd", None)
        if crd is not None and crd.terminating:
            raise _status(405, "MethodNotAllowed", f"create not allowed while custom resource definition is "
                                                   f"terminating", {})

    def prepare_for_update(self, ri: ResourceInfo, sub: str, obj: dict, old: dict) -> dict:
        """The custom resource strategy's PrepareForUpdate: status updates touch status only; generation."""
        crd = getattr(ri, "crd", None)
        if crd is None:
            return obj
        md, omd = obj["metadata"], old["metadata"]
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            if k in omd:  # the system fields stay as stored (rest.BeforeUpdate)
                md[k] = omd[k]
            else:
                md.pop(k, None)
        md.pop("resourceVersion", None)
        if sub == "" and crd.status:  # the main resource cannot change status
            if "status" in old:
                obj["status"] = old["status"]
            else:
                obj.pop("status", None)
        if sub == "status":
            new = deep_copy(old)
            new["metadata"].pop("resourceVersion", None)
            if "managedFields" in obj["metadata"]:
                new["metadata"]["managedFields"] = obj["metadata"]["managedFields"]
            if "status" in obj:
                new["status"] = obj["status"]
            else:
                new.pop("status", None)
            return new
        skip = ("metadata", "status") if crd.status else ("metadata",)
        a = {k: v for k, v in obj.items() if k not in skip}
        b = {k: v for k, v in old.items() if k not in skip}
        if a != b:
            obj["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
        return obj

    def scale_of(self, ri: ResourceInfo, obj: dict) -> dict:
        """The ``autoscaling/v1`` Scale of a custom resource, read through ``subresources.scale``'s paths."""
        sc = ri.crd.scale or {}
        md = obj["metadata"]
        spec_r, _ = _get_path(obj, sc.get("specReplicasPath", ""))
        st_r, _ = _get_path(obj, sc.get("statusReplicasPath", ""))
        sel, _ = _get_path(obj, sc.get("labelSelectorPath") or "") if sc.get("labelSelectorPath") else ("", False)
        return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": md["name"], "namespace": md.get("namespace"), "uid": md.get("uid"),
                             "resourceVersion": md.get("resourceVersion"),
                             "creationTimestamp": md.get("creationTimestamp")},
                "spec": {"replicas": int(spec_r or 0)},
                "status": {"replicas": int(st_r or 0), "selector": sel if isinstance(sel, str) else ""}}

    def set_replicas(self, ri: ResourceInfo, obj: dict, replicas: int) -> None:
        """Write ``replicas`` at ``specReplicasPath`` (in place)."""
        _set_path(obj, ri.crd.scale.get("specReplicasPath", ".spec.replicas"), replicas)


def strategic_merge_refused() -> ApiError:
    """415 for ``application/strategic-merge-patch+json`` on a custom resource."""
    return _status(415, "UnsupportedMediaType", CR_PATCH_TYPES_MESSAGE, {})


def invalid(ri: ResourceInfo, name: str, errs: list[FieldErr]) -> ApiError:
    """422 for a custom resource with ``errs``."""
    return new_invalid(ri.group, ri.kind, name, [e.cause() for e in errs])
