#!/usr/bin/env bash
# The sample application on two real hosts (issue 13): two soft-RoCE guests on one wire
# (two-hosts.sh), A running the sample with the profiles native,listener, B with native,peer, each
# driven through its HTTP endpoints inside its guest (two-hosts-spring-guest.sh). Steps:
#   connect      B connects to A from application.yml alone; 200 echoes of 4 KiB, CRC32s intact;
#                `rdma resource show cm_id` shows the connection in both kernels
#   peer-killed  SIGKILL of A's JVM: B reports the peer down within a bound and keeps retrying;
#                A started again: B reconnects and the echo works
#   shutdown     SIGTERM on both while connected: exit 143, every phase of the connections'
#                teardown in dependency order in the logs, nothing of any process in the kernels
#   restart      both started again: B connected to A, the echo again
#   link-cut     eth0 down on A until B's heartbeat fails (retry exceeded/flush), then up
#   link-cut-recovery  B connected again after the link is back: KNOWN on this kernel only with
#                its evidence (A's rxe1 counts no packet since eth0 came back; docs/softroce.md)
#   stop         SIGTERM on both again: exit 143, the order, nothing in the kernels
# Every step is bounded; the run never hangs (two-hosts.sh bounds the boots and the guests).
#
# usage: two-hosts-spring.sh [--out DIR] [--no-build]
#   --out DIR    results (default ./target/softroce/two-hosts-spring): summary.txt, and
#                two-hosts.sh's A.log, B.log, A/, B/ (application logs, health and echo JSON,
#                `rdma resource show` snapshots, results, timings), wire/
#   --no-build   use the sample jar as it is (CI: `./mvnw verify` has just built it)
# Prints "PASS <step>" / "FAIL <step>: why" per step, the timings, the wall clock, and ends with
# "two-hosts spring: N passed, N failed"; exit 0 only if every step passed on both hosts.
# env: the guest's bounds SPRING_TWO_*_BOUND (see two-hosts-spring-guest.sh), two-hosts.sh's
#      SOFTROCE_TWO_*_TIMEOUT (the command's: 900 s here) and run.sh's.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

OUT=$REPO/target/softroce/two-hosts-spring
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || sr_die "--out needs a directory"; OUT=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) sr_die "unknown argument: $1 (usage: two-hosts-spring.sh [--out DIR] [--no-build])" ;;
  esac
done
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
STEPS=(connect peer-killed shutdown restart link-cut link-cut-recovery stop)
T0=$(sr_now_us)

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=$SOFTROCE_DEFAULT_JDK
fi
export PATH="$JAVA_HOME/bin:$PATH"
JAR=$REPO/sample-app/target/rdma-verbs-sample-app.jar
cd "$REPO"   # run.sh keeps the cwd: the guests find the checkout (and the jar) at the same path
if [ "$BUILD" = 1 ]; then
  ./mvnw -B -q -pl sample-app -am package -DskipTests -Dmaven.javadoc.skip=true
fi
[ -f "$JAR" ] || sr_die "no sample jar at $JAR (run without --no-build)"
BUILT=$(sr_since "$T0")

echo "== two-hosts spring: the sample on A (listener) and B (peer), results in $OUT"
mkdir -p "$(dirname "$OUT")"
set +e
# shellcheck disable=SC2016  # the commands are expanded in the guests
SOFTROCE_TWO_CMD_TIMEOUT=${SOFTROCE_TWO_CMD_TIMEOUT:-900} \
  "$HERE/two-hosts.sh" --out "$OUT" --env SPRING_TWO_JAR="$JAR" \
    --env SPRING_TWO_START_BOUND --env SPRING_TWO_CONNECT_BOUND --env SPRING_TWO_DOWN_BOUND \
    --env SPRING_TWO_LINKCUT_BOUND --env SPRING_TWO_RECONNECT_BOUND --env SPRING_TWO_STOP_BOUND \
    'bash "$SOFTROCE_HOME/two-hosts-spring-guest.sh"' \
    'bash "$SOFTROCE_HOME/two-hosts-spring-guest.sh"' > "$OUT.console.txt" 2>&1
rc=$?
set -e
mv "$OUT.console.txt" "$OUT/console.txt"
# The guests' step lines and the harness's verdicts; everything else is in A.log, B.log, A/ and B/.
grep -E '^(\[[AB]\] \[[AB] \+|softroce: (host|two hosts))' "$OUT/console.txt" || true

# A step passes when both hosts passed it; a host that has no line for it failed it (its guest
# ended early: two-hosts.sh's line for that host says why).
PASSED=0; FAILED=0; KNOWN=0
: > "$OUT/summary.txt"
verdict() {
  local step=$1 h line why='' known=''
  for h in A B; do
    line=$(grep -m1 -E "^(PASS|FAIL|KNOWN) $step(:|$)" "$OUT/$h/results" 2>/dev/null || true)
    case "$line" in
      "PASS $step") ;;
      "KNOWN $step: "*) known="${known:+$known; }$h: ${line#"KNOWN $step: "}" ;;
      "FAIL $step: "*) why="${why:+$why; }$h: ${line#"FAIL $step: "}" ;;
      *) why="${why:+$why; }$h: no result ($(grep -m1 "^softroce: host $h: " "$OUT/console.txt" | sed "s/^softroce: host $h: //" || echo "see $h.log"))" ;;
    esac
  done
  if [ -n "$why" ]; then FAILED=$((FAILED + 1)); line="FAIL $step: $why"
  elif [ -n "$known" ]; then KNOWN=$((KNOWN + 1)); line="KNOWN $step (an open finding, not counted): $known"
  else PASSED=$((PASSED + 1)); line="PASS $step"
  fi
  echo "$line" | tee -a "$OUT/summary.txt"
}
echo "== steps"
for step in "${STEPS[@]}"; do verdict "$step"; done
if [ "$rc" != 0 ] && [ "$FAILED" = 0 ]; then
  FAILED=$((FAILED + 1))
  echo "FAIL harness: two-hosts.sh exit $rc (see $OUT/console.txt)" | tee -a "$OUT/summary.txt"
fi

echo "== timings (ms)" | tee -a "$OUT/summary.txt"
for h in A B; do sed "s/^/  $h /" "$OUT/$h/timings" 2>/dev/null || true; done | tee -a "$OUT/summary.txt"
echo "== what the logs said" | tee -a "$OUT/summary.txt"
for h in A B; do
  sed "s/^/  $h down: /" "$OUT/$h/down-lines.txt" 2>/dev/null || true
  sed "s/^/  $h shutdown order: /" "$OUT/$h/shutdown-order.txt" 2>/dev/null || true
  sed "s/^/  $h stop order: /" "$OUT/$h/stop-order.txt" 2>/dev/null || true
done | tee -a "$OUT/summary.txt"
grep -h 'guest run' "$OUT/A.log" "$OUT/B.log" 2>/dev/null | sed 's/^/  /' | tee -a "$OUT/summary.txt" || true
echo "  build ${BUILT} s, wall clock $(sr_since "$T0") s" | tee -a "$OUT/summary.txt"
echo "two-hosts spring: $PASSED passed, $FAILED failed, $KNOWN known open finding(s)" | tee -a "$OUT/summary.txt"
[ "$FAILED" = 0 ]
