#!/usr/bin/env bash
# Boots Debian's kernel under qemu (TCG), creates the soft-RoCE device rxe0 and
# runs one shell command (bash) in a chroot of this machine's root filesystem,
# which the guest sees read-only over virtio-9p. See docs/softroce.md.
#
# usage: run.sh [--kernel NAME] [--share DIR]... [--env NAME[=VALUE]]... [--] '<shell command>'
#   --kernel NAME the guest's kernel: a Debian package (linux-image-6.12.117+deb12-amd64) or a
#                 series (6.12); sets SOFTROCE_KPKG (default 6.1, Debian 12's own)
#   --share DIR   host dir shared read-write, at the same absolute path in the
#                 guest (created if missing; repeatable). The first one is
#                 $SOFTROCE_SHARE in the guest: java.sh puts hs_err logs there.
#   --env N[=V]   export N in the guest (value from this environment if no =V)
# The command's cwd is the caller's cwd; its stdout+stderr are streamed to
# stdout. Exit code: the command's; 254 if a JVM crashed (hs_err_pid*.log in a
# share); 255 if the guest never reported one (timeout, boot failure); 125 for
# usage/build errors before boot.
#
# env: SOFTROCE_MEM (MiB, 4096)  SOFTROCE_SMP (2)  SOFTROCE_CPU (max)
#      SOFTROCE_TIMEOUT (s, 1200)  SOFTROCE_VERBOSE (1: console on stderr with
#      host times; 2: also the full kernel log)  SOFTROCE_KEEP (1: keep run dir)
#      SOFTROCE_CACHE  SOFTROCE_KPKG (see build.sh)  SOFTROCE_QUIET (1: no
#      timing line)  SOFTROCE_9PCACHE (loose)  SOFTROCE_QEMU_EXTRA (word-split)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

help() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
usage() { help >&2; exit "$SR_EXIT_HARNESS"; }

SHARES_IN=(); ENVS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --share) [ $# -ge 2 ] || usage; SHARES_IN+=("$2"); shift 2 ;;
    --share=*) SHARES_IN+=("${1#*=}"); shift ;;
    --env) [ $# -ge 2 ] || usage; ENVS+=("$2"); shift 2 ;;
    --env=*) ENVS+=("${1#*=}"); shift ;;
    --kernel) [ $# -ge 2 ] || usage; export SOFTROCE_KPKG=$2; shift 2 ;;
    -h|--help) help; exit 0 ;;
    --) shift; break ;;
    -*) sr_log "unknown option: $1"; usage ;;
    *) break ;;
  esac
