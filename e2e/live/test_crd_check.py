"""Installed CRDs that cannot carry what Shoal reads are said: at start,
shoal_crd_pruned_fields per CRD of a kind Shoal reads, and for each field
it honours that the schema would drop, a warning in the log and an
IgnoredFields Event on the CRD (in namespace default, as for any
cluster-scoped object), and `shoalctl crds` lists them. Shoal's CRDs keep
every field; Volcano's, as this suite installs them, drop a PodGroup's
subGroupPolicy and a Queue's priority. On a cluster whose CRDs were there
before the suite, what they drop is whatever their schemas say: each
count matches its warnings, and the three fields whose loss went unnoticed
before are said exactly when the schema, read here, drops them."""
import json

from harness.cluster import wait_for

CHECKED = ["podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh",
           "podgroups.scheduling.x-k8s.io", "hypernodes.topology.volcano.sh"]


def pruned(samples, crd):
    return samples.get(("shoal_crd_pruned_fields", (("crd", crd),)))


def installed(cluster, name):
    try:
        cluster.extensions.read_custom_resource_definition(name)
        return True
    except Exception:  # noqa: BLE001 - absent (404) on this cluster
        return False


def keeps(cluster, crd, version, path):
    """Whether the installed CRD's schema of `version` keeps `path`, read
    here from the schema itself (the oracle for the scheduler's check)."""
    obj = cluster.api.sanitize_for_serialization(
        cluster.extensions.read_custom_resource_definition(crd))
    (v,) = [v for v in obj["spec"]["versions"] if v["name"] == version]
    at = v["schema"]["openAPIV3Schema"]
    for step in path.split("."):
        if at.get("x-kubernetes-preserve-unknown-fields"):
            return True
        props = at.get("properties") or {}
        if step in props:
            at = props[step]
        elif isinstance(at.get("additionalProperties"), dict):
            at = at["additionalProperties"]
        else:
            return False
    return True


def test_installed_crds_are_checked_for_the_fields_shoal_reads(cluster, crd_set, schedulers):
    s = schedulers()
    present = [name for name in CHECKED if installed(cluster, name)]
    assert "podgroups.scheduling.volcano.sh" in present
    m = wait_for("every installed CRD checked", lambda: (
        lambda m: m if all(pruned(m, name) is not None for name in present) else None)(s.metrics()))
    for name in present:
        said = [line for line in s.text().splitlines()
                if f"CustomResourceDefinition {name}: " in line]
        assert pruned(m, name) == len(said), (name, said)
        if said:
            events = cluster.core.list_namespaced_event(
                "default", field_selector=f"involvedObject.name={name},reason=IgnoredFields").items
            messages = [e.message for e in events]
            assert any(f"CustomResourceDefinition {name}: the schema of " in m for m in messages), messages
    # The fields whose loss went unnoticed before: said exactly when the
    # installed schema drops them.
    for crd, version, path in [("podgroups.scheduling.volcano.sh", "v1beta1", "spec.networkTopology"),
                               ("podgroups.scheduling.volcano.sh", "v1beta1", "spec.subGroupPolicy"),
                               ("queues.scheduling.volcano.sh", "v1beta1", "spec.parent")]:
        if crd not in present:
            continue
        said = f"CustomResourceDefinition {crd}: the schema of {version} has no {path}, so"
        assert (said in s.text()) == (not keeps(cluster, crd, version, path)), (crd, path)
    if crd_set == "shoal":
        # The suite checked this one is Shoal's (it has the status
        # subresource); Shoal's keeps every field. Others may predate the
        # suite on a real cluster and are judged by their schema above.
        assert pruned(m, "podgroups.scheduling.volcano.sh") == 0, m
    # shoalctl crds says the same.
    code, out, err = s.shoalctl("-o", "json", "crds")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["checked"] is True, answer
    by_name = {c["name"]: c for c in answer.get("crds", [])}
    for name in present:
        assert len(by_name[name].get("prunedFields", [])) == pruned(m, name), (name, by_name)
    code, table, err = s.shoalctl("crds")
    assert code == 0, err
    assert table.splitlines()[0].split() == ["NAME", "DROPS"], table
    for name in present:
        assert any(line.split()[:1] == [name] for line in table.splitlines()), table
