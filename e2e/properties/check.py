"""An independent oracle for Shoal's replay, and a runner of the real binary.

`check(snapshot, report, predicates=True)` takes the `kind: List` fed to
`shoal-scheduler --snapshot` and the parsed `--output=json` report, and
returns (violations, excuses): every broken property as a Violation, and a
Counter of which stated rule excused an idle gang that would fit.

Properties (nothing here trusts the scheduler's own arithmetic):
  * safety
    - overbooked: after each cycle's binds (before its evictions take
      effect) no node holds more than its allocatable of any resource,
      pod count included, counting every pod on it (any scheduler), with
      requests as kube-scheduler counts them;
    - bad-bind / bad-eviction: a bind of an unknown, foreign, already
      placed or deleted pod; an eviction of a pod on no node;
    - partial-gang: after each cycle, no PodGroup has bound pods but fewer
      than spec.minMember;
    - selector / taint / cordoned: every bind matches the pod's
      nodeSelector, tolerates the node's NoSchedule/NoExecute taints and
      avoids cordoned nodes (only asked of policies listing `predicates`);
    - pod-affinity / pod-anti-affinity / topology-spread: each pod bound
      in a cycle honours its required pod affinity (kube-scheduler's
      first-pod rule included), its required anti-affinity and running
      pods' (symmetry), and its DoNotSchedule spread constraints, judged
      after the cycle's binds so pods bound together count (rules and
      why they never flag a correct scheduler: check_interpod and the
      functions it calls; only asked of policies listing `predicates`);
  * liveness (work conservation): at the end, a PodGroup below its
    minimum whose missing minimum (cheapest pending pods first) fits the
    idle room by a first fit (selectors, taints, cordons and pods placed
    earlier in the same fit respected; pods evicted in the last cycle
    still count as there; nodes where a running pod's anti-affinity
    selects the pod are no room for it; gangs with inter-pod constraints
    only in the case one_per_domain_fit decides) must carry a message
    naming one of
    ACCEPTED_RULES, else `idle-fitting-gang`. A message naming a rule of
    the queue tree excuses only a gang whose queue the oracle's own
    reading of the tree (QueueTree) finds held;
  * queues (QueueTree: the tree from the Queues' spec.parent, read
    from the documented rules, not from the scheduler):
    - queue-capability (only asked of policies listing `proportion` or
      `capacity`, the plugins that divide the cluster between queues: the
      README's "under both a task must fit its queue's limits and every
      ancestor's"): after each cycle's binds (victims still there), no
      queue with spec.capability has a subtree (itself and every queue
      below it) whose pods request more than the capability of a resource
      it names, if pods bound in that cycle into the subtree asked for
      that resource (pods running before may exceed it on their own);
    - queue-tree: no pod of a job whose queue is in a part of the tree
      that cannot be honoured (a parent that does not exist, a cycle,
      children guaranteeing or deserving more than their parent states,
      and everything below those) or has child queues is ever bound;
    Only asked of policies listing `capacity`, whose reclaimable rule the
    README states on the queues' own fields ("never below the victim
    queue's guarantee", "only while the queue holds more than it deserves
    of what the pod holds"); proportion's victims go by the deserved share
    it computes, in the dominant resource, which may leave a queue below
    its guarantee in another resource, as Volcano's does:
    - reclaim-guarantee: a cycle's evictions by reclaim never take a
      queue below its spec.guarantee.resource in a resource they free
      (counting the queue's pods before the cycle and those bound in it);
    - reclaim-deserved: no eviction by reclaim from a queue that,
      counting the same pods, held no more than its spec.deserved of
      every resource (a resource it does not name deserved as nothing): a
      queue within its deserved share lends nothing.
    Evictions by reclaim: those with reason `reclaim`, and under a policy
    whose only evicting action is reclaim also those with reason
    `elastic` (the README: an elastic job's pods evicted by any action
    carry that reason; `reclaim_reasons`).
  * reclaim-liveness (only asked of policies listing the `reclaim` action
    and the `capacity` or `proportion` plugin): a gang whose queue, below
    its deserved share (the one it states, under capacity; under
    proportion, the water-filled one, bounded from the objects by
    proportion_share.py, and only clearly below it), is owed room that
    reclaim may take back from other queues at the start has its minimum
    bound after the last cycle,
    unless its queue reached its share otherwise, the room went where
    the replay never gives it back, or a confirmed rule holds it (the
    exact definition: reclaim_liveness.py; counts of owed gangs and
    of each outcome go to the excuses Counter as "reclaim-liveness: ...").
  * network (spec.networkTopology; the domains are read from the HyperNode
    objects by Network, from the stated rules, not from the scheduler):
    - network-hard: after each cycle that bound pods of a gang under a
      hard constraint, all its pods (those placed before the run
      included, the cycle's victims left out) are on the nodes of one
      domain of tier <= its limit (highestTierAllowed, or the tier that
      highestTierName names), or anywhere once the limit reaches the
      whole cluster's tier (one above the highest): a gang placed outside
      every allowed domain does not grow;
    - network-soft-one-domain: a gang under a soft constraint, bound in
      cycle 1, for which a lowest-tier domain surely had room at the start
      and stayed empty, is not scattered over no one domain (the exact,
      narrow conditions: check_network_soft);
    and idle-fitting-gang looks for a hard gang's missing minimum only
    inside the allowed domains holding its placed pods (none has room:
    NETWORK_HARD_NO_DOMAIN; a faulty description: not judged).
  * devices (resource.k8s.io; device_rules.py reads the ResourceSlices,
    DeviceClasses and ResourceClaims itself and evaluates the generator's
    selectors by their stated meaning, kube.DEVICE_SELECTORS), over
    all cycles: device-double-allocation (no device held by two claims,
    snapshot's included; no claim allocated twice), device-claim-rewritten
    (a claim two pods bound together share listed as newly allocated for
    each), device-selector (class and request selectors hold),
    device-reach (every device on a slice the pod's node reaches; a claim
    already allocated confines its pods), device-count (ExactCount),
    device-unbound-claim (a claim allocated in a cycle belongs to a pod
    bound in it that names it), device-unallocated-claim (no pod bound
    with a claim holding no devices), device-partial-gang (a gang that got
    claims in a cycle is whole after it, or was before it);
    device_sharing_rules.py's device-counters (a pool's shared counters
    never overspent), device-capacity (a sharable device's shares within
    its capacity), device-shared-whole (a sharable device held whole is
    not shared), device-taint (no untolerated NoSchedule/NoExecute taint
    on a new allocation), device-share (shareIDs unique, consumedCapacity
    as kube rounds the ask; admin-access results exempt); and
    idle-fitting-gang counts a gang whose minimum names claims as fitting
    only where device_rules.first_fit serves its claims from free devices
    (else DEVICES_NO_FIT; with inter-pod constraints too, not decided).
    reclaim-liveness and network-soft-one-domain leave gangs with claims
    out (devices are not modelled there).
  * making room (making_room_rules.py, its docstring the exact rules and
    messages): gang-cut (no eviction leaves a running gang with some but
    fewer than minMember pods; the cycle's evictions of any reason
    together), consolidate-no-room (pods evicted with reason
    `consolidate` had room on other nodes after the cycle: each alone,
    the totals, and a packing by first-fit decreasing or, failing that, a
    bounded exhaustive search; `movedTo`, when reported, a node with room
    for them). Devices a claim holds are given back once every pod
    reserving it is evicted, from the next cycle on (device_rules.Freeing).
Determinism (the same file twice gives identical output) is checked by
`run_case`, which runs the binary.

    python3 e2e/properties/check.py SNAPSHOT.json POLICY.yaml [--cycles=5]
"""

