"""The oracle's model of a snapshot, shared by check.py and the *_rules
modules (the bottom of the oracle; it imports only kube.py): Model, the
snapshot's pods, nodes, gangs and queues as the oracle reads them;
QueueTree; the first fit that liveness and the rules place pods with;
Violation, a broken property; and the stated rules that may excuse an
idle gang that would fit (ACCEPTED_RULES), which check.py, device_rules.py
and reclaim_liveness.py all name. Standard library only.
"""

import collections

from kube import (SCHEDULER, GROUP_ANNOTATION, _add, fits, node_allocatable,
                  placement_problem, pod_requests, quantity, required_terms, same_domain,
                  term_decidable, term_matches)


# A gang whose pods carry required pod affinity, pod anti-affinity or a
# DoNotSchedule spread constraint: whether it fits the idle room honouring
# them is not decided here (a search over placements, and Shoal need not
# find one a different order would), except for the one case the oracle
# settles soundly and cheaply, anti-affinity to its own pods alone (one per
# node or zone): it fits when enough domains each hold a node with room for
# any member and no pod in conflict with it, since then every order of
# placing works. Any other constrained gang that waits is excused by this.
UNDECIDED_INTERPOD = ("inter-pod affinity / anti-affinity / DoNotSchedule spread: the oracle "
                      "does not decide whether the gang fits")
# A gang under a hard network constraint (spec.networkTopology) fits only
# inside one domain within its limit that holds its placed pods; when none
# has room for its missing minimum it waits by the rule (the oracle's own
# reading of the HyperNodes decides, not the message). On a faulty network
# description it is not judged.
NETWORK_HARD_NO_DOMAIN = ("network (hard): no domain within the gang's limit holds its "
                          "minimum with the pods it already has (oracle)")
# A gang whose missing minimum names ResourceClaims fits only where its
# claims are served too (device_rules.first_fit; the oracle's reading of the
# slices, classes and selectors decides, not the message).
DEVICES_NO_FIT = ("DRA: no free devices for the gang's claims on nodes with room for its "
                  "minimum (oracle)")
NETWORK_UNJUDGED = ("network (hard): faulty network description or a limit the oracle cannot "
                    "read; not judged")
# The stated rules that may keep a fitting gang waiting: (label, phrase in
# the PodGroup's message). The one place to change what counts as an
# excuse; run.py prints how often each one was used.
ACCEPTED_RULES = [
    ("queue capability (queue ... is full)", "is full"),
    # The queue tree: accepted only where QueueTree agrees the gang's
    # queue is held (TREE_RULES).
    ("queue tree: a parent queue that does not exist", "(spec.parent), which does not exist"),
    ("queue tree: queues naming each other as parents", "a cycle, not a tree"),
    ("queue tree: children guarantee more than their parent",
     "guarantee more than it does (spec.guarantee)"),
    ("queue tree: children deserve more than their parent",
     "deserve more than it does (spec.deserved)"),
    ("queue tree: a job in a queue with child queues", "only a leaf queue holds jobs"),
    ("reservation: admission held for a waiting gang", "admission is held for podgroup"),
    ("reservation: nodes reserved for a waiting gang", "reserved for a gang waiting too long"),
    ("overcommit: minimum exceeds what the cluster can still promise",
     "does not fit what the cluster can still promise"),
    ("queue does not exist", "does not exist"),
    ("queue closed", "is closed and admits no new work"),
    ("not enough pods for the gang", "not enough pods"),
    ("allocate strictOrder: waiting behind a job that cannot start", "waiting behind podgroup"),
    ("elastic oldest-first: a job whose resize costs a restart waits to start whole "
     "(up to the fairness bound)", "starts when all its pods fit in the room older jobs leave"),
    ("a field Shoal does not implement yet (pod refused by name)",
     "which Shoal does not implement yet"),
    # Decided by the oracle, not by the message (phrase None):
    (UNDECIDED_INTERPOD, None),
    (NETWORK_HARD_NO_DOMAIN, None),
    (NETWORK_UNJUDGED, None),
    (DEVICES_NO_FIT, None),
]
TREE_RULES = {label for label, _ in ACCEPTED_RULES if label.startswith("queue tree:")}
FULL_RULE = ACCEPTED_RULES[0][0]

RECLAIM_LIVENESS = "reclaim-liveness"  # its oracle: reclaim_liveness.py


class Violation(collections.namedtuple("Violation", "kind obj detail")):
    def __str__(self):
        return "%s: %s: %s" % (self.kind, self.obj, self.detail)


