#!/usr/bin/env python3
"""Runs peers' scheduler test tables, carried as data (Volcano's in
volcano/*.yaml, kube-scheduler's in kube-scheduler/*.yaml), against the
real shoal-scheduler binary in snapshot-replay mode.

Each case is one scheduling cycle: its objects become a snapshot file, its
policy a scheduler configuration, and the binds, evictions and PodGroup
phases Shoal reports are compared with the case's `expect`.

DRA cases (kube-scheduler/dra_*.yaml, dynamicresources.yaml) also expect the
ResourceClaim allocations the cycle writes: `claims` {NS/CLAIM: {devices,
node[, config]}} (exact: no other claim may be allocated) and `unallocated`
(claims that must not be allocated). An expected device may also carry
adminAccess, tolerations, bindingConditions, bindingFailureConditions,
consumedCapacity (quantities compared by value) and shareID ('any': only its
presence is compared); a result key the expectation leaves out is not compared.
`created` {NS/POD: {devices, node[, config], mappings}} (exact) expects the
claims the cycle creates (extended resources served by devices), keyed by
the pod each is made for, since their names are generated; with it, created
claims are left out of `claims`.

A case with `explain: NS/NAME` asks instead why that pending pod fits or
does not fit each node (`shoal-scheduler --explain=NS/NAME`): which nodes
are feasible, the refusal message of each infeasible node, and each scoring
plugin's raw score on the feasible nodes. The runner applies kube-scheduler's
own NormalizeScore of each plugin to the raw scores (normalize() below) and
compares the result with the final scores kube-scheduler's tables expect.

Usage: conformance_test.py [--binary PATH] [--filter SUBSTRING] [--check-only] [FILE.yaml ...]
Exit status: 0 when every case that is not skipped passes, 1 otherwise.
With --check-only the cases are only loaded and validated (no binary needed).
"""

import argparse
import collections
import fractions
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_KEYS = {"name", "source", "policy", "objects", "expect", "departure",
             "skip", "schedulerName", "note", "explain"}
EXPECT_KEYS = {"binds", "bindCount", "evicted", "evictCount", "phases", "claims", "unallocated",
               "created"}
CLAIM_EXPECT_KEYS = {"devices", "node", "config"}
# A claim a cycle creates for a pod's extended resources (KEP-5004): kube-scheduler
# sends generateName "<pod>-extended-resources-" (the base cut to 58 characters) and
# the API server adds five characters of its name alphabet.
CREATED_EXPECT_KEYS = CLAIM_EXPECT_KEYS | {"mappings"}
MAPPING_KEYS = ("container", "resource", "request")
GENERATED_SUFFIX = re.compile(r"[bcdfghjklmnpqrstvwxz2456789]{5}")
DEVICE_KEYS = ("request", "driver", "pool", "device")
# Optional keys of an expected device result (resource.k8s.io/v1
# DeviceRequestAllocationResult field names); compared only where expected.
OPTIONAL_DEVICE_KEYS = ("adminAccess", "tolerations", "bindingConditions",
                        "bindingFailureConditions", "consumedCapacity", "shareID")
EXPLAIN_EXPECT_KEYS = {"feasible", "reasons", "scores", "unavailable"}

# kube-scheduler's framework.MaxNodeScore.
MAX_NODE_SCORE = 100


def default_normalize(raw, reverse):
    """kube-scheduler's helper.DefaultNormalizeScore(MaxNodeScore, reverse, scores)
    (pkg/scheduler/framework/plugins/helper/normalize_score.go): scales
    [0, max] to [0, 100] with integer division; reverse subtracts from 100;
    when the highest score is 0 every node gets 0, or 100 when reversed."""
    top = max([0] + list(raw.values()))
    if top == 0:
        return {n: (MAX_NODE_SCORE if reverse else s) for n, s in raw.items()}
    out = {}
    for n, s in raw.items():
        v = MAX_NODE_SCORE * s // top  # operands are non-negative: Go's / truncates alike
        out[n] = MAX_NODE_SCORE - v if reverse else v
    return out


