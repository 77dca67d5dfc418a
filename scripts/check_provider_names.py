#!/usr/bin/env python3
"""Fails when service code names a payment provider (issue 36, item 6).

Everything that knows one provider lives in its folder,
`Shared/Domain/Providers/<Provider>/`; services ask the registry
(`ProviderDirectory`, a provider's definition and its conformances) and never
name a provider. This check reads every Swift file under `Services/`, drops
comments (they may explain with an example) and looks, in the code and its
string literals, for a provider's name or type (`LemonSqueezy…`, `Stripe…`,
`Paystack…`, "Lemon Squeezy", `lemonsqueezy`), or its settings
(`LEMONSQUEEZY_…`, `STRIPE_…`, `PAYSTACK_…`); the match ignores case.

ALLOWED lists exceptions as (path, reason); it is empty, and an entry needs a
reason a reviewer can accept.

    check_provider_names.py [--root DIR]   one line per finding; exit 1 when any
    check_provider_names.py --self-test    plants findings and exceptions in a scratch tree
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from swift_text import code_of

SCOPE = "Services"
NAMES = re.compile(r"lemon[ _]?squeezy|stripe|paystack", re.IGNORECASE)
#: (path relative to the root, why it may name a provider)
ALLOWED: list[tuple[str, str]] = []


def findings(root: Path) -> list[str]:
    allowed = {path for path, _ in ALLOWED}
    found = []
    for path in sorted((root / SCOPE).rglob("*.swift")):
        relative = path.relative_to(root).as_posix()
        if relative in allowed:
            continue
        for number, line in enumerate(code_of(path.read_text(errors="replace"), keep_strings=True).split("\n"), 1):
            match = NAMES.search(line)
            if match:
                found.append(f"{relative}:{number}: names the provider {match.group(0)!r}: {line.strip()[:120]}")
    return found


def self_test() -> int:
    planted = {
        f"{SCOPE}/a/A.swift": 'let verifier = LemonSqueezyWebhookVerifier()\n',
        f"{SCOPE}/a/B.swift": 'let name = "STRIPE_SECRET_KEY"\n',
        f"{SCOPE}/a/C.swift": '/* Paystack */ let text = """\n  enable Lemon Squeezy\n  """\n',
        f"{SCOPE}/a/Clean.swift": '// Paystack orders by receipt.\n/* Stripe\n */ let url = "https://example.com/x" // stripe\n',
        "Shared/Domain/Providers/Stripe/StripeThing.swift": "struct StripeThing {}\n",
    }
    with tempfile.TemporaryDirectory(prefix="check-provider-names.") as scratch:
        root = Path(scratch)
        for relative, text in planted.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
        found = findings(root)
    expected = {f"{SCOPE}/a/A.swift:1", f"{SCOPE}/a/B.swift:1", f"{SCOPE}/a/C.swift:2"}
    got = {":".join(line.split(":")[:2]) for line in found}
    if got != expected:
        print(f"check-provider-names self-test: expected findings at {sorted(expected)}, got {sorted(got)}", file=sys.stderr)
        return 1
    print("check-provider-names self-test: 3 planted names found, comments and provider folders passed over")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    found = findings(arguments.root)
    for line in found:
        print(f"check-provider-names: {line}", file=sys.stderr)
    if found:
        print("check-provider-names: services ask the registry (a provider's definition and conformances, "
              "Shared/Domain/Providers/<Provider>/) instead of naming a provider", file=sys.stderr)
        return 1
    print(f"check-provider-names: no provider named in {SCOPE}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
