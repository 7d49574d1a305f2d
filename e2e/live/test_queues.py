"""Queues share the cluster by weight; reclaim and preempt go through the
Eviction API."""
import collections
import json

import kubernetes

from harness.cluster import wait_for
from harness.objects import VOLCANO

FAIR_SHARE = "policies/fair-share.yaml"


def lone_jobs(objects, prefix, count, queue, **pod_args):
    """`count` single-pod PodGroups (minMember 1) in `queue`."""
    for i in range(count):
        objects.gang(f"{prefix}-{i}", 1, queue=queue, **pod_args)


def by_prefix(pods):
    return collections.Counter(p.metadata.name.split("-")[0] for p in pods)


def test_queues_share_by_weight(objects, kubelet, schedulers):
    for i in range(2):
        objects.node(f"n{i}", cpu="8", memory="64Gi")
    light = objects.queue("light", weight=1)
    heavy = objects.queue("heavy", weight=3)
    lone_jobs(objects, "light", 16, light)
    lone_jobs(objects, "heavy", 16, heavy)
    schedulers(conf=FAIR_SHARE)
    wait_for("the 16 cpus in use", lambda: len(objects.bound()) == 16)
    count = by_prefix(objects.bound())
    assert abs(count["light"] - 4) <= 1 and abs(count["heavy"] - 12) <= 1, count


def test_reclaim_takes_back_a_lent_share_through_evictions(objects, kubelet, schedulers):
    for i in range(2):
        objects.node(f"n{i}", cpu="4", memory="64Gi")
    a = objects.queue("a", weight=1)
    b = objects.queue("b", weight=1)
    lone_jobs(objects, "a", 8, a)
    schedulers(conf=FAIR_SHARE)
    wait_for("queue a holding the idle cluster", lambda: len(objects.bound("a-")) == 8)
    objects.gang("b", 4, queue=b)
    wait_for("b's gang bound", lambda: len(objects.bound("b-")) == 4, timeout=40)
    evicted = objects.events(reason="Evict")
    assert len(evicted) == 4, [(e.involved_object.name, e.message) for e in evicted]
    assert all(e.involved_object.name.startswith("a-") for e in evicted)
    assert all(e.message.startswith("Evicted by shoal: reclaim") for e in evicted), evicted[0].message
    assert len(objects.bound("a-")) == 4
    wait_for("b's PodGroup Running with 4 running", lambda: (
        lambda s: (s.get("phase"), s.get("running")) == ("Running", 4))(
            objects.get_pod_group("b").get("status", {})))


def test_high_priority_gang_preempts_through_evictions(objects, kubelet, schedulers):
    for i in range(2):
        objects.node(f"n{i}", cpu="4", memory="64Gi")
    low = objects.priority_class("low", 10)
    high = objects.priority_class("high", 1000)
    lone_jobs(objects, "low", 8, None, priority_class=low)
    schedulers(conf=FAIR_SHARE)
    wait_for("low-priority pods filling the cluster", lambda: len(objects.bound("low-")) == 8)
    objects.gang("urgent", 3, priority_class=high)
    wait_for("the urgent gang bound", lambda: len(objects.bound("urgent-")) == 3, timeout=40)
    preempted = objects.events(reason="Preempted")
    assert len(preempted) == 3, [(e.involved_object.name, e.message) for e in preempted]
    for e in preempted:
        assert e.involved_object.name.startswith("low-")
        assert e.message.startswith(f"Preempted by {objects.ns}/urgent"), e.message
    assert len(objects.bound("low-")) == 5


def test_pod_group_naming_a_missing_queue_says_so(objects, kubelet, schedulers):
    objects.node("n0", cpu="8")
    objects.gang("lost", 2, queue="no-such-queue")
    schedulers()
    condition = wait_for("lost's Unschedulable condition", lambda: [
        c for c in objects.get_pod_group("lost").get("status", {}).get("conditions", [])
        if c["type"] == "Unschedulable"])[0]
    assert condition["status"] == "True" and condition["reason"] == "NotEnqueued"
    assert condition["message"] == 'queue "no-such-queue" does not exist; create it or change spec.queue'
    assert objects.get_pod_group("lost")["status"]["phase"] == "Pending"
    pod = wait_for("the pods' condition", lambda: objects.pod_condition("lost-0"))
    assert pod.message == condition["message"]
    assert objects.bound("lost-") == []


