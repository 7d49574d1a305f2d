"""Dynamic Resource Allocation (resource.k8s.io/v1) end to end: devices
published in ResourceSlices, asked for in ResourceClaims, allocated by
Shoal and written in each claim's status before its pod is bound; a gang
gets its devices whole or not at all; what Shoal cannot allocate leaves
the pods waiting with the reason named.

A cluster that does not serve resource.k8s.io/v1 (before Kubernetes 1.34,
or with the API turned off) has nothing to test here: the DRA tests are
skipped there, told by discovery (GET /apis/resource.k8s.io)."""
import json
import time

import kubernetes
import pytest
import yaml

from harness.cluster import REPO, wait_for

RESOURCE = ("resource.k8s.io", "v1")
DRIVER = "gpu.example.com"
CLASS = "gpu.example.com"
# What Kubernetes' resourceclaim controller writes on a claim it generates
# from a template (pkg/controller/resourceclaim).
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
# Several scheduling cycles of the harness's 200 ms period.
CYCLES_S = 3.0


def dra_version_missing(cluster):
    """Why resource.k8s.io/v1 cannot be tested on `cluster`, or None."""
    try:
        group = cluster.api.call_api(
            "/apis/resource.k8s.io", "GET", auth_settings=["BearerToken"],
            response_type="object", _return_http_data_only=True)
    except kubernetes.client.ApiException as e:
        if e.status == 404:
            return ("the cluster does not serve resource.k8s.io (GET /apis/resource.k8s.io: "
                    "404); Dynamic Resource Allocation is resource.k8s.io/v1 from Kubernetes 1.34")
        raise
    versions = [v["version"] for v in group.get("versions", [])]
    if "v1" not in versions:
        return (f"the cluster serves resource.k8s.io {versions}, not v1 (Kubernetes 1.34's); "
                "Shoal allocates devices only through v1")
    return None


@pytest.fixture(scope="module")
def dra_served(cluster):
    why = dra_version_missing(cluster)
    if why:
        pytest.skip(why)


class Devices:
    """The DRA objects of one test: a DeviceClass, ResourceSlices, claims
    and claim templates; removed afterwards."""

    def __init__(self, cluster, namespace):
        self.c = cluster
        self.ns = namespace
        self.slices = []
        self.classes = []

    # --- cluster-scoped -------------------------------------------------
    def device_class(self, name=CLASS, expression=f"device.driver == '{DRIVER}'"):
        """The class; one already there (a driver installed on a real
        cluster names its class after itself) is kept, and not removed."""
        try:
            self.c.custom.create_cluster_custom_object(*RESOURCE, "deviceclasses", {
                "apiVersion": "/".join(RESOURCE), "kind": "DeviceClass",
                "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": expression}}]}})
            self.classes.append(name)
        except kubernetes.client.ApiException as e:
            if e.status != 409:
                raise
        return name

    def node_slice(self, node, count=2):
        """`count` devices gpu-0.. on `node`, as a node-local driver
        publishes them: its pool named after the node."""
        name = f"{node}-{DRIVER}"
        self.c.custom.create_cluster_custom_object(*RESOURCE, "resourceslices", {
            "apiVersion": "/".join(RESOURCE), "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}",
                                  "attributes": {"model": {"string": "a100"},
                                                 "index": {"int": i}},
                                  "capacity": {"memory": {"value": "80Gi"}}}
                                 for i in range(count)]}})
        self.slices.append(name)
        return name

    # --- namespaced -----------------------------------------------------
    def claim(self, name, selectors=()):
        self.c.custom.create_namespaced_custom_object(*RESOURCE, self.ns, "resourceclaims", {
            "apiVersion": "/".join(RESOURCE), "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": self.ns},
            "spec": claim_spec(selectors)})
        return name

    def claim_template(self, name):
        self.c.custom.create_namespaced_custom_object(
            *RESOURCE, self.ns, "resourceclaimtemplates", {
                "apiVersion": "/".join(RESOURCE), "kind": "ResourceClaimTemplate",
                "metadata": {"name": name, "namespace": self.ns},
                "spec": {"metadata": {"labels": {"e2e/template": name}},
                         "spec": claim_spec()}})
        return name

    def get_claim(self, name):
        return self.c.custom.get_namespaced_custom_object(*RESOURCE, self.ns, "resourceclaims",
                                                          name)

    def claims(self):
        return self.c.custom.list_namespaced_custom_object(*RESOURCE, self.ns,
                                                           "resourceclaims")["items"]

    def raw_pod(self, name):
        """The pod as the server has it: the client's typed Pod (it may
        predate DRA) drops spec.resourceClaims and status.resourceClaimStatuses."""
        r = self.c.core.read_namespaced_pod(name, self.ns, _preload_content=False)
        return json.loads(r.data)

    def cleanup(self):
        for kind in ("resourceclaims", "resourceclaimtemplates"):
            for item in self.c.custom.list_namespaced_custom_object(*RESOURCE, self.ns,
                                                                    kind)["items"]:
                _quietly(self.c.custom.delete_namespaced_custom_object, *RESOURCE, self.ns,
                         kind, item["metadata"]["name"])
        for name in self.slices:
            _quietly(self.c.custom.delete_cluster_custom_object, *RESOURCE, "resourceslices",
                     name)
        for name in self.classes:
            _quietly(self.c.custom.delete_cluster_custom_object, *RESOURCE, "deviceclasses",
                     name)


