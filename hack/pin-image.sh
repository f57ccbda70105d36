#!/usr/bin/env bash
# Pins every actions/<name>/action.yml to one published image by digest:
#   hack/pin-image.sh ghcr.io/talops/talops:v1.2.3@sha256:<64 hex> [repository root]
# The release workflow runs it with the digest docker/build-push-action reports and opens a
# pull request with the result (docs/releasing.md). The tag stays beside the digest for
# readers; the digest is what Docker pulls, so a moved tag cannot change what an action runs.
set -euo pipefail

ref="${1:-}"
root="${2:-$(cd "$(dirname "$0")/.." && pwd)}"

if ! [[ "$ref" =~ ^ghcr\.io/talops/talops:v[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*@sha256:[0-9a-f]{64}$ ]]; then
  echo "usage: hack/pin-image.sh ghcr.io/talops/talops:vX.Y.Z@sha256:<digest> [root]" >&2
  exit 2
fi

shopt -s nullglob
files=("$root"/actions/*/action.yml)
if [ "${#files[@]}" -eq 0 ]; then
  echo "pin-image: no actions/*/action.yml under $root" >&2
  exit 1
fi

for f in "${files[@]}"; do
  # Exactly one image line per action: anything else is a file this script does not know.
  n=$(grep -cE '^  image: docker://ghcr\.io/talops/talops[:@]' "$f" || true)
  if [ "$n" -ne 1 ]; then
    echo "pin-image: $f has $n image lines of ghcr.io/talops/talops, want 1" >&2
    exit 1
  fi
  sed -i.bak -E "s#^(  image: docker://)ghcr\.io/talops/talops[:@][^[:space:]]*#\1${ref}#" "$f"
  rm -f "$f.bak"
done

echo "pinned ${#files[@]} actions to $ref"
