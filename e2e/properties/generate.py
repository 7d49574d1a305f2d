"""Seeded random clusters and workloads for property checks of Shoal.

`generate(seed)` returns a Kubernetes `kind: List` (as `kubectl get -o json`
prints it) that `shoal-scheduler --snapshot=FILE` reads: nodes of several
shapes (some with GPUs, some tainted NoSchedule, some cordoned, zone labels,
small pod counts), 1-4 Volcano Queues, PriorityClasses, PodGroups with gangs
of 1-8 pods, lone pods, pods already running (placed here without
over-booking, respecting selectors and taints) and pods of another
scheduler taking room. Half the seeds (their own random stream, so the
rest of a seed is as before) are topology seeds: 2-4 zones, one node in
ten without a zone label, half the gangs with required pod anti-affinity,
pod affinity (to another group or to themselves) and/or topology spread
(_gang_constraints), and 1-3 running pods of another scheduler whose
anti-affinity selects some gangs (_guards). Running pods are placed as
kube-scheduler's filters allow. Half the seeds (a third stream) are
queue-tree seeds (_queue_tree): parent queues (spec.parent) 1-3 levels
above the generated leaf queues, sometimes an explicit `root`, with
capability, guarantee and deserved set at random on every level (the
children's guarantees and deserved shares within what their parent
states), in two trees in five running work in one leaf filling much of
the idle room (so that others need reclaim), and one tree in about
fifteen made invalid on purpose (a parent that does not exist, a cycle,
children guaranteeing or deserving more than their parent, a job in a
queue with children). Two in five of the other seeds (the pressure
seeds, a fourth stream) get such running work too, in one of their flat
queues, tolerating the NoSchedule taints and filling the idle room, so
that other queues' gangs need reclaim to reach their water-filled
(proportion) shares. Two in five of the seeds with three nodes or more
(a fifth stream) are network seeds (_network): Volcano HyperNodes
describe 2-4 tiers of racks, spines and wider domains over the nodes
(members by exact name, pattern or label), sometimes with spare empty
nodes added and, one network in twenty, a fault (a node in two racks, a
rack under two spines, a member that does not exist); about three
PodGroups in ten get spec.networkTopology, hard or soft, and about one
in six of two pods or more a spec.subGroupPolicy (_sub_groups). In three
seeds in ten (a sixth stream) a plain PodGroup in four is written as a
Kubernetes Workload instead, its pods joining by spec.workloadRef
(_workloads). In three seeds in ten (a seventh stream, added last) there
is Dynamic Resource Allocation (_dra): ResourceSlices of driver
gpu.example.com per node (0-8 devices, model, index, memory) and at times
one network-attached for all nodes or a label, 1-2 DeviceClasses, and
ResourceClaims on the pods of some gangs (one per pod, at times one two
pods share, allocated on their node for pods already running), and claims
allocated in the snapshot for pods of another scheduler; every CEL
selector is one of DEVICE_SELECTORS, whose meaning the oracle evaluates
(device_rules.py). Two DRA seeds in three (an eighth stream, drawn
after everything else and only appending, generate_sharing.py) also get
devices shared the Kubernetes 1.36 ways: partitions spending a pool's
shared counters, sharable GPUs whose claims ask for capacity, tainted
devices and claims tolerating them, admin access, and claims the
snapshot already holds (partitions, shares with shareID and
consumedCapacity, a sharable GPU held whole). The same seed
gives a byte-identical file (`dumps(generate(seed))`).

    python3 e2e/properties/generate.py SEED [OUT.json]

Standard library only.
"""

import collections
import json
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_sharing  # noqa: E402

SCHEDULER = "shoal"
OTHER_SCHEDULER = "default-scheduler"
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
# Every pod of a PodGroup carries this label (value: the group's name); the
# inter-pod affinity, anti-affinity and spread terms select on it.
GANG_LABEL = "example.com/gang"
T0 = 1795165200  # 2026-11-20T09:00:00Z

NODE_SHAPES = [
    # name, cpu, memory, gpu
    ("small", "4", "16Gi", None),
    ("medium", "8", "32Gi", None),
    ("large", "16", "64Gi", None),
    ("odd", "6500m", "24Gi", None),
    ("gpu4", "16", "128Gi", "4"),
    ("gpu8", "32", "256Gi", "8"),
]
CPUS = ["100m", "250m", "500m", "1", "1500m", "2", "3", "4", "6"]
MEMS = ["128Mi", "512Mi", "1Gi", "2Gi", "3Gi", "4Gi", "8Gi", "16Gi"]
GPUS = ["1", "1", "2", "4"]
PRIORITY_CLASSES = [("low", 10), ("mid", 100), ("high", 1000)]
# Host ports some pods bind (TCP, every address). The oracle counts each as
# a resource every node has one of, so two pods binding it on one node are
# an over-booking.
HOST_PORTS = [29500, 8080]
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
BATCH_TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
SOFT_TAINT = {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}


def timestamp(seconds):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + seconds))


# --- the same arithmetic the oracle uses, to place running pods without
# over-booking (imported by check.py too) ---

_SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
           "n": None, "u": None, "m": None, "": 1, "k": 10**3, "M": 10**6, "G": 10**9,
           "T": 10**12, "P": 10**15, "E": 10**18}


def quantity(q):
    """A Kubernetes quantity as an exact Fraction of base units."""
    from fractions import Fraction
    s = str(q).strip()
    if "e" in s.lower() and not s.endswith(("Ei", "E")):
        mant, exp = s.lower().split("e")
        return Fraction(mant) * Fraction(10) ** int(exp)
    for suf in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        if s.endswith(suf):
            return Fraction(s[:-2]) * _SUFFIX[suf]
    frac = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000)}
    if s and s[-1] in frac:
        return Fraction(s[:-1]) * frac[s[-1]]
    if s and s[-1] in "kMGTPE":
        return Fraction(s[:-1]) * _SUFFIX[s[-1]]
    return Fraction(s)


def _add(a, b, sign=1):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return out


def _resources(m):
    return {k: quantity(v) for k, v in (m or {}).items()}


def pod_requests(pod):
    """What kube-scheduler counts for a pod (k8s resourcehelper.PodRequests):
    containers plus sidecars, or the largest init container (with the
    sidecars started before it) if larger, plus overhead, plus one pod."""
    spec = pod["spec"]
    reqs = {}
    for c in spec.get("containers", []):
        reqs = _add(reqs, _resources(c.get("resources", {}).get("requests")))
    sidecars, init = {}, {}
    for c in spec.get("initContainers", []):
        r = _resources(c.get("resources", {}).get("requests"))
        if c.get("restartPolicy") == "Always":
            reqs = _add(reqs, r)
            sidecars = _add(sidecars, r)
            r = dict(sidecars)
        else:
            r = _add(r, sidecars)
        for k, v in r.items():
            init[k] = max(init.get(k, 0), v)
    for k, v in init.items():
        reqs[k] = max(reqs.get(k, 0), v)
    reqs = _add(reqs, _resources(spec.get("overhead")))
    reqs["pods"] = reqs.get("pods", 0) + 1
    sidecars = [c for c in spec.get("initContainers", []) if c.get("restartPolicy") == "Always"]
    for c in sidecars + spec.get("containers", []):
        for port in c.get("ports", []):
            if port.get("hostPort"):
                reqs[_port_resource(port["hostPort"])] = 1
    return {k: v for k, v in reqs.items() if v != 0}


def _port_resource(port):
    return "hostport/%d" % port


def node_allocatable(node):
    alloc = _resources(node["status"]["allocatable"])
    for port in HOST_PORTS:
        alloc[_port_resource(port)] = 1
    return alloc


def tolerates(tolerations, taint):
    for t in tolerations or []:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        op = t.get("operator", "Equal")
        if not t.get("key") and op == "Exists":
            return True
        if t.get("key") != taint["key"]:
            continue
        if op == "Exists" or t.get("value", "") == taint.get("value", ""):
            return True
    return False