def test_scheduler_creates_the_default_queue_when_missing(cluster, objects, kubelet, schedulers):
    try:
        cluster.custom.delete_cluster_custom_object(*VOLCANO, "queues", "default")
    except kubernetes.client.ApiException as e:
        assert e.status == 404
    objects.node("n0", cpu="8")
    objects.gang("plain", 2)  # names no queue: goes to `default`
    schedulers()
    wait_for("the default Queue", lambda: cluster.custom.list_cluster_custom_object(
        *VOLCANO, "queues", field_selector="metadata.name=default")["items"])
    wait_for("the gang bound in it", lambda: len(objects.bound("plain-")) == 2)


def test_a_queue_borrows_room_another_queue_cannot_use(objects, kubelet, schedulers):
    # Two queues of equal weight on 8 cpus: b's gang asks for a node label
    # no node has, so the 4 cpus it deserves would sit idle behind a fence
    # at a's deserved share (Volcano's proportion). a borrows them, and
    # the metrics say how much.
    for i in range(2):
        objects.node(f"n{i}", cpu="4", memory="64Gi")
    a = objects.queue("a", weight=1)
    b = objects.queue("b", weight=1)
    objects.gang("b", 4, queue=b, node_selector={"accelerator": "none-here"})
    lone_jobs(objects, "a", 8, a)
    s = schedulers(conf=FAIR_SHARE)
    wait_for("queue a borrowing the cpus b cannot use",
             lambda: len(objects.bound("a-")) == 8)
    assert objects.bound("b-") == []
    m = wait_for("a's borrowed cpus in the metrics", lambda: (
        lambda m: m if (m.get(("shoal_queue_borrowed_milli_cpu", (("queue_name", a),)))
                        or 0) > 0 else None)(s.metrics()))
    assert m[("shoal_queue_borrowed_milli_cpu", (("queue_name", a),))] == 4000
    assert m.get(("shoal_queue_borrowed_milli_cpu", (("queue_name", b),))) == 0


def test_a_parent_queue_caps_its_children_together(objects, kubelet, schedulers):
    # The case: on 16 cpus, a parent capped at 8 cpu holds two
    # children with no capability of their own. Whatever the children ask,
    # the subtree runs 8 cpus, and the rest says which queue holds it.
    for i in range(2):
        objects.node(f"n{i}", cpu="8", memory="64Gi")
    eng = objects.queue("eng", capability={"cpu": "8"})
    ml = objects.queue("ml", parent=eng)
    web = objects.queue("web", parent=eng)
    lone_jobs(objects, "ml", 6, ml)
    lone_jobs(objects, "web", 6, web)
    s = schedulers(conf=FAIR_SHARE)
    wait_for("eight pods under eng bound",
             lambda: len(objects.bound("ml-")) + len(objects.bound("web-")) == 8)
    groups = [f"{team}-{i}" for team in ("ml", "web") for i in range(6)]

    def held_message():
        for name in groups:
            for c in objects.get_pod_group(name).get("status", {}).get("conditions", []):
                if "above queue" in (c.get("message") or ""):
                    return c["message"]
        return None
    message = wait_for("the others told which queue holds them", held_message)
    assert f"queue {eng}, above queue" in message, message
    assert len(objects.bound("ml-")) + len(objects.bound("web-")) == 8
    # shoalctl draws the tree: eng under the root, its children indented
    # below it, eng holding the 8 cpus of its subtree.
    code, out, err = s.shoalctl("queues")
    assert code == 0, err
    rows = {line.strip().split()[0]: line for line in out.splitlines()[1:]}
    assert rows[eng].startswith(f"  {eng} "), out
    assert rows[ml].startswith(f"    {ml} ") and rows[web].startswith(f"    {web} "), out
    assert out.index(eng) < out.index(ml) < out.index(web), out
    code, out, err = s.shoalctl("-o", "json", "queues")
    assert code == 0, err
    by_name = {q["name"]: q for q in json.loads(out)["queues"]}
    assert by_name[eng]["parent"] == "root" and by_name[ml]["parent"] == eng
    assert by_name[ml]["depth"] == 2
    assert by_name[eng]["allocated"].startswith("cpu: 8,"), by_name[eng]