def _quietly(fn, *args):
    try:
        fn(*args)
    except kubernetes.client.ApiException as e:
        if e.status != 404:
            raise


def claim_spec(selectors=()):
    exactly = {"deviceClassName": CLASS, "allocationMode": "ExactCount", "count": 1}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}


@pytest.fixture
def devices(dra_served, cluster, ns, objects):
    d = Devices(cluster, ns)
    yield d
    objects.cleanup()  # the pods first, as their claims' consumers
    d.cleanup()


def gpu_cluster(objects, devices):
    """Two nodes, each with a ResourceSlice of two devices; the class."""
    devices.device_class()
    nodes = [objects.node(f"n{i}") for i in range(2)]
    for n in nodes:
        devices.node_slice(n)
    return nodes


def gang_with_claims(objects, devices, name, size, selectors=(), queue=None):
    """A PodGroup of `size` pods NAME-i, each with its own claim NAME-i-gpu."""
    objects.pod_group(name, size, queue=queue)
    for i in range(size):
        claim = devices.claim(f"{name}-{i}-gpu", selectors)
        objects.pod(f"{name}-{i}", group=name,
                    resource_claims=[{"name": "gpu", "resourceClaimName": claim}])


def node_selector_of(node):
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node]}]}]}


def assert_allocated_to(claim, pod, node):
    """`claim` holds one device of `node`'s pool, is pinned to `node` and
    reserved for `pod` (its name and uid); returns the (pool, device)."""
    status = claim.get("status", {})
    name = claim["metadata"]["name"]
    assert "allocation" in status, f"claim {name} of bound pod {pod.metadata.name}: {status}"
    (result,) = status["allocation"]["devices"]["results"]
    assert (result["request"], result["driver"], result["pool"]) == ("gpu", DRIVER, node), result
    assert result["device"] in ("gpu-0", "gpu-1"), result
    assert status["allocation"]["nodeSelector"] == node_selector_of(node), status
    reserved = [{k: r.get(k) for k in ("resource", "name", "uid")}
                for r in status.get("reservedFor", [])]
    assert reserved == [{"resource": "pods", "name": pod.metadata.name,
                         "uid": pod.metadata.uid}], status.get("reservedFor")
    return result["pool"], result["device"]


def pod_scheduled(objects, name):
    """The message of `name`'s PodScheduled=False (Unschedulable) condition, if any."""
    c = objects.pod_condition(name)
    if c is not None and (c.status, c.reason) == ("False", "Unschedulable"):
        return [c.message]
    return []


