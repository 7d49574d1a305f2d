"""The oracle catches hand-made outcomes that break each property, and
passes a correct one. No binary needed."""

import collections
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
import device_rules  # noqa: E402
import network_rules  # noqa: E402
import generate  # noqa: E402
import proportion_share  # noqa: E402
import reclaim_liveness  # noqa: E402
import reclaim_rules  # noqa: E402
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
        # partial-gang judges the end of the cycle; gang-cut (making_room_rules)
        # the eviction that did it.
        self.assertEqual(kinds(check.check(s, r)[0]), ["gang-cut", "partial-gang"])

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


HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REQ = "requiredDuringSchedulingIgnoredDuringExecution"


def tnode(name, zone=None, cpu="4", **kw):
    labels = {HOST: name}
    if zone:
        labels[ZONE] = zone
    return node(name, cpu=cpu, labels=labels, **kw)


def gpod(name, group, anti=None, affinity=None, spread=None, **kw):
    """A pod labelled example.com/gang=<group>; `anti`/`affinity`: a list
    of (topologyKey, selected gang) terms; `spread`: constraints."""
    p = pod(name, group=group, **kw)
    p["metadata"]["labels"] = {"example.com/gang": group}
    aff = {}
    for kind, terms in (("podAntiAffinity", anti), ("podAffinity", affinity)):
        if terms:
            aff[kind] = {REQ: [{"labelSelector": {"matchLabels": {"example.com/gang": g}},
                                "topologyKey": k} for k, g in terms]}
    if aff:
        p["spec"]["affinity"] = aff
    if spread:
        p["spec"]["topologySpreadConstraints"] = spread
    return p


def spread(key, skew=1, group="g", when="DoNotSchedule"):
    return [{"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
             "labelSelector": {"matchLabels": {"example.com/gang": group}}}]


def safety(snapshot, rep, **kw):
    """check.check without the liveness verdicts (and partial gangs): the
    safety tests bind only some of the pods."""
    v, ex = check.check(snapshot, rep, **kw)
    return [x for x in v if x.kind not in ("idle-fitting-gang", "partial-gang")], ex


def binds(*pairs):
    return report({"binds": [("ns/" + p, n) for p, n in pairs]})


class InterPodTest(unittest.TestCase):
    def test_one_per_node_anti_affinity(self):
        s = snap(tnode("a"), tnode("b"), podgroup("g", 2),
                 *[gpod("g-%d" % i, "g", anti=[(HOST, "g")]) for i in range(2)])
        v, _ = safety(s, binds(("g-0", "a"), ("g-1", "a")))
        self.assertEqual(sorted((x.kind, x.obj) for x in v),
                         [("pod-anti-affinity", "ns/g-0"), ("pod-anti-affinity", "ns/g-1")])
        self.assertEqual(safety(s, binds(("g-0", "a"), ("g-1", "b")))[0], [])
        # Against a gang-mate bound in an earlier cycle too.
        s2 = snap(tnode("a"), tnode("b"), podgroup("g", 1),
                  gpod("g-0", "g", anti=[(HOST, "g")], node_name="a"),
                  gpod("g-1", "g", anti=[(HOST, "g")]))
        self.assertEqual(kinds(safety(s2, binds(("g-1", "a")))[0]), ["pod-anti-affinity"])

    def test_zone_anti_affinity_and_nodes_without_the_key(self):
        s = snap(tnode("a", "z1"), tnode("b", "z1"), tnode("c"), tnode("d"),
                 podgroup("g", 2), *[gpod("g-%d" % i, "g", anti=[(ZONE, "g")]) for i in range(2)])
        self.assertEqual(kinds(safety(s, binds(("g-0", "a"), ("g-1", "b")))[0]),
                         ["pod-anti-affinity"])
        # Nodes lacking the zone label are never in conflict.
        self.assertEqual(safety(s, binds(("g-0", "c"), ("g-1", "d")))[0], [])
        self.assertEqual(safety(s, binds(("g-0", "a"), ("g-1", "c")))[0], [])

    def test_symmetry_running_pods_anti_affinity(self):
        guard = gpod("guard", "other", anti=[(HOST, "g")], node_name="a", scheduler="x")
        s = snap(tnode("a"), tnode("b"), guard, pod("lone"), podgroup("g", 1),
                 gpod("g-0", "g"))
        v, _ = safety(s, binds(("g-0", "a")))
        self.assertEqual([(x.kind, x.obj) for x in v], [("pod-anti-affinity", "ns/g-0")])
        self.assertIn("ns/guard", v[0].detail)
        self.assertEqual(safety(s, binds(("g-0", "b"), ("lone", "a")))[0], [])
        # Asked of every policy: Shoal honours these rules as mechanism.
        self.assertEqual(len(safety(s, binds(("g-0", "a")), predicates=False)[0]), 1)

    def test_a_victim_of_the_cycle_is_no_conflict_but_a_survivor_is(self):
        guard = gpod("guard", "other", anti=[(HOST, "g")], node_name="a")
        s = snap(tnode("a", cpu="8"), guard, podgroup("g", 1), gpod("g-0", "g"))
        r = report({"binds": [("ns/g-0", "a")], "evictions": ["ns/guard"]})
        self.assertEqual(safety(s, r)[0], [])
        r = report({"evictions": []}, {"binds": [("ns/g-0", "a")]})
        self.assertEqual(kinds(safety(s, r)[0]), ["pod-anti-affinity"])

    def test_affinity_to_another_group(self):
        ps = gpod("ps-0", "ps", node_name="a")
        s = snap(tnode("a", "z1"), tnode("b", "z1"), tnode("c", "z2"), tnode("d"), ps,
                 podgroup("w", 1), gpod("w-0", "w", affinity=[(ZONE, "ps")]))
        self.assertEqual(safety(s, binds(("w-0", "b")))[0], [])
        self.assertEqual(kinds(safety(s, binds(("w-0", "c")))[0]), ["pod-affinity"])
        # A node without the key never satisfies affinity.
        self.assertEqual(kinds(safety(s, binds(("w-0", "d")))[0]), ["pod-affinity"])
        # Its parameter server bound in the same cycle counts.
        s2 = snap(tnode("a", "z1"), tnode("c", "z2"), podgroup("ps", 1), gpod("ps-0", "ps"),
                  podgroup("w", 1), gpod("w-0", "w", affinity=[(ZONE, "ps")]))
        self.assertEqual(safety(s2, binds(("ps-0", "a"), ("w-0", "a")))[0], [])
        self.assertEqual(kinds(safety(s2, binds(("ps-0", "a"), ("w-0", "c")))[0]),
                         ["pod-affinity"])
        # With no parameter server anywhere, a worker (which does not match
        # its own term) may not go anywhere.
        self.assertEqual(kinds(safety(s2, binds(("w-0", "c")))[0]), ["pod-affinity"])

    def test_self_affinity_first_pod_goes_anywhere(self):
        def s(*running):
            return snap(tnode("a", "z1"), tnode("b", "z1"), tnode("c", "z2"), tnode("d"),
                        podgroup("g", 2), *running,
                        *[gpod("g-%d" % i, "g", affinity=[(ZONE, "g")]) for i in range(3)])
        # The gang together in one zone; or a lone first pod anywhere,
        # even on a node without the key.
        self.assertEqual(safety(s(), binds(("g-0", "a"), ("g-1", "b")))[0], [])
        self.assertEqual(safety(s(), binds(("g-0", "c")))[0], [])
        self.assertEqual(safety(s(), binds(("g-0", "d")))[0], [])
        # Two zones: whichever came second did not follow the first.
        v, _ = safety(s(), binds(("g-0", "a"), ("g-1", "c")))
        self.assertEqual(kinds(v), ["pod-affinity"])
        self.assertIn("also claims to be the first", v[0].detail)
        # A first pod on a node without the key does not count for the
        # next one (kube-scheduler counts only nodes with the key): both
        # are "first".
        self.assertEqual(safety(s(), binds(("g-0", "d"), ("g-1", "c")))[0], [])
        # One of its kind was already running elsewhere: not the first.
        old = gpod("g-9", "g", node_name="c", scheduler="x")
        v, _ = safety(s(old), binds(("g-0", "a"), ("g-1", "b")))
        self.assertEqual(sorted(x.obj for x in v if x.kind == "pod-affinity"),
                         ["ns/g-0", "ns/g-1"])
        self.assertEqual(safety(s(old), binds(("g-0", "c"), ("g-1", "c")))[0], [])

    def test_spread_do_not_schedule(self):
        def s(sp, *extra):
            return snap(tnode("a", "z1", cpu="16"), tnode("b", "z2", cpu="16"), tnode("c"),
                        podgroup("g", 1), *extra,
                        *[gpod("g-%d" % i, "g", spread=sp) for i in range(4)])
        zone1 = spread(ZONE)
        self.assertEqual(safety(s(zone1), binds(("g-0", "a"), ("g-1", "b"),
                                                     ("g-2", "a")))[0], [])
        v, _ = safety(s(zone1), binds(("g-0", "a"), ("g-1", "a")))
        self.assertEqual(kinds(v), ["topology-spread"])
        # maxSkew 2 allows it, and 3 in one zone is too many.
        self.assertEqual(safety(s(spread(ZONE, 2)), binds(("g-0", "a"),
                                                               ("g-1", "a")))[0], [])
        self.assertEqual(kinds(safety(s(spread(ZONE, 2)), binds(
            ("g-0", "a"), ("g-1", "a"), ("g-2", "a")))[0]), ["topology-spread"])
        # ScheduleAnyway is never flagged.
        self.assertEqual(safety(s(spread(ZONE, when="ScheduleAnyway")), binds(
            ("g-0", "a"), ("g-1", "a"), ("g-2", "a")))[0], [])
        # A node without the key is no domain and takes no such pod.
        v, _ = safety(s(zone1), binds(("g-0", "c")))
        self.assertEqual(kinds(v), ["topology-spread"])
        self.assertIn("lacks", v[0].detail)
        # Pods already running count: two in z2 make room for two in z1.
        old = [gpod("g-%d" % i, "g", node_name="b") for i in (8, 9)]
        self.assertEqual(safety(s(zone1, *old), binds(("g-0", "a"), ("g-1", "a")))[0], [])
        self.assertEqual(kinds(safety(s(zone1, *old), binds(
            ("g-0", "a"), ("g-1", "a"), ("g-2", "a"), ("g-3", "a")))[0]), ["topology-spread"])

    def test_spread_counts_only_domains_eligible_for_the_pod(self):
        # z2's node does not match the pods' nodeSelector: not a domain.
        s = snap(node("a", labels={HOST: "a", ZONE: "z1", "t": "x"}),
                 node("b", labels={HOST: "b", ZONE: "z2"}), podgroup("g", 1),
                 *[gpod("g-%d" % i, "g", spread=spread(ZONE), selector={"t": "x"})
                   for i in range(2)])
        self.assertEqual(safety(s, binds(("g-0", "a"), ("g-1", "a")))[0], [])

    def test_spread_not_judged_when_other_pods_joined_the_domain(self):
        # A matching pod without the constraint may have come last.
        s = snap(tnode("a", "z1", cpu="16"), tnode("b", "z2"), podgroup("g", 1),
                 gpod("g-0", "g", spread=spread(ZONE)), gpod("g-1", "g"), gpod("g-2", "g"))
        self.assertEqual(safety(s, binds(("g-0", "a"), ("g-1", "a"), ("g-2", "a")))[0],
                         [])

    def test_liveness_of_constrained_gangs(self):
        pg = [{"name": "ns/g", "phase": "Inqueue", "message": ""}]
        gang = [gpod("g-%d" % i, "g", cpu="3", anti=[(HOST, "g")]) for i in range(2)]
        # One per node, two free nodes: it fits.
        s = snap(tnode("a"), tnode("b"), podgroup("g", 2), *gang)
        v, _ = check.check(s, report({"podGroups": pg}))
        self.assertEqual(kinds(v), ["idle-fitting-gang"])
        # One node: no fit. A running pod the term selects, or whose own
        # anti-affinity selects the gang, takes a node away.
        self.assertEqual(check.check(snap(tnode("a"), podgroup("g", 2), *gang),
                                     report({"podGroups": pg}))[0], [])
        for other in (gpod("g-9", "g", cpu="100m", node_name="b", scheduler="x"),
                      gpod("guard", "x", cpu="100m", anti=[(HOST, "g")], node_name="b")):
            s = snap(tnode("a"), tnode("b"), podgroup("g", 2), other, *gang)
            self.assertEqual(check.check(s, report({"podGroups": pg}))[0], [])
        # Other constraints: not decided, counted.
        s = snap(tnode("a", "z1"), tnode("b", "z2"), podgroup("g", 2),
                 *[gpod("g-%d" % i, "g", spread=spread(ZONE)) for i in range(2)])
        v, ex = check.check(s, report({"podGroups": pg}))
        self.assertEqual((v, ex[check.UNDECIDED_INTERPOD]), ([], 1))

    def test_liveness_of_plain_gangs_respects_running_pods_anti_affinity(self):
        pg = [{"name": "ns/g", "phase": "Inqueue", "message": ""}]
        guard = gpod("guard", "x", cpu="100m", anti=[(HOST, "g")], node_name="a")
        s = snap(tnode("a"), podgroup("g", 1), guard, gpod("g-0", "g"))
        self.assertEqual(check.check(s, report({"podGroups": pg}))[0], [])
        s = snap(tnode("a"), tnode("b"), podgroup("g", 1), guard, gpod("g-0", "g"))
        self.assertEqual(kinds(check.check(s, report({"podGroups": pg}))[0]),
                         ["idle-fitting-gang"])


