"""Network seeds (generate.py's fifth stream, _network): Volcano
HyperNodes in 2-4 tiers over the nodes, sometimes spare nodes or a
fault, spec.networkTopology on some PodGroups, and sub-groups
(_sub_groups, spec.subGroupPolicy).
"""

import collections

from kube import GROUP_ANNOTATION, HOSTNAME, ZONE, has_interpod, pod_requests
from generate_nodes import NODE_SHAPES

# --- the network (Volcano HyperNodes), on its own stream ---

# Label the generator puts on nodes that a HyperNode selects by labelMatch.
NETWORK_LABEL = "example.com/network-group"
TIER_NAMES = ["rack", "spine", "block", "cell"]
NETWORK_FAULTS = ["node-in-two-racks", "rack-in-two-spines", "missing-node",
                  "missing-hypernode"]


def _node_index(name):
    return int(name.split("-")[1])


def _node_members(nrng, hname, chunk, j):
    """Members of HyperNode `hname` selecting exactly the nodes `chunk`:
    one exactMatch each, one regexMatch (a range of indices, or the names
    alternated; always anchored at both ends, so that a full match and a
    search agree), or one labelMatch on a label put on those nodes (with
    node-type too at times, when they share it)."""
    names = [n["metadata"]["name"] for n in chunk]
    r = nrng.random()
    if r < 0.35:
        return [{"type": "Node", "selector": {"exactMatch": {"name": x}}} for x in names]
    if r < 0.7:
        idx = sorted(_node_index(x) for x in names)
        tens = {i // 10 for i in idx}
        if (len(idx) > 1 and len(tens) == 1 and idx == list(range(idx[0], idx[-1] + 1))
                and nrng.random() < 0.6):
            t = idx[0] // 10
            pattern = "^node-%d[%d-%d]-[a-z0-9]+$" % (t, idx[0] % 10, idx[-1] % 10)
        else:
            pattern = "^(%s)$" % "|".join(names)
        return [{"type": "Node", "selector": {"regexMatch": {"pattern": pattern}}}]
    value = "%s-%d" % (hname, j)
    match = {NETWORK_LABEL: value}
    for n in chunk:
        n["metadata"]["labels"][NETWORK_LABEL] = value
    types = {n["metadata"]["labels"].get("node-type") for n in chunk}
    if len(types) == 1 and nrng.random() < 0.25:
        match["node-type"] = types.pop()
    return [{"type": "Node", "selector": {"labelMatch": {"matchLabels": match}}}]


def _hypernode_members(nrng, kids):
    if len(kids) > 1 and nrng.random() < 0.3:
        return [{"type": "HyperNode",
                 "selector": {"regexMatch": {"pattern": "^(%s)$" % "|".join(kids)}}}]
    return [{"type": "HyperNode", "selector": {"exactMatch": {"name": k}}} for k in kids]


def _hypernode(name, tier, tier_name, members):
    spec = {"tier": tier, "members": members}
    if tier_name:
        spec["tierName"] = tier_name
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
            "metadata": {"name": name}, "spec": spec}


