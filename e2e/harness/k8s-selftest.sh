#!/bin/bash
# k8s-selftest.sh -- proof of the Kubernetes mode (run K8S=1 build.sh first): one controlplane node
# whose hostname differs from its harness name boots from a generated config with k8s-patch.yaml,
# gets the kubelet, control-plane, pause and etcd images imported before Bootstrap, and its Node
# must register under that hostname with the built kubelet version and become Ready, read through
# the kube-apiserver forwarder. Prints the time of each step and the node's memory; stops the node.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

NAME=rt-k8s-selftest HOST=k8s-selftest-host IP=127.0.88.1
ST=$WORK/k8s-selftest
trap 'bash "$HERE/stop.sh" $NAME >/dev/null 2>&1' EXIT
for f in "$BIN/rtclient" "$WORK/images/etcd.tar" "$WORK/images/pause.tar" "$WORK/images/k8s-$K8S_VERSION/kubelet.tar"; do
  [ -e "$f" ] || die "$f missing: run ETCD=1 K8S=1 build.sh"
done
rm -rf "$ST"; mkdir -p "$ST"
"$BIN/rtclient" gen -out "$ST/gen" -cluster realtalos-k8s -sans "127.0.0.1,$IP" -endpoints "$IP:50000" || die "rtclient gen failed"
"$BIN/rtclient" k8s-config -in "$ST/gen/controlplane.yaml" -patch "$HERE/k8s-patch.yaml" -hostname $HOST -out "$ST/controlplane.yaml" || die "k8s-config failed"

t0=$(date +%s)
bash "$HERE/start.sh" -c "$ST/controlplane.yaml" -k "$IP:6443" $NAME "$IP:50000" >/dev/null || die "start.sh failed"
log "apid up after $(( $(date +%s) - t0 ))s"
if ! "$BIN/rtclient" k8s -addr "$IP:50000" -talosconfig "$ST/gen/talosconfig" \
    -etcd "$WORK/images/etcd.tar" -pause "$WORK/images/pause.tar" -images "$WORK/images/k8s-$K8S_VERSION" \
    -kubeconfig "$ST/kubeconfig" -server "https://$IP:6443" -node $HOST -version "$K8S_VERSION" -timeout 6m; then
  tail -30 "$NODES/$NAME/machined.log" >&2
  echo "FAIL  Node $HOST Ready with kubelet $K8S_VERSION"; exit 1
fi
echo "PASS  Node $HOST Ready with kubelet $K8S_VERSION after $(( $(date +%s) - t0 ))s from start.sh"
bash "$HERE/status.sh" | awk -v n=$NAME 'NR == 1 || $1 == n'
