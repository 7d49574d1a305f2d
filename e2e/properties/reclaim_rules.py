"""What reclaim may do under each plugin that divides the cluster between
queues, at the level of queues (for reclaim_liveness.py; check.py lists
the properties): a queue's deserved share and capability, whether a queue
may take a gang's amount (`room`), how much an ancestor may hold before it
is at its limit (`share_limit`), and whether a queue lends a pod
(`lends`). _CapacityRules: the shares each queue states (capacity);
_ProportionRules: the water-filled shares (proportion; proportion_share.py
bounds them). Read from the README alone, each the reading that lets the
scheduler refuse the most.
"""
from fractions import Fraction

from kube import _add
from model import _fmt, _queue_resources, _real
from proportion_share import ProportionShares, counted


def _path(tree, q):
    """q and the queues above it, up to root (q alone without a tree)."""
    return tree.path.get(q, [q]) if tree.on else [q]


def _stated(tree, q, field):
    return _queue_resources(tree.spec.get(q, {}), field)


def _share(tree, q, field, seen=()):
    """Queue q's deserved share or guarantee (`field`) for reclaim: what it
    states; a deserved share is raised to the guarantee in each resource
    that names (a queue deserves at least what it is guaranteed: the
    README's proportion "never below guarantee", as Volcano's capacity
    does too). A queue with children that states none (root aside: the
    README's root "bounds only what it states") is taken to have what its
    children have together, in each resource some child names, as
    Volcano's root does. The README does not say; under this reading a
    queue deserves more, so lends less, and a parent is at its limit
    sooner than by its own statement alone."""
    spec = tree.spec.get(q, {})
    named = spec.get("deserved") if field == "deserved" else (
        spec.get("guarantee") or {}).get("resource")
    kids = tree.children.get(q, []) if tree.on else []
    if named is not None or q == "root" or not kids or q in seen:
        out = _stated(tree, q, field)
    else:
        out = {}
        for c in kids:
            out = _add(out, _share(tree, c, field, seen + (q,)))
    if field == "deserved":
        for r, v in _share(tree, q, "guarantee", seen).items():
            out[r] = max(out.get(r, 0), v)
    return out


def _within(held, extra, limit):
    """held + extra stays within `limit` in every resource it names."""
    return all(held.get(r, 0) + extra.get(r, 0) <= v for r, v in limit.items())


def _cluster(model, res=_real):
    """The cluster's room on the side of less: the allocatable of the nodes
    that are not cordoned, less what other schedulers' pods there ask (in
    the resources `res` keeps)."""
    total = {}
    for n, node in model.nodes.items():
        if not node["spec"].get("unschedulable"):
            total = _add(total, res(model.alloc[n]))
    for k, n in model.initial_placement().items():
        if k not in model.ours and n in model.nodes and not model.nodes[n]["spec"].get(
                "unschedulable"):
            total = _add(total, res(model.req[k]), -1)
    return total


def _capability(model, q, total):
    """Queue q's real capability, on the side of less: its stated
    capability, within its parent's less what q's siblings are guaranteed
    (_share); a top-level queue within the cluster (`total`) and root's
    stated capability (the README's capacity: "less siblings'
    spec.guarantee.resource, at every level"; "the root bounds only what it
    states; its children are bounded by the cluster")."""
    tree = model.tree
    cap = dict(total)
    if tree.on:
        chain = list(reversed(_path(tree, q)))
        if chain[0] == "root":
            for r, v in _stated(tree, "root", "capability").items():
                cap[r] = min(cap.get(r, 0), v)
            chain = chain[1:]
    else:
        chain = [q]
    for a in chain:
        sibs = (tree.children.get(tree.parent.get(a), []) if tree.on else
                [x for x in list(tree.spec) + ["default"] if x != a])
        for x in sibs:
            if x != a:
                cap = _add(cap, _share(tree, x, "guarantee"), -1)
        for r, v in _stated(tree, a, "capability").items():
            cap[r] = min(cap.get(r, 0), v)
    return {r: max(v, 0) for r, v in cap.items()}


def _subtree_held(tree, usage, a):
    out = {}
    for x in tree.subtree(a):
        out = _add(out, usage.get(x, {}))
    return out


def _capacity_room(rules, q, held, amount):
    cap = _capability(rules.model, q, rules.total)
    if not _within(held, amount, {r: v for r, v in cap.items() if amount.get(r, 0) > 0}):
        return "queue %s would pass its capability %s" % (q, _fmt(cap))
    return None


