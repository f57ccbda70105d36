#!/usr/bin/env bash
# Measures the whole talops process on a generated lab: peak RSS, cpu and wall time of
# validate, render and plan --against (10 nodes changed, and the state against itself):
#   hack/rss.sh [nodes] [runs]      (500 nodes, 5 runs of each; medians are printed)
# `talops version` comes first: what the binary alone makes resident (its file-backed pages
# that package inits touch, and their heap), which every command pays. The environment
# passes through: GOMEMLIMIT=60MiB hack/rss.sh measures under a soft memory limit.
# The lab is testlab.Scaled, the one the benchmarks in internal/cli/bench_test.go use,
# written to a temporary directory by internal/testlab's TestWriteScaled. The target
# (docs/performance.md) is a peak RSS under 80 MiB for each command at 500 nodes.
set -euo pipefail

nodes="${1:-500}"
runs="${2:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
# Built as the release builds it (.goreleaser.yaml, Dockerfile): without cgo. (A cgo build
# once linked Go plugin support, through kustomize under kubectl's drain, which kept every
# exported method: 25 MB more. talops links neither now; the release build is still the
# one measured.)
CGO_ENABLED=0 go build -trimpath -tags grpcnotrace -ldflags "-s -w" -o "$work/talops" ./cmd/talops
# The size and package count docs/performance.md tracks (issue 31).
echo "binary: $(stat -c %s "$work/talops") bytes stripped, $(go list -deps ./cmd/talops | wc -l) packages linked"
# How much of the binary a run maps depends on how its pages sit in the page cache: on
# Linux 6.18 with ext4 a file just written (built, installed, unpacked from an image layer)
# has more of it mapped per page touched (most likely the large folios it was cached in)
# than once it was read back from disk: up to some 14 MiB more. Unless RSS_AS_WRITTEN=1,
# its cached pages are dropped first, so that every run measures the binary as read from
# disk, as one installed a while ago is.
cache="as written"
if [ "${RSS_AS_WRITTEN:-}" != 1 ]; then
  cache="read from disk"
  sync "$work/talops"
  dd if="$work/talops" iflag=nocache count=0 status=none
fi
TALOPS_SCALED_LAB="$work/base" TALOPS_SCALED_NODES="$nodes" \
  go test -count 1 -run '^TestWriteScaled$' ./internal/testlab/ >/dev/null
cp -r "$work/base" "$work/same"
cp -r "$work/base" "$work/desired"

# As the benchmark does: the first ten workers' own patches rename their host.
for i in $(seq 3 12); do
  name=$(printf 'node-%02d' "$i")
  sed -i "s/^hostname: $name\$/hostname: $name-renamed/" "$work/desired/nodes/$name.yaml"
  grep -q "^hostname: $name-renamed\$" "$work/desired/nodes/$name.yaml" ||
    { echo "rss: could not change $name" >&2; exit 1; }
done

# measure NAME CMD...: runs CMD $runs times and prints the medians of peak RSS, cpu (user +
# system) and wall time. Exit codes 0 and 2 (a plan with changes) count as success.
measure() {
  local name="$1"; shift
  local rss=() cpu=() wall=()
  for _ in $(seq "$runs"); do
    local rc=0
    /usr/bin/time -f '%M %U %S %e' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
      echo "rss: $name exited $rc:" >&2; cat "$work/stderr" >&2; exit 1
    fi
    read -r kib user sys elapsed <"$work/time"
    rss+=("$kib"); cpu+=("$(echo "$user + $sys" | bc)"); wall+=("$elapsed")
  done
  median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  printf '%-34s peak RSS %5.1f MiB   cpu %5.2f s   wall %5.2f s\n' "$name" \
    "$(echo "$(median "${rss[@]}") / 1024" | bc -l)" "$(median "${cpu[@]}")" "$(median "${wall[@]}")"
}

bin="$work/talops"
echo "$nodes nodes, medians of $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), binary $(( $(stat -c %s "$bin") / 1000000 )) MB, GOMEMLIMIT=${GOMEMLIMIT-unset}, binary $cache"
measure "version" "$bin" version
measure "validate" "$bin" validate --offline --dir "$work/desired"
measure "render" "$bin" render --throwaway --dir "$work/desired" --out "$work/out"
measure "plan --against (10 changed)" "$bin" plan --offline --dir "$work/desired" --against "$work/base"
measure "plan --against itself" "$bin" plan --offline --dir "$work/same" --against "$work/base"
