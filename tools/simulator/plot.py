"""Draws the simulator's plots from DIR/<run>/timeseries.csv: what a
person looks at first. Every run found in DIR (elastic, rigid, or the
--label of each) is drawn side by side. Prints the paths of the PNGs it
wrote."""

import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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


def main(out):
    modes = runs_in(out) if os.path.isdir(out) else []
    if not modes:
        sys.exit("no DIR/<run>/timeseries.csv in %s" % out)
    data = {m: load(os.path.join(out, m, "timeseries.csv")) for m in modes}
    palette = ["tab:green", "tab:red", "tab:purple", "tab:brown"]
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
    path = queue_plot(out, modes, data)
    if path:
        written.append(path)
    for p in written:
        print("plot: " + p)


if __name__ == "__main__":
    main(sys.argv[1])
