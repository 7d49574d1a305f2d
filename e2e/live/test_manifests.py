"""conf/: what `kubectl apply -f conf/` creates must be accepted by the API
server, and must say what the scheduler needs."""
import kubernetes
import yaml

from harness.cluster import REPO
from harness.objects import VOLCANO


def documents(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def create(cluster, doc):
    """Creates one object; an existing one is fine (apply is idempotent)."""
    try:
        if doc["apiVersion"].startswith("scheduling.volcano.sh/"):
            cluster.custom.create_cluster_custom_object(*VOLCANO, "queues", doc)
        else:
            kubernetes.utils.create_from_dict(cluster.api, doc)
    except kubernetes.utils.FailToCreateError as e:
        for failure in e.api_exceptions:
            if failure.status != 409:
                raise
    except kubernetes.client.ApiException as e:
        if e.status != 409:
            raise


def test_conf_applies_in_file_order(cluster):
    files = sorted((REPO / "conf").glob("*.yaml"))
    assert [f.name for f in files][0] == "00-namespace.yaml"
    kinds = []
    for f in files:
        for doc in documents(f):
            create(cluster, doc)
            kinds.append(doc["kind"])
    for doc in documents(REPO / "conf" / "queues" / "default.yaml"):
        create(cluster, doc)
    assert sorted(set(kinds)) == ["ClusterRole", "ClusterRoleBinding", "ConfigMap",
                                  "CustomResourceDefinition", "Deployment", "Namespace",
                                  "ServiceAccount"]
    apps = kubernetes.client.AppsV1Api(cluster.api)
    deployment = apps.read_namespaced_deployment("shoal-scheduler", "shoal-system")
    assert deployment.spec.template.spec.service_account_name == "shoal-scheduler"
    assert cluster.custom.get_cluster_custom_object(*VOLCANO, "queues", "default")
    # Its image is not published; on a cluster with controllers it must
    # not linger trying to pull it.
    apps.delete_namespaced_deployment("shoal-scheduler", "shoal-system")


def test_policy_config_map_is_the_default_policy():
    (config_map,) = documents(REPO / "conf" / "scheduler-policy.yaml")
    assert config_map["data"]["policy.yaml"] == (REPO / "policies" / "default.yaml").read_text()


def test_cluster_role_grants_what_the_scheduler_does_and_no_more():
    role = [d for d in documents(REPO / "conf" / "rbac.yaml") if d["kind"] == "ClusterRole"][0]
    granted = set()
    for rule in role["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                for verb in rule["verbs"]:
                    granted.add((group, resource, verb))
    needed = {("", "nodes", "watch"), ("", "pods", "watch"), ("", "pods/binding", "create"),
              ("", "pods/eviction", "create"), ("", "pods/status", "patch"),
              ("", "events", "create"), ("scheduling.k8s.io", "priorityclasses", "watch"),
              ("scheduling.volcano.sh", "podgroups/status", "patch"),
              ("scheduling.x-k8s.io", "podgroups/status", "patch"),
              ("scheduling.volcano.sh", "podgroups", "patch"),
              ("scheduling.volcano.sh", "queues", "watch"),
              ("scheduling.volcano.sh", "queues", "create"),
              ("coordination.k8s.io", "leases", "update"),
              ("", "persistentvolumes", "watch"), ("", "persistentvolumeclaims", "watch"),
              ("storage.k8s.io", "storageclasses", "watch"),
              ("storage.k8s.io", "csinodes", "watch")}
    assert needed <= granted, needed - granted
    # Pods are never updated or deleted directly: evictions honour budgets.
    assert not {(g, r, v) for g, r, v in granted
                if r == "pods" and v in ("update", "patch", "delete", "create")}
    assert not [g for g in granted if g[1] == "*" or g[2] == "*"]
