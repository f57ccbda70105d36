#!/bin/bash
# supervise.sh NAME NETNS-PID -- run by start.sh (its output is the node's machined.log): boots node NAME
# in its sandbox and, whenever machined ends with the reboot status of patches/container-reboot.patch (82),
# boots it again with its state kept and a new boot ID, as a container restart policy does. Any other end
# ends the node. Each boot gets fresh pid/mount/uts/ipc/cgroup namespaces; the network namespace (held by
# NETNS-PID, see lib.sh) stays, so the node keeps its addresses and forwarders.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
NAME=$1 H=$2
N=$NODES/$NAME
CG=$(cat "$N/cgroup")
REBOOT_STATUS=82
boot=0
while :; do
  boot=$((boot + 1))
  # a boot ID of this boot: sbx-inner.sh binds it over the node's /proc/sys/kernel/random/boot_id
  cat /proc/sys/kernel/random/uuid > "$N/boot_id.new" && mv "$N/boot_id.new" "$N/boot_id"
  if [ "$boot" -gt 1 ]; then
    unset USERDATA   # the node boots from the config it saved, as after a real reboot
    find "$CG" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null   # the last boot's cgroups
  fi
  # only the sandbox goes into the node's cgroup; it joins the node's netns and creates the other namespaces
  bash -c 'echo $$ > "$0/cgroup.procs" && exec nsenter --net="/proc/$1/ns/net" -- unshare --fork --kill-child=SIGKILL --pid --mount --uts --ipc --cgroup --propagation private -- /bin/bash "${@:2}"' \
    "$CG" "$H" "$HERE/sbx-inner.sh" "$ROOTFS" "$N/data" "$BIN/sbx-exec" "$NAME" "$N/boot_id" < /dev/null &
  UPID=$!
  P1=
  for _ in $(seq 200); do
    [ "$(cat "/proc/$UPID/comm" 2>/dev/null)" = unshare ] && P1=$(awk '{print $1}' "/proc/$UPID/task/$UPID/children" 2>/dev/null || true)
    [ -n "$P1" ] && break; sleep 0.05
  done
  if [ -z "$P1" ]; then kill -KILL "$UPID" 2>/dev/null; log "node $NAME: sandbox did not start (boot $boot)"; exit 1; fi
  record_pid "$N/unshare.pid" "$UPID"
  record_pid "$N/pid1" "$P1"
  wait "$UPID"; rc=$?
  if [ "$rc" != "$REBOOT_STATUS" ]; then log "node $NAME: machined ended with status $rc (boot $boot)"; exit 0; fi
  log "node $NAME: reboot (boot $boot ended); booting it again with its state kept"
  echo "$boot" > "$N/reboots"
done
