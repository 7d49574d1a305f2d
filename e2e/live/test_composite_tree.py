"""Kubernetes 1.37's gang API, created live: a scheduling.k8s.io/v1beta1
PodGroup gang, and a v1alpha3 CompositePodGroup tree (KEP-6012) whose root
needs two of its three leaf PodGroups. Against an API server that does not
serve these versions (1.36 and older, or 1.37 without the GenericWorkload
and CompositePodGroup gates) these tests are skipped, saying so."""
import time

import pytest
from kubernetes.client.rest import ApiException

from harness.cluster import wait_for

BETA = ("scheduling.k8s.io", "v1beta1")
ALPHA3 = ("scheduling.k8s.io", "v1alpha3")


def require(objects, version, plural):
    try:
        objects.c.custom.list_namespaced_custom_object(*version, objects.ns, plural)
    except ApiException as e:
        if e.status == 404:
            pytest.skip(f"the API server does not serve {'/'.join(version)} {plural} "
                        "(Kubernetes 1.37 with its feature gates on)")
        raise


def create(objects, version, plural, kind, name, spec):
    objects.c.custom.create_namespaced_custom_object(*version, objects.ns, plural, {
        "apiVersion": "/".join(version), "kind": kind,
        "metadata": {"name": name, "namespace": objects.ns}, "spec": spec})


def pod_group(objects, name, min_count, parent=None):
    spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
        spec["workloadRef"] = {"workloadName": "train", "templateName": "leaf"}
    create(objects, BETA, "podgroups", "PodGroup", name, spec)


def condition(objects, version, plural, name, type_):
    obj = objects.c.custom.get_namespaced_custom_object(*version, objects.ns, plural, name)
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == type_:
            return c
    return {}


def member(objects, name, group, cpu="1"):
    return objects.pod(name, cpu=cpu, spec_extra={"schedulingGroup": {"podGroupName": group}})


def test_a_v1beta1_pod_group_gang_binds_whole_once_its_pods_are_there(objects, kubelet,
                                                                      schedulers):
    require(objects, BETA, "podgroups")
    objects.node("n0", cpu="8")
    pod_group(objects, "train", 4)
    for i in range(2):
        member(objects, f"train-{i}", "train")
    schedulers()
    # Half a gang is never bound; the PodGroup says why, as kube-scheduler's
    # condition does.
    wait_for("PodGroupInitiallyScheduled False", lambda: condition(
        objects, BETA, "podgroups", "train", "PodGroupInitiallyScheduled").get("status") == "False")
    said = condition(objects, BETA, "podgroups", "train", "PodGroupInitiallyScheduled")
    assert said["reason"] == "Unschedulable"
    assert "not enough pods for the gang: 2 exist" in said["message"], said
    assert objects.bound("train-") == []
    for i in range(2, 4):
        member(objects, f"train-{i}", "train")
    wait_for("the gang of four bound", lambda: len(objects.bound("train-")) == 4)
    wait_for("PodGroupInitiallyScheduled True", lambda: condition(
        objects, BETA, "podgroups", "train", "PodGroupInitiallyScheduled").get("reason")
        == "Scheduled")


def test_a_composite_tree_binds_two_whole_leaves_when_only_two_fit(objects, kubelet,
                                                                   schedulers):
    require(objects, BETA, "podgroups")
    require(objects, ALPHA3, "compositepodgroups")
    objects.node("n0", cpu="4")
    objects.node("n1", cpu="4")
    create(objects, ALPHA3, "compositepodgroups", "CompositePodGroup", "root", {
        "workloadRef": {"workloadName": "train", "templateName": "root"},
        "schedulingPolicy": {"gang": {"minGroupCount": 2}}})
    for leaf in ("a", "b", "c"):
        pod_group(objects, leaf, 4, parent="root")
        for i in range(4):
            member(objects, f"{leaf}-{i}", leaf)
    schedulers()
    wait_for("two leaves bound", lambda: len(objects.bound("")) == 8)
    time.sleep(2)
    per_leaf = {}
    for p in objects.bound(""):
        leaf = p.metadata.name.split("-")[0]
        per_leaf[leaf] = per_leaf.get(leaf, 0) + 1
    assert sorted(per_leaf.values()) == [4, 4], per_leaf  # never a partial leaf
    wait_for("the root's condition True", lambda: condition(
        objects, ALPHA3, "compositepodgroups", "root",
        "CompositePodGroupInitiallyScheduled").get("status") == "True")
    for leaf in per_leaf:
        wait_for(f"leaf {leaf}'s condition True", lambda leaf=leaf: condition(
            objects, BETA, "podgroups", leaf, "PodGroupInitiallyScheduled").get("status") == "True")
