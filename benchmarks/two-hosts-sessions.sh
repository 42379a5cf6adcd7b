#!/usr/bin/env bash
# The data plane of a connection across two soft-RoCE guests (tools/softroce/two-hosts.sh), C and Java
# side by side in ONE pair of boots, host A serving and host B connecting over rxe1 on the virtual wire,
# on the guests' IPv6 link-local addresses:
#   probe   perftest's ib_send_bw, ib_write_bw, ib_read_bw and ib_send_lat with -R (rdma_cm) on those
#           addresses, each once: Debian 12's perftest (4.5-0.17) cannot resolve an IPv6 address for
#           rdma_cm (getaddrinfo with AF_INET only), and this records how each fails (or that it ran)
#   C       src/main/c/cm_perf, perftest's send_bw / write_bw / read_bw patterns at each size of SIZES
#           and send_lat at 64 B over librdmacm, empty polls spinning as perftest's (spin) or, with
#           SESS_C_WAITS="spin yield", also yielding (what spinning costs on one emulated CPU)
#   Java    io.rdmaverbs.benchmarks.connection.SessionBench: one connection, one-way messages at each
#           size from a registered region and from a heap array, WINDOW in flight, then 64 B
#           request/reply; CPU, allocation and wakeups per message on both sides; what registering a
#           rendezvous's region costs at the sizes that go by rendezvous
# Rounds: probe, then SESS_PAIRS pairs of a C round and a Java round (c1 j1 c2 j2 ...): the pairs show
# how far the guests drift on a host shared with other work. Each side records rxe's
# hw_counters before and after each run (RNR NAKs: rcvd_rnr_err on the sender, send_rnr_err on the
# receiver). Guest JVMs run through tools/softroce/java.sh (C1 only, serial GC).
#
# usage: benchmarks/two-hosts-sessions.sh [--quick]    (--quick: a tenth of the messages: a smoke run)
#        benchmarks/two-hosts-sessions.sh --simulated  the Java side only, both ends in one JVM on two
#                                                      simulated hosts: checks the program, and gives a
#                                                      host figure of allocation (simulator included)
# env: JAVA_HOME (a JDK 25)  BENCH_SKIP_BUILD=1 (use benchmarks/target as built)
#      SESS_SIZES ("64 4096 65536 1048576")  SESS_BYTES (bytes per size and run, 33554432; ITERS = BYTES /
#      SIZE within SESS_MIN 50 .. SESS_MAX 5000)  SESS_WINDOW (128, perftest's tx_depth)
#      SESS_LAT_COUNT (300)  SESS_LAT_WARMUP (300)  SESS_C_WAITS ("spin")  SESS_PAIRS (3)  SESS_JIT_WARMUP (2000:
#      untimed messages before the Java cases, a quarter of them by rendezvous: C1 compiles a method after
#      about 200 calls)
#      SESS_TIMEOUT (s, 900: the bound of one client)
# Results: benchmarks/target/results/two-hosts-sessions/{machine.txt,A/,B/,A.log,B.log,report.md}: the
# raw outputs are <host>/<round>-<test>.txt, the tables report.md (two-hosts-sessions-report.py).
set -euo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PORT=7475
PERFTEST=(ib_send_bw ib_write_bw ib_read_bw ib_send_lat)

# ---- inside the guests: A serves, B connects; they meet on files in $SOFTROCE_WIRE_DIR ----
# shellcheck source=two-hosts-lib.sh
. "$BENCH/two-hosts-lib.sh"

iters() {   # iters SIZE: SESS_BYTES / SIZE, within SESS_MIN..SESS_MAX
  local n=$((SESS_BYTES / $1))
  [ "$n" -ge "$SESS_MIN" ] || n=$SESS_MIN
  [ "$n" -le "$SESS_MAX" ] || n=$SESS_MAX
  echo "$n"
}

# The tests of a round, one a line: perftest-TOOL | TEST-SIZE-WAIT (C) | sessions (Java).
tests() {
  local t s w
  case "$1" in
    probe) printf 'perftest-%s\n' "${PERFTEST[@]}" ;;
    j*) echo sessions ;;
    c*)
      for w in $SESS_C_WAITS; do
        for t in send_bw write_bw read_bw; do
          for s in $SESS_SIZES; do echo "$t-$s-$w"; done
        done
        echo "send_lat-64-$w"
      done ;;
  esac
}