def _network(nrng, items, nodes):
    """A random network over `nodes`, described by HyperNodes inserted
    after the nodes: 2-4 tiers; racks (tier 1) of 1-6 nodes (small ones
    more often), mostly of consecutive nodes, one node in ten in no rack; above them groups of
    1-3 domains of the tier below, one in seven left under no parent, and
    at times a domain two tiers down taken in directly. Node members are
    written as exactMatch, regexMatch or labelMatch (_node_members),
    HyperNode members as exactMatch or regexMatch. Each tier is named
    (spec.tierName: rack, spine, block, cell) in 85% of cases.

    About three PodGroups in ten (not the hog's; 45% of the pending ones
    free to go anywhere, 25% of the others) get spec.networkTopology: hard
    (40% of the former, 70% of the latter), limited by highestTierAllowed
    1..top tier (1 in 20 one above, Volcano's whole-cluster tier) or by
    highestTierName; a gang already
    running is given, half the time, the narrowest tier holding its pods
    or wider (so it may grow), else any limit (it may be scattered
    already: then it must not grow). Or soft, half of those with
    highestTierAllowed.

    In three networks in five 1-3 spare nodes (no taints, no pods; after the
    others) join first, so that some racks are empty at the start.

    With probability 1/20 one fault of NETWORK_FAULTS is put in. Returns
    the fault's name, or None."""
    nodes = list(nodes)
    spare = []
    if nrng.random() < 0.6:
        zones = [n["metadata"]["labels"].get(ZONE) for n in nodes]
        for _ in range(nrng.randint(1, 3)):
            shape, cpu, mem, _gpu = nrng.choice([x for x in NODE_SHAPES if not x[3]])
            i = len(nodes)
            name = "node-%02d-%s" % (i, shape)
            labels = {HOSTNAME: name, "node-type": "cpu"}
            zone = nrng.choice(zones)
            if zone:
                labels[ZONE] = zone
            alloc = {"cpu": cpu, "memory": mem, "pods": "110"}
            n = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": labels, "uid": "node-uid-%d" % i},
                 "spec": {},
                 "status": {"capacity": dict(alloc), "allocatable": alloc,
                            "conditions": [{"type": "Ready", "status": "True"}]}}
            nodes.append(n)
            spare.append(n)
    tiers = nrng.randint(2, 4)
    tier_names = [TIER_NAMES[t] if nrng.random() < 0.85 else None for t in range(tiers)]
    order = list(nodes)
    if nrng.random() < 0.2:
        nrng.shuffle(order)
    racks = []
    i = 0
    while i < len(order):
        if nrng.random() < 0.1 and (racks or i < len(order) - 1):
            i += 1
            continue
        size = min(nrng.randint(1, 6), nrng.randint(1, 6))  # small racks more often
        racks.append(order[i:i + size])
        i += size
    hypernodes = []
    by_name = {}
    domain_nodes = {}
    for r, rack in enumerate(racks):
        name = "rack-%d" % r
        chunks = [rack]
        if len(rack) > 1 and nrng.random() < 0.3:
            cut = nrng.randint(1, len(rack) - 1)
            chunks = [rack[:cut], rack[cut:]]
        members = []
        for j, chunk in enumerate(chunks):
            members += _node_members(nrng, name, chunk, j)
        h = _hypernode(name, 1, tier_names[0], members)
        hypernodes.append(h)
        by_name[name] = h
        domain_nodes[name] = {n["metadata"]["name"] for n in rack}
    below = sorted(by_name)
    below.sort(key=lambda x: int(x.split("-")[1]))
    orphans = []  # (name, tier): left under no parent
    tier_of = {n: 1 for n in below}
    for t in range(2, tiers + 1):
        prefix = TIER_NAMES[t - 1]
        groups = []
        j = 0
        while j < len(below):
            if nrng.random() < 0.15 and (groups or j < len(below) - 1):
                orphans.append(below[j])
                j += 1
                continue
            size = nrng.randint(1, 3)
            groups.append(below[j:j + size])
            j += size
        # At times a domain two or more tiers down, left under no parent,
        # is taken in directly.
        low = [o for o in orphans if tier_of[o] < t - 1]
        if low and nrng.random() < 0.25:
            o = nrng.choice(low)
            orphans.remove(o)
            nrng.choice(groups).append(o)
        ups = []
        for g, kids in enumerate(groups):
            name = "%s-%d" % (prefix, g)
            h = _hypernode(name, t, tier_names[t - 1], _hypernode_members(nrng, kids))
            hypernodes.append(h)
            by_name[name] = h
            tier_of[name] = t
            domain_nodes[name] = set().union(*(domain_nodes[k] for k in kids))
            ups.append(name)
        below = ups

    # Constraints on some PodGroups.
    placed = collections.defaultdict(set)
    for o in items:
        if o["kind"] == "Pod" and o["spec"].get("nodeName"):
            g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
            if g:
                placed[(o["metadata"]["namespace"], g)].add(o["spec"]["nodeName"])
    plain = collections.defaultdict(lambda: True)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            reqs = pod_requests(o)
            if (o["spec"].get("nodeName") or o["spec"].get("nodeSelector") or has_interpod(o)
                    or "nvidia.com/gpu" in reqs or set(reqs) <= {"pods"}):
                plain[(o["metadata"]["namespace"], g)] = False
    for pg in items:
        if pg["kind"] != "PodGroup" or pg["metadata"]["name"].startswith("pg-hog"):
            continue
        # Pending gangs free to go anywhere (no selector, GPU, inter-pod
        # term; asking for something) are constrained more often, soft
        # mostly: those are the gangs network-soft-one-domain can judge.
        easy = plain[(pg["metadata"]["namespace"], pg["metadata"]["name"])]
        if nrng.random() >= (0.45 if easy else 0.25):
            continue
        nt = {}
        if nrng.random() < (0.4 if easy else 0.7):
            nt["mode"] = "hard"
            on = placed.get((pg["metadata"]["namespace"], pg["metadata"]["name"]))
            if on and nrng.random() < 0.5:
                fit = [tier_of[d] for d in domain_nodes if on <= domain_nodes[d]]
                least = min(fit) if fit else tiers + 1
                tier = nrng.randint(least, tiers + 1) if least <= tiers else least
            else:
                tier = nrng.randint(1, tiers) if nrng.random() >= 0.05 else tiers + 1
            if tier <= tiers and tier_names[tier - 1] and nrng.random() < 0.3:
                nt["highestTierName"] = tier_names[tier - 1]
            else:
                nt["highestTierAllowed"] = tier
        else:
            nt["mode"] = "soft"
            if nrng.random() < 0.5:
                nt["highestTierAllowed"] = nrng.randint(1, tiers)
        pg["spec"]["networkTopology"] = nt

    fault = None
    if nrng.random() < 1 / 20:
        fault = nrng.choice(NETWORK_FAULTS)
        rack_names = ["rack-%d" % r for r in range(len(racks))]
        spines = [n for n in by_name if tier_of[n] == 2]
        if fault == "node-in-two-racks" and len(racks) < 2:
            fault = "missing-node"
        if fault == "rack-in-two-spines" and len(spines) < 2:
            fault = "missing-hypernode"
        if fault == "node-in-two-racks":
            a, b = nrng.sample(range(len(racks)), 2)
            n = nrng.choice(racks[a])["metadata"]["name"]
            by_name[rack_names[b]]["spec"]["members"].append(
                {"type": "Node", "selector": {"exactMatch": {"name": n}}})
        elif fault == "rack-in-two-spines":
            s = nrng.choice(sorted(spines))
            kids = [r for r in rack_names if domain_nodes[r] <= domain_nodes[s]]
            other = nrng.choice(sorted(x for x in spines if x != s))
            r = nrng.choice(kids) if kids else nrng.choice(rack_names)
            by_name[other]["spec"]["members"].append(
                {"type": "HyperNode", "selector": {"exactMatch": {"name": r}}})
        elif fault == "missing-node":
            by_name[nrng.choice(rack_names)]["spec"]["members"].append(
                {"type": "Node", "selector": {"exactMatch": {"name": "node-99-missing"}}})
        else:
            ups = sorted(n for n in by_name if tier_of[n] >= 2)
            by_name[nrng.choice(ups)]["spec"]["members"].append(
                {"type": "HyperNode", "selector": {"exactMatch": {"name": "rack-missing"}}})
    at = max(i for i, o in enumerate(items) if o["kind"] == "Node") + 1
    items[at:at] = spare + hypernodes
    _sub_groups(nrng, items, tiers, tier_names)
    return fault