import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The layers (imports_test.py): kube.py (what the objects mean), model.py
# (the oracle's model of a snapshot, Violation, the accepted rules), the
# rules over them, and this file on top. The names moved down are imported
# here too, where the tests and run.py use them (check.X).
from kube import (GROUP_ANNOTATION, SCHEDULER, _add, fits, hard_spread,  # noqa: E402,F401
                  has_interpod, node_allocatable, placement_problem, pod_requests, quantity,
                  required_terms, same_domain, selector_matches,
                  term_decidable, term_matches)
from model import (ACCEPTED_RULES, DEVICES_NO_FIT, FULL_RULE,  # noqa: E402,F401
                   NETWORK_HARD_NO_DOMAIN, NETWORK_UNJUDGED, RECLAIM_LIVENESS, TREE_RULES,
                   UNDECIDED_INTERPOD, Model, QueueTree, Violation, _blocked_by_anti_affinity,
                   _by_name, _cheap, _fmt, _queue_resources, _queue_usage, _real, _tightest,
                   first_fit, key)
import device_rules  # noqa: E402
from interpod_rules import _labels, check_interpod, one_per_domain_fit  # noqa: E402,F401
import making_room_rules  # noqa: E402
import network_rules  # noqa: E402
from reclaim_liveness import check_reclaim_liveness  # noqa: E402
from reclaim_rules import _capability, _cluster  # noqa: E402

