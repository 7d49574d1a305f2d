"""Extended resources backed by devices (KEP-5004, beta and on by default
in Kubernetes 1.36) end to end: pods asking an extended resource that a
DeviceClass serves (spec.extendedResourceName), on nodes that publish no
such resource but DRA devices of the class. Shoal makes each pod's claim
as kube-scheduler does (owned by the pod, annotated
resource.kubernetes.io/extended-resource-claim), writes its allocation and
the pod's status.extendedResourceClaimStatus, then binds; a gang the
devices cannot hold binds nothing and creates no claim.

A cluster that does not serve resource.k8s.io/v1 is skipped (as in
test_devices.py); so is one that drops spec.extendedResourceName (its
feature gate off)."""
import time

import pytest

from harness.cluster import wait_for
from test_devices import (CYCLES_S, DRIVER, RESOURCE, devices, dra_served,  # noqa: F401
                          node_selector_of, unschedulable, wait_for_message)

ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


def gpu_class(devices):
    """A class of this test's own serving example.com/<namespace>; returns
    the resource's name."""
    resource = f"example.com/{devices.ns}"
    name = f"{devices.ns}-gpu"
    made = devices.c.custom.create_cluster_custom_object(*RESOURCE, "deviceclasses", {
        "apiVersion": "/".join(RESOURCE), "kind": "DeviceClass", "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}],
                 "extendedResourceName": resource}})
    devices.classes.append(name)
    if made["spec"].get("extendedResourceName") != resource:
        pytest.skip("the cluster dropped DeviceClass spec.extendedResourceName "
                    "(DRAExtendedResource is off)")
    return resource


def dra_only_nodes(objects, devices):
    """Two nodes publishing no GPUs themselves, two DRA devices each."""
    nodes = [objects.node(f"n{i}") for i in range(2)]
    for n in nodes:
        devices.node_slice(n)
    return nodes


def gpu_gang(objects, name, size, resource, gpus=1):
    objects.pod_group(name, size)
    requests = {"cpu": "1", "memory": "1Gi", resource: str(gpus)}
    for i in range(size):
        objects.pod(f"{name}-{i}", group=name, spec_extra={"containers": [{
            "name": "main", "image": "registry.k8s.io/pause:3.9",
            "resources": {"requests": requests, "limits": dict(requests)}}]})


def test_a_gang_asking_an_extended_resource_on_dra_only_nodes_binds_with_claims_made(
        objects, devices, kubelet, schedulers):
    resource = gpu_class(devices)
    dra_only_nodes(objects, devices)
    gpu_gang(objects, "train", 3, resource)
    schedulers()
    bound = wait_for("gang `train` bound", lambda: len(objects.bound("train-")) == 3
                     and objects.bound("train-"))
    used = set()
    for pod in bound:
        raw = devices.raw_pod(pod.metadata.name)
        status = raw["status"].get("extendedResourceClaimStatus")
        assert status is not None, f"{pod.metadata.name} bound without its claim named"
        assert status["requestMappings"] == [{"containerName": "main", "resourceName": resource,
                                              "requestName": "container-0-request-1"}], status
        claim = devices.get_claim(status["resourceClaimName"])
        meta = claim["metadata"]
        assert meta["name"].startswith(f"{pod.metadata.name}-extended-resources-"), meta
        assert meta["annotations"][ANNOTATION] == "true", meta
        (owner,) = meta["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
            "Pod", pod.metadata.name, pod.metadata.uid, True), owner
        (request,) = claim["spec"]["devices"]["requests"]
        assert request["name"] == "container-0-request-1", request
        assert request["exactly"]["deviceClassName"] == f"{devices.ns}-gpu", request
        allocation = claim["status"]["allocation"]
        (result,) = allocation["devices"]["results"]
        assert result["pool"] == pod.spec.node_name, (result, pod.spec.node_name)
        assert allocation["nodeSelector"] == node_selector_of(pod.spec.node_name)
        assert [r["uid"] for r in claim["status"]["reservedFor"]] == [pod.metadata.uid]
        used.add((result["pool"], result["device"]))
    assert len(used) == 3, used


def test_a_gang_the_devices_cannot_hold_binds_nothing_and_creates_no_claim(
        objects, devices, kubelet, schedulers):
    resource = gpu_class(devices)
    dra_only_nodes(objects, devices)
    gpu_gang(objects, "big", 3, resource, gpus=2)
    schedulers()
    # Six GPUs asked, four published (through DRA) in the whole cluster.
    wait_for_message("big's Unschedulable condition", lambda: unschedulable(objects, "big"),
                     f"{resource} needs 6, 4 left")
    time.sleep(CYCLES_S)
    assert objects.bound("big-") == []
    assert devices.claims() == []
