#!/usr/bin/env python3
"""Checks the gateway's client-address key (deploy/nginx/gateway.conf.template,
`map $remote_addr $storefront_client`) with the nginx that is installed: an
IPv6 address must count by its /64 whatever form nginx writes it in, and
addresses in different /64s must not share a key.

Starts a scratch nginx on a free loopback port with only that map, sends each
address as X-Forwarded-For from a trusted 127.0.0.1 (realip), and compares the
key nginx computed with the /64 Python's ipaddress module computes. IPv4 and
IPv6 that nginx writes with an embedded IPv4 address (dots) count by the whole
address (the binary form), so they are only checked not to be cut.
Usage: check_gateway_keys.py [COUNT]   (default 3000 random addresses)
"""
import http.client
import ipaddress
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy/nginx/gateway.conf.template"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    text = TEMPLATE.read_text(encoding="utf-8")
    found = re.search(r"^map \$remote_addr \$storefront_client \{.*?^\}", text, re.S | re.M)
    if not found:
        print(f"check_gateway_keys: no `map $remote_addr $storefront_client` in {TEMPLATE}", file=sys.stderr)
        return 1
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="gateway-keys.") as scratch:
        conf = Path(scratch) / "nginx.conf"
        temp = " ".join(f"{kind}_temp_path {scratch}/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
        conf.write_text(
            f"pid {scratch}/nginx.pid;\nerror_log {scratch}/error.log warn;\nevents {{ worker_connections 64; }}\n"
            f"http {{\n access_log off; {temp}\n{found.group(0)}\n"
            f" server {{ listen 127.0.0.1:{port}; set_real_ip_from 127.0.0.1; real_ip_header X-Forwarded-For;\n"
            f'  location / {{ default_type text/plain; return 200 "$remote_addr $storefront_client"; }} }}\n}}\n',
            encoding="utf-8")
        user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        server = subprocess.Popen([nginx, "-c", str(conf), "-g", f"daemon off; user {user};"])
        try:
            for _ in range(50):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            return check(port, count)
        finally:
            server.terminate()
            server.wait(timeout=10)


def check(port: int, count: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    def key_of(address: str) -> tuple[str, bytes]:
        connection.request("GET", "/", headers={"X-Forwarded-For": address})
        body = connection.getresponse().read()
        written, _, key = body.partition(b" ")
        return written.decode(), key

    random.seed(34)
    problems = []
    checked = 0
    fixed = ["2001:db8::1", "2001:db8:0:0:1::", "::1", "fe80::1:2:3:4:5", "1::2:3:4:5:6", "::2:3:4:5:6:7", "1:2:3:4:5:6:7:8"]
    for index in range(count + len(fixed)):
        if index < len(fixed):
            address = ipaddress.IPv6Address(fixed[index])
        else:
            # Many zero groups, so every way of folding them into "::" occurs.
            groups = [random.choice([0, 0, 0, 1, random.randrange(1, 65536)]) for _ in range(8)]
            address = ipaddress.IPv6Address(":".join(f"{g:x}" for g in groups))
        written, key = key_of(address.exploded)
        if "." in written:
            continue  # written with an embedded IPv4 address: counted by the whole address
        checked += 1
        want = ":".join(f"{g:x}" for g in [int(address.exploded.split(":")[i], 16) for i in range(4)])
        if key.decode("latin-1") != want:
            problems.append(f"{written}: key {key!r}, want its /64 {want}")
    for address in ["192.0.2.1", "198.51.100.250"]:
        written, key = key_of(address)
        if key != ipaddress.IPv4Address(address).packed:
            problems.append(f"{address}: key {key!r}, want the whole address")
    for problem in problems[:20]:
        print("  " + problem, file=sys.stderr)
    if problems:
        print(f"check_gateway_keys: {len(problems)} address(es) keyed wrongly", file=sys.stderr)
        return 1
    print(f"gateway address keys: {checked} IPv6 addresses counted by their /64, IPv4 by the whole address")
    return 0


if __name__ == "__main__":
    sys.exit(main())
