"""The making-room rules (making_room_rules.py) and the freeing of claims
(device_rules.Freeing) catch hand-made outcomes that break them and pass
correct ones; the making-room streams (generate_making_room.py) hold what
they promise. check_test.sh runs them with check_test.py. No binary needed."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
import generate  # noqa: E402
import generate_making_room  # noqa: E402
from check_test import (allocation, dra_cluster, node, pod, podgroup, report,  # noqa: E402
                        snap)


def gpu_pod(name, gpus, group=None, node_name=None, selector=None):
    p = pod(name, cpu="1", memory="1Gi", group=group, node_name=node_name, selector=selector)
    p["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = str(gpus)
    return p


def evictions(rep, cycle, reason, moved_to=None):
    """Sets cycle `cycle`'s evictions' reason (and movedTo) in `rep`."""
    for e in rep["cycles"][cycle]["evictions"]:
        e["reason"] = reason
        if moved_to:
            e["movedTo"] = moved_to.get(e["pod"], "")
    return rep


def found(violations, kind):
    return [str(v) for v in violations if v.kind == kind]


class GangCutTest(unittest.TestCase):
    def cluster(self):
        return snap(node("n1"), podgroup("g", 2),
                    *[pod("g-%d" % i, group="g", node_name="n1") for i in range(3)])

    def test_an_eviction_leaving_a_gang_below_its_minimum(self):
        rep = report({"evictions": ["ns/g-0", "ns/g-1"]})
        v, _ = check.check(self.cluster(), rep)
        self.assertEqual(found(v, "gang-cut"), [
            "gang-cut: ns/g: cycle 1: evictions (ns/g-0 (preempt), ns/g-1 (preempt)) leave 1 "
            "of its 3 placed pod(s), below minMember 2 (not all of them evicted)"])

    def test_an_elastic_pod_or_the_whole_gang_may_go(self):
        for gone in (["ns/g-0"], ["ns/g-0", "ns/g-1", "ns/g-2"]):
            v, _ = check.check(self.cluster(), report({"evictions": gone}))
            self.assertEqual(found(v, "gang-cut"), [], gone)

    def test_a_gang_below_its_minimum_before_is_not_cut_by_this_rule(self):
        s = snap(node("n1"), podgroup("g", 3),
                 *[pod("g-%d" % i, group="g", node_name="n1") for i in range(2)])
        v, _ = check.check(s, report({"evictions": ["ns/g-0"]}))
        self.assertEqual(found(v, "gang-cut"), [])


class ConsolidateTest(unittest.TestCase):
    """n1 holds small pods a, b (2 GPUs each) of one-pod jobs; n2 has 4 of
    8 GPUs free, n3 (if any) some."""

    def cluster(self, n2_used=4, n3=None, selector=None):
        items = [node("n1", cpu="32", memory="64Gi", gpu="8"),
                 node("n2", cpu="32", memory="64Gi", gpu="8")]
        items += [gpu_pod("a", 2, node_name="n1", selector=selector),
                  gpu_pod("b", 2, node_name="n1")]
        if n2_used:
            items.append(gpu_pod("n2-fill", n2_used, node_name="n2"))
        if n3 is not None:
            items.append(node("n3", cpu="32", memory="64Gi", gpu="8",
                              labels={"pool": "spare"}))
            if n3:
                items.append(gpu_pod("n3-fill", n3, node_name="n3"))
        return snap(*items)

    def run_case(self, s, moved_to=None):
        rep = evictions(report({"evictions": ["ns/a", "ns/b"]}), 0, "consolidate", moved_to)
        v, ex = check.check(s, rep)
        return found(v, "consolidate-no-room"), ex

    def test_moved_pods_with_room_elsewhere_pass(self):
        v, ex = self.run_case(self.cluster())
        self.assertEqual(v, [])
        self.assertEqual(ex["making room: evictions with reason consolidate"], 2)
        self.assertEqual(ex["making room: cycles with consolidate evictions judged"], 1)

    def test_a_moved_pod_no_other_node_has_room_for(self):
        v, _ = self.run_case(self.cluster(n2_used=7))
        self.assertEqual(v[0], (
            "consolidate-no-room: ns/b: cycle 1: moved (consolidate) from n1, but no other node "
            "it may go to has room for it after the cycle (needs cpu=1000m memory=1024.0Mi "
            "nvidia.com/gpu=2 pods=1; most free: n2 cpu=31000m memory=64512.0Mi "
            "nvidia.com/gpu=1 pods=109)"))
        self.assertEqual(len(v), 2)

    def test_moved_pods_that_fit_alone_but_not_together(self):
        v, _ = self.run_case(self.cluster(n2_used=5))
        self.assertEqual(v, [
            "consolidate-no-room: ns/a: cycle 1: pods moved (consolidate) off n1 ask "
            "cpu=2000m memory=2048.0Mi nvidia.com/gpu=4 pods=2 in all, the other nodes have "
            "cpu=31000m memory=64512.0Mi nvidia.com/gpu=3 pods=109 free (first past it: this "
            "pod, of ns/b, ns/a)"])

    def test_room_split_so_that_no_packing_exists(self):
        # 3 + 3 GPUs free on n2 and n3: one 2-GPU pod on each.
        v, _ = self.run_case(self.cluster(n2_used=5, n3=5))
        self.assertEqual(v, [])
        # 1 + 3 free: totals hold 4, every pod fits n3 alone, no packing.
        v, _ = self.run_case(self.cluster(n2_used=7, n3=5))
        self.assertEqual(v, [
            "consolidate-no-room: ns/a: cycle 1: moved (consolidate) from n1; the pods moved "
            "in this cycle (ns/b, ns/a) fit no packing into the free room of the other nodes "
            "(first-fit decreasing stopped at this pod; exhaustive search found none)"])

    def test_a_node_the_pod_may_not_go_to_is_no_room(self):
        v, _ = self.run_case(self.cluster(n2_used=7, n3=0, selector={"pool": "main"}))
        self.assertTrue(v and v[0].startswith("consolidate-no-room: ns/a: cycle 1: moved "
                                              "(consolidate) from n1, but no other node it may "
                                              "go to has room"), v)

    def test_binds_of_the_cycle_take_room(self):
        s = self.cluster(n2_used=0)
        s["items"].append(gpu_pod("big", 6))
        rep = evictions(report({"binds": [("ns/big", "n2")], "evictions": ["ns/a", "ns/b"]}),
                        0, "consolidate")
        v, _ = check.check(s, rep)
        self.assertEqual(len(found(v, "consolidate-no-room")), 1)

    def test_moved_to(self):
        v, _ = self.run_case(self.cluster(), {"ns/a": "n2", "ns/b": "n2"})
        self.assertEqual(v, [])
        v, _ = self.run_case(self.cluster(), {"ns/a": "n1", "ns/b": "n2"})
        self.assertEqual(v, ["consolidate-no-room: ns/a: cycle 1: moved (consolidate) from n1 "
                             "to n1, but it is the node it was moved from"])
        v, _ = self.run_case(self.cluster(n2_used=5, n3=0), {"ns/a": "n2", "ns/b": "n2"})
        self.assertEqual(v, ["consolidate-no-room: ns/a: cycle 1: moved (consolidate) from n1 "
                             "to n2, but the pods moved there (ns/a, ns/b) ask cpu=2000m "
                             "memory=2048.0Mi nvidia.com/gpu=4 pods=2 and it has cpu=31000m "
                             "memory=64512.0Mi nvidia.com/gpu=3 pods=109 free after the "
                             "cycle"])

    def test_other_reasons_are_not_judged_for_room(self):
        rep = report({"evictions": ["ns/a", "ns/b"]})
        v, _ = check.check(self.cluster(n2_used=8), rep)
        self.assertEqual(found(v, "consolidate-no-room"), [])


def held_cluster():
    """dra_cluster, its pod a running on n1 holding claim a-gpu (n1's
    gpu-0, reserved for it); b pending; and c, pending, with its own claim."""
    s = dra_cluster()
    for o in s["items"]:
        if o["kind"] == "Pod":
            o["metadata"]["uid"] = "uid-" + o["metadata"]["name"]
        if o["kind"] == "Pod" and o["metadata"]["name"] == "a":
            o["spec"]["nodeName"] = "n1"
            o["status"] = {"phase": "Running"}
            a = o
    for o in s["items"]:
        if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "a-gpu":
            generate._dra_allocate(o, "n1", ["gpu-0"], "gpu", [a])
    c = pod("c")
    c["metadata"]["uid"] = "uid-c"
    generate._dra_use(c, "gpu", "c-gpu")
    s["items"] += [c, generate._dra_claim("c-gpu", "ns", "gpu.example.com", 1, [])]
    return s


def double(violations):
    return found(violations, "device-double-allocation")


class FreeingTest(unittest.TestCase):
    def test_a_device_of_an_evicted_pods_claim_is_free_the_next_cycle(self):
        rep = report({"evictions": ["ns/a"]}, {"binds": [("ns/c", "n1")]})
        rep["cycles"][1]["claims"] = [allocation("ns/c-gpu", "ns/c", ("n1", "gpu-0"))]
        v, _ = check.check(held_cluster(), rep)
        self.assertEqual(double(v), [])

    def test_not_in_the_cycle_that_evicts(self):
        rep = report({"evictions": ["ns/a"], "binds": [("ns/c", "n1")]})
        rep["cycles"][0]["claims"] = [allocation("ns/c-gpu", "ns/c", ("n1", "gpu-0"))]
        v, _ = check.check(held_cluster(), rep)
        self.assertEqual(double(v), [
            "device-double-allocation: device/gpu.example.com/n1/gpu-0: cycle 1: allocated to "
            "ns/c-gpu (pod ns/c), but held by ns/a-gpu since the snapshot"])

    def test_nor_while_a_pod_sharing_the_claim_runs(self):
        s = held_cluster()
        for o in s["items"]:
            if o["kind"] == "Pod" and o["metadata"]["name"] == "b":
                o["spec"]["nodeName"] = "n1"
                o["status"] = {"phase": "Running"}
                o["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "a-gpu"}]
                b = o
        for o in s["items"]:
            if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "a-gpu":
                o["status"]["reservedFor"].append({"resource": "pods", "name": "b",
                                                   "uid": b["metadata"]["uid"]})
        rep = report({"evictions": ["ns/a"]}, {"binds": [("ns/c", "n1")]})
        rep["cycles"][1]["claims"] = [allocation("ns/c-gpu", "ns/c", ("n1", "gpu-0"))]
        v, _ = check.check(s, rep)
        self.assertEqual(double(v), [
            "device-double-allocation: device/gpu.example.com/n1/gpu-0: cycle 2: allocated to "
            "ns/c-gpu (pod ns/c), but held by ns/a-gpu since the snapshot"])

    def test_a_freed_claim_may_be_allocated_anew(self):
        s = held_cluster()
        rep = report({"evictions": ["ns/a"]}, {"binds": [("ns/c", "n1")]}, {})
        rep["cycles"][1]["claims"] = [allocation("ns/c-gpu", "ns/c", ("n1", "gpu-0"))]
        v, _ = check.check(s, rep)
        self.assertEqual(double(v), [])
        self.assertEqual(found(v, "device-claim-rewritten"), [])


class MakingRoomStreamsTest(unittest.TestCase):
    def test_repeatable(self):
        for stream, gen in sorted(generate_making_room.GENERATORS.items()):
            for seed in (0, 7):
                self.assertEqual(generate.dumps(gen(seed)), generate.dumps(gen(seed)), stream)

    def test_dra_preempt_holds_running_claims_shared_ones_and_pending_claimers(self):
        shared = running = pending = 0
        for seed in range(30):
            items = generate_making_room.dra_preempt(seed)["items"]
            v, _ = check.check(generate_making_room.dra_preempt(seed), {"cycles": []})
            self.assertEqual([str(x) for x in v if x.kind != "idle-fitting-gang"], [], seed)
            for o in items:
                if o["kind"] == "ResourceClaim" and "status" in o:
                    running += 1
                    shared += len(o["status"]["reservedFor"]) == 2
                if (o["kind"] == "Pod" and not o["spec"].get("nodeName")
                        and o["spec"].get("resourceClaims")
                        and o["spec"].get("priorityClassName") in ("high", "mid")):
                    pending += 1
        self.assertGreater(shared, 10)
        self.assertGreater(running, 100)
        self.assertGreater(pending, 30)

    def test_fragmented_leaves_no_node_whole_and_asks_for_one(self):
        enough = 0
        for seed in range(50):
            s = generate_making_room.fragmented(seed)
            m = check.Model(s)
            used = m.used(m.initial_placement())
            free = {n: m.alloc[n]["nvidia.com/gpu"] - used[n].get("nvidia.com/gpu", 0)
                    for n in m.nodes}
            self.assertLess(max(free.values()), 8, seed)
            self.assertGreater(min(8 - f for f in free.values()), 0, seed)
            enough += sum(free.values()) >= 8
            whole = [k for k in m.pods if k.startswith("team-a/whole-node-")]
            self.assertTrue(whole and all(m.req[k]["nvidia.com/gpu"] == 8 for k in whole))
        self.assertGreater(enough, 40)


if __name__ == "__main__":
    unittest.main(verbosity=2)
