"""A scheduling.k8s.io PodGroup's spec.disruptionMode, through the real
shoal-scheduler binary under preempt: `Pod` (the default) lends single
pods above the gang's minimum; `PodGroup` is disrupted together, so a
higher-priority pod either ends the whole group or takes nothing of it."""

import unittest

from cluster import at, node, pod, replay

POLICY = """actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
"""
CPU = {"cpu": "1", "memory": "1Gi"}


def kube_pod_group(name, min_count, mode=None):
    spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if mode:
        spec["disruptionMode"] = mode
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": "pg-" + name,
                         "creationTimestamp": at(0)},
            "spec": spec}


def member(name, group, priority, node_name=None):
    p = pod(name, CPU, priority=priority, node_name=node_name)
    p["spec"]["schedulingGroup"] = {"podGroupName": group}
    return p


def cluster(mode):
    """One 4-cpu node full with a low-priority gang of 4 (minimum 2), and
    a high-priority pod of 1 cpu waiting."""
    objs = [node("n1", cpu="4"), kube_pod_group("low", 2, mode)]
    objs += [member("low-%d" % i, "low", 1, node_name="n1") for i in range(4)]
    objs += [pod("urgent", CPU, priority=1000)]
    return objs


def evicted(report):
    return sorted(e["pod"] for cycle in report["cycles"] for e in cycle["evictions"])


class DisruptionModeTest(unittest.TestCase):
    def test_pod_mode_lends_one_pod_above_the_minimum(self):
        report, _ = replay(cluster("Pod"), policy=POLICY)
        self.assertEqual(len(evicted(report)), 1)

    def test_pod_group_mode_is_ended_whole_or_not_at_all(self):
        report, _ = replay(cluster("PodGroup"), policy=POLICY)
        self.assertEqual(evicted(report), ["default/low-%d" % i for i in range(4)])

    def test_an_unknown_mode_is_refused_naming_the_field(self):
        # A snapshot holding a bad object is refused whole, the object named.
        with self.assertRaisesRegex(AssertionError, 'podgroup default/low: spec.disruptionMode: '
                                                    'must be Pod or PodGroup, got "Sometimes"'):
            replay(cluster("Sometimes"), policy=POLICY)


if __name__ == "__main__":
    unittest.main()