class KubeFaithfulPlacementTest(unittest.TestCase):
    """generate.py's own rendering of kube-scheduler's filters places the
    pending pods of generated clusters greedily, one gang at a time; the
    oracle's safety rules never flag that (soundness), while the same
    placements ignoring the filters are flagged somewhere."""

    def greedy(self, snapshot, honour):
        nodes = {o["metadata"]["name"]: o for o in snapshot["items"] if o["kind"] == "Node"}
        model = check.Model(snapshot)
        where = model.initial_placement()
        placed = [(model.pods[k], n) for k, n in where.items()]
        free = {n: generate._add(model.alloc[n], u, -1) for n, u in model.used(where).items()}
        out = []
        for g, info in sorted(model.groups.items()):
            pending = [k for k in info["pods"] if k not in where]
            trial, tfree, tplaced = [], {n: dict(f) for n, f in free.items()}, list(placed)
            for k in pending:
                p = model.pods[k]
                for n in sorted(nodes):
                    if (generate.fits(model.req[k], tfree[n]) and
                            generate.placement_problem(p, nodes[n]) is None and
                            (not honour or generate.interpod_problem(p, nodes[n], tplaced,
                                                                     nodes) is None)):
                        tfree[n] = generate._add(tfree[n], model.req[k], -1)
                        tplaced.append((p, n))
                        trial.append((k, n))
                        break
            if len(trial) + sum(1 for k in info["pods"] if k in where) >= info["min"]:
                out += trial
                free, placed = tfree, tplaced
        return report({"binds": out})

    def test_seeds(self):
        interpod = ("pod-affinity", "pod-anti-affinity", "topology-spread")
        caught = 0
        for seed in range(60):
            s = generate.generate(seed)
            v, _ = check.check(s, self.greedy(s, True))
            self.assertEqual([x for x in v if x.kind in interpod], [], "seed %d" % seed)
            v, _ = check.check(s, self.greedy(s, False))
            caught += any(x.kind in interpod for x in v)
        self.assertGreater(caught, 5)


def queue(name, parent=None, capability=None, guarantee=None, deserved=None):
    spec = {"weight": 1}
    if parent:
        spec["parent"] = parent
    if capability:
        spec["capability"] = capability
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    if deserved:
        spec["deserved"] = deserved
    return {"kind": "Queue", "metadata": {"name": name}, "spec": spec,
            "status": {"state": "Open"}}


def qgroup(name, min_member, q):
    g = podgroup(name, min_member)
    g["spec"]["queue"] = q
    return g


def job(name, q, cpu="1", memory="1Gi", node_name=None, pods=1, min_member=1):
    """A PodGroup in queue q and its pods (name-0, ...)."""
    return [qgroup(name, min_member, q)] + [
        pod("%s-%d" % (name, i), cpu=cpu, memory=memory, group=name, node_name=node_name)
        for i in range(pods)]


def cycle(binds=(), evictions=(), podgroups=()):
    """One cycle of a report: binds (pod, node), evictions (pod, reason)."""
    return {"binds": [{"pod": "ns/" + p, "node": n} for p, n in binds],
            "evictions": [{"pod": "ns/" + p, "reason": r} for p, r in evictions],
            "podGroups": list(podgroups)}


def of_kind(violations, kind):
    return sorted(v.obj for v in violations if v.kind == kind)


class QueueTest(unittest.TestCase):
    def test_capability_of_a_queue_and_of_every_ancestor(self):
        # eng (4 cpu) above ml (10 cpu) and web; web runs 2 cpu.
        s = snap(node("a", cpu="16"), queue("eng", "root", capability={"cpu": "4"}),
                 queue("ml", "eng", capability={"cpu": "10"}), queue("web", "eng"),
                 *job("w", "web", cpu="2", node_name="a"), *job("m", "ml", cpu="3"),
                 *job("n", "ml", cpu="2"))
        v, _ = safety(s, {"cycles": [cycle([("m-0", "a")])]})
        self.assertEqual(of_kind(v, "queue-capability"), ["queue/eng"])
        self.assertIn("cpu=5000m", [x for x in v if x.kind == "queue-capability"][0].detail)
        self.assertEqual(safety(s, {"cycles": [cycle([("n-0", "a")])]})[0], [])
        # The leaf's own capability too, flat or not.
        s = snap(node("a", cpu="16"), queue("q", capability={"cpu": "2", "memory": "8Gi"}),
                 *job("m", "q", cpu="1500m"), *job("n", "q", cpu="1"))
        v, _ = safety(s, {"cycles": [cycle([("m-0", "a"), ("n-0", "a")])]})
        self.assertEqual(of_kind(v, "queue-capability"), ["queue/q"])
        # Only asked of policies whose plugins divide the cluster between
        # queues.
        self.assertEqual(safety(s, {"cycles": [cycle([("m-0", "a"), ("n-0", "a")])]},
                                     queue_plugin=False)[0], [])

    def test_pods_running_before_may_exceed_it_but_nothing_new_may_join(self):
        s = snap(node("a", cpu="16"), queue("q", capability={"cpu": "2"}),
                 *job("old", "q", cpu="3", node_name="a"), *job("m", "q", cpu="1"),
                 *job("b", "q", cpu="0", memory="1Gi"))
        self.assertEqual(safety(s, {"cycles": [cycle()]})[0], [])
        v, _ = safety(s, {"cycles": [cycle([("m-0", "a")])]})
        self.assertEqual(of_kind(v, "queue-capability"), ["queue/q"])
        # A pod asking for none of what the capability names adds nothing.
        self.assertEqual(safety(s, {"cycles": [cycle([("b-0", "a")])]})[0], [])
        # The cycle's victims still count (binds come first), a cycle later
        # they are gone.
        v, _ = safety(s, {"cycles": [cycle([("m-0", "a")], [("old-0", "reclaim")])]})
        self.assertEqual(of_kind(v, "queue-capability"), ["queue/q"])
        v, _ = safety(s, {"cycles": [cycle((), [("old-0", "reclaim")]),
                                          cycle([("m-0", "a")])]})
        self.assertEqual(of_kind(v, "queue-capability"), [])

    def test_an_explicit_root_bounds_everything_below_it(self):
        s = snap(node("a", cpu="16"), queue("root", capability={"cpu": "3"}), queue("q"),
                 *job("m", "q", cpu="2"), pod("lone", cpu="2"))
        v, _ = safety(s, {"cycles": [cycle([("m-0", "a"), ("lone", "a")])]})
        self.assertEqual(of_kind(v, "queue-capability"), ["queue/root"])
        self.assertEqual(safety(s, {"cycles": [cycle([("m-0", "a")])]})[0], [])

    def held(self, *queues, job_queue="ml"):
        """Violations of binding a job of `job_queue` under `queues`."""
        s = snap(node("a", cpu="16"), *queues, *job("m", job_queue))
        return safety(s, {"cycles": [cycle([("m-0", "a")])]})[0]

    def test_a_tree_that_cannot_be_honoured_holds_its_jobs(self):
        faults = {
            "missing parent": [queue("ml", "eng")],
            "missing grandparent": [queue("eng", "org"), queue("ml", "eng")],
            "cycle": [queue("eng", "ml"), queue("ml", "eng")],
            "below a cycle": [queue("a", "b"), queue("b", "a"), queue("eng", "a"),
                              queue("ml", "eng")],
            "its own parent": [queue("ml", "ml")],
            "children guarantee more": [
                queue("eng", guarantee={"cpu": "2"}), queue("ml", "eng", guarantee={"cpu": "2"}),
                queue("web", "eng", guarantee={"cpu": "1"})],
            "children deserve more": [
                queue("eng", deserved={"memory": "4Gi"}),
                queue("ml", "eng", deserved={"memory": "3Gi"}),
                queue("web", "eng", deserved={"memory": "2Gi"})],
            "grandchildren deserve more": [
                queue("root", deserved={"cpu": "2"}), queue("eng", deserved={"cpu": "3"}),
                queue("ml", "eng")],
        }
        for name, queues in faults.items():
            v = self.held(*queues)
            self.assertEqual(kinds(v), ["queue-tree"], name)
            self.assertEqual(v[0].obj, "ns/m-0", name)
        # A job in a queue with children, or in root.
        self.assertEqual(kinds(self.held(queue("eng"), queue("ml", "eng"), job_queue="eng")),
                         ["queue-tree"])
        self.assertEqual(kinds(self.held(queue("ml", "root"), job_queue="root")),
                         ["queue-tree"])

    def test_a_sound_tree_holds_nothing(self):
        for queues in (
                [queue("eng", guarantee={"cpu": "3"}), queue("ml", "eng", guarantee={"cpu": "2"}),
                 queue("web", "eng", guarantee={"cpu": "1"})],
                # What a parent does not state bounds nothing.
                [queue("eng", guarantee={"memory": "1Gi"}, deserved={"memory": "1Gi"}),
                 queue("ml", "eng", guarantee={"cpu": "2"}, deserved={"cpu": "8"})],
                [queue("eng"), queue("ml", "eng", guarantee={"cpu": "2"}, deserved={"cpu": "2"})],
                # A child's capability above its parent's is no fault.
                [queue("root", capability={"cpu": "8"}), queue("eng", capability={"cpu": "4"}),
                 queue("ml", "eng", capability={"cpu": "6"})],
                [queue("ml")]):
            self.assertEqual(self.held(*queues), [], queues)

    def test_tree_messages_excuse_only_a_gang_the_oracle_finds_held(self):
        msg = "queues eng, ml name each other as parents (spec.parent): a cycle, not a tree"
        pg = [{"name": "ns/m", "phase": "Pending", "message": msg}]
        s = snap(node("a", cpu="16"), queue("eng", "ml"), queue("ml", "eng"), *job("m", "ml"))
        v, ex = check.check(s, {"cycles": [cycle((), (), pg)]})
        self.assertEqual(v, [])
        self.assertEqual(ex, {"queue tree: queues naming each other as parents": 1})
        s = snap(node("a", cpu="16"), queue("eng"), queue("ml", "eng"), *job("m", "ml"))
        v, _ = check.check(s, {"cycles": [cycle((), (), pg)]})
        self.assertEqual(kinds(v), ["idle-fitting-gang"])
        self.assertIn("place in the tree is sound", v[0].detail)
        # Every tree message has its rule.
        for m in ['queue "ml" names parent "eng" (spec.parent), which does not exist',
                  'the children of queue "eng" (a, b) guarantee more than it does '
                  '(spec.guarantee): cpu 10 (more than 8)',
                  'the children of queue "eng" (a, b) deserve more than it does '
                  '(spec.deserved): cpu 10 (more than 8)',
                  'queue "eng" has child queues (ml, web); only a leaf queue holds jobs']:
            rule = next(label for label, phrase in check.ACCEPTED_RULES if phrase and phrase in m)
            self.assertIn(rule, check.TREE_RULES, m)

    def reclaim_case(self, **a_spec):
        """Queue a (running 2 x 2 cpu / 1Gi) and b, whose job reclaims."""
        return snap(node("n", cpu="4", memory="16Gi"), queue("a", **a_spec), queue("b"),
                    *job("x", "a", cpu="2", node_name="n"), *job("y", "a", cpu="2", node_name="n"),
                    *job("t", "b", cpu="4"))

    def test_reclaim_never_takes_a_queue_below_its_guarantee(self):
        s = self.reclaim_case(guarantee={"memory": "2Gi"}, deserved={"cpu": "1"})
        one = {"cycles": [cycle((), [("x-0", "reclaim")])]}
        v, _ = safety(s, one, capacity=True)
        self.assertEqual(of_kind(v, "reclaim-guarantee"), ["queue/a"])
        self.assertIn("memory=1024.0Mi", v[0].detail)
        # Other reasons are not reclaim's; elastic is when the policy says so.
        for reason, reasons, n in (("preempt", ("reclaim",), 0), ("elastic", ("reclaim",), 0),
                                   ("elastic", ("reclaim", "elastic"), 1)):
            r = {"cycles": [cycle((), [("x-0", reason)])]}
            v, _ = safety(s, r, capacity=True, reclaim_reasons=reasons)
            self.assertEqual(len(of_kind(v, "reclaim-guarantee")), n, reason)
        # Down to the guarantee is fine.
        s = self.reclaim_case(guarantee={"memory": "1Gi", "cpu": "2"}, deserved={"cpu": "1"})
        self.assertEqual(safety(s, one, capacity=True)[0], [])
        v, _ = safety(s, {"cycles": [cycle((), [("x-0", "reclaim"), ("y-0", "reclaim")])]},
                           capacity=True)
        self.assertEqual(of_kind(v, "reclaim-guarantee"), ["queue/a"])
        # Only asked of policies listing capacity.
        self.assertEqual(safety(s, {"cycles": [cycle((), [("x-0", "reclaim"),
                                                                 ("y-0", "reclaim")])]})[0], [])

    def test_a_queue_within_its_deserved_share_lends_nothing(self):
        one = {"cycles": [cycle((), [("x-0", "reclaim")])]}
        s = self.reclaim_case(deserved={"cpu": "4", "memory": "2Gi"})
        v, _ = safety(s, one, capacity=True)
        self.assertEqual(of_kind(v, "reclaim-deserved"), ["queue/a"])
        # Above it in one resource, or holding what it does not deserve.
        for deserved in ({"cpu": "3", "memory": "2Gi"}, {"cpu": "4"}):
            s = self.reclaim_case(deserved=deserved)
            self.assertEqual(safety(s, one, capacity=True)[0], [], deserved)
        # A queue stating no deserved share deserves nothing.
        self.assertEqual(safety(self.reclaim_case(), one, capacity=True)[0], [])
        s = self.reclaim_case(deserved={"cpu": "4", "memory": "2Gi"})
        self.assertEqual(safety(s, one, capacity=False)[0], [])

    def test_policies(self):
        # (check_test has no policy files in its runfiles: as the presets
        # say it.)
        capacity = ('actions: "enqueue, allocate, backfill, reclaim"\ntiers:\n- plugins:\n'
                    '  - name: gang\n- plugins:\n  - name: capacity\n'
                    '    enableHierarchy: true\n')
        self.assertTrue(check.policy_has_plugin(capacity, "capacity"))
        self.assertFalse(check.policy_has_plugin(capacity, "proportion"))
        self.assertEqual(check.policy_reclaim_reasons(capacity), ("reclaim", "elastic"))
        fair = capacity.replace("reclaim", "reclaim, preempt")
        self.assertEqual(check.policy_reclaim_reasons(fair), ("reclaim",))
        self.assertEqual(check.policy_reclaim_reasons('actions: "enqueue, allocate"\n'),
                         ("reclaim",))
        self.assertTrue(check.policy_has_plugin("- name: capacity # a comment\n", "capacity"))


