"""What the objects of a snapshot mean, as both sides of the property
checks read them: the seeded generator (generate.py and its generate_*
modules, to place running pods without over-booking) and the oracle
(model.py, check.py and the *_rules modules, to judge the scheduler).
Kubernetes quantities and pod requests as kube-scheduler counts them,
taints and tolerations, node selectors, inter-pod affinity,
anti-affinity and topology spread, and the meaning of every CEL selector
the generator writes (DEVICE_SELECTORS). The bottom of e2e/properties/:
it imports nothing of it. Standard library only.
"""

SCHEDULER = "shoal"
OTHER_SCHEDULER = "default-scheduler"
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
# Every pod of a PodGroup carries this label (value: the group's name); the
# inter-pod affinity, anti-affinity and spread terms select on it.
GANG_LABEL = "example.com/gang"
# Host ports some pods bind (TCP, every address). The oracle counts each as
# a resource every node has one of, so two pods binding it on one node are
# an over-booking.
HOST_PORTS = [29500, 8080]
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}

# --- the same arithmetic the oracle uses, to place running pods without
# over-booking (the oracle reads them the same way: model.py, check.py) ---

_SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
           "n": None, "u": None, "m": None, "": 1, "k": 10**3, "M": 10**6, "G": 10**9,
           "T": 10**12, "P": 10**15, "E": 10**18}


def quantity(q):
    """A Kubernetes quantity as an exact Fraction of base units."""
    from fractions import Fraction
    s = str(q).strip()
    if "e" in s.lower() and not s.endswith(("Ei", "E")):
        mant, exp = s.lower().split("e")
        return Fraction(mant) * Fraction(10) ** int(exp)
    for suf in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        if s.endswith(suf):
            return Fraction(s[:-2]) * _SUFFIX[suf]
    frac = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000)}
    if s and s[-1] in frac:
        return Fraction(s[:-1]) * frac[s[-1]]
    if s and s[-1] in "kMGTPE":
        return Fraction(s[:-1]) * _SUFFIX[s[-1]]
    return Fraction(s)


def _add(a, b, sign=1):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return out


def _resources(m):
    return {k: quantity(v) for k, v in (m or {}).items()}


def pod_requests(pod):
    """What kube-scheduler counts for a pod (k8s resourcehelper.PodRequests):
    containers plus sidecars, or the largest init container (with the
    sidecars started before it) if larger, plus overhead, plus one pod."""
    spec = pod["spec"]
    reqs = {}
    for c in spec.get("containers", []):
        reqs = _add(reqs, _resources(c.get("resources", {}).get("requests")))
    sidecars, init = {}, {}
    for c in spec.get("initContainers", []):
        r = _resources(c.get("resources", {}).get("requests"))
        if c.get("restartPolicy") == "Always":
            reqs = _add(reqs, r)
            sidecars = _add(sidecars, r)
            r = dict(sidecars)
        else:
            r = _add(r, sidecars)
        for k, v in r.items():
            init[k] = max(init.get(k, 0), v)
    for k, v in init.items():
        reqs[k] = max(reqs.get(k, 0), v)
    reqs = _add(reqs, _resources(spec.get("overhead")))
    reqs["pods"] = reqs.get("pods", 0) + 1
    sidecars = [c for c in spec.get("initContainers", []) if c.get("restartPolicy") == "Always"]
    for c in sidecars + spec.get("containers", []):
        for port in c.get("ports", []):
            if port.get("hostPort"):
                reqs[_port_resource(port["hostPort"])] = 1
    return {k: v for k, v in reqs.items() if v != 0}


def _port_resource(port):
    return "hostport/%d" % port


def node_allocatable(node):
    alloc = _resources(node["status"]["allocatable"])
    for port in HOST_PORTS:
        alloc[_port_resource(port)] = 1
    return alloc


