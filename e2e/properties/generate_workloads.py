"""Workload seeds (generate.py's sixth stream, _workloads): some PodGroups
written as Kubernetes Workloads, their pods joining by
spec.workloadRef.
"""

import collections

from kube import GROUP_ANNOTATION

WORKLOAD_POD_GROUP = "workers"


def _workloads(wrng, items):
    """A PodGroup in four (not the hogs, none with a network constraint,
    sub-groups, role minimums or minResources) becomes a scheduling.k8s.io/
    v1alpha1 Workload of one podGroup: a gang of minMember, or, at times
    for minMember 1 or less, basic (each pod on its own). Its queue moves to
    the scheduling.volcano.sh/queue-name annotation; its pods drop the
    group annotation and name it by spec.workloadRef."""
    pods = collections.defaultdict(list)
    for o in items:
        g = (o["metadata"].get("annotations") or {}).get(GROUP_ANNOTATION)
        if o["kind"] == "Pod" and g:
            pods[(o["metadata"]["namespace"], g)].append(o)
    out = []
    for o in items:
        spec = o.get("spec") or {}
        if (o["kind"] != "PodGroup" or o["metadata"]["name"].startswith("pg-hog")
                or any(k in spec for k in ("networkTopology", "subGroupPolicy",
                                           "minTaskMember", "minResources"))
                or wrng.random() >= 0.25):
            out.append(o)
            continue
        ns, name = o["metadata"]["namespace"], o["metadata"]["name"]
        min_member = spec.get("minMember", 1)
        policy = ({"basic": {}} if min_member <= 1 and wrng.random() < 0.5
                  else {"gang": {"minCount": max(1, min_member)}})
        meta = {"name": name, "namespace": ns, "uid": "wl-%s-%s" % (ns, name),
                "creationTimestamp": o["metadata"]["creationTimestamp"]}
        if spec.get("queue"):
            meta["annotations"] = {"scheduling.volcano.sh/queue-name": spec["queue"]}
        out.append({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                    "metadata": meta,
                    "spec": {"podGroups": [{"name": WORKLOAD_POD_GROUP, "policy": policy}]}})
        for p in pods.get((ns, name), []):
            del p["metadata"]["annotations"][GROUP_ANNOTATION]
            if not p["metadata"]["annotations"]:
                del p["metadata"]["annotations"]
            p["spec"]["workloadRef"] = {"name": name, "podGroup": WORKLOAD_POD_GROUP}
    items[:] = out
