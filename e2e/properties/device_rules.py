"""Dynamic Resource Allocation (resource.k8s.io/v1) as the oracle reads it.

`Devices(items)` reads the ResourceSlices, DeviceClasses and
ResourceClaims of a snapshot on its own: which devices there are, which
nodes reach each (the slice's nodeName, allNodes, or its nodeSelector on
the node's labels and name), which claims the snapshot already allocates
and which claims each pod names (spec.resourceClaims[].resourceClaimName,
in the pod's namespace). Selectors are not run through a CEL engine: every
expression the generator writes is one of kube.DEVICE_SELECTORS, whose
stated meaning (kind, name, op, value) the oracle evaluates here; any
other expression is left unjudged.

The properties, over the whole run (`check_devices`; a report's cycle
lists in `claims` the claims it allocated, each with its pod and devices):
  - device-double-allocation: no device is held by two claims at once:
    those allocated in the snapshot and every claim the run allocates,
    minus the claims freed (`Freeing`): a claim every pod reserving it
    has left by eviction (reservedFor's pods in the snapshot, and every
    pod the run binds that names it; an entry of another kind, or a pod
    the snapshot does not hold, keeps it for good), or one whose owner
    pod was evicted, is free from the cycle after that eviction on (the
    resourceclaim controller's turn: the replay's
    --claim-controller-lag, 1, and never sooner; a device of it given in
    the eviction's own cycle is held twice); a claim the report lists
    under `deallocations` is free from the start of that cycle. No claim
    is allocated again while it holds devices, nor one the snapshot
    allocates; once freed it may be allocated anew;
  - device-claim-rewritten: a claim is listed as newly allocated once;
    a claim shared by pods bound in one cycle listed again, with the same
    devices, for the second pod (the report's `claims` are the claims
    allocated in the cycle; the second pod's write should only add to
    status.reservedFor) is this kind, not a double allocation;
  - device-selector: every device allocated to a claim's request passes
    its class's selectors and the request's own;
  - device-reach: every such device lives on a slice the node of the pod
    it was allocated for reaches (and the claim's pinned node, when the
    report names one, is that pod's node); every pod bound reaches every
    device of every claim it names (a claim already allocated, in the
    snapshot or for another pod, confines it to where those devices are);
  - device-count: a claim gets exactly the count of devices each of its
    ExactCount requests asks for, and none for a request it does not have;
  - device-unbound-claim: every claim allocated in a cycle is one the
    snapshot holds and is named by its pod, which was bound in that same
    cycle;
  - device-unallocated-claim: no pod is bound while a claim it names
    holds no devices (allocated in the snapshot, earlier, or in the cycle
    that binds it);
  - device-partial-gang: a gang that had claims allocated in a cycle has
    at least minMember pods placed after it (its victims gone), unless it
    already had them before the cycle: a gang's claims are allocated with
    its pods or not at all;
  - device-queue-quota (asked only of policies listing proportion or
    capacity): after a cycle that binds a pod holding devices of class C
    in a queue whose subtree a capability `deviceclass/C` bounds, the
    devices of class C the subtree's placed pods hold (each claim once,
    on its first placed pod of Shoal's by name) are within it.
  - device_sharing_rules.KINDS: what partitions, shares, taints and
    admin access allow (device_sharing_rules.py; its Ledger also holds
    what device-double-allocation asks of whole devices: a device that
    allows multiple allocations may be in several claims as shares).
Liveness (idle-fitting-gang in check.py): a gang whose missing minimum
names claims counts as fitting the idle room only when `first_fit` finds
each pod a node with room where its claims are served too: claims already
allocated must be reachable from the node, the others get, request by
request, devices it reaches that pass the selectors (node-local first)
and that the Ledger still gives (taints tolerated, counters left, not
held, or a share's capacity left). That fit is a real placement,
so a gang it finds is one Shoal could place; when it finds none the gang
waits by DEVICES_NO_FIT (the greedy search may miss a fit; that errs
towards excusing).
"""

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube import DEVICE_SELECTORS, _add, fits, placement_problem, quantity  # noqa: E402
from model import DEVICES_NO_FIT, Violation  # noqa: E402,F401
import device_sharing_rules as sharing  # noqa: E402

