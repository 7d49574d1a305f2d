"""The oracle's rules for devices shared the Kubernetes 1.36 ways
(device_sharing_rules.py) catch hand-made decisions that break each, and
pass a correct one; the sharing stream (generate_sharing.py) only appends
and writes a snapshot those rules accept. check_test.py runs these too."""

import collections
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
import device_rules  # noqa: E402
import device_sharing_rules as sharing  # noqa: E402
import generate  # noqa: E402
import generate_sharing as gs  # noqa: E402

UNHEALTHY = {"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
RANGE = {"default": "10Gi", "validRange": {"min": "10Gi", "max": "40Gi", "step": "10Gi"}}


def _node(name):
    return {"kind": "Node", "metadata": {"name": name, "labels": {}}, "spec": {},
            "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}


def _pod(name, node_name=None, scheduler="shoal"):
    spec = {"schedulerName": scheduler, "containers": [
        {"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "ns", "uid": "pod-" + name},
            "spec": spec, "status": {"phase": "Running" if node_name else "Pending"}}


def sharing_cluster(claims=(), held=()):
    """n1: pool n1-parts (counter set pgpu-0: memory 80Gi, slices 7; the
    GPU whole, two halves, four quarters, a sharable 40Gi partition) and
    pool n1-shared (sgpu-0: sharable 80Gi under RANGE; sgpu-1: sharable
    40Gi, no policy; tgpu: whole, tainted UNHEALTHY). `claims`: (name,
    class, kwargs of generate_sharing._claim), each with a pending pod of
    its own (name without -gpu); `held`: (name, class, kwargs, result),
    each allocated in the snapshot for a running pod of another
    scheduler."""
    def dev(name, profile, memory, **extra):
        d = gs._device(name, "a100", 0, profile, memory)
        d.update(extra)
        return d

    spend = {p: {"memory": {"value": m}, "slices": {"value": s}} for p, (m, s) in
             gs.SPENDS.items()}
    parts = [("pgpu-0", "whole")] + [("pgpu-0-h%d" % i, "half") for i in range(2)] + \
        [("pgpu-0-q%d" % i, "quarter") for i in range(4)] + [("pgpu-0-s", "shared")]
    devices = []
    for name, profile in parts:
        d = dev(name, profile, gs.SPENDS[profile][0],
                consumesCounters=[{"counterSet": "pgpu-0", "counters": spend[profile]}])
        if profile == "shared":
            d["allowMultipleAllocations"] = True
        devices.append(d)
    sgpu0 = dev("sgpu-0", "shared", "80Gi", allowMultipleAllocations=True)
    sgpu0["capacity"]["memory"]["requestPolicy"] = RANGE
    items = [
        _node("n1"),
        gs._slice("n1-parts-counters", "n1-parts", "n1", 2, sharedCounters=[
            {"name": "pgpu-0", "counters": {k: {"value": v} for k, v in gs.COUNTERS.items()}}]),
        gs._slice("n1-parts-devices", "n1-parts", "n1", 2, devices=devices),
        gs._slice("n1-shared", "n1-shared", "n1", 1, devices=[
            sgpu0, dev("sgpu-1", "shared", "40Gi", allowMultipleAllocations=True),
            dev("tgpu", "whole", "80Gi", taints=[UNHEALTHY])]),
    ]
    items += [{"kind": "DeviceClass", "metadata": {"name": c},
               "spec": {"selectors": [{"cel": {"expression": s}} for s in sels]}}
              for c, sels in gs.CLASSES]
    for name, cls, kw in claims:
        c = gs._claim(name, "ns", cls, **kw)
        p = _pod(name[:-len("-gpu")])
        gs._use(p, "gpu", name)
        items += [c, p]
    for name, cls, kw, result in held:
        c = gs._claim(name, "ns", cls, **kw)
        p = _pod(name[:-len("-gpu")], "n1", "default-scheduler")
        gs._use(p, "gpu", name)
        c["status"] = {"allocation": {"devices": {"results": [dict(result, request="gpu",
                                                                   driver=gs.DRIVER)]}},
                       "reservedFor": [{"resource": "pods", "name": p["metadata"]["name"],
                                        "uid": p["metadata"]["uid"]}]}
        items += [c, p]
    return {"kind": "List", "items": items}


def result(pool, device, share=None, consumed=None, admin=False):
    r = {"request": "gpu", "driver": gs.DRIVER, "pool": pool, "device": device,
         "shareID": share or "", "consumedCapacity": consumed or {}, "adminAccess": admin}
    return r


def decide(*allocs):
    """One cycle binding each claim's pod to n1 with the claim's results:
    allocs are (claim name, [result])."""
    binds = [{"pod": "ns/" + name[:-len("-gpu")], "node": "n1"} for name, _ in allocs]
    claims = [{"claim": "ns/" + name, "pod": "ns/" + name[:-len("-gpu")], "node": "n1",
               "devices": results} for name, results in allocs]
    return {"cycles": [{"binds": binds, "evictions": [], "podGroups": [], "claims": claims}]}


def kinds_of(snapshot, report):
    v, _ = check.check(snapshot, report)
    return sorted({x.kind for x in v if x.kind.startswith("device-")}), v


HALF, WHOLE, QUARTER = "half." + gs.DRIVER, "whole." + gs.DRIVER, "quarter." + gs.DRIVER
SHARED = gs.SHARED_CLASS
P, S = "n1-parts", "n1-shared"


class CountersTest(unittest.TestCase):
    def test_two_halves_fit_a_half_and_the_whole_do_not(self):
        s = sharing_cluster([("a-gpu", HALF, {}), ("b-gpu", HALF, {}), ("c-gpu", WHOLE, {})])
        ok = decide(("a-gpu", [result(P, "pgpu-0-h0")]), ("b-gpu", [result(P, "pgpu-0-h1")]))
        self.assertEqual(kinds_of(s, ok)[0], [])
        bad = decide(("a-gpu", [result(P, "pgpu-0-h0")]), ("c-gpu", [result(P, "pgpu-0")]))
        kinds, v = kinds_of(s, bad)
        self.assertEqual(kinds, ["device-counters"])
        self.assertIn("device-counters: pool/gpu.example.com/n1-parts: cycle 1: ns/c-gpu takes "
                      "gpu.example.com/n1-parts/pgpu-0, and the devices in use spend 120Gi of "
                      "counter memory of set pgpu-0, which declares 80Gi", [str(x) for x in v])

    def test_four_quarters_fit_the_memory_but_not_the_slices(self):
        claims = [("q%d-gpu" % i, QUARTER, {}) for i in range(4)]
        s = sharing_cluster(claims)
        three = decide(*[("q%d-gpu" % i, [result(P, "pgpu-0-q%d" % i)]) for i in range(3)])
        self.assertEqual(kinds_of(s, three)[0], [])
        four = decide(*[("q%d-gpu" % i, [result(P, "pgpu-0-q%d" % i)]) for i in range(4)])
        kinds, v = kinds_of(s, four)
        self.assertEqual(kinds, ["device-counters"])
        self.assertIn("8 of counter slices", str(v))

    def test_a_partition_the_snapshot_holds_spends_them_too(self):
        s = sharing_cluster([("c-gpu", WHOLE, {})],
                            held=[("h-gpu", HALF, {}, result(P, "pgpu-0-h1"))])
        kinds, _ = kinds_of(s, decide(("c-gpu", [result(P, "pgpu-0")])))
        self.assertEqual(kinds, ["device-counters"])

    def test_a_shared_partition_spends_its_counters_once_for_all_its_shares(self):
        # Two shares of the 40Gi partition spend 40Gi and 3 slices once; a
        # half beside them fits (80Gi, 6 slices); the whole does not.
        share = {"memory": "20Gi"}
        s = sharing_cluster([("a-gpu", SHARED, share), ("b-gpu", SHARED, share),
                             ("c-gpu", HALF, {}), ("d-gpu", WHOLE, {})])
        ok = decide(("a-gpu", [result(P, "pgpu-0-s", "s-1", {"memory": "20Gi"})]),
                    ("b-gpu", [result(P, "pgpu-0-s", "s-2", {"memory": "20Gi"})]),
                    ("c-gpu", [result(P, "pgpu-0-h0")]))
        self.assertEqual(kinds_of(s, ok)[0], [])
        bad = decide(("a-gpu", [result(P, "pgpu-0-s", "s-1", {"memory": "20Gi"})]),
                     ("d-gpu", [result(P, "pgpu-0")]))
        self.assertEqual(kinds_of(s, bad)[0], ["device-counters"])


class CapacityTest(unittest.TestCase):
    def test_shares_within_the_capacity_pass_and_past_it_fail(self):
        s = sharing_cluster([("x-gpu", SHARED, {"memory": "30Gi"}),
                             ("y-gpu", SHARED, {"memory": "10Gi"}),
                             ("z-gpu", SHARED, {"memory": "20Gi"})])
        ok = decide(("x-gpu", [result(S, "sgpu-1", "s-x", {"memory": "30Gi"})]),
                    ("y-gpu", [result(S, "sgpu-1", "s-y", {"memory": "10Gi"})]))
        self.assertEqual(kinds_of(s, ok)[0], [])
        bad = decide(("x-gpu", [result(S, "sgpu-1", "s-x", {"memory": "30Gi"})]),
                     ("z-gpu", [result(S, "sgpu-1", "s-z", {"memory": "20Gi"})]))
        kinds, v = kinds_of(s, bad)
        self.assertEqual(kinds, ["device-capacity"])
        self.assertIn("brings the memory its shares consume to 50Gi, past its capacity 40Gi",
                      str(v))

    def test_the_snapshots_shares_count(self):
        held = [("h-gpu", SHARED, {"memory": "30Gi"},
                 result(S, "sgpu-1", "s-h", {"memory": "30Gi"}))]
        s = sharing_cluster([("z-gpu", SHARED, {"memory": "20Gi"})], held)
        bad = decide(("z-gpu", [result(S, "sgpu-1", "s-z", {"memory": "20Gi"})]))
        self.assertEqual(kinds_of(s, bad)[0], ["device-capacity"])


class HeldWholeTest(unittest.TestCase):
    def test_a_sharable_device_held_whole_is_not_shared(self):
        held = [("h-gpu", SHARED, {}, result(S, "sgpu-1"))]
        s = sharing_cluster([("z-gpu", SHARED, {"memory": "20Gi"})], held)
        bad = decide(("z-gpu", [result(S, "sgpu-1", "s-z", {"memory": "20Gi"})]))
        kinds, v = kinds_of(s, bad)
        self.assertEqual(kinds, ["device-shared-whole"])
        self.assertIn("held whole (no shareID) by ns/h-gpu since the snapshot", str(v))
        ok = decide(("z-gpu", [result(S, "sgpu-0", "s-z", {"memory": "20Gi"})]))
        self.assertEqual(kinds_of(s, ok)[0], [])

    def test_a_whole_device_in_two_claims(self):
        s = sharing_cluster([("a-gpu", HALF, {}), ("b-gpu", HALF, {})])
        bad = decide(("a-gpu", [result(P, "pgpu-0-h0")]), ("b-gpu", [result(P, "pgpu-0-h0")]))
        self.assertEqual(kinds_of(s, bad)[0], ["device-double-allocation"])

    def test_admin_access_takes_nothing(self):
        held = [("h-gpu", WHOLE, {}, result(P, "pgpu-0"))]
        s = sharing_cluster([("m-gpu", WHOLE, {"admin": True})], held)
        ok = decide(("m-gpu", [result(P, "pgpu-0", admin=True)]))
        self.assertEqual(kinds_of(s, ok)[0], [])


class TaintTest(unittest.TestCase):
    def test_an_untolerated_taint(self):
        s = sharing_cluster([("a-gpu", WHOLE, {}),
                             ("b-gpu", WHOLE, {"tolerations": gs.TOLERATIONS[1]})])
        kinds, v = kinds_of(s, decide(("a-gpu", [result(S, "tgpu")])))
        self.assertEqual(kinds, ["device-taint"])
        self.assertIn("has taint(s) gpu.example.com/unhealthy=true:NoSchedule the request does "
                      "not tolerate", str(v))
        self.assertEqual(kinds_of(s, decide(("b-gpu", [result(S, "tgpu")])))[0], [])

    def test_none_informs_and_no_execute_keeps_away(self):
        for taint, tolerations, want in (
                ({"key": "k", "effect": "None"}, None, []),
                ({"key": "k", "effect": "NoExecute"}, None, ["device-taint"]),
                ({"key": "k", "effect": "NoExecute"}, gs.TOLERATIONS[2], []),
                ({"key": "k", "effect": "NoExecute"},
                 [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}], ["device-taint"])):
            s = sharing_cluster([("a-gpu", WHOLE, {"tolerations": tolerations})])
            for o in s["items"]:
                if o["kind"] == "ResourceSlice" and o["metadata"]["name"] == "n1-shared":
                    o["spec"]["devices"][2]["taints"] = [taint]
            self.assertEqual(kinds_of(s, decide(("a-gpu", [result(S, "tgpu")])))[0], want,
                             (taint, tolerations))


class ShareTest(unittest.TestCase):
    def test_consumed_capacity_is_the_rounded_ask(self):
        s = sharing_cluster([("a-gpu", SHARED, {"memory": "15Gi"})])
        ok = decide(("a-gpu", [result(S, "sgpu-0", "s-a", {"memory": "20Gi"})]))
        self.assertEqual(kinds_of(s, ok)[0], [])
        bad = decide(("a-gpu", [result(S, "sgpu-0", "s-a", {"memory": "15Gi"})]))
        kinds, v = kinds_of(s, bad)
        self.assertEqual(kinds, ["device-share"])
        self.assertIn("consumes {'memory': '15Gi'}; the request's rounding gives "
                      "{'memory': '20Gi'}", str(v))

    def test_a_policy_refusing_the_ask(self):
        # 50Gi rounds to 50Gi, past the policy's max of 40Gi.
        s = sharing_cluster([("a-gpu", SHARED, {"memory": "50Gi"})])
        kinds, v = kinds_of(s, decide(("a-gpu", [result(S, "sgpu-0", "s-a",
                                                        {"memory": "50Gi"})])))
        self.assertEqual(kinds, ["device-share"])
        self.assertIn("past the policy's max 40Gi", str(v))

    def test_share_ids_unique_present_and_only_on_sharable_devices(self):
        s = sharing_cluster([("a-gpu", SHARED, {"memory": "10Gi"}),
                             ("b-gpu", SHARED, {"memory": "10Gi"}), ("c-gpu", HALF, {})])
        ten = {"memory": "10Gi"}
        same = decide(("a-gpu", [result(S, "sgpu-1", "s-1", ten)]),
                      ("b-gpu", [result(S, "sgpu-1", "s-1", ten)]))
        self.assertEqual(kinds_of(s, same)[0], ["device-share"])
        none = decide(("a-gpu", [result(S, "sgpu-1", None, ten)]))
        self.assertEqual(kinds_of(s, none)[0], ["device-share"])
        on_whole = decide(("c-gpu", [result(P, "pgpu-0-h0", "s-c")]))
        self.assertEqual(kinds_of(s, on_whole)[0], ["device-share"])

    def test_kube_rounding(self):
        def r(requests, **cap):
            got, why = sharing.rounded(gs.DRIVER, {"capacity": {"memory": cap}}, requests)
            return why if got is None else {k: sharing._fmt(v) for k, v in got.items()}
        rng = {"value": "80Gi", "requestPolicy": RANGE}
        self.assertEqual(r(None, **rng), {"memory": "10Gi"})           # the default
        self.assertEqual(r({"memory": "1Gi"}, **rng), {"memory": "10Gi"})   # min
        self.assertEqual(r({"memory": "11Gi"}, **rng), {"memory": "20Gi"})  # step
        self.assertIn("past the policy's max", r({"memory": "41Gi"}, **rng))
        vals = {"value": "80Gi", "requestPolicy": {"default": "16Gi",
                                                   "validValues": ["8Gi", "16Gi", "32Gi"]}}
        self.assertEqual(r({"memory": "9Gi"}, **vals), {"memory": "16Gi"})
        self.assertIn("above every valid value", r({"memory": "33Gi"}, **vals))
        self.assertEqual(r(None, value="80Gi"), {"memory": "80Gi"})    # no ask: whole
        self.assertEqual(r({"memory": "7Gi"}, value="80Gi"), {"memory": "7Gi"})
        self.assertIn("does not have", r({"bandwidth": "1"}, value="80Gi"))
        # The generator's own rounding agrees.
        for ask in (None, "1Gi", "10Gi", "11Gi", "39Gi", "40Gi"):
            for cap in (rng, vals, {"value": "80Gi"}):
                want = gs.consumed({"memory": cap}, {"memory": ask} if ask else None)
                got = r({"memory": ask} if ask else None, **cap)
                self.assertEqual(want, got if isinstance(got, dict) else None, (ask, cap))


class SharingLivenessTest(unittest.TestCase):
    def test_a_share_that_no_longer_fits_may_wait_and_one_that_fits_may_not(self):
        held = [("h-gpu", SHARED, {"memory": "30Gi"},
                 result(S, "sgpu-1", "s-h", {"memory": "30Gi"})),
                ("g-gpu", SHARED, {"memory": "40Gi"},
                 result(S, "sgpu-0", "s-g", {"memory": "40Gi"})),
                ("p-gpu", SHARED, {"memory": "40Gi"},
                 result(P, "pgpu-0-s", "s-p", {"memory": "40Gi"}))]
        empty = {"cycles": [{"binds": [], "evictions": [], "podGroups": [], "claims": []}]}
        # 20Gi: sgpu-1 has 10Gi left, sgpu-0 40Gi left (within max): fits.
        v, _ = check.check(sharing_cluster([("a-gpu", SHARED, {"memory": "20Gi"})], held), empty)
        self.assertEqual([x.kind for x in v], ["idle-fitting-gang"])
        # 50Gi: sgpu-0's policy refuses it, the others are too full.
        v, ex = check.check(sharing_cluster([("a-gpu", SHARED, {"memory": "50Gi"})], held),
                            empty)
        self.assertEqual(v, [])
        self.assertEqual(ex[device_rules.DEVICES_NO_FIT], 1)

    def test_a_taint_keeps_a_claim_away_in_the_fit_too(self):
        held = [("h-gpu", WHOLE, {}, result(P, "pgpu-0"))]
        empty = {"cycles": [{"binds": [], "evictions": [], "podGroups": [], "claims": []}]}
        v, ex = check.check(sharing_cluster([("a-gpu", WHOLE, {})], held), empty)
        self.assertEqual((v, ex[device_rules.DEVICES_NO_FIT]), ([], 1))
        v, _ = check.check(sharing_cluster([("a-gpu", WHOLE, {"tolerations":
                                                              gs.TOLERATIONS[0]})], held), empty)
        self.assertEqual([x.kind for x in v], ["idle-fitting-gang"])


class GeneratedSharingTest(unittest.TestCase):
    def test_the_sharing_stream_only_appends(self):
        for seed in range(80):
            a = generate.generate(seed, sharing=False)["items"]
            b = generate.generate(seed)["items"]
            self.assertEqual(b[:len(a)], a, seed)

    def test_sharing_seeds_hold_every_kind_and_a_sound_snapshot(self):
        seen = collections.Counter()
        for seed in range(300):
            s = generate.generate(seed)
            dev = device_rules.Devices(s["items"])
            if not any(o["kind"] == "ResourceSlice" and o["spec"]["pool"]["name"].endswith(
                    ("-parts", "-shared")) for o in s["items"]):
                continue
            seen["seeds"] += 1
            ledger = sharing.Ledger(dev)
            for ck in sorted(dev.initial_results):
                for r in dev.initial_results[ck]:
                    seen["held shares" if r.get("shareID") else "held whole"] += 1
                    problems = [p for p in ledger.hold(ck, r, "the snapshot")
                                if not p[2].endswith("as a share)")]
                    self.assertEqual(problems, [], seed)
                    # (A taint put on a device after its allocation is no fault.)
                    self.assertEqual([p for p in ledger.judge(ck, r, "the snapshot")
                                      if p[0] != "device-taint"], [], seed)
            for o in s["items"]:
                if o["kind"] == "ResourceClaim":
                    ex = o["spec"]["devices"]["requests"][0]["exactly"]
                    seen["capacity asks"] += "capacity" in ex
                    seen["tolerations"] += "tolerations" in ex
                    seen["admin"] += bool(ex.get("adminAccess"))
                for d in (o.get("spec") or {}).get("devices") or [] \
                        if o["kind"] == "ResourceSlice" else []:
                    seen["partitions"] += "consumesCounters" in d
                    seen["sharable"] += bool(d.get("allowMultipleAllocations"))
                    seen["tainted"] += "taints" in d
        self.assertTrue(40 <= seen["seeds"] <= 90, seen)
        for k in ("held shares", "held whole", "capacity asks", "tolerations", "admin",
                  "partitions", "sharable", "tainted"):
            self.assertGreater(seen[k], 10, (k, seen))


if __name__ == "__main__":
    unittest.main(verbosity=2)
