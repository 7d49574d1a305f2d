"""Builds and creates the objects a test needs, the way users write them."""
import kubernetes

VOLCANO = ("scheduling.volcano.sh", "v1beta1")
SIG = ("scheduling.x-k8s.io", "v1alpha1")
TOPOLOGY = ("topology.volcano.sh", "v1alpha1")


def hypernode_members(nodes=(), hypernodes=(), patterns=()):
    """HyperNode members: nodes by exact name, lower-tier HyperNodes by
    exact name, nodes by RE2 pattern (all names as created, in full)."""
    return ([{"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in nodes]
            + [{"type": "HyperNode", "selector": {"exactMatch": {"name": h}}}
               for h in hypernodes]
            + [{"type": "Node", "selector": {"regexMatch": {"pattern": p}}} for p in patterns])


class Objects:
    """Creates objects for one test and removes them afterwards. Node and
    Queue names are prefixed with the namespace: they are cluster-wide."""

    def __init__(self, cluster, namespace):
        self.c = cluster
        self.ns = namespace
        self.nodes = []
        self.queues = []
        self.priority_classes = []
        self.volumes = []
        self.hypernodes = []

    # --- cluster-scoped -------------------------------------------------
    def node(self, name, cpu="4", memory="16Gi", gpus=0, pods="110", labels=None, taints=None,
             unschedulable=False):
        name = f"{self.ns}-{name}"
        capacity = {"cpu": cpu, "memory": memory, "pods": pods}
        if gpus:
            capacity["nvidia.com/gpu"] = str(gpus)
        body = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                      "e2e/namespace": self.ns, **(labels or {})}},
                "spec": {"taints": taints or [], "unschedulable": unschedulable}}
        self.c.core.create_node(body)
        self.nodes.append(name)
        # A kubelet reports capacity and readiness through the status.
        self.c.core.patch_node_status(name, {"status": {
            "capacity": capacity, "allocatable": capacity,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "e2e node"}]}})
        return name

    def queue(self, name, weight=1, capability=None, reclaimable=True, guarantee=None,
              parent=None):
        """A Queue; `parent` is another queue's full name (as returned)."""
        name = f"{self.ns}-{name}"
        spec = {"weight": weight, "reclaimable": reclaimable}
        if parent:
            spec["parent"] = parent
        if capability:
            spec["capability"] = capability
        if guarantee:
            spec["guarantee"] = {"resource": guarantee}
        self.c.custom.create_cluster_custom_object(*VOLCANO, "queues", {
            "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": name}, "spec": spec})
        self.queues.append(name)
        return name

    def priority_class(self, name, value):
        name = f"{self.ns}-{name}"
        self.c.scheduling.create_priority_class({
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value})
        self.priority_classes.append(name)
        return name

    def local_volume(self, name, node):
        """A local PersistentVolume usable only from `node`."""
        name = f"{self.ns}-{name}"
        self.c.core.create_persistent_volume({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "e2e-local", "local": {"path": "/mnt/" + name},
                     "persistentVolumeReclaimPolicy": "Retain",
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In",
                          "values": [node]}]}]}}}})
        self.volumes.append(name)
        return name

    def hypernode(self, name, tier, nodes=(), hypernodes=(), patterns=(), tier_name=None):
        """Volcano's HyperNode, one network domain; see hypernode_members."""
        name = f"{self.ns}-{name}"
        spec = {"tier": tier, "members": hypernode_members(nodes, hypernodes, patterns)}
        if tier_name:
            spec["tierName"] = tier_name
        self.c.custom.create_cluster_custom_object(*TOPOLOGY, "hypernodes", {
            "apiVersion": "/".join(TOPOLOGY), "kind": "HyperNode",
            "metadata": {"name": name}, "spec": spec})
        self.hypernodes.append(name)
        return name

    def set_hypernode_members(self, name, nodes=(), hypernodes=(), patterns=()):
        """Replaces the members of HyperNode `name` (its full name), as an
        operator's `kubectl edit` does: read, change, write back."""
        obj = self.c.custom.get_cluster_custom_object(*TOPOLOGY, "hypernodes", name)
        obj["spec"]["members"] = hypernode_members(nodes, hypernodes, patterns)
        return self.c.custom.replace_cluster_custom_object(*TOPOLOGY, "hypernodes", name, obj)

    def get_hypernodes(self):
        """{name: spec} of this test's HyperNodes, as the API server has them."""
        return {name: self.c.custom.get_cluster_custom_object(
            *TOPOLOGY, "hypernodes", name)["spec"] for name in self.hypernodes}

    # --- namespaced -----------------------------------------------------
    def bound_claim(self, name, volume):
        """A PersistentVolumeClaim bound to `volume`, as the PV controller
        leaves it (there may be none: kube-apiserver alone is enough)."""
        self.c.core.create_namespaced_persistent_volume_claim(self.ns, {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": self.ns,
                         "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "e2e-local",
                     "volumeName": volume, "resources": {"requests": {"storage": "1Gi"}}}})
        self.c.core.patch_namespaced_persistent_volume_claim_status(
            name, self.ns, {"status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                                       "capacity": {"storage": "1Gi"}}})
        return name

    def pod_group(self, name, min_member, queue=None, priority_class=None, api=VOLCANO,
                  network_topology=None, annotations=None):
        """`annotations`: the PodGroup's metadata.annotations (e.g. Shoal's
        shoal.dev/throughput)."""
        spec = {"minMember": min_member}
        if queue and api == VOLCANO:
            spec["queue"] = queue
        if network_topology:  # Volcano's {mode: hard|soft, highestTierAllowed: N}
            spec["networkTopology"] = network_topology
        if priority_class:
            spec["priorityClassName"] = priority_class
        meta = {"name": name, "namespace": self.ns}
        if annotations:
            meta["annotations"] = dict(annotations)
        self.c.custom.create_namespaced_custom_object(*api, self.ns, "podgroups", {
            "apiVersion": "/".join(api), "kind": "PodGroup", "metadata": meta, "spec": spec})
        return name

    def pod(self, name, cpu="1", memory="1Gi", gpus=0, group=None, scheduler="shoal",
            node_selector=None, tolerations=None, priority_class=None, node_name=None,
            group_api=VOLCANO, labels=None, spec_extra=None, claims=(), resource_claims=()):
        """`claims`: PersistentVolumeClaims by name; `resource_claims`: the
        pod's spec.resourceClaims (DRA), each also claimed by its container."""
        requests = {"cpu": cpu, "memory": memory}
        if gpus:
            requests["nvidia.com/gpu"] = str(gpus)
        meta = {"name": name, "namespace": self.ns,
                "labels": {"app": name.rsplit("-", 1)[0], **(labels or {})}}
        if group and group_api == VOLCANO:
            meta["annotations"] = {"scheduling.k8s.io/group-name": group}
        elif group:
            meta["labels"]["scheduling.x-k8s.io/pod-group"] = group
        spec = {"schedulerName": scheduler,
                "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.9",
                                "resources": {"requests": requests, "limits": dict(requests)}}]}
        if resource_claims:
            spec["resourceClaims"] = list(resource_claims)
            spec["containers"][0]["resources"]["claims"] = [{"name": c["name"]}
                                                            for c in resource_claims]
        if node_selector:
            spec["nodeSelector"] = node_selector
        if tolerations:
            spec["tolerations"] = tolerations
        if priority_class:
            spec["priorityClassName"] = priority_class
        if node_name:
            spec["nodeName"] = node_name
        spec.update(spec_extra or {})  # affinity, topologySpreadConstraints, ...
        if claims:
            spec["volumes"] = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                               for i, c in enumerate(claims)]
        self.c.core.create_namespaced_pod(self.ns, {"apiVersion": "v1", "kind": "Pod",
                                                    "metadata": meta, "spec": spec})
        return name

    def gang(self, name, size, min_member=None, **pod_args):
        """A PodGroup and its pods, named NAME-0 .. NAME-(size-1)."""
        queue = pod_args.pop("queue", None)
        network_topology = pod_args.pop("network_topology", None)
        annotations = pod_args.pop("annotations", None)  # the PodGroup's
        pc = pod_args.get("priority_class")
        api = pod_args.get("group_api", VOLCANO)
        self.pod_group(name, min_member or size, queue=queue, priority_class=pc, api=api,
                       network_topology=network_topology, annotations=annotations)
        return [self.pod(f"{name}-{i}", group=name, **pod_args) for i in range(size)]

    # --- reading --------------------------------------------------------
    def pods(self):
        return self.c.core.list_namespaced_pod(self.ns).items

    def bound(self, prefix=""):
        return [p for p in self.pods() if p.metadata.name.startswith(prefix) and p.spec.node_name]

    def get_pod_group(self, name, api=VOLCANO):
        return self.c.custom.get_namespaced_custom_object(*api, self.ns, "podgroups", name)

    def events(self, reason=None, name=None):
        selectors = []
        if name:
            selectors.append(f"involvedObject.name={name}")
        if reason:
            selectors.append(f"reason={reason}")
        return self.c.core.list_namespaced_event(self.ns, field_selector=",".join(selectors)).items

    def pod_condition(self, name, kind="PodScheduled"):
        pod = self.c.core.read_namespaced_pod(name, self.ns)
        for c in pod.status.conditions or []:
            if c.type == kind:
                return c
        return None

    # --- cleanup --------------------------------------------------------
    def cleanup(self):
        ignore = (404,)
        for pod in self.pods():
            _quietly(ignore, self.c.core.delete_namespaced_pod, pod.metadata.name, self.ns,
                     grace_period_seconds=0)
        for api in (VOLCANO, SIG):
            try:
                groups = self.c.custom.list_namespaced_custom_object(*api, self.ns, "podgroups")
            except kubernetes.client.ApiException:
                continue
            for g in groups["items"]:
                _quietly(ignore, self.c.custom.delete_namespaced_custom_object, *api, self.ns,
                         "podgroups", g["metadata"]["name"])
        for claim in self.c.core.list_namespaced_persistent_volume_claim(self.ns).items:
            _quietly(ignore, self.c.core.delete_namespaced_persistent_volume_claim,
                     claim.metadata.name, self.ns)
        for name in self.volumes:
            _quietly(ignore, self.c.core.delete_persistent_volume, name)
        for name in self.hypernodes:
            _quietly(ignore, self.c.custom.delete_cluster_custom_object, *TOPOLOGY, "hypernodes",
                     name)
        for name in self.nodes:
            _quietly(ignore, self.c.core.delete_node, name)
        for name in self.queues:
            _quietly(ignore, self.c.custom.delete_cluster_custom_object, *VOLCANO, "queues", name)
        for name in self.priority_classes:
            _quietly(ignore, self.c.scheduling.delete_priority_class, name)


def _quietly(codes, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except kubernetes.client.ApiException as e:
        if e.status not in codes:
            raise
