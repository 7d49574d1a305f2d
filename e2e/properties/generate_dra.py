"""DRA seeds (generate.py's seventh stream, _dra): ResourceSlices,
DeviceClasses and ResourceClaims (resource.k8s.io/v1), allocated for
pods already running; every CEL selector is one of
kube.DEVICE_SELECTORS. The eighth stream, devices shared the 1.36 ways,
is generate_sharing.py.
"""

import collections

from kube import (DEVICE_SELECTORS, DRA_DRIVER, GROUP_ANNOTATION, OTHER_SCHEDULER,
                  SCHEDULER, ZONE, quantity)

# --- Dynamic Resource Allocation (resource.k8s.io/v1), on its own stream ---

DRA_API = "resource.k8s.io/v1"
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
