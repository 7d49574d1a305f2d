"""Queues and fairness, shown through the real shoal-scheduler binary on
real manifests (`--snapshot --cycles=N --output=json`)."""

import collections
import unittest

from cluster import node, pod, podgroup, priority_class, queue, replay

FAIR_SHARE = open("policies/fair-share.yaml").read()
DEFAULT = open("policies/default.yaml").read()


def cpu_milli(q):
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def bound_by(report, objects, key):
    """Sums cpu (milli) of every pod bound over all cycles, grouped by
    key(pod object)."""
    pods = {o["metadata"]["namespace"] + "/" + o["metadata"]["name"]: o
            for o in objects if o["kind"] == "Pod"}
    out = collections.Counter()
    for cycle in report["cycles"]:
        for b in cycle["binds"]:
            p = pods[b["pod"]]
            out[key(p)] += cpu_milli(p["spec"]["containers"][0]["resources"]["requests"]["cpu"])
    return out


def single_pod_jobs(prefix, queue_name, count, requests, ns="default"):
    objs = []
    for i in range(count):
        name = "%s-%d" % (prefix, i)
        objs.append(podgroup(name, 1, queue_name, ns=ns, created=i))
        objs.append(pod(name + "-0", requests, group=name, ns=ns, created=i))
    return objs


class QueueShareTest(unittest.TestCase):
    def test_weights_1_2_1_split_the_cluster_25_50_25(self):
        objs = [node("n%d" % i, cpu="16", memory="64Gi") for i in range(4)]
        objs += [queue("a", 1), queue("b", 2), queue("c", 1)]
        for q in "abc":
            objs += single_pod_jobs("job-" + q, q, 40, {"cpu": "1", "memory": "4Gi"}, ns=q)
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        by_queue = bound_by(report, objs, lambda p: p["metadata"]["namespace"])
        # 64 cpus: 16 / 32 / 16, within one pod (1 cpu).
        for q, want in (("a", 16000), ("b", 32000), ("c", 16000)):
            self.assertLessEqual(abs(by_queue[q] - want), 1000, (q, by_queue))

    def test_capability_caps_a_queue_even_when_the_cluster_is_idle(self):
        objs = [node("n%d" % i) for i in range(4)]
        objs += [queue("capped", 1, capability={"cpu": "8"}), queue("idle", 1)]
        objs += single_pod_jobs("job", "capped", 40, {"cpu": "1", "memory": "1Gi"})
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        self.assertEqual(bound_by(report, objs, lambda p: "all")["all"], 8000)

    def test_guarantee_is_honoured_under_contention(self):
        objs = [node("n%d" % i) for i in range(4)]  # 64 cpus
        objs += [queue("small", 1, guarantee={"cpu": "40"}), queue("big", 3)]
        objs += single_pod_jobs("s", "small", 64, {"cpu": "1", "memory": "1Gi"}, ns="small")
        objs += single_pod_jobs("b", "big", 64, {"cpu": "1", "memory": "1Gi"}, ns="big")
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        by_queue = bound_by(report, objs, lambda p: p["metadata"]["namespace"])
        # Weights alone would give small 16; its guarantee says 40.
        self.assertEqual(by_queue["small"], 40000, by_queue)
        self.assertEqual(by_queue["big"], 24000, by_queue)

    def test_drf_equalises_dominant_shares_within_one_task(self):
        # 64 cpu, 256Gi. cpu-heavy pods are 2/64 of the cpu, mem-heavy pods
        # 8/256 of the memory: each task is 1/32 of its job's dominant
        # resource, and both jobs want more than the cluster has.
        objs = [node("n%d" % i, cpu="32", memory="128Gi") for i in range(2)]
        objs += [podgroup("cpu-heavy", 1), podgroup("mem-heavy", 1, created=1)]
        objs += [pod("cpu-heavy-%d" % i, {"cpu": "2", "memory": "2Gi"}, group="cpu-heavy")
                 for i in range(40)]
        objs += [pod("mem-heavy-%d" % i, {"cpu": "1", "memory": "8Gi"}, group="mem-heavy",
                     created=1) for i in range(40)]
        report, _ = replay(objs, policy=FAIR_SHARE)
        count = collections.Counter(b["pod"].rsplit("-", 1)[0] for b in report["cycles"][0]["binds"])
        cpu_share = count["default/cpu-heavy"] * 2 / 64.0
        mem_share = count["default/mem-heavy"] * 8 / 256.0
        self.assertGreater(count["default/cpu-heavy"], 15, count)
        self.assertLessEqual(abs(cpu_share - mem_share), 1 / 32.0 + 1e-9,
                             (count, cpu_share, mem_share))


