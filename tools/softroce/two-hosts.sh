#!/usr/bin/env bash
# Boots two soft-RoCE guests, A and B, joined by one virtual wire, and runs one command in each.
# Each guest has its own kernel, rxe0 on dummy0 as with run.sh, and rxe1 on a virtio NIC (eth0)
# whose other end is the other guest: a qemu socket netdev over 127.0.0.1, fixed MACs, IPv6
# link-local addresses only (A fe80::5054:ff:fe00:a, B fe80::5054:ff:fe00:b). See docs/softroce.md.
#
# usage: two-hosts.sh [--out DIR] [--kernel NAME] [--env NAME[=VALUE]]... [--] '<command on A>' '<command on B>'
#   --out DIR     results (default ./target/softroce/two-hosts): A.log, B.log (each guest's
#                 output and run.sh's messages), A.rc, B.rc, and the dirs A/, B/ (each host's
#                 writable $SOFTROCE_OUT, holding its `steps` file) and wire/ (seen by both)
#   --kernel NAME both guests' kernel: a package (linux-image-6.12.117+deb12-amd64) or a series
#                 (6.12), as SOFTROCE_KPKG (default: Debian 12's own, 6.1)
#   --env N[=V]   export N in both guests (value from this environment if no =V)
# In each guest, besides run.sh's variables: SOFTROCE_HOST (A|B), SOFTROCE_PEER_HOST,
# SOFTROCE_ADDR / SOFTROCE_PEER_ADDR (own / peer address with scope, fe80::...%eth0),
# SOFTROCE_WIRE_DEV=rxe1, SOFTROCE_WIRE_NETDEV=eth0, SOFTROCE_OUT, SOFTROCE_WIRE_DIR.
# Exit 0 when both commands exited 0, else 1; one line per host on stderr says its exit code
# and, on failure, the step (boot, link, rxe, peer, command) and why.
#
# env: SOFTROCE_TWO_BOOT_TIMEOUT (s, 240)  SOFTROCE_TWO_STEP_TIMEOUT (link, rxe: s, 60)
#      SOFTROCE_TWO_PEER_TIMEOUT (s, 180)  SOFTROCE_TWO_CMD_TIMEOUT (s, 600)
#      SOFTROCE_MEM (MiB per guest, 2048); the rest of run.sh's, except SOFTROCE_SMP (1).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

help() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
usage() { help >&2; exit "$SR_EXIT_HARNESS"; }

OUT=$PWD/target/softroce/two-hosts; ENVS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    --env) [ $# -ge 2 ] || usage; ENVS+=(--env "$2"); shift 2 ;;
    --kernel) [ $# -ge 2 ] || usage; export SOFTROCE_KPKG=$2; shift 2 ;;
    -h|--help) help; exit 0 ;;
    --) shift; break ;;
    -*) sr_log "unknown option: $1"; usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || usage
declare -A CMD=([A]=$1 [B]=$2)

BOOT_TMO=${SOFTROCE_TWO_BOOT_TIMEOUT:-240}
STEP_TMO=${SOFTROCE_TWO_STEP_TIMEOUT:-60}
PEER_TMO=${SOFTROCE_TWO_PEER_TIMEOUT:-180}
CMD_TMO=${SOFTROCE_TWO_CMD_TIMEOUT:-600}
for v in BOOT_TMO STEP_TMO PEER_TMO CMD_TMO; do
  [[ ${!v} =~ ^[0-9]+$ ]] || sr_die "$v must be a number of seconds, got '${!v}'"
done
# run.sh's own limit is the backstop behind the guest's per-step ones.
GUEST_TMO=$((BOOT_TMO + 2 * STEP_TMO + PEER_TMO + CMD_TMO + 60))

case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
[ "$OUT" != / ] || sr_die "--out / would have A, B and wire removed from the root"
rm -rf "$OUT/A" "$OUT/B" "$OUT/wire" "$OUT"/[AB].log "$OUT"/[AB].rc
mkdir -p "$OUT/A" "$OUT/B" "$OUT/wire"

# Once, before any guest starts: a build must not eat into the boot timeout, and two run.sh
# calls must not both find the image stale.
"$HERE/build.sh" >&2 || sr_die "build.sh failed"

