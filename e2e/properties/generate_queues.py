"""Queue-tree seeds (generate.py's third stream, _queue_tree): parent
queues over the leaf queues with capability, guarantee and deserved at
every level, sometimes a fault on purpose; and the running work that
fills the idle room (_hog) of tree and pressure seeds.
"""

from fractions import Fraction

from kube import _add, _resources, quantity
from generate_nodes import PRIORITY_CLASSES, _pod, timestamp

# --- queue trees (spec.parent), on their own stream ---

TREE_FAULTS = ["missing-parent", "cycle", "over-guarantee", "over-deserved", "job-in-parent"]


def _queue_totals(nodes):
    total = {}
    for n in nodes:
        a = _resources(n["status"]["allocatable"])
        total = _add(total, {k: v for k, v in a.items() if k in ("cpu", "memory",
                                                                   "nvidia.com/gpu")})
    return total


def _qty(r, v):
    """A Fraction of base units as a quantity string, rounded down."""
    if r == "cpu":
        return "%dm" % int(v * 1000)
    if r == "memory":
        return "%dMi" % int(v / 2**20)
    return str(int(v))


def _share(rs, fn):
    """{resource: quantity} of fn(resource) for each of `rs`, leaving out
    what rounds down to nothing."""
    out = {r: _qty(r, fn(r)) for r in rs}
    return {r: v for r, v in out.items() if quantity(v) > 0}


def _some(qrng, names):
    """The resources a share names: cpu and memory mostly."""
    r = qrng.random()
    out = ["cpu", "memory"] if r < 0.7 else ["cpu"] if r < 0.9 else ["memory"]
    if "nvidia.com/gpu" in names and qrng.random() < 0.4:
        out.append("nvidia.com/gpu")
    return out


def _queue_obj(name, spec):
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": name}, "spec": spec, "status": {"state": "Open"}}


def _hog(qrng, room, items, queue, most=None, tolerations=()):
    """Running work in `queue` filling much of the idle room: other
    queues' waiting jobs then need reclaim, which the oracle judges
    against the queues' deserved shares and guarantees. Either one
    elastic job (minMember 1: all but one pod may be taken back, with
    reason `elastic`) or as many jobs of one pod (reason `reclaim`).
    4-40 pods, or up to `most`; `tolerations` on every pod."""
    req = {"cpu": qrng.choice(["1", "2", "4"]), "memory": qrng.choice(["1Gi", "2Gi", "4Gi"])}
    ns = qrng.choice(["team-a", "team-b"])
    prio = qrng.choice(PRIORITY_CLASSES) if qrng.random() < 0.4 else None
    elastic = qrng.random() < 0.5
    pods, groups = [], []
    for i in range(qrng.randint(4, 40) if most is None else most):
        group = "pg-hog" if elastic else "pg-hog-%d" % i
        p = _pod(qrng, "pg-hog-%d" % i, ns, 0, req, {}, list(tolerations), group=group,
                 priority=prio)
        placed = room.place(qrng, [p])
        if not elastic and not placed:
            break
        pods.append(p)
        if group not in groups:
            groups.append(group)
        if not placed:
            break
    for group in groups:
        spec = {"minMember": 1, "queue": queue}
        if prio:
            spec["priorityClassName"] = prio[0]
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                      "metadata": {"name": group, "namespace": ns,
                                   "uid": "pg-%s-%s" % (ns, group),
                                   "creationTimestamp": timestamp(0)},
                      "spec": spec, "status": {"phase": "Running"}})
    items += pods


