"""The rule for gangs left half-bound, run by the one scheduling loop in
the replay as in a cluster: a gang whose binds partly failed (here: the
dump shows 3 of its 4 pods bound and no room for the 4th) keeps its
members for --partial-gang-release-cycles cycles, then they are released
(evicted, reason gang-incomplete) under every shipped policy."""

import glob
import os
import unittest

from cluster import node, pod, podgroup, replay

POLICIES = sorted(glob.glob("policies/*.yaml"))


def read(path):
    with open(path) as f:
        return f.read()


def half_bound_gang():
    objs = [node("n%d" % i, cpu="1") for i in range(3)]
    objs.append(podgroup("half", 4, phase="Running"))
    for i in range(3):
        objs.append(pod("half-%d" % i, {"cpu": "1"}, group="half", node_name="n%d" % i))
    objs.append(pod("half-3", {"cpu": "1"}, group="half"))
    return objs


class PartialGangReleaseTest(unittest.TestCase):
    def test_bound_members_are_released_after_the_limit_and_not_before(self):
        self.assertTrue(POLICIES)
        for path in POLICIES:
            with self.subTest(policy=os.path.basename(path)):
                report, _ = replay(half_bound_gang(), cycles=4, policy=read(path),
                                   extra_args=["--partial-gang-release-cycles=2"])
                evictions = [[(e["pod"], e["reason"]) for e in c["evictions"]]
                             for c in report["cycles"]]
                self.assertEqual(evictions[0], [])
                self.assertEqual(evictions[1], [])
                self.assertEqual(sorted(evictions[2]),
                                 [("default/half-%d" % i, "gang-incomplete") for i in range(3)])
                self.assertEqual(evictions[3], [])

    def test_a_gang_that_completes_in_time_keeps_its_members(self):
        objs = half_bound_gang()
        objs.append(node("n3", cpu="1"))  # room for the 4th after all
        report, _ = replay(objs, cycles=4, extra_args=["--partial-gang-release-cycles=1"])
        self.assertEqual([b["pod"] for b in report["cycles"][0]["binds"]], ["default/half-3"])
        self.assertEqual([c["evictions"] for c in report["cycles"]], [[], [], [], []])


if __name__ == "__main__":
    unittest.main()
