#!/usr/bin/env bash
# The sample application on two real hosts (issue 13): two soft-RoCE guests on one wire
# (two-hosts.sh), A running the sample with the profiles native,listener, B with native,peer, each
# driven through its HTTP endpoints and read through its event log inside its guest
# (two-hosts-spring-guest.sh, which describes each step). Steps, by default in this order:
#   connect data peer-killed shutdown together together restart link-cut link-cut-recovery
# and always a last stop (both SIGTERMed in the same instant, so that no JVM outlives the run).
# link-cut-recovery is gated on a kernel whose rxe recovers from a live cut (6.12) and KNOWN with its
# evidence on one recorded as wedged (6.1; lib.sh's sr_rxe_after_live_cut). Every step is bounded;
# the run never hangs (two-hosts.sh bounds the boots and the guests).
#
# usage: two-hosts-spring.sh [--out DIR] [--no-build] [--kernel NAME] [--steps 'STEP ...']
#   --out DIR     results (default ./target/softroce/two-hosts-spring-<kernel>): summary.txt, and
#                 two-hosts.sh's A.log, B.log, A/, B/ (application and event logs, the event-log.py
#                 accounts, health and echo JSON, `rdma resource show` snapshots, results, timings), wire/
#   --no-build    use the sample jar as it is (CI: `./mvnw verify` has just built it)
#   --kernel NAME the guests' kernel: a package or a series (6.1, 6.12), as SOFTROCE_KPKG
#   --steps LIST  the steps to run, space-separated, from the list above (`together` repeatable)
# Before the boots, the jar is extracted (java -Djarmode=tools) and an AOT cache of the sample is
# trained on the host with the guests' JVM flags, once per jar (target/softroce/sample-app/): it
# halves each JVM start under TCG. Prints "PASS <step>" / "FAIL <step>: why" per step, the timings,
# where the wall clock went, and ends with "two-hosts spring: N passed, N failed"; exit 0 only if
# every step passed on both hosts.
# env: the guest's bounds SPRING_TWO_*_BOUND (see two-hosts-spring-guest.sh), two-hosts.sh's
#      SOFTROCE_TWO_*_TIMEOUT (the command's: 1200 s here) and run.sh's.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

OUT=
BUILD=1
STEPS="connect data peer-killed shutdown together together restart link-cut link-cut-recovery"
KNOWN_STEPS=" connect data peer-killed shutdown together restart link-cut link-cut-recovery "
usage() { sr_die "usage: two-hosts-spring.sh [--out DIR] [--no-build] [--kernel NAME] [--steps 'STEP ...']"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --kernel) [ $# -ge 2 ] || usage; export SOFTROCE_KPKG=$2; shift 2 ;;
    --steps) [ $# -ge 2 ] || usage; STEPS=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) usage ;;
  esac
done
for s in $STEPS; do
  [[ $KNOWN_STEPS == *" $s "* ]] || sr_die "--steps: no step '$s' (steps:$KNOWN_STEPS)"
done
KLABEL=$(sr_kernel_label "${SOFTROCE_KPKG:-}")
OUT=${OUT:-$REPO/target/softroce/two-hosts-spring-$KLABEL}
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
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

# ---- the sample as the guests run it: extracted, with an AOT cache of its classes ----
# A fat jar's nested jars cannot be in an AOT cache; the extracted layout (a thin jar and lib/) can.
# The cache holds class data, no compiled code (AOTAdapterCaching and AOTStubCaching are off in JDK
# 25), so one trained on the host is safe under TCG's CPU; the guests' JVMs are checked to use it.
T=$(sr_now_us)
KEY=$(sha256sum "$JAR" | cut -c1-16)
APP=$REPO/target/softroce/sample-app/$KEY
if [ ! -f "$APP/ready" ]; then
  rm -rf "$REPO/target/softroce/sample-app"
  mkdir -p "$APP"
  java -Djarmode=tools -jar "$JAR" extract --destination "$APP/app" > "$APP/extract.log" 2>&1 \
    || sr_die "cannot extract $JAR: $(tail -n 3 "$APP/extract.log")"
  # Trained on the simulated profile (the host has no RDMA device): Spring, Tomcat, actuator and the
  # starter are the bulk of the start; the FFM binding's classes load as usual.
  java "${SOFTROCE_JVM_FLAGS[@]}" -XX:AOTCacheOutput="$APP/sample.aot" -jar "$APP/app/rdma-verbs-sample-app.jar" \
    --server.port=0 --spring.profiles.active=simulated > "$APP/training.log" 2>&1 &
  train=$!
  SR_POLL=0.5 sr_wait_for 180 grep -q 'Started SampleApplication' "$APP/training.log" || true
  kill -TERM "$train" 2>/dev/null || true
  SR_POLL=0.5 sr_wait_for 180 eval '! kill -0 '"$train"' 2>/dev/null' || kill -KILL "$train" 2>/dev/null || true
  wait "$train" 2>/dev/null || true
  if [ -s "$APP/sample.aot" ]; then touch "$APP/ready"
  else sr_log "WARNING: no AOT cache trained (see $APP/training.log): the guests' JVMs start without one"; touch "$APP/ready"
  fi
fi
AOT=$APP/sample.aot
[ -s "$AOT" ] || AOT=
PREPARED=$(sr_since "$T")

echo "== two-hosts spring: the sample on A (listener) and B (peer), kernel ${SOFTROCE_KPKG:-$SOFTROCE_DEFAULT_SERIES}, steps: $STEPS stop; results in $OUT"
mkdir -p "$(dirname "$OUT")"
set +e
# shellcheck disable=SC2016  # the commands are expanded in the guests
SOFTROCE_TWO_CMD_TIMEOUT=${SOFTROCE_TWO_CMD_TIMEOUT:-1200} \
  "$HERE/two-hosts.sh" --out "$OUT" --env SPRING_TWO_JAR="$APP/app/rdma-verbs-sample-app.jar" \
    --env SPRING_TWO_AOT_CACHE="$AOT" --env SPRING_TWO_STEPS="$STEPS" \
    --env SPRING_TWO_START_BOUND --env SPRING_TWO_CONNECT_BOUND --env SPRING_TWO_DOWN_BOUND \
    --env SPRING_TWO_LINKCUT_BOUND --env SPRING_TWO_RECONNECT_BOUND --env SPRING_TWO_WEDGED_BOUND \
    --env SPRING_TWO_STOP_BOUND \
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
  elif [ -n "$known" ]; then KNOWN=$((KNOWN + 1)); line="KNOWN $step (this kernel's recorded finding, not counted): $known"
  else PASSED=$((PASSED + 1)); line="PASS $step"
  fi
  echo "$line" | tee -a "$OUT/summary.txt"
}
echo "== steps"
n=0
for step in $STEPS stop; do
  if [ "$step" = together ]; then n=$((n + 1)); step=together-$n; fi
  verdict "$step"
