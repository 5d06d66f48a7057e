"""kubenotes.api.meta: metav1.GetControllerOf / NewControllerRef, in one home (after upstream's controller_ref_test.go)."""

from lightkube.resources.core_v1 import Pod

from kubenotes.api import meta
from kubenotes.api.meta import get_controller_of, new_controller_ref


def _obj(*refs):
    return {"metadata": {"name": "o", "namespace": "ns", "ownerReferences": list(refs)}}


def test_get_controller_of_finds_the_controller():
    owner = {"metadata": {"name": "rs", "uid": "u1"}}
    ref = new_controller_ref(owner, "apps/v1", "ReplicaSet")
    obj = _obj({"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u0"}, ref)
    assert get_controller_of(obj) is ref
    assert ref == {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1",
                   "controller": True, "blockOwnerDeletion": True}


def test_get_controller_of_orphans_and_non_controllers():
    assert get_controller_of({"metadata": {}}) is None
    assert get_controller_of({}) is None
    assert get_controller_of(_obj({"kind": "A", "name": "a", "uid": "u", "controller": False})) is None
    assert get_controller_of(_obj({"kind": "A", "name": "a", "uid": "u"})) is None


def test_first_controller_wins():
    a = {"kind": "A", "name": "a", "uid": "1", "controller": True}
    b = {"kind": "B", "name": "b", "uid": "2", "controller": True}
    assert get_controller_of(_obj(a, b)) is a


def test_model_and_stored_forms_agree():
    d = _obj({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u", "controller": True})
    model = Pod.from_dict(d)
    assert get_controller_of(model).uid == get_controller_of(d)["uid"] == "u"
    assert get_controller_of(Pod.from_dict({"metadata": {"name": "p"}})) is None


def test_components_call_the_one_home():
    """Controllers, the scheduler's spreading plugins and the chapters' timelines use api.meta, not copies."""
    from kubenotes.controllers import controller_utils, cronjob, deployment, job, statefulset
    from kubenotes.scheduler.plugins import nodepreferavoidpods
    from kubenotes.scheduler.plugins.podtopologyspread import common
    from kubenotes.sim import timelines

    for module in (controller_utils, cronjob, deployment, job, statefulset, nodepreferavoidpods, common):
        assert module.get_controller_of is meta.get_controller_of
    assert timelines._controller_ref is meta.get_controller_of
    assert not hasattr(common, "controller_ref")
    assert cronjob.new_controller_ref is meta.new_controller_ref
