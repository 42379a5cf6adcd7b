#!/usr/bin/env bash
# Runs the benchmarks of docs/performance.md and writes their tables to target/results/report.md.
#
# usage: benchmarks/run.sh [--quick] [hotpath] [lifecycle] [scale] [spring]     (no part named: all four)
#   hotpath    on this host: poll/notify/post through the project vs a C loop on the same
#              do-nothing provider (libfakeverbs.so), with -prof gc; plus the C cross-check
#   lifecycle  create/destroy pairs through the project vs lifecycle.c: in the soft-RoCE guest on
#              rxe0 (tools/softroce/run.sh, one boot, C before and after Java), and on this host
#              over the fake provider (what the Java side costs without emulation)
#   scale      on this host: the resource graph at 1k/10k/100k on the simulated provider, the same
#              walk in C over as much memory (graph_walk.c), and the heap retained per resource
#   spring     on this host: the starter on the simulated provider: its health over 1k/10k/100k
#              resources, SpringApplication.run and context.close() with 0-1,000 declared resources,
#              and the heap retained per declared resource
#   --quick    one fork, short iterations: a smoke run, not numbers to publish
# env: JAVA_HOME (a JDK 25; default /usr/lib/jvm/temurin-25-jdk-amd64)
#      BENCH_SKIP_BUILD=1   use benchmarks/target as built (CI builds first)
#      BENCH_JMH_ARGS       extra JMH arguments for the host parts, word-split (e.g. "-f 1")
# Results: benchmarks/target/results/{machine.txt,*.json,*.txt,guest/,report.md}. Takes about
# 15 min for hotpath, 9 for lifecycle (5 of them in the guest), 5 for scale, 13 for spring on a
# 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bench=$repo/benchmarks
out=$bench/target/results

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java=$JAVA_HOME/bin/java