def placement_problem(pod, node):
    """Why `pod` may not go on `node` regardless of room (selector, taints,
    cordon, readiness), or None."""
    labels = node["metadata"].get("labels", {})
    for k, v in (pod["spec"].get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return "nodeSelector %s=%s not matched by node labels" % (k, v)
    for taint in node["spec"].get("taints") or []:
        if taint["effect"] in ("NoSchedule", "NoExecute") and not tolerates(
                pod["spec"].get("tolerations"), taint):
            return "untolerated taint %s=%s:%s" % (taint["key"], taint.get("value", ""),
                                                   taint["effect"])
    # kube-scheduler's NodeUnschedulable: a cordoned node takes only pods
    # that tolerate the taint the node controller puts on it.
    if node["spec"].get("unschedulable") and not tolerates(
            pod["spec"].get("tolerations"), UNSCHEDULABLE_TAINT):
        return "node is cordoned (spec.unschedulable)"
    return None


def fits(req, free):
    return all(v <= free.get(k, 0) for k, v in req.items())


# --- inter-pod affinity, anti-affinity and topology spread, as
# kube-scheduler reads them (imported by check.py too) ---

def selector_matches(sel, labels):
    """A metav1.LabelSelector against labels: None matches nothing (as in
    an affinity term), {} everything."""
    if sel is None:
        return False
    labels = labels or {}
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        k, op, values = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in values:
            return False
        if op == "NotIn" and k in labels and labels[k] in values:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def pod_ns(pod):
    return pod["metadata"].get("namespace", "default")


def pod_labels(pod):
    return pod["metadata"].get("labels") or {}


def required_terms(pod, kind):
    """The required terms of spec.affinity.<kind> (podAffinity or
    podAntiAffinity)."""
    a = ((pod["spec"].get("affinity") or {}).get(kind) or {})
    return list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])


def hard_spread(pod):
    return [c for c in pod["spec"].get("topologySpreadConstraints") or []
            if c.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule"]


def has_interpod(pod):
    """Whether the pod carries a hard inter-pod constraint of its own."""
    return bool(required_terms(pod, "podAffinity") or required_terms(pod, "podAntiAffinity")
                or hard_spread(pod))


def term_decidable(term):
    """A namespaceSelector naming labels needs Namespace objects the
    snapshot does not hold: such a term is not judged."""
    ns_sel = term.get("namespaceSelector")
    return ns_sel is None or ns_sel == {}


def term_matches(term, owner, other):
    """Whether `other` is a pod term `term` of pod `owner` selects: in the
    term's namespaces (default: the owner's) with matching labels."""
    ns_sel = term.get("namespaceSelector")
    if ns_sel == {}:
        in_ns = True
    else:
        names = term.get("namespaces") or []
        in_ns = pod_ns(other) in names if (names or ns_sel) else pod_ns(other) == pod_ns(owner)
    return in_ns and selector_matches(term.get("labelSelector"), pod_labels(other))


def same_domain(key, node_a, node_b):
    """Both nodes carry topology key `key` with one value."""
    la = node_a["metadata"].get("labels") or {}
    lb = node_b["metadata"].get("labels") or {}
    return key in la and key in lb and la[key] == lb[key]


def interpod_problem(pod, node, placed, nodes):
    """kube-scheduler's InterPodAffinity and PodTopologySpread filters for
    `pod` on `node`, given `placed` [(pod, node name)] and all `nodes` by
    name; a reason or None. The generator's; the oracle judges outcomes
    its own way (check.py)."""
    nlabels = node["metadata"].get("labels") or {}
    for term in required_terms(pod, "podAntiAffinity"):
        for q, m in placed:
            if same_domain(term["topologyKey"], node, nodes[m]) and term_matches(term, pod, q):
                return "anti-affinity with %s" % q["metadata"]["name"]
    for q, m in placed:
        for term in required_terms(q, "podAntiAffinity"):
            if same_domain(term["topologyKey"], node, nodes[m]) and term_matches(term, q, pod):
                return "existing pod %s's anti-affinity" % q["metadata"]["name"]
    terms = required_terms(pod, "podAffinity")
    if terms and not all(any(same_domain(t["topologyKey"], node, nodes[m]) and
                             term_matches(t, pod, q) for q, m in placed) for t in terms):
        anywhere = any(all(term_matches(t, pod, q) for t in terms) and
                       any(t["topologyKey"] in (nodes[m]["metadata"].get("labels") or {})
                           for t in terms) for q, m in placed)
        if anywhere or not all(term_matches(t, pod, pod) for t in terms):
            return "affinity not satisfied"
    spread = hard_spread(pod)
    keys = [c["topologyKey"] for c in spread]
    for c in spread:
        if c["topologyKey"] not in nlabels:
            return "node lacks %s" % c["topologyKey"]
        eligible = [n for n in nodes.values()
                    if all(k in (n["metadata"].get("labels") or {}) for k in keys)
                    and not (placement_problem(pod, n) or "").startswith("nodeSelector")]
        counts = {n["metadata"]["labels"][c["topologyKey"]]: 0 for n in eligible}
        names = {n["metadata"]["name"] for n in eligible}
        for q, m in placed:
            if m in names and pod_ns(q) == pod_ns(pod) and selector_matches(
                    c.get("labelSelector"), pod_labels(q)):
                counts[nodes[m]["metadata"]["labels"][c["topologyKey"]]] += 1
        self_match = 1 if selector_matches(c.get("labelSelector"), pod_labels(pod)) else 0
        low = min(counts.values()) if counts else 0
        if counts.get(nlabels[c["topologyKey"]], 0) + self_match - low > c["maxSkew"]:
            return "spread skew over %s" % c["topologyKey"]
    return None


# --- the generator ---

def _node(rng, i):
    shape, cpu, mem, gpu = rng.choice(NODE_SHAPES)
    name = "node-%02d-%s" % (i, shape)
    labels = {"kubernetes.io/hostname": name, ZONE: "zone-" + rng.choice("abc"),
              "node-type": "gpu" if gpu else "cpu"}
    pods = rng.choice(["110", "110", "110", "8", "4"])
    alloc = {"cpu": cpu, "memory": mem, "pods": pods}
    if gpu:
        alloc["nvidia.com/gpu"] = gpu
    taints = []
    if gpu and rng.random() < 0.6:
        taints.append(dict(GPU_TAINT))
    if rng.random() < 0.15:
        taints.append(dict(BATCH_TAINT))
    if rng.random() < 0.15:
        taints.append(dict(SOFT_TAINT))
    spec = {}
    if taints:
        spec["taints"] = taints
    if rng.random() < 0.05:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "uid": "node-uid-%d" % i},
            "spec": spec,
            "status": {"capacity": dict(alloc), "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _template(rng, nodes):
    """Requests, selector and tolerations shared by the pods of one group."""
    req = {"cpu": rng.choice(CPUS), "memory": rng.choice(MEMS)}
    gpu_nodes = [n for n in nodes if "nvidia.com/gpu" in n["status"]["allocatable"]]
    tolerations = []
    selector = {}
    if gpu_nodes and rng.random() < 0.25:
        req["nvidia.com/gpu"] = rng.choice(GPUS)
        if rng.random() < 0.8:
            tolerations.append(rng.choice([
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true",
                 "effect": "NoSchedule"}]))
        if rng.random() < 0.3:
            selector["node-type"] = "gpu"
    if rng.random() < 0.2:
        selector[ZONE] = "zone-" + rng.choice("abc")
    if rng.random() < 0.2:
        tolerations.append({"key": "dedicated", "operator": "Equal", "value": "batch",
                            "effect": "NoSchedule"})
    if rng.random() < 0.03:
        tolerations.append({"operator": "Exists"})
    if rng.random() < 0.1:
        req = {}  # BestEffort
    return req, selector, tolerations


def _host_port(rng):
    """A host port the pods of one group bind, or None (most groups)."""
    return rng.choice(HOST_PORTS) if rng.random() < 0.08 else None


