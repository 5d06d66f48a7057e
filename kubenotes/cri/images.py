"""A node's image store: images as layers, a shared layer cache, pull times, disk use.

Mirrors what the CRI ImageService (``ListImages``, ``ImageStatus``,
``PullImage``, ``RemoveImage``, ``ImageFsInfo`` in cri-api's ``api.proto``)
exposes of a runtime's content store, with containerd's behaviour in mind:

* an image is a manifest naming an ordered list of **layers** (content
  digests with a compressed size to download and an unpacked size on disk)
  plus an image config (``Entrypoint``, ``Cmd``, ``Env``, ``WorkingDir``,
  ``User`` as in the OCI image-spec);
* layers are shared: pulling ``redis`` after ``nginx`` downloads only the
  layers the node does not have yet (both start from the same Debian base);
* pull time = manifest resolution + missing bytes / bandwidth + a fixed
  overhead per missing layer (HTTP round trips, decompression, unpacking);
* image references are normalized as the Docker reference library does
  (``nginx`` -> ``docker.io/library/nginx:latest``); ``PullImage`` returns the
  image ID (``sha256:`` of the config), which the kubelet stores as
  ``imageID``.

Whether to pull at all (``imagePullPolicy``) is the kubelet's decision, not
the runtime's; this module only answers "is it here" and "how long to get it".

:func:`layer_cache_pulls` runs pulls in a row on one store and reports which
layers each one downloads.

The default catalogue's sizes are plausible round figures of the real
``linux/amd64`` images (compressed layer sizes as a registry reports them),
**not** measurements; register your own with :meth:`ImageCatalogue.register`.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto (ImageService)
containerd/containerd@v2.1 internal/cri/server/images/image_pull.go, image_status.go, imagefs_info.go
distribution/reference normalize.go (ParseNormalizedNamed)
https://github.com/opencontainers/image-spec/blob/main/config.md
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from kubenotes.cri.api import IMAGE_NOT_FOUND_PULL, UNKNOWN, CRIError, new_id

__all__ = [
    "PAUSE_IMAGE",
    "DEFAULT_REGISTRY",
    "DEFAULT_BANDWIDTH_BYTES_PER_SECOND",
    "DEFAULT_PER_LAYER_OVERHEAD_SECONDS",
    "DEFAULT_RESOLVE_SECONDS",
    "DEFAULT_IMAGE_FS_CAPACITY_BYTES",
    "DEFAULT_IMAGE_FS_INODES",
    "IMAGE_FS_MOUNTPOINT",
    "normalize_image_ref",
    "Layer",
    "Image",
    "ImageCatalogue",
    "default_catalogue",
    "ImageStore",
    "layer_cache_pulls",
]

#: containerd's and CRI-O's default sandbox (pause) image for Kubernetes v1.34.
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
#: Docker Hub, where short names resolve.
DEFAULT_REGISTRY = "docker.io"
#: Illustrative registry download rate: 50 MiB/s (not a measured upstream value).
DEFAULT_BANDWIDTH_BYTES_PER_SECOND = 50 * 1024 * 1024
#: Illustrative fixed cost per layer fetched (round trips, decompress, unpack).
DEFAULT_PER_LAYER_OVERHEAD_SECONDS = 0.2
#: Illustrative cost to resolve a tag to a manifest (auth token, HEAD, GET manifest and config).
DEFAULT_RESOLVE_SECONDS = 0.3
#: Illustrative image filesystem size: 100 GiB.
DEFAULT_IMAGE_FS_CAPACITY_BYTES = 100 * 1024**3
#: Illustrative inode count of the image filesystem.
DEFAULT_IMAGE_FS_INODES = 6_553_600
#: containerd's overlayfs snapshotter root, the ``fs_id.mountpoint`` of ImageFsInfo.
IMAGE_FS_MOUNTPOINT = "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs"

_MIB = 1024 * 1024


def normalize_image_ref(ref: str) -> str:
    """The fully qualified reference a runtime pulls (``reference.ParseNormalizedNamed`` + ``TagNameOnly``).

    A name without a registry host goes to ``docker.io``; a single-component
    Docker Hub name gets ``library/``; a reference without tag or digest
    gets ``:latest``.

    Parameters
    ----------
    ref : str
        As written in a Pod's ``image`` field.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For an empty reference.

    Examples
    --------
    >>> normalize_image_ref("nginx")
    'docker.io/library/nginx:latest'
    >>> normalize_image_ref("nginx:1.27"), normalize_image_ref("bitnami/redis")
    ('docker.io/library/nginx:1.27', 'docker.io/bitnami/redis:latest')
    >>> normalize_image_ref("registry.k8s.io/pause:3.10"), normalize_image_ref("localhost:5000/app")
    ('registry.k8s.io/pause:3.10', 'localhost:5000/app:latest')
    """
    if not ref:
        raise ValueError("empty image reference")
    name, digest = (ref.split("@", 1) + [""])[:2]
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        host, path = first, rest
    else:
        host, path = DEFAULT_REGISTRY, name
    if host == DEFAULT_REGISTRY and "/" not in path:
        path = "library/" + path
    last = path.rsplit("/", 1)[-1]
    if digest:
        return f"{host}/{path}@{digest}"
    if ":" not in last:
        path += ":latest"
    return f"{host}/{path}"


def _repository(ref: str) -> str:
    name = ref.split("@", 1)[0]
    head, _, last = name.rpartition("/")
    return (head + "/" if head else "") + last.split(":", 1)[0]


@dataclass(frozen=True)
class Layer:
    """One image layer (a content-addressed blob).

    Attributes
    ----------
    digest : str
        ``sha256:...`` of the compressed blob.
    size_bytes : int
        Compressed size: what a pull downloads.
    unpacked_bytes : int
        Size on disk once unpacked by the snapshotter.
    inodes : int
        Files and directories the layer adds.
    """

    digest: str
    size_bytes: int
    unpacked_bytes: int
    inodes: int = 1000


@dataclass(frozen=True)
class Image:
    """An image: a reference, its layers in order, and its OCI image config.

    Attributes
    ----------
    ref : str
        Normalized reference (``docker.io/library/nginx:1.27``).
    layers : tuple of Layer
    config : dict
        OCI image config fields (``Entrypoint``, ``Cmd``, ``Env``,
        ``WorkingDir``, ``User``, ``StopSignal``).
    sigterm_exit_seconds : float or None
        How long the image's main process takes to exit after SIGTERM
        (``None``: it ignores SIGTERM, like ``sleep`` as PID 1, and only
        SIGKILL ends it). Model-only attribute.
    sigterm_exit_code : int
        Its exit code when it exits on SIGTERM.
    """

    ref: str
    layers: tuple[Layer, ...]
    config: Mapping[str, Any] = field(default_factory=dict)
    sigterm_exit_seconds: float | None = 0.1
    sigterm_exit_code: int = 0

    @functools.cached_property
    def id(self) -> str:
        """``sha256:`` of the image config: the CRI ``Image.id`` and PullImage's ``image_ref``."""
        return "sha256:" + new_id("config", self.ref, *(l.digest for l in self.layers))

    @functools.cached_property
    def repo_digest(self) -> str:
        """``<repository>@sha256:<manifest digest>``."""
        return _repository(self.ref) + "@sha256:" + new_id("manifest", self.ref)

    @property
    def size_bytes(self) -> int:
        """Compressed size (what ``crictl images`` and the API's ``status.images[].sizeBytes`` show)."""
        return sum(l.size_bytes for l in self.layers)

    @property
    def unpacked_bytes(self) -> int:
        """Size on disk once all layers are unpacked."""
        return sum(l.unpacked_bytes for l in self.layers)


