"""Seeded clusters that need room made (issue 33), two streams of their
own (run.py --stream), apart from generate.py's so its seeds stay as they
are. Each seed draws from random.Random("shoal-making-room-<stream>-<seed>"),
so the same seed gives a byte-identical file (generate.dumps).

  * dra-preempt (`dra_preempt`): 2-4 nodes, each a ResourceSlice of 4-8
    devices of driver gpu.example.com (one model per node) and one cpu per
    device; DeviceClass gpu.example.com (and at times h100); Queues q0
    and q1. Low-priority work runs, its pods holding allocated
    ResourceClaims reserved for them (each pod one cpu per device): jobs
    of one pod, elastic jobs (more pods than minMember), whole gangs, and
    jobs whose two pods on one node share one claim (reservedFor both;
    half a cpu each),
    filling 60-100% of the devices, mostly in q0. Then 1-3 pending gangs
    of priority high (at times mid) in q0 (preempt) or q1 (reclaim), and
    at times a lone pending pod, each pod a claim of 1-2 devices (at
    times of class h100), with more PodGroup pods than the idle devices
    serve. Run under policies with preempt and reclaim (run.py).
  * fragmented (`fragmented`): 3-6 nodes of 8 nvidia.com/gpu (extended
    resource) and ample cpu and memory, partly filled by running pods of
    low-priority PodGroup jobs (1-4 pods, 1-2 GPUs each, minMember 1..size)
    spread so that no node has 8 GPUs free while the free GPUs together
    are at least 8 most of the time; then a pending pod or a gang of two
    (priority high or none) asking a whole node's worth (8 GPUs). Run
    under a policy listing the `consolidate` action (stream_policies/).

    python3 e2e/properties/generate_making_room.py STREAM SEED [OUT.json]
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402

STREAMS = ["dra-preempt", "fragmented"]
NS = "team-a"


def _rng(stream, seed):
    return random.Random("shoal-making-room-%s-%d" % (stream, seed))


def _node(name, alloc):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {g.HOSTNAME: name}, "uid": "uid-" + name},
            "spec": {},
            "status": {"capacity": dict(alloc), "allocatable": dict(alloc),
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _common(items, queues):
    items += [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": n}, "value": v} for n, v in g.PRIORITY_CLASSES]
    for name, weight in queues:
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                      "metadata": {"name": name},
                      "spec": {"weight": weight, "reclaimable": True},
                      "status": {"state": "Open"}})


def _podgroup(name, min_member, queue, prio, phase, created):
    spec = {"minMember": min_member, "queue": queue}
    if prio:
        spec["priorityClassName"] = prio[0]
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS, "uid": "pg-%s-%s" % (NS, name),
                         "creationTimestamp": g.timestamp(created)},
            "spec": spec, "status": {"phase": phase}}


def _pod(rng, name, created, req, group=None, prio=None):
    p = g._pod(rng, name, NS, created, req, {}, [], group=group, priority=prio)
    # Plain pods: no second container, init container or overhead (the
    # generic generator's), so requests are what the stream means.
    p["spec"]["containers"] = p["spec"]["containers"][:1]
    for f in ("initContainers", "overhead"):
        p["spec"].pop(f, None)
    return p


def _run(p, node):
    p["spec"]["nodeName"] = node
    p["status"] = {"phase": "Running"}


def dra_preempt(seed):
    rng = _rng("dra-preempt", seed)
    items, clock = [], [0]

    def tick():
        clock[0] += rng.choice([1, 5, 30])
        return clock[0]

    nodes, free, model = [], {}, {}
    for i in range(rng.randint(2, 4)):
        name = "node-%02d" % i
        count = rng.randint(4, 8)
        nodes.append(_node(name, {"cpu": str(count + 2), "memory": "64Gi", "pods": "110"}))
        model[name] = rng.choice(["a100", "h100"])
        devices = [g._dra_device(rng, "gpu-%d" % d, d, model[name]) for d in range(count)]
        items.append(g._dra_slice("%s-%s" % (name, g.DRA_DRIVER), name, devices,
                                  nodeName=name))
        free[name] = [d["name"] for d in devices]
    items = nodes + items
    classes = [("gpu.example.com", ["device.driver == 'gpu.example.com'"])]
    if any(m == "h100" for m in model.values()) and rng.random() < 0.5:
        classes.append(("h100", dict(g.DEVICE_CLASSES)["h100"]))
    items += [{"apiVersion": g.DRA_API, "kind": "DeviceClass", "metadata": {"name": c},
               "spec": {"selectors": [{"cel": {"expression": s}} for s in sels]}}
              for c, sels in classes]
    _common(items, [("q0", 1), ("q1", rng.randint(1, 3))])
    total = sum(len(v) for v in free.values())
    target = total * rng.uniform(0.6, 1.0)
    low = ("low", 10)

    def claim(name, count, cls="gpu.example.com"):
        return g._dra_claim(name, NS, cls, count, [])

    j = 0
    while total - sum(len(v) for v in free.values()) < target and j < 40:
        name = "run-%d" % j
        j += 1
        kind = rng.choice(["single", "elastic", "elastic", "whole", "shared"])
        size = {"single": 1, "elastic": rng.randint(2, 4), "whole": rng.randint(2, 3),
                "shared": rng.randint(2, 3)}[kind]
        min_member = {"single": 1, "elastic": rng.randint(1, size - 1) if size > 1 else 1,
                      "whole": size, "shared": rng.choice([1, 2])}[kind]
        queue = "q0" if rng.random() < 0.8 else "q1"
        created = tick()
        pods, claims, take = [], [], {}
        for i in range(size):
            p = _pod(rng, "%s-%d" % (name, i), created, {}, group=name, prio=low)
            pods.append(p)
        # Devices: each pod its own claim, but a shared job's first two
        # pods one claim between them (on one node).
        plan = []   # (claim name, count, pods)
        if kind == "shared":
            plan.append((name + "-shared", 1, pods[:2]))
            plan += [("%s-gpu" % p["metadata"]["name"], 1, [p]) for p in pods[2:]]
        else:
            plan += [("%s-gpu" % p["metadata"]["name"], rng.choice([1, 1, 2]), [p]) for p in pods]
        trial = {n: list(v) for n, v in free.items()}
        ok = True
        for cname, count, users in plan:
            cands = [n for n in sorted(trial) if len(trial[n]) >= count]
            if not cands:
                ok = False
                break
            n = rng.choice(cands)
            take[cname] = (n, trial[n][:count], users)
            trial[n] = trial[n][count:]
        if not ok:
            continue
        free = trial
        for cname, (n, devs, users) in sorted(take.items()):
            c = claim(cname, len(devs))
            g._dra_allocate(c, n, devs, "gpu", users)
            claims.append(c)
            for p in users:
                g._dra_use(p, "gpu", cname)
                _run(p, n)
                # One cpu per device (a shared claim's two pods half each).
                p["spec"]["containers"][0]["resources"] = {"requests": {
                    "cpu": str(len(devs)) if len(users) == 1 else "500m", "memory": "1Gi"}}
        items.append(_podgroup(name, min_member, queue, low, "Running", created))
        items += pods + claims

    idle = sum(len(v) for v in free.values())
    for j in range(rng.randint(1, 3)):
        name = "want-%d" % j
        prio = ("high", 1000) if rng.random() < 0.8 else ("mid", 100)
        queue = rng.choice(["q0", "q1"])
        size = rng.randint(1, 3)
        min_member = size if rng.random() < 0.7 else max(1, size - 1)
        created = tick()
        pods, claims = [], []
        cls = rng.choice(classes)[0]
        for i in range(size + (1 if idle >= 2 * size else 0)):
            count = rng.choice([1, 1, 2])
            p = _pod(rng, "%s-%d" % (name, i), created,
                     {"cpu": str(count), "memory": "1Gi"}, group=name, prio=prio)
            c = claim("%s-gpu" % p["metadata"]["name"], count, cls)
            g._dra_use(p, "gpu", c["metadata"]["name"])
            pods.append(p)
            claims.append(c)
        items.append(_podgroup(name, min_member, queue, prio, "Inqueue"
                               if rng.random() < 0.5 else "Pending", created))
        items += pods + claims
    if rng.random() < 0.4:
        p = _pod(rng, "lone-0", tick(), {"cpu": "1", "memory": "1Gi"}, prio=("high", 1000))
        c = claim("lone-0-gpu", 1)
        g._dra_use(p, "gpu", "lone-0-gpu")
        items += [p, c]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


GPU = "nvidia.com/gpu"


def fragmented(seed):
    rng = _rng("fragmented", seed)
    items, clock = [], [0]

    def tick():
        clock[0] += rng.choice([1, 5, 30])
        return clock[0]

    per = 8
    names = ["node-%02d" % i for i in range(rng.randint(3, 6))]
    items += [_node(n, {"cpu": "64", "memory": "256Gi", "pods": "110", GPU: str(per)})
              for n in names]
    _common(items, [("q0", 1)])
    used = {n: 0 for n in names}
    # How full each node ends up: at least one GPU used, never all eight
    # free; most seeds leave a whole node's worth free in all.
    goal = {n: rng.randint(1, 6) for n in names}
    low = ("low", 10)
    j = 0
    while any(used[n] < goal[n] for n in names) and j < 60:
        name = "small-%d" % j
        j += 1
        size = rng.randint(1, 4)
        min_member = rng.randint(1, size)
        created = tick()
        pods, ok = [], True
        trial = dict(used)
        for i in range(size):
            gpus = rng.choice([1, 1, 2])
            cands = [n for n in names if trial[n] + gpus <= goal[n]]
            if not cands:
                ok = False
                break
            n = rng.choice(cands)
            trial[n] += gpus
            p = _pod(rng, "%s-%d" % (name, i), created,
                     {"cpu": str(gpus), "memory": "%dGi" % (4 * gpus), GPU: str(gpus)},
                     group=name, prio=low)
            _run(p, n)
            pods.append(p)
        if not ok:
            continue
        used = trial
        items.append(_podgroup(name, min_member, "q0", low, "Running", created))
        items += pods
    prio = ("high", 1000) if rng.random() < 0.7 else None
    size = 2 if rng.random() < 0.3 else 1
    created = tick()
    items.append(_podgroup("whole-node", size, "q0", prio, "Inqueue", created))
    items += [_pod(rng, "whole-node-%d" % i, created,
                   {"cpu": "8", "memory": "32Gi", GPU: str(per)}, group="whole-node", prio=prio)
              for i in range(size)]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


GENERATORS = {"dra-preempt": dra_preempt, "fragmented": fragmented}


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in GENERATORS:
        sys.exit("usage: generate_making_room.py {%s} SEED [OUT.json]" % ",".join(STREAMS))
    text = g.dumps(GENERATORS[sys.argv[1]](int(sys.argv[2])))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
