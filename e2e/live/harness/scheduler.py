"""Runs the real shoal-scheduler binary against the test cluster."""
import os
import pathlib
import signal
import subprocess

from . import cluster as cluster_mod


class Scheduler:
    def __init__(self, kubeconfig, workdir, conf="policies/default.yaml", period="200ms",
                 extra_args=()):
        self.workdir = pathlib.Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        n = len(list(self.workdir.glob("scheduler-*.log")))
        self.log_path = self.workdir / f"scheduler-{n}.log"
        conf_path = pathlib.Path(conf)
        if not conf_path.is_absolute():
            conf_path = cluster_mod.REPO / conf
        # Its own admin socket, so that several schedulers run side by side.
        self.admin_address = f"unix://{self.workdir}/admin-{n}.sock"
        args = [cluster_mod.binary("SHOAL_SCHEDULER", "scheduler/shoal-scheduler"),
                f"--kubeconfig={kubeconfig}", f"--scheduler-conf={conf_path}",
                "--scheduler-name=shoal", f"--schedule-period={period}",
                f"--admin-address={self.admin_address}", *extra_args]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)

    def shoalctl(self, *args):
        """Runs the real shoalctl against this scheduler's admin socket;
        returns (exit code, stdout, stderr)."""
        done = subprocess.run(
            [cluster_mod.binary("SHOALCTL", "tools/shoalctl/shoalctl"),
             f"--address={self.admin_address}", *args],
            capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr

    def text(self):
        return self.log_path.read_text()

    def kill(self):
        """Dies at once, as on a node failure: no clean stop."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.log.close()

    def stop(self, timeout=20):
        """SIGTERM; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"shoal-scheduler did not stop within {timeout}s of SIGTERM")
        self.log.close()
        return self.proc.returncode

    def running(self):
        return self.proc.poll() is None
