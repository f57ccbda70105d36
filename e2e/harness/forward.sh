#!/bin/bash
# forward.sh 127.x.y.z:PORT TARGET[,TARGET...] -- a loopback forwarder into the cluster network (the switch
# of start.sh -n): each connection goes to the first TARGET (10.5.0.X:PORT) that answers, e.g. the cluster's
# kube-apiservers, so the host keeps reaching the API while one control plane reboots. Prints the address
# once it listens. It ends with the switch (stop.sh of the last cluster node).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
LISTEN=${1:-} TARGETS=${2:-}
[[ $LISTEN =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+$ ]] || die "usage: forward.sh 127.x.y.z:PORT $CLUSTER_NET.X:PORT[,...]"
for t in ${TARGETS//,/ }; do [ "${t%.*}" = "$CLUSTER_NET" ] || die "bad target $t ($CLUSTER_NET.X:PORT)"; done
[ -n "$TARGETS" ] || die "usage: forward.sh 127.x.y.z:PORT $CLUSTER_NET.X:PORT[,...]"
SW=$(recorded_alive "$SWITCH/netns.pid") || die "no cluster network: start a node with start.sh -n first"
F=$SWITCH/forward-${LISTEN//[:.]/-}
kill_recorded "$F.pid" TERM
rm -f "$F.addr"
setsid "$BIN/rt-forward" -listen "$LISTEN" -pid "$SW" -target "$TARGETS" -addr-file "$F.addr" >> "$F.log" 2>&1 < /dev/null &
record_pid "$F.pid" $!; disown $!
for _ in $(seq 100); do [ -s "$F.addr" ] && break; sleep 0.05; done
[ -s "$F.addr" ] || { cat "$F.log" >&2; die "forwarder did not start"; }
cat "$F.addr"
