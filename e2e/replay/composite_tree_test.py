"""Kubernetes 1.37's gang API through the real shoal-scheduler binary:
a v1beta1 PodGroup gang, and CompositePodGroup trees (v1alpha3, KEP-6012)
whose root runs only when minGroupCount of its children can, each leaf
whole; a topology key on the root (KEP-5732) keeps the tree in one
domain of that node label; a tree breaking the API's rules, or missing a
parent, waits naming why."""

import unittest

from cluster import at, node, pod, replay

CPU = {"cpu": "1", "memory": "1Gi"}
V1BETA1 = "scheduling.k8s.io/v1beta1"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"


def kube_pod_group(name, min_count, parent=None, version=V1BETA1, topology=None,
                   priority=None):
    spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
        spec["workloadRef"] = {"workloadName": "train", "templateName": "leaf"}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": version, "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": "pg-" + name,
                         "creationTimestamp": at(0)},
            "spec": spec}


def composite(name, min_group_count, parent=None, topology=None):
    spec = {"schedulingPolicy": {"gang": {"minGroupCount": min_group_count}},
            "workloadRef": {"workloadName": "train", "templateName": name}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    return {"apiVersion": V1ALPHA3, "kind": "CompositePodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": "cpg-" + name,
                         "creationTimestamp": at(0)},
            "spec": spec}


def members(group, count, priority=None, cpu="1"):
    out = []
    for i in range(count):
        p = pod("%s-%d" % (group, i), {"cpu": cpu, "memory": "1Gi"}, priority=priority)
        p["spec"]["schedulingGroup"] = {"podGroupName": group}
        out.append(p)
    return out


def rack_node(name, rack, cpu="4", zone=None):
    labels = {"kubernetes.io/hostname": name, "topology.example.com/rack": rack}
    if zone:
        labels["topology.example.com/zone"] = zone
    return node(name, cpu=cpu, labels=labels)


def bound(report):
    return {b["pod"]: b["node"] for cycle in report["cycles"] for b in cycle["binds"]}


def message_of(report, name):
    """The last message written for group `name` (a cycle reports the
    groups whose status it changed)."""
    said = [g["message"] for cycle in report["cycles"] for g in cycle["podGroups"]
            if g["name"] == name]
    assert said, "no status written for %s: %s" % (name, report["cycles"])
    return said[-1]


def by_leaf(binds):
    """Pods bound per leaf: "default/a-2" counts for leaf "a"."""
    out = {}
    for p in binds:
        leaf = p.split("/")[1].rsplit("-", 1)[0]
        out[leaf] = out.get(leaf, 0) + 1
    return out


def two_of_three(topology=None, nodes=None):
    """A root (minGroupCount 2) over three leaf PodGroups of 4 pods, each
    a gang of 4."""
    objs = list(nodes or [node("n1", cpu="4"), node("n2", cpu="4")])
    objs.append(composite("root", 2, topology=topology))
    for leaf in ("a", "b", "c"):
        objs.append(kube_pod_group(leaf, 4, parent="root"))
        objs += members(leaf, 4)
    return objs


