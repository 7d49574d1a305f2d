"""Claims of a whole PodGroup (KEP-5729, scheduling.k8s.io/v1alpha2
PodGroup spec.resourceClaims), through the real shoal-scheduler binary:
the pods of the group share one claim, allocated once, reserved for the
PodGroup rather than for each pod, and the gang lands where the claim's
devices are (in a CompositePodGroup tree, each leaf's claim is its own);
a template's claim is the one the resourceclaim controller made for the
group; a pod whose entry does not match the group's keeps a claim of its
own."""

import unittest

from cluster import at, node, pod, replay
from devices_test import binds, claims, device_class, gpu_slice, message

CPU = {"cpu": "1", "memory": "1Gi"}


def kube_pod_group(name, min_count, resource_claims, made=None):
    obj = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
           "metadata": {"name": name, "namespace": "default", "uid": "pg-" + name,
                        "creationTimestamp": at(0)},
           "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}},
                    "resourceClaims": resource_claims}}
    if made:
        obj["status"] = {"resourceClaimStatuses": made}
    return obj


def gpus_claim(name, count):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", "uid": "claim-" + name,
                         "resourceVersion": "1"},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount",
                "count": count}}]}}}


def member(name, group, entry):
    p = pod(name, CPU)
    p["spec"]["schedulingGroup"] = {"podGroupName": group}
    p["spec"]["resourceClaims"] = [entry]
    return p


def cluster():
    return [node("n1"), node("n2"), device_class(), gpu_slice("n1"), gpu_slice("n2")]


class GroupClaimsTest(unittest.TestCase):
    def test_the_gang_shares_one_claim_reserved_for_its_pod_group(self):
        entry = {"name": "gpus", "resourceClaimName": "shared-gpus"}
        objs = cluster() + [gpus_claim("shared-gpus", 2),
                            kube_pod_group("train", 3, [entry])]
        objs += [member("train-%d" % i, "train", entry) for i in range(3)]
        report, _ = replay(objs)
        bound = binds(report)
        self.assertEqual(sorted(bound), ["default/train-0", "default/train-1",
                                         "default/train-2"])
        # The claim's two devices are on one node: the whole gang goes there.
        self.assertEqual(len(set(bound.values())), 1, bound)
        (c,) = claims(report).values()
        self.assertEqual(c["claim"], "default/shared-gpus")
        self.assertEqual(c["reservedFor"], ["podgroups/train"])
        self.assertEqual(len(c["devices"]), 2)
        self.assertEqual(c["node"], next(iter(bound.values())))

    def test_a_template_claim_is_the_one_made_for_the_group(self):
        entry = {"name": "gpus", "resourceClaimTemplateName": "gpu-template"}
        made = [{"name": "gpus", "resourceClaimName": "train-gpus-x7k2p"}]
        objs = cluster() + [gpus_claim("train-gpus-x7k2p", 1),
                            kube_pod_group("train", 2, [entry], made)]
        objs += [member("train-%d" % i, "train", entry) for i in range(2)]
        report, _ = replay(objs)
        self.assertEqual(len(binds(report)), 2)
        self.assertEqual(claims(report)["default/train-gpus-x7k2p"]["reservedFor"],
                         ["podgroups/train"])

    def test_until_the_group_claim_is_made_the_gang_waits_naming_it(self):
        entry = {"name": "gpus", "resourceClaimTemplateName": "gpu-template"}
        objs = cluster() + [kube_pod_group("train", 2, [entry])]
        objs += [member("train-%d" % i, "train", entry) for i in range(2)]
        report, _ = replay(objs)
        self.assertEqual(binds(report), {})
        self.assertIn("waiting for the claim made from template gpu-template for "
                      "podgroup default/train", message(report, "default/train"))

    def test_a_pod_entry_that_differs_from_the_groups_is_the_pods_own(self):
        group_entry = {"name": "gpus", "resourceClaimName": "shared-gpus"}
        own = {"name": "mine", "resourceClaimName": "train-1-gpu"}
        objs = cluster() + [gpus_claim("shared-gpus", 1), gpus_claim("train-1-gpu", 1),
                            kube_pod_group("train", 2, [group_entry]),
                            member("train-0", "train", group_entry),
                            member("train-1", "train", own)]
        report, _ = replay(objs)
        self.assertEqual(len(binds(report)), 2)
        written = claims(report)
        self.assertEqual(written["default/shared-gpus"]["reservedFor"], ["podgroups/train"])
        self.assertEqual(written["default/train-1-gpu"]["reservedFor"], ["pods/train-1"])

    def test_each_leaf_of_a_tree_shares_its_own_claim(self):
        # A CompositePodGroup (v1alpha3) over two v1beta1 leaves, each with
        # a claim of two GPUs its two pods share: each claim reserved for
        # its own leaf, each leaf where its claim's devices are.
        root = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                "metadata": {"name": "root", "namespace": "default", "uid": "cpg-root",
                             "creationTimestamp": at(0)},
                "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 2}},
                         "workloadRef": {"workloadName": "train", "templateName": "root"}}}
        objs = cluster() + [root]
        for leaf in ("a", "b"):
            entry = {"name": "gpus", "resourceClaimName": "leaf-%s-gpus" % leaf}
            group = kube_pod_group("leaf-" + leaf, 2, [entry])
            group["apiVersion"] = "scheduling.k8s.io/v1beta1"
            group["spec"]["parentCompositePodGroupName"] = "root"
            group["spec"]["workloadRef"] = {"workloadName": "train", "templateName": "leaf"}
            objs += [gpus_claim("leaf-%s-gpus" % leaf, 2), group]
            objs += [member("leaf-%s-%d" % (leaf, i), "leaf-" + leaf, entry) for i in range(2)]
        report, _ = replay(objs)
        bound = binds(report)
        self.assertEqual(len(bound), 4, bound)
        written = claims(report)
        for leaf in ("a", "b"):
            c = written["default/leaf-%s-gpus" % leaf]
            self.assertEqual(c["reservedFor"], ["podgroups/leaf-" + leaf])
            self.assertEqual(len(c["devices"]), 2)
            self.assertEqual({bound["default/leaf-%s-%d" % (leaf, i)] for i in range(2)},
                             {c["node"]})
        # Four GPUs for four pods: the leaves on the two nodes.
        self.assertEqual(len(set(bound.values())), 2)


if __name__ == "__main__":
    unittest.main()