SUB_GROUP_LABEL = "example.com/replica"


def _sub_groups(nrng, items, tiers, tier_names):
    """About one PodGroup in six of two pods or more gets a
    spec.subGroupPolicy: its pods labelled SUB_GROUP_LABEL 0..k-1 in turn
    (a pod in five left without the label: in no sub-group), sub-groups of
    subGroupSize 1..their size, minSubGroups 0..k, each hard or soft
    within a random tier, or without a constraint."""
    pods = collections.defaultdict(list)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            pods[(o["metadata"]["namespace"], g)].append(o)
    for pg in items:
        if pg["kind"] != "PodGroup" or pg["metadata"]["name"].startswith("pg-hog"):
            continue
        members = pods.get((pg["metadata"]["namespace"], pg["metadata"]["name"]), [])
        if len(members) < 2 or nrng.random() >= 1 / 6:
            continue
        k = nrng.randint(1, min(3, len(members)))
        sizes = collections.Counter()
        for i, o in enumerate(members):
            if nrng.random() < 0.2:
                continue
            o["metadata"].setdefault("labels", {})[SUB_GROUP_LABEL] = str(i % k)
            sizes[i % k] += 1
        if not sizes:
            continue
        policy = {"name": "replica", "matchLabelKeys": [SUB_GROUP_LABEL],
                  "subGroupSize": nrng.randint(1, max(1, min(sizes.values()))),
                  "minSubGroups": nrng.randint(0, len(sizes))}
        r = nrng.random()
        if r < 0.5:
            tier = nrng.randint(1, tiers)
            nt = {"mode": "hard"}
            if tier_names[tier - 1] and nrng.random() < 0.3:
                nt["highestTierName"] = tier_names[tier - 1]
            else:
                nt["highestTierAllowed"] = tier
            policy["networkTopology"] = nt
        elif r < 0.75:
            policy["networkTopology"] = {"mode": "soft"}
        pg["spec"]["subGroupPolicy"] = [policy]
