"""Gangs exactly as real clients write them (e2e/fixtures/clients: Kubeflow
training-operator and Trainer, KubeRay, Spark, JobSet, LeaderWorkerSet, the
last two also as their Kubernetes 1.37 controllers write Workloads,
PodGroups and a CompositePodGroup tree; each file's header names the source
it follows), replayed by the real binary under every shipped policy. From
the replay report, for every gang:

* a gang that fits gets every pod bound (its whole minimum at least);
* a gang that does not fit beside the others gets none, in no cycle: after
  every cycle a gang holds either none of its pods or at least its minimum.
  Which of two gangs that each fit alone goes first: the one of higher
  priority, or, under a policy with the reservation plugin, the one that
  has waited past its waitLimit (each fixture's older gang has);
* a PodGroup whose controller creates its pods only once the PodGroup is
  admitted (training-operator with Volcano) is admitted, phase Inqueue;
* a gang whose minResources is more than admission may promise (Spark's
  reservation), or that reservation holds behind an older gang, is never
  admitted, and none of its pods bound, under a policy that admits by
  resources (overcommit or proportion);
* it is in the Queue the client named, and ranks at the client's priority;
* a Kubernetes PodGroup with a topology constraint (KEP-5732) has every pod
  bound inside one domain of the node label it names;
* Shoal reads every object a gang is made of, and no field of it is
  ignored with a warning.

Failures name the fixture, the policy and the job. Standard library and
PyYAML only."""

import collections
import glob
import json
import os
import subprocess
import unittest

import yaml

FIXTURES = "e2e/fixtures/clients"
POLICIES = sorted(glob.glob("policies/*.yaml"))
BINARY = os.environ.get("SHOAL_SCHEDULER", "scheduler/shoal-scheduler")
CYCLES = 3

ALL = "all bound"            # every pod of the gang bound
NONE = "none bound"          # no pod bound, in any cycle
ADMITTED = "admitted"        # no pods yet: phase Inqueue, so its controller creates them
NOT_ADMITTED = "not admitted"  # phase Pending, no pod bound (where admission is by resources)

# What a client's gang must come to: its PodGroup (namespace/name), the Queue
# the client named (Shoal's "default" when the API has no queue), the
# priority the client gives it (the PodGroup's class, or else its pods'),
# and the outcome on the fixture's cluster: `outcome` under a policy without
# the reservation plugin, `reserved` (when it differs) under one with it.
# `by_policy` overrides both for one policy file.
Gang = collections.namedtuple("Gang", "podgroup queue priority outcome reserved by_policy",
                              defaults=(None, None))

