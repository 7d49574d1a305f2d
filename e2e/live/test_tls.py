"""The scheduler's TLS: it talks to an HTTPS API server whose certificate
its kubeconfig's CA signed, and refuses one it did not."""
import subprocess

from harness.cluster import wait_for
from harness.fault_proxy import FaultProxy


def self_signed(directory, name):
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


def test_https_with_the_kubeconfig_ca(cluster, objects, kubelet, schedulers, tmp_path):
    server = self_signed(tmp_path, "server")
    proxy = FaultProxy(cluster.api, tls=server)
    try:
        objects.node("n0", cpu="4")
        objects.gang("g", 2)
        schedulers(kubeconfig=proxy.kubeconfig(ca_file=server[0]))
        wait_for("the gang bound over HTTPS", lambda: len(objects.bound("g-")) == 2)
    finally:
        proxy.close()


def test_a_server_certificate_the_ca_did_not_sign_is_refused(cluster, objects, schedulers,
                                                            tmp_path):
    server = self_signed(tmp_path, "server")
    other_ca = self_signed(tmp_path, "other")
    proxy = FaultProxy(cluster.api, tls=server)
    try:
        objects.node("n0", cpu="4")
        objects.pod("p")
        scheduler = schedulers(kubeconfig=proxy.kubeconfig(ca_file=other_ca[0]))
        wait_for("a certificate error in the log",
                 lambda: "certificate" in scheduler.text().lower(), timeout=15)
        line = [l for l in scheduler.text().splitlines() if "certificate" in l.lower()][0]
        assert "https://127.0.0.1:" in line, line
        assert "the kubeconfig's certificate-authority did not sign the server's certificate" \
            in line, line
        assert objects.bound() == []
    finally:
        proxy.close()
