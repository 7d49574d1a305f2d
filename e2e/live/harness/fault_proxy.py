"""A reverse proxy between shoal-scheduler and the API server that can
misbehave on demand: answer 500 to everything for a while, or cut every
open watch. It forwards to whatever cluster the suite runs against (the
emulator, or a real API server using the kubeconfig's credentials), so
the same fault tests run on both."""
import base64
import json
import socket
import ssl
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import urllib3

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate", "host", "content-length"}


class FaultProxy:
    def __init__(self, api_client, tls=None):
        """`tls`: (certificate file, key file) to serve HTTPS with."""
        config = api_client.configuration
        self.upstream = config.host.rstrip("/")
        self.auth = config.api_key.get("authorization") or config.api_key.get("BearerToken")
        if self.auth and config.api_key_prefix.get("authorization"):
            self.auth = f"{config.api_key_prefix['authorization']} {self.auth}"
        pool_args = {"maxsize": 64, "retries": False}
        if self.upstream.startswith("https"):
            pool_args.update(cert_reqs=ssl.CERT_REQUIRED if config.verify_ssl else ssl.CERT_NONE,
                             ca_certs=config.ssl_ca_cert, cert_file=config.cert_file,
                             key_file=config.key_file)
        self.pool = urllib3.PoolManager(**pool_args)
        self.fail_until = 0.0
        self.fail_status = 500
        self.fail_only = None
        self.failed_requests = 0
        self.delay_seconds = 0.0
        self.delay_only = None
        self.watches = set()
        # (method, path, Accept-Encoding asked, status, Content-Encoding
        # answered) of every request relayed, for tests to read.
        self.seen = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.scheme = "http"
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.server.proxy = self
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def kubeconfig(self, ca_file=None):
        """A kubeconfig file that points at the proxy, trusting `ca_file`."""
        from . import cluster
        import yaml
        f = tempfile.NamedTemporaryFile("w", suffix=".kubeconfig", delete=False)
        config = cluster.kubeconfig_for(self.url)
        if ca_file:
            with open(ca_file, "rb") as ca:
                config["clusters"][0]["cluster"]["certificate-authority-data"] = \
                    base64.b64encode(ca.read()).decode()
        yaml.safe_dump(config, f)
        f.close()
        return f.name

    def fail(self, seconds, status=500, only=None):
        """Requests get `status` for `seconds`: every request, with open
        watches cut too (the scheduler has to list again through the
        failure), or only those whose path contains `only`."""
        with self.lock:
            self.fail_status = status
            self.fail_only = only
            self.fail_until = time.monotonic() + seconds
        if only is None:
            self.drop_watches()

    def slow_down(self, seconds, only):
        """Requests whose path contains `only` wait `seconds` first."""
        with self.lock:
            self.delay_seconds = seconds
            self.delay_only = only

    def failing(self, path):
        with self.lock:
            return time.monotonic() < self.fail_until and (
                self.fail_only is None or self.fail_only in path)

    def delay(self, path):
        with self.lock:
            return self.delay_seconds if self.delay_only and self.delay_only in path else 0

    def drop_watches(self):
        """Closes every open watch connection mid-stream."""
        with self.lock:
            watches = list(self.watches)
        for handler in watches:
            handler.cut()
        return len(watches)

    def close(self):
        self.drop_watches()
        self.server.shutdown()
        self.server.server_close()
        self.pool.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.forward()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def cut(self):
        """Ends the watch as a network failure would: in the middle of a
        chunk, and with both connections closed (the upstream one must
        never go back to the pool with the rest of the stream unread)."""
        with self.write_lock:
            self.cut_flag = True
            try:
                # A chunk announced as 64 bytes that never arrives whole.
                self.wfile.write(b'40\r\n{"type":"MODIFIED","obj')
                self.wfile.flush()
            except (OSError, ValueError):
                pass
            for sock in (self.connection, getattr(self, "upstream_sock", None)):
                try:
                    if sock is not None:
                        sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def forward(self):
        proxy = self.server.proxy
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        pause = proxy.delay(self.path)
        if pause:
            time.sleep(pause)
        if proxy.failing(self.path):
            with proxy.lock:
                proxy.failed_requests += 1
            self.reply(proxy.fail_status, {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "injected by the e2e fault proxy", "reason": "InternalError",
                "code": proxy.fail_status})
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers.pop("Authorization", None)
        if proxy.auth:
            headers["Authorization"] = proxy.auth
        watch = "watch=" in self.path and "watch=false" not in self.path and "watch=0" not in self.path
        try:
            upstream = proxy.pool.request(self.command, proxy.upstream + self.path, body=body,
                                          headers=headers, preload_content=False,
                                          timeout=urllib3.Timeout(connect=5, read=None if watch else 60))
        except urllib3.exceptions.HTTPError as e:
            self.reply(502, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                             "message": f"proxy: {e}", "code": 502})
            return
        # The bytes are relayed as they came, compressed or not, with their
        # Content-Encoding: urllib3 would otherwise inflate a gzipped answer
        # and the client, told it is gzip, would fail to inflate it again.
        with proxy.lock:
            proxy.seen.append((self.command, self.path, self.headers.get("Accept-Encoding", ""),
                               upstream.status, upstream.headers.get("Content-Encoding", "")))
        if not watch:
            data = upstream.read(decode_content=False)
            upstream.release_conn()
            self.send_response(upstream.status)
            for k, v in upstream.headers.items():
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.cut_flag = False
        self.write_lock = threading.Lock()
        connection = getattr(upstream, "_connection", None)
        self.upstream_sock = getattr(connection, "sock", None)
        with proxy.lock:
            proxy.watches.add(self)
        finished = False
        try:
            with self.write_lock:
                self.send_response(upstream.status)
                self.send_header("Content-Type",
                                 upstream.headers.get("Content-Type", "application/json"))
                if upstream.headers.get("Content-Encoding"):
                    self.send_header("Content-Encoding", upstream.headers["Content-Encoding"])
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
            chunks = (upstream.read_chunked(decode_content=False) if upstream.chunked
                      else upstream.stream(4096, decode_content=False))
            for chunk in chunks:
                with self.write_lock:
                    if self.cut_flag:
                        break
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            else:
                with self.write_lock:
                    if not self.cut_flag:
                        self.wfile.write(b"0\r\n\r\n")
                        finished = True
        except (OSError, ValueError, urllib3.exceptions.HTTPError):
            pass
        finally:
            with proxy.lock:
                proxy.watches.discard(self)
            if not finished:
                # The stream was not read to its end: its connection is
                # closed, so no later request reads the rest of it as its
                # answer.
                upstream.close()
            upstream.release_conn()
            self.close_connection = True

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
