#!/usr/bin/env bash
# Prints the figures issue 31 and docs/performance.md track, in one run:
#   hack/bench.sh [sizes] [rounds]      (default: "50 500 2000 5000", 5 rounds)
# - the stripped binary's size, built without and with cgo;
# - start-up: peak RSS and cpu of `talops --help`, cpu of `validate` of the reference lab,
#   and the cpu of a process that does nothing (`true`), counted the same way;
# - for each lab size: the cpu (user + system) of validate, render, plan --against (10 nodes
#   changed) and plan --base (the same change, the base read out of Git), their ratios to
#   validate, validate's and plan's cpu per node, and each command's peak RSS;
# - between one size and the next, what one more node costs each command, and how far apart
#   the steps are (the dearest over the cheapest).
# Rounds are interleaved (one of each command, then the next round), so that a machine
# whose load changes during the run moves every command alike; medians are printed.
# The labs are testlab.Scaled (the benchmarks' lab), written by internal/testlab's
# TestWriteScaled; the environment passes through (GOMEMLIMIT, GOGC).
set -euo pipefail

sizes="${1:-50 500 2000 5000}"
rounds="${2:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# run NAME CMD...: runs CMD once and appends its cpu seconds and peak KiB to NAME's lists.
# Exit codes 0 and 2 (a plan with changes) count as success. The cpu is the shell's account
# of its children (to the millisecond: /usr/bin/time's is to the hundredth), less what
# /usr/bin/time itself takes (`true` under it, less `true` alone); the peak RSS is
# /usr/bin/time's.
TIMEFORMAT='%3U %3S'
overhead=0
run() {
  local name="$1"; shift
  local rc=0
  { time { /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>"$work/stderr" || rc=$?; }; } 2>"$work/time"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    echo "bench: $name exited $rc:" >&2; cat "$work/stderr" >&2; exit 1
  fi
  local user sys
  read -r user sys <"$work/time"
  awk -v u="$user" -v s="$sys" -v o="$overhead" 'BEGIN { c = u + s - o; printf "%.3f\n", c < 0 ? 0 : c }' >>"$work/$name.cpu"
  cat "$work/rss" >>"$work/$name.rss"
}
cpu() { median $(cat "$work/$1.cpu"); }
rss() { awk -v k="$(median $(cat "$work/$1.rss"))" 'BEGIN { printf "%.0f", k / 1024 }'; }

# The release build (no cgo) and what a plain build on a machine with a C compiler gives.
CGO_ENABLED=0 go build -trimpath -tags grpcnotrace -ldflags "-s -w" -o "$work/talops" ./cmd/talops
CGO_ENABLED=1 go build -trimpath -tags grpcnotrace -ldflags "-s -w" -o "$work/talops-cgo" ./cmd/talops
bin="$work/talops"
# A binary just written is cached in large folios and maps more per page touched than one
# read back from disk (hack/rss.sh): drop its pages, as for one installed a while ago.
sync "$bin"
dd if="$bin" iflag=nocache count=0 status=none

echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), GOMEMLIMIT=${GOMEMLIMIT-unset}, medians of $rounds interleaved rounds"
echo "binary (stripped): $(stat -c %s "$bin") bytes without cgo, $(stat -c %s "$work/talops-cgo") with cgo; $(go list -deps ./cmd/talops | wc -l) packages"

for _ in $(seq 11); do
  run overhead true
  { time "$(type -P true)"; } 2>>"$work/true.time"
done
overhead=$(awk -v w="$(median $(cat "$work/overhead.cpu"))" -v t="$(median $(awk '{ print $1 + $2 }' "$work/true.time"))" \
  'BEGIN { o = w - t; printf "%.3f", o < 0 ? 0 : o }')
for _ in $(seq "$rounds"); do
  run help "$bin" --help
  run lab "$bin" validate --offline --dir examples/homelab
done
# What any process costs here, counted the same way (a fork and an exec): on a virtual
# machine it is several ms, which every figure below carries too.
nothing=$(median $(awk '{ printf "%.3f\n", $1 + $2 }' "$work/true.time"))
echo "start-up: --help $(rss help) MiB peak RSS, $(cpu help) s cpu; validate of examples/homelab $(cpu lab) s cpu (less ${overhead} s of /usr/bin/time's own; a process that does nothing, \`true\`: ${nothing} s)"

