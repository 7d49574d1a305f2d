"""Draws the simulator's plots from DIR/<run>/timeseries.csv and
jobs.csv: what a person looks at first. Every run found in DIR (elastic, rigid, or the
--label of each) is drawn side by side. Prints the paths of the PNGs it
wrote."""

import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def wait_bars(ax, summaries, modes, colors, workloads, stat, title):
    """Bars of each workload's wait statistic `stat` (seconds) per mode,
    in minutes, each bar labelled in seconds."""
    width = 0.8 / len(modes)
    for k, m in enumerate(modes):
        w = summaries[m].get("workloads", {})
        values = [w.get(name, {}).get(stat, 0) / 60 for name in workloads]
        bars = ax.bar([j + k * width for j in range(len(workloads))], values, width, color=colors[m], label=m)
        for b, name in zip(bars, workloads):
            ax.annotate("%.0fs" % w.get(name, {}).get(stat, 0), (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=6)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(workloads))])
    ax.set_xticklabels(workloads, fontsize=8, rotation=20)
    ax.set_ylabel("minutes")
    ax.set_title("Wait for a job's minimum, %s" % title)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    cols = {k: [] for k in rows[0]} if rows else {}
    for r in rows:
        for k, v in r.items():
            cols[k].append(float(v) if v not in ("", None) else float("nan"))
    return cols


def runs_in(out):
    """elastic and rigid first, then any other run (a --label) by name."""
    found = sorted(d for d in os.listdir(out) if os.path.exists(os.path.join(out, d, "timeseries.csv")))
    first = [m for m in ("elastic", "rigid") if m in found]
    return first + [m for m in found if m not in first]


def weighted_shares(out, mode):
    try:
        with open(os.path.join(out, mode, "summary.json")) as f:
            queues = json.load(f).get("queues", {})
    except (OSError, ValueError):
        return {}
    return {q: v.get("weightedShare") for q, v in queues.items()}


def queue_plot(out, modes, data):
    """Each queue's share of the cluster over time, stacked, a panel per
    run. Drawn when the scenario has two queues or more."""
    queues = sorted({k[6:] for m in modes for k in data[m] if k.startswith("queue_")})
    if len(queues) < 2:
        return None
    fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4), sharey=True, squeeze=False)
    for ax, m in zip(axes[0], modes):
        t = [s / 60 for s in data[m]["second"]]
        shares = weighted_shares(out, m)
        zero = [0.0] * len(t)
        ax.stackplot(t, [[100 * v for v in data[m].get("queue_" + q, zero)] for q in queues],
                     labels=["%s (share %.0f%%)" % (q, 100 * shares[q]) if shares.get(q) is not None else q
                             for q in queues],
                     colors=["C%d" % i for i in range(len(queues))], step="post", alpha=0.85)
        ax.set_title("%s: the cluster by queue" % m)
        ax.set_xlabel("simulated minutes")
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[0][0].set_ylabel("held, % of cluster (dominant resource)")
    fig.tight_layout()
    path = os.path.join(out, "queues.png")
    fig.savefig(path, dpi=110)
    return path


def load_jobs(out, mode):
    """DIR/<run>/jobs.csv as a list of dicts, or [] for a run without one."""
    try:
        with open(os.path.join(out, mode, "jobs.csv")) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def jct_plot(out, modes, colors):
    """Job completion times: their distribution (one line per run) and the
    mean per workload, runs side by side. Drawn when runs have jobs.csv."""
    jobs = {m: load_jobs(out, m) for m in modes}
    done = {m: [j for j in jobs[m] if j["jct"] != ""] for m in modes}
    if not any(done.values()):
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for m in modes:
        jct = sorted(int(j["jct"]) / 60 for j in done[m])
        if not jct:
            continue
        left.step(jct, [100 * (i + 1) / len(jct) for i in range(len(jct))], where="post",
                  color=colors[m], label="%s (%d of %d done)" % (m, len(jct), len(jobs[m])))
    left.set_xlabel("job completion time, minutes (arrival to done)")
    left.set_ylabel("% of completed jobs")
    left.set_title("Completion time, cumulative")
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="lower right")
    workloads = []
    for m in modes:
        for j in jobs[m]:
            if j["workload"] not in workloads:
                workloads.append(j["workload"])
    width = 0.8 / len(modes)
    for i, m in enumerate(modes):
        means = []
        for w in workloads:
            jct = [int(j["jct"]) / 60 for j in done[m] if j["workload"] == w]
            means.append(sum(jct) / len(jct) if jct else 0)
        right.bar([k + i * width for k in range(len(workloads))], means, width, color=colors[m], label=m)
    right.set_xticks([k + 0.4 - width / 2 for k in range(len(workloads))])
    right.set_xticklabels(workloads, fontsize=8, rotation=20)
    right.set_ylabel("mean completion time, minutes")
    right.set_title("Completion time by workload")
    right.grid(alpha=0.3, axis="y")
    right.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "jct.png")
    fig.savefig(path, dpi=110)
    return path