CPU = quantity("1")


def cpus(share):
    return float(share.get("cpu", 0))


def fill(total, rows, mode):
    """proportion_share.fill_level on cpu alone: rows (weight, guarantee,
    cap or None, demand) in cpus."""
    queues = [(w, {"cpu": quantity(g)}, {"cpu": quantity(c)} if c is not None else {},
               {"cpu": quantity(d)}) for w, g, c, d in rows]
    return [cpus(x) for x in proportion_share.fill_level({"cpu": quantity(total)}, queues, mode)]


def shares(s, where=None, deleted=()):
    """ProportionShares of snapshot s at `where` (the start by default)."""
    model = check.Model(s)
    where = model.initial_placement() if where is None else where
    return proportion_share.ProportionShares(model, where, set(deleted),
                                             reclaim_rules._cluster(model),
                                             reclaim_rules._all_nodes(model))


class WaterFillTest(unittest.TestCase):
    """Hand-computed water-fillings (proportion_share.py)."""

    def each_mode(self, total, rows, want, modes=proportion_share.MODES):
        for mode in modes:
            got = fill(total, rows, mode)
            for g, w in zip(got, want):
                self.assertAlmostEqual(g, w, places=6, msg="%s: %s" % (mode, got))

    def test_weights_one_to_two_with_enough_demand(self):
        self.each_mode(9, [(1, 0, None, 100), (2, 0, None, 100)], [3, 6])

    def test_capped_by_capability(self):
        # Equal weights, a asks for 100 but may hold 2: b gets the rest.
        self.each_mode(10, [(1, 0, 2, 100), (1, 0, None, 100)], [2, 8])

    def test_capped_by_demand_the_rest_flows_to_the_other(self):
        # a's weight would give it 8 of 12, it asks for 3: b gets 9.
        self.each_mode(12, [(2, 0, None, 3), (1, 0, None, 100)], [3, 9])
        # Both satisfied: each its demand, the rest stays unshared.
        self.each_mode(12, [(2, 0, None, 3), (1, 0, None, 4)], [3, 4])

    def test_a_guarantee_floor(self):
        # a is guaranteed 7 of 10: clamped on one water level (and
        # Volcano's loop) a gets 7, b 3; guarantees set aside first, a
        # 7 + 1.5; water-filled then raised, a 7 and b keeps 5.
        rows = [(1, 7, None, 100), (1, 0, None, 100)]
        self.each_mode(10, rows, [7, 3], ("clamp", "volcano"))
        self.each_mode(10, rows, [8.5, 1.5], ("reserve",))
        self.each_mode(10, rows, [7, 5], ("after",))
        # A guarantee below the water level changes nothing, but where
        # guarantees are set aside first (2 + 4).
        rows = [(1, 2, None, 100), (1, 0, None, 100)]
        self.each_mode(10, rows, [5, 5], ("clamp", "after", "volcano"))
        self.each_mode(10, rows, [6, 4], ("reserve",))
        # ProportionShares keeps bounds over the readings; b's cap on the
        # lo reading is the cluster less a's guarantee, 3.
        s = snap(node("n", cpu="10", memory="64Gi"), queue("a", guarantee={"cpu": "7"}),
                 queue("b"), *job("x", "a", cpu="100"), *job("y", "b", cpu="100"))
        sh = shares(s)
        self.assertEqual((cpus(sh.lo("a")), cpus(sh.hi("a"))), (7, 8.5))
        self.assertEqual((cpus(sh.lo("b")), cpus(sh.hi("b"))), (1.5, 5))

    def test_a_two_level_tree(self):
        # 12 cpus: eng and ops 6 each; eng's 6 split 1:2 between ml and web.
        items = [node("n", cpu="12", memory="64Gi"), queue("eng"), queue("ops"),
                 queue("ml", "eng"), queue("web", "eng")]
        items[4]["spec"]["weight"] = 2
        for name, q in (("m", "ml"), ("w", "web"), ("o", "ops")):
            items += job(name, q, cpu="20")
        sh = shares(snap(*items))
        for q, want in (("eng", 6), ("ops", 6), ("ml", 2), ("web", 4)):
            self.assertAlmostEqual(cpus(sh.lo(q)), want, places=6, msg=q)
            self.assertAlmostEqual(cpus(sh.hi(q)), want, places=6, msg=q)
        # A child capped by demand leaves the rest of its parent's share to
        # its sibling, not to the parent's sibling.
        ml_pod = next(o for o in items if o["metadata"]["name"] == "m-0")
        ml_pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
        sh = shares(snap(*items))
        for q, want in (("eng", 6), ("ops", 6), ("ml", 1), ("web", 5)):
            self.assertAlmostEqual(cpus(sh.lo(q)), want, places=6, msg=q)

    def test_demand_and_the_readings_left_open(self):
        # Demand: held and pending pods of valid jobs; a job short of pods
        # for its minimum counts only on the hi reading.
        s = snap(node("n", cpu="10", memory="64Gi"), queue("a"), queue("b"),
                 *job("x", "a", cpu="2", node_name="n"), *job("y", "a", cpu="1"),
                 *job("z", "b", cpu="100"), *job("short", "a", cpu="3", min_member=2))
        sh = shares(s)
        self.assertEqual((cpus(sh.lo("a")), cpus(sh.hi("a"))), (3, 5))
        # The implicit default queue, with a job, competes only on the lo
        # reading of the others.
        s["items"].append(pod("lone", cpu="100"))
        sh = shares(s)
        self.assertAlmostEqual(cpus(sh.lo("b")), 10 / 3, places=6)
        self.assertEqual(cpus(sh.hi("b")), 7)
        # A pod evicted during the replay is demand only on the hi reading
        # (without it, 4).
        sh = shares(s, where={}, deleted={"ns/x-0"})
        self.assertEqual((cpus(sh.lo("a")), cpus(sh.hi("a"))), (1, 5))
        # A tree with a fault is not judged.
        s = snap(node("n"), queue("a", "ghost"), *job("x", "a"))
        self.assertFalse(shares(s).judged)


