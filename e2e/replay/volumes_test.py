"""Persistent volumes as kube-scheduler's VolumeBinding and NodeVolumeLimits
see them, through the real shoal-scheduler binary on real manifests: a bound
claim's local volume pins its pod to the volume's node; a claim that is
missing or not bound keeps the whole job waiting, named (Shoal binds no
volumes); CSI volumes stay within each node's CSINode attach limit."""

import unittest

from cluster import (csi_node, csi_pv, local_pv, node, pod, podgroup, pvc, replay,
                     storage_class, with_volumes)

CPU = {"cpu": "1", "memory": "1Gi"}


def nodes(count=4):
    return [node("n%d" % i) for i in range(count)]


def binds(report):
    return {b["pod"]: b["node"] for cycle in report["cycles"] for b in cycle["binds"]}


def message(report, name):
    (group,) = [g for g in report["cycles"][-1]["podGroups"] if g["name"] == name]
    return group["message"]


class VolumeBindingTest(unittest.TestCase):
    def test_gang_on_local_volumes_binds_where_its_volumes_are(self):
        objs = nodes() + [storage_class("local", "WaitForFirstConsumer"), podgroup("train", 3)]
        for i, where in enumerate(["n3", "n1", "n3"]):
            objs.append(with_volumes(pod("train-%d" % i, CPU, group="train"),
                                     [("claim", "data", "data-%d" % i)]))
            objs.append(pvc("data-%d" % i, volume="pv-%d" % i))
            objs.append(local_pv("pv-%d" % i, where, claim="data-%d" % i))
        report, _ = replay(objs)
        self.assertEqual(binds(report), {"default/train-0": "n3", "default/train-1": "n1",
                                         "default/train-2": "n3"})

    def test_wait_for_first_consumer_claim_not_bound_waits_named(self):
        objs = nodes() + [storage_class("local", "WaitForFirstConsumer"), pvc("scratch"),
                          with_volumes(pod("solo", CPU), [("claim", "s", "scratch")])]
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/solo"),
                         'pod default/solo uses persistentvolumeclaim "scratch", which is not '
                         'bound yet (storage class "local" binds on first consumer; Shoal does '
                         'not bind volumes yet)')

    def test_missing_claim_waits_in_kube_schedulers_words(self):
        objs = nodes() + [with_volumes(pod("solo", CPU), [("claim", "d", "nowhere")]),
                          with_volumes(pod("eph", CPU), [("ephemeral", "scratch")])]
        report, _ = replay(objs)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/solo"),
                         'pod default/solo: persistentvolumeclaim "nowhere" not found')
        self.assertEqual(message(report, "default/eph"),
                         "pod default/eph: waiting for ephemeral volume controller to create "
                         'the persistentvolumeclaim "eph-scratch"')

    def test_gang_with_one_unbound_claim_binds_no_member(self):
        objs = nodes() + [storage_class("standard"), podgroup("train", 3)]
        for i in range(3):
            objs.append(with_volumes(pod("train-%d" % i, CPU, group="train"),
                                     [("claim", "data", "data-%d" % i)]))
        objs += [pvc("data-0", volume="pv-0"), local_pv("pv-0", "n0", claim="data-0"),
                 pvc("data-1", volume="pv-1"), local_pv("pv-1", "n1", claim="data-1"),
                 pvc("data-2", storage_class_name="standard")]
        report, _ = replay(objs, cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/train"),
                         "pod default/train-2: pod has unbound immediate PersistentVolumeClaims "
                         '(persistentvolumeclaim "data-2" waits for its volume to be bound)')

    def test_volume_on_no_usable_node_names_the_conflict(self):
        objs = nodes() + [with_volumes(pod("solo", CPU), [("claim", "d", "data")]),
                          pvc("data", volume="pv-gone"),
                          local_pv("pv-gone", "decommissioned", claim="data")]
        report, _ = replay(objs)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/solo"),
                         "0/4 nodes are available: 4 node(s) had volume node affinity conflict.")

    def test_pods_sharing_a_volume_share_its_node(self):
        # Two single-pod jobs on one (ReadWriteMany) claim: both follow it.
        objs = nodes() + [pvc("shared", volume="pv-s"), local_pv("pv-s", "n2", claim="shared")]
        objs += [with_volumes(pod("r-%d" % i, CPU, created=i), [("claim", "d", "shared")])
                 for i in range(2)]
        report, _ = replay(objs)
        self.assertEqual(binds(report), {"default/r-0": "n2", "default/r-1": "n2"})


DRIVER = "ebs.csi.aws.com"


def csi_gang(node_count, limit=1):
    """A 3-pod gang, each pod with its own CSI volume, on nodes whose CSINode
    allows `limit` volumes of the driver."""
    objs = nodes(node_count) + [csi_node("n%d" % i, {DRIVER: limit, "other.csi": None})
                                for i in range(node_count)]
    objs.append(podgroup("train", 3))
    for i in range(3):
        objs.append(with_volumes(pod("train-%d" % i, CPU, group="train"),
                                 [("claim", "data", "data-%d" % i)]))
        objs.append(pvc("data-%d" % i, volume="pv-%d" % i, storage_class_name="csi"))
        objs.append(csi_pv("pv-%d" % i, DRIVER, "vol-%d" % i, claim="data-%d" % i))
    return objs


class NodeVolumeLimitsTest(unittest.TestCase):
    def test_gang_takes_one_node_per_volume(self):
        report, _ = replay(csi_gang(3))
        placed = binds(report)
        self.assertEqual(len(placed), 3)
        self.assertEqual(sorted(placed.values()), ["n0", "n1", "n2"])

    def test_gang_waits_whole_when_limits_leave_too_few_nodes(self):
        report, _ = replay(csi_gang(2), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/train"),
                         "3/3 tasks in gang unschedulable: 0/2 nodes are available: "
                         "2 node(s) exceed max volume count.")

    def test_volume_already_attached_counts_once(self):
        # Another scheduler's running pod on n0 (limit 1) uses vol-0: a pod
        # sharing vol-0 still fits there, one with vol-1 does not.
        objs = [node("n0"), csi_node("n0", {DRIVER: 1}),
                with_volumes(pod("web", CPU, node_name="n0", scheduler="default-scheduler"),
                             [("claim", "data", "data-0")])]
        for i in range(2):
            objs.append(pvc("data-%d" % i, volume="pv-%d" % i, storage_class_name="csi"))
            objs.append(csi_pv("pv-%d" % i, DRIVER, "vol-%d" % i, claim="data-%d" % i))
            objs.append(with_volumes(pod("solo-%d" % i, CPU, created=i),
                                     [("claim", "data", "data-%d" % i)]))
        report, _ = replay(objs)
        self.assertEqual(binds(report), {"default/solo-0": "n0"})
        self.assertEqual(message(report, "default/solo-1"),
                         "0/1 nodes are available: 1 node(s) exceed max volume count.")

    def test_without_csinode_counts_no_limit(self):
        objs = [o for o in csi_gang(1) if o["kind"] != "CSINode"]
        report, _ = replay(objs)
        self.assertEqual(set(binds(report).values()), {"n0"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
