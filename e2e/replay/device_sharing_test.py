"""Devices shared between claims, as Kubernetes 1.36 serves them
(resource.k8s.io/v1), through the real shoal-scheduler binary: a GPU
offered whole and as halves that spend one set of shared counters
(partitionable devices), a GPU that allows multiple allocations and gives
shares of its memory (consumable capacity), and tainted devices that only
a claim tolerating the taint gets. What is taken is never given twice,
whether this run allocated it or a claim's status says an earlier
scheduler did; what waits is told why."""

import re
import unittest

from cluster import node, pod, podgroup, replay
from devices_test import binds, claims, message, with_claim

CPU = {"cpu": "1", "memory": "1Gi"}
DRIVER = "gpu.example.com"
HALF = "half.gpu.example.com"
WHOLE = "whole.gpu.example.com"
SHARED = "shared.gpu.example.com"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
UNHEALTHY = {"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoSchedule"}


def device_class(name, expression):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def profile_class(name, profile):
    """A class of the driver's devices of one partition profile."""
    return device_class(name, "device.driver == '%s' && "
                              "device.attributes['%s'].profile == '%s'" % (DRIVER, DRIVER, profile))


def resource_slice(name, node_name, slice_count=1, devices=None, shared_counters=None):
    """A slice of `node_name`'s pool, as a node-local driver publishes it;
    since Kubernetes 1.35 a slice holds devices or shared counters, not
    both, and the pool's resourceSliceCount counts both kinds."""
    spec = {"driver": DRIVER, "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": slice_count}}
    if devices is not None:
        spec["devices"] = devices
    if shared_counters is not None:
        spec["sharedCounters"] = shared_counters
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name}, "spec": spec}


def partitioned_gpu(node_name):
    """One 80Gi GPU of `node_name` offered whole (gpu-0) and as two halves
    (gpu-0-half-0, gpu-0-half-1), all drawing on counter set
    gpu-0-counters, published in a slice of its own."""
    def partition(name, profile, memory):
        return {"name": name,
                "attributes": {"profile": {"string": profile}, "model": {"string": "a100"}},
                "capacity": {"memory": {"value": memory}},
                "consumesCounters": [{"counterSet": "gpu-0-counters",
                                      "counters": {"memory": {"value": memory}}}]}

    return [
        resource_slice(node_name + "-counters", node_name, slice_count=2, shared_counters=[
            {"name": "gpu-0-counters", "counters": {"memory": {"value": "80Gi"}}}]),
        resource_slice(node_name + "-devices", node_name, slice_count=2, devices=[
            partition("gpu-0", "whole", "80Gi"),
            partition("gpu-0-half-0", "half", "40Gi"),
            partition("gpu-0-half-1", "half", "40Gi")]),
    ]


def shared_gpu(node_name, memory="80Gi", request_policy=None, name="gpu-0"):
    """A GPU that allows multiple allocations, each a share of its memory."""
    capacity = {"value": memory}
    if request_policy:
        capacity["requestPolicy"] = request_policy
    return resource_slice(node_name + "-devices", node_name, devices=[
        {"name": name, "attributes": {"model": {"string": "a100"}},
         "capacity": {"memory": capacity}, "allowMultipleAllocations": True}])


def claim(name, device_class_name, memory=None, tolerations=None, ns="default"):
    """A claim of one device of the class; `memory`: the share of it asked
    for (consumable capacity)."""
    exactly = {"deviceClassName": device_class_name, "allocationMode": "ExactCount",
               "count": 1}
    if memory:
        exactly["capacity"] = {"requests": {"memory": memory}}
    if tolerations:
        exactly["tolerations"] = tolerations
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": "claim-" + name,
                         "resourceVersion": "1",
                         "creationTimestamp": "2026-11-20T08:00:00Z"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}


def claimed(name, device_class_name, created=0, **kwargs):
    """A pod of its own (a job of one) and its claim NAME-gpu."""
    return [claim(name + "-gpu", device_class_name, **kwargs),
            with_claim(pod(name, CPU, created=created), name + "-gpu")]


def node_selector(node_name):
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def binds_by_cycle(report):
    return [sorted(b["pod"] for b in cycle["binds"]) for cycle in report["cycles"]]


def device_of(report, claim_key):
    (d,) = claims(report)[claim_key]["devices"]
    return d


