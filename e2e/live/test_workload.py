"""Kubernetes' own gangs (KEP-4671): Workload objects and pods that join
them by spec.workloadRef, created live. The API is alpha (Kubernetes
1.35, GenericWorkload feature gate): against an API server that does not
serve scheduling.k8s.io/v1alpha1 Workloads these tests are skipped, saying
so (a pod's workloadRef would be dropped by such a server anyway)."""
import time

import pytest
from kubernetes.client.rest import ApiException

from harness.cluster import wait_for

WORKLOAD = ("scheduling.k8s.io", "v1alpha1")


def require_workloads(objects):
    try:
        objects.c.custom.list_namespaced_custom_object(*WORKLOAD, objects.ns, "workloads")
    except ApiException as e:
        if e.status == 404:
            pytest.skip("the API server does not serve scheduling.k8s.io/v1alpha1 "
                        "Workload (Kubernetes 1.35+ with the GenericWorkload gate)")
        raise


def workload(objects, name, **groups):
    """A Workload whose podGroups are NAME=minCount (a gang) or NAME=None
    (basic)."""
    pod_groups = [{"name": g, "policy": {"gang": {"minCount": n}} if n else {"basic": {}}}
                  for g, n in groups.items()]
    objects.c.custom.create_namespaced_custom_object(*WORKLOAD, objects.ns, "workloads", {
        "apiVersion": "/".join(WORKLOAD), "kind": "Workload",
        "metadata": {"name": name, "namespace": objects.ns},
        "spec": {"podGroups": pod_groups}})


def member(objects, name, workload_name, pod_group, cpu="1"):
    return objects.pod(name, cpu=cpu, spec_extra={
        "workloadRef": {"name": workload_name, "podGroup": pod_group}})


def pod_scheduled_message(objects, name):
    pod = objects.c.core.read_namespaced_pod(name, objects.ns)
    for c in (pod.status.conditions or []):
        if c.type == "PodScheduled":
            return c.message or ""
    return ""


def test_a_workload_gang_binds_whole_once_its_pods_are_there(objects, kubelet, schedulers):
    require_workloads(objects)
    objects.node("n0", cpu="8")
    workload(objects, "train", workers=4)
    member(objects, "train-0", "train", "workers")
    member(objects, "train-1", "train", "workers")
    schedulers()
    # Two of four: half a gang is never bound.
    time.sleep(2)
    assert objects.bound("train-") == []
    member(objects, "train-2", "train", "workers")
    member(objects, "train-3", "train", "workers")
    wait_for("the gang of four bound", lambda: len(objects.bound("train-")) == 4)


def test_a_pod_naming_a_missing_workload_waits_until_it_exists(objects, kubelet, schedulers):
    require_workloads(objects)
    objects.node("n0", cpu="4")
    member(objects, "serve-0", "serve", "replicas")
    schedulers()
    wait_for("the pod saying its Workload is missing",
             lambda: f"workload {objects.ns}/serve does not exist"
             in pod_scheduled_message(objects, "serve-0"))
    assert objects.bound("serve-") == []
    workload(objects, "serve", replicas=None)  # basic: each pod on its own
    wait_for("the pod bound once its Workload exists",
             lambda: len(objects.bound("serve-")) == 1)
