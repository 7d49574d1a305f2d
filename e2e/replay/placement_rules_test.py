#!/usr/bin/env python3
"""Pods placed relative to each other, as real jobs write them: required
anti-affinity (one worker per node), affinity to a parameter server's zone,
topology spread over zones, and running pods' anti-affinity, through the
real binary on snapshots. Each waiting case asserts the message."""

import json
import os
import subprocess
import tempfile
import unittest

from cluster import BINARY, node, pod, podgroup, replay

DEFAULT = open("policies/default.yaml").read()
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def zoned(name, zone, cpu="16"):
    return node(name, cpu=cpu, labels={HOST: name, ZONE: zone})


def gang(name, count, rules, cpu="1", created=0):
    """A PodGroup of `count` pods labelled app=<name>, each with `rules`
    merged into its spec."""
    objs = [podgroup(name, count, created=created)]
    for i in range(count):
        p = pod("%s-%d" % (name, i), {"cpu": cpu}, group=name, created=created,
                labels={"app": name})
        p["spec"].update(json.loads(json.dumps(rules)))
        objs.append(p)
    return objs


def anti(app, key):
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]}}}


def binds(report):
    return {b["pod"]: b["node"] for c in report["cycles"] for b in c["binds"]}


def message(report, group):
    return {g["name"]: g["message"] for g in report["cycles"][-1]["podGroups"]}[group]


class AntiAffinityTest(unittest.TestCase):
    def test_one_worker_per_node_takes_four_nodes_or_none(self):
        rules = anti("train", HOST)
        report, _ = replay([zoned("n%d" % i, "a") for i in range(4)] + gang("train", 4, rules))
        self.assertEqual(len(set(binds(report).values())), 4)

        report, _ = replay([zoned("n%d" % i, "a") for i in range(3)] + gang("train", 4, rules),
                           cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/train"),
                         "4/4 tasks in gang unschedulable: 0/3 nodes are available: 3 node(s) "
                         "didn't match pod anti-affinity rules.")

    def test_running_pods_anti_affinity_keeps_a_gang_away(self):
        guard = pod("guard", {"cpu": "1"}, node_name="n0", scheduler="default-scheduler")
        guard["spec"].update(anti("batch", HOST))
        objs = [zoned("n0", "a", cpu="64"), zoned("n1", "a"), guard] + gang("batch", 3, {})
        report, _ = replay(objs)
        self.assertEqual(set(binds(report).values()), {"n1"})


class AffinityTest(unittest.TestCase):
    def test_workers_follow_their_parameter_server_or_wait(self):
        ps = pod("ps-0", {"cpu": "1"}, node_name="b0", labels={"app": "ps"})
        follow = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "ps"}}, "topologyKey": ZONE}]}}}
        objs = [zoned("a0", "a", cpu="64"), zoned("b0", "b"), zoned("b1", "b"), ps]
        report, _ = replay(objs + gang("worker", 4, follow))
        self.assertEqual(sorted(binds(report).values()), ["b0", "b0", "b1", "b1"])

        # Zone b has room for 3 workers only: the gang waits whole.
        objs = [zoned("a0", "a", cpu="64"), zoned("b0", "b", cpu="2"), zoned("b1", "b", cpu="1"), ps]
        report, _ = replay(objs + gang("worker", 4, follow), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/worker"),
                         "4/4 tasks in gang unschedulable: 0/3 nodes are available: 2 "
                         "Insufficient cpu, 1 node(s) didn't match pod affinity rules.")


class SpreadTest(unittest.TestCase):
    def test_six_pods_over_three_zones_go_two_two_two(self):
        spread = {"topologySpreadConstraints": [{
            "maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "spread"}}}]}
        objs = [zoned("a0", "a", cpu="64"), zoned("b0", "b"), zoned("c0", "c")]
        report, _ = replay(objs + gang("spread", 6, spread))
        per_zone = {}
        for n in binds(report).values():
            per_zone[n[0]] = per_zone.get(n[0], 0) + 1
        self.assertEqual(per_zone, {"a": 2, "b": 2, "c": 2})

    def test_a_spread_that_cannot_hold_waits_and_says_why(self):
        spread = {"topologySpreadConstraints": [{
            "maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "spread"}}}]}
        objs = [zoned("a0", "a", cpu="64"), zoned("b0", "b", cpu="1")]
        report, _ = replay(objs + gang("spread", 4, spread), cycles=2)
        self.assertEqual(binds(report), {})
        self.assertEqual(message(report, "default/spread"),
                         "4/4 tasks in gang unschedulable: 0/2 nodes are available: 1 "
                         "Insufficient cpu, 1 node(s) didn't match pod topology spread "
                         "constraints.")


class ExplainTest(unittest.TestCase):
    def explain(self, objects, pod_key, output="json"):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cluster.json")
            with open(path, "w") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, f)
            done = subprocess.run([BINARY, "--snapshot=" + path, "--explain=" + pod_key,
                                   "--output=" + output], capture_output=True, text=True)
            return done

    def test_per_node_reasons_in_kube_schedulers_words(self):
        guard = pod("guard", {"cpu": "1"}, node_name="n0", scheduler="default-scheduler",
                    labels={"app": "web"})
        lone = pod("lone", {"cpu": "1"}, labels={"app": "batch"})
        lone["spec"].update(anti("web", HOST))
        done = self.explain([zoned("n0", "a"), zoned("n1", "a", cpu="0"), zoned("n2", "b"),
                             guard, lone], "default/lone")
        self.assertEqual(done.returncode, 0, done.stderr)
        out = json.loads(done.stdout)
        self.assertEqual(out["available"], "1/3 nodes are available: 1 Insufficient cpu, 1 node(s) "
                                           "didn't match pod anti-affinity rules.")
        self.assertEqual([(n["node"], n["feasible"], n["reasons"]) for n in out["nodes"]],
                         [("n0", False, ["node(s) didn't match pod anti-affinity rules"]),
                          ("n1", False, ["Insufficient cpu"]),
                          ("n2", True, [])])
        text = self.explain([zoned("n0", "a"), guard, lone], "default/lone", output="text")
        self.assertIn("n0     no    node(s) didn't match pod anti-affinity rules", text.stdout)

    def test_unknown_pod_is_refused_by_name(self):
        done = self.explain([zoned("n0", "a")], "default/nope")
        self.assertEqual(done.returncode, 2)
        self.assertIn("pod default/nope is not in the snapshot", done.stderr)


if __name__ == "__main__":
    unittest.main()