KINDS = ["device-double-allocation", "device-claim-rewritten", "device-selector", "device-reach", "device-count",
         "device-unbound-claim", "device-unallocated-claim", "device-partial-gang",
         "device-queue-quota"] + sharing.KINDS
CLASS_PREFIX = "deviceclass/"


def _v(kind, obj, detail):
    return Violation(kind, obj, detail)


def node_selector_matches(selector, node):
    """A core v1 NodeSelector (terms ORed; each term's matchExpressions on
    labels and matchFields on metadata.name ANDed) against a Node."""
    labels = node["metadata"].get("labels") or {}
    fields = {"metadata.name": node["metadata"]["name"]}
    for term in (selector or {}).get("nodeSelectorTerms") or []:
        reqs = [(e, labels) for e in term.get("matchExpressions") or []] + \
               [(e, fields) for e in term.get("matchFields") or []]
        if not reqs:
            continue  # an empty term matches nothing
        ok = True
        for e, have in reqs:
            k, op, values = e.get("key"), e.get("operator"), e.get("values") or []
            if op == "In":
                ok = k in have and have[k] in values
            elif op == "NotIn":
                ok = k not in have or have[k] not in values
            elif op == "Exists":
                ok = k in have
            elif op == "DoesNotExist":
                ok = k not in have
            elif op in ("Gt", "Lt") and len(values) == 1:
                try:
                    a, b = int(have[k]), int(values[0])
                    ok = a > b if op == "Gt" else a < b
                except (KeyError, ValueError):
                    ok = False
            else:
                ok = False
            if not ok:
                break
        if ok:
            return True
    return False


def _dkey(driver, pool, device):
    return "%s/%s/%s" % (driver, pool, device)


