#!/usr/bin/env python3
"""Replays Pollux's benchmark (OSDI '21; tools/simulator/traces/pollux-osdi21)
with Shoal's scheduler under several policies and prints the table the paper
compares schedulers by: over the 8 workloads at job load 1.0, the mean of
each workload's average job completion time, p95, makespan and restarts per
job, beside the paper's Tiresias, Optimus and Pollux.

    bazel build -c opt //tools/simulator:shoal-sim
    python3 tools/simulator/pollux_table.py [--out=out/pollux] [--workloads=1,2,...]
        [--policies=rigid-fifo,elastic-even,...] [--parallel=2]

Runs bazel-bin/tools/simulator/shoal-sim once per workload and policy into
OUT/workload-N/<policy>/ (summary.json, trace-jobs.csv, ...), draws each
workload's plots there (trace.png: JCT CDF and GPUs held over time, per
policy), writes OUT/table.md and OUT/jct-cdf.png (plot.py --pooled: every
workload's jobs pooled, per policy). A policy whose file does not exist yet is skipped and
said so.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

SCENARIO = "tools/simulator/scenarios/pollux.yaml"
WORKLOADS = "tools/simulator/traces/pollux-osdi21/workloads/workload-%d.csv"

# name -> (shoal-sim arguments, policy file that must exist, what it is)
POLICIES = [
    ("rigid-fifo", ["--rigid", "--policy=policies/default.yaml"], "policies/default.yaml",
     "rigid, each job at its num_replicas; policies/default.yaml (gangs; DRF job order, backfill, reservation)"),
    ("rigid-fifo-strict", ["--rigid", "--policy=policies/fifo-gang.yaml"], "policies/fifo-gang.yaml",
     "rigid; policies/fifo-gang.yaml (strict arrival order: a gang that does not fit blocks those behind)"),
    ("rigid-las", ["--rigid", "--policy=tools/simulator/policies/tiresias-las.yaml"],
     "tools/simulator/policies/tiresias-las.yaml",
     "rigid; least attained service, Tiresias' 2 queues"),
    ("elastic-even", ["--policy=policies/elastic.yaml"], "policies/elastic.yaml",
     "elastic (min 1, at most its num_replicas), share: even; 30 s resize cost on each PodGroup"),
    ("elastic-even-untold", ["--policy=policies/elastic.yaml", "--resize-cost=0s"], "policies/elastic.yaml",
     "as elastic-even, the PodGroups saying resizes are free (the model still charges 30 s)"),
    ("elastic-oldest-first", ["--policy=tools/simulator/policies/elastic-oldest-first.yaml"],
     "tools/simulator/policies/elastic-oldest-first.yaml", "elastic, share: oldest-first"),
    ("elastic-throughput", ["--policy=policies/elastic-throughput.yaml"], "policies/elastic-throughput.yaml",
     "elastic, share: throughput (marginal gain by each job's curve)"),
    ("elastic-las", ["--policy=tools/simulator/policies/elastic-las.yaml"],
     "tools/simulator/policies/elastic-las.yaml",
     "elastic, share: job-order under las: minimums first, then the room in least-attained-service order"),
    ("elastic-throughput-learned", ["--policy=policies/elastic-throughput.yaml", "--trace-curves=learned"],
     "policies/elastic-throughput.yaml",
     "as elastic-throughput, no curve declared: each job reports its iterations (shoal.dev/progress) and the curve is learned"),
    ("elastic-las-learned", ["--policy=tools/simulator/policies/elastic-las.yaml", "--trace-curves=learned"],
     "tools/simulator/policies/elastic-las.yaml",
     "as elastic-las, curves learned from the jobs' progress reports instead of declared"),
    ("elastic-las-batch", ["--policy=tools/simulator/policies/elastic-las.yaml", "--trace-elastic-most=batch"],
     "tools/simulator/policies/elastic-las.yaml",
     "as elastic-las, each job up to as wide as its batch splits (--trace-elastic-most=batch) instead of its num_replicas"),
]

# Mean over the 8 workloads of the average JCT, hours (the artifact's
# results-jobload/*-1.0/summary.json; traces/pollux-osdi21/README.md).
PAPER = [("Tiresias (+TunedJobs), paper", 1.122), ("Optimus (+Oracle), paper", 1.578), ("Pollux, paper", 0.764)]


def run(binary, workload, name, args, out):
    cmd = [binary, "--scenario=" + SCENARIO, "--trace=" + WORKLOADS % workload, "--label=" + name,
           "--out=" + out, "--noplot"] + args
    start = time.time()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), done.stderr))
    return workload, name, time.time() - start


def metrics(path):
    with open(os.path.join(path, "summary.json")) as f:
        s = json.load(f)
    return {
        "completed": s["jobs"]["completed"],
        "submitted": s["jobs"]["submitted"],
        "jct": s["jobs"]["jctMeanSeconds"] / 3600,
        "p95": s["jobs"]["jctP95Seconds"] / 3600,
        "makespan": s["jobs"]["makespanSeconds"] / 3600,
        "restarts": s["trace"]["restartsPerJob"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="out/pollux")
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--policies", default=",".join(p[0] for p in POLICIES))
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--binary", default="bazel-bin/tools/simulator/shoal-sim")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args()
    if os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        os.chdir(os.environ["BUILD_WORKSPACE_DIRECTORY"])
    if not os.path.exists(a.binary):
        sys.exit("%s: missing; bazel build -c opt //tools/simulator:shoal-sim" % a.binary)
    workloads = [int(w) for w in a.workloads.split(",")]
    wanted = a.policies.split(",")
    policies = []
    for name, args, needs, what in POLICIES:
        if name not in wanted:
            continue
        if not os.path.exists(needs):
            print("skipped %s: %s does not exist" % (name, needs))
            continue
        policies.append((name, args, what))
    tasks = [(w, name, args) for w in workloads for name, args, _ in policies]
    seconds = {}
    with ThreadPoolExecutor(max_workers=a.parallel) as pool:
        futures = [pool.submit(run, a.binary, w, name, args, os.path.join(a.out, "workload-%d" % w))
                   for w, name, args in tasks]
        for f in futures:
            w, name, s = f.result()
            seconds.setdefault(name, []).append(s)
            print("workload-%d %-22s %5.1f s" % (w, name, s), flush=True)

    keys = ["jct", "p95", "makespan", "restarts"]
    lines = ["| policy | avg JCT (h) | p95 JCT (h) | makespan (h) | restarts/job | completed | run (s, mean) |",
             "|---|---|---|---|---|---|---|"]
    for name, _, _ in policies:
        ms = [metrics(os.path.join(a.out, "workload-%d" % w, name)) for w in workloads]
        mean = {k: sum(m[k] for m in ms) / len(ms) for k in keys}
        done = "%d/%d" % (sum(m["completed"] for m in ms), sum(m["submitted"] for m in ms))
        lines.append("| %s | %.3f | %.3f | %.2f | %.2f | %s | %.1f |" % (
            name, mean["jct"], mean["p95"], mean["makespan"], mean["restarts"], done,
            sum(seconds[name]) / len(seconds[name])))
    for name, jct in PAPER:
        lines.append("| %s | %.3f | | | | | |" % (name, jct))
    header = "Mean over workloads %s (load 1.0) of each workload's figures:" % a.workloads
    table = "\n".join([header, ""] + lines + [""] + ["- %s: %s" % (n, w) for n, _, w in policies])
    print(table)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table + "\n")
    if a.no_plots:
        return
    # The python with matplotlib, as shoal-sim looks for it.
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.py")
    for w in workloads:
        subprocess.run([python, plot, os.path.join(a.out, "workload-%d" % w)], stdout=subprocess.DEVNULL, check=True)
    subprocess.run([python, plot, "--pooled", a.out], check=True)
    print("plots per workload: %s/workload-N/trace.png (JCT CDF, GPUs held over time)" % a.out)


if __name__ == "__main__":
    main()
