#!/usr/bin/env bash
# Installs StorefrontKit the way an app does and builds against it (`make
# test` runs it after its build): the working tree as it is (uncommitted
# changes included) is committed into a throwaway git repository named
# `storefront` and tagged with the current version, a scratch app package
# depends on it by `file://` URL with `from: "<version>"`, and its main.swift,
# which uses the kit's public API (compiled, never run against a server),
# is built with each of SwiftPM's build systems: `native` and `swiftbuild`
# (Xcode's engine, SwiftPM's default from 6.4). Either failing prints its
# whole log and fails the script.
#
# Offline: the kit has no dependencies, the URL is a local clone, and every
# SwiftPM cache, configuration and fingerprint goes to the scratch folder,
# not the user's home.
#
# Settings: KIT_VERSION (default: the newest released version in
# CHANGELOG.md), KIT_TAG (default: KIT_VERSION, the release tag format of
# README "Versions and releases"), KIT_BUILD_SYSTEMS ("native swiftbuild"),
# KIT_CRASH_RETRIES (2: see step 3), KIT_CONSUMER_KEEP=1 (keep the scratch
# folder and print where it is).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

version=${KIT_VERSION:-$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' "$root/CHANGELOG.md" 2>/dev/null | head -n 1)}
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "check-kit-consumer: no version: set KIT_VERSION or release one in CHANGELOG.md (## [X.Y.Z] - YYYY-MM-DD)" >&2
  exit 1
fi
tag=${KIT_TAG:-$version}
build_systems=${KIT_BUILD_SYSTEMS:-native swiftbuild}

scratch=$(mktemp -d /tmp/storefront-kit-consumer.XXXXXX)
if [ "${KIT_CONSUMER_KEEP:-0}" = 1 ]; then
  trap 'echo "check-kit-consumer: kept $scratch"' EXIT
else
  trap 'rm -rf "$scratch"' EXIT
fi
now() { date +%s.%N; }
since() { awk -v start="$1" -v end="$(now)" 'BEGIN { printf "%.1f s", end - start }'; }
started=$(now)

# 1. The working tree, committed and tagged in a repository of its own:
#    tracked files as they are now, plus untracked ones git does not ignore
#    (deleted files left out), so what is tested is what would be committed.
repo="$scratch/storefront"
mkdir "$repo"
(
  cd "$root"
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' path; do
        if [ -e "$path" ] || [ -L "$path" ]; then printf '%s\0' "$path"; fi
      done \
    | tar --null --no-recursion --files-from=- -cf - \
    | tar -C "$repo" -xf -
)
git_here() {
  git -C "$repo" -c user.name=check-kit-consumer -c user.email=check-kit-consumer@localhost \
    -c commit.gpgsign=false -c tag.gpgsign=false -c core.hooksPath=/dev/null "$@"
}
git_here init --quiet --initial-branch=main
git_here add --all
git_here commit --quiet --message "working tree of $root"
git_here tag --annotate --message "StorefrontKit $version" "$tag"
files=$(git_here ls-files | wc -l)
echo "==> StorefrontKit $version: the working tree ($files files) committed and tagged $tag in $repo ($(since "$started"))"

# 2. An app package that depends on it as an app would (README, "StorefrontKit").
app="$scratch/app"
mkdir -p "$app/Sources/KitConsumer"
cat > "$app/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KitConsumer",
    platforms: [.macOS(.v15), .iOS(.v16)],
    dependencies: [
        .package(url: "file://$repo", from: "$version")
    ],
    targets: [
        .executableTarget(
            name: "KitConsumer",
            dependencies: [.product(name: "StorefrontKit", package: "storefront")])
    ]
)
EOF
cat > "$app/Sources/KitConsumer/main.swift" <<'EOF'
import Foundation
import StorefrontKit

// The README's walk-through, compiled against the kit's public API. Nothing
// here is called: no server is needed, only the signatures have to match.
let storefront = StorefrontClient(
    baseURL: URL(string: "https://shop.example.com")!,
    options: .init(returnURLs: [URL(string: "myapp://purchase-complete")!])
) { "the app user's JWT" }

func buyFirstProduct(email: String?) async throws(StorefrontError) -> [EntitlementInfo] {
    let products: [Product] = try await storefront.products(cachePolicy: .returnCacheIfFresh)
    guard let first = products.first else { return [] }
    let checkout: CheckoutSession = try await storefront.createCheckout(for: first, email: email)
    print("open", checkout.url)
    switch try await storefront.awaitPurchase(checkout, timeout: .seconds(300)) {
    case .purchased(let granted): return granted
    case .expired, .timedOut: return []
    }
}

