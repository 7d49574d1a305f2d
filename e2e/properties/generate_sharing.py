"""GPUs shared the ways Kubernetes 1.36 serves them, for the property
suite's DRA seeds: a stream of its own (`shoal-dra-sharing-N`), drawn
after everything else of the seed, that only appends objects, so a seed's
objects before it stay byte-identical (generate.generate(seed,
sharing=False) is a prefix of generate.generate(seed)).

`add_sharing` gives, on some of the seed's nodes (each in a pool of its
own, beside the node's existing slice):
  - partitioned GPUs (pool `<node>-parts`): a slice of its own holding
    the pool's sharedCounters, one counter set per GPU (memory 80Gi,
    slices 7), counted by resourceSliceCount 2, and a slice of devices
    drawing on them: the GPU whole (80Gi, 7 slices), two halves (40Gi,
    3), at times four quarters (20Gi, 2: only three fit the slices) and
    at times a sharable partition (allowMultipleAllocations, 40Gi of
    capacity, 40Gi and 3 slices of counters spent once for all its
    shares);
  - sharable GPUs (pool `<node>-shared`): allowMultipleAllocations,
    capacity memory 40Gi or 80Gi, some with a requestPolicy (validRange
    with a step, with a max, without a step; validValues; a default), at
    times a second capacity `bandwidth` with a policy of its own;
  - taints on some devices (NoSchedule, NoExecute, None);
  - the DeviceClasses whole/half/quarter/shared.gpu.example.com, each
    selecting its devices' `profile` attribute (SELECTORS, whose meaning
    the oracle evaluates);
  - running pods of another scheduler (`holder-N`, on the pool's node)
    whose claims the snapshot already allocates: a partition, a share
    with its shareID and consumedCapacity (rounded as kube rounds), or a
    sharable GPU held whole (no shareID), never more than the counters
    and capacities allow;
  - 1-4 pending gangs (`pg-share-N`) whose pods each claim a partition,
    a share of some memory (and bandwidth), or any GPU of the driver;
    some claims tolerate taints, and in some gangs two pods share a
    claim of a share;
  - in three sharing seeds in ten, a Namespace labelled for admin access
    and 1-2 lone pods there whose claim asks for a device with
    adminAccess.
Every device keeps the attributes (model, index) and capacity (memory)
the seed's other selectors read. Standard library only; no import of
generate.py (it imports this file), only of kube.py: the pod builder and
timestamps come as arguments.
"""

import collections
from fractions import Fraction

# The selectors the new classes use (PROFILE_SELECTOR, a `profile` attribute
# guarded by has()): their meaning is kube.DEVICE_SELECTORS', which the
# oracle reads too.
from kube import DRA_DRIVER as DRIVER, PROFILE_SELECTOR, PROFILES
from kube import PROFILE_SELECTORS as SELECTORS  # noqa: F401

API = "resource.k8s.io/v1"
OTHER_SCHEDULER = "default-scheduler"
HOSTNAME = "kubernetes.io/hostname"
ADMIN_LABEL = "resource.kubernetes.io/admin-access"
ADMIN_NAMESPACE = "gpu-ops"

DRIVER_SELECTOR = "device.driver == '%s'" % DRIVER
CLASSES = [("%s.%s" % (p, DRIVER), [DRIVER_SELECTOR, PROFILE_SELECTOR % p]) for p in PROFILES]
SHARED_CLASS = "shared." + DRIVER

TAINTS = [
    {"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoSchedule"},
    {"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoExecute"},
    {"key": "gpu.example.com/maintenance", "effect": "NoExecute"},
    {"key": "gpu.example.com/degraded", "value": "ecc", "effect": "None"},
]
TOLERATIONS = [
    [{"key": "gpu.example.com/unhealthy", "operator": "Exists"}],
    [{"key": "gpu.example.com/unhealthy", "operator": "Equal", "value": "true",
      "effect": "NoSchedule"}],
    [{"operator": "Exists"}],
    [{"key": "gpu.example.com/maintenance", "operator": "Exists", "effect": "NoExecute"}],
]
POLICIES = [
    None,
    None,
    {"default": "10Gi", "validRange": {"min": "10Gi", "step": "10Gi"}},
    {"default": "20Gi", "validRange": {"min": "10Gi", "max": "40Gi", "step": "10Gi"}},
    {"default": "16Gi", "validValues": ["8Gi", "16Gi", "32Gi"]},
    {"validRange": {"min": "5Gi"}},
]
BANDWIDTH = {"value": "100", "requestPolicy": {"default": "10",
                                               "validRange": {"min": "10", "step": "10"}}}
