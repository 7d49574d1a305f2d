"""Elastic jobs grow into idle room and shrink when a gang needs it."""
import time

from harness.cluster import wait_for

ELASTIC = "policies/elastic.yaml"
ELASTIC_THROUGHPUT = "policies/elastic-throughput.yaml"
THROUGHPUT = "shoal.dev/throughput"


def status_of(objects, name):
    return objects.get_pod_group(name).get("status", {})


def elastic_target(objects, name, crd_set, expected):
    """Shoal's status.elasticTarget; under Volcano's CRD the API server
    prunes it, so it must be absent while the rest of the status is
    written."""
    status = status_of(objects, name)
    if crd_set == "volcano":
        return "elasticTarget" not in status and status.get("phase") == "Running"
    return status.get("elasticTarget") == expected


def test_elastic_job_grows_then_shrinks_for_a_gang(objects, kubelet, schedulers, crd_set):
    for i in range(2):
        objects.node(f"n{i}", cpu="4", memory="64Gi")
    a = objects.queue("a", weight=1)
    b = objects.queue("b", weight=1)
    objects.gang("edl", 8, min_member=2, queue=a)
    scheduler = schedulers(conf=ELASTIC)
    wait_for("the elastic job grown to the whole cluster", lambda: len(objects.bound("edl-")) == 8)
    wait_for("elasticTarget 8", lambda: elastic_target(objects, "edl", crd_set, 8))

    objects.gang("gang", 4, queue=b)
    wait_for("the gang bound", lambda: len(objects.bound("gang-")) == 4, timeout=40)
    # The elastic job gave back exactly what the gang needed and kept
    # more than its minimum.
    assert len(objects.bound("edl-")) == 4
    evicted = [e.involved_object.name for e in objects.events(reason="Evict")]
    assert len(evicted) == 4 and all(n.startswith("edl-") for n in evicted), evicted
    wait_for("elasticTarget 4", lambda: elastic_target(objects, "edl", crd_set, 4))
    assert status_of(objects, "edl")["phase"] == "Running"
    # Which way PodGroup status is written is said once.
    said = [line for line in scheduler.text().splitlines()
            if "podgroups scheduling.volcano.sh/v1beta1: " in line]
    assert len(said) == 1, said
    assert said[0].endswith(
        "the CRD declares no status subresource; writing status through the PodGroup itself"
        if crd_set == "volcano" else "writing status through the /status subresource"), said


def test_the_gang_that_scales_better_gets_the_extra_pods(objects, kubelet, schedulers, crd_set):
    """Two elastic gangs of 8 one-GPU pods (minMember 1) on 10 GPUs, with
    declared scaling curves. After both minimums, "scales"' next pods add
    0.9 and then 0.85 each up to 8 pods, "barely"'s second adds 0.05 and
    its later ones 0.025, then nothing: "scales" takes 7 extra pods,
    "barely" the one left."""
    for i in range(2):
        objects.node(f"n{i}", cpu="16", memory="64Gi", gpus=5)
    objects.gang("barely", 8, min_member=1, gpus=1,
                 annotations={THROUGHPUT: "1=1,2=1.05,4=1.1,8=1.1"})
    objects.gang("scales", 8, min_member=1, gpus=1,
                 annotations={THROUGHPUT: "1=1,2=1.9,4=3.6,8=7"})
    schedulers(conf=ELASTIC_THROUGHPUT)

    def counts():
        return len(objects.bound("scales-")), len(objects.bound("barely-"))

    wait_for("8 pods of scales and 2 of barely bound", lambda: counts() == (8, 2), timeout=40)
    wait_for("elasticTarget 8", lambda: elastic_target(objects, "scales", crd_set, 8))
    wait_for("elasticTarget 2", lambda: elastic_target(objects, "barely", crd_set, 2))
    # Settled: nothing moves afterwards.
    time.sleep(3)
    assert counts() == (8, 2)
    assert objects.events(reason="Evict") == []
