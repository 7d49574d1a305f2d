"""An independent oracle for Shoal's replay, and a runner of the real binary.

`check(snapshot, report, predicates=True)` takes the `kind: List` fed to
`shoal-scheduler --snapshot` and the parsed `--output=json` report, and
returns (violations, excuses): every broken property as a Violation, and a
Counter of which stated rule excused an idle gang that would fit.

Properties (nothing here trusts the scheduler's own arithmetic):
  * safety
    - overbooked: after each cycle's binds (before its evictions take
      effect) no node holds more than its allocatable of any resource,
      pod count included, counting every pod on it (any scheduler), with
      requests as kube-scheduler counts them;
    - bad-bind / bad-eviction: a bind of an unknown, foreign, already
      placed or deleted pod; an eviction of a pod on no node;
    - partial-gang: after each cycle, no PodGroup has bound pods but fewer
      than spec.minMember;
    - selector / taint / cordoned: every bind matches the pod's
      nodeSelector, tolerates the node's NoSchedule/NoExecute taints and
      avoids cordoned nodes (only asked of policies listing `predicates`);
  * liveness (work conservation): at the end, a PodGroup below its
    minimum whose missing minimum (cheapest pending pods first) fits the
    idle room by a first fit (selectors, taints, cordons and pods placed
    earlier in the same fit respected; pods evicted in the last cycle
    still count as there) must carry a message naming one of
    ACCEPTED_RULES, else `idle-fitting-gang`.
Determinism (the same file twice gives identical output) is checked by
`run_case`, which runs the binary.

    python3 e2e/properties/check.py SNAPSHOT.json POLICY.yaml [--cycles=5]
"""

import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import (GROUP_ANNOTATION, SCHEDULER, _add, fits, node_allocatable,  # noqa: E402
                      placement_problem, pod_requests)

# The stated rules that may keep a fitting gang waiting: (label, phrase in
# the PodGroup's message). The one place to change what counts as an
# excuse; run.py prints how often each one was used.
ACCEPTED_RULES = [
    ("queue capability (queue ... is full)", "is full"),
    ("queue reached its deserved share", "has reached its deserved share"),
    ("reservation: admission held for a waiting gang", "admission is held for podgroup"),
    ("reservation: nodes reserved for a waiting gang", "reserved for a gang waiting too long"),
    ("overcommit: minimum exceeds what the cluster can still promise",
     "does not fit what the cluster can still promise"),
    ("queue does not exist", "does not exist"),
    ("queue closed", "is closed and admits no new work"),
    ("not enough pods for the gang", "not enough pods"),
    ("allocate strictOrder: waiting behind a job that cannot start", "waiting behind podgroup"),
]

