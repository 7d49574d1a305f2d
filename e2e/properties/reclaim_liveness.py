"""The reclaim-liveness property (check.py lists them all).

"With reclaim, every queue below its deserved share with fitting pending
work reaches it within a bounded number of cycles", for policies listing
the `reclaim` action and the `capacity` plugin (where a queue's deserved
share is the spec.deserved it states: _CapacityRules) or the `proportion`
plugin (where it is water-filled: proportion_share.py, _ProportionRules).
Judged from the objects: which pods reclaim may take is read from the
README's rules (the reclaim action; the plugin's overused and reclaimable;
conformance; the gang floor; volcano.sh/preemptable; only bound or running
pods are victims; "taking back in a tree"), and where the README leaves a
reading open, the one that lets the scheduler refuse the most.
"""
import collections

from model import (ACCEPTED_RULES, FULL_RULE, RECLAIM_LIVENESS, TREE_RULES,  # noqa: F401
                   Violation, _blocked_by_anti_affinity, _by_name, _cheap, _fmt,
                   _queue_usage, _real, _tightest, first_fit)
from kube import _add, fits, has_interpod, placement_problem, quantity
from reclaim_rules import (_CapacityRules, _capability, _cluster, _path, _rules,
                           _subtree_held, _within)

# Proportion's admission refuses a gang past its queue's (or an ancestor's)
# deserved share with this phrase; reclaim-liveness accepts it only where
# _share_reached confirms it (no other property accepts it: queues
# borrow past their deserved share).
SHARE_PHRASE = "has reached its deserved share"
SHARE_RULE = "proportion admission: the queue has reached its deserved share"


def _preemptable(pod):
    """volcano.sh/preemptable, annotation else label: unmarked, or
    "true" (any other value counts as "false", as the README says)."""
    for where in ("annotations", "labels"):
        v = (pod["metadata"].get(where) or {}).get("volcano.sh/preemptable")
        if v is not None:
            return v == "true"
    return True


def _may_be_reclaimed(model, k):
    """Pod-level rules: marked preemptable (or unmarked); not in kube-system
    nor of a system-* class (conformance); asking for something (a
    BestEffort pod frees no requests)."""
    p = model.pods[k]
    pc = p["spec"].get("priorityClassName") or ""
    return (_preemptable(p) and p["metadata"].get("namespace", "default") != "kube-system"
            and not pc.startswith("system-") and bool(_real(model.req[k])))


