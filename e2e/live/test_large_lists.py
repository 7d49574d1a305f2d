"""A cluster larger than one LIST page: the scheduler reads it in pages
of 500, gzipped by the API server, through the fault proxy."""
from harness.cluster import wait_for


def test_a_large_cluster_is_listed_in_gzipped_pages(objects, schedulers, proxy):
    # 1,200 pods already bound to "big" use all of its cpu. Were any of
    # them missed (a page lost, a gzipped page not inflated), "big" would
    # look free and, being the least allocated, take the new gang.
    big = objects.node("big", cpu="1200", memory="4000Gi", pods="1300")
    small = objects.node("small", cpu="2", memory="16Gi")
    for i in range(1200):
        objects.pod(f"bound-{i:04d}", cpu="1", memory="1Gi", node_name=big,
                    scheduler="default-scheduler")
    scheduler = schedulers(kubeconfig=proxy.kubeconfig())
    objects.gang("g", 2, cpu="1", memory="1Gi")
    wait_for("the gang bound", lambda: len(objects.bound("g-")) == 2)
    assert sorted(p.spec.node_name for p in objects.bound("g-")) == [small, small]
    with proxy.lock:
        pod_lists = [s for s in proxy.seen
                     if s[0] == "GET" and s[1].startswith("/api/v1/pods?limit=500")]
        watches = [s for s in proxy.seen if s[1].startswith("/api/v1/pods?watch=")]
    # 1,200 pods and more (other tests' leftovers, system pods) make three
    # pages or more; the full ones crossed the proxy compressed.
    assert len(pod_lists) >= 3, pod_lists
    assert sum("continue=" in s[1] for s in pod_lists) >= 2, pod_lists
    assert all(s[2] == "gzip" and s[3] == 200 for s in pod_lists), pod_lists
    assert pod_lists[0][4] == "gzip", pod_lists
    # Watches were offered gzip too, and are never compressed.
    assert watches and all(s[2] == "gzip" and s[4] == "" for s in watches), watches
    assert "expired" not in scheduler.text()
