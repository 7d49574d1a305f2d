"""Several replicas: only the Lease holder schedules; a standby takes over
when the leader dies (after the lease runs out) or stops (at once)."""
from harness.cluster import wait_for


def test_only_the_lease_holder_schedules_and_a_standby_takes_over(objects, kubelet, schedulers):
    objects.node("n0", cpu="16")
    args = ["--leader-elect=true", f"--leader-elect-namespace={objects.ns}",
            "--leader-elect-name=shoal", "--leader-elect-lease-duration=3s"]
    first = schedulers(extra_args=args)
    wait_for("the first instance leading", lambda: "leading: lease shoal" in first.text())
    second = schedulers(extra_args=args)
    wait_for("the second instance waiting", lambda: "waiting to lead" in second.text())
    objects.gang("a", 2)
    wait_for("gang a bound", lambda: len(objects.bound("a-")) == 2)
    assert "leading: lease" not in second.text()
    assert "bound" not in second.text()

    first.kill()  # no release: the standby waits out the lease
    wait_for("the standby leading", lambda: "leading: lease shoal" in second.text(), timeout=15)
    objects.gang("b", 2)
    wait_for("gang b bound", lambda: len(objects.bound("b-")) == 2)

    third = schedulers(extra_args=args)
    wait_for("the third instance waiting", lambda: "waiting to lead" in third.text())
    assert second.stop() == 0  # releases the lease on the way out
    wait_for("the third leading without waiting out the lease",
             lambda: "leading: lease shoal" in third.text(), timeout=2)