func manage() async throws(StorefrontError) {
    if try await storefront.isEntitled(to: "premium", cachePolicy: .reload) {
        let change: SubscriptionChange = try await storefront.cancel()
        print(change.providerStatus)
    }
    for await entitlements in await storefront.entitlementUpdates() {
        print(entitlements.filter(\.isActive).map(\.identifier))
    }
}

// Web-first buyers: an anonymous user until sign-in, redemption and universal links, restore.
func webFirst(_ link: URL) async throws(StorefrontError) {
    let anonymous = StorefrontClient(baseURL: URL(string: "https://shop.example.com")!, appUser: .anonymous)
    switch await anonymous.handleUniversalLink(link) {
    case .redemption(.success(let outcome))?: print(outcome.purchase?.id ?? "\(outcome)")
    case .redemption(.failure(let error))?: print(error.message)
    case .checkoutReturn(let checkoutID, let isKnown)?: print(checkoutID ?? "no checkout id", isKnown)
    case nil:
        let outcome: RedemptionOutcome = try await anonymous.redeem(token: link.absoluteString)
        print(outcome)
    }
    print(await anonymous.anonymousAppUserID ?? "no anonymous user yet")
    let merged: LogInOutcome = try await anonymous.logIn(appUserID: "user-1") { "the signed-in user's JWT" }
    let restored: RestoreResult = try await anonymous.restorePurchases()
    print(merged, restored.claimed.map(\.id), restored.entitlements.count)
    await anonymous.logOut()
}

_ = storefront.handleRedirect(URL(string: "myapp://purchase-complete")!)
print("StorefrontKit client for \(storefront.baseURL)")
EOF

# 3. Build it with each build system, each in its own build folder, with
#    SwiftPM's caches, configuration, home and temporary files (its lock
#    files would otherwise stay behind in /tmp) in the scratch folder:
#    offline, and nothing left in the user's home or /tmp. The swiftbuild engine of SwiftPM 6.3
#    on Linux sometimes crashes in libdispatch before it compiles anything
#    ("Program crashed: Bad pointer dereference" in _dispatch_event_loop_drain,
#    swiftlang/swift#87033; about one run in three on a busy 2-core machine):
#    a build killed by a signal is run again, up to KIT_CRASH_RETRIES (2)
#    times, and said so; a build that fails is never retried.
retries=${KIT_CRASH_RETRIES:-2}
mkdir "$scratch/tmp" "$scratch/home"
status=0
for system in $build_systems; do
  step=$(now)
  attempt=0
  while :; do
    attempt=$((attempt + 1))
    log="$scratch/build-$system-$attempt.log"
    result=0
    # (The braces keep bash's own "Segmentation fault" line out of the output.)
    { (cd "$app" && HOME="$scratch/home" XDG_CACHE_HOME="$scratch/home/.cache" TMPDIR="$scratch/tmp" exec swift build --build-system "$system" --scratch-path "$scratch/build-$system" \
        --cache-path "$scratch/swiftpm-cache" --config-path "$scratch/swiftpm-config" \
        --security-path "$scratch/swiftpm-security" --manifest-cache local) >"$log" 2>&1; } 2>/dev/null || result=$?
    crashed=0
    if [ "$result" -ge 128 ] || grep -q '^\*\*\* Program crashed' "$log"; then crashed=1; fi
    if [ "$result" -ne 0 ] && [ "$crashed" = 1 ] && [ "$attempt" -le "$retries" ]; then
      echo "    swift build --build-system $system crashed (exit $result, $(grep -m 1 '^\*\*\* Program crashed' "$log" || echo 'no backtrace')); running it again"
      continue
    fi
    break
  done
  if [ "$result" -eq 0 ]; then
    echo "==> the app built against StorefrontKit $tag with --build-system $system ($(since "$step"))"
  else
    what="does not build"
    [ "$crashed" = 0 ] || what="could not be built: swift build crashed $attempt time(s)"
    echo "check-kit-consumer: the app $what against StorefrontKit $tag with --build-system $system (exit $result); its log:" >&2
    sed 's/^/    /' "$log" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] || exit "$status"
echo "check-kit-consumer: an app installs StorefrontKit $tag by URL and builds with $build_systems ($(since "$started") in all)"