def with_hogs(q1=None, hog_ns=None, hog_ann=None, tree=False, gang=None):
    """Node n (8 cpu) full of queue q1's four one-pod jobs h0..h3 (2 cpu
    each); queue q0 deserves 4 cpu and waits with gang g (two 1-cpu pods).
    q1: extra spec of q1; hog_ns / hog_ann: the hogs' namespace and
    annotations; tree: q0 and q1 under dept (which states nothing);
    gang: (pods, minMember) of one gang in place of the hogs."""
    dept = "dept" if tree else None
    items = [node("n", cpu="8", memory="32Gi"),
             queue("q0", dept, deserved={"cpu": "4"}), queue("q1", dept)]
    if tree:
        items.append(queue("dept"))
    items[2]["spec"].update(q1 or {})
    if gang:
        hogs = job("h", "q1", cpu="2", node_name="n", pods=gang[0], min_member=gang[1])
    else:
        hogs = [o for i in range(4) for o in job("h%d" % i, "q1", cpu="2", node_name="n")]
    for o in hogs:
        if o["kind"] == "Pod" and hog_ns:
            o["metadata"]["namespace"] = hog_ns
        if o["kind"] == "Pod" and hog_ann:
            o["metadata"].setdefault("annotations", {}).update(hog_ann)
    return snap(*items, *hogs, *job("g", "q0", pods=2, min_member=2))


def waiting(*names):
    return [{"name": "ns/" + n, "phase": "Inqueue", "message": ""} for n in names]


def quiet(n=5, podgroups=()):
    return [cycle(podgroups=podgroups) for _ in range(n)]


def liveness(s, cycles, **kw):
    kw.setdefault("capacity", True)
    kw.setdefault("reclaim", True)
    return check.check(s, {"cycles": cycles}, **kw)


def owed(s):
    return sorted(reclaim_liveness._owed_gangs(check.Model(s)))


class ReclaimLivenessTest(unittest.TestCase):
    def test_a_scheduler_that_never_reclaims_is_caught(self):
        s = with_hogs()
        self.assertEqual(owed(s), ["ns/g"])
        v, ex = liveness(s, quiet(podgroups=waiting("g")))
        self.assertEqual(kinds(v), ["reclaim-liveness"])
        self.assertEqual(v[0].obj, "ns/g")
        self.assertIn("queue q0", v[0].detail)
        self.assertIn("cpu=2000m", v[0].detail)      # the owed amount
        self.assertIn("ns/h", v[0].detail)           # what to take back
        self.assertEqual(ex["reclaim-liveness: owed"], 1)
        # Only asked of policies listing reclaim and capacity.
        self.assertEqual(liveness(s, quiet(), reclaim=False)[0], [])
        self.assertEqual(liveness(s, quiet(), capacity=False)[0], [])

    def test_reclaim_then_bind_passes(self):
        s = with_hogs()
        c = [cycle((), [("h0-0", "reclaim")]), cycle([("g-0", "n"), ("g-1", "n")])]
        v, ex = liveness(s, c + quiet(3))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: met"], 1)
        # Victims evicted in the last cycle: the gang binds in the next one;
        # idle-fitting-gang judges that room (still taken).
        v, ex = liveness(s, quiet(4) + [cycle((), [("h0-0", "reclaim")], waiting("g"))])
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: fits the idle room at the end"], 1)

    def test_a_message_naming_a_rule_excuses(self):
        msg = "pod ns/g-0 uses spec.resources, which Shoal does not implement yet"
        v, ex = liveness(with_hogs(), quiet(podgroups=[{"name": "ns/g", "phase": "Pending",
                                                        "message": msg}]))
        self.assertEqual(v, [])
        rule = next(label for label, phrase in check.ACCEPTED_RULES if phrase and phrase in msg)
        self.assertEqual(ex["reclaim-liveness: excused by " + rule], 1)

    def test_a_full_queue_only_where_the_oracle_finds_one(self):
        full = "waiting for admission: queue q0 is full (cpu would reach 6 of 4)"
        for phase, why in (("Pending", "no queue on Q's path is full"),
                           ("Inqueue", "a parent at its limit does not stop")):
            pg = [{"name": "ns/g", "phase": phase, "message": full}]
            v, _ = liveness(with_hogs(), quiet(podgroups=pg))
            self.assertEqual(kinds(v), ["reclaim-liveness"], phase)
            self.assertIn(why, v[0].detail)
        # Admission counts the minimums of gangs admitted before: q0's
        # capability, 4 cpu, holds o's 3 cpu (o fits no node).
        s = with_hogs(q1={})
        s["items"][1]["spec"]["capability"] = {"cpu": "4"}
        o = job("o", "q0", cpu="3")
        o[1]["spec"]["nodeSelector"] = {"zone": "nowhere"}
        s["items"] += o
        self.assertEqual(owed(s), ["ns/g"])
        pg = [{"name": "ns/g", "phase": "Pending", "message": full},
              {"name": "ns/o", "phase": "Inqueue", "message": ""}]
        v, ex = liveness(s, quiet(podgroups=pg))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: excused by " + check.FULL_RULE], 1)

    def test_only_what_reclaim_may_take_counts(self):
        for name, s in (
                ("not reclaimable", with_hogs(q1={"reclaimable": False})),
                ("within its deserved share", with_hogs(q1={"deserved": {"cpu": "8"}})),
                ("its guarantee", with_hogs(q1={"guarantee": {"resource": {"cpu": "8"}}})),
                ("not preemptable", with_hogs(hog_ann={"volcano.sh/preemptable": "false"})),
                ("not a boolean", with_hogs(hog_ann={"volcano.sh/preemptable": "maybe"})),
                ("kube-system", with_hogs(hog_ns="kube-system")),
                ("a gang at its minimum", with_hogs(gang=(4, 4)))):
            self.assertEqual(owed(s), [], name)
            self.assertEqual(liveness(s, quiet())[0], [], name)
        # Down to its deserved share or guarantee, a gang's pods beyond its
        # minimum, or marked preemptable.
        for s in (with_hogs(q1={"deserved": {"cpu": "6"}}),
                  with_hogs(q1={"guarantee": {"resource": {"cpu": "6"}}}),
                  with_hogs(gang=(4, 3)),
                  with_hogs(hog_ann={"volcano.sh/preemptable": "true"})):
            self.assertEqual(owed(s), ["ns/g"])
        # Room the gang's own queue would pass its deserved share with, or
        # that fits without taking anything back, is not owed by reclaim.
        s = with_hogs()
        s["items"][1]["spec"]["deserved"] = {"cpu": "1"}
        self.assertEqual(owed(s), [])
        s = with_hogs()
        s["items"][0]["status"]["allocatable"]["cpu"] = "10"
        self.assertEqual(owed(s), [])
        # A queue deserves at least its guarantee: q0, deserving memory and
        # guaranteed 1 cpu, is past its share holding 2 cpu.
        s = with_hogs()
        s["items"][0]["status"]["allocatable"]["cpu"] = "10"
        s["items"][1]["spec"].update(deserved={"memory": "8Gi"},
                                     guarantee={"resource": {"cpu": "1"}})
        s["items"] += job("mine", "q0", cpu="2", node_name="n")
        self.assertEqual(owed(s), [])
        s["items"][1]["spec"]["guarantee"]["resource"]["cpu"] = "4"
        self.assertEqual(owed(s), ["ns/g"])

    def test_room_lent_for_the_rest_of_the_replay(self):
        # Idle 2 cpu beside q1's running pod; q0's 3-cpu pod needs reclaim
        # too. Allocate lends the idle room to q1's waiting pod (the replay
        # keeps it placed, never a victim); taking back h0 alone is not
        # enough any more.
        s = snap(node("n", cpu="4", memory="32Gi"), queue("q0", deserved={"cpu": "3"}),
                 queue("q1"), *job("h0", "q1", cpu="2", node_name="n"), *job("p", "q1", cpu="2"),
                 *job("g", "q0", cpu="3"))
        self.assertEqual(owed(s), ["ns/g"])
        v, ex = liveness(s, [cycle([("p-0", "n")])] + quiet(4, waiting("g")))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: no room to take back at the end"], 1)
        # Without that, the room is still there to take back (and p waits
        # beside idle room it fits).
        v, _ = liveness(s, quiet(5, waiting("g", "p")))
        self.assertEqual(of_kind(v, "reclaim-liveness"), ["ns/g"])
        self.assertEqual(of_kind(v, "idle-fitting-gang"), ["ns/p"])

    def test_a_queue_that_reached_its_share_otherwise(self):
        s = with_hogs()
        s["items"] += job("o", "q0", cpu="4")
        self.assertEqual(owed(s), ["ns/g", "ns/o"])
        c = [cycle((), [("h0-0", "reclaim"), ("h1-0", "reclaim")]), cycle([("o-0", "n")])]
        v, ex = liveness(s, c + quiet(3, waiting("g")))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: queue took its share otherwise"], 1)
        self.assertEqual(ex["reclaim-liveness: met"], 1)

    def test_a_parent_at_its_limit(self):
        # dept states no deserved share: it has its children's, 4 cpu, and
        # holds 8. Victims come from under it, enough to bring it back
        # within 4 cpu with the gang (the README's "taking back in a tree").
        s = with_hogs(tree=True)
        self.assertEqual(owed(s), ["ns/g"])
        v, _ = liveness(s, quiet(podgroups=waiting("g")))
        self.assertEqual(kinds(v), ["reclaim-liveness"])
        self.assertIn("from under dept", v[0].detail)
        self.assertEqual(v[0].detail.count("ns/h"), 3)
        # Only a cousin (outside the parent at its limit) to take from: not
        # owed. q1 holds 4 cpu in a gang at its minimum, past its deserved
        # 2 cpu.
        s = snap(node("n", cpu="8", memory="32Gi"), queue("dept"),
                 queue("q0", "dept", deserved={"cpu": "2"}),
                 queue("q1", "dept", deserved={"cpu": "2"}), queue("c"),
                 *job("h", "q1", cpu="2", node_name="n", pods=2, min_member=2),
                 *[o for i in range(2) for o in job("c%d" % i, "c", cpu="2", node_name="n")],
                 *job("g", "q0", cpu="2"))
        self.assertEqual(owed(s), [])
        # With a deserved share dept states, it is not at its limit: the
        # cousin's pods may go.
        s["items"][1]["spec"]["deserved"] = {"cpu": "8"}
        self.assertEqual(owed(s), ["ns/g"])

    def test_the_implicit_default_queue_lends(self):
        s = snap(node("n", cpu="4", memory="32Gi"), queue("q0", deserved={"cpu": "2"}),
                 pod("lone", cpu="4", node_name="n"), *job("g", "q0", cpu="2"))
        self.assertEqual(owed(s), ["ns/g"])

    def test_generated_clusters_owe_room_now_and_then(self):
        # The property is not vacuous on run.py's clusters.
        seeds = [seed for seed in range(400)
                 if reclaim_liveness._owed_gangs(check.Model(generate.generate(seed)))]
        self.assertGreaterEqual(len(seeds), 5, seeds)

    def test_policies(self):
        self.assertEqual(check.policy_actions('actions: "enqueue, allocate, backfill, reclaim" '
                                              '# add reclaim action.\n'),
                         {"enqueue", "allocate", "backfill", "reclaim"})
        self.assertEqual(check.policy_actions("tiers: []\n"), set())


def starving(q1=None, extra=True):
    """with_hogs under proportion (spec.deserved is capacity's, not read):
    q0 also waits with job o (2 cpu, fitting no node), so it asks for 4
    cpu of the 8 and deserves them (weights 1:1); q1 holds all 8 in four
    2-cpu pods and deserves 4. Gang g (two 1-cpu pods) fits once one hog
    is taken back, and q1 stays above its share after it."""
    s = with_hogs(q1)
    del s["items"][1]["spec"]["deserved"]
    if extra:
        o = job("o", "q0", cpu="2")
        o[1]["spec"]["nodeSelector"] = {"zone": "nowhere"}
        s["items"] += o
    return s


def prop_liveness(s, cycles, **kw):
    kw.setdefault("capacity", False)
    kw.setdefault("proportion", True)
    return liveness(s, cycles, **kw)


def prop_owed(s):
    model = check.Model(s)
    return sorted(reclaim_liveness._owed_gangs(
        model, reclaim_rules._rules(model, "proportion", model.initial_placement(), set())))


