"""Devices shared the Kubernetes 1.36 ways, as the oracle reads them
(kube-scheduler's structured allocator: partitionable devices, consumable
capacity, device taints, admin access). device_rules.py keeps one
`Ledger` over the run: what the snapshot's claims hold, then each claim a
cycle allocates, result by result (a claim listed again is not taken
again). Admin-access results take nothing and are held to none of the
rules below but device-taint.

The properties (kinds):
  - device-counters: a device that consumes counters is available only
    while they last: per pool and counter set, the counters the devices
    in use spend (each device once, however many claims share it) never
    exceed what the pool's sharedCounters declare; a device spending a
    set or counter its pool does not declare is never allocated;
  - device-capacity: the shares of a device that allows multiple
    allocations never consume more of a capacity than it has (the sum of
    every share's consumedCapacity, the snapshot's included);
  - device-double-allocation (device_rules' kind, here for whole
    devices): a device that does not allow multiple allocations is in at
    most one claim, and a whole device is never given as a share either;
  - device-shared-whole: a sharable device allocated without a shareID
    (held whole, as claims written before sharing are) is not shared,
    nor given whole to another claim;
  - device-taint: no newly allocated device has a NoSchedule or
    NoExecute taint the request does not tolerate (admin access too, as
    kube-scheduler checks taints for every request);
  - device-share: each new share (a non-admin result on a sharable
    device) has a shareID, unique among the device's shares, and a
    consumedCapacity equal, capacity by capacity, to what kube's rounding
    gives for the request (`rounded`); a request the device's
    requestPolicy refuses, or asking a capacity the device lacks, never
    gets it; a shareID only on a sharable device.
`Ledger.available` is the same reading for liveness (device_rules.first_fit):
a device a request may still get, and what it would consume.
"""

import collections
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube import quantity  # noqa: E402

KINDS = ["device-counters", "device-capacity", "device-shared-whole", "device-taint",
         "device-share"]
BLOCKING = ("NoSchedule", "NoExecute")


def exactly(dev, ck, request):
    """The `exactly` of claim `ck`'s request `request` ("gpu", or "gpu/sub":
    the parent's), {} when there is none."""
    name = request.split("/")[0]
    for r in ((dev.claims[ck].get("spec") or {}).get("devices") or {}).get("requests") or []:
        if r.get("name") == name:
            return r.get("exactly") or {}
    return {}


def tolerates(toleration, taint):
    """resourceclaim.ToleratesTaint: effect and key (when set) agree, and
    Exists, or Equal with the same value."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Exists":
        return True
    return op == "Equal" and toleration.get("value", "") == taint.get("value", "")


def untolerated(device, tolerations):
    """The device's NoSchedule/NoExecute taints no toleration tolerates,
    as text."""
    return ["%s%s:%s" % (t.get("key"), "=" + t["value"] if t.get("value") else "", t["effect"])
            for t in device.get("taints") or [] if t.get("effect") in BLOCKING
            and not any(tolerates(x, t) for x in tolerations or [])]


def _dkey(driver, pool, device):
    """A device's key, as device_rules writes it (driver/pool/device)."""
    return "%s/%s/%s" % (driver, pool, device)


def _local(driver, name):
    prefix = driver + "/"
    return name[len(prefix):] if name.startswith(prefix) else name