done
if [ "$rc" != 0 ] && [ "$FAILED" = 0 ]; then
  FAILED=$((FAILED + 1))
  echo "FAIL harness: two-hosts.sh exit $rc (see $OUT/console.txt)" | tee -a "$OUT/summary.txt"
fi

{
  echo "== kernel: $(cat "$OUT/A/kernel" 2>/dev/null || echo '?') (A), $(cat "$OUT/B/kernel" 2>/dev/null || echo '?') (B)"
  echo "== timings (ms)"
  for h in A B; do sed "s/^/  $h /" "$OUT/$h/timings" 2>/dev/null || true; done
  echo "== where the wall clock went (A's steps, ms; a JVM start or an echo is B's when B's took longer)"
  awk '
    FILENAME ~ /\/A\/timings$/ { a[$1] = $2 } FILENAME ~ /\/B\/timings$/ { b[$1] = $2 }
    END {
      for (k in a) if (k ~ /^step-/) { steps += a[k] }
      for (k in a) if (k ~ /jvm-listening$/) { s = k; sub(/-jvm-listening$/, "", s); j = a[k]; bk = s "-jvm-answering"; if (bk in b && b[bk] > j) j = b[bk]; jvm += j; njvm++ }
      for (k in b) if (k ~ /^echo-/) { echo += b[k]; necho++ }
      for (k in a) if (k ~ /-sigterm-exit$/) { s = a[k]; if (k in b && b[k] > s) s = b[k]; stop += s; nstop++ }
      printf "  steps %d; of it JVM starts %d (%d), echoes %d (%d), SIGTERM to exit %d (%d), link down %d, the rest %d\n",
        steps, jvm, njvm, echo, necho, stop, nstop, a["link-down"], steps - jvm - echo - stop - a["link-down"]
    }' "$OUT/A/timings" "$OUT/B/timings" 2>/dev/null || true
  # -Xlog:aot of each JVM (spring-app.sh): "Opened AOT cache" when it mapped it, warnings when not.
  echo "== AOT cache ${AOT:-none}: opened by $(grep -l 'Opened AOT cache' "$OUT"/[AB]/aot-*.txt 2>/dev/null | wc -l) of $(ls "$OUT"/[AB]/app-*.log 2>/dev/null | wc -l) JVMs; warnings: $(cat "$OUT"/[AB]/aot-*.txt 2>/dev/null | grep -c '\[warning\]\|\[error\]')"
  echo "== what the event logs said"
  for h in A B; do
    sed "s/^/  $h down: /" "$OUT/$h/down-lines.txt" 2>/dev/null || true
    for f in "$OUT/$h"/*-events.txt; do
      [ -e "$f" ] || continue
      s=$(basename "$f" -events.txt)
      sed "s/^/  $h $s: /" "$f"
    done
  done
  grep -h 'guest run' "$OUT/A.log" "$OUT/B.log" 2>/dev/null | sed 's/^/  /' || true
  echo "  build ${BUILT} s, sample extracted and AOT-trained ${PREPARED} s, wall clock $(sr_since "$T0") s"
  echo "two-hosts spring: $PASSED passed, $FAILED failed, $KNOWN known finding(s) of this kernel"
} | tee -a "$OUT/summary.txt"
[ "$FAILED" = 0 ]
