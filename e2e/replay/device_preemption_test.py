"""Preemption makes room in devices (DRA, resource.k8s.io/v1) through the
real shoal-scheduler binary: a low-priority gang holding a node's GPUs
through allocated claims is evicted for a high-priority gang, which binds
only once Kubernetes' resourceclaim controller (played by the replay,
--claim-controller-lag cycles after the eviction) has taken the evicted
pods out of their claims and deallocated them. A claim a staying pod
shares frees nothing; a victim's share of a shared GPU makes room for a
share."""

import unittest

from cluster import node, pod, podgroup, priority_class, replay
from devices_test import binds, claims, device_class, gpu_slice, message, with_claim
from device_sharing_test import SHARED, node_selector, shared_gpu
from device_sharing_test import claim as share_claim
from device_sharing_test import device_class as sharing_class

CPU = {"cpu": "1", "memory": "1Gi"}
DRIVER = "gpu.example.com"
POLICY = """actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
"""


def claim(name, device_class_name=DRIVER, memory=None):
    return share_claim(name, device_class_name, memory=memory)


def held(c, device, pods, share=None):
    """Claim `c` as the API server shows it for running `pods`: allocated
    `device` of n1 (a `share` of it: (shareID, memory)), reserved for them."""
    result = {"request": "gpu", "driver": DRIVER, "pool": "n1", "device": device}
    if share:
        result["shareID"], memory = share
        result["consumedCapacity"] = {"memory": memory}
    c["status"] = {
        "allocation": {"devices": {"results": [result]}, "nodeSelector": node_selector("n1")},
        "reservedFor": [{"resource": "pods", "name": p, "uid": "pod-" + p} for p in pods]}
    return c


def running(name, claim_name, group=None, priority_class_name=None):
    p = pod(name, CPU, group=group, node_name="n1", priority_class_name=priority_class_name)
    return with_claim(p, claim_name)


def pending(name, claim_name, group=None, priority_class_name=None, created=10):
    p = pod(name, CPU, group=group, created=created, priority_class_name=priority_class_name)
    return with_claim(p, claim_name)


def by_cycle(report, what):
    return [sorted(x["pod"] for x in cycle[what]) for cycle in report["cycles"]]


def message_in(report, cycle, name):
    (group,) = [g for g in report["cycles"][cycle]["podGroups"] if g["name"] == name]
    return group["message"]


class GangPreemptionTest(unittest.TestCase):
    """The issue's case: two GPUs on n1, both held by a running low gang."""

    def objects(self):
        objs = [node("n1"), device_class(), gpu_slice("n1"),
                priority_class("low", 1), priority_class("high", 100),
                podgroup("low", 2, phase="Running", priority_class_name="low"),
                podgroup("high", 2, created=10, priority_class_name="high")]
        for i in range(2):
            objs.append(held(claim("low-%d-gpu" % i), "gpu-%d" % i, ["low-%d" % i]))
            objs.append(running("low-%d" % i, "low-%d-gpu" % i, group="low",
                                priority_class_name="low"))
            objs.append(claim("high-%d-gpu" % i))
            objs.append(pending("high-%d" % i, "high-%d-gpu" % i, group="high",
                                priority_class_name="high"))
        return objs

    def test_the_low_gang_goes_and_the_high_gang_binds_once_its_claims_are_freed(self):
        report, _ = replay(self.objects(), cycles=4, policy=POLICY,
                           extra_args=["--claim-controller-lag=2"])
        self.assertEqual(by_cycle(report, "evictions"),
                         [["default/low-0", "default/low-1"], [], [], []])
        for e in report["cycles"][0]["evictions"]:
            self.assertEqual(e["reason"], "preempt")
        # Cycle 2: the victims are gone but their claims still hold the
        # GPUs; cycle 3: the controller has deallocated them.
        self.assertEqual(by_cycle(report, "binds"),
                         [[], [], ["default/high-0", "default/high-1"], []])
        self.assertIn("all matching devices of class gpu.example.com allocated",
                      message_in(report, 1, "default/high"))
        written = [c for cycle in report["cycles"] for c in cycle.get("claims", [])]
        self.assertEqual(sorted(c["claim"] for c in written),
                         ["default/high-0-gpu", "default/high-1-gpu"])  # each once
        devices = {c["devices"][0]["device"] for c in written}
        self.assertEqual(devices, {"gpu-0", "gpu-1"})
        self.assertEqual({c["node"] for c in written}, {"n1"})

    def test_without_the_controller_the_gpus_stay_held_and_nothing_more_is_evicted(self):
        report, _ = replay(self.objects(), cycles=3, policy=POLICY,
                           extra_args=["--claim-controller-lag=0"])
        self.assertEqual(by_cycle(report, "evictions"),
                         [["default/low-0", "default/low-1"], [], []])
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        self.assertIn("all matching devices of class gpu.example.com allocated",
                      message(report, "default/high"))


class SharedClaimTest(unittest.TestCase):
    def test_a_claim_shared_with_a_pod_that_stays_frees_nothing(self):
        objs = [node("n1"), device_class(), gpu_slice("n1", count=1),
                priority_class("low", 1), priority_class("high", 100),
                priority_class("top", 1000),
                held(claim("shared"), "gpu-0", ["low", "keep"]),
                running("low", "shared", priority_class_name="low"),
                running("keep", "shared", priority_class_name="top"),
                claim("want"), pending("want", "want", priority_class_name="high")]
        report, _ = replay(objs, cycles=2, policy=POLICY)
        self.assertEqual(by_cycle(report, "evictions"), [[], []])
        self.assertEqual(binds(report), {})


class SharePreemptionTest(unittest.TestCase):
    def test_a_victims_40gi_share_makes_room_for_a_40gi_share(self):
        objs = [node("n1"), shared_gpu("n1"),
                sharing_class(SHARED, "device.driver == '%s' && device.allowMultipleAllocations"
                              % DRIVER),
                priority_class("low", 1), priority_class("high", 100),
                priority_class("top", 1000)]
        for name, pc, share_id in (("victim", "low", "bbbbbbbb-0000-4000-8000-000000000000"),
                                   ("stays", "top", "bbbbbbbb-0000-4000-8000-000000000001")):
            objs.append(held(claim(name + "-gpu", SHARED, memory="40Gi"), "gpu-0", [name],
                             share=(share_id, "40Gi")))
            objs.append(running(name, name + "-gpu", priority_class_name=pc))
        objs += [claim("taker-gpu", SHARED, memory="40Gi"),
                 pending("taker", "taker-gpu", priority_class_name="high")]
        report, _ = replay(objs, cycles=3, policy=POLICY,
                           extra_args=["--claim-controller-lag=2"])
        self.assertEqual(by_cycle(report, "evictions"), [["default/victim"], [], []])
        self.assertEqual(by_cycle(report, "binds"), [[], [], ["default/taker"]])
        (written,) = [c for cycle in report["cycles"] for c in cycle.get("claims", [])]
        (d,) = written["devices"]
        self.assertEqual((d["device"], d["consumedCapacity"]), ("gpu-0", {"memory": "40Gi"}))
        self.assertNotIn(d["shareID"], ("", "bbbbbbbb-0000-4000-8000-000000000000",
                                        "bbbbbbbb-0000-4000-8000-000000000001"))


if __name__ == "__main__":
    unittest.main()