def network_plot(out, modes, data, colors):
    """With a network: how many racks are whole over time, and the GPUs
    held against the work they do (held discounted by the slowdown of the
    job holding them). Drawn when the runs' series have racks_whole."""
    modes = [m for m in modes if "racks_whole" in data[m]]
    if not modes:
        return None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        top.plot(t, data[m]["racks_whole"], color=colors[m], label=m, linewidth=0.8)
        util = [k for k in data[m] if k.startswith("util_")]
        key = next((k for k in util if k not in ("util_cpu", "util_memory")), "util_cpu")
        bottom.plot(t, [100 * v for v in data[m][key]], ":", color=colors[m], label="%s held" % m)
        eff = "effective_" + key[5:]
        if eff in data[m]:
            bottom.plot(t, [100 * v for v in data[m][eff]], "-", color=colors[m],
                        label="%s effective" % m)
    top.set_ylabel("racks with no pod running")
    top.grid(alpha=0.3)
    top.legend(fontsize=8, loc="upper right")
    bottom.set_ylabel("%s, %% of allocatable" % key[5:])
    bottom.set_ylim(0, 105)
    bottom.set_xlabel("simulated minutes")
    bottom.grid(alpha=0.3)
    bottom.legend(fontsize=8, loc="upper right")
    fig.suptitle("Whole racks, and GPUs held against the work they do")
    fig.tight_layout()
    path = os.path.join(out, "network.png")
    fig.savefig(path, dpi=110)
    return path


def resizes_plot(out, modes, colors):
    """How often running jobs changed size and what their restarts cost,
    runs side by side. Drawn when some run resized a job."""
    jobs = {m: load_jobs(out, m) for m in modes}
    counts = {m: sorted((int(j.get("resizes") or 0) for j in jobs[m]), reverse=True) for m in modes}
    if not any(any(c) for c in counts.values()):
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    for m in modes:
        if counts[m]:
            left.step(range(1, len(counts[m]) + 1), counts[m], where="mid", color=colors[m],
                      label="%s (%d in all)" % (m, sum(counts[m])))
    left.set_xlabel("jobs, most resized first")
    left.set_ylabel("resizes of the job")
    left.set_title("Resizes per job")
    left.grid(alpha=0.3)
    left.legend(fontsize=8)
    lost = [sum(float(j.get("restart_seconds") or 0) for j in jobs[m]) / 60 for m in modes]
    right.bar(range(len(modes)), lost, color=[colors[m] for m in modes])
    right.set_xticks(range(len(modes)))
    right.set_xticklabels(modes, fontsize=8)
    right.set_ylabel("job-minutes restarting")
    right.set_title("Progress lost to restarts")
    right.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    path = os.path.join(out, "resizes.png")
    fig.savefig(path, dpi=110)
    return path