# SessionBench's cases: the JIT warm-up (small messages, then the rendezvous path at 16 KiB), each size
# from a registered region, then from the heap; the request/reply; the rendezvous's registration.
java_cases() {
  local s n
  echo "warmup:64:registered:$SESS_JIT_WARMUP warmup:16384:registered:$((SESS_JIT_WARMUP / 4))" \
    "warmup:16384:heap:$((SESS_JIT_WARMUP / 4))"
  for s in $SESS_SIZES; do
    n=$(iters "$s")
    echo "send:$s:registered:$n:$((n / 4 + 10)) send:$s:heap:$n:$((n / 4 + 10))"
  done
  echo "request:64:$SESS_LAT_COUNT:$SESS_LAT_WARMUP"
  for s in $SESS_SIZES; do
    [ "$s" -le 8192 ] || echo "register:$s:$(( $(iters "$s") / 2 + 5 ))"
  done
}

# What runs for TEST on host A (server) or B (client).
command_for() {   # command_for server|client TEST
  local role=$1 test=$2 addr t s w
  [ "$role" = server ] && addr=$SOFTROCE_ADDR || addr=$SOFTROCE_PEER_ADDR
  case "$test" in
    perftest-*)
      if [ "$role" = server ]; then echo "${test#perftest-} -R -d $SOFTROCE_WIRE_DEV -F -n 100 -p $PORT"
      else echo "timeout 60 ${test#perftest-} -R -d $SOFTROCE_WIRE_DEV -F -n 100 -p $PORT $addr"; fi ;;
    sessions)
      if [ "$role" = server ]; then echo "$SOFTROCE_JAVA -cp $JAR io.rdmaverbs.benchmarks.connection.SessionBench server $addr $PORT"
      else echo "timeout $SESS_TIMEOUT $SOFTROCE_JAVA -cp $JAR io.rdmaverbs.benchmarks.connection.SessionBench client $addr $PORT $SESS_WINDOW $(java_cases | tr '\n' ' ')"; fi ;;
    *)
      IFS=- read -r t s w <<< "$test"
      echo "$([ "$role" = client ] && echo "timeout $SESS_TIMEOUT ")$NATIVE/cm_perf $role $addr $PORT $t $s $([ "$t" = send_lat ] && echo "$SESS_LAT_COUNT" || iters "$s") $w" ;;
  esac
}

server() {   # server ROUND TEST OUT: A's side of one test
  local round=$1 test=$2 out=$3 linger=300
  # The servers end with their connection; a perftest server that never got one is ended at once.
  case "$test" in perftest-*) linger=0 ;; esac
  { echo "-- command: $(command_for server "$test")"; echo "-- counters before"; counters; echo "-- output"; } > "$out"
  # shellcheck disable=SC2046  # the command's words, as command_for printed them
  serve_step "$round" "$test" "$out" "$PORT" "$linger" "$((SESS_TIMEOUT + 60))" $(command_for server "$test")
  { echo "-- counters after"; counters; } >> "$out"
}

client() {   # client ROUND TEST OUT: B's side of one test, timed by its own clock
  local round=$1 test=$2 out=$3
  { echo "-- command: $(command_for client "$test")"; echo "-- counters before"; counters; echo "-- output"; } > "$out"
  # shellcheck disable=SC2046
  client_step "$round" "$test" "$out" $(command_for client "$test")
  { echo "-- counters after"; counters; } >> "$out"
  touch "$SOFTROCE_WIRE_DIR/$round-$test.done"
}