class _CapacityRules:
    """Capacity's shares: what each queue states (_share), on both sides,
    in the resources pods request (`res`: no pod count, no host port)."""
    name = "capacity"
    judged = True
    res = staticmethod(_real)

    def __init__(self, model, total):
        self.model, self.tree, self.total = model, model.tree, total

    def eligible(self, q, pending):
        """Capacity reclaims for a task only while its queue, with the
        task, stays within its deserved share in some resource the task
        asks for: Q states one, and every pending pod asks for a resource
        it names."""
        deserved = _stated(self.tree, q, "deserved")
        return bool(deserved) and all(
            any(self.model.req[k].get(r, 0) > 0 and v > 0 for r, v in deserved.items())
            for k in pending)

    def deserved(self, q):
        return _share(self.tree, q, "deserved")

    deserved_hi = deserved

    def shown(self, q):
        return _fmt(self.deserved(q)) or "nothing"

    def room(self, q, usage, amount, minimum):
        """Why queue q itself cannot take `amount` more at holdings
        `usage`, or None: past its deserved share (in a resource it names),
        or past its real capability (_capability)."""
        held = usage.get(q, {})
        deserved = self.deserved(q)
        if not _within(held, amount, deserved):
            return "queue %s would pass its deserved share %s (it holds %s)" % (
                q, _fmt(deserved), _fmt(held) or "nothing")
        return _capacity_room(self, q, held, amount)

    def share_limit(self, a, q, held, amount, minimum):
        return self.deserved(a)

    def lends(self, a, held, req):
        """Queue a (holding `held` in its subtree) may lend a pod asking
        `req`: overused (above its deserved share in a resource that names,
        or holding anything while naming none), and keeping, without the
        pod, its deserved share and guarantee in what the pod holds."""
        deserved = self.deserved(a)
        guarantee = _share(self.tree, a, "guarantee")
        if deserved:
            overused = any(held.get(r, 0) > v for r, v in deserved.items())
        else:
            overused = any(v > 0 for v in held.values())
        if not overused:
            return False
        return not any(v > 0 and r in limit and held.get(r, 0) - v < limit[r]
                       for limit in (deserved, guarantee) for r, v in req.items())


def _all_nodes(model, res=_real):
    """The cluster's room on the side of more: every node's allocatable."""
    total = {}
    for n in model.nodes:
        total = _add(total, res(model.alloc[n]))
    return total


class _ProportionRules:
    """Proportion's shares, water-filled (proportion_share.py) at one state
    of the replay, bounded on both sides, read so the scheduler may refuse
    the most:
      - the taker: Q, with G's amount and a margin m (per resource the
        gang's largest pod, or 1% of what Q would hold, if larger), stays
        within the least its deserved share may be, in every resource Q
        would hold (the README: "a queue reclaims while it is itself below
        its share"; proportion's allocatable: "a task may not take its
        queue past deserved"). The bound is computed with Q's demand and
        cap (and its ancestors' caps) raised by m: then Q's share is at
        least what it holds with G and m, or clipped exactly at its demand
        or cap, so rounding cannot turn a share the gang fits into one it
        does not. An ancestor whose subtree passes that bound is at its
        limit ("taking back in a tree").
      - a lender (a victim's queue, and every branch above it up to where
        its path and Q's part): holds more than the most its deserved
        share may be (with 1% over it) in each resource that may be its
        dominant one (ProportionShares.dominant: "overused (above deserved
        in its dominant resource)"), before the pod goes and still after
        (the README's reclaimable: "victims only while their queue stays
        above deserved"), and keeps its stated guarantee in each resource
        the pod holds (the victim search "keeps every queue's guarantee,
        whatever the tiers answer"); its stated deserved share is
        capacity's, not read.
      - a queue tree with a fault, or a job in a queue with children: not
        judged (ProportionShares.judged).
    The pod count is a resource of the shares here (`res`: the cluster's
    allocatable names it; proportion_share.counted), so a queue may also be
    at its share, or above it, in pods."""
    name = "proportion"
    res = staticmethod(counted)

    def __init__(self, model, total, where, deleted):
        self.model, self.tree, self.total = model, model.tree, total
        self.shares = ProportionShares(model, where, deleted, _cluster(model, counted),
                                       _all_nodes(model, counted))
        self.judged = self.shares.judged

    def eligible(self, q, pending):
        return self.judged

    def deserved(self, q):
        return self.shares.lo(q)

    def deserved_hi(self, q):
        return self.shares.hi(q)

    def shown(self, q):
        lo, hi = self.shares.lo(q), self.shares.hi(q)
        return "between %s and %s" % (_fmt({r: float(v) for r, v in lo.items()}) or "nothing",
                                      _fmt({r: float(v) for r, v in hi.items()}) or "nothing")

    def _margin(self, held, amount, minimum):
        m = {}
        for r in set(held) | set(amount):
            v = held.get(r, 0) + amount.get(r, 0)
            if v > 0:
                pod = max([counted(self.model.req[k]).get(r, 0) for k in minimum] + [0])
                m[r] = max(pod, Fraction(v) / 100)
        return m

    def share_limit(self, a, q, held, amount, minimum):
        """What queue a (q or an ancestor, holding `held`) may hold with
        `amount` and still be clearly within its share: the bound less the
        margin, in each resource it would hold."""
        m = self._margin(held, amount, minimum)
        lo = self.shares.lo(a, (q, m))
        return {r: lo.get(r, 0) - v for r, v in m.items()}

    def room(self, q, usage, amount, minimum):
        held = usage.get(q, {})
        limit = self.share_limit(q, q, held, amount, minimum)
        if not _within(held, amount, limit):
            return "queue %s, holding %s, would not stay clearly within its deserved share " \
                "(%s)" % (q, _fmt(held) or "nothing", self.shown(q))
        return _capacity_room(self, q, held, amount)

    def lends(self, a, held, req):
        hi = self.shares.hi(a)
        after = _add(held, req, -1)
        dom = self.shares.dominant(held) | self.shares.dominant(after)
        if not dom or any(after.get(r, 0) * 100 <= hi.get(r, 0) * 101 for r in dom):
            return False
        guarantee = _stated(self.tree, a, "guarantee")
        return not any(v > 0 and r in guarantee and held.get(r, 0) - v < guarantee[r]
                       for r, v in req.items())


def _rules(model, plugin, where, deleted):
    total = _cluster(model)
    if plugin == "proportion":
        return _ProportionRules(model, total, where, deleted)
    return _CapacityRules(model, total)
