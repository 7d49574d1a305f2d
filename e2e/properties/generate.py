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

This file draws the seed's main stream and calls each stream's module, in
the order the streams were added: generate_nodes.py (nodes, pods, the
room running pods take), generate_topology.py, generate_queues.py,
generate_network.py, generate_workloads.py, generate_dra.py and
generate_sharing.py; what the objects mean (quantities, requests,
selectors, taints, inter-pod terms, device selectors) is kube.py's,
shared with the oracle. Standard library only.
"""

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# What the objects mean (kube.py), and each stream's generator; the names
# are imported here too, where the tests and generate_making_room.py use
# them (generate.X).
from kube import (DEVICE_SELECTORS, DRA_DRIVER, GANG_LABEL, GROUP_ANNOTATION,  # noqa: E402,F401
                  HOST_PORTS, HOSTNAME, OTHER_SCHEDULER, SCHEDULER, UNSCHEDULABLE_TAINT, ZONE,
                  _add, fits, hard_spread, has_interpod, interpod_problem, node_allocatable,
                  placement_problem, pod_labels, pod_ns, pod_requests, quantity, required_terms,
                  same_domain, selector_matches, term_decidable, term_matches, tolerates)
from generate_nodes import (BATCH_TAINT, CPUS, GPU_TAINT, GPUS, MEMS,  # noqa: E402,F401
                            NODE_SHAPES, PRIORITY_CLASSES, SOFT_TAINT, T0, _Room,
                            _host_port, _node, _pod, _template, timestamp)
from generate_topology import _gang_constraints, _guards, _relabel_zones  # noqa: E402
from generate_queues import TREE_FAULTS, _hog, _queue_tree  # noqa: E402,F401
from generate_network import (NETWORK_FAULTS, NETWORK_LABEL, SUB_GROUP_LABEL,  # noqa: E402,F401
                              TIER_NAMES, _network)
from generate_workloads import WORKLOAD_POD_GROUP, _workloads  # noqa: E402,F401
from generate_dra import (DEVICE_CLASSES, DRA_API, FABRIC_POOL,  # noqa: E402,F401
                          REQUEST_SELECTORS, _dra, _dra_allocate, _dra_claim, _dra_device,
                          _dra_matches, _dra_slice, _dra_use)
import generate_sharing  # noqa: E402


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