class ProportionReclaimLivenessTest(unittest.TestCase):
    def test_a_starving_queue_is_owed_its_water_filled_share(self):
        s = starving()
        self.assertEqual(prop_owed(s), ["ns/g"])
        v, ex = prop_liveness(s, quiet(podgroups=waiting("g")))
        self.assertEqual(kinds(v), ["reclaim-liveness"])
        self.assertEqual(v[0].obj, "ns/g")
        self.assertIn("deserved between cpu=4000.0m", v[0].detail)
        self.assertIn("taking back ns/h", v[0].detail)
        self.assertEqual(ex["reclaim-liveness: owed"], 1)
        # Asked of policies listing reclaim and proportion (capacity's
        # shares when both are listed: q0 states 4 cpu there, and gets
        # nothing under capacity without it).
        self.assertEqual(prop_liveness(s, quiet(), reclaim=False)[0], [])
        self.assertEqual(prop_liveness(s, quiet(), proportion=False)[0], [])

    def test_the_gang_bound_after_taking_back(self):
        s = starving()
        c = [cycle((), [("h0-0", "reclaim")]), cycle([("g-0", "n"), ("g-1", "n")])]
        v, ex = prop_liveness(s, c + quiet(3))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: met"], 1)

    def test_no_lender_no_debt(self):
        # Without o, q0 deserves 2 cpu and q1 6: taking one hog would leave
        # q1 at its share, not above it (the README's "victims only while
        # their queue stays above deserved", read strictly).
        self.assertEqual(prop_owed(starving(extra=False)), [])
        # A stated deserved share is given as stated: such a cluster is not
        # judged. q1 keeps its guarantee (4Gi: each hog holds 1Gi of its
        # 4Gi), and a queue not reclaimable lends nothing.
        self.assertEqual(prop_owed(starving({"deserved": {"cpu": "8"}})), [])
        self.assertEqual(prop_owed(starving({"guarantee": {"resource": {"memory": "4Gi"}}})),
                         [])
        self.assertEqual(prop_owed(starving({"guarantee": {"resource": {"memory": "3Gi"}}})),
                         ["ns/g"])
        self.assertEqual(prop_owed(starving({"reclaimable": False})), [])
        # A guarantee of 8 cpu leaves q0 no share: nothing owed.
        self.assertEqual(prop_owed(starving({"guarantee": {"resource": {"cpu": "8"}}})), [])

    def test_the_taker_must_be_clearly_within_its_share(self):
        # q1's weight 3 leaves q0 2 cpu of the 8: its gang's 2 cpu and a
        # margin of one pod do not fit that.
        self.assertEqual(prop_owed(starving({"weight": 3})), [])
        # Nor 8/3 cpu, with a third queue asking for 4.
        s = starving()
        s["items"].insert(3, queue("q2"))
        s["items"] += job("z", "q2", cpu="4", memory="1Gi")
        s["items"][-1]["spec"]["nodeSelector"] = {"zone": "nowhere"}
        self.assertEqual(prop_owed(s), [])

    def test_a_share_reached_only_where_the_oracle_finds_it(self):
        msg = "waiting for admission: queue q0 has reached its deserved share (cpu 4)"
        pg = [{"name": "ns/g", "phase": "Pending", "message": msg}]
        v, _ = prop_liveness(starving(), quiet(podgroups=pg))
        self.assertEqual(kinds(v), ["reclaim-liveness"])
        self.assertIn("deserved share is reached, but", v[0].detail)
        # Admitted gang o holds 2 cpu of q0's 4 in admission: with g's 2
        # and a margin it is not clearly within.
        pg.append({"name": "ns/o", "phase": "Inqueue", "message": ""})
        v, ex = prop_liveness(starving(), quiet(podgroups=pg))
        self.assertEqual(v, [])
        self.assertEqual(ex["reclaim-liveness: excused by " + reclaim_liveness.SHARE_RULE], 1)
        # The phrase is no excuse under capacity, nor for idle room.
        self.assertNotIn(reclaim_liveness.SHARE_PHRASE,
                         [phrase for _, phrase in check.ACCEPTED_RULES])

    def test_a_jobs_surplus_is_its_smallest_pods(self):
        # q1's job j (minMember 2) runs pods of 0.5, 0.5 and 6 cpu; the
        # gang lacks 1 cpu. Which of j's pods is its surplus is not stated:
        # it may give up a 0.5-cpu one, which is not enough.
        def s(small, big):
            items = [node("n", cpu="8", memory="32Gi"), queue("q0"), queue("q1")]
            items += job("j", "q1", cpu=small, node_name="n", pods=2, min_member=2)
            items[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = big
            items += job("g", "q0", pods=2, min_member=2)
            o = job("o", "q0", cpu="2")
            o[1]["spec"]["nodeSelector"] = {"zone": "nowhere"}
            return snap(*items, *o, pod("j-2", cpu=small, group="j", node_name="n"))
        self.assertEqual(prop_owed(s("500m", "6")), [])
        # Pods of 1, 1 and 5 cpu: any one is enough.
        self.assertEqual(prop_owed(s("1", "5")), ["ns/g"])

    def test_the_minimum_is_the_largest_pods(self):
        # g's cheapest two pods would fit once a hog is taken back, its
        # two largest (3 cpu each) would not: which pods reclaim tries
        # first is not stated.
        s = starving()
        g = [o for o in s["items"] if o["metadata"]["name"] == "g-1"][0]
        for i, cpu in ((2, "3"), (3, "3")):
            s["items"].append(pod("g-%d" % i, cpu=cpu, group="g"))
        self.assertEqual(prop_owed(s), [])
        g["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
        self.assertEqual(reclaim_liveness._minimums(check.Model(s), [
            "ns/g-0", "ns/g-1", "ns/g-2", "ns/g-3"], 2), (["ns/g-0", "ns/g-1"],
                                                         ["ns/g-3", "ns/g-2"]))

    def test_the_pod_count_is_a_resource_of_the_shares(self):
        # A node of 4 pod slots, all q1's: q2's one-pod gang lacks a slot.
        # Water-filled by weight 3:4:1 over 4 pods, q2 deserves half a pod.
        def s(pods, cpu):
            items = [node("n", cpu=cpu, memory="64Gi", pods=pods), queue("q0"),
                     queue("q1"), queue("q2")]
            items[1]["spec"]["weight"], items[2]["spec"]["weight"] = 3, 4
            items += job("p", "q1", cpu="3", memory="4Gi", node_name="n", pods=4)
            x = job("x", "q0", cpu="6", pods=3, min_member=3)
            for o in x[1:]:
                o["spec"]["nodeSelector"] = {"zone": "nowhere"}
            return snap(*items, *x, *job("g", "q2", cpu="100m", memory="3Gi"))
        self.assertEqual(prop_owed(s("4", "16")), [])
        # Short of cpu rather than of slots, it is owed.
        self.assertEqual(prop_owed(s("110", "12")), ["ns/g"])

    def test_generated_clusters_owe_room_under_proportion(self):
        seeds = [seed for seed in range(300) if prop_owed(generate.generate(seed))]
        self.assertGreaterEqual(len(seeds), 3, seeds)

    def test_policies(self):
        fair = ('actions: "enqueue, allocate, backfill, reclaim, preempt"\ntiers:\n- plugins:\n'
                '  - name: gang\n- plugins:\n  - name: proportion\n')
        self.assertTrue(check.policy_has_plugin(fair, "proportion"))
        self.assertIn("reclaim", check.policy_actions(fair))


class GeneratedTreesTest(unittest.TestCase):
    def test_about_half_the_seeds_are_trees_mostly_sound(self):
        trees = faulty = held_jobs = levels3 = roots = 0
        for seed in range(200):
            s = generate.generate(seed)
            model = check.Model(s)
            tree = model.tree
            if not tree.on:
                self.assertFalse(any(o["kind"] == "Queue" and "parent" in o["spec"]
                                     for o in s["items"]), seed)
                continue
            trees += 1
            roots += "root" in tree.spec
            levels3 += any(len(p) >= 4 for p in tree.path.values())
            faulty += bool(tree.faulty)
            bad = [g for g, q in model.queue_of_group.items()
                   if q in tree.held and (q in tree.spec or q == "root")]
            held_jobs += bool(bad)
            if not tree.faulty:
                # Jobs only in leaves, unless a job was put in a parent on purpose.
                self.assertLessEqual(len(bad), 1, seed)
        self.assertTrue(70 <= trees <= 130, trees)
        self.assertGreater(roots, 5)
        self.assertGreater(levels3, 5)
        self.assertTrue(1 <= faulty <= 15, faulty)
        self.assertLess(held_jobs, 20)

    def test_tree_seeds_keep_the_rest_of_the_seed(self):
        # The queue tree draws from its own stream: with it or without it a
        # seed's other objects are the same, but for the queues, a job
        # moved into a parent queue on purpose, and running work added
        # after everything else (_hog).
        changed = 0
        for seed in range(60):
            # (Without DRA, added after the hogs: GeneratedDevicesTest.)
            a = generate.generate(seed, queue_trees=False, dra=False)["items"]
            b = generate.generate(seed, dra=False)["items"]
            qa = [o for o in a if o["kind"] != "Queue"]
            qb = [o for o in b if o["kind"] != "Queue"]
            self.assertEqual(len(qb[:len(qa)]), len(qa), seed)
            for x, y in zip(qa, qb):
                if x != y:
                    self.assertEqual(x["kind"], "PodGroup", seed)
                    x = dict(x, spec=dict(x["spec"], queue=y["spec"]["queue"]))
                    self.assertEqual(x, y, seed)
            for o in qb[len(qa):]:
                self.assertTrue(o["metadata"]["name"].startswith("pg-hog"), seed)
            # Leaf queues keep their names, weights and capabilities.
            leaves = {o["metadata"]["name"]: o["spec"] for o in a if o["kind"] == "Queue"}
            for o in b:
                if o["kind"] == "Queue" and o["metadata"]["name"] in leaves:
                    old = leaves[o["metadata"]["name"]]
                    self.assertEqual({k: o["spec"].get(k) for k in old}, old, seed)
            changed += a != b
        self.assertTrue(15 <= changed <= 45, changed)


# --- the network (HyperNodes) and spec.networkTopology ---

def rnode(name, cpu="4", labels=None, taints=None, ready=True):
    n = node(name, cpu=cpu, labels=labels, taints=taints)
    n["status"]["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
    return n


def hyper(name, tier, *members, tier_name=None):
    spec = {"tier": tier, "members": list(members)}
    if tier_name:
        spec["tierName"] = tier_name
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
            "metadata": {"name": name}, "spec": spec}


def m_node(name):
    return {"type": "Node", "selector": {"exactMatch": {"name": name}}}


def m_regex(pattern, typ="Node"):
    return {"type": typ, "selector": {"regexMatch": {"pattern": pattern}}}


def m_labels(**labels):
    return {"type": "Node", "selector": {"labelMatch": {"matchLabels": labels}}}


def m_hyper(name):
    return {"type": "HyperNode", "selector": {"exactMatch": {"name": name}}}


def netgroup(name, min_member, **nt):
    pg = podgroup(name, min_member)
    pg["spec"]["networkTopology"] = nt
    return pg


def fabric(*extra, fault=None):
    """n0..n5, 4 cpu each: rack0 = n0, n1 (exact names); rack1 = n2, n3
    (a pattern); rack2 = n4 (labels); spine0 over rack0 and rack1, spine1
    over rack2; n5 in no rack. Tier names rack and spine."""
    nodes = [rnode("n%d" % i, labels={"grp": "g%d" % i}) for i in range(6)]
    racks = [hyper("rack0", 1, m_node("n0"), m_node("n1"), tier_name="rack"),
             hyper("rack1", 1, m_regex("^n[23]$"), tier_name="rack"),
             hyper("rack2", 1, m_labels(grp="g4"), tier_name="rack")]
    if fault == "node-in-two-racks":
        racks[1]["spec"]["members"].append(m_node("n1"))
    if fault == "missing-node":
        racks[2]["spec"]["members"].append(m_node("ghost"))
    spines = [hyper("spine0", 2, m_hyper("rack0"), m_hyper("rack1"), tier_name="spine"),
              hyper("spine1", 2, m_regex("^rack2$", "HyperNode"), tier_name="spine")]
    return snap(*(nodes + racks + spines + list(extra)))


def gang(name, n, min_member, on=(), cpu="2", **nt):
    """A PodGroup with n pods (the first len(on) placed on those nodes)."""
    items = [netgroup(name, min_member, **nt) if nt else podgroup(name, min_member)]
    for i in range(n):
        items.append(pod("%s-%d" % (name, i), cpu=cpu, group=name,
                         node_name=on[i] if i < len(on) else None))
    return items


def net_check(s, rep, **kw):
    return check.check(s, rep, **kw)


class NetworkReadingTest(unittest.TestCase):
    def test_domains_from_exact_names_patterns_and_labels(self):
        net = network_rules.Network(fabric()["items"])
        strict, lenient = net.readings
        self.assertEqual(net.faults, [])
        self.assertEqual(strict, lenient)
        self.assertEqual(strict["rack0"], {"n0", "n1"})
        self.assertEqual(strict["rack1"], {"n2", "n3"})
        self.assertEqual(strict["rack2"], {"n4"})
        self.assertEqual(strict["spine0"], {"n0", "n1", "n2", "n3"})
        self.assertEqual(strict["spine1"], {"n4"})
        self.assertEqual((net.cluster_tier_lo, net.cluster_tier_hi), (3, 3))
        self.assertEqual(net.limit({"mode": "hard", "highestTierName": "spine"}), 2)
        self.assertIsNone(net.limit({"mode": "hard", "highestTierName": "block"}))
        self.assertIsNone(net.limit({"mode": "hard"}))
        self.assertEqual(net.holder({"n0", "n3"}, 2), ("spine0", 2))
        self.assertIsNone(net.holder({"n0", "n3"}, 1))
        self.assertEqual(net.holder({"n0", "n5"}, 3), ("the whole cluster", 3))
        self.assertIsNone(net.holder({"n0", "n5"}, 2))

    def test_node_in_two_racks_is_in_neither(self):
        net = network_rules.Network(fabric(fault="node-in-two-racks")["items"])
        strict, lenient = net.readings
        self.assertEqual(len(net.faults), 1)
        self.assertIn("node n1 is claimed by rack0, rack1", net.faults[0])
        self.assertEqual(strict["rack0"], {"n0"})
        self.assertEqual(strict["rack1"], {"n2", "n3"})
        # The spine over both: without n1 read strictly, with it leniently.
        self.assertEqual(strict["spine0"], {"n0", "n2", "n3"})
        self.assertEqual(lenient["spine0"], {"n0", "n1", "n2", "n3"})
        self.assertIsNone(net.holder({"n0", "n1"}, 1))
        self.assertEqual(net.holder({"n0", "n1"}, 2), ("spine0", 2))

    def test_member_that_does_not_exist_selects_nothing(self):
        net = network_rules.Network(fabric(fault="missing-node")["items"])
        self.assertEqual(len(net.faults), 1)
        self.assertIn("hypernode rack2: member", net.faults[0])
        self.assertEqual(net.readings[0]["rack2"], {"n4"})

    def test_no_hypernodes_the_cluster_is_tier_one(self):
        net = network_rules.Network([rnode("n0")])
        self.assertFalse(net.on)
        self.assertEqual(net.holder({"n0"}, 1), ("the whole cluster", 1))


def sub_grouped(name, replicas, min_member, size, min_groups, **nt):
    """A PodGroup of `replicas` sub-groups of two pods (label
    SUB_GROUP_LABEL), subGroupSize `size`, minSubGroups `min_groups`, its
    sub-groups' networkTopology `nt`."""
    items = gang(name, 2 * replicas, min_member)
    policy = {"name": "replica", "matchLabelKeys": [generate.SUB_GROUP_LABEL],
              "subGroupSize": size, "minSubGroups": min_groups}
    if nt:
        policy["networkTopology"] = nt
    items[0]["spec"]["subGroupPolicy"] = [policy]
    for i, p in enumerate(items[1:]):
        p["metadata"].setdefault("labels", {})[generate.SUB_GROUP_LABEL] = str(i // 2)
    return items


class WorkloadModelTest(unittest.TestCase):
    def test_workload_gangs_are_groups_and_basic_pods_are_alone(self):
        items = [rnode("n0"),
                 {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                  "metadata": {"name": "w", "namespace": "ns",
                               "annotations": {"scheduling.volcano.sh/queue-name": "q"}},
                  "spec": {"podGroups": [{"name": "workers",
                                          "policy": {"gang": {"minCount": 2}}},
                                         {"name": "solo", "policy": {"basic": {}}}]}}]
        for name, group in (("a", "workers"), ("b", "workers"), ("c", "solo")):
            p = pod(name)
            p["spec"]["workloadRef"] = {"name": "w", "podGroup": group}
            items.append(p)
        m = check.Model(snap(*items), "shoal")
        self.assertEqual(m.groups["ns/w/workers"]["min"], 2)
        self.assertEqual(sorted(m.groups["ns/w/workers"]["pods"]), ["ns/a", "ns/b"])
        self.assertEqual(m.queue_of_group["ns/w/workers"], "q")
        self.assertEqual(m.group_of["ns/c"], "ns/c")
        # Half a gang bound is a partial gang, as for a PodGroup.
        v, _ = net_check(snap(*items), report({"binds": [("ns/a", "n0")]}))
        self.assertIn("partial-gang", kinds(v))

    def test_some_seeds_write_gangs_as_workloads(self):
        seen = 0
        for seed in range(40):
            items = generate.generate(seed)["items"]
            names = {(o["metadata"]["namespace"], o["metadata"]["name"])
                     for o in items if o["kind"] == "Workload"}
            seen += len(names)
            for o in items:
                ref = o.get("spec", {}).get("workloadRef") if o["kind"] == "Pod" else None
                if ref:
                    self.assertIn((o["metadata"]["namespace"], ref["name"]), names)
        self.assertGreater(seen, 3)


class SubGroupTest(unittest.TestCase):
    def test_each_sub_group_inside_one_rack(self):
        s = fabric(*sub_grouped("g", 2, 4, 2, 2, mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1"),
                                              ("ns/g-2", "n2"), ("ns/g-3", "n3")]}))
        self.assertEqual(v, [])
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n2"),
                                              ("ns/g-2", "n1"), ("ns/g-3", "n3")]}))
        self.assertEqual(kinds(v), ["network-sub-group-hard"])
        self.assertIn("sub-group replica/0 has pods on n0, n2", str(v[0]))

    def test_a_job_starts_with_its_min_sub_groups_whole(self):
        s = fabric(*sub_grouped("g", 2, 2, 2, 2))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-2", "n1")]}))
        self.assertEqual(kinds(v), ["sub-group-minimum"])
        self.assertIn("started with 0 whole sub-group(s) of policy replica, minSubGroups is 2",
                      str(v[0]))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n0"),
                                              ("ns/g-2", "n1"), ("ns/g-3", "n1")]}))
        self.assertEqual(v, [])