class FairAdmissionTest(unittest.TestCase):
    def test_admission_is_fair_across_queues_and_leaves_no_idle_room(self):
        # Issue 12, defect 1: with the default policy, admission used to let
        # queue qa's jobs in far past its share; they sat Inqueue, holding
        # the overcommit room, and qc never got a pod: 18 of 40 cpus ran.
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(5)]  # 40 cpus
        objs += [queue("qa", 1), queue("qb", 2), queue("qc", 1)]
        for q in ("qa", "qb", "qc"):
            objs += single_pod_jobs("job-" + q, q, 40, {"cpu": "1", "memory": "1Gi"}, ns=q)
        report, _ = replay(objs, cycles=4, policy=DEFAULT)
        by_queue = bound_by(report, objs, lambda p: p["metadata"]["namespace"])
        self.assertEqual(by_queue, {"qa": 10000, "qb": 20000, "qc": 10000})
        last = {pg["name"]: pg for pg in report["cycles"][-1]["podGroups"]}
        waiting = last["qa/job-qa-39"]
        self.assertEqual(waiting["phase"], "Pending")
        # The cluster is full: the borrowing pass (where qa's deserved share
        # no longer holds it) finds no room to promise, and says so.
        self.assertEqual(
            waiting["message"],
            "waiting for admission: the gang's minimum does not fit what the cluster can still "
            "promise (cpu needs 1, 0 left; idle x overcommit-factor 1.2, less gangs already "
            "admitted)")
        # From the first cycle on: qa's deserved share held it back in the
        # first pass only; the borrowing pass admitted past it until the
        # overcommit promise ran out, and allocate placed none of that
        # (the first pass filled the cluster at the deserved shares).
        first = {pg["name"]: pg for pg in report["cycles"][0]["podGroups"]}
        self.assertEqual(first["qa/job-qa-39"]["message"], waiting["message"])

    def test_an_admission_that_placed_nothing_is_renewed_when_shares_change(self):
        # qa was alone and got 40 jobs admitted (Inqueue) of which 10 run;
        # then qb and qc arrive. qa's 30 unplaced admissions must not keep
        # the room from them.
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(5)]
        objs += [queue("qa", 1), queue("qb", 2), queue("qc", 1)]
        for i in range(40):
            name = "job-qa-%d" % i
            objs.append(podgroup(name, 1, "qa", ns="qa", phase="Inqueue", created=i))
            objs.append(pod(name + "-0", {"cpu": "1", "memory": "1Gi"}, group=name, ns="qa",
                            node_name="n0" if i < 8 else ("n1" if i < 10 else None), created=i))
        for q in ("qb", "qc"):
            objs += single_pod_jobs("job-" + q, q, 40, {"cpu": "1", "memory": "1Gi"}, ns=q)
        report, _ = replay(objs, cycles=4, policy=DEFAULT)
        by_queue = bound_by(report, objs, lambda p: p["metadata"]["namespace"])
        self.assertEqual(by_queue, {"qb": 20000, "qc": 10000})
        last = {pg["name"]: pg for pg in report["cycles"][-1]["podGroups"]}
        self.assertEqual(last["qa/job-qa-20"]["phase"], "Pending")

    def test_a_podgroup_without_pods_is_admitted_on_its_min_resources(self):
        # Issue 12, defect 10: Volcano's job controller creates a Job's pods
        # only once its PodGroup leaves Pending.
        objs = [node("n0", cpu="8", memory="32Gi"), queue("default", 1)]
        objs.append(podgroup("vcjob", 4, min_resources={"cpu": "4", "memory": "4Gi"}))
        objs.append(podgroup("too-big", 4, created=1, min_resources={"cpu": "40"}))
        report, _ = replay(objs, cycles=1, policy=DEFAULT)
        groups = {pg["name"]: pg for pg in report["cycles"][0]["podGroups"]}
        self.assertEqual(groups["default/vcjob"]["phase"], "Inqueue")
        self.assertEqual(groups["default/too-big"]["phase"], "Pending")
        self.assertEqual(groups["default/too-big"]["message"],
                         "waiting for admission: the gang's minimum does not fit what the cluster "
                         "can still promise (cpu needs 40, 5600m left; idle x overcommit-factor "
                         "1.2, less gangs already admitted)")


