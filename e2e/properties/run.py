"""Property checks of shoal-scheduler on many seeded random clusters.

    python3 e2e/properties/run.py --seeds=0:5000 --policies=all --jobs=2

For each seed, generate.py writes a cluster; for each policy the real
binary replays it (twice, for determinism) and check.py's oracle judges
the outcome. A failing seed's snapshot is written under
$TEST_UNDECLARED_OUTPUTS_DIR (else /tmp), with the exact replay command
and which property failed on which object. Exit status 1 if any failed.
"""

import argparse
import collections
import glob
import multiprocessing
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402
import network_rules  # noqa: E402
import device_rules  # noqa: E402
import generate  # noqa: E402
import generate_making_room  # noqa: E402
import making_room_rules  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def policies(dirs=("policies",)):
    """name -> path: the presets in policies/ and the ones beside this file
    (in the folders `dirs` here: policies/, which --policies=all runs,
    and stream_policies/, which only a stream names)."""
    out = {}
    for d in [os.path.join(ROOT, "policies")] + [os.path.join(HERE, x) for x in dirs]:
        for p in sorted(glob.glob(os.path.join(d, "*.yaml"))):
            out[os.path.basename(p)[:-len(".yaml")]] = p
    return out


def _outdir():
    return os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or tempfile.gettempdir()


def _rel(path):
    r = os.path.relpath(path, os.getcwd())
    return path if r.startswith("..") else r


def network_counts(snapshot):
    """What a seed holds of the network: a Counter of `seeds` (1 when it has
    HyperNodes), `faulty` (1 when the oracle finds the description faulty),
    and PodGroups under a `hard` or `soft` constraint."""
    out = collections.Counter()
    net = network_rules.Network(snapshot["items"])
    if net.on:
        out["seeds"] += 1
        out["faulty"] += bool(net.faults)
    for o in snapshot["items"]:
        if o["kind"] == "PodGroup":
            mode = (o["spec"].get("networkTopology") or {}).get("mode")
            if mode in ("hard", "soft"):
                out[mode] += 1
    return out


def dra_counts(snapshot):
    """What a seed holds of DRA: a Counter of `seeds` (1 when it has
    ResourceSlices, DeviceClasses or claims), `claims`, those allocated in
    the snapshot (`preallocated`), claims two pods share (`shared`),
    Queues with a device quota (`quotas`, deviceclass/<class>), and what
    the sharing stream gives (generate_sharing.py): `sharing` seeds,
    devices consuming counters (`partitions`), sharable ones (`sharable`),
    tainted ones (`tainted`), shares the snapshot holds (`held_shares`),
    claims asking capacity (`asks`), tolerating taints (`tolerating`) or
    with admin access (`admin`)."""
    out = collections.Counter()
    dev = device_rules.Devices(snapshot["items"])
    if dev.on:
        out["seeds"] += 1
        out["claims"] += len(dev.claims)
        out["preallocated"] += len(dev.initial)
        users = collections.Counter(ck for cks in dev.pod_claims_of.values() for ck in cks)
        out["shared"] += sum(1 for n in users.values() if n > 1)
        out["quotas"] += sum(1 for o in snapshot["items"] if o["kind"] == "Queue" and any(
            r.startswith(device_rules.CLASS_PREFIX)
            for r in (o.get("spec") or {}).get("capability") or {}))
        devices = [d for _, d in dev.device.values()]
        out["partitions"] += sum(1 for d in devices if d.get("consumesCounters"))
        out["sharable"] += sum(1 for d in devices if d.get("allowMultipleAllocations"))
        out["tainted"] += sum(1 for d in devices if d.get("taints"))
        out["sharing"] += bool(out["partitions"] or out["sharable"])
        out["held_shares"] += sum(1 for rs in dev.initial_results.values() for r in rs
                                  if r.get("shareID"))
        for ck in dev.claims:
            for r in ((dev.claims[ck].get("spec") or {}).get("devices") or {}).get(
                    "requests") or []:
                ex = r.get("exactly") or {}
                out["asks"] += "capacity" in ex
                out["tolerating"] += "tolerations" in ex
                out["admin"] += bool(ex.get("adminAccess"))
    return out


