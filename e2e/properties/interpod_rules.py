"""Inter-pod rules of the oracle: required pod affinity and anti-affinity
and DoNotSchedule topology spread, judged over each cycle's binds
(check_interpod), and whether a gang whose only inter-pod rule is one
anti-affinity term among its own pods fits one per domain
(one_per_domain_fit). Above kube.py and model.py, below check.py
(imports_test.py)."""

import collections
import json

from kube import (fits, hard_spread, placement_problem, required_terms, same_domain,
                  selector_matches, term_decidable, term_matches)
from model import Violation, _blocked_by_anti_affinity


def one_per_domain_fit(model, pods, free, present):
    """For pods whose only inter-pod constraint is one required
    anti-affinity term selecting each other (one per node, or per zone):
    a placement of `pods` in the idle room, None if there is none, or
    False when the oracle does not decide (any other constraint).

    It fits when at least len(pods) domains of the term's key each hold a
    node with room for every one of the pods, where each may go, and no
    pod in `present` in conflict with any of them (their term selects it,
    or its anti-affinity selects them). Then every order of placing them
    succeeds: a pod put anywhere takes at most one of those domains, so
    the scheduler cannot paint itself into a corner. Nodes lacking the key
    are left out (they could take several; not needed for the proof)."""
    terms = {json.dumps(required_terms(model.pods[k], "podAntiAffinity"), sort_keys=True)
             for k in pods}
    if len(terms) != 1:
        return False
    first = model.pods[pods[0]]
    anti = required_terms(first, "podAntiAffinity")
    if (len(anti) != 1 or not term_decidable(anti[0]) or required_terms(first, "podAffinity")
            or hard_spread(first)):
        return False
    term = anti[0]
    key = term["topologyKey"]
    for k in pods:
        p = model.pods[k]
        if (required_terms(p, "podAffinity") or hard_spread(p) or
                not all(term_matches(term, model.pods[j], p) for j in pods)):
            return False
    blocked = _blocked_by_anti_affinity(model, present)
    good = {}
    for n in sorted(model.nodes):
        node = model.nodes[n]
        dom = _labels(node).get(key)
        if dom is None or dom in good:
            continue
        if not all(fits(model.req[k], free[n]) and placement_problem(model.pods[k], node) is None
                   and not blocked(k, n) for k in pods):
            continue
        if any(same_domain(key, node, model.nodes[m]) and
               any(term_matches(term, model.pods[k], model.pods[x]) for k in pods)
               for x, m in present.items()):
            continue
        good[dom] = n
    if len(good) < len(pods):
        return None
    return list(zip(pods, [good[d] for d in sorted(good)]))



# --- inter-pod affinity, anti-affinity and topology spread (safety) ---
#
# Judged per cycle, for the pods bound in it, on the placement after its
# binds: `hi` still holds the pods this cycle evicts, `lo` does not (a
# scheduler may or may not count a victim it is evicting; each rule takes
# the reading that cannot flag a correct one). Pods bound in the cycle
# count for each other, in whatever order the scheduler placed them. Only
# asked of policies listing `predicates` (where Volcano has these filters).

def _labels(node):
    return node["metadata"].get("labels") or {}


def _anti_affinity(model, k, node, lo):
    """Pods in `lo` in conflict with pod k on `node`: k's required
    anti-affinity selects them in k's domain, or theirs selects k (the
    symmetry rule). A node lacking the topology key is in no conflict.
    Sound on `lo`: a conflicting pod there was present when k was bound,
    or was bound in the same cycle after k and broke its own rule or the
    symmetry; a victim of the cycle is left out."""
    p = model.pods[k]
    own, theirs = [], []
    for x, m in sorted(lo.items()):
        if x == k:
            continue
        q, qnode = model.pods[x], model.nodes[m]
        if any(term_decidable(t) and same_domain(t["topologyKey"], node, qnode) and
               term_matches(t, p, q) for t in required_terms(p, "podAntiAffinity")):
            own.append(x)
        elif any(term_decidable(t) and same_domain(t["topologyKey"], node, qnode) and
                 term_matches(t, q, p) for t in required_terms(q, "podAntiAffinity")):
            theirs.append(x)
    return own, theirs