def tolerates(tolerations, taint):
    for t in tolerations or []:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        op = t.get("operator", "Equal")
        if not t.get("key") and op == "Exists":
            return True
        if t.get("key") != taint["key"]:
            continue
        if op == "Exists" or t.get("value", "") == taint.get("value", ""):
            return True
    return False


def placement_problem(pod, node):
    """Why `pod` may not go on `node` regardless of room (selector, taints,
    cordon, readiness), or None."""
    labels = node["metadata"].get("labels", {})
    for k, v in (pod["spec"].get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return "nodeSelector %s=%s not matched by node labels" % (k, v)
    for taint in node["spec"].get("taints") or []:
        if taint["effect"] in ("NoSchedule", "NoExecute") and not tolerates(
                pod["spec"].get("tolerations"), taint):
            return "untolerated taint %s=%s:%s" % (taint["key"], taint.get("value", ""),
                                                   taint["effect"])
    # kube-scheduler's NodeUnschedulable: a cordoned node takes only pods
    # that tolerate the taint the node controller puts on it.
    if node["spec"].get("unschedulable") and not tolerates(
            pod["spec"].get("tolerations"), UNSCHEDULABLE_TAINT):
        return "node is cordoned (spec.unschedulable)"
    return None


def fits(req, free):
    return all(v <= free.get(k, 0) for k, v in req.items())


# --- inter-pod affinity, anti-affinity and topology spread, as
# kube-scheduler reads them (imported by check.py too) ---

def selector_matches(sel, labels):
    """A metav1.LabelSelector against labels: None matches nothing (as in
    an affinity term), {} everything."""
    if sel is None:
        return False
    labels = labels or {}
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        k, op, values = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in values:
            return False
        if op == "NotIn" and k in labels and labels[k] in values:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def pod_ns(pod):
    return pod["metadata"].get("namespace", "default")


def pod_labels(pod):
    return pod["metadata"].get("labels") or {}


def required_terms(pod, kind):
    """The required terms of spec.affinity.<kind> (podAffinity or
    podAntiAffinity)."""
    a = ((pod["spec"].get("affinity") or {}).get(kind) or {})
    return list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])


