"""Topology seeds (generate.py's second stream, random.Random
"shoal-topology-<seed>"): zones relabelled, required pod affinity,
anti-affinity and topology spread on gangs (_gang_constraints) and
running pods of another scheduler whose anti-affinity selects some
gangs (_guards).
"""

from kube import GANG_LABEL, HOSTNAME, OTHER_SCHEDULER, ZONE
from generate_nodes import _pod

def _relabel_zones(trng, nodes):
    """A topology seed's nodes: 2-4 zones, one node in ten without a zone
    label (no domain for zone terms); every node keeps its hostname
    label, as real nodes do."""
    nzones = trng.randint(2, 4)
    for n in nodes:
        labels = n["metadata"]["labels"]
        if trng.random() < 0.1:
            del labels[ZONE]
        else:
            labels[ZONE] = "zone-" + "abcd"[trng.randrange(nzones)]


def _own_selector(trng, name):
    if trng.random() < 0.3:
        return {"matchExpressions": [{"key": GANG_LABEL, "operator": "In", "values": [name]}]}
    return {"matchLabels": {GANG_LABEL: name}}


def _gang_constraints(trng, name, ns, earlier):
    """Inter-pod affinity, anti-affinity and topology spread for the pods
    of gang `name`: at least one of
      - required anti-affinity to its own pods, on hostname (one per
        node; 80%) or zone (one per zone);
      - required affinity, on zone mostly: to an earlier group's pods
        (workers follow their parameter server; 70% when there is one) or
        to its own pods (self-affinity: the first pod goes anywhere);
      - a spread constraint over zone (60%) or hostname, maxSkew 1 (75%)
        or 2, DoNotSchedule (80%) or ScheduleAnyway, on its own label."""
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    kinds = set()
    while not kinds:
        for kind, p in (("anti", 0.45), ("affinity", 0.3), ("spread", 0.35)):
            if trng.random() < p:
                kinds.add(kind)
    out = {}
    affinity = {}
    if "anti" in kinds:
        key = HOSTNAME if trng.random() < 0.8 else ZONE
        affinity["podAntiAffinity"] = {required: [
            {"labelSelector": _own_selector(trng, name), "topologyKey": key}]}
    if "affinity" in kinds:
        key = ZONE if trng.random() < 0.85 else HOSTNAME
        if earlier and trng.random() < 0.7:
            tname, tns = trng.choice(earlier)
            term = {"labelSelector": {"matchLabels": {GANG_LABEL: tname}}, "topologyKey": key}
            if tns != ns:
                term["namespaces"] = [tns]
        else:
            term = {"labelSelector": _own_selector(trng, name), "topologyKey": key}
        affinity["podAffinity"] = {required: [term]}
    if affinity:
        out["affinity"] = affinity
    if "spread" in kinds:
        out["topologySpreadConstraints"] = [{
            "maxSkew": 1 if trng.random() < 0.75 else 2,
            "topologyKey": ZONE if trng.random() < 0.6 else HOSTNAME,
            "whenUnsatisfiable": "DoNotSchedule" if trng.random() < 0.8 else "ScheduleAnyway",
            "labelSelector": _own_selector(trng, name)}]
    return out


def _guards(trng, room, groups):
    """1-3 running pods of another scheduler (tolerating every taint, like
    a DaemonSet's) with required anti-affinity to the pods of 1-3 groups,
    on hostname (80%) or zone: by symmetry those groups' pods may not join
    them."""
    out = []
    for i in range(trng.randint(1, 3)):
        targets = sorted(trng.sample(groups, min(len(groups), trng.randint(1, 3))))
        term = {"labelSelector": {"matchExpressions": [
            {"key": GANG_LABEL, "operator": "In", "values": [n for n, _ in targets]}]},
            "topologyKey": HOSTNAME if trng.random() < 0.8 else ZONE}
        if trng.random() < 0.5:
            term["namespaceSelector"] = {}
        else:
            term["namespaces"] = sorted({ns for _, ns in targets})
        p = _pod(trng, "guard-%d" % i, "default", 1, {"cpu": "100m", "memory": "64Mi"}, {},
                 [{"operator": "Exists"}], scheduler=OTHER_SCHEDULER,
                 constraints={"affinity": {"podAntiAffinity": {
                     "requiredDuringSchedulingIgnoredDuringExecution": [term]}}})
        p["metadata"]["labels"] = {"app": "guard"}
        room.place(trng, [p])
        out.append(p)
    return out
