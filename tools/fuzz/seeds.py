#!/usr/bin/env python3
"""Writes a seed corpus for every fuzz target from the repository's own
test data, at run time (nothing is copied into the repository):

  snapshot    e2e/snapshots/*.yaml; each conformance case's objects
              (e2e/conformance) as multi-document YAML, as a `kind: List`
              and as JSON; a small cluster built with e2e/replay's
              builders; the YAML literals of snapshot_file_test.cc
  objects     every object of the above as JSON, one per file
  informer    per cluster, a LIST body line then watch event lines
  policy      policies/*.yaml, e2e/properties/policies/*.yaml, the
              conformance cases' policies, config_test.cc's literals
  kubeconfig  connection_config_test.cc's literals; the end-to-end
              harness's kubeconfig (e2e/live/harness), as YAML and JSON
  cel         the expressions of scheduler/cel/testdata/*.yaml

Usage: seeds.py OUTDIR   (makes OUTDIR/<target>/)"""

import ast
import hashlib
import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RAW = re.compile(r'R"(\w*)\((.*?)\)\1"', re.S)


def raw_strings(test_file):
    """The C++ raw string literals of a test file: its YAML inputs."""
    with open(os.path.join(ROOT, test_file)) as f:
        return [m.group(2) for m in RAW.finditer(f.read())]


def read(path):
    with open(path) as f:
        return f.read()


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def add(self, target, text):
        data = text.encode() if isinstance(text, str) else text
        d = os.path.join(self.out, target)
        os.makedirs(d, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(d, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.counts[target] = self.counts.get(target, 0) + 1


def replay_cluster():
    """A small cluster as e2e/replay's tests build them."""
    sys.path.insert(0, os.path.join(ROOT, "e2e", "replay"))
    import cluster as c
    objects = [
        c.node("n1", gpu="8"), c.node("n2", taints=[{"key": "k", "effect": "NoSchedule"}]),
        c.queue("team-a", weight=2, capability={"cpu": "32"}),
        c.priority_class("high", 1000, preemption_policy="Never"),
        c.podgroup("pg", 2, queue_name="team-a", priority_class_name="high",
                   min_resources={"cpu": "2"}),
        c.pod("w-0", {"cpu": "1", "memory": "1Gi"}, group="pg", node_name="n1"),
        c.with_volumes(c.pod("w-1", {"cpu": "500m"}, group="pg"),
                       [("claim", "data", "data-0"), ("ephemeral", "scratch")]),
        c.storage_class("local", binding_mode="WaitForFirstConsumer"),
        c.pvc("data-0", storage_class_name="local"),
    ]
    return objects


def harness_kubeconfig(server):
    """e2e/live/harness/cluster.py's kubeconfig_for, taken from its source:
    importing the module needs the kubernetes client, which is not needed
    here."""
    path = os.path.join(ROOT, "e2e", "live", "harness", "cluster.py")
    source = read(path)
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == "kubeconfig_for":
            scope = {}
            exec(compile(ast.Module([node], []), path, "exec"), scope)
            return scope["kubeconfig_for"](server)
    sys.exit("seeds.py: %s has no kubeconfig_for" % path)


def informer_kind(o):
    """The name LiveKinds (scheduler/live_kinds.cc) gives o's kind."""
    kind = str(o.get("kind", ""))
    if kind == "PodGroup":
        return "podgroups (%s)" % o.get("apiVersion", "")
    return {"PriorityClass": "priorityclasses", "CSINode": "csinodes",
            "StorageClass": "storageclasses"}.get(
        kind, kind.lower() + "s")


def conformance_cases():
    for path in sorted(glob.glob(os.path.join(ROOT, "e2e", "conformance", "*", "*.yaml"))):
        for case in yaml.safe_load(read(path)) or []:
            if isinstance(case, dict):
                yield case


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    corpus = Corpus(sys.argv[1])
    clusters = []  # lists of objects

    for path in sorted(glob.glob(os.path.join(ROOT, "e2e", "snapshots", "*.yaml"))):
        text = read(path)
        corpus.add("snapshot", text)
        objects = []
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == "List":
                objects.extend(doc.get("items") or [])
            elif doc is not None:
                objects.append(doc)
        clusters.append(objects)
    for text in raw_strings("scheduler/kube/snapshot/snapshot_file_test.cc"):
        corpus.add("snapshot", text)
    clusters.append(replay_cluster())
    for case in conformance_cases():
        if case.get("objects"):
            clusters.append(case["objects"])
        if isinstance(case.get("policy"), str):
            corpus.add("policy", case["policy"])

    for objects in clusters:
        objects = [o for o in objects if isinstance(o, dict)]
        as_list = {"apiVersion": "v1", "kind": "List", "items": objects}
        corpus.add("snapshot", yaml.safe_dump_all(objects, sort_keys=False))
        corpus.add("snapshot", yaml.safe_dump(as_list, sort_keys=False))
        corpus.add("snapshot", json.dumps(as_list, indent=1))
        for o in objects:
            corpus.add("objects", json.dumps(o))
        # The informer's input: the kind, a LIST page, then watch events.
        by_kind = {}
        for o in objects:
            by_kind.setdefault(informer_kind(o), []).append(o)
            if o.get("kind") == "PodGroup":  # the same as scheduler-plugins'
                o = dict(o, apiVersion="scheduling.x-k8s.io/v1alpha1")
                by_kind.setdefault(informer_kind(o), []).append(o)
        for kind, items in by_kind.items():
            lines = [kind, json.dumps({"kind": "List", "metadata": {"resourceVersion": "100"},
                                       "items": items}, separators=(",", ":"))]
            for i, o in enumerate(items[:3]):
                meta = dict(o.get("metadata") or {}, resourceVersion=str(101 + i))
                lines.append(json.dumps({"type": ["ADDED", "MODIFIED", "DELETED"][i % 3],
                                         "object": dict(o, metadata=meta)},
                                        separators=(",", ":")))
            lines.append('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"200"}}}')
            lines.append('{"type":"ERROR","object":{"kind":"Status","code":410}}')
            corpus.add("informer", "\n".join(lines))

    for pattern in ("policies/*.yaml", "e2e/properties/policies/*.yaml"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            corpus.add("policy", read(path))
    for text in raw_strings("scheduler/framework/config_test.cc"):
        corpus.add("policy", text)
    for text in raw_strings("scheduler/kube/client/connection_config_test.cc"):
        corpus.add("kubeconfig", text)
    for server in ("https://127.0.0.1:6443", "http://[::1]:8080"):
        config = harness_kubeconfig(server)
        corpus.add("kubeconfig", yaml.safe_dump(config, sort_keys=False))
        corpus.add("kubeconfig", json.dumps(config))

    # cel: the expressions of scheduler/cel's data-carried cases.
    for name, key, field in (("k8s_library_cases.yaml", "cases", "expr"),
                             ("driver_device_classes.yaml", "classes", "expression")):
        with open(os.path.join(ROOT, "scheduler/cel/testdata", name)) as f:
            for case in yaml.safe_load(f)[key]:
                corpus.add("cel", case[field])

    for target in ("snapshot", "objects", "informer", "policy", "kubeconfig", "cel"):
        n = corpus.counts.get(target, 0)
        if n == 0:
            sys.exit("seeds.py: no seeds for %s: has the test data moved?" % target)
        print("seeds: %-10s %d" % (target, n))


if __name__ == "__main__":
    main()
