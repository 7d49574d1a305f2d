"""The network oracle: Volcano HyperNodes and PodGroup spec.networkTopology,
read from the objects alone (check.py runs it; it imports only kube.py
and model.py)."""
import collections
import json
import re

from kube import has_interpod, placement_problem, selector_matches
from model import Violation, _blocked_by_anti_affinity


# --- the network (Volcano HyperNodes) and spec.networkTopology ---
#
# Read from the HyperNode objects alone, by the stated rules, not from the
# scheduler. A HyperNode (topology.volcano.sh/v1alpha1, cluster-scoped) has
# spec.tier (an integer >= 1; tier 1 the narrowest), an optional
# spec.tierName and members: nodes, or HyperNodes of a lower tier, chosen
# by exactMatch {name}, regexMatch {pattern} (searched in the name, as Go's
# regexp.MatchString does; the generator anchors its patterns at both ends,
# so a full match reads the same) or, for nodes, labelMatch (a label
# selector). Its nodes: its Node members and every node of its HyperNode
# members. A node claimed by two HyperNodes of one tier is in neither; a
# member that selects nothing, or a HyperNode member not of a lower tier,
# is left out. The whole cluster is one more domain, one tier above the
# highest (Volcano's virtual top HyperNode).
#
# Where the rules leave a faulty description open, each plausible reading
# is kept (Network.readings): a node left out of two racks may or may not
# still count in the spine above them ("strict": a parent holds what its
# children hold after the left-out nodes are removed; "lenient": before),
# and a HyperNode with a member that does not exist may be kept without
# that member or dropped (dropping only shrinks domains). The safety check
# passes a placement some reading allows; the claims that a gang fits or
# should have gone to a domain are made only on a description without
# faults, where the readings agree.


class Network:
    """The domains the HyperNodes in `items` describe, over the nodes in
    `items`. `readings`: [{hypernode: frozenset(node names)}], strict then
    lenient; `tier[h]`, `tier_name[h]`; `faults`: sentences naming what was
    left out (empty for a sound description); `on`: any HyperNode."""

    def __init__(self, items):
        import re
        self.nodes = {o["metadata"]["name"]: o for o in items if o.get("kind") == "Node"}
        self.faults = []
        self.tier, self.tier_name, members = {}, {}, {}
        for o in items:
            if o.get("kind") != "HyperNode":
                continue
            name = o["metadata"]["name"]
            spec = o.get("spec") or {}
            tier = spec.get("tier")
            if isinstance(tier, str) and tier.isdigit():
                tier = int(tier)
            if not isinstance(tier, int) or isinstance(tier, bool) or tier < 1:
                self.faults.append("hypernode %s: tier %r is not an integer >= 1" % (name, tier))
                continue
            self.tier[name] = tier
            self.tier_name[name] = spec.get("tierName") or None
            members[name] = spec.get("members") or []
        self.on = bool(self.tier)
        node_members, kids = {}, {}
        for h in sorted(self.tier):
            node_members[h], kids[h] = set(), set()
            for m in members[h]:
                typ = m.get("type", "Node")
                sel = m.get("selector") or {}
                if typ == "HyperNode":
                    pool = {x: None for x in self.tier}
                else:
                    pool = self.nodes
                if "exactMatch" in sel:
                    want = (sel["exactMatch"] or {}).get("name")
                    got = {want} if want in pool else set()
                elif "regexMatch" in sel:
                    pattern = (sel["regexMatch"] or {}).get("pattern") or ""
                    try:
                        rx = re.compile(pattern)
                        got = {x for x in pool if rx.search(x)}
                    except re.error:
                        got = set()
                elif "labelMatch" in sel and typ == "Node":
                    got = {x for x, n in pool.items()
                           if selector_matches(sel["labelMatch"] or {},
                                               n["metadata"].get("labels") or {})}
                else:
                    got = set()
                if typ == "HyperNode":
                    higher = {x for x in got if self.tier[x] >= self.tier[h]}
                    if higher:
                        self.faults.append("hypernode %s: members %s are not of a lower tier"
                                           % (h, sorted(higher)))
                    got -= higher
                if not got:
                    self.faults.append("hypernode %s: member %s selects nothing"
                                       % (h, json.dumps(m, sort_keys=True)))
                (kids if typ == "HyperNode" else node_members)[h] |= got
        strict, lenient, raw = {}, {}, {}
        for t in sorted(set(self.tier.values())):
            hs = sorted(h for h in self.tier if self.tier[h] == t)
            s_raw = {h: node_members[h].union(*(strict[k] for k in kids[h])) for h in hs}
            l_raw = {h: node_members[h].union(*(raw[k] for k in kids[h])) for h in hs}
            for claims, out, say in ((s_raw, strict, True), (l_raw, lenient, False)):
                count = collections.Counter(n for h in hs for n in claims[h])
                twice = {n for n, k in count.items() if k > 1}
                for h in hs:
                    out[h] = frozenset(claims[h] - twice)
                for n in sorted(twice) if say else ():
                    self.faults.append("node %s is claimed by %s, all of tier %d" % (
                        n, ", ".join(h for h in hs if n in claims[h]), t))
            raw.update(l_raw)
        self.readings = [strict, lenient]
        # The whole cluster's tier: one above the highest. Which HyperNodes
        # count towards "the highest" is open when some hold no node: the
        # lower figure where that allows more (a safety check), the higher
        # where it claims more (liveness, only on a sound description).
        tiers_all = set(self.tier.values())
        tiers_held = {self.tier[h] for r in self.readings for h, ns in r.items() if ns}
        self.cluster_tier_lo = max(tiers_held) + 1 if tiers_held else 1
        self.cluster_tier_hi = max(tiers_all) + 1 if tiers_all else 1

    def limit(self, nt):
        """The widest tier spec.networkTopology `nt` allows, or None when the
        oracle cannot read one (no limit stated, a tier name no tier or two
        tiers bear, both forms disagreeing)."""
        tiers = set()
        if "highestTierAllowed" in nt:
            v = nt["highestTierAllowed"]
            if not isinstance(v, int) or isinstance(v, bool):
                return None
            tiers.add(v)
        if "highestTierName" in nt:
            named = {self.tier[h] for h, n in self.tier_name.items()
                     if n == nt["highestTierName"]}
            if len(named) != 1:
                return None
            tiers |= named
        return tiers.pop() if len(tiers) == 1 else None

    def holder(self, nodes, limit, reading=None):
        """(name, tier) of a domain of tier <= `limit` holding every node in
        `nodes` in some reading ("the whole cluster" when the limit reaches
        its tier), narrowest first; None if none."""
        for r in ([reading] if reading is not None else self.readings):
            for h in sorted(r, key=lambda h: (self.tier[h], h)):
                if self.tier[h] <= limit and nodes <= r[h]:
                    return h, self.tier[h]
        cluster = self.cluster_tier_lo if reading is None else self.cluster_tier_hi
        if limit >= cluster:
            return "the whole cluster", cluster
        return None

    def narrowest(self, nodes):
        return self.holder(nodes, 10**9)