def unschedulable(objects, pod_group):
    """The messages of the PodGroup's Unschedulable=True conditions."""
    return [c["message"] for c in
            objects.get_pod_group(pod_group).get("status", {}).get("conditions", [])
            if c["type"] == "Unschedulable" and c["status"] == "True"]


def wait_for_message(what, messages, expected, timeout=30):
    """Waits for one of `messages()` to contain `expected`; returns it. A
    failure lists every message seen meanwhile."""
    seen = []

    def check():
        for m in messages():
            if m not in seen:
                seen.append(m)
            if expected in m:
                return m
        return None

    try:
        return wait_for(what, check, timeout=timeout)
    except AssertionError as e:
        raise AssertionError(f"{e}; expected a message with {expected!r}, saw {seen}") from None


def test_gang_of_four_gets_four_distinct_devices_on_its_nodes(objects, devices, kubelet,
                                                              schedulers):
    gpu_cluster(objects, devices)
    gang_with_claims(objects, devices, "train", 4)
    schedulers()

    def bound_with_allocated_claims():
        bound = objects.bound("train-")
        # Shoal writes a claim's allocation before binding its pod: a pod
        # seen bound has its claim allocated by then.
        for pod in bound:
            claim = devices.get_claim(pod.metadata.name + "-gpu")
            assert "allocation" in claim.get("status", {}), (
                f"{pod.metadata.name} bound to {pod.spec.node_name} before its claim was "
                f"allocated: {claim.get('status')}")
        return len(bound) == 4 and bound

    bound = wait_for("gang `train` bound", bound_with_allocated_claims)
    used = set()
    for pod in bound:
        used.add(assert_allocated_to(devices.get_claim(pod.metadata.name + "-gpu"), pod,
                                     pod.spec.node_name))
    assert len(used) == 4, used
    assert sorted(p.spec.node_name for p in bound) == sorted(objects.nodes * 2)


def test_gang_of_five_on_four_devices_binds_and_allocates_nothing(objects, devices, kubelet,
                                                                   schedulers):
    gpu_cluster(objects, devices)
    gang_with_claims(objects, devices, "train", 5)
    schedulers()
    wait_for_message("train's Unschedulable condition", lambda: unschedulable(objects, "train"),
                     f"all matching devices of class {CLASS} allocated")
    time.sleep(CYCLES_S)
    assert objects.bound("train-") == []
    allocated = {c["metadata"]["name"]: c["status"] for c in devices.claims()
                 if c.get("status", {}).get("allocation")}
    assert allocated == {}


def test_a_queues_device_quota_admits_one_gang_of_two_not_two(objects, devices, kubelet,
                                                              schedulers):
    gpu_cluster(objects, devices)
    gpus = objects.queue("gpus", capability={f"deviceclass/{CLASS}": "2"})
    gang_with_claims(objects, devices, "first", 2, queue=gpus)
    schedulers()
    wait_for("gang `first` bound", lambda: len(objects.bound("first-")) == 2)
    gang_with_claims(objects, devices, "second", 2, queue=gpus)
    wait_for_message("second's Unschedulable condition", lambda: unschedulable(objects, "second"),
                     f"queue {gpus} is full (deviceclass/{CLASS} would reach 4 of 2")
    time.sleep(CYCLES_S)
    assert objects.bound("second-") == []
    # Two devices of the cluster's four are still free: the quota, not the
    # cluster, holds the second gang.
    allocated = [c["metadata"]["name"] for c in devices.claims()
                 if c.get("status", {}).get("allocation")]
    assert sorted(allocated) == ["first-0-gpu", "first-1-gpu"], allocated