def interpod_normalize(raw):
    """InterPodAffinity.NormalizeScore (interpodaffinity/scoring.go): min-max
    scaling over the scored nodes, int64() of the float (truncation toward
    zero; the value is never negative); every node 0 when max == min."""
    if not raw:
        return {}
    lo, hi = min(raw.values()), max(raw.values())
    if hi - lo <= 0:
        return {n: 0 for n in raw}
    return {n: int(float(MAX_NODE_SCORE) * (float(s - lo) / float(hi - lo)))
            for n, s in raw.items()}


def spread_normalize(raw, ignored=()):
    """PodTopologySpread.NormalizeScore (podtopologyspread/scoring.go): nodes
    PreScore ignored (lacking a constraint's topology key) get 0; the others
    100 * (max + min - s) / max with integer division, min over the scored
    nodes and max starting at 0; every scored node 100 when max is 0."""
    scored = {n: s for n, s in raw.items() if n not in ignored}
    lo = min(scored.values()) if scored else 0
    hi = max([0] + list(scored.values()))
    out = {}
    for n in raw:
        if n in ignored:
            out[n] = 0
        elif hi == 0:
            out[n] = MAX_NODE_SCORE
        else:
            out[n] = MAX_NODE_SCORE * (hi + lo - raw[n]) // hi
    return out


def normalize(plugin, raw, ignored=()):
    """Final scores of one plugin from its raw Score() values on the feasible
    nodes, as kube-scheduler's NormalizeScore of that plugin computes them."""
    if plugin == "InterPodAffinity":
        return interpod_normalize(raw)
    if plugin == "PodTopologySpread":
        return spread_normalize(raw, ignored)
    if plugin == "NodeAffinity":
        return default_normalize(raw, reverse=False)
    if plugin == "TaintToleration":
        return default_normalize(raw, reverse=True)
    raise ValueError(f"no NormalizeScore known for plugin {plugin!r}")


NORMALIZED_PLUGINS = ("InterPodAffinity", "PodTopologySpread", "NodeAffinity",
                      "TaintToleration")


def check_explain_case(where, case):
    """Validates an explain case's pod reference and expectations against its objects."""
    target = case["explain"]
    if not isinstance(target, str) or target.count("/") != 1:
        raise SystemExit(f"{where}: explain must be NAMESPACE/NAME, got {target!r}")
    expect = case["expect"]
    unknown = set(expect) - EXPLAIN_EXPECT_KEYS
    if unknown:
        raise SystemExit(f"{where}: unknown expect keys for an explain case {sorted(unknown)}")
    nodes = [o["metadata"]["name"] for o in case["objects"] if o.get("kind") == "Node"]
    pods = {f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}": o
            for o in case["objects"] if o.get("kind") == "Pod"}
    pod = pods.get(target)
    if pod is None:
        raise SystemExit(f"{where}: explain names {target}, which is not among the objects")
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        raise SystemExit(f"{where}: explain names {target}, which is already bound")
    if spec.get("schedulerName") != case.get("schedulerName", "volcano"):
        raise SystemExit(f"{where}: {target} has schedulerName {spec.get('schedulerName')!r}, "
                         f"the case runs as {case.get('schedulerName', 'volcano')!r}")
    feasible = expect.get("feasible")
    if feasible is not None:
        if not isinstance(feasible, list) or set(feasible) - set(nodes):
            raise SystemExit(f"{where}: feasible must list nodes of the case, got {feasible!r}")
    for node, reason in (expect.get("reasons") or {}).items():
        if node not in nodes:
            raise SystemExit(f"{where}: reasons names {node!r}, not a node of the case")
        if feasible is not None and node in feasible:
            raise SystemExit(f"{where}: {node} is both feasible and given a refusal reason")
        if not isinstance(reason, (str, list)):
            raise SystemExit(f"{where}: reason of {node} must be a string or a list")
    for plugin, per_node in (expect.get("scores") or {}).items():
        if plugin not in NORMALIZED_PLUGINS:
            raise SystemExit(f"{where}: scores for {plugin!r}: the runner knows the "
                             f"NormalizeScore of {', '.join(NORMALIZED_PLUGINS)} only")
        for node, score in (per_node or {}).items():
            if node not in nodes or (feasible is not None and node not in feasible):
                raise SystemExit(f"{where}: {plugin} score for {node!r}, not a feasible node")
            if not isinstance(score, int) or not 0 <= score <= MAX_NODE_SCORE:
                raise SystemExit(f"{where}: {plugin} score of {node} must be an integer 0..100")