class Devices:
    """The devices, classes and claims of a snapshot (see the module's
    docstring). `on`: the snapshot holds any of them."""

    def __init__(self, items):
        self.nodes = {o["metadata"]["name"]: o for o in items if o["kind"] == "Node"}
        self.slices = [o for o in items if o["kind"] == "ResourceSlice"]
        self.classes = {o["metadata"]["name"]: [s["cel"]["expression"]
                                                for s in (o.get("spec") or {}).get("selectors")
                                                or [] if "cel" in s]
                        for o in items if o["kind"] == "DeviceClass"}
        self.claims = {"%s/%s" % (o["metadata"].get("namespace", "default"),
                                  o["metadata"]["name"]): o
                       for o in items if o["kind"] == "ResourceClaim"}
        self.on = bool(self.slices or self.classes or self.claims)
        # Device key -> (slice, device); with several generations of a
        # pool, the newest (the generator writes one).
        self.device = {}
        for s in self.slices:
            spec = s["spec"]
            gen = spec["pool"].get("generation", 0)
            for d in spec.get("devices") or []:
                k = _dkey(spec["driver"], spec["pool"]["name"], d["name"])
                if k not in self.device or gen >= self.device[k][0]["spec"]["pool"].get(
                        "generation", 0):
                    self.device[k] = (s, d)
        self._reach = {}
        # Claims the snapshot allocates: claim -> [(request, device key)].
        self.initial = {}
        self.initial_results = {}  # claim -> its status results, as written
        for ck, c in sorted(self.claims.items()):
            a = (c.get("status") or {}).get("allocation")
            if a is not None:
                self.initial_results[ck] = (a.get("devices") or {}).get("results") or []
                self.initial[ck] = [(r["request"], _dkey(r["driver"], r["pool"], r["device"]))
                                    for r in self.initial_results[ck]]
        # What is held after the run (check_devices), for liveness.
        self.ledger = None
        self.pod_claims_of = {}
        for o in items:
            if o["kind"] != "Pod":
                continue
            ns = o["metadata"].get("namespace", "default")
            names = []
            for e in o["spec"].get("resourceClaims") or []:
                if e.get("resourceClaimName"):
                    ck = "%s/%s" % (ns, e["resourceClaimName"])
                    if ck not in names:
                        names.append(ck)
            if names:
                self.pod_claims_of["%s/%s" % (ns, o["metadata"]["name"])] = names

    def pod_claims(self, k):
        return self.pod_claims_of.get(k, [])

    def reaches(self, dkey, n):
        """Whether node `n` reaches device `dkey` (unknown devices: no)."""
        if (dkey, n) not in self._reach:
            ok = False
            if dkey in self.device and n in self.nodes:
                spec = self.device[dkey][0]["spec"]
                if spec.get("nodeName"):
                    ok = spec["nodeName"] == n
                elif spec.get("allNodes"):
                    ok = True
                elif spec.get("nodeSelector"):
                    ok = node_selector_matches(spec["nodeSelector"], self.nodes[n])
            self._reach[(dkey, n)] = ok
        return self._reach[(dkey, n)]

    def local(self, dkey, n):
        return dkey in self.device and self.device[dkey][0]["spec"].get("nodeName") == n

    def requests(self, ck):
        """claim -> {request name: (class, count, request selectors)} of its
        ExactCount requests (None for one of another mode: not judged)."""
        out = {}
        for r in ((self.claims[ck].get("spec") or {}).get("devices") or {}).get("requests") or []:
            ex = r.get("exactly")
            if ex is None or ex.get("allocationMode", "ExactCount") != "ExactCount":
                out[r["name"]] = None
                continue
            out[r["name"]] = (ex.get("deviceClassName"), ex.get("count", 1),
                              [s["cel"]["expression"] for s in ex.get("selectors") or []
                               if "cel" in s])
        return out

    def selector(self, expr, dkey):
        """True/False: the stated meaning of `expr` on device `dkey`; None
        when the expression is not one the generator writes."""
        meaning = DEVICE_SELECTORS.get(expr)
        if meaning is None or dkey not in self.device:
            return None
        kind, name, op, value = meaning
        s, d = self.device[dkey]
        driver = s["spec"]["driver"]
        if kind == "driver":
            have = driver
        elif kind == "attribute":
            attrs = d.get("attributes") or {}
            a = attrs.get(name, attrs.get("%s/%s" % (driver, name)))
            if a is None:
                return False  # (CEL: no such key, an error; never generated)
            have = next(iter(a.values()))
        else:
            caps = d.get("capacity") or {}
            cap = caps.get(name, caps.get("%s/%s" % (driver, name)))
            if cap is None:
                return False
            have, value = quantity(cap["value"]), quantity(value)
        if op == "==":
            return have == value
        if op == "<":
            return have < value
        if op == ">=":
            return have >= value
        return None

    def failing(self, ck, request, dkey):
        """The selectors of claim `ck`'s `request` (its class's, then its
        own) that device `dkey` fails, as text; [] when it passes all the
        oracle can judge."""
        req = self.requests(ck).get(request)
        if req is None:
            return []
        cls, _, own = req
        out = []
        for where, exprs in (("class %s" % cls, self.classes.get(cls, [])), ("request", own)):
            for e in exprs:
                if self.selector(e, dkey) is False:
                    out.append("%s selector `%s`" % (where, e))
        return out

    def serves(self, ck, request, dkey):
        """Whether `dkey` may serve `request` of claim `ck`: its class
        exists and every selector passes (an unknown one: no)."""
        req = self.requests(ck).get(request)
        if req is None or req[0] not in self.classes:
            return False
        return all(self.selector(e, dkey) is True
                   for e in self.classes[req[0]] + req[2])


def quota_name(dev, ck, request):
    """The quota a device claim `ck` got for `request` ("gpu", or "gpu/sub")
    counts under, "deviceclass/<class>"; None for a request of another
    mode or one the claim does not have."""
    r = dev.requests(ck).get(request.split("/")[0])
    return None if r is None else CLASS_PREFIX + r[0]


def queue_devices(model, dev, where, allocated):
    """queue -> Counter of "deviceclass/<class>" -> devices the claims of
    its placed pods hold (`allocated`: claim -> [(request, device key)]),
    each claim counted once, on its first placed pod of Shoal's by name."""
    users = collections.defaultdict(list)
    for k in sorted(where):
        if k in model.ours and model.queue_of.get(k) is not None:
            for ck in dev.pod_claims(k):
                users[ck].append(k)
    usage = collections.defaultdict(collections.Counter)
    for ck, results in allocated.items():
        if not users.get(ck):
            continue
        q = model.queue_of[users[ck][0]]
        for request, _ in results:
            name = quota_name(dev, ck, request)
            if name is not None:
                usage[q][name] += 1
    return usage