# What each stream's seeds must show across the run, or the run fails (a
# stream that never makes room checks nothing): a Counter key of the
# excuses (making_room_rules) and what it means.
REQUIRED = {
    "dra-preempt": (making_room_rules.EVICTED_WITH_CLAIMS,
                    "evictions of pods holding claims"),
    "fragmented": (making_room_rules.EVICTED % making_room_rules.CONSOLIDATE,
                   "evictions with reason consolidate"),
}
# Asked only when a policy run lists this action (a skipped one does not).
REQUIRED_ACTION = {"fragmented": making_room_rules.CONSOLIDATE}
# The binary's refusal of a policy naming an action it does not have.
UNKNOWN_ACTION = 'unknown action "%s"'


def generate_seed(stream, seed):
    if stream == "random":
        return generate.generate(seed)
    return generate_making_room.GENERATORS[stream](seed)


def unknown_actions(binary, chosen, stream, seed, cycles):
    """Policies of `chosen` whose actions the binary does not know, tried
    on the stream's first seed: [(name, the binary's message)]."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.json")
        with open(path, "w") as f:
            f.write(generate.dumps(generate_seed(stream, seed)))
        for name, ppath in chosen:
            with open(ppath) as f:
                actions = check.policy_actions(f.read())
            rc, _, stderr = check.run_binary(binary, path, ppath, cycles)
            unknown = [a for a in sorted(actions) if UNKNOWN_ACTION % a in stderr]
            if rc != 0 and unknown:
                out.append((name, stderr.strip().splitlines()[-1] if stderr.strip() else ""))
    return out


def run_seed(job):
    seed, chosen, binary, cycles, determinism, stream = job
    snapshot = generate_seed(stream, seed)
    text = generate.dumps(snapshot)
    results = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "seed-%d.json" % seed)
        with open(path, "w") as f:
            f.write(text)
        for i, (name, ppath) in enumerate(chosen):
            twice = determinism == "all" or i == seed % len(chosen)
            violations, excuses = check.run_case(binary, path, ppath, cycles, twice)
            results.append((name, violations, excuses))
    saved = None
    if any(v for _, v, _ in results):
        saved = os.path.join(_outdir(), "shoal-properties-seed-%d.json" % seed)
        with open(saved, "w") as f:
            f.write(text)
    return (seed, text.count('"kind":'), results, saved, network_counts(snapshot),
            dra_counts(snapshot))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:200", help="FROM:TO (TO excluded), or one seed")
    ap.add_argument("--stream", default="random", choices=["random"] + generate_making_room.STREAMS,
                    help="random: generate.py's clusters; dra-preempt, fragmented: "
                    "generate_making_room.py's, which must show evictions (REQUIRED)")
    ap.add_argument("--policies", default="all", help="all, or names from policies/ and "
                    "e2e/properties/policies/, comma separated")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--binary", default=os.environ.get(
        "SHOAL_SCHEDULER", os.path.join(ROOT, "bazel-bin/scheduler/shoal-scheduler")))
    ap.add_argument("--determinism", choices=["rotate", "all"], default="rotate",
                    help="run twice and compare: one policy per seed, in turn (rotate), "
                    "or every policy (all)")
    ap.add_argument("--log", help="write every violation to this file, one a line: "
                    "seed, policy, violation")
    ap.add_argument("--details", type=int, default=20,
                    help="print the violations of at most this many failing runs")
    a = ap.parse_args(argv)

    lo, _, hi = a.seeds.partition(":")
    seeds = range(int(lo), int(hi)) if hi else [int(lo)]
    known = policies(("policies", "stream_policies"))
    names = sorted(policies()) if a.policies == "all" else a.policies.split(",")
    for n in names:
        if n not in known:
            sys.exit("unknown policy %r (known: %s)" % (n, ", ".join(sorted(known))))
    chosen = [(n, known[n]) for n in names]
    binary = os.path.abspath(a.binary)
    if a.stream != "random":
        # A policy naming an action the binary does not have yet (consolidate,
        # while it is written): skipped, saying why, never passed silently.
        for name, why in unknown_actions(binary, chosen, a.stream, seeds[0], a.cycles):
            print("SKIPPED stream %s under policy %s: the binary reports an unknown action "
                  "(%s); it is checked once the binary has it" % (a.stream, name, why))
            chosen = [(n, p) for n, p in chosen if n != name]
        if not chosen:
            print("stream %s: every policy skipped; nothing checked" % a.stream)
            return 0
        if a.stream in REQUIRED_ACTION and not any(
                REQUIRED_ACTION[a.stream] in check.policy_actions(open(p).read())
                for _, p in chosen):
            print("stream %s: no policy run lists %s; its evictions are not required"
                  % (a.stream, REQUIRED_ACTION[a.stream]))

    start = time.time()
    kinds = collections.Counter()           # (kind, policy) -> failing runs
    smallest = {}                           # kind -> (items, seed, policy, violation)
    excuses = collections.Counter()
    by_policy = collections.defaultdict(collections.Counter)   # reclaim-liveness counts
    network = collections.Counter()          # network seeds and constrained gangs
    dra = collections.Counter()              # DRA seeds and their claims
    allocated = 0                            # claims the runs allocated
    failing_runs = 0
    detailed = 0
    jobs = [(s, chosen, binary, a.cycles, a.determinism, a.stream) for s in seeds]
    pool = multiprocessing.Pool(a.jobs) if a.jobs > 1 else None
    it = pool.imap(run_seed, jobs) if pool else map(run_seed, jobs)
    log = open(a.log, "w") if a.log else None
    for done, (seed, items, results, saved, net, drac) in enumerate(it, 1):
        network.update(net)
        dra.update(drac)
        for name, violations, ex in results:
            allocated += ex.pop(check.CLAIMS_ALLOCATED, 0)
            excuses.update(ex)
            by_policy[name].update({k: n for k, n in ex.items()
                                    if k.startswith(check.RECLAIM_LIVENESS + ":")})
            if not violations:
                continue
            failing_runs += 1
            if log:
                for v in violations:
                    log.write("%d\t%s\t%s\n" % (seed, name, v))
            seen = set()
            for v in violations:
                if v.kind in seen:
                    continue
                seen.add(v.kind)
                kinds[(v.kind, name)] += 1
                if v.kind not in smallest or (items, seed) < smallest[v.kind][:2]:
                    smallest[v.kind] = (items, seed, name, v)
            if detailed < a.details:
                detailed += 1
                print("FAIL seed %d policy %s (snapshot %s):" % (seed, name, saved))
                shown_binary = _rel(binary)
                if os.environ.get("TEST_TARGET"):
                    # Under bazel test: the file ends up in outputs.zip.
                    target = os.environ["TEST_TARGET"].lstrip("/").replace(":", "/")
                    regen = ("generate.py %d" % seed if a.stream == "random" else
                             "generate_making_room.py %s %d" % (a.stream, seed))
                    print("  (under bazel: unzip bazel-testlogs/%s/test.outputs/outputs.zip, "
                          "or regenerate: python3 e2e/properties/%s %s)"
                          % (target, regen, os.path.basename(saved)))
                    saved = os.path.basename(saved)
                    shown_binary = "bazel-bin/scheduler/shoal-scheduler"
                print("  replay: %s --snapshot=%s --scheduler-conf=%s --cycles=%d --output=json"
                      % (shown_binary, saved, _rel(known[name]), a.cycles))
                print("  check:  python3 %s %s %s --cycles=%d"
                      % (_rel(os.path.join(HERE, "check.py")), saved, _rel(known[name]),
                         a.cycles))
                for v in violations[:6]:
                    print("  " + str(v))
                if len(violations) > 6:
                    print("  ... and %d more" % (len(violations) - 6))
                sys.stdout.flush()
        if done % 50 == 0 or done == len(jobs):
            sys.stderr.write("[%d/%d seeds, %.0fs, %d failing runs]\n"
                             % (done, len(jobs), time.time() - start, failing_runs))
    if log:
        log.close()
    if pool:
        pool.close()
        pool.join()

    wall = time.time() - start
    print("\n%s%d seeds x %d policies = %d runs in %.1fs (%d jobs); %d failing runs"
          % ("stream %s: " % a.stream if a.stream != "random" else "", len(jobs), len(chosen),
             len(jobs) * len(chosen), wall, a.jobs, failing_runs))
    if kinds:
        print("failures by property and policy (runs):")
        for (kind, name), n in sorted(kinds.items()):
            print("  %-18s %-20s %d" % (kind, name, n))
        print("smallest failing seed per property:")
        for kind in check.KINDS:
            if kind in smallest:
                items, seed, name, v = smallest[kind]
                print("  %-18s seed %d (%d objects) policy %s: %s" % (kind, seed, items, name, v))
    print("stated rules that excused an idle gang that would fit (times):")
    for label, _ in check.ACCEPTED_RULES:
        print("  %5d  %s" % (excuses[label], label))
    # How often the network properties had something to judge (per run:
    # a gang counts once under each policy).
    print("network topology: %d seeds with HyperNodes (%d with a faulty description); "
          "%d PodGroups hard, %d soft" % (network["seeds"], network["faulty"], network["hard"],
                                          network["soft"]))
    for label in sorted(k for k in excuses if k.startswith("network: ")):
        print("  %5d  %s" % (excuses[label], label[len("network: "):]))
    # How often the device properties had something to judge.
    print("DRA: %d seeds with devices (%d claims, %d allocated in the snapshot, %d shared; "
          "%d queues with a device quota); %d claims allocated over all runs"
          % (dra["seeds"], dra["claims"], dra["preallocated"], dra["shared"], dra["quotas"],
             allocated))
    print("DRA shared the 1.36 ways: %d seeds; %d devices consuming counters, %d sharable, %d "
          "tainted; %d shares held in the snapshot; claims: %d asking capacity, %d tolerating "
          "taints, %d with admin access"
          % (dra["sharing"], dra["partitions"], dra["sharable"], dra["tainted"],
             dra["held_shares"], dra["asks"], dra["tolerating"], dra["admin"]))
    for label in sorted(k for k in excuses if k.startswith("DRA: ")
                        and k not in dict(check.ACCEPTED_RULES)):
        print("  %5d  %s" % (excuses[label], label[len("DRA: "):]))
    # How often the liveness property had something to judge, and why a
    # gang owed room at the start did not need it at the end.
    owed = sorted(k for k in excuses if k.startswith(check.RECLAIM_LIVENESS + ":"))
    if owed:
        print("reclaim-liveness, gangs owed room at the start (times):")
        for label in owed:
            print("  %5d  %s" % (excuses[label], label[len(check.RECLAIM_LIVENESS) + 2:]))
        print("reclaim-liveness by policy (owed, met; the rest):")
        for name in sorted(n for n, c in by_policy.items() if c):
            c = by_policy[name]
            key = check.RECLAIM_LIVENESS + ": "
            rest = ", ".join("%s %d" % (k[len(key):], n) for k, n in sorted(c.items())
                             if k not in (key + "owed", key + "met"))
            print("  %-20s %5d owed, %5d met%s" % (name, c[key + "owed"], c[key + "met"],
                                                   "; " + rest if rest else ""))
    # How often room was made, and judged (making_room_rules.py).
    print("making room: evictions by reason %s; %d of pods holding claims; %d cycles with "
          "consolidate evictions judged; %d not decided"
          % (", ".join("%s %d" % (k[len(making_room_rules.EVICTED % ""):], n)
                       for k, n in sorted(excuses.items())
                       if k.startswith(making_room_rules.EVICTED % "")) or "none",
             excuses[making_room_rules.EVICTED_WITH_CLAIMS],
             excuses[making_room_rules.CONSOLIDATE_JUDGED],
             excuses[making_room_rules.CONSOLIDATE_UNDECIDED]))
    exercised = True
    needs = REQUIRED_ACTION.get(a.stream)
    if a.stream in REQUIRED and (needs is None or any(
            needs in check.policy_actions(open(p).read()) for _, p in chosen)):
        label, what = REQUIRED[a.stream]
        if not excuses[label]:
            exercised = False
            print("FAIL stream %s: no %s across %d seeds x %d policies: the stream no longer "
                  "exercises what it is for" % (a.stream, what, len(jobs), len(chosen)))
    return 1 if failing_runs or not exercised else 0


if __name__ == "__main__":
    sys.exit(main())
