#!/bin/bash
# k8s-build.sh -- the Kubernetes mode's binaries, tools and images (build.sh runs it with K8S=1).
# Builds kube-apiserver, kube-controller-manager, kube-scheduler and a patched kubelet from the
# k8s.io/kubernetes module the Go module proxy serves, into $REALTALOS_WORK/k8s/$K8S_VERSION/bin,
# so a warm machine skips every build. Each step is skipped when its output exists.
# `k8s-build.sh sources` stops after fetching the sources, `k8s-build.sh binaries` after building
# and relinking the binaries (it writes only under $REALTALOS_WORK/src and $REALTALOS_WORK/k8s).
# K8S_VERSION (default v1.37.0, Talos v1.14.1's DefaultKubernetesVersion) is the release built from
# source; K8S_RELINK_VERSION (default v1.37.1) is the same source linked again under that version,
# the second patch release the upgrade tests move to (see README.md, "Kubernetes mode").
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
export GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
GOBUILD=(go build -trimpath)
K8S_COMMANDS=(kube-scheduler kube-controller-manager kube-apiserver kubelet)

mkdir -p "$WORK/src" "$WORK/debs" "$WORK/images" "$BIN"

step() { local s=$(date +%s%N) name=$1; shift; "$@"; printf '== %-58s %7.1fs\n' "$name" "$(( ($(date +%s%N) - s) / 1000000 ))e-3" >&2; }

# k8s_ldflags VERSION: what the Node's kubeletVersion and /version report
k8s_ldflags() {
  local v=$1 minor; minor=${v#v1.}; minor=${minor%%.*}
  echo "-s -w -X k8s.io/component-base/version.gitVersion=$v -X k8s.io/component-base/version.gitMajor=1" \
    "-X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
    "-X k8s.io/component-base/version.buildDate=2026-01-01T00:00:00Z -X k8s.io/client-go/pkg/version.gitVersion=$v"
}

# content_key FILE... -> a hash of the files' contents (see build.sh); adopt_key OUTPUT KEY: an output built
# before outputs recorded their key is taken as built from KEY (a warm machine keeps its build)
content_key() { cat "$@" | sha1sum | cut -c1-16; }
adopt_key() { [ -e "$1" ] && [ ! -e "$1.key" ] && echo "$2" > "$1.key"; return 0; }
KUBELET_KEY=$(content_key "$HERE/patches/kubelet-kernel-tunables.patch")

# The module zip has no staging/: the staging modules come from the proxy at v0.MINOR.PATCH.
k8s_sources() {
  local S=$WORK/src/kubernetes-$K8S_VERSION
  [ -f "$S/.realtalos-prepared" ] && [ ! -s "$S/.realtalos-prepared" ] && echo "$KUBELET_KEY" > "$S/.realtalos-prepared"
  [ "$(cat "$S/.realtalos-prepared" 2>/dev/null)" = "$KUBELET_KEY" ] && return 0
  local d staging
  d=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [ -n "$d" ] && [ -d "$d" ] || die "go mod download k8s.io/kubernetes@$K8S_VERSION failed"
  staging=v0.${K8S_VERSION#v1.}
  rm -rf "$S.tmp"; mkdir -p "$S.tmp"
  cp -r "$d"/{go.mod,go.sum,cmd,pkg,plugin,third_party} "$S.tmp"/; chmod -R u+w "$S.tmp"
  (cd "$S.tmp"
   args=()
   for m in $(sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' go.mod); do
     args+=(-dropreplace "$m" -require "$m@$staging")
   done
   go mod edit "${args[@]}"
   # a sandboxed node must never write host sysctls: the kubelet only warns (README.md, "Kubernetes mode")
   patch -p1 -s < "$HERE/patches/kubelet-kernel-tunables.patch"
   go mod download
   echo "$KUBELET_KEY" > .realtalos-prepared)
  mv "$S.tmp" "$S"
}

# built BIN: the binary exists and, for the kubelet (the only patched one), was built from the current patch
built() {
  [ -x "$1" ] || return 1
  case $1 in */kubelet) adopt_key "$1" "$KUBELET_KEY"; [ "$(cat "$1.key")" = "$KUBELET_KEY" ];; esac
}
# install_built TMP BIN: moves the fresh binary in place and records the kubelet's key
install_built() { mv "$1" "$2"; case $2 in */kubelet) echo "$KUBELET_KEY" > "$2.key";; esac; }

build_k8s() {
  local S=$WORK/src/kubernetes-$K8S_VERSION c s
  mkdir -p "$K8S_BIN"
  for c in "${K8S_COMMANDS[@]}"; do
    built "$K8S_BIN/$c" && continue
    s=$(date +%s)
    (cd "$S" && "${GOBUILD[@]}" -ldflags "$(k8s_ldflags "$K8S_VERSION")" -o "$K8S_BIN/$c.tmp" "./cmd/$c")
    install_built "$K8S_BIN/$c.tmp" "$K8S_BIN/$c"
    log "built $c $K8S_VERSION in $(( $(date +%s) - s ))s"
  done
}

# The same packages (all in the Go build cache by now) linked again under the second version.
relink_k8s() {
  [ -n "$K8S_RELINK_VERSION" ] || return 0
  local S=$WORK/src/kubernetes-$K8S_VERSION B=$WORK/k8s/$K8S_RELINK_VERSION/bin c
  mkdir -p "$B"
  for c in "${K8S_COMMANDS[@]}"; do
    built "$B/$c" && continue
    (cd "$S" && "${GOBUILD[@]}" -ldflags "$(k8s_ldflags "$K8S_RELINK_VERSION")" -o "$B/$c.tmp" "./cmd/$c")
    install_built "$B/$c.tmp" "$B/$c"
  done
}

busybox_deb() {
  [ -x "$WORK/debs/busybox/bin/busybox" ] && return 0
  (cd "$WORK/debs" && rm -f busybox-static_*.deb
   apt-get download busybox-static >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get download busybox-static >/dev/null; }
   rm -rf busybox; dpkg-deb -x busybox-static_*.deb busybox)
  [ -x "$WORK/debs/busybox/bin/busybox" ] || die "busybox not found in the busybox-static .deb"
}