SUB_GROUPS_UNJUDGED = ("network: jobs with sub-groups left waiting (sub-groups' domains are "
                       "not modelled; liveness not judged)")
# A count in the excuses Counter (not an excuse): claims the run allocated.
CLAIMS_ALLOCATED = "DRA claims allocated (count)"
KINDS = ["binary-error", "nondeterminism", "overbooked", "bad-bind", "bad-eviction",
         "partial-gang", "selector", "taint", "cordoned", "pod-affinity", "pod-anti-affinity",
         "topology-spread", "queue-capability", "queue-tree", "reclaim-guarantee",
         "reclaim-deserved", "reclaim-liveness", "network-hard", "network-soft-one-domain",
         "network-sub-group-hard", "sub-group-minimum", "device-double-allocation",
         "device-claim-rewritten", "device-selector", "device-reach", "device-count", "device-unbound-claim",
         "device-unallocated-claim", "device-partial-gang", "device-queue-quota",
         "device-counters", "device-capacity", "device-shared-whole", "device-taint",
         "device-share", "gang-cut", "consolidate-no-room", "idle-fitting-gang"]


def check_queues(model, c, binds, where, evictions, capacity, queue_plugin,
                 reclaim_reasons):
    """Queue capability, the tree and reclaim for cycle `c`: `binds` its
    (pod, node) binds, `where` the placement after them (victims still
    there), `evictions` its [(pod, reason)]; the rest as check's
    arguments."""
    out = []
    tree = model.tree
    usage = _queue_usage(model, where)
    added = _queue_usage(model, dict(binds))
    for k, n in binds:
        q = model.queue_of.get(k)
        # (The implicit queue `default` is left out: whether a fault at
        # root holds it is not stated.)
        if q in tree.held and (q in tree.spec or q == "root"):
            out.append(Violation("queue-tree", k, "cycle %d: bound to %s, but its queue %s may "
                                 "hold no jobs: %s" % (c, n, q, tree.held[q])))
    for top in sorted(tree.spec):
        cap = tree.capability(top)
        if not cap or not queue_plugin:
            continue
        sub = tree.subtree(top)
        new, total = {}, {}
        for q in sub:
            new = _add(new, added.get(q, {}))
            total = _add(total, usage.get(q, {}))
        over = {r: total.get(r, 0) for r, v in cap.items()
                if new.get(r, 0) > 0 and total.get(r, 0) > v}
        if over:
            pods = sorted(k for k, _ in binds if model.queue_of.get(k) in sub)
            out.append(Violation(
                "queue-capability", "queue/" + top,
                "after cycle %d: pods of queues %s request %s, past its capability %s (bound "
                "this cycle: %s)" % (c, ", ".join(sorted(sub)), _fmt(over),
                                     _fmt({r: cap[r] for r in over}), pods)))
    taken = collections.defaultdict(dict)
    victims = collections.defaultdict(list)
    for k, reason in evictions:
        q = model.queue_of.get(k)
        if reason in reclaim_reasons and q is not None and k in where:
            taken[q] = _add(taken[q], model.req[k])
            victims[q].append(k)
    for q in sorted(taken if capacity else ()):
        spec = tree.spec.get(q, {})
        held = _real(usage.get(q, {}))
        guarantee = _queue_resources(spec, "guarantee")
        below = {r: held.get(r, 0) - taken[q].get(r, 0) for r, v in guarantee.items()
                 if taken[q].get(r, 0) > 0 and held.get(r, 0) - taken[q].get(r, 0) < v}
        if below:
            out.append(Violation(
                "reclaim-guarantee", "queue/" + q,
                "cycle %d: reclaim evicted %s, leaving %s below its guarantee %s (it held %s)"
                % (c, sorted(victims[q]), _fmt(below), _fmt({r: guarantee[r] for r in below}),
                   _fmt({r: held.get(r, 0) for r in below}))))
        # A deserved share no more than the queue's real capability (the
        # README's capacity: deserved "no more than the real capability"),
        # read on the side of less: the capabilities above it, less its
        # siblings' guarantees at every level, and the cluster.
        deserved = _queue_resources(spec, "deserved")
        real = _capability(model, q, _cluster(model))
        deserved = {r: min(v, real.get(r, v)) for r, v in deserved.items()}
        if deserved and all(v <= deserved.get(r, 0) for r, v in held.items()):
            out.append(Violation(
                "reclaim-deserved", "queue/" + q,
                "cycle %d: reclaim evicted %s from a queue within its deserved share: it held "
                "%s (pods bound this cycle included), deserved %s" % (
                    c, sorted(victims[q]), _fmt(held) or "nothing", _fmt(deserved))))
    return out


