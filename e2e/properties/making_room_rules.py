"""Making room (issue 33) as the oracle reads it: what every eviction,
whichever action made it, owes a running gang, and what a consolidation
owes the pods it moves. Called by check.check once a cycle, with the
placement after the cycle's binds.

The properties (kinds):
  - gang-cut: after each cycle, every PodGroup (or Workload gang) that
    had at least minMember pods placed after the cycle's binds, before
    its evictions, and lost some of them to the cycle's evictions, has
    either minMember pods or more left, or none at all (all of its
    placed pods evicted): an eviction never cuts a running gang below
    its minimum. Fails with
      "cycle C: evictions (POD (REASON), ...) leave K of its N placed
       pod(s), below minMember M (not all of them evicted)".
  - consolidate-no-room: the pods a cycle evicts with reason
    `consolidate` (moved) had room elsewhere. The room: each node's
    allocatable less the requests (as kube-scheduler counts them, pod
    count included) of every pod on it after that cycle's binds and
    evictions; the node a pod was moved from is no room for it, nor is
    a node it may not go to (nodeSelector, taints, cordon). Pods
    pipelined in the cycle are not in the report, so their room is not
    taken off (that errs towards passing; with only consolidate evicting,
    a pipelined pod waits on a node a consolidation empties, a source).
    A pod of a gang moved whole (pods of its group moved off two nodes or
    more in the cycle: a gang at its minimum moves whole or not at all)
    may come back to the node it left: for it, every node is room.
    Judged, in this order:
      1. each moved pod alone fits some node other than its source:
         "cycle C: moved (consolidate) from S, but no other node it may
          go to has room for it after the cycle (needs R; most free: ...)";
      2. totals, a necessary condition: for each source S, the pods
         moved off S ask, resource by resource, no more than the free
         room of the nodes other than S together, and all moved pods no
         more than that of the nodes any of them may use; else, naming
         the largest pod of the group that no longer fits the running
         total: "cycle C: pods moved (consolidate) off S ask R in all, the
          other nodes have F free";
      3. a packing: first-fit decreasing (largest first, by GPUs, cpu,
         memory) of all moved pods together; when it fails, an exhaustive
         search of at most SEARCH_BUDGET steps; none exists:
         "cycle C: moved (consolidate) from S; the pods moved in this
          cycle (...) fit no packing into the free room of the other
          nodes (first-fit decreasing stopped at this pod; exhaustive
          search found none)"; the budget ran out: not judged (counted
          under CONSOLIDATE_UNDECIDED).
    An eviction naming where room is held for the pod made in its place
    (`movedTo`) is also held to that: movedTo is a node, not the source,
    the pod may go there, and the pods moved to one node fit its free
    room together: "cycle C: moved (consolidate) from S to T, but ...".
"""

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube import _add, fits, placement_problem  # noqa: E402
from model import Violation, _fmt  # noqa: E402

KINDS = ["gang-cut", "consolidate-no-room"]
CONSOLIDATE = "consolidate"
SEARCH_BUDGET = 20000
CONSOLIDATE_UNDECIDED = ("making room: consolidate evictions whose room first-fit decreasing "
                         "did not find and the bounded search did not decide (not judged)")
# Counts in the excuses Counter (not excuses): evictions by reason, those
# of pods holding claims, and consolidations judged.
EVICTED = "making room: evictions with reason %s"
EVICTED_WITH_CLAIMS = "making room: evictions of pods holding claims"
CONSOLIDATE_JUDGED = "making room: cycles with consolidate evictions judged"


def _v(kind, obj, detail):
    return Violation(kind, obj, detail)


def check_gang_cut(model, c, placed, evictions):
    """gang-cut after cycle `c`: `placed` is pod -> node after the
    cycle's binds, before its evictions; `evictions` [(pod, reason)]."""
    out = []
    gone = collections.defaultdict(list)
    for k, reason in evictions:
        if k in placed and model.group_of.get(k) in model.groups:
            gone[model.group_of[k]].append((k, reason))
    for g, evicted in sorted(gone.items()):
        info = model.groups[g]
        then = sum(1 for k in info["pods"] if k in placed)
        left = then - len({k for k, _ in evicted})
        if then >= info["min"] and 0 < left < info["min"]:
            out.append(_v("gang-cut", g, "cycle %d: evictions (%s) leave %d of its %d placed "
                          "pod(s), below minMember %d (not all of them evicted)"
                          % (c, ", ".join("%s (%s)" % e for e in sorted(evicted)), left, then,
                             info["min"])))
    return out


def _of(free, need):
    """`free` in the resources `need` names (what a message shows)."""
    return {r: free.get(r, 0) for r in need}


def _size(req):
    return (req.get("nvidia.com/gpu", 0), req.get("cpu", 0), req.get("memory", 0),
            sum(v for r, v in req.items() if r not in ("nvidia.com/gpu", "cpu", "memory")))


def _may(model, k, n, source):
    return n != source and placement_problem(model.pods[k], model.nodes[n]) is None