def _affinity_unmet(model, k, node, hi):
    """Required podAffinity terms of pod k on `node` that no other pod in
    `hi` satisfies (same value of the term's topologyKey, in its
    namespaces, labels selected). Lenient on `hi`: a victim may have been
    what k followed."""
    p = model.pods[k]
    return [t for t in required_terms(p, "podAffinity")
            if not any(x != k and same_domain(t["topologyKey"], node, model.nodes[m]) and
                       term_matches(t, p, model.pods[x]) for x, m in hi.items())]


def _counts_for_first(model, k, x, m):
    """kube-scheduler's special rule lets pod k go anywhere when no pod
    matching all of k's affinity terms sits on a node carrying one of the
    terms' topology keys; whether pod x on node m is such a pod."""
    terms = required_terms(model.pods[k], "podAffinity")
    return (all(term_matches(t, model.pods[k], model.pods[x]) for t in terms) and
            any(t["topologyKey"] in _labels(model.nodes[m]) for t in terms))


def _spread_signature(p, c):
    """What decides a spread check's outcome besides the counts: two pods
    alike here made the same check."""
    spec = p["spec"]
    return json.dumps([p["metadata"].get("namespace", "default"), c,
                       sorted(x["topologyKey"] for x in hard_spread(p)),
                       spec.get("nodeSelector"),
                       (spec.get("affinity") or {}).get("nodeAffinity")], sort_keys=True)


def _spread_violation(model, k, node, c, bound, lo, hi):
    """A DoNotSchedule constraint `c` of pod k (on `node`), judged after
    the cycle that bound k; a reason or None.

    kube-scheduler lets k into domain D if count(D) + 1 - min <= maxSkew,
    count over the pods in k's namespace its labelSelector matches, on the
    nodes eligible for k (matching its nodeSelector/affinity, carrying the
    keys of all its constraints; taints ignored) and min over the domains
    of those nodes. After the cycle's binds, let Q be the last pod added
    to D that the selector matches (k or a later one). If every such pod
    bound in this cycle made the same check as k (same constraint,
    namespace and eligible nodes), Q passed it: count_Q(D) + 1 - min_Q <=
    maxSkew, and since Q nothing was added to D while the counts
    elsewhere can only have grown. So, at the end of the cycle,
        count_lo(D) - min_hi <= maxSkew
    where count_lo is the smallest count the scheduler may have seen (the
    cycle's victims left out, only nodes also free of untolerated taints
    and cordons, a subset of the eligible ones) and min_hi the largest
    minimum (victims kept, every pod of a domain counted, over the domains
    of those strictly eligible nodes only: fewer domains, a larger min).
    Each error is in the direction of passing, so a correct scheduler is
    never flagged; when another kind of pod was also added to D the check
    is skipped. A pod on a node lacking the key is flagged outright
    (kube-scheduler never puts it there)."""
    p = model.pods[k]
    key = c["topologyKey"]
    if key not in _labels(node):
        return "bound to node %s, which lacks %s" % (node["metadata"]["name"], key)
    ns = p["metadata"].get("namespace", "default")
    sel = c.get("labelSelector")
    dom = _labels(node)[key]
    sig = _spread_signature(p, c)

    def matches(x):
        q = model.pods[x]
        return q["metadata"].get("namespace", "default") == ns and selector_matches(
            sel, q["metadata"].get("labels") or {})

    for x in bound:
        if x in hi and _labels(model.nodes[hi[x]]).get(key) == dom and matches(x):
            q = model.pods[x]
            if not any(_spread_signature(q, d) == sig for d in hard_spread(q)):
                return None  # another kind of pod joined the domain: not judged
    keys = [x["topologyKey"] for x in hard_spread(p)]
    strict = {n for n, o in model.nodes.items()
              if all(kk in _labels(o) for kk in keys) and placement_problem(p, o) is None}
    if node["metadata"]["name"] not in strict:
        return None
    domains = {_labels(model.nodes[n])[key] for n in strict}
    count_lo = sum(1 for x, m in lo.items() if m in strict and
                   _labels(model.nodes[m]).get(key) == dom and matches(x))
    count_hi = collections.Counter(_labels(model.nodes[m]).get(key) for x, m in hi.items()
                                   if matches(x))
    low = min(count_hi[d] for d in domains)
    if count_lo - low > c["maxSkew"]:
        return ("%s=%s holds %d matching pod(s) (cycle's victims left out), the least "
                "loaded eligible domain %d (victims kept): skew %d > maxSkew %d"
                % (key, dom, count_lo, low, count_lo - low, c["maxSkew"]))
    return None