class PartitionableDevicesTest(unittest.TestCase):
    """A GPU offered whole and as two halves: whatever is allocated spends
    the shared counters, so the whole and a half are never both given."""

    def cluster(self):
        return [node("n1"), profile_class(HALF, "half"), profile_class(WHOLE, "whole")] + \
            partitioned_gpu("n1")

    def test_two_halves_bind_with_distinct_halves_and_the_whole_gpu_then_waits(self):
        """Both halves fit the 80Gi of counters together; the whole GPU,
        asked for after them, finds the counters spent and says so."""
        objs = self.cluster() + claimed("half-a", HALF, created=0) + \
            claimed("half-b", HALF, created=1) + claimed("whole", WHOLE, created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds_by_cycle(report), [["default/half-a", "default/half-b"], []])
        self.assertEqual(binds(report), {"default/half-a": "n1", "default/half-b": "n1"})
        self.assertEqual(sorted(claims(report)), ["default/half-a-gpu", "default/half-b-gpu"])
        halves = set()
        for name in ("half-a", "half-b"):
            c = claims(report)["default/%s-gpu" % name]
            self.assertEqual(c["pod"], "default/" + name)
            self.assertEqual(c["node"], "n1")
            (d,) = c["devices"]
            self.assertEqual((d["request"], d["driver"], d["pool"]), ("gpu", DRIVER, "n1"))
            # Not a share: the report's shareID is empty (the claim's status has none).
            self.assertEqual((d["shareID"], d["consumedCapacity"]), ("", {}))
            halves.add(d["device"])
        self.assertEqual(halves, {"gpu-0-half-0", "gpu-0-half-1"})
        self.assertEqual(
            message(report, "default/whole"),
            "0/1 nodes are available: 1 claim whole-gpu, "
            "request gpu: no matching device of class whole.gpu.example.com is free: 1 whose "
            "shared counters allocated partitions have spent.")

    def test_the_whole_gpu_binds_and_a_half_then_waits(self):
        """The reverse: the whole GPU spends all 80Gi of the counters, so
        neither half can be given, though no claim holds a half."""
        objs = self.cluster() + claimed("whole", WHOLE, created=0) + \
            claimed("half", HALF, created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds_by_cycle(report), [["default/whole"], []])
        self.assertEqual(device_of(report, "default/whole-gpu")["device"], "gpu-0")
        self.assertEqual(
            message(report, "default/half"),
            "0/1 nodes are available: 1 claim half-gpu, "
            "request gpu: no matching device of class half.gpu.example.com is free: 2 whose "
            "shared counters allocated partitions have spent.")


    def test_a_half_written_by_an_earlier_scheduler_spends_the_counters_after_a_restart(self):
        """A claim's status already holds gpu-0-half-0 for a running pod:
        the whole GPU waits, as its counters are half spent, and a half
        claim gets the other half."""
        held = claim("held-gpu", HALF)
        held["status"] = {
            "allocation": {"devices": {"results": [{"request": "gpu", "driver": DRIVER,
                                                    "pool": "n1", "device": "gpu-0-half-0"}]},
                           "nodeSelector": node_selector("n1")},
            "reservedFor": [{"resource": "pods", "name": "held", "uid": "pod-held"}]}
        objs = self.cluster() + [held, with_claim(pod("held", CPU, node_name="n1"), "held-gpu")]
        report, _ = replay(objs + claimed("whole", WHOLE), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(
            message(report, "default/whole"),
            "0/1 nodes are available: 1 claim whole-gpu, request gpu: no matching device of "
            "class whole.gpu.example.com is free: 1 whose shared counters allocated partitions "
            "have spent.")
        report, _ = replay(objs + claimed("half", HALF))
        self.assertEqual(binds(report), {"default/half": "n1"})
        self.assertEqual(device_of(report, "default/half-gpu")["device"], "gpu-0-half-1")


class ConsumableCapacityTest(unittest.TestCase):
    """A GPU that allows multiple allocations gives shares of its memory:
    each share a result of its own with a shareID and what it consumes,
    the shares together never more than the device has."""

    def cluster(self, **gpu):
        return [node("n1"), device_class(SHARED, "device.driver == '%s'" % DRIVER),
                shared_gpu("n1", **gpu)]

    def test_two_30gi_shares_bind_on_one_gpu_and_a_third_waits(self):
        """80Gi hold two shares of 30Gi; the third finds 20Gi left."""
        objs = self.cluster()
        for i, name in enumerate(("share-a", "share-b", "share-c")):
            objs += claimed(name, SHARED, created=i, memory="30Gi")
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds_by_cycle(report), [["default/share-a", "default/share-b"], []])
        share_ids = set()
        for name in ("share-a", "share-b"):
            d = device_of(report, "default/%s-gpu" % name)
            self.assertEqual((d["request"], d["driver"], d["pool"], d["device"]),
                             ("gpu", DRIVER, "n1", "gpu-0"))
            self.assertEqual(d["consumedCapacity"], {"memory": "30Gi"})
            self.assertRegex(d["shareID"], UUID)
            share_ids.add(d["shareID"])
        self.assertEqual(len(share_ids), 2, share_ids)
        self.assertNotIn("default/share-c-gpu", claims(report))
        self.assertEqual(
            message(report, "default/share-c"),
            "0/1 nodes are available: 1 claim share-c-gpu, "
            "request gpu: no matching device of class shared.gpu.example.com is free: 1 shared "
            "with too little capacity left.")

    def test_a_valid_range_rounds_the_ask_up_to_its_step_and_counts_the_rounded_share(self):
        """validRange {min: 10Gi, step: 10Gi}: 25Gi is given as 30Gi, so two
        25Gi asks consume 60Gi and a third (30Gi more) no longer fits in
        80Gi, though 75Gi would."""
        objs = self.cluster(request_policy={
            "default": "10Gi", "validRange": {"min": "10Gi", "max": "80Gi", "step": "10Gi"}})
        for i, name in enumerate(("round-a", "round-b", "round-c")):
            objs += claimed(name, SHARED, created=i, memory="25Gi")
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds_by_cycle(report), [["default/round-a", "default/round-b"], []])
        for name in ("round-a", "round-b"):
            d = device_of(report, "default/%s-gpu" % name)
            self.assertEqual(d["device"], "gpu-0")
            self.assertEqual(d["consumedCapacity"], {"memory": "30Gi"})
        self.assertIn("1 shared with too little capacity left",
                      message(report, "default/round-c"))

    def test_shares_written_by_an_earlier_scheduler_are_counted_after_a_restart(self):
        """Two claims already hold 30Gi shares of gpu-0 (their status as
        Shoal and kube-scheduler write it, reserved for running pods): 20Gi
        is left, so a 30Gi claim waits, and a 20Gi claim gets the rest."""
        held = []
        for i, name in enumerate(("held-a", "held-b")):
            c = claim(name + "-gpu", SHARED, memory="30Gi")
            c["status"] = {
                "allocation": {
                    "devices": {"results": [{
                        "request": "gpu", "driver": DRIVER, "pool": "n1", "device": "gpu-0",
                        "shareID": "bbbbbbbb-0000-4000-8000-00000000000%d" % i,
                        "consumedCapacity": {"memory": "30Gi"}}]},
                    "nodeSelector": node_selector("n1")},
                "reservedFor": [{"resource": "pods", "name": name, "uid": "pod-" + name}]}
            running = with_claim(pod(name, CPU, node_name="n1"), name + "-gpu")
            held += [c, running]
        report, _ = replay(self.cluster() + held + claimed("late", SHARED, memory="30Gi"),
                           cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        self.assertEqual(
            message(report, "default/late"),
            "0/1 nodes are available: 1 claim late-gpu, "
            "request gpu: no matching device of class shared.gpu.example.com is free: 1 shared "
            "with too little capacity left.")

        report, _ = replay(self.cluster() + held + claimed("small", SHARED, memory="20Gi"))
        self.assertEqual(binds(report), {"default/small": "n1"})
        d = device_of(report, "default/small-gpu")
        self.assertEqual((d["device"], d["consumedCapacity"]), ("gpu-0", {"memory": "20Gi"}))
        self.assertNotIn(d["shareID"], ("bbbbbbbb-0000-4000-8000-000000000000",
                                        "bbbbbbbb-0000-4000-8000-000000000001"))


class DeviceTaintsTest(unittest.TestCase):
    """A device tainted NoSchedule is given only to a request that
    tolerates the taint."""

    def cluster(self):
        devices = [{"name": "gpu-%d" % i, "attributes": {"model": {"string": "a100"}},
                    "capacity": {"memory": {"value": "80Gi"}}} for i in range(2)]
        devices[0]["taints"] = [dict(UNHEALTHY, timeAdded="2026-11-20T08:00:00Z")]
        return [node("n1"), device_class(DRIVER, "device.driver == '%s'" % DRIVER),
                resource_slice("n1-devices", "n1", devices=devices)]

    def test_a_device_taint_rule_taints_the_devices_it_picks_as_a_driver_would(self):
        """A DeviceTaintRule (resource.k8s.io/v1beta2, as 1.36 serves it)
        on gpu-1 leaves a plain claim no device, named; a claim tolerating
        both taints gets one."""
        rule = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
                "metadata": {"name": "drain-gpu-1"},
                "spec": {"deviceSelector": {"driver": DRIVER, "pool": "n1", "device": "gpu-1"},
                         "taint": {"key": "example.com/maintenance", "value": "planned",
                                   "effect": "NoExecute"}}}
        report, _ = replay(self.cluster() + [rule] + claimed("plain", DRIVER), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(
            message(report, "default/plain"),
            "0/1 nodes are available: 1 claim plain-gpu, request gpu: 2 matching devices of "
            "class gpu.example.com have a taint the request does not tolerate "
            "(gpu.example.com/unhealthy=true:NoSchedule, ...).")
        tolerant = claimed("tolerant", DRIVER, tolerations=[{"operator": "Exists"}])
        report, _ = replay(self.cluster() + [rule] + tolerant)
        self.assertEqual(binds(report), {"default/tolerant": "n1"})

    def test_a_claim_that_does_not_tolerate_the_taint_gets_the_untainted_device(self):
        """Of gpu-0 (tainted) and gpu-1, a plain claim can only get gpu-1."""
        report, _ = replay(self.cluster() + claimed("plain", DRIVER))
        self.assertEqual(binds(report), {"default/plain": "n1"})
        d = device_of(report, "default/plain-gpu")
        self.assertEqual(d["device"], "gpu-1")
        self.assertEqual(d["tolerations"], [])

    def test_with_the_untainted_device_taken_a_plain_claim_waits_and_is_not_given_the_tainted(self):
        """gpu-1 goes to the first plain claim; the second plain claim waits
        rather than get gpu-0, in this cycle and the next, and its message
        tells both reasons: one device allocated, the other tainted."""
        objs = self.cluster() + claimed("plain-a", DRIVER, created=0) + \
            claimed("plain-b", DRIVER, created=1)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds_by_cycle(report), [["default/plain-a"], []])
        self.assertEqual(sorted(claims(report)), ["default/plain-a-gpu"])
        self.assertEqual(device_of(report, "default/plain-a-gpu")["device"], "gpu-1")
        self.assertEqual(
            message(report, "default/plain-b"),
            "0/1 nodes are available: 1 claim plain-b-gpu, request gpu: no matching device of "
            "class gpu.example.com is free: 1 allocated, 1 with a taint the request does not "
            "tolerate (gpu.example.com/unhealthy=true:NoSchedule).")

    def test_a_claim_that_tolerates_no_matching_device_waits_naming_the_taint(self):
        """With gpu-0 the only device, a plain claim waits and is told the
        taint it does not tolerate."""
        objs = self.cluster()
        objs[2]["spec"]["devices"] = objs[2]["spec"]["devices"][:1]
        report, _ = replay(objs + claimed("plain", DRIVER), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        self.assertEqual(
            message(report, "default/plain"),
            "0/1 nodes are available: 1 claim plain-gpu, request gpu: 1 matching device of "
            "class gpu.example.com has a taint the request does not tolerate "
            "(gpu.example.com/unhealthy=true:NoSchedule).")

    def test_a_claim_that_tolerates_the_taint_gets_the_tainted_device(self):
        """With gpu-1 taken by a plain claim, the tolerating claim gets
        gpu-0, and its result carries the toleration it was given under."""
        toleration = {"key": UNHEALTHY["key"], "operator": "Equal", "value": "true",
                      "effect": "NoSchedule"}
        objs = self.cluster() + claimed("plain", DRIVER, created=0) + \
            claimed("tolerant", DRIVER, created=1, tolerations=[toleration])
        report, _ = replay(objs)
        self.assertEqual(binds(report), {"default/plain": "n1", "default/tolerant": "n1"})
        self.assertEqual(device_of(report, "default/plain-gpu")["device"], "gpu-1")
        d = device_of(report, "default/tolerant-gpu")
        self.assertEqual(d["device"], "gpu-0")
        self.assertEqual(d["tolerations"], [toleration])



class BindingConditionsTest(unittest.TestCase):
    """Devices that must report ready before their pod binds (KEP-5007):
    the gang's claims are written in one cycle, no pod of the gang binds
    until every such device reports its binding conditions, then all bind
    together; a failure condition keeps them waiting, named."""

    def cluster(self):
        attached = {"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                    "bindingConditions": ["dra.example.com/attached"],
                    "bindingFailureConditions": ["dra.example.com/failed"]}
        plain = {"name": "gpu-1", "attributes": {"model": {"string": "a100"}}}
        return [node("n1"),
                device_class(DRIVER, "device.driver == '%s'" % DRIVER),
                resource_slice("n1-devices", "n1", devices=[attached, plain]),
                podgroup("train", 2)]

    def gang(self, statuses=None, allocated=False, allocated_at=None):
        """Pods train-0 (gets gpu-0, which has binding conditions) and
        train-1 (gets gpu-1), a gang of two; with `allocated`, their claims
        as the first cycle wrote them (at `allocated_at`, RFC 3339), gpu-0's
        status as `statuses` says."""
        objects = []
        for i in range(2):
            c = claim("train-%d-gpu" % i, DRIVER)
            if allocated:
                result = {"request": "gpu", "driver": DRIVER, "pool": "n1",
                          "device": "gpu-%d" % i}
                if i == 0:
                    result["bindingConditions"] = ["dra.example.com/attached"]
                    result["bindingFailureConditions"] = ["dra.example.com/failed"]
                c["status"] = {"allocation": {"devices": {"results": [result]},
                                              "nodeSelector": node_selector("n1")},
                               "reservedFor": [{"resource": "pods", "name": "train-%d" % i,
                                                "uid": "pod-train-%d" % i}]}
                if allocated_at:
                    c["status"]["allocation"]["allocationTimestamp"] = allocated_at
                if i == 0 and statuses:
                    c["status"]["devices"] = [{"driver": DRIVER, "pool": "n1",
                                               "device": "gpu-0", "conditions": statuses}]
            objects += [c, with_claim(pod("train-%d" % i, CPU, group="train", created=i),
                                      "train-%d-gpu" % i)]
        return objects

    def test_the_gangs_devices_are_reserved_and_no_pod_binds_until_they_report(self):
        report, _ = replay(self.cluster() + self.gang(), cycles=1)
        self.assertEqual(binds(report), {})
        written = claims(report)
        self.assertEqual(sorted(written), ["default/train-0-gpu", "default/train-1-gpu"])
        d = device_of(report, "default/train-0-gpu")
        self.assertEqual((d["device"], d["bindingConditions"], d["bindingFailureConditions"]),
                         ("gpu-0", ["dra.example.com/attached"], ["dra.example.com/failed"]))

    def test_a_device_not_yet_ready_keeps_the_whole_gang_waiting_named(self):
        report, _ = replay(self.cluster() + self.gang(allocated=True), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertIn("resourceclaim default/train-0-gpu: waiting for device "
                      "gpu.example.com/n1/gpu-0 to report binding condition "
                      "dra.example.com/attached", message(report, "default/train"))

    def test_once_the_device_reports_ready_the_gang_binds_whole(self):
        ready = [{"type": "dra.example.com/attached", "status": "True"}]
        report, _ = replay(self.cluster() + self.gang(ready, allocated=True))
        self.assertEqual(binds(report), {"default/train-0": "n1", "default/train-1": "n1"})

    def test_a_failure_condition_deallocates_the_claim_and_the_gang_is_placed_again(self):
        failed = [{"type": "dra.example.com/attached", "status": "False"},
                  {"type": "dra.example.com/failed", "status": "True"}]
        report, _ = replay(self.cluster() + self.gang(failed, allocated=True), cycles=2)
        self.assertEqual(binds(report), {})
        first, second = report["cycles"]
        (train,) = [g for g in first["podGroups"] if g["name"] == "default/train"]
        self.assertIn("device gpu.example.com/n1/gpu-0 reports binding failure condition "
                      "dra.example.com/failed", train["message"])
        # The failed claim is deallocated (the healthy one kept), and
        # allocated again the next cycle; nothing binds half a gang.
        self.assertEqual(first["deallocations"], [{
            "claim": "default/train-0-gpu",
            "reason": "resourceclaim default/train-0-gpu is deallocated: device "
                      "gpu.example.com/n1/gpu-0 reports binding failure condition "
                      "dra.example.com/failed; its pods are scheduled again"}])
        self.assertEqual([c["claim"] for c in second["claims"]], ["default/train-0-gpu"])
        self.assertEqual(second["deallocations"], [])

    def test_devices_silent_past_the_binding_timeout_are_deallocated(self):
        report, _ = replay(self.cluster() + self.gang(
            allocated=True, allocated_at="2020-01-01T00:00:00Z"), cycles=1)
        (d,) = report["cycles"][0]["deallocations"]
        self.assertEqual(d["claim"], "default/train-0-gpu")
        self.assertIn("did not report their binding conditions within 10m of the allocation "
                      "(2020-01-01T00:00:00Z)", d["reason"])


if __name__ == "__main__":
    unittest.main()
