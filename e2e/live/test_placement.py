"""Predicates, the message a waiting pod shows, and pods that are not Shoal's."""
import time

from harness.cluster import wait_for

GPU_TAINT = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]


def test_unschedulable_pod_says_why_like_kube_scheduler(objects, kubelet, schedulers):
    objects.node("cpu", cpu="8")
    objects.node("gpu-a", cpu="8", gpus=1, taints=GPU_TAINT)
    objects.node("gpu-b", cpu="8", gpus=1, taints=GPU_TAINT)
    objects.pod("wants-two-gpus", gpus=2)
    schedulers()
    condition = wait_for("PodScheduled=False on wants-two-gpus",
                         lambda: objects.pod_condition("wants-two-gpus"))
    expected = ("0/3 nodes are available: 1 Insufficient nvidia.com/gpu, "
                "2 node(s) had untolerated taint {gpu: true}.")
    assert (condition.status, condition.reason) == ("False", "Unschedulable")
    assert condition.message == expected
    events = wait_for("FailedScheduling event",
                      lambda: objects.events(reason="FailedScheduling", name="wants-two-gpus"))
    assert events[0].type == "Warning"
    assert events[0].message == expected
    # Written once: the next cycles find the same reason and leave it be.
    time.sleep(1.5)
    assert len(objects.events(reason="FailedScheduling", name="wants-two-gpus")) == 1
    assert objects.bound() == []


def test_selectors_and_tolerations_steer_pods(objects, kubelet, schedulers):
    objects.node("plain", cpu="8", labels={"disk": "hdd"})
    gpu = objects.node("gpu", cpu="8", gpus=4, labels={"disk": "ssd"}, taints=GPU_TAINT)
    objects.pod("ssd", node_selector={"disk": "ssd"},
                tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])
    objects.pod("trainer", gpus=2,
                tolerations=[{"key": "gpu", "operator": "Equal", "value": "true",
                              "effect": "NoSchedule"}])
    objects.pod("hdd-only", node_selector={"disk": "hdd"})
    schedulers()
    wait_for("three pods bound", lambda: len(objects.bound()) == 3)
    where = {p.metadata.name: p.spec.node_name for p in objects.pods()}
    assert where["ssd"] == gpu
    assert where["trainer"] == gpu
    assert where["hdd-only"] == f"{objects.ns}-plain"


def test_pods_of_other_schedulers_are_left_alone_but_take_room(objects, kubelet, schedulers):
    first = objects.node("n1", cpu="4")
    second = objects.node("n2", cpu="4")
    # Placed by someone else on n1, using 3 of its 4 cpus.
    objects.pod("foreign-running", cpu="3", scheduler="default-scheduler", node_name=first)
    objects.pod("foreign-pending", cpu="1", scheduler="default-scheduler")
    objects.pod("mine", cpu="2")
    # A gang for Volcano running alongside: its PodGroup is not Shoal's.
    objects.gang("theirs", 2, scheduler="volcano")
    schedulers()
    wait_for("mine bound", lambda: objects.bound("mine"))
    assert objects.c.core.read_namespaced_pod("mine", objects.ns).spec.node_name == second
    time.sleep(1)
    foreign = objects.c.core.read_namespaced_pod("foreign-pending", objects.ns)
    assert foreign.spec.node_name is None
    assert not [c for c in foreign.status.conditions or [] if c.type == "PodScheduled"]
    assert objects.events(name="foreign-pending") == []
    assert "status" not in objects.get_pod_group("theirs") or \
        not objects.get_pod_group("theirs")["status"].get("phase")
    assert objects.bound("theirs-") == []


def test_pod_on_a_bound_local_volume_goes_to_its_node(objects, kubelet, schedulers):
    objects.node("a", cpu="8")
    objects.node("b", cpu="8")
    c = objects.node("c", cpu="8")
    objects.bound_claim("data", objects.local_volume("pv", c))
    objects.pod("reader", claims=["data"])
    objects.pod("lost", claims=["nowhere"])
    schedulers()
    wait_for("reader bound", lambda: objects.bound("reader"))
    assert objects.c.core.read_namespaced_pod("reader", objects.ns).spec.node_name == c
    condition = wait_for("PodScheduled=False on lost", lambda: objects.pod_condition("lost"))
    assert condition.message == f'pod {objects.ns}/lost: persistentvolumeclaim "nowhere" not found'
    assert objects.bound("lost") == []