def _pod(rng, name, ns, created, req, selector, tolerations, group=None,
         scheduler=SCHEDULER, priority=None, host_port=None, constraints=None):
    containers = [{"name": "main", "image": "registry.example.com/app:1",
                   "resources": {"requests": dict(req)} if req else {}}]
    if host_port:
        containers[0]["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    spec = {"schedulerName": scheduler, "containers": containers}
    r = rng.random()
    if req and r < 0.1:
        # A second container: split cpu between the two.
        containers.append({"name": "helper", "image": "registry.example.com/helper:1",
                           "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}})
    elif req and r < 0.18:
        spec["initContainers"] = [{"name": "init", "image": "registry.example.com/init:1",
                                   "resources": {"requests": {"cpu": rng.choice(CPUS),
                                                              "memory": "256Mi"}}}]
    elif req and r < 0.22:
        spec["initContainers"] = [{"name": "proxy", "image": "registry.example.com/proxy:1",
                                   "restartPolicy": "Always",
                                   "resources": {"requests": {"cpu": "200m",
                                                              "memory": "128Mi"}}}]
    elif req and r < 0.25:
        spec["overhead"] = {"cpu": "250m", "memory": "120Mi"}
    if selector:
        spec["nodeSelector"] = dict(selector)
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if priority:
        spec["priorityClassName"], spec["priority"] = priority
    meta = {"name": name, "namespace": ns, "uid": "pod-%s-%s" % (ns, name),
            "creationTimestamp": timestamp(created)}
    if group:
        meta["annotations"] = {GROUP_ANNOTATION: group}
        meta["labels"] = {GANG_LABEL: group}
    for k, v in (constraints or {}).items():
        spec[k] = json.loads(json.dumps(v))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Pending"}}


class _Room:
    """Free room per node, to place running pods without over-booking."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.by_name = {n["metadata"]["name"]: n for n in nodes}
        self.free = {n["metadata"]["name"]: node_allocatable(n) for n in nodes}
        # (pod, node name): placements honour kube-scheduler's inter-pod
        # filters, so the initial state is one it could have made.
        self.placed = []

    def place(self, rng, pods, ignore_cordon=False):
        """Places every pod of `pods` or none; sets nodeName and Running."""
        trial = {k: dict(v) for k, v in self.free.items()}
        chosen = []
        placed = list(self.placed)
        for p in pods:
            req = pod_requests(p)
            cands = [n for n in self.nodes
                     if fits(req, trial[n["metadata"]["name"]])
                     and (placement_problem(p, n) is None or
                          (ignore_cordon and placement_problem(p, n).startswith("node is")))
                     and interpod_problem(p, n, placed, self.by_name) is None]
            if not cands:
                return False
            n = rng.choice(cands)["metadata"]["name"]
            trial[n] = _add(trial[n], req, -1)
            chosen.append(n)
            placed.append((p, n))
        self.free = trial
        self.placed = placed
        for p, n in zip(pods, chosen):
            p["spec"]["nodeName"] = n
            p["status"] = {"phase": "Running"}
        return True


def _relabel_zones(trng, nodes):
    """A topology seed's nodes: 2-4 zones, one node in ten without a zone
    label (no domain for zone terms); every node keeps its hostname
    label, as real nodes do."""
    nzones = trng.randint(2, 4)
    for n in nodes:
        labels = n["metadata"]["labels"]
        if trng.random() < 0.1:
            del labels[ZONE]
        else:
            labels[ZONE] = "zone-" + "abcd"[trng.randrange(nzones)]


def _own_selector(trng, name):
    if trng.random() < 0.3:
        return {"matchExpressions": [{"key": GANG_LABEL, "operator": "In", "values": [name]}]}
    return {"matchLabels": {GANG_LABEL: name}}


def _gang_constraints(trng, name, ns, earlier):
    """Inter-pod affinity, anti-affinity and topology spread for the pods
    of gang `name`: at least one of
      - required anti-affinity to its own pods, on hostname (one per
        node; 80%) or zone (one per zone);
      - required affinity, on zone mostly: to an earlier group's pods
        (workers follow their parameter server; 70% when there is one) or
        to its own pods (self-affinity: the first pod goes anywhere);
      - a spread constraint over zone (60%) or hostname, maxSkew 1 (75%)
        or 2, DoNotSchedule (80%) or ScheduleAnyway, on its own label."""
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    kinds = set()
    while not kinds:
        for kind, p in (("anti", 0.45), ("affinity", 0.3), ("spread", 0.35)):
            if trng.random() < p:
                kinds.add(kind)
    out = {}
    affinity = {}
    if "anti" in kinds:
        key = HOSTNAME if trng.random() < 0.8 else ZONE
        affinity["podAntiAffinity"] = {required: [
            {"labelSelector": _own_selector(trng, name), "topologyKey": key}]}
    if "affinity" in kinds:
        key = ZONE if trng.random() < 0.85 else HOSTNAME
        if earlier and trng.random() < 0.7:
            tname, tns = trng.choice(earlier)
            term = {"labelSelector": {"matchLabels": {GANG_LABEL: tname}}, "topologyKey": key}
            if tns != ns:
                term["namespaces"] = [tns]
        else:
            term = {"labelSelector": _own_selector(trng, name), "topologyKey": key}
        affinity["podAffinity"] = {required: [term]}
    if affinity:
        out["affinity"] = affinity
    if "spread" in kinds:
        out["topologySpreadConstraints"] = [{
            "maxSkew": 1 if trng.random() < 0.75 else 2,
            "topologyKey": ZONE if trng.random() < 0.6 else HOSTNAME,
            "whenUnsatisfiable": "DoNotSchedule" if trng.random() < 0.8 else "ScheduleAnyway",
            "labelSelector": _own_selector(trng, name)}]
    return out


def _guards(trng, room, groups):
    """1-3 running pods of another scheduler (tolerating every taint, like
    a DaemonSet's) with required anti-affinity to the pods of 1-3 groups,
    on hostname (80%) or zone: by symmetry those groups' pods may not join
    them."""
    out = []
    for i in range(trng.randint(1, 3)):
        targets = sorted(trng.sample(groups, min(len(groups), trng.randint(1, 3))))
        term = {"labelSelector": {"matchExpressions": [
            {"key": GANG_LABEL, "operator": "In", "values": [n for n, _ in targets]}]},
            "topologyKey": HOSTNAME if trng.random() < 0.8 else ZONE}
        if trng.random() < 0.5:
            term["namespaceSelector"] = {}
        else:
            term["namespaces"] = sorted({ns for _, ns in targets})
        p = _pod(trng, "guard-%d" % i, "default", 1, {"cpu": "100m", "memory": "64Mi"}, {},
                 [{"operator": "Exists"}], scheduler=OTHER_SCHEDULER,
                 constraints={"affinity": {"podAntiAffinity": {
                     "requiredDuringSchedulingIgnoredDuringExecution": [term]}}})
        p["metadata"]["labels"] = {"app": "guard"}
        room.place(trng, [p])
        out.append(p)
    return out


# --- queue trees (spec.parent), on their own stream ---

TREE_FAULTS = ["missing-parent", "cycle", "over-guarantee", "over-deserved", "job-in-parent"]


def _queue_totals(nodes):
    total = {}
    for n in nodes:
        a = _resources(n["status"]["allocatable"])
        total = _add(total, {k: v for k, v in a.items() if k in ("cpu", "memory",
                                                                   "nvidia.com/gpu")})
    return total


def _qty(r, v):
    """A Fraction of base units as a quantity string, rounded down."""
    if r == "cpu":
        return "%dm" % int(v * 1000)
    if r == "memory":
        return "%dMi" % int(v / 2**20)
    return str(int(v))


def _share(rs, fn):
    """{resource: quantity} of fn(resource) for each of `rs`, leaving out
    what rounds down to nothing."""
    out = {r: _qty(r, fn(r)) for r in rs}
    return {r: v for r, v in out.items() if quantity(v) > 0}


def _some(qrng, names):
    """The resources a share names: cpu and memory mostly."""
    r = qrng.random()
    out = ["cpu", "memory"] if r < 0.7 else ["cpu"] if r < 0.9 else ["memory"]
    if "nvidia.com/gpu" in names and qrng.random() < 0.4:
        out.append("nvidia.com/gpu")
    return out


def _queue_obj(name, spec):
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": name}, "spec": spec, "status": {"state": "Open"}}


def _hog(qrng, room, items, queue, most=None, tolerations=()):
    """Running work in `queue` filling much of the idle room: other
    queues' waiting jobs then need reclaim, which the oracle judges
    against the queues' deserved shares and guarantees. Either one
    elastic job (minMember 1: all but one pod may be taken back, with
    reason `elastic`) or as many jobs of one pod (reason `reclaim`).
    4-40 pods, or up to `most`; `tolerations` on every pod."""
    req = {"cpu": qrng.choice(["1", "2", "4"]), "memory": qrng.choice(["1Gi", "2Gi", "4Gi"])}
    ns = qrng.choice(["team-a", "team-b"])
    prio = qrng.choice(PRIORITY_CLASSES) if qrng.random() < 0.4 else None
    elastic = qrng.random() < 0.5
    pods, groups = [], []
    for i in range(qrng.randint(4, 40) if most is None else most):
        group = "pg-hog" if elastic else "pg-hog-%d" % i
        p = _pod(qrng, "pg-hog-%d" % i, ns, 0, req, {}, list(tolerations), group=group,
                 priority=prio)
        placed = room.place(qrng, [p])
        if not elastic and not placed:
            break
        pods.append(p)
        if group not in groups:
            groups.append(group)
        if not placed:
            break
    for group in groups:
        spec = {"minMember": 1, "queue": queue}
        if prio:
            spec["priorityClassName"] = prio[0]
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                      "metadata": {"name": group, "namespace": ns,
                                   "uid": "pg-%s-%s" % (ns, group),
                                   "creationTimestamp": timestamp(0)},
                      "spec": spec, "status": {"phase": "Running"}})
    items += pods


def _queue_tree(qrng, items, nodes, room):
    """Makes the generated queues (q0..) the leaves of a tree: 1-3 levels
    of parents (dept-N above the leaves, div-N above those), an explicit
    `root` Queue in a third of the trees. Each queue has a nominal share
    of the cluster (its parent's, or its parent's deserved share where
    stated, split by random weights); its deserved share, guarantee and
    capability are drawn from it (each unset at times), so children's
    guarantees and deserved shares stay within what their parent states,
    and capability within a leaf's own is never below its deserved share
    (the parent's capability may be: it bounds the child too). In two
    trees in five running work in a leaf fills much of the idle room
    (_hog). With probability 1/15 one fault of TREE_FAULTS is put in.
    Returns the fault's name, or None."""
    queues = [o for o in items if o["kind"] == "Queue"]
    leaves = [q["metadata"]["name"] for q in queues]
    by_name = {q["metadata"]["name"]: q for q in queues}
    totals = _queue_totals(nodes)
    levels = qrng.randint(1, 3)
    parent = {}
    children = {"root": []}
    below = leaves
    made = []
    for level, prefix in ((2, "dept"), (3, "div")):
        if levels < level:
            break
        k = qrng.randint(1, min(3, len(below)))
        ups = ["%s-%d" % (prefix, i) for i in range(k)]
        order = list(below)
        qrng.shuffle(order)
        for i, q in enumerate(order):
            # Every parent gets a child, the rest go anywhere.
            up = ups[i] if i < k else qrng.choice(ups)
            parent[q] = up
            children.setdefault(up, []).append(q)
        for up in ups:
            spec = {"weight": qrng.randint(1, 4), "reclaimable": qrng.random() < 0.8}
            by_name[up] = _queue_obj(up, spec)
            made.append(by_name[up])
        below = ups
    explicit_root = qrng.random() < 0.3
    for q in below:
        # The top level names root, or (some of it) nothing: a queue
        # without a parent sits under root all the same.
        if qrng.random() < 0.7 or not explicit_root and q == below[0]:
            parent[q] = "root"
        children["root"].append(q)
    if explicit_root:
        by_name["root"] = _queue_obj("root", {"weight": 1})
        made.insert(0, by_name["root"])
    for q, up in parent.items():
        by_name[q]["spec"]["parent"] = up

    # Shares, top down.
    names = sorted(totals)
    nominal = {"root": dict(totals)}
    root_spec = by_name["root"]["spec"] if explicit_root else None
    if root_spec is not None and qrng.random() < 0.5:
        f = qrng.choice([Fraction(1, 2), Fraction(3, 4)])
        root_spec["capability"] = {"cpu": _qty("cpu", totals["cpu"] * f)}
    if root_spec is not None and qrng.random() < 0.15:
        root_spec["deserved"] = _share(_some(qrng, names),
                                       lambda r: totals[r] * Fraction(9, 10))
    if root_spec is not None and qrng.random() < 0.15:
        root_spec["guarantee"] = {"resource": _share(_some(qrng, names),
                                                     lambda r: totals[r] / 2)}

    def stated(spec, field):
        m = spec.get(field) or {}
        if field == "guarantee":
            m = m.get("resource") or {}
        return {r: quantity(v) for r, v in m.items()}

    todo = ["root"]
    while todo:
        up = todo.pop(0)
        kids = children.get(up, [])
        if not kids:
            continue
        spec = by_name[up]["spec"] if up in by_name else {}
        des, gua = stated(spec, "deserved"), stated(spec, "guarantee")
        base = {r: des.get(r, nominal[up][r]) for r in names}
        gbase = {r: gua.get(r, nominal[up][r] * Fraction(2, 5)) for r in names}
        w = [qrng.randint(1, 4) for _ in kids]
        for q, wi in zip(kids, w):
            share = Fraction(wi, sum(w))
            nominal[q] = {r: base[r] * share for r in names}
            qs = by_name[q]["spec"]
            is_leaf = q in leaves
            if qrng.random() < 0.6:
                f = Fraction(qrng.randint(5, 10), 10)
                qs["deserved"] = _share(_some(qrng, names), lambda r: nominal[q][r] * f)
            if qrng.random() < 0.3:
                f = Fraction(qrng.randint(3, 10), 10)
                qs["guarantee"] = {"resource": _share(_some(qrng, names),
                                                      lambda r: gbase[r] * share * f)}
            floor = _add(stated(qs, "guarantee"), {})
            for r, v in stated(qs, "deserved").items():
                floor[r] = max(floor.get(r, 0), v)
            if not is_leaf and qrng.random() < 0.5:
                f = qrng.choice([Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2)])
                qs["capability"] = _share(_some(qrng, names),
                                          lambda r: max(nominal[q][r] * f, floor.get(r, 0)))
            elif is_leaf and "capability" not in qs and qrng.random() < 0.25:
                f = qrng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
                qs["capability"] = _share(_some(qrng, names),
                                          lambda r: max(nominal[q][r] * f, floor.get(r, 0)))
            elif is_leaf and "capability" in qs:
                # The leaf's own capability (drawn before, cpu): no share
                # above it.
                cap = stated(qs, "capability")
                for field in ("deserved", "guarantee"):
                    m = qs.get(field)
                    m = m.get("resource") if m and field == "guarantee" else m
                    for r in list(m or {}):
                        if r in cap and quantity(m[r]) > cap[r]:
                            m[r] = _qty(r, cap[r])
            for field in ("deserved", "capability", "guarantee"):
                if qs.get(field) in ({}, {"resource": {}}):
                    del qs[field]
            todo.append(q)

    if qrng.random() < 0.4:
        _hog(qrng, room, items, qrng.choice(leaves))

    # Parents go right after the leaves, root first.
    at = max(i for i, o in enumerate(items) if o["kind"] == "Queue") + 1
    items[at:at] = made

    if qrng.random() >= 1 / 15:
        return None
    fault = qrng.choice(TREE_FAULTS)
    inner = [q for q in by_name if q != "root" and children.get(q)]
    if fault == "missing-parent":
        q = qrng.choice(sorted(q for q in by_name if q != "root"))
        by_name[q]["spec"]["parent"] = "ghost"
    elif fault == "cycle":
        if inner:
            a = qrng.choice(sorted(inner))
            d, kids = [], list(children[a])
            while kids:
                d.append(kids.pop())
                kids += children.get(d[-1], [])
            by_name[a]["spec"]["parent"] = qrng.choice(sorted(d))
        else:
            a, b = (leaves * 2)[:2] if len(leaves) < 2 else qrng.sample(leaves, 2)
            by_name[a]["spec"]["parent"] = b
            by_name[b]["spec"]["parent"] = a
    elif fault in ("over-guarantee", "over-deserved"):
        field = "guarantee" if fault == "over-guarantee" else "deserved"
        up = qrng.choice(sorted(inner) + ["root"])
        if up == "root" and "root" not in by_name:
            by_name["root"] = _queue_obj("root", {"weight": 1})
            items.insert(at, by_name["root"])
        kid = qrng.choice(children[up])
        ks = by_name[kid]["spec"]
        m = ks.setdefault(field, {})
        if field == "guarantee":
            m = m.setdefault("resource", {})
        # At least what its own children state, so the fault is at `up`.
        own = sum(stated(by_name[c]["spec"], field).get("cpu", 0)
                  for c in children.get(kid, []))
        m["cpu"] = _qty("cpu", max(quantity(m.get("cpu", "0")), own, Fraction(2)))
        total = sum(stated(by_name[c]["spec"], field).get("cpu", 0) for c in children[up])
        us = by_name[up]["spec"]
        um = us.setdefault(field, {})
        if field == "guarantee":
            um = um.setdefault("resource", {})
        um["cpu"] = _qty("cpu", total / 2)
    else:
        pgs = [o for o in items if o["kind"] == "PodGroup"]
        pg = qrng.choice(pgs)
        pg["spec"]["queue"] = qrng.choice(sorted(inner) + ["root"])
    return fault


# --- the network (Volcano HyperNodes), on its own stream ---

# Label the generator puts on nodes that a HyperNode selects by labelMatch.
NETWORK_LABEL = "example.com/network-group"
TIER_NAMES = ["rack", "spine", "block", "cell"]
NETWORK_FAULTS = ["node-in-two-racks", "rack-in-two-spines", "missing-node",
                  "missing-hypernode"]


def _node_index(name):
    return int(name.split("-")[1])


def _node_members(nrng, hname, chunk, j):
    """Members of HyperNode `hname` selecting exactly the nodes `chunk`:
    one exactMatch each, one regexMatch (a range of indices, or the names
    alternated; always anchored at both ends, so that a full match and a
    search agree), or one labelMatch on a label put on those nodes (with
    node-type too at times, when they share it)."""
    names = [n["metadata"]["name"] for n in chunk]
    r = nrng.random()
    if r < 0.35:
        return [{"type": "Node", "selector": {"exactMatch": {"name": x}}} for x in names]
    if r < 0.7:
        idx = sorted(_node_index(x) for x in names)
        tens = {i // 10 for i in idx}
        if (len(idx) > 1 and len(tens) == 1 and idx == list(range(idx[0], idx[-1] + 1))
                and nrng.random() < 0.6):
            t = idx[0] // 10
            pattern = "^node-%d[%d-%d]-[a-z0-9]+$" % (t, idx[0] % 10, idx[-1] % 10)
        else:
            pattern = "^(%s)$" % "|".join(names)
        return [{"type": "Node", "selector": {"regexMatch": {"pattern": pattern}}}]
    value = "%s-%d" % (hname, j)
    match = {NETWORK_LABEL: value}
    for n in chunk:
        n["metadata"]["labels"][NETWORK_LABEL] = value
    types = {n["metadata"]["labels"].get("node-type") for n in chunk}
    if len(types) == 1 and nrng.random() < 0.25:
        match["node-type"] = types.pop()
    return [{"type": "Node", "selector": {"labelMatch": {"matchLabels": match}}}]


def _hypernode_members(nrng, kids):
    if len(kids) > 1 and nrng.random() < 0.3:
        return [{"type": "HyperNode",
                 "selector": {"regexMatch": {"pattern": "^(%s)$" % "|".join(kids)}}}]
    return [{"type": "HyperNode", "selector": {"exactMatch": {"name": k}}} for k in kids]


def _hypernode(name, tier, tier_name, members):
    spec = {"tier": tier, "members": members}
    if tier_name:
        spec["tierName"] = tier_name
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
            "metadata": {"name": name}, "spec": spec}


def _network(nrng, items, nodes):
    """A random network over `nodes`, described by HyperNodes inserted
    after the nodes: 2-4 tiers; racks (tier 1) of 1-6 nodes (small ones
    more often), mostly of consecutive nodes, one node in ten in no rack; above them groups of
    1-3 domains of the tier below, one in seven left under no parent, and
    at times a domain two tiers down taken in directly. Node members are
    written as exactMatch, regexMatch or labelMatch (_node_members),
    HyperNode members as exactMatch or regexMatch. Each tier is named
    (spec.tierName: rack, spine, block, cell) in 85% of cases.

    About three PodGroups in ten (not the hog's; 45% of the pending ones
    free to go anywhere, 25% of the others) get spec.networkTopology: hard
    (40% of the former, 70% of the latter), limited by highestTierAllowed
    1..top tier (1 in 20 one above, Volcano's whole-cluster tier) or by
    highestTierName; a gang already
    running is given, half the time, the narrowest tier holding its pods
    or wider (so it may grow), else any limit (it may be scattered
    already: then it must not grow). Or soft, half of those with
    highestTierAllowed.

    In three networks in five 1-3 spare nodes (no taints, no pods; after the
    others) join first, so that some racks are empty at the start.

    With probability 1/20 one fault of NETWORK_FAULTS is put in. Returns
    the fault's name, or None."""
    nodes = list(nodes)
    spare = []
    if nrng.random() < 0.6:
        zones = [n["metadata"]["labels"].get(ZONE) for n in nodes]
        for _ in range(nrng.randint(1, 3)):
            shape, cpu, mem, _gpu = nrng.choice([x for x in NODE_SHAPES if not x[3]])
            i = len(nodes)
            name = "node-%02d-%s" % (i, shape)
            labels = {HOSTNAME: name, "node-type": "cpu"}
            zone = nrng.choice(zones)
            if zone:
                labels[ZONE] = zone
            alloc = {"cpu": cpu, "memory": mem, "pods": "110"}
            n = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": labels, "uid": "node-uid-%d" % i},
                 "spec": {},
                 "status": {"capacity": dict(alloc), "allocatable": alloc,
                            "conditions": [{"type": "Ready", "status": "True"}]}}
            nodes.append(n)
            spare.append(n)
    tiers = nrng.randint(2, 4)
    tier_names = [TIER_NAMES[t] if nrng.random() < 0.85 else None for t in range(tiers)]
    order = list(nodes)
    if nrng.random() < 0.2:
        nrng.shuffle(order)
    racks = []
    i = 0
    while i < len(order):
        if nrng.random() < 0.1 and (racks or i < len(order) - 1):
            i += 1
            continue
        size = min(nrng.randint(1, 6), nrng.randint(1, 6))  # small racks more often
        racks.append(order[i:i + size])
        i += size
    hypernodes = []
    by_name = {}
    domain_nodes = {}
    for r, rack in enumerate(racks):
        name = "rack-%d" % r
        chunks = [rack]
        if len(rack) > 1 and nrng.random() < 0.3:
            cut = nrng.randint(1, len(rack) - 1)
            chunks = [rack[:cut], rack[cut:]]
        members = []
        for j, chunk in enumerate(chunks):
            members += _node_members(nrng, name, chunk, j)
        h = _hypernode(name, 1, tier_names[0], members)
        hypernodes.append(h)
        by_name[name] = h
        domain_nodes[name] = {n["metadata"]["name"] for n in rack}
    below = sorted(by_name)
    below.sort(key=lambda x: int(x.split("-")[1]))
    orphans = []  # (name, tier): left under no parent
    tier_of = {n: 1 for n in below}
    for t in range(2, tiers + 1):
        prefix = TIER_NAMES[t - 1]
        groups = []
        j = 0
        while j < len(below):
            if nrng.random() < 0.15 and (groups or j < len(below) - 1):
                orphans.append(below[j])
                j += 1
                continue
            size = nrng.randint(1, 3)
            groups.append(below[j:j + size])
            j += size
        # At times a domain two or more tiers down, left under no parent,
        # is taken in directly.
        low = [o for o in orphans if tier_of[o] < t - 1]
        if low and nrng.random() < 0.25:
            o = nrng.choice(low)
            orphans.remove(o)
            nrng.choice(groups).append(o)
        ups = []
        for g, kids in enumerate(groups):
            name = "%s-%d" % (prefix, g)
            h = _hypernode(name, t, tier_names[t - 1], _hypernode_members(nrng, kids))
            hypernodes.append(h)
            by_name[name] = h
            tier_of[name] = t
            domain_nodes[name] = set().union(*(domain_nodes[k] for k in kids))
            ups.append(name)
        below = ups

    # Constraints on some PodGroups.
    placed = collections.defaultdict(set)
    for o in items:
        if o["kind"] == "Pod" and o["spec"].get("nodeName"):
            g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
            if g:
                placed[(o["metadata"]["namespace"], g)].add(o["spec"]["nodeName"])
    plain = collections.defaultdict(lambda: True)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            reqs = pod_requests(o)
            if (o["spec"].get("nodeName") or o["spec"].get("nodeSelector") or has_interpod(o)
                    or "nvidia.com/gpu" in reqs or set(reqs) <= {"pods"}):
                plain[(o["metadata"]["namespace"], g)] = False
    for pg in items:
        if pg["kind"] != "PodGroup" or pg["metadata"]["name"].startswith("pg-hog"):
            continue
        # Pending gangs free to go anywhere (no selector, GPU, inter-pod
        # term; asking for something) are constrained more often, soft
        # mostly: those are the gangs network-soft-one-domain can judge.
        easy = plain[(pg["metadata"]["namespace"], pg["metadata"]["name"])]
        if nrng.random() >= (0.45 if easy else 0.25):
            continue
        nt = {}
        if nrng.random() < (0.4 if easy else 0.7):
            nt["mode"] = "hard"
            on = placed.get((pg["metadata"]["namespace"], pg["metadata"]["name"]))
            if on and nrng.random() < 0.5:
                fit = [tier_of[d] for d in domain_nodes if on <= domain_nodes[d]]
                least = min(fit) if fit else tiers + 1
                tier = nrng.randint(least, tiers + 1) if least <= tiers else least
            else:
                tier = nrng.randint(1, tiers) if nrng.random() >= 0.05 else tiers + 1
            if tier <= tiers and tier_names[tier - 1] and nrng.random() < 0.3:
                nt["highestTierName"] = tier_names[tier - 1]
            else:
                nt["highestTierAllowed"] = tier
        else:
            nt["mode"] = "soft"
            if nrng.random() < 0.5:
                nt["highestTierAllowed"] = nrng.randint(1, tiers)
        pg["spec"]["networkTopology"] = nt

    fault = None
    if nrng.random() < 1 / 20:
        fault = nrng.choice(NETWORK_FAULTS)
        rack_names = ["rack-%d" % r for r in range(len(racks))]
        spines = [n for n in by_name if tier_of[n] == 2]
        if fault == "node-in-two-racks" and len(racks) < 2:
            fault = "missing-node"
        if fault == "rack-in-two-spines" and len(spines) < 2:
            fault = "missing-hypernode"
        if fault == "node-in-two-racks":
            a, b = nrng.sample(range(len(racks)), 2)
            n = nrng.choice(racks[a])["metadata"]["name"]
            by_name[rack_names[b]]["spec"]["members"].append(
                {"type": "Node", "selector": {"exactMatch": {"name": n}}})
        elif fault == "rack-in-two-spines":
            s = nrng.choice(sorted(spines))
            kids = [r for r in rack_names if domain_nodes[r] <= domain_nodes[s]]
            other = nrng.choice(sorted(x for x in spines if x != s))
            r = nrng.choice(kids) if kids else nrng.choice(rack_names)
            by_name[other]["spec"]["members"].append(
                {"type": "HyperNode", "selector": {"exactMatch": {"name": r}}})
        elif fault == "missing-node":
            by_name[nrng.choice(rack_names)]["spec"]["members"].append(
                {"type": "Node", "selector": {"exactMatch": {"name": "node-99-missing"}}})
        else:
            ups = sorted(n for n in by_name if tier_of[n] >= 2)
            by_name[nrng.choice(ups)]["spec"]["members"].append(
                {"type": "HyperNode", "selector": {"exactMatch": {"name": "rack-missing"}}})
    at = max(i for i, o in enumerate(items) if o["kind"] == "Node") + 1
    items[at:at] = spare + hypernodes
    _sub_groups(nrng, items, tiers, tier_names)
    return fault


SUB_GROUP_LABEL = "example.com/replica"


def _sub_groups(nrng, items, tiers, tier_names):
    """About one PodGroup in six of two pods or more gets a
    spec.subGroupPolicy: its pods labelled SUB_GROUP_LABEL 0..k-1 in turn
    (a pod in five left without the label: in no sub-group), sub-groups of
    subGroupSize 1..their size, minSubGroups 0..k, each hard or soft
    within a random tier, or without a constraint."""
    pods = collections.defaultdict(list)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            pods[(o["metadata"]["namespace"], g)].append(o)
    for pg in items:
        if pg["kind"] != "PodGroup" or pg["metadata"]["name"].startswith("pg-hog"):
            continue
        members = pods.get((pg["metadata"]["namespace"], pg["metadata"]["name"]), [])
        if len(members) < 2 or nrng.random() >= 1 / 6:
            continue
        k = nrng.randint(1, min(3, len(members)))
        sizes = collections.Counter()
        for i, o in enumerate(members):
            if nrng.random() < 0.2:
                continue
            o["metadata"].setdefault("labels", {})[SUB_GROUP_LABEL] = str(i % k)
            sizes[i % k] += 1
        if not sizes:
            continue
        policy = {"name": "replica", "matchLabelKeys": [SUB_GROUP_LABEL],
                  "subGroupSize": nrng.randint(1, max(1, min(sizes.values()))),
                  "minSubGroups": nrng.randint(0, len(sizes))}
        r = nrng.random()
        if r < 0.5:
            tier = nrng.randint(1, tiers)
            nt = {"mode": "hard"}
            if tier_names[tier - 1] and nrng.random() < 0.3:
                nt["highestTierName"] = tier_names[tier - 1]
            else:
                nt["highestTierAllowed"] = tier
            policy["networkTopology"] = nt
        elif r < 0.75:
            policy["networkTopology"] = {"mode": "soft"}
        pg["spec"]["subGroupPolicy"] = [policy]


WORKLOAD_POD_GROUP = "workers"


def _workloads(wrng, items):
    """A PodGroup in four (not the hogs, none with a network constraint,
    sub-groups, role minimums or minResources) becomes a scheduling.k8s.io/
    v1alpha1 Workload of one podGroup: a gang of minMember, or, at times
    for minMember 1 or less, basic (each pod on its own). Its queue moves to
    the scheduling.volcano.sh/queue-name annotation; its pods drop the
    group annotation and name it by spec.workloadRef."""
    pods = collections.defaultdict(list)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            pods[(o["metadata"]["namespace"], g)].append(o)
    out = []
    for o in items:
        spec = o.get("spec") or {}
        if (o["kind"] != "PodGroup" or o["metadata"]["name"].startswith("pg-hog")
                or any(k in spec for k in ("networkTopology", "subGroupPolicy",
                                           "minTaskMember", "minResources"))
                or wrng.random() >= 0.25):
            out.append(o)
            continue
        ns, name = o["metadata"]["namespace"], o["metadata"]["name"]
        min_member = spec.get("minMember", 1)
        policy = ({"basic": {}} if min_member <= 1 and wrng.random() < 0.5
                  else {"gang": {"minCount": max(1, min_member)}})
        meta = {"name": name, "namespace": ns, "uid": "wl-%s-%s" % (ns, name),
                "creationTimestamp": o["metadata"]["creationTimestamp"]}
        if spec.get("queue"):
            meta["annotations"] = {"scheduling.volcano.sh/queue-name": spec["queue"]}
        out.append({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                    "metadata": meta,
                    "spec": {"podGroups": [{"name": WORKLOAD_POD_GROUP, "policy": policy}]}})
        for p in pods.get((ns, name), []):
            del p["metadata"]["annotations"][GROUP_ANNOTATION]
            if not p["metadata"]["annotations"]:
                del p["metadata"]["annotations"]
            p["spec"]["workloadRef"] = {"name": name, "podGroup": WORKLOAD_POD_GROUP}
    items[:] = out

# --- Dynamic Resource Allocation (resource.k8s.io/v1), on its own stream ---

DRA_DRIVER = "gpu.example.com"
DRA_API = "resource.k8s.io/v1"
# Every CEL selector the generator writes, and its meaning, which the
# oracle evaluates itself (device_rules.py; no CEL engine): (kind, name,
# op, value) where kind is `driver` (the device's driver), `attribute`
# (an attribute in the driver's domain: a string or an int) or `capacity`
# (a quantity, compared as one), op one of ==, <, >=.
DEVICE_SELECTORS = {
    "device.driver == 'gpu.example.com'": ("driver", None, "==", DRA_DRIVER),
    "device.attributes['gpu.example.com'].model == 'h100'": ("attribute", "model", "==", "h100"),
    "device.attributes['gpu.example.com'].model == 'a100'": ("attribute", "model", "==", "a100"),
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0":
        ("capacity", "memory", ">=", "80Gi"),
    "device.attributes['gpu.example.com'].index < 4": ("attribute", "index", "<", 4),
    "device.attributes['gpu.example.com'].index >= 2": ("attribute", "index", ">=", 2),
}
# The partition profiles of the sharing stream (generate_sharing.py).
DEVICE_SELECTORS.update(generate_sharing.SELECTORS)
# The DeviceClasses a DRA seed picks 1-2 of: name, selectors.
DEVICE_CLASSES = [
    ("gpu.example.com", ["device.driver == 'gpu.example.com'"]),
    ("h100", ["device.driver == 'gpu.example.com'",
              "device.attributes['gpu.example.com'].model == 'h100'"]),
    ("big-gpu", ["device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0"]),
    ("low-gpu", ["device.attributes['gpu.example.com'].index < 4"]),
]
# What a claim's request may add (at most one in most claims).
REQUEST_SELECTORS = [
    "device.attributes['gpu.example.com'].model == 'h100'",
    "device.attributes['gpu.example.com'].model == 'a100'",
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0",
    "device.attributes['gpu.example.com'].index < 4",
    "device.attributes['gpu.example.com'].index >= 2",
]
FABRIC_POOL = "fabric"


def _dra_device(drng, name, index, model):
    model = model or drng.choice(["a100", "h100"])
    memory = "80Gi" if model == "h100" else drng.choice(["40Gi", "80Gi"])
    return {"name": name, "attributes": {"model": {"string": model}, "index": {"int": index}},
            "capacity": {"memory": {"value": memory}}}


def _dra_slice(name, pool, devices, **where):
    spec = {"driver": DRA_DRIVER, "pool": {"name": pool, "generation": 1,
                                           "resourceSliceCount": 1},
            "devices": devices}
    spec.update(where)
    return {"apiVersion": DRA_API, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": spec}


def _dra_claim(name, ns, device_class, count, selectors, request="gpu"):
    exactly = {"deviceClassName": device_class, "allocationMode": "ExactCount",
               "count": count}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"apiVersion": DRA_API, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": "claim-%s-%s" % (ns, name),
                         "resourceVersion": "1"},
            "spec": {"devices": {"requests": [{"name": request, "exactly": exactly}]}}}


def _dra_use(pod, entry, claim_name):
    pod["spec"].setdefault("resourceClaims", []).append(
        {"name": entry, "resourceClaimName": claim_name})


def _dra_allocate(claim, node, devices, request, consumers):
    """status.allocation of `claim`: `devices` (names in pool `node`) of
    node `node`'s slice, reserved for `consumers` (pods)."""
    claim["status"] = {
        "allocation": {
            "devices": {"results": [{"request": request, "driver": DRA_DRIVER, "pool": node,
                                     "device": d} for d in devices]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
        "reservedFor": [{"resource": "pods", "name": p["metadata"]["name"],
                         "uid": p["metadata"]["uid"]} for p in consumers]}


def _dra_matches(device, selectors):
    """The meaning of `selectors` (DEVICE_SELECTORS) on a generated device."""
    for s in selectors:
        kind, name, op, value = DEVICE_SELECTORS[s]
        if kind == "driver":
            have = DRA_DRIVER
        elif kind == "attribute":
            have = next(iter(device["attributes"][name].values()))
        else:
            have, value = quantity(device["capacity"][name]["value"]), quantity(value)
        if not {"==": have == value, "<": have < value, ">=": have >= value}[op]:
            return False
    return True


def _dra(drng, items, nodes):
    """A DRA seed: each node a ResourceSlice (three in four) of 0-8 devices
    of driver gpu.example.com in a pool named after it, attributes model
    (a100/h100, one per node or mixed) and index, capacity memory
    (40Gi/80Gi; h100 always 80Gi); two seeds in five a network-attached
    slice of 1-4 devices (pool `fabric`) for all nodes or those a label
    selects; 1-2 DeviceClasses (DEVICE_CLASSES); two gangs in five (not
    the hogs) a ResourceClaim per pod (ExactCount 1-2 of a class, at times
    a request selector from REQUEST_SELECTORS), one such gang in five also
    a claim two of its pods share, and pods of such gangs that already
    run their claims allocated on their node (else the gang gets none).
    Now and then a claim allocated in the snapshot to free devices of one
    node, reserved for a running pod of another scheduler there, and at
    times named by a pending pod of a claiming gang too (which it then
    confines to that node); in two claiming seeds in five the Queue of a
    claiming gang caps the devices of a class (deviceclass/<class>: 1-6).
    Nothing else of the seed changes."""
    slices, free = [], {}
    for n in nodes:
        name = n["metadata"]["name"]
        if drng.random() >= 0.75:
            continue
        model = drng.choice(["a100", "h100", None])
        devices = [_dra_device(drng, "gpu-%d" % i, i, model) for i in range(drng.randint(0, 8))]
        slices.append(_dra_slice("%s-%s" % (name, DRA_DRIVER), name, devices, nodeName=name))
        free[name] = [d["name"] for d in devices]
    if drng.random() < 0.4:
        devices = [_dra_device(drng, "fgpu-%d" % i, i, None) for i in range(drng.randint(1, 4))]
        if drng.random() < 0.5:
            where = {"allNodes": True}
        else:
            key, value = drng.choice([("node-type", "gpu"), ("node-type", "cpu"),
                                      (ZONE, "zone-" + drng.choice("abc"))])
            where = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": key, "operator": "In", "values": [value]}]}]}}
        slices.append(_dra_slice("fabric-" + DRA_DRIVER, FABRIC_POOL, devices, **where))
    classes = drng.sample(DEVICE_CLASSES, drng.randint(1, 2))
    out = list(slices)
    out += [{"apiVersion": DRA_API, "kind": "DeviceClass", "metadata": {"name": c},
             "spec": {"selectors": [{"cel": {"expression": s}} for s in sels]}}
            for c, sels in classes]
    device_of = {(s["spec"]["pool"]["name"], d["name"]): d for s in slices
                 for d in s["spec"]["devices"]}
    gangs = collections.OrderedDict()
    for o in items:
        if o["kind"] != "Pod" or o["spec"].get("schedulerName") != SCHEDULER:
            continue
        g = ((o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
             or (o["spec"].get("workloadRef") or {}).get("name"))
        if g and not g.startswith("pg-hog"):
            gangs.setdefault((o["metadata"]["namespace"], g), []).append(o)
    claiming = []
    for (ns, g), pods in gangs.items():
        if drng.random() >= 0.4:
            continue
        cname, csels = drng.choice(classes)
        count = drng.randint(1, 2)
        sels = [drng.choice(REQUEST_SELECTORS)] if drng.random() < 0.5 else []
        claims = [_dra_claim("%s-gpu" % p["metadata"]["name"], ns, cname, count, sels)
                  for p in pods]
        shared = None
        if len(pods) >= 2 and drng.random() < 0.2:
            shared = (drng.sample(range(len(pods)), 2),
                      _dra_claim("%s-shared" % g, ns, cname, 1, []))
        # Pods already running hold their claims on their node.
        trial = {n: list(v) for n, v in free.items()}
        allocations = []
        ok = True
        for p, c in [(p, c) for p, c in zip(pods, claims)] + (
                [(pods[i], shared[1]) for i in shared[0]] if shared else []):
            n = p["spec"].get("nodeName")
            if not n:
                continue
            if "status" in c:
                ok = ok and c["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0][
                    "matchFields"][0]["values"] == [n]
                c["status"]["reservedFor"].append({"resource": "pods",
                                                   "name": p["metadata"]["name"],
                                                   "uid": p["metadata"]["uid"]})
                continue
            want = c["spec"]["devices"]["requests"][0]["exactly"]
            sel = csels + [s["cel"]["expression"] for s in want.get("selectors", [])]
            fit = [d for d in trial.get(n, []) if _dra_matches(device_of[(n, d)], sel)]
            if len(fit) < want["count"]:
                ok = False
                break
            got = fit[:want["count"]]
            trial[n] = [d for d in trial[n] if d not in got]
            allocations.append((c, n, got, p))
        if not ok:
            continue
        free = trial
        for c, n, got, p in allocations:
            _dra_allocate(c, n, got, "gpu", [p])
        for p, c in zip(pods, claims):
            _dra_use(p, "gpu", c["metadata"]["name"])
        out += claims
        if shared:
            for i in shared[0]:
                _dra_use(pods[i], "shared", shared[1]["metadata"]["name"])
            out.append(shared[1])
        claiming.append((ns, g, pods))
    # Claims allocated in the snapshot, for pods of another scheduler.
    others = [o for o in items if o["kind"] == "Pod" and o["spec"].get("nodeName")
              and o["spec"].get("schedulerName") == OTHER_SCHEDULER
              and o["metadata"]["name"].startswith("other-")]
    for p in others:
        n = p["spec"]["nodeName"]
        fit = [d for d in free.get(n, []) if _dra_matches(device_of[(n, d)], classes[0][1])]
        if not fit or drng.random() >= 0.5:
            continue
        got = fit[:drng.randint(1, min(2, len(fit)))]
        free[n] = [d for d in free[n] if d not in got]
        c = _dra_claim("%s-gpu" % p["metadata"]["name"], p["metadata"]["namespace"],
                       classes[0][0], len(got), [])
        _dra_allocate(c, n, got, "gpu", [p])
        _dra_use(p, "gpu", c["metadata"]["name"])
        out.append(c)
        # At times a pending pod of a claiming gang in its namespace
        # shares it: that pod may go only where the devices are.
        mates = [x for ns, g, pods in claiming if ns == p["metadata"]["namespace"]
                 for x in pods if not x["spec"].get("nodeName")]
        if mates and drng.random() < 0.7:
            _dra_use(drng.choice(mates), "held", c["metadata"]["name"])
    # A device quota: in two claiming seeds in five, the Queue of a
    # claiming gang caps the devices of a class (deviceclass/<class>, as
    # Volcano's capacity names them) at 1-6.
    if claiming and drng.random() < 0.4:
        ns, g, _ = drng.choice(claiming)
        pg = next((o for o in items if o["kind"] == "PodGroup"
                   and o["metadata"]["name"] == g and o["metadata"]["namespace"] == ns), None)
        name = (pg or {}).get("spec", {}).get("queue")
        queue = next((o for o in items if o["kind"] == "Queue"
                      and o["metadata"]["name"] == name), None)
        if queue is not None:
            cap = queue["spec"].setdefault("capability", {})
            cap["deviceclass/" + drng.choice(classes)[0]] = str(drng.randint(1, 6))
    items += out


def generate(seed, queue_trees=True, networks=True, workloads=True, dra=True, sharing=True):
    """The cluster of `seed`; with queue_trees=False never a queue tree
    (the seed as it was before trees, for comparison), with
    networks=False never a network, with workloads=False no Workload, with
    dra=False no device objects or claims (likewise), with sharing=False
    no devices shared the 1.36 ways (generate_sharing.py; the seed's
    objects are then a prefix of what sharing=True gives)."""
    rng = random.Random(seed)
    # Inter-pod affinity, anti-affinity and spread draw from their own
    # stream, so every other choice of a seed is as before; so do queue
    # trees.
    trng = random.Random("shoal-topology-%d" % seed)
    topology = trng.random() < 0.5
    qrng = random.Random("shoal-queues-%d" % seed)
    tree_coin = qrng.random() < 0.5
    tree = tree_coin and queue_trees
    clock = [0]

    def tick():
        clock[0] += rng.choice([1, 2, 5, 10, 30, 90])
        return clock[0]

    items = []
    nodes = [_node(rng, i) for i in range(rng.randint(2, 8))]
    if topology:
        _relabel_zones(trng, nodes)
    items += nodes
    room = _Room(nodes)
    items += [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": n}, "value": v} for n, v in PRIORITY_CLASSES]

    total_cpu = sum(quantity(n["status"]["allocatable"]["cpu"]) for n in nodes)
    queues = []
    for i in range(rng.randint(1, 4)):
        spec = {"weight": rng.randint(1, 4), "reclaimable": rng.random() < 0.8}
        if rng.random() < 0.25:
            cap = total_cpu * rng.choice([1, 2, 3]) / 4
            spec["capability"] = {"cpu": "%dm" % int(cap * 1000)}
        state = "Closed" if rng.random() < 0.03 else "Open"
        q = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
             "metadata": {"name": "q%d" % i}, "spec": spec, "status": {"state": state}}
        items.append(q)
        queues.append("q%d" % i)
    queue_choices = queues + (["default"] if rng.random() < 0.3 else [])

    namespaces = ["team-a", "team-b", "default"]
    # Another scheduler's pods take room first.
    for i in range(rng.randint(0, 3)):
        req, selector, tolerations = _template(rng, nodes)
        p = _pod(rng, "other-%d" % i, "kube-system" if i == 0 else "default", tick(), req,
                 selector, tolerations, scheduler=OTHER_SCHEDULER, host_port=_host_port(rng))
        if rng.random() < 0.8:
            room.place(rng, [p])
        items.append(p)

    groups = []
    for g in range(rng.randint(2, 10)):
        ns = rng.choice(namespaces)
        name = "pg-%d" % g
        constraints = None
        if topology and trng.random() < 0.5:
            constraints = _gang_constraints(trng, name, ns, groups)
        groups.append((name, ns))
        size = rng.randint(1, 8)
        min_member = rng.randint(1, size)
        req, selector, tolerations = _template(rng, nodes)
        prio = rng.choice(PRIORITY_CLASSES) if rng.random() < 0.4 else None
        created = tick()
        spec = {"minMember": min_member, "queue": rng.choice(queue_choices)}
        if prio:
            spec["priorityClassName"] = prio[0]
        pods = []
        port = _host_port(rng)
        vary = rng.random() < 0.2
        for i in range(size):
            r = req
            if vary:
                r = dict(req)
                if r:
                    r["cpu"] = rng.choice(CPUS)
            pods.append(_pod(rng, "%s-%d" % (name, i), ns, created + (i % 2), r, selector,
                             tolerations, group=name, priority=prio, host_port=port,
                             constraints=constraints))
        if rng.random() < 0.15 and req:
            total = {}
            for p in pods[:min_member]:
                total = _add(total, {k: v for k, v in pod_requests(p).items()
                                     if k != "pods" and not k.startswith("hostport/")})
            spec["minResources"] = {k: "%dm" % int(v * 1000) if k == "cpu" else str(int(v))
                                    for k, v in sorted(total.items())}
        phase = "Pending"
        if rng.random() < 0.35:
            # Already running: at least its minimum, maybe all.
            n = rng.randint(min_member, size)
            if room.place(rng, pods[:n]):
                phase = "Running"
        elif rng.random() < 0.1:
            phase = "Inqueue"
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                      "metadata": {"name": name, "namespace": ns, "uid": "pg-%s-%s" % (ns, name),
                                   "creationTimestamp": timestamp(created)},
                      "spec": spec, "status": {"phase": phase}})
        items += pods

    if topology:
        items += _guards(trng, room, groups)
    for i in range(rng.randint(0, 3)):
        req, selector, tolerations = _template(rng, nodes)
        prio = rng.choice(PRIORITY_CLASSES) if rng.random() < 0.4 else None
        p = _pod(rng, "lone-%d" % i, rng.choice(namespaces), tick(), req, selector,
                 tolerations, priority=prio, host_port=_host_port(rng))
        if rng.random() < 0.3:
            room.place(rng, [p])
        items.append(p)
    if tree:
        _queue_tree(qrng, items, nodes, room)
    elif not tree_coin:
        # Pressure seeds (a stream of their own; never tree seeds, which
        # have their _hog): running work in one of the flat queues,
        # tolerating the generator's NoSchedule taints, fills the idle
        # room, so that the other queues' gangs need reclaim to reach
        # their water-filled (proportion) shares.
        prng = random.Random("shoal-pressure-%d" % seed)
        if prng.random() < 0.4:
            _hog(prng, room, items, prng.choice(queues), most=200,
                 tolerations=[{"key": t["key"], "operator": "Exists", "effect": "NoSchedule"}
                              for t in (GPU_TAINT, BATCH_TAINT)])
    # Network seeds (a fifth stream; two in five of the seeds with three
    # nodes or more): HyperNodes describe racks and wider tiers, node
    # labels they select by, spare empty nodes at times and
    # spec.networkTopology on some PodGroups; nothing else of the seed
    # changes.
    nrng = random.Random("shoal-network-%d" % seed)
    if nrng.random() < 0.4 and len(nodes) >= 3 and networks:
        _network(nrng, items, nodes)
    # Kubernetes' own gangs (a sixth stream): some PodGroups written as
    # Workloads instead, their pods joining by spec.workloadRef.
    wrng = random.Random("shoal-workload-%d" % seed)
    if wrng.random() < 0.3 and workloads:
        _workloads(wrng, items)
    # DRA seeds (a seventh stream; three in ten): ResourceSlices,
    # DeviceClasses and ResourceClaims on some gangs' pods (_dra), added
    # last; nothing else of the seed changes.
    drng = random.Random("shoal-dra-%d" % seed)
    if drng.random() < 0.3 and dra:
        _dra(drng, items, nodes)
        # Devices shared the 1.36 ways (an eighth stream, drawn last; two
        # DRA seeds in three): partitions spending shared counters,
        # sharable GPUs with capacity, taints, admin access, claims the
        # snapshot already holds; only appended, so everything before
        # stays as it was.
        srng = random.Random("shoal-dra-sharing-%d" % seed)
        if srng.random() < 2 / 3 and sharing:
            generate_sharing.add_sharing(srng, items, nodes, room, _pod, timestamp)
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


def dumps(snapshot):
    return json.dumps(snapshot, indent=1, sort_keys=True) + "\n"


def write(seed, path):
    with open(path, "w") as f:
        f.write(dumps(generate(seed)))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        write(int(sys.argv[1]), sys.argv[2])
    else:
        sys.stdout.write(dumps(generate(int(sys.argv[1]))))
