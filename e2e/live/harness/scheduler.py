"""Runs the real shoal-scheduler binary against the test cluster."""
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request

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
        # Its own admin socket, so that several schedulers run side by side;
        # in a short directory of its own (a socket path has at most 107
        # bytes, and test directories are named after the tests).
        self.socket_dir = tempfile.mkdtemp(prefix="shoal-")
        self.admin_address = f"unix://{self.socket_dir}/admin.sock"
        args = [cluster_mod.binary("SHOAL_SCHEDULER", "scheduler/shoal-scheduler"),
                f"--kubeconfig={kubeconfig}", f"--scheduler-conf={conf_path}",
                "--scheduler-name=shoal", f"--schedule-period={period}",
                f"--admin-address={self.admin_address}",
                "--metrics-address=127.0.0.1:0", *extra_args]
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

    def http(self, path):
        """GET `path` from its metrics endpoint: (status, body)."""
        match = cluster_mod.wait_for(
            "the metrics endpoint's port in the log",
            lambda: re.search(r"serving /metrics, /healthz and /readyz on \S+ \(port (\d+)\)",
                              self.text()))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}{path}",
                                        timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def metrics(self):
        """The /metrics samples: {(name, ((label, value), ...)): number}."""
        status, body = self.http("/metrics")
        assert status == 200, body
        samples = {}
        for line in body.splitlines():
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)', line)
            assert m, f"not Prometheus text format: {line!r}"
            labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")))
            samples[(m.group(1), labels)] = float(m.group(3))
        return samples

    def text(self):
        return self.log_path.read_text()

    def kill(self):
        """Dies at once, as on a node failure: no clean stop."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.socket_dir, ignore_errors=True)

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
        shutil.rmtree(self.socket_dir, ignore_errors=True)
        return self.proc.returncode

    def running(self):
        return self.proc.poll() is None