build_k8s_tools() { # the image writer, pause, the runc wrapper (HOST builds only: see lib.sh)
  local t key
  for t in mkimage pause runc-nores; do
    key=$(content_key $(find "$HERE/src/$t" -type f | sort))
    [ -x "$BIN/$t" ] && [ "$(cat "$BIN/$t.key" 2>/dev/null)" = "$key" ] && continue
    rm -rf "$WORK/src/tools/$t"; mkdir -p "$WORK/src/tools"; cp -r "$HERE/src/$t" "$WORK/src/tools/$t"; chmod -R u+w "$WORK/src/tools/$t"
    (cd "$WORK/src/tools/$t" && "${GOBUILD[@]}" -ldflags "-s -w" -o "$BIN/$t" .)
    echo "$key" > "$BIN/$t.key"
  done
}

# images VERSION: one-layer docker archives with the tags Talos v1.14.1's rendered pods and kubelet service use
images() {
  local v=$1 B=$WORK/k8s/$1/bin O=$WORK/images/k8s-$1 c
  mkdir -p "$O"
  if [ ! -f "$O/kubelet.tar" ] || [ "$B/kubelet" -nt "$O/kubelet.tar" ]; then
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$O/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' > "$O/group"
    "$BIN/mkimage" -tag "ghcr.io/siderolabs/kubelet:$v" -o "$O/kubelet.tar" \
      "$B/kubelet=/usr/local/bin/kubelet" "$WORK/debs/busybox/bin/busybox=/bin/busybox" \
      "bin/mount->busybox" "bin/umount->busybox" "bin/sh->busybox" "bin/nsenter->busybox" \
      "$O/passwd=/etc/passwd:0644" "$O/group=/etc/group:0644"
  fi
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    [ -f "$O/$c.tar" ] && [ "$O/$c.tar" -nt "$B/$c" ] && continue
    "$BIN/mkimage" -tag "registry.k8s.io/$c:$v" -o "$O/$c.tar" "$B/$c=/usr/local/bin/$c"
  done
}

pause_image() {
  [ -f "$WORK/images/pause.tar" ] && [ "$WORK/images/pause.tar" -nt "$BIN/pause" ] && return 0
  "$BIN/mkimage" -tag "registry.k8s.io/pause:$PAUSE_VERSION" -entrypoint /pause -o "$WORK/images/pause.tar" "$BIN/pause=/pause"
}

step "kubernetes $K8S_VERSION sources (proxy) + staging modules + kubelet patch" k8s_sources
# "k8s-build.sh sources" only fetches: the network part, while another build has the CPU
[ "${1:-}" = sources ] && exit 0
step "build ${K8S_COMMANDS[*]} $K8S_VERSION" build_k8s
step "relink the same as ${K8S_RELINK_VERSION:-nothing} (second patch release)" relink_k8s
# "k8s-build.sh binaries": the CPU-heavy part, which leaves the harness's bin/, rootfs and images alone
[ "${1:-}" = binaries ] && exit 0
step "busybox-static (apt-get download)" busybox_deb
step "build mkimage, pause, runc-nores" build_k8s_tools
step "image pause:$PAUSE_VERSION" pause_image
step "images $K8S_VERSION" images "$K8S_VERSION"
if [ -n "$K8S_RELINK_VERSION" ]; then step "images $K8S_RELINK_VERSION" images "$K8S_RELINK_VERSION"; fi
