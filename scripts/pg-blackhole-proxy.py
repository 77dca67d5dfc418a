"""A TCP proxy that can turn into a black hole (make chaos: a network partition).

  pg-blackhole-proxy.py LISTEN_PORT TARGET_PORT [TARGET_HOST]

scripts/stack.sh starts it between the services and PostgreSQL when
STACK_PG_PROXY=1. It forwards both ways until it gets SIGUSR1; from then on
it forwards nothing and closes nothing: bytes in flight stay where they are,
new connections are accepted by the kernel but never reach PostgreSQL, so a
client waits exactly as it would behind a silent network drop (no RST, no
FIN). SIGUSR2 forwards again, held bytes included. SIGTERM stops it.
Standard library only; listens on 127.0.0.1.
"""
import asyncio
import signal
import sys


def say(text):
    print(f"pg-blackhole-proxy: {text}", file=sys.stderr, flush=True)


async def pump(reader, writer, forwarding):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            # While black-holed, hold this chunk and read no more: the
            # sender's socket buffers fill and it blocks, as on a dead link.
            await forwarding.wait()
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass


async def serve(listen_port, target_host, target_port):
    forwarding = asyncio.Event()
    forwarding.set()
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()

    def black_hole():
        forwarding.clear()
        say("black hole: forwarding nothing, closing nothing")

    def resume():
        forwarding.set()
        say("forwarding again")

    loop.add_signal_handler(signal.SIGUSR1, black_hole)
    loop.add_signal_handler(signal.SIGUSR2, resume)
    loop.add_signal_handler(signal.SIGTERM, stopped.set)
    loop.add_signal_handler(signal.SIGINT, stopped.set)

    async def handle(client_reader, client_writer):
        writers, pumps = [client_writer], []
        try:
            # A connection opened during the black hole reaches nothing until it ends.
            await forwarding.wait()
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection(target_host, target_port)
            except OSError as error:
                say(f"cannot reach {target_host}:{target_port}: {error}")
                return
            writers.append(upstream_writer)
            pumps = [asyncio.ensure_future(pump(client_reader, upstream_writer, forwarding)),
                     asyncio.ensure_future(pump(upstream_reader, client_writer, forwarding))]
            # Either side closing (PostgreSQL restarted, a client gone) closes both.
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            pass  # stopping (SIGTERM): close quietly
        finally:
            for task in pumps:
                task.cancel()
            for writer in writers:
                writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    say(f"127.0.0.1:{listen_port} -> {target_host}:{target_port}")
    async with server:
        await stopped.wait()


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
    target_host = sys.argv[3] if len(sys.argv) == 4 else "127.0.0.1"
    asyncio.run(serve(listen_port, target_host, target_port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
