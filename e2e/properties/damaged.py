"""Damaged snapshots: each seed takes a generated cluster, sets one field
anywhere in it to a value of another type, and runs the real binary on
it. The binary must either load it (exit 0; some fields are optional or
free-form) or refuse it with exit 2 and a message naming the file; it
must never abort (an uncaught exception, a signal).

    python3 e2e/properties/damaged.py --seeds=0:300 [--binary=PATH]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import generate  # noqa: E402

WRONG_VALUES = [True, 7, -1, 1.5, "x", None, [], [1], {}, {"a": 1}]


def places(obj, path=()):
    """Every path to a value inside `obj`."""
    if path:
        yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from places(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from places(v, path + (i,))


def damage(seed):
    rng = random.Random(seed)
    snapshot = generate(seed % 50)
    where = rng.choice(list(places(snapshot)))
    value = rng.choice(WRONG_VALUES)
    target = snapshot
    for k in where[:-1]:
        target = target[k]
    target[where[-1]] = value
    return snapshot, where, value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:300")
    ap.add_argument("--binary", default=os.environ.get("SHOAL_SCHEDULER",
                                                       "bazel-bin/scheduler/shoal-scheduler"))
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    failures = []
    counts = {0: 0, 2: 0}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "damaged.json")
        for seed in range(lo, hi):
            snapshot, where, value = damage(seed)
            with open(path, "w") as f:
                json.dump(snapshot, f)
            run = subprocess.run([args.binary, "--snapshot=" + path, "--output=json"],
                                 capture_output=True, text=True)
            ok = (run.returncode == 0 or
                  (run.returncode == 2 and run.stderr.startswith("shoal-scheduler: " + path)))
            if not ok:
                failures.append("seed %d: %s set to %s: exit %d: %s" % (
                    seed, "/".join(map(str, where)), json.dumps(value), run.returncode,
                    run.stderr.strip()[-300:]))
            else:
                counts[run.returncode] += 1
    print("%d damaged snapshots: %d loaded, %d refused with a message, %d failed" % (
        hi - lo, counts[0], counts[2], len(failures)))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