def _layer(name: str, mib: float, ratio: float = 2.5, inodes: int = 1000) -> Layer:
    size = int(mib * _MIB)
    return Layer("sha256:" + new_id("layer", name), size, int(size * ratio), inodes)


class ImageCatalogue:
    """What the registries hold: reference -> :class:`Image`.

    Examples
    --------
    >>> cat = default_catalogue()
    >>> cat.get("nginx:1.27").ref
    'docker.io/library/nginx:1.27'
    >>> cat.get("nginx:9.9") is None
    True
    """

    def __init__(self, images: Iterable[Image] = ()) -> None:
        self._images: dict[str, Image] = {}
        for image in images:
            self._images[image.ref] = image

    def register(
        self,
        ref: str,
        layer_sizes_bytes: Iterable[int] | None = None,
        *,
        layers: Iterable[Layer] | None = None,
        config: Mapping[str, Any] | None = None,
        sigterm_exit_seconds: float | None = 0.1,
        sigterm_exit_code: int = 0,
    ) -> Image:
        """Add an image, from explicit :class:`Layer` objects or just layer sizes.

        Parameters
        ----------
        ref : str
            Any reference; stored normalized.
        layer_sizes_bytes : iterable of int, optional
            Compressed sizes of fresh (unshared) layers; unpacked size is 2.5x.
        layers : iterable of Layer, optional
            Layers, possibly shared with other images (``cat.get("nginx").layers[0]``).
        config : dict, optional
            OCI image config.

        Returns
        -------
        Image

        Examples
        --------
        >>> cat = default_catalogue()
        >>> img = cat.register("example.com/app:v1", layers=cat.get("nginx:1.27").layers[:1], config={"Cmd": ["app"]})
        >>> img.layers[0] == cat.get("redis:7.4").layers[0]
        True
        """
        norm = normalize_image_ref(ref)
        all_layers = list(layers or ())
        for i, size in enumerate(layer_sizes_bytes or ()):
            all_layers.append(Layer("sha256:" + new_id("layer", norm, i), int(size), int(size * 2.5)))
        image = Image(norm, tuple(all_layers), dict(config or {}), sigterm_exit_seconds, sigterm_exit_code)
        self._images[norm] = image
        return image

    def get(self, ref: str) -> Image | None:
        """The image for a reference, or ``None`` (the registry says "not found")."""
        return self._images.get(normalize_image_ref(ref))

    def __iter__(self):
        return iter(self._images.values())

    def __len__(self) -> int:
        return len(self._images)


