#!/usr/bin/env bash
# Fails when the talops binary, built as the release builds it, can reach a function that
# looks a method up by reflection (reflect's Method, or MethodByName with a name the compiler
# cannot see): the linker then keeps every exported method of every linked type, some 12 MB
# of the binary (docs/performance.md, issue 31). For each such function it prints the chain
# of references that reached it from the program's entry, as the linker recorded it.
#   hack/reflect-methods.sh
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# -dumpdep prints every reference the linker followed ("from -> to"), each symbol marked
# <ReflectMethod> where the compiler flagged it.
CGO_ENABLED=0 go build -trimpath -tags grpcnotrace -ldflags "-dumpdep" -o "$work/talops" ./cmd/talops 2> "$work/deps"

flagged=$(grep -oE '[^ ]+ <ReflectMethod>' "$work/deps" | sed 's/ <ReflectMethod>$//' | sort -u || true)
if [ -z "$flagged" ]; then
  echo "reflect-methods: none reachable"
  exit 0
fi

echo "reflect-methods: the binary reaches functions that look methods up by reflection." >&2
echo "Once one is reached every exported method is kept, so some below are reached only through" >&2
echo "another: the cause is a chain that comes from main or a package's init without it." >&2
for f in $flagged; do
  echo "  $f, reached by:" >&2
  awk -v target="$f" '
    / -> / {
      line = $0
      gsub(/ <[A-Za-z]+>/, "", line)
      split(line, e, " -> ")
      if (!(e[2] in parent)) parent[e[2]] = e[1]
    }
    END {
      s = target
      for (i = 0; i < 40 && (s in parent) && parent[s] != "_"; i++) {
        s = parent[s]
        print "    <- " s
      }
    }
  ' "$work/deps" >&2
done
exit 1
