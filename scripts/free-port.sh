#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on and that no other
# caller of this script was handed in the last 30 minutes.
#
# Why not just bind port 0: the kernel hands out its ephemeral range
# (ip_local_port_range, 32768-60999 by default) to every port-0 server and
# every outgoing connection, so a number picked from there can be taken by a
# test's own server before the stack's process binds it; the gateway then
# proxies to a stranger. Ports here come from 20000-32767, below that range,
# and each is reserved with an exclusive file under PORT_RESERVATIONS
# (default /tmp/storefront-ports) so parallel stacks never share one.
exec python3 - "${PORT_RESERVATIONS:-/tmp/storefront-ports}" <<'PY'
import os, random, socket, sys, time

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
low, high = 20000, 32767
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    high = min(high, ephemeral_low - 1)
except (OSError, ValueError, IndexError):
    pass
stale_after = 30 * 60

def reserve(port):
    path = os.path.join(folder, str(port))
    try:
        if time.time() - os.stat(path).st_mtime > stale_after:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        return True
    except FileExistsError:
        return False

def listening(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return False
    except OSError:
        return True
    finally:
        s.close()

for _ in range(2000):
    port = random.randint(low, high)
    if listening(port) or not reserve(port):
        continue
    print(port)
    sys.exit(0)
sys.exit("free-port.sh: no free port in %d-%d" % (low, high))
PY
