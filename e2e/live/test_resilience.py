"""Failures: a scheduler killed mid-gang, a gang left half-bound, watches
cut, an API server answering 500 for a while, and a clean SIGTERM."""
import collections
import threading
import time

import pytest
import urllib3

from harness.cluster import wait_for
from harness.objects import Objects


def no_node_overbooked(objects, cpus_per_node):
    used = collections.Counter()
    for pod in objects.bound():
        used[pod.spec.node_name] += int(pod.spec.containers[0].resources.requests["cpu"])
    assert all(v <= cpus_per_node for v in used.values()), used


def test_scheduler_killed_while_binding_a_gang(objects, kubelet, schedulers, proxy):
    for i in range(25):
        objects.node(f"n{i}", cpu="8")
    objects.gang("big", 200, cpu="1")
    # Binds one at a time, each held up 50 ms: about 10 s for the gang.
    proxy.slow_down(0.05, only="/binding")
    first = schedulers(kubeconfig=proxy.kubeconfig(), extra_args=["--bind-concurrency=1"])
    wait_for("the first binds", lambda: len(objects.bound("big-")) >= 5, interval=0.05)
    first.kill()  # SIGKILL: no chance to finish the gang
    partial = len(objects.bound("big-"))
    second = schedulers()
    wait_for("the whole gang bound", lambda: len(objects.bound("big-")) == 200)
    no_node_overbooked(objects, 8)
    assert partial < 200, "the kill came too late to test anything"
    # The new scheduler took the bound pods as they were: no pod was sent
    # a second bind (the API server would have refused it with a 409).
    assert "already assigned" not in second.text()


def test_a_restarted_scheduler_counts_bound_pods_before_its_first_cycle(objects, kubelet,
                                                                         schedulers):
    for i in range(4):
        objects.node(f"n{i}", cpu="4")
    first = schedulers()
    objects.gang("early", 10, cpu="1")
    wait_for("the first gang bound", lambda: len(objects.bound("early-")) == 10)
    assert first.stop() == 0
    # Room for 6 of these 10: the new scheduler's very first cycle must
    # see the 10 bound pods, or it would overbook the nodes.
    for i in range(10):
        objects.pod(f"late-{i}", cpu="1")
    second = schedulers()
    wait_for("the pods that fit bound", lambda: len(objects.bound("late-")) == 6)
    time.sleep(2)  # several more cycles
    assert len(objects.bound("late-")) == 6
    no_node_overbooked(objects, 4)
    assert "already assigned" not in second.text()


def test_a_gang_that_cannot_be_completed_releases_its_bound_pods(objects, kubelet, schedulers):
    node = objects.node("n0", cpu="4")
    objects.gang("stuck", 6, cpu="1")
    # A previous scheduler bound three pods, then the room for the rest
    # went away: only 4 cpus exist for a gang of 6.
    for i in range(3):
        objects.c.core.create_namespaced_binding(objects.ns, {
            "apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": f"stuck-{i}"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}, _preload_content=False)
    wait_for("three pods bound", lambda: len(objects.bound("stuck-")) == 3)
    schedulers(extra_args=["--partial-gang-release-cycles=3"])
    wait_for("the partial gang released", lambda: not objects.bound("stuck-"), timeout=20)
    evicted = objects.events(reason="Evict")
    assert sorted(e.involved_object.name for e in evicted) == ["stuck-0", "stuck-1", "stuck-2"]
    assert all(e.message == "Evicted by shoal: gang-incomplete" for e in evicted)


def test_failed_binds_are_retried(objects, kubelet, schedulers, proxy):
    objects.node("n0", cpu="16")
    proxy.fail(seconds=3, only="/binding")
    scheduler = schedulers(kubeconfig=proxy.kubeconfig())
    objects.gang("g", 4)
    wait_for("a refused bind", lambda: proxy.failed_requests > 0)
    assert not objects.bound("g-")
    wait_for("the gang bound after the binds recover", lambda: len(objects.bound("g-")) == 4,
             timeout=30)
    assert "will retry in a later cycle" in scheduler.text()


def test_watches_cut_mid_stream_are_resumed(objects, kubelet, schedulers, proxy):
    objects.node("n0", cpu="16")
    schedulers(kubeconfig=proxy.kubeconfig())
    objects.pod("before")
    wait_for("the first pod bound", lambda: objects.bound("before"))
    for round_ in range(3):
        wait_for("the scheduler watching again", lambda: len(proxy.watches) >= 5)
        assert proxy.drop_watches() >= 5
        objects.gang(f"after{round_}", 3)
        wait_for(f"gang after{round_} bound", lambda: len(objects.bound(f"after{round_}-")) == 3)


def test_api_server_failing_for_a_while(objects, kubelet, schedulers, proxy):
    objects.node("n0", cpu="16")
    scheduler = schedulers(kubeconfig=proxy.kubeconfig())
    objects.pod("warmup")
    wait_for("warmup bound", lambda: objects.bound("warmup"))
    proxy.fail(seconds=4)
    objects.gang("during", 4)
    time.sleep(2)
    assert not objects.bound("during-")
    assert proxy.failed_requests > 0
    wait_for("the gang bound once the API server recovers",
             lambda: len(objects.bound("during-")) == 4, timeout=40)
    assert scheduler.running()
    assert "HTTP 500" in scheduler.text()


def test_sigterm_stops_cleanly(objects, kubelet, schedulers):
    objects.node("n0", cpu="16")
    scheduler = schedulers()
    objects.gang("g", 4)
    wait_for("gang bound", lambda: len(objects.bound("g-")) == 4)
    assert scheduler.stop() == 0


def test_a_cut_watch_leaves_no_half_read_stream_behind(objects, proxy):
    """A watch is a chunked stream (HTTP/1.1 Transfer-Encoding: chunked),
    as kube-apiserver sends it. Cut mid-chunk, its upstream connection
    must be closed: reused, a later request would read the rest of the
    stream as its answer (BadStatusLine) and a resumed watch would die."""
    path = f"/api/v1/namespaces/{objects.ns}/pods"
    direct = urllib3.PoolManager(retries=False)
    auth = {"Authorization": proxy.auth} if proxy.auth else {}
    stream = proxy.pool.request("GET", f"{proxy.upstream}{path}?watch=1", headers=auth,
                                preload_content=False, timeout=urllib3.Timeout(connect=5, read=10))
    assert stream.headers.get("Transfer-Encoding") == "chunked"
    stream.close()
    stream.release_conn()

    through = urllib3.PoolManager(retries=False, maxsize=1)
    watch = through.request("GET", f"{proxy.url}{path}?watch=1", preload_content=False,
                            timeout=urllib3.Timeout(connect=5, read=10))
    assert watch.status == 200
    wait_for("the watch open at the proxy", lambda: len(proxy.watches) == 1)
    assert proxy.drop_watches() == 1
    # The client sees the stream end in the middle of a chunk.
    with pytest.raises(urllib3.exceptions.ProtocolError):
        for _ in watch.read_chunked():
            pass
    # The API server keeps writing the watch it was asked for into the
    # connection it was asked on, whenever something changes.
    objects.pod("a")
    wait_for("the proxy done with the watch", lambda: not proxy.watches)
    answers = []
    request = threading.Thread(target=lambda: answers.append(
        direct.request("GET", f"{proxy.url}{path}", timeout=10)))
    request.start()
    time.sleep(0.5)
    objects.pod("b")
    request.join(timeout=15)
    assert answers and answers[0].status == 200, answers and answers[0].data[:300]