marginal=()
printf '\n%6s %9s %9s %9s %9s %7s %7s %7s %10s %10s %s\n' nodes validate render plan base render/v plan/v base/v "v ms/node" "p ms/node" "peak RSS MiB (v/r/p/b)"
for nodes in $sizes; do
  lab="$work/lab-$nodes"
  TALOPS_SCALED_LAB="$lab/base" TALOPS_SCALED_NODES="$nodes" \
    go test -count 1 -run '^TestWriteScaled$' ./internal/testlab/ >/dev/null
  cp -r "$lab/base" "$lab/desired"
  # As the benchmarks do: the first ten workers' own patches rename their host.
  for i in $(seq 3 $((nodes < 13 ? nodes - 1 : 12))); do
    name=$(printf 'node-%02d' "$i")
    sed -i "s/^hostname: $name\$/hostname: $name-renamed/" "$lab/desired/nodes/$name.yaml"
  done
  # plan --base: the base committed, the change in the work tree.
  cp -r "$lab/base" "$lab/git"
  git -C "$lab/git" init -q
  git -C "$lab/git" add -A
  git -C "$lab/git" -c user.name=bench -c user.email=bench@localhost commit -qm base
  cp -r "$lab/desired/." "$lab/git/"

  rm -f "$work"/{validate,render,plan,base}.{cpu,rss}
  for _ in $(seq "$rounds"); do
    run validate "$bin" validate --offline --dir "$lab/desired"
    run render "$bin" render --throwaway --dir "$lab/desired" --out "$lab/out"
    run plan "$bin" plan --offline --dir "$lab/desired" --against "$lab/base"
    run base "$bin" plan --offline --dir "$lab/git" --base HEAD
  done
  v=$(cpu validate) r=$(cpu render) p=$(cpu plan) b=$(cpu base)
  printf '%6s %9s %9s %9s %9s %7s %7s %7s %10s %10s %s/%s/%s/%s\n' "$nodes" "$v" "$r" "$p" "$b" \
    "$(ratio "$r" "$v")" "$(ratio "$p" "$v")" "$(ratio "$b" "$v")" \
    "$(ratio "$(awk -v c="$v" 'BEGIN { print c * 1000 }')" "$nodes")" \
    "$(ratio "$(awk -v c="$p" 'BEGIN { print c * 1000 }')" "$nodes")" \
    "$(rss validate)" "$(rss render)" "$(rss plan)" "$(rss base)"
  marginal+=("$nodes $v $r $p $b")
  rm -rf "$lab"
done

# What one more node costs, between one size and the next: the start-up every command pays
# (the --help line above) is in the ms/node of the table, not in these. The spread is the
# dearest step over the cheapest, for each command: time per node is constant within 20 %
# when it is at most 1.20.
if [ "${#marginal[@]}" -gt 1 ]; then
  echo
  steps=()
  for i in $(seq 1 $((${#marginal[@]} - 1))); do
    read -r n0 v0 r0 p0 b0 <<<"${marginal[$((i - 1))]}"
    read -r n1 v1 r1 p1 b1 <<<"${marginal[$i]}"
    step=$(awk -v n0="$n0" -v n1="$n1" -v v0="$v0" -v v1="$v1" -v r0="$r0" -v r1="$r1" -v p0="$p0" -v p1="$p1" -v b0="$b0" -v b1="$b1" \
      'BEGIN { d = (n1 - n0) / 1000; printf "%.3f %.3f %.3f %.3f", (v1 - v0) / d, (r1 - r0) / d, (p1 - p0) / d, (b1 - b0) / d }')
    steps+=("$step")
    read -r sv sr sp sb <<<"$step"
    echo "per node from $n0 to $n1 nodes: validate $sv ms, render $sr ms, plan $sp ms, plan --base $sb ms"
  done
  printf '%s\n' "${steps[@]}" | awk '
    NR == 1 { for (c = 1; c <= 4; c++) { lo[c] = $c; hi[c] = $c } }
    { for (c = 1; c <= 4; c++) { if ($c < lo[c]) lo[c] = $c; if ($c > hi[c]) hi[c] = $c } }
    END { printf "spread of the steps (dearest/cheapest): validate %.2f, render %.2f, plan %.2f, plan --base %.2f\n", hi[1] / lo[1], hi[2] / lo[2], hi[3] / lo[3], hi[4] / lo[4] }'
fi