class ReclaimTest(unittest.TestCase):
    def test_a_queue_takes_back_what_it_lent_without_breaking_gangs(self):
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(4)]  # 32 cpu
        objs += [queue("a", 1), queue("b", 1)]
        # Queue a fills the idle cluster: two gangs of 8 (minMember 8) and
        # 16 lone pods.
        for j in range(2):
            name = "a-gang-%d" % j
            objs.append(podgroup(name, 8, "a", ns="a", phase="Running", created=j))
            objs += [pod("%s-%d" % (name, i), {"cpu": "1", "memory": "1Gi"}, group=name, ns="a",
                         node_name="n%d" % j, created=j) for i in range(8)]
        for i in range(16):
            name = "a-lone-%d" % i
            objs.append(podgroup(name, 1, "a", ns="a", phase="Running", created=10 + i))
            objs.append(pod(name, {"cpu": "1", "memory": "1Gi"}, group=name, ns="a",
                            node_name="n%d" % (2 + i // 8), created=10 + i))
        # Queue b's gang of 8 arrives.
        objs.append(podgroup("b-gang", 8, "b", ns="b", created=100))
        objs += [pod("b-gang-%d" % i, {"cpu": "1", "memory": "1Gi"}, group="b-gang", ns="b",
                     created=100) for i in range(8)]
        report, _ = replay(objs, cycles=3, policy=FAIR_SHARE)
        evictions = [e for c in report["cycles"] for e in c["evictions"]]
        self.assertEqual(len(evictions), 8, evictions)
        self.assertTrue(all(e["reason"] == "reclaim" for e in evictions), evictions)
        self.assertTrue(all(e["pod"].startswith("a/a-lone-") for e in evictions), evictions)
        last = {g["name"]: g for g in report["cycles"][-1]["podGroups"]}
        self.assertEqual((last["b/b-gang"]["phase"], last["b/b-gang"]["scheduled"]), ("Running", 8))
        for j in range(2):  # the gangs were not touched
            self.assertEqual(last["a/a-gang-%d" % j]["scheduled"], 8)
        # Nothing more is evicted once b has its share.
        self.assertEqual(report["cycles"][-1]["evictions"], [])


class PreemptTest(unittest.TestCase):
    def objects(self, preemption_policy=None, urgent_pods=8):
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(2)]  # 16 cpu
        objs += [priority_class("low", 10), priority_class("high", 1000)]
        # Low priority fills the cluster: on n0 two elastic jobs (minMember
        # 1 of 4 pods), on n1 eight lone pods.
        for j in range(2):
            name = "low-elastic-%d" % j
            objs.append(podgroup(name, 1, phase="Running", priority_class_name="low", created=j))
            objs += [pod("%s-%d" % (name, i), {"cpu": "1", "memory": "1Gi"}, group=name,
                         node_name="n0", priority=10, priority_class_name="low", created=j)
                     for i in range(4)]
        for i in range(8):
            name = "low-lone-%d" % i
            objs.append(podgroup(name, 1, phase="Running", priority_class_name="low", created=5))
            objs.append(pod(name, {"cpu": "1", "memory": "1Gi"}, group=name, node_name="n1",
                            priority=10, priority_class_name="low", created=5))
        objs.append(podgroup("urgent", urgent_pods, phase="Inqueue", priority_class_name="high",
                             created=50))
        objs += [pod("urgent-%d" % i, {"cpu": "1", "memory": "1Gi"}, group="urgent", priority=1000,
                     priority_class_name="high", preemption_policy=preemption_policy, created=50)
                 for i in range(urgent_pods)]
        return objs

    def test_high_priority_gang_evicts_exactly_enough_surplus_first(self):
        report, _ = replay(self.objects(), cycles=2, policy=FAIR_SHARE)
        evictions = report["cycles"][0]["evictions"]
        self.assertEqual(len(evictions), 8, evictions)
        # The elastic jobs' surplus (3 each) goes first, with reason
        # "elastic"; then lone pods, with reason "preempt".
        elastic = [e for e in evictions if e["pod"].startswith("default/low-elastic-")]
        lone = [e for e in evictions if e["pod"].startswith("default/low-lone-")]
        self.assertEqual(len(elastic), 6, evictions)
        self.assertEqual(len(lone), 2, evictions)
        self.assertTrue(all(e["reason"] == "elastic" for e in elastic))
        self.assertTrue(all(e["reason"] == "preempt" for e in lone))
        lost = collections.Counter(e["pod"].rsplit("-", 1)[0] for e in elastic)
        self.assertEqual(sorted(lost.values()), [3, 3])  # each keeps its minimum
        urgent = [g for g in report["cycles"][1]["podGroups"] if g["name"] == "default/urgent"][0]
        self.assertEqual((urgent["phase"], urgent["scheduled"]), ("Running", 8))

    def test_preemption_policy_never_evicts_nothing(self):
        report, _ = replay(self.objects("Never"), cycles=2, policy=FAIR_SHARE)
        self.assertEqual([e for c in report["cycles"] for e in c["evictions"]], [])
        urgent = [g for g in report["cycles"][1]["podGroups"] if g["name"] == "default/urgent"][0]
        self.assertEqual(urgent["scheduled"], 0)
        self.assertIn("8/8 tasks in gang unschedulable", urgent["message"])


def evicted(report):
    return sorted(e["pod"] for c in report["cycles"] for e in c["evictions"])


def lone(name, cpu, node_name=None, priority=10, pc="low", **kw):
    return pod(name, {"cpu": cpu, "memory": "1Gi"}, node_name=node_name, priority=priority,
               priority_class_name=pc, **kw)


class VictimRulesTest(unittest.TestCase):
    """Issue 12, defects 6-9: who may be evicted, and who may evict."""

    def classes(self):
        return [priority_class("low", 10), priority_class("high", 1000)]

    def test_a_pod_marked_not_preemptable_is_never_a_victim(self):
        objs = [node("n0", cpu="4", memory="32Gi")] + self.classes()
        objs.append(lone("keep", "2", "n0", annotations={"volcano.sh/preemptable": "false"}))
        objs.append(lone("also-keep", "1", "n0", labels={"volcano.sh/preemptable": "false"}))
        objs.append(lone("go", "1", "n0"))
        objs.append(lone("urgent", "2", priority=1000, pc="high", created=5))
        report, _ = replay(objs, cycles=1, policy=FAIR_SHARE)
        # Unmarked pods may go (Volcano's default); "go" alone frees 1 of
        # the 2 cpus needed, so nothing is evicted and urgent waits.
        self.assertEqual(evicted(report), [])
        objs[-1] = lone("urgent", "1", priority=1000, pc="high", created=5)
        report, _ = replay(objs, cycles=1, policy=FAIR_SHARE)
        self.assertEqual(evicted(report), ["default/go"])

    def test_a_best_effort_pod_preempts_only_best_effort_pods(self):
        objs = [node("n0", cpu="4", memory="32Gi", pods="2")] + self.classes()
        objs.append(lone("burstable", "1", "n0"))
        objs.append(pod("best-effort", {}, node_name="n0", priority=10, priority_class_name="low"))
        objs.append(pod("urgent-be", {}, priority=1000, priority_class_name="high", created=5))
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        self.assertEqual(evicted(report), ["default/best-effort"])
        self.assertEqual([b["pod"] for b in report["cycles"][1]["binds"]], ["default/urgent-be"])

    def test_preemption_policy_never_is_taken_from_the_priority_class(self):
        objs = [node("n0", cpu="4", memory="32Gi")]
        objs += [priority_class("low", 10), priority_class("polite", 1000, "Never")]
        objs += [lone("low-%d" % i, "2", "n0") for i in range(2)]
        # No spec.preemptionPolicy on the pod, as in a hand-written dump.
        objs.append(lone("polite", "2", priority=1000, pc="polite", created=5))
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        self.assertEqual(evicted(report), [])

    def test_preempt_keeps_the_queue_within_its_capability(self):
        # Volcano issue #3161: the queue holds its capability (4 cpu) in
        # low-priority pods; a high-priority pod of the same queue must take
        # its 2 cpu from them, not from the idle half of the node.
        objs = [node("n0", cpu="8", memory="32Gi"), queue("capped", 1, capability={"cpu": "4"})]
        objs += self.classes()
        for i in range(4):
            objs.append(podgroup("low-%d" % i, 1, "capped", phase="Running", created=i))
            objs.append(pod("low-%d" % i, {"cpu": "1", "memory": "1Gi"}, group="low-%d" % i,
                            node_name="n0", priority=10, priority_class_name="low", created=i))
        objs.append(podgroup("urgent", 1, "capped", phase="Inqueue", priority_class_name="high",
                             created=10))
        objs.append(pod("urgent", {"cpu": "2", "memory": "1Gi"}, group="urgent", priority=1000,
                        priority_class_name="high", created=10))
        report, _ = replay(objs, cycles=2, policy=FAIR_SHARE)
        self.assertEqual(evicted(report), ["default/low-2", "default/low-3"])
        self.assertEqual(report["cycles"][1]["binds"], [{"pod": "default/urgent", "node": "n0"}])


class QueuePriorityTest(unittest.TestCase):
    """Issue 12, defect 8: Queue spec.priority."""

    def test_a_higher_priority_queue_goes_first(self):
        objs = [node("n0", cpu="4", memory="32Gi")]
        objs.append(pod("other", {"cpu": "2"}, node_name="n0", scheduler="default-scheduler"))
        objs += [queue("a-low", 1), queue("b-high", 1, priority=10)]
        for q in ("a-low", "b-high"):
            objs += single_pod_jobs("job-" + q, q, 4, {"cpu": "1", "memory": "1Gi"}, ns=q)
        report, _ = replay(objs, cycles=1, policy=DEFAULT)
        by_queue = bound_by(report, objs, lambda p: p["metadata"]["namespace"])
        self.assertEqual(by_queue, {"b-high": 2000})

    def test_reclaim_takes_from_the_lower_priority_queue_first(self):
        # qa (priority 5) and qb (priority 1) are both above their share;
        # qc's pod takes its room from qb, although qa's pods are newer
        # (which alone would make them the first to go).
        objs = [node("n0", cpu="8", memory="32Gi")]
        objs += [queue("qa", 1, priority=5), queue("qb", 1, priority=1), queue("qc", 1)]
        for q, created in (("qb", 0), ("qa", 10)):
            for i in range(4):
                name = "%s-%d" % (q, i)
                objs.append(podgroup(name, 1, q, ns=q, phase="Running", created=created + i))
                objs.append(pod(name, {"cpu": "1", "memory": "1Gi"}, group=name, ns=q,
                                node_name="n0", created=created + i))
        objs += single_pod_jobs("c", "qc", 1, {"cpu": "1", "memory": "1Gi"}, ns="qc")
        report, _ = replay(objs, cycles=1, policy=FAIR_SHARE)
        self.assertEqual(evicted(report), ["qb/qb-3"])


class NothingIgnoredTest(unittest.TestCase):
    """A pod field that bears on placement and that Shoal does not implement
    keeps its job waiting, named; it is never placed as if it were absent."""

    def test_unimplemented_fields_and_scheduling_gates_keep_the_job_waiting(self):
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(3)]
        gated = pod("gated", {"cpu": "1"}, created=5)
        gated["spec"]["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
        claims = pod("dra", {"cpu": "1"}, created=6)
        claims["spec"]["resources"] = {"requests": {"cpu": "1"}}
        objs += [gated, claims, pod("plain", {"cpu": "1"}, created=7)]
        report, _ = replay(objs, cycles=2, policy=DEFAULT)
        binds = [b["pod"] for c in report["cycles"] for b in c["binds"]]
        self.assertEqual(binds, ["default/plain"])
        groups = {pg["name"]: pg["message"] for pg in report["cycles"][-1]["podGroups"]}
        self.assertEqual(groups["default/gated"],
                         "pod default/gated has scheduling gates (kueue.x-k8s.io/admission); it "
                         "waits until they are removed")
        self.assertEqual(groups["default/dra"],
                         "pod default/dra uses spec.resources, which Shoal does not "
                         "implement yet; it waits rather than be placed as if that were absent")

    def torch_job(self, nodes):
        # torch.distributed on the host network: every worker binds 29500,
        # and another scheduler's pod already holds it on n0.
        objs = [node("n%d" % i, cpu="8", memory="32Gi") for i in range(nodes)]
        other = pod("other", {"cpu": "1"}, node_name="n0", scheduler="default-scheduler")
        other["spec"]["containers"][0]["ports"] = [{"containerPort": 29500, "hostPort": 29500}]
        objs += [other, podgroup("torch", 3)]
        for i in range(3):
            p = pod("torch-%d" % i, {"cpu": "1"}, group="torch", created=i)
            # The port is bound by a sidecar (a restartable init container).
            p["spec"]["initContainers"] = [{"name": "rendezvous", "image": "busybox",
                                            "restartPolicy": "Always",
                                            "ports": [{"containerPort": 29500, "hostPort": 29500}]}]
            objs.append(p)
        return objs

    def test_host_ports_are_free_on_every_node_a_gang_uses(self):
        report, _ = replay(self.torch_job(4), cycles=1, policy=DEFAULT)
        binds = sorted((b["node"], b["pod"]) for b in report["cycles"][0]["binds"])
        self.assertEqual([n for n, _ in binds], ["n1", "n2", "n3"])
        report, _ = replay(self.torch_job(3), cycles=1, policy=DEFAULT)
        self.assertEqual(report["cycles"][0]["binds"], [])
        torch = [g for g in report["cycles"][0]["podGroups"] if g["name"] == "default/torch"][0]
        self.assertEqual(torch["message"],
                         "3/3 tasks in gang unschedulable: 0/3 nodes are available: 3 node(s) "
                         "didn't have free ports for the requested pod ports.")


class AdmissionTest(unittest.TestCase):
    def test_default_policy_explains_what_blocks_admission(self):
        objs = [node("n0", cpu="8", memory="32Gi")]
        objs.append(podgroup("big", 2, min_resources={"cpu": "20"}))
        objs += [pod("big-%d" % i, {"cpu": "10"}, group="big") for i in range(2)]
        report, _ = replay(objs, policy=DEFAULT)
        g = report["cycles"][0]["podGroups"][0]
        self.assertEqual(g["phase"], "Pending")
        self.assertEqual(g["message"],
                         "waiting for admission: the gang's minimum does not fit what the cluster "
                         "can still promise (cpu needs 20, 9600m left; idle x overcommit-factor "
                         "1.2, less gangs already admitted)")

    def test_missing_and_closed_queues_are_named(self):
        objs = [node("n0"), queue("shut", state="Closed")]
        objs += [podgroup("lost", 1, "nowhere"), pod("lost-0", {"cpu": "1"}, group="lost")]
        objs += [podgroup("late", 1, "shut"), pod("late-0", {"cpu": "1"}, group="late")]
        report, _ = replay(objs, policy=FAIR_SHARE)
        msgs = {g["name"]: g["message"] for g in report["cycles"][0]["podGroups"]}
        self.assertEqual(msgs["default/lost"],
                         'queue "nowhere" does not exist; create it or change spec.queue')
        self.assertEqual(msgs["default/late"], 'queue "shut" is closed and admits no new work')
        self.assertEqual(report["cycles"][0]["binds"], [])



class AdmissionAfterRestartTest(unittest.TestCase):
    def test_a_gang_partly_bound_before_a_restart_is_admitted_and_completed(self):
        # An exactly full fit: 200 cpus, a gang of 200 of which 9 were bound
        # by a scheduler that then died before writing the PodGroup's phase.
        # What the gang holds must not count twice against the queue and
        # the cluster.
        objs = [node("n%d" % i, cpu="8", memory="64Gi") for i in range(25)]
        objs.append(podgroup("big", 200, phase="Pending"))
        objs += [pod("big-%d" % i, {"cpu": "1", "memory": "1Gi"}, group="big",
                     node_name=None if i >= 9 else ("n0" if i < 8 else "n1"))
                 for i in range(200)]
        report, _ = replay(objs, cycles=1)
        self.assertEqual(len(report["cycles"][0]["binds"]), 191)
        (group,) = report["cycles"][0]["podGroups"]
        self.assertEqual((group["phase"], group["scheduled"]), ("Running", 200))

if __name__ == "__main__":
    unittest.main(verbosity=2)