def _search(model, pods, free, off, budget):
    """Whether `pods` (largest first) pack into `free` with each pod off
    its source: True, False, or None when `budget` steps ran out."""
    steps = [0]
    free = {n: dict(f) for n, f in free.items()}

    def place(i):
        if i == len(pods):
            return True
        k = pods[i]
        tried = set()
        for n in sorted(free):
            steps[0] += 1
            if steps[0] > budget:
                return None
            if not _may(model, k, n, off[k]) or not fits(model.req[k], free[n]):
                continue
            # Nodes with the same free room are the same choice.
            sig = tuple(sorted(free[n].items()))
            if sig in tried:
                continue
            tried.add(sig)
            free[n] = _add(free[n], model.req[k], -1)
            got = place(i + 1)
            free[n] = _add(free[n], model.req[k])
            if got is not False:
                return got
        return False

    return place(0)


def check_consolidate(model, c, after, moved, excuses):
    """consolidate-no-room after cycle `c`: `after` is pod -> node after
    the cycle's binds and evictions; `moved` [(pod, source node, movedTo
    or "")] of its evictions with reason consolidate."""
    if not moved:
        return []
    excuses[CONSOLIDATE_JUDGED] += 1
    out = []
    used = model.used(after)
    free = {n: _add(model.alloc[n], used[n], -1) for n in model.nodes}
    source = {k: s for k, s, _ in moved}
    pods = sorted(source, key=lambda k: (_size(model.req[k]), k), reverse=True)
    # A gang moved whole (its pods moved off two nodes or more: a gang at
    # its minimum goes whole or not at all) takes pods off nodes nobody
    # empties; such a pod may come back to the node it left, so only the
    # other moved pods have their source excluded (`off`: pod -> the node
    # that is no room for it, or None).
    nodes_of = collections.defaultdict(set)
    for k, s in source.items():
        nodes_of[model.group_of.get(k, k)].add(s)
    off = {k: None if len(nodes_of[model.group_of.get(k, k)]) > 1 else s
           for k, s in source.items()}

    # movedTo, when the report names it.
    to = collections.defaultdict(list)
    for k, s, t in moved:
        if not t:
            continue
        why = ("it is the node it was moved from" if t == off[k] else
               "there is no such node" if t not in model.nodes else
               placement_problem(model.pods[k], model.nodes[t]))
        if why:
            out.append(_v("consolidate-no-room", k, "cycle %d: moved (consolidate) from %s to "
                          "%s, but %s" % (c, s, t, why)))
        else:
            to[t].append(k)
    for t, ks in sorted(to.items()):
        need = {}
        for k in sorted(ks):
            need = _add(need, model.req[k])
        if not fits(need, free[t]):
            out.append(_v("consolidate-no-room", sorted(ks)[0],
                          "cycle %d: moved (consolidate) from %s to %s, but the pods moved there "
                          "(%s) ask %s and it has %s free after the cycle"
                          % (c, source[sorted(ks)[0]], t, ", ".join(sorted(ks)), _fmt(need),
                             _fmt(_of(free[t], need)))))

    # 1. Each pod alone.
    alone = []
    for k in pods:
        if not any(_may(model, k, n, off[k]) and fits(model.req[k], free[n])
                   for n in model.nodes):
            most = sorted(((n, f) for n, f in free.items() if _may(model, k, n, off[k])),
                          key=lambda nf: (_size(nf[1]), nf[0]), reverse=True)[:3]
            out.append(_v("consolidate-no-room", k, "cycle %d: moved (consolidate) from %s, but "
                          "no other node it may go to has room for it after the cycle (needs %s; "
                          "most free: %s)" % (c, source[k], _fmt(model.req[k]),
                                              "; ".join("%s %s" % (n, _fmt(_of(f, model.req[k])))
                                                        for n, f in most)
                                              or "none")))
            alone.append(k)
    if alone:
        return out

    # 2. Totals.
    groups = [(s, [k for k in pods if off[k] == s],
               [n for n in model.nodes if n != s])
              for s in sorted({s for s in off.values() if s})]
    if len(groups) != 1 or len(groups[0][1]) != len(pods):
        groups.append(("any source", pods,
                       [n for n in model.nodes if any(n != off[k] for k in pods)]))
    for s, ks, nodes in groups:
        room = {}
        for n in nodes:
            room = _add(room, {r: v for r, v in free[n].items() if v > 0})
        need = {}
        for k in ks:
            need = _add(need, model.req[k])
            if not fits(need, room):
                out.append(_v("consolidate-no-room", k, "cycle %d: pods moved (consolidate) off "
                              "%s ask %s in all, the other nodes have %s free (first past it: "
                              "this pod, of %s)" % (c, s, _fmt(need), _fmt(_of(room, need)),
                                                    ", ".join(ks))))
                return out

    # 3. A packing: first-fit decreasing, else a bounded exhaustive search.
    trial = {n: dict(f) for n, f in free.items()}
    stuck = None
    for k in pods:
        n = next((n for n in sorted(trial) if _may(model, k, n, off[k])
                  and fits(model.req[k], trial[n])), None)
        if n is None:
            stuck = k
            break
        trial[n] = _add(trial[n], model.req[k], -1)
    if stuck is None:
        return out
    found = _search(model, pods, free, off, SEARCH_BUDGET)
    if found is None:
        excuses[CONSOLIDATE_UNDECIDED] += 1
    elif not found:
        out.append(_v("consolidate-no-room", stuck, "cycle %d: moved (consolidate) from %s; the "
                      "pods moved in this cycle (%s) fit no packing into the free room of the "
                      "other nodes (first-fit decreasing stopped at this pod; exhaustive search "
                      "found none)" % (c, source[stuck], ", ".join(pods))))
    return out
