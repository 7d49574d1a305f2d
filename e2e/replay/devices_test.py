"""Dynamic Resource Allocation through the real shoal-scheduler binary on
real resource.k8s.io/v1 manifests: a gang's claims are allocated together
with its pods or not at all, each device to one claim, the allocation
written in the claim's status; a selector Shoal cannot evaluate keeps the
claim's pods waiting, the expression named."""

import unittest

from cluster import node, pod, podgroup, queue, replay

CPU = {"cpu": "1", "memory": "1Gi"}
DRIVER = "gpu.example.com"


def device_class(name=DRIVER, expression="device.driver == 'gpu.example.com'",
                 extended_resource_name=None):
    spec = {"selectors": [{"cel": {"expression": expression}}]}
    if extended_resource_name:
        spec["extendedResourceName"] = extended_resource_name
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name}, "spec": spec}


def gpu_slice(node_name, count=2, memory="80Gi"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": node_name + "-" + DRIVER},
            "spec": {"driver": DRIVER, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-%d" % i,
                                  "attributes": {"model": {"string": "a100"},
                                                 "index": {"int": i}},
                                  "capacity": {"memory": {"value": memory}}}
                                 for i in range(count)]}}


def claim(name, device_class_name=DRIVER, selectors=(), ns="default"):
    exactly = {"deviceClassName": device_class_name, "allocationMode": "ExactCount",
               "count": 1}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": "claim-" + name,
                         "resourceVersion": "1"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}


def with_claim(p, claim_name):
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim_name}]
    return p


def gang(name, size, selectors=(), queue_name="default", created=0):
    objs = [podgroup(name, size, queue_name=queue_name, created=created)]
    for i in range(size):
        objs.append(claim("%s-%d-gpu" % (name, i), selectors=selectors))
        objs.append(with_claim(pod("%s-%d" % (name, i), CPU, group=name, created=created),
                               "%s-%d-gpu" % (name, i)))
    return objs


def binds(report):
    return {b["pod"]: b["node"] for cycle in report["cycles"] for b in cycle["binds"]}


def claims(report):
    return {c["claim"]: c for cycle in report["cycles"] for c in cycle.get("claims", [])}


def message(report, name):
    (group,) = [g for g in report["cycles"][-1]["podGroups"] if g["name"] == name]
    return group["message"]