def test_selector_shoal_cannot_compile_leaves_its_pod_waiting_naming_it(objects, devices,
                                                                         kubelet, schedulers):
    gpu_cluster(objects, devices)
    # kube-apiserver type-checks this (trim() is in the strings extension
    # of its CEL environment); Shoal's evaluator does not have trim().
    odd = f"device.attributes['{DRIVER}'].model.trim() == 'x'"
    devices.claim("odd-gpu", selectors=[odd])
    objects.pod("odd", resource_claims=[{"name": "gpu", "resourceClaimName": "odd-gpu"}])
    schedulers()
    message = wait_for_message("odd's PodScheduled condition", lambda: pod_scheduled(objects, "odd"),
                               odd)
    assert message.startswith(f"pod {objects.ns}/odd: resourceclaim {objects.ns}/odd-gpu: "), message
    assert "not in the CEL subset Shoal evaluates" in message, message
    time.sleep(CYCLES_S)
    assert objects.bound("odd") == []
    assert "allocation" not in devices.get_claim("odd-gpu").get("status", {})


def play_resourceclaim_controller(devices, pod_name, pod_claim, template_name):
    """What Kubernetes' resourceclaim controller does for a pod claim that
    names a template (pkg/controller/resourceclaim, handleClaim, syncPod):
    creates the claim from the template, with generateName
    `<pod>-<pod claim>-`, the template's labels and annotations plus
    resource.kubernetes.io/pod-claim-name, the pod as its controlling
    owner; then records the claim's name in the pod's
    status.resourceClaimStatuses. (The controller writes that by
    server-side apply; a strategic merge patch writes the same status.)
    Returns the claim's name."""
    pod = devices.raw_pod(pod_name)
    template = devices.c.custom.get_namespaced_custom_object(
        *RESOURCE, devices.ns, "resourceclaimtemplates", template_name)
    meta = template["spec"].get("metadata", {})
    generate_name = f"{pod_name}-{pod_claim}-"
    assert len(generate_name) <= 57  # else the controller truncates both parts
    claim = devices.c.custom.create_namespaced_custom_object(
        *RESOURCE, devices.ns, "resourceclaims", {
            "apiVersion": "/".join(RESOURCE), "kind": "ResourceClaim",
            "metadata": {
                "generateName": generate_name,
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                                     "uid": pod["metadata"]["uid"], "controller": True,
                                     "blockOwnerDeletion": True}],
                "annotations": {**meta.get("annotations", {}), POD_CLAIM_ANNOTATION: pod_claim},
                "labels": meta.get("labels", {})},
            "spec": template["spec"]["spec"]})
    name = claim["metadata"]["name"]
    assert name.startswith(generate_name) and len(name) > len(generate_name), name
    devices.c.core.patch_namespaced_pod_status(pod_name, devices.ns, {"status": {
        "resourceClaimStatuses": [{"name": pod_claim, "resourceClaimName": name}]}})
    return name


def test_claim_from_a_template_once_the_resourceclaim_controller_made_it(
        objects, devices, kubelet, schedulers):
    gpu_cluster(objects, devices)
    devices.claim_template("gpu-template")
    objects.pod("tmpl", resource_claims=[{"name": "gpu",
                                          "resourceClaimTemplateName": "gpu-template"}])
    schedulers()

    def generated_by_the_cluster():
        """A cluster with kube-controller-manager has a controller of its own."""
        return devices.raw_pod("tmpl").get("status", {}).get("resourceClaimStatuses")

    # No claim yet: the pod waits, and is not bound.
    waiting = wait_for("tmpl waiting (or its claim generated by the cluster's controller)",
                       lambda: objects.pod_condition("tmpl") or generated_by_the_cluster())
    statuses = generated_by_the_cluster()
    if not statuses:
        assert (waiting.status, waiting.reason) == ("False", "Unschedulable"), waiting
        assert waiting.message == (
            f"pod {objects.ns}/tmpl: spec.resourceClaims[0] (gpu): waiting for the claim made "
            "from template gpu-template (pod status.resourceClaimStatuses names none yet)"
        ), waiting.message
        time.sleep(CYCLES_S)
        assert objects.bound("tmpl") == [], "bound before its claim exists"
        assert devices.claims() == []
        statuses = generated_by_the_cluster()
    if not statuses:
        name = play_resourceclaim_controller(devices, "tmpl", "gpu", "gpu-template")
    else:
        (status,) = statuses
        name = status["resourceClaimName"]

    (pod,) = wait_for("tmpl bound", lambda: objects.bound("tmpl"))
    claim = devices.get_claim(name)
    assert claim["metadata"]["annotations"][POD_CLAIM_ANNOTATION] == "gpu"
    assert claim["metadata"]["labels"] == {"e2e/template": "gpu-template"}
    assert_allocated_to(claim, pod, pod.spec.node_name)
    assert [c["metadata"]["name"] for c in devices.claims()] == [name]


