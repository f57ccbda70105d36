#!/usr/bin/env bash
# Runs every fuzz test of the repository for FUZZTIME each (default 5s; minimisation is
# bounded the same way): .ci/run and the GitHub CI workflow both call it, so a new fuzz test
# runs in CI without being listed anywhere. A crash's input stays in testdata/fuzz and runs
# as a test from then on. `hack/fuzz.sh --list` prints the targets, one "FuzzName ./dir/" a
# line, without running them.
set -euo pipefail
cd "$(dirname "$0")/.."

targets() {
  # Every func FuzzX(f *testing.F) in a _test.go file, as "FuzzX ./dir/", sorted.
  grep -rE --include='*_test.go' --exclude-dir=testdata --exclude-dir=.git '^func Fuzz[A-Za-z0-9_]*\(' . |
    sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\2 ./\1/#' |
    sort -u -k2,2 -k1,1
}

if [ "${1:-}" = --list ]; then
  targets
  exit 0
fi

fuzztime="${1:-5s}"
count=0
while read -r name dir; do
  go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$fuzztime" "$dir"
  count=$((count + 1))
done < <(targets)
[ "$count" -gt 0 ] || { echo "fuzz: found no fuzz test" >&2; exit 1; }
echo "fuzz: $count fuzz tests ran for $fuzztime each"
