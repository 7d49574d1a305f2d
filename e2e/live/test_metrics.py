"""What an operator's Prometheus and probes see: /metrics after a gang is
bound, /readyz before and after the caches sync, /healthz."""
from harness.cluster import wait_for


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))


def test_metrics_after_a_gang_is_bound(objects, kubelet, schedulers):
    objects.node("n0", cpu="8")
    queue = objects.queue("metrics", weight=3)
    objects.gang("g", 4, cpu="1", queue=queue)
    s = schedulers()
    wait_for("g bound", lambda: len(objects.bound("g-")) == 4)
    # The cycle that bound it has published the queue's standing.
    m = wait_for("the gang counted running in its queue", lambda: (
        lambda m: m if value(m, "shoal_queue_running_gangs", queue_name=queue) == 1 else None)(
            s.metrics()))
    assert value(m, "shoal_binds_total", result="success") == 4
    assert value(m, "shoal_binds_total", result="failure") is None
    assert value(m, "shoal_e2e_scheduling_latency_milliseconds_count") >= 1
    assert value(m, "shoal_e2e_scheduling_latency_milliseconds_bucket", le="+Inf") == \
        value(m, "shoal_e2e_scheduling_latency_milliseconds_count")
    assert value(m, "shoal_scheduling_cycles_total") == \
        value(m, "shoal_e2e_scheduling_latency_milliseconds_count")
    assert value(m, "shoal_bind_latency_milliseconds_count") == 4
    assert value(m, "shoal_action_scheduling_latency_milliseconds_count", action="allocate") >= 1
    assert value(m, "shoal_queue_allocated_milli_cpu", queue_name=queue) == 4000
    assert value(m, "shoal_queue_allocated_memory_bytes", queue_name=queue) == 4 * 2**30
    assert value(m, "shoal_queue_weight", queue_name=queue) == 3
    assert value(m, "shoal_queue_pod_group_running_count", queue_name=queue) == 1
    assert value(m, "shoal_queue_pending_gangs", queue_name=queue) == 0
    # The default policy has proportion: what the queue deserves and its share.
    assert value(m, "shoal_queue_deserved_milli_cpu", queue_name=queue) >= 4000
    assert 0 < value(m, "shoal_queue_share", queue_name=queue) <= 1
    # Within its deserved share: nothing borrowed.
    assert value(m, "shoal_queue_borrowed_milli_cpu", queue_name=queue) == 0
    assert value(m, "shoal_schedule_attempts_total", result="scheduled") >= 1
    # The Kubernetes client: lists and binding posts, by verb and code.
    assert value(m, "shoal_api_request_duration_seconds_count", verb="POST", code="201") >= 4


def test_readyz_waits_for_the_caches_and_healthz_is_alive(objects, kubelet, schedulers, proxy):
    proxy.fail(4, only="/api/v1/pods")  # the pod list fails for a while
    s = schedulers(kubeconfig=proxy.kubeconfig())
    status, body = wait_for("a /readyz answer", lambda: s.http("/readyz"))
    assert status == 503, body
    assert "pods" in body, body
    assert s.http("/healthz")[0] == 200
    status, body = wait_for("ready", lambda: (lambda r: r if r[0] == 200 else None)(s.http("/readyz")))
    assert body.strip() == "leader (not electing)", body
    status, body = s.http("/healthz")
    assert (status, body.strip()) == (200, "ok")
