"""Proportion's deserved shares, from the objects and the README alone (for
reclaim_liveness.py; nothing here is the scheduler's arithmetic).

The README (the `proportion` row of "### Plugins"): "each queue's deserved
share by weighted water-filling over the cluster's allocatable, capped by
`capability` and the queue's real demand (pending pods, and the minimum of a
group whose pods are not created yet), never below `guarantee`"; ("### Queues")
"`proportion` fills deserved shares level by level (siblings share their
parent's deserved share by weight)"; (borrowing) a queue's limit is "its
capability (or the cluster less the other queues' guarantees)".
A queue stating `spec.deserved` gets that share as stated (the README's
proportion row); a cluster with one is not judged (`judged` is False).

Where the README leaves a reading open, every reading is computed and only
bounds are kept: `lo(q)` is no larger than q's share under any of them, `hi(q)`
no smaller. The readings:
  - the cluster: every node's allocatable (hi), or only uncordoned nodes',
    less what other schedulers' pods there ask (lo; given by the caller);
  - the demand of a leaf: what its jobs' live pods ask, held or pending, for
    every job with at least minMember live pods (both); with the hi reading
    also the pods of a job with fewer (gang's job valid may drop it), a
    group's minResources when it has no pods at all, pods in a finished
    phase, and pods evicted during the replay (gone from the replay, but
    there when the session of the cycle that evicted them opened);
    a parent's demand is its subtree's;
  - a queue's cap: its stated capability (hi), and also its level's share
    of the cluster less its siblings' guarantees (lo);
  - the implicit queue `default` (weight 1, as conf/queues/default.yaml
    ships it) when no Queue names it, and a queue not Open (with its
    subtree), compete (lo) or are left out (hi);
  - root's share: the cluster (hi), or within root's stated capability (lo);
  - the pod count: a resource of the shares (the cluster's allocatable
    names it: `counted`), filled like the others; Volcano's loop runs
    with it and without it (it makes queues unsatisfied longer);
  - "never below guarantee" (MODES): each share clamped between guarantee
    and cap on one water level ("clamp"); guarantees set aside first and
    the rest water-filled on top of them ("reserve"); water-filled without
    guarantees, then raised to them ("after"); or Volcano's loop
    ("volcano", in floats: each round every unsatisfied queue gets
    weight/sum(weights) of what is left, capped by capability and demand,
    raised to its guarantee; a queue is satisfied once its demand is met or
    its share stops growing; until nothing is left or nothing changes).
Bounds for queue q: q, its subtree and its ancestors take one reading, every
other queue the other (lo: q's side low, its competitors high), since a
water-filled share does not grow when a competitor's cap or demand grows,
nor shrink when the cluster or its own cap or demand grows. A queue tree
with a fault, or a job in a queue with children, is not judged at all
(`judged` is False): where such a queue's share goes is not stated.
"""

import collections
from fractions import Fraction

from kube import _add
from model import _queue_resources, _real

MODES = ("clamp", "reserve", "after", "volcano", "volcano-no-pods")
PODS = "pods"


def counted(res):
    """The resources of a share: what pods request, and the pod count (the
    cluster's allocatable names it), not host ports."""
    return {r: v for r, v in res.items() if not r.startswith("hostport/")}


def _level_solve(total, items, share):
    """The water level L >= 0 at which sum(share(item, L)) reaches `total`
    (each share nondecreasing, piecewise linear in L with breakpoints
    given by item[3]); None when every item stops below it (they all get
    their ceiling)."""
    def f(level):
        return sum(share(it, level) for it in items)

    breaks = sorted({b for it in items for b in it[3] if b is not None and b > 0})
    prev, fprev = Fraction(0), f(Fraction(0))
    if fprev >= total:
        return prev
    for b in breaks:
        fb = f(b)
        if fb >= total:
            return prev + (total - fprev) * (b - prev) / (fb - fprev)
        prev, fprev = b, fb
    slope = sum(it[0] for it in items if it[2] is None)
    if slope == 0:
        return None
    return prev + (total - fprev) / slope


def water_fill_one(total, items, mode):
    """One resource, one level: `items` [(weight, guarantee, ceiling or None
    for unbounded)], the ceiling being min(cap, demand). Returns the shares
    (Fractions) under the exact modes clamp, reserve, after."""
    total = Fraction(total)
    if mode == "clamp":
        its = [(w, g, None if c is None else max(g, c),
                (g / w if w else None, (max(g, c) / w) if w and c is not None else None))
               for w, g, c in items]

        def share(it, level):
            w, g, c, _ = it
            v = max(level * w, g)
            return v if c is None else min(v, c)
    elif mode == "reserve":
        its = [(w, g, None if c is None else max(g, c),
                (((max(g, c) - g) / w) if w and c is not None else None,))
               for w, g, c in items]

        def share(it, level):
            w, g, c, _ = it
            v = g + level * w
            return v if c is None else min(v, c)
    elif mode == "after":
        its = [(w, 0, c, ((c / w) if w and c is not None else None,)) for w, g, c in items]

        def share(it, level):
            w, _, c, _ = it
            v = level * w
            return v if c is None else min(v, c)
    else:
        raise ValueError(mode)
    level = _level_solve(total, its, share)
    if level is None:
        # Every queue that grows with the level stops below it: past the
        # last breakpoint.
        level = max([b for it in its for b in it[3] if b is not None] + [0]) + 1
    out = [share(it, level) for it in its]
    if mode == "after":
        out = [max(v, g) for v, (w, g, c) in zip(out, items)]
    return out