class _Takeback:
    """What reclaim may take back from the placement `where` for a job of
    queue `taker`, pod by pod (`allowed`, `take`), from under queue `under`
    (None: anywhere): only pods that were running before the replay (not in
    `never`: the replay keeps the pods it binds as placed but not yet
    bound, and those are no victims), of a queue other than the taker's
    that is sound and a leaf, stated (a Queue object) or the implicit
    `default` (as conf/queues/default.yaml ships it and Volcano makes it:
    reclaimable, stating no shares), every stated queue on whose path (root
    aside) is not `reclaimable: false`; the pod itself preemptable, outside
    kube-system and system-* classes, asking for something; its job keeps
    its minMember (a job of one pod with minMember 1 may go whole). And the
    queue, and each of its ancestors that is not also the taker's, must be
    overused before (above its deserved share, _share, in a resource that
    names, or holding anything while naming none: capacity's overused) and
    keep, without the pod, at least its deserved share and its guarantee
    (_share) in every resource they name that the pod holds: stricter than
    capacity's reclaimable ("only while the queue holds more than it
    deserves of what the pod holds", "never below the victim queue's
    guarantee"), so that every pod counted here is one the scheduler may
    take. That is capacity's (_CapacityRules.lends); under proportion,
    _ProportionRules.lends says which queues lend."""

    def __init__(self, model, where, taker, never, under=None, rules=None):
        self.model = model
        self.rules = rules or _CapacityRules(model, _cluster(model))
        tree = model.tree
        self.usage = {q: self.rules.res(u) for q, u in _queue_usage(model, where).items()}
        self.taken = collections.Counter()
        self.victims = []
        taker_path = set(_path(tree, taker))
        inside = tree.subtree(under) if under else None
        # The gang floor counts only pods running since the start, on the
        # side of keeping more.
        running = collections.Counter(model.group_of[k] for k in where
                                      if k in model.queue_of and k not in never)
        self.budget = {}
        self.limits = {}          # pod -> queues whose limits its eviction keeps
        self.candidates = collections.defaultdict(list)   # node -> pods
        for k, n in sorted(where.items()):
            r = model.queue_of.get(k)
            if (r is None or r == taker or k in never or r in tree.held or
                    r not in tree.spec and r != "default" or
                    inside is not None and r not in inside):
                continue
            path = _path(tree, r)
            if any(tree.spec.get(a, {}).get("reclaimable") is False for a in path if a != "root"):
                continue
            if not _may_be_reclaimed(model, k):
                continue
            g = model.group_of[k]
            info = model.groups[g]
            if len(info["pods"]) == 1 and info["min"] <= 1:
                self.budget[g] = running[g]
            else:
                self.budget[g] = max(0, running[g] - info["min"])
            if not self.budget[g]:
                continue
            self.limits[k] = [a for a in path
                              if a not in taker_path and (a in tree.spec or a == "default")]
            self.candidates[n].append(k)

    def copy(self):
        c = _Takeback.__new__(_Takeback)
        c.__dict__.update(self.__dict__)
        c.usage = dict(self.usage)
        c.taken = collections.Counter(self.taken)
        c.victims = list(self.victims)
        return c

    def held(self, a):
        out = {}
        for q in self.model.tree.subtree(a):
            out = _add(out, self.usage.get(q, {}))
        return out

    def allowed(self, k):
        g = self.model.group_of[k]
        if k in self.victims or self.taken[g] >= self.budget[g]:
            return False
        req = self.rules.res(self.model.req[k])
        return all(self.rules.lends(a, self.held(a), req) for a in self.limits[k])

    def stand_in(self, k, among):
        """The pod the scheduler may take in k's place: k itself, or for a
        job of several pods (whose minimum may not go whole) its smallest
        pod in `among` not yet taken. The README leaves open which of a
        job's pods are its surplus ("the rest are elastic pods", the
        victims "most expendable first"): the reading that refuses the
        most gives up the least useful first, so a job's budget may be
        spent on its smallest pods before its larger ones."""
        g = self.model.group_of[k]
        info = self.model.groups[g]
        if len(info["pods"]) == 1 and info["min"] <= 1:
            return k
        mine = [v for v in among if self.model.group_of[v] == g and v not in self.victims]
        return min(mine + [k], key=lambda v: (_cheap(self.model.req[v]), v))

    def take(self, k):
        q = self.model.queue_of[k]
        self.usage[q] = _add(self.usage.get(q, {}), self.rules.res(self.model.req[k]), -1)
        self.taken[self.model.group_of[k]] += 1
        self.victims.append(k)


def _largest_first(model, pods):
    return sorted(pods, key=lambda k: (_cheap(model.req[k]), k), reverse=True)


def _fit_taking_back(model, pods, where, takeback, blocked):
    """Places `pods` one by one: on the first node (by name) where it may
    go and fits the free room; else on the first such node where taking
    back pods there that `takeback` allows (largest first, only pods
    freeing something the pod still lacks, each job's smallest pod there
    in its stead: _Takeback.stand_in) makes it fit. Returns (the
    placement, the takeback after it) or None. A search of the oracle's
    own: it only shows that such victims exist."""
    used = model.used(where)
    free = {n: _add(model.alloc[n], used[n], -1) for n in model.nodes}
    placed = []
    for k in pods:
        req = model.req[k]
        ok = [n for n in sorted(model.nodes)
              if placement_problem(model.pods[k], model.nodes[n]) is None and not blocked(k, n)]
        at = next((n for n in ok if fits(req, free[n])), None)
        if at is None:
            for n in ok:
                f, trial = dict(free[n]), takeback.copy()
                here = takeback.candidates.get(n, [])
                refused = set()
                while not fits(req, f):
                    v = next((v for v in _largest_first(model, here)
                              if v not in trial.victims and v not in refused and any(
                                  model.req[v].get(r, 0) > 0 and f.get(r, 0) < x
                                  for r, x in req.items())), None)
                    if v is None:
                        break
                    u = trial.stand_in(v, here)
                    if trial.allowed(u):
                        trial.take(u)
                        f = _add(f, model.req[u])
                    else:
                        refused.add(v)
                if fits(req, f):
                    at, takeback, free[n] = n, trial, f
                    break
        if at is None:
            return None
        free[at] = _add(free[at], req, -1)
        placed.append((k, at))
    return placed, takeback