guest() {   # guest A|B
  local round test i
  local -a rounds=(probe)
  for ((i = 1; i <= SESS_PAIRS; i++)); do rounds+=("c$i" "j$i"); done
  uname -r > "$SOFTROCE_OUT/guest-kernel.txt"
  dpkg-query -W -f '${Version}\n' perftest > "$SOFTROCE_OUT/perftest-version.txt" 2>&1
  ibv_devinfo -v -d "$SOFTROCE_WIRE_DEV" 2>&1 | grep -E 'max_qp_rd_atom|max_qp_init_rd_atom|active_mtu' \
    | tr -s ' \t' ' ' > "$SOFTROCE_OUT/device.txt"
  for round in "${rounds[@]}"; do
    for test in $(tests "$round"); do
      echo "== $round $test ($(cut -d' ' -f1 /proc/uptime) s)"
      if [ "$1" = A ]; then server "$round" "$test" "$SOFTROCE_OUT/$round-$test.txt"
      else client "$round" "$test" "$SOFTROCE_OUT/$round-$test.txt"; fi
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
export SESS_SIZES=${SESS_SIZES:-64 4096 65536 1048576} SESS_BYTES=${SESS_BYTES:-33554432} SESS_MIN=${SESS_MIN:-50} \
  SESS_MAX=${SESS_MAX:-5000} SESS_WINDOW=${SESS_WINDOW:-128} SESS_LAT_COUNT=${SESS_LAT_COUNT:-300} \
  SESS_LAT_WARMUP=${SESS_LAT_WARMUP:-300} SESS_C_WAITS=${SESS_C_WAITS:-spin} SESS_TIMEOUT=${SESS_TIMEOUT:-900} \
  SESS_JIT_WARMUP=${SESS_JIT_WARMUP:-2000} SESS_PAIRS=${SESS_PAIRS:-3}
mode=guests
case "${1:-}" in
  --quick) SESS_BYTES=$((SESS_BYTES / 10)) SESS_MIN=10 SESS_MAX=$((SESS_MAX / 10)) SESS_LAT_COUNT=50 SESS_LAT_WARMUP=20
           SESS_JIT_WARMUP=200 SESS_PAIRS=1 ;;
  --simulated) mode=simulated ;;
  "") ;;
  -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "two-hosts-sessions.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -B -q -Pbenchmarks -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
fi
for dep in ib_send_bw ib_write_bw ib_read_bw ib_send_lat; do
  command -v "$dep" > /dev/null || { echo "two-hosts-sessions.sh: $dep missing: apt-get install perftest" >&2; exit 2; }
done
export JAR=$BENCH/target/benchmarks.jar NATIVE=$BENCH/target/native
out=$BENCH/target/results/two-hosts-sessions
mkdir -p "$out"

if [ "$mode" = simulated ]; then
  rm -rf "$out/simulated"; mkdir -p "$out/simulated"
  # shellcheck disable=SC2046
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$JAR" io.rdmaverbs.benchmarks.connection.SessionBench \
    simulated "$SESS_WINDOW" $(java_cases) | tee "$out/simulated/sessions.txt"
  for s in $SESS_SIZES; do
    for src in registered heap; do grep -q "^session send size $s source $src " "$out/simulated/sessions.txt"; done
  done
  grep -q '^session request size 64 ' "$out/simulated/sessions.txt"
  echo "simulated smoke run: ok ($out/simulated)"
  exit 0
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
  echo "qemu: $(qemu-system-x86_64 --version | head -1), TCG (no KVM), two guests of 1 vCPU and ${SOFTROCE_MEM:-2048} MiB"
  echo "rdma-core: $(dpkg-query -W -f '${Version}' librdmacm1 2>/dev/null || echo unknown), perftest: $(dpkg-query -W -f '${Version}' perftest)"
  echo "jdk: $("$JAVA_HOME/bin/java" -version 2>&1 | sed -n 2p), in the guests C1 only (tools/softroce/java.sh)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "parameters: sizes $SESS_SIZES; $SESS_BYTES bytes per size ($SESS_MIN..$SESS_MAX messages); window $SESS_WINDOW;" \
    "latency $SESS_LAT_WARMUP warm-up + $SESS_LAT_COUNT timed; Java JIT warm-up $SESS_JIT_WARMUP; C polls: $SESS_C_WAITS; $SESS_PAIRS pairs of rounds"
  echo "host load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

rc=0
SOFTROCE_TWO_CMD_TIMEOUT=${SOFTROCE_TWO_CMD_TIMEOUT:-3600} tools/softroce/two-hosts.sh --out "$out" \
  --env JAR --env NATIVE --env SESS_SIZES --env SESS_BYTES --env SESS_MIN --env SESS_MAX --env SESS_WINDOW \
  --env SESS_LAT_COUNT --env SESS_LAT_WARMUP --env SESS_C_WAITS --env SESS_TIMEOUT --env SESS_JIT_WARMUP --env SESS_PAIRS \
  "bash $BENCH/two-hosts-sessions.sh --guest A" "bash $BENCH/two-hosts-sessions.sh --guest B" || rc=$?
{ echo "host load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "guest kernel: $(cat "$out/A/guest-kernel.txt" 2>/dev/null)"
  echo "wire device (A):$(tr '\n' ';' < "$out/A/device.txt" 2>/dev/null)"; } >> "$out/machine.txt"
python3 "$BENCH/two-hosts-sessions-report.py" "$out" > "$out/report.md" || rc=1
echo "report: $out/report.md"
exit "$rc"