def rounded(driver, device, requests):
    """What one share of `device` consumes of each of its capacities for a
    request asking `requests` ({name: quantity}), as kube-scheduler
    computes it (calculateConsumedCapacity): no ask: the policy's default,
    else the whole capacity; no policy: the ask; validRange: at least min,
    rounded up to min + a multiple of step; validValues: the first value
    not below the ask. Returns ({name: Fraction}, None), or (None, why)
    when the device may not serve the request (an ask of a capacity it
    lacks; a rounded value past max or among no validValues, unless it is
    the default: violatesPolicy)."""
    caps = {_local(driver, k): v for k, v in (device.get("capacity") or {}).items()}
    asks = {_local(driver, k): quantity(v) for k, v in (requests or {}).items()}
    missing = sorted(set(asks) - set(caps))
    if missing:
        return None, "asks capacity %s the device does not have" % ", ".join(missing)
    out = {}
    for name, cap in sorted(caps.items()):
        pol = cap.get("requestPolicy")
        default = quantity(pol["default"]) if pol and pol.get("default") is not None else None
        ask = asks.get(name)
        if ask is None:
            v = default if default is not None else quantity(cap["value"])
        elif not pol:
            v = ask
        elif (pol.get("validRange") or {}).get("min") is not None:
            r = pol["validRange"]
            low = quantity(r["min"])
            v = low if ask < low else ask
            if ask >= low and r.get("step") is not None:
                step = quantity(r["step"])
                n = -((low - ask) // step)  # ceil((ask - min) / step)
                v = low + n * step
        elif pol.get("validValues"):
            v = next((quantity(x) for x in pol["validValues"] if ask <= quantity(x)), ask)
        else:
            v = ask
        if pol and v != default:
            r = pol.get("validRange")
            if r is not None and r.get("max") is not None and v > quantity(r["max"]):
                return None, "%s: %s rounds to %s, past the policy's max %s" % (
                    name, _fmt(ask), _fmt(v), r["max"])
            if r is None and pol.get("validValues") and all(
                    v != quantity(x) for x in pol["validValues"]):
                return None, "%s: %s is above every valid value %s" % (
                    name, _fmt(ask), pol["validValues"])
        out[name] = v
    return out, None


def _fmt(v):
    if v % 2**30 == 0 and v:
        return "%dGi" % (v // 2**30)
    return str(v.numerator) if v.denominator == 1 else str(float(v))


class Ledger:
    """What devices, shares and counters are held (see the module's
    docstring), over a device_rules.Devices `dev`."""

    def __init__(self, dev):
        self.dev = dev
        # (driver, pool) -> {set: {counter: Fraction}}, from the newest
        # generation's slices; sets declared twice are recorded.
        self.sets = collections.defaultdict(dict)
        self.twice = set()
        newest = {}
        for s in dev.slices:
            p = s["spec"]["pool"]
            key = (s["spec"]["driver"], p["name"])
            newest[key] = max(newest.get(key, 0), p.get("generation", 0))
        for s in dev.slices:
            p = s["spec"]["pool"]
            key = (s["spec"]["driver"], p["name"])
            if p.get("generation", 0) != newest[key]:
                continue
            for cs in s["spec"].get("sharedCounters") or []:
                if cs["name"] in self.sets[key]:
                    self.twice.add((key, cs["name"]))
                self.sets[key][cs["name"]] = {k: quantity(v["value"])
                                              for k, v in (cs.get("counters") or {}).items()}
        self.whole = {}                                   # device key -> (claim, when)
        self.shares = collections.defaultdict(dict)       # device key -> {shareID: (claim, when)}
        self.used = collections.defaultdict(collections.Counter)  # device key -> capacity used
        self.spent = collections.Counter()                # (driver, pool, set, counter) -> used
        # claim -> [(device key, shareID or "", {capacity: amount})] it holds
        # (what `release` gives back).
        self.by_claim = collections.defaultdict(list)

    def copy(self):
        out = copy.copy(self)
        out.whole = dict(self.whole)
        out.shares = collections.defaultdict(dict, {k: dict(v) for k, v in self.shares.items()})
        out.used = collections.defaultdict(collections.Counter,
                                           {k: collections.Counter(v) for k, v in self.used.items()})
        out.spent = collections.Counter(self.spent)
        out.by_claim = collections.defaultdict(list, {k: list(v)
                                                      for k, v in self.by_claim.items()})
        return out

    def device(self, dkey):
        return self.dev.device[dkey][1] if dkey in self.dev.device else {}

    def driver_pool(self, dkey):
        spec = self.dev.device[dkey][0]["spec"]
        return spec["driver"], spec["pool"]["name"]

    def sharable(self, dkey):
        return bool(self.device(dkey).get("allowMultipleAllocations"))

    def in_use(self, dkey):
        return dkey in self.whole or bool(self.shares.get(dkey))

    def spends(self, dkey):
        """[(counter key, amount)] the device spends when first in use, or
        None when it names a set or counter its pool does not declare (or
        one declared twice)."""
        if dkey not in self.dev.device:
            return []
        driver, pool = self.driver_pool(dkey)
        out = []
        for c in self.device(dkey).get("consumesCounters") or []:
            declared = self.sets.get((driver, pool), {}).get(c.get("counterSet"))
            if declared is None or ((driver, pool), c.get("counterSet")) in self.twice:
                return None
            for k, v in (c.get("counters") or {}).items():
                if k not in declared:
                    return None
                out.append(((driver, pool, c["counterSet"], k), quantity(v["value"])))
        return out

    def counters_fit(self, dkey):
        if self.in_use(dkey):
            return True
        spends = self.spends(dkey)
        if spends is None:
            return False
        need = collections.Counter()
        for k, v in spends:
            need[k] += v
        return all(self.spent[k] + v <= self.limit(k) for k, v in need.items())

    def limit(self, counter_key):
        driver, pool, cs, k = counter_key
        return self.sets[(driver, pool)][cs][k]

    def _spend(self, dkey):
        """Counts the device's counters if it was not in use; returns the
        counter keys now overspent."""
        if self.in_use(dkey):
            return []
        over = []
        for k, v in self.spends(dkey) or []:
            self.spent[k] += v
            if self.spent[k] > self.limit(k):
                over.append(k)
        return over

    def hold(self, ck, result, when, check=True):
        """Takes `result` (a status or report result dict) for claim `ck`;
        returns [(kind, obj, detail)] of the rules it breaks (none asked
        when not `check`: the snapshot's own)."""
        if result.get("adminAccess"):
            return []
        d = _dkey(result.get("driver"), result.get("pool"), result.get("device"))
        out = []
        share = result.get("shareID") or ""
        sharable = self.sharable(d)
        obj = "device/" + d
        spends = self.spends(d)
        if spends is None and check:
            out.append(("device-counters", obj, "%s: allocated to %s, but it spends a counter "
                        "set or counter its pool does not declare (or declares twice)"
                        % (when, ck)))
        if share and not sharable:
            if check:
                out.append(("device-share", obj, "%s: a share (shareID %s) for %s, but the "
                            "device does not allow multiple allocations" % (when, share, ck)))
            share = ""
        if not share and sharable and check:
            out.append(("device-share", obj, "%s: allocated to %s without a shareID, though the "
                        "device allows multiple allocations (kube-scheduler writes every "
                        "allocation of it as a share)" % (when, ck)))
        over = self._spend(d)
        if share:
            if d in self.whole and self.whole[d][0] != ck and check:
                out.append(("device-shared-whole", obj, "%s: shared with %s (shareID %s), but "
                            "held whole (no shareID) by %s since %s"
                            % (when, ck, share, self.whole[d][0], self.whole[d][1])))
            if share in self.shares[d] and check:
                out.append(("device-share", obj, "%s: shareID %s of %s already names a share "
                            "of %s since %s" % (when, share, ck, self.shares[d][share][0],
                                                self.shares[d][share][1])))
            self.shares[d].setdefault(share, (ck, when))
            consumed = collections.Counter()
            caps = {_local(self.driver_pool(d)[0], k): quantity(v["value"])
                    for k, v in (self.device(d).get("capacity") or {}).items()} \
                if d in self.dev.device else {}
            for k, v in (result.get("consumedCapacity") or {}).items():
                k = _local(result.get("driver", ""), k)
                self.used[d][k] += quantity(v)
                consumed[k] += quantity(v)
                if k in caps and self.used[d][k] > caps[k] and check:
                    out.append(("device-capacity", obj, "%s: %s's share (shareID %s) brings the "
                                "%s its shares consume to %s, past its capacity %s"
                                % (when, ck, share, k, _fmt(self.used[d][k]), _fmt(caps[k]))))
        else:
            if check:
                if d in self.whole and self.whole[d][0] != ck:
                    kind = "device-shared-whole" if sharable else "device-double-allocation"
                    out.append((kind, obj, "%s: allocated to %s, but held by %s since %s"
                                % (when, ck, self.whole[d][0], self.whole[d][1])))
                elif self.shares.get(d):
                    (sid, (other, since)), = list(self.shares[d].items())[:1]
                    kind = "device-shared-whole" if sharable else "device-double-allocation"
                    out.append((kind, obj, "%s: allocated whole to %s, but shared by %s (shareID "
                                "%s) since %s" % (when, ck, other, sid, since)))
            self.whole.setdefault(d, (ck, when))
        self.by_claim[ck].append((d, share, consumed if share else {}))
        for k in over:
            if check:
                out.append(("device-counters", "pool/%s/%s" % k[:2],
                            "%s: %s takes %s, and the devices in use spend %s of counter %s of "
                            "set %s, which declares %s" % (when, ck, d, _fmt(self.spent[k]),
                                                           k[3], k[2], _fmt(self.limit(k)))))
        return out

    def release(self, ck):
        """Gives back everything claim `ck` holds (its allocation was
        cleared: every pod reserving it is gone, or the report lists it
        deallocated): the devices it holds whole, its shares and what they
        consume, and a device's counters once nothing holds it."""
        for d, share, consumed in self.by_claim.pop(ck, []):
            if share:
                if self.shares.get(d, {}).get(share, (None,))[0] == ck:
                    del self.shares[d][share]
                for k, v in consumed.items():
                    self.used[d][k] -= v
            elif self.whole.get(d, (None,))[0] == ck:
                del self.whole[d]
            if not self.in_use(d):
                for k, v in self.spends(d) or []:
                    self.spent[k] -= v

    def judge(self, ck, result, when):
        """The rules of a new result that are not about what is held:
        device-taint (admin access too) and the share's consumedCapacity
        and policy (device-share)."""
        d = _dkey(result.get("driver"), result.get("pool"), result.get("device"))
        if d not in self.dev.device or ck not in self.dev.claims:
            return []
        out = []
        ex = exactly(self.dev, ck, result.get("request", ""))
        bad = untolerated(self.device(d), ex.get("tolerations"))
        if bad:
            out.append(("device-taint", ck, "%s: device %s for request %s has taint(s) %s the "
                        "request does not tolerate" % (when, d, result.get("request"),
                                                       ", ".join(bad))))
        if result.get("adminAccess") or not self.sharable(d) or not result.get("shareID"):
            return out
        want, why = rounded(self.driver_pool(d)[0], self.device(d),
                            (ex.get("capacity") or {}).get("requests"))
        if want is None:
            out.append(("device-share", ck, "%s: device %s for request %s: the request %s, so "
                        "kube-scheduler would not choose it" % (when, d, result.get("request"),
                                                                 why)))
            return out
        got = {_local(result.get("driver", ""), k): quantity(v)
               for k, v in (result.get("consumedCapacity") or {}).items()}
        if got != want:
            out.append(("device-share", ck, "%s: share %s of device %s consumes %s; the "
                        "request's rounding gives %s"
                        % (when, result.get("shareID"), d,
                           {k: _fmt(v) for k, v in sorted(got.items())},
                           {k: _fmt(v) for k, v in sorted(want.items())})))
        return out

    def available(self, ck, request, dkey):
        """For liveness: what device `dkey` would hold if given to claim
        `ck`'s `request` now: ("admin", None), ("share", {capacity:
        amount}), ("whole", None); or None when it may not be given
        (taints, counters, capacity, held)."""
        ex = exactly(self.dev, ck, request)
        device = self.device(dkey)
        if untolerated(device, ex.get("tolerations")):
            return None
        if ex.get("adminAccess"):
            return ("admin", None)
        asks = (ex.get("capacity") or {}).get("requests")
        if not self.counters_fit(dkey):
            return None
        if not self.sharable(dkey):
            # A capacity ask on a whole device: not modelled (not fitting).
            return None if asks or self.in_use(dkey) else ("whole", None)
        if dkey in self.whole:
            return None
        want, _ = rounded(self.driver_pool(dkey)[0], device, asks)
        if want is None:
            return None
        caps = {_local(self.driver_pool(dkey)[0], k): quantity(v["value"])
                for k, v in (device.get("capacity") or {}).items()}
        if any(self.used[dkey][k] + v > caps[k] for k, v in want.items()):
            return None
        return ("share", want)

    def take(self, ck, dkey, held):
        """Takes what `available` said (liveness's trial)."""
        how, amounts = held
        if how == "admin":
            return
        self._spend(dkey)
        if how == "whole":
            self.whole.setdefault(dkey, (ck, "trial"))
            return
        self.shares[dkey]["trial-%d" % len(self.shares[dkey])] = (ck, "trial")
        for k, v in amounts.items():
            self.used[dkey][k] += v