def water_fill_volcano(total, queues):
    """Volcano's loop over every resource at once, in floats. `queues`:
    [(weight, guarantee {r: v}, cap {r: v or None}, demand {r: v})]."""
    res = sorted(total)
    rem = {r: float(total[r]) for r in res}
    des = [{r: 0.0 for r in res} for _ in queues]
    meet = set()
    for _ in range(1000):
        weight = sum(q[0] for i, q in enumerate(queues) if i not in meet)
        if weight == 0:
            break
        old_rem = dict(rem)
        inc = {r: 0.0 for r in res}
        for i, (w, g, cap, dem) in enumerate(queues):
            if i in meet:
                continue
            old = des[i]
            new = {}
            for r in res:
                v = old[r] + rem[r] * w / weight
                if cap.get(r) is not None:
                    v = min(v, float(cap[r]))
                v = min(v, float(dem.get(r, 0)))
                new[r] = max(v, float(g.get(r, 0)))
            same = all(abs(new[r] - old[r]) <= 1e-9 * max(1.0, abs(old[r])) for r in res)
            if same or all(float(dem.get(r, 0)) <= new[r] for r in res):
                meet.add(i)
            for r in res:
                inc[r] += new[r] - old[r]
            des[i] = new
        rem = {r: rem[r] - inc[r] for r in res}
        if all(abs(rem[r]) <= 1e-9 * max(1.0, float(total[r])) for r in res) or all(
                abs(rem[r] - old_rem[r]) <= 1e-12 * max(1.0, float(total[r])) for r in res):
            break
    return des


def fill_level(total, queues, mode):
    """One level: `queues` [(weight, guarantee, cap, demand)] as in
    water_fill_volcano; returns their shares ({r: number})."""
    if mode == "volcano":
        return water_fill_volcano(total, queues)
    if mode == "volcano-no-pods":
        return water_fill_volcano({r: v for r, v in total.items() if r != PODS}, queues)
    out = [{} for _ in queues]
    for r in sorted(total):
        items = []
        for w, g, cap, dem in queues:
            c = Fraction(dem.get(r, 0))
            if cap.get(r) is not None:
                c = min(c, Fraction(cap[r]))
            items.append((w, Fraction(g.get(r, 0)), max(c, Fraction(0))))
        for o, v in zip(out, water_fill_one(total[r], items, mode)):
            o[r] = v
    return out