def key(obj):
    m = obj["metadata"]
    return "%s/%s" % (m.get("namespace", "default"), m["name"])


def _fmt(res):
    out = []
    for k in sorted(res):
        v = res[k]
        if k == "cpu":
            out.append("cpu=%sm" % (v * 1000))
        elif k == "memory":
            out.append("memory=%sMi" % (float(v) / 2**20))
        else:
            out.append("%s=%s" % (k, v))
    return " ".join(out)


def _queue_resources(spec, field):
    m = spec.get(field) or {}
    if field == "guarantee":
        m = m.get("resource") or {}
    return {r: quantity(v) for r, v in m.items()}


class QueueTree:
    """The queue tree as the README states it ("The queue tree"), read from
    the Queue objects alone: spec.parent names a queue's parent; the top
    is the Queue named `root`, implicit (and unlimited) when some queue
    names a parent and none is named root. With a tree, a queue naming no
    parent, and the implicit queue `default`, sit right under root;
    without one (no parent named, no root) every queue is on its own.

    `held[q]`: why queue q's jobs may not run, in the oracle's words, for
    every queue in a part of the tree that cannot be honoured and every
    queue with children (root included); `faulty` is the part of that
    from faults of the tree (not merely having children). A resource a
    parent's guarantee or deserved share does not name is no limit on its
    children's (the README: "more than their parent states")."""

    def __init__(self, queues):
        self.spec = {q["metadata"]["name"]: q.get("spec") or {} for q in queues}
        self.on = any(s.get("parent") for s in self.spec.values()) or "root" in self.spec
        self.parent = {}
        if self.on:
            for q in list(self.spec) + ([] if "default" in self.spec else ["default"]):
                if q != "root":
                    self.parent[q] = self.spec.get(q, {}).get("parent") or "root"
        known = set(self.spec) | ({"root", "default"} if self.on else set())
        self.faulty = {}
        # Walk up from each queue: a parent that is not there, or a loop.
        self.path = {}
        for q in sorted(self.parent):
            path = [q]
            while path[-1] in self.parent:
                up = self.parent[path[-1]]
                if up not in known:
                    self.faulty[q] = ("queue %s (on its path) names parent %s, which does "
                                      "not exist" % (path[-1], up))
                    break
                if up in path:
                    self.faulty[q] = "queues %s name each other as parents" % ", ".join(
                        sorted(path[path.index(up):]))
                    break
                path.append(up)
            self.path[q] = path
        self.children = collections.defaultdict(list)
        for q, up in sorted(self.parent.items()):
            self.children[up].append(q)
        # Children stating more than their parent states.
        for up in sorted(self.children):
            for field in ("guarantee", "deserved"):
                mine = _queue_resources(self.spec.get(up, {}), field)
                for r, v in sorted(mine.items()):
                    total = sum(_queue_resources(self.spec.get(c, {}), field).get(r, 0)
                                for c in self.children[up])
                    if total > v:
                        why = ("the children of queue %s state %s %s in all, more than "
                               "its %s" % (up, field, _fmt({r: total}), _fmt({r: v})))
                        for q, path in self.path.items():
                            if up in path[1:]:
                                self.faulty.setdefault(q, why)
        self.held = dict(self.faulty)
        for up, kids in self.children.items():
            self.held.setdefault(up, "queue %s has child queues (%s)" % (up, ", ".join(kids)))

    def capability(self, q):
        return _queue_resources(self.spec.get(q, {}), "capability")

    def subtree(self, top):
        """`top` and every queue with `top` on its path up."""
        if not self.on:
            return {top}
        return {top} | {q for q, path in self.path.items() if top in path}