def network_constraints(model):
    """{group: spec.networkTopology} of the PodGroups that state a mode."""
    out = {}
    for g, info in model.groups.items():
        nt = ((info["obj"] or {}).get("spec") or {}).get("networkTopology")
        if isinstance(nt, dict) and nt.get("mode") in ("hard", "soft"):
            out[g] = nt
    return out


def _describe_nt(nt):
    return ", ".join("%s %s" % (k, nt[k]) for k in ("mode", "highestTierAllowed",
                                                     "highestTierName") if k in nt)


def check_network_hard(model, net, constraints, c, bound, lo, judged):
    """network-hard, after cycle `c`: every gang under a hard constraint
    that had pods bound in the cycle has all its pods (those placed before
    the run included; `lo`: the placement after the cycle's binds, its
    victims left out) inside one domain of tier <= its limit, or anywhere
    when the limit reaches the whole cluster's tier. A gang already placed
    outside every allowed domain may not grow at all. Gangs judged are
    added to `judged`."""
    out = []
    bound = set(bound)
    for g in sorted(constraints):
        nt = constraints[g]
        if nt["mode"] != "hard":
            continue
        new = sorted(k for k in model.groups[g]["pods"] if k in bound and k in lo)
        if not new:
            continue
        limit = net.limit(nt)
        if limit is None:
            continue
        judged.add(g)
        nodes = {lo[k] for k in model.groups[g]["pods"] if k in lo}
        if net.holder(nodes, limit) is not None:
            continue
        wide = net.narrowest(nodes)
        out.append(Violation(
            "network-hard", g,
            "after cycle %d: its pods are on %s (bound this cycle: %s), which no one domain of "
            "tier <= %d holds (spec.networkTopology %s; %s)" % (
                c, ", ".join(sorted(nodes)), ", ".join(new), limit, _describe_nt(nt),
                "the narrowest holding them all: %s, tier %d" % wide if wide else
                "no domain holds them all")))
    return out


