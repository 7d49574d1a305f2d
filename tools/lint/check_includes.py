"""No include circle in the C++ tree, between files or between folders.

Bazel refuses a cycle between targets, but not one inside a target, nor a
circle of folders whose files include each other through several targets:
`a/x.h` including `b/y.h` while something in `b/` includes `a/`. Either
makes the layers in docs/architecture.md a story rather than a fact. This
reads every tracked `.cc` and `.h` (the project's own `#include "..."`
lines), and fails naming each circle it finds:

    include circle between folders: scheduler/kube/client -> scheduler/kube/write -> scheduler/kube/client
      scheduler/kube/client/informer.cc includes scheduler/kube/write/api_binder.h
      scheduler/kube/write/api_binder.h includes scheduler/kube/client/http_client.h

A test (`*_test.cc`, a benchmark `*_bench.cc`) is left out of the folder
graph: nothing includes it, so it is above everything it reads wherever it
stands (plugins/elastic/elastic_test.cc may build a session from the
registry in plugins/). tools/test.sh runs it, so CI does.

    python3 tools/lint/check_includes.py          # the check
    python3 tools/lint/check_includes.py --graph  # print the folder graph
    python3 tools/lint/check_includes.py DIR      # another tree

Standard library only (and circles.py beside it, the circle finder
e2e/properties/imports_test.py uses too).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from circles import circles  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def tracked_sources(root):
    """Every tracked .cc/.h under `root` (all of them when not a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h"],
                             capture_output=True, text=True, check=True).stdout.split()
        if out:
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "bazel-")))
        found += [os.path.relpath(os.path.join(d, f), root)
                  for f in sorted(files) if f.endswith((".cc", ".h"))]
    return found


def include_edges(root, files):
    """(file, included file) for each project include that names a file here."""
    present = set(files)
    edges = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
            for target in INCLUDE.findall(src.read()):
                if target in present and target != f:
                    edges.append((f, target))
    return edges


def path_within(graph, component):
    """One closed walk through `component`, from its first member back."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph.get(node, ())):
            if child == start:
                walk = [node]
                while previous[walk[-1]] is not None:
                    walk.append(previous[walk[-1]])
                return list(reversed(walk)) + [start]
            if child in members and child not in previous:
                previous[child] = node
                queue.append(child)
    return component + [start]


def problems(root):
    """Each circle, described: files first, then folders."""
    files = tracked_sources(root)
    edges = include_edges(root, files)
    found = []

    file_graph = {}
    for a, b in edges:
        file_graph.setdefault(a, set()).add(b)
    for component in circles(file_graph):
        walk = path_within(file_graph, component)
        found.append("include circle between files: " + " -> ".join(walk))

    folder_graph, witness = {}, {}
    for a, b in edges:
        if a.endswith(("_test.cc", "_bench.cc")):
            continue
        fa, fb = os.path.dirname(a), os.path.dirname(b)
        if fa != fb:
            folder_graph.setdefault(fa, set()).add(fb)
            witness.setdefault((fa, fb), (a, b))
    for component in circles(folder_graph):
        walk = path_within(folder_graph, component)
        lines = ["include circle between folders: " + " -> ".join(walk)]
        for fa, fb in zip(walk, walk[1:]):
            a, b = witness[(fa, fb)]
            lines.append("  %s includes %s" % (a, b))
        found.append("\n".join(lines))
    return found, folder_graph


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    roots = [a for a in argv if not a.startswith("--")]
    root = roots[0] if roots else os.path.dirname(os.path.dirname(here))
    found, folder_graph = problems(root)
    if "--graph" in argv:
        for folder in sorted(folder_graph):
            print("%s -> %s" % (folder, ", ".join(sorted(folder_graph[folder]))))
    if found:
        print("\n".join(found), file=sys.stderr)
        print("fix: move what both sides need below both, or turn one include around "
              "(docs/architecture.md says which way the layers point)", file=sys.stderr)
        return 1
    print("includes: no circle among %d folders" % len(set(folder_graph) | {
        b for targets in folder_graph.values() for b in targets}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