def _admission_held(model, rules, q, g, where, final):
    """[(queue on q's path, what admission counts it holding for gang g)]:
    its subtree's holdings at `where`, less (at a parent) what the children
    off q's branch hold beyond the most their deserved shares may be
    (rules.deserved_hi; the README: with reclaim, not counted at a parent),
    plus the minimums of the subtree's other gangs still admitted and short
    of their minimum (`final` phase Inqueue)."""
    tree = model.tree
    usage = {x: rules.res(u) for x, u in _queue_usage(model, where).items()}
    path = _path(tree, q)
    out = []
    for a in path:
        held = _subtree_held(tree, usage, a)
        if a != q:
            for c in tree.children.get(a, []):
                if c not in path:
                    own = _subtree_held(tree, usage, c)
                    deserved = rules.deserved_hi(c)
                    held = _add(held, {r: max(0, v - deserved.get(r, 0))
                                       for r, v in own.items()}, -1)
        inside = tree.subtree(a)
        for h, info in model.groups.items():
            if (h != g and model.queue_of_group[h] in inside and
                    final.get(h, {}).get("phase") == "Inqueue"):
                waiting = [k for k in info["pods"] if k not in where]
                need = info["min"] - (len(info["pods"]) - len(waiting))
                if need > 0:
                    held = _add(held, _gang_amount(model, h, waiting[:need], waiting,
                                                   rules.res))
        out.append((a, held))
    return out


def _full(model, rules, q, g, where, final, amount):
    """The queue on q's path that admission by capability finds full for
    gang g (asking `amount`), or None: what _admission_held counts, plus
    `amount`, past its real capability (_capability) in a resource g asks
    for."""
    for a, held in _admission_held(model, rules, q, g, where, final):
        cap = _capability(model, a, rules.total)
        if not _within(held, amount, {r: v for r, v in cap.items() if amount.get(r, 0) > 0}):
            return a
    return None


def _share_reached(model, rules, q, g, where, final, amount, minimum):
    """The queue on q's path whose deserved share proportion's admission
    may find reached for gang g, or None: what _admission_held counts, plus
    `amount`, not clearly within the least its share may be
    (rules.share_limit)."""
    for a, held in _admission_held(model, rules, q, g, where, final):
        if not _within(held, amount, rules.share_limit(a, q, held, amount, minimum)):
            return a
    return None


