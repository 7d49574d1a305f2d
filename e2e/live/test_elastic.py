"""Elastic jobs grow into idle room and shrink when a gang needs it."""
from harness.cluster import wait_for

ELASTIC = "policies/elastic.yaml"


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
