"""Gangs that must run inside one network domain (PodGroup
spec.networkTopology hard, highestTierAllowed 1), the domains being
Volcano's HyperNodes, created, changed and read live.

Every test has two racks of two 4-cpu nodes, rack0 = n0, n1 and
rack1 = n2, n3, and gangs of four 2-cpu pods: a rack that is empty holds
one such gang exactly, and a pod anywhere in it leaves room for three.
With no HyperNodes the whole cluster is one tier-1 domain (Volcano's
virtual top), so a hard tier-1 gang may go anywhere: whatever a test
checks about racks, it creates the HyperNodes first and waits until the
scheduler's cache holds them as written (`shoalctl snapshot`)."""
import json

from harness.cluster import wait_for
from harness.objects import VOLCANO

HARD_RACK = {"mode": "hard", "highestTierAllowed": 1}


def rack_gang(objects, name):
    """Four 2-cpu pods, hard tier 1, kept to this test's nodes (a real
    cluster may have others)."""
    return objects.gang(name, 4, cpu="2", network_topology=HARD_RACK,
                        node_selector={"e2e/namespace": objects.ns})


def four_nodes(objects):
    return [objects.node(f"n{i}", cpu="4", memory="16Gi") for i in range(4)]


def racks(objects, n):
    """rack0 by exact names, rack1 by a pattern (both of Volcano's ways)."""
    return (objects.hypernode("rack0", 1, nodes=n[0:2], tier_name="rack"),
            objects.hypernode("rack1", 1, patterns=[f"^{objects.ns}-n[23]$"], tier_name="rack"))


def foreign_pod(objects, name, node, cpu="2"):
    """A pod another scheduler placed: it holds room Shoal must respect."""
    return objects.pod(name, cpu=cpu, scheduler="default-scheduler", node_name=node)


def wait_until_cached(scheduler, objects):
    """Until the scheduler's cache holds this test's HyperNodes exactly as
    the API server has them: every cycle opened afterwards uses them."""
    def cached():
        code, out, err = scheduler.shoalctl("snapshot")
        if code != 0:  # the admin socket is not up yet
            return None
        got = {i["metadata"]["name"]: i["spec"] for i in json.loads(out)["items"]
               if i["kind"] == "HyperNode"}
        want = objects.get_hypernodes()
        return all(got.get(name) == spec for name, spec in want.items())
    wait_for("the scheduler's cache holding the HyperNodes as written", cached)


def cycles(scheduler):
    return scheduler.metrics()[("shoal_scheduling_cycles_total", ())]


def wait_cycles(scheduler, count=5):
    """Until `count` more cycles have run: a decision not made by then is
    not being made (the period is 200 ms)."""
    start = cycles(scheduler)
    wait_for(f"{count} more scheduling cycles", lambda: cycles(scheduler) >= start + count)


def nodes_of(objects, prefix):
    return {p.spec.node_name for p in objects.bound(prefix)}


def network_condition(objects, group):
    """The PodGroup's condition whose message names the network domains,
    if any (Shoal writes conditions through /status or, under Volcano's
    CRDs, through the PodGroup itself)."""
    for c in objects.get_pod_group(group).get("status", {}).get("conditions", []):
        if "no network domain" in (c.get("message") or ""):
            return c
    return None


def network_message(objects, group):
    c = network_condition(objects, group)
    return c and c["message"]


def finish(objects, group):
    """A gang that has completed: its pods and PodGroup go away."""
    for p in objects.pods():
        if p.metadata.name.startswith(group + "-"):
            objects.c.core.delete_namespaced_pod(p.metadata.name, objects.ns,
                                                 grace_period_seconds=0)
    objects.c.custom.delete_namespaced_custom_object(*VOLCANO, objects.ns, "podgroups", group)
    wait_for(f"{group}'s pods gone", lambda: not [
        p for p in objects.pods() if p.metadata.name.startswith(group + "-")])