def _affinity(model, c, bound, where, hi, lo, unmet):
    """Required pod affinity of the pods bound in cycle c. Each was placed
    either next to pods matching its terms that were there at the time
    (placed before the cycle, victims included, or bound earlier in it)
    or, by kube-scheduler's special rule, as the first pod matching its
    own terms (none yet on a node with a term's key). Order within the
    cycle is unknown, so: a pod is grounded if it has no terms, if it may
    be first (it matches its own terms and no such pod was placed before
    the cycle), or if every term is satisfied by another pod placed before
    the cycle or by a grounded one; repeated to a fixpoint. In any
    correct order every pod is grounded (by induction on that order), so
    a pod left ungrounded is a violation: no term met at all, or a group
    bound together that only supports itself where the rule forbade a
    first pod. Two pods that each claim to be first, each of which would
    have counted against the other, are flagged too (one came second)."""
    out = []
    bound_set = set(bound)
    pre = {x: m for x, m in hi.items() if x not in bound_set}
    decidable = {k for k in bound
                 if all(term_decidable(t) for t in required_terms(model.pods[k], "podAffinity"))}
    first = {}
    for k in bound:
        p = model.pods[k]
        terms = required_terms(p, "podAffinity")
        if terms and all(term_matches(t, p, p) for t in terms):
            first[k] = next((x for x, m in sorted(lo.items())
                             if x not in bound_set and _counts_for_first(model, k, x, m)), None)
    grounded = {k for k in bound if not required_terms(model.pods[k], "podAffinity")
                or k not in decidable or (k in first and first[k] is None)}
    changed = True
    while changed:
        changed = False
        for k in bound:
            if k in grounded:
                continue
            p, node = model.pods[k], model.nodes[where[k]]
            support = [(x, m) for x, m in list(pre.items()) +
                       [(x, where[x]) for x in grounded] if x != k]
            if all(any(same_domain(t["topologyKey"], node, model.nodes[m]) and
                       term_matches(t, p, model.pods[x]) for x, m in support)
                   for t in required_terms(p, "podAffinity")):
                grounded.add(k)
                changed = True
    for k in bound:
        why = None
        if k not in grounded:
            if unmet[k] and k not in first:
                why = "no other pod satisfies %s" % json.dumps(unmet[k][0], sort_keys=True)
            elif k in first and first[k] is not None:
                why = ("%s, and it may not be the first pod matching its own terms: %s was "
                       "already placed" % ("unmet" if unmet[k] else "met only by pods bound "
                                           "with it", first[k]))
            else:
                why = "met only by pods bound with it, none of which could be placed first"
        elif unmet[k] and k in first:
            rivals = [x for x in bound if x != k and unmet[x] and x in first and
                      _counts_for_first(model, k, x, where[x]) and
                      _counts_for_first(model, x, k, where[k])]
            if rivals:
                why = ("unmet, and %s, bound in the same cycle, also claims to be the first "
                       "pod matching these terms" % rivals[0])
        if why:
            out.append(Violation("pod-affinity", k, "cycle %d: bound to %s: required pod "
                                 "affinity %s" % (c, where[k], why)))
    return out


def check_interpod(model, c, bound, where, victims):
    """Violations of pod affinity, anti-affinity and DoNotSchedule spread
    by the pods bound in cycle `c` (`bound`), on `where` after its binds
    (victims of the cycle still placed)."""
    out = []
    hi = where
    lo = {x: m for x, m in where.items() if x not in victims}
    bound = [k for k in bound if k in where]
    unmet = {k: _affinity_unmet(model, k, model.nodes[where[k]], hi) for k in bound}
    out += _affinity(model, c, bound, where, hi, lo, unmet)
    for k in bound:
        p, node = model.pods[k], model.nodes[where[k]]
        own, theirs = _anti_affinity(model, k, node, lo)
        if own or theirs:
            out.append(Violation("pod-anti-affinity", k, "cycle %d: bound to %s, in the "
                                 "domain of %s" % (c, where[k], ", ".join(
                                     ["%s (its anti-affinity selects)" % x for x in own] +
                                     ["%s (whose anti-affinity selects it)" % x
                                      for x in theirs]))))
        for sc in hard_spread(p):
            why = _spread_violation(model, k, node, sc, bound, lo, hi)
            if why:
                out.append(Violation("topology-spread", k, "cycle %d: bound to %s: %s"
                                     % (c, where[k], why)))
    return out
