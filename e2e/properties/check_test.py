"""The oracle catches hand-made outcomes that break each property, and
passes a correct one. No binary needed."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
from generate import quantity, pod_requests  # noqa: E402


def node(name, cpu="4", memory="8Gi", pods="110", labels=None, taints=None, gpu=None):
    alloc = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpu:
        alloc["nvidia.com/gpu"] = gpu
    return {"kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints} if taints else {},
            "status": {"allocatable": alloc}}


def pod(name, cpu="1", memory="1Gi", group=None, node_name=None, selector=None,
        tolerations=None, scheduler="shoal", init=None):
    meta = {"name": name, "namespace": "ns"}
    if group:
        meta["annotations"] = {"scheduling.k8s.io/group-name": group}
    spec = {"schedulerName": scheduler,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu,
                                                                    "memory": memory}}}]}
    if init:
        spec["initContainers"] = init
    if node_name:
        spec["nodeName"] = node_name
    if selector:
        spec["nodeSelector"] = selector
    if tolerations:
        spec["tolerations"] = tolerations
    return {"kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running" if node_name else "Pending"}}


def podgroup(name, min_member):
    return {"kind": "PodGroup", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"minMember": min_member, "queue": "q"}}


def snap(*items):
    return {"kind": "List", "items": list(items)}


def report(*cycles):
    return {"cycles": [{"binds": [{"pod": p, "node": n} for p, n in c.get("binds", [])],
                        "evictions": [{"pod": p, "reason": "preempt"}
                                      for p in c.get("evictions", [])],
                        "podGroups": c.get("podGroups", [])} for c in cycles]}


def kinds(violations):
    return sorted({v.kind for v in violations})


class QuantityTest(unittest.TestCase):
    def test_kubernetes_quantities(self):
        self.assertEqual(quantity("500m") * 1000, 500)
        self.assertEqual(quantity("2Gi"), 2 * 2**30)
        self.assertEqual(quantity("1e3"), 1000)
        self.assertEqual(quantity("1.5"), quantity("1500m"))
        self.assertEqual(quantity("128974848"), 128974848)
        self.assertEqual(quantity("1k"), 1000)

    def test_requests_as_kube_scheduler_counts_them(self):
        p = pod("p", cpu="1", init=[
            {"name": "i", "resources": {"requests": {"cpu": "3"}}},
            {"name": "side", "restartPolicy": "Always",
             "resources": {"requests": {"cpu": "500m"}}},
            {"name": "j", "resources": {"requests": {"cpu": "2"}}}])
        p["spec"]["overhead"] = {"cpu": "100m"}
        # containers 1 + sidecar 0.5 = 1.5; init max(3, 0.5, 2 + 0.5) = 3;
        # plus 0.1 overhead.
        self.assertEqual(pod_requests(p)["cpu"], quantity("3100m"))
        self.assertEqual(pod_requests(p)["pods"], 1)


class OracleTest(unittest.TestCase):
    def test_a_correct_outcome_passes(self):
        s = snap(node("a"), node("b"), podgroup("g", 2),
                 pod("g-0", cpu="3", group="g"), pod("g-1", cpu="3", group="g"))
        r = report({"binds": [("ns/g-0", "a"), ("ns/g-1", "b")],
                    "podGroups": [{"name": "ns/g", "phase": "Running", "message": ""}]})
        self.assertEqual(check.check(s, r), ([], check.collections.Counter()))

    def test_overbooked_node_is_caught(self):
        s = snap(node("a", cpu="4"), pod("old", cpu="3", node_name="a", scheduler="other"),
                 pod("new", cpu="2"))
        r = report({"binds": [("ns/new", "a")]})
        v, _ = check.check(s, r)
        self.assertEqual(kinds(v), ["overbooked"])
        self.assertEqual(v[0].obj, "node/a")

    def test_a_host_port_bound_twice_on_a_node_is_caught(self):
        holder = pod("holder", node_name="a", scheduler="other")
        holder["spec"]["containers"][0]["ports"] = [{"containerPort": 29500, "hostPort": 29500}]
        new = pod("new")
        new["spec"]["containers"][0]["ports"] = [{"containerPort": 29500, "hostPort": 29500}]
        s = snap(node("a", cpu="8"), node("b", cpu="8"), holder, new)
        v, _ = check.check(s, report({"binds": [("ns/new", "a")]}))
        self.assertEqual(kinds(v), ["overbooked"])
        self.assertIn("hostport/29500", v[0].detail)
        self.assertEqual(check.check(s, report({"binds": [("ns/new", "b")]}))[0], [])

    def test_pod_count_is_a_resource(self):
        s = snap(node("a", pods="1"), pod("x"), pod("y"))
        r = report({"binds": [("ns/x", "a"), ("ns/y", "a")]})
        self.assertEqual(kinds(check.check(s, r)[0]), ["overbooked"])

    def test_binding_into_room_evicted_in_the_same_cycle_is_overbooking(self):
        s = snap(node("a", cpu="4"), pod("victim", cpu="4", node_name="a"), pod("new", cpu="4"))
        r = report({"binds": [("ns/new", "a")], "evictions": ["ns/victim"]})
        self.assertEqual(kinds(check.check(s, r)[0]), ["overbooked"])
        # A cycle later the room is free.
        r = report({"evictions": ["ns/victim"]}, {"binds": [("ns/new", "a")]})
        self.assertEqual(kinds(check.check(s, r)[0]), [])

    def test_partial_gang_is_caught(self):
        s = snap(node("a"), podgroup("g", 3), *[pod("g-%d" % i, cpu="1", group="g")
                                                for i in range(3)])
        r = report({"binds": [("ns/g-0", "a"), ("ns/g-1", "a")]})
        v, _ = check.check(s, r)
        self.assertIn("partial-gang", kinds(v))
        self.assertEqual([x.obj for x in v if x.kind == "partial-gang"], ["ns/g"])

    def test_eviction_cutting_a_running_gang_is_caught(self):
        s = snap(node("a"), podgroup("g", 2),
                 pod("g-0", group="g", node_name="a"), pod("g-1", group="g", node_name="a"))
        r = report({"evictions": ["ns/g-0"]})
        self.assertEqual(kinds(check.check(s, r)[0]), ["partial-gang"])

    def test_broken_selector_and_taint_are_caught(self):
        s = snap(node("a", labels={"zone": "x"}), node("b", labels={"zone": "y"},
                                                        taints=[{"key": "k", "value": "v",
                                                                 "effect": "NoSchedule"}]),
                 pod("p", selector={"zone": "x"}), pod("q"),
                 pod("r", tolerations=[{"key": "k", "operator": "Exists"}]))
        r = report({"binds": [("ns/p", "b"), ("ns/q", "b"), ("ns/r", "b")]})
        v, _ = check.check(s, r)
        self.assertEqual(sorted((x.kind, x.obj) for x in v),
                         [("selector", "ns/p"), ("taint", "ns/q")])
        # Not asked of a policy without predicates.
        self.assertEqual(check.check(s, r, predicates=False)[0], [])

    def test_cordoned_node_takes_only_pods_tolerating_it(self):
        a = node("a")
        a["spec"]["unschedulable"] = True
        s = snap(a, pod("p"), pod("ds", tolerations=[{"operator": "Exists"}]))
        r = report({"binds": [("ns/p", "a"), ("ns/ds", "a")]})
        self.assertEqual(sorted((x.kind, x.obj) for x in check.check(s, r)[0]),
                         [("cordoned", "ns/p")])

    def test_double_bind_is_caught(self):
        s = snap(node("a"), pod("p", node_name="a"))
        r = report({"binds": [("ns/p", "a")]})
        self.assertEqual(kinds(check.check(s, r)[0]), ["bad-bind"])

    def test_idle_fitting_gang_without_a_rule_is_caught(self):
        s = snap(node("a", cpu="4"), node("b", cpu="4"), podgroup("g", 2),
                 *[pod("g-%d" % i, cpu="3", group="g") for i in range(3)])
        pg = {"name": "ns/g", "phase": "Inqueue", "message": ""}
        v, _ = check.check(s, report({"podGroups": [pg]}))
        self.assertEqual(kinds(v), ["idle-fitting-gang"])
        # A stated rule excuses it, and is counted.
        pg["message"] = "waiting for admission: queue q is full (cpu would reach 6 of 4)"
        v, ex = check.check(s, report({"podGroups": [pg]}))
        self.assertEqual(v, [])
        self.assertEqual(ex, {check.ACCEPTED_RULES[0][0]: 1})

    def test_a_gang_that_does_not_fit_the_idle_room_may_wait(self):
        # Two 3-cpu pods on 4-cpu nodes where one node is taken, or behind
        # a selector no node matches: no fit, no violation.
        s = snap(node("a", cpu="4"), node("b", cpu="4"),
                 pod("big", cpu="2", node_name="b", scheduler="other"), podgroup("g", 2),
                 *[pod("g-%d" % i, cpu="3", group="g") for i in range(2)],
                 pod("lone", selector={"zone": "nowhere"}))
        pgs = [{"name": "ns/g", "phase": "Inqueue", "message": ""},
               {"name": "ns/lone", "phase": "Pending", "message": ""}]
        self.assertEqual(check.check(s, report({"podGroups": pgs}))[0], [])

    def test_room_freed_by_the_last_cycles_evictions_is_not_idle_yet(self):
        s = snap(node("a", cpu="4"), pod("victim", cpu="4", node_name="a"), pod("lone", cpu="4"))
        r = report({"evictions": ["ns/victim"],
                    "podGroups": [{"name": "ns/lone", "phase": "Pending", "message": ""}]})
        self.assertEqual(check.check(s, r)[0], [])

    def test_policy_with_or_without_predicates(self):
        self.assertTrue(check.policy_has_predicates("tiers:\n- plugins:\n  - name: predicates\n"))
        self.assertFalse(check.policy_has_predicates("tiers:\n- plugins:\n  - name: drf\n"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