class NetworkHardTest(unittest.TestCase):
    def test_gang_across_two_racks_under_tier_one_fails(self):
        s = fabric(*gang("g", 2, 2, mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n2")]}))
        self.assertEqual(kinds(v), ["network-hard"])
        self.assertIn("the narrowest holding them all: spine0, tier 2", str(v[0]))

    def test_gang_inside_one_rack_passes(self):
        s = fabric(*gang("g", 2, 2, mode="hard", highestTierAllowed=1))
        v, ex = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1")]}))
        self.assertEqual(v, [])
        self.assertEqual(ex["network: hard gangs with pods bound (judged by network-hard)"], 1)

    def test_tier_two_spans_racks_of_one_spine_not_two_spines(self):
        ok = fabric(*gang("g", 2, 2, mode="hard", highestTierName="spine"))
        v, _ = net_check(ok, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n3")]}))
        self.assertEqual(v, [])
        v, _ = net_check(ok, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n4")]}))
        self.assertEqual(kinds(v), ["network-hard"])
        # A node in no rack is outside every domain of tier 1 and 2.
        v, _ = net_check(ok, report({"binds": [("ns/g-0", "n5"), ("ns/g-1", "n5")]}))
        self.assertEqual(kinds(v), ["network-hard"])

    def test_limit_reaching_the_whole_cluster_allows_anywhere(self):
        s = fabric(*gang("g", 2, 2, mode="hard", highestTierAllowed=3))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n4"), ("ns/g-1", "n5")]}))
        self.assertEqual(v, [])

    def test_placed_pods_count_and_a_scattered_gang_may_not_grow(self):
        s = fabric(*gang("g", 3, 1, on=["n2"], mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report({"binds": [("ns/g-1", "n0")]}))
        self.assertEqual(kinds(v), ["network-hard"])
        v, _ = net_check(s, report({"binds": [("ns/g-1", "n3")]}))
        self.assertEqual(v, [])
        s = fabric(*gang("g", 3, 1, on=["n0", "n2"], mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report({"binds": [("ns/g-2", "n2")]}))
        self.assertEqual(kinds(v), ["network-hard"])
        v, _ = net_check(s, report({}))
        self.assertEqual(v, [])

    def test_node_claimed_twice_is_outside_both_racks(self):
        s = fabric(*gang("g", 2, 2, mode="hard", highestTierAllowed=1), fault="node-in-two-racks")
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1")]}))
        self.assertEqual(kinds(v), ["network-hard"])
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n0")]}))
        self.assertEqual(v, [])

    def test_partial_gang_under_a_constraint(self):
        s = fabric(*gang("g", 3, 3, mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1")]}))
        self.assertIn("partial-gang", kinds(v))


class NetworkLivenessTest(unittest.TestCase):
    WAIT = {"podGroups": [{"name": "ns/g", "phase": "Inqueue",
                           "message": "no network domain holds it"}]}

    def test_minimum_fitting_no_allowed_domain_waits_by_the_rule(self):
        # 3 pods of 3 cpu: each rack's nodes hold one each, so only a
        # spine holds three; the limit is tier 1.
        s = fabric(*gang("g", 3, 3, cpu="3", mode="hard", highestTierAllowed=1))
        v, ex = net_check(s, report(self.WAIT))
        self.assertEqual(v, [])
        self.assertEqual(ex[check.NETWORK_HARD_NO_DOMAIN], 1)

    def test_minimum_fitting_a_rack_must_not_wait(self):
        s = fabric(*gang("g", 3, 2, cpu="3", mode="hard", highestTierAllowed=1))
        v, _ = net_check(s, report(self.WAIT))
        self.assertEqual(kinds(v), ["idle-fitting-gang"])
        # Under tier 2 three fit spine0.
        s = fabric(*gang("g", 3, 3, cpu="3", mode="hard", highestTierAllowed=2))
        v, _ = net_check(s, report(self.WAIT))
        self.assertEqual(kinds(v), ["idle-fitting-gang"])

    def test_room_only_beside_the_placed_pods_counts(self):
        # One pod already on n4 (rack2, 4 cpu): the next 3-cpu pod fits only
        # another rack.
        s = fabric(*gang("g", 2, 2, on=["n4"], cpu="3", mode="hard", highestTierAllowed=1))
        v, ex = net_check(s, report(self.WAIT))
        self.assertEqual([x for x in v if x.kind == "idle-fitting-gang"], [])
        self.assertEqual(ex[check.NETWORK_HARD_NO_DOMAIN], 1)

    def test_faulty_description_is_not_judged(self):
        s = fabric(*gang("g", 3, 2, cpu="3", mode="hard", highestTierAllowed=1),
                   fault="missing-node")
        v, ex = net_check(s, report(self.WAIT))
        self.assertEqual(v, [])
        self.assertEqual(ex[check.NETWORK_UNJUDGED], 1)


class NetworkSoftTest(unittest.TestCase):
    JUDGED = "network: soft gangs judged (an empty lowest-tier domain held their minimum)"

    def test_scattered_though_an_empty_rack_held_it_fails(self):
        s = fabric(*gang("g", 2, 2, mode="soft"))
        v, ex = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n4")]}))
        self.assertEqual(kinds(v), ["network-soft-one-domain"])
        self.assertIn("no one domain holds minMember 2 of them (at most 1", str(v[0]))
        self.assertIn("rack0 (tier 1: n0, n1) had no pod at the start", str(v[0]))
        self.assertEqual(ex[self.JUDGED], 1)

    def test_inside_one_domain_passes(self):
        s = fabric(*gang("g", 2, 2, mode="soft"))
        v, ex = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1")]}))
        self.assertEqual(v, [])
        self.assertEqual(ex["network: soft gangs judged, all placed in one lowest-tier domain"],
                         1)
        # Only "not scattered" is claimed: a spine passes too.
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n2")]}))
        self.assertEqual(v, [])

    def test_pods_above_the_minimum_may_go_elsewhere(self):
        s = fabric(*gang("g", 3, 2, mode="soft"))
        v, ex = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n1"),
                                               ("ns/g-2", "n4")]}))
        self.assertEqual(v, [])
        self.assertEqual(ex["network: soft gangs judged, pods above the minimum outside its "
                            "domain"], 1)
        v, _ = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n4"),
                                              ("ns/g-2", "n5")]}))
        self.assertEqual(kinds(v), ["network-soft-one-domain"])

    def test_not_judged_without_a_sure_empty_domain(self):
        scattered = {"binds": [("ns/g-0", "n0"), ("ns/g-1", "n4")]}
        # Every rack holds a pod at the start.
        busy = [pod("o-%d" % i, cpu="100m", scheduler="other", node_name=n)
                for i, n in enumerate(["n0", "n2", "n4"])]
        v, ex = net_check(fabric(*(gang("g", 2, 2, mode="soft") + busy)), report(scattered))
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))
        # The reservation plugin may hold the empty rack.
        v, ex = net_check(fabric(*gang("g", 2, 2, mode="soft")), report(scattered),
                          reservation=True)
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))
        # Another job took room in the one empty rack in cycle 1.
        v, ex = net_check(fabric(*(gang("g", 2, 2, mode="soft") + busy[1:] +
                                   [pod("x", cpu="1")])),
                          report({"binds": scattered["binds"] + [("ns/x", "n1")]}))
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))
        # Three pods of 3 cpu, minMember 3: no rack's nodes hold three (one
        # a node).
        v, ex = net_check(fabric(*gang("g", 3, 3, cpu="3", mode="soft")),
                          report({"binds": scattered["binds"] + [("ns/g-2", "n5")]}))
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))
        # A pod placed before: the gang is not judged.
        v, ex = net_check(fabric(*gang("g", 3, 1, on=["n5"], mode="soft")),
                          report({"binds": [("ns/g-1", "n0"), ("ns/g-2", "n4")]}))
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))

    def test_a_node_the_gang_may_not_use_spoils_the_rack(self):
        s = fabric(*gang("g", 2, 2, mode="soft"))
        for o in s["items"]:
            if o["kind"] == "Node" and o["metadata"]["name"] in ("n1", "n3"):
                o["spec"]["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
            if o["kind"] == "Node" and o["metadata"]["name"] == "n4":
                o["status"]["conditions"][0]["status"] = "False"
        v, ex = net_check(s, report({"binds": [("ns/g-0", "n0"), ("ns/g-1", "n2")]}))
        self.assertEqual((v, ex[self.JUDGED]), ([], 0))


class GeneratedNetworkTest(unittest.TestCase):
    def test_a_third_of_the_seeds_have_a_network_mostly_sound(self):
        seeds = faulty = hard = soft = named = 0
        tiers = collections.Counter()
        kinds_ = collections.Counter()
        for seed in range(300):
            s = generate.generate(seed)
            net = network_rules.Network(s["items"])
            pgs = [o for o in s["items"] if o["kind"] == "PodGroup"]
            modes = [(o["spec"].get("networkTopology") or {}).get("mode") for o in pgs]
            if not net.on:
                self.assertEqual(set(modes), {None}, seed)
                continue
            seeds += 1
            faulty += bool(net.faults)
            hard += modes.count("hard")
            soft += modes.count("soft")
            named += sum("highestTierName" in (o["spec"].get("networkTopology") or {})
                         for o in pgs)
            tiers[max(net.tier.values())] += 1
            for o in s["items"]:
                if o["kind"] == "HyperNode":
                    for m in o["spec"]["members"]:
                        kinds_[(m["type"], next(iter(m["selector"])))] += 1
            if not net.faults:
                # Every limit is readable; every tier from 1 to the top has
                # a domain.
                self.assertEqual(sorted(set(net.tier.values())),
                                 list(range(1, max(net.tier.values()) + 1)), seed)
                for o in pgs:
                    nt = o["spec"].get("networkTopology")
                    if nt and nt["mode"] == "hard":
                        self.assertIsNotNone(net.limit(nt), seed)
        self.assertTrue(70 <= seeds <= 140, seeds)
        self.assertTrue(1 <= faulty <= 15, faulty)
        self.assertEqual(set(tiers), {2, 3, 4})
        self.assertGreater(hard, soft)
        self.assertGreater(soft, 20)
        self.assertGreater(named, 5)
        self.assertEqual(set(kinds_), {("Node", "exactMatch"), ("Node", "regexMatch"),
                                       ("Node", "labelMatch"), ("HyperNode", "exactMatch"),
                                       ("HyperNode", "regexMatch")})

    def test_network_seeds_keep_the_rest_of_the_seed(self):
        # The network draws from its own stream: with it or without it a
        # seed's other objects are the same, but for the HyperNodes, the
        # label they select nodes by, spare nodes, spec.networkTopology and
        # sub-groups (spec.subGroupPolicy, the label that forms them).
        changed = spare = grouped = 0
        for seed in range(60):
            a = generate.generate(seed, networks=False, workloads=False)["items"]
            b = generate.generate(seed, workloads=False)["items"]
            names = {o["metadata"]["name"] for o in a if o["kind"] == "Node"}
            extra = [o for o in b if o["kind"] == "Node" and o["metadata"]["name"] not in names]
            for o in extra:
                self.assertEqual(o["spec"], {}, seed)
            spare += bool(extra)
            b = [o for o in b if o["kind"] != "HyperNode" and o not in extra]
            for o in b:
                labels = o["metadata"].get("labels", {})
                labels.pop(generate.NETWORK_LABEL, None)
                labels.pop(generate.SUB_GROUP_LABEL, None)
                if "labels" in o["metadata"] and not labels:
                    # A pod that had no labels but the sub-group's.
                    del o["metadata"]["labels"]
                if o["kind"] == "PodGroup":
                    changed += o["spec"].pop("networkTopology", None) is not None
                    grouped += o["spec"].pop("subGroupPolicy", None) is not None
            self.assertEqual(a, b, seed)
        self.assertGreater(changed, 5)
        self.assertGreater(grouped, 3)
        self.assertGreater(spare, 3)


# --- Dynamic Resource Allocation (device_rules.py) ---

H100 = "device.attributes['gpu.example.com'].model == 'h100'"


def gpu(name, model="a100", index=0, memory="40Gi"):
    return {"name": name, "attributes": {"model": {"string": model}, "index": {"int": index}},
            "capacity": {"memory": {"value": memory}}}


def dra_cluster(extra=()):
    """n1 (gpu, one h100 and one a100), n2 (cpu, one a100 80Gi), a fabric
    slice for node-type=gpu (one h100); the driver's class; gang g of two
    pods (minMember 2), each with its own claim of one device, a's asking
    for an h100."""
    items = [node("n1", labels={"node-type": "gpu"}), node("n2", labels={"node-type": "cpu"}),
             generate._dra_slice("n1-gpu", "n1", [gpu("gpu-0", "h100", 0, "80Gi"),
                                                  gpu("gpu-1", "a100", 1)], nodeName="n1"),
             generate._dra_slice("n2-gpu", "n2", [gpu("gpu-0", "a100", 0, "80Gi")],
                                 nodeName="n2"),
             generate._dra_slice("fabric", "fabric", [gpu("fgpu-0", "h100", 0, "80Gi")],
                                 nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [
                                     {"key": "node-type", "operator": "In",
                                      "values": ["gpu"]}]}]}),
             {"kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
              "spec": {"selectors": [{"cel": {"expression":
                                              "device.driver == 'gpu.example.com'"}}]}},
             podgroup("g", 2)]
    for name, sels in (("a", [H100]), ("b", [])):
        items.append(generate._dra_claim(name + "-gpu", "ns", "gpu.example.com", 1, sels))
        p = pod(name, group="g")
        generate._dra_use(p, "gpu", name + "-gpu")
        items.append(p)
    return snap(*(items + list(extra)))