def _queue_tree(qrng, items, nodes, room):
    """Makes the generated queues (q0..) the leaves of a tree: 1-3 levels
    of parents (dept-N above the leaves, div-N above those), an explicit
    `root` Queue in a third of the trees. Each queue has a nominal share
    of the cluster (its parent's, or its parent's deserved share where
    stated, split by random weights); its deserved share, guarantee and
    capability are drawn from it (each unset at times), so children's
    guarantees and deserved shares stay within what their parent states,
    and capability within a leaf's own is never below its deserved share
    (the parent's capability may be: it bounds the child too). In two
    trees in five running work in a leaf fills much of the idle room
    (_hog). With probability 1/15 one fault of TREE_FAULTS is put in.
    Returns the fault's name, or None."""
    queues = [o for o in items if o["kind"] == "Queue"]
    leaves = [q["metadata"]["name"] for q in queues]
    by_name = {q["metadata"]["name"]: q for q in queues}
    totals = _queue_totals(nodes)
    levels = qrng.randint(1, 3)
    parent = {}
    children = {"root": []}
    below = leaves
    made = []
    for level, prefix in ((2, "dept"), (3, "div")):
        if levels < level:
            break
        k = qrng.randint(1, min(3, len(below)))
        ups = ["%s-%d" % (prefix, i) for i in range(k)]
        order = list(below)
        qrng.shuffle(order)
        for i, q in enumerate(order):
            # Every parent gets a child, the rest go anywhere.
            up = ups[i] if i < k else qrng.choice(ups)
            parent[q] = up
            children.setdefault(up, []).append(q)
        for up in ups:
            spec = {"weight": qrng.randint(1, 4), "reclaimable": qrng.random() < 0.8}
            by_name[up] = _queue_obj(up, spec)
            made.append(by_name[up])
        below = ups
    explicit_root = qrng.random() < 0.3
    for q in below:
        # The top level names root, or (some of it) nothing: a queue
        # without a parent sits under root all the same.
        if qrng.random() < 0.7 or not explicit_root and q == below[0]:
            parent[q] = "root"
        children["root"].append(q)
    if explicit_root:
        by_name["root"] = _queue_obj("root", {"weight": 1})
        made.insert(0, by_name["root"])
    for q, up in parent.items():
        by_name[q]["spec"]["parent"] = up

    # Shares, top down.
    names = sorted(totals)
    nominal = {"root": dict(totals)}
    root_spec = by_name["root"]["spec"] if explicit_root else None
    if root_spec is not None and qrng.random() < 0.5:
        f = qrng.choice([Fraction(1, 2), Fraction(3, 4)])
        root_spec["capability"] = {"cpu": _qty("cpu", totals["cpu"] * f)}
    if root_spec is not None and qrng.random() < 0.15:
        root_spec["deserved"] = _share(_some(qrng, names),
                                       lambda r: totals[r] * Fraction(9, 10))
    if root_spec is not None and qrng.random() < 0.15:
        root_spec["guarantee"] = {"resource": _share(_some(qrng, names),
                                                     lambda r: totals[r] / 2)}

    def stated(spec, field):
        m = spec.get(field) or {}
        if field == "guarantee":
            m = m.get("resource") or {}
        return {r: quantity(v) for r, v in m.items()}

    todo = ["root"]
    while todo:
        up = todo.pop(0)
        kids = children.get(up, [])
        if not kids:
            continue
        spec = by_name[up]["spec"] if up in by_name else {}
        des, gua = stated(spec, "deserved"), stated(spec, "guarantee")
        base = {r: des.get(r, nominal[up][r]) for r in names}
        gbase = {r: gua.get(r, nominal[up][r] * Fraction(2, 5)) for r in names}
        w = [qrng.randint(1, 4) for _ in kids]
        for q, wi in zip(kids, w):
            share = Fraction(wi, sum(w))
            nominal[q] = {r: base[r] * share for r in names}
            qs = by_name[q]["spec"]
            is_leaf = q in leaves
            if qrng.random() < 0.6:
                f = Fraction(qrng.randint(5, 10), 10)
                qs["deserved"] = _share(_some(qrng, names), lambda r: nominal[q][r] * f)
            if qrng.random() < 0.3:
                f = Fraction(qrng.randint(3, 10), 10)
                qs["guarantee"] = {"resource": _share(_some(qrng, names),
                                                      lambda r: gbase[r] * share * f)}
            floor = _add(stated(qs, "guarantee"), {})
            for r, v in stated(qs, "deserved").items():
                floor[r] = max(floor.get(r, 0), v)
            if not is_leaf and qrng.random() < 0.5:
                f = qrng.choice([Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2)])
                qs["capability"] = _share(_some(qrng, names),
                                          lambda r: max(nominal[q][r] * f, floor.get(r, 0)))
            elif is_leaf and "capability" not in qs and qrng.random() < 0.25:
                f = qrng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
                qs["capability"] = _share(_some(qrng, names),
                                          lambda r: max(nominal[q][r] * f, floor.get(r, 0)))
            elif is_leaf and "capability" in qs:
                # The leaf's own capability (drawn before, cpu): no share
                # above it.
                cap = stated(qs, "capability")
                for field in ("deserved", "guarantee"):
                    m = qs.get(field)
                    m = m.get("resource") if m and field == "guarantee" else m
                    for r in list(m or {}):
                        if r in cap and quantity(m[r]) > cap[r]:
                            m[r] = _qty(r, cap[r])
            for field in ("deserved", "capability", "guarantee"):
                if qs.get(field) in ({}, {"resource": {}}):
                    del qs[field]
            todo.append(q)

    if qrng.random() < 0.4:
        _hog(qrng, room, items, qrng.choice(leaves))

    # Parents go right after the leaves, root first.
    at = max(i for i, o in enumerate(items) if o["kind"] == "Queue") + 1
    items[at:at] = made

    if qrng.random() >= 1 / 15:
        return None
    fault = qrng.choice(TREE_FAULTS)
    inner = [q for q in by_name if q != "root" and children.get(q)]
    if fault == "missing-parent":
        q = qrng.choice(sorted(q for q in by_name if q != "root"))
        by_name[q]["spec"]["parent"] = "ghost"
    elif fault == "cycle":
        if inner:
            a = qrng.choice(sorted(inner))
            d, kids = [], list(children[a])
            while kids:
                d.append(kids.pop())
                kids += children.get(d[-1], [])
            by_name[a]["spec"]["parent"] = qrng.choice(sorted(d))
        else:
            a, b = (leaves * 2)[:2] if len(leaves) < 2 else qrng.sample(leaves, 2)
            by_name[a]["spec"]["parent"] = b
            by_name[b]["spec"]["parent"] = a
    elif fault in ("over-guarantee", "over-deserved"):
        field = "guarantee" if fault == "over-guarantee" else "deserved"
        up = qrng.choice(sorted(inner) + ["root"])
        if up == "root" and "root" not in by_name:
            by_name["root"] = _queue_obj("root", {"weight": 1})
            items.insert(at, by_name["root"])
        kid = qrng.choice(children[up])
        ks = by_name[kid]["spec"]
        m = ks.setdefault(field, {})
        if field == "guarantee":
            m = m.setdefault("resource", {})
        # At least what its own children state, so the fault is at `up`.
        own = sum(stated(by_name[c]["spec"], field).get("cpu", 0)
                  for c in children.get(kid, []))
        m["cpu"] = _qty("cpu", max(quantity(m.get("cpu", "0")), own, Fraction(2)))
        total = sum(stated(by_name[c]["spec"], field).get("cpu", 0) for c in children[up])
        us = by_name[up]["spec"]
        um = us.setdefault(field, {})
        if field == "guarantee":
            um = um.setdefault("resource", {})
        um["cpu"] = _qty("cpu", total / 2)
    else:
        pgs = [o for o in items if o["kind"] == "PodGroup"]
        pg = qrng.choice(pgs)
        pg["spec"]["queue"] = qrng.choice(sorted(inner) + ["root"])
    return fault
