#!/usr/bin/env bash
# Builds the sample application and runs it (simulated provider unless you pass
# --spring.profiles.active=native). Extra arguments go to the application.
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export PATH="$JAVA_HOME/bin:$PATH"
# No javadoc: the sample needs the jars, not their documentation.
./mvnw -B -q -pl sample-app -am package -DskipTests -Dmaven.javadoc.skip=true
port=8080
for arg in "$@"; do
  case "$arg" in --server.port=*) port=${arg#--server.port=} ;; esac
done
echo "sample: http://localhost:$port/rdma/exchange  http://localhost:$port/actuator/health/rdmaVerbs  (Ctrl-C stops it)"
exec java -jar sample-app/target/rdma-verbs-sample-app.jar "$@"
