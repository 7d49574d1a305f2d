"""Shoal under Volcano v1.7's job controller, played from what that
controller really wrote on a real kube-apiserver
(e2e/fixtures/volcano-v1.7/README.md): each Job's PodGroup first, with the
quota-style names the controller puts in minResources (`count/pods`,
`requests.cpu`, `limits.memory`, ...); a Job's pods only once Shoal has
admitted its PodGroup. Shoal must admit and bind what Volcano's own
scheduler did in the capture, and leave waiting what Volcano left waiting."""
import collections
import dataclasses
import re
import time

from kubernetes.utils import parse_quantity

from harness import capture
from harness.cluster import wait_for
from harness.objects import VOLCANO

PENDING = "volcano-v1.7/pending.yaml"      # the PodGroups, before any pod
SCHEDULED = "volcano-v1.7/scheduled.yaml"  # later: the pods, and what Volcano decided
CAPTURED_NAMESPACE = "capture"

# From a PodGroup's creation to its Job's last bind, admission included.
BIND_BUDGET_S = 5.0
# How long the controller is played at most, so that a late Job is
# reported with its time rather than as missing.
PLAY_LIMIT_S = 15.0
# How long after the last PodGroup's creation a Job Volcano never admitted
# is still watched for leaving Pending (15 cycles of the harness's 200 ms).
WATCH_WAITING_S = 3.0

QUOTA_STYLE = re.compile(r"count/|requests\.|limits\.")
# `cpu` as a resource of its own, not the tail of `requests.cpu`.
CPU = re.compile(r"(?<![\w./-])cpu\b")


@dataclasses.dataclass
class Job:
    """One Volcano Job as its controller wrote it, and what happened to it."""
    name: str
    pod_group: dict = dataclasses.field(repr=False)
    pods: list = dataclasses.field(repr=False)
    admitted_by_volcano: bool
    created_at: float = None
    pods_created: bool = False
    bound_at: float = None
    phases: set = dataclasses.field(default_factory=set)
    status: dict = dataclasses.field(default_factory=dict, repr=False)

    @property
    def group_name(self):
        return self.pod_group["metadata"]["name"]

    def elapsed(self):
        return None if self.bound_at is None else self.bound_at - self.created_at


def job_of(obj):
    """The Job that wrote a PodGroup: its controller owner reference."""
    return next(r["name"] for r in obj["metadata"]["ownerReferences"] if r.get("controller"))


def written_order(obj):
    return int(obj["metadata"]["resourceVersion"])


def captured_jobs(ns, served):
    """The Jobs of the capture, moved into `ns`, in the order the
    controller wrote their PodGroups."""
    pending = capture.load(PENDING)
    scheduled = capture.load(SCHEDULED)
    decided = {g["metadata"]["name"]: g["status"].get("phase")
               for g in capture.of_kind(scheduled, "PodGroup")}
    pods = collections.defaultdict(list)
    for pod in capture.of_kind(scheduled, "Pod"):
        job = pod["metadata"]["labels"]["volcano.sh/job-name"]
        pods[job].append(controller_pod(pod, ns, served))
    jobs = []
    for group in sorted(capture.of_kind(pending, "PodGroup"), key=written_order):
        name = job_of(group)
        jobs.append(Job(name=name,
                        pod_group=capture.drop_owners_the_gc_would_miss(
                            capture.as_sent(group, ns), served),
                        pods=pods[name],
                        admitted_by_volcano=decided[group["metadata"]["name"]] not in
                        (None, "Pending")))
    return jobs


def controller_pod(pod, ns, served):
    """A captured pod as the controller sent it. Kept: everything the
    controller wrote and the fields the API server defaulted (priority,
    tolerations, dnsPolicy, ...: a server accepts a value equal to its own
    default; for priority 0, while no PriorityClass is globalDefault).
    Dropped: nodeName, which is the scheduler's bind, not the
    controller's write. The ssh plugin's Secret and the svc plugin's
    ConfigMap and Service that the mpi pods refer to are not created: no
    scheduler reads them (only a kubelet would, to start the containers)."""
    body = capture.drop_owners_the_gc_would_miss(capture.as_sent(pod, ns), served)
    body["spec"].pop("nodeName", None)
    labels = body["metadata"]["labels"]
    assert labels["volcano.sh/job-namespace"] == CAPTURED_NAMESPACE
    labels["volcano.sh/job-namespace"] = ns  # the controller names its Job's namespace
    return body


def create_captured_nodes(objects):
    """The capture's nodes through the harness (named after the test's
    namespace, removed afterwards), with the capture's labels, capacity and
    allocatable."""
    names = []
    for node in capture.of_kind(capture.load(PENDING), "Node"):
        status = node["status"]
        labels = {k: v for k, v in node["metadata"]["labels"].items()
                  if k != "kubernetes.io/hostname"}  # the harness names it after the node
        alloc = status["allocatable"]
        name = objects.node(node["metadata"]["name"], cpu=alloc["cpu"], memory=alloc["memory"],
                            pods=alloc["pods"], labels=labels)
        # The harness sets cpu, memory and pods; the capture has more
        # (ephemeral-storage).
        objects.c.core.patch_node_status(name, {"status": {
            "capacity": status["capacity"], "allocatable": alloc}})
        names.append(name)
    return names