def _room_to_take_back(model, rules, q, pods, amount, where, never, blocked):
    """Whether reclaim may make room for `pods` (asking `amount` in all) of
    queue q on placement `where`, taking only what _Takeback allows:
    (placement, victims, the ancestors at their limit) or None.

    An ancestor of q whose subtree, with `amount`, would pass its deserved
    share (rules.share_limit) or its real capability (_capability) is at
    its limit: then (the README's "taking back in a tree": "a parent at its
    limit (deserved share, or capability) does not stop a child below its
    own share: the victims are then looked for under that parent only, and
    kept only if, once they are gone, the parent's limit holds with the
    task") victims come from under the lowest such ancestor only, and are
    enough only if, once they are gone, every such ancestor is within both
    with `amount`; more victims under it (any node) are taken for that,
    largest first, only pods holding a resource still over."""
    tree = model.tree
    at_limit = []
    usage = {x: rules.res(u) for x, u in _queue_usage(model, where).items()}
    limits = {}
    for a in _path(tree, q)[1:]:
        sub = _subtree_held(tree, usage, a)
        limits[a] = [rules.share_limit(a, q, sub, amount, pods),
                     {r: v for r, v in _capability(model, a, rules.total).items()
                      if amount.get(r, 0) > 0}]
        if not all(_within(sub, amount, limit) for limit in limits[a]):
            at_limit.append(a)
    takeback = _Takeback(model, where, q, never, at_limit[0] if at_limit else None, rules)
    found = _fit_taking_back(model, pods, where, takeback, blocked)
    if not found:
        return None
    placed, takeback = found
    pool = _largest_first(model, [v for vs in takeback.candidates.values() for v in vs])
    for a in at_limit:
        while True:
            held = takeback.held(a)
            over = {r for limit in limits[a] for r, v in limit.items()
                    if held.get(r, 0) + amount.get(r, 0) > v}
            if not over:
                break
            v = next((u for u in (takeback.stand_in(v, pool) for v in pool
                                  if v not in takeback.victims and
                                  any(rules.res(model.req[v]).get(r, 0) > 0 for r in over))
                      if takeback.allowed(u)), None)
            if v is None:
                return None
            takeback.take(v)
    return placed, takeback.victims, at_limit


def _gang_amount(model, g, minimum, pending, res=_real):
    """What the gang's minimum asks for, on the side of more: in each
    resource (`res`: those the plugin counts) the sum of the
    `len(minimum)` largest requests among its pending pods, or its
    minResources if larger."""
    out = {}
    reqs = [res(model.req[k]) for k in pending]
    for r in sorted(set().union(*reqs)) if reqs else ():
        out[r] = sum(sorted((x.get(r, 0) for x in reqs), reverse=True)[:len(minimum)])
    spec = (model.groups[g]["obj"] or {}).get("spec", {})
    for r, v in (spec.get("minResources") or {}).items():
        out[r] = max(out.get(r, 0), quantity(v))
    return out


def _idle_fit(model, pods, where, blocked):
    used = model.used(where)
    idle = {n: _add(model.alloc[n], used[n], -1) for n in model.nodes}
    return (first_fit(model, pods, idle, _by_name, blocked) or
            first_fit(model, pods, idle, _tightest, blocked))


def _owed_gangs(model, rules=None):
    """{gang: (queue, minimum pods, amount, (placement, victims, ancestors
    at their limit))} at the start: the gangs reclaim owes room (see
    check_reclaim_liveness); `rules` capacity's unless given."""
    tree = model.tree
    start = model.initial_placement()
    rules = rules or _rules(model, "capacity", start, set())
    if not rules.judged:
        return {}
    usage = {q: rules.res(u) for q, u in _queue_usage(model, start).items()}
    states = {q["metadata"]["name"]: (q.get("status") or {}).get("state")
              for q in model.queues}
    blocked = _blocked_by_anti_affinity(model, start)
    out = {}
    for g, info in sorted(model.groups.items()):
        q = model.queue_of_group[g]
        if q not in tree.spec or q in tree.held or states.get(q) != "Open" or not info["obj"]:
            continue
        # A gang under a hard network constraint may go only inside one
        # domain within its limit, and reclaim looks for its room one
        # domain at a time: the room found here, anywhere, is not what it
        # is owed. Not judged.
        if ((info["obj"].get("spec") or {}).get("networkTopology") or {}).get("mode") == "hard":
            continue
        pending = [k for k in info["pods"] if k not in start]
        need = info["min"] - (len(info["pods"]) - len(pending))
        if need <= 0 or len(pending) < need or not rules.eligible(q, pending):
            continue
        cheapest, minimum = _minimums(model, pending, need)
        # Resource claims (DRA): devices are not what reclaim gives back
        # (victims' claims stay allocated in the replay). Not judged.
        if any(has_interpod(model.pods[k]) or model.pods[k]["spec"].get("preemptionPolicy") ==
               "Never" or any(r.startswith("hostport/") for r in model.req[k])
               or model.pods[k]["spec"].get("resourceClaims")
               for k in set(cheapest) | set(minimum)):
            continue
        amount = _gang_amount(model, g, minimum, pending, rules.res)
        if rules.room(q, usage, amount, minimum):
            continue
        if _idle_fit(model, _largest_first(model, cheapest), start, blocked):
            continue     # nothing to take back: idle-fitting-gang's to judge
        found = _room_to_take_back(model, rules, q, minimum, amount, start, set(), blocked)
        if found:
            out[g] = (q, minimum, amount, found)
    return out


