#!/usr/bin/env python3
"""Local HTTP/1.1 keep-alive server for the HTTPClient tests.

Binds 127.0.0.1 on a free port, prints the port on stdout, and exits when its
stdin closes (so it dies with the test process that started it).

Endpoints (query parameters in brackets):
  /echo                 any method: JSON of method, path, headers, body, client port
  /slow [ms, key]       waits, then 200 (counting requests per key, when given)
  /flaky [key, failures, status, retry_after]
                        the first `failures` requests per key answer `status`
                        (default 503) with Retry-After; then 200
  /fail [key]           always 503 (no Retry-After), counting attempts per key
  /attempts [key]       how many requests /flaky, /fail or /slow saw for key
  /bytes [n, chunked]   n bytes of body, with Content-Length or chunked
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

counts = {}
counts_lock = threading.Lock()


def bump(key):
    with counts_lock:
        counts[key] = counts.get(key, 0) + 1
        return counts[key]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless the client says otherwise
    # Headers and body go out in separate writes; without TCP_NODELAY the body
    # waits for the client's delayed ACK (about 40 ms per request).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            self.route(url.path, query, body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def route(self, path, query, body):
        key = query.get("key", "")
        if path == "/echo":
            payload = {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("utf-8", "replace"),
                "clientPort": self.client_address[1],
            }
            self.reply(200, json.dumps(payload).encode(), {"Content-Type": "application/json"})
        elif path == "/slow":
            if key:
                bump("slow:" + key)
            time.sleep(int(query.get("ms", "1000")) / 1000)
            self.reply(200, b"slow")
        elif path == "/flaky":
            n = bump("flaky:" + key)
            if n <= int(query.get("failures", "2")):
                status = int(query.get("status", "503"))
                self.reply(status, b"try later", {"Retry-After": query.get("retry_after", "1")})
            else:
                self.reply(200, ("ok after %d" % n).encode())
        elif path == "/fail":
            bump("fail:" + key)
            self.reply(503, b"always failing")
        elif path == "/attempts":
            with counts_lock:
                n = counts.get("flaky:" + key, 0) + counts.get("fail:" + key, 0) + counts.get("slow:" + key, 0)
            self.reply(200, str(n).encode())
        elif path == "/bytes":
            n = int(query.get("n", "0"))
            if query.get("chunked") == "1":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b"x" * 4096
                left = n
                while left > 0:
                    part = chunk[: min(left, len(chunk))]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    left -= len(part)
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.reply(200, b"x" * n)
        else:
            self.reply(404, b"not found")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 drops bursts of connects

    def handle_error(self, request, client_address):
        # Clients that time out or cancel reset their connection: expected here.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # returns at EOF: the parent is gone
    os._exit(0)


if __name__ == "__main__":
    main()
