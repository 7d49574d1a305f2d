"""The consolidate action through the real shoal-scheduler binary: a
fragmented cluster re-packed so that a whole-node pod fits, the moved pods'
replacements (the replay plays their job controllers) placed elsewhere in
the next cycle, and the cases where nothing may move."""

import unittest

from cluster import at, node, pod, podgroup, replay

POLICY = """actions: "enqueue, allocate, consolidate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
"""


def gpu_pod(name, gpus, cpu="1", node_name=None, created=0, priority=None, group=True):
    requests = {"cpu": cpu, "memory": "1Gi", "nvidia.com/gpu": str(gpus)}
    return pod(name, requests, group=name if group else None, node_name=node_name,
               created=created, priority=priority)


def small_job(name, node_name, gpus=1, cpu="1", priority=None, group=True):
    """A one-pod job (its own PodGroup) running on `node_name`."""
    objs = [gpu_pod(name, gpus, cpu=cpu, node_name=node_name, priority=priority, group=group)]
    if group:
        objs.insert(0, podgroup(name, 1, phase="Running"))
    return objs


def fragmented(**small):
    """Three 8-GPU nodes, each with four 1-GPU pods of one-pod jobs: 12 GPUs
    free, 4 on each node, and an 8-GPU pod waiting."""
    objs = [node("n%d" % i, cpu="64", gpu="8") for i in (1, 2, 3)]
    for i in (1, 2, 3):
        for k in range(4):
            objs += small_job("small-%d-%d" % (i, k), "n%d" % i, **small)
    objs += [podgroup("big", 1, created=10), gpu_pod("big", 8, created=10)]
    return objs


