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

    def add(self, volume: Mapping[str, Any]) -> None:
        """Add or replace a volume (by name)."""
        self.store[volume["metadata"]["name"]] = dict(volume)

    def delete(self, name: str) -> None:
        self.store.pop(name, None)

    def get(self, name: str) -> dict | None:
        return self.store.get(name)

    def list(self) -> list[dict]:
        return [self.store[k] for k in sorted(self.store)]

    def list_by_access_modes(self, modes: Iterable[str]) -> list[dict]:
        """``listByAccessModes``: the volumes whose access modes are exactly ``modes``, by name."""
        key = get_access_modes_as_string(modes)
        return [v for v in self.list() if get_access_modes_as_string((v.get("spec") or {}).get("accessModes")) == key]

    def all_possible_matching_access_modes(self, requested: Iterable[str]) -> list[list[str]]:
        """``allPossibleMatchingAccessModes``: every indexed mode set containing all of ``requested``, fewest first."""
        req = set(requested or ())
        keys = {get_access_modes_as_string((v.get("spec") or {}).get("accessModes")) for v in self.store.values()}
        sets = [get_access_modes_from_string(k) for k in keys if req <= set(get_access_modes_from_string(k))]
        sets.sort(key=lambda modes: (len(modes), get_access_modes_as_string(modes)))
        return sets

    def find_by_claim(self, claim: Mapping[str, Any], delay_binding: bool = False) -> dict | None:
        """``findByClaim``: the best volume for the claim, or None.

        Raises
        ------
        FieldError
            For a claim selector that does not parse.
        """
        for modes in self.all_possible_matching_access_modes((claim.get("spec") or {}).get("accessModes")):
            best = find_matching_volume(claim, self.list_by_access_modes(modes), None, (), delay_binding)
            if best is not None:
                return best
        return None