class Model:
    """The snapshot as the oracle sees it."""

    def __init__(self, snapshot, scheduler=SCHEDULER):
        items = snapshot["items"]
        self.nodes = {o["metadata"]["name"]: o for o in items if o["kind"] == "Node"}
        self.alloc = {n: node_allocatable(o) for n, o in self.nodes.items()}
        self.pods = {key(o): o for o in items if o["kind"] == "Pod"}
        self.req = {k: pod_requests(p) for k, p in self.pods.items()}
        self.ours = {k for k, p in self.pods.items()
                     if p["spec"].get("schedulerName", "default-scheduler") == scheduler}
        # Groups: PodGroups by namespace/name; a pod of ours with no group
        # annotation is a job of one named by the pod.
        self.groups = {}
        # Kubernetes' Workloads (scheduling.k8s.io/v1alpha1): each gang
        # podGroup a group named namespace/workload/podGroup, its queue from
        # the queue-name annotation; a basic podGroup's pods are alone.
        basic = set()
        for o in items:
            if o["kind"] == "PodGroup":
                self.groups[key(o)] = {"min": o["spec"].get("minMember", 1), "pods": [],
                                       "obj": o}
            elif o["kind"] == "Workload":
                queue = (o["metadata"].get("annotations") or {}).get(
                    "scheduling.volcano.sh/queue-name") or "default"
                for pg in o["spec"].get("podGroups", []):
                    gk = "%s/%s" % (key(o), pg["name"])
                    gang = pg.get("policy", {}).get("gang")
                    if gang is None:
                        basic.add(gk)
                        continue
                    self.groups[gk] = {"min": gang.get("minCount", 1), "pods": [],
                                       "obj": {"spec": {"queue": queue}}}
        self.group_of = {}
        for k, p in self.pods.items():
            if k not in self.ours:
                continue
            g = (p["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
            g = (p["metadata"].get("labels") or {}).get("scheduling.x-k8s.io/pod-group", g)
            ref = p["spec"].get("workloadRef")
            if ref and not g:
                g = "%s/%s" % (ref["name"], ref["podGroup"])
                if ref.get("podGroupReplicaKey"):
                    g += "/" + ref["podGroupReplicaKey"]
                if "%s/%s" % (p["metadata"].get("namespace", "default"), g) in basic:
                    g = None
            if g:
                gk = "%s/%s" % (p["metadata"].get("namespace", "default"), g)
                self.group_of[k] = gk
                if gk in self.groups:
                    self.groups[gk]["pods"].append(k)
            else:
                self.group_of[k] = k
                self.groups[k] = {"min": 1, "pods": [k], "obj": None}
        # The queue of each job (a PodGroup without spec.queue, and a pod
        # without a group, go to queue `default`); of each pod of ours in
        # a job.
        self.queue_of_group = {g: ((info["obj"] or {}).get("spec", {}).get("queue") or "default")
                               for g, info in self.groups.items()}
        self.queue_of = {k: self.queue_of_group[g] for k, g in self.group_of.items()
                         if g in self.groups}
        self.queues = [o for o in items if o["kind"] == "Queue"]
        self.tree = QueueTree(self.queues)

    def initial_placement(self):
        where = {}
        for k, p in self.pods.items():
            if p["spec"].get("nodeName") and p.get("status", {}).get("phase") not in (
                    "Succeeded", "Failed"):
                where[k] = p["spec"]["nodeName"]
        return where

    def used(self, where, extra=()):
        used = {n: {} for n in self.nodes}
        for k, n in list(where.items()) + list(extra):
            if n in used:
                used[n] = _add(used[n], self.req[k])
        return used


def _cheap(req):
    return (req.get("nvidia.com/gpu", 0), req.get("cpu", 0), req.get("memory", 0))


def first_fit(model, pods, free, order, blocked=lambda k, n: False):
    """Places `pods` one by one on the first node (in `order(free)`) where
    the pod fits and may go (and `blocked(pod, node)` is false); returns
    the placement or None."""
    free = {n: dict(f) for n, f in free.items()}
    placed = []
    for k in pods:
        for n in order(free, model.req[k]):
            if fits(model.req[k], free[n]) and placement_problem(
                    model.pods[k], model.nodes[n]) is None and not blocked(k, n):
                free[n] = _add(free[n], model.req[k], -1)
                placed.append((k, n))
                break
        else:
            return None
    return placed


def _blocked_by_anti_affinity(model, present):
    """blocked(pod, node): a pod in `present` has required anti-affinity
    selecting the pod, in the node's domain (kube-scheduler's symmetry
    rule); a term the oracle cannot judge blocks too."""
    holders = [(x, m, t) for x, m in present.items()
               for t in required_terms(model.pods[x], "podAntiAffinity")]

    def blocked(k, n):
        return any(same_domain(t["topologyKey"], model.nodes[n], model.nodes[m]) and
                   (not term_decidable(t) or term_matches(t, model.pods[x], model.pods[k]))
                   for x, m, t in holders)
    return blocked



def _by_name(free, req):
    return sorted(free)


def _tightest(free, req):
    return sorted(free, key=lambda n: (tuple(free[n].get(r, 0) for r in ("nvidia.com/gpu",
                                                                         "cpu", "memory")), n))



def _queue_usage(model, where):
    usage = collections.defaultdict(dict)
    for k in where:
        q = model.queue_of.get(k)
        if q is not None:
            usage[q] = _add(usage[q], model.req[k])
    return usage


def _real(res):
    return {r: v for r, v in res.items() if r != "pods" and not r.startswith("hostport/")}
