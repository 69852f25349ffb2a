"""The real askonce binary for the tests, and a proxy that can break
connections.

ASKONCE_BIN names the built binary (clients/clients_test.go builds it and
sets it). Without it the tests skip, except under CI=true, where that is a
failure.
"""

from __future__ import annotations

import http.client
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PLUGIN = os.path.join(ROOT, "examples", "exec-plugin", "plugin.py")

_ADDR = re.compile(r"127\.0\.0\.1:([1-9][0-9]*)")


def binary() -> str:
    path = os.environ.get("ASKONCE_BIN", "")
    if path and os.access(path, os.X_OK):
        return path
    why = f"ASKONCE_BIN={path!r} is not an executable" if path else "ASKONCE_BIN is not set"
    if os.environ.get("CI"):
        raise RuntimeError(f"the Python client's tests need the built binary: {why} (go test ./clients sets it)")
    raise unittest.SkipTest(f"{why}: build askonce and set ASKONCE_BIN, or run go test ./clients")


def slow_plugin(seconds: float) -> dict:
    """The environment of an exec interpreter that takes this long per call."""
    return {"ASKONCE_EXEC_COMMAND": f'["sh", "-c", "sleep {seconds}; exec python3 {PLUGIN}"]'}


class Server:
    """One `askonce serve` on a port of its own choosing (--addr
    127.0.0.1:0): the address is read from its start-up log."""

    def __init__(self, *args: str, env: dict | None = None):
        self.dir = tempfile.mkdtemp(prefix="askonce-py-")
        cmd = [binary(), "serve", "--addr", "127.0.0.1:0", "--db", os.path.join(self.dir, "askonce.db"), *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})
        self.log: list[str] = []
        found = threading.Event()
        self.base = ""

        def drain():
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace")
                self.log.append(line)
                m = _ADDR.search(line)
                if m and not self.base:
                    self.base = "http://127.0.0.1:" + m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + 30
        if not found.wait(30) or not self.base:
            self.stop()
            raise RuntimeError("askonce serve did not report its address:\n" + "".join(self.log))
        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("askonce serve did not become healthy:\n" + "".join(self.log))
            time.sleep(0.02)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Proxy:
    """An HTTP proxy in front of upstream that records every request
    (method, path, headers) and can break connections on purpose:

    cut_streams: the first n event streams are cut (the connection closed
    mid-chunk) right after their first event;
    drop_posts: the first n POSTs reach the server, but their response is
    lost (the connection closed before it is sent).
    """

    def __init__(self, upstream: str, cut_streams: int = 0, drop_posts: int = 0):
        self.upstream = upstream.removeprefix("http://")
        self.cut_streams = cut_streams
        self.drop_posts = drop_posts
        self.requests: list[tuple[str, str, dict]] = []
        self.dropped: list[bytes] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy._forward(self)

            do_POST = do_GET

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def streams(self) -> list[dict]:
        """The headers of every event-stream request, in order."""
        with self.lock:
            return [h for m, p, h in self.requests if h.get("accept") == "text/event-stream"]

    def posts(self) -> list[tuple[str, dict]]:
        with self.lock:
            return [(p, h) for m, p, h in self.requests if m == "POST"]

    def _forward(self, h: http.server.BaseHTTPRequestHandler) -> None:
        headers = {k.lower(): v for k, v in h.headers.items()}
        body = h.rfile.read(int(headers.get("content-length", 0) or 0))
        with self.lock:
            self.requests.append((h.command, h.path, headers))
            cut = drop = False
            if headers.get("accept") == "text/event-stream" and self.cut_streams > 0:
                self.cut_streams, cut = self.cut_streams - 1, True
            if h.command == "POST" and self.drop_posts > 0:
                self.drop_posts, drop = self.drop_posts - 1, True
        up = http.client.HTTPConnection(self.upstream, timeout=60)
        fwd = {k: v for k, v in h.headers.items() if k.lower() not in ("host", "connection")}
        up.request(h.command, h.path, body=body or None, headers=fwd)
        resp = up.getresponse()
        try:
            if drop:
                with self.lock:
                    self.dropped.append(resp.read())
                h.close_connection = True
                return
            stream = resp.getheader("Content-Type", "").startswith("text/event-stream")
            h.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                    h.send_header(k, v)
            if not stream:
                data = resp.read()
                h.send_header("Content-Length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
                return
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            seen_data = False
            while True:
                line = resp.readline()
                if not line:
                    h.wfile.write(b"0\r\n\r\n")
                    return
                h.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                h.wfile.flush()
                seen_data = seen_data or line.startswith(b"data:")
                if cut and seen_data and line in (b"\n", b"\r\n"):
                    h.close_connection = True
                    return  # no last chunk: the client sees a broken stream
        finally:
            up.close()
