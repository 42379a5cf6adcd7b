#!/usr/bin/env bash
# Connection benchmarks across two soft-RoCE guests (tools/softroce/two-hosts.sh), C and Java side by
# side in ONE pair of boots, host A serving and host B connecting over rxe1 on the virtual wire:
#   cmtime   rdmacm-utils' cmtime (C) and io.rdmaverbs.benchmarks.connection.CmTime (Java, the same
#            steps through the project's API, plus the Connections total): CONNECTIONS connections,
#            microseconds per connection per step; Java runs CM_PASSES passes in one JVM (the first
#            is a fresh process, as cmtime's; the second shows what was JVM warm-up)
#   pingpong src/main/c/cm_pingpong (C) and PingPong (Java): one RC connection, SIZE-byte send/recv
#            round trips, WARMUP untimed then COUNT timed, for each size in PP_SIZES
# Three rounds, each running every benchmark: c1 (C), java, c2 (C again, to see whether the guests
# drifted). Guest JVMs run through tools/softroce/java.sh (C1 only, serial GC).
#
# usage: benchmarks/two-hosts-cm.sh [--quick]      (--quick: 20 connections, 200 round trips: a smoke run)
#        benchmarks/two-hosts-cm.sh --simulated    the Java side only, both ends in one JVM on two
#                                                  simulated hosts: checks the programs, not numbers
# env: JAVA_HOME (a JDK 25)  BENCH_SKIP_BUILD=1 (use benchmarks/target as built)
#      CM_CONNECTIONS (100)  CM_PASSES (2)  PP_SIZES ("64 4096")  PP_COUNT (1000)  PP_WARMUP (1000)
#      PP_TIMEOUT (s, 150: the bound of one ping-pong client)
# Results: benchmarks/target/results/two-hosts/{machine.txt,A/,B/,A.log,B.log,report.md}: the raw
# outputs are B/<round>-cmtime.txt and B/<round>-pingpong-<size>.txt, the tables report.md
# (two-hosts-report.py). About 11 min on a 2-core machine, both boots included.
set -euo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROUNDS=(c1 java c2)
CM_PORT_C=7471 CM_PORT_JAVA=7472 PP_PORT=7473

# ---- inside the guests: A serves, B connects; they meet on files in $SOFTROCE_WIRE_DIR ----
# shellcheck source=two-hosts-lib.sh
. "$BENCH/two-hosts-lib.sh"

server() {   # server ROUND WHAT OUT: A's side of one benchmark
  local round=$1 what=$2 out=$3 port=$PP_PORT linger=150
  local -a cmd
  case "$round:$what" in
    # cmtime's server never ends by itself; the others end with their last connection, or are ended.
    c*:cmtime)     cmd=(cmtime -b "$SOFTROCE_ADDR" -p "$CM_PORT_C" -c "$CM_CONNECTIONS"); port=$CM_PORT_C; linger=0 ;;
    java:cmtime)   cmd=(jvm io.rdmaverbs.benchmarks.connection.CmTime server "$SOFTROCE_ADDR" "$CM_PORT_JAVA"
                     "$CM_CONNECTIONS" "$CM_PASSES"); port=$CM_PORT_JAVA ;;
    c*:pingpong-*) cmd=("$NATIVE/cm_pingpong" server "$SOFTROCE_ADDR" "$PP_PORT" "${what#pingpong-}" "$PP_COUNT"
                     "$PP_WARMUP") ;;
    java:pingpong-*) cmd=(jvm io.rdmaverbs.benchmarks.connection.PingPong server "$SOFTROCE_ADDR" "$PP_PORT"
                     "${what#pingpong-}" "$PP_COUNT" "$PP_WARMUP") ;;
  esac
  : > "$out"
  serve_step "$round" "$what" "$out" "$port" "$linger" 240 "${cmd[@]}"
  counters >> "$out"
}

client() {   # client ROUND WHAT OUT: B's side of one benchmark, timed by its own clock
  local round=$1 what=$2 out=$3
  local -a cmd
  case "$round:$what" in
    c*:cmtime)     cmd=(timeout 150 cmtime -s "$SOFTROCE_PEER_ADDR" -p "$CM_PORT_C" -c "$CM_CONNECTIONS") ;;
    java:cmtime)   cmd=(timeout 150 "$SOFTROCE_JAVA" -cp "$JAR" io.rdmaverbs.benchmarks.connection.CmTime client
                     "$SOFTROCE_PEER_ADDR" "$CM_PORT_JAVA" "$CM_CONNECTIONS" "$CM_PASSES") ;;
    c*:pingpong-*) cmd=(timeout "$PP_TIMEOUT" "$NATIVE/cm_pingpong" client "$SOFTROCE_PEER_ADDR" "$PP_PORT"
                     "${what#pingpong-}" "$PP_COUNT" "$PP_WARMUP") ;;
    java:pingpong-*) cmd=(timeout "$PP_TIMEOUT" "$SOFTROCE_JAVA" -cp "$JAR" io.rdmaverbs.benchmarks.connection.PingPong
                     client "$SOFTROCE_PEER_ADDR" "$PP_PORT" "${what#pingpong-}" "$PP_COUNT" "$PP_WARMUP") ;;
  esac
  : > "$out"
  client_step "$round" "$what" "$out" "${cmd[@]}"
  counters >> "$out"
  touch "$SOFTROCE_WIRE_DIR/$round-$what.done"
}