def check(snapshot, report, predicates=True, scheduler=SCHEDULER, capacity=False,
          queue_plugin=True, reclaim_reasons=("reclaim",), reclaim=False, proportion=False,
          reservation=False):
    """Returns (violations, excuses Counter). `capacity`: the policy lists
    the capacity plugin (spec.deserved is what reclaim gives back);
    `proportion`: it lists the proportion plugin (deserved shares are
    water-filled); `queue_plugin`: it lists proportion or capacity (queue
    capabilities hold); `reclaim_reasons`: the eviction reasons that are
    reclaim's (policy_reclaim_reasons); `reclaim`: the policy lists the
    reclaim action (with `capacity` or `proportion`: reclaim-liveness is
    asked, under capacity's shares if it lists both); `reservation`: it
    lists the reservation plugin (network-soft-one-domain is not asked)."""
    model = Model(snapshot, scheduler)
    dev = device_rules.Devices(snapshot["items"])
    out = []
    excuses = collections.Counter()
    where = model.initial_placement()
    start = dict(where)
    net = network_rules.Network(snapshot["items"])
    constraints = network_rules.network_constraints(model)
    # Jobs with sub-groups are judged by their own rules (check_sub_groups)
    # and left out of those that do not know sub-groups (a soft gang's one
    # domain, liveness).
    sub_grouped = network_rules.sub_group_policies(model)
    constraints_whole = {g: nt for g, nt in constraints.items() if g not in sub_grouped}
    hard_judged = set()
    sub_judged = set()
    deleted = set()
    replayed = set()
    last_evicted = []
    cycles = report.get("cycles", [])
    for c, cycle in enumerate(cycles, 1):
        before = dict(where)
        binds = []
        for b in cycle.get("binds", []):
            k, n = b["pod"], b["node"]
            if k not in model.pods or k not in model.ours:
                out.append(Violation("bad-bind", k, "cycle %d: bound a pod that is not %s's"
                                     % (c, scheduler)))
                continue
            if k in where or k in deleted:
                out.append(Violation("bad-bind", k, "cycle %d: bound to %s but already %s"
                                     % (c, n, "on " + where[k] if k in where else "deleted")))
                continue
            if n not in model.nodes:
                out.append(Violation("bad-bind", k, "cycle %d: bound to unknown node %s" % (c, n)))
                continue
            why = placement_problem(model.pods[k], model.nodes[n])
            if why and predicates:
                kind = ("selector" if why.startswith("nodeSelector") else
                        "taint" if why.startswith("untolerated") else "cordoned")
                out.append(Violation(kind, k, "cycle %d: bound to %s: %s" % (c, n, why)))
            binds.append((k, n))
            replayed.add(k)
            where[k] = n
        # Binds happen before this cycle's victims are gone.
        for n, u in model.used(where).items():
            over = {r: v for r, v in u.items() if v > model.alloc[n].get(r, 0)}
            if over:
                pods = sorted(k for k, m in where.items() if m == n)
                new = [k for k, m in binds if m == n]
                out.append(Violation(
                    "overbooked", "node/" + n,
                    "after cycle %d: requests %s exceed allocatable %s; pods %s (bound this "
                    "cycle: %s)" % (c, _fmt(over), _fmt({r: model.alloc[n].get(r, 0)
                                                          for r in over}), pods, new)))
        # Inter-pod rules hold under every policy (Shoal honours them as
        # mechanism, like resource fit), not only those listing predicates.
        victims = {e["pod"] for e in cycle.get("evictions", [])}
        out += check_interpod(model, c, [k for k, _ in binds], where, victims)
        out += check_queues(model, c, binds, where,
                            [(e["pod"], e.get("reason")) for e in cycle.get("evictions", [])],
                            capacity, queue_plugin, reclaim_reasons)
        if sub_grouped:
            out += network_rules.check_sub_groups(
                model, net, sub_grouped, c, [k for k, _ in binds],
                {x: m for x, m in where.items() if x not in victims}, before, sub_judged)
        if constraints:
            out += network_rules.check_network_hard(model, net, constraints, c, [k for k, _ in binds],
                                      {x: m for x, m in where.items() if x not in victims},
                                      hard_judged)
        out += making_room_rules.check_gang_cut(
            model, c, where, [(e["pod"], e.get("reason")) for e in cycle.get("evictions", [])])
        last_evicted = []
        moved = []
        for e in cycle.get("evictions", []):
            k = e["pod"]
            if k not in where:
                out.append(Violation("bad-eviction", k, "cycle %d: evicted (%s) but on no node"
                                     % (c, e.get("reason"))))
                continue
            excuses[making_room_rules.EVICTED % e.get("reason")] += 1
            if dev.pod_claims(k):
                excuses[making_room_rules.EVICTED_WITH_CLAIMS] += 1
            if e.get("reason") == making_room_rules.CONSOLIDATE:
                moved.append((k, where[k], e.get("movedTo") or ""))
            last_evicted.append((k, where.pop(k)))
            deleted.add(k)
        out += making_room_rules.check_consolidate(model, c, where, moved, excuses)
        for g, info in sorted(model.groups.items()):
            bound = sum(1 for k in info["pods"] if k in where)
            if 0 < bound < info["min"]:
                out.append(Violation("partial-gang", g, "after cycle %d: %d pods bound, "
                                     "minMember is %d" % (c, bound, info["min"])))

    # Devices (resource.k8s.io): over the whole run (device_rules.py).
    claims_held = {}
    if dev.on:
        v, claims_held = device_rules.check_devices(model, dev, cycles, queue_plugin)
        out += v
        excuses[CLAIMS_ALLOCATED] += sum(len(c.get("claims", [])) for c in cycles)

    # Liveness at the end.
    final = {pg["name"]: pg for pg in (cycles[-1].get("podGroups", []) if cycles else [])}
    used = model.used(where, last_evicted)
    free = {n: _add(model.alloc[n], used[n], -1) for n in model.nodes}
    present = dict(where)
    present.update(last_evicted)
    for g, info in sorted(model.groups.items()):
        live = [k for k in info["pods"] if k not in deleted]
        bound = sum(1 for k in live if k in where)
        pending = [k for k in live if k not in where]
        need = info["min"] - bound
        if need <= 0 or len(pending) < need:
            continue
        minimum = sorted(pending, key=lambda k: (_cheap(model.req[k]), k))[:need]
        big_first = sorted(minimum, key=lambda k: (_cheap(model.req[k]), k), reverse=True)

        claims = any(dev.pod_claims(k) for k in minimum)

        def fit_in(room):
            if any(has_interpod(model.pods[k]) for k in minimum):
                # With claims too: not decided (False).
                return False if claims else one_per_domain_fit(model, minimum, room, present)
            blocked = _blocked_by_anti_affinity(model, present)
            if claims:
                return (device_rules.first_fit(model, dev, big_first, room, _by_name, blocked,
                                               claims_held) or
                        device_rules.first_fit(model, dev, big_first, room, _tightest, blocked,
                                               claims_held))
            return (first_fit(model, big_first, room, _by_name, blocked) or
                    first_fit(model, big_first, room, _tightest, blocked))
        fit = fit_in(free)
        if fit is False:
            excuses[UNDECIDED_INTERPOD] += 1
            continue
        if fit is None:
            if claims and first_fit(model, big_first, free, _by_name,
                                    _blocked_by_anti_affinity(model, present)):
                # Room for the pods, not for their claims.
                excuses[DEVICES_NO_FIT] += 1
            continue
        if claims:
            excuses["DRA: gangs with claims whose minimum fits idle room and devices "
                    "(liveness judged)"] += 1
        # A gang under a hard network constraint must fit one domain within
        # its limit that holds the pods it already has (room elsewhere is
        # none of its).
        if g in sub_grouped:
            excuses[SUB_GROUPS_UNJUDGED] += 1
            continue
        domains = network_rules.network_live_domains(model, net, constraints, g, where) if constraints else None
        if domains is False:
            excuses[NETWORK_UNJUDGED] += 1
            continue
        if domains is not None:
            fit = next((f for f in (fit_in({n: free[n] if n in dom else {} for n in free})
                                    for dom in domains) if f), None)
            if fit is None:
                excuses[NETWORK_HARD_NO_DOMAIN] += 1
                continue
            excuses["network: hard gangs waiting whose minimum fits an allowed domain "
                    "(liveness judged)"] += 1
        msg = final.get(g, {}).get("message")
        rule = next((label for label, phrase in ACCEPTED_RULES
                     if msg and phrase and phrase in msg), None)
        unconfirmed = ""
        if rule in TREE_RULES and model.queue_of_group[g] not in model.tree.held:
            unconfirmed = ("; the message names a rule of the queue tree, but queue %s's place "
                           "in the tree is sound" % model.queue_of_group[g])
            rule = None
        if rule:
            excuses[rule] += 1
            continue
        best_effort = all(set(model.req[k]) == {"pods"} for k in minimum)
        out.append(Violation(
            "idle-fitting-gang", g,
            "%s: %d more pod(s) needed (minMember %d, %d bound) fit idle room, e.g. %s; "
            "phase %s, message %r%s" % ("BestEffort gang" if best_effort else "gang", need,
                                        info["min"], bound,
                                        ", ".join("%s->%s" % kn for kn in fit),
                                        final.get(g, {}).get("phase", "<not listed>"),
                                        msg if msg is not None else "<not listed>",
                                        unconfirmed)))
    if constraints:
        out += network_rules.check_network_soft(model, net, constraints_whole, cycles, start, excuses,
                                                reservation)
        excuses["network: hard gangs with pods bound (judged by network-hard)"] += len(
            hard_judged)
    if sub_grouped:
        excuses["network: jobs with sub-groups with pods bound (judged by network-sub-group-hard, "
                "sub-group-minimum)"] += len(sub_judged)
    if reclaim and (capacity or proportion):
        out += check_reclaim_liveness(model, where, replayed, deleted, final, excuses,
                                      "capacity" if capacity else "proportion")
    return out, excuses


