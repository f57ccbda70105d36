#!/usr/bin/env bash
# Pins every FROM of the Dockerfile to the digest its tag names now:
#   hack/pin-base-images.sh [Dockerfile]
# Each image keeps its tag beside the digest (image:tag@sha256:…): the tag for readers and
# Renovate, the digest for Docker. The digest is the image index's, so that a multi-arch build
# (linux/amd64 and linux/arm64) finds every platform under it. Needs docker buildx and the
# registries; run it to move a base image, and review the diff.
set -euo pipefail

file="${1:-$(cd "$(dirname "$0")/.." && pwd)/Dockerfile}"

images=$(sed -nE 's#^FROM[[:space:]]+(--[^[:space:]]+[[:space:]]+)*([^[:space:]$@]+:[^[:space:]@]+)(@sha256:[0-9a-f]{64})?([[:space:]].*)?$#\2#p' "$file" | sort -u)
if [ -z "$images" ]; then
  echo "pin-base-images: no FROM image:tag in $file" >&2
  exit 1
fi

for image in $images; do
  digest=$(docker buildx imagetools inspect --format '{{json .Manifest}}' "$image" | sed -nE 's/.*"digest":"(sha256:[0-9a-f]{64})".*/\1/p' | head -n1)
  if ! [[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]]; then
    echo "pin-base-images: no digest for $image" >&2
    exit 1
  fi
  # The tag's own characters ('.', '-') are literal in the pattern.
  quoted=$(printf '%s' "$image" | sed -e 's/[.[\*^$/]/\\&/g')
  sed -i.bak -E "s#^(FROM[[:space:]]+(--[^[:space:]]+[[:space:]]+)*)${quoted}(@sha256:[0-9a-f]{64})?([[:space:]]|$)#\1${image}@${digest}\4#" "$file"
  rm -f "$file.bak"
  echo "$image@$digest"
done