def check_claims(where, case):
    """Minimal checks of a case's ResourceClaims: the claims its pods name exist
    (by resourceClaimName, or through status.resourceClaimStatuses for a
    template), and the claims its expectations name exist."""
    objs = case["objects"]
    claims = {f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"
              for o in objs if o.get("kind") == "ResourceClaim"}
    for o in objs:
        if o.get("kind") != "Pod":
            continue
        ns = o["metadata"].get("namespace", "default")
        pod = f"{ns}/{o['metadata']['name']}"
        statuses = {s.get("name"): s.get("resourceClaimName")
                    for s in (o.get("status") or {}).get("resourceClaimStatuses") or []}
        for ref in (o.get("spec") or {}).get("resourceClaims") or []:
            name = ref.get("resourceClaimName")
            if name is None and ref.get("resourceClaimTemplateName"):
                name = statuses.get(ref.get("name"))
                if name is None:
                    continue  # not generated yet: the pod waits for the resourceclaim controller
            if name is None:
                raise SystemExit(f"{where}: {pod} claim {ref.get('name')!r} names no claim or template")
            if f"{ns}/{name}" not in claims and "missing claim" not in str(case.get("note", "")):
                # A missing claim is a legitimate input (the pod must wait); such a
                # case says 'missing claim' in its note.
                raise SystemExit(f"{where}: {pod} names claim {ns}/{name}, not among the objects "
                                 "(if that is the point, say 'missing claim' in note)")
    expect = case.get("expect") or {}
    for name, want in (expect.get("claims") or {}).items():
        if name not in claims:
            raise SystemExit(f"{where}: expect.claims names {name}, not a ResourceClaim of the case")
        if not isinstance(want, dict) or set(want) - CLAIM_EXPECT_KEYS or "devices" not in want:
            raise SystemExit(f"{where}: expect.claims {name} must be {{devices, node[, config]}}")
        for d in want["devices"] or []:
            if not set(DEVICE_KEYS) <= set(d) or set(d) - set(DEVICE_KEYS) - set(OPTIONAL_DEVICE_KEYS):
                raise SystemExit(f"{where}: expect.claims {name} device {d} must have {DEVICE_KEYS}, "
                                 f"and optionally {OPTIONAL_DEVICE_KEYS}")
            check_device_extras(f"{where}: expect.claims {name} device {device_key(d)}", d)
        keys = [device_key(d) for d in want["devices"] or []]
        if len(keys) != len(set(keys)):
            raise SystemExit(f"{where}: expect.claims {name} lists a device result twice")
        if not isinstance(want.get("node", ""), str):
            raise SystemExit(f"{where}: expect.claims {name} node must be a string")
    pods = {f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"
            for o in objs if o.get("kind") == "Pod"}
    for pod, want in (expect.get("created") or {}).items():
        if pod not in pods:
            raise SystemExit(f"{where}: expect.created names {pod}, not a Pod of the case")
        if not isinstance(want, dict) or set(want) - CREATED_EXPECT_KEYS or "devices" not in want:
            raise SystemExit(f"{where}: expect.created {pod} must be {{devices, node[, config], mappings}}")
        for d in want["devices"] or []:
            if not set(DEVICE_KEYS) <= set(d) or set(d) - set(DEVICE_KEYS) - set(OPTIONAL_DEVICE_KEYS):
                raise SystemExit(f"{where}: expect.created {pod} device {d} must have {DEVICE_KEYS}")
        for m in want.get("mappings") or []:
            if not isinstance(m, dict) or set(m) != set(MAPPING_KEYS):
                raise SystemExit(f"{where}: expect.created {pod} mapping {m} must have {MAPPING_KEYS}")
    for name in expect.get("unallocated") or []:
        if name not in claims:
            raise SystemExit(f"{where}: expect.unallocated names {name}, not a ResourceClaim of the case")
        if name in (expect.get("claims") or {}):
            raise SystemExit(f"{where}: {name} is both expected allocated and unallocated")


