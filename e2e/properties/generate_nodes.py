"""The plain objects of a generated cluster (generate.py): nodes of several
shapes, pods (containers, init containers, overhead, host ports,
selectors, tolerations, priority), the PriorityClasses, timestamps, and
_Room, which places running pods without over-booking and as
kube-scheduler's filters allow.
"""

import json

from kube import (GANG_LABEL, GROUP_ANNOTATION, HOST_PORTS, SCHEDULER, ZONE, _add, fits,
                  interpod_problem, node_allocatable, placement_problem, pod_requests)

T0 = 1795165200  # 2026-11-20T09:00:00Z

NODE_SHAPES = [
    # name, cpu, memory, gpu
    ("small", "4", "16Gi", None),
    ("medium", "8", "32Gi", None),
    ("large", "16", "64Gi", None),
    ("odd", "6500m", "24Gi", None),
    ("gpu4", "16", "128Gi", "4"),
    ("gpu8", "32", "256Gi", "8"),
]
CPUS = ["100m", "250m", "500m", "1", "1500m", "2", "3", "4", "6"]
MEMS = ["128Mi", "512Mi", "1Gi", "2Gi", "3Gi", "4Gi", "8Gi", "16Gi"]
GPUS = ["1", "1", "2", "4"]
PRIORITY_CLASSES = [("low", 10), ("mid", 100), ("high", 1000)]
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
BATCH_TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
SOFT_TAINT = {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}


def timestamp(seconds):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + seconds))


def _node(rng, i):
    shape, cpu, mem, gpu = rng.choice(NODE_SHAPES)
    name = "node-%02d-%s" % (i, shape)
    labels = {"kubernetes.io/hostname": name, ZONE: "zone-" + rng.choice("abc"),
              "node-type": "gpu" if gpu else "cpu"}
    pods = rng.choice(["110", "110", "110", "8", "4"])
    alloc = {"cpu": cpu, "memory": mem, "pods": pods}
    if gpu:
        alloc["nvidia.com/gpu"] = gpu
    taints = []
    if gpu and rng.random() < 0.6:
        taints.append(dict(GPU_TAINT))
    if rng.random() < 0.15:
        taints.append(dict(BATCH_TAINT))
    if rng.random() < 0.15:
        taints.append(dict(SOFT_TAINT))
    spec = {}
    if taints:
        spec["taints"] = taints
    if rng.random() < 0.05:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "uid": "node-uid-%d" % i},
            "spec": spec,
            "status": {"capacity": dict(alloc), "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _template(rng, nodes):
    """Requests, selector and tolerations shared by the pods of one group."""
    req = {"cpu": rng.choice(CPUS), "memory": rng.choice(MEMS)}
    gpu_nodes = [n for n in nodes if "nvidia.com/gpu" in n["status"]["allocatable"]]
    tolerations = []
    selector = {}
    if gpu_nodes and rng.random() < 0.25:
        req["nvidia.com/gpu"] = rng.choice(GPUS)
        if rng.random() < 0.8:
            tolerations.append(rng.choice([
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true",
                 "effect": "NoSchedule"}]))
        if rng.random() < 0.3:
            selector["node-type"] = "gpu"
    if rng.random() < 0.2:
        selector[ZONE] = "zone-" + rng.choice("abc")
    if rng.random() < 0.2:
        tolerations.append({"key": "dedicated", "operator": "Equal", "value": "batch",
                            "effect": "NoSchedule"})
    if rng.random() < 0.03:
        tolerations.append({"operator": "Exists"})
    if rng.random() < 0.1:
        req = {}  # BestEffort
    return req, selector, tolerations


def _host_port(rng):
    """A host port the pods of one group bind, or None (most groups)."""
    return rng.choice(HOST_PORTS) if rng.random() < 0.08 else None


def _pod(rng, name, ns, created, req, selector, tolerations, group=None,
         scheduler=SCHEDULER, priority=None, host_port=None, constraints=None):
    containers = [{"name": "main", "image": "registry.example.com/app:1",
                   "resources": {"requests": dict(req)} if req else {}}]
    if host_port:
        containers[0]["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    spec = {"schedulerName": scheduler, "containers": containers}
    r = rng.random()
    if req and r < 0.1:
        # A second container: split cpu between the two.
        containers.append({"name": "helper", "image": "registry.example.com/helper:1",
                           "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}})
    elif req and r < 0.18:
        spec["initContainers"] = [{"name": "init", "image": "registry.example.com/init:1",
                                   "resources": {"requests": {"cpu": rng.choice(CPUS),
                                                              "memory": "256Mi"}}}]
    elif req and r < 0.22:
        spec["initContainers"] = [{"name": "proxy", "image": "registry.example.com/proxy:1",
                                   "restartPolicy": "Always",
                                   "resources": {"requests": {"cpu": "200m",
                                                              "memory": "128Mi"}}}]
    elif req and r < 0.25:
        spec["overhead"] = {"cpu": "250m", "memory": "120Mi"}
    if selector:
        spec["nodeSelector"] = dict(selector)
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if priority:
        spec["priorityClassName"], spec["priority"] = priority
    meta = {"name": name, "namespace": ns, "uid": "pod-%s-%s" % (ns, name),
            "creationTimestamp": timestamp(created)}
    if group:
        meta["annotations"] = {GROUP_ANNOTATION: group}
        meta["labels"] = {GANG_LABEL: group}
    for k, v in (constraints or {}).items():
        spec[k] = json.loads(json.dumps(v))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Pending"}}


class _Room:
    """Free room per node, to place running pods without over-booking."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.by_name = {n["metadata"]["name"]: n for n in nodes}
        self.free = {n["metadata"]["name"]: node_allocatable(n) for n in nodes}
        # (pod, node name): placements honour kube-scheduler's inter-pod
        # filters, so the initial state is one it could have made.
        self.placed = []

    def place(self, rng, pods, ignore_cordon=False):
        """Places every pod of `pods` or none; sets nodeName and Running."""
        trial = {k: dict(v) for k, v in self.free.items()}
        chosen = []
        placed = list(self.placed)
        for p in pods:
            req = pod_requests(p)
            cands = [n for n in self.nodes
                     if fits(req, trial[n["metadata"]["name"]])
                     and (placement_problem(p, n) is None or
                          (ignore_cordon and placement_problem(p, n).startswith("node is")))
                     and interpod_problem(p, n, placed, self.by_name) is None]
            if not cands:
                return False
            n = rng.choice(cands)["metadata"]["name"]
            trial[n] = _add(trial[n], req, -1)
            chosen.append(n)
            placed.append((p, n))
        self.free = trial
        self.placed = placed
        for p, n in zip(pods, chosen):
            p["spec"]["nodeName"] = n
            p["status"] = {"phase": "Running"}
        return True