def load_summary(out, mode):
    try:
        with open(os.path.join(out, mode, "summary.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def gpu_plot(out, modes, data, colors):
    """With GPUs published through DRA: GPU memory allocated and GPUs busy
    over time (one colour per run, e.g. shared and whole GPUs), and each
    workload's wait for its minimum, mean and p95, runs side by side.
    Drawn when the runs' series have gpus_busy."""
    modes = [m for m in modes if "gpus_busy" in data[m]]
    if not modes:
        return None
    fig = plt.figure(figsize=(11, 8))
    top = fig.add_subplot(2, 1, 1)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        top.plot(t, [100 * v for v in data[m]["gpu_memory_allocated"]], "-", color=colors[m],
                 label="%s: GPU memory allocated" % m, linewidth=0.9)
        top.plot(t, [100 * v for v in data[m]["gpus_busy"]], ":", color=colors[m],
                 label="%s: GPUs busy" % m, linewidth=0.9)
        if data[m]["gpu_memory_asked"] != data[m]["gpu_memory_allocated"]:
            top.plot(t, [100 * v for v in data[m]["gpu_memory_asked"]], "--", color=colors[m],
                     label="%s: GPU memory pods asked" % m, linewidth=0.7, alpha=0.7)
    top.set_ylabel("% of all GPUs / GPU memory")
    top.set_xlabel("simulated minutes")
    top.set_ylim(0, 105)
    top.grid(alpha=0.3)
    top.legend(fontsize=7, loc="upper right")
    top.set_title("GPU use over time")
    summaries = {m: load_summary(out, m) for m in modes}
    workloads = []
    for m in modes:
        for w in summaries[m].get("workloads", {}):
            if w not in workloads:
                workloads.append(w)
    for i, (stat, title) in enumerate((("waitMeanSeconds", "mean"), ("waitP95Seconds", "p95"))):
        wait_bars(fig.add_subplot(2, 2, 3 + i), summaries, modes, colors, workloads, stat, title)
    fig.tight_layout()
    path = os.path.join(out, "gpu-sharing.png")
    fig.savefig(path, dpi=110)
    return path


def with_without_plot(out, modes, data, colors):
    """Two runs or more of one scenario under different policies (e.g.
    with and without consolidate or preempt): each workload's wait for its
    minimum, median and p90, runs side by side; GPU utilization over time;
    and evictions so far, by reason in the legend. Drawn when there are
    two runs or more and their summaries have the median wait."""
    summaries = {m: load_summary(out, m) for m in modes}
    modes = [m for m in modes if any("waitMedianSeconds" in w for w in summaries[m].get("workloads", {}).values())]
    if len(modes) < 2:
        return None
    workloads = []
    for m in modes:
        for w in summaries[m].get("workloads", {}):
            if w not in workloads:
                workloads.append(w)
    fig = plt.figure(figsize=(12, 8))
    for i, (stat, title) in enumerate((("waitMedianSeconds", "median"), ("waitP90Seconds", "p90"))):
        wait_bars(fig.add_subplot(2, 2, 1 + i), summaries, modes, colors, workloads, stat, title)
    util = fig.add_subplot(2, 2, 3)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        keys = [k for k in data[m] if k.startswith("util_") and k not in ("util_cpu", "util_memory")]
        key = "gpus_busy" if "gpus_busy" in data[m] else (keys[0] if keys else "util_cpu")
        name = "GPUs busy" if key == "gpus_busy" else key[5:]
        mean = summaries[m].get("gpus", {}).get("busy", {}).get("mean") if key == "gpus_busy" else \
            summaries[m].get("utilization", {}).get(key[5:], {}).get("mean")
        util.plot(t, [100 * v for v in data[m][key]], color=colors[m], linewidth=0.8,
                  label="%s: %s (mean %.1f%%)" % (m, name, 100 * (mean or 0)))
    util.set_ylabel("% of allocatable")
    util.set_xlabel("simulated minutes")
    util.set_ylim(0, 105)
    util.grid(alpha=0.3)
    util.legend(fontsize=7, loc="lower right")
    util.set_title("Utilization")
    ev = fig.add_subplot(2, 2, 4)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        reasons = summaries[m].get("evictionsByReason", {})
        why = ", ".join("%s %d" % (r, n) for r, n in reasons.items()) or "none"
        ev.step(t, data[m]["evictions"], where="post", color=colors[m], label="%s (%s)" % (m, why))
    ev.set_ylabel("evictions so far")
    ev.set_xlabel("simulated minutes")
    ev.grid(alpha=0.3)
    ev.legend(fontsize=7, loc="upper left")
    ev.set_title("Evictions (moves are consolidate's)")
    fig.tight_layout()
    path = os.path.join(out, "with-without.png")
    print_comparison(modes, summaries, workloads, data)
    fig.savefig(path, dpi=110)
    return path


def gpu_key(series):
    """The column of GPU use in a run's series: DRA GPUs busy, else the
    first extended resource's utilization, else cpu's."""
    if "gpus_busy" in series:
        return "gpus_busy"
    keys = [k for k in series if k.startswith("util_") and k not in ("util_cpu", "util_memory")]
    return keys[0] if keys else "util_cpu"


def print_comparison(modes, summaries, workloads, data):
    """The runs' waits, GPU use and evictions by reason side by side, as
    with-without.png draws them. Mean GPU use over the whole run is the
    same whenever every run does all the work; while jobs wait, it shows
    whether GPUs sat idle that could have run them."""
    rows = []
    for w in workloads:
        rows.append(("%s wait median / p90 s" % w,
                     ["%.0f / %.0f" % (summaries[m].get("workloads", {}).get(w, {}).get("waitMedianSeconds", 0),
                                       summaries[m].get("workloads", {}).get(w, {}).get("waitP90Seconds", 0))
                      if w in summaries[m].get("workloads", {}) else "-" for m in modes]))
        rows.append(("%s done / submitted" % w,
                     ["%d / %d" % (summaries[m]["workloads"][w]["completed"], summaries[m]["workloads"][w]["submitted"])
                      if w in summaries[m].get("workloads", {}) else "-" for m in modes]))
    for m in modes:
        for r in summaries[m].get("utilization", {}):
            if r not in ("cpu", "memory") and ("%s utilization, mean" % r) not in [x[0] for x in rows]:
                rows.append(("%s utilization, mean" % r,
                             ["%.3f" % summaries[k].get("utilization", {}).get(r, {}).get("mean", 0) for k in modes]))
    if any("gpus" in summaries[m] for m in modes):
        rows.append(("DRA GPUs busy, mean", ["%.3f" % summaries[m].get("gpus", {}).get("busy", {}).get("mean", 0)
                                             for m in modes]))
    cells = []
    for m in modes:
        key = gpu_key(data[m])
        busy = [u for u, p in zip(data[m][key], data[m]["pending_jobs"]) if p > 0]
        cells.append("%.3f" % (sum(busy) / len(busy)) if busy else "-")
    rows.append(("GPU use while a job waited, mean", cells))
    reasons = []
    for m in modes:
        for r in summaries[m].get("evictionsByReason", {}):
            if r not in reasons:
                reasons.append(r)
    for r in reasons:
        rows.append(("evictions: %s" % r, ["%d" % summaries[m].get("evictionsByReason", {}).get(r, 0) for m in modes]))
    width = max(len(label) for label, _ in rows) + 2
    print("".ljust(width) + "".join(m.ljust(18) for m in modes))
    for label, cells in rows:
        print(label.ljust(width) + "".join(c.ljust(18) for c in cells))


def trace_plot(out, modes, data, colors):
    """With a trace (trace-jobs.csv): each run's job completion times as a
    CDF, and the GPUs its jobs held over time."""
    runs = [m for m in modes if os.path.exists(os.path.join(out, m, "trace-jobs.csv"))]
    if not runs:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    for m in runs:
        with open(os.path.join(out, m, "trace-jobs.csv")) as f:
            jct = sorted(float(r["jct"]) / 3600 for r in csv.DictReader(f) if r["jct"])
        if jct:
            left.step(jct, [(i + 1) / len(jct) for i in range(len(jct))], where="post", color=colors[m],
                      label="%s (mean %.2f h)" % (m, sum(jct) / len(jct)))
        key = next((k for k in data[m] if k.startswith("util_") and k not in ("util_cpu", "util_memory")), None)
        if key:
            right.plot([s / 3600 for s in data[m]["second"]], [100 * v for v in data[m][key]], color=colors[m],
                       label=m, linewidth=0.8)
    left.set_xscale("log")
    left.set_xlabel("job completion time (hours, log)")
    left.set_ylabel("fraction of jobs")
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="lower right")
    right.set_xlabel("simulated hours")
    right.set_ylabel("GPUs held (% of the cluster's)")
    right.set_ylim(0, 105)
    right.grid(alpha=0.3)
    right.legend(fontsize=8)
    fig.suptitle("Trace jobs: completion times and GPUs held")
    fig.tight_layout()
    path = os.path.join(out, "trace.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(out):
    modes = runs_in(out) if os.path.isdir(out) else []
    if not modes:
        sys.exit("no DIR/<run>/timeseries.csv in %s" % out)
    data = {m: load(os.path.join(out, m, "timeseries.csv")) for m in modes}
    palette = ["tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan"]
    colors = {"elastic": "tab:blue", "rigid": "tab:orange"}
    others = [m for m in modes if m not in colors]
    for i, m in enumerate(others):
        colors[m] = palette[i % len(palette)]
    written = []

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        util = [k for k in data[m] if k.startswith("util_")]
        # An extended resource (GPUs) is what such a cluster is about.
        main_key = next((k for k in util if k not in ("util_cpu", "util_memory")), "util_cpu")
        for key in util:
            style = "-" if key == main_key else ":"
            top.plot(t, [100 * v for v in data[m][key]], style, color=colors[m], label="%s %s" % (m, key[5:]))
        bottom.plot(t, data[m]["pending_jobs"], color=colors[m], label=m)
    top.set_ylabel("utilization (% of allocatable)")
    top.set_ylim(0, 105)
    top.legend(loc="lower right", fontsize=8)
    top.grid(alpha=0.3)
    bottom.set_ylabel("pending jobs")
    bottom.set_xlabel("simulated minutes")
    bottom.legend(loc="upper right", fontsize=8)
    bottom.grid(alpha=0.3)
    fig.suptitle("Cluster utilization and pending jobs")
    fig.tight_layout()
    path = os.path.join(out, "utilization.png")
    fig.savefig(path, dpi=110)
    written.append(path)

    fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4), sharey=True, squeeze=False)
    for ax, m in zip(axes[0], modes):
        t = [s / 60 for s in data[m]["second"]]
        for key in sorted(k for k in data[m] if k.startswith("pods_")):
            ax.plot(t, data[m][key], label=key[5:])
        ax.set_title("%s: running pods per workload" % m)
        ax.set_xlabel("simulated minutes")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("running pods")
    fig.tight_layout()
    path = os.path.join(out, "pods.png")
    fig.savefig(path, dpi=110)
    written.append(path)
    for path in (queue_plot(out, modes, data), jct_plot(out, modes, colors),
                 resizes_plot(out, modes, colors), network_plot(out, modes, data, colors),
                 gpu_plot(out, modes, data, colors), with_without_plot(out, modes, data, colors),
                 trace_plot(out, modes, data, colors)):
        if path:
            written.append(path)
    for p in written:
        print("plot: " + p)


