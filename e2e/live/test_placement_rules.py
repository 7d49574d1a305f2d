"""Pods placed relative to each other through a real API server: one
worker per node (required anti-affinity), spread over zones, workers that
follow their parameter server's zone; a gang waits whole, saying why."""
import collections

from harness.cluster import wait_for

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def unschedulable(objects, group):
    return [c for c in objects.get_pod_group(group).get("status", {}).get("conditions", [])
            if c["type"] == "Unschedulable" and c["status"] == "True"]


def test_one_worker_per_node_waits_whole_then_takes_four_nodes(objects, kubelet, schedulers):
    for i in range(3):
        objects.node(f"n{i}", cpu="8")
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "train"}}, "topologyKey": HOST}]}}}
    objects.gang("train", 4, spec_extra=anti)
    schedulers()
    condition = wait_for("train's Unschedulable condition", lambda: unschedulable(objects, "train"))
    assert condition[0]["message"] == (
        "4/4 tasks in gang unschedulable: 0/3 nodes are available: 3 node(s) didn't match pod "
        "anti-affinity rules."), condition[0]["message"]
    assert objects.bound("train-") == []
    objects.node("n3", cpu="8")
    wait_for("train bound", lambda: len(objects.bound("train-")) == 4)
    nodes = {p.spec.node_name for p in objects.pods() if p.metadata.name.startswith("train-")}
    assert len(nodes) == 4


def test_spread_over_zones_and_affinity_to_a_zone(objects, kubelet, schedulers):
    zones = {}
    for zone in "abc":
        zones[objects.node(f"{zone}0", cpu="16", labels={ZONE: f"{objects.ns}-{zone}"})] = zone
    spread = {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "spread"}}}]}
    objects.gang("spread", 6, spec_extra=spread)
    objects.pod("ps-0", node_name=[n for n, z in zones.items() if z == "b"][0],
                scheduler="default-scheduler")
    follow = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "ps"}}, "topologyKey": ZONE}]}}}
    objects.gang("worker", 3, spec_extra=follow)
    schedulers()
    wait_for("spread and workers bound",
             lambda: len(objects.bound("spread-")) == 6 and len(objects.bound("worker-")) == 3)
    where = {p.metadata.name: zones[p.spec.node_name] for p in objects.pods()
             if p.spec.node_name}
    per_zone = collections.Counter(z for name, z in where.items() if name.startswith("spread-"))
    assert per_zone == {"a": 2, "b": 2, "c": 2}
    assert {z for name, z in where.items() if name.startswith("worker-")} == {"b"}
