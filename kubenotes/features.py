"""Feature gates of a v1.34 cluster: their names, defaults and stages, and the ``--feature-gates`` flag.

Every Kubernetes binary carries one table of feature gates (``pkg/features``);
``--feature-gates A=true,B=false`` changes some of them. This module is that
table, at v1.34's values, and the gate object the model's components ask:
:data:`DEFAULT_FEATURE_GATES` lists each gate's default, stage (alpha, beta, GA
or deprecated) and whether it is locked to its default; :class:`FeatureGate`
holds a cluster's choice and answers :meth:`FeatureGate.enabled`. A
:class:`~kubenotes.sim.cluster.Cluster` takes ``feature_gates=`` and the
``validate``, ``schedule``, ``simulate`` and ``serve`` commands take
``--feature-gates``; both are parsed here, with kube-apiserver's error texts
(``unrecognized feature gate: Foo``, ``cannot set feature gate SidecarContainers
to false, feature is locked to true``).

What the model does with the gates (everything else in the model behaves as
v1.34 with every gate at its default, whatever is set here):

Honoured (the gate changes what the model does):

- the API server drops the fields of disabled gates on create and update, as
  ``dropDisabled...Fields`` do (:mod:`kubenotes.api.dropdisabled`): ``EnvFiles``
  (``env[].valueFrom.fileKeyRef``; alpha, off), ``ImageVolume`` (``image``
  volumes; beta, off), ``ContainerStopSignals`` (``lifecycle.stopSignal``;
  alpha, off), ``ContainerRestartRules`` (container ``restartPolicy`` and
  ``restartPolicyRules``; alpha, off), ``HostnameOverride``
  (``spec.hostnameOverride``; alpha, off), ``PodLevelResources``
  (``spec.resources``; beta, on), ``InPlacePodVerticalScaling``
  (``resizePolicy``; beta, on), ``ProcMountType``
  (``securityContext.procMount``; beta, on), ``SupplementalGroupsPolicy``
  (beta, on), ``SELinuxChangePolicy`` (beta, on), ``UserNamespacesSupport``
  (``hostUsers``; beta, on), ``MatchLabelKeysInPodTopologySpread`` (beta, on),
  ``DynamicResourceAllocation`` (pod ``resourceClaims`` and container
  ``resources.claims``; GA, on), ``ClusterTrustBundleProjection`` (beta, off),
  ``PodCertificateRequest`` (alpha, off), ``JobManagedBy`` (beta, on),
  ``MaxUnavailableStatefulSet`` (alpha, off), ``HPAConfigurableTolerance``
  (alpha, off), ``CrossNamespaceVolumeDataSource`` (alpha, off), in pods and
  in every pod template;
- the API server serves admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicies
  (and runs their admission plugin) only with ``MutatingAdmissionPolicy`` (beta, off)
  and ``--runtime-config admissionregistration.k8s.io/v1beta1=true``.

Not honoured (the model always behaves as the v1.34 default, or does not model
the feature): every other gate, in particular the scheduler's
(``SchedulerQueueingHints``, ``SchedulerAsyncPreemption``,
``SchedulerPopFromBackoffQ``, ``NominatedNodeNameForExpectation``,
``DRAExtendedResource``, ``StorageCapacityScoring``: fixed at their defaults,
see :mod:`kubenotes.scheduler.config`), the kubelet's
(``PodReadyToStartContainersCondition``, ``SidecarContainers``,
``KubeletCrashLoopBackOffMax``, ``NodeSwap``...), the API server's own
(``generic`` apiserver gates such as ``WatchList``,
``ConsistentListFromCache``) and the defaulting that depends on a gate
(``MatchLabelKeysInPodTopologySpreadSelectorMerge`` and pod-level resource
defaults stay on).

Notes
-----
Stages are upstream's ``prerelease`` strings: ``ALPHA``, ``BETA``, ``""`` (GA)
and ``DEPRECATED``. The table is v1.34's: each gate's versioned specs read at
version 1.34 (the last spec at or before it), for the gates of
``pkg/features`` and those it relists from ``k8s.io/apiserver``,
``apiextensions-apiserver``, ``controller-manager`` and ``component-base``
(zpages). Left out: client-go's gates (``ClientsAllowCBOR``...), and the
emulation-version machinery (``--emulated-version``). A GA or deprecated gate
that is set logs a warning upstream; here it is silent.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/features/kube_features.go (defaultVersionedKubernetesFeatureGates)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-base/featuregate/feature_gate.go (Set, SetFromMap)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/features/kube_features.go
https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/

Examples
--------
>>> gates = FeatureGate.parse("EnvFiles=true")
>>> gates.enabled("EnvFiles"), gates.enabled("ImageVolume"), gates.enabled("SidecarContainers")
(True, False, True)
>>> FeatureGate.parse("SidecarContainers=false")
Traceback (most recent call last):
...
kubenotes.errors.ConfigError: invalid argument "SidecarContainers=false" for "--feature-gates" flag: cannot set feature gate SidecarContainers to false, feature is locked to true
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from kubenotes.errors import ConfigError

__all__ = [
    "ALPHA", "BETA", "GA", "DEPRECATED",
    "ALL_ALPHA", "ALL_BETA",
    "FeatureSpec",
    "DEFAULT_FEATURE_GATES",
    "FeatureGate",
    "DEFAULT_GATES",
    "parse_bool",
    "feature_gates",
    "add_feature_gates_flag",
]

#: Upstream's ``featuregate.prerelease`` values (GA is the empty string).
ALPHA, BETA, GA, DEPRECATED = "ALPHA", "BETA", "", "DEPRECATED"

#: The two special gates that switch every alpha (beta) gate not set explicitly.
ALL_ALPHA, ALL_BETA = "AllAlpha", "AllBeta"


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """One gate at v1.34: default, stage, and whether it may be changed (``featuregate.FeatureSpec``).

    Attributes
    ----------
    default : bool
        On or off when the flag does not name it.
    pre_release : str
        :data:`ALPHA`, :data:`BETA`, :data:`GA` (``""``) or :data:`DEPRECATED`.
    lock_to_default : bool
        True when setting it to anything but ``default`` is an error (GA gates
        about to be removed, and some deprecated ones).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-base/featuregate/feature_gate.go (FeatureSpec)
    """

    default: bool
    pre_release: str
    lock_to_default: bool = False

    @property
    def stage(self) -> str:
        """The stage as the feature-gate documentation names it: ``Alpha``, ``Beta``, ``GA``, ``Deprecated``."""
        return {ALPHA: "Alpha", BETA: "Beta", GA: "GA", DEPRECATED: "Deprecated"}[self.pre_release]


def _a(default: bool = False) -> FeatureSpec:
    return FeatureSpec(default, ALPHA)


def _b(default: bool) -> FeatureSpec:
    return FeatureSpec(default, BETA)


def _ga(locked: bool = True) -> FeatureSpec:
    return FeatureSpec(True, GA, locked)


def _dep(default: bool, locked: bool = False) -> FeatureSpec:
    return FeatureSpec(default, DEPRECATED, locked)


#: Every gate a v1.34 kube-apiserver, controller manager, scheduler and kubelet know, at v1.34's values
#: (name -> :class:`FeatureSpec`), in upstream's alphabetical order.
DEFAULT_FEATURE_GATES: Mapping[str, FeatureSpec] = {
    # pkg/features
    "AllowDNSOnlyNodeCSR": _dep(False),
    "AllowInsecureKubeletCertificateSigningRequests": _dep(False),
    "AllowOverwriteTerminationGracePeriodSeconds": _dep(False),
    "AllowServiceLBStatusOnNonLB": _dep(False, locked=True),
    "AnyVolumeDataSource": _ga(),
    "AuthorizeNodeWithSelectors": _ga(),
    "CPUCFSQuotaPeriod": _a(),
    "CPUManagerPolicyAlphaOptions": _a(),
    "CPUManagerPolicyBetaOptions": _b(True),
    "CPUManagerPolicyOptions": _ga(),
    "CSIMigrationPortworx": _ga(),
    "CSIVolumeHealth": _a(),
    "ClearingNominatedNodeNameAfterBinding": _a(),
    "ClusterTrustBundle": _b(False),
    "ClusterTrustBundleProjection": _b(False),
    "ContainerCheckpoint": _b(True),
    "ContainerRestartRules": _a(),
    "ContainerStopSignals": _a(),
    "CronJobsScheduledAnnotation": _ga(),
    "CrossNamespaceVolumeDataSource": _a(),
    "DRAAdminAccess": _b(True),
    "DRAConsumableCapacity": _a(),
    "DRADeviceBindingConditions": _a(),
    "DRADeviceTaints": _a(),
    "DRAExtendedResource": _a(),
    "DRAPartitionableDevices": _a(),
    "DRAPrioritizedList": _b(True),
    "DRAResourceClaimDeviceStatus": _b(True),
    "DRASchedulerFilterTimeout": _b(True),
    "DeploymentReplicaSetTerminatingReplicas": _a(),
    "DisableAllocatorDualWrite": _ga(locked=False),
    "DisableCPUQuotaWithExclusiveCPUs": _b(True),
    "DisableNodeKubeProxyVersion": _dep(True),
    "DynamicResourceAllocation": _ga(locked=False),
    "EnvFiles": _a(),
    "EventedPLEG": _a(),
    "ExecProbeTimeout": _ga(locked=False),
    "ExternalServiceAccountTokenSigner": _b(True),
    "GitRepoVolumeDriver": _dep(False),
    "GracefulNodeShutdown": _b(True),
    "GracefulNodeShutdownBasedOnPodPriority": _b(True),
    "HPAConfigurableTolerance": _a(),
    "HPAScaleToZero": _a(),
    "HonorPVReclaimPolicy": _ga(),
    "HostnameOverride": _a(),
    "ImageMaximumGCAge": _b(True),
    "ImageVolume": _b(False),
    "InPlacePodVerticalScaling": _b(True),
    "InPlacePodVerticalScalingAllocatedStatus": _dep(False),
    "InPlacePodVerticalScalingExclusiveCPUs": _a(),
    "InPlacePodVerticalScalingExclusiveMemory": _a(),
    "InTreePluginPortworxUnregister": _a(),
    "JobBackoffLimitPerIndex": _ga(),
    "JobManagedBy": _b(True),
    "JobPodReplacementPolicy": _ga(),
    "JobSuccessPolicy": _ga(),
    "KubeletCgroupDriverFromCRI": _ga(),
    "KubeletCrashLoopBackOffMax": _a(),
    "KubeletEnsureSecretPulledImages": _a(),
    "KubeletFineGrainedAuthz": _b(True),
    "KubeletInUserNamespace": _a(),
    "KubeletPSI": _b(True),
    "KubeletPodResourcesDynamicResources": _b(True),
    "KubeletPodResourcesGet": _b(True),
    "KubeletPodResourcesListUseActivePods": _dep(True),
    "KubeletRegistrationGetOnExistsOnly": _dep(False),
    "KubeletSeparateDiskGC": _b(True),
    "KubeletServiceAccountTokenForCredentialProviders": _b(True),
    "KubeletTracing": _ga(),
    "LoadBalancerIPMode": _ga(),
    "LocalStorageCapacityIsolationFSQuotaMonitoring": _b(False),
    "LogarithmicScaleDown": _ga(),
    "MatchLabelKeysInPodAffinity": _ga(),
    "MatchLabelKeysInPodTopologySpread": _b(True),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": _b(True),
    "MaxUnavailableStatefulSet": _a(),
    "MemoryManager": _ga(),
    "MemoryQoS": _a(),
    "MultiCIDRServiceAllocator": _ga(),
    "MutableCSINodeAllocatableCount": _b(False),
    "NFTablesProxyMode": _ga(),
    "NodeInclusionPolicyInPodTopologySpread": _ga(),
    "NodeLogQuery": _b(False),
    "NodeSwap": _ga(),
    "NominatedNodeNameForExpectation": _a(),
    "OrderedNamespaceDeletion": _ga(),
    "PodAndContainerStatsFromCRI": _a(),
    "PodCertificateRequest": _a(),
    "PodDeletionCost": _b(True),
    "PodIndexLabel": _ga(),
    "PodLevelResources": _b(True),
    "PodLifecycleSleepAction": _ga(),
    "PodLifecycleSleepActionAllowZero": _ga(),
    "PodLogsQuerySplitStreams": _a(),
    "PodObservedGenerationTracking": _b(True),
    "PodReadyToStartContainersCondition": _b(True),
    "PodSchedulingReadiness": _ga(),
    "PodTopologyLabelsAdmission": _a(),
    "PortForwardWebsockets": _b(True),
    "PreferSameTrafficDistribution": _b(True),
    "PreventStaticPodAPIReferences": _b(True),
    "ProcMountType": _b(True),
    "QOSReserved": _a(),
    "RecoverVolumeExpansionFailure": _ga(),
    "RecursiveReadOnlyMounts": _ga(),
    "ReduceDefaultCrashLoopBackOffDecay": _a(),
    "RelaxedDNSSearchValidation": _ga(),
    "RelaxedEnvironmentVariableValidation": _ga(),
    "RelaxedServiceNameValidation": _a(),
    "ReloadKubeletServerCertificateFile": _b(True),
    "ResourceHealthStatus": _a(),
    "RotateKubeletServerCertificate": _b(True),
    "RuntimeClassInImageCriAPI": _a(),
    "SELinuxChangePolicy": _b(True),
    "SELinuxMount": _b(False),
    "SELinuxMountReadWriteOncePod": _b(True),
    "SchedulerAsyncAPICalls": _b(False),
    "SchedulerAsyncPreemption": _b(True),
    "SchedulerPopFromBackoffQ": _b(True),
    "SchedulerQueueingHints": _ga(),
    "SeparateTaintEvictionController": _ga(),
    "ServiceAccountNodeAudienceRestriction": _b(True),
    "ServiceAccountTokenJTI": _ga(),
    "ServiceAccountTokenNodeBinding": _ga(),
    "ServiceAccountTokenNodeBindingValidation": _ga(),
    "ServiceAccountTokenPodNodeInfo": _ga(),
    "ServiceTrafficDistribution": _ga(),
    "SidecarContainers": _ga(),
    "SizeMemoryBackedVolumes": _ga(),
    "StatefulSetAutoDeletePVC": _ga(),
    "StorageCapacityScoring": _a(),
    "StorageNamespaceIndex": _dep(True),
    "StorageVersionMigrator": _a(),
    "StreamingCollectionEncodingToJSON": _ga(),
    "StreamingCollectionEncodingToProtobuf": _ga(),
    "StrictIPCIDRValidation": _a(),
    "SupplementalGroupsPolicy": _b(True),
    "SystemdWatchdog": _b(True),
    "TopologyAwareHints": _ga(),
    "TopologyManagerPolicyAlphaOptions": _a(),
    "TopologyManagerPolicyBetaOptions": _b(True),
    "TopologyManagerPolicyOptions": _ga(locked=False),
    "TranslateStreamCloseWebsocketRequests": _b(True),
    "UserNamespacesSupport": _b(True),
    "VolumeAttributesClass": _ga(locked=False),
    "WinDSR": _ga(),
    "WinOverlay": _ga(),
    "WindowsCPUAndMemoryAffinity": _a(),
    "WindowsGracefulNodeShutdown": _b(True),
    "WindowsHostNetwork": _dep(False),
    # relisted from k8s.io/apiextensions-apiserver
    "CRDValidationRatcheting": _ga(),
    "CustomResourceFieldSelectors": _ga(),
    # relisted from k8s.io/apiserver (genericfeatures)
    "APIResponseCompression": _b(True),
    "APIServerIdentity": _b(True),
    "APIServerTracing": _ga(),
    "APIServingWithRoutine": _a(),
    "AggregatedDiscoveryRemoveBetaType": _dep(True),
    "AllowParsingUserUIDFromCertAuth": _b(True),
    "AllowUnsafeMalformedObjectDeletion": _a(),
    "AnonymousAuthConfigurableEndpoints": _ga(),
    "AuthorizeWithSelectors": _ga(),
    "BtreeWatchCache": _ga(),
    "CBORServingAndStorage": _a(),
    "ConcurrentWatchObjectDecode": _b(False),
    "ConsistentListFromCache": _ga(),
    "CoordinatedLeaderElection": _b(False),
    "DeclarativeValidation": _b(True),
    "DeclarativeValidationTakeover": _b(False),
    "DetectCacheInconsistency": _b(True),
    "KMSv1": _dep(False),
    "ListFromCacheSnapshot": _b(True),
    "MutatingAdmissionPolicy": _b(False),
    "OpenAPIEnums": _b(True),
    "RemoteRequestHeaderUID": _b(True),
    "ResilientWatchCacheInitialization": _ga(),
    "RetryGenerateName": _ga(),
    "SeparateCacheWatchRPC": _dep(False),
    "SizeBasedListCostEstimate": _b(True),
    "StorageVersionAPI": _a(),
    "StorageVersionHash": _b(True),
    "StrictCostEnforcementForVAP": _ga(),
    "StrictCostEnforcementForWebhooks": _ga(),
    "StructuredAuthenticationConfiguration": _ga(),
    "StructuredAuthenticationConfigurationEgressSelector": _b(True),
    "StructuredAuthorizationConfiguration": _ga(),
    "TokenRequestServiceAccountUIDValidation": _b(True),
    "UnauthenticatedHTTP2DOSMitigation": _b(True),
    "UnknownVersionInteroperabilityProxy": _a(),
    "WatchCacheInitializationPostStartHook": _b(False),
    "WatchFromStorageWithoutResourceVersion": _dep(False, locked=True),
    "WatchList": _b(True),
    # relisted from k8s.io/controller-manager and k8s.io/component-base/zpages
    "CloudControllerManagerWebhook": _a(),
    "ComponentFlagz": _a(),
    "ComponentStatusz": _a(),
    # component-base's two special gates
    ALL_ALPHA: _a(),
    ALL_BETA: FeatureSpec(False, BETA),
}

#: Go's ``strconv.ParseBool`` spellings.
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_bool(text: str) -> bool:
    """Go's ``strconv.ParseBool``: ``1 t T TRUE true True`` and ``0 f F FALSE false False``.

    Parameters
    ----------
    text : str
        The value after ``=``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For anything else, with Go's text (``strconv.ParseBool: parsing "yes": invalid syntax``).

    Examples
    --------
    >>> parse_bool("T"), parse_bool("0")
    (True, False)
    >>> parse_bool("yes")
    Traceback (most recent call last):
    ...
    ValueError: strconv.ParseBool: parsing "yes": invalid syntax
    """
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f'strconv.ParseBool: parsing "{text}": invalid syntax')


class FeatureGate:
    """A set of gate values: v1.34's defaults with some gates set (``featuregate.featureGate``).

    Parameters
    ----------
    overrides : mapping of str to bool, optional
        Gates to set (``{"EnvFiles": True}``), checked as :meth:`set_from_map` checks them.

    Raises
    ------
    ConfigError
        An unknown gate, or a locked gate set away from its default (upstream's texts, see :meth:`set_from_map`).

    See Also
    --------
    FeatureGate.parse : from the ``--feature-gates`` flag's text.
    feature_gates : what :class:`~kubenotes.sim.cluster.Cluster` and the commands accept.

    Notes
    -----
    Upstream has one mutable process-wide gate (``utilfeature.DefaultFeatureGate``);
    the model passes a gate object to the components of one cluster, so two
    clusters in one notebook can differ.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-base/featuregate/feature_gate.go

    Examples
    --------
    >>> g = FeatureGate({"ImageVolume": True})
    >>> g.enabled("ImageVolume"), g.enabled("EnvFiles"), str(g)
    (True, False, 'ImageVolume=true')
    >>> FeatureGate({"AllAlpha": True}).enabled("EnvFiles")
    True
    """

    __slots__ = ("_enabled",)

    def __init__(self, overrides: Mapping[str, bool] | None = None):
        self._enabled: dict[str, bool] = {}
        if overrides:
            self.set_from_map(overrides)

    @classmethod
    def parse(cls, value: str | None) -> "FeatureGate":
        """Gates from the flag's text, ``A=true,B=false`` (``featureGate.Set``).

        Parameters
        ----------
        value : str or None
            Comma-separated ``Name=bool`` pairs; blanks around names and values
            are ignored, as are empty items. None or ``""``: all defaults.

        Returns
        -------
        FeatureGate

        Raises
        ------
        ConfigError
            ``invalid argument "<value>" for "--feature-gates" flag: <reason>``, the
            reason being upstream's: ``missing bool value for X``, ``invalid value
            of X=yes, err: strconv.ParseBool: parsing "yes": invalid syntax``,
            ``unrecognized feature gate: X`` or ``cannot set feature gate X to false,
            feature is locked to true``.

        Examples
        --------
        >>> str(FeatureGate.parse(" EnvFiles = true ,, ImageVolume=1"))
        'EnvFiles=true,ImageVolume=true'
        >>> FeatureGate.parse("Foo=true")
        Traceback (most recent call last):
        ...
        kubenotes.errors.ConfigError: invalid argument "Foo=true" for "--feature-gates" flag: unrecognized feature gate: Foo
        """
        gate = cls()
        if not value:
            return gate
        wanted: dict[str, bool] = {}
        try:
            for item in value.split(","):
                if not item:
                    continue
                key, sep, raw = item.partition("=")
                key = key.strip()
                if not sep:
                    raise ConfigError(f"missing bool value for {key}")
                raw = raw.strip()
                try:
                    wanted[key] = parse_bool(raw)
                except ValueError as e:
                    raise ConfigError(f"invalid value of {key}={raw}, err: {e}") from None
            gate.set_from_map(wanted)
        except ConfigError as e:
            raise ConfigError(f'invalid argument "{value}" for "--feature-gates" flag: {e}') from None
        return gate

    def set_from_map(self, values: Mapping[str, bool]) -> None:
        """Set gates (``featureGate.SetFromMap``); ``AllAlpha``/``AllBeta`` switch the gates of their stage.

        Parameters
        ----------
        values : mapping of str to bool
            Gate name -> value, applied in order.

        Raises
        ------
        ConfigError
            ``unrecognized feature gate: X`` (the first unknown name: nothing is set);
            ``cannot set feature gate X to V, feature is locked to D`` for each locked
            gate set away from its default (several joined as upstream's aggregate
            error, ``[a, b]``); the other gates of the map are still set.
        """
        for k in values:
            if k not in DEFAULT_FEATURE_GATES:
                raise ConfigError(f"unrecognized feature gate: {k}")
        errors = []
        for k, v in values.items():
            v = bool(v)
            spec = DEFAULT_FEATURE_GATES[k]
            if spec.lock_to_default and spec.default != v:
                errors.append(f"cannot set feature gate {k} to {_go_bool(v)}, feature is locked to "
                              f"{_go_bool(spec.default)}")
                continue
            self._enabled[k] = v
        if errors:
            raise ConfigError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")

    def enabled(self, name: str) -> bool:
        """Whether gate ``name`` is on (``featureGate.Enabled``).

        Parameters
        ----------
        name : str
            A gate of :data:`DEFAULT_FEATURE_GATES`.

        Returns
        -------
        bool
            The value set, else ``AllAlpha``/``AllBeta`` for a gate of that stage
            when set, else the v1.34 default.

        Raises
        ------
        KeyError
            For a name that is no gate (upstream panics: a programming error).
        """
        got = self._enabled.get(name)
        if got is not None:
            return got
        spec = DEFAULT_FEATURE_GATES[name]
        if spec.pre_release == ALPHA and name != ALL_ALPHA and ALL_ALPHA in self._enabled:
            return self._enabled[ALL_ALPHA]
        if spec.pre_release == BETA and name != ALL_BETA and ALL_BETA in self._enabled:
            return self._enabled[ALL_BETA]
        return spec.default

    def known_features(self) -> list[str]:
        """``Name=true|false|default (ALPHA - default=false)`` lines, as ``--help`` lists them (GA and deprecated left out).

        Returns
        -------
        list of str
            Sorted, one per alpha or beta gate.
        """
        out = []
        for k, spec in DEFAULT_FEATURE_GATES.items():
            if spec.pre_release in (ALPHA, BETA):
                out.append(f"{k}=true|false ({spec.pre_release} - default={_go_bool(spec.default)})")
        return sorted(out)

    def overrides(self) -> dict[str, bool]:
        """The gates set explicitly, name -> value (a copy)."""
        return dict(self._enabled)

    def __iter__(self) -> Iterator[str]:
        return iter(self._enabled)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FeatureGate) and self._enabled == other._enabled

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._enabled.items())))

    def __str__(self) -> str:
        return ",".join(f"{k}={_go_bool(v)}" for k, v in sorted(self._enabled.items()))

    def __repr__(self) -> str:
        return f"FeatureGate({self._enabled!r})"


def _go_bool(v: bool) -> str:
    return "true" if v else "false"


#: The gates of a cluster started without ``--feature-gates``.
DEFAULT_GATES = FeatureGate()


def feature_gates(value: Any) -> FeatureGate:
    """A :class:`FeatureGate` from what a Cluster argument or a command-line flag holds.

    Parameters
    ----------
    value : FeatureGate, mapping of str to bool, str or None
        A gate as is; ``{"EnvFiles": True}``; ``"EnvFiles=true,ImageVolume=true"``
        (the flag's syntax); None for v1.34's defaults.

    Returns
    -------
    FeatureGate

    Raises
    ------
    ConfigError
        For an unknown gate, a locked gate or a malformed string (see :meth:`FeatureGate.parse`).
    TypeError
        For any other type.

    Examples
    --------
    >>> feature_gates(None) is DEFAULT_GATES, feature_gates({"EnvFiles": True}).enabled("EnvFiles")
    (True, True)
    """
    if value is None:
        return DEFAULT_GATES
    if isinstance(value, FeatureGate):
        return value
    if isinstance(value, str):
        return FeatureGate.parse(value)
    if isinstance(value, Mapping):
        return FeatureGate(value)
    raise TypeError(f"feature gates are a FeatureGate, a mapping of name to bool or 'A=true,B=false', "
                    f"not {type(value).__name__}")


def add_feature_gates_flag(parser: Any) -> None:
    """Add ``--feature-gates A=true,B=false`` to a command's argparse parser.

    The value is parsed by :func:`feature_gates` when the arguments are (a
    bad value raises :class:`~kubenotes.errors.ConfigError`, which the command
    line prints as one line with exit status 2); ``args.feature_gates`` is a
    :class:`FeatureGate`.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.

    Returns
    -------
    None

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-base/featuregate/feature_gate.go (AddFlag)

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_feature_gates_flag(p)
    >>> p.parse_args(["--feature-gates", "EnvFiles=true"]).feature_gates.enabled("EnvFiles")
    True
    >>> p.parse_args([]).feature_gates is DEFAULT_GATES
    True
    """
    parser.add_argument("--feature-gates", type=feature_gates, default=DEFAULT_GATES, metavar="A=true,B=false",
                        help="feature gates to turn on or off, as kube-apiserver's flag (v1.34's defaults otherwise)")
