#!/usr/bin/env bash
# Runs a JDK 25 JVM inside the soft-RoCE guest (call it from a run.sh command,
# e.g. "$SOFTROCE_JAVA" -cp ... Main). See docs/softroce.md.
#
# usage: java.sh [java args...]
# Adds, before the caller's args:
#   -XX:TieredStopAtLevel=1   C1 only: C2/tiered code patching crashed JVMs under
#                             multi-threaded TCG; C1-only runs did not
#   -XX:+UseSerialGC          2 emulated CPUs: no parallel GC threads to pay for
#   -XX:ErrorFile=$DIR/hs_err_pid%p.log  DIR = $SOFTROCE_HS_ERR_DIR, else
#                             $SOFTROCE_SHARE (run.sh's first --share): a
#                             writable share, so run.sh sees and reports crashes
#   --enable-native-access=ALL-UNNAMED   FFM downcalls without warnings
# env: SOFTROCE_JDK (default /usr/lib/jvm/temurin-25-jdk-amd64)
#      SOFTROCE_JIT_RERUN=0   do not rerun after a crash in JIT code
# Exit code: the JVM's. If the JVM crashed with its problematic frame in JIT
# territory (J/j frame, or a compiler thread), the crash log is renamed to
# softroce-jit-rerun-hs_err_pid<N>.log (run.sh reports it as a note) and the
# JVM is run once more; a second crash stays hs_err_pid<N>.log and run.sh
# fails the run with exit 254.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

JDK=${SOFTROCE_JDK:-$SOFTROCE_DEFAULT_JDK}
[ -x "$JDK/bin/java" ] || sr_die "no JDK at $JDK (set SOFTROCE_JDK)"
ERRDIR=${SOFTROCE_HS_ERR_DIR:-${SOFTROCE_SHARE:-}}
[ -n "$ERRDIR" ] || sr_die "neither SOFTROCE_HS_ERR_DIR nor SOFTROCE_SHARE is set (run java.sh from a run.sh command)"
if [ ! -d "$ERRDIR" ] || [ ! -w "$ERRDIR" ]; then sr_die "hs_err dir $ERRDIR is not a writable directory"; fi
[ "${SOFTROCE_GUEST:-0}" = 1 ] || sr_log "WARNING: not inside the soft-RoCE guest (no SOFTROCE_GUEST=1)"

FLAGS=("${SOFTROCE_JVM_FLAGS[@]}" "-XX:ErrorFile=$ERRDIR/hs_err_pid%p.log")
PIDFILE=$(mktemp "${TMPDIR:-/tmp}/softroce-java.XXXXXX")
trap 'rm -f "$PIDFILE"' EXIT

# The exec keeps the pid, so the JVM's pid (and with it the name of its hs_err
# file) is known exactly even with several JVMs running in the guest.
run_jvm() {
  bash -c 'echo $$ > "$0"; exec "$@"' "$PIDFILE" "$JDK/bin/java" "${FLAGS[@]}" "$@"
}

run_jvm "$@"
rc=$?
[ "$rc" = 0 ] && exit 0
pid=$(cat "$PIDFILE" 2>/dev/null)
log=$ERRDIR/hs_err_pid$pid.log
if [ -n "$pid" ] && [ -f "$log" ] && [ "${SOFTROCE_JIT_RERUN:-1}" = 1 ] && sr_hs_err_is_jit "$log"; then
  mv "$log" "$ERRDIR/softroce-jit-rerun-hs_err_pid$pid.log"
  sr_log "JVM crashed in JIT code (frame: $(sr_hs_err_frame "$ERRDIR/softroce-jit-rerun-hs_err_pid$pid.log")); running it once more"
  run_jvm "$@"
  rc=$?
fi
exit "$rc"