def check_device_extras(where, d):
    """Type checks of the optional keys of an expected device result."""
    if "adminAccess" in d and not isinstance(d["adminAccess"], bool):
        raise SystemExit(f"{where}: adminAccess must be a bool")
    if "tolerations" in d and (not isinstance(d["tolerations"], list)
                               or not all(isinstance(t, dict) for t in d["tolerations"])):
        raise SystemExit(f"{where}: tolerations must be a list of tolerations")
    for key in ("bindingConditions", "bindingFailureConditions"):
        if key in d and (not isinstance(d[key], list)
                         or not all(isinstance(c, str) for c in d[key])):
            raise SystemExit(f"{where}: {key} must be a list of strings")
    if "consumedCapacity" in d:
        cap = d["consumedCapacity"]
        if not isinstance(cap, dict):
            raise SystemExit(f"{where}: consumedCapacity must be a map name -> quantity")
        for name, value in cap.items():
            try:
                parse_quantity(value)
            except ValueError as e:
                raise SystemExit(f"{where}: consumedCapacity {name}: {e}")
    if "shareID" in d and d["shareID"] != "any":
        raise SystemExit(f"{where}: shareID must be 'any' (the scheduler generates it)")


_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9,
                     "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}


def parse_quantity(value):
    """The exact value of a Kubernetes resource.Quantity string ("1Gi",
    "1073741824", "500m", "1e3") as a Fraction, so that quantities written in
    different forms compare equal. Raises ValueError for anything else."""
    text = str(value).strip()
    sign = 1
    if text[:1] in "+-":
        sign, text = (-1 if text[0] == "-" else 1), text[1:]
    i = 0
    while i < len(text) and (text[i].isdigit() or text[i] == "."):
        i += 1
    number, suffix = text[:i], text[i:]
    if not number or number == "." or number.count(".") > 1:
        raise ValueError(f"not a quantity: {value!r}")
    base = fractions.Fraction(number)
    if suffix in _BINARY_SUFFIXES:
        return sign * base * (1024 ** _BINARY_SUFFIXES[suffix])
    if suffix in _DECIMAL_SUFFIXES:
        return sign * base * fractions.Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
    if suffix[:1] in ("e", "E"):
        try:
            return sign * base * fractions.Fraction(10) ** int(suffix[1:])
        except ValueError:
            pass
    raise ValueError(f"not a quantity: {value!r}")


def load_cases(paths):
    cases = []
    for path in paths:
        with open(path) as f:
            data = yaml.safe_load(f) or []
        if not isinstance(data, list):
            raise SystemExit(f"{path}: must be a list of cases")
        for i, case in enumerate(data):
            where = f"{os.path.basename(path)}[{i}]"
            unknown = set(case) - CASE_KEYS
            if unknown:
                raise SystemExit(f"{where}: unknown keys {sorted(unknown)}")
            for key in ("name", "source"):
                if not case.get(key):
                    raise SystemExit(f"{where}: {key} is required")
            if "skip" not in case:
                for key in ("objects", "expect"):
                    if key not in case:
                        raise SystemExit(f"{where} ({case['name']}): {key} is required")
                if not case["expect"]:
                    raise SystemExit(f"{where}: expect checks nothing")
                if "explain" in case:
                    check_explain_case(f"{where} ({case['name']})", case)
                else:
                    unknown = set(case["expect"]) - EXPECT_KEYS
                    if unknown:
                        raise SystemExit(f"{where}: unknown expect keys {sorted(unknown)}")
                check_claims(f"{where} ({case['name']})", case)
            case["_file"] = os.path.basename(path)
            cases.append(case)
    return cases


