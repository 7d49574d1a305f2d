"""Extended resources backed by devices (KEP-5004, on by default since
Kubernetes 1.36), through the real shoal-scheduler binary: pods asking
`example.com/gpu` on nodes whose GPUs only DRA publishes are served by a
claim Shoal makes for each pod (owned by it, annotated, named as
kube-scheduler names it), allocated with the gang and created by the
bind; a node publishing the resource itself (a device plugin) serves it
without one; queues count the resource under its name."""

import re
import unittest

from cluster import node, pod, podgroup, queue, replay
from devices_test import binds, claims, device_class, gpu_slice, message

CPU = {"cpu": "1", "memory": "1Gi"}
GPU = "example.com/gpu"
NAME = re.compile(r"^default/(.+)-extended-resources-[bcdfghjklmnpqrstvwxz2456789]{5}$")


def gpu_gang(name, size, gpus=1, queue_name="default", created=0, resource=GPU):
    objs = [podgroup(name, size, queue_name=queue_name, created=created)]
    for i in range(size):
        objs.append(pod("%s-%d" % (name, i), dict(CPU, **{resource: str(gpus)}),
                        group=name, created=created))
    return objs


def dra_only_cluster():
    """Two nodes with two GPUs each, published only through DRA; the class
    serves example.com/gpu."""
    return [node("n1"), node("n2"), device_class(extended_resource_name=GPU),
            gpu_slice("n1"), gpu_slice("n2")]


class ExtendedResourcesTest(unittest.TestCase):
    def test_a_gang_asking_example_com_gpu_on_dra_only_nodes_binds_with_its_claims_made(self):
        report, _ = replay(dra_only_cluster() + gpu_gang("train", 3))
        bound = binds(report)
        self.assertEqual(sorted(bound), ["default/train-0", "default/train-1", "default/train-2"])
        made = claims(report)
        self.assertEqual(len(made), 3)
        devices = set()
        for key, c in made.items():
            owner = NAME.match(key)
            self.assertIsNotNone(owner, key)
            self.assertEqual(c["pod"], "default/" + owner.group(1))
            self.assertTrue(c["created"])
            # Named by container and by the resource's place among the
            # container's sorted request names (cpu, example.com/gpu,
            # memory), as kube-scheduler names them.
            self.assertEqual(c["mappings"], [{"container": "main", "resource": GPU,
                                              "request": "container-0-request-1"}])
            (d,) = c["devices"]
            self.assertEqual(d["request"], "container-0-request-1")
            # The claim's devices are on the node its pod is bound to.
            self.assertEqual(c["node"], bound[c["pod"]])
            devices.add((d["pool"], d["device"]))
        self.assertEqual(len(devices), 3, "each claim gets a device of its own")

    def test_a_gang_needing_more_gpus_than_dra_offers_waits_whole(self):
        report, _ = replay(dra_only_cluster() + gpu_gang("big", 3, gpus=2))
        self.assertEqual(binds(report), {})
        self.assertEqual(claims(report), {})
        self.assertRegex(message(report, "default/big"), r"example.com/gpu|device")

    def test_devices_taken_by_one_gang_are_not_given_to_the_next(self):
        objs = dra_only_cluster() + gpu_gang("first", 3) + gpu_gang("second", 1, gpus=2,
                                                                    created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(sorted(binds(report)),
                         ["default/first-0", "default/first-1", "default/first-2"])
        self.assertEqual(len(claims(report)), 3)

    def test_a_node_publishing_the_resource_itself_serves_it_without_a_claim(self):
        plugin = node("plugin")
        plugin["status"]["allocatable"][GPU] = "4"
        report, _ = replay(dra_only_cluster() + [plugin] + gpu_gang("wide", 1, gpus=4))
        # Only the device plugin's node has four.
        self.assertEqual(binds(report), {"default/wide-0": "plugin"})
        self.assertEqual(claims(report), {})

    def test_every_class_serves_its_implicit_name(self):
        report, _ = replay(dra_only_cluster() + gpu_gang(
            "implicit", 2, resource="deviceclass.resource.kubernetes.io/gpu.example.com"))
        self.assertEqual(len(binds(report)), 2)
        for c in claims(report).values():
            self.assertEqual(c["mappings"][0]["resource"],
                             "deviceclass.resource.kubernetes.io/gpu.example.com")

    def test_a_queue_counts_the_resource_under_its_name(self):
        objs = dra_only_cluster() + [queue("gpus", capability={GPU: "2"})]
        objs += gpu_gang("three", 3, queue_name="gpus")
        objs += gpu_gang("two", 2, queue_name="gpus", created=10)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(sorted(binds(report)), ["default/two-0", "default/two-1"])
        self.assertRegex(message(report, "default/three"),
                         r"example.com/gpu (would reach 3 of 2|needs 3, 2 left)")

    def test_without_a_class_serving_it_the_resource_is_a_node_resource_as_before(self):
        objs = [node("n1"), gpu_slice("n1"), device_class()] + gpu_gang("plain", 1)
        report, _ = replay(objs)
        self.assertEqual(binds(report), {})
        self.assertIn("example.com/gpu", message(report, "default/plain"))


if __name__ == "__main__":
    unittest.main()