done
# Exactly one string: joining several words ssh-style only invites quoting bugs.
[ $# -eq 1 ] || usage
CMD=$1

VERBOSE=${SOFTROCE_VERBOSE:-0}
MEM=${SOFTROCE_MEM:-4096}
SMP=${SOFTROCE_SMP:-2}
CPU=${SOFTROCE_CPU:-max}
TMO=${SOFTROCE_TIMEOUT:-1200}
P9CACHE=${SOFTROCE_9PCACHE:-loose}
for v in VERBOSE MEM SMP TMO; do
  [[ ${!v} =~ ^[0-9]+$ ]] || sr_die "SOFTROCE_$v must be a number, got '${!v}'"
done
T0=$(sr_now_us)

# ---- shares, cwd ----
CWD=$PWD
SHARES=()
for s in "${SHARES_IN[@]}"; do
  case "$s" in /*) ;; *) s=$PWD/$s ;; esac
  sr_cmdline_safe_path "$s" || sr_die "share path '$s' has characters the kernel command line cannot carry"
  mkdir -p -- "$s" || sr_die "cannot create share $s"
  abs=$(cd -- "$s" && pwd -P)
  [ "$abs" != / ] || sr_die "cannot share /"
  sr_cmdline_safe_path "$abs" || sr_die "share path '$abs' has characters the kernel command line cannot carry"
  SHARES+=("$abs")
done
# The guest's /tmp and /run are fresh tmpfs; a cwd below them (a CI checkout in
# /tmp, say) is bound back read-only so the command finds its files.
BINDS=()
PCWD=$(pwd -P)
case "$PCWD" in
  /tmp/*|/run/*)
    if sr_cmdline_safe_path "$PCWD"; then BINDS+=("$PCWD")
    else sr_log "WARNING: cwd $PCWD is hidden by the guest's tmpfs and cannot be bound back (odd characters)"
    fi ;;
esac

# ---- boot image: this recipe's image of the kernel asked for, built only when
# the cache has none (build.sh alone chases a newer Debian kernel) ----
RECIPE=$(sr_recipe_hash "$HERE")
image() { local k; k=$(sr_resolved_kpkg "${SOFTROCE_KPKG:-}") && [ -n "$k" ] && sr_find_image "$RECIPE" "$k"; }
if ! IMG=$(image); then
  "$HERE/build.sh" >&2 || sr_die "build.sh failed"
  IMG=$(image) || sr_die "build.sh left no image of ${SOFTROCE_KPKG:-$SOFTROCE_DEFAULT_SERIES} in $SOFTROCE_CACHE"
fi
KERNEL=$IMG/vmlinux   # PVH entry of the unpacked kernel, see build.sh
[ -f "$KERNEL" ] || KERNEL=$IMG/vmlinuz
if [ ! -f "$KERNEL" ] || [ ! -f "$IMG/initramfs.cpio.gz" ]; then sr_die "no boot image in $IMG"; fi
command -v qemu-system-x86_64 >/dev/null || sr_die "qemu-system-x86_64 missing: run build.sh"

RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/softroce-run.XXXXXX")
RUNDIR=$(cd "$RUNDIR" && pwd -P)
if ! sr_cmdline_safe_path "$RUNDIR"; then
  rmdir "$RUNDIR"; RUNDIR=$(mktemp -d /tmp/softroce-run.XXXXXX)
fi
chmod 755 "$RUNDIR"
KEEP=${SOFTROCE_KEEP:-0}
QPID=; TPID=
# shellcheck disable=SC2317  # invoked by the traps
cleanup() {
  # QPID is timeout(1), which passes the TERM on to qemu.
  if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
    kill "$QPID" 2>/dev/null || true
    wait "$QPID" 2>/dev/null || true
  fi
  if [ -n "$TPID" ]; then kill "$TPID" 2>/dev/null || true; fi
  if [ "$KEEP" = 1 ]; then sr_log "kept run dir $RUNDIR"; else rm -rf "$RUNDIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

FIRST_SHARE=${SHARES[0]:-$RUNDIR}
{
  echo "# written by $HERE/run.sh"
  printf 'export %s=%q\n' \
    HOME "${HOME:-/root}" LANG C.UTF-8 \
    SOFTROCE_GUEST 1 SOFTROCE_HOME "$HERE" SOFTROCE_RUNDIR "$RUNDIR" \
    SOFTROCE_SHARE "$FIRST_SHARE" SOFTROCE_SHARES "$(IFS=:; echo "${SHARES[*]}")" \
    SOFTROCE_JAVA "$HERE/java.sh"
  for e in "${ENVS[@]}"; do
    name=${e%%=*}
    [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || sr_die "--env: bad name '$name'"
    if [[ $e == *=* ]]; then val=${e#*=}; else val=${!name-}; fi
    printf 'export %s=%q\n' "$name" "$val"
  done
  # rdma_cm needs an address on the rxe netdev: its IPv6 link-local one
  # (loopback addresses do not resolve to an RDMA device).
  # shellcheck disable=SC2016  # expanded in the guest
  echo 'SOFTROCE_RDMA_ADDR=$(ip -6 -o addr show dev dummy0 scope link 2>/dev/null | awk '"'"'{ sub(/\/.*/, "", $4); print $4 "%dummy0"; exit }'"'"')'
  echo 'export SOFTROCE_RDMA_ADDR SOFTROCE_RDMA_DEV=rxe0 SOFTROCE_NETDEV=dummy0'
  printf 'SOFTROCE_CWD=%q\n' "$CWD"
  # shellcheck disable=SC2016  # expanded in the guest
  echo 'cd -- "$SOFTROCE_CWD" || { echo "softroce: cwd $SOFTROCE_CWD is not visible in the guest" >&2; exit 125; }'
  printf '%s\n' "$CMD"
} > "$RUNDIR/cmd.sh"
: > "$RUNDIR/out.txt"
: > "$RUNDIR/console.log"
# Crash logs are recognised by being newer than this.
touch "$RUNDIR/.start"