def default_catalogue() -> ImageCatalogue:
    """A small catalogue with plausible (approximate, not measured) compressed sizes.

    ``nginx``, ``redis``, ``httpd`` and ``python:3.12-slim`` share one Debian
    base layer; the Alpine-based images share an Alpine base layer.

    Examples
    --------
    >>> cat = default_catalogue()
    >>> round(cat.get("nginx:1.27").size_bytes / 2**20), round(cat.get("busybox:1.36").size_bytes / 2**20, 1)
    (67, 2.1)
    >>> cat.get("pause:3.10") is None, cat.get("registry.k8s.io/pause:3.10").size_bytes < 2**20
    (True, True)
    """
    debian = _layer("debian:bookworm-slim", 28.2, inodes=8000)
    alpine = _layer("alpine:3.20", 3.5, inodes=500)
    images = [
        Image(PAUSE_IMAGE, (_layer("pause:3.10", 0.3, ratio=2.4, inodes=10),),
              {"Entrypoint": ["/pause"], "User": "65535:65535"}, 0.0, 0),
        Image("docker.io/library/busybox:1.36", (_layer("busybox:1.36", 2.1, inodes=400),),
              {"Cmd": ["sh"], "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},
              None, 0),
        Image("docker.io/library/busybox:latest", (_layer("busybox:1.36", 2.1, inodes=400),),
              {"Cmd": ["sh"], "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},
              None, 0),
        Image("docker.io/library/alpine:3.20", (alpine,), {"Cmd": ["/bin/sh"]}, None, 0),
        Image("docker.io/library/nginx:1.27",
              (debian, _layer("nginx:1.27/1", 39.0, inodes=2500), _layer("nginx:1.27/2", 0.001),
               _layer("nginx:1.27/3", 0.001), _layer("nginx:1.27/4", 0.001), _layer("nginx:1.27/5", 0.001),
               _layer("nginx:1.27/6", 0.001)),
              {"Entrypoint": ["/docker-entrypoint.sh"], "Cmd": ["nginx", "-g", "daemon off;"],
               "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "NGINX_VERSION=1.27.5"],
               "StopSignal": "SIGQUIT"}, 0.1, 0),
        Image("docker.io/library/nginx:1.27-alpine",
              (alpine, _layer("nginx:1.27-alpine/1", 16.0, inodes=900)),
              {"Entrypoint": ["/docker-entrypoint.sh"], "Cmd": ["nginx", "-g", "daemon off;"],
               "StopSignal": "SIGQUIT"}, 0.1, 0),
        Image("docker.io/library/redis:7.4",
              (debian, _layer("redis:7.4/1", 1.1), _layer("redis:7.4/2", 10.5), _layer("redis:7.4/3", 0.001)),
              {"Entrypoint": ["docker-entrypoint.sh"], "Cmd": ["redis-server"], "WorkingDir": "/data"}, 0.2, 0),
        Image("docker.io/library/httpd:2.4",
              (debian, _layer("httpd:2.4/1", 26.0, inodes=1500)),
              {"Cmd": ["httpd-foreground"], "WorkingDir": "/usr/local/apache2", "StopSignal": "SIGWINCH"}, 0.5, 0),
        Image("docker.io/library/python:3.12-slim",
              (debian, _layer("python:3.12-slim/1", 3.3), _layer("python:3.12-slim/2", 12.5, inodes=4000)),
              {"Cmd": ["python3"]}, 0.0, 143),
        Image("docker.io/library/postgres:16",
              (debian, _layer("postgres:16/1", 120.0, inodes=6000)),
              {"Entrypoint": ["docker-entrypoint.sh"], "Cmd": ["postgres"], "StopSignal": "SIGINT"}, 1.0, 0),
        Image("registry.k8s.io/e2e-test-images/agnhost:2.53",
              (_layer("agnhost:2.53/1", 3.5), _layer("agnhost:2.53/2", 50.0)),
              {"Entrypoint": ["/agnhost"]}, 0.0, 0),
    ]
    return ImageCatalogue(images)


class ImageStore:
    """The images and layers present on one node.

    Parameters
    ----------
    node_name : str
    catalogue : ImageCatalogue, optional
        What registries can serve (default: :func:`default_catalogue`).
    bandwidth_bytes_per_second : float
        Download rate for layer bytes.
    per_layer_overhead_seconds : float
        Fixed cost per missing layer.
    resolve_seconds : float
        Fixed cost per pull (tag -> manifest).
    capacity_bytes, inodes_total : int
        Size of the image filesystem (for the kubelet's imagefs signals).

    Notes
    -----
    Simplified: concurrent pulls of the *same* reference share one download
    (as containerd's pull deduplication does), but concurrent pulls of
    different images do not share bandwidth; there is no registry auth,
    rate limiting or failure other than "not found"; layers are unpacked as
    they arrive (unpack time is part of the per-layer overhead).

    Examples
    --------
    >>> store = ImageStore("node-1")
    >>> store.missing_bytes("nginx:1.27") == store.catalogue.get("nginx:1.27").size_bytes
    True
    >>> _ = store.add("nginx:1.27")
    >>> store.missing_bytes("redis:7.4") == store.catalogue.get("redis:7.4").size_bytes - 28.2 * 2**20 // 1
    True
    """

    def __init__(
        self,
        node_name: str,
        catalogue: ImageCatalogue | None = None,
        *,
        bandwidth_bytes_per_second: float = DEFAULT_BANDWIDTH_BYTES_PER_SECOND,
        per_layer_overhead_seconds: float = DEFAULT_PER_LAYER_OVERHEAD_SECONDS,
        resolve_seconds: float = DEFAULT_RESOLVE_SECONDS,
        capacity_bytes: int = DEFAULT_IMAGE_FS_CAPACITY_BYTES,
        inodes_total: int = DEFAULT_IMAGE_FS_INODES,
    ) -> None:
        self.node_name = node_name
        self.catalogue = catalogue if catalogue is not None else default_catalogue()
        self.bandwidth_bytes_per_second = float(bandwidth_bytes_per_second)
        self.per_layer_overhead_seconds = float(per_layer_overhead_seconds)
        self.resolve_seconds = float(resolve_seconds)
        self.capacity_bytes = int(capacity_bytes)
        self.inodes_total = int(inodes_total)
        self.images: dict[str, Image] = {}  # image id -> Image
        self.tags: dict[str, str] = {}  # normalized ref -> image id
        self.layers: dict[str, Layer] = {}  # digest -> Layer
        self.pinned: set[str] = set()  # image ids
        self.bytes_downloaded = 0
        #: Extra bytes/inodes on the same filesystem (containers' writable layers), set by the runtime.
        self.writable_bytes = 0
        self.writable_inodes = 0

    # --- lookups -------------------------------------------------------------------------------

    def lookup(self, ref: str) -> Image | None:
        """A present image by reference, image ID, or ID without ``sha256:``; ``None`` if absent.

        Examples
        --------
        >>> store = ImageStore("n"); img = store.add("busybox:1.36")
        >>> store.lookup("docker.io/library/busybox:1.36") is img, store.lookup(img.id) is img
        (True, True)
        >>> store.lookup("nginx") is None
        True
        """
        if ref in self.images:
            return self.images[ref]
        if "sha256:" + ref in self.images:
            return self.images["sha256:" + ref]
        try:
            image_id = self.tags.get(normalize_image_ref(ref))
        except ValueError:
            return None
        return self.images.get(image_id) if image_id else None

    def missing_layers(self, ref: str) -> list[Layer]:
        """The catalogue image's layers not yet on the node.

        Raises
        ------
        CRIError
            ``Unknown`` with containerd's "not found" pull message when no registry has it.
        """
        image = self._catalogue_image(ref)
        seen: set[str] = set()
        out = []
        for layer in image.layers:
            if layer.digest not in self.layers and layer.digest not in seen:
                seen.add(layer.digest)
                out.append(layer)
        return out

    def missing_bytes(self, ref: str) -> int:
        """Bytes a pull of ``ref`` would download now."""
        return sum(l.size_bytes for l in self.missing_layers(ref))

    def pull_seconds(self, ref: str) -> float:
        """How long a pull of ``ref`` takes now: resolve + missing bytes / bandwidth + overhead per missing layer.

        Examples
        --------
        >>> store = ImageStore("n", bandwidth_bytes_per_second=10 * 2**20, per_layer_overhead_seconds=0.5,
        ...                    resolve_seconds=0.25)
        >>> store.catalogue.register("example.com/a:1", [20 * 2**20, 10 * 2**20]).size_bytes
        31457280
        >>> store.pull_seconds("example.com/a:1")
        4.25
        """
        missing = self.missing_layers(ref)
        return (
            self.resolve_seconds
            + sum(l.size_bytes for l in missing) / self.bandwidth_bytes_per_second
            + self.per_layer_overhead_seconds * len(missing)
        )

    def _catalogue_image(self, ref: str) -> Image:
        image = self.catalogue.get(ref)
        if image is None:
            raise CRIError(UNKNOWN, IMAGE_NOT_FOUND_PULL.format(ref=normalize_image_ref(ref)))
        return image

    # --- mutations -----------------------------------------------------------------------------

    def add(self, ref: str, *, pinned: bool = False) -> Image:
        """Make ``ref`` present immediately (a pre-pulled image); returns the image.

        Raises
        ------
        CRIError
            When the catalogue does not know ``ref``.
        """
        image = self._catalogue_image(ref)
        for layer in image.layers:
            if layer.digest not in self.layers:
                self.layers[layer.digest] = layer
        self.images[image.id] = image
        self.tags[image.ref] = image.id
        if pinned:
            self.pinned.add(image.id)
        return image

    def record_download(self, ref: str) -> int:
        """Count the bytes of the missing layers as downloaded, then :meth:`add`; returns bytes."""
        n = self.missing_bytes(ref)
        self.bytes_downloaded += n
        self.add(ref)
        return n

    def remove(self, ref: str) -> Image | None:
        """Remove an image and every layer no remaining image uses (containerd's GC of unreferenced content).

        Returns
        -------
        Image or None
            The removed image, ``None`` if it was not present (removal is idempotent).

        Examples
        --------
        >>> store = ImageStore("n"); _ = store.add("nginx:1.27"); _ = store.add("redis:7.4")
        >>> before = len(store.layers); _ = store.remove("nginx:1.27")
        >>> before - len(store.layers)  # the shared Debian layer stays for redis
        6
        """
        image = self.lookup(ref)
        if image is None:
            return None
        del self.images[image.id]
        self.tags = {t: i for t, i in self.tags.items() if i != image.id}
        self.pinned.discard(image.id)
        used = {l.digest for img in self.images.values() for l in img.layers}
        for layer in image.layers:
            if layer.digest not in used:
                self.layers.pop(layer.digest, None)
        return image

    # --- CRI messages --------------------------------------------------------------------------

    def cri_image(self, image: Image) -> dict[str, Any]:
        """The CRI ``Image`` message for a present image."""
        user = str(image.config.get("User") or "")
        uid_part = user.split(":", 1)[0]
        cri: dict[str, Any] = {
            "id": image.id,
            "repo_tags": sorted(t for t, i in self.tags.items() if i == image.id),
            "repo_digests": [image.repo_digest],
            "size": image.size_bytes,
            "spec": {"image": image.id, "annotations": {}},
            "pinned": image.id in self.pinned,
        }
        if uid_part.isdigit():
            cri["uid"] = {"value": int(uid_part)}
            cri["username"] = ""
        else:
            cri["uid"] = None
            cri["username"] = uid_part
        return cri

    def used_bytes(self) -> int:
        """Bytes used on the image filesystem: unpacked layers plus writable layers."""
        return sum(l.unpacked_bytes for l in self.layers.values()) + self.writable_bytes

    def inodes_used(self) -> int:
        """Inodes used on the image filesystem."""
        return sum(l.inodes for l in self.layers.values()) + self.writable_inodes

    def filesystem_usage(self, timestamp_ns: int) -> dict[str, Any]:
        """A CRI ``FilesystemUsage`` message for the image filesystem."""
        return {
            "timestamp": timestamp_ns,
            "fs_id": {"mountpoint": IMAGE_FS_MOUNTPOINT},
            "used_bytes": {"value": self.used_bytes()},
            "inodes_used": {"value": self.inodes_used()},
        }


def layer_cache_pulls(
    refs: Sequence[str],
    *,
    catalogue: ImageCatalogue | None = None,
    preloaded: Sequence[str] = (),
    bandwidth_bytes_per_second: float | None = None,
) -> list[dict[str, Any]]:
    """Pull ``refs`` one after another on one node: which layers each pull downloads, and how long it takes.

    Parameters
    ----------
    refs : sequence of str
        Image references, pulled in this order.
    catalogue : ImageCatalogue, optional
        Registry contents (default: :func:`kubenotes.cri.images.default_catalogue`).
    preloaded : sequence of str
        Images already on the node.
    bandwidth_bytes_per_second : float, optional
        Registry download rate (default: the image store's).

    Returns
    -------
    list of dict
        Per pull: ``image`` (normalized), ``layers``, ``missing_layers``,
        ``size_bytes`` (compressed image size), ``download_bytes``,
        ``pull_seconds`` and ``node_layers`` (layers on the node afterwards).

    Raises
    ------
    CRIError
        When the catalogue does not know an image.

    Notes
    -----
    Uses the same :class:`~kubenotes.cri.images.ImageStore` arithmetic as
    ``PullImage``; an image already present still costs the manifest
    resolution (containerd re-resolves the tag), but downloads nothing.
    There is no upstream function: this is what ``crictl pull`` run several
    times on one node shows.

    References
    ----------
    containerd/containerd@v2.1 internal/cri/server/images/image_pull.go

    Examples
    --------
    >>> rows = layer_cache_pulls(["nginx:1.27", "redis:7.4", "nginx:1.27"])
    >>> [(r["layers"], r["missing_layers"], r["download_bytes"] < r["size_bytes"]) for r in rows]
    [(7, 7, False), (4, 3, True), (7, 0, True)]
    """
    store = ImageStore("node", catalogue) if bandwidth_bytes_per_second is None else ImageStore(
        "node", catalogue, bandwidth_bytes_per_second=bandwidth_bytes_per_second)
    for ref in preloaded:
        store.add(ref)
    rows = []
    for ref in refs:
        missing = store.missing_layers(ref)
        image = store.catalogue.get(ref)
        seconds = store.pull_seconds(ref)
        downloaded = store.record_download(ref)
        rows.append({"image": image.ref, "layers": len(image.layers), "missing_layers": len(missing),
                     "size_bytes": image.size_bytes, "download_bytes": downloaded, "pull_seconds": seconds,
                     "node_layers": len(store.layers)})
    return rows
