"""Gangs: all or nothing, and no deadlock between two gangs."""
import time

import pytest

from harness.cluster import wait_for
from harness.objects import VOLCANO


def test_gang_is_bound_whole_or_not_at_all(objects, kubelet, schedulers):
    for i in range(2):
        objects.node(f"n{i}", cpu="4")
    fits = objects.gang("fits", 4, cpu="2")
    too_big = objects.gang("too-big", 3, cpu="2")
    schedulers()
    wait_for("gang `fits` bound", lambda: len(objects.bound("fits-")) == 4)
    wait_for("PodGroup fits Running", lambda: objects.get_pod_group("fits").get(
        "status", {}).get("phase") == "Running")
    # The second gang needs 6 cpus of the 0 left: none of it may be bound.
    time.sleep(2)
    assert objects.bound("too-big-") == []
    group = wait_for("too-big's Unschedulable condition", lambda: [
        c for c in objects.get_pod_group("too-big").get("status", {}).get("conditions", [])
        if c["type"] == "Unschedulable" and c["status"] == "True"])
    assert "too-big" not in group[0]["message"]
    assert group[0]["message"].startswith(("3/3 tasks in gang unschedulable",
                                           "waiting for admission")), group[0]["message"]
    # Every bound pod got a Scheduled event naming its node.
    for name in fits:
        events = wait_for(f"Scheduled event of {name}",
                          lambda: objects.events(reason="Scheduled", name=name))
        node = objects.c.core.read_namespaced_pod(name, objects.ns).spec.node_name
        assert events[0].message == f"Successfully assigned {objects.ns}/{name} to {node}"
        assert events[0].source.component == "shoal"
    assert len(too_big) == 3


def test_two_gangs_that_would_deadlock_one_pod_at_a_time(objects, kubelet, schedulers):
    # 8 slots; each gang needs 6. Placing pods one at a time in turn gives
    # each gang 4 and neither can run; Shoal places one gang whole.
    for i in range(2):
        objects.node(f"n{i}", cpu="4")
    objects.gang("a", 6, cpu="1")
    objects.gang("b", 6, cpu="1")
    schedulers()
    wait_for("one gang bound whole",
             lambda: len(objects.bound("a-")) == 6 or len(objects.bound("b-")) == 6)
    time.sleep(1)
    counts = sorted([len(objects.bound("a-")), len(objects.bound("b-"))])
    assert counts == [0, 6], counts


def test_pods_created_only_once_their_pod_group_is_admitted(objects, kubelet, schedulers):
    """As Volcano's job controller does: the PodGroup first (minMember and
    minResources, no pods), its pods only once it has left Pending."""
    objects.node("n0", cpu="8", memory="32Gi")
    objects.c.custom.create_namespaced_custom_object(*VOLCANO, objects.ns, "podgroups", {
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "tf"},
        "spec": {"minMember": 4, "queue": "default",
                 "minResources": {"cpu": "4", "memory": "4Gi"}}})
    schedulers()
    wait_for("the PodGroup admitted", lambda: objects.get_pod_group("tf").get(
        "status", {}).get("phase") == "Inqueue", timeout=20)
    assert not objects.pods()
    for task, replicas in (("ps", 1), ("worker", 3)):
        for i in range(replicas):
            name = f"tf-{task}-{i}"
            objects.c.core.create_namespaced_pod(objects.ns, {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name,
                             "labels": {"volcano.sh/job-name": "tf", "volcano.sh/task-spec": task},
                             "annotations": {"scheduling.k8s.io/group-name": "tf",
                                             "volcano.sh/task-spec": task}},
                "spec": {"schedulerName": "shoal", "containers": [{
                    "name": "main", "image": "registry.k8s.io/pause:3.9",
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}})
    wait_for("all four bound", lambda: len(objects.bound("tf-")) == 4)
    wait_for("the PodGroup Running", lambda: objects.get_pod_group("tf").get(
        "status", {}).get("phase") == "Running")
