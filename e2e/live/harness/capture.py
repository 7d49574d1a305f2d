"""Objects captured from a real cluster (e2e/fixtures/), turned back into
the requests their writer sent: without what the API server set, and in a
test's own namespace."""
import copy

import kubernetes
import yaml

from . import cluster as cluster_mod

FIXTURES = cluster_mod.REPO / "e2e" / "fixtures"

# Written by the API server, never by a client: a create carrying
# resourceVersion is refused by kube-apiserver, the rest would be
# overwritten or would claim an identity the object does not have here.
SERVER_METADATA = ("uid", "resourceVersion", "creationTimestamp", "generation",
                   "managedFields", "selfLink", "deletionTimestamp",
                   "deletionGracePeriodSeconds")


def load(path):
    """The items of a captured `kubectl get -o yaml` list under FIXTURES."""
    return yaml.safe_load((FIXTURES / path).read_text())["items"]


def of_kind(items, kind):
    return [item for item in items if item["kind"] == kind]


def as_sent(obj, namespace=None):
    """A copy of captured `obj` as a client would create it: no status,
    none of the server's metadata, and in `namespace` if namespaced."""
    body = copy.deepcopy(obj)
    body.pop("status", None)
    meta = body["metadata"]
    for field in SERVER_METADATA:
        meta.pop(field, None)
    if "namespace" in meta:
        meta["namespace"] = namespace
    return body


def served_group_versions(cluster):
    """Every API version the cluster serves, as an apiVersion field spells
    it ("v1" for the core group, which every server serves)."""
    groups = kubernetes.client.ApisApi(cluster.api).get_api_versions().groups
    return {"v1"} | {v.group_version for g in groups for v in g.versions}


def drop_owners_the_gc_would_miss(body, served):
    """Removes the ownerReferences whose owner's API the cluster serves.

    A captured object's owners (the objects that wrote it) do not exist in
    the test cluster. A garbage collector that can look up the owner's kind
    finds the owner missing and deletes the object mid-test; one that
    cannot (the API is not served: a bare kube-apiserver, the emulator, or
    a cluster with only the scheduling CRDs) retries forever and deletes
    nothing, so there the references are kept as written."""
    refs = body["metadata"].get("ownerReferences")
    if refs:
        kept = [r for r in refs if r["apiVersion"] not in served]
        if kept:
            body["metadata"]["ownerReferences"] = kept
        else:
            del body["metadata"]["ownerReferences"]
    return body