def policy_has_plugin(policy_text, name):
    import re
    return re.search(r"^\s*-?\s*name:\s*%s\s*(#.*)?$" % re.escape(name), policy_text,
                     re.M) is not None


def policy_actions(policy_text):
    """The actions the policy lists."""
    import re
    m = re.search(r"^actions:\s*[\"']?([^\"'#\n]*)", policy_text, re.M)
    return {a.strip() for a in (m.group(1) if m else "").split(",")} - {""}


def policy_reclaim_reasons(policy_text):
    """The eviction reasons that mean reclaim evicted: `reclaim`, and
    `elastic` too when reclaim is the policy's only evicting action."""
    actions = policy_actions(policy_text)
    if "reclaim" in actions and "preempt" not in actions:
        return ("reclaim", "elastic")
    return ("reclaim",)


def policy_has_predicates(policy_text):
    return policy_has_plugin(policy_text, "predicates")


def run_binary(binary, snapshot_path, policy_path, cycles):
    args = [binary, "--snapshot=" + snapshot_path, "--scheduler-conf=" + policy_path,
            "--cycles=%d" % cycles, "--output=json"]
    done = subprocess.run(args, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def run_case(binary, snapshot_path, policy_path, cycles=5, twice=True):
    """Runs the binary on the file (twice, comparing the output, if
    `twice`); returns (violations, excuses)."""
    with open(snapshot_path) as f:
        snapshot = json.load(f)
    with open(policy_path) as f:
        text = f.read()
    predicates = policy_has_predicates(text)
    capacity = policy_has_plugin(text, "capacity")
    proportion = policy_has_plugin(text, "proportion")
    queue_plugin = capacity or proportion
    rc, stdout, stderr = run_binary(binary, snapshot_path, policy_path, cycles)
    if rc != 0:
        return [Violation("binary-error", snapshot_path, "exit %d: %s" % (rc, stderr.strip()[-500:]))], \
            collections.Counter()
    violations = []
    rc2, stdout2 = rc, stdout
    if twice:
        rc2, stdout2, _ = run_binary(binary, snapshot_path, policy_path, cycles)
    if rc2 != rc or stdout2 != stdout:
        i = next((i for i, (x, y) in enumerate(zip(stdout, stdout2)) if x != y), 0)
        same = ""
        try:
            if json.loads(stdout) == json.loads(stdout2):
                same = " (the same JSON value: only the order of object keys differs)"
        except ValueError:
            pass
        violations.append(Violation("nondeterminism", snapshot_path,
                                    "two runs differ from byte %d: %r vs %r%s"
                                    % (i, stdout[i:i + 120], stdout2[i:i + 120], same)))
    v, excuses = check(snapshot, json.loads(stdout), predicates, capacity=capacity,
                       queue_plugin=queue_plugin,
                       reclaim_reasons=policy_reclaim_reasons(text),
                       reclaim="reclaim" in policy_actions(text), proportion=proportion,
                       reservation=policy_has_plugin(text, "reservation"))
    return violations + v, excuses


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("policy")
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--binary", default=os.environ.get(
        "SHOAL_SCHEDULER", "bazel-bin/scheduler/shoal-scheduler"))
    a = ap.parse_args()
    vs, ex = run_case(a.binary, a.snapshot, a.policy, a.cycles)
    for v in vs:
        print(v)
    for rule, n in ex.most_common():
        if rule.startswith(("reclaim-liveness: ", "network: ", "DRA")):
            print("%s: %d" % (rule, n))
        else:
            print("excused %dx by rule: %s" % (n, rule))
    sys.exit(1 if vs else 0)