EXPECTED = {
    "kubeflow-pytorchjob-volcano.yaml": [
        Gang("team-a/resnet50-ddp", "research", 1000, ALL, NONE),
        Gang("team-a/bert-large", "research", 100, NONE, ALL),
        # Under reservation, held behind resnet50-ddp, which has waited > 5m
        # too and cannot be admitted while bert-large runs; fair-share (with
        # preempt) counts only work of its priority or higher, admits
        # resnet50-ddp, and so mnist-smoke is no longer held.
        Gang("team-a/mnist-smoke", "research", 1000, ADMITTED, NOT_ADMITTED,
             {"fair-share.yaml": ADMITTED}),
        Gang("team-a/llama-finetune", "research", 100, NOT_ADMITTED),
    ],
    "kubeflow-pytorchjob-scheduler-plugins.yaml": [
        Gang("team-b/resnet50-ddp", "default", 1000, ALL, NONE),
        Gang("team-b/bert-large", "default", 100, NONE, ALL),
    ],
    "kubeflow-trainjob-volcano.yaml": [
        Gang("team-v2/llm-sft", "research", 1000, ALL, NONE),
        Gang("team-v2/llm-pretrain", "research", 100, NONE, ALL),
    ],
    "kubeflow-trainjob-coscheduling.yaml": [
        Gang("team-v2/llm-sft", "default", 1000, ALL, NONE),
        Gang("team-v2/llm-pretrain", "default", 100, NONE, ALL),
    ],
    "kuberay-raycluster-volcano.yaml": [
        Gang("ray/ray-raycluster-train-pg", "ray-queue", 1000, ALL, NONE),
        Gang("ray/ray-raycluster-tune-pg", "ray-queue", 100, NONE, ALL),
    ],
    "spark-volcano.yaml": [
        # spark-pi, spark-etl (the documented template: system-node-critical),
        # spark-streaming (running driver, new executors).
        Gang("spark-jobs/spark-1d175a1d53c95fc88966e48814e77d4d-podgroup", "spark", 1000, ALL),
        Gang("spark-jobs/spark-ff7fe5453cfa5a88a249fb96b01d0c3c-podgroup", "default",
             2000001000, NOT_ADMITTED),
        Gang("spark-jobs/spark-191022f724175b7f9b72fec905e0f7fa-podgroup", "spark", 1000, ALL),
    ],
    # Kubernetes' own gang API (Workload and scheduling.k8s.io/v1alpha2
    # PodGroups, pods joining by spec.schedulingGroup), as JobSet's
    # documentation builds it: by priority train-small first; under the
    # reservation plugin train-big, which has waited longest.
    "jobset.yaml": [
        Gang("default/train-small-workers", "default", 100000, ALL, NONE),
        Gang("default/train-big-workers", "default", 1, NONE, ALL),
    ],
    # Kubernetes 1.37's v1beta1 Workload and PodGroups as JobSet's
    # JobSetScheduling controller writes them: per-Job gangs (each in one
    # rack) and a whole-JobSet gang that does not fit beside them.
    "jobset-1.37.yaml": [
        Gang("default/pretrain-workers-0-581c25aa", "default", 100000, ALL),
        Gang("default/pretrain-workers-1-ea6d838a", "default", 100000, ALL),
        Gang("default/finetune", "default", 1, NONE),
    ],
    # LWS's "kubernetes" provider: one v1beta1 PodGroup per replica; and a
    # DisaggregatedSet's CompositePodGroup (minGroupCount 2) over a prefill
    # and a decode LWS: prefill alone would fit, the tree does not, so
    # neither leaf gets a pod.
    "lws-1.37.yaml": [
        Gang("inference/inference-0-dd6699c7c", "default", 1000, ALL),
        Gang("inference/inference-1-dd6699c7c", "default", 1000, ALL),
        Gang("inference/llama-ds-prefill-0-6c8f5d9b7", "default", 100, NONE),
        Gang("inference/llama-ds-decode-0-7f9c6b8d4", "default", 100, NONE),
    ],
    "lws-volcano.yaml": [
        Gang("inference/vllm-multihost-0-7c9d8f6b5", "inference", 1000, ALL, NONE),
        Gang("inference/vllm-multihost-1-7c9d8f6b5", "inference", 1000, ALL, NONE),
        Gang("inference/llama-405b-0-5d8b9c7f4", "inference", 100, NONE, ALL),
    ],
}

# Kinds a gang is made of: Shoal must read them, not skip them.
GANG_KINDS = ("Node", "Pod", "PodGroup", "Queue", "PriorityClass", "Workload",
              "CompositePodGroup")


def key(obj):
    meta = obj.get("metadata", {})
    return "%s/%s" % (meta.get("namespace", ""), meta.get("name", ""))


