#!/usr/bin/env bash
# Pins the copy-ready workflows (docs/workflows/*.yml) to one commit of talops' own actions:
#   hack/pin-own-actions.sh <full commit SHA> v<major> [repository root]
# Run after a release's major tag has moved to the commit that runs the released image by
# digest (docs/releasing.md, step 4): every `uses: talops/talops/actions/<name>@…` becomes
# `@<sha> # v<major>`, which is what a user copies, and which Renovate's github-actions
# manager moves when the major tag moves. Nothing else in the files changes.
set -euo pipefail

sha="${1:-}"
major="${2:-}"
root="${3:-$(cd "$(dirname "$0")/.." && pwd)}"

if ! [[ "$sha" =~ ^[0-9a-f]{40}$ && "$major" =~ ^v[0-9]+$ ]]; then
  echo "usage: hack/pin-own-actions.sh <40-hex commit SHA> v<major> [root]" >&2
  exit 2
fi

shopt -s nullglob
files=("$root"/docs/workflows/*.yml)
if [ "${#files[@]}" -eq 0 ]; then
  echo "pin-own-actions: no docs/workflows/*.yml under $root" >&2
  exit 1
fi

pinned=0
for f in "${files[@]}"; do
  n=$(grep -cE '^[[:space:]]*(- )?uses: talops/talops/actions/[a-z]+@' "$f" || true)
  [ "$n" -eq 0 ] && continue
  # The action's name and the step's indentation stay; the ref and any comment after it go.
  sed -i.bak -E "s#^([[:space:]]*(- )?uses: talops/talops/actions/[a-z]+)@[^[:space:]]*([[:space:]]*\#.*)?\$#\1@${sha} \# ${major}#" "$f"
  rm -f "$f.bak"
  pinned=$((pinned + n))
done

if [ "$pinned" -eq 0 ]; then
  echo "pin-own-actions: no uses: of talops/talops/actions/* in docs/workflows" >&2
  exit 1
fi

echo "pinned $pinned uses of talops' own actions to $sha # $major"