class ProportionShares:
    """Bounds on every queue's deserved share under proportion at one
    state of the replay: `where` (pod -> node), `deleted` (pods evicted so
    far); `total_lo` / `total_hi` the cluster on the side of less / more.
    lo(q, grow) / hi(q): see the module's docstring; `grow` = (leaf, {r: m})
    adds m to that leaf's demand and to its and its ancestors' caps (a
    margin: see reclaim_rules._ProportionRules)."""

    def __init__(self, model, where, deleted, total_lo, total_hi):
        self.model = model
        tree = self.tree = model.tree
        self.total = {"lo": {r: v for r, v in total_lo.items() if v > 0},
                      "hi": {r: v for r, v in total_hi.items() if v > 0}}
        res = set(self.total["hi"]) | set(self.total["lo"])
        for t in self.total.values():
            for r in res:
                t.setdefault(r, Fraction(0))
        # A queue stating spec.deserved gets that share as stated (the
        # README's proportion row), the rest water-filled around it: such
        # clusters are not judged here.
        self.judged = not tree.faulty and not any(
            (spec or {}).get("deserved") for spec in tree.spec.values())
        # The queues and their parents.
        if tree.on:
            self.parent = dict(tree.parent)
        else:
            self.parent = {q: "root" for q in list(tree.spec) + ["default"]}
        self.parent.pop("root", None)
        self.children = collections.defaultdict(list)
        for q, up in sorted(self.parent.items()):
            self.children[up].append(q)
        for g, q in model.queue_of_group.items():
            if self.children.get(q) or q == "root":
                self.judged = False
        # Demand of each leaf, certain (both readings) and all (hi).
        self.demand = {"lo": collections.defaultdict(dict), "hi": collections.defaultdict(dict)}
        for g, info in model.groups.items():
            q = model.queue_of_group[g]
            live = [k for k in info["pods"] if k not in deleted and (
                k in where or (model.pods[k].get("status") or {}).get("phase")
                not in ("Succeeded", "Failed"))]
            ask, every = {}, {}
            for k in live:
                ask = _add(ask, counted(model.req[k]))
            for k in info["pods"]:
                every = _add(every, counted(model.req[k]))
            if live and len(live) >= info["min"]:
                self.demand["lo"][q] = _add(self.demand["lo"][q], ask)
                every = _add(every, ask, -1)
            if not info["pods"] and info["obj"]:
                spec = info["obj"].get("spec", {})
                every = _real(_queue_resources({"m": spec.get("minResources")}, "m"))
            self.demand["hi"][q] = _add(self.demand["hi"][q], every)
        # Queues the README does not say take part: the implicit default,
        # closed queues (with everything under them).
        self.optional = set() if "default" in tree.spec else {"default"}
        for q in model.queues:
            if (q.get("status") or {}).get("state", "Open") != "Open":
                self.optional |= self._subtree(q["metadata"]["name"])
        self._cache = {}

    def _spec(self, q):
        return self.tree.spec.get(q, {})

    def _weight(self, q):
        w = self._spec(q).get("weight", 1)
        try:
            return max(0, int(w))
        except (TypeError, ValueError):
            return 1

    def _ancestors(self, q):
        out = []
        while q in self.parent:
            q = self.parent[q]
            out.append(q)
        return out

    def _subtree(self, q):
        out, todo = set(), [q]
        while todo:
            x = todo.pop()
            if x not in out:
                out.add(x)
                todo += self.children.get(x, [])
        return out

    def _run(self, side, mode, mine, grow):
        """Every queue's share with `mine` on reading `side` and the rest on
        the other; `grow` as in lo()."""
        other = "hi" if side == "lo" else "lo"
        total = self.total[side]
        grown_leaf, extra = grow if grow else (None, {})
        grown = set([grown_leaf] + self._ancestors(grown_leaf)) if grown_leaf else set()

        def reading(q):
            return side if q in mine else other

        def present(q):
            # The implicit default and a closed queue compete on the hi
            # reading of the others (lo run), not on their lo one (hi run).
            if q in self.optional and q not in mine:
                return reading(q) == "hi"
            return True

        demand = {}

        def dem(q):
            if q not in demand:
                out = dict(self.demand["lo"].get(q, {}))
                if reading(q) == "hi":
                    out = _add(out, self.demand["hi"].get(q, {}))
                if q == grown_leaf:
                    out = _add(out, extra)
                for c in self.children.get(q, []):
                    if present(c):
                        out = _add(out, dem(c))
                demand[q] = out
            return demand[q]

        root_share = dict(total)
        if reading("root") == "lo":
            for r, v in _queue_resources(self._spec("root"), "capability").items():
                if r in root_share:
                    root_share[r] = min(root_share[r], v)
        shares = {"root": root_share}
        todo = ["root"]
        while todo:
            up = todo.pop(0)
            kids = [c for c in self.children.get(up, []) if present(c)]
            if not kids:
                continue
            rows = []
            for c in kids:
                g = _queue_resources(self._spec(c), "guarantee")
                cap = {r: v for r, v in _queue_resources(self._spec(c), "capability").items()}
                if reading(c) == "lo":
                    least = self.total["lo"]
                    for r in least:
                        others = sum(_queue_resources(self._spec(x), "guarantee").get(r, 0)
                                     for x in self.children.get(up, []) if x != c)
                        v = max(Fraction(0), least[r] - others)
                        cap[r] = min(cap[r], v) if r in cap else v
                if c in grown:
                    cap = {r: v + extra.get(r, 0) for r, v in cap.items()}
                rows.append((self._weight(c), g, cap, dem(c)))
            for c, s in zip(kids, fill_level(shares[up], rows, mode)):
                shares[c] = s
                todo.append(c)
        return shares

    def _bound(self, q, side, grow=None):
        key = (q, side, grow and (grow[0], tuple(sorted(grow[1].items()))))
        if key not in self._cache:
            mine = self._subtree(q) | set(self._ancestors(q)) | {q}
            pick = min if side == "lo" else max
            out = {}
            for mode in MODES:
                # (A mode that leaves a resource out has no say on it.)
                for r, v in self._run(side, mode, mine, grow).get(q, {}).items():
                    v = Fraction(v)
                    out[r] = pick(out[r], v) if r in out else v
            self._cache[key] = out
        return self._cache[key]

    def lo(self, q, grow=None):
        return self._bound(q, "lo", grow)

    def hi(self, q):
        return self._bound(q, "hi")

    def dominant(self, held):
        """The resources that may be `held`'s dominant one: within 1% of
        the largest share of the cluster, on either reading of the cluster,
        with the pod count a resource or not."""
        out = set()
        for total in self.total.values():
            for pods in (True, False):
                ratios = {r: Fraction(v) / total[r] for r, v in held.items()
                          if v > 0 and total.get(r, 0) > 0 and (pods or r != PODS)}
                if ratios:
                    top = max(ratios.values())
                    out |= {r for r, x in ratios.items() if x * 100 >= top * 99}
            out |= {r for r, v in held.items() if v > 0 and total.get(r, 0) <= 0}
        return out
