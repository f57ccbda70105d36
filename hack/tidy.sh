#!/usr/bin/env bash
# Tidies go.mod and go.sum, and rebuilds go.work.sum:   hack/tidy.sh
#
# Plain `go mod tidy` cannot do it here: it ignores go.work, so it would look up the versions
# go.work replaces (those Talos machinery names), which the module proxy CI builds from does
# not serve. This applies go.work's replacements to go.mod for the tidy and drops them again,
# so go.mod stays free of replace directives (`go install …@vX.Y.Z` refuses them). The tidy
# saw the replacements, not the versions go.mod requires, so it wrote the replacements'
# checksums and dropped those of the required versions: this moves the first to go.work.sum
# and puts back the second, which `go install …@vX.Y.Z` needs, from machinery's own go.sum.
set -euo pipefail
cd "$(dirname "$0")/.."

machinery=github.com/siderolabs/talos/pkg/machinery

# "old new version" for each replacement of go.work, block or single line.
mapfile -t repl < <(awk '
  /^replace \($/ { inblock = 1; next }
  inblock && /^\)/ { inblock = 0; next }
  inblock && $2 == "=>" { print $1, $3, $4 }
  /^replace / && $3 == "=>" { print $2, $4, $5 }
' go.work)
[ "${#repl[@]}" -gt 0 ] || { echo "tidy: no replace in go.work" >&2; exit 1; }

saved=$(mktemp -d)
trap 'rm -rf "$saved"' EXIT
cp go.mod go.sum "$saved/"
# A failed tidy leaves go.mod and go.sum as they were, not half-edited.
restore() { cp "$saved/go.mod" "$saved/go.sum" .; echo "tidy: failed, go.mod and go.sum restored" >&2; }
trap 'restore; rm -rf "$saved"' ERR

for r in "${repl[@]}"; do
  read -r old new version <<<"$r"
  go mod edit -replace "$old=$new@$version"
done
GOWORK=off go mod tidy
for r in "${repl[@]}"; do
  read -r old _ _ <<<"$r"
  go mod edit -dropreplace "$old"
done

# The checksums of the required versions: kept from before the tidy, else machinery's.
machinery_sum="$(go list -m -f '{{.Dir}}' "$machinery")/go.sum"
[ -f "$machinery_sum" ] || { echo "tidy: no $machinery_sum" >&2; false; }
add="$saved/add"
: >"$add"
for r in "${repl[@]}"; do
  read -r old new version <<<"$r"
  required=$(go mod edit -json | awk -v p="\"$old\"" '$1 == "\"Path\":" && $2 == p"," { getline; gsub(/[",]/, "", $2); print $2 }')
  [ -n "$required" ] || continue # tidy found nothing that needs it any more
  for suffix in "" /go.mod; do
    line=$(awk -v p="$old" -v v="$required$suffix" '$1 == p && $2 == v' "$saved/go.sum" "$machinery_sum" | head -n1)
    [ -n "$line" ] || { echo "tidy: no checksum for $old $required$suffix in go.sum or $machinery_sum" >&2; false; }
    echo "$line" >>"$add"
  done
  # The replacement's own lines are the workspace's: go.work.sum gets them below.
  awk -v p="$new" -v v="$version" '!($1 == p && ($2 == v || $2 == v "/go.mod"))' go.sum >"$saved/go.sum.new"
  mv "$saved/go.sum.new" go.sum
done
# The go.mod checksums of what the required versions themselves require, which the tidy
# could not see either: any line it dropped that machinery's go.sum has word for word.
comm -23 <(sort "$saved/go.sum") <(sort go.sum) | grep -Fx -f - "$machinery_sum" | grep ' .*/go.mod ' >>"$add" || true

# go reads go.sum in any order and sorts it (by semver) when it next writes it; version sort
# is that order but for pre-releases of one version.
cat go.sum "$add" | awk '!seen[$0]++' | LC_ALL=C sort -s -t' ' -k1,1 -k2,2V >"$saved/go.sum.new"
mv "$saved/go.sum.new" go.sum

# go.work.sum: every checksum the workspace needs that go.sum lacks, downloaded afresh so no
# line of an old replacement stays.
rm -f go.work.sum
go mod download
trap - ERR
echo "tidied go.mod and go.sum; go.work.sum rebuilt"
