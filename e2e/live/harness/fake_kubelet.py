"""Plays the kubelet's part for one namespace, since the reference cluster
has none: a pod bound to a node starts Running, and a pod marked for
deletion (by an eviction) is deleted for good, as a kubelet does once its
containers have stopped."""
import threading

import kubernetes


class FakeKubelet:
    def __init__(self, cluster, namespace, period=0.1):
        self.core = cluster.core
        self.namespace = namespace
        self.period = period
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self):
        self.stopped.set()
        self.thread.join(timeout=5)

    def _run(self):
        while not self.stopped.wait(self.period):
            try:
                self.sync()
            except kubernetes.client.ApiException:
                pass  # the next round sees the new state

    def sync(self):
        for pod in self.core.list_namespaced_pod(self.namespace).items:
            name = pod.metadata.name
            if pod.metadata.deletion_timestamp is not None:
                self.core.delete_namespaced_pod(name, self.namespace, grace_period_seconds=0)
            elif pod.spec.node_name and pod.status.phase == "Pending":
                self.core.patch_namespaced_pod_status(name, self.namespace, {
                    "status": {"phase": "Running", "conditions": [
                        {"type": "Ready", "status": "True"}]}})
