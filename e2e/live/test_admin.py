"""The operator's cockpit over the admin service: shoalctl against the
real scheduler on the test cluster."""
import json
import subprocess

from harness import cluster as cluster_mod
from harness.cluster import wait_for


def last_cycle_ran(scheduler):
    code, out, _ = scheduler.shoalctl("-o", "json", "queues")
    return code == 0 and json.loads(out)["source"] == "last cycle"


def test_explain_a_pending_gang_names_each_node_and_a_fix(objects, kubelet, schedulers):
    # 2 nodes of 2 cpu; a gang of 3 two-cpu pods: 2 fit, the third never.
    nodes = [objects.node(f"n{i}", cpu="2") for i in range(2)]
    objects.gang("big", 3, cpu="2")
    s = schedulers()
    wait_for("big's Unschedulable condition", lambda: [
        c for c in objects.get_pod_group("big").get("status", {}).get("conditions", [])
        if c["type"] == "Unschedulable" and c["status"] == "True"])
    code, out, err = s.shoalctl("explain", "podgroup", f"{objects.ns}/big")
    assert code == 0, err
    assert out.startswith(f"PodGroup {objects.ns}/big (queue default): "), out
    assert "minMember 3" in out, out
    # Every test node is in the per-node table of the first pending pod.
    for n in nodes:
        assert any(line.split()[:1] == [n] for line in out.splitlines()), out
    assert "2 of 3 pods the gang still needs fit in the free room now" in out, out
    assert f"one more node like {nodes[0]}" in out or f"one more node like {nodes[1]}" in out, out

    code, out, err = s.shoalctl("-o", "json", "explain", "pod", f"{objects.ns}/big-0")
    assert code == 0, err
    explained = json.loads(out)
    assert explained["podgroup"] == f"{objects.ns}/big"
    assert {n["node"] for n in explained["pods"][0]["nodes"]} >= set(nodes)

    code, out, err = s.shoalctl("explain", "pod", f"{objects.ns}/nosuch")
    assert code == 1
    assert err.startswith(f'Error from server (NotFound): pod "{objects.ns}/nosuch" is not '
                          "pending in Shoal"), err


def test_queues_table(objects, kubelet, schedulers):
    objects.node("n0", cpu="4")
    objects.gang("g", 2, cpu="1")
    s = schedulers()
    wait_for("g bound", lambda: len(objects.bound("g-")) == 2)
    wait_for("a cycle after the binds", lambda: last_cycle_ran(s))
    code, out, err = s.shoalctl("queues")
    assert code == 0, err
    header = out.splitlines()[0].split()
    assert header[:2] == ["NAME", "WEIGHT"], out
    assert any(line.split()[:1] == ["default"] for line in out.splitlines()[1:]), out


def test_snapshot_replays_to_the_decisions_the_live_cycle_makes(objects, kubelet, schedulers,
                                                                 tmp_path):
    # A scheduler that cycles once at start and then not for an hour: the
    # snapshot it serves afterwards holds work it has not decided yet.
    for i in range(3):
        objects.node(f"n{i}", cpu="4")
    idle = schedulers(period="1h")
    wait_for("its first cycle", lambda: last_cycle_ran(idle))
    objects.gang("a", 4, cpu="2")
    objects.gang("b", 3, cpu="1")
    objects.pod("lone", cpu="1")
    dump = tmp_path / "dump.json"

    def captured():
        code, out, err = idle.shoalctl("snapshot")
        assert code == 0, err
        names = {i["metadata"]["name"] for i in json.loads(out)["items"] if i["kind"] == "Pod"}
        if {"a-0", "a-3", "b-2", "lone"} <= names:
            dump.write_text(out)
            return True
        return False
    wait_for("the new pods in the snapshot", captured)
    assert objects.bound() == []  # nothing decided yet
    replayed = subprocess.run(
        [cluster_mod.binary("SHOAL_SCHEDULER", "scheduler/shoal-scheduler"),
         f"--snapshot={dump}", "--scheduler-conf=" + str(cluster_mod.REPO / "policies/default.yaml"),
         "--output=json"], capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0, replayed.stderr
    offline = {b["pod"]: b["node"] for b in json.loads(replayed.stdout)["cycles"][0]["binds"]
               if b["pod"].startswith(objects.ns + "/")}
    assert len(offline) == 8, offline
    assert idle.stop() == 0
    # The same cluster, decided live.
    schedulers()
    wait_for("8 pods bound live", lambda: len(objects.bound()) == 8)
    live = {f"{objects.ns}/{p.metadata.name}": p.spec.node_name for p in objects.bound()}
    assert live == offline


def test_whatif_is_refused_unless_enabled(objects, kubelet, schedulers, tmp_path):
    objects.node("n0", cpu="4")
    objects.gang("w", 2, cpu="1")
    s = schedulers()
    wait_for("w bound", lambda: len(objects.bound("w-")) == 2)
    policy = str(cluster_mod.REPO / "policies/fair-share.yaml")
    code, out, err = s.shoalctl("whatif", f"--policy={policy}")
    assert code == 1
    assert "whatif is disabled; start shoal-scheduler with --admin-allow-whatif" in err, err
    assert out == ""

    assert s.stop() == 0
    allowed = schedulers(extra_args=["--admin-allow-whatif"])
    wait_for("its first cycle", lambda: last_cycle_ran(allowed))
    code, out, err = allowed.shoalctl("-o", "json", "whatif", f"--policy={policy}")
    assert code == 0, err
    assert "binds" not in json.loads(out) or json.loads(out)["binds"] == []  # all placed already