def test_devices_held_by_claims_on_a_later_list_page_are_not_given_again(
        objects, devices, kubelet, schedulers, proxy):
    """A restart on a cluster with more than one page of claims (Shoal
    lists 500 a page): one node with one device, held by claim zz-held
    (allocated and reserved, as a previous scheduler left it), which
    comes on the second page; the pod asking for a device must wait."""
    devices.device_class()
    node = objects.node("n0")
    devices.node_slice(node, count=1)
    for i in range(500):  # the first page, with a-new: the list is in name order
        devices.claim(f"filler-{i:03d}")
    devices.claim("zz-held")
    objects.pod("holder", node_name=node,
                resource_claims=[{"name": "gpu", "resourceClaimName": "zz-held"}])
    holder = objects.c.core.read_namespaced_pod("holder", objects.ns)
    objects.c.custom.patch_namespaced_custom_object_status(
        *RESOURCE, objects.ns, "resourceclaims", "zz-held", {"status": {
            "allocation": {"devices": {"results": [{"request": "gpu", "driver": DRIVER,
                                                    "pool": node, "device": "gpu-0"}]},
                           "nodeSelector": node_selector_of(node)},
            "reservedFor": [{"resource": "pods", "name": "holder",
                             "uid": holder.metadata.uid}]}})
    devices.claim("a-new")
    objects.pod("new", resource_claims=[{"name": "gpu", "resourceClaimName": "a-new"}])
    # The second page of the claims' list comes late.
    proxy.slow_down(3, only="/resourceclaims?limit=500&continue=")
    schedulers(kubeconfig=proxy.kubeconfig())

    def shortfall():
        assert "allocation" not in devices.get_claim("a-new").get("status", {}), (
            f"gpu-0 of {node}, held by zz-held, given again to a-new: "
            f"{devices.get_claim('a-new')['status']}")
        return pod_scheduled(objects, "new")

    wait_for_message("new's PodScheduled condition", shortfall,
                     f"all matching devices of class {CLASS} allocated")
    time.sleep(CYCLES_S)
    shortfall()
    assert objects.bound("new") == []


def test_cluster_role_grants_what_device_allocation_needs():
    """Shoal watches the DRA kinds and writes a claim's allocation through
    its status subresource, before the bind."""
    role = [d for d in yaml.safe_load_all((REPO / "conf" / "rbac.yaml").read_text())
            if d and d["kind"] == "ClusterRole"][0]
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"] for v in rule["verbs"]}
    needed = {("resource.k8s.io", kind, verb)
              for kind in ("resourceslices", "deviceclasses", "resourceclaims")
              for verb in ("get", "list", "watch")}
    needed.add(("resource.k8s.io", "resourceclaims/status", "patch"))
    # The claim serving a pod's extended resources (KEP-5004) Shoal makes.
    needed.add(("resource.k8s.io", "resourceclaims", "create"))
    assert needed <= granted, needed - granted
    # Other claims are the user's (or the resourceclaim controller's).
    assert not {(g, r, v) for g, r, v in granted
                if r == "resourceclaims" and v in ("update", "patch", "delete")}
