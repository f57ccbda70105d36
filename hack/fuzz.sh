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
# Go's fuzzing coordinator before Go 1.27 can end a run that found nothing with "context
# deadline exceeded" as -fuzztime runs out (a race in internal/fuzz, go.dev/issue/75804):
# such a run is tried again, up to three more times (on 2 busy cores about one run in ten
# ends so). A crash is never retried: its input is written under testdata/fuzz and the run
# fails.
fuzz_one() {
  local name=$1 dir=$2 out attempt
  for attempt in 1 2 3 4; do
    if out=$(go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$fuzztime" "$dir" 2>&1); then
      printf '%s\n' "$out"
      return 0
    fi
    printf '%s\n' "$out"
    if ! grep -q 'context deadline exceeded' <<<"$out" || grep -q 'Failing input written to' <<<"$out"; then
      return 1
    fi
    echo "fuzz: $name ended on the engine's deadline with nothing found (attempt $attempt of 4)"
  done
  return 1
}

while read -r name dir; do
  fuzz_one "$name" "$dir"
  count=$((count + 1))
done < <(targets)
[ "$count" -gt 0 ] || { echo "fuzz: found no fuzz test" >&2; exit 1; }
echo "fuzz: $count fuzz tests ran for $fuzztime each"