def check_queue_devices(model, dev, c, binds, where, allocated):
    """device-queue-quota after cycle `c` (see the module's docstring)."""
    out = []
    tree = model.tree
    usage = queue_devices(model, dev, where, allocated)
    bound_holding = collections.defaultdict(set)  # queue -> classes
    for k, _ in binds:
        q = model.queue_of.get(k)
        for ck in dev.pod_claims(k):
            for request, _ in allocated.get(ck, []):
                name = quota_name(dev, ck, request)
                if q is not None and name is not None:
                    bound_holding[q].add(name)
    for top in sorted(tree.spec):
        cap = {r: v for r, v in tree.capability(top).items() if r.startswith(CLASS_PREFIX)}
        if not cap:
            continue
        sub = tree.subtree(top)
        for r, v in sorted(cap.items()):
            if not any(r in bound_holding[q] for q in sub):
                continue
            total = sum(usage[q][r] for q in sub)
            if total > v:
                out.append(_v("device-queue-quota", "queue/" + top,
                              "after cycle %d: pods of queues %s hold %d device(s) of %s, past "
                              "its capability %d (bound this cycle: %s)"
                              % (c, ", ".join(sorted(sub)), total, r, v,
                                 sorted(k for k, _ in binds if model.queue_of.get(k) in sub))))
    return out


