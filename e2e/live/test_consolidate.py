"""consolidate through the API server: a fragmented GPU cluster is
re-packed (a few pods moved through the Eviction API, their job
controller, played here, making them again) so that a whole-node pod
binds, and every moved pod is bound again elsewhere."""
import collections

from harness.cluster import wait_for

GPU_PACKING = "policies/gpu-packing.yaml"


def test_consolidate_moves_pods_so_a_whole_node_pod_binds(objects, kubelet, schedulers):
    nodes = {i: objects.node(f"n{i}", cpu="64", memory="256Gi", gpus=8) for i in (1, 2, 3)}
    # Four one-GPU jobs on each node: 12 GPUs free, 4 per node.
    small = {}
    for i in (1, 2, 3):
        for k in range(4):
            name = f"small-{i}-{k}"
            objects.gang(name, 1, gpus=1, node_name=nodes[i])
            small[f"{name}-0"] = name
    schedulers(conf=GPU_PACKING)
    wait_for("the small pods running", lambda: len(objects.bound("small-")) == 12)
    objects.gang("big", 1, gpus=8)

    def controller_and_bound():
        # The job controller's part: a moved (deleted) pod is made again.
        existing = {p.metadata.name for p in objects.pods()}
        for pod, group in small.items():
            if pod not in existing:
                objects.pod(pod, gpus=1, group=group)
        return objects.bound("big-") and len(objects.bound("small-")) == 12

    wait_for("the big pod and every moved pod bound", controller_and_bound, timeout=60)
    moved = wait_for("Moved events", lambda: objects.events(reason="Moved"))
    assert 1 <= len(moved) <= 4, [(e.involved_object.name, e.message) for e in moved]
    for e in moved:
        assert e.message.startswith(f"Moved by shoal to make room for {objects.ns}/big-0"), e.message
    big_node = objects.bound("big-")[0].spec.node_name
    gpus = collections.Counter()
    for p in objects.bound():
        gpus[p.spec.node_name] += int(p.spec.containers[0].resources.requests["nvidia.com/gpu"])
    assert gpus[big_node] == 8 and max(gpus.values()) <= 8, gpus
    assert not [p for p in objects.bound("small-") if p.spec.node_name == big_node]