def sub_group_policies(model):
    """{group: spec.subGroupPolicy} of the PodGroups that have one."""
    out = {}
    for g, info in model.groups.items():
        sgp = ((info["obj"] or {}).get("spec") or {}).get("subGroupPolicy")
        if isinstance(sgp, list) and sgp:
            out[g] = sgp
    return out


def _sub_group_of(policies, labels):
    """(policy index, key) of the sub-group a pod with `labels` is in, by
    the generator's policies (matchLabelKeys, no selector), or None."""
    for i, p in enumerate(policies):
        values = [labels.get(k) for k in p.get("matchLabelKeys") or []]
        if values and all(values):
            return (i, "-".join(values))
    return None


def check_sub_groups(model, net, sub_grouped, c, bound, lo, before, judged):
    """After cycle `c`, for each job with sub-groups that had pods bound:
    network-sub-group-hard: every sub-group whose policy is hard, and that
    had pods bound in the cycle, has all its placed pods (`lo`) inside one
    domain of tier <= its policy's limit; sub-group-minimum: a job that
    started in the cycle (nothing placed before, `before`) has at least
    minSubGroups whole sub-groups (subGroupSize pods placed) of each
    policy. Jobs judged are added to `judged`."""
    out = []
    bound = set(bound)
    for g in sorted(sub_grouped):
        policies = sub_grouped[g]
        pods = model.groups[g]["pods"]
        new = [k for k in pods if k in bound and k in lo]
        if not new:
            continue
        judged.add(g)
        groups = collections.defaultdict(list)
        for k in pods:
            labels = (model.pods[k]["metadata"].get("labels") or {})
            sg = _sub_group_of(policies, labels)
            if sg is not None:
                groups[sg].append(k)
        for (i, key), members in sorted(groups.items()):
            nt = policies[i].get("networkTopology")
            if not nt or nt.get("mode", "hard") != "hard" or not any(k in bound for k in members):
                continue
            limit = net.limit(nt)
            if limit is None:
                continue
            nodes = {lo[k] for k in members if k in lo}
            if nodes and net.holder(nodes, limit) is None:
                out.append(Violation(
                    "network-sub-group-hard", g,
                    "after cycle %d: sub-group %s/%s has pods on %s, which no one domain of "
                    "tier <= %d holds (spec.subGroupPolicy[%d].networkTopology %s)" % (
                        c, policies[i].get("name"), key, ", ".join(sorted(nodes)), limit, i,
                        _describe_nt(nt))))
        if any(k in before for k in pods):
            continue
        for i, p in enumerate(policies):
            size = p.get("subGroupSize", 1)
            whole = sum(1 for (pi, _), members in groups.items()
                        if pi == i and sum(1 for k in members if k in lo) >= size)
            if whole < p.get("minSubGroups", 0):
                out.append(Violation(
                    "sub-group-minimum", g,
                    "after cycle %d: the job started with %d whole sub-group(s) of policy %s, "
                    "minSubGroups is %d" % (c, whole, p.get("name"), p.get("minSubGroups", 0))))
    return out


def network_live_domains(model, net, constraints, g, where):
    """For the liveness check: None when gang g has no hard constraint (judge
    it as any gang); False when the oracle does not judge it (a faulty
    description, a limit it cannot read); else the node sets, in order, of
    the domains its missing minimum must fit in: of tier <= its limit,
    holding the pods it already has (the whole cluster when the limit
    reaches its tier)."""
    nt = constraints.get(g)
    if not nt or nt["mode"] != "hard":
        return None
    limit = net.limit(nt)
    if limit is None or net.faults:
        return False
    strict = net.readings[0]
    have = {where[k] for k in model.groups[g]["pods"] if k in where}
    out = [strict[h] for h in sorted(strict, key=lambda h: (net.tier[h], h))
           if net.tier[h] <= limit and have <= strict[h] and strict[h]]
    if limit >= net.cluster_tier_hi:
        out.append(frozenset(model.nodes))
    return out