guest() {   # guest A|B
  local round what
  uname -r > "$SOFTROCE_OUT/guest-kernel.txt"
  for round in "${ROUNDS[@]}"; do
    for what in cmtime $(for s in $PP_SIZES; do echo "pingpong-$s"; done); do
      echo "== $round $what ($(cut -d' ' -f1 /proc/uptime) s)"
      if [ "$1" = A ]; then server "$round" "$what" "$SOFTROCE_OUT/$round-$what.txt"
      else client "$round" "$what" "$SOFTROCE_OUT/$round-$what.txt"; fi
    done
  done
}

if [ "${1:-}" = --guest ]; then
  set +e   # every outcome is in a result file; the host's report says which are missing
  guest "$2"
  exit 0
fi

# ---- on the host ----
cd "$BENCH/.."
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export CM_CONNECTIONS=${CM_CONNECTIONS:-100} CM_PASSES=${CM_PASSES:-2} PP_SIZES=${PP_SIZES:-64 4096} PP_COUNT=${PP_COUNT:-1000} \
  PP_WARMUP=${PP_WARMUP:-1000} PP_TIMEOUT=${PP_TIMEOUT:-150}
mode=guests
case "${1:-}" in
  --quick) CM_CONNECTIONS=20 PP_COUNT=200 PP_WARMUP=200 ;;
  --simulated) mode=simulated ;;
  "") ;;
  -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "two-hosts-cm.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -B -q -Pbenchmarks -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
fi
export JAR=$BENCH/target/benchmarks.jar NATIVE=$BENCH/target/native
out=$BENCH/target/results/two-hosts
mkdir -p "$out"

if [ "$mode" = simulated ]; then
  java=("$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$JAR")
  rm -rf "$out/simulated"; mkdir -p "$out/simulated"
  "${java[@]}" io.rdmaverbs.benchmarks.connection.CmTime simulated "$CM_CONNECTIONS" | tee "$out/simulated/cmtime.txt"
  for s in $PP_SIZES; do
    "${java[@]}" io.rdmaverbs.benchmarks.connection.PingPong simulated "$s" "$PP_COUNT" "$PP_WARMUP" \
      | tee "$out/simulated/pingpong-$s.txt"
  done
  grep -q '^api close' "$out/simulated/cmtime.txt"
  for s in $PP_SIZES; do grep -q "^pingpong size $s " "$out/simulated/pingpong-$s.txt"; done
  echo "simulated smoke run: ok ($out/simulated)"
  exit 0
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
  echo "qemu: $(qemu-system-x86_64 --version | head -1), TCG (no KVM), two guests of 1 vCPU and ${SOFTROCE_MEM:-2048} MiB"
  echo "rdma-core: $(dpkg-query -W -f '${Version}' librdmacm1 2>/dev/null || echo unknown)"
  echo "jdk: $("$JAVA_HOME/bin/java" -version 2>&1 | sed -n 2p), in the guests C1 only (tools/softroce/java.sh)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "parameters: $CM_CONNECTIONS connections (Java: $CM_PASSES passes); ping-pong sizes $PP_SIZES, $PP_WARMUP warm-up + $PP_COUNT timed round trips"
  echo "host load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

rc=0
SOFTROCE_TWO_CMD_TIMEOUT=${SOFTROCE_TWO_CMD_TIMEOUT:-1200} tools/softroce/two-hosts.sh --out "$out" \
  --env JAR --env NATIVE --env CM_CONNECTIONS --env CM_PASSES --env PP_SIZES --env PP_COUNT --env PP_WARMUP --env PP_TIMEOUT \
  "bash $BENCH/two-hosts-cm.sh --guest A" "bash $BENCH/two-hosts-cm.sh --guest B" || rc=$?
{ echo "host load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "guest kernel: $(cat "$out/A/guest-kernel.txt" 2>/dev/null)"; } >> "$out/machine.txt"
python3 "$BENCH/two-hosts-report.py" "$out" > "$out/report.md" || rc=1
echo "report: $out/report.md"
exit "$rc"