# cryptomgr.notests: the crypto self-tests are ~0.3 s of a ~2 s kernel boot.
APPEND="console=ttyS0 panic=-1 mitigations=off cryptomgr.notests softroce_run=$RUNDIR softroce_9pcache=$P9CACHE"
# A chatty console costs seconds under TCG: quiet unless asked for.
if [ "$VERBOSE" -ge 1 ]; then APPEND="$APPEND softroce_verbose=1"; fi
if [ "$VERBOSE" -lt 2 ]; then APPEND="$APPEND quiet loglevel=3"; fi
for b in "${BINDS[@]}"; do APPEND="$APPEND softroce_bind=$b"; done
for s in "${SHARES[@]}"; do APPEND="$APPEND softroce_share=$s"; done
[ ${#APPEND} -lt 2000 ] || sr_die "kernel command line too long (${#APPEND} chars; limit 2048): use fewer/shorter shares"

q9p() { printf '%s' "${1//,/,,}"; }   # qemu option values escape ',' as ',,'
# shellcheck disable=SC2054  # the commas are qemu's, not array separators
QEMU=(qemu-system-x86_64
  -accel tcg,thread=multi -cpu "$CPU" -smp "$SMP" -m "$MEM"
  -machine pc -nodefaults -no-reboot -display none -monitor none
  -kernel "$KERNEL" -initrd "$IMG/initramfs.cpio.gz" -append "$APPEND"
  -serial "file:$RUNDIR/console.log" -serial "file:$RUNDIR/out.txt"
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$(q9p "$RUNDIR"),mount_tag=srrun,security_model=none")
i=0
for s in "${SHARES[@]}"; do
  QEMU+=(-virtfs "local,path=$(q9p "$s"),mount_tag=sr$i,security_model=none")
  i=$((i + 1))
done
# shellcheck disable=SC2206  # word splitting is the documented contract
[ -n "${SOFTROCE_QEMU_EXTRA:-}" ] && QEMU+=(${SOFTROCE_QEMU_EXTRA})
printf '%q ' "${QEMU[@]}" > "$RUNDIR/qemu-cmdline.txt"

TQ=$(sr_now_us)
# TERM first (qemu exits cleanly on it), KILL if that does not do it.
timeout -k 10 "$TMO" "${QEMU[@]}" </dev/null >"$RUNDIR/qemu.stderr" 2>&1 &
QPID=$!
if [ "$VERBOSE" -ge 1 ]; then
  tail -s 0.2 -n +1 -f --pid="$QPID" "$RUNDIR/console.log" | while IFS= read -r l; do
    printf '[host +%5ss] %s\n' "$(sr_since "$TQ")" "${l%$'\r'}"
  done >&2 &
fi
# In the background + wait: bash runs a trap (Ctrl-C, TERM from CI) only after
# a foreground child ends, but interrupts `wait` at once.
tail -s 0.2 -n +1 -f --pid="$QPID" "$RUNDIR/out.txt" &
TPID=$!
wait "$TPID" || true
QRC=0; wait "$QPID" || QRC=$?
QPID=; TPID=
WALL=$(sr_since "$TQ")
wait 2>/dev/null || true   # the console printer, if any

RC=
[ -s "$RUNDIR/rc" ] && RC=$(tr -dc '0-9' < "$RUNDIR/rc")
[ -n "$RC" ] || RC=$(tr -d '\r' < "$RUNDIR/console.log" | sed -n 's/^SOFTROCE_RC=\([0-9][0-9]*\)$/\1/p' | tail -n 1)

if [ "$VERBOSE" -ge 1 ]; then
  sr_log "guest stages (guest uptime):"
  tr -d '\r' < "$RUNDIR/console.log" | grep '^\[softroce-init' | sed 's/^/    /' >&2
fi

# ---- JVM crash logs written during this run ----
SCAN=("$RUNDIR" "${SHARES[@]}")
mapfile -t RERUNS < <(find "${SCAN[@]}" -maxdepth 3 -type f -name 'softroce-jit-rerun-hs_err_pid*.log' -newer "$RUNDIR/.start" 2>/dev/null | sort)
mapfile -t CRASHES < <(find "${SCAN[@]}" -maxdepth 3 -type f -name 'hs_err_pid*.log' -newer "$RUNDIR/.start" 2>/dev/null | sort)
for f in "${RERUNS[@]}"; do
  sr_log "NOTE: a JVM crashed in JIT code and java.sh reran it once (TCG emulation fault suspected): $f"
  sr_hs_err_report "$f" >&2
done
for f in "${CRASHES[@]}"; do
  sr_log "JVM CRASH: $f"
  sr_hs_err_report "$f" >&2
  case "$f" in "$RUNDIR"/*) KEEP=1 ;; esac   # keep the only copy of the log
done

if [ -z "$RC" ]; then
  if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
    sr_log "TIMEOUT: the guest was killed after ${TMO} s (SOFTROCE_TIMEOUT) without reporting an exit code"
  else
    sr_log "the guest did not report an exit code (qemu exit $QRC)"
  fi
  sr_log "console tail:"
  tr -d '\r' < "$RUNDIR/console.log" | tail -n 40 | sed 's/^/    /' >&2
  [ -s "$RUNDIR/qemu.stderr" ] && { sr_log "qemu said:"; sed 's/^/    /' "$RUNDIR/qemu.stderr" >&2; }
  RC=$SR_EXIT_NORC
fi
if [ ${#CRASHES[@]} -gt 0 ]; then
  sr_log "FAILED: ${#CRASHES[@]} JVM crash(es) during the run (command exit $RC); a crashed JVM is never a pass -> exit $SR_EXIT_CRASH"
  RC=$SR_EXIT_CRASH
fi
[ "${SOFTROCE_QUIET:-0}" = 1 ] || sr_log "guest run ${WALL} s (total $(sr_since "$T0") s), exit $RC"
exit "$RC"
