"""The PersistentVolume controller's volume index: volumes by access modes, searched fewest modes first.

``persistentVolumeOrderedIndex`` keeps the volumes in a cache indexed by
their access modes as a string (``RWO,ROX``). To find a volume for a claim,
``findByClaim`` walks every indexed set of modes that contains all the modes
the claim asks for, fewest modes first, and in each runs
:func:`~kubenotes.api.storagehelpers.find_matching_volume`; the first set
with a match wins. So a ``ReadWriteOnce`` claim gets an RWO-only volume
before an RWO+RWX one, even a bigger one.

Notes
-----
Upstream sorts the candidate mode sets by length with an unstable sort over
a Go map's keys; the model breaks ties by the key and lists each set's
volumes by name, so runs are reproducible.

As upstream's ``cache.Indexer``, the index keeps each volume under its
access-mode key when it is added, so a lookup reads only the sets it needs.
``findMatchingVolume`` skips at once every volume whose ``claimRef`` names
another claim; the model goes one step further and, within each set, hands
it only the volumes without ``claimRef`` and those whose ``claimRef`` names
the claim (kept by ``namespace/name``), in name order. The answer is the
same; a lookup costs the free volumes, not every volume ever bound (with
10,000 bound volumes, each claim sync scanned them all, twice, and sorted
them: ``benchmarks/claims_at_scale.py``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/index.go
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.api.storagehelpers import (
    find_matching_volume,
    get_access_modes_as_string,
    get_access_modes_from_string,
)

__all__ = ["PersistentVolumeOrderedIndex"]

class PersistentVolumeOrderedIndex:
    """``persistentVolumeOrderedIndex``: the controller's volume cache, indexed by access modes.

    Examples
    --------
    >>> idx = PersistentVolumeOrderedIndex()
    >>> for name, modes, size in [("big-rwo", ["ReadWriteOnce"], "10Gi"),
    ...                           ("small-both", ["ReadWriteOnce", "ReadWriteMany"], "1Gi")]:
    ...     idx.add({"metadata": {"name": name}, "spec": {"accessModes": modes, "capacity": {"storage": size}},
    ...              "status": {"phase": "Available"}})
    >>> claim = {"metadata": {"name": "c", "namespace": "ns", "uid": "u"},
    ...          "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    >>> idx.find_by_claim(claim)["metadata"]["name"]
    'big-rwo'
    """

    def __init__(self) -> None:
        self.store: dict[str, dict] = {}
        # access-mode key -> names in it; and, per key, the names without claimRef / by claimRef namespace/name
        self._by_modes: dict[str, set[str]] = {}
        self._free: dict[str, set[str]] = {}
        self._by_ref: dict[str, dict[str, set[str]]] = {}
        self._keys: dict[str, tuple[str, str | None]] = {}  # name -> (access-mode key, claimRef key or None)

    @staticmethod
    def _index_keys(volume: Mapping[str, Any]) -> tuple[str, str | None]:
        spec = volume.get("spec") or {}
        ref = spec.get("claimRef")
        ref_key = None if ref is None else f'{ref.get("namespace") or ""}/{ref.get("name") or ""}'
        return get_access_modes_as_string(spec.get("accessModes")), ref_key

    def add(self, volume: Mapping[str, Any]) -> None:
        """Add or replace a volume (by name)."""
        name = volume["metadata"]["name"]
        self.delete(name)
        self.store[name] = dict(volume)
        modes, ref = self._keys[name] = self._index_keys(volume)
        self._by_modes.setdefault(modes, set()).add(name)
        if ref is None:
            self._free.setdefault(modes, set()).add(name)
        else:
            self._by_ref.setdefault(modes, {}).setdefault(ref, set()).add(name)

    def delete(self, name: str) -> None:
        if self.store.pop(name, None) is None:
            return
        modes, ref = self._keys.pop(name)
        self._by_modes[modes].discard(name)
        if not self._by_modes[modes]:
            del self._by_modes[modes]
        if ref is None:
            self._free[modes].discard(name)
        else:
            refs = self._by_ref[modes]
            refs[ref].discard(name)
            if not refs[ref]:
                del refs[ref]

    def get(self, name: str) -> dict | None:
        return self.store.get(name)

    def list(self) -> list[dict]:
        return [self.store[k] for k in sorted(self.store)]

    def list_by_access_modes(self, modes: Iterable[str]) -> list[dict]:
        """``listByAccessModes``: the volumes whose access modes are exactly ``modes``, by name."""
        return [self.store[k] for k in sorted(self._by_modes.get(get_access_modes_as_string(modes), ()))]

    def all_possible_matching_access_modes(self, requested: Iterable[str]) -> list[list[str]]:
        """``allPossibleMatchingAccessModes``: every indexed mode set containing all of ``requested``, fewest first."""
        req = set(requested or ())
        sets = [get_access_modes_from_string(k) for k in self._by_modes if req <= set(get_access_modes_from_string(k))]
        sets.sort(key=lambda modes: (len(modes), get_access_modes_as_string(modes)))
        return sets

    def _candidates(self, modes: list[str], claim: Mapping[str, Any]) -> list[dict]:
        """The set's volumes ``findMatchingVolume`` can pick for the claim: no claimRef, or a claimRef naming it."""
        key = get_access_modes_as_string(modes)
        md = claim.get("metadata") or {}
        names = self._free.get(key, set()) | self._by_ref.get(key, {}).get(
            f'{md.get("namespace") or ""}/{md.get("name") or ""}', set())
        return [self.store[k] for k in sorted(names)]

    def find_by_claim(self, claim: Mapping[str, Any], delay_binding: bool = False) -> dict | None:
        """``findByClaim``: the best volume for the claim, or None.

        Raises
        ------
        FieldError
            For a claim selector that does not parse.
        """
        for modes in self.all_possible_matching_access_modes((claim.get("spec") or {}).get("accessModes")):
            best = find_matching_volume(claim, self._candidates(modes, claim), None, (), delay_binding)
            if best is not None:
                return best
        return None