def check_devices(model, dev, cycles, queue_plugin=True):
    """The properties of the module's docstring over the report's
    `cycles` (device-queue-quota only with `queue_plugin`: the policy
    lists proportion or capacity); returns (violations, claim ->
    [(request, device key)] held after the last cycle)."""
    out = []
    seen = set()

    def flag(kind, obj, detail):
        if (kind, obj, detail) not in seen:
            seen.add((kind, obj, detail))
            out.append(_v(kind, obj, detail))

    # What devices, shares and counters are held (device_sharing_rules).
    ledger = sharing.Ledger(dev)
    allocated = {}      # claim -> [(request, device key)]
    when = {}           # claim -> "the snapshot" / "cycle N"
    first_pod = {}      # claim -> the pod the run allocated it for
    for ck, results in dev.initial.items():
        allocated[ck] = results
        when[ck] = "the snapshot"
        for r in dev.initial_results[ck]:
            ledger.hold(ck, r, "the snapshot", check=False)
    where = model.initial_placement()
    deleted = set()
    freeing = Freeing(model, dev)
    due = []            # claims freed before the next cycle
    for c, cycle in enumerate(cycles, 1):
        for ck in due + sorted({d.get("claim") for d in cycle.get("deallocations", [])}
                               - set(due)):
            if ck in allocated:
                allocated.pop(ck)
                when.pop(ck, None)
                first_pod.pop(ck, None)
                ledger.release(ck)
                freeing.forget(ck)
        due = []
        before = dict(where)
        binds = []
        for b in cycle.get("binds", []):
            k, n = b["pod"], b["node"]
            if (k in model.pods and k in model.ours and k not in where and k not in deleted
                    and n in model.nodes):
                binds.append((k, n))
                where[k] = n
                freeing.bound(k)
        bound_now = dict(binds)
        gangs = set()
        for e in cycle.get("claims", []):
            ck, k = e.get("claim"), e.get("pod")
            if k not in bound_now:
                flag("device-unbound-claim", ck, "cycle %d: allocated for pod %s, which was not "
                     "bound in this cycle" % (c, k))
            elif ck not in dev.pod_claims(k):
                flag("device-unbound-claim", ck, "cycle %d: allocated for pod %s, which does "
                     "not name it (it names %s)" % (c, k, dev.pod_claims(k) or "no claim"))
            if ck not in dev.claims:
                flag("device-unbound-claim", ck, "cycle %d: allocated for pod %s, but the "
                     "snapshot holds no such claim" % (c, k))
                continue
            results = [(d.get("request"), _dkey(d.get("driver"), d.get("pool"), d.get("device")))
                       for d in e.get("devices", [])]
            # Taken once: a claim listed again is a rewrite or a double
            # allocation, flagged as such.
            fresh = ck not in allocated
            if ck in allocated and when[ck] == "cycle %d" % c and sorted(
                    allocated[ck]) == sorted(results) and ck in dev.pod_claims(k):
                flag("device-claim-rewritten", ck, "cycle %d: listed again as newly allocated, "
                     "for pod %s (same devices as for pod %s): a claim two pods bound together "
                     "share is written as a new allocation by each" % (c, k, first_pod[ck]))
            elif ck in allocated:
                flag("device-double-allocation", ck, "cycle %d: allocated again (for pod %s), "
                     "though allocated in %s" % (c, k, when[ck]))
            if k in model.group_of:
                gangs.add(model.group_of[k])
            node = bound_now.get(k)
            pinned = e.get("node")
            if node and pinned and pinned != node:
                flag("device-reach", ck, "cycle %d: pinned to node %s, but its pod %s is bound "
                     "to %s" % (c, pinned, k, node))
            mine = set()
            for raw, (request, d) in zip(e.get("devices", []), results):
                if d in mine and not raw.get("shareID") and not raw.get("adminAccess"):
                    flag("device-double-allocation", ck, "cycle %d: device %s listed twice"
                         % (c, d))
                mine.add(d)
                if fresh:
                    for kind, obj, detail in ledger.hold(ck, raw, "cycle %d" % c):
                        if kind == "device-double-allocation":
                            detail = detail.replace("allocated to %s," % ck,
                                                    "allocated to %s (pod %s)," % (ck, k), 1)
                        flag(kind, obj, detail)
                    for kind, obj, detail in ledger.judge(ck, raw, "cycle %d" % c):
                        flag(kind, obj, detail)
                if d not in dev.device:
                    flag("device-reach", ck, "cycle %d: device %s is on no ResourceSlice"
                         % (c, d))
                    continue
                bad = dev.failing(ck, request, d)
                if bad:
                    flag("device-selector", ck, "cycle %d: device %s for request %s fails %s"
                         % (c, d, request, "; ".join(bad)))
                if node and not dev.reaches(d, node):
                    flag("device-reach", ck, "cycle %d: device %s is on a slice node %s (where "
                         "pod %s is bound) does not reach" % (c, d, node, k))
            got = collections.Counter(r for r, _ in results)
            reqs = dev.requests(ck)
            for r in sorted(set(got) | set(reqs)):
                if r not in reqs:
                    flag("device-count", ck, "cycle %d: %d device(s) for request %s, which the "
                         "claim does not have" % (c, got[r], r))
                elif reqs[r] is not None and got[r] != reqs[r][1]:
                    flag("device-count", ck, "cycle %d: request %s got %d device(s), asks for "
                         "exactly %d" % (c, r, got[r], reqs[r][1]))
            first_pod.setdefault(ck, k)
            allocated.setdefault(ck, results)
            when.setdefault(ck, "cycle %d" % c)
        for k, n in binds:
            for ck in dev.pod_claims(k):
                if ck not in allocated:
                    flag("device-unallocated-claim", k, "cycle %d: bound to %s, but its claim %s "
                         "holds no devices (not allocated in the snapshot, earlier, or in this "
                         "cycle)" % (c, n, ck))
                    continue
                far = [d for _, d in allocated[ck] if not dev.reaches(d, n)]
                if far:
                    flag("device-reach", k, "cycle %d: bound to %s, which does not reach "
                         "device(s) %s of its claim %s (allocated in %s)"
                         % (c, n, ", ".join(far), ck, when[ck]))
        if queue_plugin:
            out += check_queue_devices(model, dev, c, binds, where, allocated)
        for e in cycle.get("evictions", []):
            if e["pod"] in where:
                where.pop(e["pod"])
                deleted.add(e["pod"])
        due = freeing.freed(allocated, deleted)
        for g in sorted(x for x in gangs if x in model.groups):
            info = model.groups[g]
            now = sum(1 for k in info["pods"] if k in where)
            then = sum(1 for k in info["pods"] if k in before)
            if now < info["min"] and then < info["min"]:
                flag("device-partial-gang", g, "cycle %d: claims allocated, but %d pod(s) placed "
                     "after it, minMember %d" % (c, now, info["min"]))
    dev.ledger = ledger
    return out, allocated