# A free port for A's end of the wire. qemu's socket netdev accepts exactly one connection, so
# readiness is read from /proc/net/tcp (state 0A = LISTEN), never probed with a connect.
listening() { awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' /proc/net/tcp; }
PORT=
for _ in 1 2 3 4 5 6 7 8 9 10; do
  p=$((30000 + RANDOM % 20000))
  if ! listening "$p"; then PORT=$p; break; fi
done
[ -n "$PORT" ] || sr_die "no free port for the wire"

declare -A PID=() RC=() T0=() WHY=()
mac() { printf '52:54:00:00:00:0%s' "${1,,}"; }
addr() { printf 'fe80::5054:ff:fe00:%s%%eth0' "${1,,}"; }

start() {   # start HOST PEER listen|connect
  local h=$1 p=$2 mode=$3
  T0[$h]=$(sr_now_us)
  SOFTROCE_SMP=1 SOFTROCE_MEM=${SOFTROCE_MEM:-2048} SOFTROCE_TIMEOUT=$GUEST_TMO \
  SOFTROCE_QEMU_EXTRA="-netdev socket,id=wire,$mode=127.0.0.1:$PORT -device virtio-net-pci,netdev=wire,mac=$(mac "$h") ${SOFTROCE_QEMU_EXTRA:-}" \
    "$HERE/run.sh" --share "$OUT/$h" --share "$OUT/wire" "${ENVS[@]}" \
      --env SOFTROCE_HOST="$h" --env SOFTROCE_PEER_HOST="$p" \
      --env SOFTROCE_ADDR="$(addr "$h")" --env SOFTROCE_PEER_ADDR="$(addr "$p")" \
      --env SOFTROCE_OUT="$OUT/$h" --env SOFTROCE_WIRE_DIR="$OUT/wire" \
      --env SOFTROCE_TWO_HOSTS_CMD="${CMD[$h]}" \
      --env SOFTROCE_TWO_STEP_TIMEOUT="$STEP_TMO" --env SOFTROCE_TWO_PEER_TIMEOUT="$PEER_TMO" \
      --env SOFTROCE_TWO_CMD_TIMEOUT="$CMD_TMO" \
      -- 'exec bash "$SOFTROCE_HOME/two-hosts-guest.sh"' >"$OUT/$h.log" 2>&1 &
  PID[$h]=$!
}
stop_all() {
  local h
  for h in "${!PID[@]}"; do kill "${PID[$h]}" 2>/dev/null || true; done
  for h in "${!PID[@]}"; do wait "${PID[$h]}" 2>/dev/null || true; done
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# reap HOST: if its run.sh has ended, record the exit code and tell the peer's guest.
reap() {
  local h=$1 rc=0
  [ -n "${PID[$h]:-}" ] || return 0
  kill -0 "${PID[$h]}" 2>/dev/null && return 0
  wait "${PID[$h]}" || rc=$?
  RC[$h]=$rc
  echo "$rc" > "$OUT/$h.rc"
  touch "$OUT/wire/$h.gone"
  unset "PID[$h]"
}
booted() { grep -q '^boot ' "$OUT/$1/steps" 2>/dev/null; }

sr_log "two hosts: wire 127.0.0.1:$PORT, results in $OUT"
start A B listen
n=0
until listening "$PORT"; do
  reap A
  [ -z "${RC[A]:-}" ] || { WHY[A]="qemu ended before it listened on the wire"; break; }
  n=$((n + 1))
  [ "$n" -lt 300 ] || { WHY[A]="qemu did not listen on 127.0.0.1:$PORT within 30 s"; break; }
  sleep 0.1
done
if [ -z "${WHY[A]:-}" ]; then
  start B A connect
else
  WHY[B]="not started: host A's end of the wire never listened"
fi

# The guests bound every step after boot themselves; the boot is bounded here.
while [ ${#PID[@]} -gt 0 ]; do
  for h in "${!PID[@]}"; do
    reap "$h"
    if [ -n "${PID[$h]:-}" ] && [ -z "${WHY[$h]:-}" ] && ! booted "$h" \
       && [ $(( ($(sr_now_us) - T0[$h]) / 1000000 )) -ge "$BOOT_TMO" ]; then
      WHY[$h]="step boot failed: no guest after $BOOT_TMO s (SOFTROCE_TWO_BOOT_TIMEOUT)"
      kill "${PID[$h]}" 2>/dev/null || true
    fi
  done
  sleep 0.5
done
trap - EXIT

FAIL=0
for h in A B; do
  echo "---- host $h ($OUT/$h.log)"
  [ -f "$OUT/$h.log" ] && sed "s/^/[$h] /" "$OUT/$h.log"
done
for h in A B; do
  rc=${RC[$h]:-not started}
  steps=$(tr '\n' ' ' 2>/dev/null < "$OUT/$h/steps" || true)
  [ -n "$steps" ] || steps="none"
  why=${WHY[$h]:-}
  if [ -z "$why" ] && [ "$rc" != 0 ]; then
    why=$(grep -h -m1 "^two-hosts: host $h: " "$OUT/$h.log" 2>/dev/null | sed "s/^two-hosts: host $h: //" || true)
    [ -n "$why" ] || why=$(grep -h -m1 -E '^softroce: (TIMEOUT|ERROR|FAILED|the guest did not)' "$OUT/$h.log" 2>/dev/null || true)
    [ -n "$why" ] || why="the command exited $rc"
  fi
  if [ "$rc" = 0 ]; then
    sr_log "host $h: exit 0 (steps at guest uptime: ${steps% })"
  else
    FAIL=1
    sr_log "host $h: FAILED, exit $rc: $why (steps: ${steps% })"
  fi
done
exit "$FAIL"
