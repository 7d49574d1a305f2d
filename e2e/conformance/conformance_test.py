#!/usr/bin/env python3
"""Runs peers' scheduler test tables, carried as data (Volcano's in
volcano/*.yaml, kube-scheduler's in kube-scheduler/*.yaml), against the
real shoal-scheduler binary in snapshot-replay mode.

Each case is one scheduling cycle: its objects become a snapshot file, its
policy a scheduler configuration, and the binds, evictions and PodGroup
phases Shoal reports are compared with the case's `expect`.

Usage: conformance_test.py [--binary PATH] [--filter SUBSTRING] [FILE.yaml ...]
Exit status: 0 when every case that is not skipped passes, 1 otherwise.
"""

import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_KEYS = {"name", "source", "policy", "objects", "expect", "departure",
             "skip", "schedulerName", "note"}
EXPECT_KEYS = {"binds", "bindCount", "evicted", "evictCount", "phases"}


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
                for key in ("policy", "objects", "expect"):
                    if key not in case:
                        raise SystemExit(f"{where} ({case['name']}): {key} is required")
                unknown = set(case["expect"]) - EXPECT_KEYS
                if unknown:
                    raise SystemExit(f"{where}: unknown expect keys {sorted(unknown)}")
                if not case["expect"]:
                    raise SystemExit(f"{where}: expect checks nothing")
            case["_file"] = os.path.basename(path)
            cases.append(case)
    return cases


def run_shoal(binary, case, workdir):
    snapshot = os.path.join(workdir, "snapshot.yaml")
    conf = os.path.join(workdir, "policy.yaml")
    with open(snapshot, "w") as f:
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": case["objects"]}, f)
    with open(conf, "w") as f:
        f.write(case["policy"])
    cmd = [binary, f"--snapshot={snapshot}", f"--scheduler-conf={conf}",
           "--cycles=1", "--output=json",
           f"--scheduler-name={case.get('schedulerName', 'volcano')}"]
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
    return diffs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.environ.get("SHOAL_SCHEDULER", ""))
    parser.add_argument("--filter", default="")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if not args.binary:
        raise SystemExit("set SHOAL_SCHEDULER or pass --binary")
    files = args.files or sorted(glob.glob(os.path.join(HERE, "volcano", "*.yaml")) +
                                 glob.glob(os.path.join(HERE, "kube-scheduler", "*.yaml")))
    cases = [c for c in load_cases(files)
             if args.filter in f"{c['_file']} {c['name']} {c['source']}"]

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
            diffs = [error] if error else compare(case["expect"], report)
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
