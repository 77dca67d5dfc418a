#!/usr/bin/env bash
# Builds the libFuzzer targets (Tools/fuzz) with `-sanitize=fuzzer,address`
# into their own scratch folder, .build/fuzz (the normal .build/debug is not
# touched), and runs each for a bounded time on a corpus seeded from the
# repository's fixtures, copied to a temporary folder at run time:
#   fuzz-lemonsqueezy-webhook  Lemon Squeezy webhook bodies: X-Signature check
#                              over the raw bytes, the receiver's parse, the
#                              envelope the projector reads back
#   fuzz-paystack-webhook      the same for Paystack (x-paystack-signature)
#   fuzz-stripe-webhook        Stripe bodies and Stripe-Signature headers through
#                              the Stripe pieces (StripeProvider: signature
#                              check, event parse; not yet a receiver route)
#   fuzz-jwt                   the checkout's JWT verifier (tokens, signed
#                              claims and headers, base64url)
# What each checks: Tools/fuzz/FuzzSupport. A crash (or a leak, or a broken
# property) fails the run; the input that caused it is kept under
# .build/fuzz/artifacts/<target>/ and replays with the normal build:
# `swift build --product <target> && .build/debug/<target> <crash file>`.
#
# Settings (defaults): FUZZ_SECONDS (60) per target, FUZZ_TARGETS (all
# four), FUZZ_MAX_LEN (65536 bytes per input), FUZZ_SEED (libFuzzer's seed;
# unset: random), FUZZ_KEEP_CORPUS=DIR (keep each target's grown corpus in
# DIR/<target>). `make fuzz` runs scripts/fuzz-api.sh first, then this.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${FUZZ_SECONDS:-60}
targets=(${FUZZ_TARGETS:-fuzz-lemonsqueezy-webhook fuzz-paystack-webhook fuzz-stripe-webhook fuzz-jwt})
max_len=${FUZZ_MAX_LEN:-65536}
scratch="$root/.build/fuzz"

# libFuzzer's own main is not used (SwiftPM gives every executable its own);
# FuzzEntry finds the driver at run time, so keep it linked and exported.
build_flags=(--scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address
  -Xlinker -u -Xlinker LLVMFuzzerRunDriver -Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver)
for target in "${targets[@]}"; do
  echo "==> fuzz: building $target (-sanitize=fuzzer,address, in .build/fuzz)"
  # (gold warns about every ASan helper it cannot export: noise, filtered out)
  if ! swift build "${build_flags[@]}" --product "$target" >"$scratch.build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$scratch.build.log" >&2 || true
    echo "error: building $target failed" >&2
    exit 1
  fi
  grep -v "Cannot export local symbol" "$scratch.build.log" | tail -n 1
done
bin=$(swift build "${build_flags[@]}" --show-bin-path)

work=$(mktemp -d /tmp/storefront-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

copy_fixtures() { # pattern folder
  local f; for f in Tests/Fixtures/$1; do cp "$f" "$2/$(basename "$f")"; done
}

seed_corpus() { # target folder
  case "$1" in
    fuzz-lemonsqueezy-webhook) copy_fixtures 'lemonsqueezy.webhook.*.json' "$2" ;;
    fuzz-paystack-webhook) copy_fixtures 'paystack.webhook.*.json' "$2" ;;
    fuzz-stripe-webhook) copy_fixtures 'stripe.webhook.*.json' "$2" ;;
    fuzz-jwt)
      # Tokens and their parts for each of JWTFuzzing's modes (first byte),
      # signed with the target's key; the claims come from a webhook fixture's
      # shape of JSON too, so the corpus starts with nested objects.
      python3 - "$2" <<'PY'
import base64, hashlib, hmac, json, sys
out = sys.argv[1]
secret = b"fuzz-jwt-secret-of-thirty-two-bytes!"
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=")
def token(header, claims):
    signing = b64(header) + b"." + b64(claims)
    return signing + b"." + b64(hmac.new(secret, signing, hashlib.sha256).digest())
hs = json.dumps({"alg": "HS256", "typ": "JWT"}).encode()
good = json.dumps({"sub": "user-1", "iss": "fuzz-issuer", "aud": ["fuzz-app", "other"], "exp": 1900000000,
                   "nbf": 1700000000, "iat": 1700000000, "email": "ada@example.com", "email_verified": "true"}).encode()
seeds = {
    "token": b"\x00" + token(hs, good),
    "token-none": b"\x00" + b64(b'{"alg":"none"}') + b"." + b64(good) + b".",
    "token-rs256": b"\x00" + token(b'{"alg":"RS256","kid":"k"}', good),
    "token-expired": b"\x00" + token(hs, json.dumps({"iss": "fuzz-issuer", "aud": "fuzz-app", "exp": 1}).encode()),
    "claims": b"\x01" + good,
    "claims-odd": b"\x01" + b'{"aud":[1],"exp":"soon","nbf":1e308,"iss":null}',
    "header": b"\x02" + hs,
    "header-crit": b"\x02" + b'{"alg":"HS256","crit":["exp"]}',
    "base64": b"\x03" + bytes(range(256)),
}
for name, data in seeds.items():
    open(f"{out}/{name}", "wb").write(data)
PY
      ;;
  esac
}

failed=()
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target" artifacts="$scratch/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  seed_corpus "$target" "$corpus"
  echo "==> fuzz: $target for ${seconds}s ($(ls "$corpus" | wc -l) seed input(s))"
  flags=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         -artifact_prefix="$artifacts/")
  [ -n "${FUZZ_SEED:-}" ] && flags+=(-seed="$FUZZ_SEED")
  # The Swift runtime's backtracer would report a trap before libFuzzer
  # writes the crashing input; leaks are LeakSanitizer's (detect_leaks).
  if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
      "$bin/$target" "${flags[@]}" "$corpus" >"$work/$target.log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$work/$target.log" | tr '\n' ' '; echo
    echo "    $target: no crash in ${seconds}s, corpus $(ls "$corpus" | wc -l) input(s)"
  else
    echo "error: $target crashed; its output (tail):" >&2
    grep -v "^    #[0-9]* 0x" "$work/$target.log" | tail -n 40 >&2
    echo "the input is in $artifacts/ (replay: swift build --product $target && .build/debug/$target FILE)" >&2
    failed+=("$target")
  fi
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then mkdir -p "$FUZZ_KEEP_CORPUS/$target"; cp "$corpus"/* "$FUZZ_KEEP_CORPUS/$target/"; fi
done

echo "fuzz: ${#targets[@]} target(s), $(( ${#targets[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