MEMORY_ASKS = [None, "8Gi", "10Gi", "15Gi", "20Gi", "20Gi", "30Gi", "40Gi", "50Gi", "100Gi"]
# Partition profiles: memory and slices spent of the GPU's counter set.
SPENDS = {"whole": ("80Gi", "7"), "half": ("40Gi", "3"), "quarter": ("20Gi", "2"),
          "shared": ("40Gi", "3")}
COUNTERS = {"memory": "80Gi", "slices": "7"}


def _q(text):
    """A quantity the generator writes ("40Gi", "100"), exactly."""
    s = str(text)
    for suf, mult in (("Gi", 2**30), ("Mi", 2**20)):
        if s.endswith(suf):
            return Fraction(s[:-2]) * mult
    return Fraction(s)


def _text(v, like):
    """`v` written in the unit of `like` ("40Gi" -> Gi)."""
    if str(like).endswith("Gi") and v % 2**30 == 0:
        return "%dGi" % (v // 2**30)
    return str(int(v))


def consumed(capacity, requests):
    """What a share consumes of each capacity of a device (kube's rounding
    by requestPolicy), as {name: text}, or None when a policy refuses the
    ask."""
    out = {}
    for name, cap in sorted(capacity.items()):
        pol = cap.get("requestPolicy")
        ask = (requests or {}).get(name)
        if ask is None:
            v = _q(pol["default"]) if pol and "default" in pol else _q(cap["value"])
        elif pol is None:
            v = _q(ask)
        elif "validRange" in pol:
            r = pol["validRange"]
            v = max(_q(ask), _q(r["min"]))
            if "step" in r and v > _q(r["min"]):
                step = _q(r["step"])
                n = -((_q(r["min"]) - v) // step)
                v = _q(r["min"]) + n * step
            if "max" in r and v > _q(r["max"]) and v != _q(pol.get("default", -1)):
                return None
        else:
            v = next((_q(x) for x in pol["validValues"] if _q(ask) <= _q(x)), None)
            if v is None:
                return None
        out[name] = _text(v, cap["value"])
    return out


def _device(name, model, index, profile, memory, taint=None):
    d = {"name": name, "attributes": {"model": {"string": model}, "index": {"int": index},
                                      "profile": {"string": profile}},
         "capacity": {"memory": {"value": memory}}}
    if taint:
        d["taints"] = [dict(taint)]
    return d


def _slice(name, pool, node, count, **spec):
    s = {"driver": DRIVER, "nodeName": node,
         "pool": {"name": pool, "generation": 1, "resourceSliceCount": count}}
    s.update(spec)
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": s}


def _claim(name, ns, cls, count=1, memory=None, bandwidth=None, tolerations=None,
           admin=False):
    exactly = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    reqs = {}
    if memory:
        reqs["memory"] = memory
    if bandwidth:
        reqs["bandwidth"] = bandwidth
    if reqs:
        exactly["capacity"] = {"requests": reqs}
    if tolerations:
        exactly["tolerations"] = [dict(t) for t in tolerations]
    if admin:
        exactly["adminAccess"] = True
    return {"apiVersion": API, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": "claim-%s-%s" % (ns, name),
                         "resourceVersion": "1"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}


def _use(pod, entry, claim_name):
    pod["spec"].setdefault("resourceClaims", []).append(
        {"name": entry, "resourceClaimName": claim_name})


def _uuid(srng):
    h = "%032x" % srng.getrandbits(128)
    return "%s-%s-4%s-8%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:])


def _partitions(srng, node):
    """The partitioned pool of `node`: its two slices and the devices."""
    pool = node + "-parts"
    sets, devices = [], []
    for i in range(srng.randint(1, 2)):
        cs = "pgpu-%d" % i
        sets.append({"name": cs, "counters": {k: {"value": v} for k, v in COUNTERS.items()}})
        model = srng.choice(["a100", "h100"])
        parts = [("pgpu-%d" % i, "whole")] + [("pgpu-%d-h%d" % (i, j), "half") for j in range(2)]
        if srng.random() < 0.6:
            parts += [("pgpu-%d-q%d" % (i, j), "quarter") for j in range(4)]
        if srng.random() < 0.3:
            parts.append(("pgpu-%d-s" % i, "shared"))
        for name, profile in parts:
            memory, slices = SPENDS[profile]
            taint = srng.choice(TAINTS) if srng.random() < 0.12 else None
            d = _device(name, model, i, profile, memory, taint)
            d["consumesCounters"] = [{"counterSet": cs, "counters": {
                "memory": {"value": memory}, "slices": {"value": slices}}}]
            if profile == "shared":
                d["allowMultipleAllocations"] = True
            devices.append(d)
    return pool, [_slice(pool + "-counters", pool, node, 2, sharedCounters=sets),
                  _slice(pool + "-devices", pool, node, 2, devices=devices)], devices, sets


def _shared(srng, node):
    pool = node + "-shared"
    devices = []
    for i in range(srng.randint(1, 2)):
        memory = srng.choice(["40Gi", "80Gi"])
        taint = srng.choice(TAINTS) if srng.random() < 0.12 else None
        d = _device("sgpu-%d" % i, srng.choice(["a100", "h100"]), i, "shared", memory, taint)
        d["allowMultipleAllocations"] = True
        pol = srng.choice(POLICIES)
        if pol:
            d["capacity"]["memory"]["requestPolicy"] = dict(pol)
        if srng.random() < 0.3:
            d["capacity"]["bandwidth"] = dict(BANDWIDTH)
        devices.append(d)
    return pool, [_slice(pool, pool, node, 1, devices=devices)], devices


class _Plan:
    """What the snapshot's claims hold, so that it never over-commits."""

    def __init__(self):
        self.spent = collections.Counter()   # (pool, set, counter) -> spent
        self.limits = {}                     # (pool, set, counter) -> declared
        self.in_use = set()                  # (pool, device)
        self.whole = set()                   # (pool, device) held whole
        self.used = collections.defaultdict(collections.Counter)  # (pool, dev) -> cap

    def counters_fit(self, pool, d):
        if (pool, d["name"]) in self.in_use:
            return True
        return all(self.spent[(pool, c["counterSet"], k)] + _q(v["value"])
                   <= self.limits[(pool, c["counterSet"], k)]
                   for c in d.get("consumesCounters", []) for k, v in c["counters"].items())

    def take(self, pool, d, whole, amounts=None):
        if (pool, d["name"]) not in self.in_use:
            for c in d.get("consumesCounters", []):
                for k, v in c["counters"].items():
                    self.spent[(pool, c["counterSet"], k)] += _q(v["value"])
        self.in_use.add((pool, d["name"]))
        if whole:
            self.whole.add((pool, d["name"]))
        for k, v in (amounts or {}).items():
            self.used[(pool, d["name"])][k] += _q(v)

    def share_fits(self, pool, d, amounts):
        return (pool, d["name"]) not in self.whole and all(
            self.used[(pool, d["name"])][k] + _q(v) <= _q(d["capacity"][k]["value"])
            for k, v in amounts.items())


def _hold(srng, plan, node, pool, d, holder, n):
    """A claim allocated in the snapshot to `d` (pool `pool` of `node`)
    for pod `holder`, or None when it no longer fits."""
    if (pool, d["name"]) in plan.whole or not plan.counters_fit(pool, d):
        return None
    profile = d["attributes"]["profile"]["string"]
    name = "holder-%d-gpu" % n
    result = {"request": "gpu", "driver": DRIVER, "pool": pool, "device": d["name"]}
    if d.get("allowMultipleAllocations"):
        if srng.random() < 0.25 and (pool, d["name"]) not in plan.in_use:
            # Held whole: written before sharing (no shareID), never shared.
            c = _claim(name, "default", SHARED_CLASS)
            plan.take(pool, d, True)
        else:
            memory = srng.choice(["10Gi", "20Gi", "30Gi"])
            amounts = consumed(d["capacity"], {"memory": memory})
            if amounts is None or not plan.share_fits(pool, d, amounts):
                return None
            c = _claim(name, "default", SHARED_CLASS, memory=memory)
            result["shareID"] = _uuid(srng)
            result["consumedCapacity"] = amounts
            plan.take(pool, d, False, amounts)
    else:
        if (pool, d["name"]) in plan.in_use:
            return None
        c = _claim(name, "default", "%s.%s" % (profile, DRIVER))
        plan.take(pool, d, True)
    c["status"] = {
        "allocation": {"devices": {"results": [result]},
                       "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                           {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
        "reservedFor": [{"resource": "pods", "name": holder["metadata"]["name"],
                         "uid": holder["metadata"]["uid"]}]}
    return c


def _gang_claim(srng, kind, name, ns):
    tol = srng.choice(TOLERATIONS) if srng.random() < 0.4 else None
    if kind == "share":
        return _claim(name, ns, SHARED_CLASS, memory=srng.choice(MEMORY_ASKS),
                      bandwidth=srng.choice([None, None, "25", "50"]), tolerations=tol)
    if kind == "plain":
        return _claim(name, ns, srng.choice(CLASSES)[0] if srng.random() < 0.3 else
                      "whole." + DRIVER, tolerations=tol or srng.choice(TOLERATIONS))
    count = 2 if kind != "whole" and srng.random() < 0.2 else 1
    return _claim(name, ns, "%s.%s" % (kind, DRIVER), count=count, tolerations=tol)


def add_sharing(srng, items, nodes, room, make_pod, timestamp):
    """Appends to `items` (see the module's docstring); `nodes`: the
    seed's own nodes, `room`: generate._Room of what runs, `make_pod`:
    generate._pod, `timestamp`: generate.timestamp."""
    out = []
    plan = _Plan()
    offered = []  # (node, pool, device)
    for n in nodes:
        node = n["metadata"]["name"]
        if srng.random() < 0.4:
            pool, slices, devices, sets = _partitions(srng, node)
            out += slices
            for s in sets:
                for k, v in s["counters"].items():
                    plan.limits[(pool, s["name"], k)] = _q(v["value"])
            offered += [(node, pool, d) for d in devices]
        if srng.random() < 0.4:
            pool, slices, devices = _shared(srng, node)
            out += slices
            offered += [(node, pool, d) for d in devices]
    if not offered:
        return
    out += [{"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": c},
             "spec": {"selectors": [{"cel": {"expression": s}} for s in sels]}}
            for c, sels in CLASSES]
    created = 4000
    # Claims the snapshot allocates, for running pods of another scheduler.
    held = 0
    for node in sorted({x[0] for x in offered}):
        for _ in range(srng.choice([0, 1, 1, 2])):
            pool_devices = [(p, d) for m, p, d in offered if m == node]
            pool, d = srng.choice(pool_devices)
            p = make_pod(srng, "holder-%d" % held, "default", created,
                         {"cpu": "100m", "memory": "128Mi"}, {HOSTNAME: node},
                         [{"operator": "Exists"}], scheduler=OTHER_SCHEDULER)
            created += 1
            c = _hold(srng, plan, node, pool, d, p, held)
            if c is None or not room.place(srng, [p], ignore_cordon=True):
                continue
            _use(p, "gpu", c["metadata"]["name"])
            out += [c, p]
            held += 1
    # Pending gangs claiming partitions, shares and tainted devices.
    queues = sorted(o["metadata"]["name"] for o in items if o["kind"] == "Queue"
                    and o["metadata"]["name"][:1] == "q" and o["metadata"]["name"][1:].isdigit())
    node_tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                        {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    for g in range(srng.randint(1, 4)):
        ns = srng.choice(["team-a", "team-b", "default"])
        name = "pg-share-%d" % g
        size = srng.randint(1, 3)
        kind = srng.choice(["share", "share", "half", "quarter", "whole", "plain"])
        req = {"cpu": srng.choice(["250m", "500m", "1"]), "memory": "1Gi"}
        tol = node_tolerations if srng.random() < 0.7 else []
        pods = [make_pod(srng, "%s-%d" % (name, i), ns, created + i % 2, req, {}, tol, group=name)
                for i in range(size)]
        out.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": name, "namespace": ns, "uid": "pg-%s-%s" % (ns, name),
                                 "creationTimestamp": timestamp(created)},
                    "spec": {"minMember": srng.randint(1, size), "queue": srng.choice(queues)},
                    "status": {"phase": "Pending"}})
        created += 2
        for p in pods:
            c = _gang_claim(srng, kind, p["metadata"]["name"] + "-gpu", ns)
            _use(p, "gpu", c["metadata"]["name"])
            out.append(c)
        if size >= 2 and srng.random() < 0.25:
            c = _claim(name + "-shared", ns, SHARED_CLASS, memory=srng.choice(["10Gi", "20Gi"]))
            for p in srng.sample(pods, 2):
                _use(p, "shared", c["metadata"]["name"])
            out.append(c)
        out += pods
    # Admin access, in a namespace labelled for it.
    if srng.random() < 0.3:
        out.append({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ADMIN_NAMESPACE, "labels": {ADMIN_LABEL: "true"}}})
        for i in range(srng.randint(1, 2)):
            p = make_pod(srng, "monitor-%d" % i, ADMIN_NAMESPACE, created, {"cpu": "100m"},
                         {}, [{"operator": "Exists"}])
            created += 1
            c = _claim("monitor-%d-gpu" % i, ADMIN_NAMESPACE, srng.choice(CLASSES)[0],
                       admin=True, tolerations=srng.choice([None, [{"operator": "Exists"}]]))
            _use(p, "gpu", c["metadata"]["name"])
            out += [c, p]
    items += out
