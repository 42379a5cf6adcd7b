#!/usr/bin/env bash
# End-to-end proof of the soft-RoCE harness: build, boot, rxe0 ACTIVE, rdma
# resource accounting, RC ping-pong over rxe0, JDK 25 through java.sh, shares,
# cwd below /tmp, exit codes, timeouts, and a crashing JVM reported as such.
#
# usage: selftest.sh [--clean]   (--clean: rebuild the boot image from scratch)
# Ends with "selftest: N passed, N failed"; exit 0 only if nothing failed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

CLEAN=0
case "${1:-}" in
  --clean) CLEAN=1 ;;
  "") ;;
  *) echo "usage: selftest.sh [--clean]" >&2; exit 2 ;;
esac

T_ALL=$(sr_now_us)
PASSED=0; FAILED=0; TIMES=()
ok()   { PASSED=$((PASSED + 1)); echo "  ok   $*"; }
bad()  { FAILED=$((FAILED + 1)); echo "  FAIL $*"; }
# check DESC FILE REGEX: FILE has a line matching the extended REGEX
check() { if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1 (no /$3/ in $(basename "$2"))"; fi; }
check_rc() { if [ "$2" = "$3" ]; then ok "$1 (exit $2)"; else bad "$1 (exit $2, expected $3)"; fi; }
timed() { TIMES+=("$(printf '%-44s %6s s' "$1" "$2")"); }

# Below /tmp on purpose: the guest's /tmp is a fresh tmpfs, so this exercises
# both the share mountpoint made in the tmpfs and the cwd bind-back.
WORK=$(mktemp -d /tmp/softroce-selftest.XXXXXX)
HIDDEN=$(mktemp /tmp/softroce-hidden.XXXXXX)
SHARE=$WORK/share
mkdir -p "$SHARE" "$WORK/classes"
trap 'rm -rf "$WORK" "$HIDDEN"' EXIT
echo "host file in the cwd" > "$WORK/host-file.txt"

echo "== build"
T=$(sr_now_us)
if [ "$CLEAN" = 1 ]; then "$HERE/build.sh" --force; else "$HERE/build.sh"; fi
timed "build.sh$([ "$CLEAN" = 1 ] && echo ' --force')" "$(sr_since "$T")"
ok "build.sh"

echo "== junit-summary.sh (host only)"
J=$WORK/junit
mkdir -p "$J/ok" "$J/fail/sub" "$J/empty"
cat > "$J/ok/TEST-junit-jupiter.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Jupiter" tests="3" skipped="1" failures="0" errors="0">
  <testcase name="opens()" classname="rdma.DeviceTest" time="0.1"/>
  <testcase name="allocPd()" classname="rdma.PdTest" time="0.2"/>
  <testcase name="xrc()" classname="rdma.XrcTest" time="0"><skipped message="no XRC on rxe"/></testcase>
</testsuite>
EOF
cat > "$J/fail/sub/TEST-rdma.QpTest.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="rdma.QpTest" tests="3" failures="1" errors="1" skipped="0">
  <testcase name="connects" classname="rdma.QpTest"/>
  <testcase name="rtr" classname="rdma.QpTest"><failure message="expected: &lt;RTR&gt; but was: &lt;INIT&gt;&#10;second line" type="org.opentest4j.AssertionFailedError">stack</failure></testcase>
  <testcase name="leak" classname="rdma.QpTest"><error type="java.lang.IllegalStateException"><![CDATA[
java.lang.IllegalStateException: 1 qp left
	at rdma.QpTest.leak]]></error></testcase>
</testsuite>
EOF
set +e
"$HERE/junit-summary.sh" "$J/ok" > "$WORK/js-ok.txt"; rc_ok=$?
"$HERE/junit-summary.sh" "$J/fail" > "$WORK/js-fail.txt"; rc_fail=$?
"$HERE/junit-summary.sh" "$J/empty" > "$WORK/js-empty.txt" 2>&1; rc_empty=$?
"$HERE/junit-summary.sh" --min-tests 5 "$J/ok" > /dev/null 2>&1; rc_min=$?
set -e
check_rc "junit-summary: all passed" "$rc_ok" 0
check "junit-summary: totals" "$WORK/js-ok.txt" '^junit: 2 passed, 0 failed, 1 skipped$'
check_rc "junit-summary: failures" "$rc_fail" 1
check "junit-summary: failed test + first message line" "$WORK/js-fail.txt" '^  FAILED rdma\.QpTest\.rtr: expected: <RTR> but was: <INIT>$'
check "junit-summary: errored test" "$WORK/js-fail.txt" '^  ERROR rdma\.QpTest\.leak: java\.lang\.IllegalStateException: 1 qp left$'
check_rc "junit-summary: no report" "$rc_empty" 2
check_rc "junit-summary: --min-tests" "$rc_min" 2

echo "== guest: rxe0, rdma resources, RC ping-pong, JDK 25, shares"
# A genuine SIGSEGV: Unsafe.getLong(0). Plain: inside libjvm (a V frame, no
# rerun). "jit": after warm-up with -Xbatch, inside C1 code (a J frame), which
# java.sh reruns once before it is reported.
cat > "$WORK/Crash.java" <<'EOF'
import java.lang.reflect.Field;

public class Crash {
    static sun.misc.Unsafe U;
    static long peek(long a) { return U.getLong(a); }
    public static void main(String[] args) throws Exception {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        U = (sun.misc.Unsafe) f.get(null);
        if (args.length > 0 && args[0].equals("jit")) {
            long m = U.allocateMemory(8);
            U.putLong(m, 1);
            long s = 0;
            for (int i = 0; i < 20_000; i++) s += peek(m);
            System.out.println("warmed up: " + s);
        }
        System.out.println("reading address 0");
        System.out.println(peek(0L));
    }
}
EOF
"$SOFTROCE_DEFAULT_JDK/bin/javac" -nowarn -XDignore.symbol.file -d "$WORK/classes" "$WORK/Crash.java" 2>/dev/null

cd "$WORK"
# shellcheck disable=SC2016  # expanded in the guest
GUEST_A='
t() { printf "[guest %s] %s\n" "$(cut -d" " -f1 /proc/uptime)" "$*"; }
t start; echo "cwd=$PWD"; cat host-file.txt
ibv_devinfo -d rxe0
rdma resource show
t pingpong
timeout 120 ibv_rc_pingpong -d rxe0 -g 0 -n 200 > "$SOFTROCE_SHARE/pp-server.log" 2>&1 &
srv=$!
for i in $(seq 1 40); do
  sleep 0.25
  timeout 60 ibv_rc_pingpong -d rxe0 -g 0 -n 200 127.0.0.1 > "$SOFTROCE_SHARE/pp-client.log" 2>&1 && break
done
wait $srv; echo "server exit $?"
cat "$SOFTROCE_SHARE/pp-server.log" "$SOFTROCE_SHARE/pp-client.log"
t rping
timeout 60 rping -s -a "$SOFTROCE_RDMA_ADDR" -C 3 > "$SOFTROCE_SHARE/rping-server.log" 2>&1 &
srv=$!
for i in $(seq 1 40); do
  sleep 0.25
  timeout 30 rping -c -a "$SOFTROCE_RDMA_ADDR" -C 3 -v > "$SOFTROCE_SHARE/rping-client.log" 2>&1 && break
done
wait $srv; echo "rping server exit $?"
cat "$SOFTROCE_SHARE/rping-client.log"
rdma resource show
t java
"$SOFTROCE_JAVA" -version 2>&1
t java-done
echo "written by the guest" > "$SOFTROCE_SHARE/guest-file.txt"
echo "second share" > "${SOFTROCE_SHARES#*:}/guest-file2.txt"
echo "selftest env: $SELFTEST_VAR"
touch /usr/softroce-ro-test 2>/dev/null && echo "ROOT IS WRITABLE" || echo "root is read-only"
[ -e '"$HIDDEN"' ] && echo "HOST /tmp LEAKS" || echo "tmp is fresh"
ip -4 addr show | grep -q "inet [^1]" && echo "IPV4 ADDRESS PRESENT" || echo "no ipv4 besides loopback"
t end'
T=$(sr_now_us)
set +e
"$HERE/run.sh" --share "$SHARE" --share share2 --env SELFTEST_VAR="a b'c" "$GUEST_A" > "$WORK/a.out" 2> "$WORK/a.err"
rc=$?
set -e
timed "boot + checks (rxe0, pingpong, java -version)" "$(sr_since "$T")"
sed 's/^/    | /' "$WORK/a.out"
sed 's/^/    ! /' "$WORK/a.err"
check_rc "run.sh main checks" "$rc" 0
check "cwd below /tmp kept (bind-back)" "$WORK/a.out" "^cwd=$WORK\$"
check "host file in cwd readable" "$WORK/a.out" '^host file in the cwd$'
check "ibv_devinfo: rxe0 PORT_ACTIVE" "$WORK/a.out" 'state:[[:space:]]+PORT_ACTIVE'
check "ibv_devinfo: RoCE (Ethernet link layer)" "$WORK/a.out" 'link_layer:[[:space:]]+Ethernet'
check "rdma resource show lists rxe0" "$WORK/a.out" '^0: rxe0: pd [0-9]+ cq [0-9]+ qp [0-9]+'
check "ibv_rc_pingpong server exited 0" "$WORK/a.out" '^server exit 0$'
check "ibv_rc_pingpong client transferred data" "$WORK/a.out" 'bytes in .* seconds = .*Mbit/sec'
check "rdma_cm: rping over \$SOFTROCE_RDMA_ADDR (server)" "$WORK/a.out" '^rping server exit 0$'
check "rdma_cm: rping over \$SOFTROCE_RDMA_ADDR (client)" "$WORK/a.out" '^ping data: rdma-ping-2: '
check "JDK 25 java -version via java.sh" "$WORK/a.out" '^(openjdk|java) version "25'
check "--env value with quotes/spaces" "$WORK/a.out" "^selftest env: a b'c\$"
check "host root is read-only" "$WORK/a.out" '^root is read-only$'
check "guest /tmp is a fresh tmpfs" "$WORK/a.out" '^tmp is fresh$'
check "no IPv4 address besides loopback" "$WORK/a.out" '^no ipv4 besides loopback$'
if [ "$(cat "$SHARE/guest-file.txt" 2>/dev/null)" = "written by the guest" ]; then
  ok "file written into the share is visible on the host"
else
  bad "file written into the share is visible on the host"
fi
if [ "$(cat "$WORK/share2/guest-file2.txt" 2>/dev/null)" = "second share" ]; then
  ok "second, relative --share (created by run.sh) is writable"
else
  bad "second, relative --share (created by run.sh) is writable"
fi

echo "== guest: crashing JVMs"
# shellcheck disable=SC2016  # expanded in the guest
GUEST_B='
"$SOFTROCE_JAVA" --sun-misc-unsafe-memory-access=allow -cp classes Crash
echo "plain crash: java exit $?"
"$SOFTROCE_JAVA" -Xbatch --sun-misc-unsafe-memory-access=allow -cp classes Crash jit
echo "jit crash: java exit $?"
exit 0'
T=$(sr_now_us)
set +e
"$HERE/run.sh" --share "$SHARE" "$GUEST_B" > "$WORK/b.out" 2> "$WORK/b.err"
rc=$?
set -e
timed "boot + 3 crashing JVMs" "$(sr_since "$T")"
sed 's/^/    | /' "$WORK/b.out"
sed 's/^/    ! /' "$WORK/b.err"
check_rc "a crashed JVM fails the run although the command exited 0" "$rc" "$SR_EXIT_CRASH"
check "crash reported with its problematic frame" "$WORK/b.err" '^    # V  \[libjvm\.so\+0x[0-9a-f]+\]  Unsafe_GetLong'
check "top of the native stack reported" "$WORK/b.err" '^      j  Crash\.peek\(J\)J'
check "crash counted as a failure" "$WORK/b.err" 'FAILED: [0-9]+ JVM crash\(es\)'
check "JIT-frame crash rerun once and reported as such" "$WORK/b.err" 'NOTE: a JVM crashed in JIT code and java\.sh reran it once'
check "JIT frame shown" "$WORK/b.err" '^    # J [0-9]+ c1 Crash\.peek'
check "java.sh returned the JVM's exit code (134)" "$WORK/b.out" '^plain crash: java exit 134$'

echo "== guest: exit code, timeout"
T=$(sr_now_us)
set +e
SOFTROCE_QUIET=1 "$HERE/run.sh" 'echo about to exit 7; exit 7' > "$WORK/c.out" 2>&1
rc=$?
set -e
timed "boot + exit 7" "$(sr_since "$T")"
check_rc "command exit code propagated" "$rc" 7
check "command output streamed" "$WORK/c.out" '^about to exit 7$'
T=$(sr_now_us)
set +e
SOFTROCE_TIMEOUT=2 "$HERE/run.sh" 'sleep 600' > "$WORK/d.out" 2>&1
rc=$?
set -e
timed "timeout after 2 s" "$(sr_since "$T")"
check_rc "timeout reported as 'no exit code'" "$rc" "$SR_EXIT_NORC"
check "timeout message" "$WORK/d.out" 'TIMEOUT: the guest was killed after 2 s'

echo "== timings"
printf '  %s\n' "${TIMES[@]}"
printf '  %-44s %6s s\n' "selftest total" "$(sr_since "$T_ALL")"
echo "selftest: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
