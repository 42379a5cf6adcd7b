#!/usr/bin/env bash
# Runs, against the kernel's soft-RoCE device (rxe0) in the qemu guest and through the project's own
# API: verbs-core's provider-neutral scenario suite; the differential check that replays every
# scenario on the simulated provider's rxe profile and requires step-for-step agreement (where the
# kernels answer differently, the scenario names which kernel gives which answer); and the sample's
# Spring context on the native provider, after whose close the kernel must hold nothing.
#
# usage: tools/softroce/verbs-suite.sh [--no-build] [--kernel NAME]...   (from anywhere)
#   --no-build     the modules are installed already (CI: after ./mvnw verify and one install)
#   --kernel NAME  a kernel to run on: a package or a series (6.1, 6.12), as SOFTROCE_KPKG; repeat it
#                  for several, each in a guest of its own, all at once (1 vCPU each, so that two
#                  kernels share this machine's two cores); default Debian 12's own, 6.1
# Reports: target/softroce/junit-<kernel>/ (JUnit XML), summarised on stdout per kernel. Exit 0 only
# when every test passed on every kernel, no JVM crashed (254) and every guest finished (255 otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
here=$repo/tools/softroce
# shellcheck source=lib.sh
. "$here/lib.sh"

build=1; kernels=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --kernel) [ $# -ge 2 ] || sr_die "--kernel needs a name"; kernels+=("$2"); shift 2 ;;
    *) sr_die "usage: verbs-suite.sh [--no-build] [--kernel NAME]..." ;;
  esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=("${SOFTROCE_KPKG:-$SOFTROCE_DEFAULT_SERIES}")

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=$SOFTROCE_DEFAULT_JDK
fi
export PATH="$JAVA_HOME/bin:$PATH"

out=$repo/target/softroce
mkdir -p "$out"

# The modules go to ~/.m2 so that the sample's test class path (which holds verbs-core's test jar
# with the scenario suite) resolves; the guest sees ~/.m2 and the checkout at the same paths.
if [ "$build" = 1 ]; then
  ./mvnw -B -q -pl sample-app -am install -DskipTests -Dmaven.javadoc.skip=true
fi
./mvnw -B -q -pl sample-app dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$out/test.cp"
cp="$repo/sample-app/target/test-classes:$repo/sample-app/target/classes:$(cat "$out/test.cp")"

# Each kernel's image once, before any guest starts (a build must not run twice in parallel).
for k in "${kernels[@]}"; do SOFTROCE_KPKG=$k "$here/build.sh"; done

unreachable=io.rdmaverbs.verbs.provider.ffm.NativeConnectionVerbsTest#anUnreachableLinkLocalDestinationIsReportedAsAnEventWithItsStatus
smp=${SOFTROCE_SMP:-2}; mem=${SOFTROCE_MEM:-4096}
if [ ${#kernels[@]} -gt 1 ]; then smp=${SOFTROCE_SMP:-1}; mem=${SOFTROCE_MEM:-3072}; fi
declare -A pid=()
for k in "${kernels[@]}"; do
  label=$(sr_kernel_label "$k")
  rm -rf "$out/junit-$label"
  mkdir -p "$out/junit-$label"
  # glibc poisons what free() gives back (MALLOC_PERTURB_, with the per-thread cache off so that every
  # free goes through it): a native call on a freed verbs object then crashes at once, in the test that
  # made it, instead of reading memory that merely looks alive (the close races of CloseRaceScenarios).
  # The unreachable-destination test waits out the IB CM's REQ retries (78-102 s) and does next to nothing
  # meanwhile: it runs in a JVM of its own beside the rest, whose kernel checks count only their own
  # process's objects (KernelResources). Its log follows the suite's; either JVM's failure fails the run.
  # shellcheck disable=SC2016  # expanded in the guest
  SOFTROCE_KPKG=$k SOFTROCE_SMP=$smp SOFTROCE_MEM=$mem "$here/run.sh" --share "$out/junit-$label" --env CP="$cp" \
    --env MALLOC_PERTURB_=165 --env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 --env UNREACHABLE="$unreachable" -- \
    'junit() { "$SOFTROCE_JAVA" -Drdma.verbs.scenario.targets=native -Drdma.verbs.differential=true \
         -Drdma.verbs.native-tests=true -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
         --disable-banner --disable-ansi-colors --details=tree "$@"; }
     mkdir -p "$SOFTROCE_SHARE/unreachable"
     junit --select-method "$UNREACHABLE" --reports-dir "$SOFTROCE_SHARE/unreachable" \
       > "$SOFTROCE_SHARE/unreachable.log" 2>&1 &
     beside=$!
     junit --select-class io.rdmaverbs.verbs.scenario.ScenarioSuiteTest \
       --select-class io.rdmaverbs.sample.NativeShutdownLeakTest \
       --select-class io.rdmaverbs.verbs.provider.ffm.RdmaCmNativeTest \
       --select-class io.rdmaverbs.verbs.provider.ffm.NativeConnectionVerbsTest \
       --select-class io.rdmaverbs.verbs.provider.ffm.NativeCloseRaceTest \
       --exclude-methodname ".*#${UNREACHABLE#*#}.*" --reports-dir "$SOFTROCE_SHARE"
     rc=$?
     wait "$beside"; rc_beside=$?
     echo "== the unreachable-destination test, in a JVM of its own (exit $rc_beside)"
     cat "$SOFTROCE_SHARE/unreachable.log"
     [ "$rc" -ne 0 ] && exit "$rc"
     exit "$rc_beside"' \
    > "$out/guest-$label.log" 2>&1 &
  pid[$k]=$!
done

failed=0
for k in "${kernels[@]}"; do
  label=$(sr_kernel_label "$k")
  rc=0; wait "${pid[$k]}" || rc=$?
  echo "== verbs-suite on $k ($out/guest-$label.log)"
  cat "$out/guest-$label.log"
  summary=0; "$here/junit-summary.sh" --min-tests 20 "$out/junit-$label" || summary=$?
  if [ "$rc" -ne 0 ]; then
    echo "verbs-suite: $k: guest run exited $rc (254: a JVM crashed; 255: the guest never finished)" >&2
    failed=1
  elif [ "$summary" -ne 0 ]; then
    failed=1
  fi
done
exit "$failed"