def test_hypernodes_created_after_start_are_used_next_cycle(objects, kubelet, schedulers):
    n = four_nodes(objects)
    foreign_pod(objects, "other", n[0])  # rack0 has room for 3 such pods, rack1 for 4
    s = schedulers()  # no HyperNodes yet
    # The control: with nothing describing the network, the same gang as
    # below goes where the node scores put it, and that straddles the
    # racks (binpack fills n0's last 2 cpu first, spreading takes empty n1
    # before a second pod on n2 or n3). So the placement asserted at the
    # end is the HyperNodes' doing, not the scores'.
    rack_gang(objects, "before")
    wait_for("gang `before` bound", lambda: len(objects.bound("before-")) == 4)
    placed = nodes_of(objects, "before-")
    assert placed & set(n[0:2]) and placed & set(n[2:4]), placed
    finish(objects, "before")

    racks(objects, n)
    wait_until_cached(s, objects)
    rack_gang(objects, "after")
    wait_for("gang `after` bound", lambda: len(objects.bound("after-")) == 4)
    placed = nodes_of(objects, "after-")
    # Only rack1 holds four: all of it there, two on each node.
    assert placed == set(n[2:4]), placed


def test_a_node_removed_from_a_domain_is_honoured(objects, kubelet, schedulers):
    n = four_nodes(objects)
    foreign_pod(objects, "other", n[2])  # rack1 has room for 3: only rack0 holds a gang
    rack0, rack1 = racks(objects, n)
    s = schedulers()
    wait_until_cached(s, objects)
    # Before the change the gang fits rack0, on both its nodes.
    rack_gang(objects, "before")
    wait_for("gang `before` bound", lambda: len(objects.bound("before-")) == 4)
    assert nodes_of(objects, "before-") == set(n[0:2])
    finish(objects, "before")

    # rack0 loses n1: n1 is in no rack now, and rack0 holds 2 such pods.
    objects.set_hypernode_members(rack0, nodes=[n[0]])
    wait_until_cached(s, objects)
    rack_gang(objects, "after")
    message = wait_for("`after` told no rack holds it", lambda: (
        lambda m: m if m and f"{rack0} has room for 2" in m else None)(
            network_message(objects, "after")))
    assert "no network domain up to tier 1 holds 4 pods of cpu: 2" in message, message
    assert f"{rack1} has room for 3" in message, message
    wait_cycles(s)
    assert objects.bound("after-") == [], "n1 used as if still in rack0"

    # n1 back in rack0: the same gang fits there, and only there.
    objects.set_hypernode_members(rack0, nodes=n[0:2])
    wait_for("gang `after` bound once rack0 has n1 again",
             lambda: len(objects.bound("after-")) == 4)
    assert nodes_of(objects, "after-") == set(n[0:2])


def test_a_hard_gang_waits_and_starts_when_a_rack_frees_up(objects, kubelet, schedulers):
    n = four_nodes(objects)
    rack0, rack1 = racks(objects, n)
    foreign_pod(objects, "other", n[0])  # rack0: room for 3
    # rack1: room for 3, held by a job of Shoal's own, pinned to n2.
    objects.gang("filler", 1, cpu="2", node_selector={"kubernetes.io/hostname": n[2]})
    s = schedulers()
    wait_until_cached(s, objects)
    wait_for("the filler running on n2", lambda: nodes_of(objects, "filler-") == {n[2]})
    # 6 pods of room in all, 3 in each rack: it fits the cluster, no rack.
    rack_gang(objects, "train")
    condition = wait_for("train told no rack holds it", lambda: network_condition(objects, "train"))
    assert (condition["type"], condition["status"]) == ("Unschedulable", "True"), condition
    message = condition["message"]
    assert "no network domain up to tier 1 holds 4 pods of cpu: 2" in message, message
    assert "(spec.networkTopology mode hard, highestTierAllowed 1)" in message, message
    assert f"{rack0} has room for 3" in message and f"{rack1} has room for 3" in message, message
    wait_cycles(s)
    assert objects.bound("train-") == []
    # Not admitted: it holds no room that others could use.
    assert objects.get_pod_group("train").get("status", {}).get("phase") == "Pending"
    assert network_message(objects, "train") is not None
    # The metrics count it as held by the network.
    assert s.metrics()[("shoal_network_topology_waiting_jobs", ())] == 1

    finish(objects, "filler")  # the filler completes: rack1 is empty
    wait_for("train bound whole", lambda: len(objects.bound("train-")) == 4)
    assert nodes_of(objects, "train-") == set(n[2:4])
    wait_for("train Running", lambda: objects.get_pod_group("train").get(
        "status", {}).get("phase") == "Running")
    # Running inside one tier-1 domain, and nothing waits on the network.
    key = ("shoal_network_topology_running_jobs", (("constraint", "hard"), ("tier", "1")))
    m = wait_for("train counted as running in one rack",
                 lambda: (lambda m: m if m.get(key) == 1 else None)(s.metrics()))
    assert m[("shoal_network_topology_waiting_jobs", ())] == 0
