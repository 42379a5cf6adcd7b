#!/usr/bin/env bash
# Runs, against the kernel's soft-RoCE device (rxe0) in the qemu guest and through the project's own
# API: verbs-core's provider-neutral scenario suite; the differential check that replays every
# scenario on the simulated provider's rxe profile and requires step-for-step agreement; and the
# sample's Spring context on the native provider, after whose close the kernel must hold nothing.
#
# usage: tools/softroce/verbs-suite.sh        (from anywhere; builds what it needs)
# Reports: target/softroce/junit/ (JUnit XML), summarised on stdout. Exit 0 only when every test
# passed, no JVM crashed (254) and the guest finished (255 otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
here=$repo/tools/softroce

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export PATH="$JAVA_HOME/bin:$PATH"

out=$repo/target/softroce
rm -rf "$out/junit"
mkdir -p "$out"

# The modules go to ~/.m2 so that the sample's test class path (which holds verbs-core's test jar
# with the scenario suite) resolves; the guest sees ~/.m2 and the checkout at the same paths.
./mvnw -B -q -pl sample-app -am install -DskipTests -Dmaven.javadoc.skip=true
./mvnw -B -q -pl sample-app dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$out/test.cp"
cp="$repo/sample-app/target/test-classes:$repo/sample-app/target/classes:$(cat "$out/test.cp")"

"$here/build.sh"

# glibc poisons what free() gives back (MALLOC_PERTURB_, with the per-thread cache off so that every free
# goes through it): a native call on a freed verbs object then crashes at once, in the test that made it,
# instead of reading memory that merely looks alive (the close races of CloseRaceScenarios).
set +e
"$here/run.sh" --share "$out" --env CP="$cp" --env MALLOC_PERTURB_=165 \
  --env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 -- \
  '"$SOFTROCE_JAVA" -Drdma.verbs.scenario.targets=native -Drdma.verbs.differential=true \
     -Drdma.verbs.native-tests=true \
     -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
     --select-class io.rdmaverbs.verbs.scenario.ScenarioSuiteTest \
     --select-class io.rdmaverbs.sample.NativeShutdownLeakTest \
     --select-class io.rdmaverbs.verbs.provider.ffm.RdmaCmNativeTest \
     --select-class io.rdmaverbs.verbs.provider.ffm.NativeConnectionVerbsTest \
     --select-class io.rdmaverbs.verbs.provider.ffm.NativeCloseRaceTest \
     --reports-dir "$SOFTROCE_SHARE/junit" --disable-banner --disable-ansi-colors --details=tree'
rc=$?
"$here/junit-summary.sh" --min-tests 20 "$out/junit"
summary=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "verbs-suite: guest run exited $rc (254: a JVM crashed; 255: the guest never finished)" >&2
  exit "$rc"
fi
exit "$summary"
