#!/usr/bin/env bash
# Runs verbs-core's provider-neutral scenario suite against the kernel's soft-RoCE device (rxe0) in
# the qemu guest, through the project's own API, plus the differential check that replays every
# scenario on the simulated provider's rxe profile and requires step-for-step agreement.
#
# usage: tools/softroce/verbs-suite.sh        (from anywhere; builds what it needs)
#   SOFTROCE_SKIP_BUILD=1   reuse verbs-core/target from a previous build (CI runs mvn verify first)
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

if [ "${SOFTROCE_SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -q -pl verbs-core -am test-compile
fi
# The host resolves the test class path; the guest sees ~/.m2 and the checkout at the same paths.
mvn -B -q -pl verbs-core dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$out/test.cp"
cp="$repo/verbs-core/target/test-classes:$repo/verbs-core/target/classes:$(cat "$out/test.cp")"

"$here/build.sh"

set +e
"$here/run.sh" --share "$out" --env CP="$cp" -- \
  '"$SOFTROCE_JAVA" -Drdma.verbs.scenario.targets=native -Drdma.verbs.differential=true \
     -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
     --select-class io.rdmaverbs.verbs.scenario.ScenarioSuiteTest \
     --select-class io.rdmaverbs.verbs.scenario.DifferentialTest \
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