def hard_spread(pod):
    return [c for c in pod["spec"].get("topologySpreadConstraints") or []
            if c.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule"]


def has_interpod(pod):
    """Whether the pod carries a hard inter-pod constraint of its own."""
    return bool(required_terms(pod, "podAffinity") or required_terms(pod, "podAntiAffinity")
                or hard_spread(pod))


def term_decidable(term):
    """A namespaceSelector naming labels needs Namespace objects the
    snapshot does not hold: such a term is not judged."""
    ns_sel = term.get("namespaceSelector")
    return ns_sel is None or ns_sel == {}


def term_matches(term, owner, other):
    """Whether `other` is a pod term `term` of pod `owner` selects: in the
    term's namespaces (default: the owner's) with matching labels."""
    ns_sel = term.get("namespaceSelector")
    if ns_sel == {}:
        in_ns = True
    else:
        names = term.get("namespaces") or []
        in_ns = pod_ns(other) in names if (names or ns_sel) else pod_ns(other) == pod_ns(owner)
    return in_ns and selector_matches(term.get("labelSelector"), pod_labels(other))


def same_domain(key, node_a, node_b):
    """Both nodes carry topology key `key` with one value."""
    la = node_a["metadata"].get("labels") or {}
    lb = node_b["metadata"].get("labels") or {}
    return key in la and key in lb and la[key] == lb[key]


def interpod_problem(pod, node, placed, nodes):
    """kube-scheduler's InterPodAffinity and PodTopologySpread filters for
    `pod` on `node`, given `placed` [(pod, node name)] and all `nodes` by
    name; a reason or None. The generator's; the oracle judges outcomes
    its own way (check.py)."""
    nlabels = node["metadata"].get("labels") or {}
    for term in required_terms(pod, "podAntiAffinity"):
        for q, m in placed:
            if same_domain(term["topologyKey"], node, nodes[m]) and term_matches(term, pod, q):
                return "anti-affinity with %s" % q["metadata"]["name"]
    for q, m in placed:
        for term in required_terms(q, "podAntiAffinity"):
            if same_domain(term["topologyKey"], node, nodes[m]) and term_matches(term, q, pod):
                return "existing pod %s's anti-affinity" % q["metadata"]["name"]
    terms = required_terms(pod, "podAffinity")
    if terms and not all(any(same_domain(t["topologyKey"], node, nodes[m]) and
                             term_matches(t, pod, q) for q, m in placed) for t in terms):
        anywhere = any(all(term_matches(t, pod, q) for t in terms) and
                       any(t["topologyKey"] in (nodes[m]["metadata"].get("labels") or {})
                           for t in terms) for q, m in placed)
        if anywhere or not all(term_matches(t, pod, pod) for t in terms):
            return "affinity not satisfied"
    spread = hard_spread(pod)
    keys = [c["topologyKey"] for c in spread]
    for c in spread:
        if c["topologyKey"] not in nlabels:
            return "node lacks %s" % c["topologyKey"]
        eligible = [n for n in nodes.values()
                    if all(k in (n["metadata"].get("labels") or {}) for k in keys)
                    and not (placement_problem(pod, n) or "").startswith("nodeSelector")]
        counts = {n["metadata"]["labels"][c["topologyKey"]]: 0 for n in eligible}
        names = {n["metadata"]["name"] for n in eligible}
        for q, m in placed:
            if m in names and pod_ns(q) == pod_ns(pod) and selector_matches(
                    c.get("labelSelector"), pod_labels(q)):
                counts[nodes[m]["metadata"]["labels"][c["topologyKey"]]] += 1
        self_match = 1 if selector_matches(c.get("labelSelector"), pod_labels(pod)) else 0
        low = min(counts.values()) if counts else 0
        if counts.get(nlabels[c["topologyKey"]], 0) + self_match - low > c["maxSkew"]:
            return "spread skew over %s" % c["topologyKey"]
    return None



# --- Dynamic Resource Allocation: the device selectors' meaning ---

DRA_DRIVER = "gpu.example.com"
# Every CEL selector the generator writes, and its meaning, which the
# oracle evaluates itself (device_rules.py; no CEL engine): (kind, name,
# op, value) where kind is `driver` (the device's driver), `attribute`
# (an attribute in the driver's domain: a string or an int) or `capacity`
# (a quantity, compared as one), op one of ==, <, >=.
DEVICE_SELECTORS = {
    "device.driver == 'gpu.example.com'": ("driver", None, "==", DRA_DRIVER),
    "device.attributes['gpu.example.com'].model == 'h100'": ("attribute", "model", "==", "h100"),
    "device.attributes['gpu.example.com'].model == 'a100'": ("attribute", "model", "==", "a100"),
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0":
        ("capacity", "memory", ">=", "80Gi"),
    "device.attributes['gpu.example.com'].index < 4": ("attribute", "index", "<", 4),
    "device.attributes['gpu.example.com'].index >= 2": ("attribute", "index", ">=", 2),
}
# The partition profiles of the sharing stream (generate_sharing.py): each
# class it writes selects a `profile` attribute. The seed's other devices
# have no `profile`: reading it unguarded would be a CEL runtime error
# there, which fails the whole allocation in kube-scheduler, so each asks
# has() first (the oracle reads a missing attribute as not matching).
PROFILES = ["whole", "half", "quarter", "shared"]
PROFILE_SELECTOR = ("has(device.attributes['%s'].profile) && "
                    "device.attributes['%s'].profile == '%%s'" % (DRA_DRIVER, DRA_DRIVER))
PROFILE_SELECTORS = {PROFILE_SELECTOR % p: ("attribute", "profile", "==", p) for p in PROFILES}
DEVICE_SELECTORS.update(PROFILE_SELECTORS)