def _minimums(model, pending, need):
    """The `need` cheapest pending pods (what idle-fitting-gang judges) and
    the `need` largest, largest first: the minimum reclaim is owed room
    for. The README leaves open which pods an evicting action tries for a
    gang's minimum (allocate passes over a pod that fits nowhere; of the
    evicting actions it says only that a gang of unequal pods is "tried
    once more largest pod first"): the largest ones are those it must be
    able to place."""
    cheapest = sorted(pending, key=lambda k: (_cheap(model.req[k]), k))[:need]
    return cheapest, _largest_first(model, pending)[:need]


def check_reclaim_liveness(model, where, replayed, deleted, final, excuses, plugin="capacity"):
    """reclaim-liveness, on `where` (the placement after the last cycle),
    `replayed` (the pods the replay bound), `deleted` (the pods evicted)
    and `final` (the last cycle's podGroups by name), under the shares of
    `plugin` (capacity or proportion; _CapacityRules, _ProportionRules).

    A gang G of queue Q is owed room at the start (_owed_gangs) when
      - Q is a stated, open, sound leaf queue; G is a PodGroup, not under
        a hard network constraint (spec.networkTopology), lacking
        m > 0 pods of its minMember with m pending; its m largest pending
        pods ("the minimum": _minimums) and its m cheapest carry no
        inter-pod constraint (undecided, as UNDECIDED_INTERPOD), no host
        port (reclaim never frees a port), no preemptionPolicy Never and
        no resource claim (devices are not what reclaim frees);
      - under capacity, Q states spec.deserved and every pending pod of G
        asks for a resource it names (capacity reclaims for a task only
        while its queue, with it, stays within deserved in some resource
        the task asks for); under proportion, the cluster is judged
        (_ProportionRules);
      - Q's holdings plus G's amount (per resource the m largest pending
        requests, or minResources if larger) stay within Q's deserved
        share (rules.room: under capacity in every resource it names,
        under proportion clearly, with a margin, in every resource) and
        within Q's real capability (_capability);
      - the m cheapest do not fit the idle room (a first fit, as
        idle-fitting-gang's: else it is that property's), but the minimum
        does once
        pods that reclaim may take (_Takeback, rules.lends) are taken on
        the nodes where it goes, from under the lowest ancestor at its
        limit if one is, and then enough more under it to bring every
        ancestor at its limit back within it with G (_room_to_take_back).
    The property: after the last cycle G has its minMember bound, unless
      - Q can no longer take G's amount (rules.room on its holdings and
        shares at the end: it reached its share, or its capability, with
        other work), or G's pods are gone;
      - G's message names an accepted rule (ACCEPTED_RULES), a tree rule
        only where QueueTree agrees and a full queue only where _full
        finds one for a gang not admitted (for an admitted gang, a parent
        at its limit does not stop a child below its share); under
        proportion, a gang not admitted whose message says a queue "has
        reached its deserved share" (SHARE_RULE) where _share_reached
        finds one counting what admission counts;
      - the m cheapest fit the idle room at the end (as when its victims
        were evicted in the last cycle): idle-fitting-gang judges it;
      - the room is no longer there to take back: _room_to_take_back on
        the placement at the end finds none, counting as victims only pods
        running since the start. The replay keeps every pod it binds as
        placed but not yet bound (scheduler/replay.cc), which reclaim never
        takes, so room allocate lent to another queue (in its borrowing
        pass, when G could not use the room alone) or gave to another
        queue owed the same room stays lent for the rest of the replay,
        where a live cluster would take it back a cycle later; and work
        bound meanwhile may have put an ancestor of Q at its limit.
    Counts (owed, met, each way out) go to `excuses` under
    "reclaim-liveness: ..."."""
    out = []
    tree = model.tree
    blocked = _blocked_by_anti_affinity(model, where)
    start_usage = _queue_usage(model, model.initial_placement())
    owed = _owed_gangs(model, _rules(model, plugin, model.initial_placement(), set()))
    rules = _rules(model, plugin, where, deleted) if owed else None
    usage = {q: rules.res(u) for q, u in _queue_usage(model, where).items()} if owed else {}
    for g, (q, minimum, amount, _) in sorted(owed.items()):
        excuses["reclaim-liveness: owed"] += 1
        info = model.groups[g]
        bound = sum(1 for k in info["pods"] if k in where)
        pending = [k for k in info["pods"] if k not in where and k not in deleted]
        need = info["min"] - bound
        if need <= 0:
            excuses["reclaim-liveness: met"] += 1
            continue
        if len(pending) < need:
            excuses["reclaim-liveness: pods gone"] += 1
            continue
        cheapest, now = _minimums(model, pending, need)
        amount_now = _gang_amount(model, g, now, pending, rules.res)
        if rules.room(q, usage, amount_now, now):
            excuses["reclaim-liveness: queue took its share otherwise"] += 1
            continue
        msg = final.get(g, {}).get("message")
        phase = final.get(g, {}).get("phase", "<not listed>")
        rule = next((label for label, phrase in ACCEPTED_RULES
                     if msg and phrase and phrase in msg), None)
        if rule is None and rules.name == "proportion" and msg and SHARE_PHRASE in msg:
            rule = SHARE_RULE
        unconfirmed = ""
        if rule in TREE_RULES and q not in tree.held:
            unconfirmed = "; the message names a rule of the queue tree, but Q's place is sound"
            rule = None
        elif rule == FULL_RULE and (phase in ("Inqueue", "Running") or not _full(
                model, rules, q, g, where, final, amount_now)):
            unconfirmed = ("; the message says a queue is full, but %s" % (
                "the gang is admitted, and a parent at its limit does not stop a child "
                "below its share" if phase in ("Inqueue", "Running") else
                "no queue on Q's path is full for it counting what admission counts"))
            rule = None
        elif rule == SHARE_RULE and (phase in ("Inqueue", "Running") or not _share_reached(
                model, rules, q, g, where, final, amount_now, now)):
            unconfirmed = ("; the message says a deserved share is reached, but %s" % (
                "the gang is admitted" if phase in ("Inqueue", "Running") else
                "every queue on Q's path is clearly within its share with it, counting what "
                "admission counts"))
            rule = None
        if rule:
            excuses["reclaim-liveness: excused by " + rule] += 1
            continue
        if _idle_fit(model, _largest_first(model, cheapest), where, blocked):
            excuses["reclaim-liveness: fits the idle room at the end"] += 1
            continue
        found = _room_to_take_back(model, rules, q, now, amount_now, where, replayed, blocked)
        if not found:
            excuses["reclaim-liveness: no room to take back at the end"] += 1
            continue
        fit, victims, at_limit = found
        out.append(Violation(
            RECLAIM_LIVENESS, g,
            "queue %s (deserved %s; held %s at the start, %s at the end) is owed room for "
            "%d pod(s) of this gang (minMember %d, %d bound) asking %s: taking back %s%s "
            "would let them run (e.g. %s); phase %s, message %r%s" % (
                q, rules.shown(q),
                _fmt(_real(start_usage.get(q, {}))) or "nothing",
                _fmt(usage.get(q, {})) or "nothing", need, info["min"], bound,
                _fmt(amount_now), ", ".join(sorted(victims)),
                " (from under %s, at its limit: deserved share %s, capability %s)" % (
                    at_limit[0], rules.shown(at_limit[0]),
                    _fmt(_capability(model, at_limit[0], rules.total)))
                if at_limit else "",
                ", ".join("%s->%s" % kn for kn in fit), phase,
                msg if msg is not None else "<not listed>", unconfirmed)))
    return out
