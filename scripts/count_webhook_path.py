#!/usr/bin/env python3
"""Counts the files one Lemon Squeezy webhook passes from the gateway's route to
the projector's row, for docs/architecture.md ("The path of one Lemon Squeezy
webhook"); `make lint` (scripts/check_docs.py) fails when the stated number
differs from this count.

Method: STEPS lists, per step of the path, the entry points that run (type,
protocol or extension names) and the non-Swift files (nginx template, C
shims). Each entry point counts every Swift file of the path's modules
(MODULES) that declares or extends it (`struct|class|enum|protocol|actor|
extension|func NAME`); files of logging, metrics and start-up configuration are
left out (EXCLUDED). So a new `Type+Aspect.swift` extension of a type on the
path is counted without anyone editing a table; a new step needs a new entry
point here. A free function (`verifyHexSignature`) is an entry point too.

    count_webhook_path.py [--root DIR]          one line per step: its files
    count_webhook_path.py [--root DIR] --count  only the number of files
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

#: The Swift modules the path runs through, by folder.
MODULES = {
    "HTTPPrimitives": "Shared/Platform/HTTPPrimitives", "HTTPServer": "Shared/Platform/HTTPServer", "Timing": "Shared/Platform/Timing",
    "ServiceSettings": "Shared/Platform/ServiceSettings", "CryptoPrimitives": "Shared/Platform/CryptoPrimitives",
    "JSONCodec": "Shared/Platform/JSONCodec", "BillingModel": "Shared/Domain/BillingModel", "Webhooks": "Shared/Domain/Webhooks",
    "Kafka": "Shared/Platform/Kafka", "Postgres": "Shared/Platform/Postgres", "Entitlements": "Shared/Domain/Entitlements",
    "ProjectionStore": "Shared/Domain/ProjectionStore", "WebhookReceiverService": "Services/webhook-receiver/WebhookReceiverService",
    "ProjectorService": "Services/subscription-projector/ProjectorService",
    # Lemon Squeezy's folder: its parts of Webhooks and Entitlements (its configuration is excluded below).
    "LemonSqueezy": "Shared/Domain/Providers/LemonSqueezy",
}
#: Not on the path of one delivery: logs, metrics, start-up and configuration code.
EXCLUDED = re.compile(r"(Metrics|Settings|Configuration|Binary|Environment|Bootstrap)[^/]*\.swift$|/Configuration/(?!Secret\.swift)")

#: (step, entry points, other files)
STEPS = [
    ("gateway: nginx proxies /api/webhooks/ to a receiver", [], ["deploy/nginx/gateway.conf.template"]),
    ("libmicrohttpd and the Swift core collect the request",
     ["ServerCore", "RequestState", "SuspendedRequests", "RequestID", "HTTPRequest", "HTTPHeaders", "HTTPMethod"], ["Shared/Platform/C/CMicroHTTPD/shim.h"]),
    ("routing to POST /api/webhooks/{provider}", ["RouterResponder", "RouteNode", "RouteParameters", "RequestContext"], []),
    ("the receiver's handler", ["WebhookRoutes", "ClientAddress"], []),
    ("signature: HMAC-SHA256, constant-time compare",
     ["WebhookVerifier", "LemonSqueezyWebhookVerifier", "HexHMACCheck", "Secret", "verifyHexSignature", "Hex", "HMAC", "DigestAlgorithm",
      "constantTimeEquals"], ["Shared/Platform/C/CCrypto/shim.h"]),
    ("one parse of the body into the envelope",
     ["ProviderWebhooks", "WebhookFormat", "JSONValue", "JSONReader", "JSONObject", "LemonSqueezyWebhook", "CustomData", "Provider", "Topics",
      "CustomDataKeys", "BillingEvent", "BillingEventKind", "Timestamp", "WebhookEnvelope", "RawBytes", "JSONText"], []),
    ("publish; answer 200 from the delivery report",
     ["WebhookPublisher", "KafkaProducerMessage", "KafkaProducer", "RDKafkaProducerInstance", "RDKafkaClient",
      "RDKafkaProducerContext", "RDKafkaCallbackContext", "RDKafkaProducerPoller", "KafkaDeliveryReport", "ResponseCompletion", "HTTPResponse", "HTTPStatus"],
     ["Shared/Platform/C/CRdKafka/shim.h"]),
    ("the projector's consumer hands out a batch",
     ["KafkaConsumer", "RDKafkaConsumerLoop", "RDKafkaConsumerState", "OffsetGapTracker", "KafkaConsumerRecord", "KafkaConsumerBatch",
      "KafkaTopicPartition", "ProjectorConsumerService", "Backoff", "Duration"], []),
    ("decode the envelope and normalise the payload", ["Projector", "ProjectorRecordDecoder", "ProjectionInput", "RecordCoding"], []),
    ("plan and run one transaction",
     ["ProjectionWriter", "ProjectionPlan", "ProjectionStatements", "PostgresPool", "PostgresConnection", "PostgresPreparedStatement",
      "PostgresBind", "PostgresEncodable", "PostgresJSON", "PostgresDataType", "LibPQ"], ["Shared/Platform/C/CLibPQ/shim.h"]),
    ("fold into the subscription's row; commit",
     ["SubscriptionFold", "SubscriptionState", "SubscriptionStatusReader", "PostgresQuery", "PostgresRow", "PostgresDecodable"], []),
]


def swift_files(root: Path) -> list[Path]:
    files = []
    for folder in MODULES.values():
        files += [path for path in sorted((root / folder).rglob("*.swift")) if not EXCLUDED.search(path.as_posix())]
    return files


def declaring(root: Path, files: list[Path], name: str) -> list[str]:
    pattern = re.compile(rf"^\s*(?:(?:public|package|internal|fileprivate|private|final|@[A-Za-z]+)\s+)*"
                         rf"(?:struct|class|enum|protocol|actor|extension|func)\s+{re.escape(name)}\b", re.MULTILINE)
    return [path.relative_to(root).as_posix() for path in files if pattern.search(path.read_text(errors="replace"))]


def path_files(root: Path) -> tuple[list[tuple[str, list[str]]], list[str]]:
    files = swift_files(root)
    seen: dict[str, None] = {}
    steps = []
    missing = []
    for step, names, others in STEPS:
        found: list[str] = []
        for name in names:
            declared = declaring(root, files, name)
            if not declared:
                missing.append(name)
            found += declared
        for other in others:
            if not (root / other).exists():
                missing.append(other)
            found.append(other)
        new = [file for file in dict.fromkeys(found) if file not in seen]
        seen.update(dict.fromkeys(new))
        steps.append((step, new))
    return steps, missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--count", action="store_true")
    arguments = parser.parse_args()
    steps, missing = path_files(arguments.root)
    if missing:
        print(f"count-webhook-path: no file declares {', '.join(missing)}; update STEPS", file=sys.stderr)
        return 1
    total = sum(len(files) for _, files in steps)
    if arguments.count:
        print(total)
        return 0
    for number, (step, files) in enumerate(steps, 1):
        print(f"{number}. {step} ({len(files)}): {', '.join(files)}")
    print(f"total: {total} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
