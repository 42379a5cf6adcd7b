#!/usr/bin/env bash
# Inside each guest of two-hosts.sh (never run it on the host): wires this host to the other one,
# then runs its command. Steps, each bounded and each logged with the guest uptime to
# $SOFTROCE_OUT/steps (the host reads it to say which step failed):
#   boot     the guest is up (kernel, 9p, rxe0 on dummy0: run.sh's init did that); its kernel
#            release (uname -r) goes to $SOFTROCE_OUT/kernel
#   link     eth0 up and its fixed link-local address usable (no DAD wait)
#   rxe      rxe1 on eth0, port ACTIVE
#   peer     the other guest reached "rxe" too (a file in the common wire dir)
#   command  the host's command, under timeout(1)
# A failed step exits 125 with "two-hosts: host X: step S ..." on stderr; a timed-out command 124.
# Input (from two-hosts.sh): SOFTROCE_HOST, SOFTROCE_PEER_HOST, SOFTROCE_ADDR,
# SOFTROCE_PEER_ADDR, SOFTROCE_OUT, SOFTROCE_WIRE_DIR, SOFTROCE_TWO_HOSTS_CMD and the
# SOFTROCE_TWO_*_TIMEOUT values.
set -uo pipefail
# shellcheck disable=SC2317  # the conditions are called by name through wait_for
# shellcheck source=lib.sh
. "$SOFTROCE_HOME/lib.sh"

host=$SOFTROCE_HOST
peer=$SOFTROCE_PEER_HOST
steps=$SOFTROCE_OUT/steps
netdev=eth0
dev=rxe1

step() { printf '%s %s\n' "$1" "$(cut -d' ' -f1 /proc/uptime)" >> "$steps"; }
fail() {
  echo "two-hosts: host $host: step $1 failed: $2" >&2
  step "failed:$1"
  exit 125
}
# wait_for STEP SECONDS CONDITION...: lib.sh's wait, polling every 0.1 s; fails STEP after SECONDS.
wait_for() {
  local what=$1 limit=$2
  shift 2
  SR_POLL=0.1 sr_wait_for "$limit" "$@" || fail "$what" "not done after $limit s ($*)"
}

step boot
uname -r > "$SOFTROCE_OUT/kernel"

# ---- link: the address is derived from the fixed MAC, so it is known before it exists; DAD off
# because the wire holds exactly two fixed, distinct MACs and a DAD wait costs ~1-2 s per link up,
# also after every `ip link set eth0 up` of a link-cut test. ----
[ -d /sys/class/net/$netdev ] || fail link "no $netdev (virtio_net missing from the boot image?)"
echo 0 > /proc/sys/net/ipv6/conf/$netdev/accept_dad || fail link "cannot turn DAD off on $netdev"
ip link set $netdev up || fail link "ip link set $netdev up"
own=${SOFTROCE_ADDR%%%*}
addr_ready() {
  [ "$(cat /sys/class/net/$netdev/operstate)" = up ] \
    && ip -6 -o addr show dev $netdev scope link | grep -v tentative | grep -q " $own/"
}
wait_for link "${SOFTROCE_TWO_STEP_TIMEOUT:-60}" addr_ready
step link

# ---- rxe: rxe0 on dummy0 stays as init made it (the single-host suite's device) ----
rdma link add $dev type rxe netdev $netdev || fail rxe "rdma link add $dev type rxe netdev $netdev"
port_active() { [ "$(cat /sys/class/infiniband/$dev/ports/1/state 2>/dev/null)" = "4: ACTIVE" ]; }
wait_for rxe "${SOFTROCE_TWO_STEP_TIMEOUT:-60}" port_active
step rxe

# ---- peer: the guests boot at their own pace (B starts after A listens on the wire) ----
touch "$SOFTROCE_WIRE_DIR/$host.wired"
peer_wired() {
  [ -e "$SOFTROCE_WIRE_DIR/$peer.wired" ] && return 0
  # two-hosts.sh leaves this when the peer's guest has ended: no point in waiting for it.
  [ -e "$SOFTROCE_WIRE_DIR/$peer.gone" ] && fail peer "host $peer ended before it was wired"
  return 1
}
wait_for peer "${SOFTROCE_TWO_PEER_TIMEOUT:-180}" peer_wired
step peer

export SOFTROCE_WIRE_DEV=$dev SOFTROCE_WIRE_NETDEV=$netdev
tmo=${SOFTROCE_TWO_CMD_TIMEOUT:-600}
step command
start=$SECONDS
timeout -k 5 "$tmo" bash -c "$SOFTROCE_TWO_HOSTS_CMD"
rc=$?
# By the clock, not by the code: the command may return 124 itself.
if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ $((SECONDS - start)) -ge "$tmo" ]; then
  echo "two-hosts: host $host: step command failed: timed out after $tmo s (SOFTROCE_TWO_CMD_TIMEOUT)" >&2
  step "failed:command"
  exit 124
fi
step "done:$rc"
exit "$rc"
