"""Fixtures of the end-to-end suite: the cluster (emulator or KUBECONFIG),
Shoal's CRDs and default Queue, a namespace and objects per test, a fake
kubelet, and shoal-scheduler processes."""
import os
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


# Which CRDs the suite runs with: Shoal's (conf/crds.yaml) or Volcano's
# as Volcano ships them (crds/volcano-crds.yaml: no PodGroup /status, a
# schema that prunes Shoal's status.elasticTarget). Set by the Bazel
# targets e2e_test and e2e_volcano_crds_test.
CRD_SETS = {
    "shoal": cluster_mod.REPO / "conf" / "crds.yaml",
    "volcano": pathlib.Path(__file__).parent / "crds" / "volcano-crds.yaml",
}


@pytest.fixture(scope="session")
def crd_set():
    name = os.environ.get("SHOAL_E2E_CRDS", "shoal")
    if name not in CRD_SETS:
        pytest.exit(f"SHOAL_E2E_CRDS={name!r}: must be one of {sorted(CRD_SETS)}", returncode=4)
    return name


@pytest.fixture(scope="session")
def cluster(crd_set):
    c = cluster_mod.start()
    install_crds(c, crd_set)
    ensure_default_queue(c)
    yield c
    c.close()


def install_crds(c, crd_set):
    """The chosen CRDs, unless the cluster has them already; a cluster
    whose PodGroup CRD is shaped the other way is refused."""
    docs = [d for d in yaml.safe_load_all(CRD_SETS[crd_set].read_text()) if d]
    for doc in docs:
        try:
            c.extensions.create_custom_resource_definition(doc)
        except kubernetes.client.ApiException as e:
            if e.status != 409:
                raise
    for doc in docs:
        name = doc["metadata"]["name"]
        cluster_mod.wait_for(f"CRD {name} established", lambda: any(
            cond.type == "Established" and cond.status == "True"
            for cond in (c.extensions.read_custom_resource_definition(name).status.conditions or [])))
    installed = c.extensions.read_custom_resource_definition("podgroups.scheduling.volcano.sh")
    version = [v for v in installed.spec.versions if v.name == "v1beta1"][0]
    has_status = bool(version.subresources and version.subresources.status is not None)
    if has_status != (crd_set == "shoal"):
        pytest.exit(f"SHOAL_E2E_CRDS={crd_set}, but the cluster's podgroups.scheduling.volcano.sh "
                    f"{'has' if has_status else 'has no'} status subresource: the suite would not "
                    "test what it says; install the other set or remove this one", returncode=4)


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
