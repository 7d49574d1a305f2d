"""The cluster the suite runs against.

With KUBECONFIG set, that cluster (a real kube-apiserver; no kubelets are
needed). Otherwise the in-tree emulator (//e2e/emulator) is started on a
free port and a kubeconfig pointing at it is written.
"""
import os
import pathlib
import subprocess
import tempfile
import time

import kubernetes
import yaml

REPO = pathlib.Path(__file__).resolve().parents[3]


def binary(env_name, bazel_path):
    """A binary from the environment (set by the Bazel test), else bazel-bin."""
    path = os.environ.get(env_name) or str(REPO / "bazel-bin" / bazel_path)
    if not os.path.exists(path):
        raise RuntimeError(f"{path} not found: build it with `bazel build //{os.path.dirname(bazel_path)}:all`"
                           f" or set {env_name}")
    return os.path.abspath(path)


class Cluster:
    def __init__(self, kubeconfig, emulator=None):
        self.kubeconfig = kubeconfig
        self.emulator = emulator  # the emulator's process, when we started it
        self.api = kubernetes.config.new_client_from_config(config_file=kubeconfig)
        self.core = kubernetes.client.CoreV1Api(self.api)
        self.custom = kubernetes.client.CustomObjectsApi(self.api)
        self.scheduling = kubernetes.client.SchedulingV1Api(self.api)
        self.policy = kubernetes.client.PolicyV1Api(self.api)
        self.extensions = kubernetes.client.ApiextensionsV1Api(self.api)

    @property
    def is_emulator(self):
        return self.emulator is not None

    def close(self):
        self.api.close()
        if self.emulator is not None:
            self.emulator.terminate()
            self.emulator.wait(timeout=10)


def start():
    if os.environ.get("KUBECONFIG"):
        return Cluster(os.environ["KUBECONFIG"])
    emulator = subprocess.Popen(
        [binary("KUBE_EMULATOR", "e2e/emulator/kube-emulator"), "--port=0", "--bookmark_seconds=2",
         # Bare, as a real kube-apiserver: custom resources are served only
         # as the CRDs the suite installs say.
         "--custom_kinds=false"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = emulator.stdout.readline().strip()
    if not line.startswith("listening on "):
        emulator.kill()
        raise RuntimeError(f"kube-emulator did not start: {line!r}")
    server = line[len("listening on "):]
    kubeconfig = pathlib.Path(tempfile.mkdtemp(prefix="shoal-e2e-")) / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(kubeconfig_for(server)))
    return Cluster(str(kubeconfig), emulator)


def kubeconfig_for(server):
    return {
        "apiVersion": "v1", "kind": "Config", "current-context": "e2e",
        "clusters": [{"name": "e2e", "cluster": {"server": server}}],
        "users": [{"name": "e2e", "user": {"token": "e2e"}}],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e"}}],
    }


def wait_for(what, check, timeout=30, interval=0.1):
    """Polls `check` until it returns a true value; fails naming `what`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
