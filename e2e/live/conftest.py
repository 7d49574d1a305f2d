"""Fixtures of the end-to-end suite: the cluster (emulator or KUBECONFIG),
Shoal's CRDs and default Queue, a namespace and objects per test, a fake
kubelet, and shoal-scheduler processes."""
import pathlib
import sys
import uuid

import kubernetes
import pytest
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import cluster as cluster_mod  # noqa: E402
from harness.fake_kubelet import FakeKubelet  # noqa: E402
from harness.fault_proxy import FaultProxy  # noqa: E402
from harness.objects import VOLCANO, Objects  # noqa: E402
from harness.scheduler import Scheduler  # noqa: E402


@pytest.fixture(scope="session")
def cluster():
    c = cluster_mod.start()
    install_crds(c)
    ensure_default_queue(c)
    yield c
    c.close()


def install_crds(c):
    """Shoal's CRDs from conf/, unless the cluster has them already."""
    for doc in yaml.safe_load_all((cluster_mod.REPO / "conf" / "crds.yaml").read_text()):
        try:
            c.extensions.create_custom_resource_definition(doc)
        except kubernetes.client.ApiException as e:
            if e.status != 409:
                raise
    for doc in yaml.safe_load_all((cluster_mod.REPO / "conf" / "crds.yaml").read_text()):
        name = doc["metadata"]["name"]
        cluster_mod.wait_for(f"CRD {name} established", lambda: any(
            cond.type == "Established" and cond.status == "True"
            for cond in (c.extensions.read_custom_resource_definition(name).status.conditions or [])))


def ensure_default_queue(c):
    try:
        c.custom.create_cluster_custom_object(*VOLCANO, "queues", {
            "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "default"}, "spec": {"weight": 1, "reclaimable": True}})
    except kubernetes.client.ApiException as e:
        if e.status != 409:
            raise


@pytest.fixture
def ns(cluster):
    name = "e2e-" + uuid.uuid4().hex[:8]
    cluster.core.create_namespace({"apiVersion": "v1", "kind": "Namespace",
                                   "metadata": {"name": name}})
    yield name
    try:
        cluster.core.delete_namespace(name)
    except kubernetes.client.ApiException:
        pass


@pytest.fixture
def objects(cluster, ns):
    o = Objects(cluster, ns)
    yield o
    o.cleanup()


@pytest.fixture
def kubelet(cluster, ns):
    k = FakeKubelet(cluster, ns)
    yield k
    k.stop()


@pytest.fixture
def schedulers(cluster, tmp_path):
    """Starts shoal-scheduler processes; each must stop cleanly on SIGTERM."""
    started = []

    def start(kubeconfig=None, **kwargs):
        s = Scheduler(kubeconfig or cluster.kubeconfig, tmp_path, **kwargs)
        started.append(s)
        return s

    yield start
    for s in started:
        if s.running():
            code = s.stop()
            assert code == 0, f"shoal-scheduler exited {code}:\n{s.text()[-3000:]}"


@pytest.fixture
def proxy(cluster):
    p = FaultProxy(cluster.api)
    yield p
    p.close()