def play_controller(objects, jobs):
    """Volcano v1.7's job controller's part: every PodGroup first, then a
    Job's pods once its PodGroup has left Pending, as the controller syncs
    a Job's tasks only then. Stops once every Job Volcano admitted has all
    its pods bound and the others have been watched for a while."""
    for job in jobs:
        job.created_at = time.monotonic()
        objects.c.custom.create_namespaced_custom_object(*VOLCANO, objects.ns, "podgroups",
                                                         job.pod_group)
    last_created = jobs[-1].created_at
    while time.monotonic() < last_created + PLAY_LIMIT_S:
        observe(objects, jobs)
        for job in jobs:
            if not job.pods_created and job.status.get("phase") not in (None, "Pending"):
                for pod in job.pods:
                    objects.c.core.create_namespaced_pod(objects.ns, pod)
                job.pods_created = True
        if (all(j.bound_at is not None for j in jobs if j.admitted_by_volcano)
                and time.monotonic() >= last_created + WATCH_WAITING_S):
            return
        time.sleep(0.05)


def observe(objects, jobs):
    """Records each Job's PodGroup status and phase, and when its pods
    were first all seen bound (at most one poll after the last bind)."""
    groups = {g["metadata"]["name"]: g for g in objects.c.custom.list_namespaced_custom_object(
        *VOLCANO, objects.ns, "podgroups")["items"]}
    bound = {p.metadata.name for p in objects.bound()}
    now = time.monotonic()
    for job in jobs:
        assert job.group_name in groups, f"{job.name}'s PodGroup is gone"
        job.status = groups[job.group_name].get("status", {})
        job.phases.add(job.status.get("phase"))
        names = {p["metadata"]["name"] for p in job.pods}
        if job.pods_created and job.bound_at is None and names <= bound:
            job.bound_at = now


def unschedulable(status):
    return next((c for c in status.get("conditions", [])
                 if c["type"] == "Unschedulable" and c["status"] == "True"), None)


def assert_bound_in_time(job):
    why = (unschedulable(job.status) or {}).get("message")
    assert job.pods_created, (
        f"{job.name}: its PodGroup never left Pending (phases {job.phases}), so the controller "
        f"created no pod; Shoal says: {why}")
    assert job.bound_at is not None, f"{job.name}: not all of its {len(job.pods)} pods bound; {why}"
    assert job.elapsed() <= BIND_BUDGET_S, (
        f"{job.name}: last bind {job.elapsed():.2f}s after its PodGroup's creation")


def assert_left_waiting(objects, job):
    assert job.phases <= {None, "Pending"}, f"{job.name} left Pending: {job.phases}"
    assert not job.pods_created and not objects.bound(job.name + "-")
    condition = wait_for(f"{job.name}'s Unschedulable condition",
                         lambda: unschedulable(objects.get_pod_group(job.group_name).get(
                             "status", {})))
    message = condition["message"]
    assert condition["reason"] == "NotEnqueued", condition
    # What it lacks is cpu; the quota-style names are no resource a node
    # has, so a message naming them would blame the wrong thing.
    assert CPU.search(message), message
    assert not QUOTA_STYLE.search(message), message


def requests_of(pod):
    total = collections.Counter()
    for container in pod.spec.containers:
        requests = (container.resources and container.resources.requests) or {}
        for resource, value in requests.items():
            total[resource] += parse_quantity(value)
    return total


def assert_no_node_overbooked(objects, nodes):
    for name in nodes:
        allocatable = objects.c.core.read_node(name).status.allocatable
        pods = [p for p in objects.c.core.list_pod_for_all_namespaces(
            field_selector=f"spec.nodeName={name}").items
            if p.status.phase not in ("Succeeded", "Failed")]
        used = sum((requests_of(p) for p in pods), collections.Counter())
        used["pods"] = len(pods)
        for resource, amount in used.items():
            room = allocatable.get(resource, "0")
            assert amount <= parse_quantity(room), (
                f"{name}: {resource} {amount} bound, {room} allocatable")


def test_jobs_as_volcano_v1_7_controller_writes_them(cluster, objects, kubelet, schedulers):
    served = capture.served_group_versions(cluster)
    jobs = captured_jobs(objects.ns, served)
    # As the fixture's README says; guards the assertions below against
    # a capture in which nothing would be tested.
    assert {j.name: j.admitted_by_volcano for j in jobs} == {
        "tf": True, "big": False, "elastic": True, "small": True, "mpi": True}
    assert all(j.pods for j in jobs if j.admitted_by_volcano)

    nodes = create_captured_nodes(objects)
    # The capture's outcome (`big` never fits) holds on its two nodes only.
    # Earlier tests delete their nodes as they end; give a slow server a
    # moment before calling a node left over a foreign one.
    def others():
        return [n.metadata.name for n in objects.c.core.list_node().items
                if n.metadata.name not in nodes]
    deadline = time.monotonic() + 10
    while others() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not others(), f"the cluster must have no nodes but this test's: found {others()}"
    scheduler = schedulers()
    wait_for("the scheduler's caches synced", lambda: scheduler.http("/readyz")[0] == 200)

    play_controller(objects, jobs)
    print("\n".join(f"{j.name}: phases {sorted(map(str, j.phases))}, last bind "
                    + (f"{j.elapsed():.2f}s" if j.bound_at is not None else "never")
                    + " after its PodGroup's creation" for j in jobs))
    for job in jobs:
        if job.admitted_by_volcano:
            assert_bound_in_time(job)
        else:
            assert_left_waiting(objects, job)
    assert_no_node_overbooked(objects, nodes)