quick=0; parts=()
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    hotpath|lifecycle|scale|spring) parts+=("$a") ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $a (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#parts[@]} -gt 0 ] || parts=(hotpath lifecycle scale spring)
# shellcheck disable=SC2206  # word splitting is the documented contract
extra=(${BENCH_JMH_ARGS:-})
if [ "$quick" = 1 ]; then extra=(-f 1 -wi 1 -i 2 -w 500ms -r 500ms "${extra[@]}"); fi

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -B -q -Pbenchmarks -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
fi
jar=$bench/target/benchmarks.jar
native=$bench/target/native
mkdir -p "$out"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(lscpu | sed -n 's/^Hypervisor vendor: *//p' | sed 's/.*/under a & hypervisor/')"
  echo "memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
  echo "kernel: $(uname -sr)"
  # shellcheck disable=SC1091  # the machine's file, read as it is
  echo "os: $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "jdk: $("$java" -version 2>&1 | sed -n 2p)"
  echo "gcc: $(gcc --version | head -1)"
  echo "rdma-core: $(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null || echo unknown)"
  echo "jmh: $(unzip -p "$jar" META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties 2>/dev/null | sed -n 's/^version=//p')"
  echo "git: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

jmh() {
  "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" "$@"
}

hotpath() {
  echo "== hot path (host) =="
  jmh 'io.rdmaverbs.benchmarks.hotpath.*' -prof gc -rf json -rff "$out/hotpath.json" "${extra[@]}"
  if [ "$quick" = 1 ]; then "$native/hot_path_bench" 10000000 2; else "$native/hot_path_bench"; fi \
    > "$out/hotpath-c.txt"
}

lifecycle() {
  local c_args host jmh_args guest
  if [ "$quick" = 1 ]; then c_args="1 2 300"; host=(); jmh_args="-wi 2 -i 2"
  else c_args="2 5 1000"; host=(-f 2 -wi 3); jmh_args=""; fi

  echo "== lifecycle, host: what the Java side of each pair costs, on the fake provider =="
  jmh 'io.rdmaverbs.benchmarks.lifecycle.*' -p device=fake0 \
    -jvmArgsAppend "-Dio.rdmaverbs.verbs.library=$native/libfakeverbs.so" "${host[@]}" \
    -prof gc -rf json -rff "$out/lifecycle-host.json" "${extra[@]}"
  # shellcheck disable=SC2086  # c_args are three words on purpose
  "$native/lifecycle-fake" fake0 $c_args > "$out/lifecycle-host-c.txt"

  echo "== lifecycle on soft-RoCE rxe0 (qemu guest, one boot) =="
  guest=$out/guest
  rm -rf "$guest"; mkdir -p "$guest"
  # C, then Java, then C again: the second C run shows whether the guest drifted meanwhile.
  # shellcheck disable=SC2016  # expanded in the guest
  tools/softroce/run.sh --share "$guest" --env JAR="$jar" --env NATIVE="$native" \
    --env C_ARGS="$c_args" --env JMH_ARGS="$jmh_args" -- '
    set -e
    uname -r > "$SOFTROCE_SHARE/guest-kernel.txt"
    "$NATIVE/lifecycle" "$SOFTROCE_RDMA_DEV" $C_ARGS > "$SOFTROCE_SHARE/lifecycle-c-1.txt"
    "$SOFTROCE_JAVA" -jar "$JAR" "io.rdmaverbs.benchmarks.lifecycle.*" -p device="$SOFTROCE_RDMA_DEV" \
      -rf json -rff "$SOFTROCE_SHARE/lifecycle.json" $JMH_ARGS > "$SOFTROCE_SHARE/lifecycle-jmh.txt"
    "$NATIVE/lifecycle" "$SOFTROCE_RDMA_DEV" $C_ARGS > "$SOFTROCE_SHARE/lifecycle-c-2.txt"'
  { echo "qemu: $(qemu-system-x86_64 --version | head -1), TCG (no KVM), ${SOFTROCE_SMP:-2} vCPUs, C1 only"
    echo "guest kernel: $(cat "$guest/guest-kernel.txt")"; } >> "$out/machine.txt"
}

scale() {
  local heap_args
  echo "== resource graph at scale (host, simulated provider) =="
  jmh 'io.rdmaverbs.benchmarks.scale.*' -prof gc -rf json -rff "$out/scale.json" "${extra[@]}"
  # The same walk as listedResourcesNamed in C, over as much memory: what the machine does to it.
  if [ "$quick" = 1 ]; then "$native/graph_walk" 2 1000,10000; else "$native/graph_walk" 5; fi > "$out/graph-walk-c.txt"
  # rounds, then the sizes as one comma-separated argument
  # shellcheck disable=SC2054
  if [ "$quick" = 1 ]; then heap_args=(1 1000,10000); else heap_args=(3 1000,10000,100000); fi
  "$java" --enable-native-access=ALL-UNNAMED -Xmx6g -cp "$jar" io.rdmaverbs.benchmarks.scale.RetainedHeap \
    "${heap_args[@]}" > "$out/heap.txt"
}

spring() {
  local heap_args
  echo "== Spring Boot starter at scale (host, simulated provider) =="
  jmh 'io.rdmaverbs.benchmarks.spring.*' -prof gc -rf json -rff "$out/spring.json" "${extra[@]}"
  # rounds, then the numbers of declared resources as one comma-separated argument
  # shellcheck disable=SC2054
  if [ "$quick" = 1 ]; then heap_args=(1 250,1000); else heap_args=(3 250,500,1000); fi
  # Soft references cleared at every full GC: Spring's soft caches are not what the application retains.
  "$java" --enable-native-access=ALL-UNNAMED -Xmx6g -XX:SoftRefLRUPolicyMSPerMB=0 -cp "$jar" \
    io.rdmaverbs.benchmarks.spring.DeclaredHeap "${heap_args[@]}" > "$out/spring-heap.txt"
}

for part in "${parts[@]}"; do
  "$part"
done

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
python3 "$bench/report.py" "$out" > "$out/report.md"
echo "report: $out/report.md"
