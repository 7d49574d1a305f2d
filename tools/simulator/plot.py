"""Draws the simulator's plots from DIR/<mode>/timeseries.csv: what a
person looks at first. Every mode found in DIR (elastic, rigid) is drawn
side by side. Prints the paths of the PNGs it wrote."""

import csv
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


def main(out):
    modes = [m for m in ("elastic", "rigid") if os.path.exists(os.path.join(out, m, "timeseries.csv"))]
    if not modes:
        sys.exit("no DIR/<mode>/timeseries.csv in %s" % out)
    data = {m: load(os.path.join(out, m, "timeseries.csv")) for m in modes}
    colors = {"elastic": "tab:blue", "rigid": "tab:orange"}
    written = []

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    for m in modes:
        t = [s / 60 for s in data[m]["second"]]
        for key in data[m]:
            if key.startswith("util_"):
                style = "-" if key == "util_cpu" else ":"
                top.plot(t, [100 * v for v in data[m][key]], style, color=colors[m],
                         label="%s %s" % (m, key[5:]))
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
    for p in written:
        print("plot: " + p)


if __name__ == "__main__":
    main(sys.argv[1])