class Fixture:
    """A fixture's objects, its header's `shoal-args:` line, and which pods
    each PodGroup has (by the joins the clients use: Volcano's annotation,
    scheduler-plugins' label, Kubernetes' spec.schedulingGroup)."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path) as f:
            text = f.read()
        self.args = []
        for line in text.splitlines():
            if line.startswith("# shoal-args:"):
                self.args = line.split(":", 1)[1].split()
        self.objects = [o for o in yaml.safe_load_all(text) if o]
        self.podgroups = {key(o): o for o in self.objects if o.get("kind") == "PodGroup"}
        self.composites = {key(o): o for o in self.objects
                           if o.get("kind") == "CompositePodGroup"}
        self.pods = [o for o in self.objects if o.get("kind") == "Pod"]
        self.node_labels = {o["metadata"]["name"]: o["metadata"].get("labels", {})
                            for o in self.objects if o.get("kind") == "Node"}

    def members(self, podgroup):
        ns, name = podgroup.split("/", 1)
        out = []
        for p in self.pods:
            meta, spec = p["metadata"], p["spec"]
            if meta["namespace"] != ns:
                continue
            if (meta.get("annotations", {}).get("scheduling.k8s.io/group-name") == name
                    or meta.get("labels", {}).get("scheduling.x-k8s.io/pod-group") == name
                    or spec.get("schedulingGroup", {}).get("podGroupName") == name):
                out.append(p)
        return out

    def job_of(self, podgroup):
        """The job the replay reports a PodGroup under: itself, or the root
        of the CompositePodGroup tree it is a leaf of (Shoal schedules a
        tree as one job, named after its root)."""
        ns = podgroup.split("/", 1)[0]
        group = self.podgroups.get(podgroup) or self.composites.get(podgroup)
        seen = {podgroup}
        while group is not None:
            parent = group.get("spec", {}).get("parentCompositePodGroupName")
            if not parent or "%s/%s" % (ns, parent) in seen:
                break
            podgroup = "%s/%s" % (ns, parent)
            seen.add(podgroup)
            group = self.composites.get(podgroup)
        return podgroup

    def min_member(self, podgroup):
        spec = self.podgroups[podgroup].get("spec", {})
        if "minMember" in spec:
            return spec["minMember"]
        return spec.get("schedulingPolicy", {}).get("gang", {}).get("minCount", 1)


def plugins(policy_path):
    with open(policy_path) as f:
        conf = yaml.safe_load(f)
    return {p.get("name") for tier in conf.get("tiers", []) for p in tier.get("plugins", [])}


def replay(fixture, policy):
    args = [BINARY, "--snapshot=" + fixture.path, "--cycles=%d" % CYCLES, "--output=json",
            "--scheduler-conf=" + policy] + fixture.args
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError("%s: shoal-scheduler refused it (exit %d): %s"
                             % (fixture.name, done.returncode, done.stderr.strip()))
    return json.loads(done.stdout), done.stderr


class ClientsTest(unittest.TestCase):
    def setUp(self):
        self.assertTrue(POLICIES, "no policies/*.yaml in the runfiles")
        self.fixtures = [Fixture(p) for p in sorted(glob.glob(FIXTURES + "/*.yaml"))]
        self.assertEqual(sorted(f.name for f in self.fixtures), sorted(EXPECTED),
                         "every fixture in %s has its expectations here, and only those"
                         % FIXTURES)

    def test_fixtures_are_what_the_expectations_name(self):
        for fx in self.fixtures:
            for g in EXPECTED[fx.name]:
                with self.subTest(fixture=fx.name, job=g.podgroup):
                    self.assertIn(g.podgroup, fx.podgroups,
                                  "%s: no PodGroup %s" % (fx.name, g.podgroup))
                    pods = fx.members(g.podgroup)
                    if g.outcome == ADMITTED:
                        self.assertEqual(pods, [], "%s, job %s: its controller has not "
                                         "created its pods yet" % (fx.name, g.podgroup))
                    elif pods or g.outcome != NOT_ADMITTED:
                        self.assertGreaterEqual(len(pods), fx.min_member(g.podgroup),
                                                "%s, job %s: fewer pods than its minimum"
                                                % (fx.name, g.podgroup))

    def test_shoal_reads_every_object_and_field_of_a_gang(self):
        for fx in self.fixtures:
            with self.subTest(fixture=fx.name):
                _, stderr = replay(fx, "policies/default.yaml")
                unread = []
                for line in stderr.splitlines():
                    if not line.startswith("warning: "):
                        continue
                    words = line.split()
                    if "skipping" in words:
                        kind = words[words.index("skipping") + 1]
                        if kind not in GANG_KINDS:
                            continue  # the clients' own kinds (PyTorchJob, RayCluster, ...)
                    unread.append(line)
                if unread:
                    self.fail("%s: Shoal does not read what the client wrote:\n%s"
                              % (fx.name, "\n".join(unread)))

    def test_gangs_bind_whole_or_not_at_all_in_the_named_queue_at_the_client_priority(self):
        for fx in self.fixtures:
            for policy in POLICIES:
                report, _ = replay(fx, policy)
                names = plugins(policy)
                # Admission by resources: minResources can keep a gang out.
                gate = bool(names & {"overcommit", "proportion"})
                reserving = "reservation" in names
                for g in EXPECTED[fx.name]:
                    outcome = g.reserved if reserving and g.reserved else g.outcome
                    outcome = (g.by_policy or {}).get(os.path.basename(policy), outcome)
                    with self.subTest(fixture=fx.name, policy=os.path.basename(policy),
                                      job=g.podgroup):
                        self.check_gang(fx, os.path.basename(policy), gate, report, g,
                                        outcome)

    @staticmethod
    def podgroup_topology(fx, podgroup):
        """The node label key a Kubernetes PodGroup's pods must share."""
        spec = fx.podgroups[podgroup].get("spec", {})
        keys = spec.get("schedulingConstraints", {}).get("topology", [])
        return keys[0].get("key") if keys else None

    def check_gang(self, fx, policy, gate, report, g, outcome):
        where = "%s, policy %s, job %s" % (fx.name, policy, g.podgroup)
        pods = fx.members(g.podgroup)
        pod_keys = {key(p) for p in pods}
        running = {key(p) for p in pods if p["spec"].get("nodeName")}
        minimum = fx.min_member(g.podgroup)
        job = fx.job_of(g.podgroup)
        entries = [next((pg for pg in c["podGroups"] if pg["name"] == job), None)
                   for c in report["cycles"]]
        last = entries[-1]
        said = (" Shoal says: %r" % last["message"]) if last and last["message"] else ""
        problems = []

        if last is None:
            problems.append("the replay reports no job %s: Shoal did not take the PodGroup "
                            "as a gang" % job)
        else:
            for field in ("queue", "priority"):
                if field not in last:
                    problems.append("the replay report has no %r field" % field)
            if last.get("queue", g.queue) != g.queue:
                problems.append("it is in queue %r, not %r, the one the client named"
                                % (last["queue"], g.queue))
            if last.get("priority", g.priority) != g.priority:
                problems.append("it ranks at priority %d, not %d, the client's"
                                % (last["priority"], g.priority))

        node_of = {key(p): p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")}
        for cycle in report["cycles"]:
            node_of.update({b["pod"]: b["node"] for b in cycle["binds"] if b["pod"] in pod_keys})
        topology = self.podgroup_topology(fx, g.podgroup)
        if topology:
            domains = {fx.node_labels.get(n, {}).get(topology) for n in node_of.values()}
            if len(domains) > 1:
                problems.append("its pods must share one %s, but are bound across %s"
                                % (topology, ", ".join(sorted(map(str, domains)))))

        bound = set(running)
        for c, cycle in enumerate(report["cycles"], 1):
            bound |= {b["pod"] for b in cycle["binds"] if b["pod"] in pod_keys}
            if 0 < len(bound) < minimum:
                problems.append("after cycle %d, %d of its pods are bound (%s), fewer than "
                                "its minimum %d: part of a gang"
                                % (c, len(bound), ", ".join(sorted(bound)), minimum))
                break
        newly = bound - running

        if outcome == ALL:
            missing = sorted(pod_keys - bound)
            if missing:
                problems.append("it fits, but %d of its %d pods are not bound after %d "
                                "cycles: %s.%s" % (len(missing), len(pod_keys), CYCLES,
                                                   ", ".join(missing), said))
        elif outcome == NONE:
            if newly:
                problems.append("it does not fit beside the gang that goes first, but %s "
                                "got bound" % ", ".join(sorted(newly)))
        elif outcome == ADMITTED:
            if last is not None and last["phase"] != "Inqueue":
                problems.append("its controller creates its pods only once the PodGroup is "
                                "admitted, but it is %s, not Inqueue.%s"
                                % (last["phase"], said))
        elif outcome == NOT_ADMITTED and gate:
            if newly:
                problems.append("it must not be admitted, but %s got bound"
                                % ", ".join(sorted(newly)))
            if last is not None and last["phase"] != "Pending":
                problems.append("it must not be admitted, but it is %s, not Pending"
                                % last["phase"])

        if problems:
            self.fail("%s: %s" % (where, "; ".join(problems)))


if __name__ == "__main__":
    unittest.main()
