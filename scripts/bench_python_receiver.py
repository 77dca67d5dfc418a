"""The baseline of `make bench`'s receiver figure: a webhook receiver as a
Python team would typically write it (FastAPI on uvicorn, confluent-kafka),
doing the same job as Storefront's webhook-receiver for Lemon Squeezy:

- read the body (bounded), check `X-Signature` (HMAC-SHA256 of the exact
  body, compared in constant time), 401 when it does not match;
- parse the JSON and key the record by the subscription (`lemonsqueezy:<id>`),
  400 when it is not an event;
- produce it to `storefront.webhooks.v1` with acks=all and idempotence, and
  answer 200 only after the broker acknowledged it (503 when it did not).

It publishes the raw body rather than Storefront's envelope, so it does a
little less work than the receiver it is compared with. librdkafka's own
defaults otherwise (linger.ms 5), which batch better than the Swift
receiver's linger 0: the baseline gets the cheaper setting.

Run by scripts/bench.sh (`uvicorn --app-dir scripts bench_python_receiver:app
--workers 2`, from .vendor/bench-python). Environment: KAFKA_BROKERS, WEBHOOK_SECRET, TOPIC (default storefront.webhooks.v1).
"""

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
import threading

from confluent_kafka import KafkaException, Producer
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

SECRET = os.environ["WEBHOOK_SECRET"].encode()
TOPIC = os.environ.get("TOPIC", "storefront.webhooks.v1")
MAX_BODY_BYTES = 1 << 20


class Publisher:
    """One producer per worker process, its delivery reports served by a
    thread of its own and handed to the event loop as future results."""

    def __init__(self, brokers: str) -> None:
        self.producer = Producer({
            "bootstrap.servers": brokers,
            "acks": "all",
            "enable.idempotence": True,
            "client.id": f"python-receiver-{os.getpid()}",
        })
        self.running = True
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while self.running:
            self.producer.poll(0.1)

    async def publish(self, key: str, value: bytes, event: str) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def report(error, _message) -> None:
            def settle() -> None:
                if done.done():
                    return
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(KafkaException(error))
            loop.call_soon_threadsafe(settle)

        self.producer.produce(TOPIC, value=value, key=key, headers=[("event_name", event)], on_delivery=report)
        await done

    def close(self) -> None:
        self.producer.flush(10)
        self.running = False
        self.thread.join()


publisher: Publisher | None = None


@contextlib.asynccontextmanager
async def lifespan(_app: FastAPI):
    global publisher
    publisher = Publisher(os.environ["KAFKA_BROKERS"])
    yield
    publisher.close()


app = FastAPI(lifespan=lifespan)


@app.get("/readyz")
async def ready() -> dict:
    return {"ready": True}


@app.post("/api/webhooks/lemonsqueezy")
async def lemonsqueezy(request: Request):
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        return JSONResponse({"error": "body too large"}, status_code=413)
    expected = hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, request.headers.get("x-signature", "")):
        return JSONResponse({"error": "invalid signature"}, status_code=401)
    try:
        event = json.loads(body)
        key = f"lemonsqueezy:{event['data']['id']}"
        name = event["meta"]["event_name"]
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": "not a Lemon Squeezy event"}, status_code=400)
    try:
        await publisher.publish(key, body, name)
    except (KafkaException, BufferError):
        return JSONResponse({"error": "not published"}, status_code=503)
    return {"received": True}
