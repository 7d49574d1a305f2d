"""Builders for real Kubernetes objects (as `kubectl get -o json` prints
them) and a runner for `shoal-scheduler --snapshot`. Standard library only."""

import json
import os
import subprocess
import tempfile

T0 = "2026-11-20T09:00:00Z"


def at(seconds):
    """An RFC 3339 time `seconds` after T0."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return "2026-11-20T%02d:%02d:%02dZ" % (9 + h, m, s)


def node(name, cpu="16", memory="64Gi", pods="110", gpu=None, labels=None, taints=None):
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpu:
        allocatable["nvidia.com/gpu"] = gpu
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels or {"kubernetes.io/hostname": name}},
        "spec": {"taints": taints} if taints else {},
        "status": {"capacity": allocatable, "allocatable": allocatable,
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def queue(name, weight=1, capability=None, guarantee=None, reclaimable=True, state="Open",
          priority=None):
    spec = {"weight": weight, "reclaimable": reclaimable}
    if priority is not None:
        spec["priority"] = priority
    if capability:
        spec["capability"] = capability
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": name}, "spec": spec, "status": {"state": state}}


def priority_class(name, value, preemption_policy=None):
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": name}, "value": value}
    if preemption_policy:
        pc["preemptionPolicy"] = preemption_policy
    return pc


def podgroup(name, min_member, queue_name="default", ns="default", phase="Pending",
             created=0, priority_class_name=None, min_resources=None):
    spec = {"minMember": min_member, "queue": queue_name}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    if min_resources:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns, "uid": "pg-" + name,
                         "creationTimestamp": at(created)},
            "spec": spec, "status": {"phase": phase}}


def pod(name, requests, group=None, ns="default", node_name=None, phase=None, created=0,
        priority=None, priority_class_name=None, preemption_policy=None,
        scheduler="shoal", annotations=None, labels=None):
    meta = {"name": name, "namespace": ns, "uid": "pod-" + name,
            "creationTimestamp": at(created)}
    meta["annotations"] = dict(annotations or {})
    if group:
        meta["annotations"]["scheduling.k8s.io/group-name"] = group
    if labels:
        meta["labels"] = labels
    spec = {"schedulerName": scheduler,
            "containers": [{"name": "main", "image": "registry.example.com/app:1",
                            "resources": {"requests": requests}}]}
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": phase or ("Running" if node_name else "Pending")}}


BINARY = os.environ.get("SHOAL_SCHEDULER", "scheduler/shoal-scheduler")


def replay(objects, cycles=1, policy=None, extra_args=()):
    """Runs the real binary on a `kind: List` of `objects`; returns the
    parsed JSON report and the stderr text."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cluster.json")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, f)
        args = [BINARY, "--snapshot=" + path, "--cycles=%d" % cycles, "--output=json"]
        if policy:
            conf = os.path.join(d, "policy.yaml")
            with open(conf, "w") as f:
                f.write(policy)
            args.append("--scheduler-conf=" + conf)
        args.extend(extra_args)
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError("shoal-scheduler failed (%d): %s" % (done.returncode, done.stderr))
        return json.loads(done.stdout), done.stderr


def with_volumes(p, volumes):
    """Pod `p` with `volumes`: ("claim", volume name, claim name) or
    ("ephemeral", volume name)."""
    p["spec"]["volumes"] = [
        {"name": v[1], "persistentVolumeClaim": {"claimName": v[2]}} if v[0] == "claim"
        else {"name": v[1], "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}
        for v in volumes]
    return p


def storage_class(name, binding_mode="Immediate"):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name}, "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": binding_mode}


def pvc(name, ns="default", volume=None, storage_class_name="local"):
    """A claim, bound to `volume` when given (as the PV controller leaves
    it), pending otherwise."""
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class_name,
            "resources": {"requests": {"storage": "1Gi"}}}
    meta = {"name": name, "namespace": ns, "uid": "pvc-" + name}
    if volume:
        spec["volumeName"] = volume
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": spec, "status": {"phase": "Bound" if volume else "Pending"}}


def local_pv(name, node_name, claim=None, ns="default", storage_class_name="local"):
    """A local PersistentVolume usable only from `node_name`."""
    spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "storageClassName": storage_class_name, "local": {"path": "/mnt/disks/" + name},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_name]}]}]}}}
    if claim:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": spec, "status": {"phase": "Bound" if claim else "Available"}}


def csi_pv(name, driver, handle, claim=None, ns="default", storage_class_name="csi"):
    """A CSI PersistentVolume of `driver` (usable from any node)."""
    spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "storageClassName": storage_class_name,
            "csi": {"driver": driver, "volumeHandle": handle}}
    if claim:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": spec, "status": {"phase": "Bound" if claim else "Available"}}


def csi_node(name, limits):
    """A CSINode: `limits` maps a driver to its allocatable count (None: no count)."""
    drivers = []
    for driver, count in limits.items():
        d = {"name": driver, "nodeID": name, "topologyKeys": None}
        if count is not None:
            d["allocatable"] = {"count": count}
        drivers.append(d)
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": {"name": name}, "spec": {"drivers": drivers}}