class DevicesTest(unittest.TestCase):
    def cluster(self):
        return [node("n1"), node("n2"), device_class(), gpu_slice("n1"), gpu_slice("n2")]

    def test_gang_of_four_gets_four_distinct_devices_written_in_its_claims(self):
        report, _ = replay(self.cluster() + gang("train", 4))
        bound = binds(report)
        self.assertEqual(len(bound), 4)
        written = claims(report)
        self.assertEqual(sorted(written), ["default/train-%d-gpu" % i for i in range(4)])
        devices = set()
        for i in range(4):
            c = written["default/train-%d-gpu" % i]
            self.assertEqual(c["pod"], "default/train-%d" % i)
            (d,) = c["devices"]
            self.assertEqual((d["request"], d["driver"]), ("gpu", DRIVER))
            # Node-local devices pin the claim to the node its pod is bound to.
            self.assertEqual(d["pool"], bound["default/train-%d" % i])
            self.assertEqual(c["node"], bound["default/train-%d" % i])
            devices.add((d["pool"], d["device"]))
        self.assertEqual(len(devices), 4)
        self.assertEqual(sorted(bound.values()), ["n1", "n1", "n2", "n2"])

    def test_gang_of_five_binds_nothing_allocates_nothing_and_names_the_shortfall(self):
        report, _ = replay(self.cluster() + gang("train", 5), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        self.assertEqual(message(report, "default/train"),
                         "5/5 tasks in gang unschedulable: 0/2 nodes are available: 2 "
                         "claim train-4-gpu, request gpu: all matching devices of class "
                         "gpu.example.com allocated.")

    def test_a_selector_shoal_cannot_evaluate_waits_naming_the_expression(self):
        odd = "device.attributes['gpu.example.com'].model.reverse() == '001a'"
        report, _ = replay(self.cluster() + gang("odd", 2, selectors=[odd]), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        text = message(report, "default/odd")
        self.assertTrue(text.startswith(
            "pod default/odd-0: resourceclaim default/odd-0-gpu: cannot evaluate selector "
            "`%s`: " % odd), text)

    def test_devices_held_by_allocated_claims_are_not_given_again(self):
        held = claim("held")
        held["status"] = {"allocation": {
            "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": "n1",
                                     "device": "gpu-%d" % i} for i in range(1)]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
        report, _ = replay(self.cluster() + [held] + gang("train", 3))
        self.assertEqual(len(binds(report)), 3)
        used = {(c["devices"][0]["pool"], c["devices"][0]["device"])
                for c in claims(report).values()}
        self.assertNotIn(("n1", "gpu-0"), used)

    def test_a_selector_on_capacity_picks_the_devices_that_have_it(self):
        objs = [node("n1"), node("n2"), device_class(), gpu_slice("n1", memory="40Gi"),
                gpu_slice("n2", memory="80Gi")]
        big = "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0"
        report, _ = replay(objs + gang("big", 2, selectors=[big]))
        self.assertEqual(sorted(binds(report).values()), ["n2", "n2"])



class DeviceQuotaTest(unittest.TestCase):
    """Queues count the devices of their pods' claims by class, as Volcano's
    capacity names them (deviceclass/<class>), and under the class's
    extendedResourceName too."""

    def cluster(self, cls=None):
        return [node("n1"), node("n2"), cls or device_class(), gpu_slice("n1"),
                gpu_slice("n2")]

    def test_a_queues_device_quota_admits_one_gang_of_two_devices_not_two(self):
        objs = self.cluster() + [queue("gpus", capability={"deviceclass/" + DRIVER: "2"})]
        objs += gang("first", 2, queue_name="gpus", created=0)
        objs += gang("second", 2, queue_name="gpus", created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(sorted(binds(report)), ["default/first-0", "default/first-1"])
        self.assertEqual(sorted(claims(report)), ["default/first-0-gpu", "default/first-1-gpu"])
        self.assertIn("queue gpus is full (deviceclass/gpu.example.com would reach 4 of 2",
                      message(report, "default/second"))

    def test_a_quota_by_extended_resource_counts_plugin_gpus_and_claimed_gpus_together(self):
        # n3 publishes one GPU through a device plugin, held by a running pod
        # of the queue: with the class serving example.com/gpu, the queue's
        # 3 GPUs leave room for a gang of two claims, not of three, though
        # the cluster has 6 claimable devices.
        cls = device_class(extended_resource_name="example.com/gpu")
        n3 = node("n3")
        n3["status"]["allocatable"]["example.com/gpu"] = "1"
        objs = self.cluster(cls) + [node("n4"), gpu_slice("n4"), n3,
                                    queue("gpus", capability={"example.com/gpu": "3"})]
        objs += [podgroup("plugin", 1, queue_name="gpus"),
                 pod("plugin-0", dict(CPU, **{"example.com/gpu": "1"}), group="plugin",
                     node_name="n3")]
        objs += gang("three", 3, queue_name="gpus", created=0)
        objs += gang("two", 2, queue_name="gpus", created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(sorted(binds(report)), ["default/two-0", "default/two-1"])
        self.assertRegex(message(report, "default/three"),
                         r"queue gpus is full \(example.com/gpu would reach [46] of 3")

    def test_pods_that_ask_only_for_devices_are_held_by_the_quota_without_admission(self):
        # No enqueue: allocate asks the queue for each pod. Pods requesting
        # no cpu or memory are not best-effort once their devices count.
        policy = ("actions: allocate, backfill\ntiers:\n- plugins:\n  - name: gang\n"
                  "- plugins:\n  - name: drf\n  - name: proportion\n")
        objs = self.cluster() + [queue("gpus", capability={"deviceclass/" + DRIVER: "1"})]
        objs.append(podgroup("solo", 1, queue_name="gpus"))
        for i in range(3):
            objs.append(claim("solo-%d-gpu" % i))
            objs.append(with_claim(pod("solo-%d" % i, {}, group="solo"), "solo-%d-gpu" % i))
        report, _ = replay(objs, cycles=2, policy=policy)
        self.assertEqual(len(binds(report)), 1)
        self.assertEqual(len(claims(report)), 1)

    def test_a_claim_two_pods_share_counts_once(self):
        shared = claim("shared")
        objs = self.cluster() + [queue("gpus", capability={"deviceclass/" + DRIVER: "1"}),
                                 shared, podgroup("pair", 2, queue_name="gpus")]
        for i in range(2):
            objs.append(with_claim(pod("pair-%d" % i, CPU, group="pair"), "shared"))
        report, _ = replay(objs, cycles=2)
        self.assertEqual(sorted(binds(report)), ["default/pair-0", "default/pair-1"])

    def test_a_queue_quota_of_a_device_capacity_is_warned_about_not_dropped(self):
        objs = self.cluster() + [queue("vgpu", capability={
            "cores.deviceclass/" + DRIVER: "100", "cpu": "8"})]
        objs += gang("small", 1, queue_name="vgpu")
        report, err = replay(objs)
        self.assertEqual(sorted(binds(report)), ["default/small-0"])
        self.assertIn('queue vgpu: spec.capability["cores.deviceclass/gpu.example.com"]: '
                      "quotas of a device capacity are not implemented", err)


if __name__ == "__main__":
    unittest.main()