def pooled_trace_plot(out):
    """`plot.py --pooled OUT`: OUT/<group>/<run>/trace-jobs.csv (as
    pollux_table.py writes, a group per workload): each run's jobs of every
    group pooled into one JCT CDF, OUT/jct-cdf.png."""
    groups = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)))
    jct = {}
    for g in groups:
        for m in runs_in(os.path.join(out, g)):
            path = os.path.join(out, g, m, "trace-jobs.csv")
            if os.path.exists(path):
                with open(path) as f:
                    jct.setdefault(m, []).extend(float(r["jct"]) / 3600 for r in csv.DictReader(f) if r["jct"])
    if not jct:
        sys.exit("no OUT/<group>/<run>/trace-jobs.csv in %s" % out)
    fig, ax = plt.subplots(figsize=(8, 5))
    for m, v in jct.items():
        v.sort()
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post",
                label="%s (mean %.2f h)" % (m, sum(v) / len(v)))
    ax.set_xscale("log")
    ax.set_xlabel("job completion time (hours, log)")
    ax.set_ylabel("fraction of jobs (%d groups pooled)" % len(groups))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = os.path.join(out, "jct-cdf.png")
    fig.savefig(path, dpi=110)
    print("plot: " + path)


if __name__ == "__main__":
    if sys.argv[1] == "--pooled":
        pooled_trace_plot(sys.argv[2])
    else:
        main(sys.argv[1])