def allocation(claim, pod_key, *devices):
    return {"claim": claim, "pod": pod_key, "node": "",
            "devices": [{"request": "gpu", "driver": "gpu.example.com", "pool": pool,
                         "device": d} for pool, d in devices]}


def dra_report(*cycles):
    """Cycles of (binds, claims)."""
    rep = report(*[{"binds": b} for b, _ in cycles])
    for c, (_, claims) in zip(rep["cycles"], cycles):
        c["claims"] = list(claims)
    return rep


def device_violations(s, rep):
    v, _ = check.check(s, rep)
    return [x for x in v if x.kind.startswith("device-") or x.kind == "partial-gang"]


WHOLE = [("ns/a", "n1"), ("ns/b", "n2")]


class DeviceRulesTest(unittest.TestCase):
    def test_a_queue_device_quota_passed_by_the_cycles_binds(self):
        whole = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                    allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        capped = dra_cluster([queue("q", capability={"deviceclass/gpu.example.com": "1"})])
        v = device_violations(capped, whole)
        self.assertEqual([str(x) for x in v], [
            "device-queue-quota: queue/q: after cycle 1: pods of queues q hold 2 device(s) of "
            "deviceclass/gpu.example.com, past its capability 1 (bound this cycle: ['ns/a', "
            "'ns/b'])"])
        room = dra_cluster([queue("q", capability={"deviceclass/gpu.example.com": "2"})])
        self.assertEqual(device_violations(room, whole), [])

    def test_whole_gang_with_fitting_devices_passes(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        self.assertEqual(device_violations(dra_cluster(), rep), [])

    def test_fabric_device_reached_by_label_passes(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("fabric", "fgpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        self.assertEqual(device_violations(dra_cluster(), rep), [])

    def test_a_device_given_twice(self):
        rep = dra_report(([("ns/a", "n1"), ("ns/b", "n1")],
                          [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                           allocation("ns/b-gpu", "ns/b", ("n1", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "device-double-allocation: device/gpu.example.com/n1/gpu-0: cycle 1: allocated to "
            "ns/b-gpu (pod ns/b), but held by ns/a-gpu since cycle 1"])

    def test_a_device_a_snapshot_claim_holds(self):
        held = generate._dra_claim("held", "ns", "gpu.example.com", 1, [])
        other = pod("other", node_name="n2", scheduler="default-scheduler")
        other["metadata"]["uid"] = "pod-other"
        generate._dra_allocate(held, "n2", ["gpu-0"], "gpu", [other])
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        v = device_violations(dra_cluster([held, other]), rep)
        self.assertEqual([str(x) for x in v], [
            "device-double-allocation: device/gpu.example.com/n2/gpu-0: cycle 1: allocated to "
            "ns/b-gpu (pod ns/b), but held by ns/held since the snapshot"])

    def test_a_selector_violated(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-1")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "device-selector: ns/a-gpu: cycle 1: device gpu.example.com/n1/gpu-1 for request "
            "gpu fails request selector `%s`" % H100])

    def test_a_class_selector_violated(self):
        s = dra_cluster()
        for o in s["items"]:
            if o["kind"] == "DeviceClass":
                o["spec"]["selectors"].append({"cel": {"expression": "device.attributes["
                                                       "'gpu.example.com'].index >= 2"}})
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        self.assertEqual(kinds(device_violations(s, rep)), ["device-selector"])

    def test_a_device_the_node_does_not_reach(self):
        # n2 is no gpu node: the fabric slice does not select it.
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("fabric", "fgpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "device-reach: ns/b-gpu: cycle 1: device gpu.example.com/fabric/fgpu-0 is on a "
            "slice node n2 (where pod ns/b is bound) does not reach",
            "device-reach: ns/b: cycle 1: bound to n2, which does not reach device(s) "
            "gpu.example.com/fabric/fgpu-0 of its claim ns/b-gpu (allocated in cycle 1)"])

    def test_a_snapshot_allocation_confines_its_pod(self):
        s = dra_cluster()
        for o in s["items"]:
            if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "b-gpu":
                generate._dra_allocate(o, "n1", ["gpu-1"], "gpu", [])
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"))]))
        v = device_violations(s, rep)
        self.assertEqual([str(x) for x in v], [
            "device-reach: ns/b: cycle 1: bound to n2, which does not reach device(s) "
            "gpu.example.com/n1/gpu-1 of its claim ns/b-gpu (allocated in the snapshot)"])

    def test_the_wrong_number_of_devices(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"),
                                             ("fabric", "fgpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "device-count: ns/a-gpu: cycle 1: request gpu got 2 device(s), asks for exactly 1"])

    def test_a_claim_allocated_for_a_pod_not_bound(self):
        rep = dra_report((WHOLE[:1], [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                      allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertIn("device-unbound-claim: ns/b-gpu: cycle 1: allocated for pod ns/b, which "
                      "was not bound in this cycle", [str(x) for x in v])

    def test_a_claim_allocated_for_a_pod_that_does_not_name_it(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/b", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertIn("device-unbound-claim: ns/a-gpu: cycle 1: allocated for pod ns/b, which "
                      "does not name it (it names ['ns/b-gpu'])", [str(x) for x in v])

    def test_a_half_gang_with_claims(self):
        rep = dra_report((WHOLE[:1], [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "partial-gang: ns/g: after cycle 1: 1 pods bound, minMember is 2",
            "device-partial-gang: ns/g: cycle 1: claims allocated, but 1 pod(s) placed after "
            "it, minMember 2"])

    def test_a_gang_already_whole_may_grow_with_claims(self):
        s = dra_cluster([pod("c", group="g", node_name="n2"), pod("d", group="g", node_name="n2")])
        rep = dra_report((WHOLE[:1], [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"))]))
        self.assertEqual(device_violations(s, rep), [])

    def test_a_pod_bound_without_its_claim(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"))]))
        v = device_violations(dra_cluster(), rep)
        self.assertEqual([str(x) for x in v], [
            "device-unallocated-claim: ns/b: cycle 1: bound to n2, but its claim ns/b-gpu "
            "holds no devices (not allocated in the snapshot, earlier, or in this cycle)"])

    def test_a_claim_allocated_twice(self):
        rep = dra_report((WHOLE, [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                                  allocation("ns/b-gpu", "ns/b", ("n2", "gpu-0"))]),
                         ([], [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0"))]))
        self.assertIn("device-double-allocation", kinds(device_violations(dra_cluster(), rep)))

    def test_a_shared_claim_listed_for_each_pod(self):
        s = dra_cluster([generate._dra_claim("shared", "ns", "gpu.example.com", 1, [])])
        for o in s["items"]:
            if o["kind"] == "Pod":
                generate._dra_use(o, "shared", "shared")
        both = ("n1", "gpu-1")
        rep = dra_report(([("ns/a", "n1"), ("ns/b", "n1")],
                          [allocation("ns/a-gpu", "ns/a", ("n1", "gpu-0")),
                           allocation("ns/shared", "ns/a", both),
                           allocation("ns/b-gpu", "ns/b", ("fabric", "fgpu-0")),
                           allocation("ns/shared", "ns/b", both)]))
        v = device_violations(s, rep)
        self.assertEqual(kinds(v), ["device-claim-rewritten"])
        # Listed once, it passes.
        rep["cycles"][0]["claims"].pop()
        self.assertEqual(device_violations(s, rep), [])


class DeviceLivenessTest(unittest.TestCase):
    def test_a_gang_whose_claims_cannot_be_served_may_wait(self):
        # b's claim asks for two h100: n1 has one, the fabric one more, but
        # a's h100 leaves too few.
        s = dra_cluster()
        for o in s["items"]:
            if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "b-gpu":
                o["spec"]["devices"]["requests"][0]["exactly"].update(
                    count=2, selectors=[{"cel": {"expression": H100}}])
        v, ex = check.check(s, dra_report(([], [])))
        self.assertEqual(v, [])
        self.assertEqual(ex[check.DEVICES_NO_FIT], 1)

    def test_a_gang_whose_claims_are_served_must_not_wait(self):
        v, _ = check.check(dra_cluster(), dra_report(([], [])))
        self.assertEqual(kinds(v), ["idle-fitting-gang"])
        # a on n1 takes its h100 (the fabric one would do too), b goes anywhere.
        self.assertIn("ns/a->n1", str(v[0]))

    def test_a_confined_pod_fits_only_where_its_claim_is(self):
        # b's claim already holds n1's a100: b fits n1 only, and n1 has room.
        s = dra_cluster()
        for o in s["items"]:
            if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "b-gpu":
                generate._dra_allocate(o, "n1", ["gpu-1"], "gpu", [])
        v, _ = check.check(s, dra_report(([], [])))
        self.assertIn("ns/b->n1", str(v[0]))


class DeviceReadingTest(unittest.TestCase):
    def test_selector_meanings(self):
        dev = device_rules.Devices(dra_cluster()["items"])
        h100, a100 = "gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"
        big = "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0"
        low = "device.attributes['gpu.example.com'].index < 4"
        self.assertTrue(dev.selector(H100, h100))
        self.assertFalse(dev.selector(H100, a100))
        self.assertTrue(dev.selector(big, h100))
        self.assertFalse(dev.selector(big, a100))
        self.assertTrue(dev.selector(low, a100))
        self.assertIsNone(dev.selector("device.attributes['x'].y == 1", h100))
        self.assertTrue(dev.reaches("gpu.example.com/fabric/fgpu-0", "n1"))
        self.assertFalse(dev.reaches("gpu.example.com/fabric/fgpu-0", "n2"))
        self.assertFalse(dev.reaches(h100, "n2"))

    def test_node_selector_terms(self):
        n = node("n1", labels={"zone": "a"})
        m = device_rules.node_selector_matches
        self.assertTrue(m({"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}, n))
        self.assertFalse(m({"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "NotIn", "values": ["a"]}]}]}, n))
        self.assertTrue(m({"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
            {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}, n))
        self.assertFalse(m({"nodeSelectorTerms": [{}]}, n))


class GeneratedDevicesTest(unittest.TestCase):
    def test_three_seeds_in_ten_have_devices_judged_by_meaning(self):
        seeds = claims = shared = held = confined = fabric = running = 0
        for seed in range(300):
            s = generate.generate(seed)
            dev = device_rules.Devices(s["items"])
            if not dev.on:
                continue
            seeds += 1
            claims += len(dev.claims)
            fabric += any(not o["spec"].get("nodeName") for o in dev.slices)
            users = collections.Counter(c for cs in dev.pod_claims_of.values() for c in cs)
            shared += sum(1 for n in users.values() if n > 1)
            held += len(dev.initial)
            # Every selector has a stated meaning; no device is held twice
            # in the snapshot, and each is on the node of its claim's pods.
            for exprs in list(dev.classes.values()) + [
                    r[2] for c in dev.claims for r in dev.requests(c).values()]:
                for e in exprs:
                    self.assertIn(e, generate.DEVICE_SELECTORS)
            # (Shares of one device are device_sharing_rules' to judge.)
            taken = [device_rules._dkey(r["driver"], r["pool"], r["device"])
                     for res in dev.initial_results.values() for r in res if not r.get("shareID")]
            self.assertEqual(len(taken), len(set(taken)), seed)
            pods = {check.key(o): o for o in s["items"] if o["kind"] == "Pod"}
            for k, cks in dev.pod_claims_of.items():
                n = pods[k]["spec"].get("nodeName")
                for ck in cks:
                    if ck in dev.initial:
                        confined += not n
                        if n:
                            running += 1
                            self.assertTrue(all(dev.reaches(d, n) for _, d in dev.initial[ck]))
                            self.assertTrue(all(dev.serves(ck, r, d) for r, d in dev.initial[ck]))
        self.assertTrue(60 <= seeds <= 120, seeds)
        self.assertGreater(claims, 300)
        self.assertGreater(shared, 10)
        self.assertGreater(held, 20)
        self.assertGreater(fabric, 10)
        self.assertGreater(confined, 3)
        self.assertGreater(running, 10)

    def test_dra_seeds_keep_the_rest_of_the_seed(self):
        for seed in range(60):
            a = generate.generate(seed, dra=False)["items"]
            b = generate.generate(seed, sharing=False)["items"]
            b = [o for o in b if not o.get("apiVersion", "").startswith("resource.k8s.io/")]
            for o in b:
                if o["kind"] == "Pod":
                    o["spec"].pop("resourceClaims", None)
                # A device quota is the DRA seed's too.
                cap = o.get("spec", {}).get("capability") if o["kind"] == "Queue" else None
                if cap is not None:
                    for r in [r for r in cap if r.startswith("deviceclass/")]:
                        del cap[r]
                    if not cap:
                        del o["spec"]["capability"]
            self.assertEqual(a, b, seed)

    def test_some_dra_seeds_cap_a_claiming_queue_in_devices(self):
        capped = 0
        for seed in range(200):
            for o in generate.generate(seed)["items"]:
                if o["kind"] == "Queue" and any(
                        r.startswith("deviceclass/")
                        for r in (o["spec"].get("capability") or {})):
                    capped += 1
        self.assertGreater(capped, 5)


# Devices shared the 1.36 ways (device_sharing_rules.py): their tests live
# beside this file and run with it.
from device_sharing_test import (CapacityTest, CountersTest, GeneratedSharingTest,  # noqa
                                 HeldWholeTest, ShareTest, SharingLivenessTest, TaintTest)


# Making room (making_room_rules.py, device_rules.Freeing, the streams of
# generate_making_room.py): their tests live beside this file too, in
# making_room_test.py, which imports this file's helpers (so this file does
# not import it: no cycle, imports_test.py); check_test.sh runs both.
if __name__ == "__main__":
    unittest.main(verbosity=2)