class CompositeTreeTest(unittest.TestCase):
    def test_a_v1beta1_pod_group_gang_binds_whole_or_not_at_all(self):
        objs = [node("n1", cpu="4"), kube_pod_group("fits", 4), kube_pod_group("big", 5)]
        objs += members("fits", 4) + members("big", 5)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(by_leaf(bound(report)), {"fits": 4})
        self.assertIn("the gang's minimum does not fit", message_of(report, "default/big"))

    def test_two_whole_leaves_bind_when_only_two_fit_never_a_partial_leaf(self):
        report, _ = replay(two_of_three(), cycles=3)
        counts = by_leaf(bound(report))
        self.assertEqual(sorted(counts.values()), [4, 4], counts)
        self.assertEqual(len(counts), 2, counts)

    def test_the_tree_waits_while_fewer_than_min_group_count_leaves_fit(self):
        # Three nodes of 3 cpu take one 2-cpu pod each: one leaf of two
        # such pods is whole, the second is not; the root needs two.
        objs = [node("n%d" % i, cpu="3") for i in range(3)] + [composite("root", 2)]
        for leaf in ("a", "b", "c"):
            objs.append(kube_pod_group(leaf, 2, parent="root"))
            objs += members(leaf, 2, cpu="2")
        report, _ = replay(objs, cycles=2)
        self.assertEqual(bound(report), {})
        self.assertIn("tasks in gang unschedulable: 0/3 nodes are available: "
                      "3 Insufficient cpu", message_of(report, "default/root"))

    def test_a_topology_key_on_the_root_keeps_both_leaves_in_one_rack(self):
        # rack-1 holds one leaf (n1); rack-2 holds two (n2, n3). Without
        # the key the first leaf could go to n1.
        nodes = [rack_node("n1", "rack-1"), rack_node("n2", "rack-2"),
                 rack_node("n3", "rack-2")]
        report, _ = replay(two_of_three(topology="topology.example.com/rack", nodes=nodes),
                           cycles=3)
        binds = bound(report)
        self.assertEqual(sorted(by_leaf(binds).values()), [4, 4], binds)
        self.assertEqual(set(binds.values()), {"n2", "n3"}, binds)

    def test_a_key_on_each_level_keeps_each_composite_in_a_rack_inside_one_zone(self):
        # root (zone) over mid-x (rack; both its leaves of 2 pods) and mid-y
        # (rack; its one leaf of 2). zone-1 holds the 6 pods: rack r1 3 cpu,
        # r2 5 cpu; zone-2 only 2. mid-x fits whole in r2 alone, mid-y then
        # in r1. Without the composites' keys xa and xb could share racks.
        nodes = [rack_node("n1", "r1", cpu="3", zone="zone-1"),
                 rack_node("n2", "r2", cpu="5", zone="zone-1"),
                 rack_node("n3", "r3", cpu="2", zone="zone-2")]
        objs = nodes + [composite("root", 2, topology="topology.example.com/zone"),
                        composite("mid-x", 2, parent="root",
                                  topology="topology.example.com/rack"),
                        composite("mid-y", 1, parent="root",
                                  topology="topology.example.com/rack")]
        for leaf, parent in (("xa", "mid-x"), ("xb", "mid-x"), ("ya", "mid-y")):
            objs.append(kube_pod_group(leaf, 2, parent=parent))
            objs += members(leaf, 2)
        report, _ = replay(objs, cycles=2)
        binds = bound(report)
        self.assertEqual(len(binds), 6, binds)
        self.assertEqual({binds["default/xa-0"], binds["default/xa-1"],
                          binds["default/xb-0"], binds["default/xb-1"]}, {"n2"}, binds)
        self.assertEqual({binds["default/ya-0"], binds["default/ya-1"]}, {"n1"}, binds)

    def test_a_three_level_tree_needs_each_composite_minimum(self):
        # root (2 of 2 composites) over mid-x and mid-y (1 of 2 leaves each):
        # room for two leaves binds one leaf under each composite.
        objs = [node("n1", cpu="4"), node("n2", cpu="4"), composite("root", 2),
                composite("mid-x", 1, parent="root"), composite("mid-y", 1, parent="root")]
        for leaf, parent in (("xa", "mid-x"), ("xb", "mid-x"), ("ya", "mid-y"),
                             ("yb", "mid-y")):
            objs.append(kube_pod_group(leaf, 4, parent=parent))
            objs += members(leaf, 4)
        report, _ = replay(objs, cycles=3)
        counts = by_leaf(bound(report))
        self.assertEqual(sorted(counts.values()), [4, 4], counts)
        self.assertEqual(sorted(k[0] for k in counts), ["x", "y"], counts)

    def test_a_pod_of_another_priority_keeps_the_tree_waiting_naming_it(self):
        objs = two_of_three()
        for o in objs:
            if o["kind"] == "Pod" and o["metadata"]["name"] == "c-1":
                o["spec"]["priority"] = 10
        report, _ = replay(objs, cycles=2)
        self.assertEqual(bound(report), {})
        self.assertIn("every pod of a CompositePodGroup tree must have its root's priority: "
                      "pod default/c-1 has 10, compositepodgroup default/root has 0",
                      message_of(report, "default/root"))

    def test_a_group_of_another_priority_keeps_the_tree_waiting_naming_it(self):
        objs = two_of_three()
        for o in objs:
            if o["kind"] == "PodGroup" and o["metadata"]["name"] == "b":
                o["spec"]["priority"] = 100
        report, _ = replay(objs, cycles=2)
        self.assertEqual(bound(report), {})
        self.assertIn("every group of a CompositePodGroup tree must have its root's priority: "
                      "podgroup default/b has 100, compositepodgroup default/root has 0",
                      message_of(report, "default/root"))

    def test_a_leaf_whose_parent_does_not_exist_waits_naming_it(self):
        objs = [node("n1", cpu="8"), kube_pod_group("orphan", 2, parent="ghost")]
        objs += members("orphan", 2)
        report, _ = replay(objs, cycles=2)
        self.assertEqual(bound(report), {})
        self.assertIn("compositepodgroup default/ghost does not exist (podgroup "
                      "default/orphan names it in spec.parentCompositePodGroupName)",
                      message_of(report, "default/orphan"))

    def test_a_bad_min_group_count_is_refused_naming_the_field(self):
        objs = two_of_three()
        objs[2]["spec"]["schedulingPolicy"]["gang"]["minGroupCount"] = 0
        with self.assertRaisesRegex(AssertionError,
                                    "compositepodgroup default/root: "
                                    r"spec.schedulingPolicy.gang.minGroupCount: must be >= 1, got 0"):
            replay(objs)


if __name__ == "__main__":
    unittest.main()