def in_group(p, group):
    p["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = group
    return p


def home(key):
    """The node a small pod ran on: default/small-<node>-<k>."""
    return "n" + key.split("-")[1]


def evictions(report, cycle):
    return report["cycles"][cycle]["evictions"]


def binds(report, cycle):
    return {b["pod"]: b["node"] for b in report["cycles"][cycle]["binds"]}


class ConsolidateTest(unittest.TestCase):
    def test_without_consolidate_the_whole_node_pod_waits(self):
        report, _ = replay(fragmented(), cycles=2,
                           policy=POLICY.replace("consolidate, ", ""),
                           extra_args=["--recreate-evicted"])
        self.assertEqual(report["cycles"][1]["evictions"], [])
        self.assertNotIn("default/big", binds(report, 1))

    def test_four_moves_make_a_node_whole_and_every_moved_pod_is_placed_again(self):
        report, _ = replay(fragmented(), cycles=2, policy=POLICY,
                           extra_args=["--recreate-evicted"])
        moved = evictions(report, 0)
        self.assertEqual(len(moved), 4, moved)
        self.assertTrue(all(e["reason"] == "consolidate" for e in moved), moved)
        sources = {home(e["pod"]) for e in moved}
        self.assertEqual(len(sources), 1, "all four from one node: %s" % moved)
        freed = sources.pop()
        self.assertTrue(all(e["movedTo"] not in ("", freed) for e in moved), moved)
        # The next cycle: the big pod binds on the node made whole, though
        # the moved pods' replacements go first (older jobs) and the empty
        # node scores best for them (least requested): its room is held for
        # the big pod. Each replacement binds on another node.
        bound = binds(report, 1)
        self.assertEqual(bound.get("default/big"), freed, bound)
        for e in moved:
            self.assertIn(bound.get(e["pod"]), {"n1", "n2", "n3"} - {freed}, (e, bound))
        # Nothing more moves, and no node holds more than its 8 GPUs.
        self.assertEqual(evictions(report, 1), [])
        gpus = {"n1": 4, "n2": 4, "n3": 4}
        for e in moved:
            gpus[home(e["pod"])] -= 1
        for p, n in bound.items():
            gpus[n] += 8 if p == "default/big" else 1
        self.assertEqual(gpus[freed], 8, gpus)
        self.assertLessEqual(max(gpus.values()), 8, gpus)
        self.assertEqual(sum(gpus.values()), 12 + 8, gpus)

    def test_a_gang_at_its_minimum_moves_whole_or_not_at_all(self):
        # A gang of two 4-GPU pods (minimum 2), one on each node: the 8-GPU
        # pod fits only if both move (n2 then holds them both).
        objs = [node("n1", cpu="64", gpu="8"), node("n2", cpu="64", gpu="8"),
                podgroup("pair", 2, phase="Running"),
                in_group(gpu_pod("pair-0", 4, node_name="n1", group=False), "pair"),
                in_group(gpu_pod("pair-1", 4, node_name="n2", group=False), "pair"),
                podgroup("big", 1, created=10), gpu_pod("big", 8, created=10)]
        report, _ = replay(objs, cycles=2, policy=POLICY, extra_args=["--recreate-evicted"])
        self.assertEqual(sorted(e["pod"] for e in evictions(report, 0)),
                         ["default/pair-0", "default/pair-1"])
        bound = binds(report, 1)
        self.assertEqual(sorted(bound), ["default/big", "default/pair-0", "default/pair-1"])
        self.assertEqual(bound["default/pair-0"], bound["default/pair-1"])
        self.assertNotEqual(bound["default/big"], bound["default/pair-0"])

    def test_the_fewest_moves_win(self):
        # n1: an elastic job's four 1-GPU pods (4 free); n2: a one-pod
        # job's 2-GPU pod (6 free). Moving that one pod beats moving four.
        objs = [node("n1", cpu="64", gpu="8"), node("n2", cpu="64", gpu="8"),
                podgroup("wide", 1, phase="Running")]
        objs += [in_group(gpu_pod("wide-%d" % k, 1, node_name="n1", group=False), "wide")
                 for k in range(4)]
        objs += small_job("solo", "n2", gpus=2)
        objs += [podgroup("big", 1, created=10), gpu_pod("big", 8, created=10)]
        report, _ = replay(objs, cycles=2, policy=POLICY, extra_args=["--recreate-evicted"])
        self.assertEqual([(e["pod"], e["movedTo"]) for e in evictions(report, 0)],
                         [("default/solo", "n1")])
        self.assertEqual(binds(report, 1), {"default/big": "n2", "default/solo": "n1"})

    def test_pods_a_job_can_spare_move_one_by_one(self):
        # n1: an elastic job (minimum 1) with four 1-GPU pods; n2: a 5-GPU
        # pod of higher priority. A 7-GPU pod fits n1 once three of the
        # four move to n2; the job keeps its minimum, never moved whole.
        objs = [node("n1", cpu="64", gpu="8"), node("n2", cpu="64", gpu="8"),
                podgroup("wide", 1, phase="Running")]
        objs += [in_group(gpu_pod("wide-%d" % k, 1, node_name="n1", group=False), "wide")
                 for k in range(4)]
        objs += small_job("high", "n2", gpus=5, priority=100)
        objs += [podgroup("big", 1, created=10), gpu_pod("big", 7, created=10)]
        report, _ = replay(objs, cycles=2, policy=POLICY, extra_args=["--recreate-evicted"])
        moved = evictions(report, 0)
        self.assertEqual(len(moved), 3, moved)
        self.assertTrue(all(e["pod"].startswith("default/wide-") and e["movedTo"] == "n2"
                            for e in moved), moved)
        self.assertEqual(binds(report, 1).get("default/big"), "n1")

    def test_nothing_moves_when_the_moved_pods_would_not_fit_elsewhere(self):
        # n1: four 1-GPU pods using all 64 cpus; n2: one 4-GPU pod using 60
        # cpus; n3 full. 8 GPUs are free in sum, but each move needs cpus
        # no other node has.
        objs = [node("n%d" % i, cpu="64", gpu="8") for i in (1, 2, 3)]
        for k in range(4):
            objs += small_job("a-%d" % k, "n1", cpu="16")
        objs += small_job("b", "n2", gpus=4, cpu="60")
        objs += small_job("c", "n3", gpus=8, cpu="4")
        objs += [podgroup("big", 1, created=10), gpu_pod("big", 8, created=10)]
        report, _ = replay(objs, cycles=2, policy=POLICY, extra_args=["--recreate-evicted"])
        self.assertEqual([e for c in (0, 1) for e in evictions(report, c)], [])
        self.assertNotIn("default/big", binds(report, 1))

    def test_bare_pods_are_never_moved(self):
        report, _ = replay(fragmented(group=False), cycles=2, policy=POLICY,
                           extra_args=["--recreate-evicted"])
        self.assertEqual([e for c in (0, 1) for e in evictions(report, c)], [])

    def test_pods_of_higher_priority_are_never_moved(self):
        report, _ = replay(fragmented(priority=100), cycles=2, policy=POLICY,
                           extra_args=["--recreate-evicted"])
        self.assertEqual([e for c in (0, 1) for e in evictions(report, c)], [])

    def test_the_cycle_budget_bounds_the_moves(self):
        budget = POLICY + """configurations:
- name: consolidate
  arguments:
    maxMovesPerCycle: 3
"""
        report, _ = replay(fragmented(), cycles=1, policy=budget)
        self.assertEqual(evictions(report, 0), [])

    def test_a_bad_budget_is_refused_naming_the_argument(self):
        bad = POLICY + """configurations:
- name: consolidate
  arguments:
    maxMovesPerJob: 0
"""
        with self.assertRaisesRegex(AssertionError, "maxMovesPerJob must be at least 1, got 0"):
            replay(fragmented(), policy=bad)


if __name__ == "__main__":
    unittest.main()