def check_network_soft(model, net, constraints, cycles, start, excuses, reservation):
    """network-soft-one-domain. A gang under a soft constraint is tried in
    the lowest tier's domains first, then wider ones, then anywhere; the
    claim made here is only the one that follows when a lowest-tier domain
    D surely holds it:
      - the description is sound, and the policy has no reservation plugin
        (reserved nodes would keep the gang out of D);
      - nothing was evicted in cycle 1 (only allocate's placements);
      - the gang had no pod placed at the start and had pods bound in
        cycle 1; it has no inter-pod constraint, names no resource claim and
        is not BestEffort
        (backfill places those);
      - D, of the lowest tier, had no pod on any of its nodes at the start,
        every node of it Ready, every pod of the gang may go on each of
        them (selector, taints, cordon) and no pod's anti-affinity bars it
        there (pods placed at the start or bound in cycle 1), and by
        resource arithmetic D holds the gang's minimum: the sum over its
        nodes of how many of the largest pod (each resource at its largest
        request among the pods) fit its allocatable is at least minMember,
        so any minMember of its pods fit D whichever node they are tried
        on first;
      - no pod of another job was bound on D's nodes in cycle 1 (D was
        still empty when the gang's turn came).
    Then at least minMember of the gang's pods bound in cycle 1 must be
    inside one domain (of any tier; D's tier would be reached first, but
    only "not scattered" is claimed). Not that all of them are: Shoal
    judges whether a domain "holds the gang" by its minimum, and places
    the pods above minMember anywhere in the same cycle (a domain fuller
    than D holding the minimum comes first), which no stated rule forbids;
    such gangs are counted ("pods above the minimum outside its domain").
    Counts go to `excuses`."""
    out = []
    if not net.on or net.faults or reservation or not cycles:
        return out
    first = cycles[0]
    if first.get("evictions"):
        return out
    binds1 = {b["pod"]: b["node"] for b in first.get("binds", [])
              if b.get("pod") in model.pods and b.get("node") in model.nodes}
    after = dict(start)
    after.update(binds1)
    blocked = _blocked_by_anti_affinity(model, after)
    strict = net.readings[0]
    lowest = min(net.tier.values())
    occupied = set(start.values())
    ready = {n for n, o in model.nodes.items()
             if any(c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (o.get("status") or {}).get("conditions") or [])}
    for g in sorted(constraints):
        if constraints[g]["mode"] != "soft":
            continue
        pods = model.groups[g]["pods"]
        mine = [k for k in pods if k in binds1]
        if not pods or not mine or any(k in start for k in pods):
            continue
        if any(has_interpod(model.pods[k]) for k in pods):
            continue
        if any(model.pods[k]["spec"].get("resourceClaims") for k in pods):
            # Devices decide where it fits; D's room is not modelled for them.
            excuses["network: soft gangs with resource claims (devices not modelled; "
                    "not judged)"] += 1
            continue
        if all(set(model.req[k]) <= {"pods"} for k in pods):
            continue
        big = {}
        for k in pods:
            for r, v in model.req[k].items():
                big[r] = max(big.get(r, 0), v)
        held = None
        for h in sorted(strict):
            dom = strict[h]
            if net.tier[h] != lowest or not dom or dom & occupied or not dom <= ready:
                continue
            if any(placement_problem(model.pods[k], model.nodes[n]) or blocked(k, n)
                   for k in pods for n in dom):
                continue
            if any(binds1[k] in dom for k in binds1 if k not in pods):
                continue
            slots = sum(min(int(model.alloc[n].get(r, 0) / v) for r, v in big.items() if v > 0)
                        for n in dom)
            if slots >= model.groups[g]["min"]:
                held = h
                break
        if held is None:
            continue
        excuses["network: soft gangs judged (an empty lowest-tier domain held their minimum)"] += 1
        need = model.groups[g]["min"]
        on = [binds1[k] for k in mine]
        most = max((sum(1 for n in on if n in r[h]), h) for r in net.readings for h in r)
        wide = net.narrowest(set(on))
        if wide is not None and wide[1] == lowest:
            excuses["network: soft gangs judged, all placed in one lowest-tier domain"] += 1
        elif wide is None or wide[0] == "the whole cluster":
            excuses["network: soft gangs judged, pods above the minimum outside its domain"] += (
                most[0] >= need)
        if most[0] >= need:
            continue
        out.append(Violation(
            "network-soft-one-domain", g,
            "cycle 1: its pods went to %s; no one domain holds minMember %d of them (at most %d, "
            "%s), though %s (tier %d: %s) had no pod at the start and holds %d of them by "
            "resource arithmetic (spec.networkTopology %s)" % (
                ", ".join(sorted(set(on))), need, most[0], most[1], held, lowest,
                ", ".join(sorted(strict[held])), need, _describe_nt(constraints[g]))))
    return out