class Freeing:
    """Which claims an eviction frees (device-double-allocation): a claim
    is held for the pods reserving it, those its snapshot's reservedFor
    lists and every pod the run binds that names it, and freed once all
    of them are evicted (by the resourceclaim controller, before the next
    cycle); an entry of reservedFor that is no pod of the snapshot's
    holds it for good. A claim whose owner (metadata.ownerReferences) is
    an evicted pod goes with it."""

    def __init__(self, model, dev):
        self.dev = dev
        uid = {p["metadata"].get("uid"): k for k, p in model.pods.items()
               if p["metadata"].get("uid")}
        self.users = collections.defaultdict(set)
        self.kept = set()      # claims some consumer the oracle cannot see keeps
        self.owner = {}
        for ck, c in dev.claims.items():
            for r in (c.get("status") or {}).get("reservedFor") or []:
                if r.get("resource", "pods") == "pods" and r.get("uid") in uid:
                    self.users[ck].add(uid[r["uid"]])
                else:
                    self.kept.add(ck)
            for o in c["metadata"].get("ownerReferences") or []:
                if o.get("kind") == "Pod" and o.get("uid") in uid:
                    self.owner[ck] = uid[o["uid"]]

    def bound(self, k):
        for ck in self.dev.pod_claims(k):
            self.users[ck].add(k)

    def forget(self, ck):
        """A freed claim: a later allocation starts with no users."""
        self.users.pop(ck, None)
        self.kept.discard(ck)

    def freed(self, allocated, deleted):
        """The allocated claims the evictions so far free (sorted)."""
        return sorted(ck for ck in allocated
                      if (self.users.get(ck) and ck not in self.kept
                          and self.users[ck] <= deleted) or self.owner.get(ck) in deleted)


def _serve(dev, k, n, ledger, allocated):
    """Devices for pod k's claims on node n: (new allocations {claim:
    [(request, device)]}) or None. Allocated claims must be reachable;
    the others are filled greedily, node-local devices first, each from
    what `ledger` (device_sharing_rules.Ledger, a trial copy: this takes
    from it) still gives: untainted or tolerated, counters left, whole or
    with capacity left for a share."""
    new = {}
    for ck in dev.pod_claims(k):
        if ck in allocated:
            if not all(dev.reaches(d, n) for _, d in allocated[ck]):
                return None
            continue
        if ck not in dev.claims:
            return None
        results = []
        for r, req in dev.requests(ck).items():
            if req is None:
                return None
            mine = set()
            for d in sorted((d for d in dev.device if dev.reaches(d, n) and dev.serves(ck, r, d)),
                            key=lambda d: (not dev.local(d, n), d)):
                if len(mine) == req[1]:
                    break
                held = ledger.available(ck, r, d)
                if held is None or d in mine:
                    continue
                ledger.take(ck, d, held)
                mine.add(d)
                results.append((r, d))
            if len(mine) < req[1]:
                return None
        new[ck] = results
    return new


def first_fit(model, dev, pods, free, order, blocked, allocated):
    """check.first_fit with devices: each pod on the first node (in
    `order`) with room, where it may go, and where its claims are served
    (_serve) after those of the pods placed before it; the placement or
    None."""
    free = {n: dict(f) for n, f in free.items()}
    allocated = dict(allocated)
    if dev.ledger is None:
        # Not after check_devices: what the snapshot and `allocated` hold.
        dev.ledger = sharing.Ledger(dev)
        for ck, results in allocated.items():
            for r in dev.initial_results.get(ck) or [
                    dict(zip(("request", "driver", "pool", "device"), [req] + d.split("/", 2)))
                    for req, d in results]:
                dev.ledger.hold(ck, r, "", check=False)
    ledger = dev.ledger.copy()
    placed = []
    for k in pods:
        for n in order(free, model.req[k]):
            if not (fits(model.req[k], free[n]) and placement_problem(
                    model.pods[k], model.nodes[n]) is None and not blocked(k, n)):
                continue
            trial = ledger.copy()
            new = _serve(dev, k, n, trial, allocated)
            if new is None:
                continue
            ledger = trial
            free[n] = _add(free[n], model.req[k], -1)
            for ck, results in new.items():
                allocated[ck] = results
            placed.append((k, n))
            break
        else:
            return None
    return placed
