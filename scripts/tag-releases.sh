#!/usr/bin/env bash
# Creates the release tags CHANGELOG.md's headings name and the repository
# lacks: for each `## [X.Y.Z] - YYYY-MM-DD (commit <hash>)`, an annotated tag
# `X.Y.Z` (bare, as docs/app-developers.md "Versions and releases" says) on
# that commit. A tag that exists is never moved: one that names another
# commit is reported and the script fails.
#   scripts/tag-releases.sh          create the missing tags
#   scripts/tag-releases.sh --check  only report; fail when one is missing or differs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=false
[ "${1:-}" = "--check" ] && check=true
status=0
while read -r version commit; do
  target=$(git -C "$root" rev-parse --verify --quiet "$commit^{commit}") || {
    echo "tag-releases: $version names $commit, which is not a commit here" >&2; status=1; continue; }
  if existing=$(git -C "$root" rev-parse --verify --quiet "refs/tags/$version^{commit}"); then
    if [ "$existing" != "$target" ]; then
      echo "tag-releases: $version is tagged on ${existing:0:7}, the changelog says ${commit}" >&2; status=1
    fi
  elif $check; then
    echo "tag-releases: $version ($commit) is not tagged" >&2; status=1
  else
    git -C "$root" tag -a "$version" "$target" -m "Storefront $version"
    echo "tag-releases: tagged $version on ${target:0:7}"
  fi
done < <(sed -n 's/^## \[\([0-9]*\.[0-9]*\.[0-9]*\)\] - [0-9-]* (commit \([0-9a-f]*\))$/\1 \2/p' "$root/CHANGELOG.md")
exit $status