KINDS = ["binary-error", "nondeterminism", "overbooked", "bad-bind", "bad-eviction",
         "partial-gang", "selector", "taint", "cordoned", "idle-fitting-gang"]


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
        for o in items:
            if o["kind"] == "PodGroup":
                self.groups[key(o)] = {"min": o["spec"].get("minMember", 1), "pods": [],
                                       "obj": o}
        self.group_of = {}
        for k, p in self.pods.items():
            if k not in self.ours:
                continue
            g = (p["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
            g = (p["metadata"].get("labels") or {}).get("scheduling.x-k8s.io/pod-group", g)
            if g:
                gk = "%s/%s" % (p["metadata"].get("namespace", "default"), g)
                self.group_of[k] = gk
                if gk in self.groups:
                    self.groups[gk]["pods"].append(k)
            else:
                self.group_of[k] = k
                self.groups[k] = {"min": 1, "pods": [k], "obj": None}

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


def first_fit(model, pods, free, order):
    """Places `pods` one by one on the first node (in `order(free)`) where
    the pod fits and may go; returns the placement or None."""
    free = {n: dict(f) for n, f in free.items()}
    placed = []
    for k in pods:
        for n in order(free, model.req[k]):
            if fits(model.req[k], free[n]) and placement_problem(
                    model.pods[k], model.nodes[n]) is None:
                free[n] = _add(free[n], model.req[k], -1)
                placed.append((k, n))
                break
        else:
            return None
    return placed


def _by_name(free, req):
    return sorted(free)


def _tightest(free, req):
    return sorted(free, key=lambda n: (tuple(free[n].get(r, 0) for r in ("nvidia.com/gpu",
                                                                         "cpu", "memory")), n))


def check(snapshot, report, predicates=True, scheduler=SCHEDULER):
    """Returns (violations, excuses Counter)."""
    model = Model(snapshot, scheduler)
    out = []
    excuses = collections.Counter()
    where = model.initial_placement()
    deleted = set()
    last_evicted = []
    cycles = report.get("cycles", [])
    for c, cycle in enumerate(cycles, 1):
        binds = []
        for b in cycle.get("binds", []):
            k, n = b["pod"], b["node"]
            if k not in model.pods or k not in model.ours:
                out.append(Violation("bad-bind", k, "cycle %d: bound a pod that is not %s's"
                                     % (c, scheduler)))
                continue
            if k in where or k in deleted:
                out.append(Violation("bad-bind", k, "cycle %d: bound to %s but already %s"
                                     % (c, n, "on " + where[k] if k in where else "deleted")))
                continue
            if n not in model.nodes:
                out.append(Violation("bad-bind", k, "cycle %d: bound to unknown node %s" % (c, n)))
                continue
            why = placement_problem(model.pods[k], model.nodes[n])
            if why and predicates:
                kind = ("selector" if why.startswith("nodeSelector") else
                        "taint" if why.startswith("untolerated") else "cordoned")
                out.append(Violation(kind, k, "cycle %d: bound to %s: %s" % (c, n, why)))
            binds.append((k, n))
            where[k] = n
        # Binds happen before this cycle's victims are gone.
        for n, u in model.used(where).items():
            over = {r: v for r, v in u.items() if v > model.alloc[n].get(r, 0)}
            if over:
                pods = sorted(k for k, m in where.items() if m == n)
                new = [k for k, m in binds if m == n]
                out.append(Violation(
                    "overbooked", "node/" + n,
                    "after cycle %d: requests %s exceed allocatable %s; pods %s (bound this "
                    "cycle: %s)" % (c, _fmt(over), _fmt({r: model.alloc[n].get(r, 0)
                                                          for r in over}), pods, new)))
        last_evicted = []
        for e in cycle.get("evictions", []):
            k = e["pod"]
            if k not in where:
                out.append(Violation("bad-eviction", k, "cycle %d: evicted (%s) but on no node"
                                     % (c, e.get("reason"))))
                continue
            last_evicted.append((k, where.pop(k)))
            deleted.add(k)
        for g, info in sorted(model.groups.items()):
            bound = sum(1 for k in info["pods"] if k in where)
            if 0 < bound < info["min"]:
                out.append(Violation("partial-gang", g, "after cycle %d: %d pods bound, "
                                     "minMember is %d" % (c, bound, info["min"])))

    # Liveness at the end.
    final = {pg["name"]: pg for pg in (cycles[-1].get("podGroups", []) if cycles else [])}
    used = model.used(where, last_evicted)
    free = {n: _add(model.alloc[n], used[n], -1) for n in model.nodes}
    for g, info in sorted(model.groups.items()):
        live = [k for k in info["pods"] if k not in deleted]
        bound = sum(1 for k in live if k in where)
        pending = [k for k in live if k not in where]
        need = info["min"] - bound
        if need <= 0 or len(pending) < need:
            continue
        minimum = sorted(pending, key=lambda k: (_cheap(model.req[k]), k))[:need]
        big_first = sorted(minimum, key=lambda k: (_cheap(model.req[k]), k), reverse=True)
        fit = (first_fit(model, big_first, free, _by_name) or
               first_fit(model, big_first, free, _tightest))
        if fit is None:
            continue
        msg = final.get(g, {}).get("message")
        rule = next((label for label, phrase in ACCEPTED_RULES if msg and phrase in msg), None)
        if rule:
            excuses[rule] += 1
            continue
        best_effort = all(set(model.req[k]) == {"pods"} for k in minimum)
        out.append(Violation(
            "idle-fitting-gang", g,
            "%s: %d more pod(s) needed (minMember %d, %d bound) fit idle room, e.g. %s; "
            "phase %s, message %r" % ("BestEffort gang" if best_effort else "gang", need,
                                      info["min"], bound,
                                      ", ".join("%s->%s" % kn for kn in fit),
                                      final.get(g, {}).get("phase", "<not listed>"),
                                      msg if msg is not None else "<not listed>")))
    return out, excuses


def policy_has_predicates(policy_text):
    import re
    return re.search(r"^\s*-?\s*name:\s*predicates\s*$", policy_text, re.M) is not None


def run_binary(binary, snapshot_path, policy_path, cycles):
    args = [binary, "--snapshot=" + snapshot_path, "--scheduler-conf=" + policy_path,
            "--cycles=%d" % cycles, "--output=json"]
    done = subprocess.run(args, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def run_case(binary, snapshot_path, policy_path, cycles=5, twice=True):
    """Runs the binary on the file (twice, comparing the output, if
    `twice`); returns (violations, excuses)."""
    with open(snapshot_path) as f:
        snapshot = json.load(f)
    with open(policy_path) as f:
        predicates = policy_has_predicates(f.read())
    rc, stdout, stderr = run_binary(binary, snapshot_path, policy_path, cycles)
    if rc != 0:
        return [Violation("binary-error", snapshot_path, "exit %d: %s" % (rc, stderr.strip()[-500:]))], \
            collections.Counter()
    violations = []
    rc2, stdout2 = rc, stdout
    if twice:
        rc2, stdout2, _ = run_binary(binary, snapshot_path, policy_path, cycles)
    if rc2 != rc or stdout2 != stdout:
        i = next((i for i, (x, y) in enumerate(zip(stdout, stdout2)) if x != y), 0)
        violations.append(Violation("nondeterminism", snapshot_path,
                                    "two runs differ from byte %d: %r vs %r"
                                    % (i, stdout[i:i + 120], stdout2[i:i + 120])))
    v, excuses = check(snapshot, json.loads(stdout), predicates)
    return violations + v, excuses


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("policy")
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--binary", default=os.environ.get(
        "SHOAL_SCHEDULER", "bazel-bin/scheduler/shoal-scheduler"))
    a = ap.parse_args()
    vs, ex = run_case(a.binary, a.snapshot, a.policy, a.cycles)
    for v in vs:
        print(v)
    for rule, n in ex.most_common():
        print("excused %dx by rule: %s" % (n, rule))
    sys.exit(1 if vs else 0)
