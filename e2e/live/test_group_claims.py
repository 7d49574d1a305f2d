"""Claims of a whole PodGroup (KEP-5729) end to end: a scheduling.k8s.io
v1alpha2 PodGroup names a ResourceClaim in spec.resourceClaims, its pods
(joining by spec.schedulingGroup) name it too; Shoal allocates the claim
once, reserves it for the PodGroup (not for each pod) before binding, and
binds the gang where the claim's devices are.

Skipped where the server does not serve resource.k8s.io/v1 (as in
test_devices.py) or scheduling.k8s.io/v1alpha2 PodGroups, or drops
spec.resourceClaims (the DRAWorkloadResourceClaims gate, alpha and off by
default in Kubernetes 1.36)."""
import pytest
from kubernetes.client.rest import ApiException

from harness.cluster import wait_for
from test_devices import CLASS, RESOURCE, devices, dra_served  # noqa: F401

POD_GROUP = ("scheduling.k8s.io", "v1alpha2")


def pod_group_with_claim(objects, name, min_count, claim):
    entry = {"name": "gpus", "resourceClaimName": claim}
    try:
        made = objects.c.custom.create_namespaced_custom_object(
            *POD_GROUP, objects.ns, "podgroups", {
                "apiVersion": "/".join(POD_GROUP), "kind": "PodGroup",
                "metadata": {"name": name, "namespace": objects.ns},
                "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}},
                         "resourceClaims": [entry]}})
    except ApiException as e:
        if e.status == 404:
            pytest.skip("the API server does not serve scheduling.k8s.io/v1alpha2 PodGroups")
        raise
    if made["spec"].get("resourceClaims") != [entry]:
        pytest.skip("the API server dropped PodGroup spec.resourceClaims "
                    "(DRAWorkloadResourceClaims is off)")
    return entry


def test_a_pod_groups_claim_is_allocated_once_and_reserved_for_the_group(
        objects, devices, kubelet, schedulers):
    devices.device_class()
    nodes = [objects.node(f"n{i}") for i in range(2)]
    for n in nodes:
        devices.node_slice(n)
    devices.c.custom.create_namespaced_custom_object(*RESOURCE, devices.ns, "resourceclaims", {
        "apiVersion": "/".join(RESOURCE), "kind": "ResourceClaim",
        "metadata": {"name": "shared-gpus", "namespace": devices.ns},
        "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
            "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": 2}}]}}})
    entry = pod_group_with_claim(objects, "train", 2, "shared-gpus")
    for i in range(2):
        objects.pod(f"train-{i}", resource_claims=[entry],
                    spec_extra={"schedulingGroup": {"podGroupName": "train"}})
    schedulers()
    bound = wait_for("gang `train` bound", lambda: len(objects.bound("train-")) == 2
                     and objects.bound("train-"))
    assert len({p.spec.node_name for p in bound}) == 1, [p.spec.node_name for p in bound]
    claim = devices.get_claim("shared-gpus")
    status = claim["status"]
    pods = {r.get("resource") for r in status["reservedFor"]}
    assert pods == {"podgroups"}, status["reservedFor"]
    (reserved,) = status["reservedFor"]
    assert (reserved.get("apiGroup"), reserved["name"]) == ("scheduling.k8s.io", "train")
    results = status["allocation"]["devices"]["results"]
    assert len(results) == 2 and {r["pool"] for r in results} == {bound[0].spec.node_name}