def run_shoal(binary, case, workdir):
    snapshot = os.path.join(workdir, "snapshot.yaml")
    conf = os.path.join(workdir, "policy.yaml")
    with open(snapshot, "w") as f:
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": case["objects"]}, f)
    cmd = [binary, f"--snapshot={snapshot}",
           f"--scheduler-name={case.get('schedulerName', 'volcano')}"]
    if "policy" in case:
        with open(conf, "w") as f:
            f.write(case["policy"])
        cmd.append(f"--scheduler-conf={conf}")
    # Without a policy the binary's built-in default (policies/default.yaml) runs.
    if "explain" in case:
        cmd += [f"--explain={case['explain']}", "--output=json"]
    else:
        cmd += ["--cycles=1", "--output=json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return None, f"shoal-scheduler exited {proc.returncode}: {proc.stderr.strip()}"
    try:
        report = json.loads(proc.stdout)
    except ValueError as e:
        return None, f"output is not JSON ({e}): {proc.stdout[:500]}"
    return report, None


def compare(expect, report):
    """Returns a list of human-readable differences (empty when it matches)."""
    cycle = (report.get("cycles") or [{}])[0]
    binds = {b["pod"]: b.get("node", "") for b in cycle.get("binds", [])}
    evicted = sorted(e["pod"] for e in cycle.get("evictions", []))
    phases = {g["name"]: g.get("phase", "") for g in cycle.get("podGroups", [])}
    diffs = []
    if "binds" in expect:
        want = expect["binds"] or {}
        if want != binds:
            for pod in sorted(set(want) | set(binds)):
                if want.get(pod) != binds.get(pod):
                    diffs.append(f"bind {pod}: expected {want.get(pod, '(none)')}, "
                                 f"got {binds.get(pod, '(none)')}")
    if "bindCount" in expect and expect["bindCount"] != len(binds):
        diffs.append(f"bind count: expected {expect['bindCount']}, got {len(binds)} "
                     f"{sorted(binds.items())}")
    if "evicted" in expect:
        want = sorted(expect["evicted"] or [])
        if want != evicted:
            diffs.append(f"evicted: expected {want}, got {evicted}")
    if "evictCount" in expect and expect["evictCount"] != len(evicted):
        diffs.append(f"evict count: expected {expect['evictCount']}, got {len(evicted)} "
                     f"{evicted}")
    for group, phase in (expect.get("phases") or {}).items():
        if phases.get(group) != phase:
            diffs.append(f"phase {group}: expected {phase}, got {phases.get(group, '(absent)')}")
    diffs += compare_claims(expect, cycle)
    return diffs


def device_key(d):
    return tuple(str(d.get(k, "")) for k in DEVICE_KEYS)


def compare_claims(expect, cycle):
    """The claim allocations of one cycle against `claims` and `unallocated`.
    A claim's devices compare as a sorted list: kube-scheduler's allocator
    tests match results with ConsistOf, order irrelevant. `node` compares
    exactly ('' for an allocation no single node is pinned by); `config`, where
    expected, as a list in order (class configurations, then the claim's)."""
    got = {}
    for c in cycle.get("claims") or []:
        if "created" in expect and c.get("created"):
            continue  # compared under `created`
        got[c.get("claim")] = c
    diffs = []
    if "created" in expect:
        diffs += compare_created(expect["created"] or {}, cycle)
    if "claims" in expect:
        want_all = expect["claims"] or {}
        for name in sorted(set(want_all) | set(got)):
            want, have = want_all.get(name), got.get(name)
            if want is None:
                diffs.append(f"claim {name}: allocated {sorted(device_key(d) for d in have.get('devices') or [])}"
                             f" on {have.get('node', '')!r}, expected no allocation")
                continue
            if have is None:
                diffs.append(f"claim {name}: expected allocation {[device_key(d) for d in want['devices']]}, "
                             "got none")
                continue
            w = sorted(device_key(d) for d in want.get("devices") or [])
            h = sorted(device_key(d) for d in have.get("devices") or [])
            if w != h:
                diffs.append(f"claim {name}: devices expected {w}, got {h}")
            else:
                got_devices = {device_key(d): d for d in have.get("devices") or []}
                for d in want.get("devices") or []:
                    diffs += compare_device_extras(f"claim {name} device {'/'.join(device_key(d))}",
                                                   d, got_devices[device_key(d)])
            if want.get("node", "") != (have.get("node") or ""):
                diffs.append(f"claim {name}: node expected {want.get('node', '')!r}, got {have.get('node')!r}")
            if "config" in want and (want["config"] or []) != (have.get("config") or []):
                diffs.append(f"claim {name}: config expected {want['config']}, got {have.get('config')}")
    for name in expect.get("unallocated") or []:
        if name in got:
            diffs.append(f"claim {name}: expected unallocated, got "
                         f"{sorted(device_key(d) for d in got[name].get('devices') or [])}")
    return diffs


def compare_created(want_all, cycle):
    """The claims the cycle creates against `created` {NS/POD: {devices, node,
    [config,] mappings}}, exact, keyed by the pod each is made for (`pod` of the
    cycle's claim): the generated name's form, then what `claims` compares, then
    the pod's request mappings as a sorted list."""
    got = {}
    for c in cycle.get("claims") or []:
        if c.get("created"):
            got.setdefault(c.get("pod"), []).append(c)
    diffs = []
    for pod in sorted(set(want_all) | set(got)):
        want, have = want_all.get(pod), got.get(pod) or []
        if want is None:
            diffs.append(f"created for {pod}: {[c.get('claim') for c in have]}, expected none")
            continue
        if len(have) != 1:
            diffs.append(f"created for {pod}: expected one claim, got {[c.get('claim') for c in have]}")
            continue
        (have,) = have
        ns, name = pod.split("/", 1)
        base = f"{name}-extended-resources-"[:58]
        claim = have.get("claim") or ""
        if not (claim.startswith(f"{ns}/{base}") and
                GENERATED_SUFFIX.fullmatch(claim[len(ns) + 1 + len(base):])):
            diffs.append(f"created for {pod}: name {claim!r} is not {ns}/{base}xxxxx")
        diffs += [f"created for {pod}: {d}" for d in
                  compare_claims({"claims": {claim: {k: v for k, v in want.items() if k != "mappings"}}},
                                 {"claims": [dict(have, created=False)]})]
        if "mappings" in want:
            w = sorted(tuple(m[k] for k in MAPPING_KEYS) for m in want["mappings"] or [])
            h = sorted(tuple(m.get(k, "") for k in MAPPING_KEYS) for m in have.get("mappings") or [])
            if w != h:
                diffs.append(f"created for {pod}: mappings expected {w}, got {h}")
    return diffs


def _toleration(t):
    """A toleration without empty fields; tolerationSeconds as a number."""
    out = {k: v for k, v in (t or {}).items() if v not in (None, "")}
    if "tolerationSeconds" in out:
        out["tolerationSeconds"] = int(out["tolerationSeconds"])
    return out


def compare_device_extras(where, want, have):
    """Differences in the optional keys an expected device result carries; keys
    it leaves out are not compared. An absent result key counts as its empty
    value (adminAccess false, no tolerations, conditions or consumed capacity)."""
    diffs = []
    if "adminAccess" in want and want["adminAccess"] != bool(have.get("adminAccess", False)):
        diffs.append(f"{where}: adminAccess expected {want['adminAccess']}, got {have.get('adminAccess')}")
    if "tolerations" in want:
        w = [_toleration(t) for t in want["tolerations"] or []]
        h = [_toleration(t) for t in have.get("tolerations") or []]
        if w != h:
            diffs.append(f"{where}: tolerations expected {w}, got {h}")
    for key in ("bindingConditions", "bindingFailureConditions"):
        if key in want and list(want[key] or []) != list(have.get(key) or []):
            diffs.append(f"{where}: {key} expected {want[key]}, got {have.get(key)}")
    if "consumedCapacity" in want:
        w = want["consumedCapacity"] or {}
        h = have.get("consumedCapacity") or {}
        same = set(w) == set(h)
        if same:
            try:
                same = all(parse_quantity(w[k]) == parse_quantity(h[k]) for k in w)
            except ValueError:
                same = False
        if not same:
            diffs.append(f"{where}: consumedCapacity expected {w}, got {h}")
    if "shareID" in want and not have.get("shareID"):
        diffs.append(f"{where}: expected a shareID, got none")
    return diffs


def compare_explain(expect, report):
    """Differences between an explain case's expectations and Shoal's answer."""
    diffs = []
    entries = {}
    for entry in report.get("nodes") or []:
        entries[entry.get("node")] = entry
    feasible = sorted(n for n, e in entries.items() if e.get("feasible"))
    if "feasible" in expect:
        want = sorted(expect["feasible"] or [])
        if want != feasible:
            diffs.append(f"feasible: expected {want}, got {feasible}")
    for node, want in (expect.get("reasons") or {}).items():
        entry = entries.get(node)
        if entry is None:
            diffs.append(f"reasons {node}: node absent from the answer")
            continue
        got = entry.get("reasons") or []
        want_list = [want] if isinstance(want, str) else list(want)
        if entry.get("feasible"):
            diffs.append(f"reasons {node}: expected refusal {want_list}, but it is feasible")
        elif got != want_list:
            diffs.append(f"reasons {node}: expected {want_list}, got {got}")
    for plugin, want in (expect.get("scores") or {}).items():
        raw, ignored, missing = {}, set(), []
        for node in feasible:
            entry = entries[node]
            scores = entry.get("scores") or {}
            if plugin in (entry.get("ignored") or []):
                ignored.add(node)
                raw[node] = 0
            elif plugin in scores:
                value = scores[plugin]
                if not isinstance(value, (int, float)) or value != int(value):
                    diffs.append(f"scores {plugin} {node}: raw score {value!r} is not an integer "
                                 "(kube-scheduler's Score returns int64)")
                    value = 0
                raw[node] = int(value)
            else:
                missing.append(node)
        if missing and len(missing) == len(feasible):
            # No feasible node has a score from the plugin: its PreScore said Skip,
            # so kube-scheduler runs neither Score nor NormalizeScore and the plugin
            # adds 0 to every node.
            final = {n: 0 for n in feasible}
        else:
            if missing and plugin == "PodTopologySpread":
                # A node PreScore ignored (it lacks a constraint's topology key).
                ignored.update(missing)
                raw.update({n: 0 for n in missing})
            elif missing:
                diffs.append(f"scores {plugin}: no raw score on feasible nodes {missing}")
                raw.update({n: 0 for n in missing})
            final = normalize(plugin, raw, ignored)
        for node, score in sorted((want or {}).items()):
            if node not in final:
                diffs.append(f"scores {plugin} {node}: expected {score}, node is not feasible")
            elif final[node] != score:
                diffs.append(f"scores {plugin} {node}: expected {score}, got {final[node]} "
                             f"(raw {raw.get(node)}; raw on feasible nodes {raw})")
    if "unavailable" in expect and expect["unavailable"] != report.get("available"):
        diffs.append(f"available: expected {expect['unavailable']!r}, "
                     f"got {report.get('available')!r}")
    return diffs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.environ.get("SHOAL_SCHEDULER", ""))
    parser.add_argument("--filter", default="")
    parser.add_argument("--check-only", action="store_true",
                        help="load and validate the cases, run nothing")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "volcano", "*.yaml")) +
                                 glob.glob(os.path.join(HERE, "kai", "*.yaml")) +
                                 glob.glob(os.path.join(HERE, "kube-scheduler", "*.yaml")))
    cases = [c for c in load_cases(files)
             if args.filter in f"{c['_file']} {c['name']} {c['source']}"]
    if args.check_only:
        per_file = collections.Counter(c["_file"] for c in cases)
        skipped = collections.Counter(c["_file"] for c in cases if "skip" in c)
        for name in sorted(per_file):
            print(f"{name}: {per_file[name]} cases, {skipped[name]} skipped")
        print(f"{len(cases)} cases valid")
        return 0
    if not args.binary:
        raise SystemExit("set SHOAL_SCHEDULER or pass --binary")

    passed, departures, failed = 0, 0, []
    skipped = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as workdir:
        for case in cases:
            label = f"{case['_file']}: {case['name']}"
            if "skip" in case:
                skipped[case["skip"]].append(label)
                print(f"SKIP {label}: {case['skip']}")
                continue
            report, error = run_shoal(args.binary, case, workdir)
            if error:
                diffs = [error]
            elif "explain" in case:
                diffs = compare_explain(case["expect"], report)
            else:
                diffs = compare(case["expect"], report)
            if diffs:
                failed.append(label)
                print(f"FAIL {label}\n     source: {case['source']}")
                for d in diffs:
                    print(f"     - {d}")
                for g in ((report or {}).get("cycles") or [{}])[0].get("podGroups", []):
                    if g.get("message"):
                        print(f"     shoal says {g['name']} ({g.get('phase')}): {g['message']}")
            else:
                passed += 1
                tag = " (departure)" if "departure" in case else ""
                if tag:
                    departures += 1
                print(f"PASS {label}{tag}")

    carried = len(cases) - sum(len(v) for v in skipped.values())
    print()
    print(f"carried {carried}, passed {passed} (of which departures {departures}), "
          f"skipped {sum(len(v) for v in skipped.values())}, failed {len(failed)}")
    for reason, labels in sorted(skipped.items()):
        print(f"  skipped {len(labels)}: {reason}")
    for label in failed:
        print(f"  failed: {label}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
